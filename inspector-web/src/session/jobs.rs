//! The session's long work, a frame or a pass at a time: each job is stepped for as long
//! as its share of a slice allows, and is finished once, when done.

use sgpt_format::compare::{CompareOptions, ComparisonJob, SampleCollector, Samples};
use sgpt_format::memory_analysis::GaugeScan;
use sgpt_format::{Capture, Defect, Frame, SpanKind};

use crate::histogram::{HistogramJob, PassKey};
use crate::icicle::IcicleJob;
use crate::slicing::{FrameCursor, JobKind};
use crate::stats::StatsJob;
use crate::verify::ReadBack;
use sgpt_format::analysis::scan::PieceScanner;

/// Long work, a frame or a pass at a time.
#[derive(Debug)]
pub(super) enum Job<'c> {
    Verify {
        next: usize,
        defects: Vec<Defect>,
        frame: Frame,
        read: ReadBack,
    },
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
            Job::Verify { .. } => JobKind::Verify,
            Job::Stats(_) => JobKind::Stats,
            Job::Spark { .. } => JobKind::Spark,
            Job::Compare { .. } => JobKind::Compare,
            Job::Gauges(_) => JobKind::Gauges,
            Job::Icicle(_) => JobKind::Icicle,
            Job::Histogram(_) => JobKind::Histogram,
        }
    }

    pub(super) fn verify(capture: &Capture<'_>) -> Self {
        Job::Verify { next: 0, defects: capture.defects().to_vec(), frame: Frame::default(), read: ReadBack::default() }
    }

    /// Compares frames `a` of `base` with frames `b` of `capture` (both inclusive).
    pub(super) fn compare(
        base: &'c Capture<'c>,
        a: (usize, usize),
        capture: &'c Capture<'c>,
        b: (usize, usize),
    ) -> Self {
        let side = |capture: &'c Capture<'c>, (first, last): (usize, usize)| Side {
            capture,
            collector: Some(SampleCollector::with_frames(capture, (last + 1).saturating_sub(first))),
            cursor: FrameCursor::new(first..last + 1, capture.frames().len()),
        };
        Job::Compare(Box::new(CompareJob { a: side(base, a), b: side(capture, b), a_done: None, engine: None }))
    }

    /// The pass `key`'s time in each frame of `first..=last`.
    pub(super) fn spark(capture: &Capture<'_>, key: Option<PassKey>, first: usize, last: usize) -> Self {
        let cursor = FrameCursor::new(first..last + 1, capture.frames().len());
        Job::Spark { masks: PassMasks::new(key), cursor, values: Vec::new() }
    }

    /// Whether the job's last step ended waiting for its workers, with nothing else to do.
    pub(super) fn waiting(&self) -> bool {
        matches!(self, Job::Stats(job) if job.waiting())
    }

    /// Works on the job for as long as `more()` returns `true`; `true` once it is
    /// finished (at once, when it already was).
    /// The statistics hand their pieces to `scanner` when there is one.
    pub(super) fn step(
        &mut self,
        capture: &'c Capture<'c>,
        scanner: Option<&mut (dyn PieceScanner + 'c)>,
        more: &mut dyn FnMut() -> bool,
    ) -> bool {
        match self {
            Job::Verify { next, defects, frame, read } => {
                while *next < capture.frames().len() {
                    if !more() {
                        return false;
                    }
                    if let Some(defect) = crate::verify::check_frame_counting(capture, *next, frame, read) {
                        defects.push(defect);
                    }
                    *next += 1;
                }
                true
            }
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
            Job::Compare(job) => {
                if job.engine.is_none() {
                    if job.a_done.is_none() {
                        if !job.a.step(more) {
                            return false;
                        }
                        job.a_done = Some(job.a.finish());
                    }
                    if !job.b.step(more) {
                        return false;
                    }
                    let a = job.a_done.take().unwrap_or_default();
                    job.engine = Some(ComparisonJob::new(a, job.b.finish(), &CompareOptions::default()));
                }
                // The engine takes a stage of a test a step, and a stage reads every frame of
                // a side (over 10 ms on eight hours): it counts as the units between two
                // clock reads, so the slice reads the clock after each stage.
                let mut heavy = || (0..crate::slicing::UNITS_PER_CLOCK_READ).all(|_| more());
                job.engine.as_mut().is_none_or(|engine| engine.step(&mut heavy))
            }
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

/// One side of a comparison: its frames' samples, collected a frame at a time.
#[derive(Debug)]
pub(super) struct Side<'c> {
    capture: &'c Capture<'c>,
    /// Taken when the side is finished.
    pub(super) collector: Option<SampleCollector<'c, 'c>>,
    cursor: FrameCursor,
}

impl<'c> Side<'c> {
    fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        let Some(collector) = self.collector.as_mut() else { return true };
        while let Some(index) = self.cursor.next_frame(more) {
            collector.add_frame(index);
        }
        self.cursor.done()
    }

    /// The share of the side's frames collected, 0 to 1.
    pub(super) fn progress(&self) -> f64 {
        self.cursor.progress()
    }

    /// The samples, once every frame is collected.
    pub(super) fn finish(&mut self) -> Samples {
        self.collector.take().unwrap_or_else(|| SampleCollector::new(self.capture)).finish()
    }
}

/// A comparison of two ranges, of one capture or of a baseline and a candidate: the
/// engine's samples of each side a frame at a time, then its verdicts a pass at a time.
#[derive(Debug)]
pub(super) struct CompareJob<'c> {
    pub(super) a: Side<'c>,
    pub(super) b: Side<'c>,
    pub(super) a_done: Option<Samples>,
    pub(super) engine: Option<ComparisonJob>,
}

impl CompareJob<'_> {
    /// 0 to 1: side A, side B, then the engine's passes.
    pub(super) fn progress(&self) -> f64 {
        match (&self.engine, &self.a_done) {
            (Some(engine), _) => 0.9 + 0.1 * engine.progress(),
            (None, Some(_)) => 0.45 + 0.45 * self.b.progress(),
            (None, None) => 0.45 * self.a.progress(),
        }
    }
}
