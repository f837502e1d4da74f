//! The recorder on a real Vulkan adapter: Mesa's lavapipe in CI, on workloads written
//! here with known counts. One binary, so the counting allocator is installed once. (The
//! demo scene recording itself is tested in the demo crate.)
#![cfg(not(target_arch = "wasm32"))]

mod naming;
mod resolve_order;
mod threads;

use std::sync::{Arc, Mutex};

use sgpt_format::{Capture, Frame, GpuPassKind, LoadOp, Op, SpanKind, StoreOp};
use sgpt_recorder::{
    FrameGraph, FrameScope, GraphPassScope, Level, MemorySink, PipelineInfo, ProfileSession, RecordError,
    SessionOptions, StartError, StopReason,
};
use sgpt_test_support::alloc::{Counting, counted};
use sgpt_test_support::gpu::Gpu;

// ---- shared set-up ----

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A lavapipe device with the recorder's timer features (see `sgpt_test_support::gpu`).
fn gpu() -> Option<Gpu> {
    sgpt_test_support::gpu::device(sgpt_recorder::timer_features)
}

fn frames(capture: &Capture<'_>) -> Vec<Frame> {
    (0..capture.frames().len()).map(|i| capture.frame(i).expect("every frame decodes")).collect()
}

const COMPUTE_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(8, 4) fn main(@builtin(global_invocation_id) id: vec3u) { data[id.x] += 1u; }
override BLOCK: u32 = 64u;
@compute @workgroup_size(BLOCK) fn tuned(@builtin(global_invocation_id) id: vec3u) { data[id.x] += 2u; }
";

/// A minimal workload with known counts: what the tests below compare against.
struct Workload {
    pipeline: wgpu::ComputePipeline,
    tuned: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    tuned_group: wgpu::BindGroup,
    indirect: wgpu::Buffer,
    target: wgpu::TextureView,
    render: wgpu::RenderPipeline,
}

impl Workload {
    fn new(gpu: &Gpu) -> Self {
        let device = &gpu.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("test.wgsl"),
            source: wgpu::ShaderSource::Wgsl(COMPUTE_WGSL.into()),
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let (pipeline, tuned) = (pipeline("main"), pipeline("tuned"));
        let data = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("data"),
            size: 1 << 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = |pipeline: &wgpu::ComputePipeline| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[wgpu::BindGroupEntry { binding: 0, resource: data.as_entire_binding() }],
            })
        };
        let (bind_group, tuned_group) = (group(&pipeline), group(&tuned));
        let indirect = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("indirect"),
            size: 16,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.queue.write_buffer(&indirect, 0, &[7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        let target = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("target"),
                size: wgpu::Extent3d { width: 16, height: 16, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let draw = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("draw.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f { return vec4f(f32(i % 2u), f32(i / 2u), 0.0, 1.0); }
                 @fragment fn fs() -> @location(0) vec4f { return vec4f(1.0); }"
                    .into(),
            ),
        });
        let render = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("draw"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &draw,
                entry_point: Some("vs"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &draw,
                entry_point: Some("fs"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self { pipeline, tuned, bind_group, tuned_group, indirect, target, render }
    }

    fn describe(&self, session: &mut ProfileSession) {
        let info = |entry_point| PipelineInfo {
            label: entry_point,
            shader_module: "test.wgsl",
            entry_point,
            wgsl: Some(COMPUTE_WGSL),
        };
        assert_eq!(session.describe_compute_pipeline(&self.pipeline, &info("main")), Some([8, 4, 1]));
        assert_eq!(session.describe_compute_pipeline(&self.tuned, &info("tuned")), None, "an override is unknown");
        session.name_buffer(&self.indirect, "indirect args");
    }

    /// Encodes `passes` compute passes in one graph pass: dispatches (3,2,1) and
    /// (5,1,1), then one indirect dispatch, then one render pass with a draw.
    fn encode(&self, gpu: &Gpu, mut session: Option<&mut ProfileSession>, passes: u32) {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut scope = GraphPassScope::named(session.as_deref_mut(), &mut encoder, "work");
            for _ in 0..passes {
                let mut pass = scope
                    .compute_pass(&wgpu::ComputePassDescriptor { label: Some("dispatches"), timestamp_writes: None });
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.dispatch_workgroups(3, 2, 1);
                pass.dispatch_workgroups(5, 1, 1);
            }
            let mut pass =
                scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some("indirect"), timestamp_writes: None });
            pass.set_pipeline(&self.tuned);
            pass.set_bind_group(0, &self.tuned_group, &[]);
            pass.dispatch_workgroups_indirect(&self.indirect, 0);
            drop(pass);
            let mut render = scope.render_pass(&wgpu::RenderPassDescriptor {
                label: Some("draw"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                ..wgpu::RenderPassDescriptor::default()
            });
            render.set_pipeline(&self.render);
            render.draw(0..6, 0..2);
        }
        if let Some(session) = session {
            session.resolve_queries(&mut encoder).expect("frame is open");
        }
        gpu.queue.submit([encoder.finish()]);
    }
}

fn started(gpu: &Gpu, options: SessionOptions, sink: &MemorySink) -> ProfileSession {
    let mut session = ProfileSession::new(options, sink.clone());
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("the session starts");
    session
}

// ---- the tests ----

#[test]
fn recorded_dispatch_and_draw_counts_equal_what_was_encoded() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = ProfileSession::new(SessionOptions::at(Level::Verbose), sink.clone());
    work.describe(&mut session);
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
    for passes in [1, 3] {
        assert!(session.begin_frame().expect("begins"));
        work.encode(&gpu, Some(&mut session), passes);
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.frames, 2);
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact(), "{:?}", capture.verify());

    let main = capture.pipelines().find(|p| p.label == "main").expect("declared");
    let tuned = capture.pipelines().find(|p| p.label == "tuned").expect("declared");
    assert_eq!(main.workgroup_size, Some([8, 4, 1]));
    assert_eq!(tuned.workgroup_size, None);
    let indirect_id = (0..8).find(|&id| capture.buffer(id).is_some_and(|b| b.label == "indirect args")).expect("named");

    for (index, passes) in [1usize, 3].into_iter().enumerate() {
        let frame = capture.frame(index).expect("decodes");
        let dispatches: Vec<_> = frame
            .commands
            .iter()
            .filter_map(|c| match c.op {
                Op::Dispatch { x, y, z } => Some([x, y, z]),
                _ => None,
            })
            .collect();
        assert_eq!(dispatches, [[3, 2, 1], [5, 1, 1]].repeat(passes));
        assert!(
            frame.commands.iter().filter(|c| matches!(c.op, Op::Dispatch { .. })).all(|c| c.pipeline == Some(main.id))
        );
        let indirect = frame
            .commands
            .iter()
            .find(|c| c.op.is_dispatch() && !matches!(c.op, Op::Dispatch { .. }))
            .expect("indirect");
        assert_eq!(indirect.pipeline, Some(tuned.id));
        match indirect.op {
            Op::DispatchIndirect { indirect, resolved } => {
                assert_eq!((indirect.buffer, indirect.offset), (indirect_id, 0));
                assert_eq!(resolved, Some([7, 1, 1]), "Verbose reads the arguments back");
            }
            other => panic!("expected an indirect dispatch, got {other:?}"),
        }
        let draw = frame.commands.last().expect("a draw");
        assert_eq!(draw.op, Op::Draw { vertices: 6, instances: 2, first_vertex: 0, first_instance: 0 });
        // Verbose: each dispatch records its bind group.
        assert_eq!(frame.bindings.len(), 2 * passes + 1);
        let topology = capture.topology(frame.topology).expect("topology");
        // lavapipe times encoders: the graph pass's own encoder-level span comes first.
        assert_eq!(topology.gpu_passes.len(), 1 + passes + 2);
        assert_eq!(
            (topology.gpu_passes[0].kind, topology.gpu_passes[0].label.as_str()),
            (GpuPassKind::Encoder, "work")
        );
        let render = topology.gpu_passes.last().expect("render pass");
        assert_eq!(render.attachments.len(), 1);
        assert_eq!(render.attachments[0].format, "rgba8unorm");
        assert_eq!((render.attachments[0].load, render.attachments[0].store), (LoadOp::Clear, StoreOp::Discard));
        assert!(topology.gpu_passes.iter().all(|pass| pass.graph_pass == Some(0)));
    }
}

#[test]
fn a_full_timer_pool_refuses_slots_and_counts_them_per_frame() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session =
        started(&gpu, SessionOptions { max_spans_per_frame: 3, ..SessionOptions::at(Level::Workload) }, &sink);
    // The graph pass's encoder-level span and 6 passes (4 dispatch passes, indirect, render)
    // against 3 slots; then the encoder span and 3 passes.
    for passes in [4, 1] {
        session.begin_frame().expect("begins");
        work.encode(&gpu, Some(&mut session), passes);
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 4 + 1);
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact());
    let frames = frames(&capture);
    assert_eq!((frames[0].spans.len(), frames[0].dropped_spans), (3, 4));
    assert_eq!((frames[1].spans.len(), frames[1].dropped_spans), (3, 1));
    // Refused slots lose only the timing: the workload of every pass is still there.
    assert_eq!(frames[0].commands.len(), 4 * 2 + 2);
    assert!(frames.iter().flat_map(|f| &f.spans).all(|span| span.end_ns > span.begin_ns));
}

#[test]
fn snapshots_are_readable_mid_session_and_bytes_are_reported_per_frame() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session =
        ProfileSession::new(SessionOptions { byte_budget: 1024, ..SessionOptions::at(Level::Workload) }, sink.clone());
    let reports = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&reports);
    session.on_bytes_written(move |written| seen.lock().expect("lock").push(written));
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("starts");
    for _ in 0..12 {
        session.begin_frame().expect("begins");
        work.encode(&gpu, Some(&mut session), 2);
        session.end_frame().expect("ends");
    }
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("polls");
    session.begin_frame().expect("begins");
    let snapshot = session.snapshot().expect("a memory sink snapshots");
    let open = Capture::open(&snapshot).expect("a snapshot opens");
    assert!(!open.header().closed(), "a snapshot before stop is an open capture");
    assert!(open.frames().len() >= 8, "{} frames in the snapshot", open.frames().len());
    assert!(open.verify().iter().all(|defect| defect.kind == sgpt_format::DefectKind::NotClosed));
    assert_eq!(session.bytes_written(), snapshot.len() as u64);
    session.end_frame().expect("ends");

    let summary = pollster::block_on(session.stop()).expect("stops");
    let reports = reports.lock().expect("lock").clone();
    assert_eq!(reports.len() as u64, summary.frames);
    assert!(
        reports
            .windows(2)
            .all(|pair| pair[1].total_bytes > pair[0].total_bytes && pair[1].frame_number == pair[0].frame_number + 1)
    );
    assert!(reports.iter().all(|report| report.frame_bytes > 0));
    // Over budget: one warning, naming level and rate; nothing truncated.
    // The finished session still tells its warnings: the same text as the NOTE.
    let warnings = session.warnings();
    assert_eq!(warnings.len(), 1);
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact());
    assert_eq!(capture.frames().len(), 13);
    assert_eq!(capture.notes().len(), 1);
    let warning = &capture.notes()[0].text;
    assert!(
        warning.contains("level workload") && warning.contains("bytes/frame") && warning.contains("bytes/s"),
        "{warning}"
    );
    assert_eq!(&warnings[0], warning);
}

#[test]
fn the_frame_limit_resolves_the_same_future_as_stop() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session =
        started(&gpu, SessionOptions { frame_limit: Some(5), ..SessionOptions::at(Level::Timing) }, &sink);
    let finished = session.finished();
    let mut recorded = 0;
    for _ in 0..8 {
        if session.begin_frame().expect("begins") {
            recorded += 1;
        }
        work.encode(&gpu, Some(&mut session), 1);
        session.end_frame().expect("ends");
    }
    assert_eq!(recorded, 5);
    assert!(!session.is_recording());
    let summary = pollster::block_on(finished).expect("finishes");
    assert_eq!((summary.frames, summary.reason), (5, StopReason::FrameLimit));
    assert_eq!(pollster::block_on(session.stop()).expect("same result"), summary);
    let bytes = sink.take();
    assert_eq!(summary.bytes_written, bytes.len() as u64);
    assert_eq!(Capture::open(&bytes).expect("opens").frames().len(), 5);
}

#[test]
fn misuse_is_an_error_value_not_a_panic() {
    let Some(gpu) = gpu() else { return };
    let sink = MemorySink::new();
    let mut idle = ProfileSession::new(SessionOptions::default(), sink.clone());
    assert_eq!(idle.begin_frame(), Err(RecordError::NotStarted));
    assert_eq!(pollster::block_on(idle.stop()), Err(RecordError::NotStarted));
    let mut bad = ProfileSession::new(SessionOptions { frame_limit: Some(0), ..SessionOptions::default() }, Vec::new());
    assert!(matches!(bad.start(&gpu.device, &gpu.queue, &gpu.adapter), Err(StartError::Options(_))));

    let mut session = started(&gpu, SessionOptions::default(), &sink);
    assert_eq!(session.start(&gpu.device, &gpu.queue, &gpu.adapter), Err(StartError::AlreadyStarted));
    let mut second = ProfileSession::new(SessionOptions::default(), Vec::new());
    assert_eq!(second.start(&gpu.device, &gpu.queue, &gpu.adapter), Err(StartError::DeviceInUse));
    assert_eq!(session.end_frame(), Err(RecordError::NoFrameOpen));
    assert_eq!(session.begin_frame(), Ok(true));
    assert_eq!(session.begin_frame(), Err(RecordError::FrameAlreadyOpen(0)));
    session.end_frame().expect("ends");
    pollster::block_on(session.stop()).expect("stops");
    // The device is free again once the first session finished.
    second.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("a second session starts after the first");
    let mut second_vec: Option<Vec<u8>> = None;

    gpu.device.destroy();
    let _ = gpu.device.poll(wgpu::PollType::Poll);
    assert_eq!(second.begin_frame(), Err(RecordError::DeviceLost));
    let summary = pollster::block_on(second.stop()).expect("a lost device still closes the capture");
    assert_eq!(summary.reason, StopReason::DeviceLost);
    second_vec.replace(second.take_sink::<Vec<u8>>().expect("the sink comes back"));
    let bytes = second_vec.expect("set");
    assert!(Capture::open(&bytes).expect("opens").is_intact());
}

/// Allocations on this thread of one `hooked` frame minus one `raw` frame of the same wgpu
/// commands, eight times, after both warmed up (wgpu's own allocations are the same for the
/// same commands, but for its pools' growth in any one frame).
fn allocation_differences(gpu: &Gpu, mut raw: impl FnMut(), mut hooked: impl FnMut()) -> Vec<i64> {
    for _ in 0..8 {
        raw();
        hooked();
    }
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    (0..8)
        .map(|_| {
            let ((), raw_allocations, _) = counted(&mut raw);
            let ((), hooked_allocations, _) = counted(&mut hooked);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            hooked_allocations as i64 - raw_allocations as i64
        })
        .collect()
}

#[test]
fn with_no_session_the_hooks_allocate_nothing_beyond_wgpu_itself() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let raw = |gpu: &Gpu| {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for _ in 0..2 {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("dispatches"), timestamp_writes: None });
            pass.set_pipeline(&work.pipeline);
            pass.set_bind_group(0, &work.bind_group, &[]);
            pass.dispatch_workgroups(3, 2, 1);
            pass.dispatch_workgroups(5, 1, 1);
        }
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("indirect"), timestamp_writes: None });
        pass.set_pipeline(&work.tuned);
        pass.set_bind_group(0, &work.tuned_group, &[]);
        pass.dispatch_workgroups_indirect(&work.indirect, 0);
        drop(pass);
        let mut render = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("draw"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &work.target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Discard },
            })],
            ..wgpu::RenderPassDescriptor::default()
        });
        render.set_pipeline(&work.render);
        render.draw(0..6, 0..2);
        drop(render);
        gpu.queue.submit([encoder.finish()]);
    };
    let differences = allocation_differences(&gpu, || raw(&gpu), || work.encode(&gpu, None, 2));
    eprintln!("allocations with hooks off minus raw wgpu, per frame: {differences:?}");
    assert!(differences.contains(&0), "hooks off cost allocations: {differences:?}");
    assert!(differences.iter().all(|&difference| difference <= 0), "hooks off cost allocations: {differences:?}");

    // The graph and the bracket themselves: exactly zero once warm.
    let mut graph: FrameGraph<u8> = FrameGraph::new();
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let frame = |graph: &mut FrameGraph<u8>, encoder: &mut wgpu::CommandEncoder| {
        graph.reset();
        graph.push_scope("scope");
        let mut a = graph.add_pass("a", 0);
        let x = a.create_texture(
            "x",
            sgpt_recorder::TextureDesc::d2(
                8,
                8,
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            ),
        );
        let mut b = graph.add_pass("b", 1);
        b.read(x);
        b.side_effects();
        graph.pop_scope();
        graph.compile();
        let mut visited = 0;
        graph.execute(encoder, None, |_, scope| {
            visited += 1;
            assert!(!scope.is_recording());
        });
        visited
    };
    assert_eq!(frame(&mut graph, &mut encoder), 2);
    let (visited, allocations, _) = counted(|| (0..100).map(|_| frame(&mut graph, &mut encoder)).sum::<u32>());
    assert_eq!(visited, 200);
    assert_eq!(allocations, 0, "a steady frame graph with no session allocates nothing");
    let mut off: Option<&mut ProfileSession> = None;
    let ((), allocations, _) = counted(|| {
        for _ in 0..100 {
            let scope =
                GraphPassScope::begin(off.as_deref_mut(), &mut encoder, 0, "bracket").expect("off never refuses");
            scope.end();
            GraphPassScope::named(off.as_deref_mut(), &mut encoder, "named").end();
            // The frame scope off: every hook one `None` check.
            let mut frame = FrameScope::begin(off.as_deref_mut()).expect("off never fails");
            assert!(!frame.is_recording());
            frame.scope(&mut encoder, "in frame").end();
            frame.resolve_queries(&mut encoder).expect("off never fails");
            frame.end().expect("off never fails");
        }
    });
    assert_eq!(allocations, 0);
}

#[test]
fn on_a_device_with_encoder_timestamps_a_graph_pass_is_timed_whole_copies_included() {
    let Some(gpu) = gpu() else { return };
    assert!(
        gpu.device.features().contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
        "timer_features requests encoder timestamps where the adapter has them"
    );
    let work = Workload::new(&gpu);
    let size = 16 << 20;
    let buffer = |usage| {
        gpu.device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage, mapped_at_creation: false })
    };
    let (from, to) = (buffer(wgpu::BufferUsages::COPY_SRC), buffer(wgpu::BufferUsages::COPY_DST));
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    for _ in 0..3 {
        session.begin_frame().expect("begins");
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            // A graph pass of copies only: no pass of its own, so only the encoder times it.
            let mut upload = GraphPassScope::named(Some(&mut session), &mut encoder, "upload");
            upload.encoder().copy_buffer_to_buffer(&from, 0, &to, 0, size);
        }
        {
            let mut scope = GraphPassScope::named(Some(&mut session), &mut encoder, "simulate");
            let mut pass =
                scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some("step"), timestamp_writes: None });
            pass.set_pipeline(&work.pipeline);
            pass.set_bind_group(0, &work.bind_group, &[]);
            pass.dispatch_workgroups(64, 1, 1);
        }
        session.resolve_queries(&mut encoder).expect("frame is open");
        gpu.queue.submit([encoder.finish()]);
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    for frame in frames(&capture) {
        let topology = capture.topology(frame.topology).expect("topology");
        let kinds: Vec<_> =
            topology.gpu_passes.iter().map(|pass| (pass.kind, pass.label.as_str(), pass.graph_pass)).collect();
        assert_eq!(
            kinds,
            [
                (GpuPassKind::Encoder, "upload", Some(0)),
                (GpuPassKind::Encoder, "simulate", Some(1)),
                (GpuPassKind::Compute, "step", Some(1)),
            ]
        );
        let [upload, simulate, step] = frame.spans[..] else { panic!("three spans: {:?}", frame.spans) };
        assert!(upload.end_ns > upload.begin_ns, "the copy has a time: {upload:?}");
        // Same clock, commands in order: the pass lies inside its bracket's encoder span,
        // and the bracket after the upload.
        assert!(simulate.begin_ns <= step.begin_ns && step.end_ns <= simulate.end_ns, "{simulate:?} {step:?}");
        assert!(upload.end_ns <= simulate.begin_ns);
        assert!([upload, simulate, step].iter().all(|span| span.kind == SpanKind::Pass));
    }
}
