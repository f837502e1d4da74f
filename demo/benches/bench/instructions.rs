//! Section `instructions`: the CPU cost per GPU pass in instructions, counted by callgrind,
//! beside wgpu-profiler's: on the calling thread, and on two encoding threads.
//!
//! CPU time on a shared machine moves by ±100 ns a pass from run to run, more than the
//! differences it is asked to show. Instructions executed do not depend on the machine's
//! load, the core's clock or the cache: they are the stable half of the cost (time per
//! instruction is not the same for every kind of frame, so the CPU-time section stays the
//! one in nanoseconds). The bench runs itself under `valgrind --tool=callgrind` once per
//! kind of frame and frame count, with `SGPT_BENCH_PROBE` naming what to record; only
//! [`probe_encode`], [`probe_end`] and the workers' `worker_encode` are counted, each on
//! its own thread (submit, the wait for the GPU and lavapipe's own threads are not).
//! Instructions do not show what threads cost each other (a contended atomic is one
//! instruction): the `cpu` section's two-thread figure does. The per-pass figure is the
//! difference between 16 and 4 frames, over the passes of the 12 frames between: setup,
//! pipeline compilation and the first frames' growth cancel out.
//!
//! Each figure is also given outside the C allocator, with the allocator calls counted
//! apart ([`sgpt_test_support::callgrind`]): the allocator's own instructions are the one
//! part that moves between identical runs, so the all-instructions ratio moves by about
//! ±0.1 and the other repeats. The second is the stricter of the two for sgpt: it leaves
//! out the instructions of wgpu-profiler's allocations (about six a pass), where sgpt's
//! are a few a frame, none a pass.

use std::process::Command;

use sgpt_test_support::callgrind::{self, Collected};

use super::{
    Encode, Encoded, Frame, Gpu, PASSES, end_frame, handle_here, handle_threads, one_thread, recorders, resolve,
};

/// What the probe run records: which shape of frame (`session`, `handle`, `threads`),
/// which kind (`raw`, `stamped`, `sgpt`, `profiler`), how many frames.
const PROBE: &str = "SGPT_BENCH_PROBE";
const FEW_FRAMES: usize = 4;
const MANY_FRAMES: usize = 16;
/// The shapes on one thread, by the name the probe takes; their raw and wgpu-profiler
/// frames are the same.
const ONE_THREAD: [(&str, &str); 2] = [
    ("session", "the session's GraphPassScope + compute_pass"),
    ("handle", "the Recorder handle's graph_pass + scoped_compute_pass"),
];

/// The CPU work of one frame up to its submit: begin, encode, resolve, finish. Counted.
#[inline(never)]
fn probe_encode(gpu: &Gpu, frame: &mut Frame<'_>, encode: &Encode<'_>) -> Vec<wgpu::CommandBuffer> {
    if let Frame::Session(session) = frame {
        session.begin_frame().expect("frame begins");
    }
    let Encoded { mut encoders, .. } = encode(gpu, frame);
    resolve(gpu, frame, &mut encoders);
    encoders.into_iter().map(wgpu::CommandEncoder::finish).collect()
}

/// The CPU work of one frame after its submit. Counted.
#[inline(never)]
fn probe_end(gpu: &Gpu, frame: &mut Frame<'_>) {
    end_frame(gpu, frame);
}

/// Runs the probe `SGPT_BENCH_PROBE` names, if it names one: `shape,kind,frames`. Returns
/// whether it ran (the bench then prints nothing else).
pub(super) fn run_probe(gpu: &Gpu) -> bool {
    let Ok(probe) = std::env::var(PROBE) else { return false };
    let parts: Vec<&str> = probe.split(',').collect();
    let [shape, kind, frames] = parts[..] else { panic!("{PROBE}={probe}: expected shape,kind,frames") };
    let frames: usize = frames.parse().unwrap_or_else(|_| panic!("{PROBE}={probe}: frames is not a count"));
    let encode: &Encode<'_> = match shape {
        "handle" => &handle_here,
        "threads" => &handle_threads,
        _ => &one_thread,
    };
    let (stamps, mut session, mut profiler) = recorders(gpu);
    for _ in 0..frames {
        let mut frame = match kind {
            "raw" => Frame::Raw,
            "stamped" => Frame::Stamped(&stamps),
            "sgpt" => Frame::Session(&mut session),
            "profiler" => Frame::Profiler(&mut profiler),
            other => panic!("{PROBE}: no kind {other}"),
        };
        let buffers = probe_encode(gpu, &mut frame, encode);
        gpu.queue.submit(buffers);
        probe_end(gpu, &mut frame);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }
    true
}

/// What the probe `shape,kind` executes in [`probe_encode`] and [`probe_end`] over `frames`
/// frames, read from callgrind's output; `Err` says why there is no count.
fn counted(shape: &str, kind: &str, frames: usize) -> Result<Collected, String> {
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    let out = std::env::temp_dir().join(format!("sgpt-probe-{}-{shape}-{kind}-{frames}.out", std::process::id()));
    let output = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--toggle-collect=*::probe_encode",
            "--toggle-collect=*::probe_end",
            "--toggle-collect=*::worker_encode",
        ])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .env(PROBE, format!("{shape},{kind},{frames}"))
        .output()
        .map_err(|error| format!("valgrind: {error}"))?;
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("the probe failed under valgrind: {}", stderr.lines().last().unwrap_or("")));
    }
    let text = text.map_err(|error| format!("callgrind's output {}: {error}", out.display()))?;
    callgrind::parse(&text).map_err(|error| format!("callgrind's output {}: {error}", out.display()))
}

/// A probe's figures per pass: the difference between the two frame counts.
#[derive(Clone, Copy, Debug)]
struct PerPass {
    total: f64,
    outside_allocator: f64,
    allocator_calls: f64,
}

impl PerPass {
    fn minus(self, other: Self) -> Self {
        Self {
            total: self.total - other.total,
            outside_allocator: self.outside_allocator - other.outside_allocator,
            allocator_calls: self.allocator_calls - other.allocator_calls,
        }
    }
}

/// Figures per pass of `shape,kind`: the difference between the two frame counts.
fn per_pass(shape: &str, kind: &str) -> Result<PerPass, String> {
    // The two runs are independent processes: both cores at once.
    let (few, many) = std::thread::scope(|threads| {
        let few = threads.spawn(|| counted(shape, kind, FEW_FRAMES));
        let many = counted(shape, kind, MANY_FRAMES);
        (few.join().expect("the probe thread"), many)
    });
    let (few, many) = (few?, many?);
    let passes = (MANY_FRAMES - FEW_FRAMES) as f64 * f64::from(PASSES);
    let per = |many: u64, few: u64| (many as f64 - few as f64) / passes;
    Ok(PerPass {
        total: per(many.total, few.total),
        outside_allocator: per(many.outside_allocator(), few.outside_allocator()),
        allocator_calls: per(many.allocator_calls, few.allocator_calls),
    })
}

/// The per-pass counts of `kinds` in `shape`, or why there are none.
fn counts_of(shape: &str, kinds: &[&str]) -> Result<Vec<PerPass>, String> {
    kinds.iter().map(|kind| per_pass(shape, kind).map_err(|error| format!("{kind}: {error}"))).collect()
}

/// Prints the raw and wgpu-profiler rows, then each of `ours` (name, figures a pass) as a
/// ratio to wgpu-profiler's own cost: in all instructions, and outside the allocator.
/// `[raw, stamped, profiler]`: their figures.
fn print_rows([raw, stamped, profiler]: [PerPass; 3], ours: &[(&str, PerPass)]) {
    println!(
        "{:<28} {:>8.0} instructions a pass ({:.0} outside the allocator; {:.1} allocator calls)",
        "raw wgpu", raw.total, raw.outside_allocator, raw.allocator_calls
    );
    let share = stamped.minus(raw);
    println!(
        "{:<28} {:>8.0} ({:+.0}, outside the allocator {:+.0}: wgpu's share of a timed pass)",
        "raw, timestamp writes", stamped.total, share.total, share.outside_allocator
    );
    let theirs = profiler.minus(stamped);
    println!(
        "{:<28} {:>8.0} (own cost {:+.0} over timestamped raw; outside the allocator {:+.0}; allocator calls {:+.2})",
        "wgpu-profiler 0.28", profiler.total, theirs.total, theirs.outside_allocator, theirs.allocator_calls
    );
    for &(name, count) in ours {
        let own = count.minus(stamped);
        println!(
            "sgpt-recorder, {name}: {:.0} (own cost {:+.0}: {:.2}× wgpu-profiler's; outside the allocator {:+.0}: {:.2}×; allocator calls {:+.2})",
            count.total,
            own.total,
            own.total / theirs.total,
            own.outside_allocator,
            own.outside_allocator / theirs.outside_allocator,
            own.allocator_calls,
        );
    }
}

pub(super) fn instruction_counts(_gpu: &Gpu) {
    println!(
        "\n== Instructions per GPU pass, counted by callgrind ({PASSES} one-dispatch compute passes a frame, frames {MANY_FRAMES} minus {FEW_FRAMES}; begin, encode, resolve, finish and end of frame; submit excluded)"
    );
    println!(
        "   Instructions outside the C allocator repeat to the instruction between runs; those inside it (malloc's consolidation, realloc's copies) move by about ±150 a pass with lavapipe's threads, so the all-instructions ratio moves by about ±0.1 from run to run."
    );
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("skipped: valgrind is not installed (apt install valgrind)");
        return;
    }
    let result = (|| -> Result<(), String> {
        println!("-- 1 thread");
        let shared = counts_of("session", &["raw", "stamped", "profiler"])?;
        let mut ours = Vec::new();
        for (shape, name) in ONE_THREAD {
            ours.push((name, per_pass(shape, "sgpt")?));
        }
        print_rows([shared[0], shared[1], shared[2]], &ours);
        println!("-- 2 threads, an encoder each (both threads' instructions)");
        let threads = counts_of("threads", &["raw", "stamped", "profiler", "sgpt"])?;
        print_rows([threads[0], threads[1], threads[2]], &[("clones of the Recorder handle", threads[3])]);
        Ok(())
    })();
    if let Err(error) = result {
        println!("no count: {error}");
    }
}
