//! The Compare view's rows, from the comparison engine (`sgpt_format::compare`), the same
//! one `sgpt diff` uses: a verdict per pass and for the frame time, and each shift's
//! interval drawn as a bar around zero with the practical threshold marked.
//!
//! Rows are ordered by verdict (slower first, then faster, added, removed, culled,
//! unculled, inconclusive, unchanged: the order of `Verdict`), then by the size of the
//! effect, largest first. The bar's scale is shared by every row so bars compare. Each
//! distinct reason a row gives (why the data cannot decide, or what a verdict rests on) is
//! listed once and numbered, and the rows carry its number.

use sgpt_format::compare::{Comparison, Finding, Verdict};

use crate::units;

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// `graph › label`, or the label; `GPU frame time` for the frame row.
    pub name: String,
    pub verdict: Verdict,
    /// Why the data cannot decide, or what the verdict rests on.
    pub reason: Option<String>,
    /// The number of `reason` in [`CompareView::reasons`] (from 1), shown in the Why column.
    pub note: Option<usize>,
    pub median_a: String,
    pub median_b: String,
    /// `+1.234 ms (+4.1 %)`, or `–`.
    pub delta: String,
    /// `[+0.8 %, +6.9 %]` at the stated confidence, or `–`.
    pub interval: String,
    /// Where the bar goes, in fractions of its track (0 at the left, 1 at the right, zero
    /// at 0.5); `None` without an interval.
    pub bar: Option<(f64, f64)>,
    /// The relative effect the rows are ordered by.
    effect: f64,
}

/// The whole view: the frame time's row, the passes' rows, and how to read them.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareView {
    pub frame: CompareRow,
    pub rows: Vec<CompareRow>,
    /// The threshold's place on the bar track, each side of zero (fractions from 0.5).
    pub threshold_at: f64,
    /// How many rows have each verdict, in verdict order, for the heading.
    pub counts: Vec<(Verdict, usize)>,
    /// The method, the correction and the blocks, in one sentence.
    pub method: String,
    /// Frames of A and of B that could not be read, left out of the comparison.
    pub skipped_frames: [usize; 2],
    /// Each distinct reason once, in the order of the rows that give it (the frame's row
    /// first), with how many rows give it. A row's `note` numbers its reason here, so the
    /// why is read on the page, not only in a tooltip; where every row is inconclusive for
    /// one cause, that cause is one line.
    pub reasons: Vec<Reason>,
}

/// A reason some rows give for their verdict, and how many rows give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    pub text: String,
    pub rows: usize,
}

/// `text` with its first letter upper-case: the method begins a sentence in the view.
fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// Numbers each row's reason by its place among the distinct reasons, counting the rows
/// that give each.
fn number_reasons<'a>(rows: impl Iterator<Item = &'a mut CompareRow>) -> Vec<Reason> {
    let mut reasons: Vec<Reason> = Vec::new();
    for row in rows {
        let Some(text) = &row.reason else { continue };
        let at = match reasons.iter().position(|reason| &reason.text == text) {
            Some(at) => at,
            None => {
                reasons.push(Reason { text: text.clone(), rows: 0 });
                reasons.len() - 1
            }
        };
        reasons[at].rows += 1;
        row.note = Some(at + 1);
    }
    reasons
}

impl CompareView {
    #[must_use]
    pub fn new(comparison: &Comparison) -> Self {
        let threshold = comparison.options.threshold;
        // Bars share one scale: the widest interval end, but never less than twice the threshold.
        let widest = comparison
            .passes
            .iter()
            .map(|p| &p.finding)
            .chain([&comparison.frame])
            .filter_map(|f| f.shift.as_ref()?.interval_change())
            .flat_map(|[lo, hi]| [lo.abs(), hi.abs()])
            .fold(threshold * 2.0, f64::max);
        let scale = if widest.is_finite() && widest > 0.0 { widest } else { 1.0 };
        let row = |name: String, finding: &Finding| row(name, finding, scale);
        let mut frame = row("GPU frame time".to_owned(), &comparison.frame);
        let mut rows: Vec<CompareRow> = comparison
            .passes
            .iter()
            .map(|pass| {
                let name =
                    crate::stats_table::pass_name(pass.graph_pass.as_deref(), &pass.label, pass.kind, pass.span_kind);
                row(name, &pass.finding)
            })
            .collect();
        rows.sort_by(|a, b| a.verdict.cmp(&b.verdict).then(b.effect.total_cmp(&a.effect)).then(a.name.cmp(&b.name)));
        // Numbered in the order the rows are shown.
        let reasons = number_reasons(std::iter::once(&mut frame).chain(rows.iter_mut()));
        let mut counts: Vec<(Verdict, usize)> = Vec::new();
        for row in &rows {
            match counts.last_mut() {
                Some((verdict, count)) if *verdict == row.verdict => *count += 1,
                _ => counts.push((row.verdict, 1)),
            }
        }
        let [blocks_a, blocks_b] = comparison.block_frames;
        // The view compares one recording with one (or two ranges of one): say what that leaves out.
        let scope = if comparison.recordings == [1, 1] {
            " Each side is one recording, so the intervals hold the noise between frames, not the spread between runs of the program; sgpt diff A1 A2 … --vs B1 B2 … compares several."
        } else {
            ""
        };
        let method = format!(
            "{}: intervals at {:.0} % confidence, {}; blocks of {blocks_a} and {blocks_b} frames; a shift counts when it passes {:.1} % of A's median and {}.{scope}",
            sentence_case(comparison.method()),
            (1.0 - comparison.options.alpha) * 100.0,
            comparison.correction_words(),
            threshold * 100.0,
            units::exact_duration(comparison.options.min_effect_ns),
        );
        Self {
            frame,
            rows,
            threshold_at: (threshold / scale / 2.0).min(0.5),
            counts,
            method,
            skipped_frames: [0, 0],
            reasons,
        }
    }

    /// Says that `skipped` frames of A and of B could not be read and are left out.
    #[must_use]
    pub fn with_skipped_frames(mut self, skipped: [usize; 2]) -> Self {
        self.skipped_frames = skipped;
        self
    }

    /// The warning for frames left out, if any were.
    #[must_use]
    pub fn skipped_text(&self) -> Option<String> {
        match self.skipped_frames {
            [0, 0] => None,
            [a, b] => Some(format!(
                "{} of A and {} of B could not be read (see Capture & notes) and are left out of the comparison.",
                units::counted(a as u64, "frame"),
                units::grouped(b as u64)
            )),
        }
    }
}

fn row(name: String, finding: &Finding, scale: f64) -> CompareRow {
    let shift = finding.shift.as_ref();
    let dash = || "–".to_owned();
    let change = shift.and_then(|s| s.change);
    let interval = shift.and_then(sgpt_format::compare::Shift::interval_change);
    CompareRow {
        name,
        verdict: finding.verdict,
        reason: finding.reason.clone(),
        note: None,
        median_a: shift.map_or_else(dash, |s| units::duration(s.median_a_ns)),
        median_b: shift.map_or_else(dash, |s| units::duration(s.median_b_ns)),
        delta: shift.map_or_else(dash, |s| match s.change {
            Some(change) => format!("{} ({:+.1} %)", units::signed_duration(s.delta_ns), change * 100.0),
            None => units::signed_duration(s.delta_ns),
        }),
        interval: interval.map_or_else(dash, |[lo, hi]| format!("[{:+.1} %, {:+.1} %]", lo * 100.0, hi * 100.0)),
        bar: interval.map(|[lo, hi]| {
            let at = |x: f64| (0.5 + x / scale / 2.0).clamp(0.0, 1.0);
            (at(lo), at(hi))
        }),
        effect: change.map_or(0.0, f64::abs),
    }
}
