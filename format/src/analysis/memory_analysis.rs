//! Memory analysis of a capture: what `sgpt memory` reports and the inspector's Memory view
//! shows, computed here once so that both say the same thing.
//!
//! Two sources (SGPT_FORMAT.md §3.8):
//! - MEMO records ([`MemoryRecord`]): journal, checkpoints and health of an investigative
//!   recording. [`domain_table`], [`site_ranking`], [`size_distribution`],
//!   [`checkpoint_diffs`], [`reconcile`] and [`losses`] are plain functions over them.
//! - FRAM counter samples: per-frame domain gauges (`memory/<domain>/<field>`) and provider
//!   metrics (`provider/<metric>`). A [`GaugeScan`] reads them, all at once or a few frames
//!   per step, over every frame or an evenly spaced sample ([`FrameSampler`]).
//!
//! A value that was never sampled is `None`, never 0. Peaks of different domains happened
//! at different moments and are never summed; providers are never summed with each other
//! or with domains.
//!
//! ```
//! use sgpt_format::memory_analysis::{DomainSource, FrameSampler, Gauges, domain_table};
//! use sgpt_format::{Capture, CounterDef, CounterSample, CounterUnit, Declaration, Frame, Level, Meta, Note};
//! use sgpt_format::{Topology, Writer};
//!
//! let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
//! let mut writer = Writer::new(Vec::new(), &meta)?;
//! let topology = writer.topology(&Topology::default())?;
//! let counter = |id, name: &str| Declaration::Counter(CounterDef { id, name: name.into(), unit: CounterUnit::Bytes });
//! writer.declare(&[counter(0, "memory/scene/live_bytes"), counter(1, "provider/wgpu.buffer_memory")])?;
//! let counters = vec![CounterSample { counter: 0, value: 4096.0 }];
//! writer.frame(&Frame { frame_number: 0, topology, counters, ..Frame::default() })?;
//! writer.note(&Note { frame_number: 0, text: "provider wgpu.buffer_memory unavailable: no internal counters".into() })?;
//! let bytes = writer.finish()?;
//!
//! let capture = Capture::open(&bytes)?;
//! let gauges = Gauges::read(&capture, FrameSampler::all(capture.frames().len()), false);
//! let table = domain_table(capture.memory_records(), Some(&gauges));
//! assert_eq!(table.source, Some(DomainSource::Gauges));
//! assert_eq!((table.rows[0].live_bytes, table.rows[0].peak_bytes), (Some(4096), None));
//! let provider = &gauges.providers[0].summary;
//! assert!(!provider.is_available());
//! assert_eq!((provider.last, provider.reason.as_deref()), (None, Some("no internal counters")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use crate::model::{
    CounterUnit, Frame, MEMORY_GAUGE_FIELDS, MemoryBlock, MemoryCheckpoint, MemoryEventKind, MemoryExpectation,
    MemoryLoss, MemoryMode, MemoryRecord, MemoryRecursionLoss, MemorySurvivor, parse_memory_gauge,
    parse_provider_gauge,
};
use crate::reader::Capture;

/// Field indices into [`MEMORY_GAUGE_FIELDS`].
const LIVE_BYTES: usize = 0;
const LIVE_BLOCKS: usize = 1;
const PEAK_BYTES: usize = 2;
const ALLOCATED_BYTES: usize = 3;
const FREED_BYTES: usize = 4;
const ALLOCATIONS: usize = 5;
const FREES: usize = 6;
const FAILURES: usize = 7;
const VALID: usize = 8;

/// Gauges and providers are integral bytes or counts carried as f64; a sample that is not a
/// finite, non-negative number is not a reading.
fn reading(value: f64) -> Option<u64> {
    (value.is_finite() && value >= 0.0).then_some(value as u64)
}

// ---- frames ----

/// Which frames a [`GaugeScan`] decodes: every frame, or every `stride`-th frame and the
/// last one. A panel never needs more points than it has pixels, and the last frame holds
/// the latest readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSampler {
    frames: usize,
    stride: usize,
}

impl FrameSampler {
    /// Every one of `frames` frames.
    #[must_use]
    pub fn all(frames: usize) -> Self {
        Self { frames, stride: 1 }
    }

    /// About `max` evenly spaced frames of `frames` (at most `max + 1`, with the last).
    #[must_use]
    pub fn at_most(frames: usize, max: usize) -> Self {
        Self { frames, stride: frames.div_ceil(max.max(1)).max(1) }
    }

    /// Frames in the capture, sampled or not.
    #[must_use]
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Frames between two sampled ones (1 when every frame is read).
    #[must_use]
    pub fn stride(&self) -> usize {
        self.stride
    }

    fn regular(&self) -> usize {
        self.frames.div_ceil(self.stride)
    }

    fn has_tail(&self) -> bool {
        self.frames > 0 && !(self.frames - 1).is_multiple_of(self.stride)
    }

    /// How many frames are sampled.
    #[must_use]
    pub fn len(&self) -> usize {
        self.regular() + usize::from(self.has_tail())
    }

    /// Whether there is no frame to sample.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.frames == 0
    }

    /// The frame index of sampled position `position`.
    #[must_use]
    pub fn frame(&self, position: usize) -> Option<usize> {
        if position < self.regular() {
            Some(position * self.stride)
        } else if position == self.regular() && self.has_tail() {
            Some(self.frames - 1)
        } else {
            None
        }
    }

    /// The sampled frame indices, ascending.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..self.len()).filter_map(move |position| self.frame(position))
    }

    /// The sampled position nearest frame `index` (the earlier on a tie).
    #[must_use]
    pub fn nearest(&self, index: usize) -> Option<usize> {
        let index = index.min(self.frames.checked_sub(1)?);
        let before = (index / self.stride).min(self.regular() - 1);
        [before, before + 1]
            .into_iter()
            .filter_map(|position| Some((position, self.frame(position)?)))
            .min_by_key(|&(_, frame)| frame.abs_diff(index))
            .map(|(position, _)| position)
    }
}

// ---- gauges ----

/// One domain's per-frame gauges, as a scan read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainGauges {
    /// The domain, as its counters spell it (`memory/<domain>/<field>`).
    pub name: String,
    /// The last reading of each field of [`MEMORY_GAUGE_FIELDS`], in its order; `None` when
    /// no frame read sampled it.
    pub last: [Option<u64>; MEMORY_GAUGE_FIELDS.len()],
    /// Live bytes at each sampled position ([`Gauges::sampler`]); empty unless the scan
    /// kept series. `None` where that frame has no reading or did not decode.
    pub live_bytes: Vec<Option<u64>>,
    /// Peak bytes, as `live_bytes`.
    pub peak_bytes: Vec<Option<u64>>,
}

impl DomainGauges {
    /// The domain table's row from the last readings.
    #[must_use]
    pub fn row(&self) -> DomainRow {
        DomainRow {
            name: self.name.clone(),
            live_bytes: self.last[LIVE_BYTES],
            live_blocks: self.last[LIVE_BLOCKS],
            peak_bytes: self.last[PEAK_BYTES],
            allocated_bytes: self.last[ALLOCATED_BYTES],
            freed_bytes: self.last[FREED_BYTES],
            allocations: self.last[ALLOCATIONS],
            frees: self.last[FREES],
            failures: self.last[FAILURES],
            valid: self.last[VALID].map(|value| value != 0),
        }
    }
}

/// One provider metric over the frames read. Unavailable when no frame read sampled it:
/// then `last`, `min` and `max` are `None`, never 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderSummary {
    /// The metric, e.g. `wasm.linear_memory`.
    pub name: String,
    /// The unit of the first counter (by id) declared for the metric.
    pub unit: CounterUnit,
    /// Frames read that sampled it.
    pub samples: u64,
    /// The latest reading, from the last frame read that sampled it.
    pub last: Option<u64>,
    /// The smallest reading over the frames read.
    pub min: Option<u64>,
    /// The largest reading over the frames read.
    pub max: Option<u64>,
    /// Why it is unavailable, from the writer's NOTE `provider <metric> unavailable:
    /// <reason>`; only when it is unavailable.
    pub reason: Option<String>,
}

impl ProviderSummary {
    /// Whether any frame read sampled it (`available` in `sgpt memory --json`).
    #[must_use]
    pub fn is_available(&self) -> bool {
        self.samples > 0
    }

    fn add(&mut self, value: u64, new_frame: bool) {
        self.samples += u64::from(new_frame);
        self.last = Some(value);
        self.min = Some(self.min.map_or(value, |min| min.min(value)));
        self.max = Some(self.max.map_or(value, |max| max.max(value)));
    }
}

/// A provider's summary and, when the scan kept series, its value per sampled position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderGauge {
    /// The metric over the frames read.
    pub summary: ProviderSummary,
    /// The reading at each sampled position ([`Gauges::sampler`]), the frame's last when
    /// it has several; empty unless the scan kept series. `None` where that frame has no
    /// reading or did not decode.
    pub values: Vec<Option<u64>>,
}

/// Everything a [`GaugeScan`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gauges {
    /// The frames the scan was to read; series are indexed by its positions.
    pub sampler: FrameSampler,
    /// Domains with at least one declared gauge, in the order of their first counter id.
    pub domains: Vec<DomainGauges>,
    /// Declared providers, in the order of their first counter id.
    pub providers: Vec<ProviderGauge>,
    /// Frames decoded so far.
    pub frames_read: usize,
    /// Frames the scan tried that did not decode (their points stay empty).
    pub undecoded: usize,
}

impl Gauges {
    /// Reads every sampled frame at once.
    #[must_use]
    pub fn read(capture: &Capture<'_>, sampler: FrameSampler, series: bool) -> Self {
        let mut scan = GaugeScan::new(capture, sampler, series);
        while !scan.step(capture, usize::MAX) {}
        scan.finish()
    }

    /// The domain table's rows from the last readings.
    #[must_use]
    pub fn domain_rows(&self) -> Vec<DomainRow> {
        self.domains.iter().map(DomainGauges::row).collect()
    }

    /// The providers' summaries.
    #[must_use]
    pub fn provider_summaries(&self) -> Vec<ProviderSummary> {
        self.providers.iter().map(|provider| provider.summary.clone()).collect()
    }
}

#[derive(Clone, Copy, Debug)]
enum Target {
    Domain { domain: usize, field: usize },
    Provider(usize),
}

/// Reads domain gauges and provider metrics from the sampled frames, a few frames per
/// [`GaugeScan::step`], so a viewer can spread the work over short tasks. A capture that
/// declares neither decodes no frame.
#[derive(Debug)]
pub struct GaugeScan {
    gauges: Gauges,
    targets: BTreeMap<u32, Target>,
    /// Per provider, the last position that sampled it: a frame counts once however
    /// many of its samples name the metric.
    provider_seen: Vec<Option<usize>>,
    next: usize,
    frame: Frame,
}

impl GaugeScan {
    /// Plans a scan of `sampler`'s frames; `series` keeps live and peak bytes and provider
    /// values per sampled frame (for drawing), else only the last readings and summaries.
    #[must_use]
    pub fn new(capture: &Capture<'_>, sampler: FrameSampler, series: bool) -> Self {
        let points = if series { sampler.len() } else { 0 };
        let mut gauges = Gauges { sampler, domains: Vec::new(), providers: Vec::new(), frames_read: 0, undecoded: 0 };
        let mut targets = BTreeMap::new();
        // Counters iterate by id; names may repeat under several ids, and merge.
        let mut domain_at: BTreeMap<&str, usize> = BTreeMap::new();
        let mut provider_at: BTreeMap<&str, usize> = BTreeMap::new();
        for def in capture.counters() {
            if let Some((domain, field)) = parse_memory_gauge(&def.name) {
                let Some(field) = MEMORY_GAUGE_FIELDS.iter().position(|(known, _)| *known == field) else { continue };
                let domain = *domain_at.entry(domain).or_insert_with(|| {
                    gauges.domains.push(DomainGauges {
                        name: domain.to_owned(),
                        live_bytes: vec![None; points],
                        peak_bytes: vec![None; points],
                        ..DomainGauges::default()
                    });
                    gauges.domains.len() - 1
                });
                targets.insert(def.id, Target::Domain { domain, field });
            } else if let Some(metric) = parse_provider_gauge(&def.name) {
                let provider = *provider_at.entry(metric).or_insert_with(|| {
                    gauges.providers.push(ProviderGauge {
                        summary: ProviderSummary {
                            name: metric.to_owned(),
                            unit: def.unit,
                            ..ProviderSummary::default()
                        },
                        values: vec![None; points],
                    });
                    gauges.providers.len() - 1
                });
                targets.insert(def.id, Target::Provider(provider));
            }
        }
        for provider in &mut gauges.providers {
            provider.summary.reason = unavailable_reason(capture, &provider.summary.name);
        }
        let provider_seen = vec![None; gauges.providers.len()];
        Self { gauges, targets, provider_seen, next: 0, frame: Frame::default() }
    }

    /// The capture declares no memory gauge and no provider: there is nothing to read.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Whether the capture declares memory domain gauges.
    #[must_use]
    pub fn has_domains(&self) -> bool {
        !self.gauges.domains.is_empty()
    }

    /// Reads up to `max_frames` more sampled frames; `true` once every one is read.
    pub fn step(&mut self, capture: &Capture<'_>, max_frames: usize) -> bool {
        let sampler = self.gauges.sampler;
        if self.targets.is_empty() {
            self.next = sampler.len();
        }
        let end = self.next.saturating_add(max_frames).min(sampler.len());
        for position in self.next..end {
            let Some(index) = sampler.frame(position) else { break };
            // A frame that does not decode is a defect the reader reports; its point stays empty.
            if capture.frame_into(index, &mut self.frame).is_err() {
                self.gauges.undecoded += 1;
                continue;
            }
            self.gauges.frames_read += 1;
            for sample in &self.frame.counters {
                let Some(target) = self.targets.get(&sample.counter) else { continue };
                let Some(value) = reading(sample.value) else { continue };
                match *target {
                    Target::Domain { domain, field } => {
                        let gauges = &mut self.gauges.domains[domain];
                        gauges.last[field] = Some(value);
                        let series = match field {
                            LIVE_BYTES => &mut gauges.live_bytes,
                            PEAK_BYTES => &mut gauges.peak_bytes,
                            _ => continue,
                        };
                        if let Some(point) = series.get_mut(position) {
                            *point = Some(value);
                        }
                    }
                    Target::Provider(index) => {
                        let seen = self.provider_seen[index].replace(position);
                        let provider = &mut self.gauges.providers[index];
                        provider.summary.add(value, seen != Some(position));
                        if let Some(point) = provider.values.get_mut(position) {
                            *point = Some(value);
                        }
                    }
                }
            }
        }
        self.next = end;
        self.next >= sampler.len()
    }

    /// The fraction of sampled frames read.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.next as f64 / self.gauges.sampler.len().max(1) as f64
    }

    /// What was read; a provider keeps its reason only while unavailable.
    #[must_use]
    pub fn finish(mut self) -> Gauges {
        for provider in &mut self.gauges.providers {
            if provider.summary.is_available() {
                provider.summary.reason = None;
            }
        }
        self.gauges
    }
}

/// The reason of the first NOTE `provider <metric> unavailable: <reason>` (§3.8.1).
fn unavailable_reason(capture: &Capture<'_>, metric: &str) -> Option<String> {
    capture.provider_notes().find_map(|note| {
        let (named, reason) = note.text.strip_prefix("provider ")?.split_once(" unavailable: ")?;
        (named == metric).then(|| reason.to_owned())
    })
}

// ---- the domain table ----

/// Where the domain table comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainSource {
    /// The last memory record's terminal checkpoint: exact counters at its boundary.
    MemoryRecord,
    /// The last reading of each per-frame domain gauge.
    Gauges,
}

impl DomainSource {
    /// `memory_record` or `gauges`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MemoryRecord => "memory_record",
            Self::Gauges => "gauges",
        }
    }
}

/// One domain's counters; `None` where the source has no such value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainRow {
    /// The domain's name, or `domain <id>` when the memory record does not define it.
    pub name: String,
    /// Bytes live in the domain.
    pub live_bytes: Option<u64>,
    /// Blocks live in the domain.
    pub live_blocks: Option<u64>,
    /// The domain's own peak of live bytes; peaks of different domains are never summed.
    pub peak_bytes: Option<u64>,
    /// Bytes allocated, as the domain's counter reads.
    pub allocated_bytes: Option<u64>,
    /// Bytes freed, as the domain's counter reads.
    pub freed_bytes: Option<u64>,
    /// Allocations, as the domain's counter reads.
    pub allocations: Option<u64>,
    /// Frees, as the domain's counter reads.
    pub frees: Option<u64>,
    /// Allocations the backend refused.
    pub failures: Option<u64>,
    /// `false` once a counter saturated; `None` without a validity reading.
    pub valid: Option<bool>,
}

/// The domain table and its source; no source and no rows without memory data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainTable {
    /// Where the rows come from; `None` without memory data (`"source": "none"` in
    /// `sgpt memory --json`).
    pub source: Option<DomainSource>,
    /// One row per domain: in the terminal checkpoint's order from a memory record, in the
    /// order of their first counter id from gauges.
    pub rows: Vec<DomainRow>,
}

/// A domain's name in `record`, or `domain <id>` when the record does not define it.
#[must_use]
pub fn domain_name(record: &MemoryRecord, id: u32) -> String {
    record.domain_name(id).map_or_else(|| format!("domain {id}"), str::to_owned)
}

/// The domain table: the last record's terminal checkpoint when it has one, else the last
/// readings of the gauges (a domain whose gauges were declared but never read is a row of
/// `None`s), else empty.
#[must_use]
pub fn domain_table(records: &[MemoryRecord], gauges: Option<&Gauges>) -> DomainTable {
    if let Some(record) = records.last()
        && let Some(terminal) = record.checkpoints.last()
    {
        let rows = terminal
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
            .collect();
        return DomainTable { source: Some(DomainSource::MemoryRecord), rows };
    }
    match gauges.filter(|gauges| !gauges.domains.is_empty()) {
        Some(gauges) => DomainTable { source: Some(DomainSource::Gauges), rows: gauges.domain_rows() },
        None => DomainTable::default(),
    }
}

// ---- the journal: sites and sizes ----

/// One allocation site's traffic over every record's journal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteTraffic {
    /// The site id the journals use; 0 is the unknown site.
    pub id: u32,
    /// Empty when the site is only a location, or no record defines it.
    pub name: String,
    /// The source file; empty when no record defines the site.
    pub file: String,
    /// The line in `file`; 0 when no record defines the site.
    pub line: u32,
    /// The column in `file`; 0 when no record defines the site.
    pub column: u32,
    /// Allocations journaled at this site.
    pub allocations: u64,
    /// Bytes those allocations requested, saturating.
    pub allocated_bytes: u64,
    /// Frees of blocks allocated at this site, unknown-baseline ones included.
    pub frees: u64,
    /// The sizes of those freed blocks, summed, saturating.
    pub freed_bytes: u64,
    /// Allocations at this site that the backend refused.
    pub failures: u64,
}

/// Sites ranked by allocated bytes (then by id). A site is named by the first record that
/// defines it.
#[must_use]
pub fn site_ranking(records: &[MemoryRecord]) -> Vec<SiteTraffic> {
    let mut sites: BTreeMap<u32, SiteTraffic> = BTreeMap::new();
    for record in records {
        for event in &record.events {
            let site =
                sites.entry(event.site).or_insert_with(|| SiteTraffic { id: event.site, ..SiteTraffic::default() });
            if site.file.is_empty()
                && site.name.is_empty()
                && let Some(definition) = record.site(event.site)
            {
                site.name.clone_from(&definition.name);
                site.file.clone_from(&definition.file);
                (site.line, site.column) = (definition.line, definition.column);
            }
            match event.kind {
                MemoryEventKind::Alloc => {
                    site.allocations += 1;
                    site.allocated_bytes = site.allocated_bytes.saturating_add(event.size);
                }
                MemoryEventKind::Free | MemoryEventKind::UnknownFree => {
                    site.frees += 1;
                    site.freed_bytes = site.freed_bytes.saturating_add(event.size);
                }
                MemoryEventKind::Failure => site.failures += 1,
            }
        }
    }
    let mut sites: Vec<SiteTraffic> = sites.into_values().collect();
    sites.sort_by(|a, b| b.allocated_bytes.cmp(&a.allocated_bytes).then(a.id.cmp(&b.id)));
    sites
}

/// Allocations of sizes in `[min_bytes, max_bytes]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SizeBucket {
    /// The smallest size the bucket holds, a power of two; 0 for the first bucket, which
    /// holds sizes 0 and 1.
    pub min_bytes: u64,
    /// The largest size it holds, inclusive: twice the power of two, less 1.
    pub max_bytes: u64,
    /// Allocations journaled with a size in the bucket.
    pub allocations: u64,
    /// The bytes they requested, summed, saturating.
    pub bytes: u64,
}

/// Allocation sizes over every record's journal in power-of-two buckets, smallest first;
/// only non-empty buckets. Failures are not allocations and are not bucketed.
#[must_use]
pub fn size_distribution(records: &[MemoryRecord]) -> Vec<SizeBucket> {
    let mut buckets: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for event in records.iter().flat_map(|record| &record.events) {
        if event.kind == MemoryEventKind::Alloc {
            let bucket = buckets.entry(event.size.max(1).ilog2()).or_default();
            bucket.0 += 1;
            bucket.1 = bucket.1.saturating_add(event.size);
        }
    }
    buckets
        .into_iter()
        .map(|(log, (allocations, bytes))| SizeBucket {
            // The first bucket holds sizes 0 and 1.
            min_bytes: if log == 0 { 0 } else { 1 << log },
            max_bytes: (1u64 << log).checked_mul(2).map_or(u64::MAX, |end| end - 1),
            allocations,
            bytes,
        })
        .collect()
}

// ---- checkpoints ----

/// The difference between two checkpoints of one record. Blocks are matched by lifetime
/// `(epoch, seq)`, never by address, so a reused address is never a survivor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointDiff {
    /// The record's `capture_id`.
    pub capture: u64,
    /// Checkpoint indices in the record, and their names.
    pub from: usize,
    /// The later checkpoint's index.
    pub to: usize,
    /// The earlier checkpoint's name.
    pub from_name: String,
    /// The later checkpoint's name.
    pub to_name: String,
    /// What the later checkpoint's owner expected.
    pub expectation: MemoryExpectation,
    /// Both live sets are exact; otherwise the difference is no leak proof.
    pub exact: bool,
    /// The journal is complete up to the later checkpoint; otherwise operations between
    /// the two were lost and the interval is incomplete (the live sets may still be exact).
    pub journal_complete: bool,
    /// The later checkpoint expected `Released` and new blocks remain live.
    pub expectation_violated: bool,
    /// Live at the later checkpoint only, by lifetime.
    pub new_live: Vec<MemoryBlock>,
    /// Live at the earlier checkpoint only, by lifetime.
    pub released: Vec<MemoryBlock>,
    /// Live at both, oldest (most operations) first.
    pub survivors: Vec<MemorySurvivor>,
    /// The sizes of `new_live`, summed, saturating.
    pub new_live_bytes: u64,
    /// The sizes of `released`, summed, saturating.
    pub released_bytes: u64,
    /// The sizes of `survivors`, summed, saturating.
    pub survivor_bytes: u64,
}

fn total(sizes: impl Iterator<Item = u64>) -> u64 {
    sizes.fold(0, u64::saturating_add)
}

/// Each consecutive pair of checkpoints, then the first against the terminal one when
/// there are more than two.
#[must_use]
pub fn checkpoint_diffs(record: &MemoryRecord) -> Vec<CheckpointDiff> {
    let n = record.checkpoints.len();
    let mut pairs: Vec<(usize, usize)> = (1..n).map(|to| (to - 1, to)).collect();
    if n > 2 {
        pairs.push((0, n - 1));
    }
    pairs
        .into_iter()
        .filter_map(|(from, to)| {
            let mut diff = record.diff(from, to)?;
            // Stable: equally old survivors keep lifetime order.
            diff.survivors.sort_by_key(|survivor| std::cmp::Reverse(survivor.age_ops));
            Some(CheckpointDiff {
                capture: record.capture_id,
                from,
                to,
                from_name: record.checkpoints[from].name.clone(),
                to_name: record.checkpoints[to].name.clone(),
                expectation: record.checkpoints[to].expectation,
                exact: diff.exact,
                journal_complete: record.checkpoints[to].history_complete,
                expectation_violated: diff.expectation_violated,
                new_live_bytes: total(diff.new_live.iter().map(|b| b.size)),
                released_bytes: total(diff.released.iter().map(|b| b.size)),
                survivor_bytes: total(diff.survivors.iter().map(|s| s.block.size)),
                new_live: diff.new_live,
                released: diff.released,
                survivors: diff.survivors,
            })
        })
        .collect()
}

// ---- reconciliation ----

/// How far the counters, the tracked live set and the journal agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReconciliationStatus {
    /// Complete mode without loss, and per domain the counters' live bytes, the terminal
    /// live set and the journal's net bytes agree.
    Exact,
    /// They disagree: in complete mode, the three views differ for some domain; in
    /// activity mode, the tracked live set exceeds the counters.
    Mismatch,
    /// Activity mode: the tracked live set is within the counters; blocks from before the
    /// recording are not tracked.
    Bounded,
    /// No record with a checkpoint, a record with loss of any kind, or a domain whose
    /// counters saturated: bounds are not compared.
    #[default]
    Unavailable,
}

impl ReconciliationStatus {
    /// `exact`, `mismatch`, `bounded` or `unavailable`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Mismatch => "mismatch",
            Self::Bounded => "bounded",
            Self::Unavailable => "unavailable",
        }
    }
}

/// One domain's three views of its live bytes at the terminal checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainReconciliation {
    /// The domain's name, or `domain <id>` when the record does not define it.
    pub domain: String,
    /// The checked counters.
    pub counter_live_bytes: u64,
    /// The terminal checkpoint's live set.
    pub tracked_live_bytes: u64,
    /// Allocations minus frees in the journal before the terminal boundary; `None` when
    /// the journal lost operations before it, so a sum would be invented.
    pub journal_net_bytes: Option<i128>,
}

/// What [`reconcile`] found (`reconciliation` in `sgpt memory --json`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconciliation {
    /// How far the three views agree.
    pub status: ReconciliationStatus,
    /// Why the status is what it is, in a sentence naming the domain or the loss; `None`
    /// when exact.
    pub reason: Option<String>,
    /// One entry per domain of the terminal checkpoint, in its order; empty without a
    /// record with a checkpoint.
    pub domains: Vec<DomainReconciliation>,
}

/// Reconciles a record (the last one, for a capture): counters against its terminal live
/// set and its journal, per domain. Saturated counters and lost operations make it
/// unavailable, with the reason: a comparison against bounds or a partial journal would
/// report a disagreement that only the loss caused.
#[must_use]
pub fn reconcile(record: Option<&MemoryRecord>) -> Reconciliation {
    let Some((record, terminal)) = record.and_then(|r| Some((r, r.checkpoints.last()?))) else {
        return Reconciliation {
            reason: Some("no memory record with a checkpoint".to_owned()),
            ..Reconciliation::default()
        };
    };
    let mut tracked: BTreeMap<u32, u64> = BTreeMap::new();
    for block in &terminal.live {
        let bytes = tracked.entry(block.domain).or_default();
        *bytes = bytes.saturating_add(block.size);
    }
    let mut net: BTreeMap<u32, i128> = BTreeMap::new();
    for event in record.events.iter().filter(|e| e.seq < terminal.boundary_seq) {
        *net.entry(event.domain).or_default() += match event.kind {
            MemoryEventKind::Alloc => i128::from(event.size),
            MemoryEventKind::Free | MemoryEventKind::UnknownFree => -i128::from(event.size),
            MemoryEventKind::Failure => 0,
        };
    }
    let journal_complete = terminal.history_complete;
    let domains: Vec<DomainReconciliation> = terminal
        .domains
        .iter()
        .map(|counters| DomainReconciliation {
            domain: domain_name(record, counters.domain),
            counter_live_bytes: counters.live_bytes,
            tracked_live_bytes: tracked.get(&counters.domain).copied().unwrap_or(0),
            journal_net_bytes: journal_complete.then(|| net.get(&counters.domain).copied().unwrap_or(0)),
        })
        .collect();
    let (status, reason) = reconciliation_status(record, terminal, &domains);
    Reconciliation { status, reason, domains }
}

fn reconciliation_status(
    record: &MemoryRecord,
    terminal: &MemoryCheckpoint,
    domains: &[DomainReconciliation],
) -> (ReconciliationStatus, Option<String>) {
    use ReconciliationStatus::{Bounded, Exact, Mismatch, Unavailable};
    if let Some(loss) = [record.health.journal_loss, record.health.table_loss].into_iter().flatten().next() {
        let reason = format!(
            "capture {} lost {} from operation {} ({}): the interval after it is incomplete",
            record.capture_id,
            crate::wording::counted(loss.count, "operation"),
            loss.first_lost_seq,
            loss.reason.description()
        );
        return (Unavailable, Some(reason));
    }
    if let Some(recursion) = record.health.recursion {
        let reason = format!(
            "capture {} lost the detail of {} at or after operation {}",
            record.capture_id,
            crate::wording::counted(recursion.count, "re-entrant operation"),
            recursion.after_seq
        );
        return (Unavailable, Some(reason));
    }
    if let Some(saturated) = terminal.domains.iter().find(|counters| !counters.valid) {
        let reason = format!(
            "the counters of domain {} saturated: they are bounds at best",
            domain_name(record, saturated.domain)
        );
        return (Unavailable, Some(reason));
    }
    let bytes = |value: i128| format!("{value} B");
    match record.mode {
        MemoryMode::Complete => {
            let disagreeing = domains.iter().find(|d| {
                d.counter_live_bytes != d.tracked_live_bytes
                    || d.journal_net_bytes != Some(i128::from(d.tracked_live_bytes))
            });
            match disagreeing {
                None => (Exact, None),
                Some(d) => (
                    Mismatch,
                    Some(format!(
                        "domain {}: counters {} live, live set {}, journal {}",
                        d.domain,
                        bytes(i128::from(d.counter_live_bytes)),
                        bytes(i128::from(d.tracked_live_bytes)),
                        d.journal_net_bytes.map_or_else(|| "incomplete".to_owned(), bytes),
                    )),
                ),
            }
        }
        MemoryMode::Activity => match domains.iter().find(|d| d.tracked_live_bytes > d.counter_live_bytes) {
            None => {
                (Bounded, Some("activity mode: blocks allocated before the capture began are not tracked".to_owned()))
            }
            Some(d) => (
                Mismatch,
                Some(format!(
                    "domain {}: the live set holds {} but the counters only {}",
                    d.domain,
                    bytes(i128::from(d.tracked_live_bytes)),
                    bytes(i128::from(d.counter_live_bytes)),
                )),
            ),
        },
    }
}

// ---- records ----

/// One memory record at a glance: what kind of capture it was and whether it is whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordSummary {
    /// The record's `capture_id`.
    pub capture: u64,
    /// Activity (began late: older blocks are unknown-baseline) or complete.
    pub mode: MemoryMode,
    /// The operation sequences `[begin_seq, end_seq)` the capture could see.
    pub begin_seq: u64,
    /// The first operation sequence after what the capture could see.
    pub end_seq: u64,
    /// Events in the record's journal.
    pub events: usize,
    /// Checkpoints in the record, the terminal one included.
    pub checkpoints: usize,
    /// No loss of any kind.
    pub complete: bool,
}

/// One summary per record, in the order given (`captures` in `sgpt memory --json`).
#[must_use]
pub fn record_summaries(records: &[MemoryRecord]) -> Vec<RecordSummary> {
    records
        .iter()
        .map(|record| RecordSummary {
            capture: record.capture_id,
            mode: record.mode,
            begin_seq: record.begin_seq,
            end_seq: record.end_seq,
            events: record.events.len(),
            checkpoints: record.checkpoints.len(),
            complete: record.health.is_complete(),
        })
        .collect()
}

// ---- loss ----

/// What one incomplete record lost: the interval after each is incomplete, never
/// interpolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordLoss {
    /// The record's `capture_id`.
    pub capture: u64,
    /// Operations the journal lost: why, the first lost sequence, the domain and how many;
    /// `None` without journal loss.
    pub journal: Option<MemoryLoss>,
    /// Operations lost from the table of live blocks, in the same terms; `None` without.
    pub table: Option<MemoryLoss>,
    /// Operations whose detail re-entrant hooks lost, at or after a known sequence; `None`
    /// without.
    pub recursion: Option<MemoryRecursionLoss>,
}

/// One entry per record with loss; empty when every record is complete.
#[must_use]
pub fn losses(records: &[MemoryRecord]) -> Vec<RecordLoss> {
    records
        .iter()
        .filter(|record| !record.health.is_complete())
        .map(|record| RecordLoss {
            capture: record.capture_id,
            journal: record.health.journal_loss,
            table: record.health.table_loss,
            recursion: record.health.recursion,
        })
        .collect()
}

/// Health counts summed over every record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HealthTotals {
    /// Frees of blocks allocated before a recording began (expected in activity mode).
    pub unknown_baseline_frees: u64,
    /// Broken ownership contracts the recorder saw.
    pub ownership_errors: u64,
}

/// The health counts of `records`, summed, saturating.
#[must_use]
pub fn health_totals(records: &[MemoryRecord]) -> HealthTotals {
    records.iter().fold(HealthTotals::default(), |totals, record| HealthTotals {
        unknown_baseline_frees: totals.unknown_baseline_frees.saturating_add(record.health.unknown_baseline_frees),
        ownership_errors: totals.ownership_errors.saturating_add(record.health.ownership_errors),
    })
}
