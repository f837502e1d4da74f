//! The wgpu-profiler bridge on lavapipe: a program timed through wgpu-profiler 0.28 (an
//! encoder scope around a compute pass, nested three deep) records into a session whose own
//! graph-pass scope encloses it. Whenever wgpu-profiler's results come back, each frame's
//! bridged spans must land in that frame (lavapipe has one timestamp clock per queue, so
//! they must lie inside the frame's own encoder span), nested as wgpu-profiler nested them,
//! with nothing dropped, and the capture must say where they came from.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_format::{Capture, Frame, GpuPassKind, Span, Topology};
use sgpt_recorder::{FrameScope, Level, MemorySink, ProfileSession, SessionOptions};
use sgpt_test_support::gpu::Gpu;
use wgpu_profiler::{GpuProfiler, GpuProfilerSettings};

const FRAMES: u64 = 12;
const WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { data[id.x] += 1u; }
";

struct Work {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
}

fn work(gpu: &Gpu) -> Work {
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("main"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 1 << 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: data.as_entire_binding() }],
    });
    Work { pipeline, bind_group }
}

/// One frame: the session's graph pass "app" around wgpu-profiler's "outer" encoder scope,
/// which holds its "simulate" compute pass, inside which "step" is timed.
fn frame(gpu: &Gpu, work: &Work, profiler: &mut GpuProfiler, session: &mut ProfileSession, at: u64) {
    if at.is_multiple_of(2) {
        // Every other frame begins once the GPU is idle: at most two frames are ever in
        // flight, so a timer set is always free (a frame finding none is untimed, which the
        // session counts as dropped), while odd frames' results still come a frame late.
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("the device finishes");
    }
    let mut frame = FrameScope::begin(Some(session)).expect("the frame opens");
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut app = frame.scope(&mut encoder, "app");
        let mut outer = profiler.scope("outer", app.encoder());
        let mut pass = outer.scoped_compute_pass("simulate");
        let mut step = pass.scope("step");
        step.set_pipeline(&work.pipeline);
        step.set_bind_group(0, &work.bind_group, &[]);
        step.dispatch_workgroups(256, 1, 1);
    }
    profiler.resolve_queries(&mut encoder);
    frame.resolve_queries(&mut encoder).expect("resolves");
    gpu.queue.submit([encoder.finish()]);
    profiler.end_frame().expect("the profiler frame ends");
    frame.wgpu_profiler_frame(profiler, None, gpu.queue.get_timestamp_period()).expect("announced in an open frame");
    frame.end().expect("the frame ends");
}

fn record(gpu: &Gpu, frames_in_flight: u32, collect_at_end: bool) -> Vec<u8> {
    let work = work(gpu);
    let mut profiler = GpuProfiler::new(&gpu.device, GpuProfilerSettings::default()).expect("a profiler");
    let sink = MemorySink::new();
    let options =
        SessionOptions { frame_limit: Some(FRAMES), frames_in_flight, ..SessionOptions::at(Level::Structure) };
    let mut session = ProfileSession::new(options, sink.clone());
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
    for at in 0..FRAMES {
        frame(gpu, &work, &mut profiler, &mut session, at);
    }
    if collect_at_end {
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("the device finishes");
        session.wgpu_profiler_collect(&mut profiler, None, gpu.queue.get_timestamp_period());
    }
    pollster::block_on(session.finished()).expect("the session finishes");
    sink.take()
}

fn gpu() -> Option<Gpu> {
    let gpu = sgpt_test_support::gpu::device(sgpt_recorder::timer_features)?;
    let features = gpu.device.features();
    // lavapipe has both; a device without them gives wgpu-profiler nothing to nest.
    let wanted = wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES;
    assert!(features.contains(wanted), "the test device times inside encoders and passes");
    Some(gpu)
}

fn pass_index(topology: &Topology, label: &str) -> Option<usize> {
    topology.gpu_passes.iter().position(|pass| pass.label == label)
}

fn span(frame: &Frame, pass: usize) -> Option<Span> {
    frame.spans.iter().copied().find(|span| span.pass as usize == pass)
}

fn within(inner: Span, outer: Span) -> bool {
    outer.begin_ns <= inner.begin_ns && inner.end_ns <= outer.end_ns
}

/// Checks every frame that has its bridged spans; returns how many frames lack them.
fn check(bytes: &[u8]) -> usize {
    let capture = Capture::open(bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    assert_eq!(capture.frames().len() as u64, FRAMES);
    let bridge_set = (0..=u8::MAX)
        .find(|&id| capture.query_set(id).is_some_and(|set| set.label.starts_with("wgpu-profiler")))
        .expect("the bridge's query set is declared");
    let notes: Vec<&str> = capture.notes().iter().map(|note| note.text.as_str()).collect();
    assert!(
        notes.iter().any(|text| text.contains("came through the wgpu-profiler bridge")),
        "the capture says where the spans came from: {notes:?}"
    );
    let mut previous_end = 0;
    let mut missing = 0;
    for at in 0..capture.frames().len() {
        let frame = capture.frame(at).expect("decodes");
        assert_eq!(frame.dropped_spans, 0, "frame {at}: nothing dropped; notes {notes:?}");
        let topology = capture.topology(frame.topology).expect("topology");
        let app = span(&frame, pass_index(topology, "app").expect("the session's graph-pass span")).expect("timed");
        assert_ne!(app.query_set, bridge_set);
        let Some(outer_pass) = pass_index(topology, "outer") else {
            missing += 1;
            continue;
        };
        let [simulate_pass, step_pass] = ["simulate", "step"].map(|label| pass_index(topology, label).expect(label));
        for (child, parent) in [(simulate_pass, outer_pass), (step_pass, simulate_pass)] {
            assert_eq!(topology.gpu_passes[child].parent, Some(parent as u32), "nested as wgpu-profiler nested it");
        }
        for pass in [outer_pass, simulate_pass, step_pass] {
            let bridged = &topology.gpu_passes[pass];
            assert_eq!((bridged.kind, bridged.graph_pass), (GpuPassKind::Encoder, None), "{}", bridged.label);
        }
        let [outer, simulate, step] =
            [outer_pass, simulate_pass, step_pass].map(|pass| span(&frame, pass).expect("timed"));
        assert!([outer, simulate, step].iter().all(|span| span.query_set == bridge_set));
        assert!(within(simulate, outer) && within(step, simulate), "frame {at}: children inside their parents");
        assert!(within(outer, app), "frame {at}: the bridged spans are this frame's: inside its own encoder span");
        assert!(outer.begin_ns >= previous_end, "frame {at}: after the previous frame's bridged spans");
        previous_end = outer.end_ns;
    }
    let closing = notes.iter().find(|text| text.starts_with("sgpt-recorder: wgpu-profiler bridge:"));
    match missing {
        0 => assert!(closing.is_none(), "nothing to name: {closing:?}"),
        n => assert!(
            closing
                .is_some_and(|text| text
                    .contains(&format!("{n} frame(s) were written before their wgpu-profiler results arrived"))),
            "{n} frame(s) without their results are named: {closing:?}"
        ),
    }
    missing
}

#[test]
fn every_frame_gets_its_own_wgpu_profiler_scopes_whatever_frames_are_in_flight() {
    let Some(gpu) = gpu() else { return };
    for frames_in_flight in [2, 4] {
        let bytes = record(&gpu, frames_in_flight, true);
        assert_eq!(check(&bytes), 0, "frames in flight {frames_in_flight}: results collected at the end land too");
    }
}

#[test]
fn frames_stopped_before_their_results_came_are_written_without_them_and_named() {
    let Some(gpu) = gpu() else { return };
    let bytes = record(&gpu, 2, false);
    // How many of the last frames' results had come back by the stop is up to the GPU;
    // `check` holds either way: each frame has its own spans or is named as lacking them.
    let missing = check(&bytes);
    assert!(missing <= 1 + max_pending_frames(), "only the last frames can lack results: {missing}");
}

/// wgpu-profiler keeps at most this many frames pending (its default), so at most this
/// many frames can still wait for their results at the stop.
fn max_pending_frames() -> usize {
    GpuProfilerSettings::default().max_num_pending_frames
}

#[test]
fn off_the_session_the_profiler_is_still_emptied() {
    let Some(gpu) = gpu() else { return };
    let work = work(&gpu);
    let mut profiler = GpuProfiler::new(&gpu.device, GpuProfilerSettings::default()).expect("a profiler");
    let period = gpu.queue.get_timestamp_period();
    for _ in 0..6 {
        let mut frame = FrameScope::begin(None).expect("no session");
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut outer = profiler.scope("outer", &mut encoder);
            let mut pass = outer.scoped_compute_pass("simulate");
            pass.set_pipeline(&work.pipeline);
            pass.set_bind_group(0, &work.bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        profiler.end_frame().expect("ends");
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("the device finishes");
        frame.wgpu_profiler_frame(&mut profiler, None, period).expect("nothing to record");
        assert!(profiler.process_finished_frame(period).is_none(), "the bridge took every finished frame");
        frame.end().expect("ends");
    }
}
