//! Graph passes by name, refused contradictions, unlabeled passes, and the frame scope.

use sgpt_format::{Capture, GpuPassKind};
use sgpt_recorder::{FrameScope, GraphPassScope, Level, MemorySink, RecordError, SessionOptions};

use super::{Gpu, Workload, frames, gpu, started};

fn dispatch(work: &Workload, scope: &mut GraphPassScope<'_>, label: Option<&str>) {
    let mut pass = scope.compute_pass(&wgpu::ComputePassDescriptor { label, timestamp_writes: None });
    pass.set_pipeline(&work.pipeline);
    pass.set_bind_group(0, &work.bind_group, &[]);
    pass.dispatch_workgroups(1, 1, 1);
}

/// Records frames of two named brackets, each with one unlabeled pass, through the frame
/// scope; returns the capture.
fn record_named(gpu: &Gpu, work: &Workload, level: Level) -> Vec<u8> {
    let sink = MemorySink::new();
    let mut session = started(gpu, SessionOptions::at(level), &sink);
    for _ in 0..3 {
        let mut frame = FrameScope::begin(Some(&mut session)).expect("begins");
        assert!(frame.is_recording());
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for name in ["shadows", "lighting", "shadows"] {
            let mut scope = frame.scope(&mut encoder, name);
            dispatch(work, &mut scope, None);
        }
        frame.submit(&gpu.queue, [encoder]).expect("submits");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    sink.take()
}

#[test]
fn brackets_by_name_share_an_index_per_name_and_unlabeled_passes_take_their_brackets_name() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let bytes = record_named(&gpu, &work, Level::Structure);
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    for frame in frames(&capture) {
        let topology = capture.topology(frame.topology).expect("topology");
        let names: Vec<&str> = topology.graph_passes.iter().map(|pass| pass.name.as_str()).collect();
        assert_eq!(names, ["shadows", "lighting"]);
        let compute: Vec<_> = topology
            .gpu_passes
            .iter()
            .filter(|pass| pass.kind == GpuPassKind::Compute)
            .map(|pass| (pass.label.as_str(), pass.graph_pass))
            .collect();
        assert_eq!(compute, [("shadows", Some(0)), ("lighting", Some(1)), ("shadows", Some(0))]);
        assert_eq!(frame.spans.len(), topology.gpu_passes.len());
    }
}

#[test]
fn at_level_timing_two_unlabeled_passes_of_different_brackets_stay_apart() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let bytes = record_named(&gpu, &work, Level::Timing);
    let capture = Capture::open(&bytes).expect("opens");
    let frame = capture.frame(0).expect("decodes");
    let topology = capture.topology(frame.topology).expect("topology");
    let labels: Vec<&str> = topology
        .gpu_passes
        .iter()
        .filter(|pass| pass.kind == GpuPassKind::Compute)
        .map(|pass| pass.label.as_str())
        .collect();
    assert_eq!(labels, ["shadows", "lighting", "shadows"]);
}

#[test]
fn an_index_the_structure_names_otherwise_is_refused_not_misattributed() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    session.begin_frame().expect("begins");
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut first = GraphPassScope::begin(Some(&mut session), &mut encoder, 0, "first").expect("index 0 is free");
        dispatch(&work, &mut first, Some("a"));
    }
    let refused = GraphPassScope::begin(Some(&mut session), &mut encoder, 0, "second").map(|_| ());
    assert_eq!(refused, Err(RecordError::GraphPassName { index: 0, recorded: "first".into(), given: "second".into() }));
    // The same name at the same index is the same graph pass, opened again.
    GraphPassScope::begin(Some(&mut session), &mut encoder, 0, "first").expect("same name").end();
    session.resolve_queries(&mut encoder).expect("resolves");
    gpu.queue.submit([encoder.finish()]);
    session.end_frame().expect("ends");
    drop(pollster::block_on(session.stop()));
}

#[test]
fn a_frame_scope_dropped_unsubmitted_ends_its_frame_and_counts_its_unresolved_spans() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Structure), &sink);
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut frame = FrameScope::begin(Some(&mut session)).expect("begins");
        let mut scope = frame.scope(&mut encoder, "work");
        dispatch(&work, &mut scope, Some("pass"));
    }
    gpu.queue.submit([encoder.finish()]);
    // The next frame opens: the dropped scope ended the first.
    let frame = FrameScope::begin(Some(&mut session)).expect("the first frame ended");
    frame.end().expect("ends");
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.frames, 2);
    // The bracket's encoder span and the pass: never resolved, both counted.
    assert_eq!(summary.dropped_spans, 2);
}

#[test]
fn a_frame_scope_past_the_frame_limit_records_nothing_and_still_submits() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session =
        started(&gpu, SessionOptions { frame_limit: Some(1), ..SessionOptions::at(Level::Timing) }, &sink);
    for recording in [true, false] {
        let mut frame = FrameScope::begin(Some(&mut session)).expect("begins");
        assert_eq!(frame.is_recording(), recording);
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let mut scope = frame.scope(&mut encoder, "work");
        dispatch(&work, &mut scope, None);
        drop(scope);
        frame.submit(&gpu.queue, [encoder]).expect("submits");
    }
    let summary = pollster::block_on(session.finished()).expect("finished at the limit");
    assert_eq!((summary.frames, summary.dropped_spans), (1, 0));
}

/// A renderer that draws into a pass it is handed, with the signature third-party
/// renderers have (egui-wgpu's `Renderer::render` takes `&mut wgpu::RenderPass<'static>`).
fn third_party_render(pass: &mut wgpu::RenderPass<'static>, pipeline: &wgpu::RenderPipeline) {
    pass.set_pipeline(pipeline);
    pass.draw(0..3, 0..1);
}

#[test]
fn a_pass_the_application_begins_itself_is_timed_through_a_pass_timer_and_its_commands_named_absent() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let sink = MemorySink::new();
    let mut session = started(&gpu, SessionOptions::at(Level::Workload), &sink);
    for _ in 0..2 {
        let mut frame = FrameScope::begin(Some(&mut session)).expect("begins");
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut ui = frame.scope(&mut encoder, "ui");
            let timer = ui.time_render_pass("egui");
            let desc = wgpu::RenderPassDescriptor {
                label: Some("egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &work.target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                timestamp_writes: timer.as_ref().map(sgpt_recorder::PassTimer::render),
                ..wgpu::RenderPassDescriptor::default()
            };
            let mut pass = ui.encoder().begin_render_pass(&desc).forget_lifetime();
            third_party_render(&mut pass, &work.render);
        }
        frame.submit(&gpu.queue, [encoder]).expect("submits");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, 0);
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    let notes: Vec<_> = capture.notes().iter().filter(|note| note.text.contains("PassTimer")).collect();
    assert_eq!(notes.len(), 1, "once per label: {notes:?}");
    assert!(notes[0].text.contains("\"egui\"") && notes[0].text.contains("are not"));
    for frame in frames(&capture) {
        let topology = capture.topology(frame.topology).expect("topology");
        let egui = topology.gpu_passes.iter().position(|pass| pass.label == "egui").expect("the pass") as u32;
        assert_eq!(topology.gpu_passes[egui as usize].kind, GpuPassKind::Render);
        assert_eq!(topology.gpu_passes[egui as usize].graph_pass, Some(0));
        let span = frame.spans.iter().find(|span| span.pass == egui).expect("timed");
        assert!(span.end_ns >= span.begin_ns);
        assert!(frame.commands.iter().all(|command| command.gpu_pass != egui), "its commands were never seen");
    }
}
