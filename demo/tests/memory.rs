//! `sgpt-demo` records memory by default: domain gauges for its three domains, provider
//! metrics, and a memory capture whose checkpoints bracket a scene unload and reload.
//! Runs the binary on a real Vulkan adapter (lavapipe in CI). Also: the scene's frame-graph
//! resources as the recorder's declared-bytes provider, and wgpu's own memory counters.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use sgpt_demo::memory::{LOADED_FRAME, RELOADED_FRAME};
use std::collections::HashMap;

use sgpt_demo::{Scene, SceneOptions, native};
use sgpt_format::{Capture, MemoryMode, PROVIDER_GAUGE_PREFIX, memory_gauge_name, provider_gauge_name};
use sgpt_recorder::{Level, MemorySink, ProfileSession, SessionOptions};
use sgpt_test_support::gpu::Gpu;

/// Runs `sgpt-demo` with `args` into a temporary capture and returns its bytes.
fn record(name: &str, args: &[&str]) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!("sgpt-demo-{name}-{}.sgpt", std::process::id()));
    let status =
        Command::new(env!("CARGO_BIN_EXE_sgpt-demo")).args(args).arg("-o").arg(&path).status().expect("sgpt-demo runs");
    assert!(status.success(), "sgpt-demo failed: {status}");
    let bytes = std::fs::read(&path).expect("the capture was written");
    let _ = std::fs::remove_file(&path);
    bytes
}

/// A lavapipe device with the recorder's timer features (see `sgpt_test_support::gpu`).
fn gpu() -> Option<Gpu> {
    sgpt_test_support::gpu::device(sgpt_recorder::timer_features)
}

fn gpu_available() -> bool {
    gpu().is_some()
}

#[test]
fn the_demo_binary_records_three_domains_and_survivors_across_a_scene_reload() {
    if !gpu_available() {
        return;
    }
    let bytes = record("memory", &["--frames", "240", "--level", "workload"]);
    let capture = Capture::open(&bytes).expect("opens");

    for domain in ["scene", "particles", "scratch"] {
        let name = memory_gauge_name(domain, "live_bytes");
        let id = capture.counters().find(|def| def.name == name).unwrap_or_else(|| panic!("{name} declared")).id;
        let last = capture.frame(capture.frames().len() - 1).expect("decodes");
        let value = last.counters.iter().find(|sample| sample.counter == id).expect("sampled").value;
        assert!(value > 0.0, "{domain} holds live bytes at the last frame");
    }

    let records = capture.memory_records();
    assert_eq!(records.len(), 1, "one memory capture");
    let record = &records[0];
    assert_eq!(record.mode, MemoryMode::Complete, "the demo's domains start empty");
    assert!(record.health.is_complete(), "{:?}", record.health);
    let domains: Vec<_> = record.domains.iter().map(|domain| domain.name.as_str()).collect();
    assert_eq!(domains, ["scene", "particles", "scratch"]);
    let checkpoints: Vec<_> = record.checkpoints.iter().map(|checkpoint| checkpoint.name.as_str()).collect();
    assert_eq!(&checkpoints[..3], ["loaded", "unloaded", "reloaded"]);
    assert_eq!(checkpoints.len(), 4, "plus the terminal checkpoint: {checkpoints:?}");
    assert_eq!(record.checkpoints[0].time, LOADED_FRAME, "the clock counts frames");
    assert_eq!(record.checkpoints[2].time, RELOADED_FRAME);

    let diff = record.diff(0, 2).expect("loaded -> reloaded");
    assert!(diff.exact);
    let domain_of = |id: u32| record.domain_name(id).expect("defined");
    let site_of = |id: u32| record.site(id).map_or("", |site| site.name.as_str());
    // The name table and the particle state live through the reload; the old scene
    // data is released and the reloaded one is new.
    let mut survivors: Vec<_> = diff
        .survivors
        .iter()
        .map(|survivor| (domain_of(survivor.block.domain), site_of(survivor.block.site)))
        .collect();
    survivors.sort_unstable();
    assert_eq!(survivors, [("particles", "particles/state"), ("scene", "scene/names")]);
    assert!(diff.survivors.iter().all(|survivor| survivor.age_time >= RELOADED_FRAME - LOADED_FRAME));
    let mut released: Vec<_> = diff.released.iter().map(|block| site_of(block.site)).collect();
    released.sort_unstable();
    assert_eq!(released, ["scene/materials", "scene/transforms", "scratch/visible"]);
    let mut new_live: Vec<_> = diff.new_live.iter().map(|block| site_of(block.site)).collect();
    new_live.sort_unstable();
    assert_eq!(new_live, ["scene/materials", "scene/transforms", "scratch/visible"]);
}

#[test]
fn the_demo_binary_records_provider_metrics_and_notes_the_ones_a_native_build_lacks() {
    if !gpu_available() {
        return;
    }
    let bytes = record("providers", &["--frames", "3", "--level", "workload"]);
    let capture = Capture::open(&bytes).expect("opens");
    let id = |metric: &str| {
        let name = provider_gauge_name(metric);
        capture.counters().find(|def| def.name == name).unwrap_or_else(|| panic!("{name} declared")).id
    };
    let frame = capture.frame(capture.frames().len() - 1).expect("decodes");
    let value = |metric: &str| frame.counters.iter().find(|sample| sample.counter == id(metric)).map(|s| s.value);
    // The binary enables the recorder's `wgpu-counters` feature.
    assert!(value("wgpu.buffer_memory").is_some_and(|bytes| bytes > 0.0));
    assert!(value("wgpu.texture_views").is_some_and(|count| count > 0.0));
    assert!(value("gpu.declared_bytes").is_some_and(|bytes| bytes > 0.0));
    assert_eq!(value("wasm.linear_memory"), None, "a native build has no linear memory: never sampled");
    assert!(capture.notes().iter().any(|note| note.text.starts_with("provider wasm.linear_memory unavailable: ")));

    let bytes = record("no-providers", &["--frames", "3", "--level", "timing", "--no-providers"]);
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.counters().any(|def| def.name == memory_gauge_name("scene", "live_bytes")));
    assert!(!capture.counters().any(|def| def.name.starts_with(PROVIDER_GAUGE_PREFIX)));
    assert!(!capture.notes().iter().any(|note| note.text.starts_with("provider ")));
}

/// The declared bytes of a topology's resources, each name once at its largest version.
fn declared_by_name(topology: &sgpt_format::Topology) -> u64 {
    let mut by_name: HashMap<&str, u64> = HashMap::new();
    for node in &topology.resources {
        let bytes = by_name.entry(node.name.as_str()).or_default();
        *bytes = (*bytes).max(node.declared_bytes);
    }
    by_name.values().sum()
}

#[test]
fn gpu_declared_bytes_follow_each_frames_topology_and_wgpu_memory_is_sampled_for_the_demo() {
    let Some(Gpu { adapter, device, queue }) = gpu() else { return };
    // The internal resolution changes every 4 frames, and with it the transient targets.
    let options = SceneOptions { resolution_change_every: 4, ..SceneOptions::default() };
    let mut scene = Scene::new(&device, &queue, options).expect("the demo scene builds");
    let sink = MemorySink::new();
    let options = SessionOptions { providers: true, ..SessionOptions::at(Level::Workload) };
    let mut session = ProfileSession::new(options, sink.clone());
    native::record(&mut scene, &mut session, &adapter, &device, &queue, 12).expect("records");

    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    let declared = capture.provider("gpu.declared_bytes").expect("declared").id;
    let (buffer_memory, texture_memory) = (
        capture.provider("wgpu.buffer_memory").expect("declared").id,
        capture.provider("wgpu.texture_memory").expect("declared").id,
    );
    let mut values = Vec::new();
    for index in 0..capture.frames().len() {
        let frame = capture.frame(index).expect("decodes");
        let topology = capture.topology(frame.topology).expect("the frame's topology");
        let expected = declared_by_name(topology);
        assert_eq!(frame.sample(declared), Some(expected as f64), "frame {}", frame.frame_number);
        let report = sgpt_format::analysis::resource_lifetimes(topology, &frame.culled);
        assert_eq!(report.total_declared_bytes, expected, "the analysis totals the same way");
        values.push(expected);
        assert!(frame.sample(buffer_memory).is_some_and(|bytes| bytes > 0.0));
        assert!(frame.sample(texture_memory).is_some_and(|bytes| bytes > 0.0));
    }
    values.dedup();
    assert!(values.len() >= 3, "the declared bytes follow the resolution changes: {values:?}");
    let notes: Vec<_> = capture.provider_notes().map(|note| (note.frame_number, note.text.clone())).collect();
    assert!(notes.iter().all(|(_, text)| !text.contains("gpu.declared_bytes")), "{notes:?}");
    assert!(notes.iter().any(|(frame, text)| *frame == 0 && text.starts_with("provider wasm.linear_memory")));
}
