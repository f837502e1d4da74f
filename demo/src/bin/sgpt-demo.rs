//! `sgpt-demo`: renders the demo scene headless on whatever Vulkan adapter exists and
//! writes a capture.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> anyhow::Result<()> {
    native::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::path::PathBuf;

    use anyhow::{Context as _, Result};
    use clap::Parser;
    use sgpt_demo::memory::{DemoMemory, process_ledger};
    use sgpt_demo::{SceneOptions, native};
    use sgpt_recorder::timing::{self, Collector, TimingLevel};
    use sgpt_recorder::{FileSink, Level, MemorySource, ProfileSession};

    /// Renders the demo scene headless and records it into a .sgpt capture.
    #[derive(Debug, Parser)]
    #[command(version)]
    struct Args {
        /// Frames to record.
        #[arg(long, default_value_t = 600)]
        frames: u64,
        /// timing, structure, workload or verbose.
        #[arg(long, default_value = "workload", value_parser = parse_level)]
        level: Level,
        /// Where to write the capture.
        #[arg(short = 'o', long, default_value = "demo.sgpt")]
        output: PathBuf,
        /// Scales resolution, shadow maps, cube and particle counts (1 suits software renderers).
        #[arg(long, default_value_t = 1.0)]
        scale: f32,
        /// A note stored in the capture.
        #[arg(long, default_value = "")]
        note: String,
        /// off, trace or full: collect CPU timing entries and print a per-track summary.
        #[arg(long, default_value = "off", value_parser = parse_timing)]
        timing: TimingLevel,
        /// Record no memory profile: no domain gauges, no scene-reload capture and no
        /// provider metrics.
        #[arg(long)]
        no_memory: bool,
        /// Record no provider metrics (provider/gpu.declared_bytes, provider/wgpu.*,
        /// provider/wasm.linear_memory), keeping the rest of the memory profile. Each adds
        /// about 9 bytes to every frame.
        #[arg(long)]
        no_providers: bool,
        /// Make this GPU pass heavier, by `--slow-by`, to measure what `sgpt diff` finds:
        /// `bloom down` (each level's blur drawn again over that share of its rows, first)
        /// or one of the HZB passes (`hzb copy depth`, `hzb downsample mip N`, which
        /// dispatch again over that share of their rows). The image is unchanged.
        #[arg(long, value_name = "LABEL", requires = "slow_by")]
        slow_pass: Option<String>,
        /// The share of `--slow-pass`'s work done again: `75%` (or `75`), at most 100 %.
        /// How much longer the pass takes for it depends on the pass and the device: on
        /// lavapipe, 75 % of `bloom down`'s rows again add about 10 % to its time.
        #[arg(long, value_name = "PCT", requires = "slow_pass", value_parser = parse_percent)]
        slow_by: Option<f32>,
    }

    fn parse_percent(text: &str) -> Result<f32, String> {
        match text.trim().trim_end_matches('%').trim().parse::<f32>() {
            Ok(value) if value.is_finite() && (0.0..=100.0).contains(&value) => Ok(value / 100.0),
            _ => Err(format!("expected a percentage from 0 to 100 like 10%, not {text:?}")),
        }
    }

    fn parse_timing(name: &str) -> Result<TimingLevel, String> {
        TimingLevel::from_name(name).ok_or_else(|| format!("unknown timing level {name:?}: off, trace or full"))
    }

    fn parse_level(name: &str) -> Result<Level, String> {
        Level::from_name(name).ok_or_else(|| format!("unknown level {name:?}: timing, structure, workload or verbose"))
    }

    pub fn main() -> Result<()> {
        let args = Args::parse();
        anyhow::ensure!(args.frames > 0, "--frames must be at least 1");
        // The entry point attaches the timing sink: a process-wide side effect.
        if args.timing != TimingLevel::Off {
            timing::attach(Collector::new());
            timing::set_level(args.timing);
        }
        let mut scene_options = SceneOptions { scale: args.scale, ..SceneOptions::default() };
        if let (Some(label), Some(by)) = (&args.slow_pass, args.slow_by) {
            scene_options = scene_options.with_heavier_pass(label, by).with_context(|| {
                format!(
                    "--slow-pass {label:?} cannot be made heavier; one of: {}",
                    SceneOptions::heavier_pass_labels().join(", ")
                )
            })?;
        }
        let (adapter, device, queue, mut scene) = native::scene(scene_options)?;
        let mut options = native::session_options(&scene, args.level, Some(args.frames));
        options.note = args.note;
        // Domains are registered before the session starts, so its gauges include them.
        let size = scene.size();
        let mut memory = (!args.no_memory).then(|| DemoMemory::new(process_ledger(), size.instances(), size.particles));
        if let Some(memory) = &memory {
            options.memory = Some(MemorySource(memory.ledger()));
            options.providers = !args.no_providers;
            if let Some(error) = memory.begin_error() {
                eprintln!("sgpt-demo: no memory capture, gauges only: {error}");
            }
        }
        let sink = FileSink::create(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
        let mut session = ProfileSession::new(options, sink);
        let started = std::time::Instant::now();
        let summary = native::record_with_memory(
            &mut scene,
            memory.as_mut(),
            &mut session,
            &adapter,
            &device,
            &queue,
            args.frames,
        )?;
        let info = adapter.get_info();
        println!(
            "recorded {} frames at level {} on {} ({}) in {:.1} s: {} bytes, {} dropped spans -> {}",
            summary.frames,
            summary.level,
            info.name,
            info.backend.to_str(),
            started.elapsed().as_secs_f64(),
            summary.bytes_written,
            summary.dropped_spans,
            args.output.display()
        );
        if args.timing != TimingLevel::Off {
            print_timing();
        }
        Ok(())
    }

    /// Per-track totals of the collected entries (no frame track natively: no shares).
    fn print_timing() {
        let retention = timing::retention();
        let entries = timing::drain();
        println!("timing: {} entries, {} dropped (cap {})", entries.len(), retention.dropped, retention.cap);
        for track in timing::summarize(&entries) {
            println!(
                "  {:<14} {:>6} spans  total {:>9.3} ms  mean {:>8.4} ms{}",
                track.track,
                track.count,
                track.total_ms,
                track.mean_ms,
                if track.concurrent { "  (overlapping)" } else { "" }
            );
        }
    }
}
