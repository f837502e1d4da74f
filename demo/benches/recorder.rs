//! Prints the recorder's costs on the local Vulkan adapter (lavapipe in CI), beside
//! wgpu-profiler 0.28's on the same device, in one run:
//!
//! - CPU cost per GPU pass at each level, and wgpu-profiler's per scope;
//! - the recorder's own time per frame (`recorder_cost_ns`) on a two-pass frame;
//! - demo frame time with the session off and at `Workload`, as a ratio;
//! - the structure figures, measured on the demo: distinct topologies over 600 frames, GPU
//!   passes per frame, bytes per frame at each level.
//!
//! `cargo bench -p sgpt-demo --bench recorder`. Figures, not assertions: timing belongs in benches.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    bench::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::time::{Duration, Instant};

    use sgpt_demo::{Scene, SceneOptions, native};
    use sgpt_format::Capture;
    use sgpt_recorder::{FrameScope, GraphPassScope, Level, MemorySink, ProfileSession, SessionOptions};

    /// GPU passes per measured frame.
    const PASSES: u32 = 1000;
    const WARM_FRAMES: usize = 5;
    const FRAMES: usize = 25;

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

    /// CPU time of one frame of `PASSES` one-dispatch compute passes, encoded raw.
    fn raw_frame(gpu: &Gpu) -> Duration {
        let started = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for _ in 0..PASSES {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: None });
            pass.set_pipeline(&gpu.pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let commands = encoder.finish();
        let elapsed = started.elapsed();
        gpu.queue.submit([commands]);
        wait(gpu);
        elapsed
    }

    /// The same frame through the recorder, frame hooks included (submit excluded).
    fn recorded_frame(gpu: &Gpu, session: &mut ProfileSession) -> Duration {
        let started = Instant::now();
        session.begin_frame().expect("frame begins");
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut scope = GraphPassScope::named(Some(&mut *session), &mut encoder, "frame");
            for _ in 0..PASSES {
                let mut pass =
                    scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: None });
                pass.set_pipeline(&gpu.pipeline);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        session.resolve_queries(&mut encoder).expect("frame is open");
        let commands = encoder.finish();
        let mut elapsed = started.elapsed();
        gpu.queue.submit([commands]);
        let ended = Instant::now();
        session.end_frame().expect("frame ends");
        elapsed += ended.elapsed();
        wait(gpu);
        elapsed
    }

    /// The same frame through wgpu-profiler: one scope per pass.
    fn profiled_frame(gpu: &Gpu, profiler: &mut wgpu_profiler::GpuProfiler) -> Duration {
        let started = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut scope = profiler.scope("frame", &mut encoder);
            for _ in 0..PASSES {
                let mut pass = scope.scoped_compute_pass("pass");
                pass.set_pipeline(&gpu.pipeline);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        profiler.resolve_queries(&mut encoder);
        let commands = encoder.finish();
        let mut elapsed = started.elapsed();
        gpu.queue.submit([commands]);
        let ended = Instant::now();
        profiler.end_frame().expect("frame ends");
        let results = profiler.process_finished_frame(gpu.queue.get_timestamp_period());
        elapsed += ended.elapsed();
        drop(results);
        wait(gpu);
        elapsed
    }

    fn measure(mut frame: impl FnMut() -> Duration) -> Duration {
        for _ in 0..WARM_FRAMES {
            frame();
        }
        median((0..FRAMES).map(|_| frame()).collect())
    }

    fn per_pass_costs(gpu: &Gpu) {
        println!(
            "\n== CPU cost per GPU pass ({PASSES} one-dispatch compute passes per frame, median of {FRAMES} frames)"
        );
        let raw = measure(|| raw_frame(gpu));
        println!("{:<28} {:>12.0} ns/frame   (wgpu alone: the baseline)", "raw wgpu", ns(raw));
        let per_pass = |total: Duration| (ns(total) - ns(raw)) / f64::from(PASSES);
        let mut levels = Vec::new();
        for level in Level::ALL {
            let options = SessionOptions { max_spans_per_frame: PASSES + 8, ..SessionOptions::at(level) };
            let mut session = ProfileSession::new(options, MemorySink::new());
            session.describe_compute_pipeline(
                &gpu.pipeline,
                &sgpt_recorder::PipelineInfo { label: "empty", entry_point: "main", ..Default::default() },
            );
            session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
            levels.push((level, measure(|| recorded_frame(gpu, &mut session))));
            drop(pollster::block_on(session.stop()));
        }
        let mut profiler = wgpu_profiler::GpuProfiler::new(&gpu.device, wgpu_profiler::GpuProfilerSettings::default())
            .expect("profiler");
        let profiled = measure(|| profiled_frame(gpu, &mut profiler));
        // Printed once wgpu-profiler's figure is known, each with its ratio to it.
        for (level, total) in levels {
            println!(
                "{:<28} {:>12.0} ns/frame   {:>7.0} ns per pass over raw   ratio to wgpu-profiler {:.2}",
                format!("sgpt-recorder {level}"),
                ns(total),
                per_pass(total),
                per_pass(total) / per_pass(profiled)
            );
        }
        println!(
            "{:<28} {:>12.0} ns/frame   {:>7.0} ns per scope over raw",
            "wgpu-profiler 0.28",
            ns(profiled),
            per_pass(profiled)
        );
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
        Gpu { adapter: gpu.adapter.clone(), device, queue, pipeline: gpu.pipeline.clone() }
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
        let info = adapter.get_info();
        println!("device: {} ({}), features {:?}", info.name, info.backend.to_str(), device.features());
        let pipeline = sgpt_test_support::gpu::empty_compute_pipeline(&device);
        let gpu = Gpu { adapter, device, queue, pipeline };
        per_pass_costs(&gpu);
        frame_boundary_costs(&gpu);
        frame_time_ratios(&gpu);
        m0(&gpu);
    }
}
