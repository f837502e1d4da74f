//! Per-pass statistics, comparison and resource lifetimes, checked against exact numbers
//! and against a brute-force oracle on the synthetic workload.

use std::collections::HashMap;

use sgpt_format::analysis::{
    DeltaStatus, PassStats, RAW_LIMIT, ResourceLifetime, StatsAccumulator, StatsReport, deltas, pass_stats,
    resource_lifetimes,
};
use sgpt_format::synth::{SynthOptions, workload};
use sgpt_format::{
    Capture, DefectKind, Frame, GpuPass, GpuPassKind, GraphPass, Level, Meta, ResourceNode, Span, SpanKind, Topology,
    Writer,
};

#[path = "support/budget.rs"]
mod budget;
use budget::budget;

/// Two graph passes that each open a GPU pass labelled `blur`, plus a lone `tonemap`.
fn blur_topology() -> Topology {
    let graph = |name: &str| GraphPass { name: name.into(), ref_count: 1, ..GraphPass::default() };
    let gpu = |label: &str, graph_pass: u32, kind| GpuPass {
        label: label.into(),
        graph_pass: Some(graph_pass),
        kind,
        ..GpuPass::default()
    };
    Topology {
        graph_passes: vec![graph("bloom"), graph("dof"), graph("post")],
        gpu_passes: vec![
            gpu("blur", 0, GpuPassKind::Compute),
            gpu("blur", 1, GpuPassKind::Compute),
            gpu("tonemap", 2, GpuPassKind::Render),
        ],
        ..Topology::default()
    }
}

/// Writes frames whose spans have the given durations per GPU pass (index = pass).
fn capture_with(topology: &Topology, durations: &[Vec<u64>], dropped: u32) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(topology).expect("writing into a Vec succeeds");
    for (number, frame_durations) in durations.iter().enumerate() {
        let mut frame = Frame { frame_number: number as u64, topology: id, dropped_spans: dropped, ..Frame::default() };
        let mut t = 1_000_000 * number as u64;
        for (pass, &duration) in frame_durations.iter().enumerate() {
            frame.spans.push(Span { pass: pass as u32, begin_ns: t, end_ns: t + duration, ..Span::default() });
            t += duration + 100;
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("writing into a Vec succeeds")
}

fn find<'r>(report: &'r StatsReport, graph_pass: &str, label: &str) -> &'r PassStats {
    report
        .passes
        .iter()
        .find(|pass| pass.graph_pass.as_deref() == Some(graph_pass) && pass.label == label)
        .unwrap_or_else(|| panic!("no pass {graph_pass}/{label}"))
}

#[test]
fn labels_are_not_keys_each_graph_pass_keeps_its_own_row() {
    let frames: Vec<Vec<u64>> = (0..4).map(|_| vec![100, 5_000, 40]).collect();
    let bytes = capture_with(&blur_topology(), &frames, 0);
    let capture = Capture::open(&bytes).unwrap();
    let report = pass_stats(&capture, 0..4);
    assert_eq!(report.passes.len(), 3);
    assert_eq!(find(&report, "bloom", "blur").median_ns, 100);
    assert_eq!(find(&report, "dof", "blur").median_ns, 5_000);
    // Sorted by total, largest first.
    let order: Vec<_> = report.passes.iter().map(|pass| pass.graph_pass.clone().unwrap()).collect();
    assert_eq!(order, ["dof", "bloom", "post"]);
    assert_eq!(find(&report, "post", "tonemap").kind, GpuPassKind::Render);
}

#[test]
fn order_statistics_are_nearest_rank_over_the_range() {
    // Frame i measures `bloom/blur` at (i + 1) * 10 ns, in a shuffled order.
    let durations: Vec<u64> =
        [7, 19, 3, 0, 12, 15, 1, 9, 18, 5, 11, 2, 17, 8, 14, 4, 16, 10, 6, 13].map(|i| (i + 1) * 10).to_vec();
    let frames: Vec<Vec<u64>> = durations.iter().map(|&d| vec![d, 0, 50]).collect();
    let bytes = capture_with(&blur_topology(), &frames, 2);
    let capture = Capture::open(&bytes).unwrap();
    let report = pass_stats(&capture, 0..20);
    let blur = find(&report, "bloom", "blur");
    assert_eq!((blur.count, blur.frames_present, blur.zero_count), (20, 20, 0));
    assert_eq!((blur.min_ns, blur.max_ns, blur.total_ns), (10, 200, 2_100));
    // Lower median: index (20 − 1) / 2 = 9 of the sorted 10..=200, i.e. 100.
    assert_eq!(blur.median_ns, 100);
    // p95: index ⌈0.95 × 20⌉ − 1 = 18, i.e. 190.
    assert_eq!(blur.p95_ns, 190);
    assert_eq!(blur.mean_ns, 105);
    assert_eq!(report.total_per_frame_ns(blur), 105);

    // Durations of exactly 0 ns are counted per pass and in total.
    let zero = find(&report, "dof", "blur");
    assert_eq!((zero.count, zero.zero_count, zero.median_ns, zero.max_ns), (20, 20, 0, 0));
    assert_eq!(report.zero_spans, 20);
    assert_eq!((report.frames, report.spans, report.dropped_spans), (20, 60, 40));

    // A sub-range: frames 5..10 measured 160, 20, 100, 190, 60: sorted 20 60 100 160 190.
    let part = pass_stats(&capture, 5..10);
    let blur = find(&part, "bloom", "blur");
    assert_eq!((part.frames, part.range.clone()), (5, 5..10));
    assert_eq!((blur.count, blur.median_ns, blur.p95_ns, blur.min_ns, blur.max_ns), (5, 100, 190, 20, 190));

    // Ranges are clamped to the capture.
    let clamped = pass_stats(&capture, 18..1_000);
    assert_eq!((clamped.frames, clamped.range), (2, 18..20));
    assert_eq!(pass_stats(&capture, 30..40).frames, 0);
}

#[test]
fn a_frame_that_fails_to_decode_is_skipped_whole_and_reported() {
    let frames: Vec<Vec<u64>> = (0..6).map(|i| vec![100 + i, 200, 300]).collect();
    let mut bytes = capture_with(&blur_topology(), &frames, 0);
    let entry = Capture::open(&bytes).unwrap().frames()[3];
    // Flip a byte inside frame 3's payload: its checksum no longer matches.
    let at = (entry.offset + entry.len - 2) as usize;
    bytes[at] ^= 0x55;
    let capture = Capture::open(&bytes).unwrap();
    let report = pass_stats(&capture, 0..6);
    assert_eq!(report.frames, 5);
    assert_eq!(report.defects.len(), 1);
    assert_eq!(report.defects[0].kind, DefectKind::ChecksumMismatch);
    assert_eq!(report.defects[0].offset, entry.offset);
    let blur = find(&report, "bloom", "blur");
    assert_eq!((blur.count, blur.frames_present, blur.total_ns), (5, 5, 100 + 101 + 102 + 104 + 105));
}

#[test]
fn a_span_beyond_its_topology_skips_its_frame() {
    let topology = blur_topology();
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let id = writer.topology(&topology).unwrap();
    for number in 0..3u64 {
        let mut frame = Frame { frame_number: number, topology: id, ..Frame::default() };
        frame.spans.push(Span { pass: 0, begin_ns: 0, end_ns: 10, ..Span::default() });
        if number == 1 {
            frame.spans.push(Span { pass: 9, begin_ns: 20, end_ns: 30, ..Span::default() });
        }
        writer.frame(&frame).unwrap();
    }
    let bytes = writer.finish().unwrap();
    let report = pass_stats(&Capture::open(&bytes).unwrap(), 0..3);
    assert_eq!(report.frames, 2);
    assert_eq!(report.defects.len(), 1);
    assert_eq!(report.defects[0].kind, DefectKind::Malformed);
    assert_eq!(find(&report, "bloom", "blur").count, 2);
}

type Key = (Option<String>, String, GpuPassKind, SpanKind);

/// The oracle: every duration per key, straight from the generator's frames.
fn oracle(options: &SynthOptions) -> HashMap<Key, (Vec<u64>, u64)> {
    let workload = workload(options);
    let mut by_key: HashMap<Key, (Vec<u64>, u64)> = HashMap::new();
    for frame in &workload.frames {
        let topology = &workload.topologies[frame.topology as usize];
        let mut seen = Vec::new();
        for span in &frame.spans {
            let pass = &topology.gpu_passes[span.pass as usize];
            let graph = pass.graph_pass.map(|g| topology.graph_passes[g as usize].name.clone());
            let key = (graph, pass.label.clone(), pass.kind, span.kind);
            let entry = by_key.entry(key.clone()).or_default();
            entry.0.push(span.duration_ns());
            if !seen.contains(&key) {
                seen.push(key);
                entry.1 += 1;
            }
        }
    }
    by_key
}

/// Checks every figure of `report` against the oracle's durations.
fn assert_matches_oracle(report: &StatsReport, expected: &HashMap<Key, (Vec<u64>, u64)>, what: &str) {
    assert_eq!(report.passes.len(), expected.len(), "{what}");
    for pass in &report.passes {
        let key = (pass.graph_pass.clone(), pass.label.clone(), pass.kind, pass.span_kind);
        let (durations, frames_present) = expected.get(&key).unwrap_or_else(|| panic!("unexpected {key:?}"));
        let mut sorted = durations.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        assert_eq!(pass.count, n as u64, "{what}: {key:?}");
        assert_eq!(pass.frames_present, *frames_present, "{what}: {key:?}");
        assert_eq!(pass.min_ns, sorted[0], "{what}: {key:?}");
        assert_eq!(pass.max_ns, sorted[n - 1], "{what}: {key:?}");
        assert_eq!(pass.median_ns, sorted[(n - 1) / 2], "{what}: {key:?}");
        assert_eq!(pass.p95_ns, sorted[(95 * n).div_ceil(100) - 1], "{what}: {key:?}");
        assert_eq!(pass.total_ns, sorted.iter().sum::<u64>(), "{what}: {key:?}");
        assert_eq!(pass.zero_count, sorted.iter().filter(|&&d| d == 0).count() as u64, "{what}: {key:?}");
    }
    assert!(report.passes.windows(2).all(|w| w[0].total_ns >= w[1].total_ns));
}

#[test]
fn stats_match_a_brute_force_oracle_on_the_synthetic_workload() {
    for level in [Level::Timing, Level::Verbose] {
        let options = SynthOptions { frames: 200, passes: 60, level, ..SynthOptions::default() };
        let bytes = sgpt_format::synth::generate(&options);
        let capture = Capture::open(&bytes).unwrap();
        let report = pass_stats(&capture, 0..capture.frames().len());
        assert!(report.defects.is_empty());
        assert_eq!(report.frames, 200);
        assert_eq!(report.spans, capture.span_count());
        assert_eq!(report.dropped_spans, capture.dropped_span_count());
        assert_matches_oracle(&report, &oracle(&options), &level.to_string());
    }
}

#[test]
fn stats_past_the_raw_limit_are_exact_from_histograms() {
    // More spans per pass than RAW_LIMIT, so each pass is counted in a histogram and its
    // median and p95 are read again from inside their buckets; quantized durations pile
    // up in few buckets, verbose captures add sub-pass spans.
    for options in [
        SynthOptions { frames: 1_500, passes: 30, seed: 3, ..SynthOptions::default() },
        SynthOptions { frames: 1_200, passes: 20, level: Level::Verbose, seed: 9, ..SynthOptions::default() },
        SynthOptions { frames: 1_100, passes: 20, seed: 5, quantize_ns: Some(100_000), ..SynthOptions::default() },
    ] {
        assert!(options.frames as usize > RAW_LIMIT);
        let bytes = sgpt_format::synth::generate(&options);
        let capture = Capture::open(&bytes).unwrap();
        let report = pass_stats(&capture, 0..capture.frames().len());
        assert_eq!(report.spans, capture.span_count());
        assert_matches_oracle(&report, &oracle(&options), &format!("{options:?}"));
    }
}

#[test]
fn finishing_in_steps_of_any_size_gives_the_same_report() {
    // Splitting the work differently changes nothing.
    let options = SynthOptions { frames: 1_300, passes: 12, seed: 11, ..SynthOptions::default() };
    let bytes = sgpt_format::synth::generate(&options);
    let capture = Capture::open(&bytes).unwrap();
    let whole = pass_stats(&capture, 0..1_300);
    for units in [1usize, 5, 97, 10_000] {
        let mut stats = StatsAccumulator::new(&capture);
        for index in 0..1_300 {
            stats.add_frame(index);
        }
        let mut last = stats.finish_progress();
        assert_eq!(last, 0.0);
        let mut steps = 0;
        loop {
            // Allows `units` slots or frames of work a step.
            let done = stats.finish_step(&mut budget(units));
            let progress = stats.finish_progress();
            assert!(progress >= last && progress <= 1.0, "progress {last} then {progress}");
            last = progress;
            steps += 1;
            if done {
                break;
            }
        }
        assert!(units > 2_000 || steps > 1_300 / units, "{steps} steps of {units}");
        assert_eq!(stats.finish(), whole, "steps of {units}");
    }
}

#[test]
fn frames_added_in_any_order_or_twice_count_as_added() {
    let options = SynthOptions { frames: 1_100, passes: 6, seed: 21, ..SynthOptions::default() };
    let bytes = sgpt_format::synth::generate(&options);
    let capture = Capture::open(&bytes).unwrap();
    let report = |frames: &mut dyn Iterator<Item = usize>| {
        let mut stats = StatsAccumulator::new(&capture);
        frames.for_each(|index| stats.add_frame(index));
        stats.finish()
    };
    // Frames 0..600 twice and 600..1,100 once, forwards or backwards: the same report.
    let twice = report(&mut (0..1_100).chain(0..600));
    assert_eq!(report(&mut (0..600).chain((0..1_100).rev())), twice);
    let (all, first) = (pass_stats(&capture, 0..1_100), pass_stats(&capture, 0..600));
    assert_eq!((twice.frames, twice.range.clone()), (1_700, 0..1_100));
    assert_eq!(twice.spans, all.spans + first.spans);
    for pass in &twice.passes {
        let find = |report: &StatsReport| report.passes.iter().find(|p| p.label == pass.label).unwrap().clone();
        let (all, first) = (find(&all), find(&first));
        assert_eq!(pass.count, all.count + first.count, "{}", pass.label);
        assert_eq!(pass.frames_present, all.frames_present + first.frames_present, "{}", pass.label);
    }

    // Adding a frame after finishing began starts finishing over.
    let mut stats = StatsAccumulator::new(&capture);
    (0..1_000).for_each(|index| stats.add_frame(index));
    assert!(!stats.finish_step(&mut || false));
    let mut first_unit = true;
    assert!(!stats.finish_step(&mut || std::mem::take(&mut first_unit)));
    (1_000..1_100).for_each(|index| stats.add_frame(index));
    stats.add_frame(1_100);
    let report = stats.finish();
    assert_eq!(report.defects.len(), 1, "there is no frame 1,100");
    assert_eq!(StatsReport { defects: Vec::new(), ..report }, all);
}

#[test]
fn quantized_durations_are_counted_as_zero() {
    let options = SynthOptions { frames: 50, passes: 20, quantize_ns: Some(100_000), ..SynthOptions::default() };
    let bytes = sgpt_format::synth::generate(&options);
    let report = pass_stats(&Capture::open(&bytes).unwrap(), 0..50);
    let expected: u64 = oracle(&options).values().flat_map(|(d, _)| d).filter(|&&d| d == 0).count() as u64;
    assert!(expected > 0, "100 µs quantization zeroes most 40 µs passes");
    assert_eq!(report.zero_spans, expected);
}

fn stats(label: &str, median: u64, p95: u64, total: u64, count: u64) -> PassStats {
    PassStats {
        label: label.into(),
        graph_pass: Some("g".into()),
        kind: GpuPassKind::Compute,
        span_kind: SpanKind::Pass,
        count,
        zero_count: 0,
        frames_present: count,
        min_ns: median / 2,
        median_ns: median,
        p95_ns: p95,
        max_ns: p95 * 2,
        mean_ns: PassStats::mean_of(total, count),
        total_ns: total,
    }
}

fn report(frames: u64, passes: Vec<PassStats>) -> StatsReport {
    StatsReport { frames, range: 0..frames as usize, passes, ..StatsReport::default() }
}

#[test]
fn compare_sorts_by_regression_then_added_then_removed() {
    let a = report(
        10,
        vec![
            stats("steady", 1_000, 1_200, 10_000, 10),
            stats("slower", 2_000, 2_500, 20_000, 10),
            stats("faster", 4_000, 5_000, 40_000, 10),
            stats("bit_slower", 500, 600, 5_000, 10),
            stats("removed", 300, 300, 3_000, 10),
        ],
    );
    let b = report(
        20,
        vec![
            stats("steady", 1_000, 1_200, 20_000, 20),
            stats("slower", 2_600, 3_000, 52_000, 20),
            stats("faster", 3_000, 4_000, 60_000, 20),
            stats("bit_slower", 510, 600, 10_200, 20),
            stats("added", 700, 800, 7_000, 10),
        ],
    );
    let deltas = deltas(&a, &b);
    let order: Vec<&str> = deltas.iter().map(|d| d.label.as_str()).collect();
    assert_eq!(order, ["slower", "bit_slower", "steady", "faster", "added", "removed"]);

    let slower = &deltas[0];
    assert_eq!(slower.status(), DeltaStatus::Matched);
    assert_eq!((slower.median_delta_ns, slower.p95_delta_ns, slower.mean_delta_ns), (Some(600), Some(500), Some(600)));
    // 2,000 ns per frame before (20,000 over 10 frames), 2,600 after (52,000 over 20).
    assert_eq!(slower.total_per_frame_delta_ns, 600);
    assert_eq!(slower.median_change, Some(0.3));
    assert_eq!(deltas[3].median_delta_ns, Some(-1_000));
    assert_eq!(deltas[3].median_change, Some(-0.25));

    let added = &deltas[4];
    assert_eq!(added.status(), DeltaStatus::Added);
    assert!(added.a.is_none() && added.b.is_some());
    assert_eq!((added.median_delta_ns, added.median_change), (None, None));
    assert_eq!(added.total_per_frame_delta_ns, 350);
    let removed = &deltas[5];
    assert_eq!(removed.status(), DeltaStatus::Removed);
    assert_eq!(removed.total_per_frame_delta_ns, -300);
}

#[test]
fn a_capture_compared_with_itself_changes_nothing() {
    let bytes = sgpt_format::synth::generate(&SynthOptions {
        frames: 64,
        passes: 40,
        level: Level::Structure,
        ..SynthOptions::default()
    });
    let capture = Capture::open(&bytes).unwrap();
    let report = pass_stats(&capture, 0..64);
    let deltas = deltas(&report, &report);
    assert_eq!(deltas.len(), report.passes.len());
    for delta in &deltas {
        assert_eq!(delta.status(), DeltaStatus::Matched);
        assert_eq!(delta.median_delta_ns, Some(0));
        assert_eq!(delta.p95_delta_ns, Some(0));
        assert_eq!(delta.mean_delta_ns, Some(0));
        assert_eq!(delta.total_per_frame_delta_ns, 0);
        assert!(delta.median_change.is_none_or(|change| change == 0.0));
    }
}

/// swapchain (imported) ← present ← lighting ← {gbuffer, ssao}; debug is culled.
fn resource_topology() -> (Topology, Vec<bool>) {
    let node = |name: &str, version, imported, declared_bytes| ResourceNode {
        name: name.into(),
        version,
        imported,
        declared_bytes,
        ..ResourceNode::default()
    };
    let pass = |name: &str, reads: &[u32], writes: &[u32], creates: &[u32]| GraphPass {
        name: name.into(),
        reads: reads.to_vec(),
        writes: writes.to_vec(),
        creates: creates.to_vec(),
        ..GraphPass::default()
    };
    let topology = Topology {
        resources: vec![
            node("swapchain", 0, true, 8_000),
            node("gbuffer", 0, false, 1_000),
            node("gbuffer", 1, false, 1_200),
            node("ssao", 0, false, 300),
            node("debug", 0, false, 5_000),
            node("history", 0, true, 700),
        ],
        graph_passes: vec![
            pass("gbuffer", &[], &[1], &[1]),
            pass("ssao", &[1], &[3], &[3]),
            pass("lighting", &[1, 3], &[2], &[]),
            pass("debug", &[2], &[4], &[4]),
            pass("present", &[2, 5], &[0], &[]),
        ],
        ..Topology::default()
    };
    (topology, vec![false, false, false, true, false])
}

#[test]
fn resource_lifetimes_and_peak_footprint_are_exact() {
    let (topology, culled) = resource_topology();
    let report = resource_lifetimes(&topology, &culled);
    let lifetime =
        |name: &str| -> ResourceLifetime { report.resources.iter().find(|r| r.name == name).unwrap().clone() };

    let names: Vec<&str> = report.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["swapchain", "gbuffer", "ssao", "debug", "history"]);
    let gbuffer = lifetime("gbuffer");
    assert_eq!((gbuffer.versions, gbuffer.declared_bytes, gbuffer.imported), (2, 1_200, false));
    assert_eq!((gbuffer.first_pass, gbuffer.last_pass), (Some(0), Some(4)));
    assert_eq!((lifetime("ssao").first_pass, lifetime("ssao").last_pass), (Some(1), Some(2)));
    // Touched only by the culled pass: no lifetime.
    assert_eq!((lifetime("debug").first_pass, lifetime("debug").last_pass), (None, None));
    // Imported and only read: lives from its first read.
    assert_eq!((lifetime("history").first_pass, lifetime("history").last_pass), (Some(4), Some(4)));
    assert_eq!((lifetime("swapchain").first_pass, lifetime("swapchain").last_pass), (Some(4), Some(4)));

    // Transient bytes alive per pass: gbuffer 1,200 throughout; ssao 300 at passes 1..=2.
    assert_eq!(report.alive_bytes, [1_200, 1_500, 1_500, 1_200, 1_200]);
    assert_eq!((report.peak_concurrent_bytes, report.peak_at_pass), (1_500, Some(1)));
    assert_eq!(report.total_declared_bytes, 8_000 + 1_200 + 300 + 5_000 + 700);
    assert_eq!(report.imported_bytes, 8_700);

    // Not culled, the debug pass keeps its 5,000 bytes alive at pass 3 (and gbuffer's).
    let all_live = resource_lifetimes(&topology, &[]);
    assert_eq!(all_live.alive_bytes, [1_200, 1_500, 1_500, 6_200, 1_200]);
    assert_eq!((all_live.peak_concurrent_bytes, all_live.peak_at_pass), (6_200, Some(3)));
}

#[test]
fn resource_lifetimes_ignore_dangling_indices_and_empty_topologies() {
    let empty = resource_lifetimes(&Topology::default(), &[]);
    assert_eq!((empty.peak_concurrent_bytes, empty.peak_at_pass, empty.alive_bytes.len()), (0, None, 0));
    let (mut topology, culled) = resource_topology();
    topology.graph_passes[0].reads.push(999);
    let report = resource_lifetimes(&topology, &culled);
    assert_eq!(report.peak_concurrent_bytes, 1_500);
}

#[test]
fn resource_lifetimes_of_the_synthetic_frame_graph() {
    let workload =
        workload(&SynthOptions { frames: 1, passes: 20, level: Level::Structure, ..SynthOptions::default() });
    let topology = &workload.topologies[0];
    let culled = &workload.frames[0].culled;
    let report = resource_lifetimes(topology, culled);
    // The chain reads only its predecessor's output, so at most two outputs live at once.
    let largest_two: u64 = {
        let mut bytes: Vec<u64> = report
            .resources
            .iter()
            .filter(|r| !r.imported && r.first_pass.is_some())
            .map(|r| r.declared_bytes)
            .collect();
        bytes.sort_unstable();
        bytes.iter().rev().take(2).sum()
    };
    assert!(report.peak_concurrent_bytes <= largest_two);
    assert!(report.peak_concurrent_bytes > 0);
    let debug = report.resources.iter().find(|r| r.name == "debug.overlay.out").unwrap();
    assert_eq!(debug.first_pass, None, "the culled debug branch has no lifetime");
}
