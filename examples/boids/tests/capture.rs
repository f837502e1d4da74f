//! The flock recorded at level Workload on lavapipe: the capture holds exactly what each
//! frame encoded, each span is its frame's own, and each pass belongs to its graph pass.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_example_boids::{BOIDS, Boids, WORKGROUP_SIZE};
use sgpt_example_support::{
    assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, assert_readme_states_integration_lines, gpu_or_skip, open, passes_of, record_workload,
};
use sgpt_format::{Attachment, AttachmentRole, GpuPassKind, LoadOp, Op, StoreOp};

/// Few frames: lavapipe runs the simulation on the CPU.
const FRAMES: u64 = 6;

#[test]
fn each_frame_records_one_dispatch_and_one_instanced_draw_in_its_own_graph_pass() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut boids = Boids::new(&gpu.device);
    let bytes = record_workload(
        &gpu,
        FRAMES,
        &mut boids,
        |boids, session| boids.describe(session),
        |boids, session| {
            boids.frame(&gpu.device, &gpu.queue, Some(session)).expect("the frame records");
        },
    );
    let (capture, frames) = open(&bytes);
    assert_eq!(frames.len() as u64, FRAMES);
    let simulate = capture.pipelines().find(|pipeline| pipeline.label == "simulate").expect("described");
    assert_eq!(simulate.workgroup_size, Some([WORKGROUP_SIZE, 1, 1]));
    let dispatch = Op::Dispatch { x: BOIDS / WORKGROUP_SIZE, y: 1, z: 1 };
    let draw = Op::Draw { vertices: 3, instances: BOIDS, first_vertex: 0, first_instance: 0 };
    let in_graph_pass = |kind, label: &str, graph_pass: &str| (kind, label.to_owned(), Some(graph_pass.to_owned()));
    for frame in &frames {
        // lavapipe times encoders: each bracket's encoder-level span comes before its pass.
        assert_eq!(
            passes_of(&capture, frame),
            [
                in_graph_pass(GpuPassKind::Encoder, "simulate", "simulate"),
                in_graph_pass(GpuPassKind::Compute, "simulate boids", "simulate"),
                in_graph_pass(GpuPassKind::Encoder, "draw", "draw"),
                in_graph_pass(GpuPassKind::Render, "draw boids", "draw"),
            ],
            "frame {}",
            frame.frame_number
        );
        let topology = capture.topology(frame.topology).expect("the frame's topology");
        let target = Attachment {
            role: AttachmentRole::Color,
            format: "rgba8unorm".to_owned(),
            load: LoadOp::Clear,
            store: StoreOp::Store,
            stencil: None,
        };
        assert_eq!(topology.gpu_passes[3].attachments, [target], "frame {}", frame.frame_number);
        let commands: Vec<_> = frame.commands.iter().map(|command| (command.gpu_pass, command.op)).collect();
        assert_eq!(commands, [(1, dispatch), (3, draw)], "frame {}", frame.frame_number);
        assert_eq!(frame.commands[0].pipeline, Some(simulate.id));
        assert!(frame.commands[1].pipeline.is_some_and(|id| id != simulate.id), "the draw has its own pipeline");
        assert_every_pass_timed(&capture, frame);
        assert_eq!(assert_encoder_spans_contain_their_passes(&capture, frame), 2);
    }
    assert_no_stale_spans(&frames);
    assert_frames_follow_each_other(&frames);
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    assert_readme_states_integration_lines("boids", &[include_str!("../src/lib.rs"), include_str!("../src/main.rs")]);
}
