//! The Memory view: the domain table (live, peak, traffic, validity), each domain's
//! gauges over frames, checkpoint differences with their new live, released and
//! surviving blocks, and loss banners. Mirrors what `sgpt memory` reports.

use std::collections::BTreeMap;

use sgpt_format::{Capture, MemoryBlock, MemoryExpectation, MemoryLossReason, MemoryRecord, parse_memory_gauge};

use crate::summary::{MAX_ROWS, clip};
use crate::units;

/// What a value the capture never sampled reads as; never 0, which would be a claim.
pub const NOT_RECORDED: &str = "not recorded";

/// Where the domain table comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainSource {
    /// The last memory record's terminal checkpoint: exact counters at its boundary.
    Checkpoint,
    /// The last sampled value of each per-frame domain gauge.
    Gauges,
}

/// One domain's counters; `None` where the source has no such value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainRow {
    pub name: String,
    pub live_bytes: Option<u64>,
    pub live_blocks: Option<u64>,
    pub peak_bytes: Option<u64>,
    pub allocated_bytes: Option<u64>,
    pub freed_bytes: Option<u64>,
    pub allocations: Option<u64>,
    pub frees: Option<u64>,
    pub failures: Option<u64>,
    pub valid: Option<bool>,
}

impl DomainRow {
    /// The table's cells: name, live, peak, allocated, freed, allocations, frees,
    /// failures, validity.
    #[must_use]
    pub fn cells(&self) -> [String; 9] {
        [
            self.name.clone(),
            byte_text(self.live_bytes),
            byte_text(self.peak_bytes),
            byte_text(self.allocated_bytes),
            byte_text(self.freed_bytes),
            count_text(self.allocations),
            count_text(self.frees),
            count_text(self.failures),
            match self.valid {
                Some(true) => "valid".to_owned(),
                Some(false) => "invalid: a counter overflowed or underflowed".to_owned(),
                None => NOT_RECORDED.to_owned(),
            },
        ]
    }
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

/// One domain's gauges per frame index (aligned with the frame strip); `None` where
/// the frame sampled no such gauge or did not decode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GaugeSeries {
    pub domain: String,
    pub live_bytes: Vec<Option<u64>>,
    pub peak_bytes: Vec<Option<u64>>,
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
            domain: domain_name(record, block.domain),
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

/// The difference between two checkpoints of one record.
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
    /// In the order the capture declares the gauges.
    pub series: Vec<GaugeSeries>,
    pub pairs: Vec<CheckpointPair>,
    /// One line per lost or incomplete part of a record.
    pub losses: Vec<String>,
}

impl MemoryView {
    /// Decodes at most about [`MAX_DECODED_FRAMES`] evenly spaced frames (always the last)
    /// when the capture declares memory gauges, to build their series and the domain table.
    #[must_use]
    pub fn new(capture: &Capture<'_>) -> Self {
        let records = capture.memory_records();
        let series = gauge_series(capture);
        let (source, domains) = match records.last().and_then(terminal_domains) {
            Some(domains) => (Some(DomainSource::Checkpoint), domains),
            None if series.is_empty() => (None, Vec::new()),
            None => (Some(DomainSource::Gauges), gauge_domains(capture)),
        };
        let mut pairs = Vec::new();
        let mut losses = Vec::new();
        for record in records {
            pairs.extend(checkpoint_pairs(record));
            losses.extend(loss_lines(record));
        }
        Self { records: records.len(), source, domains, series: series.into_values().collect(), pairs, losses }
    }

    /// No memory record and no domain gauge: the view has nothing to show.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records == 0 && self.source.is_none()
    }

    #[must_use]
    pub fn source_text(&self) -> String {
        match self.source {
            Some(DomainSource::Checkpoint) => {
                format!("{} memory record(s); domains from the last record's terminal checkpoint.", self.records)
            }
            Some(DomainSource::Gauges) => format!(
                "{} memory record(s); domains from the last sampled per-frame gauges (a gauge never sampled reads {NOT_RECORDED}).",
                self.records
            ),
            None => format!("{} memory record(s) without a checkpoint and no domain gauges.", self.records),
        }
    }
}

fn domain_name(record: &MemoryRecord, id: u32) -> String {
    record.domain_name(id).map_or_else(|| format!("domain {id}"), clip)
}

fn site_name(record: &MemoryRecord, id: u32) -> String {
    match record.site(id) {
        Some(site) if !site.name.is_empty() => clip(&site.name),
        Some(site) if !site.file.is_empty() => clip(&format!("{}:{}:{}", site.file, site.line, site.column)),
        _ => format!("#{id}"),
    }
}

fn terminal_domains(record: &MemoryRecord) -> Option<Vec<DomainRow>> {
    let terminal = record.checkpoints.last()?;
    Some(
        terminal
            .domains
            .iter()
            .map(|c| DomainRow {
                name: domain_name(record, c.domain),
                live_bytes: Some(c.live_bytes),
                live_blocks: Some(c.live_blocks),
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

/// Gauges are integral counts carried as f64; anything else is not a reading.
fn gauge_value(value: f64) -> Option<u64> {
    (value.is_finite() && value >= 0.0).then_some(value as u64)
}

/// Counter id → (domain, field) for every memory gauge the capture declares.
fn gauge_ids(capture: &Capture<'_>) -> BTreeMap<u32, (String, String)> {
    capture
        .counters()
        .filter_map(|def| parse_memory_gauge(&def.name).map(|(d, f)| (def.id, (clip(d), f.to_owned()))))
        .collect()
}

/// Per domain, keyed by its first gauge's counter id so that the order is the capture's.
/// The most frames the memory view decodes when it opens. A series drawn in a panel never
/// needs more points than it has pixels, and opening a capture of hours stays one short
/// task; frames between samples stay empty points, never filled in.
pub const MAX_DECODED_FRAMES: usize = 2048;

/// Evenly spaced frame indices, at most about `MAX_DECODED_FRAMES`, always ending with the
/// last frame (the domain table reads the last sampled gauges).
fn sampled_frames(frames: usize) -> impl Iterator<Item = usize> {
    let stride = frames.div_ceil(MAX_DECODED_FRAMES).max(1);
    let last = frames.checked_sub(1).filter(|last| last % stride != 0);
    (0..frames).step_by(stride).chain(last)
}

fn gauge_series(capture: &Capture<'_>) -> BTreeMap<u32, GaugeSeries> {
    let ids = gauge_ids(capture);
    let mut by_domain: BTreeMap<u32, GaugeSeries> = BTreeMap::new();
    let mut key_of: BTreeMap<String, u32> = BTreeMap::new();
    for (&id, (domain, _)) in &ids {
        let key = *key_of.entry(domain.clone()).or_insert(id);
        by_domain.entry(key).or_insert_with(|| GaugeSeries {
            domain: domain.clone(),
            live_bytes: vec![None; capture.frames().len()],
            peak_bytes: vec![None; capture.frames().len()],
        });
    }
    if ids.is_empty() {
        return by_domain;
    }
    for index in sampled_frames(capture.frames().len()) {
        // A frame that does not decode is listed under defects; its point stays empty.
        let Ok(frame) = capture.frame(index) else { continue };
        for sample in &frame.counters {
            let Some((domain, field)) = ids.get(&sample.counter) else { continue };
            let Some(series) = key_of.get(domain).and_then(|key| by_domain.get_mut(key)) else { continue };
            match field.as_str() {
                "live_bytes" => series.live_bytes[index] = gauge_value(sample.value),
                "peak_bytes" => series.peak_bytes[index] = gauge_value(sample.value),
                _ => {}
            }
        }
    }
    by_domain
}

/// The domain table from the last sample of each gauge, in declaration order.
fn gauge_domains(capture: &Capture<'_>) -> Vec<DomainRow> {
    let ids = gauge_ids(capture);
    let mut order: Vec<String> = Vec::new();
    for (domain, _) in ids.values() {
        if !order.contains(domain) {
            order.push(domain.clone());
        }
    }
    let mut last: BTreeMap<(String, String), f64> = BTreeMap::new();
    for index in sampled_frames(capture.frames().len()) {
        let Ok(frame) = capture.frame(index) else { continue };
        for sample in &frame.counters {
            if let Some(key) = ids.get(&sample.counter) {
                last.insert(key.clone(), sample.value);
            }
        }
    }
    order
        .into_iter()
        .map(|name| {
            let get = |field: &str| last.get(&(name.clone(), field.to_owned())).copied().and_then(gauge_value);
            DomainRow {
                live_bytes: get("live_bytes"),
                live_blocks: get("live_blocks"),
                peak_bytes: get("peak_bytes"),
                allocated_bytes: get("allocated_bytes"),
                freed_bytes: get("freed_bytes"),
                allocations: get("allocations"),
                frees: get("frees"),
                failures: get("failures"),
                valid: last.get(&(name.clone(), "valid".to_owned())).map(|&v| v != 0.0),
                name,
            }
        })
        .collect()
}

/// Each consecutive checkpoint pair, and the first against the terminal one, as the
/// CLI reports them.
fn checkpoint_pairs(record: &MemoryRecord) -> Vec<CheckpointPair> {
    let n = record.checkpoints.len();
    let mut pairs: Vec<(usize, usize)> = (1..n).map(|to| (to - 1, to)).collect();
    if n > 2 {
        pairs.push((0, n - 1));
    }
    let total = |sizes: &mut dyn Iterator<Item = u64>| sizes.fold(0u64, u64::saturating_add);
    pairs
        .into_iter()
        .filter_map(|(from, to)| {
            let diff = record.diff(from, to)?;
            let mut survivors: Vec<_> = diff.survivors.iter().collect();
            survivors.sort_by_key(|s| std::cmp::Reverse(s.age_ops));
            let rows = |blocks: &[MemoryBlock]| {
                blocks.iter().take(MAX_ROWS).map(|b| BlockRow::new(record, b)).collect::<Vec<_>>()
            };
            Some(CheckpointPair {
                capture: record.capture_id,
                from: clip(&record.checkpoints[from].name),
                to: clip(&record.checkpoints[to].name),
                expectation: match record.checkpoints[to].expectation {
                    MemoryExpectation::Unspecified => "unspecified",
                    MemoryExpectation::Retained => "retained",
                    MemoryExpectation::Released => "released",
                },
                exact: diff.exact,
                expectation_violated: diff.expectation_violated,
                new_live_bytes: total(&mut diff.new_live.iter().map(|b| b.size)),
                released_bytes: total(&mut diff.released.iter().map(|b| b.size)),
                survivor_bytes: total(&mut diff.survivors.iter().map(|s| s.block.size)),
                counts: [diff.new_live.len(), diff.released.len(), diff.survivors.len()],
                new_live: rows(&diff.new_live),
                released: rows(&diff.released),
                survivors: survivors
                    .into_iter()
                    .take(MAX_ROWS)
                    .map(|s| BlockRow {
                        age_ops: Some(s.age_ops),
                        age_time: Some(s.age_time),
                        ..BlockRow::new(record, &s.block)
                    })
                    .collect(),
            })
        })
        .collect()
}

fn loss_lines(record: &MemoryRecord) -> Vec<String> {
    let health = &record.health;
    let mut lines = Vec::new();
    for (what, loss) in [("journal", health.journal_loss), ("live-block table", health.table_loss)] {
        let Some(loss) = loss else { continue };
        let reason = match loss.reason {
            MemoryLossReason::JournalFull => "the journal was full",
            MemoryLossReason::TableFull => "the live-block table was full",
            MemoryLossReason::DuplicateAddress => "an address was allocated twice",
            MemoryLossReason::MissingEntry => "a free named a block the table did not hold",
        };
        lines.push(format!(
            "Memory capture {}: {what} incomplete — {reason}; {} operations lost from seq {} on (domain {}). Everything after it is incomplete, not interpolated.",
            record.capture_id,
            units::grouped(loss.count),
            loss.first_lost_seq,
            domain_name(record, loss.domain),
        ));
    }
    if let Some(recursion) = health.recursion {
        lines.push(format!(
            "Memory capture {}: {} re-entered allocation hooks were not recorded, at or after seq {} (domain {}); live sets after it are incomplete.",
            record.capture_id,
            units::grouped(recursion.count),
            recursion.after_seq,
            domain_name(record, recursion.domain),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use sgpt_format::{
        CounterDef, CounterSample, CounterUnit, Declaration, Frame, Level, MemoryHealth, MemoryLoss, Meta, Writer,
    };

    use super::*;

    fn fixture() -> Vec<u8> {
        sgpt_format::fixtures::all().into_iter().find(|f| f.name == "memory.sgpt").expect("memory fixture").bytes
    }

    #[test]
    fn the_domain_table_mirrors_the_cli_from_the_terminal_checkpoint() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        assert!(!view.is_empty());
        assert_eq!((view.records, view.source), (1, Some(DomainSource::Checkpoint)));
        let cells: Vec<[String; 9]> = view.domains.iter().map(DomainRow::cells).collect();
        let row = |cells: [&str; 9]| cells.map(str::to_owned);
        assert_eq!(
            cells,
            [
                row([
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
                row(["particles", "768 B", "768 B", "768 B", "0 B", "2", "0", "0", "valid"]),
                row(["scratch", "0 B", "64 B", "64 B", "64 B", "1", "1", "1", "valid"]),
            ]
        );
        assert!(view.losses.is_empty());
    }

    #[test]
    fn gauge_series_follow_the_frames() {
        let bytes = fixture();
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        let names: Vec<&str> = view.series.iter().map(|s| s.domain.as_str()).collect();
        assert_eq!(names, ["scene", "particles", "scratch"]);
        let live = |i: usize| view.series[i].live_bytes.iter().map(|v| v.expect("sampled")).collect::<Vec<_>>();
        assert_eq!(live(0), [4096, 5120, 0, 0, 0, 4096, 5120, 5120]);
        assert_eq!(live(1), [0, 256, 256, 256, 256, 256, 256, 768]);
        assert_eq!(live(2), [0; 8]);
        assert_eq!(view.series[2].peak_bytes, [0, 0, 0, 64, 64, 64, 64, 64].map(Some));
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
        writer.finish().expect("finish")
    }

    #[test]
    fn without_a_record_the_last_gauges_fill_the_table_and_unsampled_ones_read_not_recorded() {
        let bytes = gauge_capture(&[(0, 300.0), (2, 9.0)]);
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        assert_eq!(view.source, Some(DomainSource::Gauges));
        let cells = view.domains[0].cells();
        assert_eq!(cells[..3], ["ui", "300 B", NOT_RECORDED]);
        assert_eq!(cells[5], NOT_RECORDED);
        assert_eq!(cells[8], NOT_RECORDED);
        assert_eq!(view.series[0].live_bytes, [None, Some(300)]);
        assert_eq!(view.series[0].peak_bytes, [None, None]);
        assert!(view.source_text().contains("per-frame gauges"));
    }

    #[test]
    fn a_capture_without_memory_data_is_empty() {
        let bytes = sgpt_format::fixtures::all().into_iter().find(|f| f.name == "minimal.sgpt").expect("fixture").bytes;
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        assert!(view.is_empty());
        assert!(view.series.is_empty() && view.pairs.is_empty());
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

#[cfg(test)]
mod sampling_tests {
    use super::{MAX_DECODED_FRAMES, sampled_frames};

    #[test]
    fn sampling_is_bounded_even_and_ends_with_the_last_frame() {
        assert_eq!(sampled_frames(0).count(), 0);
        assert_eq!(sampled_frames(8).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
        for frames in [MAX_DECODED_FRAMES, MAX_DECODED_FRAMES + 1, 216_000, 1_000_003] {
            let sampled: Vec<usize> = sampled_frames(frames).collect();
            assert!(sampled.len() <= MAX_DECODED_FRAMES + 1, "{frames}: {}", sampled.len());
            assert_eq!(sampled.last(), Some(&(frames - 1)));
            assert!(sampled.windows(2).all(|pair| pair[0] < pair[1]));
        }
    }
}
