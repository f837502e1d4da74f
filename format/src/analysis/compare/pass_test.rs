//! One test of a comparison (the frame time, or a pass matched on both sides) in stages,
//! so that a caller that must yield between pieces of work (the web inspector) never
//! runs a whole test at once: on the halves of an eight-hour capture a test reads
//! 864,000 frames a side, about 60 ms in the page. The stages are A's copy and median,
//! B's copy and median with the checks for ties, then A's bootstrap and B's. [`compare`]
//! runs them back to back, so a test in stages gives the same figures, to the bit.
//!
//! [`compare`]: super::compare

use super::bootstrap::{Buffers, MedianError, OrderStats, Selected, Terms, median_error_of};
use super::known::WithKnown;
use super::order::KnownOrder;
use super::samples::Series;

/// Fewest frames a capture needs, and fewest frames a pass must run in on each side.
pub const MIN_FRAMES: usize = 50;
/// Largest share of a side's spans that may read exactly 0 ns, or exactly its median.
pub(super) const MAX_TIED_SHARE: f64 = 0.05;

/// A test's figures, before the correction.
#[derive(Debug)]
pub(super) struct Estimate {
    pub(super) median_a: u64,
    pub(super) median_b: u64,
    pub(super) delta: i64,
    pub(super) standard_error: f64,
    pub(super) degrees_of_freedom: f64,
}

/// What a test found: its estimate, or why it has none. The comparison turns it into a
/// finding, so this file needs none of its types.
pub(super) type Outcome = Result<Estimate, Undecided>;

/// Why a test has no estimate.
#[derive(Debug, PartialEq)]
pub(super) enum Undecided {
    /// The data cannot support a verdict, for this reason: inconclusive.
    Because(String),
    /// A figure needs durations that a side's series of coins does not keep: the
    /// comparison is to be made from samples that keep them.
    NeedsDurations,
}

/// An outcome of inconclusive for `reason`.
fn because(reason: String) -> Outcome {
    Err(Undecided::Because(reason))
}

/// What preparing a test works in, kept from one test to the next so that a pass
/// allocates nothing: a copy of each side's values to select in, and the per-frame terms.
/// Between stages each side's copy stays here, as the selections left it.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) values: [Buffers; 2],
    pub(super) terms: Terms,
}

/// What a test compares: each side's series and analysed frames, what it is (for its
/// reasons), why the captures as a whole cannot support a verdict (if they cannot), and
/// each side's block length.
#[derive(Clone, Copy, Debug)]
pub(super) struct TestInput<'s> {
    pub(super) sides: [(&'s Series, usize); 2],
    /// Each side's order statistics, where its scan selected them.
    pub(super) known: [Option<KnownOrder>; 2],
    pub(super) what: &'s str,
    pub(super) too_little: Option<&'s str>,
    pub(super) block_frames: [usize; 2],
}

/// A test under way: what its finished stages found.
#[derive(Debug, Default)]
pub(super) struct PassTest {
    /// Stages done, of [`STAGES`].
    done: u8,
    medians: [u64; 2],
    zero_share: [f64; 2],
    tied_share: [f64; 2],
    /// Each side's ranks selected so far in its copy in [`Scratch::values`].
    selected: [Selected; 2],
    /// A's standard error, from the third stage.
    error_a: Option<MedianError>,
}

/// A test's stages at most: each side's median, then each side's bootstrap.
pub(super) const STAGES: u8 = 4;

impl PassTest {
    /// Runs the next stage of the test of `input`; the test's result once it has one (at
    /// the last stage, or earlier where a check already decides it).
    pub(super) fn stage(&mut self, input: &TestInput<'_>, scratch: &mut Scratch) -> Option<Outcome> {
        let stage = self.done;
        self.done += 1;
        match stage {
            0 => self.check_and_median(input, scratch, 0),
            1 => self.check_and_median(input, scratch, 1).or_else(|| self.ties(input)),
            2 => match self.error(input, scratch, 0) {
                Some(error) => {
                    self.error_a = Some(error);
                    None
                }
                None => Some(Err(Undecided::NeedsDurations)),
            },
            _ => {
                let error_a = match self.error_a {
                    Some(error) => Some(error),
                    None => self.error(input, scratch, 0),
                };
                let Some((error_a, error_b)) = error_a.zip(self.error(input, scratch, 1)) else {
                    return Some(Err(Undecided::NeedsDurations));
                };
                Some(self.estimate(input, [error_a, error_b]))
            }
        }
    }

    /// The test of `input` in one go: every stage.
    pub(super) fn run(input: &TestInput<'_>, scratch: &mut Scratch) -> Outcome {
        let mut test = Self::default();
        loop {
            if let Some(prepared) = test.stage(input, scratch) {
                return prepared;
            }
        }
    }

    /// Stages done, 0 to 1.
    pub(super) fn progress(&self) -> f64 {
        f64::from(self.done) / f64::from(STAGES)
    }

    /// The checks that need no resampling for `side` (the captures' first), then its copy,
    /// its median and the shares of its spans at 0 ns and at the median.
    fn check_and_median(&mut self, input: &TestInput<'_>, scratch: &mut Scratch, side: usize) -> Option<Outcome> {
        if side == 0
            && let Some(reason) = input.too_little
        {
            return Some(because(reason.to_owned()));
        }
        if side == 0 {
            for (name, (series, _)) in ["A", "B"].into_iter().zip(input.sides) {
                if series.frames_present < MIN_FRAMES {
                    return Some(because(format!(
                        "the {} ran in {} of {name}; at least {MIN_FRAMES} are needed",
                        input.what,
                        crate::wording::counted(series.frames_present as u64, "frame")
                    )));
                }
            }
        }
        let series = input.sides[side].0;
        let (median, zeros, tied) = match known(input, side) {
            Some(known) => (known.median(), known.zeros, known.tied),
            // Coins without the order statistics of the durations they stand for.
            None if !series.values.kept() => return Some(Err(Undecided::NeedsDurations)),
            None => {
                let mut order = OrderStats::copy(series, &mut scratch.values[side]);
                let median = order.lower_median();
                let (zeros, tied) = order.zeros_and(median);
                self.selected[side] = order.selected();
                (median, zeros, tied)
            }
        };
        self.medians[side] = median;
        self.zero_share[side] = percent(zeros, series.len());
        self.tied_share[side] = percent(tied, series.len());
        None
    }

    /// Quantized or tied durations: the medians cannot resolve a shift.
    fn ties(&self, input: &TestInput<'_>) -> Option<Outcome> {
        let limit = 100.0 * MAX_TIED_SHARE;
        (self.zero_share.iter().chain(&self.tied_share).any(|&share| share > limit)).then(|| {
            let Some(step) = step_quoted(input) else { return Err(Undecided::NeedsDurations) };
            because(format!(
                "{:.1} % of spans in A and {:.1} % in B read exactly their median ({} ns, {} ns), {:.1} % and {:.1} % \
                 read 0 ns, and the recorded values step by {}: the medians cannot resolve a shift this fine",
                self.tied_share[0],
                self.tied_share[1],
                self.medians[0],
                self.medians[1],
                self.zero_share[0],
                self.zero_share[1],
                step,
            ))
        })
    }

    /// `side`'s bootstrap, on its copy as its median's stage left it, or on the order
    /// statistics its scan selected; `None` where it needs durations its coins do not keep.
    fn error(&self, input: &TestInput<'_>, scratch: &mut Scratch, side: usize) -> Option<MedianError> {
        let (series, frames) = input.sides[side];
        let block = input.block_frames[side];
        match known(input, side) {
            Some(known) => {
                let mut order = WithKnown::new(known, series, &mut scratch.values[side]);
                median_error_of(series, frames, block, &mut order, &mut scratch.terms)
            }
            None => {
                let mut order = OrderStats::resume(series, &mut scratch.values[side], self.selected[side]);
                median_error_of(series, frames, block, &mut order, &mut scratch.terms)
            }
        }
    }

    /// Both sides' errors combined into the test's estimate.
    fn estimate(&self, input: &TestInput<'_>, [error_a, error_b]: [MedianError; 2]) -> Outcome {
        let what = input.what;
        let (Some(se_a), Some(se_b)) = (error_a.standard_error, error_b.standard_error) else {
            let side = if error_a.standard_error.is_none() { "A" } else { "B" };
            let Some(step) = step_quoted(input) else { return Err(Undecided::NeedsDurations) };
            return because(format!(
                "the spans of {side} around its median all read one value, so its interval would be degenerate; \
                 {:.1} % and {:.1} % of spans read 0 ns, and the recorded values step by {step}",
                self.zero_share[0], self.zero_share[1],
            ));
        };
        let (variance_a, variance_b) = (se_a * se_a, se_b * se_b);
        let variance = variance_a + variance_b;
        if variance <= 0.0 {
            return because(format!(
                "every frame of the {what} gives the same share below its median: no spread to judge"
            ));
        }
        // Welch–Satterthwaite: the degrees of freedom of a sum of two estimated variances.
        let degrees_of_freedom = variance * variance
            / (variance_a * variance_a / error_a.degrees_of_freedom
                + variance_b * variance_b / error_b.degrees_of_freedom);
        let delta = i128::from(self.medians[1]) - i128::from(self.medians[0]);
        Ok(Estimate {
            median_a: self.medians[0],
            median_b: self.medians[1],
            delta: i64::try_from(delta).unwrap_or(if delta < 0 { i64::MIN } else { i64::MAX }),
            standard_error: variance.sqrt(),
            degrees_of_freedom,
        })
    }
}

/// `side`'s order statistics as its scan selected them, where it did and they are its
/// series' own.
fn known(input: &TestInput<'_>, side: usize) -> Option<KnownOrder> {
    input.known[side].filter(|known| known.fits(input.sides[side].0))
}

/// The smallest step between the recorded values of either side, as a reason quotes it;
/// `None` where a side keeps coins, not durations.
fn step_quoted(input: &TestInput<'_>) -> Option<String> {
    let [(a, _), (b, _)] = input.sides;
    (a.values.kept() && b.values.kept())
        .then(|| smallest_step(a, b).map_or_else(|| "nothing (a single value)".to_owned(), |step| format!("{step} ns")))
}

/// The smallest positive difference between two recorded values of either side: quoted
/// in reasons, never used to decide.
fn smallest_step(a: &Series, b: &Series) -> Option<u64> {
    let mut values = Vec::with_capacity(a.len() + b.len());
    a.values.extend_into(0..a.len(), &mut values);
    b.values.extend_into(0..b.len(), &mut values);
    values.sort_unstable();
    values.dedup();
    values.windows(2).map(|pair| pair[1] - pair[0]).min()
}

/// `part` of `whole` in percent; 0 of nothing is 0 %.
pub(super) fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}
