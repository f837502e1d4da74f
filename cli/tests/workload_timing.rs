//! `workload`, the frame timing of `info` and `stats`, and the query-set lines of `info`,
//! run on the fixtures, on `sgpt synth` captures and on captures written here.

mod support;

use std::process::Output;

use serde_json::{Value, json};
use sgpt_format::{
    CpuTimes, Declaration, Frame, GpuPass, GpuPassKind, Level, Meta, Note, Op, Pipeline, QuerySetDef, Span, Topology,
    Writer,
};
use support::{Temp, fixture, json, sgpt, succeeded};

/// `sgpt args…`, which must exit 0.
fn ok(args: &[&str]) -> Output {
    let output = sgpt(args);
    succeeded(&output);
    output
}

fn json_of(args: &[&str]) -> Value {
    json(&ok(args))
}

fn text_of(args: &[&str]) -> String {
    succeeded(&sgpt(args))
}

fn pass<'v>(report: &'v Value, label: &str) -> &'v Value {
    report["passes"]
        .as_array()
        .expect("passes is an array")
        .iter()
        .find(|pass| pass["label"] == label)
        .unwrap_or_else(|| panic!("{label}"))
}

fn per_frame(min: u64, median: u64, max: u64, frames: u64) -> Value {
    json!({ "frames": frames, "min": min, "median": median, "max": max })
}

#[test]
fn workload_json_shows_counts_pipelines_and_invocations_with_unknowns_as_null() {
    let report = json_of(&["workload", &fixture("level_workload.sgpt"), "--json"]);
    assert_eq!(report["schema"], 1);
    assert_eq!((report["frames"].clone(), report["level"].clone()), (json!(16), json!("workload")));
    assert_eq!(report["commands_recorded"], true);

    // A direct dispatch of 1024 workgroups with a 64×1×1 pipeline: 65,536 invocations.
    let step = pass(&report, "simulation.pass1.0");
    assert_eq!(step["recording"], "recorded");
    assert_eq!(step["dispatches"], per_frame(1, 1, 1, 16));
    assert_eq!(step["draws"], per_frame(0, 0, 0, 16));
    assert_eq!(step["invocations"], per_frame(65_536, 65_536, 65_536, 16));
    assert_eq!(step["pipelines"][0]["workgroup_size"], json!([64, 1, 1]));
    assert_eq!(
        step["commands"],
        json!([{ "op": "dispatch", "pipeline": 0, "workgroups": [1024, 1, 1], "invocations": 65536,
                 "commands": 16, "frames": 16 }])
    );

    // An indirect dispatch with an override-sized pipeline, never read back at Workload.
    let cull = pass(&report, "simulation.pass0");
    assert_eq!(cull["pipelines"][0]["label"], "cull_instances");
    assert!(cull["pipelines"][0]["workgroup_size"].is_null());
    assert!(cull["invocations"].is_null());
    assert_eq!(cull["invocations_unknown_frames"], 16);
    let source = &cull["indirect_arguments"][0];
    assert_eq!((source["buffer"].clone(), source["buffer_label"].clone()), (json!(0), json!("indirect_args")));
    assert_eq!((source["commands"].clone(), source["resolved_commands"].clone()), (json!(16), json!(0)));
    assert!(source["resolved_range"].is_null());
}

#[test]
fn workload_text_names_unknowns_and_resolved_arguments_where_read_back() {
    let text = text_of(&["workload", &fixture("level_workload.sgpt")]);
    assert!(text.contains("  invocations  65536 per frame\n"), "{text}");
    assert!(text.contains("workgroup size unknown: 16 commands"), "{text}");
    assert!(
        text.contains("  invocations  unknown in all 16 frames (a workgroup size is unknown and indirect dispatch arguments are not resolved)"),
        "{text}"
    );
    assert!(text.contains("16 times; not resolved in this capture (encoded arguments only)"), "{text}");

    let report = json_of(&["workload", &fixture("level_verbose.sgpt"), "--json"]);
    let source = &pass(&report, "simulation.pass0")["indirect_arguments"][0];
    assert_eq!(source["resolved_commands"], 16);
    let [low, high] = [0, 1].map(|i| source["resolved_range"][i].as_u64().expect("resolved at Verbose"));
    assert!(0 < low && low <= high, "{source}");
    let text = text_of(&["workload", &fixture("level_verbose.sgpt")]);
    assert!(text.contains(&format!("resolved in 16 of 16: workgroups {low}..={high}")), "{text}");
}

#[test]
fn below_level_workload_nothing_is_counted() {
    let file = fixture("level_timing.sgpt");
    let report = json_of(&["workload", &file, "--json"]);
    assert_eq!(report["commands_recorded"], false);
    let passes = report["passes"].as_array().unwrap();
    assert!(!passes.is_empty());
    assert!(passes.iter().all(|pass| pass["recording"] == "below_level" && pass["dispatches"].is_null()), "{report}");
    let text = text_of(&["workload", &file]);
    assert!(text.contains("are recorded at level workload and up: none are in this capture"), "{text}");
    assert!(!text.contains("per frame"), "{text}");
}

#[test]
fn workload_frames_takes_a_range_like_stats() {
    let report = json_of(&["workload", &fixture("level_workload.sgpt"), "--frames", "2..5", "--json"]);
    assert_eq!((report["frame_range"].clone(), report["frames"].clone()), (json!([2, 5]), json!(3)));
    assert_eq!(pass(&report, "simulation.pass2")["dispatches"], per_frame(1, 1, 1, 3));
}

#[test]
fn workload_on_a_synth_capture_counts_draws_of_render_passes() {
    let out = Temp::new("workload.sgpt");
    ok(&["synth", "--frames", "30", "--passes", "60", "--level", "workload", "-o", out.arg()]);
    let report = json_of(&["workload", out.arg(), "--json"]);
    assert_eq!(report["frames"], 30);
    let render: Vec<&Value> = report["passes"].as_array().unwrap().iter().filter(|p| p["kind"] == "render").collect();
    assert!(!render.is_empty(), "{report}");
    // Attachments as the topology declares them: the first shadow pass clears a colour target.
    let shadows = pass(&report, "shadows.pass0");
    assert_eq!(
        shadows["attachments"][0],
        json!({ "role": "color", "format": "rgba16float", "load": "clear", "store": "store",
                "stencil_load": null, "stencil_store": null })
    );
    for pass in render {
        // The synthetic workload draws three indexed meshes in every render pass.
        assert_eq!(pass["draws"]["median"], 3, "{pass}");
        assert_eq!(pass["dispatches"]["max"], 0, "{pass}");
        assert_eq!(pass["pipelines"][0]["kind"], "render");
        // Invocations count compute invocations: a pass that never dispatches has 0, which is known.
        assert_eq!(pass["invocations"]["max"], 0, "{pass}");
    }
}

/// A Workload capture, as the recorder writes one: three timer-pool query sets cycled
/// frame by frame, a graph-less pass "ui" timed through a `PassTimer` (with its NOTE), and
/// a compute pass "step" that dispatches; `frames` frames 1 ms apart on both clocks.
fn recorder_like_capture(frames: u32) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Workload), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("writing into a Vec succeeds");
    let mut declarations: Vec<Declaration> =
        (0..3u8).map(|id| Declaration::QuerySet(QuerySetDef { id, label: format!("timer pool set {id}") })).collect();
    declarations.push(Declaration::Pipeline(Pipeline {
        id: 0,
        label: "boids".into(),
        workgroup_size: Some([64, 1, 1]),
        ..Pipeline::default()
    }));
    writer.declare(&declarations).expect("writing into a Vec succeeds");
    let topology = Topology {
        gpu_passes: vec![
            GpuPass { label: "step".into(), kind: GpuPassKind::Compute, ..GpuPass::default() },
            GpuPass { label: "ui".into(), kind: GpuPassKind::Render, ..GpuPass::default() },
        ],
        ..Topology::default()
    };
    let id = writer.topology(&topology).expect("writing into a Vec succeeds");
    for f in 0..frames {
        let begin = 1_000_000 * u64::from(f);
        let query_set = (f % 3) as u8;
        let span =
            |pass, from, to| Span { pass, query_set, begin_ns: begin + from, end_ns: begin + to, ..Span::default() };
        let frame = Frame {
            frame_number: u64::from(f),
            topology: id,
            spans: vec![span(0, 0, 20_000), span(1, 30_000, 40_000)],
            cpu: CpuTimes {
                begin_ns: 5_000_000 + begin,
                end_ns: 5_200_000 + begin,
                submit_ns: Some(5_150_000 + begin),
                readback_ns: None,
            },
            recorder_cost_ns: 4_000,
            commands: vec![sgpt_format::Command {
                gpu_pass: 0,
                pipeline: Some(0),
                op: Op::Dispatch { x: 24, y: 1, z: 1 },
            }],
            ..Frame::default()
        };
        writer.frame(&frame).expect("writing into a Vec succeeds");
    }
    writer
        .note(&Note {
            frame_number: 0,
            text: "sgpt-recorder: GPU pass \"ui\" is begun by the application and timed through a PassTimer: its time \
                   is recorded, its commands (draws, dispatches, pipelines) are not"
                .into(),
        })
        .expect("writing into a Vec succeeds");
    writer.finish().expect("writing into a Vec succeeds")
}

fn write(name: &str, bytes: &[u8]) -> Temp {
    let file = Temp::new(name);
    std::fs::write(file.path(), bytes).expect("the temp dir is writable");
    file
}

#[test]
fn a_pass_timer_pass_is_not_recorded_rather_than_zero() {
    let file = write("pass-timer.sgpt", &recorder_like_capture(4));
    let report = json_of(&["workload", file.arg(), "--json"]);
    let ui = pass(&report, "ui");
    assert_eq!(ui["recording"], "not_recorded");
    assert!(ui["draws"].is_null() && ui["dispatches"].is_null(), "{ui}");
    assert_eq!(pass(&report, "step")["invocations"], per_frame(1536, 1536, 1536, 4));
    let text = text_of(&["workload", file.arg()]);
    assert!(text.contains("ui (render): ran in 4 frames\n  commands     not recorded: a NOTE says"), "{text}");

    let trace = text_of(&["export", file.arg(), "--chrome", "-"]);
    let trace: Value = serde_json::from_str(&trace).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let ui = events.iter().find(|e| e["cat"] == "gpu_pass" && e["name"] == "ui").unwrap();
    assert_eq!(ui["args"]["workload"], "not recorded");
    let step = events.iter().find(|e| e["cat"] == "gpu_pass" && e["name"] == "step").unwrap();
    assert_eq!(step["args"]["workload"]["commands"][0]["invocations"], 1536);
}

#[test]
fn info_prints_a_timer_pool_as_one_queue_and_the_export_gives_it_one_track() {
    let file = write("pool.sgpt", &recorder_like_capture(6));
    let text = text_of(&["info", file.arg()]);
    assert!(text.contains("query sets   0, 1, 2: the recorder's timer pool, one queue\n"), "{text}");
    assert!(!text.contains("query set    0 timer pool set 0"), "{text}");
    let info = json_of(&["info", file.arg(), "--json"]);
    assert_eq!(info["query_sets"][2], json!({ "id": 2, "label": "timer pool set 2", "timer_pool": true }));

    let trace: Value = serde_json::from_str(&text_of(&["export", file.arg(), "--chrome", "-"])).unwrap();
    let gpu_tracks: std::collections::BTreeSet<u64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["pid"] == 1 && e["ph"] == "X")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(gpu_tracks, [1].into(), "six frames over three sets, one queue");

    let fixture_text = text_of(&["info", &fixture("level_workload.sgpt")]);
    assert!(
        fixture_text.contains("query set    0: \"graphics\"\nquery set    1: \"async compute\"\n"),
        "{fixture_text}"
    );
}

#[test]
fn stats_and_info_print_frame_timing_with_a_low_coverage_said_plainly() {
    let file = fixture("level_workload.sgpt");
    let stats = json_of(&["stats", &file, "--json"]);
    let timing = &stats["frame_timing"];
    assert_eq!(timing["frames"], 16);
    assert_eq!(timing["gpu_interval_ns"]["count"], 15);
    // The synthetic workload begins a frame every 16.6 ms on the CPU and reads back two
    // frames after it submits.
    assert_eq!(timing["cpu_interval_ns"]["median"], 16_600_000);
    assert_eq!(timing["submit_to_readback_ns"]["median"], 33_250_000);
    assert_eq!(timing["recorder_cost_ns"]["count"], 16);
    let coverage = &timing["span_coverage"];
    assert_eq!((coverage["low"].clone(), coverage["threshold"].clone()), (json!(true), json!(0.5)));
    let median = coverage["median"].as_f64().unwrap();
    assert!(median > 0.0 && median < 0.5, "{coverage}");
    let statement = coverage["statement"].as_str().unwrap();
    assert!(statement.ends_with("of the GPU frame interval (median): most GPU time is outside any timed pass"));

    // Over every frame, info says the same as stats.
    let info = json_of(&["info", &file, "--json"]);
    assert_eq!(info["frame_timing"], *timing);

    let text = text_of(&["stats", &file]);
    assert!(text.contains(&format!("note: {statement}\n")), "{text}");
    let cost = timing["recorder_cost_ns"]["median"].as_u64().unwrap();
    assert!(text.contains(&format!("recorder cost: median {cost} ns, ")), "{text}");
    let info_text = text_of(&["info", &file]);
    assert!(info_text.contains("\nGPU frame interval     15  "), "{info_text}");
}

#[test]
fn stats_timing_follows_the_frame_range() {
    let timing = &json_of(&["stats", &fixture("level_workload.sgpt"), "--frames", "0..4", "--json"])["frame_timing"];
    assert_eq!((timing["frames"].clone(), timing["gpu_interval_ns"]["count"].clone()), (json!(4), json!(3)));
}

#[test]
fn what_cannot_be_computed_says_why_instead_of_a_number() {
    // One frame from synth: no interval, but latency and cost are per frame.
    let one = Temp::new("one.sgpt");
    ok(&["synth", "--frames", "1", "--passes", "5", "-o", one.arg()]);
    let timing = json_of(&["stats", one.arg(), "--json"])["frame_timing"].clone();
    let why = "one frame: an interval needs two consecutive frames";
    assert_eq!(
        timing["gpu_interval_ns"],
        json!({ "count": 0, "min": null, "median": null, "p95": null, "max": null,
                                                   "exact": true, "unavailable": why })
    );
    assert_eq!(timing["span_coverage"]["unavailable"], why);
    assert_eq!(timing["span_coverage"]["low"], false);
    assert_eq!(timing["submit_to_readback_ns"]["count"], 1);
    let text = text_of(&["stats", one.arg()]);
    assert!(text.contains(&format!("GPU frame interval: not computed: {why}\n")), "{text}");

    // No readback times at all.
    let file = write("no-readback.sgpt", &recorder_like_capture(3));
    let timing = json_of(&["info", file.arg(), "--json"])["frame_timing"].clone();
    assert_eq!(timing["submit_to_readback_ns"]["unavailable"], "no readback times in this capture");
    assert_eq!(timing["gpu_interval_ns"]["median"], 1_000_000);
    // 20 µs and 10 µs of spans a millisecond: 3 %.
    assert_eq!(timing["span_coverage"]["median"], 0.03);
    assert!(
        text_of(&["info", file.arg()])
            .contains("submit to readback: not computed: no readback times in this capture\n")
    );

    // A capture whose META, CPU times and costs are all absent: the minimal fixture.
    let text = text_of(&["info", &fixture("minimal.sgpt")]);
    assert!(text.contains("CPU frame interval: not computed: no CPU times in this capture"), "{text}");
    assert!(text.contains("recorder cost: not computed: recorder_cost_ns is 0 in every frame"), "{text}");
}
