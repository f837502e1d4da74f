//! Records the drawing headless: `sgpt-example-vello [FRAMES] [CAPTURE]` (8 frames into
//! `vello.sgpt` by default), then prints the frame time and the capture's size.

use std::error::Error;
use std::time::Instant;

use sgpt_example_vello::Drawing;
use sgpt_recorder::{FileSink, Level, ProfileSession, SessionOptions}; // [sgpt +]

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let frames: u64 = args.next().map_or(Ok(8), |text| text.parse())?;
    let path = args.next().unwrap_or_else(|| "vello.sgpt".to_owned());
    let gpu = sgpt_example_support::device()?;
    let mut drawing = Drawing::new(&gpu.device)?;
    let options = SessionOptions::at(Level::Workload); // [sgpt +]
    let mut session = ProfileSession::new(options, FileSink::create(&path)?); // [sgpt +]
    session.start(&gpu.device, &gpu.queue, &gpu.adapter)?; // [sgpt +]
    let started = Instant::now();
    for _ in 0..frames {
        drawing.frame(&gpu.device, &gpu.queue, Some(&mut session))?; // [sgpt ~]
    }
    gpu.device.poll(wgpu::PollType::wait_indefinitely())?; // [sgpt +]
    drawing.collect_profiler_results(&gpu.queue, &mut session); // [sgpt +]
    let per_frame = started.elapsed() / u32::try_from(frames.max(1))?;
    let summary = pollster::block_on(session.stop())?; // [sgpt +]
    println!("{frames} frames: {per_frame:?} a frame");
    let bytes_per_frame = summary.bytes_written / summary.frames.max(1); // [sgpt +]
    println!("{path}: {} bytes, {bytes_per_frame} a frame", summary.bytes_written); // [sgpt +]
    Ok(())
}
