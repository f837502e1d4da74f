//! Memory in the capture: per-frame domain gauges sampled from a [`Ledger`], and the
//! conversion of an exported [`MemoryCapture`] (and its checkpoint differences) into the
//! container's MEMO vocabulary.

use sgpt_format::{
    CounterDef, CounterSample, Declaration, DomainCounters, Lifetime, MEMORY_GAUGE_FIELDS, MemoryBlock,
    MemoryCheckpoint, MemoryDiff, MemoryDomain, MemoryEvent, MemoryEventKind, MemoryExpectation, MemoryHealth,
    MemoryLoss, MemoryLossReason, MemoryMode, MemoryRecord, MemoryRecursionLoss, MemorySite, MemorySurvivor,
    memory_gauge_name,
};
use sgpt_memory::{
    CaptureHealth, CaptureMode, Checkpoint, CheckpointDiff, Domain, DomainStats, Event, EventKind, Expectation, Ledger,
    LifetimeId, LiveBlock, Loss, LossReason, MemoryCapture,
};

/// The ledger whose domains a session gauges every frame. Compared by identity: two
/// sources are equal when they name the same ledger.
#[derive(Clone, Copy, Debug)]
pub struct MemorySource(pub &'static Ledger);

impl PartialEq for MemorySource {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.0, other.0)
    }
}

/// The gauges a session samples: each domain registered when it started, with the id
/// of its first counter (the fields follow in [`MEMORY_GAUGE_FIELDS`] order).
#[derive(Debug)]
pub(crate) struct Gauges {
    ledger: &'static Ledger,
    domains: Vec<(Domain, u32)>,
}

impl Gauges {
    /// Declares `memory/<domain>/<field>` counters from `first_id` on. Domains registered
    /// later are not gauged: declarations are written once, at start.
    pub(crate) fn new(source: MemorySource, first_id: u32) -> (Self, Vec<Declaration>) {
        let fields = MEMORY_GAUGE_FIELDS.len() as u32;
        let mut declarations = Vec::new();
        let mut domains = Vec::new();
        for (index, def) in source.0.domains().into_iter().enumerate() {
            let base = first_id + index as u32 * fields;
            domains.push((def.domain, base));
            for (offset, (field, unit)) in MEMORY_GAUGE_FIELDS.iter().enumerate() {
                declarations.push(Declaration::Counter(CounterDef {
                    id: base + offset as u32,
                    name: memory_gauge_name(def.name, field),
                    unit: *unit,
                }));
            }
        }
        (Self { ledger: source.0, domains }, declarations)
    }

    /// Appends one sample per gauge. `samples` keeps its capacity across frames, so a
    /// steady frame allocates nothing here.
    pub(crate) fn sample(&self, samples: &mut Vec<CounterSample>) {
        for &(domain, base) in &self.domains {
            let stats = self.ledger.stats(domain);
            for (offset, value) in gauge_values(&stats).into_iter().enumerate() {
                samples.push(CounterSample { counter: base + offset as u32, value });
            }
        }
    }
}

/// `stats` in [`MEMORY_GAUGE_FIELDS`] order. Counters past 2^53 lose precision as `f64`;
/// the MEMO record keeps them exact.
fn gauge_values(stats: &DomainStats) -> [f64; MEMORY_GAUGE_FIELDS.len()] {
    [
        stats.live_bytes as f64,
        stats.live_blocks as f64,
        stats.peak_bytes as f64,
        stats.allocated_bytes as f64,
        stats.freed_bytes as f64,
        stats.allocations as f64,
        stats.frees as f64,
        stats.failures as f64,
        if stats.valid { 1.0 } else { 0.0 },
    ]
}

/// An exported memory capture as the MEMO record stores it.
#[must_use]
pub fn memory_record(capture: &MemoryCapture) -> MemoryRecord {
    MemoryRecord {
        capture_id: capture.id.get(),
        epoch: capture.epoch,
        mode: match capture.mode {
            CaptureMode::Activity => MemoryMode::Activity,
            CaptureMode::Complete => MemoryMode::Complete,
        },
        begin_seq: capture.begin_seq,
        end_seq: capture.end_seq,
        storage_bytes: capture.storage_bytes as u64,
        domains: capture
            .domains
            .iter()
            .map(|def| MemoryDomain { id: u32::from(def.domain.index()), name: def.name.to_owned() })
            .collect(),
        sites: capture
            .sites
            .iter()
            .map(|(site, def)| MemorySite {
                id: site.index(),
                file: def.file.to_owned(),
                line: def.line,
                column: def.column,
                name: def.name.to_owned(),
            })
            .collect(),
        events: capture.events.iter().map(event).collect(),
        checkpoints: capture.checkpoints.iter().map(checkpoint).collect(),
        health: health(&capture.health),
    }
}

/// A checkpoint difference from [`sgpt_memory::MemoryCapture::diff`] in the record's
/// vocabulary, block for block as [`memory_record`] writes them, so it can be set beside
/// [`MemoryRecord::diff`] of the same capture.
#[must_use]
pub fn memory_diff(diff: &CheckpointDiff) -> MemoryDiff {
    MemoryDiff {
        new_live: diff.new_live.iter().map(block).collect(),
        released: diff.released.iter().map(block).collect(),
        survivors: diff
            .survivors
            .iter()
            .map(|survivor| MemorySurvivor {
                block: block(&survivor.block),
                age_ops: survivor.age_ops,
                age_time: survivor.age_time,
            })
            .collect(),
        exact: diff.exact,
        expectation_violated: diff.expectation_violated,
    }
}

fn lifetime(id: LifetimeId) -> Lifetime {
    Lifetime { epoch: id.epoch, seq: id.seq }
}

fn event(event: &Event) -> MemoryEvent {
    MemoryEvent {
        seq: event.seq,
        kind: match event.kind {
            EventKind::Alloc => MemoryEventKind::Alloc,
            EventKind::Free => MemoryEventKind::Free,
            EventKind::UnknownFree => MemoryEventKind::UnknownFree,
            EventKind::Failure => MemoryEventKind::Failure,
        },
        lifetime: event.lifetime.map(lifetime),
        domain: u32::from(event.domain.index()),
        site: event.site.index(),
        address: event.address as u64,
        size: event.size as u64,
        align: event.align as u64,
        thread: event.thread,
        time: event.time,
    }
}

fn block(block: &LiveBlock) -> MemoryBlock {
    MemoryBlock {
        address: block.address as u64,
        lifetime: lifetime(block.lifetime),
        alloc_seq: block.alloc_seq,
        domain: u32::from(block.domain.index()),
        site: block.site.index(),
        size: block.size as u64,
        align: block.align as u64,
        thread: block.thread,
        time: block.time,
    }
}

fn checkpoint(checkpoint: &Checkpoint) -> MemoryCheckpoint {
    MemoryCheckpoint {
        id: checkpoint.id.0,
        name: checkpoint.name.clone(),
        owner: checkpoint.owner,
        expectation: match checkpoint.expectation {
            Expectation::Unspecified => MemoryExpectation::Unspecified,
            Expectation::Retained => MemoryExpectation::Retained,
            Expectation::Released => MemoryExpectation::Released,
        },
        boundary_seq: checkpoint.boundary_seq,
        time: checkpoint.time,
        table_exact: checkpoint.table_exact,
        history_complete: checkpoint.history_complete,
        domains: checkpoint
            .domains
            .iter()
            .map(|(domain, stats)| DomainCounters {
                domain: u32::from(domain.index()),
                live_bytes: stats.live_bytes,
                live_blocks: stats.live_blocks,
                peak_bytes: stats.peak_bytes,
                allocated_bytes: stats.allocated_bytes,
                freed_bytes: stats.freed_bytes,
                allocations: stats.allocations,
                frees: stats.frees,
                failures: stats.failures,
                valid: stats.valid,
            })
            .collect(),
        live: checkpoint.live.iter().map(block).collect(),
    }
}

fn loss(loss: Loss) -> MemoryLoss {
    MemoryLoss {
        reason: match loss.reason {
            LossReason::JournalFull => MemoryLossReason::JournalFull,
            LossReason::TableFull => MemoryLossReason::TableFull,
            LossReason::DuplicateAddress => MemoryLossReason::DuplicateAddress,
            LossReason::MissingEntry => MemoryLossReason::MissingEntry,
        },
        first_lost_seq: loss.first_lost_seq,
        domain: u32::from(loss.domain.index()),
        count: loss.count,
    }
}

fn health(health: &CaptureHealth) -> MemoryHealth {
    MemoryHealth {
        journal_loss: health.journal_loss.map(loss),
        table_loss: health.table_loss.map(loss),
        recursion: health.recursion.map(|recursion| MemoryRecursionLoss {
            count: recursion.count,
            domain: u32::from(recursion.domain.index()),
            after_seq: recursion.after_seq,
        }),
        unknown_baseline_frees: health.unknown_baseline_frees,
        ownership_errors: health.ownership_errors,
    }
}
