//! Random captures scan to exactly what `pass_stats` and `frame_timing` give: whole, in
//! chunks, a bounded step at a time, and in pieces scanned elsewhere. Each capture is
//! built to reach the scan's fast paths (long runs of frames of one shape, each pass once
//! and in order) and then to leave them now and then: a pass missing or repeated, spans
//! out of order, sub-passes and other query sets, spans that end before they begin or
//! wrap past the clock's end, durations past 32 bits or of 0 ns, empty frames, dropped
//! spans, frames alternating between topologies, and passes of one label, which are one
//! pass of several spans a frame. A calm capture has no pass twice in a frame, so that its
//! scan keeps the comparison's coins. Pairs of them compare alike on every path. Seeded,
//! so a failure names the capture that shows it.

use std::ops::Range;

use sgpt_format::analysis::scan::{ScanJob, ScanOptions, Windows, scan};
use sgpt_format::analysis::{StatsReport, pass_stats};
use sgpt_format::compare::{CompareOptions, ComparisonJob, Samples, compare, try_compare};
use sgpt_format::frame_timing::frame_timing;
use sgpt_format::synth::Rng;
use sgpt_format::{Capture, Frame, GpuPass, Level, Meta, Span, SpanKind, Topology, Writer};

#[path = "support/scanner.rs"]
mod scanner;
use scanner::{Behaviour, Scanner, budget, drive};

/// How a pass's durations are drawn: each scale crosses a boundary the scan reads by.
#[derive(Clone, Copy, Debug)]
enum Scale {
    /// A few ns, often 0: quantized timestamps.
    Tiny,
    /// Microseconds to a millisecond: a real pass.
    Usual,
    /// About `u32::MAX` ns (4.3 s): some above it, some below.
    Near32Bits,
}

fn duration(rng: &mut Rng, scale: Scale, base: u64) -> u64 {
    match scale {
        Scale::Tiny => rng.below(3),
        Scale::Usual => base + rng.below(base / 4 + 1),
        Scale::Near32Bits => (u64::from(u32::MAX) - 1_000) + rng.below(2_000),
    }
}

/// Whether something happens, `per_mille` times in a thousand.
fn chance(rng: &mut Rng, per_mille: u64) -> bool {
    rng.below(1_000) < per_mille
}

/// A capture of `seed`: its bytes.
fn random_capture(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    // A calm capture never has two spans of one pass in a frame, so its scan keeps coins.
    let calm = chance(&mut rng, 300);
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    // One to three topologies of 1 to 10 passes each, their labels mostly their own, or
    // shared: passes of one label (and kind) are one pass of several spans a frame.
    let topologies: Vec<(u32, usize)> = (0..1 + rng.below(3))
        .map(|_| {
            let passes = 1 + rng.below(10) as usize;
            let labels = if calm || chance(&mut rng, 700) { passes } else { 1 + rng.below(passes as u64) as usize };
            let gpu_passes = (0..passes)
                .map(|pass| GpuPass { label: format!("p{}", pass % labels), ..GpuPass::default() })
                .collect();
            let topology = Topology { gpu_passes, ..Topology::default() };
            (writer.topology(&topology).expect("a Vec"), passes)
        })
        .collect();
    let most_passes = topologies.iter().map(|&(_, passes)| passes).max().unwrap_or(1);
    let scales: Vec<(Scale, u64)> = (0..most_passes)
        .map(|_| {
            let scale = match rng.below(10) {
                0 => Scale::Tiny,
                1 => Scale::Near32Bits,
                _ => Scale::Usual,
            };
            (scale, 1_000 + rng.below(1_000_000))
        })
        .collect();
    // Most captures are a few hundred frames; some span several workers' pieces.
    let frames = if chance(&mut rng, 150) { 1_100 + rng.below(1_200) } else { 40 + rng.below(500) };
    // The clock's reading at the first frame: anywhere, near its end included.
    let mut clock = match rng.below(4) {
        0 => rng.below(1_000),
        1 => u64::MAX - rng.below(1 << 40),
        _ => rng.next_u64() >> 4,
    };
    let mut current = 0;
    for number in 0..frames {
        if chance(&mut rng, 40) {
            current = rng.below(topologies.len() as u64) as usize;
        }
        let (topology, passes) = topologies[current];
        let mut spans = Vec::with_capacity(passes + 2);
        if !chance(&mut rng, 15) {
            for (pass, &(scale, base)) in scales.iter().enumerate().take(passes) {
                if chance(&mut rng, 10) {
                    continue; // Missing this frame.
                }
                let mut length = duration(&mut rng, scale, base);
                if chance(&mut rng, 5) {
                    length = (1 << 32) + rng.below(1 << 34); // Past 32 bits.
                }
                let begin_ns = clock;
                let mut end_ns = begin_ns.wrapping_add(length);
                if chance(&mut rng, 8) {
                    end_ns = begin_ns.wrapping_sub(1 + rng.below(10_000)); // Ended before it began.
                }
                let (kind, query_set) = if chance(&mut rng, 8) { (SpanKind::SubPass, 1) } else { (SpanKind::Pass, 0) };
                spans.push(Span { pass: pass as u32, kind, query_set, begin_ns, end_ns });
                if !calm && chance(&mut rng, 8) {
                    let again =
                        Span { begin_ns: end_ns, end_ns: end_ns.wrapping_add(length / 2), ..spans[spans.len() - 1] };
                    spans.push(again); // The same pass twice in a frame.
                }
                // The next pass begins after this one, at it, or overlapping it.
                clock = match rng.below(8) {
                    0 => begin_ns.wrapping_add(length / 2),
                    1 => end_ns,
                    _ => end_ns.wrapping_add(rng.below(5_000)),
                };
            }
            if spans.len() > 1 && chance(&mut rng, 15) {
                let (a, b) = (rng.below(spans.len() as u64) as usize, rng.below(spans.len() as u64) as usize);
                spans.swap(a, b);
            }
        }
        clock = clock.wrapping_add(rng.below(2_000_000));
        let dropped_spans = if chance(&mut rng, 10) { 1 + rng.below(3) as u32 } else { 0 };
        let frame = Frame { frame_number: number, topology, spans, dropped_spans, ..Frame::default() };
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

/// The statistics of a job stepped `units` at a time, its pieces scanned by a scanner that
/// behaves as `behaviour` says (one that never answers is dropped after a few steps), or
/// by the job itself, without one.
fn stepped(capture: &Capture<'_>, range: Range<usize>, units: usize, behaviour: Option<Behaviour>) -> StatsReport {
    let mut job = ScanJob::new(capture, range, Windows::Auto);
    match behaviour {
        Some(behaviour) => {
            let keep = if behaviour == Behaviour::Silent { 3 } else { usize::MAX };
            drive(&mut Scanner::new(behaviour, 3), units, keep, |with, more| {
                let done = job.step_with(with, more);
                (done, job.waiting())
            });
        }
        None => while !job.step(&mut budget(units)) {},
    }
    job.finish_scan().stats
}

/// How the pieces' scanner behaves, a capture each in turn.
const BEHAVIOURS: [Behaviour; 4] = [Behaviour::Reversed, Behaviour::FailsSome, Behaviour::Mixes, Behaviour::Silent];

/// Captures checked by default: enough to meet every departure above many times over,
/// in seconds.
/// `SGPT_RANDOM_CAPTURES=N` checks more, for a longer hunt (in a release build).
fn captures() -> u64 {
    std::env::var("SGPT_RANDOM_CAPTURES").ok().and_then(|n| n.parse().ok()).unwrap_or(48)
}

#[test]
fn random_captures_scan_to_the_single_threaded_figures_on_every_path() {
    for seed in 0..captures() {
        let bytes = random_capture(seed);
        let capture = Capture::open(&bytes).unwrap_or_else(|error| panic!("seed {seed}: {error}"));
        let frames = capture.frames().len();
        let mut rng = Rng::new(seed ^ 0xa5a5);
        let start = rng.below(frames as u64 / 4 + 1) as usize;
        for range in [0..frames, start..frames - start / 2] {
            let stats = pass_stats(&capture, range.clone());
            let timing = Some(frame_timing(&capture, range.clone()));
            for chunks in [1, 3] {
                for windows in [Windows::Auto, Windows::All, Windows::SampleEvery(7)] {
                    let options = ScanOptions { chunks, windows, ..ScanOptions::default() };
                    let got = scan(&capture, range.clone(), &options);
                    let at = format!("seed {seed}, frames {range:?}, {chunks} chunks, {windows:?}");
                    assert_eq!(got.stats, stats, "{at}");
                    assert_eq!(got.timing, timing, "{at}: frame timing");
                    let alone = scan(&capture, range.clone(), &ScanOptions { frame_timing: false, ..options });
                    assert_eq!(alone.stats, stats, "{at}, without frame timing");
                }
            }
            for units in [1, 97] {
                assert_eq!(stepped(&capture, range.clone(), units, None), stats, "seed {seed}, {units} units a step");
            }
            samples_and_coins(seed, &capture, range.clone());
            let behaviour = BEHAVIOURS[seed as usize % BEHAVIOURS.len()];
            let pieces = stepped(&capture, range.clone(), 50, Some(behaviour));
            assert_eq!(pieces, stats, "seed {seed}, in pieces, {behaviour:?}");
        }
    }
}

/// The comparison's samples the scan collects are `Samples::collect`'s, and a comparison
/// made from its coins, where they tell every figure, is the one the durations give.
fn samples_and_coins(seed: u64, capture: &Capture<'_>, range: Range<usize>) {
    let expected = Samples::collect(capture, range.clone());
    let compared = compare(&expected, &expected, &CompareOptions::default());
    for chunks in [1, 3] {
        let options = ScanOptions { chunks, frame_timing: false, samples: true, ..ScanOptions::default() };
        let got = scan(capture, range.clone(), &options);
        assert!(got.samples.as_ref() == Some(&expected), "seed {seed}, frames {range:?}, {chunks} chunks: samples");
        let Some(coins) = scan(capture, range.clone(), &ScanOptions { coins: true, ..options }).samples else {
            continue;
        };
        assert_eq!(coins.frames(), expected.frames(), "seed {seed}, frames {range:?}, {chunks} chunks: coins");
        if let Some(from_coins) = try_compare(&coins, &expected, &CompareOptions::default()) {
            assert_eq!(from_coins, compared, "seed {seed}, frames {range:?}, {chunks} chunks: compared from coins");
        }
    }
}

/// `job` stepped `units` at a time to its end; `None` where a test asks for durations
/// that coins do not keep (the tools then compare durations instead).
fn compared_in_steps(mut job: ComparisonJob, units: usize) -> Option<sgpt_format::compare::Comparison> {
    loop {
        let done = job.step(&mut budget(units));
        if job.needs_durations() {
            return None;
        }
        if done {
            return Some(job.finish());
        }
    }
}

/// Pairs of random captures (their passes matched by label, kind and span kind, so some
/// match and some are only on one side) compare alike on every path: from the
/// durations at once and a bounded step at a time, and from the scan's coins wherever
/// they tell every figure, at once and in steps.
#[test]
fn random_pairs_compare_alike_from_durations_and_from_coins_at_once_and_in_steps() {
    let options = CompareOptions::default();
    for seed in 0..captures() / 2 {
        let (a_bytes, b_bytes) = (random_capture(seed), random_capture(seed + 10_000));
        let (a, b) = (Capture::open(&a_bytes).expect("opens"), Capture::open(&b_bytes).expect("opens"));
        let (durations_a, durations_b) =
            (Samples::collect(&a, 0..a.frames().len()), Samples::collect(&b, 0..b.frames().len()));
        let whole = compare(&durations_a, &durations_b, &options);
        for units in [1, 50] {
            let job = ComparisonJob::new(durations_a.clone(), durations_b.clone(), &options);
            let in_steps = compared_in_steps(job, units).expect("durations tell every figure");
            assert_eq!(in_steps, whole, "seed {seed}: from durations, {units} units a step");
        }
        let coins = |capture: &Capture<'_>| {
            let options =
                ScanOptions { chunks: 3, frame_timing: false, samples: true, coins: true, ..ScanOptions::default() };
            scan(capture, 0..capture.frames().len(), &options).samples
        };
        let (Some(coins_a), Some(coins_b)) = (coins(&a), coins(&b)) else { continue };
        if let Some(from_coins) = try_compare(&coins_a, &coins_b, &options) {
            assert_eq!(from_coins, whole, "seed {seed}: from coins");
        }
        if let Some(in_steps) = compared_in_steps(ComparisonJob::new(coins_a, coins_b, &options), 7) {
            assert_eq!(in_steps, whole, "seed {seed}: from coins, in steps");
        }
    }
}
