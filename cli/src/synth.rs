//! `sgpt synth`: deterministic synthetic captures for benches, fixtures and scale tests.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use sgpt_format::Level;
use sgpt_format::synth::{SynthOptions, workload};

use crate::input::printable;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Frames to generate.
    #[arg(long, default_value_t = 600)]
    frames: u32,
    /// GPU passes per frame (in scopes of 10).
    #[arg(long, default_value_t = 200)]
    passes: u32,
    /// Recording level: timing, structure, workload or verbose.
    #[arg(long, default_value = "timing", value_parser = parse_level)]
    level: Level,
    /// Random seed; the same seed always gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Floor every timestamp to a multiple of NS, as a default Chrome does at 100000.
    #[arg(long, value_name = "NS")]
    quantize: Option<u64>,
    /// Where to write the capture.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
}

fn parse_level(text: &str) -> Result<Level, String> {
    Level::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Level::ALL.iter().map(|level| level.name()).collect();
        format!("unknown level {text:?}; expected one of {}", names.join(", "))
    })
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let options = SynthOptions {
        frames: args.frames,
        passes: args.passes,
        level: args.level,
        seed: args.seed,
        quantize_ns: args.quantize.filter(|&q| q > 0),
    };
    // The generator builds the whole workload in memory before writing it.
    let workload = workload(&options);
    let out = &args.output;
    let file = File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    // `File` is a Sink: each record goes straight to disk, and the header is patched at stop.
    let file = workload.write(file).with_context(|| format!("{}: cannot write the capture", out.display()))?;
    file.sync_all().with_context(|| format!("{}: cannot write the capture", out.display()))?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let spans = workload.span_count();
    let per_span = if spans > 0 { format!(", {:.2} B/span", bytes as f64 / spans as f64) } else { String::new() };
    writeln!(
        io::stdout().lock(),
        "wrote {}: {} frames, {spans} spans, {} topologies, level {}, {bytes} bytes{per_span}",
        printable(&out.display().to_string()),
        workload.frames.len(),
        workload.topologies.len(),
        options.level
    )?;
    Ok(ExitCode::SUCCESS)
}
