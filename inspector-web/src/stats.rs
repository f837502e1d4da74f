//! Per-pass statistics over a frame range, exact and in bounded memory, one chunk of
//! frames at a time.
//!
//! `analysis::StatsAccumulator` keeps every duration (8 bytes a span, about twice the
//! file at 4 B/span), which an hour-long capture cannot afford beside its own bytes.
//! This job gives the same report in two passes over the frames instead:
//! 1. count, zeros, min, max and total per pass, and a log-linear histogram of the
//!    durations (32 buckets per octave) once a pass has more than [`RAW_LIMIT`] spans;
//! 2. only if some median or p95 falls in a bucket wider than 1 ns: the durations inside
//!    that bucket, from which the exact order statistic is selected.
//!
//! The result is exactly `analysis::pass_stats` (a test checks it on synthetic
//! captures), so the page, `sgpt stats` and the comparison all agree.

use std::collections::HashMap;
use std::ops::Range;

use sgpt_format::analysis::{PassStats, StatsReport};
use sgpt_format::{Capture, Defect, DefectKind, GpuPassKind, SpanKind, TopologyId};

/// Below this many spans a pass keeps its raw durations; above, a histogram.
pub const RAW_LIMIT: usize = 1024;
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
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

type Key = (Option<String>, String, GpuPassKind, SpanKind);

#[derive(Debug)]
struct Slot {
    key: Key,
    count: u64,
    zero_count: u64,
    min: u64,
    max: u64,
    total: u128,
    frames_present: u64,
    last_frame: usize,
    raw: Vec<u64>,
    histogram: Vec<u32>,
    /// Order statistics still to find in pass 2: (rank within the bucket, bucket bounds, result).
    wanted: Vec<Wanted>,
    /// Durations in a wanted bucket, collected in pass 2.
    collected: Vec<u64>,
}

#[derive(Clone, Copy, Debug)]
struct Wanted {
    /// The rank overall (0-based) and the bucket it falls in.
    rank: u64,
    low: u64,
    high: u64,
    /// Values below `low`: the rank within the collected values is `rank - below`.
    below: u64,
    value: Option<u64>,
}

/// Where the job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Counting,
    Selecting,
    Done,
}

/// Statistics over `range`, computed by [`StatsJob::step`] a chunk at a time.
#[derive(Debug)]
pub struct StatsJob {
    range: Range<usize>,
    next: usize,
    phase: Phase,
    table_of: HashMap<TopologyId, Option<Vec<u32>>>,
    slot_of: HashMap<Key, u32>,
    slots: Vec<Slot>,
    skipped: Vec<usize>,
    defects: Vec<Defect>,
    frames: u64,
    dropped_spans: u64,
    first: Option<usize>,
    last: usize,
    scratch: Vec<(u32, u64)>,
}

impl StatsJob {
    /// Statistics over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &Capture<'_>, range: Range<usize>) -> Self {
        let end = range.end.min(capture.frames().len());
        let start = range.start.min(end);
        Self {
            range: start..end,
            next: start,
            phase: Phase::Counting,
            table_of: HashMap::new(),
            slot_of: HashMap::new(),
            slots: Vec::new(),
            skipped: Vec::new(),
            defects: Vec::new(),
            frames: 0,
            dropped_spans: 0,
            first: None,
            last: 0,
            scratch: Vec::new(),
        }
    }

    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Progress from 0 to 1: counting is the first half, selecting the second.
    #[must_use]
    pub fn progress(&self) -> f64 {
        let len = self.range.len().max(1) as f64;
        let done = (self.next - self.range.start) as f64 / len;
        match self.phase {
            Phase::Counting => done / 2.0,
            Phase::Selecting => 0.5 + done / 2.0,
            Phase::Done => 1.0,
        }
    }

    /// Processes up to `frames` frames. Returns `true` once the report is ready.
    pub fn step(&mut self, capture: &Capture<'_>, frames: usize) -> bool {
        let stop = self.next.saturating_add(frames).min(self.range.end);
        match self.phase {
            Phase::Counting => {
                while self.next < stop {
                    self.count_frame(capture, self.next);
                    self.next += 1;
                }
                if self.next == self.range.end {
                    self.plan_selection();
                }
            }
            Phase::Selecting => {
                while self.next < stop {
                    self.select_frame(capture, self.next);
                    self.next += 1;
                }
                if self.next == self.range.end {
                    self.phase = Phase::Done;
                }
            }
            Phase::Done => {}
        }
        self.phase == Phase::Done
    }

    fn table(&mut self, capture: &Capture<'_>, id: TopologyId) -> Option<&Vec<u32>> {
        if !self.table_of.contains_key(&id) {
            let table = capture.topology(id).map(|topology| {
                let mut table = Vec::with_capacity(topology.gpu_passes.len() * 2);
                for pass in &topology.gpu_passes {
                    let graph_pass = pass
                        .graph_pass
                        .and_then(|graph| topology.graph_passes.get(graph as usize))
                        .map(|graph| graph.name.clone());
                    for span_kind in [SpanKind::Pass, SpanKind::SubPass] {
                        let key = (graph_pass.clone(), pass.label.clone(), pass.kind, span_kind);
                        let next = self.slots.len() as u32;
                        let slot = *self.slot_of.entry(key.clone()).or_insert_with(|| {
                            self.slots.push(Slot::new(key));
                            next
                        });
                        table.push(slot);
                    }
                }
                table
            });
            self.table_of.insert(id, table);
        }
        self.table_of.get(&id).and_then(Option::as_ref)
    }

    /// Decodes frame `index` into `scratch` as (slot, duration); `Err` skips the frame whole.
    fn gather(&mut self, capture: &Capture<'_>, index: usize) -> Result<(), Defect> {
        let entry = capture.frames()[index];
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let Some(table) = self.table(capture, entry.topology) else {
            self.scratch = scratch;
            return Err(Defect::new(
                DefectKind::MissingReference,
                entry.offset,
                format!("frame {} uses topology {}, which was lost; skipped", entry.frame_number, entry.topology),
            ));
        };
        let mut unknown = None;
        let result = capture.for_each_span(index, |span| {
            let at = (span.pass as usize).wrapping_mul(2) | span.kind as usize;
            match table.get(at) {
                Some(&slot) => scratch.push((slot, span.duration_ns())),
                None => drop(unknown.get_or_insert(span.pass)),
            }
        });
        let passes = table.len() / 2;
        self.scratch = scratch;
        result?;
        if let Some(pass) = unknown {
            return Err(Defect::new(
                DefectKind::Malformed,
                entry.offset,
                format!(
                    "frame {} has a span for GPU pass {pass}, beyond its topology's {passes}; skipped",
                    entry.frame_number
                ),
            ));
        }
        Ok(())
    }

    fn count_frame(&mut self, capture: &Capture<'_>, index: usize) {
        if let Err(defect) = self.gather(capture, index) {
            self.defects.push(defect);
            self.skipped.push(index);
            return;
        }
        for &(slot, duration) in &self.scratch {
            self.slots[slot as usize].add(duration, index);
        }
        self.frames += 1;
        self.dropped_spans += u64::from(capture.frames()[index].dropped_spans);
        self.first.get_or_insert(index);
        self.last = index;
    }

    fn plan_selection(&mut self) {
        let mut needs_pass = false;
        for slot in &mut self.slots {
            needs_pass |= slot.plan();
        }
        if needs_pass {
            self.phase = Phase::Selecting;
            self.next = self.range.start;
        } else {
            self.phase = Phase::Done;
        }
    }

    fn select_frame(&mut self, capture: &Capture<'_>, index: usize) {
        if self.skipped.binary_search(&index).is_ok() {
            return;
        }
        // The frame decoded in the first pass; the bytes have not changed since.
        if self.gather(capture, index).is_err() {
            return;
        }
        for &(slot, duration) in &self.scratch {
            let slot = &mut self.slots[slot as usize];
            if slot.wanted.iter().any(|w| w.value.is_none() && (w.low..=w.high).contains(&duration)) {
                slot.collected.push(duration);
            }
        }
    }

    /// The report; call once [`StatsJob::step`] returned `true`.
    #[must_use]
    pub fn finish(self) -> StatsReport {
        let mut report = StatsReport {
            range: self.first.map_or(0..0, |first| first..self.last + 1),
            frames: self.frames,
            dropped_spans: self.dropped_spans,
            defects: self.defects,
            ..StatsReport::default()
        };
        for mut slot in self.slots {
            if slot.count == 0 {
                continue;
            }
            let [median_ns, p95_ns] = slot.order_statistics();
            report.spans += slot.count;
            report.zero_spans += slot.zero_count;
            let (graph_pass, label, kind, span_kind) = slot.key;
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
                total_ns: u64::try_from(slot.total).unwrap_or(u64::MAX),
            });
        }
        // The order `analysis` uses: largest total first, then by key names.
        report.passes.sort_by(|a, b| {
            b.total_ns.cmp(&a.total_ns).then_with(|| {
                (a.graph_pass.as_deref(), a.label.as_str(), a.kind.name(), a.span_kind.name()).cmp(&(
                    b.graph_pass.as_deref(),
                    b.label.as_str(),
                    b.kind.name(),
                    b.span_kind.name(),
                ))
            })
        });
        report
    }
}

/// The nearest-rank indices `analysis` uses: lower median and ⌈0.95 n⌉ − 1.
fn ranks(n: u64) -> [u64; 2] {
    [(n - 1) / 2, (95 * n).div_ceil(100) - 1]
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
            last_frame: usize::MAX,
            raw: Vec::new(),
            histogram: Vec::new(),
            wanted: Vec::new(),
            collected: Vec::new(),
        }
    }

    fn add(&mut self, duration: u64, frame: usize) {
        if self.last_frame != frame {
            self.last_frame = frame;
            self.frames_present += 1;
        }
        self.count += 1;
        self.zero_count += u64::from(duration == 0);
        self.min = self.min.min(duration);
        self.max = self.max.max(duration);
        self.total += u128::from(duration);
        if self.histogram.is_empty() {
            self.raw.push(duration);
            if self.raw.len() > RAW_LIMIT {
                self.histogram = vec![0; BUCKETS];
                for value in std::mem::take(&mut self.raw) {
                    self.histogram[bucket(value)] += 1;
                }
            }
        } else {
            self.histogram[bucket(duration)] += 1;
        }
    }

    /// Finds the buckets of the wanted ranks; returns whether a second pass is needed.
    fn plan(&mut self) -> bool {
        if self.histogram.is_empty() || self.count == 0 {
            return false;
        }
        let mut needs_pass = false;
        for rank in ranks(self.count) {
            let mut below = 0u64;
            for (index, &count) in self.histogram.iter().enumerate() {
                if below + u64::from(count) > rank {
                    let (low, high) = bucket_bounds(index);
                    let value = (low == high).then_some(low);
                    needs_pass |= value.is_none();
                    self.wanted.push(Wanted { rank, low, high, below, value });
                    break;
                }
                below += u64::from(count);
            }
        }
        needs_pass
    }

    fn order_statistics(&mut self) -> [u64; 2] {
        let [median, p95] = ranks(self.count);
        if self.histogram.is_empty() {
            let median_value = *self.raw.select_nth_unstable(median as usize).1;
            let p95_value = *self.raw.select_nth_unstable(p95 as usize).1;
            return [median_value, p95_value];
        }
        let mut out = [0u64; 2];
        for (slot, wanted) in out.iter_mut().zip(&self.wanted) {
            *slot = wanted.value.unwrap_or_else(|| {
                let mut inside: Vec<u64> =
                    self.collected.iter().copied().filter(|v| (wanted.low..=wanted.high).contains(v)).collect();
                let at = (wanted.rank - wanted.below) as usize;
                if at < inside.len() { *inside.select_nth_unstable(at).1 } else { wanted.low }
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
