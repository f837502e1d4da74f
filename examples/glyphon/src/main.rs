//! Records the caption headless: `sgpt-example-glyphon [FRAMES] [CAPTURE]` (8 frames into
//! `glyphon.sgpt` by default), then prints the frame time and the capture's size.

use std::error::Error;
use std::time::Instant;

use sgpt_example_glyphon::Caption;
use sgpt_recorder::{FileSink, Level, ProfileSession, SessionOptions}; // [sgpt +]

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let frames: u64 = args.next().map_or(Ok(8), |text| text.parse())?;
    let path = args.next().unwrap_or_else(|| "glyphon.sgpt".to_owned());
    let gpu = sgpt_example_support::device()?;
    let mut caption = Caption::new(&gpu.device, &gpu.queue);
    let options = SessionOptions { frame_limit: Some(frames), ..SessionOptions::at(Level::Workload) }; // [sgpt +]
    let mut session = ProfileSession::new(options, FileSink::create(&path)?); // [sgpt +]
    session.start(&gpu.device, &gpu.queue, &gpu.adapter)?; // [sgpt +]
    let started = Instant::now();
    for _ in 0..frames {
        caption.frame(&gpu.device, &gpu.queue, Some(&mut session))?; // [sgpt ~]
    }
    let summary = pollster::block_on(session.finished())?; // [sgpt ~]
    let per_frame = started.elapsed() / u32::try_from(frames.max(1))?;
    println!("{frames} frames: {per_frame:?} a frame");
    let bytes_per_frame = summary.bytes_written / summary.frames.max(1); // [sgpt +]
    println!("{path}: {} bytes, {bytes_per_frame} a frame", summary.bytes_written); // [sgpt +]
    Ok(())
}
