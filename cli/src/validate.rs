//! `sgpt validate`: one verdict, the defects, and an exit code CI can gate on.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;

use crate::input;
use crate::json::{self, DefectJson, SCHEMA};

#[derive(Debug, Serialize)]
struct ValidateJson<'p> {
    schema: u32,
    file: &'p str,
    /// `intact` (exit 0), `defects` (exit 1) or `unreadable` (exit 2).
    verdict: &'static str,
    closed: bool,
    frames: usize,
    spans: u64,
    dropped_spans: u64,
    defects: Vec<DefectJson>,
    /// Why the file is unreadable; only with verdict `unreadable`.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<ExitCode> {
    let file = path.display().to_string();
    let unreadable = |error: anyhow::Error| -> anyhow::Result<ExitCode> {
        if as_json {
            json::print(&ValidateJson {
                schema: SCHEMA,
                file: &file,
                verdict: "unreadable",
                closed: false,
                frames: 0,
                spans: 0,
                dropped_spans: 0,
                defects: Vec::new(),
                error: Some(format!("{error:#}")),
            })?;
        }
        Err(error)
    };
    let bytes = match input::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return unreadable(error),
    };
    let capture = match input::open(path, &bytes) {
        Ok(capture) => capture,
        Err(error) => return unreadable(error),
    };
    let checking = input::spinner(input::is_large(&capture, bytes.len()), "checking");
    let defects = capture.verify();
    checking.finish_and_clear();
    let closed = capture.header().closed();
    let intact = closed && defects.is_empty();
    let frames = capture.frames().len();
    if as_json {
        json::print(&ValidateJson {
            schema: SCHEMA,
            file: &file,
            verdict: if intact { "intact" } else { "defects" },
            closed,
            frames,
            spans: capture.span_count(),
            dropped_spans: capture.dropped_span_count(),
            defects: json::defects(&defects),
            error: None,
        })?;
    } else {
        let mut out = io::stdout().lock();
        if intact {
            writeln!(out, "intact: {file} is closed and undamaged ({frames} frames, {} spans)", capture.span_count())?;
        } else {
            let plural = if defects.len() == 1 { "" } else { "s" };
            writeln!(
                out,
                "defects: {file} is readable with {} defect{plural}; {frames} frames recovered{}",
                defects.len(),
                if closed { "" } else { ", never closed" }
            )?;
            for defect in &defects {
                writeln!(out, "  {}", input::printable(&defect.to_string()))?;
            }
        }
    }
    Ok(if intact { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
