//! `sgpt-demo` records memory by default: domain gauges for its three domains and a
//! memory capture whose checkpoints bracket a scene unload and reload. Runs the binary
//! on a real Vulkan adapter (lavapipe in CI).
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use sgpt_demo::memory::{LOADED_FRAME, RELOADED_FRAME};
use sgpt_demo::native;
use sgpt_format::{Capture, MemoryMode, memory_gauge_name};

#[test]
fn the_demo_binary_records_three_domains_and_survivors_across_a_scene_reload() {
    if let Err(error) = native::device() {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but the GPU tests cannot run: {error}");
        eprintln!("skipping a GPU test: {error}");
        return;
    }
    let path = std::env::temp_dir().join(format!("sgpt-demo-memory-{}.sgpt", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_sgpt-demo"))
        .args(["--frames", "240", "--level", "workload", "-o"])
        .arg(&path)
        .status()
        .expect("sgpt-demo runs");
    assert!(status.success(), "sgpt-demo failed: {status}");
    let bytes = std::fs::read(&path).expect("the capture was written");
    let _ = std::fs::remove_file(&path);
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
