//! `sgpt stats`: per GPU pass statistics over a frame range.

use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use serde::Serialize;
use sgpt_format::Capture;
use sgpt_format::analysis::StatsReport;
use sgpt_format::analysis::scan::{ScanOptions, scan_parallel};
use sgpt_format::frame_timing::{Figure, FrameTiming};

use crate::input::{self, printable};
use crate::json::{self, DefectJson, FrameTimingJson, PassJson, SCHEMA};
use crate::output;
use crate::recovered;
use crate::table::{Align, Table};

/// `--frames A..B` as typed: either end may be left open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRange {
    pub start: Option<usize>,
    pub end: Option<usize>,
}

/// Parses `A..B`, `A..` or `..B` (frame indices, half-open).
pub fn parse_range(text: &str) -> Result<FrameRange, String> {
    let Some((start, end)) = text.split_once("..") else {
        return Err(format!("expected a half-open range of frame indices like 0..600, not {text:?}"));
    };
    let bound = |part: &str| -> Result<Option<usize>, String> {
        if part.is_empty() {
            return Ok(None);
        }
        part.parse().map(Some).map_err(|_| format!("{part:?} is not a frame index in {text:?}"))
    };
    let range = FrameRange { start: bound(start)?, end: bound(end)? };
    if let (Some(start), Some(end)) = (range.start, range.end)
        && start >= end
    {
        return Err(format!("the range {text} is empty: A must be less than B"));
    }
    Ok(range)
}

impl FrameRange {
    /// The concrete range for a capture of `frames` frames, or why it does not fit.
    pub fn resolve(self, frames: usize) -> anyhow::Result<Range<usize>> {
        let start = self.start.unwrap_or(0);
        let end = self.end.unwrap_or(frames);
        if end > frames || start >= end {
            bail!("--frames {start}..{end} is outside the capture's {frames} frames (valid indices: 0..{frames})");
        }
        Ok(start..end)
    }
}

#[derive(Debug, Serialize)]
struct StatsJson<'p> {
    schema: u32,
    file: &'p str,
    /// The half-open frame-index range asked for, `[start, end]`.
    frame_range: [usize; 2],
    /// Frames analysed (the range less skipped frames).
    frames: u64,
    spans: u64,
    zero_spans: u64,
    /// Of `zero_spans`, those that ended before they began (added to schema 1).
    inverted_spans: u64,
    dropped_spans: u64,
    passes: Vec<PassJson<'p>>,
    /// Frames skipped because they could not be decoded.
    defects: Vec<DefectJson>,
    /// Frame intervals, latency, span coverage and recorder cost over the range.
    frame_timing: FrameTimingJson,
    /// What opening the capture found: a writer that never stopped, a file cut short,
    /// skipped bytes or records (added to schema 1).
    capture_defects: Vec<DefectJson>,
}

/// Per-pass statistics of `range` and, with `timing`, its frame timing: each frame decoded
/// once, chunks of frames on every core, with a progress bar on large captures.
pub fn analyse(
    capture: &Capture<'_>,
    range: Range<usize>,
    large: bool,
    timing: bool,
) -> (StatsReport, Option<FrameTiming>) {
    let bar = input::bar(range.len() as u64, large, "analysing");
    let options = ScanOptions { chunks: 0, frame_timing: timing, ..ScanOptions::default() };
    let scan = scan_parallel(capture, range, &options, &|frames| bar.inc(frames));
    bar.finish_and_clear();
    (scan.stats, scan.timing)
}

fn percent(ppm: u64) -> String {
    format!("{:.1} %", 100.0 * FrameTiming::coverage_share(ppm))
}

/// How a row prints a value: nanoseconds, or a share.
type Show = fn(u64) -> String;
/// The figures of the frame timing table.
const ROWS: usize = 6;

/// The frame timing table, the coverage statement and a line per figure that could not
/// be computed, saying why.
pub fn write_frame_timing(out: &mut impl Write, timing: &FrameTiming) -> io::Result<()> {
    let mut table = Table::new(&[
        ("frame timing", Align::Left),
        ("count", Align::Right),
        ("min", Align::Right),
        ("median", Align::Right),
        ("p95", Align::Right),
        ("max", Align::Right),
        ("", Align::Left),
    ]);
    let mut unavailable = Vec::new();
    let rows: [(&str, &Figure, Show); ROWS] = [
        ("GPU frame interval", &timing.gpu_interval, |ns| format!("{ns} ns")),
        ("CPU frame interval", &timing.cpu_interval, |ns| format!("{ns} ns")),
        ("CPU frame time", &timing.cpu_frame_time, |ns| format!("{ns} ns")),
        ("recorder cost", &timing.recorder_cost, |ns| format!("{ns} ns")),
        ("submit to readback", &timing.latency, |ns| format!("{ns} ns")),
        ("span coverage", &timing.coverage_ppm, percent),
    ];
    for (name, figure, show) in rows {
        match figure {
            Figure::Measured(summary) => table.row(vec![
                name.to_owned(),
                summary.count.to_string(),
                show(summary.min),
                show(summary.median),
                show(summary.p95),
                show(summary.max),
                if summary.exact { String::new() } else { "(median, p95 from a systematic sample)".to_owned() },
            ]),
            Figure::Unavailable(reason) => unavailable.push((name, reason)),
        }
    }
    // A header over no rows says nothing; the reasons below say everything.
    if unavailable.len() < ROWS {
        table.write(out)?;
    }
    for (name, reason) in unavailable {
        writeln!(out, "{name}: not computed: {reason}")?;
    }
    // With no CPU times anywhere the lines above already say so; a partial absence is
    // named here, since the CPU counts alone would not say why they are short.
    if timing.frames_without_cpu > 0 && timing.frames_without_cpu < timing.frames {
        writeln!(
            out,
            "note: {} of {} frames have no CPU times (begin and end 0): the CPU figures leave them out",
            timing.frames_without_cpu, timing.frames
        )?;
    }
    if let (Some(cost), Some(frame)) = (timing.recorder_cost.summary(), timing.cpu_frame_time.summary())
        && frame.median > 0
    {
        writeln!(
            out,
            "recorder cost: median {} ns, {:.1} % of the median CPU frame time",
            cost.median,
            100.0 * cost.median as f64 / frame.median as f64
        )?;
    }
    if let Some(statement) = timing.coverage_statement() {
        writeln!(out, "note: {statement}")?;
    }
    Ok(())
}

/// The honesty line for spans that read exactly 0 ns: quantized timestamps are said, never
/// hidden. `zero_spans` read 0 ns, and `inverted` of them ended before they began
/// (inverted, or a counter that wrapped: SGPT_FORMAT.md §5), which counts as 0 ns; the
/// others began and ended at the same reported time, timestamps quantized coarser than
/// the pass (as browsers do). Each cause is named with its count, and only where it applies.
pub fn zero_note(zero_spans: u64, inverted: u64) -> Option<String> {
    const QUANTIZED: &str = "timestamps quantized (browsers round them to 100 µs unless \
         chrome://flags/#enable-webgpu-developer-features is on; aggregate across frames)";
    const INVERTED: &str = "(inverted, or the device's counter wrapped), which counts as 0 ns";
    let quantized = zero_spans.saturating_sub(inverted);
    (zero_spans > 0).then(|| match (quantized, inverted) {
        (_, 0) => format!("{zero_spans} spans read exactly 0 ns: {QUANTIZED}"),
        (0, _) => format!("{zero_spans} spans read exactly 0 ns: each ended before it began {INVERTED}"),
        _ => format!(
            "{zero_spans} spans read exactly 0 ns: {quantized} with {QUANTIZED}; {inverted} with an end before its begin {INVERTED}"
        ),
    })
}

pub fn run(path: &Path, frames: Option<FrameRange>, as_json: bool) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let count = capture.frames().len();
    let range = match frames {
        Some(frames) => frames.resolve(count).map_err(|error| error.context(path.display().to_string()))?,
        None => 0..count,
    };
    let large = input::is_large(&capture, bytes.len());
    let (report, timing) = analyse(&capture, range.clone(), large, true);
    let Some(timing) = timing else { bail!("frame timing was asked for and not computed") };
    let file = path.display().to_string();
    if as_json {
        json::print(&StatsJson {
            schema: SCHEMA,
            file: &file,
            frame_range: [range.start, range.end],
            frames: report.frames,
            spans: report.spans,
            zero_spans: report.zero_spans,
            inverted_spans: report.inverted_spans,
            dropped_spans: report.dropped_spans,
            passes: report.passes.iter().map(|pass| PassJson::new(&report, pass)).collect(),
            defects: json::defects(&report.defects),
            frame_timing: FrameTimingJson::new(&timing),
            capture_defects: json::defects(capture.defects()),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = output::stdout();
    writeln!(
        out,
        "{}: frames {}..{} ({} analysed), {} spans, {} dropped",
        printable(&file),
        range.start,
        range.end,
        report.frames,
        report.spans,
        report.dropped_spans
    )?;
    recovered::write(&mut out, "the capture", capture.defects())?;
    let mut table = Table::new(&[
        ("label", Align::Left),
        ("graph pass", Align::Left),
        ("kind", Align::Left),
        ("count", Align::Right),
        ("zero", Align::Right),
        ("min ns", Align::Right),
        ("median ns", Align::Right),
        ("p95 ns", Align::Right),
        ("max ns", Align::Right),
        ("total ns", Align::Right),
    ]);
    for pass in &report.passes {
        let kind = match pass.span_kind {
            sgpt_format::SpanKind::Pass => pass.kind.name().to_owned(),
            sgpt_format::SpanKind::SubPass => format!("{} (sub-pass)", pass.kind.name()),
        };
        table.row(vec![
            printable(&pass.label),
            printable(pass.graph_pass.as_deref().unwrap_or("-")),
            kind,
            pass.count.to_string(),
            pass.zero_count.to_string(),
            pass.min_ns.to_string(),
            pass.median_ns.to_string(),
            pass.p95_ns.to_string(),
            pass.max_ns.to_string(),
            pass.total_ns.to_string(),
        ]);
    }
    table.write(&mut out)?;
    if let Some(note) = zero_note(report.zero_spans, report.inverted_spans) {
        writeln!(out, "note: {note}")?;
    }
    writeln!(out)?;
    write_frame_timing(&mut out, &timing)?;
    if !report.defects.is_empty() {
        writeln!(out, "skipped {} frames:", report.defects.len())?;
        for defect in &report.defects {
            writeln!(out, "  {}", printable(&defect.to_string()))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_with_open_ends_and_are_checked_against_the_capture() {
        assert_eq!(parse_range("10..20"), Ok(FrameRange { start: Some(10), end: Some(20) }));
        assert_eq!(parse_range("10.."), Ok(FrameRange { start: Some(10), end: None }));
        assert_eq!(parse_range("..20"), Ok(FrameRange { start: None, end: Some(20) }));
        assert!(parse_range("20..10").unwrap_err().contains("empty"));
        assert!(parse_range("5").is_err());
        assert!(parse_range("a..3").unwrap_err().contains("not a frame index"));
        assert_eq!(parse_range("..").unwrap().resolve(600).unwrap(), 0..600);
        assert_eq!(parse_range("590..").unwrap().resolve(600).unwrap(), 590..600);
        assert!(parse_range("0..601").unwrap().resolve(600).unwrap_err().to_string().contains("600 frames"));
        assert!(parse_range("600..").unwrap().resolve(600).is_err());
    }

    #[test]
    fn the_zero_note_names_each_cause_with_its_count_and_only_where_it_applies() {
        assert_eq!(zero_note(0, 0), None);
        let quantized = zero_note(5, 0).expect("a note");
        assert!(quantized.starts_with("5 spans read exactly 0 ns: timestamps quantized"), "{quantized}");
        assert!(!quantized.contains("ended before"), "{quantized}");
        let inverted = zero_note(2, 2).expect("a note");
        assert!(inverted.starts_with("2 spans read exactly 0 ns: each ended before it began"), "{inverted}");
        assert!(!inverted.contains("quantized"), "{inverted}");
        let both = zero_note(7, 3).expect("a note");
        assert!(both.starts_with("7 spans read exactly 0 ns: 4 with timestamps quantized"), "{both}");
        assert!(both.contains("; 3 with an end before its begin (inverted"), "{both}");
    }
}
