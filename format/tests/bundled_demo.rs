//! The inspector's bundled capture, `fixtures/demo/demo.sgpt`, is what `fixtures/README.md`
//! says it is: a real recording of the demo scene on lavapipe by `cargo xtask demo-capture`,
//! at level workload with memory. Facts of the file only: its timings differ per recording.

use std::collections::BTreeSet;
use std::path::PathBuf;

use sgpt_format::{Capture, GpuPassKind, Level, MemoryMode, memory_gauge_name};

/// `FRAMES` in `xtask/src/demo_capture.rs`.
const FRAMES: usize = 600;

fn bytes() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/demo/demo.sgpt");
    std::fs::read(&path)
        .unwrap_or_else(|error| panic!("{}: {error} (recorded by `cargo xtask demo-capture`)", path.display()))
}

#[test]
fn it_is_an_intact_workload_recording_of_the_demo_on_lavapipe() {
    let bytes = bytes();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact(), "{:?}", capture.verify());
    assert!(capture.used_directory(), "closed, with its directory");
    assert_eq!(capture.level(), Some(Level::Workload));

    let meta = capture.meta().expect("META");
    assert_eq!(meta.application, "sgpt-demo");
    assert!(meta.adapter.name.contains("llvmpipe"), "{:?}", meta.adapter);
    assert!(!meta.adapter.name.contains("synthetic"), "{:?}", meta.adapter);
    assert_eq!((meta.adapter.backend.as_str(), meta.adapter.device_type.as_str()), ("vulkan", "Cpu"));
    assert!(meta.timestamp_query, "lavapipe times passes");
    assert!(meta.note.contains("cargo xtask demo-capture"), "{:?}", meta.note);

    let numbers: Vec<u64> = capture.frames().iter().map(|f| f.frame_number).collect();
    assert_eq!(numbers, (0..FRAMES as u64).collect::<Vec<_>>());
    assert_eq!(capture.dropped_span_count(), 0);
    assert!(capture.frames().iter().all(|f| f.span_count > 0), "every frame has GPU spans");
}

#[test]
fn its_passes_are_the_demo_scenes() {
    let bytes = bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let mut graph = BTreeSet::new();
    let mut gpu = BTreeSet::new();
    for (_, topology) in capture.topologies() {
        graph.extend(topology.graph_passes.iter().map(|p| p.name.as_str()));
        gpu.extend(topology.gpu_passes.iter().filter(|p| p.kind != GpuPassKind::Encoder).map(|p| p.label.as_str()));
    }
    for name in ["particles/simulate", "particles/cull", "shadows/cascade 0", "main", "hzb/build", "bloom/threshold"] {
        assert!(graph.contains(name), "graph pass {name:?} in {graph:?}");
    }
    for label in ["particles simulate", "particles cull", "shadow cascade 0", "main", "hzb copy depth", "bloom up"] {
        assert!(gpu.contains(label), "GPU pass {label:?} in {gpu:?}");
    }
    assert!(!gpu.iter().any(|label| label.starts_with("simulation.pass")), "{gpu:?}");

    // The debug branch nobody reads is culled in every frame.
    for index in 0..capture.frames().len() {
        let frame = capture.frame(index).expect("decodes");
        let topology = capture.topology(frame.topology).expect("defined");
        let heatmap = topology.graph_passes.iter().position(|p| p.name == "debug/hzb heatmap").expect("declared");
        assert!(frame.culled[heatmap], "frame {index}");
        assert!(!frame.commands.is_empty(), "frame {index} records its dispatches and draws");
    }
}

#[test]
fn it_holds_the_demos_memory_gauges_and_its_scene_reload() {
    let bytes = bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let last = capture.frame(FRAMES - 1).expect("decodes");
    for domain in ["scene", "particles", "scratch"] {
        let name = memory_gauge_name(domain, "live_bytes");
        let id = capture.counters().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} declared")).id;
        let value = last.counters.iter().find(|s| s.counter == id).unwrap_or_else(|| panic!("{name} sampled")).value;
        assert!(value > 0.0, "{name} at the last frame");
    }

    let [record] = capture.memory_records() else { panic!("one MEMO record") };
    assert_eq!(record.mode, MemoryMode::Complete);
    assert!(record.health.is_complete(), "{:?}", record.health);
    let checkpoints: Vec<&str> = record.checkpoints.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(&checkpoints[..3], ["loaded", "unloaded", "reloaded"]);
    // The scene's name table and the particle state live through the unload and reload.
    let diff = record.diff(0, 2).expect("loaded -> reloaded");
    assert_eq!(diff.survivors.len(), 2, "{:?}", diff.survivors);
}
