//! One pass's durations over a frame range as a histogram, for the details pane.
//!
//! - Spans that read exactly 0 ns are counted apart and drawn as their own bar, never
//!   folded into the first bin: they are a quantizing browser or a pass too short for the
//!   timer, not short work.
//! - The median and p95 are `sgpt_format::analysis::median_p95`'s, the statistics
//!   table's own definition (nearest rank), so the markers sit where the table's figures are.
//! - The bins cover the nonzero durations, and are chosen so that a quantized capture shows
//!   its steps as they are ([`Binning`]): when every step of the durations' quantum
//!   between the smallest and the largest fits in [`MAX_BINS`] bars, one bar per step; else,
//!   when the durations take at most [`MAX_BINS`] distinct values, one bar per value; else
//!   up to [`MAX_BINS`] equal bins, each a whole number of quanta wide, so no bin holds one
//!   step more than its neighbour by an accident of rounding.
//! - A long tail does not flatten the bulk: when at least 100 nonzero durations stretch past
//!   twice their 99th percentile, those above it are one bar of their own, drawn apart at
//!   the right ([`Histogram::tail`]), and the bins cover the rest.
//! - [`Histogram::quantum_ns`] is a fact about the values, never a guess about the timer:
//!   the greatest common divisor of the nonzero durations, given when there are at least
//!   two of them and it is at least 2 ns (a browser that quantizes to 100 µs gives 100 µs).
//!
//! Arithmetic is in `u128` where a sum or a bin edge could pass `u64::MAX`.

use std::ops::Range;

use sgpt_format::analysis::{PassStats, median_p95};
use sgpt_format::{Capture, GpuPassKind, SpanKind, Topology, TopologyId};

use crate::slicing::FrameCursor;
use crate::units;

/// At most this many bars besides the 0 ns one: enough to see a shape, few enough that
/// each is a few pixels wide in the details pane.
pub const MAX_BINS: usize = 48;

/// How the nonzero durations were binned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binning {
    /// One bar per step of `step_ns` from the smallest duration to the largest, empty
    /// steps included: each bar is one value. `step_ns` is the quantum, or 1 ns.
    Steps { step_ns: u64 },
    /// One bar per distinct value, evenly spaced: the axis is not to scale.
    Values,
    /// Equal bins `width_ns` wide from the smallest duration, a whole number of quanta each.
    Linear { width_ns: u64 },
}

/// One bar: how many durations lie in `low_ns..=high_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bin {
    pub low_ns: u64,
    pub high_ns: u64,
    pub count: u64,
}

/// A histogram of one pass's durations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// Durations, zeros included, and how many read exactly 0 ns.
    pub count: u64,
    pub zero_count: u64,
    /// Over every duration, zeros included; `None` without durations.
    pub min_ns: Option<u64>,
    pub max_ns: Option<u64>,
    /// Nearest rank, as the statistics table; `None` without durations.
    pub median_ns: Option<u64>,
    pub p95_ns: Option<u64>,
    /// Every nonzero duration is a multiple of this (see the module docs).
    pub quantum_ns: Option<u64>,
    /// Distinct nonzero values.
    pub distinct: u64,
    pub binning: Binning,
    /// The nonzero durations' bars, in ascending order; empty when there are none.
    pub bins: Vec<Bin>,
    /// The durations above the 99th percentile, when they stretch the axis past twice it:
    /// one bar, apart (see the module docs).
    pub tail: Option<Bin>,
    /// Frames skipped whole by [`HistogramJob`] because they could not be read, as the
    /// statistics skip them; 0 for [`Histogram::new`].
    pub skipped_frames: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Histogram {
    /// The histogram of `durations`, in nanoseconds, in any order.
    #[must_use]
    pub fn new(durations: &[u64]) -> Self {
        let mut sorted = durations.to_vec();
        // The statistics' own selection, before sorting for the bins (it reorders).
        let [median_ns, p95_ns] = match median_p95(&mut sorted) {
            Some([median, p95]) => [Some(median), Some(p95)],
            None => [None, None],
        };
        sorted.sort_unstable();
        let zeros = sorted.partition_point(|&d| d == 0);
        let nonzero = &sorted[zeros..];
        let distinct =
            nonzero.windows(2).filter(|pair| pair[0] != pair[1]).count() as u64 + u64::from(!nonzero.is_empty());
        let divisor = nonzero.iter().fold(0, |g, &d| if g == 1 { 1 } else { gcd(g, d) });
        let quantum_ns = (nonzero.len() >= 2 && divisor >= 2).then_some(divisor);
        let (bulk, tail) = split_tail(nonzero);
        let bulk_distinct =
            bulk.windows(2).filter(|pair| pair[0] != pair[1]).count() as u64 + u64::from(!bulk.is_empty());
        let (binning, bins) = bin(bulk, quantum_ns.unwrap_or(1), bulk_distinct);
        Self {
            count: sorted.len() as u64,
            zero_count: zeros as u64,
            min_ns: sorted.first().copied(),
            max_ns: sorted.last().copied(),
            median_ns,
            p95_ns,
            quantum_ns,
            distinct,
            binning,
            bins,
            tail,
            skipped_frames: 0,
        }
    }

    /// The durations of the pass `key` over frame indices `range`, gathered at once
    /// (see [`HistogramJob`] to gather them a little at a time).
    #[must_use]
    pub fn from_capture(capture: &Capture<'_>, range: Range<usize>, key: &PassKey) -> Self {
        HistogramJob::new(capture, range, key.clone()).finish()
    }

    /// One line: `1 234 spans · median 1.200 ms · p95 1.500 ms · 12 read 0 ns`, or `no spans`.
    #[must_use]
    pub fn summary_text(&self) -> String {
        let (Some(median), Some(p95)) = (self.median_ns, self.p95_ns) else { return "no spans".to_owned() };
        let mut text = format!(
            "{} spans · median {} · p95 {}",
            units::grouped(self.count),
            units::duration(median),
            units::duration(p95)
        );
        if self.zero_count > 0 {
            text.push_str(&format!(" · {} read exactly 0 ns", units::grouped(self.zero_count)));
        }
        text
    }

    /// How the bars were made, in words, for beside the chart.
    #[must_use]
    pub fn binning_text(&self) -> String {
        let bars = self.bars_text();
        match self.tail {
            Some(tail) => format!(
                "{bars}; the {} spans from {} to {} (above the 99th percentile) are the last bar, apart",
                units::grouped(tail.count),
                units::duration(tail.low_ns),
                units::duration(tail.high_ns)
            ),
            None => bars,
        }
    }

    fn bars_text(&self) -> String {
        if self.bins.is_empty() {
            return if self.count == 0 {
                "no spans".to_owned()
            } else {
                "every span reads exactly 0 ns: the timer saw nothing, not nothing to do".to_owned()
            };
        }
        let quantum = self.quantum_ns.map_or(String::new(), |quantum| {
            format!("; every nonzero duration is a multiple of {}", units::duration(quantum))
        });
        match self.binning {
            _ if self.distinct == 1 => format!("every nonzero duration reads {}", units::duration(self.bins[0].low_ns)),
            Binning::Steps { step_ns } if self.quantum_ns.is_some() => {
                format!("one bar per {} step, as recorded{quantum}", units::duration(step_ns))
            }
            Binning::Steps { .. } => "one bar per nanosecond value".to_owned(),
            Binning::Values => format!(
                "one bar per distinct value ({}), evenly spaced: the axis is not to scale{quantum}",
                units::grouped(self.distinct)
            ),
            Binning::Linear { width_ns } => format!(
                "{} bins of {} from {} to {}{quantum}",
                self.bins.len(),
                units::duration(width_ns),
                units::duration(self.bins[0].low_ns),
                units::duration(self.bins[self.bins.len() - 1].high_ns),
            ),
        }
    }

    /// Bars and markers for a plot `width` × `height` pixels (y grows downwards, bars
    /// stand on `height`). The 0 ns bar, when there are zeros, stands apart at the left.
    /// Heights are proportional to counts, with at least a pixel for a nonzero count so a
    /// single span stays visible.
    #[must_use]
    pub fn layout(&self, width: f64, height: f64) -> HistogramLayout {
        let (width, height) = (width.max(0.0), height.max(0.0));
        let mut layout = HistogramLayout::default();
        if self.count == 0 {
            layout.labels.push(AxisLabel { x: width / 2.0, text: "no spans".to_owned() });
            return layout;
        }
        let zero_slot = self.zero_count > 0;
        let gap = if zero_slot && !self.bins.is_empty() { 0.5 } else { 0.0 };
        let tail_slots = if self.tail.is_some() { 1.5 } else { 0.0 };
        let slots = self.bins.len() as f64 + if zero_slot { 1.0 } else { 0.0 } + gap + tail_slots;
        let slot = width / slots;
        let inset = if slot >= 4.0 { 1.0 } else { 0.0 };
        let tallest =
            self.bins.iter().chain(&self.tail).map(|bin| bin.count).chain([self.zero_count]).max().unwrap_or(0).max(1);
        let bar = |x: f64, count: u64, bin: Option<Bin>, zero: bool| {
            let h = if count == 0 { 0.0 } else { (count as f64 / tallest as f64 * height).max(1.0_f64.min(height)) };
            Bar { x, y: height - h, width: (slot - inset).max(0.0), height: h, count, bin, zero }
        };
        let start = if zero_slot {
            layout.bars.push(bar(0.0, self.zero_count, None, true));
            layout.labels.push(AxisLabel { x: slot / 2.0, text: "0 ns".to_owned() });
            slot * (1.0 + gap)
        } else {
            0.0
        };
        for (index, bin) in self.bins.iter().enumerate() {
            layout.bars.push(bar(start + slot * index as f64, bin.count, Some(*bin), false));
        }
        if let (Some(first), Some(last)) = (self.bins.first(), self.bins.last()) {
            let linear = matches!(self.binning, Binning::Linear { .. });
            let (left, right) = if linear {
                (start, start + slot * self.bins.len() as f64)
            } else {
                (start + slot / 2.0, start + slot * (self.bins.len() as f64 - 0.5))
            };
            layout.labels.push(AxisLabel { x: left, text: units::duration(first.low_ns) });
            if self.bins.len() > 1 {
                layout.labels.push(AxisLabel { x: right, text: units::duration(last.high_ns) });
            }
        }
        let tail_x = start + slot * (self.bins.len() as f64 + 0.5);
        if let Some(tail) = self.tail {
            layout.bars.push(bar(tail_x, tail.count, Some(tail), false));
            layout
                .labels
                .push(AxisLabel { x: tail_x + slot / 2.0, text: format!("≥{}", units::duration(tail.low_ns)) });
        }
        let x_of = |value: u64| -> f64 {
            if value == 0 {
                return slot / 2.0;
            }
            if self.tail.is_some_and(|tail| value >= tail.low_ns) {
                return tail_x + slot / 2.0;
            }
            let index = self.bins.partition_point(|bin| bin.high_ns < value).min(self.bins.len().saturating_sub(1));
            let Some(bin) = self.bins.get(index) else { return slot / 2.0 };
            let within = match self.binning {
                Binning::Linear { .. } => {
                    let offset = value.saturating_sub(bin.low_ns) as f64 + 0.5;
                    (offset / ((bin.high_ns - bin.low_ns) as f64 + 1.0)).clamp(0.0, 1.0)
                }
                Binning::Steps { .. } | Binning::Values => 0.5,
            };
            start + slot * (index as f64 + within)
        };
        for (name, value) in [("median", self.median_ns), ("p95", self.p95_ns)] {
            if let Some(value) = value {
                let text = format!("{name} {}", units::duration(value));
                layout.markers.push(Marker { name, x: x_of(value), value_ns: value, text });
            }
        }
        layout
    }
}

/// Splits the sorted nonzero durations into the bulk and, when they stretch past twice
/// their 99th percentile (with at least 100 of them), the tail above it as one bin.
fn split_tail(nonzero: &[u64]) -> (&[u64], Option<Bin>) {
    const MIN_FOR_TAIL: usize = 100;
    if nonzero.len() < MIN_FOR_TAIL {
        return (nonzero, None);
    }
    let p99 = nonzero[(nonzero.len() - 1) * 99 / 100];
    let high = nonzero[nonzero.len() - 1];
    if high / 2 <= p99 {
        return (nonzero, None);
    }
    let split = nonzero.partition_point(|&d| d <= p99);
    let tail = &nonzero[split..];
    let bin = Bin { low_ns: tail[0], high_ns: high, count: tail.len() as u64 };
    (&nonzero[..split], Some(bin))
}

/// Bins the sorted nonzero durations (see the module docs).
fn bin(nonzero: &[u64], step: u64, distinct: u64) -> (Binning, Vec<Bin>) {
    let (Some(&low), Some(&high)) = (nonzero.first(), nonzero.last()) else {
        return (Binning::Steps { step_ns: step }, Vec::new());
    };
    let steps = u128::from((high - low) / step) + 1;
    let (binning, edges): (Binning, Vec<(u64, u64)>) = if steps <= MAX_BINS as u128 {
        let edges = (0..steps as u64).map(|i| low + i * step).map(|value| (value, value)).collect();
        (Binning::Steps { step_ns: step }, edges)
    } else if distinct <= MAX_BINS as u64 {
        let mut values = nonzero.to_vec();
        values.dedup();
        (Binning::Values, values.into_iter().map(|value| (value, value)).collect())
    } else {
        let quanta = steps.div_ceil(MAX_BINS as u128);
        let width = u64::try_from(quanta * u128::from(step)).unwrap_or(u64::MAX);
        let count = (u128::from(high - low) / u128::from(width)) as u64 + 1;
        let edges = (0..count)
            .map(|i| {
                let from = u128::from(low) + u128::from(i) * u128::from(width);
                let to = (from + u128::from(width) - 1).min(u128::from(high));
                (from as u64, to as u64)
            })
            .collect();
        (Binning::Linear { width_ns: width }, edges)
    };
    let mut bins: Vec<Bin> = edges.into_iter().map(|(low_ns, high_ns)| Bin { low_ns, high_ns, count: 0 }).collect();
    // Both sorted: one walk.
    let mut at = 0;
    for &value in nonzero {
        while bins[at].high_ns < value {
            at += 1;
        }
        bins[at].count += 1;
    }
    (binning, bins)
}

/// A bar to paint, in the layout's pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub count: u64,
    /// The bin it draws; `None` for the 0 ns bar.
    pub bin: Option<Bin>,
    /// The 0 ns bar, drawn apart.
    pub zero: bool,
}

/// A vertical line at the median or the p95.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// `median` or `p95`.
    pub name: &'static str,
    pub x: f64,
    pub value_ns: u64,
    /// `median 1.200 ms`.
    pub text: String,
}

/// A label under the axis, centred on `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisLabel {
    pub x: f64,
    pub text: String,
}

/// A histogram laid out for drawing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistogramLayout {
    /// The 0 ns bar first when there is one, then the bins in order.
    pub bars: Vec<Bar>,
    pub markers: Vec<Marker>,
    pub labels: Vec<AxisLabel>,
}

impl HistogramLayout {
    /// The bar under `x`, if any, by index into `bars`.
    #[must_use]
    pub fn hit(&self, x: f64) -> Option<usize> {
        self.bars.iter().position(|bar| x >= bar.x && x < bar.x + bar.width.max(1.0))
    }
}

/// Which pass a histogram is of, across topologies: the statistics table's row key
/// (graph pass name, label, GPU pass kind, span kind), since labels alone are not keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PassKey {
    pub graph_pass: Option<String>,
    pub label: String,
    pub kind: GpuPassKind,
    pub span_kind: SpanKind,
}

impl PassKey {
    /// The key of a statistics row.
    #[must_use]
    pub fn of_stats(pass: &PassStats) -> Self {
        Self {
            graph_pass: pass.graph_pass.clone(),
            label: pass.label.clone(),
            kind: pass.kind,
            span_kind: pass.span_kind,
        }
    }

    /// The key of spans of `span_kind` on GPU pass `pass` of `topology`.
    #[must_use]
    pub fn of_pass(topology: &Topology, pass: u32, span_kind: SpanKind) -> Option<Self> {
        let gpu = topology.gpu_passes.get(pass as usize)?;
        let graph_pass =
            gpu.graph_pass.and_then(|graph| topology.graph_passes.get(graph as usize)).map(|graph| graph.name.clone());
        Some(Self { graph_pass, label: gpu.label.clone(), kind: gpu.kind, span_kind })
    }
}

/// Gathers one pass's durations over a frame range a frame at a time, then bins them.
/// Holds 8 bytes per span of that one pass, never of the others.
#[derive(Debug)]
pub struct HistogramJob<'c, 'a> {
    capture: &'c Capture<'a>,
    key: PassKey,
    cursor: FrameCursor,
    /// Per topology id: which of its (pass, span kind) slots, at `2 p + k`, are the pass;
    /// `None` when the topology was lost.
    tables: std::collections::HashMap<TopologyId, Option<Vec<bool>>>,
    durations: Vec<u64>,
    scratch: Vec<u64>,
    skipped_frames: u64,
}

impl<'c, 'a> HistogramJob<'c, 'a> {
    /// The durations of `key` over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, range: Range<usize>, key: PassKey) -> Self {
        Self {
            capture,
            key,
            cursor: FrameCursor::new(range, capture.frames().len()),
            tables: std::collections::HashMap::new(),
            durations: Vec::new(),
            scratch: Vec::new(),
            skipped_frames: 0,
        }
    }

    /// Reads one frame for each time `more()` returns `true`. Returns `true` once every
    /// frame is read and [`HistogramJob::finish`] only bins.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        while let Some(index) = self.cursor.next_frame(more) {
            self.add_frame(index);
        }
        self.cursor.done()
    }

    /// Progress from 0 to 1, in frames.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.cursor.progress()
    }

    /// The histogram; reads whatever frames are left first.
    #[must_use]
    pub fn finish(mut self) -> Histogram {
        while !self.step(&mut || true) {}
        let mut histogram = Histogram::new(&self.durations);
        histogram.skipped_frames = self.skipped_frames;
        histogram
    }

    fn add_frame(&mut self, index: usize) {
        let capture = self.capture;
        let Some(entry) = capture.frames().get(index) else {
            self.skipped_frames += 1;
            return;
        };
        let key = &self.key;
        let table = self.tables.entry(entry.topology).or_insert_with(|| {
            capture.topology(entry.topology).map(|topology| {
                let passes = topology.gpu_passes.len() as u32;
                (0..passes)
                    .flat_map(|pass| [SpanKind::Pass, SpanKind::SubPass].map(|kind| (pass, kind)))
                    .map(|(pass, kind)| PassKey::of_pass(topology, pass, kind).as_ref() == Some(key))
                    .collect()
            })
        });
        let Some(table) = table else {
            self.skipped_frames += 1;
            return;
        };
        let scratch = &mut self.scratch;
        scratch.clear();
        let mut unknown = false;
        let decoded = capture.for_each_span(index, |span| {
            let at = (span.pass as usize).wrapping_mul(2) | span.kind as usize;
            match table.get(at) {
                Some(true) => scratch.push(span.duration_ns()),
                Some(false) => {}
                None => unknown = true,
            }
        });
        // Skipped whole where the statistics skip it, so the figures agree.
        if decoded.is_err() || unknown {
            self.skipped_frames += 1;
            return;
        }
        self.durations.extend_from_slice(&self.scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_divisor_ignores_nothing_and_stops_at_one() {
        assert_eq!(gcd(300_000, 200_000), 100_000);
        assert_eq!(gcd(u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(gcd(0, 7), 7);
        assert_eq!(gcd(1, u64::MAX), 1);
    }

    #[test]
    fn bins_cover_the_range_in_whole_steps_without_overflow() {
        let (binning, bins) = bin(&[1, u64::MAX], 1, 2);
        assert_eq!(binning, Binning::Values);
        assert_eq!(bins.iter().map(|bin| bin.count).sum::<u64>(), 2);
        let values: Vec<u64> =
            (0..1_000u64).map(|i| u64::MAX - 999 * 1_000_000_000_000 + i * 1_000_000_000_000).collect();
        let (binning, bins) = bin(&values, 1, 1_000);
        assert!(matches!(binning, Binning::Linear { .. }));
        assert_eq!(bins.last().map(|bin| bin.high_ns), Some(u64::MAX));
        assert_eq!(bins.iter().map(|bin| bin.count).sum::<u64>(), 1_000);
        assert!(bins.len() <= MAX_BINS);
        let (binning, bins) = bin(&[], 1, 0);
        assert_eq!((binning, bins.len()), (Binning::Steps { step_ns: 1 }, 0));
    }
}
