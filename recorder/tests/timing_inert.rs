//! `off` is inert: importing the crate emits nothing, and at `off` a span, a phase clock,
//! a frame interval and a marker allocate nothing. One test in its own binary, counted on
//! its own thread.

use sgpt_recorder::timing::{self, Budget, Collector, FrameInterval, PhaseClock, Span, TimingLevel, track};
use sgpt_test_support::alloc::{Counting, counted};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn off_is_the_default_emits_nothing_and_allocates_nothing_per_span() {
    // Nothing was attached or set: the hub's defaults.
    assert_eq!(timing::level(), TimingLevel::Off);
    assert!(timing::drain().is_empty());
    assert_eq!(timing::retention().cap, 0, "no sink is attached by default");

    let collector = Collector::new();
    timing::attach(collector.clone());
    let name = String::from("graph pass");
    let mut frames = FrameInterval::new();
    // Counted on this thread only: the test harness's own thread may allocate meanwhile
    // (4 of them once, on a loaded machine), and anything the hub did for these calls
    // would start here (a spawned thread is allocated by its spawner).
    let ((), allocations, _) = counted(|| {
        for i in 0..10_000 {
            frames.tick();
            let mut span = Span::begin(track::ENGINE, "tick");
            span.property("i", f64::from(i));
            Span::begin_copied(track::GPU_ENCODE, &name).end();
            let mut phases = PhaseClock::start(track::PHASES);
            phases.phase("simulate");
            phases.phase("encode");
            phases.finish(track::ENGINE, "engine", Budget::Engine);
            timing::marker(track::BOOT, "marker");
            span.end();
        }
    });
    assert_eq!(allocations, 0, "{allocations} allocations for 10,000 frames at off");
    assert!(collector.entries().is_empty());
}
