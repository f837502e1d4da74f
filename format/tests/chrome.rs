//! Chrome Trace Event export: parsed back with serde_json and checked against the
//! capture it came from.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use sgpt_format::chrome::{self, CPU_PID, ExportError, GPU_PID};
use sgpt_format::synth::{SynthOptions, workload};
use sgpt_format::{
    Capture, CounterDef, CpuTimes, Declaration, Frame, GpuPass, GpuPassKind, GraphPass, Level, Meta, Note, Scope, Span,
    SpanKind, Topology, Writer,
};

fn export(bytes: &[u8]) -> (chrome::ExportSummary, Vec<u8>, Value) {
    let capture = Capture::open(bytes).expect("the capture opens");
    let mut out = Vec::new();
    let summary = chrome::export(&capture, &mut out).expect("writing into a Vec succeeds");
    let trace: Value = serde_json::from_slice(&out).expect("the export is valid JSON");
    (summary, out, trace)
}

fn events(trace: &Value) -> &Vec<Value> {
    trace["traceEvents"].as_array().expect("traceEvents is an array")
}

fn with<'t>(trace: &'t Value, key: &str, value: &str) -> Vec<&'t Value> {
    events(trace).iter().filter(|event| event[key] == value).collect()
}

fn ns(event: &Value, key: &str) -> u64 {
    event["args"][key].as_u64().unwrap_or_else(|| panic!("{key} missing in {event}"))
}

#[test]
fn event_counts_match_the_capture() {
    let options = SynthOptions { frames: 24, passes: 60, level: Level::Verbose, ..SynthOptions::default() };
    let workload = workload(&options);
    let bytes = sgpt_format::synth::generate(&options);
    let (summary, out, trace) = export(&bytes);
    assert_eq!(summary.frames_exported, 24);
    assert_eq!(summary.frames_skipped, 0);
    assert_eq!(summary.events, events(&trace).len() as u64);
    assert_eq!(summary.bytes, out.len() as u64);
    assert_eq!(trace["displayTimeUnit"], "ns");
    assert_eq!(trace["otherData"]["frames_exported"], 24);
    assert_eq!(trace["otherData"]["level"], "verbose");

    let spans = |kind| workload.frames.iter().flat_map(|f| &f.spans).filter(|s| s.kind == kind).count();
    assert_eq!(with(&trace, "cat", "gpu_pass").len(), spans(SpanKind::Pass));
    assert!(spans(SpanKind::SubPass) > 0);
    assert_eq!(with(&trace, "cat", "gpu_subpass").len(), spans(SpanKind::SubPass));
    let cpu_spans: usize = workload.frames.iter().map(|f| f.cpu_spans.len()).sum();
    assert!(cpu_spans > 0);
    assert_eq!(with(&trace, "cat", "cpu_encode").len(), cpu_spans);
    assert_eq!(with(&trace, "cat", "cpu_frame").len(), 24);
    let counters: usize = workload.frames.iter().map(|f| f.counters.len()).sum();
    assert_eq!(with(&trace, "ph", "C").len(), counters);
    assert!(with(&trace, "ph", "C").iter().all(|c| c["name"] == "gpu_memory_usage" || c["name"] == "instances"));
    // Instants: submit and readback per frame, plus one note.
    assert_eq!(workload.notes.len(), 1);
    assert_eq!(with(&trace, "ph", "i").len(), 2 * 24 + 1);
    let note = with(&trace, "cat", "note")[0];
    assert_eq!((note["s"].as_str(), note["pid"].as_u64()), (Some("g"), Some(u64::from(GPU_PID))));

    // Frames and graph passes per track: the first two scopes run on query set 1.
    let gpu_frames = with(&trace, "cat", "frame");
    assert_eq!(gpu_frames.len(), 24 * 2);
    let graph_ranges = with(&trace, "cat", "graph_pass").len();
    let expected_graph: usize = workload
        .frames
        .iter()
        .map(|frame| {
            let topology = &workload.topologies[frame.topology as usize];
            let passes: BTreeSet<(u8, u32)> = frame
                .spans
                .iter()
                .filter_map(|s| topology.gpu_passes[s.pass as usize].graph_pass.map(|g| (s.query_set, g)))
                .collect();
            passes.len()
        })
        .sum();
    assert_eq!(graph_ranges, expected_graph);
    assert_eq!(with(&trace, "cat", "scope").len(), 24 * 6);

    // X and every event with ts carries a number; durations are never negative.
    for event in events(&trace).iter().filter(|e| e["ph"] == "X") {
        assert!(event["ts"].is_f64() || event["ts"].is_u64() || event["ts"].is_i64());
        assert!(event["dur"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn gpu_passes_nest_inside_graph_passes_inside_scopes_on_the_same_track() {
    let options = SynthOptions { frames: 10, passes: 60, level: Level::Verbose, ..SynthOptions::default() };
    let (_, _, trace) = export(&sgpt_format::synth::generate(&options));
    // (frame, tid, name) → (begin, end) for graph passes and scopes.
    let ranges = |cat: &str| -> HashMap<(u64, u64, String), (u64, u64)> {
        with(&trace, "cat", cat)
            .into_iter()
            .map(|e| {
                let key = (ns(e, "frame"), e["tid"].as_u64().unwrap(), e["name"].as_str().unwrap().to_owned());
                (key, (ns(e, "begin_ns"), ns(e, "end_ns")))
            })
            .collect()
    };
    let graph = ranges("graph_pass");
    let scopes = ranges("scope");
    let frames = ranges("frame");
    let origin = with(&trace, "cat", "gpu_pass").iter().map(|e| ns(e, "begin_ns")).min().unwrap();
    let mut checked = 0;
    for span in with(&trace, "cat", "gpu_pass").into_iter().chain(with(&trace, "cat", "gpu_subpass")) {
        assert_eq!(span["pid"], GPU_PID);
        let (frame, tid) = (ns(span, "frame"), span["tid"].as_u64().unwrap());
        let (begin, end) = (ns(span, "begin_ns"), ns(span, "end_ns"));
        // ts and dur are the exact nanoseconds in microseconds, relative to the first span.
        assert_eq!(span["ts"].as_f64().unwrap(), (begin - origin) as f64 / 1000.0);
        assert_eq!(span["dur"].as_f64().unwrap(), (end - begin) as f64 / 1000.0);
        assert_eq!(tid, ns(span, "query_set") + 1);
        let name = span["args"]["graph_pass"].as_str().unwrap().to_owned();
        let parent = graph[&(frame, tid, name.clone())];
        assert!(parent.0 <= begin && end <= parent.1, "{span} outside its graph pass {parent:?}");
        let frame_range = frames[&(frame, tid, format!("frame {frame}"))];
        assert!(frame_range.0 <= begin && end <= frame_range.1);
        checked += 1;
    }
    assert!(checked > 500);
    for (key, range) in &graph {
        let event = with(&trace, "cat", "graph_pass")
            .into_iter()
            .find(|e| ns(e, "frame") == key.0 && e["tid"] == key.1 && e["name"] == key.2.as_str())
            .unwrap();
        let scope = event["args"]["scope"].as_str().unwrap().to_owned();
        let parent = scopes[&(key.0, key.1, scope)];
        assert!(parent.0 <= range.0 && range.1 <= parent.1);
    }
}

#[test]
fn cpu_events_stay_off_the_gpu_process_and_every_track_is_named() {
    let options = SynthOptions { frames: 12, passes: 30, level: Level::Verbose, ..SynthOptions::default() };
    let (_, _, trace) = export(&sgpt_format::synth::generate(&options));
    for event in events(&trace) {
        let cat = event["cat"].as_str().unwrap_or("");
        if cat.starts_with("cpu") {
            assert_eq!(event["pid"], CPU_PID, "{event}");
        }
        if event["pid"] == GPU_PID && event["ph"] != "M" {
            assert!(!cat.starts_with("cpu"));
        }
    }
    // CPU times are relative to the first frame's CPU begin.
    let first = with(&trace, "cat", "cpu_frame")[0];
    assert_eq!(first["ts"].as_f64(), Some(0.0));
    let submit = with(&trace, "name", "submit")[0];
    assert_eq!(submit["ts"].as_f64().unwrap(), (ns(submit, "at_ns") - ns(first, "begin_ns")) as f64 / 1000.0);

    let named: BTreeSet<(u64, u64)> = with(&trace, "name", "thread_name")
        .iter()
        .filter(|e| e["ph"] == "M")
        .map(|e| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
        .collect();
    let used: BTreeSet<(u64, u64)> = events(&trace)
        .iter()
        .filter(|e| e["ph"] != "M")
        .map(|e| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
        .collect();
    assert_eq!(used, named);
    let processes: BTreeSet<u64> =
        with(&trace, "name", "process_name").iter().map(|e| e["pid"].as_u64().unwrap()).collect();
    assert!(used.iter().all(|(pid, _)| processes.contains(pid)));
    let gpu_name =
        with(&trace, "name", "thread_name").into_iter().find(|e| e["pid"] == GPU_PID && e["tid"] == 1).unwrap();
    assert_eq!(gpu_name["args"]["name"], "GPU query set 0: graphics");
    let cpu_process = with(&trace, "name", "process_name").into_iter().find(|e| e["pid"] == CPU_PID).unwrap();
    assert_eq!(cpu_process["args"]["name"], "CPU (own clock, nominal alignment)");
}

const HOSTILE: &str = "say \"hi\" \\ <script>alert(1)</script>\nnext line\t\u{1}";

#[test]
fn labels_are_escaped_by_a_real_json_writer_and_round_trip() {
    let meta = Meta { level: Some(Level::Structure), note: HOSTILE.into(), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    writer
        .declare(&[Declaration::Counter(CounterDef { id: 0, name: HOSTILE.into(), ..CounterDef::default() })])
        .unwrap();
    let topology = Topology {
        scopes: vec![Scope { name: HOSTILE.into(), parent: None }],
        graph_passes: vec![GraphPass { name: HOSTILE.into(), scope: Some(0), ..GraphPass::default() }],
        gpu_passes: vec![GpuPass {
            label: HOSTILE.into(),
            graph_pass: Some(0),
            kind: GpuPassKind::Render,
            ..GpuPass::default()
        }],
        ..Topology::default()
    };
    let id = writer.topology(&topology).unwrap();
    let mut frame =
        Frame { topology: id, cpu: CpuTimes { begin_ns: 10, end_ns: 20, ..CpuTimes::default() }, ..Frame::default() };
    frame.spans.push(Span { pass: 0, begin_ns: 1_000, end_ns: 2_500, ..Span::default() });
    frame.counters.push(sgpt_format::CounterSample { counter: 0, value: 1.5 });
    writer.frame(&frame).unwrap();
    writer.note(&Note { frame_number: 0, text: HOSTILE.into() }).unwrap();
    let bytes = writer.finish().unwrap();

    let (_, out, trace) = export(&bytes);
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('\n'), "a raw newline means a string was not escaped");
    assert!(text.contains(r#"say \"hi\" \\ <script>"#));
    for cat in ["gpu_pass", "graph_pass", "scope", "note"] {
        let event = with(&trace, "cat", cat);
        assert_eq!(event.len(), 1, "{cat}");
        assert_eq!(event[0]["name"], HOSTILE, "{cat}");
    }
    assert_eq!(with(&trace, "ph", "C")[0]["name"], HOSTILE);
    assert_eq!(with(&trace, "cat", "gpu_pass")[0]["args"]["graph_pass"], HOSTILE);
    assert_eq!(trace["otherData"]["note"], HOSTILE);
}

#[test]
fn frames_that_fail_to_decode_are_skipped_and_counted() {
    let mut bytes = sgpt_format::synth::generate(&SynthOptions { frames: 8, passes: 20, ..SynthOptions::default() });
    let entry = Capture::open(&bytes).unwrap().frames()[5];
    bytes[(entry.offset + entry.len - 3) as usize] ^= 0xff;
    let (summary, _, trace) = export(&bytes);
    assert_eq!((summary.frames_exported, summary.frames_skipped), (7, 1));
    assert_eq!(summary.defects.len(), 1);
    assert_eq!(summary.defects[0].offset, entry.offset);
    assert_eq!(trace["otherData"]["frames_skipped"], 1);
    assert_eq!(with(&trace, "cat", "cpu_frame").len(), 7);
}

#[test]
fn a_timing_capture_without_structure_still_exports_its_spans() {
    let options = SynthOptions { frames: 5, passes: 20, level: Level::Timing, ..SynthOptions::default() };
    let workload = workload(&options);
    let (summary, _, trace) = export(&sgpt_format::synth::generate(&options));
    assert_eq!(summary.frames_exported, 5);
    assert_eq!(with(&trace, "cat", "gpu_pass").len(), workload.span_count());
    assert!(with(&trace, "cat", "graph_pass").is_empty());
    assert!(with(&trace, "cat", "gpu_pass").iter().all(|e| e["args"]["graph_pass"].is_null()));
}

#[test]
fn an_empty_capture_exports_a_valid_trace() {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let bytes = Writer::new(Vec::new(), &meta).unwrap().finish().unwrap();
    let (summary, _, trace) = export(&bytes);
    assert_eq!(summary.frames_exported, 0);
    assert!(events(&trace).iter().all(|e| e["ph"] == "M"));
}

struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("disk full"))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_writer_is_an_io_error() {
    let bytes = sgpt_format::synth::generate(&SynthOptions { frames: 50, passes: 40, ..SynthOptions::default() });
    let capture = Capture::open(&bytes).unwrap();
    let error = chrome::export(&capture, Broken).unwrap_err();
    assert!(matches!(error, ExportError::Io(_)), "{error:?}");
    assert!(error.to_string().contains("disk full"));
}

#[test]
fn seeded_corruptions_never_panic_analysis_or_export() {
    let bytes = sgpt_format::synth::generate(&SynthOptions {
        frames: 12,
        passes: 30,
        level: Level::Verbose,
        ..SynthOptions::default()
    });
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + next() % 8 {
            let at = (next() % damaged.len() as u64) as usize;
            damaged[at] = next() as u8;
        }
        let Ok(capture) = Capture::open(&damaged) else { continue };
        let report = sgpt_format::analysis::pass_stats(&capture, 0..capture.frames().len());
        assert!(report.frames as usize + report.defects.len() >= capture.frames().len());
        for (_, topology) in capture.topologies() {
            let _ = sgpt_format::analysis::resource_lifetimes(topology, &[]);
        }
        let mut out = Vec::new();
        let summary = chrome::export(&capture, &mut out).expect("writing into a Vec succeeds");
        assert_eq!(summary.frames_exported + summary.frames_skipped, capture.frames().len() as u64);
        let _: Value = serde_json::from_slice(&out).expect("damaged input still gives valid JSON");
    }
}

#[test]
fn memory_domain_gauges_become_counter_events() {
    // A frozen v1 record, no longer generated: read as committed.
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/memory.sgpt")).unwrap();
    let (_, _, trace) = export(&bytes);
    let live: Vec<&Value> = with(&trace, "name", "memory/scene/live_bytes");
    assert_eq!(live.len(), 8, "one C event per frame");
    assert!(live.iter().all(|event| event["ph"] == "C"));
    let bytes = |event: &Value| event["args"]["bytes"].as_f64().expect("a bytes value");
    let values: Vec<f64> = live.iter().map(|event| bytes(event)).collect();
    assert_eq!(values, [4096.0, 5120.0, 0.0, 0.0, 0.0, 4096.0, 5120.0, 5120.0]);
    let particles = with(&trace, "name", "memory/particles/peak_bytes");
    assert_eq!(particles.last().map(|event| bytes(event)), Some(768.0));
}
