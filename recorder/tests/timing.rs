//! The timing port natively: what the collector sees, phases that tile, budgets, drain.
//!
//! The hub is process-global, so the tests that set its level take one lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

use sgpt_recorder::timing::{
    self, Budget, Collector, Color, EntryKind, FrameInterval, PhaseClock, RETAINED_CAP, Span, TimingLevel, track,
};

static HUB: Mutex<()> = Mutex::new(());

/// Takes the hub for one test, with a fresh collector at `level`.
fn hub(level: TimingLevel) -> (MutexGuard<'static, ()>, Collector) {
    let guard = HUB.lock().unwrap_or_else(PoisonError::into_inner);
    let collector = Collector::new();
    timing::attach(collector.clone());
    timing::set_level(level);
    (guard, collector)
}

fn spin(micros: u64) {
    let until = std::time::Instant::now() + std::time::Duration::from_micros(micros);
    while std::time::Instant::now() < until {
        std::hint::spin_loop();
    }
}

#[test]
fn the_collector_sees_each_span_with_its_track_name_and_properties() {
    let (_hub, collector) = hub(TimingLevel::Full);
    let mut span = Span::begin(track::ENGINE, "load level");
    span.property("chunks", 12.0);
    spin(200);
    span.end();
    let name = String::from("hzb/build");
    Span::begin_copied(track::GPU_ENCODE, &name).end();
    timing::marker(track::BOOT, "first frame");

    let entries = collector.entries();
    assert_eq!(entries.len(), 3);
    let load = &entries[0];
    assert_eq!((load.name.as_str(), load.track, load.kind), ("load level", "Engine", EntryKind::Span));
    assert_eq!(load.level, TimingLevel::Full);
    assert_eq!(load.properties, [("chunks", 12.0)]);
    assert_eq!(load.color, Color::Primary);
    assert!(load.end_ms - load.start_ms >= 0.2, "{} ms for a 200 µs spin", load.end_ms - load.start_ms);
    assert_eq!((entries[1].name.as_str(), entries[1].track), ("hzb/build", "GPU encode"));
    assert!(entries[1].start_ms >= load.end_ms);
    assert_eq!((entries[2].kind, entries[2].start_ms), (EntryKind::Marker, entries[2].end_ms));
    timing::set_level(TimingLevel::Off);
}

#[test]
fn phases_tile_and_sum_exactly_to_their_parent() {
    let (_hub, collector) = hub(TimingLevel::Trace);
    let mut phases = PhaseClock::start(track::PHASES);
    for (name, micros) in [("simulate", 300), ("encode", 150), ("submit", 50), ("present", 100)] {
        spin(micros);
        phases.phase(name);
    }
    phases.finish(track::ENGINE, "engine", Budget::Engine);

    let entries = collector.entries();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["simulate", "encode", "submit", "present", "engine"]);
    let (phases, parent) = entries.split_at(4);
    let parent = &parent[0];
    assert_eq!(parent.track, "Engine");
    assert!(phases.iter().all(|phase| phase.track == "Engine phases" && phase.level == TimingLevel::Trace));
    // One reading per boundary: each phase starts on the exact value the previous ended on.
    assert_eq!(phases[0].start_ms, parent.start_ms);
    for pair in phases.windows(2) {
        assert_eq!(pair[1].start_ms, pair[0].end_ms);
    }
    assert_eq!(phases[3].end_ms, parent.end_ms);
    let sum: f64 = phases.iter().map(|phase| phase.end_ms - phase.start_ms).sum();
    let total = parent.end_ms - parent.start_ms;
    assert!((sum - total).abs() < 1e-9 * total.max(1.0), "phases {sum} ms, parent {total} ms");
    assert!(total >= 0.6, "{total} ms for 600 µs of spins");
    timing::set_level(TimingLevel::Off);
}

#[test]
fn engine_and_frame_are_judged_against_their_own_budgets() {
    let (_hub, collector) = hub(TimingLevel::Full);
    let mut phases = PhaseClock::start(track::PHASES);
    spin(9_000); // over the engine budget
    phases.phase("simulate");
    phases.finish(track::ENGINE, "engine", Budget::Engine);
    let mut frames = FrameInterval::new();
    frames.tick(); // the first boundary emits nothing
    spin(1_000);
    frames.tick();

    let entries = collector.entries();
    let engine = entries.iter().find(|e| e.name == "engine").expect("an engine entry");
    assert_eq!(engine.color, Color::Error);
    assert_eq!(engine.properties, [("budget ms", Budget::Engine.ms())]);
    assert!(engine.tooltip.as_deref().is_some_and(|text| text.contains("over the engine budget")));
    let frame: Vec<_> = entries.iter().filter(|e| e.name == "frame").collect();
    assert_eq!(frame.len(), 1);
    assert_eq!((frame[0].track, frame[0].color, frame[0].tooltip.as_deref()), ("Frame", Color::Secondary, None));
    assert_eq!(frame[0].properties, [("budget ms", Budget::Frame.ms())]);
    timing::set_level(TimingLevel::Off);
}

#[test]
fn drain_returns_and_clears_and_retention_is_capped() {
    let (_hub, collector) = hub(TimingLevel::Full);
    for _ in 0..RETAINED_CAP + 5 {
        Span::begin(track::ENGINE, "tick").end();
    }
    let retention = timing::retention();
    assert_eq!((retention.retained, retention.dropped, retention.cap), (RETAINED_CAP, 5, RETAINED_CAP));
    let drained = timing::drain();
    assert_eq!(drained.len(), RETAINED_CAP);
    assert_eq!((drained[0].name.as_str(), drained[0].track.as_str()), ("tick", "Engine"));
    assert!(drained.windows(2).all(|pair| pair[0].start_ms <= pair[1].start_ms), "sorted by start");
    assert!(timing::drain().is_empty(), "a drain clears");
    assert_eq!(collector.entries().len(), 0);
    timing::set_level(TimingLevel::Off);
}

#[test]
fn off_emits_nothing_and_a_level_change_takes_effect_at_the_next_entry() {
    let (_hub, collector) = hub(TimingLevel::Off);
    Span::begin(track::ENGINE, "off").end();
    let mut phases = PhaseClock::start(track::PHASES);
    phases.phase("off");
    phases.finish(track::ENGINE, "engine", Budget::Engine);
    timing::marker(track::BOOT, "off");
    assert!(collector.entries().is_empty());
    assert_eq!(timing::level(), TimingLevel::Off);

    timing::set_level(TimingLevel::Trace);
    Span::begin(track::ENGINE, "on").end();
    let entries = collector.entries();
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].name.as_str(), entries[0].level), ("on", TimingLevel::Trace));
    timing::set_level(TimingLevel::Off);
}
