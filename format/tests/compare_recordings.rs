//! Several recordings a side: runs that differ as a whole, as runs on a shared machine do,
//! are not called a change, while a real one still is; one recording a side is exactly the
//! one-pair engine; a pass missing from some runs, and a side with no runs, say why.

use sgpt_format::compare::{
    CompareOptions, Comparison, METHOD, METHOD_RECORDINGS, RecordingSummary, Samples, Verdict, compare,
    compare_recordings, compare_summaries,
};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, workload_with};
use sgpt_format::{Capture, Level};

#[path = "support/topologies.rs"]
mod topologies;

fn samples_of(bytes: &[u8]) -> Samples {
    let capture = Capture::open(bytes).expect("a capture written here opens");
    Samples::collect(&capture, 0..capture.frames().len())
}

const OPTIONS: SynthOptions =
    SynthOptions { frames: 600, passes: 40, level: Level::Timing, seed: 1, quantize_ns: None };

/// A whole-run factor: a drift whose correlation time is far longer than the capture
/// scales every pass of a run by nearly one factor, with a spread of `sigma` between runs.
const RUN_TO_RUN: Drift = Drift { sigma: 0.06, frames: 1e9 };

fn recording(run: u64, drift: Option<Drift>, slow: Option<(&str, f64)>) -> Samples {
    let changes = SynthChanges { run: Some(run), drift, slow_pass: slow.map(|(label, by)| (label.to_owned(), by)) };
    samples_of(&workload_with(&OPTIONS, &changes).write(Vec::new()).expect("writing into a Vec succeeds"))
}

fn flagged(report: &Comparison) -> Vec<String> {
    std::iter::once(("frame time", &report.frame))
        .chain(report.passes.iter().map(|p| (p.label.as_str(), &p.finding)))
        .filter(|(_, finding)| matches!(finding.verdict, Verdict::Slower | Verdict::Faster))
        .map(|(label, finding)| format!("{label} {}", finding.verdict.name()))
        .collect()
}

#[test]
fn runs_that_differ_as_a_whole_are_a_change_to_one_pair_and_not_to_several() {
    let a: Vec<Samples> = (1..=3).map(|run| recording(run, Some(RUN_TO_RUN), None)).collect();
    let b: Vec<Samples> = (4..=6).map(|run| recording(run, Some(RUN_TO_RUN), None)).collect();
    let options = CompareOptions::default();
    // Some pair of these runs is far enough apart that frame-to-frame noise cannot explain
    // it: the one-pair engine, rightly for what it sees, calls that a change.
    let pairs_flagged = a
        .iter()
        .flat_map(|a| b.iter().map(move |b| (a, b)))
        .filter(|(a, b)| !flagged(&compare(a, b, &options)).is_empty())
        .count();
    assert!(pairs_flagged > 0, "the whole-run spread is wider than one pair's intervals");
    let report = compare_recordings(&a, &b, &options);
    assert_eq!(flagged(&report), Vec::<String>::new());
    assert_eq!((report.recordings, report.method()), ([3, 3], METHOD_RECORDINGS));
    assert_eq!(report.tests, 41, "the frame time and every pass are tested");
    let frame = report.frame.shift.as_ref().expect("the frame time is tested");
    assert_eq!(frame.degrees_of_freedom, Some(4.0), "3 + 3 recordings hold 4 degrees of freedom");
}

#[test]
fn a_pass_slower_in_every_run_is_found_across_runs_that_spread() {
    let slow = "culling.pass1.0";
    let spread = Drift { sigma: 0.01, frames: 1e9 };
    let a: Vec<Samples> = (11..=14).map(|run| recording(run, Some(spread), None)).collect();
    let b: Vec<Samples> = (15..=18).map(|run| recording(run, Some(spread), Some((slow, 0.25)))).collect();
    let report = compare_recordings(&a, &b, &CompareOptions::default());
    assert_eq!(flagged(&report), [format!("{slow} slower")]);
    let shift = report.passes[0].finding.shift.as_ref().expect("a tested pass has a shift");
    let change = shift.change.expect("median A is positive");
    assert!((0.15..0.35).contains(&change), "the 25 % slowdown reads {change}");
    // The estimate is the mean of each side's medians.
    let [low, high] = shift.interval_ns.expect("a tested pass has an interval");
    assert!(low > 0 && low < shift.delta_ns && shift.delta_ns < high);
}

#[test]
fn one_recording_a_side_is_exactly_the_one_pair_engine() {
    let (a, b) = (recording(21, None, None), recording(22, None, Some(("culling.pass1.0", 0.1))));
    let options = CompareOptions::default();
    let pair = compare(&a, &b, &options);
    let recordings = compare_recordings(std::slice::from_ref(&a), std::slice::from_ref(&b), &options);
    assert_eq!(pair, recordings);
    assert_eq!((recordings.recordings, recordings.method()), ([1, 1], METHOD));
}

#[test]
fn one_recording_against_several_borrows_their_spread() {
    let a = [recording(31, Some(RUN_TO_RUN), None)];
    let b: Vec<Samples> = (32..=34).map(|run| recording(run, Some(RUN_TO_RUN), None)).collect();
    let report = compare_recordings(&a, &b, &CompareOptions::default());
    assert_eq!(report.recordings, [1, 3]);
    assert_eq!(flagged(&report), Vec::<String>::new());
    let frame = report.frame.shift.as_ref().expect("the frame time is tested");
    assert_eq!(frame.degrees_of_freedom, Some(2.0));
}

#[test]
fn a_pass_missing_from_some_runs_and_an_empty_side_say_why() {
    use sgpt_format::{Frame, Meta, Span, Writer};
    let topology = topologies::topology(&["always", "sometimes"], &[false; 2]);
    let write = |with_second: bool, scale: u64| {
        let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
        let id = writer.topology(&topology).expect("writing into a Vec succeeds");
        for number in 0..200u64 {
            let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 2], ..Frame::default() };
            let t = 20_000_000 * number;
            let d = scale + (number * 7_919) % 5_000;
            frame.spans.push(Span { pass: 0, begin_ns: t, end_ns: t + d, ..Span::default() });
            if with_second {
                frame.spans.push(Span { pass: 1, begin_ns: t + d, end_ns: t + 2 * d, ..Span::default() });
            }
            writer.frame(&frame).expect("frame numbers increase");
        }
        samples_of(&writer.finish().expect("writing into a Vec succeeds"))
    };
    let a = [write(true, 50_000), write(false, 51_000)];
    let b = [write(true, 50_500), write(true, 50_200)];
    let report = compare_recordings(&a, &b, &CompareOptions::default());
    let sometimes = report.passes.iter().find(|p| p.label == "sometimes").expect("listed");
    assert_eq!(sometimes.finding.verdict, Verdict::Inconclusive);
    let reason = sometimes.finding.reason.as_deref().expect("an inconclusive verdict says why");
    assert!(reason.contains("1 of 2 recordings of A and 2 of 2 of B"), "{reason}");
    let always = report.passes.iter().find(|p| p.label == "always").expect("listed");
    assert!(always.finding.shift.is_some(), "{:?}", always.finding);

    let options = CompareOptions::default();
    let one_each = [&a[0], &b[0]].map(|samples| RecordingSummary::of(samples, &options));
    let pooled_pair = compare_summaries(&one_each[..1], &one_each[1..], &options);
    assert_eq!((pooled_pair.frame.verdict, pooled_pair.tests), (Verdict::Inconclusive, 0));
    assert!(pooled_pair.frame.reason.as_deref().is_some_and(|r| r.contains("no spread between runs")));

    let empty = compare_recordings(&[], &b, &CompareOptions::default());
    assert_eq!(empty.frame.verdict, Verdict::Inconclusive);
    assert!(empty.frame.reason.as_deref().is_some_and(|r| r.contains("A has 0 recordings")), "{:?}", empty.frame);
    assert_eq!(empty.tests, 0);
}
