//! Prints how close `sgpt stats` comes to the speed of reading: the roofline (the file's
//! bytes read; every span's duration decoded as the statistics read it, nothing else; and
//! every span decoded whole, for comparison), the analysis as it was (two-pass
//! statistics, then frame timing) and as it is (one decode, on rayon pools of 1 and 2
//! threads), and the `sgpt stats --json` binary end to end with `RAYON_NUM_THREADS` 1 and
//! 2, each in M spans/s and as a share of the decode roofline; then `sgpt diff --json`
//! of that capture against a second run of it, on 1 and 2 threads, as a ratio to
//! `sgpt stats --json` of one on as many threads (the goal: at most 2), and, in process,
//! how much of that is the two scans and how much the comparison engine. Beside them,
//! `sgpt validate --json`, `sgpt info --json` and `sgpt workload --json` (every frame
//! decoded whole) on 1 and 2 threads.
//! Run: `cargo bench -p sgpt-cli --bench stats`.
//!
//! On `target/bench-captures/hour.sgpt` (216,000 frames × 200 passes, 43.2 M spans) when it
//! exists, else on a 21,600-frame synthetic capture written beside it, which it says;
//! the diff against `hour-run2.sgpt`, else against a second synthetic run (another seed).
//! Each figure is the median of several runs; the machine is shared, so ratios travel better.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sgpt_format::analysis::pass_stats;
use sgpt_format::analysis::scan::{ScanJob, ScanOptions, Windows, scan_parallel};
use sgpt_format::compare::{CompareOptions, try_compare};
use sgpt_format::frame_timing::frame_timing;
use sgpt_format::{Capture, Frame, synth};

const REPETITIONS: usize = 5;

fn median_time(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..REPETITIONS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[REPETITIONS / 2]
}

fn capture_path() -> (PathBuf, bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-captures");
    let hour = root.join("hour.sgpt");
    if hour.exists() {
        return (hour, true);
    }
    (small_capture(&root, "bench-stats-21600.sgpt", 0), false)
}

/// A tenth of the hour, generated once with `seed`.
fn small_capture(root: &Path, name: &str, seed: u64) -> PathBuf {
    let small = root.join(name);
    if !small.exists() {
        let options = synth::SynthOptions { frames: 21_600, passes: 200, seed, ..Default::default() };
        std::fs::create_dir_all(root).expect("bench-captures folder");
        std::fs::write(&small, synth::generate(&options)).expect("write the capture");
    }
    small
}

/// The capture `sgpt diff` compares the first against: a second run of it.
fn second_run(first: &Path, hour: bool) -> PathBuf {
    let root = first.parent().expect("a folder");
    let run2 = root.join("hour-run2.sgpt");
    if hour && run2.exists() {
        return run2;
    }
    small_capture(root, "bench-stats-21600-run2.sgpt", 2)
}

/// The median time of `sgpt args…` with `RAYON_NUM_THREADS=threads`, output discarded.
fn sgpt_time(args: &[&std::ffi::OsStr], threads: &str) -> Duration {
    median_time(|| {
        let status = Command::new(env!("CARGO_BIN_EXE_sgpt"))
            .args(args)
            .env("RAYON_NUM_THREADS", threads)
            .stdout(Stdio::null())
            .status()
            .expect("run sgpt");
        assert!(status.success());
    })
}

/// The machine's load average, where it can be read: the machine is shared, and a
/// second thread only helps when a second core is free.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn main() {
    let (path, hour) = capture_path();
    let bytes = std::fs::read(&path).expect("read the capture");
    let capture = Capture::open(&bytes).expect("open");
    let frames = capture.frames().len();
    let spans = capture.span_count() as f64;
    println!(
        "sgpt stats bench — {}: {} frames, {:.1} M spans, {:.0} MB{}",
        path.display(),
        frames,
        spans / 1e6,
        bytes.len() as f64 / 1e6,
        if hour { "" } else { " (hour.sgpt absent: a tenth of the hour, generated)" }
    );
    println!("load average before: {}", load());
    let rate = |time: Duration| spans / time.as_secs_f64() / 1e6;

    let read = median_time(|| drop(black_box(std::fs::read(&path).expect("read"))));
    let decode = median_time(|| {
        let mut sum = 0u64;
        for index in 0..frames {
            capture.for_each_span(index, |span| sum = sum.wrapping_add(span.end_ns)).expect("decode");
        }
        black_box(sum);
    });
    // Two frames at a time, as the statistics decode them (`Capture::for_each_span_two`).
    let two = median_time(|| {
        let mut sum = 0u64;
        let mut sum_b = 0u64;
        for index in (0..frames - frames % 2).step_by(2) {
            let each_b = |span: sgpt_format::Span| sum_b = sum_b.wrapping_add(span.end_ns);
            for result in
                capture.for_each_span_two([index, index + 1], |span| sum = sum.wrapping_add(span.end_ns), each_b)
            {
                result.expect("decode");
            }
        }
        if frames % 2 == 1 {
            capture.for_each_span(frames - 1, |span| sum = sum.wrapping_add(span.end_ns)).expect("decode");
        }
        black_box((sum, sum_b));
    });
    // Durations alone, as the statistics read a frame of passes 0, 1, 2, … in turn: the
    // least any statistics of these frames could decode.
    let mut other = 0;
    let alone = median_time(|| {
        let (sum, frames) = sgpt_format::dev::roofline::durations_only(&capture);
        other = frames;
        black_box(sum);
    });
    let mut frame = Frame::default();
    let whole = median_time(|| {
        for index in 0..frames {
            capture.frame_into(index, &mut frame).expect("decode");
            black_box(&frame);
        }
    });
    let roofline = rate(alone);
    println!("roofline (one core)");
    println!(
        "  read the file's bytes: {:.3} s, {:.0} MB/s",
        read.as_secs_f64(),
        bytes.len() as f64 / read.as_secs_f64() / 1e6
    );
    println!(
        "  decode durations alone, two frames at a time (as the statistics read frames of passes in turn): \
         {:.3} s, {roofline:.0} M spans/s (= 1.00; {other} frames of other shapes)",
        alone.as_secs_f64()
    );
    println!(
        "  decode every span whole: {:.3} s, {:.0} M spans/s ({:.2})",
        decode.as_secs_f64(),
        rate(decode),
        rate(decode) / roofline
    );
    println!(
        "  decode every span whole, two frames at a time: {:.3} s, {:.0} M spans/s ({:.2})",
        two.as_secs_f64(),
        rate(two),
        rate(two) / roofline
    );
    println!(
        "  decode whole frames (what frame timing needs): {:.3} s, {:.0} M spans/s ({:.2})",
        whole.as_secs_f64(),
        rate(whole),
        rate(whole) / roofline
    );

    let before = median_time(|| {
        black_box((pass_stats(&capture, 0..frames), frame_timing(&capture, 0..frames)));
    });
    println!("analysis in process");
    println!(
        "  before: pass_stats then frame_timing (three decodes), 1 thread: {:.3} s, {:.0} M spans/s ({:.2})",
        before.as_secs_f64(),
        rate(before),
        rate(before) / roofline
    );
    println!("  scan_parallel (statistics and frame timing from one decode) on a pool of");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let options = ScanOptions { chunks: 0, ..ScanOptions::default() };
        let time = median_time(|| {
            pool.install(|| black_box(scan_parallel(&capture, 0..frames, &options, &|_| {})));
        });
        println!(
            "    {threads} thread{}: {:.3} s, {:.0} M spans/s ({:.2} of the decode roofline)",
            if threads == 1 { " " } else { "s" },
            time.as_secs_f64(),
            rate(time),
            rate(time) / roofline
        );
    }

    // The inspector's page without workers: the same scan as a job, a thousand units a
    // step, its pieces scanned in process; and with a comparison's samples as coins.
    for samples in [false, true] {
        let time = median_time(|| {
            let mut job = if samples {
                ScanJob::with_samples(&capture, 0..frames, Windows::Auto, true)
            } else {
                ScanJob::new(&capture, 0..frames, Windows::Auto)
            };
            loop {
                let mut units = 1024;
                if job.step(&mut || {
                    units -= 1;
                    units >= 0
                }) {
                    break;
                }
            }
            black_box(job.finish_scan());
        });
        println!(
            "  ScanJob a step at a time (the page's own scan){}: {:.3} s, {:.0} M spans/s ({:.2})",
            if samples { ", with a comparison's samples as coins" } else { "" },
            time.as_secs_f64(),
            rate(time),
            rate(time) / roofline
        );
    }

    println!("`sgpt stats --json` end to end (read, open, analyse, print)");
    let mut stats_times = Vec::new();
    for threads in ["1", "2"] {
        let time = sgpt_time(&["stats".as_ref(), "--json".as_ref(), path.as_os_str()], threads);
        stats_times.push(time);
        println!(
            "  RAYON_NUM_THREADS={threads}: {:.3} s, {:.0} M spans/s ({:.2} of the decode roofline)",
            time.as_secs_f64(),
            rate(time),
            rate(time) / roofline
        );
    }

    // Checking every frame whole, as `validate` does, with the frame timing from the same
    // decode, as `info` does, and each frame's commands, as `workload` does: a full decode
    // of each frame, where the statistics decode only the spans' durations.
    for (command, what) in [
        ("validate", "check every frame whole"),
        ("info", "check and time every frame whole"),
        ("workload", "summarise every frame's commands"),
    ] {
        println!("`sgpt {command} --json` end to end (read, open, {what}, print)");
        for (threads, stats) in ["1", "2"].into_iter().zip(stats_times.iter().copied()) {
            let time = sgpt_time(&[command.as_ref(), "--json".as_ref(), path.as_os_str()], threads);
            println!(
                "  RAYON_NUM_THREADS={threads}: {:.3} s, {:.0} M spans/s ({:.2} × `sgpt stats --json` on as many threads)",
                time.as_secs_f64(),
                rate(time),
                time.as_secs_f64() / stats.as_secs_f64()
            );
        }
    }

    let run2 = second_run(&path, hour);
    println!("`sgpt diff --json` end to end of it against {} (both read, analysed, sampled, compared)", run2.display());
    for (threads, stats) in ["1", "2"].into_iter().zip(stats_times.iter().copied()) {
        let time = sgpt_time(&["diff".as_ref(), "--json".as_ref(), path.as_os_str(), run2.as_os_str()], threads);
        println!(
            "  RAYON_NUM_THREADS={threads}: {:.3} s, {:.2} × `sgpt stats --json` of one on as many threads",
            time.as_secs_f64(),
            time.as_secs_f64() / stats.as_secs_f64()
        );
    }
    // Where diff's time goes, in process: the two scans (statistics and samples, the usual
    // passes as coins, one after the other as `sgpt diff` runs them), then the comparison
    // engine on their samples; and the same scans without samples, for what collecting
    // them costs.
    let bytes2 = std::fs::read(&run2).expect("read the second run");
    let capture2 = Capture::open(&bytes2).expect("open the second run");
    println!(
        "  in process, as a share of `sgpt stats --json` on as many threads: both scans with samples as coins (without), then `try_compare`"
    );
    for (threads, stats) in [1, 2].into_iter().zip(stats_times) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let options =
            ScanOptions { chunks: 0, frame_timing: false, samples: true, coins: true, ..ScanOptions::default() };
        let whole = |capture: &Capture<'_>| {
            scan_parallel(capture, 0..capture.frames().len(), &options, &|_| {})
                .samples
                .expect("the workload keeps coins")
        };
        let mut samples = None;
        let scans = median_time(|| samples = Some(pool.install(|| (whole(&capture), whole(&capture2)))));
        let (a, b) = samples.expect("scanned");
        let plain = ScanOptions { samples: false, coins: false, ..options };
        let without = median_time(|| {
            pool.install(|| {
                for capture in [&capture, &capture2] {
                    black_box(scan_parallel(capture, 0..capture.frames().len(), &plain, &|_| {}));
                }
            });
        });
        let compared =
            || try_compare(&a, &b, &CompareOptions::default()).expect("the workload's coins tell every figure");
        let engine = median_time(|| drop(black_box(pool.install(compared))));
        println!(
            "    {threads} thread{}: scans {:.3} s ({:.2} ×; without samples {:.2} ×), compare {:.3} s ({:.2} ×)",
            if threads == 1 { " " } else { "s" },
            scans.as_secs_f64(),
            scans.as_secs_f64() / stats.as_secs_f64(),
            without.as_secs_f64() / stats.as_secs_f64(),
            engine.as_secs_f64(),
            engine.as_secs_f64() / stats.as_secs_f64()
        );
    }
    println!("load average after: {}", load());
    println!("goals: ≥ 100 M spans/s on one core, ≥ 170 M spans/s on two, ≤ 0.45 s for the hour");
    println!("       `sgpt diff` of two hours ≤ 2 × `sgpt stats` of one");
}
