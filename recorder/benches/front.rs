//! Prints the CPU cost per GPU pass of the shared front ([`sgpt_recorder::Recorder`])
//! beside the session's own wrappers, on the local Vulkan adapter (lavapipe in CI):
//! one-dispatch compute passes, on one encoder, then spread over worker threads (each
//! scope's record handed over under the front's one mutex, which is what this measures).
//!
//! `cargo bench -p sgpt-recorder --bench front`. Figures, not assertions.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    bench::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::time::{Duration, Instant};

    use sgpt_recorder::{GraphPassScope, Level, MemorySink, ProfileSession, Recorder, SessionOptions};
    use sgpt_test_support::gpu::Gpu;

    const PASSES: u32 = 1000;
    const WARM_FRAMES: usize = 5;
    const FRAMES: usize = 25;

    fn median(mut values: Vec<Duration>) -> Duration {
        values.sort_unstable();
        values[values.len() / 2]
    }

    fn per_pass_ns(duration: Duration) -> f64 {
        duration.as_secs_f64() * 1e9 / f64::from(PASSES)
    }

    fn passes(encoder: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, count: u32) {
        for _ in 0..count {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }

    /// One frame's CPU time, frame hooks included, submit and the GPU's wait excluded.
    fn frame(
        gpu: &Gpu,
        session: &mut ProfileSession,
        encode: &dyn Fn(&mut ProfileSession) -> Vec<wgpu::CommandEncoder>,
    ) -> Duration {
        let started = Instant::now();
        session.begin_frame().expect("frame begins");
        let mut encoders = encode(session);
        for encoder in &mut encoders {
            session.resolve_queries(encoder).expect("frame is open");
        }
        let buffers: Vec<_> = encoders.into_iter().map(wgpu::CommandEncoder::finish).collect();
        let mut elapsed = started.elapsed();
        gpu.queue.submit(buffers);
        let ended = Instant::now();
        session.end_frame().expect("frame ends");
        elapsed += ended.elapsed();
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        elapsed
    }

    fn measure(gpu: &Gpu, name: &str, encode: &dyn Fn(&mut ProfileSession) -> Vec<wgpu::CommandEncoder>) {
        let sink = MemorySink::new();
        let options = SessionOptions { max_spans_per_frame: 2048, ..SessionOptions::at(Level::Workload) };
        let mut session = ProfileSession::new(options, sink);
        session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
        for _ in 0..WARM_FRAMES {
            frame(gpu, &mut session, encode);
        }
        let median = median((0..FRAMES).map(|_| frame(gpu, &mut session, encode)).collect());
        let summary = pollster::block_on(session.stop()).expect("stops");
        println!("{name:<44} {:>8.0} ns/pass   (dropped spans: {})", per_pass_ns(median), summary.dropped_spans);
    }

    pub fn main() {
        let Some(gpu) = sgpt_test_support::gpu::device(sgpt_recorder::timer_features) else { return };
        let pipeline = sgpt_test_support::gpu::empty_compute_pipeline(&gpu.device);
        let new_encoder = || gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        println!("== CPU cost per GPU pass ({PASSES} one-dispatch compute passes a frame, median of {FRAMES} frames)");
        measure(&gpu, "session recording, wgpu passes unprofiled", &|_| {
            let mut encoder = new_encoder();
            passes(&mut encoder, &pipeline, PASSES);
            vec![encoder]
        });
        measure(&gpu, "session: GraphPassScope + compute_pass", &|session| {
            let mut encoder = new_encoder();
            {
                let mut scope = GraphPassScope::named(Some(session), &mut encoder, "frame");
                for _ in 0..PASSES {
                    // Labeled, as the handle's passes are: wgpu copies a label either way.
                    let mut pass = scope
                        .compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: None });
                    pass.set_pipeline(&pipeline);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
            vec![encoder]
        });
        let handle_passes = |recorder: &Recorder, count: u32| {
            let mut encoder = new_encoder();
            {
                let mut scope = recorder.graph_pass("frame", &mut encoder);
                for _ in 0..count {
                    let mut pass = scope.scoped_compute_pass("pass");
                    pass.compute_pipeline(&pipeline);
                    pass.dispatch(1, 1, 1);
                }
            }
            encoder
        };
        measure(&gpu, "handle: graph_pass + scoped_compute_pass", &|session| {
            vec![handle_passes(&session.recorder(), PASSES)]
        });
        for threads in [2, 4] {
            let name = format!("handle on {threads} worker threads (frame CPU)");
            measure(&gpu, &name, &|session| {
                let recorder = session.recorder();
                std::thread::scope(|scope| {
                    let workers: Vec<_> = (0..threads)
                        .map(|_| {
                            let recorder = recorder.clone();
                            scope.spawn(move || handle_passes(&recorder, PASSES / threads))
                        })
                        .collect();
                    workers.into_iter().map(|worker| worker.join().expect("records")).collect()
                })
            });
        }
    }
}
