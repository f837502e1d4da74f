//! Decoding every frame to find the damage opening cannot see, one frame at a time so
//! the page can show progress and stay responsive. Finds what `Capture::verify` finds.

use sgpt_format::{Capture, Defect, DefectKind, Frame};

/// What reads back of the indexed frames, counted as `Capture::readable_counts` counts it
/// (and `sgpt validate` reports it): a frame reads back when it decodes whole; a frame that
/// decodes but whose topology was lost still reads back, with its defect.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadBack {
    pub frames: u64,
    pub spans: u64,
    /// Numbers of the indexed frames that do not read back, in index order.
    pub lost: Vec<u64>,
}

impl ReadBack {
    /// The summary's sentence, beside the index's counts.
    #[must_use]
    pub fn describe(&self, frames_indexed: u64, spans_indexed: u64) -> String {
        if self.frames == frames_indexed && self.spans == spans_indexed && self.lost.is_empty() {
            return "every indexed frame and span".to_owned();
        }
        let mut text = format!(
            "{} of {frames_indexed} indexed frames and {} of {spans_indexed} indexed spans",
            self.frames, self.spans
        );
        if !self.lost.is_empty() {
            const NAMED: usize = 20;
            let named: Vec<String> = self.lost.iter().take(NAMED).map(u64::to_string).collect();
            let more = self.lost.len().saturating_sub(NAMED);
            let noun = if self.lost.len() == 1 { "frame" } else { "frames" };
            text.push_str(&format!("; lost: {noun} {}", named.join(", ")));
            if more > 0 {
                text.push_str(&format!(" and {more} more"));
            }
        }
        text
    }
}

/// The defect of frame `index`, if it has one; `frame` is scratch reused between calls.
#[must_use]
pub fn check_frame(capture: &Capture<'_>, index: usize, frame: &mut Frame) -> Option<Defect> {
    check_frame_counting(capture, index, frame, &mut ReadBack::default())
}

/// [`check_frame`], counting into `read` what reads back.
pub fn check_frame_counting(
    capture: &Capture<'_>,
    index: usize,
    frame: &mut Frame,
    read: &mut ReadBack,
) -> Option<Defect> {
    if let Err(defect) = capture.frame_into(index, frame) {
        read.lost.push(capture.frames()[index].frame_number);
        return Some(defect);
    }
    read.frames += 1;
    read.spans += frame.spans.len() as u64;
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
