//! `sgpt export --chrome`: Chrome Trace Event JSON for Perfetto.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sgpt_format::chrome;

use crate::input::{self, printable};
use crate::recovered;

pub fn run(path: &Path, chrome_out: &Path) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let bar = input::bar(capture.frames().len() as u64, input::is_large(&capture, bytes.len()), "exporting");
    let progress = |done: usize| bar.set_position(done as u64);
    let to_stdout = chrome_out == Path::new("-");
    let summary = if to_stdout {
        chrome::export_with_progress(&capture, io::stdout().lock(), progress)
    } else {
        let file = File::create(chrome_out).with_context(|| format!("{}: cannot create", chrome_out.display()))?;
        chrome::export_with_progress(&capture, file, progress)
    }
    .with_context(|| format!("{}: export failed", chrome_out.display()))?;
    bar.finish_and_clear();

    // The report goes to stderr, so `--chrome -` keeps stdout pure JSON.
    let mut err = io::stderr().lock();
    writeln!(
        err,
        "wrote {}: {} events, {} bytes, {} frames{}",
        printable(&chrome_out.display().to_string()),
        summary.events,
        summary.bytes,
        summary.frames_exported,
        if summary.frames_skipped > 0 { format!(", {} frames skipped", summary.frames_skipped) } else { String::new() }
    )?;
    for defect in &summary.defects {
        writeln!(err, "  skipped: {}", printable(&defect.to_string()))?;
    }
    recovered::write(&mut err, "the capture", capture.defects())?;
    Ok(ExitCode::SUCCESS)
}
