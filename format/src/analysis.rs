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

use std::collections::HashMap;
use std::ops::Range;

use crate::error::{Defect, DefectKind};
use crate::model::{GpuPassKind, SpanKind, Topology, TopologyId};
use crate::reader::Capture;

/// Statistics of one GPU pass over a frame range.
///
/// A pass is identified by its owning graph pass, its label, its kind and the span kind
/// together. Labels alone are not keys (seed 000 §1.4): two graph passes may each open a
/// GPU pass labelled `blur`, and those are two rows.
///
/// Order statistics use the nearest-rank method on the sorted durations `d[0..n]`
/// (no interpolation, so every figure is a duration that was actually measured):
/// - `median_ns` is the lower median, `d[(n - 1) / 2]`;
/// - `p95_ns` is `d[⌈0.95 n⌉ - 1]`;
/// - `min_ns` is `d[0]`, `max_ns` is `d[n - 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassStats {
    pub label: String,
    /// The name of the graph pass that opened this GPU pass; `None` at level `timing`.
    pub graph_pass: Option<String>,
    pub kind: GpuPassKind,
    pub span_kind: SpanKind,
    /// Spans measured.
    pub count: u64,
    /// Spans whose duration is exactly 0 ns: a quantizing browser, or a pass too short
    /// for the timer. Counted, never hidden (seed 000 §7.3).
    pub zero_count: u64,
    /// Frames with at least one span of this pass.
    pub frames_present: u64,
    pub min_ns: u64,
    pub median_ns: u64,
    pub p95_ns: u64,
    pub max_ns: u64,
    /// Sum of the durations, saturating at `u64::MAX`.
    pub total_ns: u64,
}

impl PassStats {
    /// The mean duration, `total_ns / count` rounded to the nearest nanosecond.
    #[must_use]
    pub fn mean_ns(&self) -> u64 {
        div_round(self.total_ns, self.count)
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
    /// Spans the recorder dropped (full timer pool) in the analysed frames.
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
    let mut stats = StatsAccumulator::with_capacity(capture, end - start);
    for index in start..end {
        stats.add_frame(index);
    }
    stats.finish()
}

/// Builds a [`StatsReport`] one frame at a time, so a caller can show progress or
/// yield between chunks (the inspector must never freeze the page).
///
/// [`pass_stats`] is this accumulator fed every frame of a range.
#[derive(Debug)]
pub struct StatsAccumulator<'c, 'a> {
    capture: &'c Capture<'a>,
    /// Per topology id: index into `tables`.
    table_of: HashMap<TopologyId, usize>,
    /// Per topology: for GPU pass `p` and span kind `k`, the slot at `2 p + k`. Built once
    /// per topology so the per-span path is one indexed load, not a hash.
    tables: Vec<Vec<u32>>,
    slot_of: HashMap<(Option<String>, String, GpuPassKind, SpanKind), u32>,
    slots: Vec<Slot>,
    range: Option<Range<usize>>,
    /// Durations to reserve per pass on its first span: most passes run once per frame.
    frames_hint: usize,
    /// `add_frame` calls so far.
    calls: u64,
    frames: u64,
    dropped_spans: u64,
    defects: Vec<Defect>,
}

#[derive(Debug)]
struct Slot {
    label: String,
    graph_pass: Option<String>,
    kind: GpuPassKind,
    span_kind: SpanKind,
    /// Reused for the whole range; order statistics select within it at the end.
    durations: Vec<u64>,
    frames_present: u64,
    /// The `add_frame` call that last touched this slot, and `durations.len()` before it did.
    last_frame: u64,
    frame_start_len: usize,
}

impl<'c, 'a> StatsAccumulator<'c, 'a> {
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        Self::with_capacity(capture, 0)
    }

    /// An accumulator expecting about `frames` frames, so each pass's durations are
    /// allocated once rather than grown.
    #[must_use]
    pub fn with_capacity(capture: &'c Capture<'a>, frames: usize) -> Self {
        Self {
            capture,
            table_of: HashMap::new(),
            tables: Vec::new(),
            slot_of: HashMap::new(),
            slots: Vec::new(),
            range: None,
            frames_hint: frames,
            calls: 0,
            frames: 0,
            dropped_spans: 0,
            defects: Vec::new(),
        }
    }

    /// The slot table for topology `id`, built on first use; `None` when it was lost.
    fn table(&mut self, id: TopologyId) -> Option<usize> {
        if let Some(&table) = self.table_of.get(&id) {
            return Some(table);
        }
        let topology = self.capture.topology(id)?;
        let mut table = Vec::with_capacity(topology.gpu_passes.len() * 2);
        for pass in &topology.gpu_passes {
            let graph_pass = pass
                .graph_pass
                .and_then(|graph| topology.graph_passes.get(graph as usize))
                .map(|graph| graph.name.clone());
            for span_kind in [SpanKind::Pass, SpanKind::SubPass] {
                let key = (graph_pass.clone(), pass.label.clone(), pass.kind, span_kind);
                let next = self.slots.len() as u32;
                let slot = *self.slot_of.entry(key).or_insert_with(|| {
                    self.slots.push(Slot {
                        label: pass.label.clone(),
                        graph_pass: graph_pass.clone(),
                        kind: pass.kind,
                        span_kind,
                        durations: Vec::new(),
                        frames_present: 0,
                        last_frame: u64::MAX,
                        frame_start_len: 0,
                    });
                    next
                });
                table.push(slot);
            }
        }
        self.tables.push(table);
        self.table_of.insert(id, self.tables.len() - 1);
        Some(self.tables.len() - 1)
    }

    /// Adds frame `index` (an index into [`Capture::frames`]). A frame that cannot be
    /// analysed adds nothing but a defect.
    pub fn add_frame(&mut self, index: usize) {
        let capture = self.capture;
        let Some(entry) = capture.frames().get(index) else {
            self.defects.push(Defect::new(
                DefectKind::MissingReference,
                0,
                format!("there is no frame at index {index}"),
            ));
            return;
        };
        let Some(table) = self.table(entry.topology) else {
            self.defects.push(Defect::new(
                DefectKind::MissingReference,
                entry.offset,
                format!("frame {} uses topology {}, which was lost; skipped", entry.frame_number, entry.topology),
            ));
            return;
        };
        let table = &self.tables[table];
        let slots = &mut self.slots;
        let hint = self.frames_hint;
        // Marks the slots this call touches, unique even if a frame is added twice.
        let call = self.calls;
        self.calls += 1;
        let mut unknown_pass = None;
        let result = capture.for_each_span(index, |span| {
            let at = (span.pass as usize).wrapping_mul(2) | span.kind as usize;
            let Some(&slot) = table.get(at) else {
                unknown_pass.get_or_insert(span.pass);
                return;
            };
            let slot_ref = &mut slots[slot as usize];
            if slot_ref.last_frame != call {
                slot_ref.last_frame = call;
                if slot_ref.durations.capacity() == 0 {
                    slot_ref.durations.reserve(hint);
                }
                slot_ref.frame_start_len = slot_ref.durations.len();
                slot_ref.frames_present += 1;
            }
            slot_ref.durations.push(span.duration_ns());
        });
        let defect = match (result, unknown_pass) {
            (Err(defect), _) => Some(defect),
            (Ok(()), Some(pass)) => Some(Defect::new(
                DefectKind::Malformed,
                entry.offset,
                format!(
                    "frame {} has a span for GPU pass {pass}, beyond its topology's {}; skipped",
                    entry.frame_number,
                    table.len() / 2
                ),
            )),
            (Ok(()), None) => None,
        };
        if let Some(defect) = defect {
            // The frame is skipped whole: undo whatever it added before failing.
            // Rare, so the frame's slots are found by their mark rather than listed on
            // the hot path.
            for slot in slots.iter_mut().filter(|slot| slot.last_frame == call) {
                slot.durations.truncate(slot.frame_start_len);
                slot.frames_present -= 1;
                slot.last_frame = u64::MAX;
            }
            self.defects.push(defect);
            return;
        }
        self.frames += 1;
        self.dropped_spans += u64::from(entry.dropped_spans);
        self.range = Some(match self.range.take() {
            Some(range) => range.start.min(index)..range.end.max(index + 1),
            None => index..index + 1,
        });
    }

    /// Computes the order statistics and returns the report.
    #[must_use]
    pub fn finish(self) -> StatsReport {
        let mut report = StatsReport {
            range: self.range.unwrap_or(0..0),
            frames: self.frames,
            dropped_spans: self.dropped_spans,
            defects: self.defects,
            ..StatsReport::default()
        };
        for mut slot in self.slots {
            let Some(stats) = order_statistics(&mut slot.durations) else { continue };
            report.spans += stats.count;
            report.zero_spans += stats.zero_count;
            report.passes.push(PassStats {
                label: slot.label,
                graph_pass: slot.graph_pass,
                kind: slot.kind,
                span_kind: slot.span_kind,
                frames_present: slot.frames_present,
                ..stats
            });
        }
        report.passes.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.key().cmp_key(&b.key())));
        report
    }
}

/// Everything but the key fields of [`PassStats`], from one pass's durations (reordered).
fn order_statistics(durations: &mut [u64]) -> Option<PassStats> {
    let n = durations.len();
    if n == 0 {
        return None;
    }
    let (mut wrapped_total, mut zero_count, mut min, mut max) = (0u64, 0u64, u64::MAX, 0u64);
    for &d in durations.iter() {
        wrapped_total = wrapped_total.wrapping_add(d);
        zero_count += u64::from(d == 0);
        min = min.min(d);
        max = max.max(d);
    }
    // The u64 sum is exact unless max × n could overflow; only then sum again wide.
    let total = if u128::from(max) * n as u128 <= u128::from(u64::MAX) {
        u128::from(wrapped_total)
    } else {
        durations.iter().map(|&d| u128::from(d)).sum()
    };
    // Nearest rank: ⌈0.95 n⌉ − 1 in integers. The median index never exceeds it, so the
    // median is selected first and the p95 element within the (smaller) part right of it.
    let p95_index = (95 * n).div_ceil(100) - 1;
    let median_index = (n - 1) / 2;
    let (_, &mut median_ns, right) = durations.select_nth_unstable(median_index);
    let p95_ns =
        if p95_index == median_index { median_ns } else { *right.select_nth_unstable(p95_index - median_index - 1).1 };
    Some(PassStats {
        label: String::new(),
        graph_pass: None,
        kind: GpuPassKind::default(),
        span_kind: SpanKind::default(),
        count: n as u64,
        zero_count,
        frames_present: 0,
        min_ns: min,
        median_ns,
        p95_ns,
        max_ns: max,
        total_ns: u64::try_from(total).unwrap_or(u64::MAX),
    })
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
    pub label: String,
    pub graph_pass: Option<String>,
    pub kind: GpuPassKind,
    pub span_kind: SpanKind,
    pub a: Option<PassStats>,
    pub b: Option<PassStats>,
    /// Median, p95 and mean deltas exist only for a pass in both reports: a missing pass
    /// has no median, not a median of 0.
    pub median_delta_ns: Option<i64>,
    pub p95_delta_ns: Option<i64>,
    pub mean_delta_ns: Option<i64>,
    /// Delta of [`StatsReport::total_per_frame_ns`]. A pass missing from a report costs
    /// 0 ns per frame there, so this is defined for added and removed passes too.
    pub total_per_frame_delta_ns: i64,
    /// `(median B − median A) / median A`; `None` unless in both with median A > 0.
    pub median_change: Option<f64>,
}

impl PassDelta {
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
pub fn compare(a: &StatsReport, b: &StatsReport) -> Vec<PassDelta> {
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
        mean_delta_ns: both.map(|(a, b)| delta(a.mean_ns(), b.mean_ns())),
        total_per_frame_delta_ns: delta(per_frame_a, per_frame_b),
        median_change: both
            .filter(|(a, _)| a.median_ns > 0)
            .map(|(a, b)| (b.median_ns as f64 - a.median_ns as f64) / a.median_ns as f64),
    }
}

/// One frame-graph resource: every version of a name, as they share memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceLifetime {
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
            let stats = order_statistics(&mut durations).unwrap();
            // The smallest rank k with k / n ≥ 95 %, as an index.
            let p95 = (1..=n).find(|k| 100 * k >= 95 * n).unwrap() - 1;
            assert_eq!(stats.p95_ns, p95 as u64, "p95 of {n}");
            assert_eq!(stats.median_ns, ((n - 1) / 2) as u64, "median of {n}");
            assert_eq!((stats.min_ns, stats.max_ns), (0, n as u64 - 1));
            assert_eq!(stats.zero_count, 1);
        }
    }
}
