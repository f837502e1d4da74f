//! The comparison engine's samples collected by the one-decode scan, in chunks, are
//! exactly `Samples::collect`'s (the sequential `SampleCollector`, whatever frame count
//! it was told to expect), and so is the
//! comparison made from them: on synthetic captures of several shapes (drift, a slow
//! pass, quantized timestamps), on captures whose passes appear, disappear, are culled,
//! run several times a frame or last past `u32::MAX` ns, on damaged fixtures, over
//! partial ranges, with and without frame timing, in 1, 2, 3 and 7 chunks; and where the
//! scan writes a regular pass's samples in place, whatever breaks the pattern inside a
//! chunk. The scan's samples carry the order statistics it selected; a comparison made
//! from them is the one made from the collector's, which carry none.

use std::ops::Range;

use sgpt_format::analysis::pass_stats;
use sgpt_format::analysis::scan::{Scan, ScanJob, ScanOptions, Windows, scan};
use sgpt_format::compare::{CompareOptions, SampleCollector, Samples, compare, try_compare};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, generate, workload_with};
use sgpt_format::{Capture, Frame, Level, Meta, Span, Writer};

#[path = "support/shapes.rs"]
mod shapes;
#[path = "support/three_passes.rs"]
mod three_passes;
#[path = "support/topologies.rs"]
mod topologies;
#[path = "support/v1_fixtures.rs"]
mod v1_fixtures;
use shapes::shapes;
use three_passes::{capture_of, push_spans};
use topologies::topology;
use v1_fixtures::{fixture, fixture_names};

const CHUNKS: [usize; 4] = [1, 2, 3, 7];

/// Every chunk count, with and without frame timing, against `Samples::collect`.
fn check(name: &str, bytes: &[u8], range: Range<usize>) -> Samples {
    let capture = Capture::open(bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
    let expected = Samples::collect(&capture, range.clone());
    // The collector told to expect no frames, half, all or twice as many collects the same.
    let added = range.start..range.end.min(capture.frames().len());
    for expect in [0, added.len() / 2, added.len(), 2 * added.len()] {
        let mut collector = SampleCollector::with_frames(&capture, expect);
        added.clone().for_each(|index| collector.add_frame(index));
        assert!(collector.finish() == expected, "{name}, frames {range:?}, expecting {expect}");
    }
    // The comparison of the collector's samples with themselves: each scan's, whose order
    // statistics the scan selected, must give it to the bit.
    let compared = compare(&expected, &expected, &CompareOptions::default());
    for chunks in CHUNKS {
        for frame_timing in [true, false] {
            for windows in [Windows::Auto, Windows::SampleEvery(3)] {
                let options = ScanOptions { chunks, frame_timing, windows, samples: true, coins: false };
                let got = scan(&capture, range.clone(), &options);
                assert!(
                    got.samples.as_ref() == Some(&expected),
                    "{name}, frames {range:?}, {chunks} chunks, timing {frame_timing}, {windows:?}"
                );
                if !frame_timing && let Some(samples) = &got.samples {
                    let scanned = compare(samples, samples, &CompareOptions::default());
                    assert_eq!(scanned, compared, "{name}, frames {range:?}, {chunks} chunks, {windows:?}");
                }
            }
        }
    }
    // With coins: where the scan keeps them, any comparison it can make from them is the
    // one the durations give, against itself and against the collector's samples.
    for chunks in CHUNKS {
        for windows in [Windows::Auto, Windows::SampleEvery(3)] {
            let options = ScanOptions { chunks, frame_timing: false, windows, samples: true, coins: true };
            let Some(coins) = scan(&capture, range.clone(), &options).samples else { continue };
            assert_eq!(coins.frames(), expected.frames(), "{name}, frames {range:?}, {chunks} chunks, {windows:?}");
            for (a, b) in [(&coins, &coins), (&coins, &expected), (&expected, &coins)] {
                if let Some(compared_coins) = try_compare(a, b, &CompareOptions::default()) {
                    assert_eq!(
                        compared_coins,
                        compare(&expected, &expected, &CompareOptions::default()),
                        "{name}, frames {range:?}, {chunks} chunks, {windows:?}"
                    );
                }
            }
        }
    }
    // A job's scan a few units a step, the page's way: the same samples, in pieces.
    for windows in [Windows::Auto, Windows::SampleEvery(3)] {
        let scanned = stepped(ScanJob::with_samples(&capture, range.clone(), windows, false));
        assert_eq!(scanned.stats, pass_stats(&capture, range.clone()), "{name}, frames {range:?}, {windows:?}");
        assert!(scanned.samples.as_ref() == Some(&expected), "{name}, frames {range:?}, a job's, {windows:?}");
        let coined = stepped(ScanJob::with_samples(&capture, range.clone(), windows, true));
        if let Some(coins) = coined.samples {
            assert_eq!(coins.frames(), expected.frames(), "{name}, frames {range:?}, a job's coins, {windows:?}");
            if let Some(compared_coins) = try_compare(&coins, &expected, &CompareOptions::default()) {
                assert_eq!(compared_coins, compared, "{name}, frames {range:?}, a job's coins, {windows:?}");
            }
        }
    }
    let without = scan(&capture, range, &ScanOptions { chunks: 3, ..ScanOptions::default() });
    assert!(without.samples.is_none(), "{name}: samples only when asked for");
    expected
}

/// `job` stepped five units at a time to its end.
fn stepped(mut job: ScanJob<'_, '_>) -> Scan {
    loop {
        let mut left = 5;
        let mut more = || {
            left -= 1;
            left >= 0
        };
        if job.step(&mut more) {
            return job.finish_scan();
        }
    }
}

fn whole(name: &str, bytes: &[u8]) -> Samples {
    let frames = Capture::open(bytes).map(|capture| capture.frames().len()).unwrap_or(0);
    check(name, bytes, 0..frames)
}

#[test]
fn synthetic_captures_of_every_shape_sample_as_the_collector_does() {
    for (name, options) in shapes() {
        let bytes = generate(&options);
        let frames = options.frames as usize;
        whole(name, &bytes);
        check(name, &bytes, 17..frames - 11);
        check(name, &bytes, 5..usize::MAX);
        check(name, &bytes, 9..9);
        check(name, &bytes, 9..10);
    }
}

#[test]
fn a_drifting_run_and_a_slower_one_compare_as_from_the_collector() {
    let options = SynthOptions { frames: 600, passes: 40, level: Level::Timing, seed: 1, quantize_ns: None };
    let drift = Drift { sigma: 0.015, frames: 30.0 };
    let a = SynthChanges { run: Some(1), drift: Some(drift), ..SynthChanges::default() };
    let b = SynthChanges { run: Some(2), slow_pass: Some(("simulation.pass2".into(), 0.2)), ..a.clone() };
    let [a, b] = [a, b].map(|changes| workload_with(&options, &changes).write(Vec::new()).expect("a Vec"));
    let (samples_a, samples_b) = (whole("drift A", &a), whole("drift B", &b));
    let (a, b) = (Capture::open(&a).expect("opens"), Capture::open(&b).expect("opens"));
    let options = ScanOptions { chunks: 7, samples: true, ..ScanOptions::default() };
    let scanned = [&a, &b].map(|capture| scan(capture, 0..capture.frames().len(), &options).samples.expect("asked"));
    let expected = compare(&samples_a, &samples_b, &CompareOptions::default());
    assert_eq!(compare(&scanned[0], &scanned[1], &CompareOptions::default()), expected);
    assert!(expected.passes.iter().any(|pass| pass.label == "simulation.pass2"));
    // The usual passes as coins: the same comparison, every figure from them.
    let options = ScanOptions { coins: true, ..options };
    let coins = [&a, &b].map(|capture| {
        scan(capture, 0..capture.frames().len(), &options).samples.expect("every pass of the workload keeps coins")
    });
    assert_eq!(try_compare(&coins[0], &coins[1], &CompareOptions::default()), Some(expected));
}

/// Frames over three topologies in turn (`kept`, `late` from the second, `gone` only
/// in the first, `culled` marked culled in the third and never run): per frame, spans
/// per pass from `spans(frame, pass)` (none, one, several; a sub-pass now and then).
fn shifting_capture(frames: u64, spans: impl Fn(u64, usize) -> Vec<u64>) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let names: [&[&str]; 3] = [&["kept", "gone", "culled"], &["kept", "late", "culled"], &["late", "kept", "culled"]];
    let culled: [&[bool]; 3] = [&[false; 3], &[false; 3], &[false, false, true]];
    let ids: Vec<_> = names
        .iter()
        .zip(culled)
        .map(|(names, culled)| writer.topology(&topology(names, culled)).expect("a Vec"))
        .collect();
    for number in 0..frames {
        let which = (number * 3 / frames) as usize;
        let mut frame =
            Frame { frame_number: number, topology: ids[which], culled: culled[which].to_vec(), ..Frame::default() };
        let mut t = 20_000_000 * number;
        for (pass, &label) in names[which].iter().enumerate() {
            if label == "culled" {
                continue;
            }
            push_spans(&mut frame, &mut t, pass, spans(number, pass));
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

#[test]
fn passes_that_appear_disappear_repeat_or_are_culled_sample_as_the_collector_does() {
    let noisy = |frame: u64, pass: usize| 40_000 + (frame * 7_919 + pass as u64 * 104_729) % 9_973;
    // One span a frame, every frame.
    let regular = shifting_capture(90, |frame, pass| vec![noisy(frame, pass)]);
    // Gaps, repeats (two and three spans, the third a sub-pass), and a pass that runs
    // only at the very start, the very end, or once in the middle.
    let irregular = shifting_capture(120, |frame, pass| match (frame % 7, pass) {
        (0, _) => Vec::new(),
        (3, 0) => vec![noisy(frame, pass), 5_000],
        (5, 1) => vec![noisy(frame, pass), 6_000, 700],
        _ if pass == 1 && (2..=117).contains(&frame) && frame != 61 => Vec::new(),
        _ => vec![noisy(frame, pass)],
    });
    // Spans past u32::MAX ns, in one chunk only, then everywhere.
    let long = shifting_capture(60, |frame, pass| {
        vec![if frame == 44 && pass == 0 { u64::from(u32::MAX) + 99 } else { noisy(frame, pass) }]
    });
    let longer = shifting_capture(60, |frame, pass| vec![u64::from(u32::MAX) + noisy(frame, pass)]);
    for (name, bytes) in [("regular", &regular), ("irregular", &irregular), ("long", &long), ("longer", &longer)] {
        let frames = Capture::open(bytes).expect("opens").frames().len();
        whole(name, bytes);
        // From inside the second topology (so `gone` never appears), and from the third.
        check(name, bytes, frames / 3 + 5..frames);
        check(name, bytes, 2 * frames / 3 + 1..frames);
        check(name, bytes, 1..frames - 1);
    }
    let samples = whole("irregular", &irregular);
    let report = compare(&samples, &whole("regular", &regular), &CompareOptions::default());
    assert!(!report.passes.is_empty());
}

/// Divisible by every chunk count: chunks start at multiples of 12, 14, 28 and 42.
const IN_PLACE_FRAMES: u64 = 84;

/// Three passes of one topology over [`IN_PLACE_FRAMES`] frames; per frame, the spans of
/// pass `pass` from `spans`.
fn one_topology_capture(spans: impl Fn(u64, usize) -> Vec<u64>) -> Vec<u8> {
    capture_of(IN_PLACE_FRAMES, spans)
}

fn noisy(frame: u64, pass: usize) -> u64 {
    40_000 + (frame * 7_919 + pass as u64 * 104_729) % 9_973
}

/// No chunk starts at frames 5, 19, 33, 47, 61, 69 or 83, nor in 77..84.
fn irregular_inside_chunks(frame: u64, pass: usize) -> Vec<u64> {
    match (frame, pass) {
        (5, 0) => vec![noisy(frame, pass), 5_000],
        (19, 1) | (83, 0) => Vec::new(),
        (33, 0) => vec![u64::from(u32::MAX) + 99],
        (47, 1) => vec![noisy(frame, pass), 6_000, 700],
        (61 | 69, 2) => Vec::new(),
        (77.., 2) => Vec::new(),
        _ => vec![noisy(frame, pass)],
    }
}

/// A pass with one span in the first frame of every chunk is written in place, into a
/// series sized for the whole range; wherever it turns out otherwise inside a chunk (a
/// second span, a gap, a value past `u32::MAX` ns, missing from the chunk's last frames),
/// the samples are still exactly the collector's.
#[test]
fn passes_regular_where_chunks_start_but_not_inside_them_sample_as_the_collector_does() {
    let regular = one_topology_capture(|frame, pass| vec![noisy(frame, pass)]);
    let irregular = one_topology_capture(irregular_inside_chunks);
    let frames = IN_PLACE_FRAMES as usize;
    for (name, bytes) in [("regular", &regular), ("irregular", &irregular)] {
        assert_eq!(check(name, bytes, 0..frames).frames(), frames);
        check(name, bytes, 3..frames - 2);
        check(name, bytes, 6..7);
    }
    let report = compare(
        &check("regular", &regular, 0..frames),
        &check("irregular", &irregular, 0..frames),
        &CompareOptions::default(),
    );
    assert_eq!(report.passes.len(), 4, "a, b, c and b's sub-pass");
}

/// [`IN_PLACE_FRAMES`] frames of passes `names` in turn, each its graph pass's, one span
/// each of [`noisy`] ns, frame `f`'s first beginning at `first(f)`: the clock read
/// wrapping, as a device's counter does.
fn three_passes_from(names: [&str; 3], first: impl Fn(u64) -> u64) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(&topology(&names, &[false; 3])).expect("a Vec");
    for number in 0..IN_PLACE_FRAMES {
        let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 3], ..Frame::default() };
        let mut t = first(number);
        for pass in 0..3 {
            let end_ns = t.wrapping_add(noisy(number, pass));
            frame.spans.push(Span { pass: pass as u32, begin_ns: t, end_ns, ..Span::default() });
            t = end_ns.wrapping_add(1_000);
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

/// Two GPU passes of one key (graph passes of one name, passes of one label: a ping-pong
/// blur's two halves, say) are one pass of two spans a frame. A frame of their topology
/// reads alone (passes 0, 1, 2 in turn), and the collector, which holds such frames to
/// hand each pass its run, handed the key's series each position's run as frames of its
/// own: twice the frames, in the wrong order. It now samples them as every other path.
#[test]
fn two_gpu_passes_of_one_key_sample_as_two_spans_a_frame() {
    let bytes = three_passes_from(["blur", "blur", "tonemap"], |number| 20_000_000 * number);
    let frames = IN_PLACE_FRAMES as usize;
    let samples = check("one key twice", &bytes, 0..frames);
    assert_eq!(samples.frames(), frames);
    check("one key twice", &bytes, 5..frames - 3);
    let report = compare(&samples, &samples, &CompareOptions::default());
    assert_eq!(report.passes.len(), 2, "blur, of two spans a frame, and tonemap");
}

/// A span whose end passed the clock's end reads 0 ns (SGPT_FORMAT.md §5), though its
/// frame stores its duration as a small number and reads alone: the collector took that
/// number, where the scan reads 0 ns, until it sent such frames the general way too.
#[test]
fn a_span_that_wrapped_past_the_clock_s_end_samples_as_0_ns() {
    // Frame 40's second pass ends past `u64::MAX`, and its third begins there.
    let bytes =
        three_passes_from(["a", "b", "c"], |number| if number == 40 { u64::MAX - 50_000 } else { 20_000_000 * number });
    let frames = IN_PLACE_FRAMES as usize;
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.frame(40).expect("decodes").spans.iter().any(|span| span.end_ns < span.begin_ns));
    assert_eq!(check("wrapped", &bytes, 0..frames).frames(), frames);
    check("wrapped", &bytes, 30..50);
}

/// Coins are kept where every usual pass has at most one span a frame, even where one is
/// missing from some frames, and compare as the durations do; a second span of such a
/// pass inside a chunk, or a skipped frame, leaves the scan without them.
#[test]
fn coins_are_kept_for_passes_of_at_most_one_span_a_frame() {
    let frames = IN_PLACE_FRAMES as usize;
    let regular = one_topology_capture(|frame, pass| vec![noisy(frame, pass)]);
    // Pass 1 missing from frames inside chunks and from the last ones.
    let gaps = one_topology_capture(|frame, pass| match (frame, pass) {
        (19 | 40 | 41 | 82 | 83, 1) => Vec::new(),
        _ => vec![noisy(frame, pass)],
    });
    let twice = one_topology_capture(irregular_inside_chunks);
    let mut damaged = regular.clone();
    {
        let capture = Capture::open(&regular).expect("opens");
        let entries = capture.frames();
        let (start, end) = (entries[33].offset as usize, entries[34].offset as usize);
        damaged[(start + end) / 2] ^= 0x5a;
    }
    for chunks in CHUNKS {
        let options = ScanOptions { chunks, frame_timing: false, samples: true, coins: true, ..ScanOptions::default() };
        let coins = |bytes: &[u8]| {
            let capture = Capture::open(bytes).expect("opens");
            scan(&capture, 0..frames, &options).samples
        };
        let collected = |bytes: &[u8]| {
            let capture = Capture::open(bytes).expect("opens");
            Samples::collect(&capture, 0..frames)
        };
        for bytes in [&regular, &gaps] {
            let kept = coins(bytes).expect("at most one span a frame keeps coins");
            let expected = compare(&collected(&regular), &collected(bytes), &CompareOptions::default());
            assert_eq!(try_compare(&collected(&regular), &kept, &CompareOptions::default()), Some(expected));
        }
        assert!(coins(&twice).is_none(), "{chunks} chunks: a second span in a frame");
        assert!(coins(&damaged).is_none(), "{chunks} chunks: a skipped frame");
    }
}

/// A sample that saw mostly short spans where most frames hold long ones: the median
/// lies in the p95's window, not in its own, so the statistics stand (no second read) but
/// the codes, taken against the median's window, cannot tell a long span's coin, and the
/// scan keeps no coins.
#[test]
fn coins_are_not_kept_against_a_median_outside_their_window() {
    let frames = 3_000;
    let bytes = capture_of(frames, |frame, pass| {
        // The sampled frames (every third) hold 80 % short spans, the others 10 %.
        let short = if frame % 3 == 0 { (frame / 3) % 5 != 0 } else { frame % 10 == 1 };
        vec![if short { 10_000 + (frame * 7_919 + pass as u64 * 104_729) % 500 } else { 50_000 }]
    });
    let capture = Capture::open(&bytes).expect("opens");
    let options =
        ScanOptions { chunks: 3, frame_timing: false, windows: Windows::SampleEvery(3), samples: true, coins: true };
    let scanned = scan(&capture, 0..frames as usize, &options);
    assert!(!scanned.reread, "every median lies in a window");
    assert!(scanned.samples.is_none(), "a median outside its own window leaves no coins");
    let durations = scan(&capture, 0..frames as usize, &ScanOptions { coins: false, ..options });
    assert!(durations.samples == Some(Samples::collect(&capture, 0..frames as usize)));
}

#[test]
fn a_damaged_frame_inside_a_chunk_is_skipped_and_said_as_the_collector_does() {
    let mut bytes = one_topology_capture(|frame, pass| vec![noisy(frame, pass)]);
    let (start, end) = {
        let capture = Capture::open(&bytes).expect("opens");
        let frames = capture.frames();
        (frames[33].offset as usize, frames[34].offset as usize)
    };
    // A byte inside frame 33's record: its checksum no longer matches.
    bytes[(start + end) / 2] ^= 0x5a;
    let samples = check("damaged", &bytes, 0..IN_PLACE_FRAMES as usize);
    assert_eq!(samples.defects.len(), 1, "{:?}", samples.defects);
    assert_eq!(samples.frames(), IN_PLACE_FRAMES as usize - 1);
}

#[test]
fn every_v1_fixture_that_opens_samples_as_the_collector_does_damaged_frames_included() {
    let names = fixture_names();
    let (mut checked, mut with_defects) = (0, 0);
    for name in names {
        let bytes = fixture(&name);
        if Capture::open(&bytes).is_err() {
            continue;
        }
        let samples = whole(&name, &bytes);
        checked += 1;
        with_defects += usize::from(!samples.defects.is_empty());
    }
    assert!(checked > 20, "only {checked} fixtures opened");
    assert!(with_defects > 0, "some fixture has frames the samples skip");
}
