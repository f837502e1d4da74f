//! One pass's histogram: markers exactly where the statistics table's median and p95 are,
//! 0 ns spans apart, quantized durations shown step by step, and no overflow at the extremes.

use sgpt_format::analysis;
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Level, SpanKind};
use sgpt_inspector::histogram::{Bin, Binning, Histogram, HistogramJob, MAX_BINS, PassKey};

fn bins(histogram: &Histogram) -> Vec<(u64, u64, u64)> {
    histogram.bins.iter().map(|bin| (bin.low_ns, bin.high_ns, bin.count)).collect()
}

/// Bins (and the tail after them) are ascending, disjoint, cover the nonzero durations,
/// and count every one.
fn check_bins(histogram: &Histogram) {
    assert!(histogram.bins.len() <= MAX_BINS);
    let counted: u64 = histogram.bins.iter().chain(&histogram.tail).map(|bin| bin.count).sum();
    assert_eq!(counted + histogram.zero_count, histogram.count);
    let all: Vec<Bin> = histogram.bins.iter().chain(&histogram.tail).copied().collect();
    for pair in all.windows(2) {
        assert!(pair[0].low_ns <= pair[0].high_ns && pair[0].high_ns < pair[1].low_ns, "{pair:?}");
    }
    if let Binning::Linear { width_ns } = histogram.binning {
        for pair in histogram.bins.windows(2) {
            assert_eq!(pair[1].low_ns - pair[0].low_ns, width_ns, "linear bins follow on");
        }
        if let Some(quantum) = histogram.quantum_ns {
            assert_eq!(width_ns % quantum, 0, "a whole number of quanta a bin");
        }
    }
    if let (Some(first), Some(last)) = (histogram.bins.first(), all.last()) {
        let smallest = if histogram.zero_count == histogram.count { None } else { Some(first.low_ns) };
        assert!(smallest.is_some() && last.high_ns == histogram.max_ns.expect("a max"));
    }
}

#[test]
fn no_spans_says_so() {
    let histogram = Histogram::new(&[]);
    assert_eq!((histogram.count, histogram.median_ns, histogram.p95_ns, histogram.quantum_ns), (0, None, None, None));
    assert!(histogram.bins.is_empty());
    assert_eq!(histogram.summary_text(), "no spans");
    assert_eq!(histogram.binning_text(), "no spans");
    let layout = histogram.layout(300.0, 100.0);
    assert!(layout.bars.is_empty() && layout.markers.is_empty());
    assert_eq!(layout.labels.iter().map(|label| label.text.as_str()).collect::<Vec<_>>(), ["no spans"]);
    assert_eq!(layout.hit(10.0), None);
}

#[test]
fn a_single_value_is_one_full_bar_with_both_markers_on_it() {
    let histogram = Histogram::new(&[41_234]);
    assert_eq!(bins(&histogram), [(41_234, 41_234, 1)]);
    assert_eq!((histogram.median_ns, histogram.p95_ns), (Some(41_234), Some(41_234)));
    assert_eq!(histogram.quantum_ns, None, "one span defines no quantum");
    assert_eq!(histogram.summary_text(), "1 spans · median 41.23 µs · p95 41.23 µs");
    let layout = histogram.layout(200.0, 50.0);
    assert_eq!(layout.bars.len(), 1);
    assert_eq!(
        (layout.bars[0].x, layout.bars[0].width, layout.bars[0].height, layout.bars[0].y),
        (0.0, 199.0, 50.0, 0.0)
    );
    assert!(layout.markers.iter().all(|marker| marker.x == 100.0));
    assert_eq!(layout.hit(150.0), Some(0));
}

#[test]
fn zeros_stand_apart_even_when_they_are_all_there_is() {
    let histogram = Histogram::new(&[0, 0, 0]);
    assert_eq!(
        (histogram.count, histogram.zero_count, histogram.median_ns, histogram.p95_ns),
        (3, 3, Some(0), Some(0))
    );
    assert!(histogram.bins.is_empty());
    assert!(histogram.binning_text().contains("every span reads exactly 0 ns"));
    assert_eq!(histogram.summary_text(), "3 spans · median 0 ns · p95 0 ns · 3 read exactly 0 ns");
    let layout = histogram.layout(100.0, 40.0);
    assert_eq!(layout.bars.len(), 1);
    assert!(layout.bars[0].zero && layout.bars[0].bin.is_none());
    assert_eq!((layout.bars[0].count, layout.bars[0].height), (3, 40.0));
    assert!(layout.markers.iter().all(|marker| marker.x == 50.0));
    assert_eq!(layout.labels[0].text, "0 ns");
}

#[test]
fn browser_quantized_durations_get_one_bar_per_step_with_zeros_apart() {
    let durations = [0, 200_000, 100_000, 0, 200_000, 100_000, 300_000, 200_000, 500_000];
    let histogram = Histogram::new(&durations);
    assert_eq!(histogram.quantum_ns, Some(100_000));
    assert_eq!(histogram.binning, Binning::Steps { step_ns: 100_000 });
    assert_eq!(
        bins(&histogram),
        [
            (100_000, 100_000, 2),
            (200_000, 200_000, 3),
            (300_000, 300_000, 1),
            (400_000, 400_000, 0),
            (500_000, 500_000, 1)
        ],
        "an empty step is shown empty, not smoothed over"
    );
    assert_eq!(histogram.zero_count, 2);
    // Sorted: 0 0 100 100 200 200 200 300 500 (µs): lower median d[4], p95 d[⌈8.55⌉ − 1] = d[8].
    assert_eq!((histogram.median_ns, histogram.p95_ns), (Some(200_000), Some(500_000)));
    assert_eq!(
        histogram.binning_text(),
        "one bar per 100.0 µs step, as recorded; every nonzero duration is a multiple of 100.0 µs"
    );
    check_bins(&histogram);

    // Five bins, the zero bar and half a slot between: 6.5 slots of 100 px.
    let layout = histogram.layout(650.0, 90.0);
    let bars: Vec<(f64, f64, f64, u64, bool)> =
        layout.bars.iter().map(|bar| (bar.x, bar.width, bar.height, bar.count, bar.zero)).collect();
    assert_eq!(
        bars,
        [
            (0.0, 99.0, 60.0, 2, true),
            (150.0, 99.0, 60.0, 2, false),
            (250.0, 99.0, 90.0, 3, false),
            (350.0, 99.0, 30.0, 1, false),
            (450.0, 99.0, 0.0, 0, false),
            (550.0, 99.0, 30.0, 1, false),
        ]
    );
    assert!(layout.bars.iter().all(|bar| bar.y + bar.height == 90.0), "bars stand on the axis");
    let markers: Vec<(&str, f64, &str)> =
        layout.markers.iter().map(|marker| (marker.name, marker.x, marker.text.as_str())).collect();
    assert_eq!(markers, [("median", 300.0, "median 200.0 µs"), ("p95", 600.0, "p95 500.0 µs")]);
    let labels: Vec<(f64, &str)> = layout.labels.iter().map(|label| (label.x, label.text.as_str())).collect();
    assert_eq!(labels, [(50.0, "0 ns"), (200.0, "100.0 µs"), (600.0, "500.0 µs")]);
    assert_eq!(layout.hit(260.0), Some(2));
    assert_eq!(layout.hit(120.0), None, "the gap between the zero bar and the rest");
}

#[test]
fn many_quantized_steps_bin_a_whole_number_of_steps_each() {
    // 100 µs steps from 100 µs to 10 ms: a hundred steps, more than MAX_BINS.
    let durations: Vec<u64> = (1..=100u64).flat_map(|step| [step * 100_000; 2]).collect();
    let histogram = Histogram::new(&durations);
    assert_eq!(histogram.quantum_ns, Some(100_000));
    assert_eq!(histogram.binning, Binning::Linear { width_ns: 300_000 });
    assert_eq!(histogram.bins.len(), 34);
    assert!(histogram.bins[..33].iter().all(|bin| bin.count == 6), "three steps of two spans each");
    assert_eq!(histogram.bins[33], Bin { low_ns: 10_000_000, high_ns: 10_000_000, count: 2 });
    check_bins(&histogram);
}

#[test]
fn few_distinct_values_get_a_bar_each_instead_of_being_merged() {
    let histogram = Histogram::new(&[1_000, 1_001, 1_002, 1_001, 50_000]);
    assert_eq!(histogram.quantum_ns, None);
    assert_eq!(histogram.binning, Binning::Values);
    assert_eq!(histogram.distinct, 4);
    assert_eq!(bins(&histogram), [(1_000, 1_000, 1), (1_001, 1_001, 2), (1_002, 1_002, 1), (50_000, 50_000, 1)]);
    assert!(histogram.binning_text().contains("not to scale"));
    let layout = histogram.layout(400.0, 10.0);
    assert_eq!(layout.markers[0].x, 150.0, "the median, 1 001 ns, is the second bar's centre");
    // Nanosecond steps that fit: one bar per nanosecond value.
    let histogram = Histogram::new(&[7, 9, 9]);
    assert_eq!(histogram.binning, Binning::Steps { step_ns: 1 });
    assert_eq!(bins(&histogram), [(7, 7, 1), (8, 8, 0), (9, 9, 2)]);
    assert_eq!(histogram.binning_text(), "one bar per nanosecond value");
}

#[test]
fn spread_durations_get_linear_bins_and_proportional_markers() {
    // A deterministic spread of 1 000 values between 10 µs and about 2 ms.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let durations: Vec<u64> = (0..1_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            10_000 + state % 2_000_000
        })
        .collect();
    let histogram = Histogram::new(&durations);
    assert!(matches!(histogram.binning, Binning::Linear { .. }));
    assert_eq!(histogram.bins.len(), MAX_BINS);
    check_bins(&histogram);
    let mut sorted = durations.clone();
    sorted.sort_unstable();
    assert_eq!(histogram.median_ns, Some(sorted[499]));
    assert_eq!(histogram.p95_ns, Some(sorted[949]));
    let layout = histogram.layout(480.0, 100.0);
    assert_eq!(layout.bars.len(), MAX_BINS);
    for marker in &layout.markers {
        let bar = layout
            .bars
            .iter()
            .find(|bar| bar.bin.is_some_and(|bin| bin.low_ns <= marker.value_ns && marker.value_ns <= bin.high_ns));
        let bar = bar.expect("a marker lies in its bin's bar");
        assert!(marker.x >= bar.x && marker.x <= bar.x + 10.0, "{marker:?} in {bar:?}");
    }
    let tallest = layout.bars.iter().map(|bar| bar.count).max().expect("bars");
    for bar in &layout.bars {
        let expected = bar.count as f64 / tallest as f64 * 100.0;
        assert!(bar.count == 0 || (bar.height - expected.max(1.0)).abs() < 1e-9);
    }
}

#[test]
fn extremes_of_u64_neither_overflow_nor_panic() {
    for durations in [
        vec![1, u64::MAX],
        vec![u64::MAX; 3],
        vec![0, u64::MAX, u64::MAX - 1],
        (1..=200u64).map(|i| u64::MAX / 200 * i).collect::<Vec<_>>(),
        (0..100u64).map(|i| u64::MAX - i).collect(),
        vec![u64::MAX / 2, u64::MAX],
    ] {
        let histogram = Histogram::new(&durations);
        check_bins(&histogram);
        assert_eq!(histogram.max_ns, durations.iter().max().copied());
        let layout = histogram.layout(300.0, 50.0);
        assert!(layout.bars.iter().all(|bar| bar.x.is_finite() && bar.x + bar.width <= 300.0 + 1e-9));
        assert!(layout.markers.iter().all(|marker| (0.0..=300.0).contains(&marker.x)));
        assert!(!histogram.summary_text().is_empty() && !histogram.binning_text().is_empty());
    }
    let histogram = Histogram::new(&[u64::MAX; 3]);
    assert_eq!((histogram.quantum_ns, histogram.binning), (Some(u64::MAX), Binning::Steps { step_ns: u64::MAX }));
    assert_eq!(bins(&histogram), [(u64::MAX, u64::MAX, 3)]);
}

#[test]
fn from_a_capture_the_figures_are_the_statistics_tables_across_topologies() {
    let mut topologies = 0;
    for options in [
        SynthOptions { frames: 1_300, passes: 80, seed: 4, level: Level::Verbose, ..SynthOptions::default() },
        SynthOptions { frames: 1_100, passes: 30, seed: 5, quantize_ns: Some(100_000), ..SynthOptions::default() },
    ] {
        let bytes = generate(&options);
        let capture = Capture::open(&bytes).expect("synth opens");
        topologies = topologies.max(capture.topology_count());
        let frames = capture.frames().len();
        for range in [0..frames, 200..700] {
            let report = analysis::pass_stats(&capture, range.clone());
            let every_third_and_the_regions =
                report.passes.iter().enumerate().filter(|(i, pass)| i % 3 == 0 || pass.span_kind == SpanKind::SubPass);
            for (_, pass) in every_third_and_the_regions {
                let key = PassKey::of_stats(pass);
                let histogram = Histogram::from_capture(&capture, range.clone(), &key);
                let name = format!("{:?} {} over {range:?}", pass.graph_pass, pass.label);
                assert_eq!((histogram.count, histogram.zero_count), (pass.count, pass.zero_count), "{name}");
                assert_eq!(
                    (histogram.median_ns, histogram.p95_ns),
                    (Some(pass.median_ns), Some(pass.p95_ns)),
                    "{name}"
                );
                assert_eq!((histogram.min_ns, histogram.max_ns), (Some(pass.min_ns), Some(pass.max_ns)), "{name}");
                check_bins(&histogram);
                if options.quantize_ns.is_some() && pass.count > pass.zero_count + 1 {
                    let quantum = histogram.quantum_ns.expect("quantized");
                    assert_eq!(quantum % 100_000, 0, "{name}: a multiple of the browser's step");
                }
            }
            assert!(
                report.passes.iter().any(|pass| pass.span_kind == SpanKind::SubPass) || options.level < Level::Verbose
            );
        }
    }
    assert!(topologies > 1, "a capture with several topologies");
}

#[test]
fn sliced_gathering_equals_one_go_and_skips_what_the_statistics_skip() {
    let fixture = |name: &str| {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/").to_owned() + name)
            .expect("fixture exists")
    };
    for name in ["corrupted.sgpt", "zero_durations.sgpt", "level_verbose.sgpt", "dropped_spans.sgpt"] {
        let bytes = fixture(name);
        let capture = Capture::open(&bytes).expect("fixture opens");
        let frames = capture.frames().len();
        let report = analysis::pass_stats(&capture, 0..frames);
        for pass in &report.passes {
            let key = PassKey::of_stats(pass);
            let whole = Histogram::from_capture(&capture, 0..frames, &key);
            assert_eq!((whole.count, whole.zero_count), (pass.count, pass.zero_count), "{name}");
            assert_eq!((whole.median_ns, whole.p95_ns), (Some(pass.median_ns), Some(pass.p95_ns)), "{name}");
            assert_eq!(whole.skipped_frames, report.defects.len() as u64, "{name}");
            for units in [1usize, 3] {
                let mut job = HistogramJob::new(&capture, 0..frames, key.clone());
                let mut last = job.progress();
                loop {
                    let mut left = units;
                    let done = job.step(&mut || {
                        let go = left > 0;
                        left = left.saturating_sub(1);
                        go
                    });
                    let progress = job.progress();
                    assert!(((progress - last) * frames as f64).round() as usize <= units);
                    last = progress;
                    if done {
                        break;
                    }
                }
                assert_eq!(job.finish(), whole, "{name}, {units} frames a step");
            }
        }
    }
    // A pass no frame has, and a range past the capture.
    let bytes = fixture("minimal.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let key = PassKey {
        graph_pass: None,
        label: "nothing".into(),
        kind: sgpt_format::GpuPassKind::Compute,
        span_kind: SpanKind::Pass,
    };
    assert_eq!(Histogram::from_capture(&capture, 0..100, &key).count, 0);
    let mut job = HistogramJob::new(&capture, 1_000..2_000, key);
    assert!(job.step(&mut || false));
    assert_eq!(job.finish().summary_text(), "no spans");
}

#[test]
fn a_long_tail_is_one_bar_apart_so_the_bulk_keeps_its_resolution() {
    // 990 spans between 400 and 500 µs, 10 outliers up to 6 ms: without the tail, 48 bins of
    // 117 µs would put the whole bulk in one bar.
    let mut durations: Vec<u64> = (0..990).map(|i| 400_000 + (i * 101) % 100_000).collect();
    durations.extend((1..=10).map(|i| 600_000 * i));
    let histogram = Histogram::new(&durations);
    check_bins(&histogram);
    let tail = histogram.tail.expect("the outliers are a tail");
    // The 99th percentile (index 989 of 1,000, nearest rank below) is the bulk's largest.
    assert_eq!((tail.low_ns, tail.high_ns, tail.count), (600_000, 6_000_000, 10));
    assert!(histogram.bins.len() > 20, "the bulk spread over many bars: {}", histogram.bins.len());
    assert!(histogram.binning_text().contains("above the 99th percentile"), "{}", histogram.binning_text());
    let layout = histogram.layout(480.0, 100.0);
    let last = layout.bars.last().expect("bars");
    assert_eq!(last.bin, Some(tail));
    let p95 = layout.markers.iter().find(|m| m.name == "p95").expect("p95 marked");
    assert!(p95.x < last.x, "the p95 lies in the bulk, left of the tail");
    // Fewer than 100 spans, or a tail within twice the 99th percentile: no tail.
    assert!(Histogram::new(&durations[980..]).tail.is_none());
    assert!(Histogram::new(&(1..=1000).collect::<Vec<u64>>()).tail.is_none());
}
