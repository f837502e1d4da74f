//! Records the jobs headless: `sgpt-example-threads [FRAMES] [CAPTURE]` (8 frames, into
//! `threads.sgpt` by default), then prints the frame time and the capture's size.

use std::error::Error;
use std::time::Instant;

use sgpt_example_threads::Jobs;
use sgpt_recorder::{FileSink, Level, ProfileSession, SessionOptions}; // [sgpt +]

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let frames: u64 = args.next().map_or(Ok(8), |text| text.parse())?;
    let path = args.next().unwrap_or_else(|| "threads.sgpt".to_owned());
    let gpu = sgpt_example_support::device()?;
    let jobs = Jobs::new(&gpu.device);
    let options = SessionOptions { frame_limit: Some(frames), ..SessionOptions::at(Level::Workload) }; // [sgpt +]
    let mut session = ProfileSession::new(options, FileSink::create(&path)?); // [sgpt +]
    jobs.describe(&mut session); // [sgpt +]
    session.start(&gpu.device, &gpu.queue, &gpu.adapter)?; // [sgpt +]
    let started = Instant::now();
    for _ in 0..frames {
        jobs.frame(&gpu.device, &gpu.queue, Some(&mut session))?; // [sgpt ~]
    }
    let summary = pollster::block_on(session.finished())?; // [sgpt ~]
    let per_frame = started.elapsed() / u32::try_from(frames.max(1))?;
    println!("{frames} frames of {} jobs on worker threads: {per_frame:?} a frame", sgpt_example_threads::JOBS);
    let bytes_per_frame = summary.bytes_written / summary.frames.max(1); // [sgpt +]
    println!("{path}: {} bytes, {bytes_per_frame} a frame", summary.bytes_written); // [sgpt +]
    Ok(())
}
