//! Per-pass statistics over a frame range, a little at a time so the page can show progress
//! and never freeze: `analysis::scan::ScanJob`, the one-decode scan `sgpt stats` runs, a
//! sampled frame, a scanned frame or a row's median at a time, for as long as the caller's
//! time allows. Its figures are exactly `analysis::pass_stats`'.
//!
//! Each frame is decoded once, where the two-pass `StatsAccumulator` decoded it twice; the
//! price is the durations kept around each median and p95, about a tenth of a long range's
//! spans, 4 bytes each on frame-scale passes (on the bench's hour-long and eight-hour
//! captures, about an eighth of the file's size). Given the page's workers, the job hands
//! them the frames in pieces.

use std::ops::Range;

use sgpt_format::Capture;
use sgpt_format::analysis::StatsReport;
use sgpt_format::analysis::scan::{PieceScanner, ScanJob, Windows};

/// Statistics over a range of frames, computed by [`StatsJob::step`].
#[derive(Debug)]
pub struct StatsJob<'c, 'a> {
    scan: ScanJob<'c, 'a>,
}

impl<'c, 'a> StatsJob<'c, 'a> {
    /// Statistics over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, range: Range<usize>) -> Self {
        Self { scan: ScanJob::new(capture, range, Windows::Auto) }
    }

    /// Samples, scans and selects, one frame or row at a time for as long as `more()`
    /// returns `true`. Returns `true` once the report is ready.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        self.scan.step(more)
    }

    /// [`StatsJob::step`], handing pieces of the range to `scanner` (the page's workers)
    /// where one is given.
    pub fn step_with(&mut self, scanner: Option<&mut (dyn PieceScanner + '_)>, more: &mut dyn FnMut() -> bool) -> bool {
        self.scan.step_with(scanner, more)
    }

    /// Whether the last step ended waiting for the workers' answers, with nothing else to do.
    #[must_use]
    pub fn waiting(&self) -> bool {
        self.scan.waiting()
    }

    /// Progress from 0 to 1.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.scan.progress()
    }

    /// The report; quick once [`StatsJob::step`] returned `true`.
    #[must_use]
    pub fn finish(self) -> StatsReport {
        self.scan.finish()
    }
}
