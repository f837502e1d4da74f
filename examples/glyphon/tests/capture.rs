//! The caption recorded at level Workload on lavapipe: the pass glyphon draws in, which
//! the program begins itself, is timed in every frame and attributed to its graph pass, and
//! the capture says its draws are not recorded rather than showing none.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_example_glyphon::{Caption, PASS_LABEL};
use sgpt_example_support::{
    assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, gpu_or_skip, integration_lines, open, passes_of,
};
use sgpt_format::GpuPassKind;
use sgpt_recorder::{Level, MemorySink, ProfileSession, SessionOptions};

const FRAMES: u64 = 4;

#[test]
fn the_pass_glyphon_draws_in_is_timed_in_every_frame_and_its_untracked_draws_are_noted() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut caption = Caption::new(&gpu.device, &gpu.queue);
    let sink = MemorySink::new();
    let options = SessionOptions { frame_limit: Some(FRAMES), ..SessionOptions::at(Level::Workload) };
    let mut session = ProfileSession::new(options, sink.clone());
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("the session starts");
    let done = session.finished();
    for _ in 0..FRAMES {
        let glyphs = caption.frame(&gpu.device, &gpu.queue, Some(&mut session)).expect("the frame records");
        assert!(glyphs > 0, "the caption was shaped into glyphs");
    }
    let summary = pollster::block_on(done).expect("the frame limit stops the session");
    assert_eq!((summary.frames, summary.dropped_spans), (FRAMES, 0));

    let bytes = sink.take();
    let (capture, frames) = open(&bytes);
    assert_eq!(frames.len() as u64, FRAMES);
    for frame in &frames {
        assert_eq!(
            passes_of(&capture, frame),
            [
                (GpuPassKind::Encoder, "caption".to_owned(), Some("caption".to_owned())),
                (GpuPassKind::Render, PASS_LABEL.to_owned(), Some("caption".to_owned())),
            ],
            "frame {}",
            frame.frame_number
        );
        assert!(
            frame.commands.is_empty(),
            "frame {}: glyphon's draws never pass through the recorder",
            frame.frame_number
        );
        assert_every_pass_timed(&capture, frame);
        assert_eq!(assert_encoder_spans_contain_their_passes(&capture, frame), 1);
    }
    assert_no_stale_spans(&frames);
    assert_frames_follow_each_other(&frames);
    // Once, on the first frame: the pass's draws are missing, not zero.
    let notes: Vec<_> = capture.notes().iter().filter(|note| note.text.contains(&format!("{PASS_LABEL:?}"))).collect();
    assert_eq!(notes.len(), 1, "{:?}", capture.notes());
    assert_eq!(notes[0].frame_number, 0);
    assert!(notes[0].text.contains("its commands (draws, dispatches, pipelines) are not"), "{}", notes[0].text);
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    let lines = integration_lines(&[
        include_str!("../src/lib.rs"),
        include_str!("../src/main.rs"),
        include_str!("../../support/src/device.rs"),
    ]);
    let readme = include_str!("../../../README.md");
    let row = readme.lines().find(|line| line.starts_with("| `examples/glyphon/`")).expect("the Layout table's row");
    assert!(row.contains(&format!("{lines} lines")), "the row should say {lines} lines: {row}");
}
