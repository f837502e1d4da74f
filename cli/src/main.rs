#![doc = include_str!("../README.md")]
//!
//! Errors are reported once, in `main`; exit codes are in the README's table.

mod diff;
mod export;
mod info;
mod input;
mod json;
mod memory;
mod output;
mod recovered;
mod stats;
mod synth;
mod table;
mod validate;
mod workload;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "sgpt", version, about = "Validate, summarize, compare and export .sgpt GPU frame captures")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Header, context, frames, spans, topologies, graph passes with their GPU passes, defects.
    Info {
        file: PathBuf,
        /// Print the documented JSON contract instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check a capture: exit 0 when closed and intact, 1 when readable with defects,
    /// 2 when unreadable.
    Validate {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Per GPU pass statistics: count, zero-duration count, min/median/p95/max/total in ns.
    Stats {
        file: PathBuf,
        /// Half-open range of frame indices, `A..B` (`A..` and `..B` too).
        #[arg(long, value_name = "A..B", value_parser = stats::parse_range)]
        frames: Option<stats::FrameRange>,
        #[arg(long)]
        json: bool,
    },
    /// Compare capture B with capture A: per pass and for the GPU frame time, the shift in
    /// medians with an interval and a verdict (slower, faster, unchanged, inconclusive,
    /// added, removed, culled, unculled). With --fail-on, exit 3 on a significant change
    /// beyond the threshold. `sgpt diff A1 A2 A3 --vs B1 B2 B3` compares several recordings
    /// a side, the spread between runs in the intervals.
    Diff(diff::Args),
    /// Export Chrome Trace Event JSON, for Perfetto or chrome://tracing.
    Export {
        file: PathBuf,
        /// Where to write the trace (`-` for standard output).
        #[arg(long, value_name = "OUT.json")]
        chrome: PathBuf,
    },
    /// Memory domains (live, peak, traffic, validity), site traffic, allocation sizes,
    /// checkpoint differences with survivors, reconciliation and loss.
    Memory {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Write a deterministic synthetic capture (the standard workload by default).
    Synth(synth::Args),
    /// Per GPU pass: dispatches and draws per frame, pipelines with workgroup sizes,
    /// invocations, indirect arguments (encoded and resolved) and attachments.
    Workload {
        file: PathBuf,
        /// Half-open range of frame indices, `A..B` (`A..` and `..B` too).
        #[arg(long, value_name = "A..B", value_parser = stats::parse_range)]
        frames: Option<stats::FrameRange>,
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // The one place errors are reported (handle each error once).
            let _ = writeln!(io::stderr(), "sgpt: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Info { file, json } => info::run(&file, json),
        Command::Validate { file, json } => validate::run(&file, json),
        Command::Stats { file, frames, json } => stats::run(&file, frames, json),
        Command::Diff(args) => diff::run(&args),
        Command::Export { file, chrome } => export::run(&file, &chrome),
        Command::Memory { file, json } => memory::run(&file, json),
        Command::Synth(args) => synth::run(&args),
        Command::Workload { file, frames, json } => workload::run(&file, frames, json),
    }
}

/// `sgpt stats … | head` closes the pipe early; that is not a failure. A JSON writer's
/// I/O error is inside `serde_json::Error`, whose source does not lead to it.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| cause.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind));
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}
