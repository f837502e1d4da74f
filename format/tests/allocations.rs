#![expect(clippy::unwrap_used, reason = "helpers shared by the tests below; a failed unwrap is the test failing")]
//! The writer's steady state allocates nothing per frame (no per-frame heap
//! growth), proven with a counting global allocator.

use sgpt_format::synth::{SynthOptions, workload};
use sgpt_format::{CountingSink, Frame, Level, Writer, WriterOptions};
use sgpt_test_support::alloc::{Counting, counted};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Copies `source` into `frame` reusing its vectors' capacity (a derived `clone_from`
/// would reallocate and be counted against the writer).
fn refill(frame: &mut Frame, source: &Frame) {
    frame.frame_number = source.frame_number;
    frame.topology = source.topology;
    frame.spans.clone_from(&source.spans);
    frame.cpu = source.cpu;
    frame.cpu_spans.clone_from(&source.cpu_spans);
    frame.culled.clone_from(&source.culled);
    frame.dropped_spans = source.dropped_spans;
    frame.recorder_cost_ns = source.recorder_cost_ns;
    frame.commands.clone_from(&source.commands);
    frame.bindings.clone_from(&source.bindings);
    frame.counters.clone_from(&source.counters);
}

/// Writes `frames` frames after a warm-up and returns the allocations they cost.
fn steady_state_allocations(level: Level, frames: u64, options: WriterOptions) -> u64 {
    let workload = workload(&SynthOptions { frames: 32, passes: 200, level, ..SynthOptions::default() });
    let mut writer = Writer::with_options(CountingSink::default(), &workload.meta, options).unwrap();
    writer.declare(&workload.declarations).unwrap();
    let ids: Vec<u32> = workload.topologies.iter().map(|t| writer.topology(t).unwrap()).collect();
    let mut frame = workload.frames.iter().max_by_key(|f| f.spans.len() + f.commands.len()).unwrap().clone();
    // Warm-up: the first frames size the writer's reusable buffers.
    for (number, source) in workload.frames.iter().enumerate() {
        refill(&mut frame, source);
        frame.frame_number = number as u64;
        writer.frame(&frame).unwrap();
    }
    // Counted on this thread only, where the writer runs: the test harness's own thread
    // may allocate meanwhile.
    let ((), allocations, _) = counted(|| {
        for number in 32..32 + frames {
            let source = &workload.frames[(number % 32) as usize];
            refill(&mut frame, source);
            frame.frame_number = number;
            // The recorder re-derives its topology id every frame; that must be free too.
            frame.topology = writer.topology(&workload.topologies[source.topology as usize]).unwrap();
            assert_eq!(frame.topology, ids[source.topology as usize]);
            writer.frame(&frame).unwrap();
        }
    });
    allocations
}

#[test]
fn steady_state_frames_allocate_nothing_at_any_level() {
    for level in Level::ALL {
        let allocations = steady_state_allocations(level, 1000, WriterOptions { expected_frames: 2000 });
        assert_eq!(allocations, 0, "level {level}: {allocations} allocations over 1000 frames");
    }
}

#[test]
fn without_a_frame_hint_the_index_grows_geometrically_not_per_frame() {
    let frames = 20_000;
    let allocations = steady_state_allocations(Level::Timing, frames, WriterOptions::default());
    // One reallocation per doubling of the frame index: about log2(20,032) ≈ 15.
    assert!(allocations <= 16, "{allocations} allocations over {frames} frames");
    assert!(allocations > 0, "the index does grow; this test must see it");
}
