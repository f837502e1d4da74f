//! Several recordings a side: what one pair of captures cannot tell.
//!
//! Within one capture the engine sees only frame-to-frame noise. Two runs of the same
//! program also differ as a whole: another process on the machine, a clock that settled
//! differently, a cache that warmed another way. On a shared 2-core machine rendering on
//! the CPU (lavapipe), unchanged runs differ by about 5 % in every pass at once, and single
//! small passes by far more, so one recording a side flags changes that are not there.
//! With several recordings a side, that spread is measured instead of assumed away.
//!
//! # Method
//!
//! Per pass (and for the frame time), each recording gives its lower median and, from the
//! block bootstrap of the one-pair method, that median's standard error. A side's estimate
//! is the mean of its recordings' medians, and the shift is `mean B − mean A`. Its variance
//! is the two-sample t-test's: the recordings' medians scatter around their side's mean
//! with one variance `s²`, pooled over both sides with `k_A + k_B − 2` degrees of freedom,
//! so a side with one recording borrows the other side's spread. Each side's term
//! `s² / k` is never below the mean of its recordings' own bootstrap variances over `k`,
//! since a mean of medians cannot be more precise than its parts. The t quantile keeps the
//! pooled `k_A + k_B − 2` degrees of freedom even when that floor decides, which only
//! widens the interval. Holm's correction and the verdicts are the one-pair method's.
//!
//! Each recording is reduced to a [`RecordingSummary`] (per pass: its median, that
//! median's variance, or why it has none) before the sides are compared, so the frames'
//! samples of one recording can be let go before the next is read: memory is one
//! recording's samples plus a few numbers a pass for each of the others.
//!
//! Assumptions: the recordings of a side are independent runs of one program (interleave
//! the two sides' runs, so that a change in the machine falls on both), and their medians
//! scatter normally with one spread on both sides. Few recordings give few degrees of
//! freedom, so intervals are wide: three a side hold 4, and with Holm over 200 passes the
//! interval is about ±12 standard errors. That is what the data supports, and the
//! verdict says `inconclusive` rather than guessing.

use std::collections::{HashMap, HashSet};

use super::bootstrap::{OrderStats, block_length, median_error_of};
use super::samples::Series;
use super::{
    CompareOptions, Comparison, Correction, Estimate, Finding, MAX_TIED_SHARE, MIN_FRAMES, NEEDS_DURATIONS,
    PassComparison, Prepared, Samples, Scratch, Verdict, compare, cost_per_frame, holm, inconclusive, percent,
    sort_passes, too_little,
};
use crate::analysis::Key;

/// Compares B's recordings against A's: each slice holds runs of one program. One
/// recording a side is exactly [`compare`]; with more, each is summarized
/// ([`RecordingSummary::of`]) and the summaries compared ([`compare_summaries`]). An
/// empty side gives an `inconclusive` frame time.
#[must_use]
pub fn compare_recordings(a: &[Samples], b: &[Samples], options: &CompareOptions) -> Comparison {
    if let ([a], [b]) = (a, b) {
        return compare(a, b, options);
    }
    let summarize =
        |side: &[Samples]| side.iter().map(|samples| RecordingSummary::of(samples, options)).collect::<Vec<_>>();
    compare_summaries(&summarize(a), &summarize(b), options)
}

/// What comparing several recordings a side needs of one of them: per pass, its lower
/// median and that median's block-bootstrap variance, or why it has none.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordingSummary {
    frames: usize,
    block_frames: usize,
    frame: Figure,
    passes: Vec<PassFigure>,
}

/// A median and its variance in ns², or why the recording cannot give one.
type Figure = Result<(u64, f64), String>;

#[derive(Clone, Debug, PartialEq)]
struct PassFigure {
    key: Key,
    /// `None` for a pass without spans in this recording.
    figure: Option<Figure>,
    /// For a pass without spans: whether its graph pass is marked culled.
    culled: bool,
    cost_per_frame_ns: u64,
}

impl RecordingSummary {
    /// Summarizes one recording; `options.block_frames`, if given, fixes its block length,
    /// as [`compare`] would.
    #[must_use]
    pub fn of(samples: &Samples, options: &CompareOptions) -> Self {
        let block_frames = options.block_frames.unwrap_or_else(|| block_length(&samples.frame_ns)).max(1);
        let mut scratch = Scratch::default();
        let frames = samples.frames;
        let frame_series = Series::one_per_frame(samples.frame_ns.iter().copied());
        let frame = recording_median(&frame_series, frames, block_frames, "frame time", &mut scratch);
        let passes = samples
            .passes
            .iter()
            .map(|pass| {
                let ran = pass.series.len() > 0;
                PassFigure {
                    key: pass.key.clone(),
                    figure: ran.then(|| recording_median(&pass.series, frames, block_frames, "pass", &mut scratch)),
                    culled: pass.culled && !ran,
                    cost_per_frame_ns: cost_per_frame(pass, frames),
                }
            })
            .collect();
        Self { frames, block_frames, frame, passes }
    }
}

/// Compares summaries of B's recordings against summaries of A's, made with the same
/// `options`. See the [module documentation](self) for the method.
#[must_use]
pub fn compare_summaries(a: &[RecordingSummary], b: &[RecordingSummary], options: &CompareOptions) -> Comparison {
    let sides = [a, b];
    let too_little = why_too_little(a, b);
    let rows = match_passes(a, b);
    let mut prepared = Vec::with_capacity(rows.len() + 1);
    let frame: [Vec<Option<&Figure>>; 2] = sides.map(|side| side.iter().map(|r| Some(&r.frame)).collect());
    prepared.push(match &too_little {
        Some(reason) => inconclusive(reason.clone()),
        None => pool(&frame, "frame time"),
    });
    for row in &rows {
        prepared.push(match (&row.finding, &too_little) {
            (Some(finding), _) => Prepared::Done(finding.clone()),
            (None, Some(reason)) => inconclusive(reason.clone()),
            (None, None) => {
                let figures =
                    row.passes.each_ref().map(|side| side.iter().map(|p| p.and_then(|p| p.figure.as_ref())).collect());
                pool(&figures, "pass")
            }
        });
    }
    let (findings, tests) = holm(prepared, options);
    let mut findings = findings.into_iter();
    let frame = findings.next().unwrap_or(Finding { verdict: Verdict::Inconclusive, reason: None, shift: None });
    let mut passes: Vec<PassComparison> = rows
        .iter()
        .zip(findings)
        .map(|(row, finding)| {
            let (graph_pass, label, kind, span_kind) = row.key.clone();
            let cost_per_frame_ns = match finding.verdict {
                Verdict::Added | Verdict::Unculled => Some(mean_cost(&row.passes[1])),
                Verdict::Removed | Verdict::Culled => Some(mean_cost(&row.passes[0])),
                _ => None,
            };
            PassComparison { label, graph_pass, kind, span_kind, finding, cost_per_frame_ns }
        })
        .collect();
    sort_passes(&mut passes);
    Comparison {
        frame,
        passes,
        block_frames: sides.map(|side| side.iter().map(|r| r.block_frames).max().unwrap_or(1)),
        tests,
        correction: Correction::Holm,
        options: *options,
        recordings: [a.len(), b.len()],
    }
}

/// A pass as the recordings of each side hold it.
struct Row<'s> {
    key: Key,
    /// Per side, per recording: the pass there, if it has spans there.
    passes: [Vec<Option<&'s PassFigure>>; 2],
    /// Decided without a test: on one side only, or in some recordings of a side only.
    finding: Option<Finding>,
}

/// Every pass with spans in some recording, in order of first appearance (A's first).
fn match_passes<'s>(a: &'s [RecordingSummary], b: &'s [RecordingSummary]) -> Vec<Row<'s>> {
    let mut keys: Vec<&Key> = Vec::new();
    let mut seen: HashSet<&Key> = HashSet::new();
    for recording in a.iter().chain(b) {
        for pass in &recording.passes {
            if seen.insert(&pass.key) {
                keys.push(&pass.key);
            }
        }
    }
    let lookups: [Vec<HashMap<&Key, &PassFigure>>; 2] =
        [a, b].map(|side| side.iter().map(|r| r.passes.iter().map(|pass| (&pass.key, pass)).collect()).collect());
    keys.into_iter()
        .filter_map(|key| {
            let held: [Vec<Option<&PassFigure>>; 2] =
                lookups.each_ref().map(|side| side.iter().map(|passes| passes.get(key).copied()).collect());
            let passes: [Vec<Option<&PassFigure>>; 2] =
                held.each_ref().map(|side| side.iter().map(|pass| pass.filter(|p| p.figure.is_some())).collect());
            let ran = passes.each_ref().map(|side| side.iter().filter(|p| p.is_some()).count());
            let culled = held.each_ref().map(|side| side.iter().flatten().any(|p| p.culled));
            let [k_a, k_b] = [a.len(), b.len()];
            let decided = |verdict| Some(Finding { verdict, reason: None, shift: None });
            let finding = match ran {
                [0, 0] => return None,
                [ra, rb] if ra == k_a && rb == k_b => None,
                [0, rb] if rb == k_b => decided(if culled[0] { Verdict::Unculled } else { Verdict::Added }),
                [ra, 0] if ra == k_a => decided(if culled[1] { Verdict::Culled } else { Verdict::Removed }),
                [ra, rb] => Some(Finding {
                    verdict: Verdict::Inconclusive,
                    reason: Some(format!(
                        "the pass ran in {ra} of {k_a} recordings of A and {rb} of {k_b} of B: it is not the same \
                         work in every run"
                    )),
                    shift: None,
                }),
            };
            Some(Row { key: key.clone(), passes, finding })
        })
        .collect()
}

/// A pass's mean cost per analysed frame over the recordings that hold it.
fn mean_cost(passes: &[Option<&PassFigure>]) -> u64 {
    let (total, count) = passes
        .iter()
        .flatten()
        .fold((0u128, 0u128), |(total, count), p| (total + u128::from(p.cost_per_frame_ns), count + 1));
    let count = count.max(1);
    u64::try_from((total + count / 2) / count).unwrap_or(u64::MAX)
}

/// Why some recording cannot support a verdict at all, naming it.
fn why_too_little(a: &[RecordingSummary], b: &[RecordingSummary]) -> Option<String> {
    if a.is_empty() || b.is_empty() {
        return Some(format!("A has {} recordings and B {}: each side needs at least one", a.len(), b.len()));
    }
    if a.len() + b.len() < 3 {
        return Some(
            "one recording a side shows no spread between runs to pool: the one-pair engine (`compare`) judges \
             them"
                .into(),
        );
    }
    [("A", a), ("B", b)].into_iter().find_map(|(name, side)| {
        side.iter()
            .enumerate()
            .find_map(|(at, r)| too_little(&format!("recording {} of {name}", at + 1), r.frames, r.block_frames))
    })
}

/// One recording's median and its bootstrap variance, or why it has none.
fn recording_median(series: &Series, frames: usize, block: usize, what: &str, scratch: &mut Scratch) -> Figure {
    if series.frames_present < MIN_FRAMES {
        return Err(format!(
            "the {what} ran in {}; at least {MIN_FRAMES} are needed",
            crate::wording::counted(series.frames_present as u64, "frame")
        ));
    }
    if !series.values.kept() {
        return Err(NEEDS_DURATIONS.to_owned());
    }
    let mut order = OrderStats::copy(series, &mut scratch.values[0]);
    let median = order.lower_median();
    let (zeros, tied) = order.zeros_and(median);
    let limit = 100.0 * MAX_TIED_SHARE;
    let (zero_share, tied_share) = (percent(zeros, series.len()), percent(tied, series.len()));
    if zero_share > limit || tied_share > limit {
        return Err(format!(
            "{tied_share:.1} % of its spans read exactly their median ({median} ns) and {zero_share:.1} % read 0 ns: \
             the medians cannot resolve a shift this fine"
        ));
    }
    let error = median_error_of(series, frames, block, &mut order, &mut scratch.terms)
        .expect("a copy of the durations gives every order statistic");
    match error.standard_error {
        Some(se) if se > 0.0 => Ok((median, se * se)),
        _ => Err("its spans around the median all read one value, so its interval would be degenerate".into()),
    }
}

/// The pooled test of one pass (or the frame time) over every recording of both sides.
fn pool(figures: &[Vec<Option<&Figure>>; 2], what: &str) -> Prepared {
    let mut medians: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut floors = [0.0; 2];
    for (at, name) in ["A", "B"].into_iter().enumerate() {
        for (index, figure) in figures[at].iter().enumerate() {
            match figure {
                Some(Ok((median, variance))) => {
                    medians[at].push(*median as f64);
                    floors[at] += variance;
                }
                Some(Err(reason)) => return inconclusive(format!("recording {} of {name}: {reason}", index + 1)),
                None => return inconclusive(format!("the {what} has no spans in recording {} of {name}", index + 1)),
            }
        }
    }
    let k = medians.each_ref().map(|side| side.len() as f64);
    let means = medians.each_ref().map(|side| side.iter().sum::<f64>() / side.len() as f64);
    let scatter: f64 = (0..2).map(|s| medians[s].iter().map(|m| (m - means[s]).powi(2)).sum::<f64>()).sum();
    let degrees_of_freedom = k[0] + k[1] - 2.0;
    let pooled = scatter / degrees_of_freedom;
    // The mean of k medians with their own variances v_r has variance Σ v_r / k².
    let terms = [0, 1].map(|s| (pooled / k[s]).max(floors[s] / (k[s] * k[s])));
    let variance = terms[0] + terms[1];
    if variance <= 0.0 || !variance.is_finite() {
        return inconclusive(format!("the {what} reads the same in every recording: no spread to judge"));
    }
    // Rounded as the one-pair method's medians are whole ns, and the shift is theirs.
    let [median_a, median_b] = means.map(|mean| mean.round() as u64);
    let delta = i128::from(median_b) - i128::from(median_a);
    Prepared::Tested(Estimate {
        median_a,
        median_b,
        delta: i64::try_from(delta).unwrap_or(if delta < 0 { i64::MIN } else { i64::MAX }),
        standard_error: variance.sqrt(),
        degrees_of_freedom,
    })
}
