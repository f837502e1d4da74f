//! The timing port on a real device: the demo's graph-pass brackets emit CPU encode spans
//! on the "GPU encode" track, with or without a recording session, and its phases tile
//! each engine entry. Its own binary: the hub's level is process-global.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_demo::{Scene, SceneOptions};
use sgpt_recorder::timing::{self, Collector, TimingLevel};
use sgpt_test_support::gpu::Gpu;

#[test]
fn graph_pass_brackets_emit_encode_spans_and_phases_tile_the_engine_entry() {
    let Some(Gpu { device, queue, .. }) = sgpt_test_support::gpu::device(sgpt_recorder::timer_features) else {
        return;
    };
    let mut scene = Scene::new(&device, &queue, SceneOptions::default()).expect("the demo scene builds");
    let collector = Collector::new();
    timing::attach(collector.clone());

    scene.frame(None).expect("a frame at off");
    assert!(collector.entries().is_empty(), "off emits nothing");

    timing::set_level(TimingLevel::Full);
    scene.frame(None).expect("a frame at full");
    timing::set_level(TimingLevel::Off);

    let entries = collector.entries();
    let encoded: Vec<&str> =
        entries.iter().filter(|e| e.track == "GPU encode").map(|entry| entry.name.as_str()).collect();
    // The demo's debug branch is the part its graph culls.
    let survivors: Vec<&str> = scene
        .graph()
        .topology()
        .graph_passes
        .iter()
        .map(|pass| pass.name.as_str())
        .filter(|name| !name.starts_with("debug/"))
        .collect();
    assert_eq!(encoded, survivors, "one encode span per surviving graph pass, in order");
    assert!(encoded.iter().any(|name| name.starts_with("hzb")), "{encoded:?}");

    let phases: Vec<_> = entries.iter().filter(|e| e.track == "Engine phases").collect();
    let names: Vec<&str> = phases.iter().map(|phase| phase.name.as_str()).collect();
    assert_eq!(names, ["update", "encode", "submit"]);
    let engine = entries.iter().find(|e| e.track == "Engine").expect("an engine entry");
    assert_eq!((phases[0].start_ms, phases[2].end_ms), (engine.start_ms, engine.end_ms));
    assert_eq!((phases[1].start_ms, phases[2].start_ms), (phases[0].end_ms, phases[1].end_ms));
    // The encode spans lie inside the encode phase.
    let encode_spans: Vec<_> = entries.iter().filter(|e| e.track == "GPU encode").collect();
    assert!(encode_spans.iter().all(|s| s.start_ms >= phases[1].start_ms && s.end_ms <= phases[1].end_ms));
}
