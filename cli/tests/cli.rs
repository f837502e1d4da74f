//! Drives the built `sgpt` binary: exit codes, stderr messages and the `--json` contract.

mod support;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde_json::Value;
use sgpt_format::Level;
use sgpt_format::synth::{SynthOptions, generate, workload};
use support::{Temp, code, fixture, json, sgpt, stderr};

/// Writes a synthetic capture through `sgpt synth`.
fn synth(name: &str, options: &SynthOptions) -> Temp {
    let temp = Temp::new(name);
    let mut args = vec![
        "synth".to_owned(),
        "--frames".into(),
        options.frames.to_string(),
        "--passes".into(),
        options.passes.to_string(),
        "--level".into(),
        options.level.name().into(),
        "--seed".into(),
        options.seed.to_string(),
        "-o".into(),
        temp.arg().into(),
    ];
    if let Some(q) = options.quantize_ns {
        args.extend(["--quantize".into(), q.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = sgpt(&args);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    temp
}

fn options(frames: u32, passes: u32, level: Level) -> SynthOptions {
    SynthOptions { frames, passes, level, ..SynthOptions::default() }
}

#[test]
fn synth_writes_the_same_bytes_as_the_library_generator() {
    let options = SynthOptions { seed: 7, quantize_ns: Some(1_000), ..options(40, 30, Level::Workload) };
    let file = synth("same.sgpt", &options);
    assert_eq!(std::fs::read(file.path()).unwrap(), generate(&options));
}

#[test]
fn a_fresh_synth_capture_validates_as_intact() {
    let file = synth("intact.sgpt", &options(50, 40, Level::Structure));
    let output = sgpt(&["validate", file.arg()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("intact"));

    let output = sgpt(&["validate", file.arg(), "--json"]);
    assert_eq!(code(&output), 0);
    let report = json(&output);
    assert_eq!(report["schema"], 1);
    assert_eq!(report["verdict"], "intact");
    assert_eq!(report["closed"], true);
    assert_eq!(report["frames"], 50);
    assert_eq!(report["spans"], workload(&options(50, 40, Level::Structure)).span_count());
    assert_eq!(report["defects"], Value::Array(Vec::new()));
}

#[test]
fn a_truncated_capture_is_readable_with_a_truncated_defect() {
    let file = synth("whole.sgpt", &options(30, 20, Level::Timing));
    let bytes = std::fs::read(file.path()).unwrap();
    let cut = Temp::new("cut.sgpt");
    std::fs::write(cut.path(), &bytes[..bytes.len() - 100]).unwrap();

    let output = sgpt(&["validate", cut.arg(), "--json"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["verdict"], "defects");
    let defects = report["defects"].as_array().unwrap();
    let truncated = defects.iter().find(|d| d["kind"] == "truncated").unwrap_or_else(|| panic!("{defects:?}"));
    assert!(truncated["offset"].as_u64().unwrap() < bytes.len() as u64);
    assert!(truncated["detail"].as_str().unwrap().contains("ends inside"));

    let text = sgpt(&["validate", cut.arg()]);
    assert_eq!(code(&text), 1);
    assert!(String::from_utf8_lossy(&text.stdout).contains("truncated"));
    // Other commands still work on what was recovered.
    assert_eq!(code(&sgpt(&["stats", cut.arg()])), 0);
}

#[test]
fn random_bytes_are_unreadable_and_the_error_names_the_file() {
    let file = Temp::new("random.bin");
    let mut state = 0x1234_5678_9abc_def0u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    std::fs::write(file.path(), bytes).unwrap();
    for command in ["validate", "info", "stats"] {
        let output = sgpt(&[command, file.arg()]);
        assert_eq!(code(&output), 2, "{command}");
        let message = stderr(&output);
        assert!(message.contains("not an sgpt"), "{command}: {message}");
        assert!(message.contains(file.arg()), "{command}: {message}");
    }
    let output = sgpt(&["validate", file.arg(), "--json"]);
    assert_eq!(code(&output), 2);
    assert_eq!(json(&output)["verdict"], "unreadable");

    let missing = Temp::new("missing.sgpt");
    let output = sgpt(&["info", missing.arg()]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains(missing.arg()));
}

#[test]
fn info_json_carries_meta_and_graph_passes_with_their_gpu_passes() {
    let options = options(20, 60, Level::Structure);
    let file = synth("info.sgpt", &options);
    let output = sgpt(&["info", file.arg(), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let info = json(&output);
    assert_eq!(info["schema"], 1);
    assert_eq!(info["closed"], true);
    assert_eq!(info["frames"], 20);
    assert_eq!(info["meta"]["level"], "structure");
    assert_eq!(info["meta"]["adapter"]["name"], "sgpt synthetic adapter");
    assert_eq!(info["defects"], Value::Array(Vec::new()));

    // Expected: each graph pass's GPU pass labels over every topology, deduplicated.
    let workload = workload(&options);
    let mut expected: Vec<(String, Vec<String>)> = Vec::new();
    for topology in &workload.topologies {
        for (index, pass) in topology.graph_passes.iter().enumerate() {
            if !expected.iter().any(|(name, _)| *name == pass.name) {
                expected.push((pass.name.clone(), Vec::new()));
            }
            let labels = &mut expected.iter_mut().find(|(name, _)| *name == pass.name).unwrap().1;
            for gpu in topology.gpu_passes.iter().filter(|gpu| gpu.graph_pass == Some(index as u32)) {
                if !labels.contains(&gpu.label) {
                    labels.push(gpu.label.clone());
                }
            }
        }
    }
    let actual: Vec<(String, Vec<String>)> = info["graph_passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pass| {
            let labels =
                pass["gpu_passes"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_owned()).collect();
            (pass["name"].as_str().unwrap().to_owned(), labels)
        })
        .collect();
    assert_eq!(actual, expected);
    // The shadow refresh pass appears only in the refresh topology, and is listed once.
    let shadows = actual.iter().filter(|(_, labels)| labels.iter().any(|l| l == "shadows.cascade3.refresh")).count();
    assert_eq!(shadows, 1);
}

#[test]
fn stats_json_counts_match_the_workload() {
    let options = options(600, 200, Level::Structure);
    let file = synth("stats.sgpt", &options);
    let output = sgpt(&["stats", file.arg(), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let stats = json(&output);

    // Spans per (graph pass, label), counted from the generator's own frames: passes
    // that miss frames (the every-8th shadow refresh, the tail dropped every 97th frame)
    // have counts below 600.
    let workload = workload(&options);
    let mut expected: HashMap<(String, String), u64> = HashMap::new();
    for frame in &workload.frames {
        let topology = &workload.topologies[frame.topology as usize];
        for span in &frame.spans {
            let pass = &topology.gpu_passes[span.pass as usize];
            let graph = topology.graph_passes[pass.graph_pass.unwrap() as usize].name.clone();
            *expected.entry((graph, pass.label.clone())).or_default() += 1;
        }
    }
    assert!(expected.values().any(|&count| count == 600));
    assert!(expected.values().any(|&count| count < 600));

    assert_eq!(stats["schema"], 1);
    assert_eq!(stats["frames"], 600);
    assert_eq!(stats["spans"], workload.span_count());
    assert_eq!(stats["zero_spans"], 0);
    let dropped: u32 = workload.frames.iter().map(|f| f.dropped_spans).sum();
    assert_eq!(stats["dropped_spans"], dropped);
    let passes = stats["passes"].as_array().unwrap();
    assert_eq!(passes.len(), expected.len());
    for pass in passes {
        let key = (pass["graph_pass"].as_str().unwrap().to_owned(), pass["label"].as_str().unwrap().to_owned());
        assert_eq!(pass["count"].as_u64(), expected.get(&key).copied(), "{key:?}");
        for field in ["zero_count", "min_ns", "median_ns", "p95_ns", "max_ns", "total_ns"] {
            assert!(pass[field].is_u64(), "{field}");
        }
        assert!(pass["kind"] == "compute" || pass["kind"] == "render");
        assert!(pass["min_ns"].as_u64() <= pass["median_ns"].as_u64());
        assert!(pass["median_ns"].as_u64() <= pass["p95_ns"].as_u64());
        assert!(pass["p95_ns"].as_u64() <= pass["max_ns"].as_u64());
    }
    let totals: Vec<u64> = passes.iter().map(|p| p["total_ns"].as_u64().unwrap()).collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "sorted by total, largest first");
}

#[test]
fn stats_takes_a_half_open_frame_range_and_rejects_a_bad_one() {
    let file = synth("range.sgpt", &options(40, 20, Level::Timing));
    let output = sgpt(&["stats", file.arg(), "--frames", "10..25", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let stats = json(&output);
    assert_eq!(stats["frames"], 15);
    assert_eq!(stats["frame_range"], serde_json::json!([10, 25]));
    assert!(stats["passes"].as_array().unwrap().iter().all(|p| p["count"].as_u64().unwrap() <= 15));

    let output = sgpt(&["stats", file.arg(), "--frames", "10..41"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("40 frames"), "{}", stderr(&output));
    let output = sgpt(&["stats", file.arg(), "--frames", "abc"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("--frames"));
}

#[test]
fn stats_says_how_many_spans_read_zero_and_names_the_chrome_flag() {
    let options = SynthOptions { quantize_ns: Some(100_000), ..options(30, 20, Level::Timing) };
    let file = synth("quantized.sgpt", &options);
    let zero = workload(&options).frames.iter().flat_map(|f| &f.spans).filter(|s| s.duration_ns() == 0).count();
    assert!(zero > 0);
    let output = sgpt(&["stats", file.arg()]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(&format!("{zero} spans read exactly 0 ns")), "{text}");
    assert!(text.contains("chrome://flags/#enable-webgpu-developer-features"));
    assert!(!text.contains("ended before they began"), "none did: {text}");
    let stats = json(&sgpt(&["stats", file.arg(), "--json"]));
    assert_eq!(stats["zero_spans"], zero);
    assert_eq!(stats["inverted_spans"], 0);

    // Two spans that ended before they began (one inverted, one wrapped) read 0 ns too: the
    // note puts them down to that, not to a browser.
    let inverted = sgpt(&["stats", &fixture("inverted_spans.sgpt")]);
    let text = String::from_utf8_lossy(&inverted.stdout);
    assert!(
        text.contains(
            "2 spans read exactly 0 ns: each ended before it began (inverted, or the device's counter wrapped), \
             which counts as 0 ns"
        ),
        "{text}"
    );
    assert!(!text.contains("quantized"), "{text}");
    let stats = json(&sgpt(&["stats", &fixture("inverted_spans.sgpt"), "--json"]));
    assert_eq!((&stats["zero_spans"], &stats["inverted_spans"]), (&2.into(), &2.into()));
    let timing = &stats["frame_timing"];
    assert_eq!((&timing["zero_pass_spans"], &timing["inverted_pass_spans"]), (&2.into(), &2.into()));
}

#[test]
fn diff_of_a_capture_against_itself_is_all_zero() {
    let file = synth("self.sgpt", &options(60, 40, Level::Structure));
    let output = sgpt(&["diff", file.arg(), file.arg(), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let diff = json(&output);
    assert_eq!(diff["schema"], 1);
    let passes = diff["passes"].as_array().unwrap();
    assert!(!passes.is_empty());
    for pass in passes {
        assert_eq!(pass["status"], "matched");
        for field in ["median_delta_ns", "p95_delta_ns", "mean_delta_ns", "total_per_frame_delta_ns"] {
            assert_eq!(pass[field], 0, "{field} of {}", pass["label"]);
        }
    }
}

#[test]
fn diff_ranks_a_slower_capture_first() {
    let a = synth("a.sgpt", &options(40, 20, Level::Timing));
    let b = synth("b.sgpt", &SynthOptions { seed: 2, ..options(40, 20, Level::Timing) });
    let diff = json(&sgpt(&["diff", a.arg(), b.arg(), "--json"]));
    let medians: Vec<i64> =
        diff["passes"].as_array().unwrap().iter().map(|p| p["median_delta_ns"].as_i64().unwrap()).collect();
    assert!(medians.windows(2).all(|w| w[0] >= w[1]), "{medians:?}");
    assert!(medians[0] > 0 && *medians.last().unwrap() < 0, "different seeds move passes both ways");
}

#[test]
fn export_writes_chrome_trace_json() {
    let options = options(10, 20, Level::Verbose);
    let file = synth("export.sgpt", &options);
    let out = Temp::new("trace.json");
    let output = sgpt(&["export", file.arg(), "--chrome", out.arg()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let trace: Value = serde_json::from_slice(&std::fs::read(out.path()).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let spans = events.iter().filter(|e| e["cat"] == "gpu_pass" || e["cat"] == "gpu_subpass").count();
    assert_eq!(spans, workload(&options).span_count());
    assert!(stderr(&output).contains(&format!("{} events", events.len())));
}

#[test]
fn gzip_input_is_recognised_by_its_magic() {
    let options = options(25, 20, Level::Timing);
    let packed = Temp::new("capture.bin");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&generate(&options)).unwrap();
    std::fs::write(packed.path(), encoder.finish().unwrap()).unwrap();
    let output = sgpt(&["validate", packed.arg(), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(json(&output)["frames"], 25);
}

#[test]
fn every_v1_fixture_gets_the_exit_code_its_damage_calls_for() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/v1 exists") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|ext| ext != "sgpt") {
            continue;
        }
        seen += 1;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let file = path.to_str().expect("UTF-8 path");
        let expected = match name.as_str() {
            "newer_version.sgpt" => 2,
            "corrupted.sgpt" | "never_closed.sgpt" | "truncated.sgpt" | "unknown_record.sgpt" => 1,
            defect if defect.starts_with("defect_") => 1,
            _ => 0,
        };
        let validate = sgpt(&["validate", file, "--json"]);
        assert_eq!(code(&validate), expected, "{name}: {}", stderr(&validate));
        let trace = Temp::new("fixture.json");
        for args in [
            vec!["info", file, "--json"],
            vec!["stats", file, "--json"],
            vec!["memory", file, "--json"],
            vec!["export", file, "--chrome", trace.arg()],
        ] {
            let output = sgpt(&args);
            // Unreadable is 2; anything readable succeeds, whatever its damage.
            assert_eq!(code(&output), if expected == 2 { 2 } else { 0 }, "{name} {args:?}: {}", stderr(&output));
        }
    }
    assert!(seen >= 10, "only {seen} fixtures found in {}", dir.display());
}

#[test]
fn memory_reports_domains_checkpoints_and_reconciliation_of_the_memory_fixture() {
    let output = sgpt(&["memory", &fixture("memory.sgpt"), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["schema"], 1);
    assert_eq!(report["memory_records"], 1);
    assert_eq!(report["source"], "memory_record");
    let scene = &report["domains"][0];
    assert_eq!(scene["name"], "scene");
    assert_eq!(
        (scene["live_bytes"].as_u64(), scene["peak_bytes"].as_u64(), scene["allocated_bytes"].as_u64()),
        (Some(5120), Some(5120), Some(10240))
    );
    assert_eq!(
        (scene["allocations"].as_u64(), scene["frees"].as_u64(), scene["valid"].as_bool()),
        (Some(4), Some(2), Some(true))
    );
    assert_eq!(report["domains"][2]["failures"], 1);
    // Sites ranked by allocated bytes: the scene loader first.
    assert_eq!(report["sites"][0]["name"], "scene load");
    assert_eq!(report["sites"][0]["allocated_bytes"], 10240);
    assert_eq!(report["size_distribution"][0]["min_bytes"], 64);
    assert_eq!(report["size_distribution"].as_array().map(Vec::len), Some(5));
    let checkpoints = report["checkpoints"].as_array().expect("a list");
    assert_eq!(checkpoints.len(), 3);
    let whole = &checkpoints[2];
    assert_eq!((whole["from"].as_str(), whole["to"].as_str()), (Some("loaded"), Some("end")));
    assert_eq!((whole["new_live_blocks"].as_u64(), whole["new_live_bytes"].as_u64()), (Some(3), Some(5632)));
    assert_eq!((whole["released_blocks"].as_u64(), whole["released_bytes"].as_u64()), (Some(2), Some(5120)));
    assert_eq!(whole["survivors"][0]["domain"], "particles");
    assert_eq!(
        (whole["survivors"][0]["size"].as_u64(), whole["survivors"][0]["age_ops"].as_u64()),
        (Some(256), Some(9))
    );
    assert_eq!(whole["exact"], true);
    assert_eq!(report["reconciliation"]["status"], "exact");
    assert_eq!(report["loss"], Value::Null);

    let text = sgpt(&["memory", &fixture("memory.sgpt")]);
    assert_eq!(code(&text), 0);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("reconciliation: exact"), "{text}");
    assert!(text.contains("survivor (1, 3) particles 256 B"), "{text}");
}

#[test]
fn memory_on_a_capture_without_memory_says_so_and_succeeds() {
    let output = sgpt(&["memory", &fixture("minimal.sgpt")]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no memory records"));
    let report = json(&sgpt(&["memory", &fixture("minimal.sgpt"), "--json"]));
    assert_eq!(report["source"], "none");
    assert_eq!(report["domains"], Value::Array(Vec::new()));
    assert_eq!(report["reconciliation"]["status"], "unavailable");
    assert_eq!(report["loss"], Value::Null);
}

#[test]
fn memory_falls_back_to_the_last_gauges_when_no_record_survives() {
    use sgpt_format::{CounterDef, CounterSample, CounterUnit, Declaration, Frame, GpuPass, Meta, Topology, Writer};
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let topology = Topology { gpu_passes: vec![GpuPass::default()], ..Topology::default() };
    let id = writer.topology(&topology).unwrap();
    writer
        .declare(&[
            Declaration::Counter(CounterDef { id: 0, name: "memory/a/b/live_bytes".into(), unit: CounterUnit::Bytes }),
            Declaration::Counter(CounterDef { id: 1, name: "memory/a/b/valid".into(), unit: CounterUnit::Count }),
            Declaration::Counter(CounterDef { id: 2, name: "not memory".into(), unit: CounterUnit::Count }),
        ])
        .unwrap();
    for (n, live) in [(0u64, 10.0), (1, 30.0)] {
        let counters = vec![
            CounterSample { counter: 0, value: live },
            CounterSample { counter: 1, value: 0.0 },
            CounterSample { counter: 2, value: 5.0 },
        ];
        writer.frame(&Frame { frame_number: n, topology: id, counters, ..Frame::default() }).unwrap();
    }
    let temp = Temp::new("gauges.sgpt");
    std::fs::write(temp.path(), writer.finish().unwrap()).unwrap();
    let report = json(&sgpt(&["memory", temp.arg(), "--json"]));
    assert_eq!(report["source"], "gauges");
    let domains = report["domains"].as_array().unwrap();
    assert_eq!(domains.len(), 1);
    // The domain name keeps its own slash; the field is the last segment.
    assert_eq!(domains[0]["name"], "a/b");
    assert_eq!(domains[0]["live_bytes"], 30);
    assert_eq!(domains[0]["valid"], false);
    assert_eq!(domains[0]["peak_bytes"], Value::Null, "an absent gauge is unavailable, never 0");
}

/// Providers as a browser build writes them: linear memory sampled, wgpu's buffer memory
/// declared but never sampled and explained by a NOTE, wgpu's buffer count unexplained.
fn provider_capture() -> Temp {
    use sgpt_format::{CounterDef, CounterSample, CounterUnit, Declaration, Frame, Meta, Note, Topology, Writer};
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("meta");
    let id = writer.topology(&Topology::default()).expect("topology");
    let def = |id, name: &str, unit| Declaration::Counter(CounterDef { id, name: name.into(), unit });
    writer
        .declare(&[
            def(0, "provider/wasm.linear_memory", CounterUnit::Bytes),
            def(1, "provider/wgpu.buffer_memory", CounterUnit::Bytes),
            def(2, "provider/wgpu.buffers", CounterUnit::Count),
        ])
        .expect("declare");
    for (n, bytes) in [(0u64, 65_536.0), (1, 131_072.0)] {
        let counters = vec![CounterSample { counter: 0, value: bytes }];
        writer.frame(&Frame { frame_number: n, topology: id, counters, ..Frame::default() }).expect("frame");
        if n == 0 {
            let text = "provider wgpu.buffer_memory unavailable: the browser's WebGPU exposes no internal counters";
            writer.note(&Note { frame_number: 0, text: text.into() }).expect("note");
        }
    }
    let temp = Temp::new("providers.sgpt");
    std::fs::write(temp.path(), writer.finish().expect("finish")).expect("write");
    temp
}

#[test]
fn memory_lists_providers_and_one_never_sampled_is_unavailable_with_its_reason_never_zero() {
    let temp = provider_capture();
    let output = sgpt(&["memory", temp.arg(), "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["source"], "none");
    assert_eq!(
        report["providers"],
        serde_json::json!([
            {"name": "wasm.linear_memory", "unit": "bytes", "available": true, "last": 131072, "min": 65536,
             "max": 131072, "samples": 2, "reason": null},
            {"name": "wgpu.buffer_memory", "unit": "bytes", "available": false, "last": null, "min": null,
             "max": null, "samples": 0, "reason": "the browser's WebGPU exposes no internal counters"},
            {"name": "wgpu.buffers", "unit": "count", "available": false, "last": null, "min": null,
             "max": null, "samples": 0, "reason": null},
        ])
    );

    let text = sgpt(&["memory", temp.arg()]);
    assert_eq!(code(&text), 0);
    let text = String::from_utf8_lossy(&text.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let at = lines.iter().position(|l| l.starts_with("providers")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        lines[at..],
        [
            "providers (each its own quantity, never summed)",
            "provider            unit          last    min     max  frames",
            "wasm.linear_memory  bytes       131072  65536  131072       2",
            "wgpu.buffer_memory  bytes  unavailable      -       -       0  the browser's WebGPU exposes no internal counters",
            "wgpu.buffers        count  unavailable      -       -       0  never sampled",
        ],
        "{text}"
    );
}

#[test]
fn memory_shows_declared_domain_gauges_never_sampled_as_unavailable() {
    use sgpt_format::{CounterDef, CounterUnit, Declaration, Frame, Meta, Topology, Writer};
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let id = writer.topology(&Topology::default()).unwrap();
    let gauge =
        Declaration::Counter(CounterDef { id: 0, name: "memory/ui/live_bytes".into(), unit: CounterUnit::Bytes });
    writer.declare(&[gauge]).unwrap();
    writer.frame(&Frame { frame_number: 0, topology: id, ..Frame::default() }).unwrap();
    let temp = Temp::new("unsampled.sgpt");
    std::fs::write(temp.path(), writer.finish().unwrap()).unwrap();
    let report = json(&sgpt(&["memory", temp.arg(), "--json"]));
    assert_eq!(report["source"], "gauges");
    assert_eq!(report["domains"][0]["name"], "ui");
    assert_eq!(report["domains"][0]["live_bytes"], Value::Null, "never sampled: unavailable, not 0");
    assert_eq!(report["providers"], serde_json::json!([]));
}

#[test]
fn synth_with_memory_adds_domain_gauges_and_providers_one_unavailable() {
    let temp = Temp::new("synth-memory.sgpt");
    let output = sgpt(&["synth", "--frames", "601", "--passes", "10", "--memory", "-o", temp.arg()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(code(&sgpt(&["validate", temp.arg()])), 0, "intact");
    let again = Temp::new("synth-memory-again.sgpt");
    sgpt(&["synth", "--frames", "601", "--passes", "10", "--memory", "-o", again.arg()]);
    assert_eq!(std::fs::read(temp.path()).unwrap(), std::fs::read(again.path()).unwrap(), "deterministic");

    let report = json(&sgpt(&["memory", temp.arg(), "--json"]));
    assert_eq!(report["source"], "gauges");
    let domains: Vec<(&str, u64, u64, u64, u64)> = report["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let n = |key: &str| d[key].as_u64().unwrap();
            (d["name"].as_str().unwrap(), n("live_bytes"), n("peak_bytes"), n("allocated_bytes"), n("freed_bytes"))
        })
        .collect();
    // At frame 600 the scene is loaded (48 MiB) for the second time, after an unload to
    // 8 MiB; particles grew 32 KiB a frame and churned 32 KiB more, reset every 120 frames;
    // scratch churned 1 MiB a frame and is empty on every fourth.
    let (kib, mib) = (1u64 << 10, 1u64 << 20);
    let particles = 4 * mib + 32 * kib + 595 * 64 * kib + 5 * 32 * kib;
    let scratch = 601 * mib + 450 * 256 * kib;
    assert_eq!(
        domains,
        [
            ("scene", 48 * mib, 48 * mib, 88 * mib, 40 * mib),
            ("particles", 4 * mib, 4 * mib + 119 * 32 * kib, particles, particles - 4 * mib),
            ("scratch", 0, 768 * kib, scratch, scratch),
        ]
    );
    assert_eq!(report["domains"][0]["valid"], true);
    let providers: Vec<(&str, bool, Value, Value)> = report["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (p["name"].as_str().unwrap(), p["available"].as_bool().unwrap(), p["last"].clone(), p["reason"].clone())
        })
        .collect();
    assert_eq!(
        providers,
        [
            ("wasm.linear_memory", true, Value::from(68u64 << 20), Value::Null),
            ("gpu.declared_bytes", true, Value::from(320u64 << 20), Value::Null),
            (
                "wgpu.buffer_memory",
                false,
                Value::Null,
                Value::from("the browser's WebGPU exposes no internal counters")
            ),
        ]
    );
    assert_eq!(report["providers"][0]["samples"], 601);
}
