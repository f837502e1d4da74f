//! `sgpt memory`: memory domains, site traffic, checkpoint differences, reconciliation,
//! loss and provider metrics, from the capture's MEMO records and its per-frame gauges.
//! The analysis is `sgpt_format::memory_analysis`, shared with the inspector; this file
//! maps it onto the `--json` contract (cli/README.md) and the text tables.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::memory_analysis::{
    self, CheckpointDiff, DomainRow, FrameSampler, GaugeScan, Gauges, ProviderSummary, RecordLoss, SiteTraffic,
    SizeBucket,
};
use sgpt_format::wording::counted;
use sgpt_format::{Capture, CounterUnit, Defect, MemoryLoss, MemoryRecursionLoss};

use crate::input::{self, printable};
use crate::json::{self, SCHEMA};
use crate::output;
use crate::recovered;
use crate::table::{Align, Table};

/// Survivors listed per checkpoint difference, oldest first; the counts cover them all.
const SURVIVORS_SHOWN: usize = 20;

#[derive(Debug, Default, Serialize)]
struct DomainJson {
    name: String,
    live_bytes: Option<u64>,
    peak_bytes: Option<u64>,
    allocated_bytes: Option<u64>,
    freed_bytes: Option<u64>,
    allocations: Option<u64>,
    frees: Option<u64>,
    failures: Option<u64>,
    /// `None` when the source has no validity (a gauge set without a `valid` gauge).
    valid: Option<bool>,
}

#[derive(Debug, Default, Serialize)]
struct SiteJson {
    id: u32,
    name: String,
    file: String,
    line: u32,
    column: u32,
    allocations: u64,
    allocated_bytes: u64,
    frees: u64,
    freed_bytes: u64,
    failures: u64,
}

#[derive(Debug, Serialize)]
struct BucketJson {
    /// Sizes in `[min_bytes, max_bytes]`; power-of-two buckets.
    min_bytes: u64,
    max_bytes: u64,
    allocations: u64,
    bytes: u64,
}

#[derive(Debug, Serialize)]
struct SurvivorJson {
    epoch: u64,
    seq: u64,
    domain: String,
    site: u32,
    size: u64,
    age_ops: u64,
    age_time: u64,
}

#[derive(Debug, Serialize)]
struct CheckpointJson {
    capture: u64,
    from: String,
    to: String,
    expectation: sgpt_format::MemoryExpectation,
    exact: bool,
    /// False when operations up to the later checkpoint were lost: the interval is incomplete.
    journal_complete: bool,
    expectation_violated: bool,
    new_live_blocks: usize,
    new_live_bytes: u64,
    released_blocks: usize,
    released_bytes: u64,
    survivor_blocks: usize,
    survivor_bytes: u64,
    survivors: Vec<SurvivorJson>,
}

#[derive(Debug, Serialize)]
struct ReconcileJson {
    domain: String,
    counter_live_bytes: u64,
    tracked_live_bytes: u64,
    /// `null` when the journal lost operations before the terminal checkpoint.
    journal_net_bytes: Option<i128>,
}

#[derive(Debug, Serialize)]
struct ReconciliationJson {
    /// `exact`, `mismatch`, `bounded` (activity mode: the tracked live set is within the
    /// counters), or `unavailable` (no record, or loss).
    status: &'static str,
    /// Why, naming the domain or the loss; `null` when exact.
    reason: Option<String>,
    domains: Vec<ReconcileJson>,
}

#[derive(Debug, Serialize)]
struct CaptureJson {
    capture: u64,
    /// `activity` (began late: frees of older blocks are unknown-baseline) or `complete`.
    mode: sgpt_format::MemoryMode,
    begin_seq: u64,
    end_seq: u64,
    events: usize,
    checkpoints: usize,
    complete: bool,
}

#[derive(Debug, Serialize)]
struct LossJson {
    capture: u64,
    journal: Option<LossEntryJson>,
    table: Option<LossEntryJson>,
    recursion: Option<RecursionJson>,
}

#[derive(Debug, Serialize)]
struct LossEntryJson {
    reason: sgpt_format::MemoryLossReason,
    first_lost_seq: u64,
    domain: u32,
    count: u64,
}

impl From<MemoryLoss> for LossEntryJson {
    fn from(loss: MemoryLoss) -> Self {
        Self { reason: loss.reason, first_lost_seq: loss.first_lost_seq, domain: loss.domain, count: loss.count }
    }
}

#[derive(Debug, Serialize)]
struct RecursionJson {
    count: u64,
    domain: u32,
    after_seq: u64,
}

impl From<MemoryRecursionLoss> for RecursionJson {
    fn from(loss: MemoryRecursionLoss) -> Self {
        Self { count: loss.count, domain: loss.domain, after_seq: loss.after_seq }
    }
}

#[derive(Debug, Serialize)]
struct ProviderJson {
    name: String,
    unit: CounterUnit,
    /// False when no frame sampled it: then `last`, `min` and `max` are `null`, never 0.
    available: bool,
    last: Option<u64>,
    min: Option<u64>,
    max: Option<u64>,
    samples: u64,
    /// Why it is unavailable, from the writer's NOTE; `null` when available or unexplained.
    reason: Option<String>,
}

#[derive(Debug, Serialize)]
struct MemoryJson<'p> {
    schema: u32,
    file: &'p str,
    memory_records: usize,
    /// One entry per memory record, in file order.
    captures: Vec<CaptureJson>,
    /// Where the domain table comes from: `memory_record` (the last record's terminal
    /// checkpoint), `gauges` (the last per-frame gauge values) or `none`.
    source: &'static str,
    domains: Vec<DomainJson>,
    sites: Vec<SiteJson>,
    size_distribution: Vec<BucketJson>,
    checkpoints: Vec<CheckpointJson>,
    reconciliation: ReconciliationJson,
    /// `null` when every memory record is complete.
    loss: Option<Vec<LossJson>>,
    unknown_baseline_frees: u64,
    ownership_errors: u64,
    /// Provider metrics (`provider/<metric>` counters), each its own quantity.
    providers: Vec<ProviderJson>,
    /// What opening the capture found: a writer that never stopped, a file cut short,
    /// skipped bytes or records (added to schema 1).
    capture_defects: Vec<json::DefectJson>,
}

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let file = path.to_string_lossy();
    let gauges = read_gauges(&capture, input::is_large(&capture, bytes.len()));
    let report = analyse(&capture, &gauges, &file);
    if as_json {
        json::print(&report)?;
    } else {
        let mut out = output::stdout();
        write_text(&mut out, &report, capture.defects())?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Every frame's gauges and providers (the inspector samples; a report reads them all),
/// with a progress bar on large captures.
fn read_gauges(capture: &Capture<'_>, large: bool) -> Gauges {
    let sampler = FrameSampler::all(capture.frames().len());
    let mut scan = GaugeScan::new(capture, sampler, false);
    let bar = input::bar(sampler.len() as u64, large && !scan.is_empty(), "memory gauges");
    while !scan.step(capture, 1024) {
        bar.set_position((scan.progress() * sampler.len() as f64) as u64);
    }
    bar.finish_and_clear();
    scan.finish()
}

fn analyse<'p>(capture: &Capture<'_>, gauges: &Gauges, file: &'p str) -> MemoryJson<'p> {
    let records = capture.memory_records();
    let table = memory_analysis::domain_table(records, Some(gauges));
    let losses = memory_analysis::losses(records);
    let health = memory_analysis::health_totals(records);
    let reconciliation = memory_analysis::reconcile(records.last());
    MemoryJson {
        schema: SCHEMA,
        file,
        memory_records: records.len(),
        captures: memory_analysis::record_summaries(records)
            .into_iter()
            .map(|r| CaptureJson {
                capture: r.capture,
                mode: r.mode,
                begin_seq: r.begin_seq,
                end_seq: r.end_seq,
                events: r.events,
                checkpoints: r.checkpoints,
                complete: r.complete,
            })
            .collect(),
        source: table.source.map_or("none", |source| source.as_str()),
        domains: table.rows.iter().map(domain_json).collect(),
        sites: memory_analysis::site_ranking(records).into_iter().map(site_json).collect(),
        size_distribution: memory_analysis::size_distribution(records).iter().map(bucket_json).collect(),
        checkpoints: records
            .iter()
            .flat_map(|record| {
                memory_analysis::checkpoint_diffs(record)
                    .iter()
                    .map(|diff| checkpoint_json(record, diff))
                    .collect::<Vec<_>>()
            })
            .collect(),
        reconciliation: ReconciliationJson {
            status: reconciliation.status.as_str(),
            reason: reconciliation.reason,
            domains: reconciliation
                .domains
                .into_iter()
                .map(|d| ReconcileJson {
                    domain: d.domain,
                    counter_live_bytes: d.counter_live_bytes,
                    tracked_live_bytes: d.tracked_live_bytes,
                    journal_net_bytes: d.journal_net_bytes,
                })
                .collect(),
        },
        loss: (!losses.is_empty()).then(|| losses.iter().map(loss_json).collect()),
        unknown_baseline_frees: health.unknown_baseline_frees,
        ownership_errors: health.ownership_errors,
        providers: gauges.providers.iter().map(|p| provider_json(&p.summary)).collect(),
        capture_defects: json::defects(capture.defects()),
    }
}

fn domain_json(row: &DomainRow) -> DomainJson {
    DomainJson {
        name: row.name.clone(),
        live_bytes: row.live_bytes,
        peak_bytes: row.peak_bytes,
        allocated_bytes: row.allocated_bytes,
        freed_bytes: row.freed_bytes,
        allocations: row.allocations,
        frees: row.frees,
        failures: row.failures,
        valid: row.valid,
    }
}

fn site_json(site: SiteTraffic) -> SiteJson {
    SiteJson {
        id: site.id,
        name: site.name,
        file: site.file,
        line: site.line,
        column: site.column,
        allocations: site.allocations,
        allocated_bytes: site.allocated_bytes,
        frees: site.frees,
        freed_bytes: site.freed_bytes,
        failures: site.failures,
    }
}

fn bucket_json(bucket: &SizeBucket) -> BucketJson {
    BucketJson {
        min_bytes: bucket.min_bytes,
        max_bytes: bucket.max_bytes,
        allocations: bucket.allocations,
        bytes: bucket.bytes,
    }
}

fn checkpoint_json(record: &sgpt_format::MemoryRecord, diff: &CheckpointDiff) -> CheckpointJson {
    CheckpointJson {
        capture: diff.capture,
        from: diff.from_name.clone(),
        to: diff.to_name.clone(),
        expectation: diff.expectation,
        exact: diff.exact,
        journal_complete: diff.journal_complete,
        expectation_violated: diff.expectation_violated,
        new_live_blocks: diff.new_live.len(),
        new_live_bytes: diff.new_live_bytes,
        released_blocks: diff.released.len(),
        released_bytes: diff.released_bytes,
        survivor_blocks: diff.survivors.len(),
        survivor_bytes: diff.survivor_bytes,
        survivors: diff
            .survivors
            .iter()
            .take(SURVIVORS_SHOWN)
            .map(|s| SurvivorJson {
                epoch: s.block.lifetime.epoch,
                seq: s.block.lifetime.seq,
                domain: memory_analysis::domain_name(record, s.block.domain),
                site: s.block.site,
                size: s.block.size,
                age_ops: s.age_ops,
                age_time: s.age_time,
            })
            .collect(),
    }
}

fn loss_json(loss: &RecordLoss) -> LossJson {
    LossJson {
        capture: loss.capture,
        journal: loss.journal.map(Into::into),
        table: loss.table.map(Into::into),
        recursion: loss.recursion.map(Into::into),
    }
}

fn provider_json(provider: &ProviderSummary) -> ProviderJson {
    ProviderJson {
        name: provider.name.clone(),
        unit: provider.unit,
        available: provider.is_available(),
        last: provider.last,
        min: provider.min,
        max: provider.max,
        samples: provider.samples,
        reason: provider.reason.clone(),
    }
}

fn opt(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// `report` as text; `defects` (the capture's, from opening it) follow its first line.
fn write_text(out: &mut impl Write, report: &MemoryJson<'_>, defects: &[Defect]) -> io::Result<()> {
    if report.source == "none" {
        writeln!(out, "{}: no memory records and no memory domain gauges in this capture", printable(report.file))?;
        recovered::write(out, "the capture", defects)?;
        return write_providers(out, &report.providers);
    }
    writeln!(
        out,
        "{}: {}; domains from {}",
        printable(report.file),
        counted(report.memory_records as u64, "memory record"),
        report.source
    )?;
    recovered::write(out, "the capture", defects)?;
    for c in &report.captures {
        let mode = match c.mode {
            sgpt_format::MemoryMode::Activity => "activity (began late: older blocks are unknown-baseline)",
            sgpt_format::MemoryMode::Complete => "complete (every domain began empty)",
        };
        writeln!(
            out,
            "capture {}: {mode}, operations {}..{}, {} events, {} checkpoints{}",
            c.capture,
            c.begin_seq,
            c.end_seq,
            c.events,
            c.checkpoints,
            if c.complete { "" } else { ", INCOMPLETE" }
        )?;
    }
    writeln!(out)?;
    let mut table = Table::new(&[
        ("domain", Align::Left),
        ("live B", Align::Right),
        ("peak B", Align::Right),
        ("allocated B", Align::Right),
        ("freed B", Align::Right),
        ("allocs", Align::Right),
        ("frees", Align::Right),
        ("failures", Align::Right),
        ("valid", Align::Left),
    ]);
    for d in &report.domains {
        table.row(vec![
            printable(&d.name),
            opt(d.live_bytes),
            opt(d.peak_bytes),
            opt(d.allocated_bytes),
            opt(d.freed_bytes),
            opt(d.allocations),
            opt(d.frees),
            opt(d.failures),
            d.valid.map_or("unavailable", |v| if v { "yes" } else { "NO (saturated)" }).to_owned(),
        ]);
    }
    table.write(out)?;
    if !report.sites.is_empty() {
        writeln!(out, "\nsites by allocated bytes")?;
        if report.loss.is_some() {
            writeln!(out, "(from the journal: operations it lost are not counted here)")?;
        }
        let mut table = Table::new(&[
            ("site", Align::Left),
            ("allocs", Align::Right),
            ("allocated B", Align::Right),
            ("frees", Align::Right),
            ("failures", Align::Right),
            ("location", Align::Left),
        ]);
        for s in &report.sites {
            let name = if s.name.is_empty() { format!("#{}", s.id) } else { printable(&s.name) };
            table.row(vec![
                name,
                s.allocations.to_string(),
                s.allocated_bytes.to_string(),
                s.frees.to_string(),
                s.failures.to_string(),
                if s.file.is_empty() {
                    "-".to_owned()
                } else {
                    format!("{}:{}:{}", printable(&s.file), s.line, s.column)
                },
            ]);
        }
        table.write(out)?;
        writeln!(out, "\nallocation sizes")?;
        let mut table = Table::new(&[
            ("from B", Align::Right),
            ("to B", Align::Right),
            ("allocs", Align::Right),
            ("bytes", Align::Right),
        ]);
        for b in &report.size_distribution {
            table.row(vec![
                b.min_bytes.to_string(),
                b.max_bytes.to_string(),
                b.allocations.to_string(),
                b.bytes.to_string(),
            ]);
        }
        table.write(out)?;
    }
    for c in &report.checkpoints {
        writeln!(
            out,
            "\ncheckpoint {} -> {}: new live {} ({} B), released {} ({} B), survivors {} ({} B){}{}{}",
            printable(&c.from),
            printable(&c.to),
            c.new_live_blocks,
            c.new_live_bytes,
            c.released_blocks,
            c.released_bytes,
            c.survivor_blocks,
            c.survivor_bytes,
            if c.exact { "" } else { "; live sets not exact, no leak proof" },
            if c.journal_complete { "" } else { "; operations lost before it, the interval is incomplete" },
            if c.expectation_violated { "; EXPECTED RELEASED, blocks remain" } else { "" },
        )?;
        for s in &c.survivors {
            writeln!(
                out,
                "  survivor ({}, {}) {} {} B, site {}, age {} ops / {} ticks",
                s.epoch,
                s.seq,
                printable(&s.domain),
                s.size,
                s.site,
                s.age_ops,
                s.age_time
            )?;
        }
    }
    match &report.reconciliation.reason {
        Some(reason) => writeln!(out, "\nreconciliation: {}: {}", report.reconciliation.status, printable(reason))?,
        None => writeln!(out, "\nreconciliation: {}", report.reconciliation.status)?,
    }
    match &report.loss {
        None if report.memory_records > 0 => writeln!(out, "loss: none, the journal and live sets are complete")?,
        None => writeln!(out, "loss: no memory records, only gauges")?,
        Some(losses) => {
            for loss in losses {
                writeln!(out, "loss in capture {}: INCOMPLETE", loss.capture)?;
                for (what, entry) in [("journal", &loss.journal), ("table", &loss.table)] {
                    if let Some(e) = entry {
                        writeln!(
                            out,
                            "  {what}: {} from operation {}, {} lost",
                            e.reason.description(),
                            e.first_lost_seq,
                            counted(e.count, "operation")
                        )?;
                    }
                }
                if let Some(r) = &loss.recursion {
                    writeln!(out, "  recursion: {} at or after {}", counted(r.count, "operation"), r.after_seq)?;
                }
            }
        }
    }
    if report.unknown_baseline_frees > 0 || report.ownership_errors > 0 {
        writeln!(
            out,
            "unknown-baseline frees: {}, ownership errors: {}",
            report.unknown_baseline_frees, report.ownership_errors
        )?;
    }
    write_providers(out, &report.providers)
}

/// Providers, each its own quantity: never summed with each other or with the domains.
fn write_providers(out: &mut impl Write, providers: &[ProviderJson]) -> io::Result<()> {
    if providers.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nproviders (each its own quantity, never summed)")?;
    let mut table = Table::new(&[
        ("provider", Align::Left),
        ("unit", Align::Left),
        ("last", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("frames", Align::Right),
        ("", Align::Left),
    ]);
    for p in providers {
        let unit = serde_json::to_value(p.unit).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let note = match (&p.reason, p.available) {
            (_, true) => String::new(),
            (Some(reason), false) => printable(reason),
            (None, false) => "never sampled".to_owned(),
        };
        table.row(vec![
            printable(&p.name),
            unit,
            if p.available { opt(p.last) } else { "unavailable".to_owned() },
            opt(p.min),
            opt(p.max),
            p.samples.to_string(),
            note,
        ]);
    }
    table.write(out)
}
