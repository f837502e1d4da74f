//! Per-pass statistics over a frame range, a little at a time so the page can show progress
//! and never freeze: `analysis::scan::ScanJob`, the one-decode scan `sgpt stats` runs, a
//! sampled frame, a scanned frame or a row's median at a time, for as long as the caller's
//! time allows. Its figures are exactly `analysis::pass_stats`'.
//!
//! Each frame is decoded once, where the two-pass `StatsAccumulator` decoded it twice; the
//! price is the durations kept around each median and p95, about a tenth of a long range's
//! spans, 2 bytes each on most frame-scale passes (4 where a row's windows span more than
//! 65 µs). Given the page's workers, the job hands them the frames in pieces. Against a
//! baseline, the job also collects the comparison's side of its range
//! ([`StatsJob::with_samples`]), so the comparison reads the range no second time.

use std::ops::Range;

use sgpt_format::Capture;
use sgpt_format::analysis::StatsReport;
use sgpt_format::analysis::scan::{PieceScanner, Scan, ScanJob, Windows};

/// Statistics over a range of frames, computed by [`StatsJob::step`].
#[derive(Debug)]
pub struct StatsJob<'c, 'a> {
    scan: ScanJob<'c, 'a>,
    range: Range<usize>,
    samples: bool,
}

impl<'c, 'a> StatsJob<'c, 'a> {
    /// Statistics over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, range: Range<usize>) -> Self {
        Self { scan: ScanJob::new(capture, range.clone(), Windows::Auto), range, samples: false }
    }

    /// [`StatsJob::new`], collecting a comparison's samples of the range too, with coins,
    /// from the same decode: for a comparison whose candidate is this range, which then
    /// reads the range no second time.
    #[must_use]
    pub fn with_samples(capture: &'c Capture<'a>, range: Range<usize>) -> Self {
        Self { scan: ScanJob::with_samples(capture, range.clone(), Windows::Auto, true), range, samples: true }
    }

    /// The frame indices the statistics are over, as asked for.
    #[must_use]
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// Whether the job collects a comparison's samples too.
    #[must_use]
    pub fn collects_samples(&self) -> bool {
        self.samples
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

    /// The report and, for a job [`StatsJob::with_samples`], the samples where the scan
    /// kept them.
    #[must_use]
    pub fn finish_scan(self) -> Scan {
        self.scan.finish_scan()
    }
}
