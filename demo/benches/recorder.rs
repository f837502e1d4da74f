//! Prints the recorder's costs on the local Vulkan adapter (lavapipe in CI), beside
//! wgpu-profiler 0.28's on the same device, in one run:
//!
//! - CPU cost per GPU pass at each level, and wgpu-profiler's per scope, on one thread and
//!   on two encoding threads, each also over raw passes with the same timestamp writes
//!   (what wgpu itself spends on a timed pass, which no profiler can cut);
//! - the same at level Timing beside wgpu-profiler in CPU time (the encoding threads'),
//!   each kind of frame rotated over the same four devices round by round, so that
//!   neither a device's own cost nor a wait for a core lands on one kind (section `cpu`);
//! - the same in instructions, counted by callgrind where valgrind is installed, which no
//!   load on the machine moves (section `instructions`);
//! - the recorder's own time per frame (`recorder_cost_ns`) on a two-pass frame;
//! - demo frame time with the session off and at `Workload`, as a ratio;
//! - the structure figures, measured on the demo: distinct topologies over 600 frames, GPU
//!   passes per frame, bytes per frame at each level.
//!
//! `cargo bench -p sgpt-demo --bench recorder` (`SGPT_BENCH_ONLY=passes,cpu,instructions,boundary,frame,structure`
//! for some sections; `SGPT_BENCH_SPLIT=1` also prints each kind of frame's phases). Figures, not
//! assertions: timing belongs in benches.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    bench::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    // `benches/bench/`: the inline module `bench`'s own folder.
    mod instructions;

    use std::time::{Duration, Instant};

    use sgpt_demo::{Scene, SceneOptions, native};
    use sgpt_format::Capture;
    use sgpt_recorder::{FrameScope, GraphPassScope, Level, MemorySink, ProfileSession, Recorder, SessionOptions};

    /// A section of the bench, by the name `SGPT_BENCH_ONLY` selects it with.
    type Section = (&'static str, fn(&Gpu));

    /// GPU passes per measured frame.
    const PASSES: u32 = 1000;
    /// Encoding threads of the threaded comparison.
    const THREADS: u32 = 2;
    const WARM_FRAMES: usize = 5;
    /// Frames of each kind, measured in turn.
    const ROUNDS: usize = 41;

    struct Gpu {
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        pipeline: wgpu::ComputePipeline,
    }

    fn median(mut values: Vec<Duration>) -> Duration {
        values.sort_unstable();
        values[values.len() / 2]
    }

    fn ns(duration: Duration) -> f64 {
        duration.as_secs_f64() * 1e9
    }

    fn wait(gpu: &Gpu) {
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// One frame's encode: its encoders (one per thread), given the frame's profiler
    /// state; the CPU time measured is the encode plus the frame hooks, submit excluded.
    type Encode<'a> = dyn Fn(&Gpu, &mut Frame<'_>) -> Encoded + 'a;

    /// A frame's encoders, and the CPU time the worker threads that encoded them spent (zero
    /// when the calling thread encoded them itself).
    struct Encoded {
        encoders: Vec<wgpu::CommandEncoder>,
        workers_cpu: Duration,
    }

    /// The calling thread's CPU time so far: what a frame costs the threads that encode it,
    /// without the time they wait for a core on a shared machine, or for each other.
    #[cfg(target_os = "linux")]
    fn thread_cpu() -> Duration {
        let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(u64::try_from(time.tv_sec).unwrap_or(0), u32::try_from(time.tv_nsec).unwrap_or(0))
    }

    /// No thread CPU clock is read elsewhere: the `cpu` section says so and is skipped.
    #[cfg(not(target_os = "linux"))]
    fn thread_cpu() -> Duration {
        Duration::ZERO
    }

    /// What a measured frame records through.
    enum Frame<'a> {
        Raw,
        /// Raw passes with timestamp writes into `query_set`: wgpu's own share of a timed
        /// pass, which no profiler can cut.
        Stamped(&'a wgpu::QuerySet),
        Session(&'a mut ProfileSession),
        Profiler(&'a mut wgpu_profiler::GpuProfiler),
    }

    fn encoder(gpu: &Gpu) -> wgpu::CommandEncoder {
        gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
    }

    /// `count` one-dispatch passes on `encoder`, raw (timestamped from slot `first`).
    fn raw_passes(
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        stamps: Option<&wgpu::QuerySet>,
        first: u32,
        count: u32,
    ) {
        for at in first..first + count {
            let timestamp_writes = stamps.map(|query_set| wgpu::ComputePassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: Some(at * 2),
                end_of_pass_write_index: Some(at * 2 + 1),
            });
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes });
            pass.set_pipeline(&gpu.pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }

    /// The frame's passes on one thread, through the session's wrappers or wgpu-profiler's scopes.
    fn one_thread(gpu: &Gpu, frame: &mut Frame<'_>) -> Encoded {
        let mut encoder = encoder(gpu);
        match frame {
            Frame::Raw => raw_passes(gpu, &mut encoder, None, 0, PASSES),
            Frame::Stamped(query_set) => raw_passes(gpu, &mut encoder, Some(query_set), 0, PASSES),
            Frame::Session(session) => {
                let mut scope = GraphPassScope::named(Some(&mut **session), &mut encoder, "frame");
                for _ in 0..PASSES {
                    let mut pass = scope
                        .compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: None });
                    pass.set_pipeline(&gpu.pipeline);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
            Frame::Profiler(profiler) => profiler_passes(gpu, profiler, &mut encoder, PASSES),
        }
        Encoded { encoders: vec![encoder], workers_cpu: Duration::ZERO }
    }

    /// The frame's passes on the calling thread through the session's `Recorder` handle
    /// (wgpu-profiler's and the raw frames as in [`one_thread`]): the handle's own cost,
    /// without a worker thread's.
    fn handle_here(gpu: &Gpu, frame: &mut Frame<'_>) -> Encoded {
        let Frame::Session(session) = frame else { return one_thread(gpu, frame) };
        let mut encoder = encoder(gpu);
        handle_passes(gpu, &session.recorder(), &mut encoder, PASSES);
        Encoded { encoders: vec![encoder], workers_cpu: Duration::ZERO }
    }

    /// `count` one-dispatch passes on `encoder` through `recorder`, in one graph pass.
    fn handle_passes(gpu: &Gpu, recorder: &Recorder, encoder: &mut wgpu::CommandEncoder, count: u32) {
        let mut scope = recorder.graph_pass("frame", encoder);
        for _ in 0..count {
            let mut pass = scope.scoped_compute_pass("pass");
            pass.compute_pipeline(&gpu.pipeline);
            pass.dispatch(1, 1, 1);
        }
    }

    /// `count` one-dispatch passes on `encoder` through wgpu-profiler's `&self` scopes, in
    /// one scope.
    fn profiler_passes(
        gpu: &Gpu,
        profiler: &wgpu_profiler::GpuProfiler,
        encoder: &mut wgpu::CommandEncoder,
        count: u32,
    ) {
        let mut scope = profiler.scope("frame", encoder);
        for _ in 0..count {
            let mut pass = scope.scoped_compute_pass("pass");
            pass.set_pipeline(&gpu.pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }

    /// The frame's passes on one worker thread through the session's `Recorder` handle.
    fn handle_thread(gpu: &Gpu, frame: &mut Frame<'_>) -> Encoded {
        threads(gpu, frame, 1)
    }

    /// The frame's passes on `THREADS` worker threads, an encoder each.
    fn handle_threads(gpu: &Gpu, frame: &mut Frame<'_>) -> Encoded {
        threads(gpu, frame, THREADS)
    }

    /// The frame's passes on `count` worker threads, an encoder each: through clones of
    /// the session's `Recorder` handle, or wgpu-profiler's `&self` scopes.
    fn threads(gpu: &Gpu, frame: &mut Frame<'_>, count: u32) -> Encoded {
        let per_thread = PASSES / count;
        let (recorder, profiler, stamps) = match frame {
            Frame::Session(session) => (Some(session.recorder()), None, None),
            Frame::Profiler(profiler) => (None, Some(&**profiler), None),
            Frame::Stamped(query_set) => (None, None, Some(*query_set)),
            Frame::Raw => (None, None, None),
        };
        std::thread::scope(|threads| {
            let workers: Vec<_> = (0..count)
                .map(|thread| {
                    let recorder = recorder.clone();
                    threads.spawn(move || {
                        let cpu = thread_cpu();
                        let passes = thread * per_thread..(thread + 1) * per_thread;
                        let encoder = worker_encode(gpu, recorder.as_ref(), profiler, stamps, passes);
                        (encoder, thread_cpu() - cpu)
                    })
                })
                .collect();
            let mut encoded = Encoded { encoders: Vec::new(), workers_cpu: Duration::ZERO };
            for worker in workers {
                let (encoder, cpu) = worker.join().expect("encodes");
                encoded.encoders.push(encoder);
                encoded.workers_cpu += cpu;
            }
            encoded
        })
    }

    /// A worker thread's encoder of `passes` (the frame's passes it encodes): through
    /// `recorder`, `profiler`, or raw (timestamped into `stamps`). Not inlined: the
    /// `instructions` section counts the workers' instructions in it.
    #[inline(never)]
    fn worker_encode(
        gpu: &Gpu,
        recorder: Option<&Recorder>,
        profiler: Option<&wgpu_profiler::GpuProfiler>,
        stamps: Option<&wgpu::QuerySet>,
        passes: std::ops::Range<u32>,
    ) -> wgpu::CommandEncoder {
        let mut encoder = encoder(gpu);
        let count = passes.len() as u32;
        if let Some(recorder) = recorder {
            handle_passes(gpu, recorder, &mut encoder, count);
        } else if let Some(profiler) = profiler {
            profiler_passes(gpu, profiler, &mut encoder, count);
        } else {
            raw_passes(gpu, &mut encoder, stamps, passes.start, count);
        }
        encoder
    }

    /// One frame's wall-clock time by phase: begin and encode, resolve, finish, and the end of the
    /// frame (wgpu-profiler's `end_frame` and `process_finished_frame`); submit and the GPU's
    /// wait excluded.
    #[derive(Clone, Copy, Debug, Default)]
    struct Phases([Duration; 4]);

    impl Phases {
        const NAMES: [&'static str; 4] = ["encode", "resolve", "finish", "end frame"];

        fn total(self) -> Duration {
            self.0.iter().sum()
        }
    }

    /// One frame's wall-clock phases, and the CPU time of every thread that worked on it
    /// (the calling thread's, submit excluded, and the encoding workers'): the second does
    /// not count the time a thread waited for a core.
    #[derive(Clone, Copy, Debug, Default)]
    struct Timed {
        phases: Phases,
        cpu: Duration,
    }

    fn timed_frame(gpu: &Gpu, frame: &mut Frame<'_>, encode: &Encode<'_>) -> Timed {
        let cpu_started = thread_cpu();
        let started = Instant::now();
        if let Frame::Session(session) = frame {
            session.begin_frame().expect("frame begins");
        }
        let Encoded { mut encoders, workers_cpu } = encode(gpu, frame);
        let encoded = Instant::now();
        resolve(gpu, frame, &mut encoders);
        let resolved = Instant::now();
        let buffers: Vec<_> = encoders.into_iter().map(wgpu::CommandEncoder::finish).collect();
        let finished = Instant::now();
        let cpu_finished = thread_cpu();
        gpu.queue.submit(buffers);
        let cpu_submitted = thread_cpu();
        let ended = Instant::now();
        end_frame(gpu, frame);
        let phases = Phases([encoded - started, resolved - encoded, finished - resolved, ended.elapsed()]);
        let cpu = (cpu_finished - cpu_started) + (thread_cpu() - cpu_submitted) + workers_cpu;
        wait(gpu);
        Timed { phases, cpu }
    }

    /// Resolves the frame's queries: the session's on each encoder, wgpu-profiler's on one
    /// more encoder, submitted last.
    fn resolve(gpu: &Gpu, frame: &mut Frame<'_>, encoders: &mut Vec<wgpu::CommandEncoder>) {
        match frame {
            Frame::Session(session) => {
                for encoder in encoders {
                    session.resolve_queries(encoder).expect("frame is open");
                }
            }
            Frame::Profiler(profiler) => {
                let mut resolve = encoder(gpu);
                profiler.resolve_queries(&mut resolve);
                encoders.push(resolve);
            }
            Frame::Raw | Frame::Stamped(_) => {}
        }
    }

    /// Ends the frame after its submit: the session's `end_frame`, wgpu-profiler's
    /// `end_frame` and `process_finished_frame`.
    fn end_frame(gpu: &Gpu, frame: &mut Frame<'_>) {
        match frame {
            Frame::Session(session) => session.end_frame().expect("frame ends"),
            Frame::Profiler(profiler) => {
                profiler.end_frame().expect("frame ends");
                drop(profiler.process_finished_frame(gpu.queue.get_timestamp_period()));
            }
            Frame::Raw | Frame::Stamped(_) => {}
        }
    }

    /// Medians of each phase per kind of frame, in ns a pass (`SGPT_BENCH_SPLIT=1`): where a
    /// profiler's cost lands, encode or frame end.
    fn print_split(times: &[Vec<Phases>], levels: &[&str]) {
        let mut kinds = vec!["raw wgpu".to_owned(), "raw, timestamp writes".to_owned()];
        kinds.extend(levels.iter().map(|level| format!("sgpt-recorder {level}")));
        kinds.push("wgpu-profiler 0.28".to_owned());
        print!("{:<28}", "phase medians, ns a pass:");
        for name in Phases::NAMES {
            print!(" {name:>10}");
        }
        println!();
        for (kind, times) in kinds.iter().zip(times) {
            print!("{kind:<28}");
            for phase in 0..Phases::NAMES.len() {
                let phase_ns = ns(median(times.iter().map(|phases| phases.0[phase]).collect()));
                print!(" {:>10.1}", phase_ns / f64::from(PASSES));
            }
            println!();
        }
    }

    fn per_pass_costs(gpu: &Gpu) {
        let split = std::env::var_os("SGPT_BENCH_SPLIT").is_some();
        // Every kind of frame on a device of its own, alike (a device takes one session).
        let features = gpu.device.features();
        let (raw_gpu, stamped_gpu, profiler_gpu) =
            (device_with(gpu, features), device_with(gpu, features), device_with(gpu, features));
        let stamps = stamped_gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("raw timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: PASSES * 2,
        });
        let mut sessions: Vec<(Level, Gpu, ProfileSession)> = Level::ALL
            .into_iter()
            .map(|level| {
                let own = device_with(gpu, features);
                // Room for the slots each encoder's last run of claims leaves unused.
                let options = SessionOptions { max_spans_per_frame: PASSES + 64, ..SessionOptions::at(level) };
                let mut session = ProfileSession::new(options, MemorySink::new());
                session.describe_compute_pipeline(
                    &own.pipeline,
                    &sgpt_recorder::PipelineInfo { label: "empty", entry_point: "main", ..Default::default() },
                );
                session.start(&own.device, &own.queue, &own.adapter).expect("starts");
                (level, own, session)
            })
            .collect();
        let mut profiler =
            wgpu_profiler::GpuProfiler::new(&profiler_gpu.device, wgpu_profiler::GpuProfilerSettings::default())
                .expect("profiler");
        for (shape, encode, levels) in [
            ("1 thread: the session's GraphPassScope + compute_pass", &one_thread as &Encode<'_>, Level::ALL.len()),
            ("1 worker thread: the Recorder handle's graph_pass + scoped_compute_pass", &handle_thread, 1),
            ("2 threads: clones of the Recorder handle, an encoder each (frame CPU time)", &handle_threads, 1),
        ] {
            println!(
                "\n== CPU cost per GPU pass, {shape}: {PASSES} one-dispatch compute passes a frame, wgpu-profiler 0.28 per scope beside; every kind of frame in turn, median of {ROUNDS} each"
            );
            let mut times: Vec<Vec<Phases>> = vec![Vec::new(); levels + 3];
            for round in 0..WARM_FRAMES + ROUNDS {
                let mut frames = vec![(&raw_gpu, Frame::Raw), (&stamped_gpu, Frame::Stamped(&stamps))];
                frames
                    .extend(sessions.iter_mut().take(levels).map(|(_, own, session)| (&*own, Frame::Session(session))));
                frames.push((&profiler_gpu, Frame::Profiler(&mut profiler)));
                for (at, (gpu, frame)) in frames.iter_mut().enumerate() {
                    let time = timed_frame(gpu, frame, encode);
                    if round >= WARM_FRAMES {
                        times[at].push(time.phases);
                    }
                }
            }
            if split {
                print_split(
                    &times,
                    &sessions.iter().take(levels).map(|(level, _, _)| level.name()).collect::<Vec<_>>(),
                );
            }
            let medians: Vec<f64> =
                times.into_iter().map(|times| ns(median(times.into_iter().map(Phases::total).collect()))).collect();
            let (raw, stamped, profiler_ns) = (medians[0], medians[1], medians[levels + 2]);
            let per_pass = |frame: f64, base: f64| (frame - base) / f64::from(PASSES);
            let profiler_total = per_pass(profiler_ns, raw);
            let profiler_own = per_pass(profiler_ns, stamped);
            println!("{:<28} {:>10.0} ns/frame", "raw wgpu", raw);
            println!(
                "{:<28} {:>10.0} ns/frame  {:>6.0} ns a pass over raw: wgpu's share of a timed pass",
                "raw wgpu, timestamp writes",
                stamped,
                per_pass(stamped, raw)
            );
            for (at, (level, _, _)) in sessions.iter().take(levels).enumerate() {
                let total = per_pass(medians[at + 2], raw);
                let own = per_pass(medians[at + 2], stamped);
                println!(
                    "{:<28} {:>10.0} ns/frame  {:>6.0} ns a pass over raw ({:.2}× wgpu-profiler's), {:>6.0} over timestamped raw ({:.2}×)",
                    format!("sgpt-recorder {level}"),
                    medians[at + 2],
                    total,
                    total / profiler_total,
                    own,
                    own / profiler_own
                );
            }
            println!(
                "{:<28} {:>10.0} ns/frame  {:>6.0} ns a scope over raw, {:>6.0} over timestamped raw",
                "wgpu-profiler 0.28", profiler_ns, profiler_total, profiler_own
            );
        }
        for (level, _, mut session) in sessions {
            let summary = pollster::block_on(session.stop()).expect("stops");
            println!("sgpt-recorder {level}: {} spans dropped in all these frames", summary.dropped_spans);
        }
    }

    /// A device with everything each kind of frame needs on it: raw timestamp writes' query
    /// set, a session at level Timing (the level that records what wgpu-profiler records)
    /// and a wgpu-profiler.
    struct Station {
        gpu: Gpu,
        stamps: wgpu::QuerySet,
        session: ProfileSession,
        profiler: wgpu_profiler::GpuProfiler,
    }

    /// What each kind of frame records through on `gpu`: the raw frames' query set, a
    /// session at level Timing (the level that records what wgpu-profiler records), and
    /// a wgpu-profiler.
    fn recorders(gpu: &Gpu) -> (wgpu::QuerySet, ProfileSession, wgpu_profiler::GpuProfiler) {
        let stamps = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("raw timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: PASSES * 2,
        });
        let options = SessionOptions { max_spans_per_frame: PASSES + 64, ..SessionOptions::at(Level::Timing) };
        let mut session = ProfileSession::new(options, MemorySink::new());
        session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
        let profiler = wgpu_profiler::GpuProfiler::new(&gpu.device, wgpu_profiler::GpuProfilerSettings::default())
            .expect("profiler");
        (stamps, session, profiler)
    }

    /// The kinds of frame the rotated section compares, in the order they take the stations.
    const ROTATED_KINDS: [&str; 4] =
        ["raw wgpu", "raw, timestamp writes", "sgpt-recorder timing", "wgpu-profiler 0.28"];
    /// Rounds of the rotated section: 24 blocks in which each kind of frame takes each of the
    /// four stations once.
    const ROTATED_ROUNDS: usize = 96;

    /// Which device each kind of frame takes in a round, and the order the kinds run in: in
    /// each block of as many rounds as devices, every kind takes every device once (kind `k`
    /// on device `k + shift`), the shifts in a shuffled order, and the kinds run in a shuffled
    /// order, so that neither a device, a place in the round, nor the kind of frame that ran
    /// before on the same device falls on one kind (a fixed xorshift seed: the same order
    /// every run).
    struct Order {
        devices: usize,
        state: u64,
        shifts: Vec<usize>,
    }

    impl Order {
        fn new(devices: usize) -> Self {
            Self { devices, state: 0x9E37_79B9_7F4A_7C15, shifts: Vec::new() }
        }

        fn below(&mut self, n: usize) -> usize {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            (self.state % n as u64) as usize
        }

        fn shuffled(&mut self) -> Vec<usize> {
            let mut items: Vec<usize> = (0..self.devices).collect();
            for at in (1..items.len()).rev() {
                items.swap(at, self.below(at + 1));
            }
            items
        }

        /// The next round's shift, and its kinds in the order they run.
        fn next_round(&mut self) -> (usize, Vec<usize>) {
            if self.shifts.is_empty() {
                self.shifts = self.shuffled();
            }
            let shift = self.shifts.pop().unwrap_or(0);
            (shift, self.shuffled())
        }
    }

    /// The CPU cost per pass of each kind of frame, each kind rotated over the same four
    /// devices, round by round, and timed by the CPU time of the threads that encode it.
    /// Two devices of one adapter differ in what the same frame costs (`finish` by ±350 ns
    /// a pass on lavapipe, more than the recorder's share), and wall time on a shared
    /// machine counts the time a thread waited for a core: the per-device medians averaged
    /// over the devices cancel the first, CPU time the second.
    fn rotated_cpu_costs(gpu: &Gpu) {
        if cfg!(not(target_os = "linux")) {
            println!("\n== CPU time per GPU pass: skipped, this bench reads a thread's CPU time on Linux only");
            return;
        }
        let features = gpu.device.features();
        let mut stations: Vec<Station> = (0..ROTATED_KINDS.len())
            .map(|_| {
                let own = device_with(gpu, features);
                let (stamps, session, profiler) = recorders(&own);
                Station { gpu: own, stamps, session, profiler }
            })
            .collect();
        let count = stations.len();
        for (shape, encode) in [
            ("1 thread: the session's GraphPassScope + compute_pass", &one_thread as &Encode<'_>),
            ("1 thread: the Recorder handle's graph_pass + scoped_compute_pass", &handle_here),
            ("1 worker thread: the Recorder handle's graph_pass + scoped_compute_pass", &handle_thread),
            ("2 threads: clones of the Recorder handle, an encoder each", &handle_threads),
        ] {
            println!(
                "\n== CPU time per GPU pass, {shape}: {PASSES} one-dispatch compute passes a frame; each kind on each of {count} devices once per {count} rounds, in shuffled orders, {ROTATED_ROUNDS} rounds"
            );
            // Per kind, per station: the frames' CPU times.
            let mut times = vec![vec![Vec::new(); count]; ROTATED_KINDS.len()];
            let mut order = Order::new(count);
            // Whole blocks of rounds to warm up, so each kind measures every device as often.
            let warm = WARM_FRAMES.div_ceil(count) * count;
            for round in 0..warm + ROTATED_ROUNDS {
                let (shift, kinds) = order.next_round();
                for kind in kinds {
                    let at = (kind + shift) % count;
                    let times = &mut times[kind];
                    let Station { gpu, stamps, session, profiler } = &mut stations[at];
                    let mut frame = match kind {
                        0 => Frame::Raw,
                        1 => Frame::Stamped(stamps),
                        2 => Frame::Session(session),
                        _ => Frame::Profiler(profiler),
                    };
                    let time = timed_frame(gpu, &mut frame, encode);
                    if round >= warm {
                        times[at].push(time.cpu);
                    }
                }
            }
            // Each kind's per-device medians, and their mean: every kind saw every device alike.
            let per_device: Vec<Vec<f64>> = times
                .into_iter()
                .map(|stations| stations.into_iter().map(|times| ns(median(times))).collect())
                .collect();
            let means: Vec<f64> =
                per_device.iter().map(|medians| medians.iter().sum::<f64>() / medians.len() as f64).collect();
            let per_pass = |frame: f64, base: f64| (frame - base) / f64::from(PASSES);
            let (raw, stamped, session, profiler) = (means[0], means[1], means[2], means[3]);
            for (kind, (mean, medians)) in ROTATED_KINDS.iter().zip(means.iter().zip(&per_device)) {
                let spread = medians.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                    - medians.iter().copied().fold(f64::INFINITY, f64::min);
                println!(
                    "{kind:<28} {mean:>10.0} ns/frame  {:>6.0} ns a pass over raw  (devices' medians {:.0} ns a pass apart)",
                    per_pass(*mean, raw),
                    spread / f64::from(PASSES)
                );
            }
            let (own, theirs) = (per_pass(session, stamped), per_pass(profiler, stamped));
            let (total, their_total) = (per_pass(session, raw), per_pass(profiler, raw));
            println!(
                "sgpt-recorder over timestamped raw (its own cost): {own:.0} ns a pass against wgpu-profiler's {theirs:.0}: {:.2}×",
                own / theirs
            );
            println!(
                "sgpt-recorder over raw (with wgpu's share of a timed pass): {total:.0} ns a pass against {their_total:.0}: {:.2}×",
                total / their_total
            );
        }
        for station in stations {
            let mut session = station.session;
            let summary = pollster::block_on(session.stop()).expect("stops");
            println!("rotated sessions: {} spans dropped", summary.dropped_spans);
        }
    }

    /// A device on the same adapter with only `features` of the timer features.
    fn device_with(gpu: &Gpu, features: wgpu::Features) -> Gpu {
        let (device, queue) = pollster::block_on(gpu.adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("bench"),
            required_features: features,
            required_limits: wgpu::Limits::downlevel_defaults(),
            ..Default::default()
        }))
        .expect("a device");
        let pipeline = sgpt_test_support::gpu::empty_compute_pipeline(&device);
        Gpu { adapter: gpu.adapter.clone(), device, queue, pipeline }
    }

    fn frame_time_ratios(gpu: &Gpu) {
        println!(
            "\n== Demo frame time, session off vs Workload (median frame: CPU encode + GPU execution on lavapipe)"
        );
        frame_time_ratio(gpu, "timestamps + sub-pass markers (all timer features)");
        let passes_only = device_with(gpu, wgpu::Features::TIMESTAMP_QUERY);
        frame_time_ratio(&passes_only, "pass timestamps only (TIMESTAMP_QUERY)");
        let untimed = device_with(gpu, wgpu::Features::empty());
        frame_time_ratio(&untimed, "no timestamps: the recorder's own cost");
    }

    fn frame_time_ratio(gpu: &Gpu, name: &str) {
        let mut scene = Scene::new(&gpu.device, &gpu.queue, SceneOptions::default()).expect("scene");
        let mut session =
            ProfileSession::new(native::session_options(&scene, Level::Workload, None), MemorySink::new());
        scene.describe(&mut session);
        session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
        let mut frame = |session: Option<&mut ProfileSession>| {
            let started = Instant::now();
            scene.frame(session).expect("frame");
            wait(gpu);
            started.elapsed()
        };
        let (mut off, mut on) = (Vec::new(), Vec::new());
        // Alternating blocks share the machine's drift between both sides.
        for round in 0..12 {
            for _ in 0..20 {
                let off_time = frame(None);
                let on_time = frame(Some(&mut session));
                if round > 0 {
                    off.push(off_time);
                    on.push(on_time);
                }
            }
        }
        drop(pollster::block_on(session.stop()));
        let (off, on) = (median(off), median(on));
        println!(
            "{name:<54} off {:>7.0} µs, workload {:>7.0} µs, ratio {:.4} (target ≤ 1.02)",
            ns(off) / 1e3,
            ns(on) / 1e3,
            ns(on) / ns(off)
        );
    }

    fn m0(gpu: &Gpu) {
        println!("\n== Structure, measured on the demo (600 frames, default scale)");
        for level in Level::ALL {
            let mut scene = Scene::new(&gpu.device, &gpu.queue, SceneOptions::default()).expect("scene");
            let sink = MemorySink::new();
            let mut session = ProfileSession::new(native::session_options(&scene, level, Some(600)), sink.clone());
            native::record(&mut scene, &mut session, &gpu.adapter, &gpu.device, &gpu.queue, 600).expect("records");
            let bytes = sink.take();
            let capture = Capture::open(&bytes).expect("opens");
            let frames = capture.frames();
            let frame_bytes: u64 = frames.iter().map(|entry| entry.len).sum();
            if level == Level::Timing {
                let mut passes: Vec<usize> = (0..capture.topology_count() as u32)
                    .filter_map(|id| capture.topology(id))
                    .map(|topology| topology.gpu_passes.iter().filter(|pass| pass.parent.is_none()).count())
                    .collect();
                passes.sort_unstable();
                passes.dedup();
                let spans = capture.span_count() as f64 / frames.len() as f64;
                println!("GPU passes per frame: {passes:?} (plus 2 sub-pass markers); {spans:.1} spans per frame");
            }
            if level == Level::Structure {
                println!("distinct topologies over {} frames: {}", frames.len(), capture.topology_count());
            }
            println!(
                "{:<10} {:>7.0} bytes/frame (FRAM records), {:>7.0} bytes/frame all-in, {} bytes total",
                level.name(),
                frame_bytes as f64 / frames.len() as f64,
                bytes.len() as f64 / frames.len() as f64,
                bytes.len()
            );
        }
    }

    /// The recorder's own CPU time per frame (`recorder_cost_ns`, what each frame record
    /// carries) on a boids-sized frame: two graph passes of one compute pass each.
    fn frame_boundary_costs(gpu: &Gpu) {
        const BOUNDARY_FRAMES: u64 = 300;
        println!(
            "\n== Frame-boundary cost: recorder_cost_ns of a 2-pass frame, over {BOUNDARY_FRAMES} frames (the first 20 are warm-up)"
        );
        for level in Level::ALL {
            let sink = MemorySink::new();
            let mut session = ProfileSession::new(SessionOptions::at(level), sink.clone());
            session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
            for _ in 0..BOUNDARY_FRAMES {
                let mut frame = FrameScope::begin(Some(&mut session)).expect("frame begins");
                let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                for name in ["simulate", "draw"] {
                    let mut scope = frame.scope(&mut encoder, name);
                    let mut pass =
                        scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some(name), timestamp_writes: None });
                    pass.set_pipeline(&gpu.pipeline);
                    pass.dispatch_workgroups(1, 1, 1);
                }
                frame.submit(&gpu.queue, [encoder]).expect("frame ends");
                wait(gpu);
            }
            pollster::block_on(session.stop()).expect("stops");
            let bytes = sink.take();
            let capture = Capture::open(&bytes).expect("opens");
            let mut costs: Vec<u64> = (20..capture.frames().len())
                .map(|index| capture.frame(index).expect("decodes").recorder_cost_ns)
                .collect();
            costs.sort_unstable();
            let at = |q: f64| costs[((costs.len() - 1) as f64 * q).round() as usize];
            println!(
                "{:<10} median {:>6.1} µs   p95 {:>6.1} µs   max {:>6.1} µs",
                level.name(),
                at(0.5) as f64 / 1e3,
                at(0.95) as f64 / 1e3,
                at(1.0) as f64 / 1e3
            );
        }
    }

    pub fn main() {
        let (adapter, device, queue) = match native::device() {
            Ok(gpu) => gpu,
            Err(error) => {
                println!("skipping the recorder bench: {error}");
                return;
            }
        };
        let pipeline = sgpt_test_support::gpu::empty_compute_pipeline(&device);
        let gpu = Gpu { adapter, device, queue, pipeline };
        if instructions::run_probe(&gpu) {
            return;
        }
        let info = gpu.adapter.get_info();
        println!("device: {} ({}), features {:?}", info.name, info.backend.to_str(), gpu.device.features());
        // `SGPT_BENCH_ONLY=passes,cpu,instructions,boundary,frame,structure` runs only those sections.
        let only = std::env::var("SGPT_BENCH_ONLY").ok();
        let run = |section: &str| only.as_deref().is_none_or(|only| only.split(',').any(|name| name == section));
        let sections: [Section; 6] = [
            ("passes", per_pass_costs),
            ("cpu", rotated_cpu_costs),
            ("instructions", instructions::instruction_counts),
            ("boundary", frame_boundary_costs),
            ("frame", frame_time_ratios),
            ("structure", m0),
        ];
        for (name, section) in sections {
            if run(name) {
                section(&gpu);
            }
        }
    }
}
