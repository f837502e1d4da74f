//! The Compare view's rows: the engine's verdicts, slower first and by effect, with bars
//! on one shared scale that put a real slowdown right of the threshold.

use sgpt_format::compare::{CompareOptions, Samples, Verdict, compare};
use sgpt_format::synth::{SynthChanges, SynthOptions, workload_with};
use sgpt_format::{Capture, Level};
use sgpt_inspector::compare_view::CompareView;

fn capture(run: u64, slow: Option<(&str, f64)>) -> Vec<u8> {
    let options = SynthOptions { frames: 600, passes: 30, level: Level::Structure, seed: 4, ..SynthOptions::default() };
    let changes =
        SynthChanges { run: Some(run), slow_pass: slow.map(|(label, by)| (label.to_owned(), by)), drift: None };
    workload_with(&options, &changes).write(Vec::new()).expect("synth writes")
}

#[test]
fn a_slowed_pass_leads_the_rows_with_its_bar_past_the_threshold() {
    let base = capture(1, None);
    let base = Capture::open(&base).expect("opens");
    // Any pass label of the workload will do: take the first from the baseline.
    let label = base.topologies().next().expect("a topology").1.gpu_passes[0].label.clone();
    let slowed = capture(2, Some((&label, 0.5)));
    let slowed = Capture::open(&slowed).expect("opens");
    let comparison =
        compare(&Samples::collect(&base, 0..600), &Samples::collect(&slowed, 0..600), &CompareOptions::default());
    let view = CompareView::new(&comparison);
    assert_eq!(view.rows.len(), comparison.passes.len(), "a row a pass");
    let first = &view.rows[0];
    assert_eq!(first.verdict, Verdict::Slower, "{first:?}");
    assert!(first.name.ends_with(&label), "{} is the slowed pass {label}", first.name);
    let (lo, hi) = first.bar.expect("an interval");
    assert!(0.5 + view.threshold_at < lo && lo <= hi && hi <= 1.0, "right of the threshold: {lo}..{hi}");
    // Verdict order, then larger effects first within a verdict.
    assert!(view.rows.windows(2).all(|pair| pair[0].verdict <= pair[1].verdict));
    assert_eq!(view.counts.iter().map(|(_, n)| n).sum::<usize>(), view.rows.len());
    assert!(view.method.contains(&format!("holm correction over {} tests", comparison.tests)), "{}", view.method);
    // The default minimum effect is a setting of 1 µs, not a measurement to four digits.
    assert!(view.method.contains("A's median and 1 µs."), "{}", view.method);
    assert!(view.method.starts_with("Circular block bootstrap"), "the method begins a sentence: {}", view.method);
    // Rows without a reason have no number; numbered ones point at their own reason.
    for row in std::iter::once(&view.frame).chain(&view.rows) {
        assert_eq!(row.note.map(|note| &view.reasons[note - 1].text), row.reason.as_ref(), "{row:?}");
    }
    assert!(view.method.contains("not the spread between runs"), "one recording a side says what it leaves out");
    for row in &view.rows {
        if let Some((lo, hi)) = row.bar {
            assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi) && lo <= hi, "{row:?}");
        } else {
            assert_eq!(row.interval, "–", "no bar without an interval: {row:?}");
        }
    }
}

#[test]
fn too_few_frames_are_inconclusive_and_say_why() {
    let base = capture(1, None);
    let capture = Capture::open(&base).expect("opens");
    let comparison =
        compare(&Samples::collect(&capture, 0..20), &Samples::collect(&capture, 20..40), &CompareOptions::default());
    let view = CompareView::new(&comparison);
    assert_eq!(view.frame.verdict, Verdict::Inconclusive);
    assert!(view.frame.reason.as_deref().is_some_and(|r| !r.is_empty()), "{:?}", view.frame);
    assert!(view.rows.iter().all(|row| !matches!(row.verdict, Verdict::Slower | Verdict::Faster)));
    // Every row says why, by the number of a reason listed once: here the few frames.
    let shown: Vec<_> = std::iter::once(&view.frame).chain(&view.rows).collect();
    for row in &shown {
        let note = row.note.expect("every inconclusive row points at its reason");
        assert_eq!(Some(&view.reasons[note - 1].text), row.reason.as_ref(), "{row:?}");
    }
    assert_eq!(view.reasons.iter().map(|reason| reason.rows).sum::<usize>(), shown.len());
    let distinct: std::collections::BTreeSet<_> = view.reasons.iter().map(|reason| &reason.text).collect();
    assert_eq!(distinct.len(), view.reasons.len(), "each reason once");
    assert_eq!(view.frame.note, Some(1), "numbered in the order shown, the frame's row first");
    // Nothing was tested, so there was nothing to correct: said so, not "over 0 tests".
    assert_eq!(comparison.tests, 0);
    assert!(view.method.contains("no shift could be tested, so nothing to correct"), "{}", view.method);
    assert!(!view.method.contains("over 0 tests"), "{}", view.method);
}

#[test]
fn frames_that_cannot_be_read_are_named_as_left_out() {
    let damaged =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/corrupted.sgpt")).expect("fixture");
    let capture = Capture::open(&damaged).expect("opens");
    let frames = capture.frames().len();
    let mut job = sgpt_format::compare::ComparisonJob::new(
        Samples::collect(&capture, 0..frames),
        Samples::collect(&capture, 0..8),
        &CompareOptions::default(),
    );
    let _ = job.step(&mut || true);
    let skipped = job.skipped_frames();
    assert_eq!(skipped, [1, 1], "frame 6 is damaged, in both ranges");
    let view = CompareView::new(&job.finish()).with_skipped_frames(skipped);
    assert!(view.skipped_text().is_some_and(|t| t.starts_with("1 frame of A and 1 of B")), "{:?}", view.skipped_text());
    assert!(
        CompareView::new(&compare(
            &Samples::collect(&capture, 0..5),
            &Samples::collect(&capture, 0..5),
            &CompareOptions::default()
        ))
        .skipped_text()
        .is_none()
    );
}
