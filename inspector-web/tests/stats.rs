//! The page's statistics are exactly `sgpt stats`' (`analysis::pass_stats`), computed in
//! bounded memory a chunk at a time, on captures large enough to use the histograms.

use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Frame, Level, analysis};
use sgpt_inspector::stats::{Phase, RAW_LIMIT, StatsJob};
use sgpt_inspector::verify::check_frame;

fn run(capture: &Capture<'_>, range: std::ops::Range<usize>, chunk: usize) -> analysis::StatsReport {
    let mut job = StatsJob::new(capture, range);
    let mut steps = 0;
    while !job.step(capture, chunk) {
        steps += 1;
        assert!(job.progress() < 1.0);
        assert!(steps < 100_000, "the job ends");
    }
    assert_eq!(job.phase(), Phase::Done);
    job.finish()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/").to_owned() + name).expect("fixture exists")
}

#[test]
fn chunked_histogram_statistics_equal_the_analysis_exactly() {
    for options in [
        SynthOptions { frames: 1_500, passes: 30, level: Level::Timing, seed: 3, quantize_ns: None },
        SynthOptions { frames: 1_200, passes: 20, level: Level::Verbose, seed: 9, quantize_ns: None },
        SynthOptions { frames: 1_100, passes: 20, level: Level::Timing, seed: 5, quantize_ns: Some(100_000) },
    ] {
        let bytes = generate(&options);
        let capture = Capture::open(&bytes).expect("synth opens");
        let frames = capture.frames().len();
        assert!(frames > RAW_LIMIT, "enough spans per pass to use the histograms");
        for (range, chunk) in [(0..frames, 97), (100..900, 1_000), (5..6, 1)] {
            let expected = analysis::pass_stats(&capture, range.clone());
            let got = run(&capture, range.clone(), chunk);
            assert_eq!(got, expected, "{options:?} over {range:?}");
        }
        if options.quantize_ns.is_some() {
            let report = run(&capture, 0..frames, 500);
            assert!(report.zero_spans > 0, "a quantized capture has zero-length spans");
        }
    }
}

#[test]
fn damaged_frames_are_skipped_whole_as_the_analysis_skips_them() {
    for name in ["corrupted.sgpt", "truncated.sgpt", "zero_durations.sgpt", "dropped_spans.sgpt", "level_verbose.sgpt"]
    {
        let bytes = fixture(name);
        let capture = Capture::open(&bytes).expect("fixture opens");
        let frames = capture.frames().len();
        assert_eq!(run(&capture, 0..frames, 3), analysis::pass_stats(&capture, 0..frames), "{name}");
    }
    let bytes = fixture("corrupted.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let report = run(&capture, 0..capture.frames().len(), 4);
    assert_eq!(report.frames, 15);
    assert_eq!(report.defects.len(), 1);
}

#[test]
fn frame_by_frame_verification_finds_what_verify_finds() {
    for name in ["corrupted.sgpt", "truncated.sgpt", "never_closed.sgpt", "minimal.sgpt", "unknown_record.sgpt"] {
        let bytes = fixture(name);
        let capture = Capture::open(&bytes).expect("fixture opens");
        let mut frame = Frame::default();
        let mut defects = capture.defects().to_vec();
        defects.extend((0..capture.frames().len()).filter_map(|index| check_frame(&capture, index, &mut frame)));
        assert_eq!(defects, capture.verify(), "{name}");
    }
}
