//! Per-pass statistics over a frame range, a little at a time so the page can show progress
//! and never freeze: `analysis::StatsAccumulator`, which `sgpt stats` uses too, fed one
//! frame at a time and then finished in steps, for as long as the caller's time allows.
//! Its memory grows with the passes, not the spans, so an hour-long capture's statistics
//! fit beside its bytes; its figures are exactly `analysis::pass_stats`'.

use std::ops::Range;

use crate::slicing::FrameCursor;

use sgpt_format::Capture;
use sgpt_format::analysis::{StatsAccumulator, StatsReport};

/// Statistics over a range of frames, computed by [`StatsJob::step`].
#[derive(Debug)]
pub struct StatsJob<'c, 'a> {
    cursor: FrameCursor,
    stats: StatsAccumulator<'c, 'a>,
}

impl<'c, 'a> StatsJob<'c, 'a> {
    /// Statistics over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, range: Range<usize>) -> Self {
        Self { cursor: FrameCursor::new(range, capture.frames().len()), stats: StatsAccumulator::new(capture) }
    }

    /// Adds frames, then finishes, one frame or pass at a time for as long as `more()`
    /// returns `true`. Returns `true` once the report is ready.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        while let Some(index) = self.cursor.next_frame(more) {
            self.stats.add_frame(index);
        }
        self.cursor.done() && self.stats.finish_step(more)
    }

    /// Progress from 0 to 1: adding frames is the first half, finishing the second.
    #[must_use]
    pub fn progress(&self) -> f64 {
        if !self.cursor.done() { self.cursor.progress() / 2.0 } else { 0.5 + self.stats.finish_progress() / 2.0 }
    }

    /// The report; quick once [`StatsJob::step`] returned `true`.
    #[must_use]
    pub fn finish(self) -> StatsReport {
        self.stats.finish()
    }
}
