//! The details pane's frame: its workload pass by pass adds up to the frame's commands,
//! and a frame recorded without workload says so rather than showing zeros as counts.

use sgpt_format::{Capture, Frame, GpuPass, GpuPassKind, Level, Meta, Span, Topology, Writer};
use sgpt_inspector::frame_detail::FrameDetail;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../fixtures/v1/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture exists")
}

fn detail_of(capture: &Capture<'_>, index: usize) -> (FrameDetail, Frame) {
    let mut frame = Frame::default();
    capture.frame_into(index, &mut frame).expect("frame decodes");
    let entry = capture.frames()[index];
    (FrameDetail::new(capture, &entry, &frame, capture.topology(frame.topology)), frame)
}

#[test]
fn the_workload_rows_add_up_to_the_frames_dispatches_and_draws() {
    for name in ["level_workload.sgpt", "level_verbose.sgpt"] {
        let bytes = fixture(name);
        let capture = Capture::open(&bytes).expect("opens");
        for index in [0, capture.frames().len() - 1] {
            let (detail, frame) = detail_of(&capture, index);
            let dispatches = frame.commands.iter().filter(|c| c.op.is_dispatch()).count();
            let draws = frame.commands.len() - dispatches;
            assert!(dispatches + draws > 0, "{name} records workload");
            assert_eq!(detail.totals(), (dispatches, draws), "{name} frame {index}");
            assert!(detail.workload_note.is_none());
            let passes: Vec<u32> = detail.workload.iter().map(|row| row.pass).collect();
            assert!(passes.windows(2).all(|p| p[0] < p[1]), "one row a pass, in pass order: {passes:?}");
            assert!(detail.workload.iter().all(|row| row.dispatches + row.draws > 0));
            assert!(detail.workload.iter().filter(|row| row.dispatches == 0).all(|row| row.invocations == "–"));
            assert_eq!(detail.heading, format!("Frame {}", capture.frames()[index].frame_number));
            assert_eq!(detail.workload_heading, format!("Workload: {dispatches} dispatches, {draws} draws recorded"));
        }
    }
}

#[test]
fn a_frame_without_workload_says_why_instead_of_counting_zero() {
    let bytes = fixture("level_timing.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let (detail, _) = detail_of(&capture, 0);
    assert!(detail.workload.is_empty());
    assert_eq!(detail.workload_heading, "Workload: not recorded");
    assert_eq!(detail.workload_note.as_deref(), Some("Level timing records no dispatches or draws."));
    let facts: Vec<&str> = detail.facts.iter().map(|(label, _)| *label).collect();
    assert_eq!(&facts[..4], ["GPU time", "CPU time", "Spans", "Dropped spans"]);
}

#[test]
fn timed_passes_with_no_recorded_commands_point_at_the_notes() {
    // A pass the recorder did not begin (here as the wgpu-profiler bridge writes one):
    // timed, at level workload, with no command recorded.
    let meta = Meta { level: Some(Level::Workload), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("writes");
    let pass = GpuPass { label: "vello.fine_area".into(), kind: GpuPassKind::Encoder, ..GpuPass::default() };
    let topology = writer.topology(&Topology { gpu_passes: vec![pass], ..Topology::default() }).expect("topology");
    let mut frame = Frame { topology, ..Frame::default() };
    frame.spans.push(Span { pass: 0, begin_ns: 1_000, end_ns: 9_000, ..Span::default() });
    writer.frame(&frame).expect("frame");
    let bytes = writer.finish().expect("finishes");
    let (detail, _) = detail_of(&Capture::open(&bytes).expect("opens"), 0);
    assert_eq!(detail.workload_heading, "Workload: 0 dispatches, 0 draws recorded");
    let note = detail.workload_note.expect("a note");
    assert!(note.contains("wgpu-profiler bridge") && note.contains("notes"), "{note}");
}
