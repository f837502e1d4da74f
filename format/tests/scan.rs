//! The one-decode analysis (`analysis::scan`) gives exactly what `pass_stats` and
//! `frame_timing` give, whatever the chunks and the windows: on synthetic captures of
//! several shapes, on every v1 fixture (damaged frames included), over partial ranges,
//! and where the sample that places the windows is misleading. So does the same scan a
//! bounded step at a time (`ScanJob`), whatever the steps.

use std::ops::Range;

use sgpt_format::analysis::scan::{ScanJob, ScanOptions, Windows, scan};
use sgpt_format::analysis::{StatsReport, pass_stats};
use sgpt_format::frame_timing::frame_timing;
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Frame, GpuPass, Level, Meta, Span, SpanKind, Topology, Writer};

#[path = "support/budget.rs"]
mod budget;
#[path = "support/shapes.rs"]
mod shapes;
#[path = "support/span_shapes.rs"]
mod span_shapes;
#[path = "support/topologies.rs"]
mod topologies;
#[path = "support/v1_fixtures.rs"]
mod v1_fixtures;
use budget::budget;
use shapes::shapes;
use span_shapes::every_span_shape;
use v1_fixtures::{fixture, fixture_names};

const CHUNKS: [usize; 4] = [1, 2, 3, 7];

/// Every chunk count and choice of windows against the single-threaded figures; returns
/// how many of the scans had to read the statistics again.
fn check(name: &str, bytes: &[u8], range: Range<usize>, windows: &[Windows]) -> usize {
    let capture = Capture::open(bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
    let stats = pass_stats(&capture, range.clone());
    let timing = Some(frame_timing(&capture, range.clone()));
    let mut rereads = 0;
    for &windows in windows {
        for chunks in CHUNKS {
            let options = ScanOptions { chunks, windows, ..ScanOptions::default() };
            let got = scan(&capture, range.clone(), &options);
            assert_eq!(
                (&got.stats, &got.timing),
                (&stats, &timing),
                "{name}, frames {range:?}, {chunks} chunks, {windows:?}"
            );
            rereads += usize::from(got.reread);
            let stats_only = scan(&capture, range.clone(), &ScanOptions { frame_timing: false, ..options });
            assert_eq!(stats_only.stats, stats, "{name} without timing, {chunks} chunks, {windows:?}");
            assert_eq!(stats_only.timing, None);
            if chunks == 1 {
                for units in STEP_UNITS {
                    let (got, reread) = stepped(&capture, range.clone(), windows, units);
                    assert_eq!(got, stats, "{name}, frames {range:?}, {units} units a step, {windows:?}");
                    assert_eq!(reread, stats_only.reread, "{name}: the job rereads exactly when the scan does");
                }
            }
        }
    }
    rereads
}

/// What each step of a [`ScanJob`] may do, in frames or rows.
const STEP_UNITS: [usize; 3] = [1, 97, usize::MAX];

/// The statistics of `range` from a job given `units` frames or rows a step, and whether
/// it read them again. Checks that progress only rises (but once, where a reread starts
/// again), ends at 1, and that one unit a step takes more steps than there are frames.
fn stepped(capture: &Capture<'_>, range: Range<usize>, windows: Windows, units: usize) -> (StatsReport, bool) {
    let mut job = ScanJob::new(capture, range.clone(), windows);
    let (mut steps, mut last, mut restarts) = (0usize, job.progress(), 0);
    loop {
        let done = job.step(&mut budget(units));
        steps += 1;
        let now = job.progress();
        assert!((0.0..=1.0).contains(&now), "progress {now}");
        restarts += usize::from(now < last);
        last = now;
        if done {
            break;
        }
    }
    assert_eq!(last, 1.0);
    assert!(restarts <= usize::from(job.reread()), "progress fell {restarts} times");
    let frames = range.end.min(capture.frames().len()).saturating_sub(range.start);
    if units == 1 {
        assert!(steps > frames, "{steps} steps for {frames} frames: the work was not sliced");
    }
    let reread = job.reread();
    (job.finish(), reread)
}

const EVERY_WAY: [Windows; 4] = [Windows::Auto, Windows::All, Windows::SampleEvery(2), Windows::SampleEvery(5)];

#[test]
fn synthetic_captures_of_every_shape_scan_to_the_single_threaded_figures() {
    for (name, options) in shapes() {
        let bytes = generate(&options);
        check(name, &bytes, 0..options.frames as usize, &EVERY_WAY);
        // A range that starts and ends inside the capture, one past its end (clamped), an empty one.
        check(name, &bytes, 17..options.frames as usize - 11, &EVERY_WAY);
        check(name, &bytes, 5..usize::MAX, &[Windows::SampleEvery(3)]);
        check(name, &bytes, 9..9, &[Windows::Auto]);
    }
}

#[test]
fn windows_placed_from_a_sample_give_the_exact_figures_on_a_longer_capture() {
    // 3,000 frames: each pass's sample has hundreds of durations, so the windows are
    // narrow and most durations fall outside them.
    let options = SynthOptions { frames: 3_000, passes: 60, seed: 11, ..SynthOptions::default() };
    let bytes = generate(&options);
    let rereads = check("3,000 frames", &bytes, 0..3_000, &[Windows::SampleEvery(8), Windows::SampleEvery(29)]);
    assert_eq!(rereads, 0, "a representative sample places every rank inside its window");
}

#[test]
fn spans_of_every_shape_the_section_stores_scan_to_the_single_threaded_figures() {
    // Frames decoded two at a time, of different lengths, their pass spans out of order in
    // some (then added one at a time, as frame timing keeps them), at every pairing of
    // neighbours the chunk boundaries make.
    let bytes = every_span_shape();
    let frames = Capture::open(&bytes).expect("the capture opens").frames().len();
    for range in [0..frames, 1..frames, 3..frames - 2] {
        check("every span shape", &bytes, range, &[Windows::Auto, Windows::All, Windows::SampleEvery(2)]);
    }
}

#[test]
fn damaged_frames_are_skipped_and_said_as_the_single_threaded_figures_do() {
    for name in ["corrupted.sgpt", "truncated.sgpt"] {
        let bytes = fixture(name);
        let capture = Capture::open(&bytes).expect("opens");
        let frames = capture.frames().len();
        let report = pass_stats(&capture, 0..frames);
        let timing = frame_timing(&capture, 0..frames);
        assert!(!report.defects.is_empty() || !timing.defects.is_empty() || name == "truncated.sgpt", "{name}");
        check(name, &bytes, 0..frames, &EVERY_WAY);
    }
}

#[test]
fn every_v1_fixture_that_opens_scans_to_the_single_threaded_figures() {
    let names = fixture_names();
    let mut checked = 0;
    for name in names {
        let bytes = fixture(&name);
        let Ok(capture) = Capture::open(&bytes) else { continue };
        let frames = capture.frames().len();
        check(&name, &bytes, 0..frames, &[Windows::Auto, Windows::SampleEvery(2)]);
        checked += 1;
    }
    assert!(checked > 20, "only {checked} fixtures opened");
}

/// Frames whose pass 0 lasts about 1,000 ns on every tenth frame and about 5,000 ns
/// otherwise: a sample of every tenth frame sees only the short ones, and enough of them
/// to place both windows among them.
const FRAMES: usize = 20_000;

fn misleading_capture() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("writer");
    let topology = Topology {
        gpu_passes: (0..3).map(|i| GpuPass { label: format!("pass {i}"), ..GpuPass::default() }).collect(),
        ..Topology::default()
    };
    let id = writer.topology(&topology).expect("topology");
    for number in 0..FRAMES as u64 {
        let begin = 1_000_000 + number * 100_000;
        let first = if number % 10 == 0 { 1_000 + number % 97 } else { 5_000 + (number * 37) % 900 };
        // Spans out of begin order, and a sub-pass inside pass 1.
        let spans = vec![
            Span { pass: 1, begin_ns: begin + 20_000, end_ns: begin + 26_000 + number % 13, ..Span::default() },
            Span { pass: 0, begin_ns: begin, end_ns: begin + first, ..Span::default() },
            Span {
                pass: 1,
                kind: SpanKind::SubPass,
                begin_ns: begin + 21_000,
                end_ns: begin + 22_000,
                ..Span::default()
            },
            Span {
                pass: 2,
                begin_ns: begin + 30_000,
                end_ns: begin + 30_000 + (number * 7_919) % 4_000,
                ..Span::default()
            },
        ];
        let frame = Frame { frame_number: number, topology: id, spans, ..Frame::default() };
        writer.frame(&frame).expect("frame");
    }
    writer.finish().expect("finish")
}

#[test]
fn a_misleading_sample_costs_time_never_a_figure() {
    let bytes = misleading_capture();
    let rereads = check("misleading", &bytes, 0..FRAMES, &[Windows::SampleEvery(10), Windows::SampleEvery(20)]);
    assert_eq!(rereads, 2 * CHUNKS.len(), "every scan found pass 0's median outside its windows");
    assert_eq!(check("misleading", &bytes, 0..FRAMES, &[Windows::SampleEvery(3)]), 0);
    let capture = Capture::open(&bytes).expect("opens");
    let report = pass_stats(&capture, 0..FRAMES);
    let first = report.passes.iter().find(|pass| pass.label == "pass 0").expect("pass 0");
    assert!(first.median_ns >= 5_000, "the median is a long frame's: {first:?}");
}
