//! Records the wave headless: `sgpt-example-multi-encoder [FRAMES] [three|two|frame] [CAPTURE]`
//! (8 frames, three submits, into `multi-encoder.sgpt` by default), then prints the frame
//! time and the capture's size.

use std::error::Error;
use std::time::Instant;

use sgpt_example_multi_encoder::{Submits, Wave};
use sgpt_recorder::{FileSink, Level, ProfileSession, SessionOptions}; // [sgpt +]

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let frames: u64 = args.next().map_or(Ok(8), |text| text.parse())?;
    let submits = match args.next().as_deref() {
        None | Some("three") => Submits::Three,
        Some("two") => Submits::Two,
        Some("frame") => Submits::Frame,
        Some(other) => return Err(format!("submits: three, two or frame, not {other:?}").into()),
    };
    let path = args.next().unwrap_or_else(|| "multi-encoder.sgpt".to_owned());
    let gpu = sgpt_example_support::device()?;
    let mut wave = Wave::new(&gpu.device);
    let options = SessionOptions { frame_limit: Some(frames), ..SessionOptions::at(Level::Workload) }; // [sgpt +]
    let mut session = ProfileSession::new(options, FileSink::create(&path)?); // [sgpt +]
    wave.describe(&mut session); // [sgpt +]
    session.start(&gpu.device, &gpu.queue, &gpu.adapter)?; // [sgpt +]
    let started = Instant::now();
    for _ in 0..frames {
        wave.frame(&gpu.device, &gpu.queue, submits, Some(&mut session))?; // [sgpt ~]
    }
    let summary = pollster::block_on(session.finished())?; // [sgpt ~]
    let per_frame = started.elapsed() / u32::try_from(frames.max(1))?;
    println!("{frames} frames ({submits:?} submits): {per_frame:?} a frame");
    let bytes_per_frame = summary.bytes_written / summary.frames.max(1); // [sgpt +]
    println!("{path}: {} bytes, {bytes_per_frame} a frame", summary.bytes_written); // [sgpt +]
    Ok(())
}
