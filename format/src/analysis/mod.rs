//! The numbers the CLI and the inspector show: per-pass statistics over a frame range,
//! a comparison of two ranges or captures sorted by regression, and resource lifetimes
//! with the peak concurrent declared footprint.
//!
//! Computed once here so both front ends show the same figures. No I/O, no printing,
//! nothing target-specific.
//!
//! ```
//! use sgpt_format::{Capture, analysis, synth};
//!
//! let bytes = synth::generate(&synth::SynthOptions { frames: 16, passes: 20, ..Default::default() });
//! let capture = Capture::open(&bytes)?;
//! let report = analysis::pass_stats(&capture, 0..capture.frames().len());
//! assert_eq!(report.frames, 16);
//! let slowest = &report.passes[0];
//! assert!(slowest.min_ns <= slowest.median_ns && slowest.median_ns <= slowest.p95_ns);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The other analyses live beside this one: [`compare`](mod@compare) (two captures or ranges, with
//! intervals and verdicts), [`frame_timing`], [`workload_summary`] and [`memory_analysis`];
//! [`check`] checks every frame whole in bounded steps or pieces, as `Capture::verify` does.

pub mod check;
pub mod compare;
pub mod frame_timing;
mod held;
pub(crate) mod isa;
pub mod memory_analysis;
pub mod scan;
pub mod workload_summary;

use std::collections::HashMap;
use std::ops::Range;

use crate::error::{Defect, DefectKind};
use crate::model::{GpuPass, GpuPassKind, SpanKind, Topology, TopologyId};
use crate::piece::OpenFrame;
use crate::reader::Capture;

/// Statistics of one GPU pass over a frame range.
///
/// A pass is identified by its owning graph pass, its label, its kind and the span kind
/// together. Labels alone are not keys: two graph passes may each open a
/// GPU pass labelled `blur`, and those are two rows.
///
/// Order statistics use the nearest-rank method on the sorted durations `d[0..n]`
/// (no interpolation, so every figure is a duration that was actually measured):
/// - `median_ns` is the lower median, `d[(n - 1) / 2]`;
/// - `p95_ns` is `d[⌈0.95 n⌉ - 1]`;
/// - `min_ns` is `d[0]`, `max_ns` is `d[n - 1]`.
///
/// Serialized, it is one pass of `sgpt stats --json` (`cli/README.md`): these fields in
/// this order, each name as written here.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PassStats {
    /// The GPU pass's label, as its topology gives it.
    pub label: String,
    /// The name of the graph pass that opened this GPU pass; `None` at level `timing`.
    pub graph_pass: Option<String>,
    /// Compute, render, marker or encoder (`kind` in the CLI's JSON).
    pub kind: GpuPassKind,
    /// Whether the row times whole passes or regions inside one (`span_kind`).
    pub span_kind: SpanKind,
    /// Spans measured.
    pub count: u64,
    /// Spans whose duration is exactly 0 ns: a quantizing browser, or a pass too short
    /// for the timer. Counted, never hidden.
    pub zero_count: u64,
    /// Frames with at least one span of this pass.
    pub frames_present: u64,
    /// The shortest span duration, in ns (an inverted span counts as 0).
    pub min_ns: u64,
    /// The lower median of the span durations, in ns.
    pub median_ns: u64,
    /// The nearest-rank 95th percentile of the span durations, in ns.
    pub p95_ns: u64,
    /// The longest span duration, in ns.
    pub max_ns: u64,
    /// The mean duration, `total_ns / count` rounded to the nearest nanosecond (see
    /// [`PassStats::mean_of`]).
    pub mean_ns: u64,
    /// Sum of the durations, saturating at `u64::MAX`.
    pub total_ns: u64,
}

impl PassStats {
    /// The mean `mean_ns` holds for `total_ns` over `count` spans: rounded to the nearest
    /// nanosecond, 0 with no spans.
    #[must_use]
    pub fn mean_of(total_ns: u64, count: u64) -> u64 {
        div_round(total_ns, count)
    }

    fn key(&self) -> KeyRef<'_> {
        (self.graph_pass.as_deref(), self.label.as_str(), self.kind, self.span_kind)
    }
}

/// Borrowed form of a pass key: (graph pass, label, kind, span kind).
type KeyRef<'a> = (Option<&'a str>, &'a str, GpuPassKind, SpanKind);

/// What [`pass_stats`] found over a frame range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsReport {
    /// The frame indices asked for, clamped to the capture.
    pub range: Range<usize>,
    /// Frames analysed: the range less the frames in `defects`.
    pub frames: u64,
    /// Spans aggregated.
    pub spans: u64,
    /// Spans whose duration is exactly 0 ns, over all passes.
    pub zero_spans: u64,
    /// Of `zero_spans`, those the device reported ending before they began (an inverted
    /// span, or a counter that wrapped: SGPT_FORMAT.md §5 cannot tell them apart), which
    /// count as 0 ns. The others began and ended at the same reported time.
    pub inverted_spans: u64,
    /// Spans the recorder dropped (begun but never timed: `Frame::dropped_spans`) in the
    /// analysed frames.
    pub dropped_spans: u64,
    /// One entry per pass, largest `total_ns` first.
    pub passes: Vec<PassStats>,
    /// Frames that could not be analysed and were skipped, with why.
    pub defects: Vec<Defect>,
}

impl StatsReport {
    /// `total_ns` of `pass` per analysed frame, rounded to the nearest nanosecond. A pass
    /// absent from some frames contributes 0 ns to them, so captures of different
    /// lengths compare fairly.
    #[must_use]
    pub fn total_per_frame_ns(&self, pass: &PassStats) -> u64 {
        div_round(pass.total_ns, self.frames)
    }
}

fn div_round(total: u64, n: u64) -> u64 {
    if n == 0 { 0 } else { ((u128::from(total) + u128::from(n) / 2) / u128::from(n)) as u64 }
}

/// Per GPU pass statistics over `frames`, a range of indices into [`Capture::frames`]
/// (clamped to the capture). Frames that fail to decode, use a lost topology or name a
/// GPU pass their topology lacks are skipped whole and listed in
/// [`StatsReport::defects`]. See [`PassStats`] for how the order statistics are defined.
#[must_use]
pub fn pass_stats(capture: &Capture<'_>, frames: Range<usize>) -> StatsReport {
    let end = frames.end.min(capture.frames().len());
    let start = frames.start.min(end);
    let mut stats = StatsAccumulator::new(capture);
    for index in start..end {
        stats.add_frame(index);
    }
    stats.finish()
}

/// Up to this many spans a pass keeps its durations as they are; past it, a histogram.
pub const RAW_LIMIT: usize = 1024;
/// 2^`SUB_BITS` histogram buckets an octave: a bucket is about 3 % of its values wide.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Enough buckets for every `u64`: one per value below `SUB`, then `SUB` per octave.
const BUCKETS: usize = (SUB as usize) * (65 - SUB_BITS as usize);

fn bucket(value: u64) -> usize {
    if value < SUB {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros();
    let mantissa = (value >> (exponent - SUB_BITS)) & (SUB - 1);
    (SUB as usize) + ((exponent - SUB_BITS) as usize) * (SUB as usize) + mantissa as usize
}

/// The values bucket `index` holds: `[low, high]`, inclusive.
fn bucket_bounds(index: usize) -> (u64, u64) {
    if index < SUB as usize {
        return (index as u64, index as u64);
    }
    let octave = ((index - SUB as usize) / SUB as usize) as u32;
    let exponent = octave + SUB_BITS;
    let mantissa = (index - SUB as usize) as u64 % SUB;
    let width = 1u64 << (exponent - SUB_BITS);
    let low = (1u64 << exponent) + mantissa * width;
    (low, low + (width - 1))
}

/// The nearest-rank indices of the median and p95 among `n` sorted values (see [`PassStats`]).
pub(crate) fn ranks(n: u64) -> [u64; 2] {
    let p95 = (95 * u128::from(n)).div_ceil(100) - 1;
    [(n - 1) / 2, u64::try_from(p95).unwrap_or(u64::MAX)]
}

/// The median and p95 of `durations` exactly as [`PassStats`] defines them (nearest rank),
/// so a view drawing one pass's durations marks the figures the statistics show; `None`
/// when there are none. Reorders `durations`.
#[must_use]
pub fn median_p95(durations: &mut [u64]) -> Option<[u64; 2]> {
    (!durations.is_empty()).then(|| select_ranks(durations, ranks(durations.len() as u64)))
}

/// The values at `ranks` (ascending) among `values`, which are reordered.
pub(crate) fn select_ranks<T: Ord + Copy>(values: &mut [T], [median, p95]: [u64; 2]) -> [T; 2] {
    let median = median as usize;
    let (_, &mut median_ns, right) = values.select_nth_unstable(median);
    // The p95 rank is never below the median's, so it is selected in the (smaller) right part.
    let p95_ns =
        if p95 as usize == median { median_ns } else { *right.select_nth_unstable(p95 as usize - median - 1).1 };
    [median_ns, p95_ns]
}

/// Builds a [`StatsReport`] one frame at a time, in memory that grows with the number of
/// passes rather than of spans, so a caller can show progress or yield between frames
/// (the inspector must never freeze the page, nor hold 8 bytes a span beside the capture).
///
/// The figures are exact, found in two passes over the frames:
/// 1. [`StatsAccumulator::add_frame`] keeps each pass's count, zeros, minimum, maximum and
///    total, and its durations until there are more than [`RAW_LIMIT`] of them; past that,
///    a log-linear histogram of them (32 buckets an octave);
/// 2. finishing finds the bucket each median and p95 falls in and, where that bucket is
///    wider than 1 ns, reads the analysed frames again for the durations inside it: counted
///    nanosecond by nanosecond where the bucket is narrow enough, kept where it is not.
///
/// [`StatsAccumulator::finish_step`] finishes a little at a time;
/// [`StatsAccumulator::finish`] does whatever is left at once. [`pass_stats`] is this
/// accumulator fed every frame of a range.
///
/// This accumulator decodes every frame twice, and keeps memory bounded by the passes.
/// Where memory may grow with the spans in the windows around the median and p95,
/// [`scan::scan`] (and `scan_parallel`, behind the `parallel` feature, which `sgpt stats`
/// uses) gives the same report from one decode, and [`scan::ScanJob`] (the inspector's)
/// the same in bounded steps; both fall back to this accumulator where a sample misled.
#[derive(Debug)]
pub struct StatsAccumulator<'c, 'a> {
    capture: &'c Capture<'a>,
    /// Per topology id: index into `tables`, or `None` when the topology was lost.
    table_of: HashMap<TopologyId, Option<usize>>,
    /// Per topology: for GPU pass `p` and span kind `k`, the slot at `2 p + k`. Built once
    /// per topology so the per-span path is one indexed load, not a hash.
    tables: Vec<Vec<u32>>,
    slot_of: HashMap<Key, u32>,
    slots: Vec<Slot>,
    /// The frames analysed, as runs of consecutive indices in the order they were added:
    /// what the second pass reads again.
    added: Vec<Range<usize>>,
    range: Option<Range<usize>>,
    /// `add_frame` calls so far, so a frame added twice counts twice in `frames_present`.
    calls: u64,
    frames: u64,
    dropped_spans: u64,
    inverted_spans: u64,
    defects: Vec<Defect>,
    /// One frame's (slot, duration) pairs, applied once the whole frame has decoded, and
    /// how many of its spans ended before they began.
    scratch: Vec<(u32, u64)>,
    scratch_inverted: u64,
    finishing: Finishing,
}

/// (graph pass, label, kind, span kind): what makes two GPU passes the same row.
pub(crate) type Key = (Option<String>, String, GpuPassKind, SpanKind);

/// The row GPU pass `pass` of `topology` falls in, for spans of `span_kind`: the one
/// definition of a pass's identity, shared by statistics and comparison.
pub(crate) fn pass_key(topology: &Topology, pass: &GpuPass, span_kind: SpanKind) -> Key {
    let graph_pass =
        pass.graph_pass.and_then(|graph| topology.graph_passes.get(graph as usize)).map(|graph| graph.name.clone());
    (graph_pass, pass.label.clone(), pass.kind, span_kind)
}

/// The slots, in a slot table (slot of GPU pass `p`'s spans of kind `k` at `2 p + k`), of
/// the first `count` passes' pass spans: a frame of passes 0, 1, 2, … in turn's, span by
/// span. Fewer than `count` where the table has fewer passes: the frame then names one
/// beyond them.
pub(crate) fn pass_slots(table: &[u32], count: usize) -> impl ExactSizeIterator<Item = u32> + '_ {
    table.iter().step_by(2).take(count).copied()
}

/// Whether `open`'s durations can be read alone, each to its position's slot of `table`
/// ([`pass_slots`]): its spans are passes 0, 1, 2, … in turn, all pass spans, and the
/// table holds every one of them. Shared by the statistics' sample and the comparison's
/// collector, so both read alone exactly the frames a whole decode would read the same.
pub(crate) fn reads_alone(open: &OpenFrame<'_>, table: &[u32]) -> bool {
    let count = open.spans.len();
    open.spans.durations_alone() && pass_slots(table, count).len() == count
}

/// Where finishing stands. Each stage works one unit (a slot or a frame) at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Finishing {
    /// Frames are still being added.
    Adding,
    /// Finding the bucket of each slot's median and p95, from slot `next`.
    Planning {
        next: usize,
    },
    /// Reading the analysed frames again: run `run` of `added`, at frame `at`, `done`
    /// frames in.
    Selecting {
        run: usize,
        at: usize,
        done: u64,
    },
    /// Selecting each slot's median and p95, from slot `next`.
    Ordering {
        next: usize,
    },
    Done,
}

#[derive(Debug)]
struct Slot {
    key: Key,
    count: u64,
    zero_count: u64,
    min: u64,
    max: u64,
    total: u128,
    frames_present: u64,
    /// The `add_frame` call that last touched this slot.
    last_call: u64,
    /// The durations, while there are at most [`RAW_LIMIT`] of them.
    raw: Vec<u64>,
    /// Past that, how many durations fall in each [`bucket`].
    histogram: Histogram,
    /// The median and the p95.
    ranks: [Rank; 2],
    /// The (at most two) buckets the second pass reads the durations of.
    fine: Vec<Fine>,
}

/// Counts per bucket: `u32`, widened should one ever overflow.
#[derive(Debug, Default)]
enum Histogram {
    #[default]
    Empty,
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Histogram {
    fn add(&mut self, bucket: usize) {
        match self {
            Histogram::Empty => {}
            Histogram::Narrow(counts) => {
                if let Some(count) = counts[bucket].checked_add(1) {
                    counts[bucket] = count;
                } else {
                    let mut wide: Vec<u64> = counts.iter().map(|&count| u64::from(count)).collect();
                    wide[bucket] += 1;
                    *self = Histogram::Wide(wide);
                }
            }
            Histogram::Wide(counts) => counts[bucket] += 1,
        }
    }

    fn get(&self, bucket: usize) -> u64 {
        match self {
            Histogram::Empty => 0,
            Histogram::Narrow(counts) => u64::from(counts[bucket]),
            Histogram::Wide(counts) => counts[bucket],
        }
    }
}

/// An order statistic: known, or the `rank`-th (0-based) duration inside `fine[fine]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rank {
    Unplanned,
    Known(u64),
    In { fine: usize, rank: u64 },
}

/// The durations inside one histogram bucket, `low..=low + span`, gathered by the second pass.
#[derive(Debug)]
struct Fine {
    bucket: usize,
    low: u64,
    span: u64,
    values: FineValues,
}

#[derive(Debug)]
enum FineValues {
    /// How many durations read `low + i` ns, where the bucket is narrower than twice its count.
    Counts(Vec<u32>),
    /// The durations themselves, where it is wider: exactly as many as the histogram counted.
    Kept(Vec<u64>),
}

impl Fine {
    fn new(bucket: usize, count: u64) -> Self {
        let (low, high) = bucket_bounds(bucket);
        let span = high - low;
        // 4 bytes a nanosecond of width against 8 a duration: whichever is smaller.
        let values = if span / 2 < count && u32::try_from(count).is_ok() {
            FineValues::Counts(vec![0; span as usize + 1])
        } else {
            FineValues::Kept(Vec::with_capacity(usize::try_from(count).unwrap_or(usize::MAX)))
        };
        Self { bucket, low, span, values }
    }

    fn collect(&mut self, duration: u64) {
        let Some(offset) = duration.checked_sub(self.low).filter(|&offset| offset <= self.span) else { return };
        match &mut self.values {
            FineValues::Counts(counts) => counts[offset as usize] += 1,
            FineValues::Kept(values) => values.push(duration),
        }
    }

    /// The `rank`-th duration gathered (0-based).
    fn select(&mut self, rank: u64) -> u64 {
        match &mut self.values {
            FineValues::Counts(counts) => {
                let mut below = 0u64;
                for (offset, &count) in counts.iter().enumerate() {
                    below += u64::from(count);
                    if below > rank {
                        return self.low + offset as u64;
                    }
                }
                // Unreachable while the second pass reads what the first did.
                self.low
            }
            FineValues::Kept(values) => match usize::try_from(rank).ok().filter(|&at| at < values.len()) {
                Some(at) => *values.select_nth_unstable(at).1,
                None => self.low,
            },
        }
    }
}

impl Slot {
    fn new(key: Key) -> Self {
        Self {
            key,
            count: 0,
            zero_count: 0,
            min: u64::MAX,
            max: 0,
            total: 0,
            frames_present: 0,
            last_call: u64::MAX,
            raw: Vec::new(),
            histogram: Histogram::Empty,
            ranks: [Rank::Unplanned; 2],
            fine: Vec::new(),
        }
    }

    fn add(&mut self, duration: u64, call: u64) {
        if self.last_call != call {
            self.last_call = call;
            self.frames_present += 1;
        }
        self.count += 1;
        self.zero_count += u64::from(duration == 0);
        self.min = self.min.min(duration);
        self.max = self.max.max(duration);
        self.total += u128::from(duration);
        match &mut self.histogram {
            // No bucket can hold more than the pass's count: checked only past `u32::MAX`.
            Histogram::Narrow(counts) if u32::try_from(self.count).is_ok() => counts[bucket(duration)] += 1,
            Histogram::Empty if self.raw.len() < RAW_LIMIT => self.raw.push(duration),
            Histogram::Empty => {
                let mut counts = vec![0u32; BUCKETS];
                for value in std::mem::take(&mut self.raw).into_iter().chain([duration]) {
                    counts[bucket(value)] += 1;
                }
                self.histogram = Histogram::Narrow(counts);
            }
            _ => self.histogram.add(bucket(duration)),
        }
    }

    /// Finds the median and p95, or the buckets they fall in. Returns whether the second
    /// pass must read this slot's durations.
    fn plan(&mut self) -> bool {
        self.fine.clear();
        if self.count == 0 {
            return false;
        }
        let ranks = ranks(self.count);
        if matches!(self.histogram, Histogram::Empty) {
            self.ranks = select_ranks(&mut self.raw, ranks).map(Rank::Known);
            return false;
        }
        let mut needs_pass = false;
        let (mut bucket, mut below) = (0, 0u64);
        for (slot, rank) in ranks.into_iter().enumerate() {
            // Ranks ascend, so each walk goes on from where the last stopped.
            while below + self.histogram.get(bucket) <= rank {
                below += self.histogram.get(bucket);
                bucket += 1;
            }
            let (low, high) = bucket_bounds(bucket);
            self.ranks[slot] = if low == high {
                Rank::Known(low)
            } else {
                needs_pass = true;
                let fine = self.fine.iter().position(|fine| fine.bucket == bucket).unwrap_or_else(|| {
                    self.fine.push(Fine::new(bucket, self.histogram.get(bucket)));
                    self.fine.len() - 1
                });
                Rank::In { fine, rank: rank - below }
            };
        }
        needs_pass
    }

    fn select(&mut self, duration: u64) {
        for fine in &mut self.fine {
            fine.collect(duration);
        }
    }

    /// Selects the order statistics the second pass gathered, and frees what it gathered.
    fn order(&mut self) {
        for slot in 0..2 {
            if let Rank::In { fine, rank } = self.ranks[slot] {
                self.ranks[slot] = Rank::Known(self.fine.get_mut(fine).map_or(0, |fine| fine.select(rank)));
            }
        }
        self.fine = Vec::new();
    }
}

impl<'c, 'a> StatsAccumulator<'c, 'a> {
    /// An accumulator over `capture` with no frame added yet.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        Self {
            capture,
            table_of: HashMap::new(),
            tables: Vec::new(),
            slot_of: HashMap::new(),
            slots: Vec::new(),
            added: Vec::new(),
            range: None,
            calls: 0,
            frames: 0,
            dropped_spans: 0,
            inverted_spans: 0,
            defects: Vec::new(),
            scratch: Vec::new(),
            scratch_inverted: 0,
            finishing: Finishing::Adding,
        }
    }

    /// The slot table for topology `id`, built on first use; `None` when it was lost.
    fn table(&mut self, id: TopologyId) -> Option<usize> {
        if let Some(&table) = self.table_of.get(&id) {
            return table;
        }
        let table = self.capture.topology(id).map(|topology| {
            let mut table = Vec::with_capacity(topology.gpu_passes.len() * 2);
            for pass in &topology.gpu_passes {
                for span_kind in [SpanKind::Pass, SpanKind::SubPass] {
                    let key = pass_key(topology, pass, span_kind);
                    let next = self.slots.len() as u32;
                    let slot = *self.slot_of.entry(key).or_insert_with_key(|key| {
                        self.slots.push(Slot::new(key.clone()));
                        next
                    });
                    table.push(slot);
                }
            }
            self.tables.push(table);
            self.tables.len() - 1
        });
        self.table_of.insert(id, table);
        table
    }

    /// Decodes frame `index` into `scratch` as (slot, duration) pairs. `Err` says why the
    /// frame cannot be analysed.
    fn gather(&mut self, index: usize) -> Result<(), Defect> {
        let capture = self.capture;
        let Some(entry) = capture.frames().get(index) else {
            return Err(Defect::new(DefectKind::MissingReference, 0, format!("there is no frame at index {index}")));
        };
        let Some(table) = self.table(entry.topology) else {
            return Err(Defect::new(
                DefectKind::MissingReference,
                entry.offset,
                format!("frame {} uses topology {}, which was lost; skipped", entry.frame_number, entry.topology),
            ));
        };
        let table = &self.tables[table];
        let scratch = &mut self.scratch;
        scratch.clear();
        let mut unknown_pass = None;
        let mut inverted = 0;
        capture.for_each_span(index, |span| {
            let at = (span.pass as usize).wrapping_mul(2) | span.kind as usize;
            match table.get(at) {
                Some(&slot) => scratch.push((slot, span.duration_ns())),
                None => drop(unknown_pass.get_or_insert(span.pass)),
            }
            inverted += u64::from(span.end_ns < span.begin_ns);
        })?;
        self.scratch_inverted = inverted;
        match unknown_pass {
            None => Ok(()),
            Some(pass) => Err(Defect::new(
                DefectKind::Malformed,
                entry.offset,
                format!(
                    "frame {} has a span for GPU pass {pass}, beyond its topology's {}; skipped",
                    entry.frame_number,
                    table.len() / 2
                ),
            )),
        }
    }

    /// Adds frame `index` (an index into [`Capture::frames`]). A frame that cannot be
    /// analysed adds nothing but a defect. Adding a frame after
    /// [`StatsAccumulator::finish_step`] has started makes finishing start over.
    pub fn add_frame(&mut self, index: usize) {
        if self.finishing != Finishing::Adding {
            self.finishing = Finishing::Adding;
            for slot in &mut self.slots {
                slot.ranks = [Rank::Unplanned; 2];
                slot.fine.clear();
            }
        }
        // The frame is skipped whole when any of it fails, so nothing is added until it all decoded.
        if let Err(defect) = self.gather(index) {
            self.defects.push(defect);
            return;
        }
        let call = self.calls;
        self.calls += 1;
        for &(slot, duration) in &self.scratch {
            self.slots[slot as usize].add(duration, call);
        }
        self.frames += 1;
        self.dropped_spans += u64::from(self.capture.frames()[index].dropped_spans);
        self.inverted_spans += self.scratch_inverted;
        self.range = Some(match self.range.take() {
            Some(range) => range.start.min(index)..range.end.max(index + 1),
            None => index..index + 1,
        });
        match self.added.last_mut() {
            Some(run) if run.end == index => run.end += 1,
            _ => self.added.push(index..index + 1),
        }
    }

    /// Works towards the report one slot or one frame at a time, for as long as `more()`
    /// returns `true`. Returns `true` once only assembling the report is left, which
    /// [`StatsAccumulator::finish`] then does at once.
    pub fn finish_step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        loop {
            match self.finishing {
                Finishing::Adding => self.finishing = Finishing::Planning { next: 0 },
                Finishing::Planning { next } if next == self.slots.len() => {
                    let needs_pass = self.slots.iter().any(|slot| !slot.fine.is_empty());
                    let first = self.added.first().map(|run| run.start);
                    self.finishing = match first {
                        Some(at) if needs_pass => Finishing::Selecting { run: 0, at, done: 0 },
                        _ => Finishing::Ordering { next: 0 },
                    };
                }
                Finishing::Planning { next } => {
                    if !more() {
                        return false;
                    }
                    self.slots[next].plan();
                    self.finishing = Finishing::Planning { next: next + 1 };
                }
                Finishing::Selecting { run, at, done } => {
                    if !more() {
                        return false;
                    }
                    // Frames that decoded once decode again: the bytes do not change.
                    if self.gather(at).is_ok() {
                        for &(slot, duration) in &self.scratch {
                            self.slots[slot as usize].select(duration);
                        }
                    }
                    self.finishing = if at + 1 < self.added[run].end {
                        Finishing::Selecting { run, at: at + 1, done: done + 1 }
                    } else if let Some(next) = self.added.get(run + 1) {
                        Finishing::Selecting { run: run + 1, at: next.start, done: done + 1 }
                    } else {
                        Finishing::Ordering { next: 0 }
                    };
                }
                Finishing::Ordering { next } if next == self.slots.len() => self.finishing = Finishing::Done,
                Finishing::Ordering { next } => {
                    if !more() {
                        return false;
                    }
                    self.slots[next].order();
                    self.finishing = Finishing::Ordering { next: next + 1 };
                }
                Finishing::Done => return true,
            }
        }
    }

    /// How far [`StatsAccumulator::finish_step`] has come, from 0 to 1. The second pass is
    /// counted as though it were needed until planning shows it is not.
    #[must_use]
    pub fn finish_progress(&self) -> f64 {
        let slots = self.slots.len() as u64;
        let total = 2 * slots + self.frames;
        let done = match self.finishing {
            Finishing::Adding => 0,
            Finishing::Planning { next } => next as u64,
            Finishing::Selecting { done, .. } => slots + done,
            Finishing::Ordering { next } => slots + self.frames + next as u64,
            Finishing::Done => total,
        };
        done as f64 / total.max(1) as f64
    }

    /// Finishes whatever is left and returns the report.
    #[must_use]
    pub fn finish(mut self) -> StatsReport {
        while !self.finish_step(&mut || true) {}
        let mut report = StatsReport {
            range: self.range.unwrap_or(0..0),
            frames: self.frames,
            dropped_spans: self.dropped_spans,
            inverted_spans: self.inverted_spans,
            defects: self.defects,
            ..StatsReport::default()
        };
        for slot in self.slots.into_iter().filter(|slot| slot.count > 0) {
            let [median_ns, p95_ns] = slot.ranks.map(|rank| match rank {
                Rank::Known(value) => value,
                // Finishing leaves every rank of a slot with spans known.
                Rank::Unplanned | Rank::In { .. } => 0,
            });
            report.spans += slot.count;
            report.zero_spans += slot.zero_count;
            let (graph_pass, label, kind, span_kind) = slot.key;
            let total_ns = u64::try_from(slot.total).unwrap_or(u64::MAX);
            report.passes.push(PassStats {
                label,
                graph_pass,
                kind,
                span_kind,
                count: slot.count,
                zero_count: slot.zero_count,
                frames_present: slot.frames_present,
                min_ns: slot.min,
                median_ns,
                p95_ns,
                max_ns: slot.max,
                mean_ns: PassStats::mean_of(total_ns, slot.count),
                total_ns,
            });
        }
        sort_passes(&mut report.passes);
        report
    }
}

/// The report's order: largest `total_ns` first, ties by key.
pub(crate) fn sort_passes(passes: &mut [PassStats]) {
    passes.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.key().cmp_key(&b.key())));
}

trait CmpKey {
    fn cmp_key(&self, other: &Self) -> std::cmp::Ordering;
}

impl CmpKey for KeyRef<'_> {
    /// A deterministic tie-break: graph pass, label, kind, span kind, by name.
    fn cmp_key(&self, other: &Self) -> std::cmp::Ordering {
        (self.0, self.1, self.2.name(), self.3.name()).cmp(&(other.0, other.1, other.2.name(), other.3.name()))
    }
}

/// How a pass compares between two reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeltaStatus {
    /// In both reports.
    Matched,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
}

impl DeltaStatus {
    /// The stable name used in JSON output.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DeltaStatus::Matched => "matched",
            DeltaStatus::Added => "added",
            DeltaStatus::Removed => "removed",
        }
    }
}

/// One pass compared between report A (before) and report B (after). Every delta is
/// `B − A` in nanoseconds, so a positive delta is a regression.
#[derive(Clone, Debug, PartialEq)]
pub struct PassDelta {
    /// The pass's label; with the next three fields, the key the reports were matched on.
    pub label: String,
    /// The name of the graph pass that opened the GPU pass; `None` without one.
    pub graph_pass: Option<String>,
    /// The GPU pass's kind.
    pub kind: GpuPassKind,
    /// Whole pass or region inside one.
    pub span_kind: SpanKind,
    /// The pass in report A; `None` when it is only in B (added).
    pub a: Option<PassStats>,
    /// The pass in report B; `None` when it is only in A (removed).
    pub b: Option<PassStats>,
    /// Median, p95 and mean deltas exist only for a pass in both reports: a missing pass
    /// has no median, not a median of 0.
    pub median_delta_ns: Option<i64>,
    /// `p95_ns` of B minus that of A; `None` unless in both.
    pub p95_delta_ns: Option<i64>,
    /// [`PassStats::mean_ns`] of B minus that of A; `None` unless in both.
    pub mean_delta_ns: Option<i64>,
    /// Delta of [`StatsReport::total_per_frame_ns`]. A pass missing from a report costs
    /// 0 ns per frame there, so this is defined for added and removed passes too.
    pub total_per_frame_delta_ns: i64,
    /// `(median B − median A) / median A`; `None` unless in both with median A > 0.
    pub median_change: Option<f64>,
}

impl PassDelta {
    /// Matched, added or removed, from which of `a` and `b` are present.
    #[must_use]
    pub fn status(&self) -> DeltaStatus {
        match (&self.a, &self.b) {
            (Some(_), None) => DeltaStatus::Removed,
            (None, Some(_)) => DeltaStatus::Added,
            _ => DeltaStatus::Matched,
        }
    }
}

fn delta(a: u64, b: u64) -> i64 {
    let d = i128::from(b) - i128::from(a);
    i64::try_from(d).unwrap_or(if d < 0 { i64::MIN } else { i64::MAX })
}

/// Compares two reports pass by pass, matching passes by (graph pass, label, kind,
/// span kind).
///
/// Sorted by regression:
/// 1. passes in both, largest median increase first (ties: larger total-per-frame
///    increase, then larger p95 increase), so improvements come last among them;
/// 2. passes only in B (added), most total-per-frame cost first;
/// 3. passes only in A (removed), most total-per-frame cost first.
///
/// Remaining ties are broken by graph pass, label, kind and span kind, so the order is
/// deterministic.
#[must_use]
pub fn deltas(a: &StatsReport, b: &StatsReport) -> Vec<PassDelta> {
    let in_b: HashMap<KeyRef<'_>, &PassStats> = b.passes.iter().map(|pass| (pass.key(), pass)).collect();
    let in_a: HashMap<KeyRef<'_>, &PassStats> = a.passes.iter().map(|pass| (pass.key(), pass)).collect();
    let mut deltas = Vec::with_capacity(a.passes.len().max(b.passes.len()));
    for pass_a in &a.passes {
        let pass_b = in_b.get(&pass_a.key()).copied();
        deltas.push(pass_delta(a, b, pass_a, Some(pass_a), pass_b));
    }
    for pass_b in b.passes.iter().filter(|pass| !in_a.contains_key(&pass.key())) {
        deltas.push(pass_delta(a, b, pass_b, None, Some(pass_b)));
    }
    deltas.sort_by(|x, y| {
        let group = |d: &PassDelta| match d.status() {
            DeltaStatus::Matched => 0,
            DeltaStatus::Added => 1,
            DeltaStatus::Removed => 2,
        };
        let cost = |d: &PassDelta| match d.status() {
            DeltaStatus::Matched => (d.median_delta_ns, d.total_per_frame_delta_ns, d.p95_delta_ns),
            // Added passes have positive, removed negative per-frame deltas: larger magnitude first.
            _ => (None, d.total_per_frame_delta_ns.saturating_abs(), None),
        };
        group(x).cmp(&group(y)).then_with(|| cost(y).cmp(&cost(x))).then_with(|| key_of(x).cmp_key(&key_of(y)))
    });
    deltas
}

fn key_of(d: &PassDelta) -> KeyRef<'_> {
    (d.graph_pass.as_deref(), d.label.as_str(), d.kind, d.span_kind)
}

fn pass_delta(
    report_a: &StatsReport,
    report_b: &StatsReport,
    key: &PassStats,
    a: Option<&PassStats>,
    b: Option<&PassStats>,
) -> PassDelta {
    let per_frame_a = a.map_or(0, |pass| report_a.total_per_frame_ns(pass));
    let per_frame_b = b.map_or(0, |pass| report_b.total_per_frame_ns(pass));
    let both = a.zip(b);
    PassDelta {
        label: key.label.clone(),
        graph_pass: key.graph_pass.clone(),
        kind: key.kind,
        span_kind: key.span_kind,
        a: a.cloned(),
        b: b.cloned(),
        median_delta_ns: both.map(|(a, b)| delta(a.median_ns, b.median_ns)),
        p95_delta_ns: both.map(|(a, b)| delta(a.p95_ns, b.p95_ns)),
        mean_delta_ns: both.map(|(a, b)| delta(a.mean_ns, b.mean_ns)),
        total_per_frame_delta_ns: delta(per_frame_a, per_frame_b),
        median_change: both
            .filter(|(a, _)| a.median_ns > 0)
            .map(|(a, b)| (b.median_ns as f64 - a.median_ns as f64) / a.median_ns as f64),
    }
}

/// One frame-graph resource: every version of a name, as they share memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceLifetime {
    /// The resource's name, shared by all its versions.
    pub name: String,
    /// How many versions (resource nodes) the topology holds for this name.
    pub versions: u32,
    /// Whether any version is imported (outlives the frame).
    pub imported: bool,
    /// The largest declared footprint over the versions.
    pub declared_bytes: u64,
    /// The first live pass that creates or writes the resource (an index into
    /// `Topology::graph_passes`, in execution order); for a resource that is only read,
    /// the first live pass that reads it. `None` when no live pass touches it.
    pub first_pass: Option<usize>,
    /// The last live pass that reads or writes it. `None` when no live pass touches it.
    pub last_pass: Option<usize>,
}

/// Lifetimes and footprint of a topology's resources, given which passes were culled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceReport {
    /// One entry per resource name, in order of first appearance in `Topology::resources`.
    pub resources: Vec<ResourceLifetime>,
    /// Per graph pass: declared bytes of the transient resources alive at it
    /// (`first_pass ≤ pass ≤ last_pass`).
    pub alive_bytes: Vec<u64>,
    /// The largest entry of `alive_bytes`: what the graph needs at once, if it aliases
    /// nothing that is alive together.
    pub peak_concurrent_bytes: u64,
    /// The first pass where the peak is reached; `None` when no transient resource lives.
    pub peak_at_pass: Option<usize>,
    /// Declared bytes of every resource, transient and imported, with or without a lifetime.
    pub total_declared_bytes: u64,
    /// Declared bytes of the imported resources.
    pub imported_bytes: u64,
}

/// Resource lifetimes and the peak concurrent declared footprint of transient resources.
///
/// `culled[i]` says whether graph pass `i` was culled (a frame's `Frame::culled`);
/// missing entries count as not culled. Culled passes are ignored: a resource touched
/// only by culled passes has no lifetime and adds nothing to the peak, though its bytes
/// still count in `total_declared_bytes`. Indices in the topology that point nowhere are
/// ignored.
#[must_use]
pub fn resource_lifetimes(topology: &Topology, culled: &[bool]) -> ResourceReport {
    let mut report = ResourceReport::default();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    let mut resource_of_node = Vec::with_capacity(topology.resources.len());
    for node in &topology.resources {
        let index = *by_name.entry(node.name.as_str()).or_insert_with(|| {
            report.resources.push(ResourceLifetime {
                name: node.name.clone(),
                versions: 0,
                imported: false,
                declared_bytes: 0,
                first_pass: None,
                last_pass: None,
            });
            report.resources.len() - 1
        });
        let resource = &mut report.resources[index];
        resource.versions += 1;
        resource.imported |= node.imported;
        resource.declared_bytes = resource.declared_bytes.max(node.declared_bytes);
        resource_of_node.push(index);
    }

    // Reads extend a lifetime; creates and writes start it. A resource never produced
    // (an imported input) starts at its first read.
    let mut first_read: Vec<Option<usize>> = vec![None; report.resources.len()];
    for (pass_index, pass) in topology.graph_passes.iter().enumerate() {
        if culled.get(pass_index).copied().unwrap_or(false) {
            continue;
        }
        let produced = pass.creates.iter().chain(&pass.writes);
        for (node, produces) in produced.map(|n| (n, true)).chain(pass.reads.iter().map(|n| (n, false))) {
            let Some(&index) = resource_of_node.get(*node as usize) else { continue };
            let resource = &mut report.resources[index];
            if produces {
                resource.first_pass.get_or_insert(pass_index);
            } else {
                first_read[index].get_or_insert(pass_index);
            }
            resource.last_pass = Some(resource.last_pass.map_or(pass_index, |last| last.max(pass_index)));
        }
    }
    for (resource, read) in report.resources.iter_mut().zip(first_read) {
        if resource.first_pass.is_none() {
            resource.first_pass = read;
        }
    }

    // Sweep with a difference array: +bytes where a transient lifetime starts, −bytes
    // just after it ends.
    let pass_count = topology.graph_passes.len();
    let mut change = vec![0i128; pass_count + 1];
    for resource in &report.resources {
        report.total_declared_bytes = report.total_declared_bytes.saturating_add(resource.declared_bytes);
        if resource.imported {
            report.imported_bytes = report.imported_bytes.saturating_add(resource.declared_bytes);
            continue;
        }
        if let (Some(first), Some(last)) = (resource.first_pass, resource.last_pass) {
            change[first] += i128::from(resource.declared_bytes);
            change[last + 1] -= i128::from(resource.declared_bytes);
        }
    }
    let mut alive = 0i128;
    report.alive_bytes = change[..pass_count]
        .iter()
        .map(|step| {
            alive += step;
            u64::try_from(alive).unwrap_or(u64::MAX)
        })
        .collect();
    for (pass, &bytes) in report.alive_bytes.iter().enumerate() {
        if bytes > report.peak_concurrent_bytes {
            report.peak_concurrent_bytes = bytes;
            report.peak_at_pass = Some(pass);
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_indices_match_their_definition() {
        for n in 1..=250usize {
            let mut durations: Vec<u64> = (0..n as u64).rev().collect();
            let [median, p95] = select_ranks(&mut durations, ranks(n as u64));
            // The smallest rank k with k / n ≥ 95 %, as an index.
            let expected = (1..=n).find(|k| 100 * k >= 95 * n).unwrap() - 1;
            assert_eq!(p95, expected as u64, "p95 of {n}");
            assert_eq!(median, ((n - 1) / 2) as u64, "median of {n}");
        }
    }

    #[test]
    fn buckets_cover_every_value_once_in_order() {
        for value in [0, 1, 31, 32, 33, 63, 64, 65, 1000, 40_000, 1 << 40, u64::MAX] {
            let (low, high) = bucket_bounds(bucket(value));
            assert!(low <= value && value <= high, "{value} in [{low}, {high}]");
        }
        let mut previous_high = None;
        for index in 0..BUCKETS {
            let (low, high) = bucket_bounds(index);
            if let Some(previous) = previous_high {
                assert_eq!(low, previous + 1, "bucket {index} follows on");
            }
            previous_high = Some(high);
        }
        assert_eq!(previous_high, Some(u64::MAX));
    }

    #[test]
    fn a_bucket_is_read_finely_in_whichever_form_is_smaller() {
        // 1,024 ns wide (values 2^15 to 2^15 + 1,023): 3,000 values are counted per
        // nanosecond (4 KiB), 10 are kept (80 bytes).
        let index = bucket(1 << 15);
        assert_eq!(bucket_bounds(index), (1 << 15, (1 << 15) + 1_023));
        for (count, counts) in [(3_000u64, true), (10, false)] {
            let mut fine = Fine::new(index, count);
            assert_eq!(matches!(fine.values, FineValues::Counts(_)), counts, "{count} values");
            let values: Vec<u64> = (0..count).map(|i| (1 << 15) + (i * 7_919) % 1_024).collect();
            for &value in &values {
                fine.collect(value);
            }
            fine.collect((1 << 15) - 1);
            fine.collect((1 << 15) + 1_024);
            let mut sorted = values.clone();
            sorted.sort_unstable();
            for rank in [0, count / 2, count - 1] {
                assert_eq!(fine.select(rank), sorted[rank as usize], "rank {rank} of {count}");
            }
        }
    }

    #[test]
    fn a_histogram_count_widens_instead_of_overflowing() {
        let mut histogram = Histogram::Narrow(vec![u32::MAX, 0]);
        histogram.add(0);
        histogram.add(1);
        assert_eq!((histogram.get(0), histogram.get(1)), (u64::from(u32::MAX) + 1, 1));
        assert!(matches!(histogram, Histogram::Wide(_)));
    }
}
