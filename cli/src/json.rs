//! The `--json` contract (documented in `cli/README.md`). Every output carries
//! `"schema": SCHEMA`; fields are only ever added within a schema version. Changing or
//! removing one bumps it.

use std::io::Write;

use serde::Serialize;
use sgpt_format::analysis::{PassDelta, PassStats, StatsReport};
use sgpt_format::compare::Finding;
use sgpt_format::frame_timing::{Figure, FrameTiming, LOW_COVERAGE};
use sgpt_format::{Defect, GpuPassKind, SpanKind};

pub const SCHEMA: u32 = 1;

/// A defect as `{kind, offset, detail}`, `kind` being `DefectKind::name()`.
#[derive(Debug, Serialize)]
pub struct DefectJson {
    pub kind: &'static str,
    pub offset: u64,
    pub detail: String,
}

impl From<&Defect> for DefectJson {
    fn from(defect: &Defect) -> Self {
        Self { kind: defect.kind.name(), offset: defect.offset, detail: defect.detail.clone() }
    }
}

pub fn defects(defects: &[Defect]) -> Vec<DefectJson> {
    defects.iter().map(DefectJson::from).collect()
}

/// One pass's statistics, all durations in ns: the library's [`PassStats`] as it
/// serializes, then the pass's share of a frame.
#[derive(Debug, Serialize)]
pub struct PassJson<'r> {
    #[serde(flatten)]
    pub stats: &'r PassStats,
    pub total_per_frame_ns: u64,
}

impl<'r> PassJson<'r> {
    pub fn new(report: &StatsReport, pass: &'r PassStats) -> Self {
        Self { stats: pass, total_per_frame_ns: report.total_per_frame_ns(pass) }
    }
}

/// One pass compared between A and B; deltas are B − A in ns.
#[derive(Debug, Serialize)]
pub struct DeltaJson<'d> {
    pub label: String,
    pub graph_pass: Option<String>,
    pub kind: GpuPassKind,
    pub span_kind: SpanKind,
    /// `matched`, `added` (only in B) or `removed` (only in A).
    pub status: &'static str,
    pub a: Option<PassJson<'d>>,
    pub b: Option<PassJson<'d>>,
    pub median_delta_ns: Option<i64>,
    pub p95_delta_ns: Option<i64>,
    pub mean_delta_ns: Option<i64>,
    pub total_per_frame_delta_ns: i64,
    pub median_change: Option<f64>,
    /// The comparison engine's judgement of this pass (added to schema 1).
    #[serde(flatten)]
    pub finding: FindingJson,
}

/// A verdict with its estimate and interval, all durations in ns, shifts B − A.
#[derive(Debug, Serialize)]
pub struct FindingJson {
    /// `slower`, `faster`, `unchanged`, `inconclusive`, `added`, `removed`, `culled` or
    /// `unculled`.
    pub verdict: &'static str,
    /// Why, for `inconclusive`; `null` otherwise.
    pub reason: Option<String>,
    /// The shift of the median; `null` unless the pass is on both sides and was judged.
    pub estimate_ns: Option<i64>,
    pub estimate_change: Option<f64>,
    pub interval_ns: Option<[i64; 2]>,
    pub interval_change: Option<[f64; 2]>,
    /// The interval's confidence, after Holm's correction.
    pub confidence: Option<f64>,
    pub standard_error_ns: Option<f64>,
    /// The practical threshold the shift was judged against.
    pub threshold_ns: Option<u64>,
    pub method: &'static str,
}

impl FindingJson {
    /// `method` is the comparison's ([`sgpt_format::compare::Comparison::method`]).
    pub fn new(finding: &Finding, method: &'static str) -> Self {
        let shift = finding.shift.as_ref();
        Self {
            verdict: finding.verdict.name(),
            reason: finding.reason.clone(),
            estimate_ns: shift.map(|s| s.delta_ns),
            estimate_change: shift.and_then(|s| s.change),
            interval_ns: shift.and_then(|s| s.interval_ns),
            interval_change: shift.and_then(sgpt_format::compare::Shift::interval_change),
            confidence: shift.and_then(|s| s.confidence),
            standard_error_ns: shift.and_then(|s| s.standard_error_ns),
            threshold_ns: shift.map(|s| s.threshold_ns),
            method,
        }
    }
}

impl<'d> DeltaJson<'d> {
    pub fn new(
        a: &StatsReport,
        b: &StatsReport,
        delta: &'d PassDelta,
        finding: &Finding,
        method: &'static str,
    ) -> Self {
        Self {
            label: delta.label.clone(),
            graph_pass: delta.graph_pass.clone(),
            kind: delta.kind,
            span_kind: delta.span_kind,
            status: delta.status().name(),
            a: delta.a.as_ref().map(|pass| PassJson::new(a, pass)),
            b: delta.b.as_ref().map(|pass| PassJson::new(b, pass)),
            median_delta_ns: delta.median_delta_ns,
            p95_delta_ns: delta.p95_delta_ns,
            mean_delta_ns: delta.mean_delta_ns,
            total_per_frame_delta_ns: delta.total_per_frame_delta_ns,
            median_change: delta.median_change,
            finding: FindingJson::new(finding, method),
        }
    }
}

/// Writes `value` as pretty JSON and a newline to standard output.
pub fn print(value: &impl Serialize) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Order statistics of one per-frame figure, or why it cannot be computed: every number
/// is `null` and `unavailable` holds the reason (added to schema 1).
#[derive(Debug, Serialize)]
pub struct FigureJson {
    pub count: u64,
    pub min: Option<u64>,
    pub median: Option<u64>,
    pub p95: Option<u64>,
    pub max: Option<u64>,
    /// `false` when the median and p95 come from a systematic sample (over 262,144 values).
    pub exact: bool,
    pub unavailable: Option<String>,
}

impl FigureJson {
    pub fn new(figure: &Figure) -> Self {
        match figure {
            Figure::Measured(summary) => Self {
                count: summary.count,
                min: Some(summary.min),
                median: Some(summary.median),
                p95: Some(summary.p95),
                max: Some(summary.max),
                exact: summary.exact,
                unavailable: None,
            },
            Figure::Unavailable(reason) => Self {
                count: 0,
                min: None,
                median: None,
                p95: None,
                max: None,
                exact: true,
                unavailable: Some(reason.clone()),
            },
        }
    }
}

/// The share of each frame's GPU interval its pass spans cover, in `[0, 1]`.
#[derive(Debug, Serialize)]
pub struct CoverageJson {
    pub count: u64,
    pub min: Option<f64>,
    pub median: Option<f64>,
    pub p95: Option<f64>,
    pub max: Option<f64>,
    pub exact: bool,
    /// Covered nanoseconds over interval nanoseconds, summed over the capture.
    pub overall: Option<f64>,
    pub unavailable: Option<String>,
    /// The median share below which `low` is set and the statement printed.
    pub threshold: f64,
    pub low: bool,
    /// The measured fact in a sentence, when `low`.
    pub statement: Option<String>,
}

/// Frame timing over the frames analysed (added to schema 1). Each figure is on one clock.
#[derive(Debug, Serialize)]
pub struct FrameTimingJson {
    pub frames: u64,
    pub gpu_interval_ns: FigureJson,
    pub cpu_interval_ns: FigureJson,
    pub cpu_frame_time_ns: FigureJson,
    pub submit_to_readback_ns: FigureJson,
    pub recorder_cost_ns: FigureJson,
    pub span_coverage: CoverageJson,
    /// Consecutive pairs whose later first span does not begin after the earlier one's.
    pub gpu_unordered_pairs: u64,
    /// Consecutive pairs of frames that both have CPU times whose later CPU begin is not
    /// after the earlier one's.
    pub cpu_unordered_pairs: u64,
    /// Frames whose readback time precedes their submit time.
    pub readback_before_submit_frames: u64,
    /// Pass spans that read exactly 0 ns: they cover nothing, so quantized timestamps (or
    /// spans that ended before they began) understate `span_coverage`.
    pub zero_pass_spans: u64,
    /// Of `zero_pass_spans`, those that ended before they began (added to schema 1).
    pub inverted_pass_spans: u64,
    /// Frames whose CPU begin and end are both 0: they have no CPU times and the CPU
    /// figures leave them out (added to schema 1).
    pub frames_without_cpu: u64,
}

impl FrameTimingJson {
    pub fn new(timing: &FrameTiming) -> Self {
        let share = |ppm: u64| FrameTiming::coverage_share(ppm);
        let coverage = timing.coverage_ppm.summary();
        Self {
            frames: timing.frames,
            gpu_interval_ns: FigureJson::new(&timing.gpu_interval),
            cpu_interval_ns: FigureJson::new(&timing.cpu_interval),
            cpu_frame_time_ns: FigureJson::new(&timing.cpu_frame_time),
            submit_to_readback_ns: FigureJson::new(&timing.latency),
            recorder_cost_ns: FigureJson::new(&timing.recorder_cost),
            span_coverage: CoverageJson {
                count: coverage.map_or(0, |s| s.count),
                min: coverage.map(|s| share(s.min)),
                median: coverage.map(|s| share(s.median)),
                p95: coverage.map(|s| share(s.p95)),
                max: coverage.map(|s| share(s.max)),
                exact: coverage.is_none_or(|s| s.exact),
                overall: timing.coverage_overall,
                unavailable: timing.coverage_ppm.reason().map(str::to_owned),
                threshold: LOW_COVERAGE,
                low: timing.low_coverage(),
                statement: timing.coverage_statement(),
            },
            gpu_unordered_pairs: timing.gpu_unordered_pairs,
            cpu_unordered_pairs: timing.cpu_unordered_pairs,
            readback_before_submit_frames: timing.latency_negative,
            zero_pass_spans: timing.zero_spans,
            inverted_pass_spans: timing.inverted_spans,
            frames_without_cpu: timing.frames_without_cpu,
        }
    }
}
