//! The drawing recorded at level Workload on lavapipe: vello times its own compute passes
//! through its wgpu-profiler, and the recorder's bridge lands those scopes in the capture,
//! each frame's in that frame, nested ones inside their parent, and says where they came from.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use sgpt_example_support::{
    Gpu, assert_every_pass_timed, assert_frames_follow_each_other, assert_no_stale_spans,
    assert_readme_states_integration_lines, gpu_or_skip, open,
};
use sgpt_example_vello::Drawing;
use sgpt_format::{GpuPassKind, SpanKind};
use sgpt_recorder::{Level, MemorySink, ProfileSession, SessionOptions};

const FRAMES: u64 = 6;

/// The scope vello opens around its whole encoder in `render_to_texture`.
const ROOT_LABEL: &str = "render_to_texture";

/// Stages of vello's pipeline, one compute pass each, that every frame of this scene runs,
/// as vello labels their scopes (read from a capture of it).
const STAGES: [&str; 6] =
    ["vello.pathtag_reduce", "vello.flatten", "vello.binning", "vello.coarse", "vello.path_tiling", "vello.fine_area"];

/// Records `FRAMES` frames, collects the last profiler results and stops; the capture's bytes.
fn record(gpu: &Gpu, drawing: &mut Drawing) -> Vec<u8> {
    let sink = MemorySink::new();
    let mut session = ProfileSession::new(SessionOptions::at(Level::Workload), sink.clone());
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("the session starts");
    for _ in 0..FRAMES {
        drawing.frame(&gpu.device, &gpu.queue, Some(&mut session)).expect("the frame records");
    }
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("the device finishes");
    drawing.collect_profiler_results(&gpu.queue, &mut session);
    let summary = pollster::block_on(session.stop()).expect("the session stops");
    assert_eq!((summary.frames, summary.dropped_spans), (FRAMES, 0));
    sink.take()
}

#[test]
fn vellos_own_profiler_scopes_land_in_the_frame_they_timed() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut drawing = Drawing::new(&gpu.device).expect("vello's renderer");
    let bytes = record(&gpu, &mut drawing);

    let pixels = sgpt_test_support::gpu::read_texture(&gpu.device, &gpu.queue, drawing.target());
    let distinct: BTreeSet<&[u8]> = pixels.chunks_exact(4).collect();
    assert!(distinct.len() > 100, "vello drew the scene: {} distinct colours", distinct.len());

    let (capture, frames) = open(&bytes);
    assert_eq!(frames.len() as u64, FRAMES);
    let mut first_labels = None;
    for frame in &frames {
        let topology = capture.topology(frame.topology).expect("the frame's topology");
        let passes = &topology.gpu_passes;
        assert!(!passes.is_empty(), "frame {}: vello's scopes arrived before it was written", frame.frame_number);
        // Vello's one root scope, then its compute passes nested in it: all of kind encoder,
        // as wgpu-profiler does not say where a scope was timed; the nesting is the parent.
        assert_eq!((passes[0].label.as_str(), passes[0].parent), (ROOT_LABEL, None));
        assert!(passes[1..].iter().all(|pass| pass.parent == Some(0)), "frame {}: {passes:?}", frame.frame_number);
        assert!(
            passes.iter().all(|pass| pass.kind == GpuPassKind::Encoder),
            "frame {}: {passes:?}",
            frame.frame_number
        );
        assert!(passes.iter().all(|pass| pass.graph_pass.is_none()), "frame {}: no graph pass", frame.frame_number);
        let labels: Vec<&str> = passes.iter().map(|pass| pass.label.as_str()).collect();
        assert!(STAGES.iter().all(|stage| labels.contains(stage)), "frame {}: {labels:?}", frame.frame_number);
        let first = first_labels.get_or_insert_with(|| labels.clone());
        assert_eq!(*first, labels, "frame {}: the same stages every frame", frame.frame_number);

        assert_every_pass_timed(&capture, frame);
        for span in &frame.spans {
            let pass = &passes[span.pass as usize];
            assert_eq!(span.kind, SpanKind::Pass, "frame {}: {pass:?}", frame.frame_number);
            let set = capture.query_set(span.query_set).expect("the span's query set is declared");
            assert!(set.label.starts_with("wgpu-profiler"), "{set:?}");
            if let Some(parent) = pass.parent {
                let outer = frame.spans.iter().find(|other| other.pass == parent).expect("the parent's span");
                assert!(
                    outer.begin_ns <= span.begin_ns && span.end_ns <= outer.end_ns,
                    "frame {}: {:?} {span:?} lies outside its parent's span {outer:?}",
                    frame.frame_number,
                    pass.label
                );
            }
        }
    }
    assert_no_stale_spans(&frames);
    assert_frames_follow_each_other(&frames);

    let notes: Vec<&str> = capture.notes().iter().map(|note| note.text.as_str()).collect();
    assert_eq!(
        notes.iter().filter(|text| text.contains("came through the wgpu-profiler bridge")).count(),
        1,
        "{notes:?}"
    );
    // The closing NOTE would count frames written without their results, or results lost.
    assert!(!notes.iter().any(|text| text.starts_with("sgpt-recorder: wgpu-profiler bridge:")), "{notes:?}");
}

#[test]
fn the_readme_gives_the_integration_line_count_the_markers_add_up_to() {
    assert_readme_states_integration_lines("vello", &[include_str!("../src/lib.rs"), include_str!("../src/main.rs")]);
}
