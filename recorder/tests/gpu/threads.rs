//! The shareable front ([`sgpt_recorder::Recorder`]) on lavapipe: encoders recorded on
//! worker threads through clones of one handle, scopes nested on encoders and passes,
//! passes the caller begins and owns, and the explicit workload calls.

use sgpt_format::{Capture, Frame, GpuPassKind, Op, Span, Topology};
use sgpt_recorder::{EncoderId, GraphPassScope, Level, MemorySink, Recorder, SessionOptions};

use super::{Gpu, Workload, allocation_differences, frames, gpu, started};

fn assert_send_sync<T: Send + Sync + Clone>() {}
fn assert_send<T: Send + 'static>() {}

#[test]
fn the_handle_is_clone_send_and_sync_and_its_token_is_send() {
    assert_send_sync::<Recorder>();
    assert_send::<sgpt_recorder::PassToken>();
    assert_send::<EncoderId>();
}

/// Whether lavapipe gives this device timestamps on encoders and inside passes; the
/// expectations below follow what it has.
fn inside(gpu: &Gpu) -> (bool, bool) {
    let features = gpu.device.features();
    (
        features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
        features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
    )
}

fn read(sink: &MemorySink) -> (Vec<u8>, Vec<Frame>) {
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    let frames = frames(&capture);
    (bytes, frames)
}

fn span_of(frame: &Frame, pass: usize) -> Option<Span> {
    frame.spans.iter().copied().find(|span| span.pass as usize == pass)
}

fn pass_named<'t>(topology: &'t Topology, label: &str) -> (usize, &'t sgpt_format::GpuPass) {
    topology.gpu_passes.iter().enumerate().find(|(_, pass)| pass.label == label).unwrap_or_else(|| panic!("{label}"))
}

fn within(inner: Span, outer: Span) -> bool {
    outer.begin_ns <= inner.begin_ns && inner.end_ns <= outer.end_ns
}

/// One worker's encoder: a graph pass scope holding a compute pass with one dispatch,
/// recorded through the handle (encoded on the pass, and told to the scope).
fn worker_encoder(gpu: &Gpu, work: &Workload, recorder: &Recorder, worker: usize) -> wgpu::CommandEncoder {
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut graph = recorder.graph_pass(&format!("worker {worker}"), &mut encoder);
        let mut pass = graph.scoped_compute_pass(&format!("dispatch {worker}"));
        // Encoded on the pass and recorded: the scope holds the pass.
        pass.compute_pipeline(&work.pipeline);
        pass.set_bind_group(0, &work.bind_group, &[]);
        pass.dispatch(worker as u32 + 1, 1, 1);
    }
    encoder
}

const WORKERS: usize = 3;
/// Submitted in an order other than the workers' (creation) order.
const SUBMIT_ORDER: [usize; WORKERS] = [2, 0, 1];

/// Checks one frame of `WORKERS` worker encoders: every scope present, attributed,
/// timed, children inside their parents, and encoders apart on the GPU timeline in the
/// order they were submitted. Returns the workers in GPU pass order.
fn check_worker_frame(capture: &Capture<'_>, frame: &Frame, inside_encoders: bool) -> Vec<usize> {
    assert_eq!(frame.dropped_spans, 0, "frame {}: nothing dropped, nothing stale", frame.frame_number);
    let topology = capture.topology(frame.topology).expect("topology");
    let per_worker = if inside_encoders { 2 } else { 1 };
    assert_eq!(frame.spans.len(), WORKERS * per_worker, "every scope has its span");
    let mut order = Vec::new();
    let mut windows = Vec::new();
    for worker in 0..WORKERS {
        let (graph_index, graph) = pass_named(topology, &format!("worker {worker}"));
        let (pass_index, pass) = pass_named(topology, &format!("dispatch {worker}"));
        assert_eq!(graph.kind, GpuPassKind::Encoder);
        assert_eq!(pass.kind, GpuPassKind::Compute);
        assert_eq!(pass.parent, Some(graph_index as u32), "the pass is nested in its worker's scope");
        let graph_pass = graph.graph_pass.expect("attributed to a graph pass");
        assert_eq!(pass.graph_pass, Some(graph_pass), "the pass inherits the attribution");
        assert_eq!(topology.graph_passes[graph_pass as usize].name, format!("worker {worker}"));
        let pass_span = span_of(frame, pass_index).expect("the pass is timed");
        let window = if inside_encoders {
            let graph_span = span_of(frame, graph_index).expect("the scope is timed");
            assert!(within(pass_span, graph_span), "{pass_span:?} inside {graph_span:?}");
            graph_span
        } else {
            pass_span
        };
        order.push((graph_index, worker));
        windows.push((worker, window));
        // The workload told to the scope, on the pass it was told on.
        let commands: Vec<_> =
            frame.commands.iter().filter(|command| command.gpu_pass as usize == pass_index).collect();
        assert_eq!(commands.len(), 1);
        assert_eq!(commands[0].op, Op::Dispatch { x: worker as u32 + 1, y: 1, z: 1 });
        let pipeline = capture.pipelines().find(|p| Some(p.id) == commands[0].pipeline).expect("declared");
        assert_eq!(pipeline.label, "main");
    }
    // Encoders run one after another in submission order: their windows do not overlap.
    let rank = |worker: usize| SUBMIT_ORDER.iter().position(|&w| w == worker).expect("submitted");
    windows.sort_by_key(|&(worker, _)| rank(worker));
    for pair in windows.windows(2) {
        assert!(pair[0].1.end_ns <= pair[1].1.begin_ns, "submitted later, ran later: {pair:?}");
    }
    order.sort_unstable();
    order.into_iter().map(|(_, worker)| worker).collect()
}

#[test]
fn encoders_recorded_on_worker_threads_are_merged_in_the_order_they_were_resolved() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let (inside_encoders, _) = inside(&gpu);
    let sink = MemorySink::new();
    let mut session =
        started(&gpu, SessionOptions { frames_in_flight: 2, ..SessionOptions::at(Level::Workload) }, &sink);
    let describe = sgpt_recorder::PipelineInfo { label: "main", ..Default::default() };
    session.describe_compute_pipeline(&work.pipeline, &describe);
    let recorder = session.recorder();
    for _ in 0..4 {
        assert!(session.begin_frame().expect("begins"));
        let mut encoders: Vec<Option<wgpu::CommandEncoder>> = std::thread::scope(|threads| {
            let handles: Vec<_> = (0..WORKERS)
                .map(|worker| {
                    let recorder = recorder.clone();
                    let (gpu, work) = (&gpu, &work);
                    threads.spawn(move || worker_encoder(gpu, work, &recorder, worker))
                })
                .collect();
            handles.into_iter().map(|handle| Some(handle.join().expect("the worker records"))).collect()
        });
        // Resolved here in submission order: the capture's passes follow it.
        for &worker in &SUBMIT_ORDER {
            let mut encoder = encoders[worker].take().expect("once");
            recorder.resolve_queries(&mut encoder);
            gpu.queue.submit([encoder.finish()]);
        }
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    assert!(session.warnings().is_empty(), "{:?}", session.warnings());
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    assert_eq!(frames.len(), 4);
    for frame in &frames {
        assert_eq!(check_worker_frame(&capture, frame, inside_encoders), SUBMIT_ORDER, "resolve order is pass order");
    }
}

#[test]
fn workers_that_resolve_and_finish_their_own_encoders_lose_no_span() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let (inside_encoders, _) = inside(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Workload), &sink);
    let describe = sgpt_recorder::PipelineInfo { label: "main", ..Default::default() };
    session.describe_compute_pipeline(&work.pipeline, &describe);
    let recorder = session.recorder();
    for _ in 0..3 {
        assert!(session.begin_frame().expect("begins"));
        let mut buffers: Vec<Option<wgpu::CommandBuffer>> = std::thread::scope(|threads| {
            let handles: Vec<_> = (0..WORKERS)
                .map(|worker| {
                    let recorder = recorder.clone();
                    let (gpu, work) = (&gpu, &work);
                    threads.spawn(move || {
                        let mut encoder = worker_encoder(gpu, work, &recorder, worker);
                        recorder.resolve_queries(&mut encoder);
                        encoder.finish()
                    })
                })
                .collect();
            handles.into_iter().map(|handle| Some(handle.join().expect("the worker records"))).collect()
        });
        gpu.queue.submit(SUBMIT_ORDER.iter().filter_map(|&worker| buffers[worker].take()));
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    for frame in &frames {
        let mut order = check_worker_frame(&capture, frame, inside_encoders);
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2], "each worker once, in whatever order the threads resolved");
    }
}

#[test]
fn scopes_nest_three_deep_on_an_encoder_and_inside_a_pass() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let (inside_encoders, inside_passes) = inside(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    let recorder = session.recorder();
    assert!(session.begin_frame().expect("begins"));
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut outer = recorder.scope("outer", &mut encoder);
        let mut middle = outer.scope("middle");
        let mut inner = middle.scope("inner");
        let mut pass = inner.scoped_compute_pass("pass");
        pass.set_pipeline(&work.pipeline);
        pass.set_bind_group(0, &work.bind_group, &[]);
        let mut a = pass.scope("a");
        let mut b = a.scope("b");
        let mut c = b.scope("c");
        c.dispatch_workgroups(4, 1, 1);
    }
    recorder.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    session.end_frame().expect("ends");
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    let frame = &frames[0];
    let topology = capture.topology(frame.topology).expect("topology");
    let chain = ["outer", "middle", "inner", "pass", "a", "b", "c"];
    let mut parent = None;
    let mut parent_span: Option<Span> = None;
    for label in chain {
        let (index, pass) = pass_named(topology, label);
        assert_eq!(pass.parent, parent, "{label} nests in the scope before it");
        let expected_kind = match label {
            "outer" | "middle" | "inner" => GpuPassKind::Encoder,
            "pass" => GpuPassKind::Compute,
            _ => GpuPassKind::Marker,
        };
        assert_eq!(pass.kind, expected_kind, "{label}");
        let timed = match expected_kind {
            GpuPassKind::Encoder => inside_encoders,
            GpuPassKind::Marker => inside_passes,
            _ => true,
        };
        let span = span_of(frame, index);
        assert_eq!(span.is_some(), timed, "{label}");
        if let (Some(span), Some(outer)) = (span, parent_span) {
            assert!(within(span, outer), "{label}: {span:?} inside {outer:?}");
        }
        parent = Some(index as u32);
        parent_span = span.or(parent_span);
    }
}

#[test]
fn a_caller_owned_render_pass_is_timed_through_its_timestamp_writes() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let (_, inside_passes) = inside(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Workload), &sink);
    let recorder = session.recorder();
    assert!(session.begin_frame().expect("begins"));
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let id = EncoderId::of(&encoder);
    // Like a renderer that takes `&mut RenderPass<'static>`: the pass outlives its borrow.
    let (writes, mut token) = recorder.render_pass_timestamp_writes("ui", &encoder);
    assert!(token.is_timed());
    let mut pass = encoder
        .begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("ui"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &work.target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Discard },
            })],
            timestamp_writes: writes,
            ..Default::default()
        })
        .forget_lifetime();
    {
        let mut widgets = token.scope("widgets", &mut pass);
        widgets.set_pipeline(&work.render);
        widgets.pipeline("widgets", None);
        widgets.draw(0..3, 0..1);
        // Through the deref: encoded, not recorded.
        wgpu::RenderPass::draw(&mut widgets, 0..3, 0..1);
    }
    token.pipeline("ui", None);
    token.draw(0..6, 0..2);
    drop(pass);
    // A compute pass after forget_lifetime(), with a scope of the handle on it.
    let (writes, untold) = recorder.compute_pass_timestamp_writes("silent", &encoder);
    let mut compute = encoder
        .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("silent"), timestamp_writes: writes })
        .forget_lifetime();
    compute.set_pipeline(&work.pipeline);
    compute.set_bind_group(0, &work.bind_group, &[]);
    {
        let mut region = recorder.pass_scope("region", id, &mut compute);
        region.dispatch(2, 1, 1);
    }
    drop(compute);
    // Resolved while both tokens live: their records were handed over when they were made.
    recorder.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    drop(untold);
    drop(token);
    session.end_frame().expect("ends");
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    let frame = &frames[0];
    let topology = capture.topology(frame.topology).expect("topology");
    let (ui, ui_pass) = pass_named(topology, "ui");
    assert_eq!(ui_pass.kind, GpuPassKind::Render);
    let ui_span = span_of(frame, ui).expect("the caller's pass is timed");
    let (widgets, widgets_pass) = pass_named(topology, "widgets");
    assert_eq!((widgets_pass.kind, widgets_pass.parent), (GpuPassKind::Marker, Some(ui as u32)));
    let (silent, _) = pass_named(topology, "silent");
    assert!(span_of(frame, silent).is_some());
    let (region, region_pass) = pass_named(topology, "region");
    assert_eq!(region_pass.kind, GpuPassKind::Marker);
    assert_eq!(span_of(frame, widgets).is_some(), inside_passes);
    assert_eq!(span_of(frame, region).is_some(), inside_passes);
    if let Some(span) = span_of(frame, widgets) {
        assert!(within(span, ui_span), "the region lies inside its pass");
    }
    let ops = |pass: usize| -> Vec<(Op, Option<String>)> {
        let label = |id: Option<u32>| capture.pipelines().find(|p| Some(p.id) == id).map(|p| p.label.clone());
        frame.commands.iter().filter(|c| c.gpu_pass as usize == pass).map(|c| (c.op, label(c.pipeline))).collect()
    };
    let draw = |vertices, instances| Op::Draw { vertices, instances, first_vertex: 0, first_instance: 0 };
    assert_eq!(ops(ui), [(draw(6, 2), Some("ui".to_owned()))], "the token's explicit calls");
    assert_eq!(ops(widgets), [(draw(3, 1), Some("widgets".to_owned()))]);
    assert_eq!(ops(region), [(Op::Dispatch { x: 2, y: 1, z: 1 }, None)]);
    assert!(ops(silent).is_empty());
    // Only the token that told nothing is noted as timed without its commands.
    let noted: Vec<_> = capture.notes().iter().filter(|note| note.text.contains("PassTimer")).collect();
    assert_eq!(noted.len(), 1, "{noted:?}");
    assert!(noted[0].text.contains("\"silent\""));
}

#[test]
fn a_handle_with_no_frame_open_allocates_nothing_beyond_wgpu_itself() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Workload), &sink);
    // An engine keeps its handle between recordings: no frame is open, so nothing is
    // recorded, and its scopes must cost what the same commands cost without them.
    let recorder = session.recorder();
    assert!(!recorder.is_recording());
    let encode = |through: Option<&Recorder>| {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        match through {
            Some(recorder) => {
                let mut graph = recorder.graph_pass("idle graph pass", &mut encoder);
                let mut pass = graph.scoped_compute_pass("idle pass");
                assert!(!pass.is_recording());
                pass.compute_pipeline(&work.pipeline);
                pass.set_bind_group(0, &work.bind_group, &[]);
                pass.dispatch(2, 1, 1);
            }
            None => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("idle pass"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&work.pipeline);
                pass.set_bind_group(0, &work.bind_group, &[]);
                pass.dispatch_workgroups(2, 1, 1);
            }
        }
        gpu.queue.submit([encoder.finish()]);
    };
    let differences = allocation_differences(&gpu, || encode(None), || encode(Some(&recorder)));
    // wgpu's own pools may grow in any one frame; an allocation of the handle's would show
    // in every frame.
    assert!(differences.iter().min() <= Some(&0), "an idle handle cost allocations: {differences:?}");
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.frames, 0);
}

#[test]
fn a_scope_never_resolved_on_its_encoder_is_dropped_and_counted_never_stale() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    let recorder = session.recorder();
    for _ in 0..3 {
        assert!(session.begin_frame().expect("begins"));
        let mut resolved = worker_encoder(&gpu, &work, &recorder, 0);
        let forgotten = worker_encoder(&gpu, &work, &recorder, 1);
        // Only the first is resolved; the second's spans must not be read from the set.
        recorder.resolve_queries(&mut resolved);
        gpu.queue.submit([resolved.finish(), forgotten.finish()]);
        session.end_frame().expect("ends");
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("polls");
    }
    let (inside_encoders, _) = inside(&gpu);
    let per_worker = if inside_encoders { 2 } else { 1 };
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 3 * per_worker);
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    for frame in &frames {
        assert_eq!(frame.dropped_spans, per_worker as u32);
        let topology = capture.topology(frame.topology).expect("topology");
        let (pass, _) = pass_named(topology, "dispatch 0");
        assert!(span_of(frame, pass).is_some());
        let (pass, _) = pass_named(topology, "dispatch 1");
        assert!(span_of(frame, pass).is_none(), "no value of another frame stands in for it");
        assert_eq!(frame.spans.len(), per_worker as usize);
    }
}

#[test]
fn the_session_and_the_handle_interleave_slots_and_merge_in_one_resolve_order() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    let recorder = session.recorder();
    for _ in 0..3 {
        assert!(session.begin_frame().expect("begins"));
        let mut first = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let mut second = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for round in 0..2 {
            {
                let mut scope = GraphPassScope::named(Some(&mut session), &mut first, "session");
                let mut pass = scope.compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(["session a", "session b"][round]),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&work.pipeline);
                pass.set_bind_group(0, &work.bind_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
            let mut scope = recorder.scope(["handle a", "handle b"][round], &mut second);
            let mut pass = scope.scoped_compute_pass(["handle pass a", "handle pass b"][round]);
            pass.set_pipeline(&work.pipeline);
            pass.set_bind_group(0, &work.bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        // The session's resolve covers the handle's scopes on the encoder too.
        session.resolve_queries(&mut second).expect("open");
        session.resolve_queries(&mut first).expect("open");
        gpu.queue.submit([first.finish(), second.finish()]);
        session.end_frame().expect("ends");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    for frame in &frames {
        let topology = capture.topology(frame.topology).expect("topology");
        for label in ["session a", "session b", "handle pass a", "handle pass b"] {
            let (pass, _) = pass_named(topology, label);
            assert!(span_of(frame, pass).is_some(), "{label}");
        }
        // Both fronts' records merge in one order: `second` was resolved first, so the
        // handle's scopes come before the session's passes, each encoder in creation order.
        let order: Vec<&str> = topology.gpu_passes.iter().map(|pass| pass.label.as_str()).collect();
        assert_eq!(
            order,
            ["handle a", "handle pass a", "handle b", "handle pass b", "session", "session a", "session", "session b"],
            "frame {}",
            frame.frame_number
        );
        let mut spans = frame.spans.clone();
        spans.sort_by_key(|span| span.begin_ns);
        assert!(spans.iter().all(|span| span.begin_ns <= span.end_ns));
    }
}

#[test]
fn a_pass_recorded_in_the_next_frame_inside_a_scope_left_open_keeps_its_graph_pass() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    let recorder = session.recorder();
    assert!(session.begin_frame().expect("begins"));
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut graph = recorder.graph_pass("straddling", &mut encoder);
        let mut middle = graph.scope("middle");
        {
            let mut early = middle.scoped_compute_pass("early");
            early.set_pipeline(&work.pipeline);
            early.set_bind_group(0, &work.bind_group, &[]);
            early.dispatch_workgroups(1, 1, 1);
        }
        // The scopes borrow the encoder, not the session: the frame can end under them.
        session.end_frame().expect("ends");
        assert!(session.begin_frame().expect("begins"));
        let mut late = middle.scoped_compute_pass("late");
        late.set_pipeline(&work.pipeline);
        late.set_bind_group(0, &work.bind_group, &[]);
        late.dispatch_workgroups(1, 1, 1);
    }
    recorder.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    session.end_frame().expect("ends");
    pollster::block_on(session.stop()).expect("stops");
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    assert_eq!(frames.len(), 2);
    assert!(frames[0].dropped_spans >= 1, "the first frame's scopes were never handed over in it: {:?}", frames[0]);
    let frame = &frames[1];
    assert_eq!(frame.dropped_spans, 0);
    let topology = capture.topology(frame.topology).expect("topology");
    let labels: Vec<&str> = topology.gpu_passes.iter().map(|pass| pass.label.as_str()).collect();
    assert_eq!(labels, ["late"], "only what was recorded in the frame is in it");
    let graph_pass = topology.gpu_passes[0].graph_pass.expect("attributed, its parents of another frame");
    assert_eq!(topology.graph_passes[graph_pass as usize].name, "straddling");
    assert!(span_of(frame, 0).is_some(), "timed in its own frame");
}

#[test]
fn a_recorded_frame_through_the_handle_allocates_nothing_per_pass() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let options = SessionOptions { max_spans_per_frame: 512, ..SessionOptions::at(Level::Workload) };
    let mut session = started(&gpu, options, &sink);
    let recorder = session.recorder();
    // One frame of `passes` dispatches on two encoders, raw or recorded through the handle:
    // each encoder one tree of scopes, resolved, submitted, and the frame ended.
    let mut frame = |passes: u32, recorded: bool| {
        if recorded {
            assert!(session.begin_frame().expect("begins"));
        }
        let mut encoders: Vec<wgpu::CommandEncoder> =
            (0..2).map(|_| gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default())).collect();
        for encoder in &mut encoders {
            if recorded {
                let mut graph = recorder.graph_pass("passes", encoder);
                for _ in 0..passes / 2 {
                    let mut pass = graph.scoped_compute_pass("pass");
                    pass.compute_pipeline(&work.pipeline);
                    pass.set_bind_group(0, &work.bind_group, &[]);
                    pass.dispatch(1, 1, 1);
                }
            } else {
                for _ in 0..passes / 2 {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("pass"),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&work.pipeline);
                    pass.set_bind_group(0, &work.bind_group, &[]);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
        }
        for encoder in &mut encoders {
            recorder.resolve_queries(encoder);
        }
        gpu.queue.submit(encoders.into_iter().map(wgpu::CommandEncoder::finish));
        if recorded {
            session.end_frame().expect("ends");
        }
    };
    // What the recorder allocates beyond wgpu in a frame of 8 passes and in one of 200. A
    // frame's own allocations (the graph pass's name, the frame written, an earlier frame
    // read back or not yet, as the GPU goes) vary by a few dozen from frame to frame; one
    // allocation a pass would add 192. Both closures run the one frame function.
    let cell = std::cell::RefCell::new(&mut frame);
    let median = |mut counts: Vec<i64>| {
        counts.sort_unstable();
        counts[counts.len() / 2]
    };
    let few = allocation_differences(&gpu, || (cell.borrow_mut())(8, false), || (cell.borrow_mut())(8, true));
    let many = allocation_differences(&gpu, || (cell.borrow_mut())(200, false), || (cell.borrow_mut())(200, true));
    let (few_median, many_median) = (median(few.clone()), median(many.clone()));
    assert!(
        many_median < few_median + 96,
        "192 more passes cost the recorder about one allocation each: {many:?} against {few:?} for 8 passes"
    );
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
}

#[test]
fn a_pass_begun_with_a_scopes_timestamp_writes_keeps_its_place_among_the_scopes_passes() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Timing), &sink);
    let recorder = session.recorder();
    assert!(session.begin_frame().expect("begins"));
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut graph = recorder.graph_pass("graph", &mut encoder);
        let dispatch_in = |graph: &mut sgpt_recorder::Scope<'_, wgpu::CommandEncoder>, label: &str| {
            let mut pass = graph.scoped_compute_pass(label);
            pass.compute_pipeline(&work.pipeline);
            pass.set_bind_group(0, &work.bind_group, &[]);
            pass.dispatch(1, 1, 1);
        };
        // Enough nested passes before the caller's own that the tree has claimed ids ahead.
        for _ in 0..3 {
            dispatch_in(&mut graph, "before");
        }
        // The writes borrow the session, not the scope: the pass is begun on the scope's encoder.
        let (writes, token) = graph.compute_pass_timestamp_writes("own");
        {
            let mut own = graph
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("own"), timestamp_writes: writes })
                .forget_lifetime();
            own.set_pipeline(&work.pipeline);
            own.set_bind_group(0, &work.bind_group, &[]);
            own.dispatch_workgroups(1, 1, 1);
        }
        drop(token);
        dispatch_in(&mut graph, "after");
    }
    recorder.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    session.end_frame().expect("ends");
    pollster::block_on(session.stop()).expect("stops");
    let (bytes, frames) = read(&sink);
    let capture = Capture::open(&bytes).expect("opens");
    let topology = capture.topology(frames[0].topology).expect("topology");
    let passes: Vec<&str> = topology
        .gpu_passes
        .iter()
        .filter(|pass| pass.kind == GpuPassKind::Compute)
        .map(|pass| pass.label.as_str())
        .collect();
    assert_eq!(passes, ["before", "before", "before", "own", "after"], "in the order they were encoded");
    assert_eq!(frames[0].dropped_spans, 0);
}
