//! The comparison engine on data built to have a known answer: runs of one workload,
//! one pass made slower, quantized timestamps, passes that come and go, too few frames,
//! and the order of Holm's levels.

use sgpt_format::compare::{CompareOptions, Comparison, MIN_FRAMES, PassComparison, Samples, Verdict, compare};
use sgpt_format::synth::{Drift, Rng, SynthChanges, SynthOptions, workload_with};
use sgpt_format::{Capture, Frame, GpuPassKind, Level, Meta, Span, Topology, Writer};

#[path = "support/budget.rs"]
mod budget;
#[path = "support/topologies.rs"]
mod topologies;
use budget::budget;
use topologies::topology;

fn samples_of(bytes: &[u8]) -> Samples {
    let capture = Capture::open(bytes).expect("a capture written here opens");
    Samples::collect(&capture, 0..capture.frames().len())
}

fn synth(options: &SynthOptions, changes: &SynthChanges) -> Samples {
    samples_of(&workload_with(options, changes).write(Vec::new()).expect("writing into a Vec succeeds"))
}

const DRIFT: Drift = Drift { sigma: 0.015, frames: 30.0 };

fn run(run: u64) -> SynthChanges {
    SynthChanges { run: Some(run), drift: Some(DRIFT), ..SynthChanges::default() }
}

fn flagged(report: &Comparison) -> Vec<&PassComparison> {
    report.passes.iter().filter(|p| matches!(p.finding.verdict, Verdict::Slower | Verdict::Faster)).collect()
}

const STANDARD: SynthOptions =
    SynthOptions { frames: 600, passes: 40, level: Level::Timing, seed: 1, quantize_ns: None };

#[test]
fn two_runs_of_one_workload_flag_nothing() {
    let a = synth(&STANDARD, &run(10));
    let b = synth(&STANDARD, &run(11));
    let report = compare(&a, &b, &CompareOptions::default());
    assert_eq!(report.passes.len(), 40);
    assert!(flagged(&report).is_empty(), "{:#?}", flagged(&report));
    assert!(!matches!(report.frame.verdict, Verdict::Slower | Verdict::Faster), "{:?}", report.frame);
    assert!(report.passes.iter().any(|p| p.finding.verdict == Verdict::Unchanged));
    assert_eq!(report.tests, 41, "the frame time and every pass are tested");
}

#[test]
fn a_ten_percent_slower_pass_is_the_one_flagged() {
    let slow = "culling.pass1.0";
    let a = synth(&STANDARD, &run(20));
    let b = synth(&STANDARD, &SynthChanges { slow_pass: Some((slow.into(), 0.10)), ..run(21) });
    let report = compare(&a, &b, &CompareOptions::default());
    let flagged = flagged(&report);
    assert_eq!(flagged.len(), 1, "{flagged:#?}");
    assert_eq!((flagged[0].label.as_str(), flagged[0].finding.verdict), (slow, Verdict::Slower));
    let shift = flagged[0].finding.shift.as_ref().expect("a matched pass has a shift");
    let [low, high] = shift.interval_ns.expect("a tested pass has an interval");
    assert!(low > 0 && high > shift.delta_ns && shift.delta_ns > i64::try_from(shift.threshold_ns).unwrap());
    assert_eq!(report.passes[0].label, slow, "slower passes come first");
}

#[test]
fn quantized_ties_are_inconclusive_and_say_why() {
    let options = SynthOptions { quantize_ns: Some(100_000), ..STANDARD };
    let a = synth(&options, &run(30));
    let b = synth(&options, &SynthChanges { slow_pass: Some(("culling.pass1.0".into(), 0.10)), ..run(31) });
    let report = compare(&a, &b, &CompareOptions::default());
    assert!(flagged(&report).is_empty(), "{:#?}", flagged(&report));
    for pass in &report.passes {
        assert_eq!(pass.finding.verdict, Verdict::Inconclusive, "{}", pass.label);
        let reason = pass.finding.reason.as_deref().expect("an inconclusive verdict says why");
        assert!(reason.contains("read 0 ns") && reason.contains("step by 100000 ns"), "{reason}");
        assert!(pass.finding.shift.is_none(), "no shift is shown for ties");
    }
    // The frame time is floored too: it sits on one recorded value in about 40 % of frames.
    assert_eq!(report.frame.verdict, Verdict::Inconclusive);
    assert!(report.frame.reason.as_deref().is_some_and(|reason| reason.contains("step by 100000 ns")));
    assert_eq!(report.tests, 0, "nothing is tested on ties");
}

/// Writes `frames` frames of `topology`: pass `i`'s span lasts `duration(frame, i)` ns,
/// or is absent when that is `None`; `culled` graph passes are marked culled.
fn capture(
    topology: &Topology,
    frames: u64,
    culled: &[bool],
    mut duration: impl FnMut(u64, usize) -> Option<u64>,
) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(topology).expect("writing into a Vec succeeds");
    for number in 0..frames {
        let mut frame = Frame { frame_number: number, topology: id, culled: culled.to_vec(), ..Frame::default() };
        let mut t = 20_000_000 * number;
        for pass in 0..topology.gpu_passes.len() {
            if let Some(d) = duration(number, pass) {
                frame.spans.push(Span { pass: pass as u32, begin_ns: t, end_ns: t + d, ..Span::default() });
                t += d + 1_000;
            }
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("writing into a Vec succeeds")
}

fn noisy(rng: &mut Rng, median: f64) -> Option<u64> {
    Some(rng.log_normal(median, 0.1) as u64)
}

#[test]
fn passes_that_come_go_or_are_culled_get_their_own_verdicts_and_no_shift() {
    let mut rng = Rng::new(4);
    let a = capture(&topology(&["kept", "culled", "removed"], &[false; 3]), 200, &[false; 3], |_, _| {
        noisy(&mut rng, 50_000.0)
    });
    let b_culled = [false, true, false];
    let b = capture(&topology(&["kept", "culled", "added"], &b_culled), 200, &b_culled, |_, pass| {
        (pass != 1).then(|| noisy(&mut rng, 50_000.0)).flatten()
    });
    let report = compare(&samples_of(&a), &samples_of(&b), &CompareOptions::default());
    let verdicts: Vec<(&str, Verdict)> = report.passes.iter().map(|p| (p.label.as_str(), p.finding.verdict)).collect();
    assert_eq!(
        verdicts,
        [
            ("added", Verdict::Added),
            ("removed", Verdict::Removed),
            ("culled", Verdict::Culled),
            ("kept", Verdict::Unchanged)
        ]
    );
    for pass in &report.passes[..3] {
        assert!(pass.finding.shift.is_none(), "{} has no median on one side", pass.label);
        assert!(pass.cost_per_frame_ns.is_some_and(|cost| cost > 40_000), "{}", pass.label);
    }
    // Swapped: the culled pass runs again.
    let swapped = compare(&samples_of(&b), &samples_of(&a), &CompareOptions::default());
    assert!(swapped.passes.iter().any(|p| p.label == "culled" && p.finding.verdict == Verdict::Unculled));
}

#[test]
fn too_few_frames_are_inconclusive_with_the_count() {
    let frames = MIN_FRAMES as u64 - 1;
    let mut rng = Rng::new(5);
    let t = topology(&["only"], &[false]);
    let a = capture(&t, frames, &[false], |_, _| noisy(&mut rng, 50_000.0));
    let b = capture(&t, frames, &[false], |_, _| noisy(&mut rng, 100_000.0));
    let report = compare(&samples_of(&a), &samples_of(&b), &CompareOptions::default());
    for finding in [&report.frame, &report.passes[0].finding] {
        assert_eq!(finding.verdict, Verdict::Inconclusive);
        let reason = finding.reason.as_deref().unwrap();
        assert!(reason.contains(&format!("{frames} frames analysed")), "{reason}");
    }
    assert_eq!(report.tests, 0);
}

#[test]
fn holm_levels_step_down_by_significance_then_stay() {
    // Twelve passes: B slower by 0 % to 22 % in steps of 2 %, with 10 % frame-to-frame noise.
    let names: Vec<String> = (0..12).map(|i| format!("p{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let t = topology(&names, &[false; 12]);
    let mut rng = Rng::new(6);
    let a = capture(&t, 400, &[false; 12], |_, _| noisy(&mut rng, 100_000.0));
    let b = capture(&t, 400, &[false; 12], |_, pass| noisy(&mut rng, 100_000.0 * (1.0 + 0.02 * pass as f64)));
    let options = CompareOptions { alpha: 0.05, ..CompareOptions::default() };
    let report = compare(&samples_of(&a), &samples_of(&b), &options);
    assert_eq!(report.tests, 13);
    let mut tested: Vec<(f64, f64, [i64; 2], Verdict)> = report
        .passes
        .iter()
        .chain(std::iter::once(&PassComparison {
            label: "frame".into(),
            graph_pass: None,
            kind: GpuPassKind::Compute,
            span_kind: sgpt_format::SpanKind::Pass,
            finding: report.frame.clone(),
            cost_per_frame_ns: None,
        }))
        .map(|p| {
            let shift = p.finding.shift.as_ref().unwrap();
            let z = shift.delta_ns.unsigned_abs() as f64 / shift.standard_error_ns.unwrap();
            (z, shift.confidence.unwrap(), shift.interval_ns.unwrap(), p.finding.verdict)
        })
        .collect();
    tested.sort_by(|x, y| y.0.total_cmp(&x.0));
    let m = tested.len();
    let mut stopped = None;
    for (j, &(_, confidence, [low, high], _)) in tested.iter().enumerate() {
        let significant = low > 0 || high < 0;
        let expected = stopped.unwrap_or(1.0 - options.alpha / (m - j) as f64);
        assert!((confidence - expected).abs() < 1e-12, "step {j}: {confidence} ≠ {expected}");
        if !significant && stopped.is_none() {
            stopped = Some(expected);
        }
        assert!(stopped.is_none() || !significant, "step {j}: nothing after Holm stops is significant");
    }
    let slower = tested.iter().filter(|t| t.3 == Verdict::Slower).count();
    assert!(slower >= 6 && stopped.is_some(), "large shifts are found, small ones are not: {slower} slower");
}

#[test]
fn the_same_inputs_give_the_same_report_and_a_capture_matches_itself() {
    let a = synth(&STANDARD, &run(40));
    let b = synth(&STANDARD, &run(41));
    assert_eq!(compare(&a, &b, &CompareOptions::default()), compare(&a, &b, &CompareOptions::default()));
    // Against itself every shift is 0, but 600 frames cannot bound each pass within 3 %;
    // within 10 % they can, and every pass is unchanged.
    let itself = compare(&a, &a, &CompareOptions::default());
    assert!(itself.passes.iter().all(|p| p.finding.shift.as_ref().is_some_and(|s| s.delta_ns == 0)));
    assert!(flagged(&itself).is_empty());
    let loose = compare(&a, &a, &CompareOptions { threshold: 0.10, ..CompareOptions::default() });
    assert!(loose.passes.iter().all(|p| p.finding.verdict == Verdict::Unchanged), "{:#?}", loose.passes);
}

#[test]
fn medians_are_the_ones_stats_shows_for_every_pass_and_span_kind() {
    // Verbose: sub-pass markers, a shadow refresh every 8th frame, dropped spans, a hitch.
    let options = SynthOptions { frames: 240, passes: 30, level: Level::Verbose, ..SynthOptions::default() };
    let bytes = workload_with(&options, &SynthChanges::default()).write(Vec::new()).unwrap();
    let capture = Capture::open(&bytes).unwrap();
    let stats = sgpt_format::analysis::pass_stats(&capture, 0..capture.frames().len());
    let samples = samples_of(&bytes);
    let report = compare(&samples, &samples, &CompareOptions::default());
    assert_eq!(report.passes.len(), stats.passes.len());
    assert!(report.passes.iter().filter(|p| p.finding.shift.is_some()).count() >= 30);
    for pass in &stats.passes {
        let judged = report
            .passes
            .iter()
            .find(|p| {
                (&p.graph_pass, &p.label, p.kind, p.span_kind)
                    == (&pass.graph_pass, &pass.label, pass.kind, pass.span_kind)
            })
            .unwrap_or_else(|| panic!("{} is compared", pass.label));
        if let Some(shift) = &judged.finding.shift {
            assert_eq!((shift.median_a_ns, shift.delta_ns), (pass.median_ns, 0), "{}", pass.label);
        } else {
            // Only passes too rare to judge have no shift: the shadow refresh, in 30 frames.
            assert!(pass.frames_present < MIN_FRAMES as u64, "{}: {:?}", pass.label, judged.finding);
        }
    }
}

#[test]
fn several_spans_of_a_pass_in_a_frame_resample_as_one_frame() {
    // A pass that runs three times in even frames and not at all in odd ones, and a pass
    // that runs once a frame; B's three-times pass is 20 % slower.
    let t = topology(&["thrice", "once"], &[false; 2]);
    let write = |scale: f64, seed: u64| {
        let mut rng = Rng::new(seed);
        let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).unwrap();
        let id = writer.topology(&t).unwrap();
        for number in 0..400u64 {
            let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 2], ..Frame::default() };
            let mut at = 20_000_000 * number;
            let mut span = |pass: u32, d: u64| {
                frame.spans.push(Span { pass, begin_ns: at, end_ns: at + d, ..Span::default() });
                at += d + 1_000;
            };
            if number % 2 == 0 {
                for _ in 0..3 {
                    span(0, (rng.log_normal(60_000.0, 0.1) * scale) as u64);
                }
            }
            span(1, rng.log_normal(60_000.0, 0.1) as u64);
            writer.frame(&frame).unwrap();
        }
        samples_of(&writer.finish().unwrap())
    };
    let report = compare(&write(1.0, 1), &write(1.2, 2), &CompareOptions::default());
    let verdict = |label: &str| report.passes.iter().find(|p| p.label == label).map(|p| p.finding.verdict);
    assert_eq!(verdict("thrice"), Some(Verdict::Slower));
    assert_ne!(verdict("once"), Some(Verdict::Slower));
    assert_ne!(verdict("once"), Some(Verdict::Faster));
}

#[test]
fn a_long_captures_block_length_is_found_in_many_steps_and_the_comparison_is_unchanged() {
    use sgpt_format::compare::ComparisonJob;
    // More frames than one step ranks at once: each side's block length is sorted, ranked
    // and autocorrelated in bounded steps, before the plan.
    let options = SynthOptions { frames: 40_000, passes: 2, level: Level::Timing, seed: 3, ..SynthOptions::default() };
    let (a, b) = (synth(&options, &run(1)), synth(&options, &run(2)));
    let whole = compare(&a, &b, &CompareOptions::default());
    let mut job = ComparisonJob::new(a, b, &CompareOptions::default());
    let (mut planning, mut last) = (0, job.progress());
    while !job.is_planned() {
        let mut left = 1;
        assert!(!job.step(&mut || std::mem::take(&mut left) > 0), "passes are left after the plan");
        assert!(job.progress() > last, "each planning step shows");
        last = job.progress();
        planning += 1;
    }
    assert!(planning > 2 * 4, "{planning} planning steps: each side's sorted in runs, then searched");
    assert_eq!(job.finish(), whole);
}

#[test]
fn the_comparison_a_step_at_a_time_is_the_comparison_at_once() {
    use sgpt_format::compare::ComparisonJob;
    let options = SynthOptions { frames: 300, passes: 40, level: Level::Structure, seed: 8, ..SynthOptions::default() };
    let slower = SynthChanges { slow_pass: Some(("simulation.pass2".to_owned(), 0.2)), ..run(2) };
    let (a, b) = (synth(&options, &run(1)), synth(&options, &slower));
    let whole = compare(&a, &b, &CompareOptions::default());
    assert!(
        whole.frame.shift.is_some() && whole.passes.iter().all(|pass| pass.finding.shift.is_some()),
        "every test reaches its last stage"
    );
    for per_step in [1usize, 3, 1_000] {
        let mut job = ComparisonJob::new(a.clone(), b.clone(), &CompareOptions::default());
        let mut steps = 0;
        let mut last = job.progress();
        loop {
            let done = job.step(&mut budget(per_step));
            if done {
                break;
            }
            steps += 1;
            assert!(job.progress() > last && job.progress() < 1.0, "each step takes one or more");
            last = job.progress();
        }
        // Each side's block length (the heaviest steps: every frame time ranked and
        // autocorrelated), the plan, then the frame time and every pass in four stages
        // each (each side's median, each side's bootstrap), `per_step` a step.
        let units = 3 + 4 * (whole.passes.len() + 1);
        assert_eq!(steps, units.div_ceil(per_step) - 1, "{per_step} a step");
        assert_eq!(job.finish(), whole, "{per_step} a step");
    }
}
