//! The demo scene records itself through the recorder on a real Vulkan adapter (lavapipe
//! in CI): its graph-pass attribution, topology dedup over many frames, every level, a
//! device without timestamps, a steady heap, and its graph's listeners. One binary, so the
//! counting allocator is installed once.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::{Arc, Mutex};

use sgpt_demo::{Scene, SceneOptions, native};
use sgpt_format::{Capture, Frame, GpuPassKind, Op, SpanKind};
use sgpt_recorder::{Level, MemorySink, PassEvent, PassListener, ProfileSession, SessionOptions};
use sgpt_test_support::alloc::{Counting, counted};
use sgpt_test_support::gpu::Gpu;

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A lavapipe device with the recorder's timer features (see `sgpt_test_support::gpu`).
fn gpu() -> Option<Gpu> {
    sgpt_test_support::gpu::device(sgpt_recorder::timer_features)
}

fn demo(gpu: &Gpu) -> Scene {
    Scene::new(&gpu.device, &gpu.queue, SceneOptions::default()).expect("the demo scene builds")
}

/// Records `frames` demo frames at `options` and returns the capture's bytes.
fn record_demo(gpu: &Gpu, options: SessionOptions, frames: u64) -> Vec<u8> {
    let mut scene = demo(gpu);
    let described = native::session_options(&scene, options.level, None);
    let options = SessionOptions {
        application: described.application,
        settings: described.settings,
        scene: described.scene,
        ..options
    };
    let sink = MemorySink::new();
    let mut session = ProfileSession::new(options, sink.clone());
    let summary = native::record(&mut scene, &mut session, &gpu.adapter, &gpu.device, &gpu.queue, frames)
        .expect("the demo records");
    assert_eq!(summary.frames, frames);
    sink.take()
}

fn frames(capture: &Capture<'_>) -> Vec<Frame> {
    (0..capture.frames().len()).map(|i| capture.frame(i).expect("every frame decodes")).collect()
}

#[test]
fn the_hzb_graph_pass_owns_several_gpu_passes_and_every_span_has_a_positive_duration() {
    let Some(gpu) = gpu() else { return };
    let bytes = record_demo(&gpu, SessionOptions::at(Level::Structure), 12);
    let capture = Capture::open(&bytes).expect("the capture opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    let frames = frames(&capture);
    let topology = capture.topology(frames[0].topology).expect("frame 0's topology");
    let hzb = topology.graph_passes.iter().position(|pass| pass.name == "hzb/build").expect("an hzb graph pass") as u32;
    let owned: Vec<_> = topology.gpu_passes.iter().filter(|pass| pass.graph_pass == Some(hzb)).collect();
    // lavapipe times encoders: the bracket's own encoder-level pass, named as the graph pass,
    // comes first and covers the whole bracket.
    assert_eq!((owned[0].kind, owned[0].label.as_str()), (GpuPassKind::Encoder, "hzb/build"));
    let owned = &owned[1..];
    assert!(owned.len() >= 2, "hzb/build opened {} GPU passes", owned.len());
    // Labels are not keys: the GPU passes have their own, none of them the graph pass's.
    assert!(owned.iter().all(|pass| pass.label != "hzb/build" && pass.kind == GpuPassKind::Compute));
    assert_eq!(owned[0].label, "hzb copy depth");

    let culled: Vec<_> = topology
        .graph_passes
        .iter()
        .zip(&frames[0].culled)
        .filter(|(_, culled)| **culled)
        .map(|(p, _)| p.name.as_str())
        .collect();
    assert_eq!(culled, ["debug/hzb heatmap", "debug/overlay"]);
    for frame in &frames {
        let topology = capture.topology(frame.topology).expect("topology");
        assert_eq!(frame.dropped_spans, 0);
        assert_eq!(frame.spans.len(), topology.gpu_passes.len(), "one span per GPU pass and marker");
        for span in &frame.spans {
            assert!(span.end_ns > span.begin_ns, "frame {} span {:?} is not positive", frame.frame_number, span);
            assert!(span.query_set < 4, "query set ids name the pool's sets");
        }
        // lavapipe has TIMESTAMP_QUERY_INSIDE_PASSES: the main pass's markers are sub-pass spans.
        let markers: Vec<_> = frame.spans.iter().filter(|span| span.kind == SpanKind::SubPass).collect();
        assert_eq!(markers.len(), 2);
        for marker in markers {
            let pass = &topology.gpu_passes[marker.pass as usize];
            assert_eq!(pass.kind, GpuPassKind::Marker);
            let parent = &topology.gpu_passes[pass.parent.expect("a marker has a parent") as usize];
            assert_eq!(parent.label, "main");
        }
        // CPU: one encode span per surviving graph pass, submit and readback times.
        assert_eq!(frame.cpu_spans.len(), frame.culled.iter().filter(|culled| !**culled).count());
        let submit = frame.cpu.submit_ns.expect("submit time");
        assert!(frame.cpu.readback_ns.expect("readback time") >= submit);
        assert!(frame.recorder_cost_ns > 0);
    }
}

#[test]
fn six_hundred_demo_frames_write_a_handful_of_topologies() {
    let Some(gpu) = gpu() else { return };
    let frames_total = 600;
    let bytes = record_demo(&gpu, SessionOptions::at(Level::Structure), frames_total);
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact());
    assert_eq!(capture.frames().len(), frames_total as usize);
    // Shadow refresh on/off × two resolutions.
    let topologies = capture.topology_count();
    assert_eq!(topologies, 4, "distinct topologies over {frames_total} frames");
    let passes: Vec<usize> = (0..capture.topology_count() as u32)
        .map(|id| capture.topology(id).expect("topology").gpu_passes.len())
        .collect();
    eprintln!(
        "M0: {topologies} distinct topologies over {frames_total} frames; GPU passes per frame (incl. markers) {passes:?}; {} bytes/frame at structure",
        bytes.len() as u64 / frames_total
    );
}

#[test]
fn every_level_round_trips_through_the_reader() {
    let Some(gpu) = gpu() else { return };
    for level in Level::ALL {
        let bytes = record_demo(&gpu, SessionOptions::at(level), 10);
        let capture = Capture::open(&bytes).expect("opens");
        assert!(capture.verify().is_empty(), "{level}: {:?}", capture.verify());
        assert!(capture.is_intact());
        assert_eq!(capture.level(), Some(level));
        let meta = capture.meta().expect("META");
        assert!(meta.timestamp_query && meta.timestamp_query_inside_passes);
        assert_eq!(meta.adapter.backend, "vulkan");
        assert!(meta.features.iter().any(|feature| feature == "TIMESTAMP_QUERY"));
        assert!(meta.limits.iter().any(|limit| limit.name == "max_texture_dimension_2d" && limit.value > 0.0));
        assert_eq!(meta.application, "sgpt-demo");
        assert!(meta.scene.iter().any(|value| value.name == "particles" && value.value == 4096.0));
        assert!(meta.wall_clock_start_unix_ns > 1_600_000_000_000_000_000);
        let frames = frames(&capture);
        let topology = capture.topology(frames[0].topology).expect("topology");
        assert_eq!(topology.graph_passes.is_empty(), level == Level::Timing, "{level}");
        assert_eq!(frames[0].commands.is_empty(), level < Level::Workload, "{level}");
        assert_eq!(frames[0].bindings.is_empty(), level < Level::Verbose, "{level}");
        assert_eq!(topology.gpu_passes.iter().any(|p| !p.attachments.is_empty()), level >= Level::Workload);
        let resolved = frames[0].commands.iter().any(|c| {
            matches!(c.op, Op::DispatchIndirect { resolved: Some(_), .. } | Op::DrawIndirect { resolved: Some(_), .. })
        });
        assert_eq!(resolved, level == Level::Verbose, "{level}");
        if level == Level::Verbose {
            // The simulate pass's arguments: 4096 particles / 64 per workgroup.
            let simulate = frames[0]
                .commands
                .iter()
                .find_map(|c| match c.op {
                    Op::DispatchIndirect { resolved, .. } => resolved,
                    _ => None,
                })
                .expect("resolved");
            assert_eq!(simulate, [64, 1, 1]);
        }
    }
}

#[test]
fn without_timestamp_queries_cpu_structure_and_workload_are_still_recorded() {
    let Some(gpu) = gpu() else { return };
    let (device, queue) = pollster::block_on(gpu.adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("no timestamps"),
        required_features: wgpu::Features::empty(),
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    }))
    .expect("a device without timer features");
    let plain = Gpu { adapter: gpu.adapter.clone(), device, queue };
    let bytes = record_demo(&plain, SessionOptions::at(Level::Workload), 6);
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact());
    let meta = capture.meta().expect("META");
    assert!(!meta.timestamp_query && !meta.timestamp_query_inside_passes);
    for frame in frames(&capture) {
        assert!(frame.spans.is_empty());
        assert_eq!(frame.dropped_spans, 0, "no timestamps is not a full pool");
        assert!(!frame.commands.is_empty() && !frame.cpu_spans.is_empty());
        assert!(frame.cpu.end_ns > frame.cpu.begin_ns);
    }
    let topology = capture.topology(0).expect("topology");
    assert!(topology.gpu_passes.iter().filter(|pass| pass.graph_pass.is_some()).count() > 10);
}

#[test]
fn a_recording_session_does_not_grow_the_heap_frame_after_frame() {
    let Some(gpu) = gpu() else { return };
    let mut scene = demo(&gpu);
    // A sink that keeps nothing, so only the recorder's own memory is measured.
    #[derive(Debug)]
    struct Discard;
    impl sgpt_format::Sink for Discard {
        fn append(&mut self, _: &[u8]) -> std::io::Result<()> {
            Ok(())
        }
        fn patch_header(&mut self, _: &[u8; sgpt_format::HEADER_LEN]) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl sgpt_recorder::CaptureSink for Discard {
        fn snapshot(&self) -> std::io::Result<Vec<u8>> {
            Ok(Vec::new())
        }
    }
    // Domain gauges and provider metrics are sampled every frame too; they reuse the
    // frame's sample vector.
    let ledger: &'static sgpt_memory::Ledger = Box::leak(Box::new(sgpt_memory::Ledger::new()));
    ledger.register_domain("gauged").expect("registers");
    // A frame limit sizes the writer's frame index up front.
    let mut session = ProfileSession::new(
        SessionOptions {
            frame_limit: Some(10_000),
            memory: Some(sgpt_recorder::MemorySource(ledger)),
            providers: true,
            ..SessionOptions::at(Level::Workload)
        },
        Discard,
    );
    scene.describe(&mut session);
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
    let (mut off_growth, mut on_growth) = (0i64, 0i64);
    // Same frames with and without the session: the difference is the recorder's.
    for round in 0..3 {
        let frames = 64;
        let ((), _, off) = counted(|| {
            for _ in 0..frames {
                scene.frame(None).expect("frame");
            }
        });
        let ((), _, on) = counted(|| {
            for _ in 0..frames {
                scene.frame(Some(&mut session)).expect("frame");
            }
        });
        if round > 0 {
            off_growth += off;
            on_growth += on;
        }
    }
    drop(pollster::block_on(session.stop()));
    // Warm frames (the first round is warm-up) must not accumulate memory. wgpu's own
    // pools move by ~100 B/frame either way; a retained frame record (its spans and
    // commands, over 1 KB here) would be far above the bound.
    let per_frame = (on_growth - off_growth) as f64 / 128.0;
    eprintln!("heap growth over 128 warm frames: session off {off_growth} B, on {on_growth} B");
    assert!(
        per_frame < 512.0,
        "recording grows the heap by {per_frame:.0} bytes per frame (on {on_growth}, off {off_growth})"
    );
}

#[test]
fn graph_listeners_all_hear_each_surviving_pass_in_order() {
    let Some(gpu) = gpu() else { return };
    struct Log(Arc<Mutex<Vec<String>>>, &'static str);
    impl PassListener for Log {
        fn pass_begin(&mut self, pass: PassEvent<'_>) {
            self.0.lock().expect("lock").push(format!("{} begin {}", self.1, pass.name));
        }
        fn pass_end(&mut self, pass: PassEvent<'_>) {
            self.0.lock().expect("lock").push(format!("{} end {}", self.1, pass.name));
        }
    }
    let mut scene = demo(&gpu);
    let log = Arc::new(Mutex::new(Vec::new()));
    scene.graph_mut().add_listener(Log(Arc::clone(&log), "a"));
    let removed = scene.graph_mut().add_listener(Log(Arc::clone(&log), "gone"));
    scene.graph_mut().add_listener(Log(Arc::clone(&log), "b"));
    assert!(scene.graph_mut().remove_listener(removed));
    scene.frame(None).expect("frame");
    let log = log.lock().expect("lock").clone();
    assert_eq!(
        &log[..4],
        [
            "a begin particles/simulate",
            "b begin particles/simulate",
            "a end particles/simulate",
            "b end particles/simulate"
        ]
    );
    assert!(!log.iter().any(|line| line.contains("gone") || line.contains("debug/")));
    let surviving = scene.graph().culled().iter().filter(|culled| !**culled).count();
    assert_eq!(log.len(), surviving * 4);
}

#[test]
fn a_heavier_bloom_down_draws_its_blur_again_and_the_image_stays_the_same() {
    let Some(gpu) = gpu() else { return };
    let heavier = SceneOptions::default().with_heavier_pass("bloom down", 0.5).expect("bloom down can be heavier");
    let mut images = Vec::new();
    let mut draws = Vec::new();
    for options in [SceneOptions::default(), heavier] {
        let mut scene = Scene::new(&gpu.device, &gpu.queue, options).expect("the demo scene builds");
        let sink = MemorySink::new();
        let mut session = ProfileSession::new(SessionOptions::at(Level::Workload), sink.clone());
        native::record(&mut scene, &mut session, &gpu.adapter, &gpu.device, &gpu.queue, 3).expect("the demo records");
        images.push(sgpt_test_support::gpu::read_texture(&gpu.device, &gpu.queue, scene.output()));
        let bytes = sink.take();
        let capture = Capture::open(&bytes).expect("the capture opens");
        let frame = capture.frame(2).expect("frame 2 decodes");
        let topology = capture.topology(frame.topology).expect("its topology");
        // Draws in each bloom down pass of the last frame.
        let per_pass: Vec<usize> = (0..topology.gpu_passes.len())
            .filter(|&pass| topology.gpu_passes[pass].label == "bloom down")
            .map(|pass| {
                let ops = frame.commands.iter().filter(|command| command.gpu_pass as usize == pass);
                ops.filter(|command| matches!(command.op, Op::Draw { .. })).count()
            })
            .collect();
        draws.push(per_pass);
    }
    assert!(images[0].iter().any(|&byte| byte != 0), "the scene draws something");
    assert!(images[0] == images[1], "the extra draw writes only what the pass's own draw writes over it");
    assert_eq!(draws[0], [1, 1, 1], "one blur a bloom down pass");
    assert_eq!(draws[1], [2, 2, 2], "made heavier, each blurs again first");
}
