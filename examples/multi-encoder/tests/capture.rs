//! The three-encoder frame recorded at level Workload on lavapipe, for each way its
//! encoders reach the queue: the capture holds exactly what each frame encoded, each span is
//! its frame's own, and each pass belongs to its graph pass, the upload's copy included.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_example_multi_encoder::{POINTS, Submits, WORKGROUP_SIZE, Wave};
use sgpt_example_support::{
    Gpu, assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, assert_readme_states_integration_lines, gpu_or_skip, open, passes_of, record_workload,
};
use sgpt_format::{GpuPassKind, Op};

const FRAMES: u64 = 5;

fn record_and_check(gpu: &Gpu, submits: Submits) {
    let mut wave = Wave::new(&gpu.device);
    let bytes = record_workload(
        gpu,
        FRAMES,
        &mut wave,
        |wave, session| wave.describe(session),
        |wave, session| {
            wave.frame(&gpu.device, &gpu.queue, submits, Some(session)).expect("the frame records");
        },
    );
    let (capture, frames) = open(&bytes);
    assert_eq!(frames.len() as u64, FRAMES);
    let integrate = capture.pipelines().find(|pipeline| pipeline.label == "integrate").expect("described");
    assert_eq!(integrate.workgroup_size, Some([WORKGROUP_SIZE, 1, 1]));
    let dispatch = Op::Dispatch { x: POINTS / WORKGROUP_SIZE, y: 1, z: 1 };
    let draw = Op::Draw { vertices: 6, instances: POINTS, first_vertex: 0, first_instance: 0 };
    let in_graph_pass = |kind, label: &str, graph_pass: &str| (kind, label.to_owned(), Some(graph_pass.to_owned()));
    for frame in &frames {
        // The upload's bracket holds a copy and no pass: its encoder-level span is its only time.
        assert_eq!(
            passes_of(&capture, frame),
            [
                in_graph_pass(GpuPassKind::Encoder, "upload", "upload"),
                in_graph_pass(GpuPassKind::Encoder, "integrate", "integrate"),
                in_graph_pass(GpuPassKind::Compute, "integrate wave", "integrate"),
                in_graph_pass(GpuPassKind::Encoder, "draw", "draw"),
                in_graph_pass(GpuPassKind::Render, "draw wave", "draw"),
            ],
            "{submits:?} frame {}",
            frame.frame_number
        );
        let commands: Vec<_> = frame.commands.iter().map(|command| (command.gpu_pass, command.op)).collect();
        assert_eq!(commands, [(2, dispatch), (4, draw)], "{submits:?} frame {}", frame.frame_number);
        assert_eq!(frame.commands[0].pipeline, Some(integrate.id));
        assert_every_pass_timed(&capture, frame);
        assert_eq!(assert_encoder_spans_contain_their_passes(&capture, frame), 2);
    }
    assert_no_stale_spans(&frames);
    assert_frames_follow_each_other(&frames);
}

#[test]
fn three_encoders_in_three_submits_each_resolved_on_its_own_record_every_span_of_their_frame() {
    let Some(gpu) = gpu_or_skip() else { return };
    record_and_check(&gpu, Submits::Three);
}

#[test]
fn three_encoders_in_two_submits_each_resolved_on_its_own_record_every_span_of_their_frame() {
    let Some(gpu) = gpu_or_skip() else { return };
    record_and_check(&gpu, Submits::Two);
}

#[test]
fn three_encoders_through_frame_submit_record_every_span_of_their_frame() {
    let Some(gpu) = gpu_or_skip() else { return };
    record_and_check(&gpu, Submits::Frame);
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    assert_readme_states_integration_lines(
        "multi-encoder",
        &[include_str!("../src/lib.rs"), include_str!("../src/main.rs")],
    );
}
