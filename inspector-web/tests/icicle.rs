//! The range icicle, on captures written by the real writer: exact totals and counts merged
//! across topologies by name path, the same result however the work is sliced, and a
//! layout whose widths are proportional to totals with children inside their parents.

use sgpt_format::analysis;
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{
    Capture, Frame, GpuPass, GpuPassKind, GraphPass, Level, Meta, Scope, Span, SpanKind, Topology, Writer,
};
use sgpt_inspector::icicle::{Icicle, IcicleJob, IcicleLayout, MIN_RECT_PX, NodeId, NodeKind};
use sgpt_inspector::stats_table;

fn gpu(label: &str, graph_pass: Option<u32>, kind: GpuPassKind) -> GpuPass {
    GpuPass { label: label.into(), graph_pass, kind, ..GpuPass::default() }
}

fn graph(name: &str, scope: Option<u32>) -> GraphPass {
    GraphPass { name: name.into(), scope, ..GraphPass::default() }
}

fn scope(name: &str, parent: Option<u32>) -> Scope {
    Scope { name: name.into(), parent }
}

/// `lighting › shadows › cascades` (measured on its encoder), `lighting › bloom › blur`,
/// `tonemap` with a sub-pass region, and `blit` outside the graph.
fn topology_a() -> Topology {
    Topology {
        scopes: vec![scope("lighting", None), scope("shadows", Some(0))],
        graph_passes: vec![graph("cascades", Some(1)), graph("tonemap", None), graph("bloom", Some(0))],
        gpu_passes: vec![
            gpu("cascades", Some(0), GpuPassKind::Encoder),
            gpu("cascade 0", Some(0), GpuPassKind::Compute),
            gpu("cascade 1", Some(0), GpuPassKind::Compute),
            gpu("tonemap", Some(1), GpuPassKind::Render),
            GpuPass { parent: Some(3), ..gpu("tone region", Some(1), GpuPassKind::Marker) },
            gpu("blur", Some(2), GpuPassKind::Compute),
            gpu("blit", None, GpuPassKind::Render),
        ],
        ..Topology::default()
    }
}

/// The same names in another order, `cascades` without an encoder span, and a second
/// `blur` under another graph pass.
fn topology_b() -> Topology {
    Topology {
        scopes: vec![scope("unused", None), scope("lighting", None), scope("shadows", Some(1))],
        graph_passes: vec![graph("bloom", Some(1)), graph("cascades", Some(2)), graph("post", None)],
        gpu_passes: vec![
            gpu("blur", Some(0), GpuPassKind::Compute),
            gpu("cascade 0", Some(1), GpuPassKind::Compute),
            gpu("extra", Some(2), GpuPassKind::Compute),
            gpu("blur", Some(2), GpuPassKind::Compute),
        ],
        ..Topology::default()
    }
}

/// Level timing: no graph passes, an encoder-level span that brackets `draw`.
fn topology_c() -> Topology {
    Topology {
        gpu_passes: vec![gpu("frame", None, GpuPassKind::Encoder), gpu("draw", None, GpuPassKind::Render)],
        ..Topology::default()
    }
}

/// Frames A A B C A B: durations per pass (pass index, span kind, ns).
fn capture_bytes() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("writer");
    let ids = [topology_a(), topology_b(), topology_c()].map(|topology| writer.topology(&topology).expect("topology"));
    let a: &[(u32, SpanKind, u64)] = &[
        (0, SpanKind::Pass, 1_000),
        (1, SpanKind::Pass, 300),
        (2, SpanKind::Pass, 400),
        (3, SpanKind::Pass, 200),
        (4, SpanKind::SubPass, 0),
        (5, SpanKind::Pass, 100),
        (6, SpanKind::Pass, 50),
    ];
    let b: &[(u32, SpanKind, u64)] =
        &[(0, SpanKind::Pass, 70), (1, SpanKind::Pass, 500), (2, SpanKind::Pass, 30), (3, SpanKind::Pass, 0)];
    let c: &[(u32, SpanKind, u64)] = &[(0, SpanKind::Pass, 900), (1, SpanKind::Pass, 800)];
    for (frame_number, which) in [0usize, 0, 1, 2, 0, 1].into_iter().enumerate() {
        let spans = [a, b, c][which];
        let mut frame = Frame { frame_number: frame_number as u64, topology: ids[which], ..Frame::default() };
        let mut t = 1_000_000 * frame_number as u64;
        for &(pass, kind, ns) in spans {
            frame.spans.push(Span { pass, kind, query_set: 0, begin_ns: t, end_ns: t + ns });
            t += ns + 10;
        }
        writer.frame(&frame).expect("frame");
    }
    writer.finish().expect("finish")
}

fn build(capture: &Capture<'_>, range: std::ops::Range<usize>) -> Icicle {
    IcicleJob::new(capture, range).finish()
}

/// Runs a job allowing `units` frames a step, checking each step keeps to it.
fn sliced(capture: &Capture<'_>, range: std::ops::Range<usize>, units: usize) -> Icicle {
    let mut job = IcicleJob::new(capture, range.clone());
    let frames = range.end.min(capture.frames().len()).saturating_sub(range.start) as f64;
    let mut last = job.progress();
    let mut steps = 0;
    loop {
        let mut left = units;
        let mut calls = 0;
        let done = job.step(&mut || {
            calls += 1;
            let go = left > 0;
            left = left.saturating_sub(1);
            go
        });
        assert!(calls <= units + 1, "asked {calls} times for an allowance of {units}");
        let progress = job.progress();
        let added = ((progress - last) * frames).round() as usize;
        assert!(added <= units, "{added} frames in a step allowed {units}");
        last = progress;
        if done {
            break;
        }
        steps += 1;
        assert!(steps < 10_000, "the job ends");
    }
    job.finish()
}

fn node<'i>(icicle: &'i Icicle, path: &[&str]) -> &'i sgpt_inspector::icicle::Node {
    let id = icicle.find(path).unwrap_or_else(|| panic!("{path:?} is a node"));
    icicle.node(id).expect("found nodes exist")
}

#[test]
fn totals_and_counts_merge_across_topologies_by_name_path() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let icicle = build(&capture, 0..capture.frames().len());
    assert_eq!((icicle.frames, icicle.skipped_frames), (6, 0));
    assert_eq!((icicle.spans, icicle.zero_spans), (31, 5));

    let cascades = node(&icicle, &["lighting", "shadows", "cascades"]);
    assert_eq!(cascades.kind, NodeKind::GraphPass);
    assert_eq!((cascades.measured_ns, cascades.own_spans), (Some(3_000), 3), "its encoder spans, topology A only");
    assert_eq!(cascades.children_ns, 3 * 300 + 2 * 500 + 3 * 400);
    assert!(cascades.measured_short(), "measured in some topologies, less than its passes: said, not hidden");
    assert_eq!((cascades.total_ns, cascades.spans, cascades.zero_spans), (3_100, 3 + 5 + 3, 0));
    assert_eq!(node(&icicle, &["lighting", "shadows", "cascades", "cascade 0"]).total_ns, 1_900);
    assert_eq!(node(&icicle, &["lighting", "shadows", "cascades", "cascade 0"]).spans, 5);
    assert_eq!(node(&icicle, &["lighting", "shadows"]).total_ns, 3_100);
    assert_eq!(node(&icicle, &["lighting", "shadows"]).measured_ns, None);
    assert_eq!(node(&icicle, &["lighting", "bloom", "blur"]).total_ns, 3 * 100 + 2 * 70);
    assert_eq!(node(&icicle, &["lighting"]).total_ns, 3_540);

    let tonemap = node(&icicle, &["tonemap", "tonemap"]);
    assert_eq!((tonemap.kind, tonemap.total_ns, tonemap.measured_ns), (NodeKind::GpuPass, 600, Some(600)));
    let region = node(&icicle, &["tonemap", "tonemap", "tone region"]);
    assert_eq!((region.kind, region.spans, region.zero_spans, region.total_ns), (NodeKind::SubPass, 3, 3, 0));
    assert!(!tonemap.measured_short());
    assert_eq!((tonemap.spans, tonemap.zero_spans), (6, 3));

    // `post › blur` is not `bloom › blur`: same label, another path.
    let post_blur = node(&icicle, &["post", "blur"]);
    assert_eq!((post_blur.spans, post_blur.zero_spans, post_blur.total_ns), (2, 2, 0));
    assert_eq!(node(&icicle, &["post"]).total_ns, 60);
    assert_eq!(node(&icicle, &["blit"]).total_ns, 150);
    assert_eq!(node(&icicle, &["draw"]).total_ns, 800);

    // The bracketing encoder span of level timing is counted, not drawn beside `draw`.
    assert_eq!((icicle.bare_encoder.spans, icicle.bare_encoder.total_ns), (1, 900));
    assert!(icicle.bare_encoder_note().expect("a note").contains("count that time twice"));
    let root = icicle.node(icicle.root()).expect("root");
    assert_eq!((root.spans, root.zero_spans), (30, 5));
    assert_eq!(icicle.total_ns(), 3_540 + 600 + 150 + 60 + 800);
    let top: Vec<&str> = root.children.iter().map(|&id| icicle.node(id).expect("child").name.as_str()).collect();
    assert_eq!(top, ["lighting", "tonemap", "blit", "post", "draw"], "in the order the range first showed them");
    assert_eq!(root.descendants as usize, icicle.nodes().len() - 1);
}

#[test]
fn counts_and_the_note_agree_with_the_statistics_table() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    for range in [0..6, 1..4, 2..3, 5..100] {
        let report = analysis::pass_stats(&capture, range.clone());
        let icicle = build(&capture, range.clone());
        assert_eq!((icicle.spans, icicle.zero_spans, icicle.frames), (report.spans, report.zero_spans, report.frames));
        let table = stats_table::honesty_note(&report, true);
        assert_eq!(icicle.honesty_note(true), table.replace("this table", "this flame graph"), "{range:?}");
        let measured: u64 = icicle.nodes().iter().filter_map(|node| node.measured_ns).sum();
        assert_eq!(measured + icicle.bare_encoder.total_ns, stats_table::grand_total(&report), "{range:?}");
    }
}

#[test]
fn a_synthetic_capture_agrees_with_the_statistics_and_lays_out_nested() {
    let bytes = generate(&SynthOptions {
        frames: 240,
        passes: 80,
        seed: 11,
        level: Level::Verbose,
        quantize_ns: Some(100_000),
    });
    let capture = Capture::open(&bytes).expect("synth opens");
    let frames = capture.frames().len();
    let report = analysis::pass_stats(&capture, 0..frames);
    let icicle = build(&capture, 0..frames);
    assert_eq!((icicle.spans, icicle.zero_spans), (report.spans, report.zero_spans));
    assert!(icicle.zero_spans > 0, "a quantized capture has 0 ns spans");
    let measured: u64 = icicle.nodes().iter().filter_map(|node| node.measured_ns).sum();
    assert_eq!(measured + icicle.bare_encoder.total_ns, stats_table::grand_total(&report));
    assert!(icicle.nodes().iter().any(|node| node.kind == NodeKind::SubPass), "synth writes sub-pass regions");
    for units in [1, 7, 64] {
        assert_eq!(sliced(&capture, 0..frames, units), icicle, "{units} frames a step");
    }
    for node in icicle.nodes() {
        assert!(node.total_ns >= node.children_ns, "{}: a parent is at least its children", node.name);
    }
    let layout = icicle.layout(1_000.0, 18.0, None);
    check_nested(&icicle, &layout, 1_000.0);
    // Zoomed into each top-level node in turn.
    for &id in &icicle.node(icicle.root()).expect("root").children {
        let layout = icicle.layout(800.0, 18.0, Some(id));
        check_nested(&icicle, &layout, 800.0);
    }
}

/// Widths proportional to totals, children within their parents, one row below them.
fn check_nested(icicle: &Icicle, layout: &IcicleLayout, width: f64) {
    let focus_total = icicle.node(layout.focus).expect("focus").total_ns as f64;
    let by_node: std::collections::HashMap<NodeId, usize> =
        layout.rects.iter().enumerate().map(|(index, rect)| (rect.node, index)).collect();
    assert_eq!(by_node.len(), layout.rects.len(), "a node is drawn once");
    for rect in &layout.rects {
        let node = icicle.node(rect.node).expect("drawn nodes exist");
        assert!(rect.width >= MIN_RECT_PX && rect.x >= -1e-9 && rect.x + rect.width <= width + 1e-6);
        if rect.context || rect.node == layout.focus {
            assert!((rect.width - width).abs() < 1e-9);
            continue;
        }
        assert!((rect.width - node.total_ns as f64 * width / focus_total).abs() < 1e-6, "{}", node.name);
        if let Some(&parent) = node.parent.and_then(|parent| by_node.get(&parent)) {
            let parent = &layout.rects[parent];
            assert_eq!(rect.row, parent.row + 1);
            assert!(rect.x >= parent.x - 1e-6 && rect.x + rect.width <= parent.x + parent.width + 1e-6);
        }
    }
}

#[test]
fn slicing_gives_the_same_icicle_as_one_go() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let whole = build(&capture, 0..6);
    for units in 1..=7 {
        assert_eq!(sliced(&capture, 0..6, units), whole, "{units} frames a step");
    }
    let mut job = IcicleJob::new(&capture, 1_000..2_000);
    assert!(job.step(&mut || false), "a range past the capture is ready at once");
    assert_eq!(job.progress(), 1.0);
    let empty = job.finish();
    assert_eq!((empty.frames, empty.spans, empty.total_ns()), (0, 0, 0));
    assert!(empty.layout(500.0, 18.0, None).rects.is_empty());
}

#[test]
fn the_layout_is_proportional_culls_zero_width_and_hits_what_it_draws() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let icicle = build(&capture, 0..6);
    // One pixel a nanosecond.
    let layout = icicle.layout(5_150.0, 20.0, None);
    let rect = |path: &[&str]| {
        let id = icicle.find(path).expect("node");
        layout.rects.iter().find(|rect| rect.node == id).unwrap_or_else(|| panic!("{path:?} drawn")).clone()
    };
    let lighting = rect(&["lighting"]);
    assert_eq!((lighting.x, lighting.width, lighting.row, lighting.y), (0.0, 3_540.0, 0, 0.0));
    assert!(lighting.label.starts_with("lighting"));
    let cascade_1 = rect(&["lighting", "shadows", "cascades", "cascade 1"]);
    assert_eq!((cascade_1.x, cascade_1.width, cascade_1.row), (1_900.0, 1_200.0, 3));
    assert!(rect(&["lighting", "shadows", "cascades"]).short);
    assert_eq!(rect(&["lighting", "bloom"]).x, 3_100.0);
    assert_eq!(rect(&["tonemap"]).x, 3_540.0);
    assert_eq!(rect(&["draw"]).x, 4_350.0);
    // The zero-length region and `post › blur` are too narrow at any width.
    assert_eq!(layout.too_narrow, 2);
    assert_eq!(layout.too_narrow_text().as_deref(), Some("2 nodes too narrow to draw"));
    assert_eq!(layout.rows, 4);
    assert_eq!(layout.height, 80.0);
    assert_eq!(layout.hit(2_000.0, 3.5 * 20.0), Some(cascade_1.node));
    assert_eq!(layout.hit(5_000.0, 10.0), Some(rect(&["draw"]).node));
    assert_eq!(layout.hit(5_000.0, 30.0), None, "nothing under draw");
    assert_eq!(layout.hit(10.0, -1.0), None);

    // Narrow: the small nodes go, with everything under them, and are counted.
    let narrow = icicle.layout(10.0, 20.0, None);
    assert!(narrow.rects.iter().all(|rect| rect.width >= MIN_RECT_PX));
    let drawn = narrow.rects.len() + narrow.too_narrow;
    assert_eq!(drawn, icicle.nodes().len() - 1, "every node but the root is drawn or counted");
    assert!(narrow.too_narrow > 2);
}

#[test]
fn focus_gives_a_node_the_full_width_under_its_ancestors() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let icicle = build(&capture, 0..6);
    let cascades = icicle.find(&["lighting", "shadows", "cascades"]).expect("node");
    let layout = icicle.layout(620.0, 10.0, Some(cascades));
    let rows: Vec<(usize, &str, bool, f64)> = layout
        .rects
        .iter()
        .map(|rect| (rect.row, icicle.node(rect.node).expect("node").name.as_str(), rect.context, rect.width))
        .collect();
    assert_eq!(
        rows,
        [
            (0, "lighting", true, 620.0),
            (1, "shadows", true, 620.0),
            (2, "cascades", false, 620.0),
            (3, "cascade 0", false, 620.0 * 1_900.0 / 3_100.0),
            (3, "cascade 1", false, 620.0 * 1_200.0 / 3_100.0),
        ]
    );
    assert_eq!(layout.focus, cascades);
    assert_eq!(layout.hit(1.0, 5.0), icicle.find(&["lighting"]), "a click above zooms out");
    // Focus on the root, or on a node that does not exist, is no focus.
    assert_eq!(icicle.layout(620.0, 10.0, Some(icicle.root())), icicle.layout(620.0, 10.0, None));
    assert_eq!(icicle.layout(620.0, 10.0, Some(NodeId(9_999))), icicle.layout(620.0, 10.0, None));
    // A zero-width node in focus is drawn full width, with nothing to divide.
    let region = icicle.find(&["tonemap", "tonemap", "tone region"]).expect("node");
    let layout = icicle.layout(300.0, 10.0, Some(region));
    assert_eq!(layout.rects.last().map(|rect| (rect.node, rect.width)), Some((region, 300.0)));
}

#[test]
fn the_readout_says_path_total_share_counts_mean_and_how_it_was_found() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let icicle = build(&capture, 0..6);
    let cascades = icicle.find(&["lighting", "shadows", "cascades"]).expect("node");
    let lines = icicle.readout(cascades).expect("a readout");
    assert_eq!(lines[0], "lighting › shadows › cascades (graph pass)");
    assert_eq!(lines[1], "3.100 µs total (3\u{2009}100 ns), 60.2 % of the range's 5.150 µs");
    assert_eq!(lines[2], "11 spans, 0 of them exactly 0 ns");
    assert_eq!(lines[3], "517 ns per frame over 6 frames (a frame without it counts 0 ns)");
    assert!(lines[4].contains("encoder-level spans measure 3.000 µs"), "{}", lines[4]);
    assert!(lines[4].contains("100 ns less than its children's 3.100 µs"), "{}", lines[4]);

    let region = icicle.find(&["tonemap", "tonemap", "tone region"]).expect("node");
    let lines = icicle.readout(region).expect("a readout");
    assert_eq!(lines[2], "3 spans, 3 of them exactly 0 ns");
    assert_eq!(lines[4], "Measured by its own spans");
    let shadows = icicle.find(&["lighting", "shadows"]).expect("node");
    assert_eq!(
        icicle.readout(shadows).expect("a readout")[4],
        "The sum of its children: no span measures it as a whole"
    );
    let tonemap = icicle.find(&["tonemap", "tonemap"]).expect("node");
    assert!(icicle.readout(tonemap).expect("a readout")[4].starts_with("Measured by its own spans; its children"));
    assert_eq!(icicle.readout(icicle.root()).expect("a readout")[0], "All GPU spans of the range");
    assert!(icicle.readout(NodeId(9_999)).is_none());
    assert_eq!(icicle.path_text(icicle.root()), "");
}

#[test]
fn damaged_frames_are_skipped_whole_as_the_statistics_skip_them() {
    for name in [
        "corrupted.sgpt",
        "truncated.sgpt",
        "zero_durations.sgpt",
        "dropped_spans.sgpt",
        "level_timing.sgpt",
        "inverted_spans.sgpt",
    ] {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/").to_owned() + name)
            .expect("fixture exists");
        let capture = Capture::open(&bytes).expect("fixture opens");
        let frames = capture.frames().len();
        let report = analysis::pass_stats(&capture, 0..frames);
        let icicle = sliced(&capture, 0..frames, 2);
        assert_eq!((icicle.frames, icicle.skipped_frames), (report.frames, report.defects.len() as u64), "{name}");
        assert_eq!(
            (icicle.spans, icicle.zero_spans, icicle.inverted_spans, icicle.dropped_spans),
            (report.spans, report.zero_spans, report.inverted_spans, report.dropped_spans),
            "{name}"
        );
        let table = stats_table::honesty_note(&report, false);
        assert_eq!(icicle.honesty_note(false), table.replace("this table", "this flame graph"), "{name}");
        let measured: u64 = icicle.nodes().iter().filter_map(|node| node.measured_ns).sum();
        assert_eq!(measured + icicle.bare_encoder.total_ns, stats_table::grand_total(&report), "{name}");
        if name == "inverted_spans.sgpt" {
            assert_eq!((icicle.zero_spans, icicle.inverted_spans), (2, 2), "one inverted, one wrapped");
            assert!(table.contains("2 of them ended before they began"), "{table}");
        }
    }
}
