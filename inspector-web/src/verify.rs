//! Decoding every frame to find the damage opening cannot see, one frame at a time so
//! the page can show progress and stay responsive. Finds what `Capture::verify` finds.

use sgpt_format::{Capture, Defect, DefectKind, Frame};

/// The defect of frame `index`, if it has one; `frame` is scratch reused between calls.
#[must_use]
pub fn check_frame(capture: &Capture<'_>, index: usize, frame: &mut Frame) -> Option<Defect> {
    if let Err(defect) = capture.frame_into(index, frame) {
        return Some(defect);
    }
    let entry = capture.frames()[index];
    let Some(topology) = capture.topology(frame.topology) else {
        return Some(Defect::new(
            DefectKind::MissingReference,
            entry.offset,
            format!("frame {} uses topology {}, which was lost", frame.frame_number, frame.topology),
        ));
    };
    let passes = topology.gpu_passes.len();
    frame.spans.iter().find(|span| span.pass as usize >= passes).map(|span| {
        Defect::new(
            DefectKind::Malformed,
            entry.offset,
            format!(
                "frame {} has a span for GPU pass {}, beyond its topology's {passes}",
                frame.frame_number, span.pass
            ),
        )
    })
}
