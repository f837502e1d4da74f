//! `sgpt validate`: one verdict, the defects, and an exit code CI can gate on.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::ReadableCounts;
use sgpt_format::analysis::check::verify_parallel;

use crate::input;
use crate::json::{self, DefectJson, SCHEMA};
use crate::output;

/// An indexed frame that does not read back, named by its number.
#[derive(Debug, Serialize)]
pub struct LostFrameJson {
    /// Its position in the frame index.
    pub index: usize,
    pub frame_number: u64,
    /// Why: the defect's kind and offset, as in `defects`.
    pub kind: &'static str,
    pub offset: u64,
}

/// The counts beside `frames`, `spans` and `dropped_spans` (which count what reads back):
/// the index's claims where they differ, and every frame lost, so no count hides a loss.
#[derive(Debug, Default, Serialize)]
pub struct IndexedCountsJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames_indexed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spans_indexed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_spans_indexed: Option<u64>,
    pub lost_frames: Vec<LostFrameJson>,
    /// Offsets of records whose header says FRAM that never reached the index: frames
    /// lost without a number that can be trusted.
    pub unindexed_frame_records: Vec<u64>,
}

impl IndexedCountsJson {
    pub fn new(counts: &ReadableCounts) -> Self {
        let differs = |readable: u64, indexed: u64| (readable != indexed).then_some(indexed);
        Self {
            frames_indexed: (counts.frames != counts.frames_indexed).then_some(counts.frames_indexed),
            spans_indexed: differs(counts.spans, counts.spans_indexed),
            dropped_spans_indexed: differs(counts.dropped_spans, counts.dropped_spans_indexed),
            lost_frames: counts
                .lost
                .iter()
                .map(|lost| LostFrameJson {
                    index: lost.index,
                    frame_number: lost.frame_number,
                    kind: lost.defect.kind.name(),
                    offset: lost.defect.offset,
                })
                .collect(),
            unindexed_frame_records: counts.unindexed_frame_records.clone(),
        }
    }
}

/// `N`, or `N of M indexed` where the index claims more than reads back.
pub fn count_text(readable: u64, indexed: u64) -> String {
    if readable == indexed { readable.to_string() } else { format!("{readable} of {indexed} indexed") }
}

/// Every frame lost, by number, and every frame record that never reached the index: the
/// text form shared by `validate` and `info`.
pub fn losses(counts: &ReadableCounts) -> Vec<String> {
    let lost = counts
        .lost
        .iter()
        .map(|lost| format!("frame {} ({} at {:#x})", lost.frame_number, lost.defect.kind, lost.defect.offset));
    let unindexed = counts
        .unindexed_frame_records
        .iter()
        .map(|at| format!("a frame record at {at:#x}, never indexed, its number unknown"));
    lost.chain(unindexed).collect()
}

#[derive(Debug, Serialize)]
struct ValidateJson<'p> {
    schema: u32,
    file: &'p str,
    /// `intact` (exit 0), `defects` (exit 1) or `unreadable` (exit 2).
    verdict: &'static str,
    closed: bool,
    /// Frames, spans and dropped spans that read back.
    frames: usize,
    spans: u64,
    dropped_spans: u64,
    #[serde(flatten)]
    indexed: IndexedCountsJson,
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
                indexed: IndexedCountsJson::default(),
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
    let (defects, counts) = verify_parallel(&capture);
    checking.finish_and_clear();
    let closed = capture.header().closed();
    let intact = closed && defects.is_empty();
    if as_json {
        json::print(&ValidateJson {
            schema: SCHEMA,
            file: &file,
            verdict: if intact { "intact" } else { "defects" },
            closed,
            frames: counts.frames,
            spans: counts.spans,
            dropped_spans: counts.dropped_spans,
            indexed: IndexedCountsJson::new(&counts),
            defects: json::defects(&defects),
            error: None,
        })?;
    } else {
        let mut out = output::stdout();
        if intact {
            writeln!(out, "intact: {file} is closed and undamaged ({} frames, {} spans)", counts.frames, counts.spans)?;
        } else {
            writeln!(
                out,
                "defects: {file} is readable with {}; {} frames and {} spans read back{}{}",
                sgpt_format::wording::counted(defects.len() as u64, "defect"),
                count_text(counts.frames as u64, counts.frames_indexed as u64),
                count_text(counts.spans, counts.spans_indexed),
                if closed { "" } else { ", never closed" },
                match losses(&counts) {
                    lost if lost.is_empty() => String::new(),
                    lost => format!("; lost: {}", lost.join("; ")),
                }
            )?;
            for defect in &defects {
                writeln!(out, "  {}", input::printable(&defect.to_string()))?;
            }
        }
        out.flush()?;
    }
    Ok(if intact { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
