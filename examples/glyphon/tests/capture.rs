//! The caption recorded at level Workload on lavapipe: the pass glyphon draws in, which
//! the program begins itself, is timed in every frame and attributed to its graph pass, and
//! the capture says its draws are not recorded rather than showing none.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_example_glyphon::{Caption, PASS_LABEL};
use sgpt_example_support::{
    assert_readme_states_integration_lines, assert_timed_only_pass, gpu_or_skip, record_workload,
};

const FRAMES: u64 = 4;

#[test]
fn the_pass_glyphon_draws_in_is_timed_in_every_frame_and_its_untracked_draws_are_noted() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut caption = Caption::new(&gpu.device, &gpu.queue);
    let bytes = record_workload(
        &gpu,
        FRAMES,
        &mut caption,
        |_, _| {},
        |caption, session| {
            let glyphs = caption.frame(&gpu.device, &gpu.queue, Some(session)).expect("the frame records");
            assert!(glyphs > 0, "the caption was shaped into glyphs");
        },
    );
    assert_timed_only_pass(&bytes, FRAMES, "caption", PASS_LABEL);
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    assert_readme_states_integration_lines("glyphon", &[include_str!("../src/lib.rs"), include_str!("../src/main.rs")]);
}
