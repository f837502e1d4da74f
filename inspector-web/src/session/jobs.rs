//! The session's long work, a frame or a pass at a time: each job is stepped for as long
//! as its share of a slice allows, and is finished once, when done.

use std::ops::Range;

use sgpt_format::analysis::check::CheckJob;
use sgpt_format::analysis::scan::{ScanJob, Windows};
use sgpt_format::compare::{CompareOptions, ComparisonJob, SampleCollector, Samples};
use sgpt_format::memory_analysis::GaugeScan;
use sgpt_format::{Capture, SpanKind};

use crate::histogram::{HistogramJob, PassKey};
use crate::icicle::IcicleJob;
use crate::slicing::{FrameCursor, JobKind};
use crate::stats::StatsJob;
use sgpt_format::analysis::scan::PieceScanner;

/// Long work, a frame or a pass at a time.
#[derive(Debug)]
pub(super) enum Job<'c> {
    /// Checking every frame, in pieces the workers take once the statistics and any
    /// comparison are done with them.
    Verify(Box<CheckJob<'c, 'c>>),
    Stats(StatsJob<'c, 'c>),
    Spark {
        masks: PassMasks,
        cursor: FrameCursor,
        values: Vec<Option<u64>>,
    },
    Compare(Box<CompareJob<'c>>),
    Gauges(GaugeScan),
    Icicle(IcicleJob<'c, 'c>),
    /// The selected pass's histogram, and the baseline's of the same pass when there is one.
    Histogram(Box<(HistogramJob<'c, 'c>, Option<HistogramJob<'c, 'c>>)>),
}

impl<'c> Job<'c> {
    pub(super) fn kind(&self) -> JobKind {
        match self {
            Job::Verify(_) => JobKind::Verify,
            Job::Stats(_) => JobKind::Stats,
            Job::Spark { .. } => JobKind::Spark,
            Job::Compare { .. } => JobKind::Compare,
            Job::Gauges(_) => JobKind::Gauges,
            Job::Icicle(_) => JobKind::Icicle,
            Job::Histogram(_) => JobKind::Histogram,
        }
    }

    pub(super) fn verify(capture: &'c Capture<'c>) -> Self {
        Job::Verify(Box::new(CheckJob::new(capture)))
    }

    /// Compares frames `a` of `base` with frames `b` of `capture` (both inclusive); with
    /// `b_from_stats`, side B's samples come from the statistics under way over the same
    /// frames ([`CompareJob::offer`]).
    pub(super) fn compare(
        base: &'c Capture<'c>,
        a: (usize, usize),
        capture: &'c Capture<'c>,
        b: (usize, usize),
        b_from_stats: bool,
    ) -> Self {
        let range = |(first, last): (usize, usize)| first..last + 1;
        let b = if b_from_stats { Side::from_stats(capture, range(b)) } else { Side::scanning(capture, range(b)) };
        Job::Compare(Box::new(CompareJob { a: Side::scanning(base, range(a)), b, engine: None, durations: false }))
    }

    /// The pass `key`'s time in each frame of `first..=last`.
    pub(super) fn spark(capture: &Capture<'_>, key: Option<PassKey>, first: usize, last: usize) -> Self {
        let cursor = FrameCursor::new(first..last + 1, capture.frames().len());
        Job::Spark { masks: PassMasks::new(key), cursor, values: Vec::new() }
    }

    /// Whether the job's last step ended waiting for its workers, with nothing else to do.
    pub(super) fn waiting(&self) -> bool {
        match self {
            Job::Stats(job) => job.waiting(),
            Job::Compare(job) => job.waiting(),
            Job::Verify(job) => job.waiting(),
            _ => false,
        }
    }

    /// Works on the job for as long as `more()` returns `true`; `true` once it is
    /// finished (at once, when it already was).
    /// The job the workers serve hands its pieces to `scanner` when there is one.
    pub(super) fn step(
        &mut self,
        capture: &'c Capture<'c>,
        scanner: Option<&mut (dyn PieceScanner + 'c)>,
        more: &mut dyn FnMut() -> bool,
    ) -> bool {
        match self {
            Job::Verify(job) => job.step_with(scanner, more),
            Job::Stats(job) => job.step_with(scanner, more),
            Job::Icicle(job) => job.step(more),
            Job::Histogram(jobs) => jobs.0.step(more) && jobs.1.as_mut().is_none_or(|base| base.step(more)),
            Job::Spark { masks, cursor, values } => {
                if values.capacity() == 0 {
                    values.reserve_exact(cursor.range().len());
                }
                while let Some(index) = cursor.next_frame(more) {
                    let entry = capture.frames()[index];
                    let mask = masks.of(capture, entry.topology);
                    let mut total: Option<u64> = None;
                    let _ = capture.for_each_span(index, |span| {
                        if span.kind == SpanKind::Pass && mask.get(span.pass as usize).copied().unwrap_or(false) {
                            total = Some(total.unwrap_or(0).saturating_add(span.duration_ns()));
                        }
                    });
                    values.push(total);
                }
                cursor.done()
            }
            // The scan counts in sampled frames; one is a frame decode.
            Job::Gauges(scan) => loop {
                if !more() {
                    return scan.step(capture, 0);
                }
                if scan.step(capture, 1) {
                    return true;
                }
            },
            Job::Compare(job) => job.step(scanner, more),
        }
    }
}

/// For each topology met, which of its GPU passes are the pass a key names; built once a
/// topology, so each span is one lookup.
#[derive(Debug)]
pub(super) struct PassMasks {
    key: Option<PassKey>,
    masks: Vec<(u32, Vec<bool>)>,
}

impl PassMasks {
    fn new(key: Option<PassKey>) -> Self {
        Self { key, masks: Vec::new() }
    }

    fn of(&mut self, capture: &Capture<'_>, topology: u32) -> &[bool] {
        let at = match self.masks.iter().position(|(id, _)| *id == topology) {
            Some(at) => at,
            None => {
                let mask = capture.topology(topology).map_or_else(Vec::new, |t| {
                    let key = self.key.as_ref();
                    (0..t.gpu_passes.len() as u32)
                        .map(|index| {
                            key.is_some_and(|key| PassKey::of_pass(t, index, key.span_kind).as_ref() == Some(key))
                        })
                        .collect()
                });
                self.masks.push((topology, mask));
                self.masks.len() - 1
            }
        };
        &self.masks[at].1
    }
}

/// One side of a comparison: a range of a capture, and its samples once they are ready.
#[derive(Debug)]
pub(super) struct Side<'c> {
    capture: &'c Capture<'c>,
    range: Range<usize>,
    state: SideState<'c>,
}

#[derive(Debug)]
enum SideState<'c> {
    /// The statistics' one-decode scan, with coins, in pieces the workers take where the
    /// session gives them: a byte a frame for each usual pass.
    Scanning(Box<ScanJob<'c, 'c>>),
    /// Waiting for the statistics over the same frames, which collect these samples.
    FromStats,
    /// Every span's duration, a frame at a time: where the scan could not keep coins, or
    /// a figure of the comparison needs the durations themselves.
    Collecting(Box<SampleCollector<'c, 'c>>, FrameCursor),
    Ready(Samples),
    /// Only while the samples are handed to the engine.
    Taken,
}

impl<'c> Side<'c> {
    fn scanning(capture: &'c Capture<'c>, range: Range<usize>) -> Self {
        let job = ScanJob::with_samples(capture, range.clone(), Windows::Auto, true);
        Self { capture, range, state: SideState::Scanning(Box::new(job)) }
    }

    fn from_stats(capture: &'c Capture<'c>, range: Range<usize>) -> Self {
        Self { capture, range, state: SideState::FromStats }
    }

    fn collecting(capture: &'c Capture<'c>, range: Range<usize>) -> Self {
        let collector = SampleCollector::with_frames(capture, range.len());
        let cursor = FrameCursor::new(range.clone(), capture.frames().len());
        Self { capture, range, state: SideState::Collecting(Box::new(collector), cursor) }
    }

    /// Works on the side; `true` once its samples are ready.
    fn step(&mut self, scanner: Option<&mut (dyn PieceScanner + 'c)>, more: &mut dyn FnMut() -> bool) -> bool {
        match &mut self.state {
            SideState::Scanning(job) => {
                if !job.step_with(scanner, more) {
                    return false;
                }
                let SideState::Scanning(job) = std::mem::replace(&mut self.state, SideState::Taken) else {
                    unreachable!("the state was just matched")
                };
                match job.finish_scan().samples {
                    Some(samples) => self.state = SideState::Ready(samples),
                    None => *self = Self::collecting(self.capture, self.range.clone()),
                }
                self.step(None, more)
            }
            SideState::FromStats => false,
            SideState::Collecting(collector, cursor) => {
                while let Some(index) = cursor.next_frame(more) {
                    collector.add_frame(index);
                }
                if !cursor.done() {
                    return false;
                }
                let SideState::Collecting(collector, _) = std::mem::replace(&mut self.state, SideState::Taken) else {
                    unreachable!("the state was just matched")
                };
                self.state = SideState::Ready(collector.finish());
                true
            }
            SideState::Ready(_) => true,
            SideState::Taken => true,
        }
    }

    /// Whether the side's scan is at its pieces, which the workers scan.
    fn at_pieces(&self) -> bool {
        matches!(&self.state, SideState::Scanning(job) if job.at_pieces())
    }

    /// Whether the side's scan is waiting for a scanner's answers, with nothing else to do.
    fn waiting(&self) -> bool {
        matches!(&self.state, SideState::Scanning(job) if job.waiting())
    }

    /// The share of the side done, 0 to 1.
    fn progress(&self) -> f64 {
        match &self.state {
            SideState::Scanning(job) => job.progress(),
            SideState::FromStats => 0.0,
            SideState::Collecting(_, cursor) => cursor.progress(),
            SideState::Ready(_) | SideState::Taken => 1.0,
        }
    }

    fn take(&mut self) -> Samples {
        match std::mem::replace(&mut self.state, SideState::Taken) {
            SideState::Ready(samples) => samples,
            _ => Samples::default(),
        }
    }
}

/// A comparison of two ranges, of one capture or of a baseline and a candidate: each
/// side's samples (A's, then B's), then the engine's verdicts a stage at a time. The
/// samples keep coins where the scan can, a byte a frame for each usual pass where
/// durations take four; where the engine then finds a figure that needs the durations,
/// both sides are collected again with them, and compared as they always were.
#[derive(Debug)]
pub(super) struct CompareJob<'c> {
    a: Side<'c>,
    b: Side<'c>,
    engine: Option<ComparisonJob>,
    /// Whether the sides are collected with their durations (after coins fell short).
    durations: bool,
}

impl<'c> CompareJob<'c> {
    fn step(&mut self, mut scanner: Option<&mut (dyn PieceScanner + 'c)>, more: &mut dyn FnMut() -> bool) -> bool {
        loop {
            if self.engine.is_none() {
                if !self.a.step(scanner.as_deref_mut(), more) || !self.b.step(scanner.as_deref_mut(), more) {
                    return false;
                }
                self.engine = Some(ComparisonJob::new(self.a.take(), self.b.take(), &CompareOptions::default()));
            }
            let Some(engine) = self.engine.as_mut() else { return false };
            // The engine takes a stage of a test a step, and a stage reads every frame of
            // a side (over 10 ms on eight hours): it counts as the units between two
            // clock reads, so the slice reads the clock after each stage.
            let mut heavy = || (0..crate::slicing::UNITS_PER_CLOCK_READ).all(|_| more());
            if !engine.step(&mut heavy) {
                return false;
            }
            if self.durations || !engine.needs_durations() {
                return true;
            }
            // A figure needs durations the coins do not keep: both sides again, with them.
            self.durations = true;
            self.engine = None;
            self.a = Side::collecting(self.a.capture, self.a.range.clone());
            self.b = Side::collecting(self.b.capture, self.b.range.clone());
        }
    }

    /// The statistics over frames `range` of side B's capture are done, with the samples
    /// they kept (`None` where they could not keep them, or collected none): side B's,
    /// where it waits for them; where they kept none, side B collects its own.
    pub(super) fn offer(&mut self, range: Range<usize>, samples: Option<Samples>) {
        if matches!(self.b.state, SideState::FromStats) && self.b.range == range {
            match samples {
                Some(samples) => self.b.state = SideState::Ready(samples),
                None => self.b = Side::collecting(self.b.capture, range),
            }
        }
    }

    /// The statistics side B waited for were replaced: it scans its frames itself.
    pub(super) fn stats_gone(&mut self) {
        if matches!(self.b.state, SideState::FromStats) {
            self.b = Side::scanning(self.b.capture, self.b.range.clone());
        }
    }

    /// Whether the job is at pieces the workers would scan: until then it reads only a
    /// sample of a side's frames, on the page.
    pub(super) fn wants_workers(&self) -> bool {
        self.engine.is_none() && (self.a.at_pieces() || self.b.at_pieces())
    }

    /// Whether all the job has left to do before its verdicts waits for the statistics:
    /// side A's samples ready, side B's to come from them.
    pub(super) fn awaits_stats_only(&self) -> bool {
        self.engine.is_none()
            && matches!(self.a.state, SideState::Ready(_))
            && matches!(self.b.state, SideState::FromStats)
    }

    /// Whether the job waits for a scanner's answers, with nothing else to do.
    pub(super) fn waiting(&self) -> bool {
        self.engine.is_none() && (self.a.waiting() || self.b.waiting())
    }

    /// 0 to 1: side A, side B, then the engine's passes.
    pub(super) fn progress(&self) -> f64 {
        match &self.engine {
            Some(engine) => 0.9 + 0.1 * engine.progress(),
            None => 0.45 * self.a.progress() + 0.45 * self.b.progress(),
        }
    }

    /// The comparison's engine, once it has stepped to its end.
    pub(super) fn into_engine(self) -> Option<ComparisonJob> {
        self.engine
    }
}
