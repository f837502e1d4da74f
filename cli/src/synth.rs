//! `sgpt synth`: deterministic synthetic captures for benches, fixtures and scale tests.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, Workload, workload_with};
use sgpt_format::{
    CounterDef, CounterSample, CounterUnit, Declaration, Level, MEMORY_GAUGE_FIELDS, Note, memory_gauge_name,
    provider_gauge_name,
};

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
    /// Also sample memory domain gauges (scene, particles, scratch) and provider metrics
    /// every frame, as the recorder in a browser does: wasm linear memory and GPU declared
    /// bytes sampled, wgpu's buffer memory declared but unavailable, with its NOTE.
    #[arg(long)]
    memory: bool,
    /// Another run of the same workload: the frame-to-frame variation (and any drift) is
    /// drawn from this seed, each pass's typical duration still from `--seed`.
    #[arg(long, value_name = "SEED")]
    run: Option<u64>,
    /// Make the GPU pass with this label slower, by `--slow-by`, in every frame.
    #[arg(long, value_name = "LABEL", requires = "slow_by")]
    slow_pass: Option<String>,
    /// How much slower `--slow-pass` is: `10%` (or `10`).
    #[arg(long, value_name = "PCT", requires = "slow_pass", value_parser = crate::diff::parse_percent)]
    slow_by: Option<f64>,
    /// A slow frame-wide drift, as thermal throttling gives: every pass of a frame scaled
    /// by one factor whose logarithm wanders with this standard deviation (`1.5%`).
    #[arg(long, value_name = "PCT", value_parser = crate::diff::parse_percent)]
    drift: Option<f64>,
    /// The drift's correlation time in frames.
    #[arg(long, value_name = "FRAMES", default_value_t = 30.0, requires = "drift")]
    drift_frames: f64,
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
    let changes = SynthChanges {
        run: args.run,
        slow_pass: args.slow_pass.clone().zip(args.slow_by),
        drift: args.drift.map(|sigma| Drift { sigma, frames: args.drift_frames }),
    };
    // The generator builds the whole workload in memory before writing it.
    let mut workload = workload_with(&options, &changes);
    if let Some(label) = &args.slow_pass
        && !workload.topologies.iter().any(|t| t.gpu_passes.iter().any(|pass| &pass.label == label))
    {
        bail!("--slow-pass {}: no GPU pass has that label (`sgpt info` lists them)", printable(label));
    }
    if args.memory {
        add_memory(&mut workload);
    }
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

/// Domains of `--memory`: name, live bytes at frame `f`, block size and bytes churned (allocated
/// and freed) each frame.
type LiveBytes = fn(u64) -> u64;
const DOMAINS: [(&str, LiveBytes, u64, u64); 3] = [
    // A scene loaded (48 MiB) and unloaded to 8 MiB every 300 frames.
    ("scene", |f| if (f / 300) % 2 == 0 { 48 << 20 } else { 8 << 20 }, 1 << 20, 0),
    // Particles growing 32 KiB a frame, reset every 120 frames.
    ("particles", |f| (4 << 20) + (f % 120) * (32 << 10), 32 << 10, 32 << 10),
    // Per-frame scratch, freed within the frame.
    ("scratch", |f| (f % 4) * (256 << 10), 256 << 10, 1 << 20),
];

/// Adds `--memory`'s gauges and providers to `workload`, deterministically from the frame
/// index. Values follow one another as the recorder's counters would: live = allocated -
/// freed, a running peak, counts in whole blocks.
fn add_memory(workload: &mut Workload) {
    let first = workload
        .declarations
        .iter()
        .filter_map(|d| if let Declaration::Counter(c) = d { Some(c.id + 1) } else { None })
        .max()
        .unwrap_or(0);
    let mut id = first;
    let mut next = || {
        id += 1;
        id - 1
    };
    for (domain, ..) in DOMAINS {
        for (field, unit) in MEMORY_GAUGE_FIELDS {
            let name = memory_gauge_name(domain, field);
            workload.declarations.push(Declaration::Counter(CounterDef { id: next(), name, unit }));
        }
    }
    let providers = [
        ("wasm.linear_memory", CounterUnit::Bytes),
        ("gpu.declared_bytes", CounterUnit::Bytes),
        ("wgpu.buffer_memory", CounterUnit::Bytes),
    ];
    let provider_ids: Vec<u32> = providers
        .iter()
        .map(|&(metric, unit)| {
            let id = next();
            workload.declarations.push(Declaration::Counter(CounterDef {
                id,
                name: provider_gauge_name(metric),
                unit,
            }));
            id
        })
        .collect();
    let frames = workload.frames.len() as u64;
    // Per domain: live bytes at the previous frame, running peak, bytes ever allocated.
    let mut state = [(0u64, 0u64, 0u64); DOMAINS.len()];
    for (f, frame) in workload.frames.iter_mut().enumerate() {
        let f = f as u64;
        for (d, &(_, live, block, churn)) in DOMAINS.iter().enumerate() {
            let live = live(f);
            let (previous, peak, allocated) = &mut state[d];
            *allocated += live.saturating_sub(*previous) + churn;
            *peak = (*peak).max(live);
            *previous = live;
            let (allocated, freed) = (*allocated, *allocated - live);
            let values = [live, live / block, *peak, allocated, freed, allocated / block, freed / block, 0, 1];
            for (field, value) in values.into_iter().enumerate() {
                let counter = first + (d * MEMORY_GAUGE_FIELDS.len() + field) as u32;
                frame.counters.push(CounterSample { counter, value: value as f64 });
            }
        }
        // Linear memory grows in 4 MiB steps and never shrinks; declared bytes follow the
        // resolution change halfway. wgpu's counters do not exist in a browser: no sample.
        let linear = (64 << 20) + (f / 600).min(16) * (4 << 20);
        let declared: u64 = if f < frames / 2 { 256 << 20 } else { 320 << 20 };
        frame.counters.push(CounterSample { counter: provider_ids[0], value: linear as f64 });
        frame.counters.push(CounterSample { counter: provider_ids[1], value: declared as f64 });
    }
    if let Some(first_frame) = workload.frames.first().map(|f| f.frame_number) {
        let text =
            format!("provider {} unavailable: the browser's WebGPU exposes no internal counters", providers[2].0);
        workload.notes.insert(0, Note { frame_number: first_frame, text });
    }
}
