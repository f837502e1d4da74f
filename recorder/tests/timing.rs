//! The timing port natively: what the collector sees, phases that tile, budgets, drain.
//!
//! The hub is process-global, so the tests that set its level take one lock. What is
//! judged against a budget reads a clock the test sets by hand, so the durations judged
//! are exact and no scheduler decides a verdict.

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard, PoisonError};

use sgpt_recorder::timing::{
    self, Budget, Clock, Collector, Color, EntryKind, FrameInterval, PhaseClock, RETAINED_CAP, Span, TimingLevel, track,
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

/// A clock that moves only when told to.
#[derive(Debug, Default)]
struct HandClock {
    now_ms: Cell<f64>,
}

impl HandClock {
    fn advance(&self, ms: f64) {
        self.now_ms.set(self.now_ms.get() + ms);
    }
}

impl Clock for HandClock {
    fn now_ms(&self) -> f64 {
        self.now_ms.get()
    }
}

/// Busy for at least `micros` of the real clock: a span's duration can only be longer.
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
    let clock = HandClock { now_ms: Cell::new(1_000.0) };
    let mut phases = PhaseClock::start_on(&clock, track::PHASES);
    for (name, ms) in [("simulate", 0.3), ("encode", 0.15), ("submit", 0.05), ("present", 0.1)] {
        clock.advance(ms);
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
    assert_eq!((parent.start_ms, parent.end_ms), (1_000.0, clock.now_ms()));
    let sum: f64 = phases.iter().map(|phase| phase.end_ms - phase.start_ms).sum();
    let total = parent.end_ms - parent.start_ms;
    assert!((sum - total).abs() < 1e-9 * total.max(1.0), "phases {sum} ms, parent {total} ms");
    assert!((total - 0.6).abs() < 1e-9, "{total} ms for 0.6 ms of phases");
    timing::set_level(TimingLevel::Off);
}

#[test]
fn engine_and_frame_are_judged_against_their_own_budgets() {
    let (_hub, collector) = hub(TimingLevel::Full);
    // Engine steps of 9 ms (over its 8.33 ms budget) and of exactly the budget (within),
    // each from 0 so the duration is the exact number.
    for ms in [9.0, Budget::Engine.ms()] {
        let clock = HandClock::default();
        let mut phases = PhaseClock::start_on(&clock, track::PHASES);
        clock.advance(ms);
        phases.phase("simulate");
        phases.finish(track::ENGINE, "engine", Budget::Engine);
    }
    // Frame intervals of 20 ms (a slow engine step, not a dropped frame) and 25.5 ms (over
    // the 25 ms a dropped frame takes).
    let clock = HandClock::default();
    let mut frames = FrameInterval::on(&clock);
    frames.tick(); // the first boundary emits nothing
    for ms in [20.0, 25.5] {
        clock.advance(ms);
        frames.tick();
    }

    let entries = collector.entries();
    let engine: Vec<_> = entries.iter().filter(|e| e.name == "engine").collect();
    assert_eq!(engine.len(), 2);
    assert_eq!(engine[0].color, Color::Error);
    assert_eq!(engine[0].properties, [("budget ms", Budget::Engine.ms())]);
    assert_eq!(engine[0].tooltip.as_deref(), Some("engine: 9.00 ms, over the engine budget of 8.33 ms"));
    assert_eq!((engine[1].color, engine[1].tooltip.as_deref()), (track::ENGINE.color, None));
    let frame: Vec<_> = entries.iter().filter(|e| e.name == "frame").collect();
    assert_eq!(frame.len(), 2);
    assert_eq!((frame[0].track, frame[0].color, frame[0].tooltip.as_deref()), ("Frame", Color::Secondary, None));
    assert_eq!(frame[0].properties, [("budget ms", Budget::Frame.ms())]);
    assert_eq!(frame[0].end_ms - frame[0].start_ms, 20.0);
    assert_eq!(frame[1].color, Color::Error);
    assert_eq!(frame[1].tooltip.as_deref(), Some("frame: 25.50 ms, over the frame budget of 25.00 ms"));
    assert_eq!(frame[1].start_ms, frame[0].end_ms, "each interval starts where the last ended");
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
