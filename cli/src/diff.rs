//! `sgpt diff`: per-pass deltas from capture A to capture B, sorted by regression.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::analysis::{DeltaStatus, StatsReport, compare};

use crate::input::{self, printable};
use crate::json::{self, DeltaJson, SCHEMA};
use crate::stats;
use crate::table::{Align, Table, signed};

#[derive(Debug, Serialize)]
struct DiffJson<'p> {
    schema: u32,
    a: SideJson<'p>,
    b: SideJson<'p>,
    /// Sorted by regression: matched passes by median increase, then added, then removed.
    passes: Vec<DeltaJson>,
}

#[derive(Debug, Serialize)]
struct SideJson<'p> {
    file: &'p str,
    frames: u64,
    spans: u64,
    zero_spans: u64,
    defects: Vec<json::DefectJson>,
}

fn side<'p>(file: &'p str, report: &StatsReport) -> SideJson<'p> {
    SideJson {
        file,
        frames: report.frames,
        spans: report.spans,
        zero_spans: report.zero_spans,
        defects: json::defects(&report.defects),
    }
}

fn analyse(path: &Path) -> anyhow::Result<StatsReport> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let large = input::is_large(&capture, bytes.len());
    Ok(stats::report(&capture, 0..capture.frames().len(), large))
}

pub fn run(a_path: &Path, b_path: &Path, as_json: bool) -> anyhow::Result<ExitCode> {
    let a = analyse(a_path)?;
    let b = analyse(b_path)?;
    let deltas = compare(&a, &b);
    let (a_file, b_file) = (a_path.display().to_string(), b_path.display().to_string());
    if as_json {
        json::print(&DiffJson {
            schema: SCHEMA,
            a: side(&a_file, &a),
            b: side(&b_file, &b),
            passes: deltas.iter().map(|delta| DeltaJson::new(&a, &b, delta)).collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = io::stdout().lock();
    writeln!(out, "A: {} ({} frames)", printable(&a_file), a.frames)?;
    writeln!(out, "B: {} ({} frames)", printable(&b_file), b.frames)?;
    let mut table = Table::new(&[
        ("status", Align::Left),
        ("label", Align::Left),
        ("graph pass", Align::Left),
        ("median A", Align::Right),
        ("median B", Align::Right),
        ("Δ median", Align::Right),
        ("Δ %", Align::Right),
        ("Δ p95", Align::Right),
        ("Δ total/frame", Align::Right),
    ]);
    let dash = || "-".to_owned();
    for delta in &deltas {
        table.row(vec![
            match delta.status() {
                DeltaStatus::Matched => String::new(),
                status => status.name().to_owned(),
            },
            printable(&delta.label),
            printable(delta.graph_pass.as_deref().unwrap_or("-")),
            delta.a.as_ref().map_or_else(dash, |pass| pass.median_ns.to_string()),
            delta.b.as_ref().map_or_else(dash, |pass| pass.median_ns.to_string()),
            delta.median_delta_ns.map_or_else(dash, signed),
            delta.median_change.map_or_else(dash, |change| format!("{:+.1}", change * 100.0)),
            delta.p95_delta_ns.map_or_else(dash, signed),
            signed(delta.total_per_frame_delta_ns),
        ]);
    }
    table.write(&mut out)?;
    writeln!(out, "durations in ns; deltas are B − A, so positive is slower")?;
    for (name, report) in [("A", &a), ("B", &b)] {
        if let Some(note) = stats::zero_note(report.zero_spans) {
            writeln!(out, "note ({name}): {note}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
