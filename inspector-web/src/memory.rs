//! The Memory view: the domain table (live, peak, traffic, validity), each domain's gauges
//! over frames, provider metrics, checkpoint differences with their new live, released and
//! surviving blocks, reconciliation, site traffic, allocation sizes and loss banners.
//!
//! The numbers come from `sgpt_format::memory_analysis`, which `sgpt memory` uses too; this
//! module only turns them into what the page shows: clipped strings, grouped units, rows cut
//! to [`MAX_ROWS`]. Gauges are read from at most about [`MAX_DECODED_FRAMES`] frames, by a
//! [`GaugeScan`] the page runs in short slices.

use sgpt_format::memory_analysis::{
    self, CheckpointDiff, DomainGauges, DomainRow, FrameSampler, GaugeScan, Gauges, ProviderSummary, Reconciliation,
    ReconciliationStatus, SiteTraffic, SizeBucket,
};
use sgpt_format::{Capture, CounterUnit, MemoryBlock, MemoryExpectation, MemoryLossReason, MemoryRecord};

pub use sgpt_format::memory_analysis::DomainSource;

use crate::summary::{MAX_ROWS, clip};
use crate::units;

/// What a value the capture never sampled reads as; never 0, which would be a claim.
pub const NOT_RECORDED: &str = "not recorded";

/// What a provider no frame sampled reads as.
pub const UNAVAILABLE: &str = "unavailable";

/// The most frames the page decodes for gauges. A series drawn in a panel or the lane never
/// needs more points than it has pixels, and a capture of hours stays a few short tasks;
/// frames between samples stay empty points, never filled in.
pub const MAX_DECODED_FRAMES: usize = 2048;

/// The frames the page reads gauges from.
#[must_use]
pub fn sampler(frames: usize) -> FrameSampler {
    FrameSampler::at_most(frames, MAX_DECODED_FRAMES)
}

/// Exact bytes, or [`NOT_RECORDED`].
#[must_use]
pub fn byte_text(value: Option<u64>) -> String {
    value.map_or_else(|| NOT_RECORDED.to_owned(), |v| format!("{} B", units::grouped(v)))
}

#[must_use]
pub fn count_text(value: Option<u64>) -> String {
    value.map_or_else(|| NOT_RECORDED.to_owned(), units::grouped)
}

/// A value in its counter's unit.
fn unit_text(unit: CounterUnit, value: u64) -> String {
    match unit {
        CounterUnit::Bytes => format!("{} B", units::grouped(value)),
        CounterUnit::Nanoseconds => units::exact_ns(value),
        CounterUnit::Percent => format!("{} %", units::grouped(value)),
        CounterUnit::Count => units::grouped(value),
    }
}

fn unit_name(unit: CounterUnit) -> &'static str {
    match unit {
        CounterUnit::Bytes => "bytes",
        CounterUnit::Nanoseconds => "ns",
        CounterUnit::Percent => "percent",
        CounterUnit::Count => "count",
    }
}

/// The domain table's cells: name, live, peak, allocated, freed, allocations, frees,
/// failures, validity.
#[must_use]
pub fn domain_cells(row: &DomainRow) -> [String; 9] {
    [
        clip(&row.name),
        byte_text(row.live_bytes),
        byte_text(row.peak_bytes),
        byte_text(row.allocated_bytes),
        byte_text(row.freed_bytes),
        count_text(row.allocations),
        count_text(row.frees),
        count_text(row.failures),
        match row.valid {
            Some(true) => "valid".to_owned(),
            Some(false) => "invalid: a counter overflowed or underflowed".to_owned(),
            None => NOT_RECORDED.to_owned(),
        },
    ]
}

/// A provider's cells: metric, unit, last, min, max, frames sampled, note. An unavailable
/// one reads [`UNAVAILABLE`] and its reason, never 0.
#[must_use]
pub fn provider_cells(provider: &ProviderSummary, frames_read: usize) -> [String; 7] {
    let value = |value: Option<u64>| value.map_or_else(|| "—".to_owned(), |v| unit_text(provider.unit, v));
    let (last, note) = if provider.is_available() {
        (value(provider.last), String::new())
    } else {
        let reason = provider.reason.as_deref().map_or_else(|| "never sampled".to_owned(), clip);
        (UNAVAILABLE.to_owned(), reason)
    };
    [
        clip(&provider.name),
        unit_name(provider.unit).to_owned(),
        last,
        value(provider.min),
        value(provider.max),
        format!("{} of {}", units::grouped(provider.samples), units::grouped(frames_read as u64)),
        note,
    ]
}

/// A site's cells: site, location, allocations, allocated, frees, freed, failures.
#[must_use]
pub fn site_cells(site: &SiteTraffic) -> [String; 7] {
    [
        if site.name.is_empty() { format!("#{}", site.id) } else { clip(&site.name) },
        if site.file.is_empty() {
            "—".to_owned()
        } else {
            clip(&format!("{}:{}:{}", site.file, site.line, site.column))
        },
        units::grouped(site.allocations),
        byte_text(Some(site.allocated_bytes)),
        units::grouped(site.frees),
        byte_text(Some(site.freed_bytes)),
        units::grouped(site.failures),
    ]
}

/// A size bucket's cells: from, to, allocations, bytes.
#[must_use]
pub fn size_cells(bucket: &SizeBucket) -> [String; 4] {
    [
        byte_text(Some(bucket.min_bytes)),
        byte_text(Some(bucket.max_bytes)),
        units::grouped(bucket.allocations),
        byte_text(Some(bucket.bytes)),
    ]
}

/// What the reconciliation status means, in a sentence, with the analysis' reason.
#[must_use]
pub fn reconciliation_text(reconciliation: &Reconciliation) -> String {
    let what = match reconciliation.status {
        ReconciliationStatus::Exact => {
            "exact: per domain, the checked counters, the terminal live set and the journal agree"
        }
        ReconciliationStatus::Mismatch => "MISMATCH: a domain's counters, terminal live set and journal disagree",
        ReconciliationStatus::Bounded => "bounded: the tracked live set only bounds the counters",
        ReconciliationStatus::Unavailable => "unavailable",
    };
    match &reconciliation.reason {
        Some(reason) => format!("Reconciliation {what}: {}.", clip(reason)),
        None => format!("Reconciliation {what}."),
    }
}

/// A domain's reconciliation cells: domain, counters' live bytes, tracked live bytes,
/// journal net bytes.
#[must_use]
pub fn reconciliation_cells(reconciliation: &Reconciliation) -> Vec<[String; 4]> {
    reconciliation
        .domains
        .iter()
        .map(|d| {
            // A journal that lost operations has no net: a sum of what remains would be invented.
            let net = d.journal_net_bytes.map_or_else(
                || "incomplete".to_owned(),
                |net| {
                    let magnitude = units::grouped(net.unsigned_abs().try_into().unwrap_or(u64::MAX));
                    format!("{}{magnitude} B", if net < 0 { "−" } else { "" })
                },
            );
            [clip(&d.domain), byte_text(Some(d.counter_live_bytes)), byte_text(Some(d.tracked_live_bytes)), net]
        })
        .collect()
}

/// A block in a checkpoint table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockRow {
    /// `(epoch, seq)`: the identity, never reused.
    pub lifetime: String,
    pub domain: String,
    pub site: String,
    pub size: u64,
    /// Survivors only: operations and clock ticks from allocation to the later checkpoint.
    pub age_ops: Option<u64>,
    pub age_time: Option<u64>,
}

impl BlockRow {
    fn new(record: &MemoryRecord, block: &MemoryBlock) -> Self {
        Self {
            lifetime: format!("({}, {})", block.lifetime.epoch, block.lifetime.seq),
            domain: clip(&memory_analysis::domain_name(record, block.domain)),
            site: site_name(record, block.site),
            size: block.size,
            age_ops: None,
            age_time: None,
        }
    }

    #[must_use]
    pub fn age_text(&self) -> String {
        match (self.age_ops, self.age_time) {
            (Some(ops), Some(time)) => format!("{} ops / {} ticks", units::grouped(ops), units::grouped(time)),
            _ => String::new(),
        }
    }
}

/// The difference between two checkpoints of one record, cut for the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointPair {
    pub capture: u64,
    pub from: String,
    pub to: String,
    pub expectation: &'static str,
    /// Both live sets are exact; otherwise the difference proves no leak.
    pub exact: bool,
    pub expectation_violated: bool,
    pub new_live_bytes: u64,
    pub released_bytes: u64,
    pub survivor_bytes: u64,
    /// Counts before the tables are cut to [`MAX_ROWS`].
    pub counts: [usize; 3],
    pub new_live: Vec<BlockRow>,
    pub released: Vec<BlockRow>,
    /// Oldest first.
    pub survivors: Vec<BlockRow>,
}

impl CheckpointPair {
    fn new(record: &MemoryRecord, diff: &CheckpointDiff) -> Self {
        let rows = |blocks: &[MemoryBlock]| blocks.iter().take(MAX_ROWS).map(|b| BlockRow::new(record, b)).collect();
        Self {
            capture: diff.capture,
            from: clip(&diff.from_name),
            to: clip(&diff.to_name),
            expectation: match diff.expectation {
                MemoryExpectation::Unspecified => "unspecified",
                MemoryExpectation::Retained => "retained",
                MemoryExpectation::Released => "released",
            },
            exact: diff.exact,
            expectation_violated: diff.expectation_violated,
            new_live_bytes: diff.new_live_bytes,
            released_bytes: diff.released_bytes,
            survivor_bytes: diff.survivor_bytes,
            counts: [diff.new_live.len(), diff.released.len(), diff.survivors.len()],
            new_live: rows(&diff.new_live),
            released: rows(&diff.released),
            survivors: diff
                .survivors
                .iter()
                .take(MAX_ROWS)
                .map(|s| BlockRow {
                    age_ops: Some(s.age_ops),
                    age_time: Some(s.age_time),
                    ..BlockRow::new(record, &s.block)
                })
                .collect(),
        }
    }

    #[must_use]
    pub fn heading(&self) -> String {
        format!(
            "Checkpoint {} → {}: new live {} ({}), released {} ({}), survivors {} ({})",
            self.from,
            self.to,
            self.counts[0],
            byte_text(Some(self.new_live_bytes)),
            self.counts[1],
            byte_text(Some(self.released_bytes)),
            self.counts[2],
            byte_text(Some(self.survivor_bytes)),
        )
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryView {
    pub records: usize,
    pub source: Option<DomainSource>,
    pub domains: Vec<DomainRow>,
    /// Sites ranked by allocated bytes, cut to [`MAX_ROWS`]; `site_count` counts them all.
    pub sites: Vec<SiteTraffic>,
    pub site_count: usize,
    pub sizes: Vec<SizeBucket>,
    pub pairs: Vec<CheckpointPair>,
    pub reconciliation: Reconciliation,
    /// One line per lost or incomplete part of a record.
    pub losses: Vec<String>,
    /// The capture declares domain gauges or providers.
    pub has_gauges: bool,
    /// What the gauge scan read; `None` until it finished.
    pub gauges: Option<Gauges>,
}

impl MemoryView {
    /// Everything the memory records give, without decoding a frame, and the scan that
    /// reads the gauges and providers (`None` when the capture declares none).
    #[must_use]
    pub fn from_records(capture: &Capture<'_>) -> (Self, Option<GaugeScan>) {
        let records = capture.memory_records();
        let scan = GaugeScan::new(capture, sampler(capture.frames().len()), true);
        let table = memory_analysis::domain_table(records, None);
        let has_domains = scan.has_domains();
        let ranking = memory_analysis::site_ranking(records);
        let mut pairs = Vec::new();
        for record in records {
            pairs
                .extend(memory_analysis::checkpoint_diffs(record).iter().map(|diff| CheckpointPair::new(record, diff)));
        }
        let view = Self {
            records: records.len(),
            // Declared gauges are the source even before they are read.
            source: table.source.or(has_domains.then_some(DomainSource::Gauges)),
            domains: table.rows,
            site_count: ranking.len(),
            sites: ranking.into_iter().take(MAX_ROWS).collect(),
            sizes: memory_analysis::size_distribution(records),
            pairs,
            reconciliation: memory_analysis::reconcile(records.last()),
            losses: records.iter().flat_map(loss_lines).collect(),
            has_gauges: !scan.is_empty(),
            gauges: None,
        };
        (view, (!scan.is_empty()).then_some(scan))
    }

    /// The whole view at once: the records, then the sampled frames' gauges.
    #[must_use]
    pub fn new(capture: &Capture<'_>) -> Self {
        let (mut view, scan) = Self::from_records(capture);
        if let Some(mut scan) = scan {
            while !scan.step(capture, usize::MAX) {}
            view.set_gauges(scan.finish());
        }
        view
    }

    /// Takes the scan's result: series, providers, and the domain table when no record
    /// gave it.
    pub fn set_gauges(&mut self, gauges: Gauges) {
        if self.source == Some(DomainSource::Gauges) {
            self.domains = gauges.domain_rows();
        }
        self.gauges = Some(gauges);
    }

    /// No memory record, no domain gauge and no provider: the view has nothing to show.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records == 0 && !self.has_gauges
    }

    /// The capture declares gauges that are not read yet.
    #[must_use]
    pub fn is_reading(&self) -> bool {
        self.has_gauges && self.gauges.is_none()
    }

    /// Each domain's gauges, once read.
    #[must_use]
    pub fn series(&self) -> &[DomainGauges] {
        self.gauges.as_ref().map_or(&[], |g| g.domains.as_slice())
    }

    #[must_use]
    pub fn source_text(&self) -> String {
        let records = units::counted(self.records as u64, "memory record");
        match self.source {
            Some(DomainSource::MemoryRecord) => {
                format!("{records}; domains from the last record's terminal checkpoint.")
            }
            Some(DomainSource::Gauges) => format!(
                "{records}; domains from the last sampled per-frame gauges (a gauge never sampled reads {NOT_RECORDED})."
            ),
            None => format!("{records} without a checkpoint and no domain gauges."),
        }
    }

    /// Which frames the gauges come from, when not every frame was read.
    #[must_use]
    pub fn sampling_text(&self) -> Option<String> {
        let gauges = self.gauges.as_ref()?;
        let sampler = gauges.sampler;
        let mut text = (sampler.stride() > 1).then(|| {
            format!(
                "Gauges and providers are read from {} of the {} frames (one in {}, and the last); `sgpt memory` reads them all.",
                units::grouped(sampler.len() as u64),
                units::grouped(sampler.frames() as u64),
                sampler.stride()
            )
        });
        if gauges.undecoded > 0 {
            let damaged = format!("{} frames read did not decode; their points are empty.", gauges.undecoded);
            text = Some(text.map_or(damaged.clone(), |t| format!("{t} {damaged}")));
        }
        text
    }
}

fn site_name(record: &MemoryRecord, id: u32) -> String {
    match record.site(id) {
        Some(site) if !site.name.is_empty() => clip(&site.name),
        Some(site) if !site.file.is_empty() => clip(&format!("{}:{}:{}", site.file, site.line, site.column)),
        _ => format!("#{id}"),
    }
}

fn loss_lines(record: &MemoryRecord) -> Vec<String> {
    let domain = |id| clip(&memory_analysis::domain_name(record, id));
    let Some(loss) = memory_analysis::losses(std::slice::from_ref(record)).pop() else { return Vec::new() };
    let mut lines = Vec::new();
    for (what, lost) in [("journal", loss.journal), ("live-block table", loss.table)] {
        let Some(lost) = lost else { continue };
        let reason = match lost.reason {
            MemoryLossReason::JournalFull => "the journal was full",
            MemoryLossReason::TableFull => "the live-block table was full",
            MemoryLossReason::DuplicateAddress => "an address was allocated twice",
            MemoryLossReason::MissingEntry => "a free named a block the table did not hold",
        };
        lines.push(format!(
            "Memory capture {}: {what} incomplete — {reason}; {} operations lost from seq {} on (domain {}). Everything after it is incomplete, not interpolated.",
            loss.capture,
            units::grouped(lost.count),
            lost.first_lost_seq,
            domain(lost.domain),
        ));
    }
    if let Some(recursion) = loss.recursion {
        lines.push(format!(
            "Memory capture {}: {} re-entered allocation hooks were not recorded, at or after seq {} (domain {}); live sets after it are incomplete.",
            loss.capture,
            units::grouped(recursion.count),
            recursion.after_seq,
            domain(recursion.domain),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use sgpt_format::{
        CounterDef, CounterSample, Declaration, Frame, Level, MemoryHealth, MemoryLoss, Meta, Note, Writer,
    };

    use super::*;

    fn fixture() -> Vec<u8> {
        // A frozen v1 record, no longer generated: read as committed.
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/memory.sgpt")).expect("memory fixture")
    }

    fn strings<const N: usize>(cells: [&str; N]) -> [String; N] {
        cells.map(str::to_owned)
    }

    #[test]
    fn the_domain_table_mirrors_the_cli_from_the_terminal_checkpoint() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        assert!(!view.is_empty() && !view.is_reading());
        assert_eq!((view.records, view.source), (1, Some(DomainSource::MemoryRecord)));
        let cells: Vec<[String; 9]> = view.domains.iter().map(domain_cells).collect();
        assert_eq!(
            cells,
            [
                strings([
                    "scene",
                    "5\u{2009}120 B",
                    "5\u{2009}120 B",
                    "10\u{2009}240 B",
                    "5\u{2009}120 B",
                    "4",
                    "2",
                    "0",
                    "valid"
                ]),
                strings(["particles", "768 B", "768 B", "768 B", "0 B", "2", "0", "0", "valid"]),
                strings(["scratch", "0 B", "64 B", "64 B", "64 B", "1", "1", "1", "valid"]),
            ]
        );
        assert!(view.losses.is_empty());
        assert_eq!(view.sampling_text(), None, "eight frames are all read");
    }

    #[test]
    fn gauge_series_follow_the_frames() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        let names: Vec<&str> = view.series().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["scene", "particles", "scratch"]);
        let live = |i: usize| view.series()[i].live_bytes.iter().map(|v| v.expect("sampled")).collect::<Vec<_>>();
        assert_eq!(live(0), [4096, 5120, 0, 0, 0, 4096, 5120, 5120]);
        assert_eq!(live(1), [0, 256, 256, 256, 256, 256, 256, 768]);
        assert_eq!(live(2), [0; 8]);
        assert_eq!(view.series()[2].peak_bytes, [0, 0, 0, 64, 64, 64, 64, 64].map(Some));
    }

    #[test]
    fn the_records_are_shown_before_any_frame_is_read() {
        let bytes = fixture();
        let capture = Capture::open(&bytes).expect("opens");
        let (view, scan) = MemoryView::from_records(&capture);
        assert!(view.is_reading());
        assert_eq!(view.domains.len(), 3, "the terminal checkpoint needs no frame");
        assert!(view.series().is_empty());
        let mut scan = scan.expect("the fixture declares gauges");
        assert!(!scan.step(&capture, 5));
        assert!(scan.step(&capture, 5));
    }

    #[test]
    fn sites_sizes_and_reconciliation_read_as_the_page_shows_them() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        let sites: Vec<[String; 7]> = view.sites.iter().map(site_cells).collect();
        assert_eq!(
            sites,
            [
                strings(["scene load", "demo/src/scene.rs:42:9", "4", "10\u{2009}240 B", "2", "5\u{2009}120 B", "0"]),
                strings(["#2", "demo/src/particles.rs:17:5", "2", "768 B", "0", "0 B", "0"]),
                strings(["scratch", "demo/src/frame.rs:88:13", "1", "64 B", "1", "64 B", "1"]),
            ]
        );
        assert_eq!(view.site_count, 3);
        let sizes: Vec<[String; 4]> = view.sizes.iter().map(size_cells).collect();
        assert_eq!(
            sizes,
            [
                strings(["64 B", "127 B", "1", "64 B"]),
                strings(["256 B", "511 B", "1", "256 B"]),
                strings(["512 B", "1\u{2009}023 B", "1", "512 B"]),
                strings(["1\u{2009}024 B", "2\u{2009}047 B", "2", "2\u{2009}048 B"]),
                strings(["4\u{2009}096 B", "8\u{2009}191 B", "2", "8\u{2009}192 B"]),
            ]
        );
        assert_eq!(
            reconciliation_text(&view.reconciliation),
            "Reconciliation exact: per domain, the checked counters, the terminal live set and the journal agree."
        );
        assert_eq!(
            reconciliation_cells(&view.reconciliation),
            [
                strings(["scene", "5\u{2009}120 B", "5\u{2009}120 B", "5\u{2009}120 B"]),
                strings(["particles", "768 B", "768 B", "768 B"]),
                strings(["scratch", "0 B", "0 B", "0 B"]),
            ]
        );
        let negative = Reconciliation {
            status: ReconciliationStatus::Bounded,
            reason: None,
            domains: vec![memory_analysis::DomainReconciliation {
                domain: "a".into(),
                counter_live_bytes: 10,
                tracked_live_bytes: 0,
                journal_net_bytes: Some(-2048),
            }],
        };
        assert_eq!(reconciliation_cells(&negative)[0][3], "−2\u{2009}048 B");
        let lost = Reconciliation {
            domains: vec![memory_analysis::DomainReconciliation { journal_net_bytes: None, ..Default::default() }],
            ..negative
        };
        assert_eq!(reconciliation_cells(&lost)[0][3], "incomplete");
    }

    #[test]
    fn checkpoint_pairs_list_new_live_released_and_aged_survivors() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        let headings: Vec<String> = view.pairs.iter().map(CheckpointPair::heading).collect();
        assert_eq!(
            headings,
            [
                "Checkpoint loaded → unloaded: new live 0 (0 B), released 2 (5\u{2009}120 B), survivors 1 (256 B)",
                "Checkpoint unloaded → end: new live 3 (5\u{2009}632 B), released 0 (0 B), survivors 1 (256 B)",
                "Checkpoint loaded → end: new live 3 (5\u{2009}632 B), released 2 (5\u{2009}120 B), survivors 1 (256 B)",
            ]
        );
        let first = &view.pairs[0];
        assert_eq!(first.expectation, "released");
        assert!(first.exact && !first.expectation_violated);
        // "unloaded → end" expects nothing, so its new live blocks are no violation either.
        assert!(!view.pairs[1].expectation_violated);
        let survivor = &view.pairs[2].survivors[0];
        assert_eq!((survivor.lifetime.as_str(), survivor.domain.as_str()), ("(1, 3)", "particles"));
        // Site 2 has no name: its location stands in.
        assert_eq!((survivor.site.as_str(), survivor.size), ("demo/src/particles.rs:17:5", 256));
        assert_eq!(survivor.age_text(), "9 ops / 9\u{2009}000 ticks");
        assert_eq!(view.pairs[0].survivors[0].age_text(), "6 ops / 6\u{2009}000 ticks");
        let released: Vec<(&str, &str, u64)> =
            first.released.iter().map(|b| (b.lifetime.as_str(), b.site.as_str(), b.size)).collect();
        assert_eq!(released, [("(1, 1)", "scene load", 4096), ("(1, 2)", "scene load", 1024)]);
        let new_live: Vec<(&str, u64)> = view.pairs[1].new_live.iter().map(|b| (b.lifetime.as_str(), b.size)).collect();
        assert_eq!(new_live, [("(1, 5)", 4096), ("(1, 6)", 1024), ("(1, 7)", 512)]);
        assert_eq!(view.pairs[1].new_live[0].age_text(), "");
    }

    fn gauge_capture(samples: &[(u32, f64)]) -> Vec<u8> {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).expect("meta");
        let topology = writer.topology(&sgpt_format::Topology::default()).expect("topology");
        let def = |id, name: &str, unit| Declaration::Counter(CounterDef { id, name: name.into(), unit });
        writer
            .declare(&[
                def(0, "memory/ui/live_bytes", CounterUnit::Bytes),
                def(1, "memory/ui/peak_bytes", CounterUnit::Bytes),
                def(2, "gpu memory", CounterUnit::Bytes),
                def(3, "provider/wasm.linear_memory", CounterUnit::Bytes),
                def(4, "provider/wgpu.buffer_memory", CounterUnit::Bytes),
            ])
            .expect("declare");
        for frame_number in 0..2 {
            let counters = samples
                .iter()
                .filter(|_| frame_number == 1)
                .map(|&(counter, value)| CounterSample { counter, value })
                .collect();
            writer.frame(&Frame { frame_number, topology, counters, ..Frame::default() }).expect("frame");
        }
        let text = "provider wgpu.buffer_memory unavailable: the browser's WebGPU exposes no internal counters";
        writer.note(&Note { frame_number: 1, text: text.into() }).expect("note");
        writer.finish().expect("finish")
    }

    #[test]
    fn without_a_record_the_last_gauges_fill_the_table_and_unsampled_ones_read_not_recorded() {
        let bytes = gauge_capture(&[(0, 300.0), (2, 9.0), (3, 1_048_576.0)]);
        let capture = Capture::open(&bytes).expect("opens");
        let (waiting, _) = MemoryView::from_records(&capture);
        assert_eq!(waiting.source, Some(DomainSource::Gauges), "declared gauges, not read yet");
        assert!(waiting.domains.is_empty() && waiting.is_reading());
        let view = MemoryView::new(&capture);
        assert_eq!(view.source, Some(DomainSource::Gauges));
        let cells = domain_cells(&view.domains[0]);
        assert_eq!(cells[..3], ["ui", "300 B", NOT_RECORDED]);
        assert_eq!(cells[5], NOT_RECORDED);
        assert_eq!(cells[8], NOT_RECORDED);
        assert_eq!(view.series()[0].live_bytes, [None, Some(300)]);
        assert_eq!(view.series()[0].peak_bytes, [None, None]);
        assert!(view.source_text().contains("per-frame gauges"));
    }

    #[test]
    fn an_unavailable_provider_reads_unavailable_with_its_reason_never_zero() {
        let bytes = gauge_capture(&[(3, 1_048_576.0)]);
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        let gauges = view.gauges.as_ref().expect("read");
        let cells: Vec<[String; 7]> =
            gauges.providers.iter().map(|p| provider_cells(&p.summary, gauges.frames_read)).collect();
        assert_eq!(
            cells,
            [
                strings([
                    "wasm.linear_memory",
                    "bytes",
                    "1\u{2009}048\u{2009}576 B",
                    "1\u{2009}048\u{2009}576 B",
                    "1\u{2009}048\u{2009}576 B",
                    "1 of 2",
                    ""
                ]),
                strings([
                    "wgpu.buffer_memory",
                    "bytes",
                    UNAVAILABLE,
                    "—",
                    "—",
                    "0 of 2",
                    "the browser's WebGPU exposes no internal counters"
                ]),
            ]
        );
        let unexplained = ProviderSummary { name: "wgpu.buffers".into(), ..ProviderSummary::default() };
        assert_eq!(provider_cells(&unexplained, 2)[2..], strings([UNAVAILABLE, "—", "—", "0 of 2", "never sampled"]));
    }

    #[test]
    fn a_capture_without_memory_data_is_empty() {
        let bytes = sgpt_format::fixtures::all().into_iter().find(|f| f.name == "minimal.sgpt").expect("fixture").bytes;
        let capture = Capture::open(&bytes).expect("opens");
        let (view, scan) = MemoryView::from_records(&capture);
        assert!(view.is_empty() && scan.is_none());
        assert!(view.series().is_empty() && view.pairs.is_empty() && view.sites.is_empty());
        assert_eq!(view.reconciliation.status, ReconciliationStatus::Unavailable);
    }

    #[test]
    fn a_large_capture_says_which_frames_its_gauges_come_from() {
        let mut view = MemoryView { has_gauges: true, ..MemoryView::default() };
        view.set_gauges(Gauges {
            sampler: sampler(216_000),
            domains: Vec::new(),
            providers: Vec::new(),
            frames_read: 2_000,
            undecoded: 2,
        });
        assert_eq!(
            view.sampling_text().as_deref(),
            Some(
                "Gauges and providers are read from 2\u{2009}039 of the 216\u{2009}000 frames (one in 106, and the last); `sgpt memory` reads them all. 2 frames read did not decode; their points are empty."
            )
        );
    }

    #[test]
    fn loss_is_named_with_its_first_lost_operation() {
        let mut record = MemoryRecord {
            capture_id: 4,
            domains: vec![sgpt_format::MemoryDomain { id: 1, name: "scene".into() }],
            ..MemoryRecord::default()
        };
        record.health = MemoryHealth {
            journal_loss: Some(MemoryLoss {
                reason: MemoryLossReason::JournalFull,
                first_lost_seq: 47,
                domain: 1,
                count: 13,
            }),
            recursion: Some(sgpt_format::MemoryRecursionLoss { count: 2, domain: 9, after_seq: 50 }),
            ..MemoryHealth::default()
        };
        let lines = loss_lines(&record);
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with(
                "Memory capture 4: journal incomplete — the journal was full; 13 operations lost from seq 47 on (domain scene)."
            ),
            "{}",
            lines[0]
        );
        assert!(lines[1].contains("2 re-entered allocation hooks") && lines[1].contains("(domain domain 9)"));
    }
}
