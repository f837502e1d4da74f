//! Did B get slower than A? Per pass matched across two captures (or two frame ranges),
//! and for the GPU frame time: the shift in medians with a confidence interval, and a
//! verdict against a practical threshold. The CLI's `sgpt diff` shows it; the inspector
//! can use the same engine.
//!
//! ```
//! use sgpt_format::compare::{CompareOptions, Samples, Verdict, compare};
//! use sgpt_format::synth::{SynthChanges, SynthOptions, workload_with};
//! use sgpt_format::Capture;
//!
//! // Two runs of one program, the second with one pass made 20 % slower.
//! let options = SynthOptions { frames: 600, passes: 10, ..SynthOptions::default() };
//! let slower = SynthChanges { run: Some(2), slow_pass: Some(("simulation.pass2".into(), 0.2)), ..Default::default() };
//! let a = workload_with(&options, &SynthChanges { run: Some(1), ..Default::default() }).write(Vec::new())?;
//! let b = workload_with(&options, &slower).write(Vec::new())?;
//! let (a, b) = (Capture::open(&a)?, Capture::open(&b)?);
//! let report = compare(
//!     &Samples::collect(&a, 0..a.frames().len()),
//!     &Samples::collect(&b, 0..b.frames().len()),
//!     &CompareOptions::default(),
//! );
//! let slowest = &report.passes[0];
//! assert_eq!((slowest.label.as_str(), slowest.finding.verdict), ("simulation.pass2", Verdict::Slower));
//! assert!(report.passes[1..].iter().all(|pass| pass.finding.verdict != Verdict::Slower));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Method
//!
//! - **Matching**: passes are matched by graph pass, label, kind and span kind, exactly
//!   as `sgpt stats` keys them. A pass with spans on one side only is `added` or
//!   `removed`, or `culled` / `unculled` when the other side's frames mark its graph pass
//!   culled; those get no shift, since a missing pass has no median.
//! - **Estimate**: the shift of the lower median (the one `sgpt stats` shows) over all
//!   spans, `B − A` in ns, and relative to A's median.
//! - **Interval**: each side's median gets a standard error from the circular block
//!   bootstrap over consecutive frames (blocks of `L` frames, `L` the longer of the
//!   capture's choice from its frame times and the pass's own from its per-frame terms):
//!   the bootstrap variance of the share of spans at or below the median, computed
//!   exactly rather than by drawing resamples, never below the AR(1) long-run variance of
//!   those terms, carried to the median through the density there (estimated from the
//!   spacing of the order statistics around it), or, when that share is itself uncertain,
//!   read from the sorted values its interval reaches (Woodruff). A pass that switches
//!   between levels for hundreds of frames, as lavapipe's small passes do, is wide, not
//!   precise. The sides are independent runs, so their errors add in quadrature. The
//!   interval is `shift ± t·se`, `t` the Student t quantile of the level Holm's procedure
//!   gives the test, with the Welch–Satterthwaite combination of each side's `3F / 2L`
//!   degrees of freedom (a variance from few blocks is uncertain itself).
//!   Assumptions: within a capture, frames are stationary and dependence fades within a
//!   block (a drift slower than the capture itself looks exactly like a change, and no
//!   method on one pair of captures can tell them apart); the median's sampling
//!   distribution is close to normal, which holds for many frames of finely resolved
//!   durations and fails under ties, hence the checks below.
//! - **Multiple comparisons**: Holm's step-down procedure controls the family-wise error
//!   rate at `alpha` over every test made (the frame time and each matched pass that
//!   reached the bootstrap). Tests are ordered by `|shift| / se`, largest first; the
//!   `j`-th (from 0) of `m` gets the level `alpha / (m − j)` until one is not significant,
//!   and every later one keeps that level. (The order is by the t statistic rather than
//!   its p-value; the two differ only where the degrees of freedom do.) An interval is reported at its test's level,
//!   so a shift is significant exactly when its interval excludes 0.
//! - **Verdict**, with the practical threshold `T = max(threshold × median A,
//!   min_effect_ns)`: `unchanged` when the interval lies inside `[−T, T]`; `slower`
//!   (`faster`) when the shift is significant and above `T` (below `−T`); otherwise
//!   `inconclusive`, with the reason.
//! - **Ties and too little data** give `inconclusive` with a reason, never a guess:
//!   fewer than [`MIN_FRAMES`] frames (captures, or frames a pass ran in), fewer than 10
//!   blocks in a capture, more than 5 % of a side's spans at exactly 0 ns or at exactly
//!   its median (quantized timestamps: the median cannot move less than the step between
//!   recorded values), or a degenerate interval (the spans around the median all read
//!   one value). The reason quotes the share of spans at 0 ns and the smallest step
//!   between the recorded values; no quantum is estimated or kept.
//!
//! One pair of captures shows only the noise between frames within each. Runs of one
//! program also differ as a whole, and a pair cannot show by how much: give
//! [`compare_recordings`] several recordings a side to put that spread into the intervals
//! (its method is in [`recordings`]).
//!
//! Everything is deterministic: no resample is drawn at random, so the same captures
//! always give the same report. Memory: see [`Samples`].

mod block_job;
mod bootstrap;
mod context;
mod known;
mod normal;
mod order;
mod pass_test;
pub mod recordings;
#[cfg(test)]
mod reference;
mod samples;
mod sliced_sort;
mod terms;

use std::collections::HashMap;

pub(crate) use bootstrap::{bandwidth, median_error_ranks};
pub use context::{ContextDifference, context_differences};
pub(crate) use order::KnownOrder;
pub use recordings::{RecordingSummary, compare_recordings, compare_summaries};
pub(crate) use samples::{
    ChunkPart, ChunkSamples, Durations, Inside, Part, RangeSeries, SeriesKind, codes_to_coins, unknown_pass,
};
pub use samples::{SampleCollector, Samples};

use crate::analysis::Key;
use crate::model::{GpuPassKind, SpanKind};
use block_job::BlockLengthJob;
use bootstrap::{MIN_BLOCKS, block_length};
pub use pass_test::MIN_FRAMES;
use pass_test::{Estimate, MAX_TIED_SHARE, Outcome, PassTest, Scratch, TestInput, Undecided, percent};
use samples::{PassSamples, Series};

/// What the engine is asked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompareOptions {
    /// The practical threshold relative to A's median: 0.03 is 3 %.
    pub threshold: f64,
    /// The smallest shift that matters, in ns, whatever the relative threshold says.
    pub min_effect_ns: u64,
    /// The family-wise error rate Holm's procedure controls.
    pub alpha: f64,
    /// A fixed block length in frames, instead of the automatic one (1 resamples single
    /// frames, as though they were independent).
    pub block_frames: Option<usize>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self { threshold: 0.03, min_effect_ns: 1_000, alpha: 0.05, block_frames: None }
    }
}

/// How a pass (or the frame time) compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// A significant shift beyond the practical threshold, upwards.
    Slower,
    /// A significant shift beyond the practical threshold, downwards.
    Faster,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// Ran in A; B's frames mark its graph pass culled.
    Culled,
    /// Culled in A; ran in B.
    Unculled,
    /// The data cannot decide; the reason says why.
    Inconclusive,
    /// The interval lies inside the practical threshold.
    Unchanged,
}

impl Verdict {
    /// The stable name used in JSON output.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
            Verdict::Culled => "culled",
            Verdict::Unculled => "unculled",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Unchanged => "unchanged",
        }
    }
}

/// The multiple-comparison correction applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Correction {
    /// Holm's step-down procedure: family-wise error rate.
    Holm,
}

impl Correction {
    /// The stable name used in JSON output (`comparison.correction` in `sgpt diff --json`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
        }
    }
}

/// How the intervals are made, in words.
pub const METHOD: &str = "circular block bootstrap of the median shift";

/// How the intervals are made when a side has more than one recording
/// ([`compare_recordings`]), in words.
pub const METHOD_RECORDINGS: &str =
    "pooled t-test on the recordings' medians, each no tighter than its circular block bootstrap";

/// The shift of a median from A to B, all in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct Shift {
    /// The lower median in A: of the pass's span durations over every analysed frame, or,
    /// for the frame time, of the frames' `gpu_duration_ns`. With several recordings a side
    /// ([`compare_recordings`]), the mean of the recordings' lower medians, rounded to the ns.
    pub median_a_ns: u64,
    /// The same figure in B.
    pub median_b_ns: u64,
    /// `median B − median A`.
    pub delta_ns: i64,
    /// `delta / median A`; `None` when median A is 0.
    pub change: Option<f64>,
    /// The practical threshold `T` this shift was judged against.
    pub threshold_ns: u64,
    /// `[low, high]`, rounded outwards to whole ns; `None` when no interval could be made.
    pub interval_ns: Option<[i64; 2]>,
    /// The interval's confidence, `1 − ` its Holm level.
    pub confidence: Option<f64>,
    /// The standard error of `delta`.
    pub standard_error_ns: Option<f64>,
    /// The degrees of freedom of the t quantile the interval used.
    pub degrees_of_freedom: Option<f64>,
}

impl Shift {
    /// The interval relative to median A.
    #[must_use]
    pub fn interval_change(&self) -> Option<[f64; 2]> {
        let base = self.median_a_ns as f64;
        self.interval_ns.filter(|_| base > 0.0).map(|[low, high]| [low as f64 / base, high as f64 / base])
    }
}

/// A verdict with its reason and, where the pass is on both sides, its shift.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The judgement (`verdict` in `sgpt diff --json`).
    pub verdict: Verdict,
    /// Why, for `inconclusive`; `None` otherwise.
    pub reason: Option<String>,
    /// The estimate and interval, for a pass on both sides that reached the bootstrap;
    /// `None` for a pass on one side only and for an `inconclusive` decided before it (too
    /// few frames or blocks, ties, a degenerate interval).
    pub shift: Option<Shift>,
}

/// One pass compared.
#[derive(Clone, Debug, PartialEq)]
pub struct PassComparison {
    /// The GPU pass's label; with the next three fields, the key the passes were matched on.
    pub label: String,
    /// The name of the graph pass that opened the GPU pass; `None` without one.
    pub graph_pass: Option<String>,
    /// The GPU pass's kind.
    pub kind: GpuPassKind,
    /// Whole pass or region inside one.
    pub span_kind: SpanKind,
    /// The verdict, its reason and its shift.
    pub finding: Finding,
    /// For a pass on one side only: its total duration per analysed frame there.
    pub cost_per_frame_ns: Option<u64>,
}

/// Everything [`compare`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The GPU frame time (first timestamp to last, from the index).
    pub frame: Finding,
    /// Sorted by verdict (slower, faster, added, removed, culled, unculled, inconclusive,
    /// unchanged), then by effect (`|delta|`, or cost per frame), largest first.
    pub passes: Vec<PassComparison>,
    /// The block length used for A and for B, in frames.
    pub block_frames: [usize; 2],
    /// The tests in Holm's family.
    pub tests: usize,
    /// The multiple-comparison correction applied over the `tests`.
    pub correction: Correction,
    /// The options the comparison ran with.
    pub options: CompareOptions,
    /// Recordings compared on A's side and on B's: `[1, 1]` for one pair of captures
    /// (or ranges), whose intervals hold only the frame-to-frame noise within each.
    pub recordings: [usize; 2],
}

impl Comparison {
    /// How the intervals were made, in words: [`METHOD`] for one recording a side,
    /// [`METHOD_RECORDINGS`] for more.
    #[must_use]
    pub fn method(&self) -> &'static str {
        if self.recordings == [1, 1] { METHOD } else { METHOD_RECORDINGS }
    }

    /// The correction over the tests and the family-wise α, in words, the same in every
    /// tool: "holm correction over 3 tests, family-wise α = 0.05". When no shift could be
    /// tested (every pass inconclusive, added, removed or culled), there was nothing to
    /// correct, and it says that rather than "over 0 tests".
    #[must_use]
    pub fn correction_words(&self) -> String {
        let alpha = self.options.alpha;
        match self.tests {
            0 => format!("no shift could be tested, so nothing to correct (family-wise α = {alpha})"),
            tests => format!(
                "{} correction over {}, family-wise α = {alpha}",
                self.correction.name(),
                crate::wording::counted(tests as u64, "test")
            ),
        }
    }
}

#[derive(Debug)]
enum Prepared {
    Done(Finding),
    Tested(Estimate),
    /// A figure of the test needs durations that a side's coins do not keep (a scan's
    /// samples with `coins`): inconclusive, saying so, in [`compare`]; none at all in
    /// [`try_compare`].
    NeedsDurations,
}

/// The reason of a test that needed durations its samples did not keep.
const NEEDS_DURATIONS: &str = "these samples keep each frame's span of this pass only as at or below its median \
     or not, and this figure needs the durations themselves; compare samples that keep them";

/// Compares B against A. See the module documentation for the method.
#[must_use]
pub fn compare(a: &Samples, b: &Samples, options: &CompareOptions) -> Comparison {
    let (plan, prepared) = prepare_all(a, b, options);
    plan.finish(a, b, prepared, options)
}

/// [`compare`] for samples of which some may keep coins rather than durations (a scan's
/// with [`crate::analysis::scan::ScanOptions::coins`]): the same comparison, or `None`
/// where a figure needs durations they do not keep (a pass whose share below its median
/// is so uncertain that its interval reads durations far from it, or one whose ties need
/// the step between its values quoted). The caller then compares samples that keep them.
#[must_use]
pub fn try_compare(a: &Samples, b: &Samples, options: &CompareOptions) -> Option<Comparison> {
    let (plan, prepared) = prepare_all(a, b, options);
    if prepared.iter().any(|prepared| matches!(prepared, Prepared::NeedsDurations)) {
        return None;
    }
    Some(plan.finish(a, b, prepared, options))
}

/// The plan and every test prepared.
fn prepare_all(a: &Samples, b: &Samples, options: &CompareOptions) -> (Plan, Vec<Prepared>) {
    let plan = Plan::new(a, b, options);
    // Each test reads only its own series: with `parallel`, they are prepared on rayon's
    // pool (in test order, so Holm's ties fall the same way).
    // Each worker reuses one scratch across its tests.
    #[cfg(feature = "parallel")]
    let prepared = {
        use rayon::prelude::*;
        (0..plan.tests())
            .into_par_iter()
            .map_init(Scratch::default, |scratch, at| plan.prepare(a, b, at, scratch))
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let prepared = {
        let mut scratch = Scratch::default();
        (0..plan.tests()).map(|at| plan.prepare(a, b, at, &mut scratch)).collect()
    };
    (plan, prepared)
}

/// [`compare`] a stage of a test at a time, for a caller that must yield between pieces of
/// work (the web inspector): each [`ComparisonJob::step`] prepares tests for as long as
/// `more()` allows, and [`ComparisonJob::finish`] corrects and orders them. Its result is exactly
/// [`compare`]'s.
#[derive(Debug)]
pub struct ComparisonJob {
    a: Samples,
    b: Samples,
    options: CompareOptions,
    /// Each side's block length, found in bounded steps: on a long capture each ranks and
    /// autocorrelates every frame time, the heaviest work of the whole comparison.
    blocks: [BlockLengthJob; 2],
    /// The matched passes, once both block lengths are known.
    plan: Option<Plan>,
    prepared: Vec<Prepared>,
    /// The test after the prepared ones, when it is under way.
    testing: Option<PassTest>,
    scratch: Scratch,
}

/// Units of work before the first pass: A's block length, B's (each one step, or several
/// on a long capture), then matching the passes.
const PLANNING_STEPS: usize = 3;

impl ComparisonJob {
    /// A comparison to make a step at a time; nothing is computed until [`Self::step`].
    #[must_use]
    pub fn new(a: Samples, b: Samples, options: &CompareOptions) -> Self {
        Self {
            a,
            b,
            options: *options,
            blocks: [BlockLengthJob::new(options.block_frames), BlockLengthJob::new(options.block_frames)],
            plan: None,
            prepared: Vec::new(),
            testing: None,
            scratch: Scratch::default(),
        }
    }

    /// Takes one step per `true` from `more()`: A's block length (one step, or one per
    /// bounded piece of it on a long capture), B's, the plan, then each test (the frame time
    /// first, then each matched pass) in up to four: A's median, B's, A's bootstrap, B's.
    /// `true` once every one is done.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        let mut blocks = [1; 2];
        for (side, samples) in [&self.a, &self.b].into_iter().enumerate() {
            blocks[side] = loop {
                if let Some(block) = self.blocks[side].length() {
                    break block;
                }
                if !more() {
                    return false;
                }
                self.blocks[side].step(&samples.frame_ns);
            };
        }
        let plan = match &mut self.plan {
            Some(plan) => plan,
            None => {
                if !more() {
                    return false;
                }
                let plan = Plan::with_blocks(&self.a, &self.b, blocks);
                self.prepared.reserve(plan.tests());
                self.plan.insert(plan)
            }
        };
        while self.prepared.len() < plan.tests() {
            if !more() {
                return false;
            }
            let at = self.prepared.len();
            let prepared = match plan.input(&self.a, &self.b, at) {
                Ok(input) => self.testing.get_or_insert_default().stage(&input, &mut self.scratch).map(tested),
                Err(verdict) => Some(untested(verdict)),
            };
            if let Some(prepared) = prepared {
                self.prepared.push(prepared);
                self.testing = None;
            }
        }
        true
    }

    /// Whether a test prepared so far needs durations that a side's coins do not keep
    /// (see [`try_compare`]): the caller then compares samples that keep them, rather
    /// than show that test inconclusive for want of them.
    #[must_use]
    pub fn needs_durations(&self) -> bool {
        self.prepared.iter().any(|prepared| matches!(prepared, Prepared::NeedsDurations))
    }

    /// How many frames of A and of B could not be analysed and were skipped.
    #[must_use]
    pub fn skipped_frames(&self) -> [usize; 2] {
        [self.a.defects.len(), self.b.defects.len()]
    }

    /// Whether the planning is done (both block lengths found, the passes matched): the
    /// steps left are a pass each.
    #[must_use]
    pub fn is_planned(&self) -> bool {
        self.plan.is_some()
    }

    /// Steps done of all, 0 to 1, rising with every step. Until the passes are matched
    /// their count is taken at its most (every pass of either side its own row).
    #[must_use]
    pub fn progress(&self) -> f64 {
        let planned =
            self.blocks.iter().map(BlockLengthJob::progress).sum::<f64>() + f64::from(u8::from(self.plan.is_some()));
        let tests = self.plan.as_ref().map_or(self.a.passes.len() + self.b.passes.len() + 1, Plan::tests);
        let testing = self.testing.as_ref().map_or(0.0, PassTest::progress);
        (planned + self.prepared.len() as f64 + testing) / (PLANNING_STEPS + tests) as f64
    }

    /// The comparison; takes whatever steps [`ComparisonJob::step`] has not.
    #[must_use]
    pub fn finish(mut self) -> Comparison {
        let _ = self.step(&mut || true);
        let plan = self.plan.take().unwrap_or_else(|| Plan::new(&self.a, &self.b, &self.options));
        plan.finish(&self.a, &self.b, self.prepared, &self.options)
    }
}

/// A side's block length: the options' when they set one, else found from its frame times.
fn side_block_frames(side: &Samples, options: &CompareOptions) -> usize {
    options.block_frames.unwrap_or_else(|| block_length(&side.frame_ns)).max(1)
}

/// A pass on one side or both: its index in A's passes and in B's, and its verdict when
/// it is on one side only.
type RowAt = (Option<usize>, Option<usize>, Option<Verdict>);

/// What a comparison tests, before any resampling: the matched passes, each side's block
/// length, and whether the captures can support a verdict at all.
#[derive(Debug)]
struct Plan {
    block_frames: [usize; 2],
    too_little: Option<String>,
    frame_series: [Series; 2],
    rows: Vec<RowAt>,
}

impl Plan {
    fn new(a: &Samples, b: &Samples, options: &CompareOptions) -> Self {
        Self::with_blocks(a, b, [a, b].map(|side| side_block_frames(side, options)))
    }

    /// The plan, each side's block length already known.
    fn with_blocks(a: &Samples, b: &Samples, block_frames: [usize; 2]) -> Self {
        let too_little = too_little_data(a, b, block_frames);
        let in_b: HashMap<&Key, usize> = b.passes.iter().enumerate().map(|(i, pass)| (&pass.key, i)).collect();
        let in_a: HashMap<&Key, usize> = a.passes.iter().enumerate().map(|(i, pass)| (&pass.key, i)).collect();
        // Every pass with spans on some side, with its verdict when it is on one side only.
        let mut rows: Vec<RowAt> = Vec::new();
        for (at, pass) in a.passes.iter().enumerate().filter(|(_, pass)| pass.series.len() > 0) {
            let other = in_b.get(&pass.key).copied();
            match other.filter(|&i| b.passes[i].series.len() > 0) {
                Some(other) => rows.push((Some(at), Some(other), None)),
                None => {
                    let culled = other.is_some_and(|i| b.passes[i].culled);
                    rows.push((Some(at), None, Some(if culled { Verdict::Culled } else { Verdict::Removed })));
                }
            }
        }
        for (at, pass) in b.passes.iter().enumerate().filter(|(_, pass)| pass.series.len() > 0) {
            let other = in_a.get(&pass.key).copied();
            if other.is_some_and(|i| a.passes[i].series.len() > 0) {
                continue;
            }
            let culled = other.is_some_and(|i| a.passes[i].culled);
            rows.push((None, Some(at), Some(if culled { Verdict::Unculled } else { Verdict::Added })));
        }
        let frame_series = [a, b].map(|side| Series::one_per_frame(side.frame_ns.iter().copied()));
        Self { block_frames, too_little, frame_series, rows }
    }

    /// The frame time, then each row.
    fn tests(&self) -> usize {
        self.rows.len() + 1
    }

    /// Test `at`: 0 is the frame time, `i + 1` row `i`.
    fn prepare(&self, a: &Samples, b: &Samples, at: usize, scratch: &mut Scratch) -> Prepared {
        match self.input(a, b, at) {
            Ok(input) => tested(PassTest::run(&input, scratch)),
            Err(verdict) => untested(verdict),
        }
    }

    /// What test `at` compares; its verdict instead where it needs no test (a pass on one
    /// side only, or culled on one).
    fn input<'s>(&'s self, a: &'s Samples, b: &'s Samples, at: usize) -> Result<TestInput<'s>, Verdict> {
        let input = |sides, known, what| TestInput {
            sides,
            known,
            what,
            too_little: self.too_little.as_deref(),
            block_frames: self.block_frames,
        };
        let (a_frames, b_frames) = (a.frames, b.frames);
        let Some(&(in_a, in_b, verdict)) = at.checked_sub(1).and_then(|row| self.rows.get(row)) else {
            let [frames_a, frames_b] = &self.frame_series;
            return Ok(input([(frames_a, a.frames), (frames_b, b.frames)], [None; 2], "frame time"));
        };
        match (in_a, in_b, verdict) {
            (Some(in_a), Some(in_b), None) => {
                let (a, b) = (&a.passes[in_a], &b.passes[in_b]);
                Ok(input([(&a.series, a_frames), (&b.series, b_frames)], [a.known, b.known], "pass"))
            }
            (_, _, verdict) => Err(verdict.unwrap_or(Verdict::Inconclusive)),
        }
    }

    /// Holm's correction over the prepared tests, then the passes in verdict and effect order.
    fn finish(&self, a: &Samples, b: &Samples, prepared: Vec<Prepared>, options: &CompareOptions) -> Comparison {
        let (findings, tests) = holm(prepared, options);
        let mut findings = findings.into_iter();
        let frame = findings.next().unwrap_or(Finding { verdict: Verdict::Inconclusive, reason: None, shift: None });
        let mut passes: Vec<PassComparison> = self
            .rows
            .iter()
            .zip(findings)
            .map(|(&(in_a, in_b, _), finding)| {
                let pass = in_a.map(|i| &a.passes[i]).or_else(|| in_b.map(|i| &b.passes[i]));
                let (graph_pass, label, kind, span_kind) = pass.map(|p| p.key.clone()).unwrap_or_default();
                let only = match (in_a, in_b) {
                    (Some(i), None) => Some((&a.passes[i], a.frames)),
                    (None, Some(i)) => Some((&b.passes[i], b.frames)),
                    _ => None,
                };
                PassComparison {
                    label,
                    graph_pass,
                    kind,
                    span_kind,
                    finding,
                    cost_per_frame_ns: only.map(|(pass, frames)| cost_per_frame(pass, frames)),
                }
            })
            .collect();
        sort_passes(&mut passes);
        Comparison {
            frame,
            passes,
            block_frames: self.block_frames,
            tests,
            correction: Correction::Holm,
            options: *options,
            recordings: [1, 1],
        }
    }
}

/// Verdict order (slower first), then effect (`|delta|`, or cost per frame), largest
/// first, then the key, so that equal effects always fall the same way.
fn sort_passes(passes: &mut [PassComparison]) {
    passes.sort_by(|x, y| {
        let effect = |pass: &PassComparison| {
            pass.finding.shift.as_ref().map_or(u128::from(pass.cost_per_frame_ns.unwrap_or(0)), |shift| {
                u128::from(shift.delta_ns.unsigned_abs())
            })
        };
        let key = |pass: &PassComparison| {
            (pass.graph_pass.clone(), pass.label.clone(), pass.kind.name(), pass.span_kind.name())
        };
        x.finding
            .verdict
            .cmp(&y.finding.verdict)
            .then_with(|| effect(y).cmp(&effect(x)))
            .then_with(|| key(x).cmp(&key(y)))
    });
}

/// A pass's total duration per analysed frame: from its durations, or, for coins, from
/// the total its scan kept.
fn cost_per_frame(pass: &PassSamples, frames: usize) -> u64 {
    let series = &pass.series;
    let total: u128 = match (series.values.kept(), pass.known) {
        (false, Some(known)) => known.total_ns,
        _ => (0..series.len()).map(|at| u128::from(series.values.get(at))).sum(),
    };
    let frames = frames.max(1) as u128;
    u64::try_from((total + frames / 2) / frames).unwrap_or(u64::MAX)
}

/// Why the captures as a whole cannot support a verdict, if they cannot.
fn too_little_data(a: &Samples, b: &Samples, block_frames: [usize; 2]) -> Option<String> {
    [("A", a), ("B", b)]
        .into_iter()
        .zip(block_frames)
        .find_map(|((name, side), block)| too_little(name, side.frames, block))
}

/// Why `frames` analysed frames, alike over runs of `block`, cannot support a verdict, if
/// they cannot; `name` names them (`A`, or a recording of it).
fn too_little(name: &str, frames: usize, block: usize) -> Option<String> {
    if frames < MIN_FRAMES {
        return Some(format!(
            "{name} has {} analysed; at least {MIN_FRAMES} are needed",
            crate::wording::counted(frames as u64, "frame")
        ));
    }
    (frames / block < MIN_BLOCKS).then(|| {
        format!(
            "frames of {name} are alike over runs of {block} frames, so its {frames} frames hold fewer than \
             {MIN_BLOCKS} independent blocks; record more frames"
        )
    })
}

/// The finding of a row that needs no test: added, removed, culled or unculled.
fn untested(verdict: Verdict) -> Prepared {
    Prepared::Done(Finding { verdict, reason: None, shift: None })
}

fn inconclusive(reason: String) -> Prepared {
    Prepared::Done(Finding { verdict: Verdict::Inconclusive, reason: Some(reason), shift: None })
}

/// A test's outcome as the correction takes it: its estimate, or inconclusive for its reason.
fn tested(outcome: Outcome) -> Prepared {
    match outcome {
        Ok(estimate) => Prepared::Tested(estimate),
        Err(Undecided::Because(reason)) => inconclusive(reason),
        Err(Undecided::NeedsDurations) => Prepared::NeedsDurations,
    }
}

/// Applies Holm's procedure to every tested estimate and gives each its verdict.
fn holm(prepared: Vec<Prepared>, options: &CompareOptions) -> (Vec<Finding>, usize) {
    let mut order: Vec<(usize, f64)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Prepared::Tested(e) => Some((i, e.delta.unsigned_abs() as f64 / e.standard_error)),
            Prepared::Done(_) | Prepared::NeedsDurations => None,
        })
        .collect();
    // Largest |z| first; NaN cannot occur (the standard error is positive), ties by position.
    order.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let tests = order.len();
    let mut level_of = vec![(0.0, false); prepared.len()];
    let mut stopped: Option<f64> = None;
    for (step, &(index, z)) in order.iter().enumerate() {
        let level = stopped.unwrap_or(options.alpha / (tests - step) as f64);
        let df = match &prepared[index] {
            Prepared::Tested(e) => e.degrees_of_freedom,
            Prepared::Done(_) | Prepared::NeedsDurations => f64::INFINITY,
        };
        let critical = normal::student_t_quantile(1.0 - level / 2.0, df);
        let significant = stopped.is_none() && z > critical;
        if !significant && stopped.is_none() {
            stopped = Some(level);
        }
        level_of[index] = (level, significant);
    }
    let findings = prepared
        .into_iter()
        .zip(level_of)
        .map(|(p, (level, significant))| match p {
            Prepared::Done(finding) => finding,
            Prepared::NeedsDurations => {
                Finding { verdict: Verdict::Inconclusive, reason: Some(NEEDS_DURATIONS.to_owned()), shift: None }
            }
            Prepared::Tested(e) => judge(&e, level, significant, options),
        })
        .collect();
    (findings, tests)
}

fn judge(e: &Estimate, level: f64, significant: bool, options: &CompareOptions) -> Finding {
    let critical = normal::student_t_quantile(1.0 - level / 2.0, e.degrees_of_freedom);
    let half = critical * e.standard_error;
    let (low, high) = ((e.delta as f64 - half).floor() as i64, (e.delta as f64 + half).ceil() as i64);
    let relative = (options.threshold * e.median_a as f64).ceil();
    let threshold =
        (if relative.is_finite() && relative > 0.0 { relative as u64 } else { 0 }).max(options.min_effect_ns);
    let t = i64::try_from(threshold).unwrap_or(i64::MAX);
    let shift = Shift {
        median_a_ns: e.median_a,
        median_b_ns: e.median_b,
        delta_ns: e.delta,
        change: (e.median_a > 0).then(|| e.delta as f64 / e.median_a as f64),
        threshold_ns: threshold,
        interval_ns: Some([low, high]),
        confidence: Some(1.0 - level),
        standard_error_ns: Some(e.standard_error),
        degrees_of_freedom: Some(e.degrees_of_freedom),
    };
    let (verdict, reason) = if low >= -t && high <= t {
        (Verdict::Unchanged, None)
    } else if significant && e.delta > t {
        (Verdict::Slower, None)
    } else if significant && e.delta < -t {
        (Verdict::Faster, None)
    } else if significant {
        (
            Verdict::Inconclusive,
            Some(format!(
                "the shift of {:+} ns is significant but within the threshold of ±{threshold} ns, and the interval \
                 [{low}, {high}] ns reaches past it",
                e.delta
            )),
        )
    } else {
        (
            Verdict::Inconclusive,
            Some(format!(
                "the {:.4} % interval [{low}, {high}] ns holds 0 and reaches past the threshold of ±{threshold} ns: \
                 more frames would tell",
                100.0 * (1.0 - level)
            )),
        )
    };
    Finding { verdict, reason, shift: Some(shift) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;

    /// `samples` with each pass of one span in every frame kept as a scan with coins keeps
    /// it: its coins, and its order statistics beside them.
    fn as_coins(samples: &Samples) -> Samples {
        let mut coined = samples.clone();
        for pass in &mut coined.passes {
            let Some(values) = pass.series.one_span_per_frame().filter(|v| v.len() == samples.frames && !v.is_empty())
            else {
                continue;
            };
            let mut sorted: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
            sorted.sort_unstable();
            let (count, median) = (sorted.len(), sorted[(sorted.len() - 1) / 2]);
            let counted = |keep: &dyn Fn(u64) -> bool| sorted.iter().filter(|&&v| keep(v)).count();
            pass.known = Some(KnownOrder {
                count,
                values: median_error_ranks(count).map(|rank| sorted[rank]),
                zeros: counted(&|v| v == 0),
                tied: counted(&|v| v == median),
                at_or_below_median: counted(&|v| v <= median),
                total_ns: sorted.iter().map(|&v| u128::from(v)).sum(),
            });
            let coins = values.iter().map(|&v| u8::from(u64::from(v) <= median)).collect();
            pass.series = Series::of_coins(coins);
        }
        coined
    }

    /// A side of `frames` frames: a smooth pass, one switching between two levels for
    /// hundreds of frames (its interval reads far from the median), one quantized to ties,
    /// one on one side only, and one of several spans a frame.
    fn side(rng: &mut Rng, frames: usize, only: &str) -> Samples {
        let mut high = false;
        let series = [
            ("smooth", Series::one_per_frame((0..frames).map(|_| rng.log_normal(50_000.0, 0.2) as u64))),
            (
                "switching",
                Series::one_per_frame((0..frames).map(|_| {
                    if rng.unit() < 0.004 {
                        high = !high;
                    }
                    (if high { 24_000.0 } else { 4_000.0 } * (0.1 * rng.normal()).exp()) as u64
                })),
            ),
            ("quantized", Series::one_per_frame((0..frames).map(|_| rng.below(4) * 100_000))),
            (only, Series::one_per_frame((0..frames).map(|_| rng.log_normal(9_000.0, 0.3) as u64))),
            (
                "several",
                Series::from_frames(
                    &(0..frames).map(|_| (0..rng.below(3)).map(|_| rng.below(10_000)).collect()).collect::<Vec<_>>(),
                ),
            ),
        ];
        let passes = series
            .into_iter()
            .map(|(label, series)| PassSamples {
                key: (None, label.to_owned(), GpuPassKind::Render, SpanKind::Pass),
                series,
                culled: false,
                known: None,
            })
            .collect();
        let frame_ns = (0..frames).map(|_| rng.log_normal(3_000_000.0, 0.05) as u64).collect();
        Samples { frames, frame_ns, passes, defects: Vec::new() }
    }

    #[test]
    fn the_correction_is_worded_for_what_it_covered() {
        let mut rng = Rng::new(5);
        let (a, b) = (side(&mut rng, 600, "only in A"), side(&mut rng, 600, "only in B"));
        let mut comparison = compare(&a, &b, &CompareOptions::default());
        assert!(comparison.tests > 1);
        let tests = comparison.tests;
        assert_eq!(comparison.correction_words(), format!("holm correction over {tests} tests, family-wise α = 0.05"));
        comparison.tests = 1;
        assert_eq!(comparison.correction_words(), "holm correction over 1 test, family-wise α = 0.05");
        comparison.tests = 0;
        assert_eq!(
            comparison.correction_words(),
            "no shift could be tested, so nothing to correct (family-wise α = 0.05)"
        );
    }

    #[test]
    fn coins_compare_as_durations_do_or_say_they_cannot() {
        let mut rng = Rng::new(31);
        let frames = 3_000;
        let (a, b) = (side(&mut rng, frames, "only in A"), side(&mut rng, frames, "only in B"));
        let expected = compare(&a, &b, &CompareOptions::default());
        let (coins_a, coins_b) = (as_coins(&a), as_coins(&b));
        // The switching pass reads past its bandwidth and the quantized one quotes its
        // values' step: both need durations.
        assert_eq!(try_compare(&coins_a, &coins_b, &CompareOptions::default()), None);
        let from_coins = compare(&coins_a, &coins_b, &CompareOptions::default());
        let needs: Vec<&str> = from_coins
            .passes
            .iter()
            .filter(|pass| pass.finding.reason.as_deref() == Some(NEEDS_DURATIONS))
            .map(|pass| pass.label.as_str())
            .collect();
        assert_eq!(needs.len(), 2, "{needs:?}");
        assert!(needs.contains(&"switching") && needs.contains(&"quantized"));
        // A job a step at a time says so too, once it has prepared those tests.
        let stepped = |a: &Samples, b: &Samples| {
            let mut job = ComparisonJob::new(a.clone(), b.clone(), &CompareOptions::default());
            loop {
                let mut once = true;
                if job.step(&mut || std::mem::replace(&mut once, false)) {
                    break job;
                }
            }
        };
        let job = stepped(&coins_a, &coins_b);
        assert!(job.needs_durations());
        assert_eq!(job.finish(), from_coins);
        // Every other figure is the durations' own, the one-sided passes' costs included.
        let others = |comparison: &Comparison| -> Vec<PassComparison> {
            comparison.passes.iter().filter(|pass| !needs.contains(&pass.label.as_str())).cloned().collect()
        };
        assert_eq!(others(&from_coins), others(&expected));
        assert_eq!(from_coins.frame, expected.frame);
        // Without the passes that need durations, the comparison is the same whole.
        let without = |samples: &Samples| {
            let mut kept = samples.clone();
            kept.passes.retain(|pass| !needs.contains(&pass.key.1.as_str()));
            kept
        };
        let (a, b) = (without(&a), without(&b));
        let (coins_a, coins_b) = (without(&coins_a), without(&coins_b));
        assert_eq!(
            try_compare(&coins_a, &coins_b, &CompareOptions::default()),
            Some(compare(&a, &b, &CompareOptions::default()))
        );
        assert!(!stepped(&coins_a, &coins_b).needs_durations());
    }
}
