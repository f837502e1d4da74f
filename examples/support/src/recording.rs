//! How every example's test records: a session at level Workload that stops itself at
//! its frame limit, with nothing dropped.

use sgpt_recorder::{Level, MemorySink, ProfileSession, SessionOptions};

use crate::Gpu;

/// Records `frames` frames of `program` at level Workload and returns the capture's bytes.
/// `describe` names the program's pipelines before the session starts; `frame` runs one
/// frame.
///
/// # Panics
/// When the session does not start, a frame fails, or the session stops with a frame
/// count other than `frames` or with dropped spans.
pub fn record_workload<P>(
    gpu: &Gpu,
    frames: u64,
    program: &mut P,
    describe: impl FnOnce(&mut P, &mut ProfileSession),
    mut frame: impl FnMut(&mut P, &mut ProfileSession),
) -> Vec<u8> {
    let sink = MemorySink::new();
    let options = SessionOptions { frame_limit: Some(frames), ..SessionOptions::at(Level::Workload) };
    let mut session = ProfileSession::new(options, sink.clone());
    describe(program, &mut session);
    session.start(&gpu.device, &gpu.queue, &gpu.adapter).expect("the session starts");
    let done = session.finished();
    for _ in 0..frames {
        frame(program, &mut session);
    }
    let summary = pollster::block_on(done).expect("the frame limit stops the session");
    assert_eq!((summary.frames, summary.dropped_spans), (frames, 0));
    sink.take()
}
