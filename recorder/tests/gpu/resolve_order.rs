//! Every way an application can spread a frame over encoders, resolves and submits: no
//! span is ever another frame's, and every span without timestamps is counted as dropped.
//!
//! A frame here has 1 to 3 encoders, each with one graph pass holding one profiled compute
//! pass: two spans per encoder, the bracket's encoder-level span (lavapipe has timestamps
//! inside encoders) and the pass's. For every subset
//! of encoders that call `resolve_queries` (after their pass, before it, twice), and every
//! submission order (one submit per encoder in any permutation, or one submit of all), the
//! capture must hold exactly the spans of passes resolved on their own encoder, and count
//! the others in `dropped_spans`. GPU passes merge in resolve order, unresolved ones last,
//! so the spans are checked by the encoder and kind of their pass, in that order.

use std::collections::HashMap;

use sgpt_format::{Capture, Frame, GpuPassKind};
use sgpt_recorder::{GraphPassScope, Level, MemorySink, ProfileSession, SessionOptions};

use super::{Gpu, Workload, frames, gpu, started};

/// When an encoder calls `resolve_queries`, relative to its pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolve {
    Never,
    After,
    /// Before its pass only: the pass's queries are not resolved.
    Before,
    /// Before and after, and again after: only the first call after the pass resolves it.
    Around,
}

impl Resolve {
    const ALL: [Resolve; 4] = [Resolve::Never, Resolve::After, Resolve::Before, Resolve::Around];

    fn resolves_its_pass(self) -> bool {
        matches!(self, Resolve::After | Resolve::Around)
    }
}

#[derive(Clone, Debug)]
enum Submit {
    /// One `queue.submit` per encoder, in this order of encoder indices.
    Each(Vec<usize>),
    /// One `queue.submit` of every command buffer, in this order.
    All(Vec<usize>),
}

#[derive(Clone, Debug)]
struct Scenario {
    resolves: Vec<Resolve>,
    submit: Submit,
}

impl Scenario {
    /// GPU passes of the frame that get a span, in resolve order (the encoders resolve in
    /// creation order): each encoder's bracket and its pass.
    fn expected_timed(&self) -> Vec<(usize, GpuPassKind)> {
        let resolved = self.resolves.iter().enumerate().filter(|(_, resolve)| resolve.resolves_its_pass());
        resolved.flat_map(|(index, _)| [(index, GpuPassKind::Encoder), (index, GpuPassKind::Compute)]).collect()
    }

    fn expected_dropped(&self) -> u32 {
        (2 * self.resolves.len() - self.expected_timed().len()) as u32
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut order = rest.clone();
            order.insert(at, n - 1);
            all.push(order);
        }
    }
    all
}

/// Every resolve placement on every encoder, with every submission order.
fn scenarios(encoders: usize) -> Vec<Scenario> {
    let mut placements: Vec<Vec<Resolve>> = vec![Vec::new()];
    for _ in 0..encoders {
        placements =
            placements.iter().flat_map(|p| Resolve::ALL.iter().map(move |r| [p.as_slice(), &[*r]].concat())).collect();
    }
    let orders = permutations(encoders);
    let mut all = Vec::new();
    for resolves in placements {
        for order in &orders {
            all.push(Scenario { resolves: resolves.clone(), submit: Submit::Each(order.clone()) });
        }
        all.push(Scenario { resolves: resolves.clone(), submit: Submit::All(orders[orders.len() - 1].clone()) });
    }
    all
}

/// A frame as read back, and its spans as the encoder and kind of their GPU pass.
struct Recorded {
    frame: Frame,
    timed: Vec<(usize, GpuPassKind)>,
}

/// Each span's GPU pass, as the encoder its graph pass ("encoder i") ran on and its kind.
fn timed_passes(capture: &Capture<'_>, frame: &Frame) -> Vec<(usize, GpuPassKind)> {
    let topology = capture.topology(frame.topology).expect("the frame's topology");
    let encoder = |graph_pass: u32| -> usize {
        let name = &topology.graph_passes[graph_pass as usize].name;
        name.strip_prefix("encoder ").and_then(|index| index.parse().ok()).expect("an encoder's graph pass")
    };
    frame
        .spans
        .iter()
        .map(|span| {
            let pass = &topology.gpu_passes[span.pass as usize];
            (encoder(pass.graph_pass.expect("attributed")), pass.kind)
        })
        .collect()
}

/// Records `frame_count` frames of `scenario` and returns the capture's frames.
fn record(gpu: &Gpu, work: &Workload, scenario: &Scenario, frames_in_flight: u32, frame_count: u64) -> Vec<Recorded> {
    let sink = MemorySink::new();
    let options = SessionOptions { frames_in_flight, ..SessionOptions::at(Level::Structure) };
    let mut session = started(gpu, options, &sink);
    for _ in 0..frame_count {
        assert!(session.begin_frame().expect("begins"));
        let mut buffers = Vec::new();
        for (index, resolve) in scenario.resolves.iter().enumerate() {
            let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            if matches!(resolve, Resolve::Before | Resolve::Around) {
                session.resolve_queries(&mut encoder).expect("frame is open");
            }
            encode_pass(work, &mut session, &mut encoder, index as u32);
            if resolve.resolves_its_pass() {
                session.resolve_queries(&mut encoder).expect("frame is open");
            }
            if *resolve == Resolve::Around {
                session.resolve_queries(&mut encoder).expect("a second resolve is safe");
            }
            buffers.push(Some(encoder.finish()));
        }
        match &scenario.submit {
            Submit::Each(order) => {
                for &index in order {
                    gpu.queue.submit(buffers[index].take());
                }
            }
            Submit::All(order) => {
                gpu.queue.submit(order.iter().filter_map(|&index| buffers[index].take()));
            }
        }
        session.end_frame().expect("ends");
        // Each frame's readback lands before the next begins, so the one timer set is free
        // again: every drop counted here is the resolve order's, none the pool's.
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("polls");
    }
    let summary = pollster::block_on(session.stop()).expect("stops");
    assert_eq!(summary.dropped_spans, u64::from(scenario.expected_dropped()) * frame_count, "{scenario:?}");
    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{scenario:?}: {:?}", capture.verify());
    let frames: Vec<Recorded> =
        frames(&capture).into_iter().map(|frame| Recorded { timed: timed_passes(&capture, &frame), frame }).collect();
    if scenario.expected_dropped() > 0 {
        // The first frame with unresolved spans says so, once.
        let notes: Vec<_> = capture.notes().iter().filter(|note| note.text.contains("never resolved")).collect();
        assert_eq!(notes.len(), 1, "{scenario:?}");
        assert_eq!(notes[0].frame_number, 0);
        assert_eq!(session.warnings().iter().filter(|w| w.contains("never resolved")).count(), 1);
    }
    frames
}

/// Graph pass `index`, one profiled compute pass with one dispatch.
fn encode_pass(work: &Workload, session: &mut ProfileSession, encoder: &mut wgpu::CommandEncoder, index: u32) {
    let mut scope = GraphPassScope::named(Some(session), encoder, &format!("encoder {index}"));
    let mut pass = scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some("work"), timestamp_writes: None });
    pass.set_pipeline(&work.pipeline);
    pass.set_bind_group(0, &work.bind_group, &[]);
    pass.dispatch_workgroups(4, 1, 1);
}

/// Asserts no span is stale: none repeats a span of another frame, and none begins before
/// the last span of the previous frame on the same query set ended.
fn assert_nothing_stale(frames: &[Recorded], context: &dyn std::fmt::Debug) {
    let mut seen: HashMap<(u64, u64), u64> = HashMap::new();
    let mut last_end: HashMap<u8, u64> = HashMap::new();
    for Recorded { frame, .. } in frames {
        for span in &frame.spans {
            if let Some(other) = seen.insert((span.begin_ns, span.end_ns), frame.frame_number) {
                assert_eq!(
                    other, frame.frame_number,
                    "{context:?}: frame {} repeats frame {other}",
                    frame.frame_number
                );
            }
            if let Some(&end) = last_end.get(&span.query_set) {
                assert!(
                    span.begin_ns >= end,
                    "{context:?}: frame {} span {span:?} begins before the previous frame on its set ended ({end})",
                    frame.frame_number
                );
            }
            assert!(span.end_ns >= span.begin_ns, "{context:?}: {span:?} is inverted");
        }
        for span in &frame.spans {
            let end = last_end.entry(span.query_set).or_default();
            *end = (*end).max(span.end_ns);
        }
    }
}

fn check(gpu: &Gpu, work: &Workload, encoders: usize, frames_in_flight: u32) {
    for scenario in scenarios(encoders) {
        let frames = record(gpu, work, &scenario, frames_in_flight, 4);
        assert_eq!(frames.len(), 4);
        for Recorded { frame, timed } in &frames {
            assert_eq!(frame.dropped_spans, scenario.expected_dropped(), "{scenario:?} frame {}", frame.frame_number);
            // Exactly the brackets and passes resolved on their own encoder have a span.
            assert_eq!(timed, &scenario.expected_timed(), "{scenario:?} frame {}", frame.frame_number);
        }
        assert_nothing_stale(&frames, &scenario);
    }
}

#[test]
fn one_encoder_in_every_resolve_order_writes_no_stale_span_and_counts_every_drop() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    check(&gpu, &work, 1, 1);
    check(&gpu, &work, 1, 3);
}

#[test]
fn two_encoders_in_every_resolve_and_submit_order_write_no_stale_span_and_count_every_drop() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    check(&gpu, &work, 2, 1);
}

#[test]
fn three_encoders_in_every_resolve_and_submit_order_write_no_stale_span_and_count_every_drop() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    check(&gpu, &work, 3, 1);
}

/// The reported case: encoder A resolves, one more pass is begun on encoder B and
/// submitted after A, with one timer set reused every frame.
#[test]
fn a_pass_begun_after_another_encoders_resolve_is_dropped_not_given_an_earlier_frames_timestamps() {
    let Some(gpu) = gpu() else { return };
    let work = Workload::new(&gpu);
    let scenario = Scenario { resolves: vec![Resolve::After, Resolve::Never], submit: Submit::Each(vec![0, 1]) };
    let frames = record(&gpu, &work, &scenario, 1, 6);
    for Recorded { frame, timed } in &frames {
        // Encoder B's bracket and pass: both dropped, both counted.
        assert_eq!(frame.dropped_spans, 2);
        assert_eq!(timed, &[(0, GpuPassKind::Encoder), (0, GpuPassKind::Compute)]);
    }
    assert_nothing_stale(&frames, &scenario);
}
