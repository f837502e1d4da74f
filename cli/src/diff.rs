//! `sgpt diff`: per-pass deltas from capture A to capture B, each judged by the
//! comparison engine (shift in medians, interval, verdict), and a CI gate on the verdicts.
//!
//! Where the time goes (`perf record`, two hour-long captures, 216,000 frames × 200
//! passes each, 2 threads): it went 39 % to a second, sequential decode of each capture
//! for the engine's samples, 34 % to the statistics' scan, 21 % to `compare` on one
//! thread, 4 % to reading. The samples now come from the scan's decode, in its chunks
//! (`ScanOptions::samples`), and `compare` prepares the passes on every core. Then, on
//! one thread: the scans 53 %, `compare` 40 %, reading 5 %; the engine's share is now
//! about 21 % (the scans about 70 %, reading 7 %), its sums and selections made once
//! (see the engine's `bootstrap` module).
//!
//! The scans, then (`perf record -g`, one thread, 4.6 s): reading the files 15 % (half
//! clearing fresh pages for them, half copying from the page cache); page faults 18 % in
//! all, reading's included, the rest the samples' series as they filled and the copy
//! that concatenated each pass's chunks into one series (173 MB a capture, memory copies
//! 9 % with the engine's); the statistics' loop over the spans, the samples' pushes in it,
//! 19 %; decoding 16 %; opening (checksums) 4 %; the engine 16 %. Now the files are mapped,
//! the usual pass's series is sized for the whole range and each chunk writes its part of
//! it in place, and the captures are analysed one after the other, each on every core:
//! page faults 8 %, nothing read or concatenated, and the peak resident memory 635 MB
//! where it was 855 to 888 MB (two files of 185 MB, their samples 173 MB each).
//! Collecting the samples then cost about a third of a scan without them: a store a span
//! into one of 200 series (each its own stream of pages) and those pages' first touch.
//! Now the spans that go in place are held for 16 frames and written a pass at a time, a
//! cache line each (`frame_block` in the engine's samples): `sgpt diff` of two hours on
//! one thread went from 2.45 s to 2.2–2.3 s. What is left of the samples' cost is mostly
//! those fresh pages, written once. With the scan's durations-alone loop built for
//! x86-64-v3 it is 1.9 s on one thread and 1.05 s on two: the two scans with samples 1.1 s
//! (0.75 s of it without samples), `compare` 0.64 s, whose selections, lagged sums and
//! per-frame terms are now the largest share after the scans. The usual pass's terms are
//! now counted in integers rather than summed in `f64` (17 % of the run to 5 %), and the
//! scan, whose windows around each median now reach the density's bandwidth, hands the
//! engine the order statistics it selected there (`compare::known`), so no series is
//! copied and selected in (selections 13 % to 4 %): 1.78 s on one thread, 1.0 s on two.
//! What was left beyond the two scans was mostly the series themselves, 4 bytes a span:
//! writing them (22 %: the frames' transpose, the writes, their fresh pages) and reading
//! them once more for the per-frame coins (7 %), at this machine's 3 to 4 GB/s a core.
//! The frame block then stayed open across the workload's two shapes (17 % to 9 %).
//! Now the usual pass is kept as coins (`ScanOptions::coins`): each frame's span coded
//! below, inside or above its median's window as the chunks run, and the codes turned
//! into coins once the median is selected, a byte a frame instead of four. The engine
//! reads the coins directly. That is about as fast (1.6–1.7 s on one thread, 0.95 s on
//! two: what the writes save, the codes and the turning into coins cost) and takes a
//! third less memory: peak 439 MB where it was 636 MB. Handing over the durations inside
//! each window as the 32-bit offsets the statistics hold, rather than widened and copied,
//! took it to 1.5–1.6 s and 398 MB; two eight-hour captures, 16.7 s and 4.7 GB at the
//! stop before these changes, then took 7.1 s and 3.0 GB. Rows that make room for what
//! their sample says they will keep, and ranks found by counting rather than by
//! reordering (so the durations inside each window are handed over without a copy), took
//! a tenth off and a third of the fresh pages (64k to 42k): 1.7 s and 1.0 s beside 1.95 s
//! and 1.1 s for the build before them on a slower host, 357 MB; eight hours, 6.8 s and
//! 2.7 GB. Turning the codes into coins was then 8–10 % of a one-thread `diff`, a branch
//! on every frame inside a window; each word of eight frames now takes its verdicts in
//! one table look (5 %). A pair whose figures need the durations (ties whose reason quotes their step,
//! a pass whose interval reads far from its median), or whose scan could not keep coins
//! (a pass with two spans in a frame, a skipped frame), is compared from durations read
//! again; a pipe keeps them from the start, since it cannot be read again.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::analysis::scan::{ScanOptions, scan_parallel};
use sgpt_format::analysis::{PassDelta, StatsReport, deltas as deltas_of};
use sgpt_format::compare::{
    CompareOptions, Comparison, ContextDifference, Finding, PassComparison, RecordingSummary, Samples, Shift, Verdict,
    compare, compare_summaries, context_differences, try_compare,
};
use sgpt_format::wording::counted;
use sgpt_format::{Capture, Defect, GpuPassKind, Meta, SpanKind};

use crate::input::{self, printable};
use crate::json::{self, DeltaJson, FindingJson, SCHEMA};
use crate::output;
use crate::recovered;
use crate::stats;
use crate::table::{Align, Table, signed};

/// The exit code of a gate that tripped: a significant change beyond the threshold.
pub const REGRESSION: u8 = 3;

/// Inconclusive passes the Markdown table shows at most (largest shifts first), so a
/// short capture of many passes still gives a short summary; the rest are counted.
const MARKDOWN_INCONCLUSIVE_ROWS: usize = 10;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The baseline capture A, then the capture B judged against it. With `--vs`, every
    /// capture here is a recording of the baseline.
    #[arg(required = true, value_name = "CAPTURE")]
    captures: Vec<PathBuf>,
    /// Recordings of the candidate, judged against the baseline's recordings before
    /// `--vs`: several runs a side put the spread between runs into the intervals.
    #[arg(long, num_args = 1.., value_name = "CAPTURE")]
    vs: Vec<PathBuf>,
    /// Print the documented JSON contract instead of text (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// `text`, `json`, or `markdown` (a short table for a pull-request summary).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Exit 3 when the GPU frame time or any pass is judged `slower` (or, with `changed`,
    /// `slower` or `faster`).
    #[arg(long, value_enum, value_name = "VERDICT")]
    fail_on: Option<FailOn>,
    /// The practical threshold, relative to A's median: `3%` (or `3`).
    #[arg(long, default_value = "3%", value_parser = parse_percent, value_name = "PCT")]
    threshold: f64,
    /// The smallest shift that matters, whatever the threshold says: `20us`, `0.5ms`,
    /// `800ns` (a bare number is ns).
    #[arg(long, default_value = "1us", value_parser = parse_duration, value_name = "DURATION")]
    min_effect: u64,
    /// The family-wise error rate Holm's correction holds across all tests.
    #[arg(long, default_value_t = 0.05, value_parser = parse_alpha)]
    alpha: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    /// A significant slowdown beyond the threshold.
    Slower,
    /// A significant slowdown or speed-up beyond the threshold.
    Changed,
}

impl FailOn {
    fn name(self) -> &'static str {
        match self {
            FailOn::Slower => "slower",
            FailOn::Changed => "changed",
        }
    }

    fn trips(self, verdict: Verdict) -> bool {
        match self {
            FailOn::Slower => verdict == Verdict::Slower,
            FailOn::Changed => matches!(verdict, Verdict::Slower | Verdict::Faster),
        }
    }
}

/// `3%`, `3 %` or `3` as the fraction 0.03.
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value / 100.0),
        _ => Err(format!("expected a non-negative percentage like 3% or 10, not {text:?}")),
    }
}

/// `20us`, `20µs`, `0.5ms`, `1s`, `800ns` or `800` (ns) as whole nanoseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let scale = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return Err(format!("unknown unit in {text:?}; use ns, us, ms or s")),
    };
    match number.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 && value * scale < u64::MAX as f64 => {
            Ok((value * scale).round() as u64)
        }
        _ => Err(format!("expected a duration like 20us or 800ns, not {text:?}")),
    }
}

fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(alpha) if alpha > 0.0 && alpha < 1.0 => Ok(alpha),
        _ => Err(format!("alpha must be a probability strictly between 0 and 1, not {text:?}")),
    }
}

#[derive(Debug, Serialize)]
struct DiffJson<'p> {
    schema: u32,
    a: SideJson<'p>,
    b: SideJson<'p>,
    /// Sorted by regression: matched passes by median increase, then added, then removed.
    passes: Vec<DeltaJson<'p>>,
    /// The GPU frame time, judged as a pass is.
    frame: FrameJson,
    comparison: ComparisonJson,
    /// Every recording of each side, `a` and `b` above being the first of each (added to
    /// schema 1).
    recordings: RecordingsJson<'p>,
    /// Where the recordings were made differently (level, adapter, driver, timestamps,
    /// settings), each with its value in every recording of A and of B; `[]` when alike
    /// (added to schema 1).
    recorded_differently: Vec<DifferenceJson<'p>>,
}

#[derive(Debug, Serialize)]
struct DifferenceJson<'d> {
    what: &'d str,
    a: &'d [String],
    b: &'d [String],
}

#[derive(Debug, Serialize)]
struct RecordingsJson<'p> {
    a: Vec<SideJson<'p>>,
    b: Vec<SideJson<'p>>,
}

#[derive(Debug, Serialize)]
struct FrameJson {
    median_a_ns: Option<u64>,
    median_b_ns: Option<u64>,
    #[serde(flatten)]
    finding: FindingJson,
}

#[derive(Debug, Serialize)]
struct ComparisonJson {
    method: &'static str,
    correction: &'static str,
    alpha: f64,
    threshold: f64,
    min_effect_ns: u64,
    /// Block length used for A and for B, in frames (with several recordings a side, the
    /// longest of that side's).
    block_frames: [usize; 2],
    /// Recordings compared on A's side and on B's (added to schema 1).
    recordings: [usize; 2],
    /// Tests in Holm's family: the frame time and each pass that could be judged.
    tests: usize,
    /// Passes per verdict, in the order the passes are sorted by (slower first).
    verdicts: VerdictCounts,
    /// `slower` or `changed`, `null` without `--fail-on`.
    fail_on: Option<&'static str>,
    /// Whether the gate tripped (exit 3).
    failed: bool,
}

#[derive(Debug, Serialize)]
struct SideJson<'p> {
    file: &'p str,
    frames: u64,
    spans: u64,
    zero_spans: u64,
    /// Of `zero_spans`, those that ended before they began (added to schema 1).
    inverted_spans: u64,
    defects: Vec<json::DefectJson>,
    /// What opening the capture found: a writer that never stopped, a file cut short,
    /// skipped bytes or records (added to schema 1).
    capture_defects: Vec<json::DefectJson>,
}

fn side(recorded: &Recorded) -> SideJson<'_> {
    let Recorded { file, report, capture_defects, .. } = recorded;
    SideJson {
        file,
        frames: report.frames,
        spans: report.spans,
        zero_spans: report.zero_spans,
        inverted_spans: report.inverted_spans,
        defects: json::defects(&report.defects),
        capture_defects: json::defects(capture_defects),
    }
}

/// One capture's statistics and the per-frame samples the engine reads, from one decode
/// in chunks on every core: exactly `Samples::collect`'s, or with `coins` the usual
/// pass's coins (a byte a frame, see `ScanOptions::coins`) where the scan could keep them,
/// and `None` where it could not; with what the output says of the recording.
fn analyse(path: &Path, coins: bool) -> anyhow::Result<(Recorded, Option<Samples>)> {
    let bytes = input::read(path)?;
    let capture: Capture<'_> = input::open(path, &bytes)?;
    let large = input::is_large(&capture, bytes.len());
    let frames = 0..capture.frames().len();
    let bar = input::bar(frames.len() as u64, large, "analysing");
    let options = ScanOptions { chunks: 0, frame_timing: false, samples: true, coins, ..ScanOptions::default() };
    let scan = scan_parallel(&capture, frames, &options, &|done| bar.inc(done));
    bar.finish_and_clear();
    let recorded = Recorded {
        file: path.display().to_string(),
        report: scan.stats,
        capture_defects: capture.defects().to_vec(),
        meta: capture.meta().cloned(),
    };
    Ok((recorded, scan.samples))
}

/// What the output says of one recording, beside the comparison.
struct Recorded {
    file: String,
    report: StatsReport,
    /// What opening it found: said beside the figures.
    capture_defects: Vec<Defect>,
    /// How it was recorded, where its META says: compared with the other recordings'.
    meta: Option<Meta>,
}

/// How the output names recording `at` of `count` on side `name`: `A`, or `A2` among several.
fn label(name: &str, at: usize, count: usize) -> String {
    if count > 1 { format!("{name}{}", at + 1) } else { name.to_owned() }
}

/// [`analyse`] with samples that keep the durations.
fn durations_of(path: &Path) -> anyhow::Result<Samples> {
    Ok(analyse(path, false)?.1.unwrap_or_default())
}

type KeyRef<'a> = (Option<&'a str>, &'a str, GpuPassKind, SpanKind);

fn key_of(pass: &PassComparison) -> KeyRef<'_> {
    (pass.graph_pass.as_deref(), pass.label.as_str(), pass.kind, pass.span_kind)
}

fn delta_key(delta: &PassDelta) -> KeyRef<'_> {
    (delta.graph_pass.as_deref(), delta.label.as_str(), delta.kind, delta.span_kind)
}

/// A finding for a pass the engine did not list (it lists every pass with spans, so this
/// only covers a report and samples that disagree, which they are built not to).
fn unjudged() -> Finding {
    Finding {
        verdict: Verdict::Inconclusive,
        reason: Some("the pass was not among the samples compared".into()),
        shift: None,
    }
}

/// The recordings of A and of B that `args` name.
fn sides(args: &Args) -> anyhow::Result<(&[PathBuf], &[PathBuf])> {
    match (args.captures.as_slice(), args.vs.as_slice()) {
        (pair @ [_, _], []) => Ok(pair.split_at(1)),
        (captures, []) => anyhow::bail!(
            "diff takes two captures, A and B, not {}; to compare several recordings a side, write \
             `sgpt diff A1 A2 … --vs B1 B2 …`",
            captures.len()
        ),
        (a, b) => Ok((a, b)),
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (a_paths, b_paths) = sides(args)?;
    let options = CompareOptions {
        threshold: args.threshold,
        min_effect_ns: args.min_effect,
        alpha: args.alpha,
        ..CompareOptions::default()
    };
    // One after the other, each on every core: a mapped file has no reading to overlap, and
    // a capture's pages are let go before the next is mapped (one resident at a time). With
    // several recordings a side, each one's samples are summarized and let go at once.
    let several = a_paths.len() + b_paths.len() > 2;
    let mut recorded: [Vec<Recorded>; 2] = [Vec::new(), Vec::new()];
    let mut pair: Vec<(Samples, bool)> = Vec::new();
    let mut summaries: [Vec<RecordingSummary>; 2] = [Vec::new(), Vec::new()];
    // A pair is compared from coins where the scans keep them and no figure needs the
    // durations; otherwise (rare: a pass with two spans in a frame, a skipped frame, or a
    // pass whose interval reads far from its median) from the durations, read again. Only
    // a regular file can be read again: a pipe keeps its durations from the start.
    for (side, paths) in [a_paths, b_paths].into_iter().enumerate() {
        for path in paths {
            let coins = !several && input::is_regular_file(path);
            let (recording, samples) = analyse(path, coins)?;
            recorded[side].push(recording);
            let (samples, coins) = match samples {
                Some(samples) => (samples, coins),
                None => (durations_of(path)?, false),
            };
            if several {
                summaries[side].push(RecordingSummary::of(&samples, &options));
            } else {
                pair.push((samples, coins));
            }
        }
    }
    let side_metas = |side: usize| recorded[side].iter().map(|r| r.meta.as_ref()).collect::<Vec<_>>();
    let differences = context_differences(&side_metas(0), &side_metas(1));
    let comparison = match <[(Samples, bool); 2]>::try_from(pair) {
        Ok([(a, a_coins), (b, b_coins)]) => match try_compare(&a, &b, &options) {
            Some(comparison) => comparison,
            None => {
                let a = if a_coins { durations_of(&a_paths[0])? } else { a };
                let b = if b_coins { durations_of(&b_paths[0])? } else { b };
                compare(&a, &b, &options)
            }
        },
        Err(_) => compare_summaries(&summaries[0], &summaries[1], &options),
    };
    let (a, b) = (&recorded[0][0].report, &recorded[1][0].report);
    let failed = args.fail_on.is_some_and(|fail_on| {
        fail_on.trips(comparison.frame.verdict) || comparison.passes.iter().any(|p| fail_on.trips(p.finding.verdict))
    });
    let format = if args.json { Format::Json } else { args.format };
    match format {
        Format::Json => {
            let deltas = deltas_of(a, b);
            let judged: HashMap<KeyRef<'_>, &PassComparison> =
                comparison.passes.iter().map(|pass| (key_of(pass), pass)).collect();
            let fallback = unjudged();
            let passes = deltas
                .iter()
                .map(|delta| {
                    let finding = judged.get(&delta_key(delta)).map_or(&fallback, |pass| &pass.finding);
                    DeltaJson::new(a, b, delta, finding, comparison.method())
                })
                .collect();
            json::print(&DiffJson {
                schema: SCHEMA,
                a: side(&recorded[0][0]),
                b: side(&recorded[1][0]),
                passes,
                frame: FrameJson {
                    median_a_ns: comparison.frame.shift.as_ref().map(|s| s.median_a_ns),
                    median_b_ns: comparison.frame.shift.as_ref().map(|s| s.median_b_ns),
                    finding: FindingJson::new(&comparison.frame, comparison.method()),
                },
                comparison: ComparisonJson {
                    method: comparison.method(),
                    correction: comparison.correction.name(),
                    alpha: options.alpha,
                    threshold: options.threshold,
                    min_effect_ns: options.min_effect_ns,
                    block_frames: comparison.block_frames,
                    recordings: comparison.recordings,
                    tests: comparison.tests,
                    verdicts: verdict_counts(&comparison),
                    fail_on: args.fail_on.map(FailOn::name),
                    failed,
                },
                recordings: RecordingsJson {
                    a: recorded[0].iter().map(side).collect(),
                    b: recorded[1].iter().map(side).collect(),
                },
                recorded_differently: differences
                    .iter()
                    .map(|d| DifferenceJson { what: &d.what, a: &d.a, b: &d.b })
                    .collect(),
            })?;
        }
        Format::Markdown | Format::Text => {
            let mut out = output::stdout();
            if format == Format::Markdown {
                write_markdown(&mut out, &comparison, &recorded, &differences)?;
            } else {
                write_text(&mut out, &comparison, &recorded, &differences)?;
            }
            // Flushed before the gate's line on stderr, which follows the table.
            out.flush()?;
        }
    }
    if failed {
        let fail_on = args.fail_on.map_or("", FailOn::name);
        let _ = writeln!(io::stderr(), "sgpt: gate --fail-on {fail_on} tripped: exit {REGRESSION}");
        return Ok(ExitCode::from(REGRESSION));
    }
    Ok(ExitCode::SUCCESS)
}

/// Passes per verdict, only the verdicts given, keyed by name. Ordered by [`Verdict`] so
/// the same comparison always prints the same bytes.
#[derive(Debug)]
struct VerdictCounts(BTreeMap<Verdict, usize>);

impl Serialize for VerdictCounts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(verdict, count)| (verdict.name(), count)))
    }
}

fn verdict_counts(comparison: &Comparison) -> VerdictCounts {
    let mut counts = BTreeMap::new();
    for pass in &comparison.passes {
        *counts.entry(pass.finding.verdict).or_insert(0) += 1;
    }
    VerdictCounts(counts)
}

/// A duration for people: ns below 10 µs, µs with one decimal above.
fn duration(ns: i64) -> String {
    if ns.unsigned_abs() < 10_000 { format!("{ns} ns") } else { format!("{:.1} µs", ns as f64 / 1_000.0) }
}

fn signed_duration(ns: i64) -> String {
    if ns > 0 { format!("+{}", duration(ns)) } else { duration(ns) }
}

fn percent(change: f64) -> String {
    format!("{:+.1} %", change * 100.0)
}

fn interval_text(shift: &Shift) -> String {
    match (shift.interval_change(), shift.interval_ns) {
        (Some([low, high]), _) => format!("[{:+.1}, {:+.1}] %", low * 100.0, high * 100.0),
        (None, Some([low, high])) => format!("[{}, {}] ns", signed(low), signed(high)),
        _ => "-".into(),
    }
}

fn threshold_text(comparison: &Comparison) -> String {
    format!(
        "±{} % of A's median or {}, whichever is larger",
        comparison.options.threshold * 100.0,
        duration(i64::try_from(comparison.options.min_effect_ns).unwrap_or(i64::MAX))
    )
}

fn summary(comparison: &Comparison) -> String {
    let [k_a, k_b] = comparison.recordings;
    format!(
        "{}; {}; {}blocks of {} and {} frames",
        comparison.correction_words(),
        comparison.method(),
        if comparison.recordings == [1, 1] { String::new() } else { format!("{k_a} and {k_b} recordings, ") },
        comparison.block_frames[0],
        comparison.block_frames[1]
    )
}

/// What one pair of captures cannot show, said wherever its verdicts are.
fn scope_note(comparison: &Comparison) -> Option<&'static str> {
    (comparison.recordings == [1, 1]).then_some(
        "one recording a side: the intervals hold the noise between frames, not the spread between runs of the \
         program; give several recordings a side (`sgpt diff A1 A2 A3 --vs B1 B2 B3`) to include it",
    )
}

/// What a side's figure is, alone and as A's and B's column heads: a median for one
/// recording a side, the mean of the recordings' medians for several.
fn median_names(comparison: &Comparison) -> [&'static str; 3] {
    if comparison.recordings == [1, 1] {
        ["median", "median A", "median B"]
    } else {
        ["mean median", "mean median A", "mean median B"]
    }
}

fn frame_line(comparison: &Comparison) -> String {
    let finding = &comparison.frame;
    match &finding.shift {
        Some(shift) => format!(
            "GPU frame time: {}, {} {} → {} ({}{}), interval {}",
            finding.verdict.name(),
            median_names(comparison)[0],
            duration(i64::try_from(shift.median_a_ns).unwrap_or(i64::MAX)),
            duration(i64::try_from(shift.median_b_ns).unwrap_or(i64::MAX)),
            signed_duration(shift.delta_ns),
            shift.change.map(|c| format!(", {}", percent(c))).unwrap_or_default(),
            interval_text(shift)
        ),
        None => format!(
            "GPU frame time: {}{}",
            finding.verdict.name(),
            finding.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
        ),
    }
}

/// The lead-in of the note on recordings made differently: "A and B" for a pair, "the
/// recordings" where a side has several (the difference may be within one side).
fn recorded_differently(recorded: &[Vec<Recorded>; 2]) -> String {
    let whose =
        if recorded[0].len() + recorded[1].len() > 2 { "the recordings were made" } else { "A and B were recorded" };
    format!("{whose} differently, so the shifts hold that difference too, not only the change under test")
}

/// The comparison as text, each recording of `recorded` (A's, then B's) named above it with
/// what opening it found, and how they were recorded differently.
fn write_text(
    out: &mut impl Write,
    comparison: &Comparison,
    recorded: &[Vec<Recorded>; 2],
    differences: &[ContextDifference],
) -> io::Result<()> {
    for (name, side) in ["A", "B"].into_iter().zip(recorded) {
        for (at, recording) in side.iter().enumerate() {
            let frames = counted(recording.report.frames, "frame");
            writeln!(out, "{name}: {} ({frames})", printable(&recording.file))?;
            recovered::write(out, &label(name, at, side.len()), &recording.capture_defects)?;
        }
    }
    if !differences.is_empty() {
        writeln!(out, "note: {}:", recorded_differently(recorded))?;
        for difference in differences {
            // Setting names and values come from the captures: printed as data.
            writeln!(out, "  {}: {}", printable(&difference.what), printable(&difference.values()))?;
        }
    }
    writeln!(out, "{}", frame_line(comparison))?;
    let [_, head_a, head_b] = median_names(comparison);
    let mut table = Table::new(&[
        ("verdict", Align::Left),
        ("label", Align::Left),
        ("graph pass", Align::Left),
        (head_a, Align::Right),
        (head_b, Align::Right),
        ("Δ median", Align::Right),
        ("Δ %", Align::Right),
        ("interval", Align::Right),
        ("why", Align::Left),
    ]);
    let dash = || "-".to_owned();
    for pass in &comparison.passes {
        let shift = pass.finding.shift.as_ref();
        table.row(vec![
            pass.finding.verdict.name().to_owned(),
            printable(&pass.label),
            printable(pass.graph_pass.as_deref().unwrap_or("-")),
            shift.map_or_else(dash, |s| s.median_a_ns.to_string()),
            shift.map_or_else(dash, |s| s.median_b_ns.to_string()),
            shift.map_or_else(dash, |s| signed(s.delta_ns)),
            shift.and_then(|s| s.change).map_or_else(dash, |c| format!("{:+.1}", c * 100.0)),
            shift.map_or_else(dash, interval_text),
            pass.finding.reason.clone().unwrap_or_else(|| only_in_one(pass).unwrap_or_default()),
        ]);
    }
    table.write(out)?;
    writeln!(out, "durations in ns; shifts are B − A, so positive is slower")?;
    writeln!(out, "threshold: {}", threshold_text(comparison))?;
    writeln!(out, "{}", summary(comparison))?;
    if let Some(note) = scope_note(comparison) {
        writeln!(out, "note: {note}")?;
    }
    for (name, side) in ["A", "B"].into_iter().zip(recorded) {
        for (at, recording) in side.iter().enumerate() {
            if let Some(note) = stats::zero_note(recording.report.zero_spans, recording.report.inverted_spans) {
                writeln!(out, "note ({}): {note}", label(name, at, side.len()))?;
            }
        }
    }
    Ok(())
}

/// What a pass in one capture only costs there, in words; `None` for a matched pass.
fn only_in_one(pass: &PassComparison) -> Option<String> {
    let side = match pass.finding.verdict {
        Verdict::Added | Verdict::Unculled => "B",
        Verdict::Removed | Verdict::Culled => "A",
        _ => return None,
    };
    pass.cost_per_frame_ns.map(|cost| format!("{cost} ns a frame in {side}"))
}

/// Text inside a Markdown table cell: no line breaks, pipes or control characters.
fn cell(text: &str) -> String {
    printable(text).replace('|', "\\|").replace('`', "'")
}

fn write_markdown(
    out: &mut impl Write,
    comparison: &Comparison,
    recorded: &[Vec<Recorded>; 2],
    differences: &[ContextDifference],
) -> io::Result<()> {
    let side = |side: &[Recorded]| side.iter().map(|r| format!("`{}`", cell(&r.file))).collect::<Vec<_>>().join(", ");
    writeln!(out, "### sgpt diff: {} → {}", side(&recorded[0]), side(&recorded[1]))?;
    writeln!(out)?;
    let notes: Vec<String> = recorded
        .iter()
        .flatten()
        // A line, not a cell: only a backtick would break its code span.
        .filter_map(|r| recovered::markdown_line(&printable(&r.file).replace('`', "'"), &r.capture_defects))
        .collect();
    for note in &notes {
        writeln!(out, "> {note}")?;
    }
    if !differences.is_empty() {
        let each: Vec<String> =
            differences.iter().map(|d| format!("{}: {}", cell(&d.what), cell(&d.values()))).collect();
        let lead = recorded_differently(recorded);
        writeln!(out, "> {}{} ({}).", lead[..1].to_uppercase(), &lead[1..], each.join(" · "))?;
    }
    if !notes.is_empty() || !differences.is_empty() {
        writeln!(out)?;
    }
    writeln!(out, "{}", frame_line(comparison).replace('|', "\\|"))?;
    writeln!(out)?;
    let inconclusive = comparison.passes.iter().filter(|p| p.finding.verdict == Verdict::Inconclusive).count();
    let shown: Vec<&PassComparison> = comparison
        .passes
        .iter()
        .filter(|pass| !matches!(pass.finding.verdict, Verdict::Unchanged | Verdict::Inconclusive))
        .chain(
            comparison
                .passes
                .iter()
                .filter(|pass| pass.finding.verdict == Verdict::Inconclusive)
                .take(MARKDOWN_INCONCLUSIVE_ROWS),
        )
        .collect();
    if !shown.is_empty() {
        let median = median_names(comparison)[0];
        writeln!(out, "| verdict | pass | graph pass | {median} A | {median} B | Δ median | interval | why |")?;
        writeln!(out, "|---|---|---|---:|---:|---:|---:|---|")?;
        for pass in shown {
            let shift = pass.finding.shift.as_ref();
            let ns = |value: u64| duration(i64::try_from(value).unwrap_or(i64::MAX));
            let only = pass.cost_per_frame_ns.map(|cost| format!("{} a frame", ns(cost)));
            writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
                pass.finding.verdict.name(),
                cell(&pass.label),
                pass.graph_pass.as_deref().map_or_else(|| "-".to_owned(), |g| format!("`{}`", cell(g))),
                shift.map_or_else(|| "-".to_owned(), |s| ns(s.median_a_ns)),
                shift.map_or_else(|| "-".to_owned(), |s| ns(s.median_b_ns)),
                shift.map_or_else(
                    || only.unwrap_or_else(|| "-".to_owned()),
                    |s| format!(
                        "{}{}",
                        signed_duration(s.delta_ns),
                        s.change.map(|c| format!(" ({})", percent(c))).unwrap_or_default()
                    )
                ),
                shift.map_or_else(|| "-".to_owned(), interval_text),
                cell(pass.finding.reason.as_deref().unwrap_or("")),
            )?;
        }
        writeln!(out)?;
    }
    let unchanged = comparison.passes.iter().filter(|p| p.finding.verdict == Verdict::Unchanged).count();
    writeln!(
        out,
        "{unchanged} of {} passes unchanged (interval within {}).",
        comparison.passes.len(),
        threshold_text(comparison)
    )?;
    if inconclusive > MARKDOWN_INCONCLUSIVE_ROWS {
        writeln!(
            out,
            "{inconclusive} passes inconclusive, the {MARKDOWN_INCONCLUSIVE_ROWS} with the largest shifts shown; \
             `--json` has every one with its reason."
        )?;
    }
    writeln!(out, "{}.", summary(comparison))?;
    if let Some(note) = scope_note(comparison) {
        writeln!(out, "Note: {note}.")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_duration, parse_percent};

    #[test]
    fn durations_and_percentages_parse_in_their_units() {
        for (text, ns) in [("20us", 20_000), ("20µs", 20_000), ("0.5ms", 500_000), ("1s", 1_000_000_000), ("800", 800)]
        {
            assert_eq!(parse_duration(text), Ok(ns), "{text}");
        }
        assert!(parse_duration("20 parsecs").is_err() && parse_duration("-3us").is_err());
        for (text, fraction) in [("3%", 0.03), ("3 %", 0.03), ("10", 0.1)] {
            assert_eq!(parse_percent(text), Ok(fraction), "{text}");
        }
        assert!(parse_percent("-1%").is_err() && parse_percent("NaN").is_err());
    }
}
