//! The worker-thread frame recorded at level Workload on lavapipe: every job's graph pass
//! and compute pass are in the capture, attributed, timed inside their encoder's span, in
//! the order the encoders were submitted (reverse of creation), with their dispatches.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_example_support::{
    assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, assert_readme_states_integration_lines, gpu_or_skip, open, passes_of, record_workload,
};
use sgpt_example_threads::{JOBS, Jobs, WORKGROUP_SIZE, counters};
use sgpt_format::{GpuPassKind, Op};

const FRAMES: u64 = 5;

#[test]
fn jobs_encoded_on_worker_threads_record_every_span_in_submission_order() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut jobs = Jobs::new(&gpu.device);
    let bytes = record_workload(
        &gpu,
        FRAMES,
        &mut jobs,
        |jobs, session| jobs.describe(session),
        |jobs, session| jobs.frame(&gpu.device, &gpu.queue, Some(session)).expect("the frame records"),
    );
    let (capture, frames) = open(&bytes);
    assert_eq!(frames.len() as u64, FRAMES);
    let step = capture.pipelines().find(|pipeline| pipeline.label == "step").expect("described");
    assert_eq!(step.workgroup_size, Some([WORKGROUP_SIZE, 1, 1]));
    // Submitted (and so resolved) last job first.
    let submitted: Vec<usize> = (0..JOBS).rev().collect();
    let expected: Vec<_> = submitted
        .iter()
        .flat_map(|job| {
            let name = format!("job {job}");
            [
                (GpuPassKind::Encoder, name.clone(), Some(name.clone())),
                (GpuPassKind::Compute, format!("step {job}"), Some(name)),
            ]
        })
        .collect();
    let dispatches: Vec<_> = submitted
        .iter()
        .enumerate()
        .map(|(at, &job)| (2 * at as u32 + 1, Op::Dispatch { x: counters(job) / WORKGROUP_SIZE, y: 1, z: 1 }))
        .collect();
    for frame in &frames {
        assert_eq!(passes_of(&capture, frame), expected, "frame {}", frame.frame_number);
        let commands: Vec<_> = frame.commands.iter().map(|command| (command.gpu_pass, command.op)).collect();
        assert_eq!(commands, dispatches, "frame {}", frame.frame_number);
        assert!(frame.commands.iter().all(|command| command.pipeline == Some(step.id)));
        assert_every_pass_timed(&capture, frame);
        assert_eq!(assert_encoder_spans_contain_their_passes(&capture, frame), JOBS);
    }
    assert_no_stale_spans(&frames);
    assert_frames_follow_each_other(&frames);
}

#[test]
fn without_a_session_the_same_frame_runs_and_records_nothing() {
    let Some(gpu) = gpu_or_skip() else { return };
    let jobs = Jobs::new(&gpu.device);
    jobs.frame(&gpu.device, &gpu.queue, None).expect("runs");
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("the work completes");
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    assert_readme_states_integration_lines("threads", &[include_str!("../src/lib.rs"), include_str!("../src/main.rs")]);
}
