//! Prints the session's CPU cost per GPU pass at each level, on the local Vulkan adapter
//! (lavapipe in CI): one-dispatch compute passes through `GraphPassScope::compute_pass`,
//! beside raw wgpu and raw wgpu with the same timestamp writes (wgpu's share of a timed
//! pass, which no recorder can cut). Each frame is timed from `begin_frame` to
//! `end_frame`, submit and the GPU's wait excluded; the wrappers' allocations per frame
//! are counted beside.
//!
//! `cargo bench -p sgpt-recorder --bench passes`. Figures, not assertions. For a
//! profile, `SGPT_BENCH_LEVEL=<level>` records only that level, `SGPT_BENCH_FRAMES` times
//! (default 25): `perf record -g target/release/deps/passes-* --bench`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    bench::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::time::{Duration, Instant};

    use sgpt_recorder::{GraphPassScope, Level, MemorySink, ProfileSession, SessionOptions};
    use sgpt_test_support::alloc::{Counting, counted};
    use sgpt_test_support::gpu::Gpu;

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    const PASSES: u32 = 1000;
    const WARM_FRAMES: usize = 5;

    struct Bench {
        gpu: Gpu,
        pipeline: wgpu::ComputePipeline,
        query_set: wgpu::QuerySet,
    }

    /// One frame's CPU time in parts: the pass loop, `finish`, and the session's frame
    /// hooks (`begin_frame`, `resolve_queries`, `end_frame`, which reads back and writes
    /// an earlier frame).
    #[derive(Clone, Copy, Default)]
    struct Parts {
        passes: Duration,
        finish: Duration,
        hooks: Duration,
        /// Of `hooks`, `end_frame`'s share (the rest is mostly `begin_frame`'s write of
        /// the frame read back meanwhile).
        end_frame: Duration,
    }

    impl Parts {
        fn total(self) -> Duration {
            self.passes + self.finish + self.hooks
        }

        /// Per pass: total, passes, finish, hooks, end_frame.
        fn per_pass(self) -> [f64; 5] {
            [self.total(), self.passes, self.finish, self.hooks, self.end_frame]
                .map(|d| d.as_secs_f64() * 1e9 / f64::from(PASSES))
        }
    }

    fn median(mut values: Vec<Duration>) -> Duration {
        values.sort_unstable();
        values[values.len() / 2]
    }

    /// The median of each part.
    fn medians(frames: &[Parts]) -> Parts {
        let of = |part: fn(&Parts) -> Duration| median(frames.iter().map(part).collect());
        Parts {
            passes: of(|p| p.passes),
            finish: of(|p| p.finish),
            hooks: of(|p| p.hooks),
            end_frame: of(|p| p.end_frame),
        }
    }

    impl Bench {
        fn wait(&self) {
            let _ = self.gpu.device.poll(wgpu::PollType::wait_indefinitely());
        }

        /// A frame of raw passes, each with a timestamp pair when `timed`.
        fn raw(&self, timed: bool) -> Parts {
            let mut encoder = self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            let started = Instant::now();
            for at in 0..PASSES {
                let writes = timed.then(|| wgpu::ComputePassTimestampWrites {
                    query_set: &self.query_set,
                    beginning_of_pass_write_index: Some(at * 2),
                    end_of_pass_write_index: Some(at * 2 + 1),
                });
                let mut pass = encoder
                    .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: writes });
                pass.set_pipeline(&self.pipeline);
                pass.dispatch_workgroups(1, 1, 1);
            }
            let passes = started.elapsed();
            let started = Instant::now();
            let commands = encoder.finish();
            let finish = started.elapsed();
            self.gpu.queue.submit([commands]);
            self.wait();
            Parts { passes, finish, ..Parts::default() }
        }

        /// A recorded frame, and the pass loop's allocations (wgpu's own included).
        fn recorded(&self, session: &mut ProfileSession) -> (Parts, u64) {
            let started = Instant::now();
            session.begin_frame().expect("frame begins");
            let mut hooks = started.elapsed();
            let mut encoder = self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            let started = Instant::now();
            let ((), allocations, _) = counted(|| {
                let mut scope = GraphPassScope::named(Some(&mut *session), &mut encoder, "frame");
                for _ in 0..PASSES {
                    let mut pass = scope
                        .compute_pass(&wgpu::ComputePassDescriptor { label: Some("pass"), timestamp_writes: None });
                    pass.set_pipeline(&self.pipeline);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            });
            let passes = started.elapsed();
            let started = Instant::now();
            session.resolve_queries(&mut encoder).expect("frame is open");
            hooks += started.elapsed();
            let started = Instant::now();
            let commands = encoder.finish();
            let finish = started.elapsed();
            self.gpu.queue.submit([commands]);
            let started = Instant::now();
            session.end_frame().expect("frame ends");
            let end_frame = started.elapsed();
            hooks += end_frame;
            self.wait();
            (Parts { passes, finish, hooks, end_frame }, allocations)
        }
    }

    pub fn main() {
        let Some(gpu) = sgpt_test_support::gpu::device(sgpt_recorder::timer_features) else { return };
        let only = std::env::var("SGPT_BENCH_LEVEL").ok();
        let frames = std::env::var("SGPT_BENCH_FRAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(25);
        let pipeline = sgpt_test_support::gpu::empty_compute_pipeline(&gpu.device);
        let query_set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: PASSES * 2,
        });
        let bench = Bench { gpu, pipeline, query_set };
        println!(
            "== CPU cost per GPU pass ({PASSES} one-dispatch compute passes a frame, median of {frames} frames), ns: total = passes + finish + hooks"
        );
        let row = |name: &str, parts: Parts, base: Option<Parts>, extra: &str| {
            let [total, passes, finish, hooks, end_frame] = parts.per_pass();
            print!(
                "{name:<28} {total:>6.0} = {passes:>5.0} + {finish:>5.0} + {hooks:>5.0} ({end_frame:>3.0} end_frame)"
            );
            if let Some(base) = base {
                let [t, p, f, h, _] = base.per_pass();
                print!(
                    "   over timestamped raw {:>5.0} = {:>5.0} + {:>5.0} + {:>5.0}",
                    total - t,
                    passes - p,
                    finish - f,
                    hooks - h
                );
            }
            println!("{extra}");
        };
        if only.is_none() {
            let (mut raw, mut timed) = (Vec::new(), Vec::new());
            for at in 0..WARM_FRAMES + frames {
                let (plain, stamped) = (bench.raw(false), bench.raw(true));
                if at >= WARM_FRAMES {
                    raw.push(plain);
                    timed.push(stamped);
                }
            }
            row("raw wgpu", medians(&raw), None, "");
            row("raw wgpu, timestamp writes", medians(&timed), None, "");
        }
        for level in Level::ALL {
            if only.as_deref().is_some_and(|only| only != level.name()) {
                continue;
            }
            let options = SessionOptions { max_spans_per_frame: PASSES + 8, ..SessionOptions::at(level) };
            let mut session = ProfileSession::new(options, MemorySink::new());
            session.start(&bench.gpu.device, &bench.gpu.queue, &bench.gpu.adapter).expect("starts");
            // Alternating with timestamped raw frames shares the machine's drift between both.
            let (mut recorded, mut timed, mut allocations) = (Vec::new(), Vec::new(), 0);
            for at in 0..WARM_FRAMES + frames {
                let (parts, counted) = bench.recorded(&mut session);
                let stamped = if only.is_none() { bench.raw(true) } else { Parts::default() };
                if at >= WARM_FRAMES {
                    recorded.push(parts);
                    timed.push(stamped);
                    allocations = allocations.max(counted);
                }
            }
            let summary = pollster::block_on(session.stop()).expect("stops");
            let extra =
                format!("   ({allocations} allocations in the loop at most, {} dropped)", summary.dropped_spans);
            let base = only.is_none().then(|| medians(&timed));
            row(&format!("session {level}"), medians(&recorded), base, &extra);
        }
    }
}
