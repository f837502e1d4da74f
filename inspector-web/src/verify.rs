//! What checking every frame for the damage opening cannot see found to read back, as
//! the summary says it. The check itself is `sgpt_format::analysis::check::CheckJob`,
//! stepped by the session: it finds what `Capture::verify` finds.

use sgpt_format::ReadableCounts;

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
    /// What `counts` say reads back.
    #[must_use]
    pub fn of(counts: &ReadableCounts) -> Self {
        Self {
            frames: counts.frames as u64,
            spans: counts.spans,
            lost: counts.lost.iter().map(|lost| lost.frame_number).collect(),
        }
    }

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
