//! `sgpt memory`: memory domains, site traffic, checkpoint differences, reconciliation
//! and loss, from the capture's MEMO records and its per-frame domain gauges.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::{
    Capture, MemoryEventKind, MemoryLoss, MemoryMode, MemoryRecord, MemoryRecursionLoss, parse_memory_gauge,
};

use crate::input::{self, printable};
use crate::json::{self, SCHEMA};
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
    journal_net_bytes: i128,
}

#[derive(Debug, Serialize)]
struct ReconciliationJson {
    /// `exact`, `mismatch`, `bounded` (activity mode: the tracked live set is within the
    /// counters), or `unavailable` (no record, or loss).
    status: &'static str,
    domains: Vec<ReconcileJson>,
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
struct MemoryJson<'p> {
    schema: u32,
    file: &'p str,
    memory_records: usize,
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
}

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let file = path.to_string_lossy();
    let report = analyse(&capture, &file);
    if as_json {
        json::print(&report)?;
    } else {
        write_text(&mut io::stdout().lock(), &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn analyse<'p>(capture: &Capture<'_>, file: &'p str) -> MemoryJson<'p> {
    let records = capture.memory_records();
    let (source, domains) = match records.last().and_then(terminal_domains) {
        Some(domains) => ("memory_record", domains),
        None => match gauge_domains(capture) {
            domains if domains.is_empty() => ("none", domains),
            domains => ("gauges", domains),
        },
    };
    let mut sites: BTreeMap<u32, SiteJson> = BTreeMap::new();
    let mut buckets: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    let mut checkpoints = Vec::new();
    let mut losses = Vec::new();
    let (mut unknown_baseline_frees, mut ownership_errors) = (0, 0);
    for record in records {
        for event in &record.events {
            let site = sites.entry(event.site).or_insert_with(|| site_json(record, event.site));
            match event.kind {
                MemoryEventKind::Alloc => {
                    site.allocations += 1;
                    site.allocated_bytes = site.allocated_bytes.saturating_add(event.size);
                    let bucket = buckets.entry(event.size.max(1).ilog2()).or_default();
                    bucket.0 += 1;
                    bucket.1 = bucket.1.saturating_add(event.size);
                }
                MemoryEventKind::Free | MemoryEventKind::UnknownFree => {
                    site.frees += 1;
                    site.freed_bytes = site.freed_bytes.saturating_add(event.size);
                }
                MemoryEventKind::Failure => site.failures += 1,
            }
        }
        checkpoints.extend(checkpoint_diffs(record));
        let health = &record.health;
        if !health.is_complete() {
            losses.push(LossJson {
                capture: record.capture_id,
                journal: health.journal_loss.map(Into::into),
                table: health.table_loss.map(Into::into),
                recursion: health.recursion.map(Into::into),
            });
        }
        unknown_baseline_frees += health.unknown_baseline_frees;
        ownership_errors += health.ownership_errors;
    }
    let mut sites: Vec<SiteJson> = sites.into_values().collect();
    sites.sort_by(|a, b| b.allocated_bytes.cmp(&a.allocated_bytes).then(a.id.cmp(&b.id)));
    let size_distribution = buckets
        .into_iter()
        .map(|(log, (allocations, bytes))| BucketJson {
            min_bytes: if log == 0 { 0 } else { 1 << log },
            max_bytes: (1u64 << log).saturating_mul(2) - 1,
            allocations,
            bytes,
        })
        .collect();
    MemoryJson {
        schema: SCHEMA,
        file,
        memory_records: records.len(),
        source,
        domains,
        sites,
        size_distribution,
        checkpoints,
        reconciliation: reconcile(records.last()),
        loss: (!losses.is_empty()).then_some(losses),
        unknown_baseline_frees,
        ownership_errors,
    }
}

fn site_json(record: &MemoryRecord, id: u32) -> SiteJson {
    let site = record.site(id);
    SiteJson {
        id,
        name: site.map(|s| s.name.clone()).unwrap_or_default(),
        file: site.map(|s| s.file.clone()).unwrap_or_default(),
        line: site.map_or(0, |s| s.line),
        column: site.map_or(0, |s| s.column),
        ..SiteJson::default()
    }
}

fn domain_name(record: &MemoryRecord, id: u32) -> String {
    record.domain_name(id).map_or_else(|| format!("domain {id}"), str::to_owned)
}

/// The domain table from a record's terminal checkpoint: exact counters at its boundary.
fn terminal_domains(record: &MemoryRecord) -> Option<Vec<DomainJson>> {
    let terminal = record.checkpoints.last()?;
    Some(
        terminal
            .domains
            .iter()
            .map(|c| DomainJson {
                name: domain_name(record, c.domain),
                live_bytes: Some(c.live_bytes),
                peak_bytes: Some(c.peak_bytes),
                allocated_bytes: Some(c.allocated_bytes),
                freed_bytes: Some(c.freed_bytes),
                allocations: Some(c.allocations),
                frees: Some(c.frees),
                failures: Some(c.failures),
                valid: Some(c.valid),
            })
            .collect(),
    )
}

/// The domain table from the last sample of each `memory/<domain>/<field>` gauge.
fn gauge_domains(capture: &Capture<'_>) -> Vec<DomainJson> {
    let gauges: BTreeMap<u32, (String, String)> = capture
        .counters()
        .filter_map(|def| parse_memory_gauge(&def.name).map(|(d, f)| (def.id, (d.to_owned(), f.to_owned()))))
        .collect();
    let mut last: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    if gauges.is_empty() {
        return Vec::new();
    }
    for index in 0..capture.frames().len() {
        // A frame that does not decode is reported by `sgpt validate`; the gauges keep
        // their previous values.
        let Ok(frame) = capture.frame(index) else { continue };
        for sample in &frame.counters {
            if let Some((domain, field)) = gauges.get(&sample.counter) {
                last.entry(domain.clone()).or_default().insert(field.clone(), sample.value);
            }
        }
    }
    last.into_iter()
        .map(|(name, fields)| {
            // Gauges are integral counts carried as f64; a missing one stays unavailable.
            let get = |field: &str| fields.get(field).map(|&value| value as u64);
            DomainJson {
                name,
                live_bytes: get("live_bytes"),
                peak_bytes: get("peak_bytes"),
                allocated_bytes: get("allocated_bytes"),
                freed_bytes: get("freed_bytes"),
                allocations: get("allocations"),
                frees: get("frees"),
                failures: get("failures"),
                valid: fields.get("valid").map(|&value| value != 0.0),
            }
        })
        .collect()
}

/// Each consecutive checkpoint pair, and the first against the terminal one.
fn checkpoint_diffs(record: &MemoryRecord) -> Vec<CheckpointJson> {
    let n = record.checkpoints.len();
    let mut pairs: Vec<(usize, usize)> = (1..n).map(|to| (to - 1, to)).collect();
    if n > 2 {
        pairs.push((0, n - 1));
    }
    pairs
        .into_iter()
        .filter_map(|(from, to)| {
            let diff = record.diff(from, to)?;
            let total = |blocks: &mut dyn Iterator<Item = u64>| blocks.fold(0u64, u64::saturating_add);
            let mut survivors: Vec<_> = diff.survivors.iter().collect();
            survivors.sort_by_key(|s| std::cmp::Reverse(s.age_ops));
            Some(CheckpointJson {
                capture: record.capture_id,
                from: record.checkpoints[from].name.clone(),
                to: record.checkpoints[to].name.clone(),
                expectation: record.checkpoints[to].expectation,
                exact: diff.exact,
                expectation_violated: diff.expectation_violated,
                new_live_blocks: diff.new_live.len(),
                new_live_bytes: total(&mut diff.new_live.iter().map(|b| b.size)),
                released_blocks: diff.released.len(),
                released_bytes: total(&mut diff.released.iter().map(|b| b.size)),
                survivor_blocks: diff.survivors.len(),
                survivor_bytes: total(&mut diff.survivors.iter().map(|s| s.block.size)),
                survivors: survivors
                    .into_iter()
                    .take(SURVIVORS_SHOWN)
                    .map(|s| SurvivorJson {
                        epoch: s.block.lifetime.epoch,
                        seq: s.block.lifetime.seq,
                        domain: domain_name(record, s.block.domain),
                        site: s.block.site,
                        size: s.block.size,
                        age_ops: s.age_ops,
                        age_time: s.age_time,
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Counters against the terminal live set and the journal, per domain. Exact only for a
/// complete-mode capture without loss: then all three must agree.
fn reconcile(record: Option<&MemoryRecord>) -> ReconciliationJson {
    let Some(record) = record else { return ReconciliationJson { status: "unavailable", domains: Vec::new() } };
    let Some(terminal) = record.checkpoints.last() else {
        return ReconciliationJson { status: "unavailable", domains: Vec::new() };
    };
    let mut domains = Vec::new();
    let mut agree = true;
    let mut bounded = true;
    for counters in &terminal.domains {
        let tracked: u64 =
            terminal.live.iter().filter(|b| b.domain == counters.domain).map(|b| b.size).fold(0, u64::saturating_add);
        let net: i128 = record
            .events
            .iter()
            .filter(|e| e.domain == counters.domain && e.seq < terminal.boundary_seq)
            .map(|e| match e.kind {
                MemoryEventKind::Alloc => i128::from(e.size),
                MemoryEventKind::Free | MemoryEventKind::UnknownFree => -i128::from(e.size),
                MemoryEventKind::Failure => 0,
            })
            .sum();
        agree &= counters.valid && counters.live_bytes == tracked && i128::from(tracked) == net;
        bounded &= counters.valid && tracked <= counters.live_bytes;
        domains.push(ReconcileJson {
            domain: domain_name(record, counters.domain),
            counter_live_bytes: counters.live_bytes,
            tracked_live_bytes: tracked,
            journal_net_bytes: net,
        });
    }
    let status = if !record.health.is_complete() {
        "unavailable"
    } else if record.mode == MemoryMode::Complete {
        if agree { "exact" } else { "mismatch" }
    } else if bounded {
        "bounded"
    } else {
        "mismatch"
    };
    ReconciliationJson { status, domains }
}

fn opt(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn write_text(out: &mut impl Write, report: &MemoryJson<'_>) -> io::Result<()> {
    if report.source == "none" {
        writeln!(out, "{}: no memory records and no memory domain gauges in this capture", printable(report.file))?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: {} memory record(s); domains from {}",
        printable(report.file),
        report.memory_records,
        report.source
    )?;
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
                format!("{}:{}:{}", printable(&s.file), s.line, s.column),
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
            "\ncheckpoint {} -> {}: new live {} ({} B), released {} ({} B), survivors {} ({} B){}{}",
            printable(&c.from),
            printable(&c.to),
            c.new_live_blocks,
            c.new_live_bytes,
            c.released_blocks,
            c.released_bytes,
            c.survivor_blocks,
            c.survivor_bytes,
            if c.exact { "" } else { "; live sets not exact, no leak proof" },
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
    writeln!(out, "\nreconciliation: {}", report.reconciliation.status)?;
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
                            "  {what}: {:?} from operation {}, {} operation(s) lost",
                            e.reason, e.first_lost_seq, e.count
                        )?;
                    }
                }
                if let Some(r) = &loss.recursion {
                    writeln!(out, "  recursion: {} operation(s) at or after {}", r.count, r.after_seq)?;
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
    Ok(())
}
