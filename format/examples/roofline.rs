//! Prints the roofline of one capture on this machine as one line of JSON: reading the
//! file's bytes, and decoding every span's duration as the statistics read them
//! (`dev::roofline::durations_only`), each the median of five runs on one core. The
//! inspector bench runs it beside the browser in the same run, so that each of its figures
//! is also a share of the fastest any analysis could read that file here.
//!
//! Run: `cargo run --release -p sgpt-format --example roofline -- CAPTURE`.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use sgpt_format::Capture;
use sgpt_format::dev::roofline::durations_only;

const RUNS: usize = 5;

fn median(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: roofline CAPTURE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("{}: {error}", path.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let capture = match Capture::open(&bytes) {
        Ok(capture) => capture,
        Err(error) => {
            eprintln!("{}: {error}", path.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let read = median(|| drop(black_box(std::fs::read(&path).expect("read a second time"))));
    let mut other_frames = 0;
    let decode = median(|| {
        let (sum, other) = durations_only(&capture);
        other_frames = other;
        black_box(sum);
    });
    let line = serde_json::json!({
        "bytes": bytes.len(),
        "frames": capture.frames().len(),
        "spans": capture.span_count(),
        "read_ms": read.as_secs_f64() * 1e3,
        "decode_ms": decode.as_secs_f64() * 1e3,
        // Frames of other shapes, or damaged, that the roofline did not read (none in a
        // recorder's capture): its time is then for fewer spans than `spans`.
        "other_frames": other_frames,
    });
    println!("{line}");
    ExitCode::SUCCESS
}
