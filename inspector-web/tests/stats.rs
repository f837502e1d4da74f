//! The page's statistics are exactly `sgpt stats`' (`analysis::pass_stats`), however the
//! work is sliced (the windows placed from a sample are `sgpt-format`'s scan tests'); the
//! page's frame-by-frame verification finds what `Capture::verify` finds.

use sgpt_format::analysis::{self, RAW_LIMIT};
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Level};
use sgpt_inspector::stats::StatsJob;

/// Runs a job allowing `units` frames or passes of work a step.
fn run(capture: &Capture<'_>, range: std::ops::Range<usize>, units: usize) -> analysis::StatsReport {
    let mut job = StatsJob::new(capture, range);
    let mut steps = 0;
    let mut last = job.progress();
    loop {
        let mut left = units;
        let done = job.step(&mut || {
            let go = left > 0;
            left = left.saturating_sub(1);
            go
        });
        if done {
            break;
        }
        steps += 1;
        let progress = job.progress();
        assert!(progress >= last && progress < 1.0, "progress {last} then {progress}");
        last = progress;
        assert!(steps < 100_000, "the job ends");
    }
    job.finish()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/").to_owned() + name).expect("fixture exists")
}

#[test]
fn sliced_statistics_equal_the_analysis_exactly() {
    for options in [
        SynthOptions { frames: 1_500, passes: 30, seed: 3, ..SynthOptions::default() },
        SynthOptions { frames: 1_200, passes: 20, level: Level::Verbose, seed: 9, ..SynthOptions::default() },
        SynthOptions { frames: 1_100, passes: 20, seed: 5, quantize_ns: Some(100_000), ..SynthOptions::default() },
    ] {
        let bytes = generate(&options);
        let capture = Capture::open(&bytes).expect("synth opens");
        let frames = capture.frames().len();
        assert!(frames > RAW_LIMIT, "enough spans per pass that a reread would use the histograms");
        for (range, units) in [(0..frames, 97), (100..900, 1_000), (5..6, 1), (0..frames, 1)] {
            let expected = analysis::pass_stats(&capture, range.clone());
            let got = run(&capture, range.clone(), units);
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
fn a_range_past_the_capture_is_ready_at_once() {
    let bytes = fixture("minimal.sgpt");
    let capture = Capture::open(&bytes).expect("fixture opens");
    let mut job = StatsJob::new(&capture, 1_000..2_000);
    assert!(job.step(&mut || false));
    assert_eq!(job.finish().frames, 0);
}
