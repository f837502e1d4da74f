//! [`scan`](super::scan)'s statistics a bounded step at a time, for a caller that must
//! yield between pieces of work (the web inspector): the same single decode of each
//! frame, where [`StatsAccumulator`] decodes every frame twice. Each step is a sampled
//! frame, one row's windows placed from its sample, a scanned frame or one row's median
//! and p95, so none grows with the range.
//!
//! The price is [`scan`](super::scan)'s: the durations in the windows around each median
//! and p95 are kept, about a tenth of a long range's spans, 2 or 4 bytes each on
//! frame-scale passes.
//!
//! Given a [`PieceScanner`] ([`ScanJob::step_with`]), the job hands the range out in
//! pieces of about a thousand frames and merges what comes back in frame order; it then
//! scans only the pieces the scanner failed. The figures are the same either way.
//!
//! Should a rank fall outside its window after all, the job goes on as
//! [`StatsAccumulator`], itself in steps: slower, never different.

use std::ops::Range;

use super::dispatch::PieceScanner;
use super::pieces::{Merged, Pieces, Progress};
use super::threads::OneThread;
use super::{Coining, Plan, RangeSeries, SampleRows, Scan, ScanOptions, Selected, Window, Windows, hand_over};
use crate::analysis::compare::bandwidth;
use crate::analysis::held::HeldFrames;
use crate::analysis::{StatsAccumulator, StatsReport};
use crate::model::Span;
use crate::reader::Capture;

/// Per-pass statistics of a frame range in steps: exactly [`pass_stats`](crate::analysis::pass_stats)'s.
#[derive(Debug)]
pub struct ScanJob<'c, 'a> {
    /// The frames the windows' sample reads, the rows it places windows for, the range's
    /// frames, and the rows: the units of [`ScanJob::progress`].
    units: [usize; 4],
    state: State<'c, 'a>,
    /// Whether the last step ended with only a scanner's answers to wait for.
    waiting: bool,
}

#[derive(Debug)]
enum State<'c, 'a> {
    /// Reading every `stride`-th frame, `next` the next, to place the windows: its
    /// durations alone where it stores its spans as passes in turn (held for a few dozen
    /// frames, then handed to the rows), else decoded whole into `spans`.
    Sampling {
        plan: Plan<'c, 'a>,
        stride: usize,
        next: usize,
        samples: SampleRows,
        held: HeldFrames,
        spans: Vec<Span>,
    },
    /// Placing each row's windows from its sample, `windows` those placed: sorting a long
    /// range's samples at once would be tens of ms.
    Placing {
        plan: Plan<'c, 'a>,
        stride: usize,
        samples: std::vec::IntoIter<Vec<u64>>,
        windows: Vec<[Window; 2]>,
    },
    /// Scanning the range in pieces, here or by a scanner.
    Scanning(Box<Pieces<'c, 'a>>),
    /// Selecting each row's median and p95 in order, `selected` those done; with coins,
    /// each row's codes turned into coins as it is selected.
    Ordering {
        merged: Box<Merged<'c, 'a>>,
        selected: Vec<Selected>,
    },
    /// The sample misled: the two-pass statistics, frame `next` and on, then finishing.
    Rereading {
        range: Range<usize>,
        next: usize,
        stats: Box<StatsAccumulator<'c, 'a>>,
    },
    Done(Box<Scan>),
    /// Only while a step moves from one state to the next.
    Moving,
}

impl<'c, 'a> ScanJob<'c, 'a> {
    /// Statistics over frame indices `frames`, clamped to the capture, with windows placed
    /// as `windows` says. Walks the range's index once (no frame is decoded).
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, frames: Range<usize>, windows: Windows) -> Self {
        Self::with_options(capture, frames, ScanOptions { windows, ..Self::OPTIONS })
    }

    /// [`ScanJob::new`], collecting the comparison engine's samples too, from the same
    /// decode ([`ScanOptions::samples`]): with `coins`, the usual pass's as coins
    /// ([`ScanOptions::coins`]). [`ScanJob::finish_scan`] gives them.
    #[must_use]
    pub fn with_samples(capture: &'c Capture<'a>, frames: Range<usize>, windows: Windows, coins: bool) -> Self {
        Self::with_options(capture, frames, ScanOptions { windows, samples: true, coins, ..Self::OPTIONS })
    }

    /// A job's scan: one chunk (the pieces are its parts), no frame timing.
    const OPTIONS: ScanOptions =
        ScanOptions { chunks: 1, frame_timing: false, windows: Windows::Auto, samples: false, coins: false };

    fn with_options(capture: &'c Capture<'a>, frames: Range<usize>, options: ScanOptions) -> Self {
        let (plan, stride) = Plan::layout(capture, frames, 1, &options);
        let range = plan.range.clone();
        let sampled = stride.map_or(0, |stride| range.len().div_ceil(stride));
        let placed = if stride.is_some() { plan.keys.len() } else { 0 };
        let units = [sampled, placed, range.len(), plan.keys.len()];
        let state = match stride {
            Some(stride) => {
                let samples = SampleRows::new(plan.keys.len(), sampled);
                State::Sampling {
                    plan,
                    stride,
                    next: range.start,
                    samples,
                    held: HeldFrames::default(),
                    spans: Vec::new(),
                }
            }
            None => {
                let mut plan = plan;
                plan.place_windows(None);
                Self::scanning(plan)
            }
        };
        Self { units, state, waiting: false }
    }

    /// Samples, scans, then selects, one frame or row at a time for as long as `more()`
    /// returns `true`. Returns `true` once the report is ready.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        self.step_with(None, more)
    }

    /// [`ScanJob::step`], handing the range's frames to `scanner` in pieces where one is
    /// given: each `more()` then pays for a piece sent, received or merged, as well as a
    /// frame or row done here. Pieces sent to a scanner that a later step is not given
    /// are scanned here.
    pub fn step_with<'d>(
        &mut self,
        mut scanner: Option<&mut (dyn PieceScanner + 'd)>,
        more: &mut dyn FnMut() -> bool,
    ) -> bool {
        self.waiting = false;
        loop {
            match &mut self.state {
                State::Sampling { plan, stride, next, samples, held, spans } => {
                    while *next < plan.range.end {
                        if !more() {
                            return false;
                        }
                        plan.sample_one(*next, held, samples, spans);
                        *next += *stride;
                    }
                    let State::Sampling { plan, stride, mut samples, mut held, .. } =
                        std::mem::replace(&mut self.state, State::Moving)
                    else {
                        unreachable!("the state was just matched")
                    };
                    hand_over(&mut held, &mut samples);
                    let windows = Vec::with_capacity(samples.rows.len());
                    self.state = State::Placing { plan, stride, samples: samples.rows.into_iter(), windows };
                }
                State::Placing { plan, stride, samples, windows } => {
                    while samples.len() > 0 {
                        if !more() {
                            return false;
                        }
                        let Some(mut sample) = samples.next() else { break };
                        // With the samples, as `Plan::new` places them: the median's window
                        // reaching the density's bandwidth, and ties noted.
                        let around = if plan.samples { bandwidth((sample.len() * *stride / 2).max(1)) } else { 0.0 };
                        if plan.coins {
                            plan.tied.push(super::tied(&mut sample));
                        }
                        windows.push(super::windows(&mut sample, around));
                    }
                    let State::Placing { mut plan, windows, .. } = std::mem::replace(&mut self.state, State::Moving)
                    else {
                        unreachable!("the state was just matched")
                    };
                    plan.windows = windows;
                    self.state = Self::scanning(plan);
                }
                State::Scanning(pieces) => {
                    match pieces.step(scanner.as_deref_mut(), more) {
                        Progress::Done => {}
                        Progress::Paused => return false,
                        Progress::Waiting => {
                            self.waiting = true;
                            return false;
                        }
                    }
                    let State::Scanning(pieces) = std::mem::replace(&mut self.state, State::Moving) else {
                        unreachable!("the state was just matched")
                    };
                    let merged = Box::new(pieces.into_figures());
                    let selected = Vec::with_capacity(merged.figures.slots.len());
                    self.state = State::Ordering { merged, selected };
                }
                State::Ordering { merged, selected } => {
                    let Merged { plan, figures, in_place, .. } = &mut **merged;
                    while selected.len() < figures.slots.len() {
                        if !more() {
                            return false;
                        }
                        let slot = selected.len();
                        let mut row = Selected::of(&mut figures.slots[slot], plan.samples, plan.coins);
                        // A row's codes become coins in the row's own step: all of them at
                        // once, on a long capture, were tens of ms.
                        if let Some(RangeSeries::Codes(codes)) = in_place.get_mut(slot).and_then(Option::as_mut) {
                            row.coins = Coining::Spans(row.coin(codes));
                        }
                        selected.push(row);
                    }
                    let State::Ordering { merged, selected } = std::mem::replace(&mut self.state, State::Moving) else {
                        unreachable!("the state was just matched")
                    };
                    let Merged { plan, figures, parts, in_place } = *merged;
                    let misled =
                        selected.iter().zip(&figures.slots).any(|(row, slot)| slot.count > 0 && row.figures.is_none());
                    self.state = if misled {
                        // The two-pass statistics; the samples are let go (coins need the
                        // medians inside their windows), for the caller to collect apart.
                        let range = plan.range.clone();
                        let stats = Box::new(StatsAccumulator::new(plan.capture));
                        State::Rereading { next: range.start, range, stats }
                    } else {
                        // One chunk whose rows are already selected: merging moves it as it is.
                        State::Done(Box::new(plan.finish::<OneThread>(vec![figures], parts, in_place, Some(selected))))
                    };
                }
                State::Rereading { range, next, stats } => {
                    while *next < range.end {
                        if !more() {
                            return false;
                        }
                        stats.add_frame(*next);
                        *next += 1;
                    }
                    if !stats.finish_step(more) {
                        return false;
                    }
                    let State::Rereading { stats, .. } = std::mem::replace(&mut self.state, State::Moving) else {
                        unreachable!("the state was just matched")
                    };
                    let stats = stats.finish();
                    self.state = State::Done(Box::new(Scan { stats, timing: None, reread: true, samples: None }));
                }
                State::Done(_) => return true,
                State::Moving => unreachable!("a step always leaves a state"),
            }
        }
    }

    /// Progress from 0 to 1, in frames sampled and scanned and rows selected; a reread
    /// starts again from 0.
    #[must_use]
    pub fn progress(&self) -> f64 {
        let [sampled, placed, frames, rows] = self.units;
        let done = match &self.state {
            State::Sampling { plan, stride, next, .. } => (*next - plan.range.start).div_ceil(*stride),
            State::Placing { windows, .. } => sampled + windows.len(),
            State::Scanning(pieces) => sampled + placed + pieces.frames_merged(),
            State::Ordering { selected, .. } => sampled + placed + frames + selected.len(),
            State::Rereading { stats, range, next } => {
                let added = (*next - range.start) as f64 / range.len().max(1) as f64;
                return if *next < range.end { added / 2.0 } else { 0.5 + stats.finish_progress() / 2.0 };
            }
            State::Done(_) | State::Moving => return 1.0,
        };
        done as f64 / (sampled + placed + frames + rows).max(1) as f64
    }

    /// Whether the job is scanning its pieces: its windows placed, its frames not all
    /// merged. Before, it samples and places on its own; from here on a scanner, when it
    /// has one, does most of its work.
    #[must_use]
    pub fn at_pieces(&self) -> bool {
        matches!(self.state, State::Scanning(_))
    }

    /// Whether the last step ended waiting for a scanner's answers, with nothing else to do.
    #[must_use]
    pub fn waiting(&self) -> bool {
        self.waiting
    }

    /// Whether a rank fell outside its window, so the statistics were read again (two more
    /// decodes of the range); `false` until the job is done.
    #[must_use]
    pub fn reread(&self) -> bool {
        matches!(&self.state, State::Done(scan) if scan.reread)
    }

    /// The report; takes whatever steps [`ScanJob::step`] has not.
    #[must_use]
    pub fn finish(self) -> StatsReport {
        self.finish_scan().stats
    }

    /// The report and, for a job [`ScanJob::with_samples`], the samples: `None` where the
    /// scan could not keep them (see [`ScanOptions::coins`]; and wherever the statistics
    /// were read again). Takes whatever steps [`ScanJob::step`] has not.
    #[must_use]
    pub fn finish_scan(mut self) -> Scan {
        let _ = self.step(&mut || true);
        match self.state {
            State::Done(scan) => *scan,
            _ => unreachable!("a step without limit ends done"),
        }
    }

    /// Scanning `plan`, whose windows are placed.
    fn scanning(plan: Plan<'c, 'a>) -> State<'c, 'a> {
        State::Scanning(Box::new(Pieces::new(plan)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::threads::OneThread;
    use super::{Plan, ScanJob, ScanOptions, State, Windows};
    use crate::reader::Capture;
    use crate::synth::{SynthOptions, generate};

    /// One step of `job` allowed a single unit.
    fn one_unit(job: &mut ScanJob<'_, '_>) -> bool {
        let mut left = true;
        job.step(&mut || std::mem::replace(&mut left, false))
    }

    #[test]
    fn windows_are_placed_one_row_a_unit() {
        let bytes = generate(&SynthOptions { frames: 300, passes: 12, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("synth opens");
        let mut job = ScanJob::new(&capture, 0..300, Windows::SampleEvery(2));
        while matches!(job.state, State::Sampling { .. }) {
            assert!(!one_unit(&mut job));
        }
        let rows = job.units[1];
        assert!(rows > 1, "{rows} rows");
        for placed in 1..=rows {
            assert!(!one_unit(&mut job));
            match &job.state {
                State::Placing { windows, .. } => assert_eq!(windows.len(), placed),
                State::Scanning(_) => assert_eq!(placed, rows, "every row placed before the scan"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn the_job_places_the_windows_the_scan_places() {
        // Two topologies; the job samples a frame a step, the scan its frames in batches,
        // each reading a frame's durations alone where it can.
        let bytes = generate(&SynthOptions { frames: 900, passes: 25, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("synth opens");
        for stride in [1, 3, 40] {
            let windows = Windows::SampleEvery(stride);
            let mut job = ScanJob::new(&capture, 0..900, windows);
            while !matches!(job.state, State::Scanning(_)) {
                assert!(!one_unit(&mut job));
            }
            let State::Scanning(pieces) = &job.state else { unreachable!("just matched") };
            let options = ScanOptions { chunks: 1, frame_timing: false, windows, ..ScanOptions::default() };
            let scan = Plan::new::<OneThread>(&capture, 0..900, 1, &options);
            assert_eq!(pieces.plan.windows, scan.windows, "every {stride}");
        }
    }
}
