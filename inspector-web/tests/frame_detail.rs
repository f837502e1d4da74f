//! The details pane's frame: its workload pass by pass adds up to the frame's commands,
//! and a frame recorded without workload says so rather than showing zeros as counts.

use sgpt_format::{Capture, Frame};
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
        }
    }
}

#[test]
fn a_frame_without_workload_says_why_instead_of_counting_zero() {
    let bytes = fixture("level_timing.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let (detail, _) = detail_of(&capture, 0);
    assert!(detail.workload.is_empty());
    let note = detail.workload_note.expect("a note");
    assert!(note.contains("levels timing and structure record none"), "{note}");
    let facts: Vec<&str> = detail.facts.iter().map(|(label, _)| *label).collect();
    assert_eq!(&facts[..4], ["GPU time", "CPU time", "Spans", "Dropped spans"]);
}
