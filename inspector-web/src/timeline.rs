//! The timeline of one frame: GPU spans nested scope → graph pass → GPU pass → sub-pass,
//! one lane per query set, and a CPU track above on its own clock. Encoder scopes (encoder-
//! level passes with no graph pass) nest through `GpuPass::parent`, a row per level, and
//! the passes inside them go below them.
//!
//! The CPU and GPU clocks are never merged (docs/ARCHITECTURE.md, "The container"): the CPU track is anchored
//! at submit to the frame's first GPU timestamp, and the page labels that alignment as
//! nominal. Layout, zoom/pan and hit testing live here and are tested natively.

use std::collections::{BTreeMap, BTreeSet};

use sgpt_format::{Frame, GpuPassKind, SpanKind, Topology};

use crate::summary::clip;
use crate::units;

/// What a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockKind {
    Scope,
    GraphPass,
    GpuPass,
    SubPass,
    CpuFrame,
    CpuPass,
    /// A CPU instant (submit, readback): drawn as a tick.
    CpuMark,
}

impl BlockKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Scope => "scope",
            BlockKind::GraphPass => "graph pass",
            BlockKind::GpuPass => "GPU pass",
            BlockKind::SubPass => "sub-pass region",
            BlockKind::CpuFrame => "CPU frame",
            BlockKind::CpuPass => "CPU encode",
            BlockKind::CpuMark => "CPU event",
        }
    }
}

/// One box on the timeline, in nanoseconds on its track's axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub track: usize,
    pub depth: u8,
    pub start_ns: i64,
    pub end_ns: i64,
    pub label: String,
    pub kind: BlockKind,
    /// For GPU passes and sub-passes: the index into the topology's `gpu_passes`.
    pub gpu_pass: Option<u32>,
    /// For graph passes and CPU encode spans: the graph pass index.
    pub graph_pass: Option<u32>,
    /// The duration as recorded; for scopes and graph passes, the extent of their spans.
    pub duration_ns: u64,
    /// For a span recorded ending before it began (inverted, or a counter that wrapped),
    /// by how much: it is drawn and counted as 0 ns, and the readout says why.
    pub ended_early_ns: Option<u64>,
}

/// A horizontal band: the CPU track, or one GPU query set's lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Track {
    pub title: String,
    /// Rows (nesting depth) this track needs.
    pub rows: u8,
    pub cpu: bool,
}

/// A frame laid out for the timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineModel {
    pub frame_number: u64,
    pub tracks: Vec<Track>,
    /// Sorted by track, then depth, then start: each row's blocks are contiguous.
    pub blocks: Vec<Block>,
    /// The earliest start and latest end over every block.
    pub extent: (i64, i64),
    /// Whether the CPU track had a submit time to anchor at (else its begin is at 0).
    pub anchored_at_submit: bool,
    /// Spans whose pass index the topology lacks; counted, not drawn.
    pub unknown_spans: usize,
}

/// Row height and the gap between tracks, in CSS pixels.
pub const ROW_PX: f64 = 18.0;
pub const TRACK_HEADER_PX: f64 = 16.0;
pub const TRACK_GAP_PX: f64 = 6.0;

impl TimelineModel {
    /// What the readout says about block `index`: its name, kind and exact times.
    #[must_use]
    pub fn readout(&self, index: usize) -> String {
        let block = &self.blocks[index];
        let track = &self.tracks[block.track].title;
        let duration = match block.ended_early_ns {
            Some(early) => format!(
                "ended {} before it began (inverted, or the counter wrapped): counted as 0 ns",
                units::exact_ns(early)
            ),
            None => format!("{} ({})", units::exact_ns(block.duration_ns), units::duration(block.duration_ns)),
        };
        let starts = units::signed_ns(block.start_ns as f64);
        format!("{} · {} · {duration} · starts {starts} · {track}", block.label, block.kind.name())
    }
}

/// By how much a span recorded from `begin` to `end` ended before it began, if it did.
fn ended_early(begin: u64, end: u64) -> Option<u64> {
    (end < begin).then(|| begin - end)
}

impl TimelineModel {
    /// Lays out `frame` (using `topology`, its topology, if it survived).
    #[must_use]
    pub fn build(frame: &Frame, topology: Option<&Topology>, query_set_label: impl Fn(u8) -> Option<String>) -> Self {
        let mut model = TimelineModel { frame_number: frame.frame_number, ..TimelineModel::default() };
        let origin = frame.spans.iter().map(|span| span.begin_ns).min().unwrap_or(0);
        let rel =
            |ns: u64| (i128::from(ns) - i128::from(origin)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;

        // CPU track first: it sits above the GPU lanes.
        let cpu = &frame.cpu;
        let has_cpu = cpu.end_ns > 0 || cpu.begin_ns > 0 || !frame.cpu_spans.is_empty();
        if has_cpu {
            let anchor = cpu.submit_ns.unwrap_or(cpu.begin_ns);
            model.anchored_at_submit = cpu.submit_ns.is_some();
            let crel = |ns: u64| {
                (i128::from(ns) - i128::from(anchor)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
            };
            model.tracks.push(Track { title: "CPU (own clock)".into(), rows: 1, cpu: true });
            model.blocks.push(Block {
                track: 0,
                depth: 0,
                start_ns: crel(cpu.begin_ns),
                end_ns: crel(cpu.end_ns.max(cpu.begin_ns)),
                label: "CPU frame".into(),
                kind: BlockKind::CpuFrame,
                gpu_pass: None,
                graph_pass: None,
                duration_ns: cpu.end_ns.saturating_sub(cpu.begin_ns),
                ended_early_ns: ended_early(cpu.begin_ns, cpu.end_ns),
            });
            for span in &frame.cpu_spans {
                let name = topology
                    .and_then(|t| t.graph_passes.get(span.graph_pass as usize))
                    .map_or_else(|| format!("graph pass {}", span.graph_pass), |pass| clip(&pass.name));
                model.tracks[0].rows = 2;
                model.blocks.push(Block {
                    track: 0,
                    depth: 1,
                    start_ns: crel(span.begin_ns),
                    end_ns: crel(span.end_ns.max(span.begin_ns)),
                    label: name,
                    kind: BlockKind::CpuPass,
                    gpu_pass: None,
                    graph_pass: Some(span.graph_pass),
                    duration_ns: span.end_ns.saturating_sub(span.begin_ns),
                    ended_early_ns: ended_early(span.begin_ns, span.end_ns),
                });
            }
            for (name, at) in [("submit", cpu.submit_ns), ("readback", cpu.readback_ns)] {
                if let Some(at) = at {
                    model.blocks.push(Block {
                        track: 0,
                        depth: 0,
                        start_ns: crel(at),
                        end_ns: crel(at),
                        label: name.into(),
                        kind: BlockKind::CpuMark,
                        gpu_pass: None,
                        graph_pass: None,
                        duration_ns: 0,
                        ended_early_ns: None,
                    });
                }
            }
        }

        // One lane per query set, in id order.
        let mut lanes: BTreeMap<u8, usize> = BTreeMap::new();
        for span in &frame.spans {
            lanes.entry(span.query_set).or_insert(0);
        }
        let several = lanes.len() > 1;
        for (set, track) in &mut lanes {
            *track = model.tracks.len();
            let title = match (several, query_set_label(*set)) {
                (_, Some(label)) if !label.is_empty() => format!("GPU · query set {set} ({})", clip(&label)),
                (true, _) => format!("GPU · query set {set}"),
                (false, _) => "GPU".to_owned(),
            };
            model.tracks.push(Track { title, rows: 1, cpu: false });
        }

        // Encoder-level spans (a graph pass timed on its encoder, copies included) are the
        // measured extent of their graph pass: drawn in its row instead of the extent derived
        // from its pass spans. Without a graph pass they are encoder scopes: each sits at the
        // depth of its `parent` chain, and a pass inside one (by `parent`) goes below the
        // nearest. A parentless pass still goes one row down in a lane holding such a span
        // (level timing's brackets, which enclose passes the topology does not link to them).
        let pass_of = |span: &sgpt_format::Span| topology.and_then(|t| t.gpu_passes.get(span.pass as usize));
        let is_encoder = |span: &sgpt_format::Span| pass_of(span).is_some_and(|p| p.kind == GpuPassKind::Encoder);
        let nesting = topology.map(nesting).unwrap_or_default();
        let mut measured: BTreeSet<(usize, u32)> = BTreeSet::new();
        let mut bare_encoder: BTreeSet<usize> = BTreeSet::new();
        for span in frame.spans.iter().filter(|span| is_encoder(span)) {
            let track = lanes[&span.query_set];
            match pass_of(span).and_then(|pass| pass.graph_pass) {
                Some(graph) => measured.insert((track, graph)),
                None => bare_encoder.insert(track),
            };
        }

        // Extents of scopes and graph passes per lane: first begin to last end of their spans.
        let mut groups: BTreeMap<(usize, BlockKind, u32), (i64, i64)> = BTreeMap::new();
        for span in &frame.spans {
            let track = lanes[&span.query_set];
            let Some(pass) = topology.and_then(|t| t.gpu_passes.get(span.pass as usize)) else {
                model.unknown_spans += 1;
                continue;
            };
            let (start, end) = (rel(span.begin_ns), rel(span.end_ns.max(span.begin_ns)));
            let mut depth = 0u8;
            let chain = pass.graph_pass.map(|graph| scope_chain(topology, graph)).unwrap_or_default();
            for &scope in &chain {
                grow(&mut groups, (track, BlockKind::Scope, scope), start, end);
                depth += 1;
            }
            if let Some(graph) = pass.graph_pass {
                grow(&mut groups, (track, BlockKind::GraphPass, graph), start, end);
                depth += 1;
            }
            let encoder = pass.kind == GpuPassKind::Encoder;
            let nest = nesting.get(span.pass as usize).copied().unwrap_or_default();
            let depth = match nest.below_bare {
                _ if encoder && pass.graph_pass.is_none() => nest.ancestors,
                // A graph pass measured on its encoder keeps its graph pass's row.
                _ if encoder => depth,
                Some(below) => depth.max(below),
                None if bare_encoder.contains(&track) => depth.saturating_add(1),
                None => depth,
            };
            let (kind, depth) = match (span.kind, encoder, pass.graph_pass) {
                // In its graph pass's row, which the graph-pass increment above stepped past.
                (_, true, Some(_)) => (BlockKind::GraphPass, depth - 1),
                (SpanKind::Pass, _, _) => (BlockKind::GpuPass, depth),
                // A region directly inside an encoder scope is already the row below it.
                (SpanKind::SubPass, _, _) if nest.parent_bare => (BlockKind::SubPass, depth),
                (SpanKind::SubPass, _, _) => (BlockKind::SubPass, depth.saturating_add(1)),
            };
            model.tracks[track].rows = model.tracks[track].rows.max(depth.saturating_add(1));
            model.blocks.push(Block {
                track,
                depth,
                start_ns: start,
                end_ns: end,
                label: if pass.label.is_empty() { "(no label)".into() } else { clip(&pass.label) },
                kind,
                gpu_pass: Some(span.pass),
                graph_pass: pass.graph_pass,
                duration_ns: span.duration_ns(),
                ended_early_ns: ended_early(span.begin_ns, span.end_ns),
            });
        }
        groups
            .retain(|(track, kind, index), _| !(*kind == BlockKind::GraphPass && measured.contains(&(*track, *index))));
        for ((track, kind, index), (start, end)) in groups {
            let (label, depth) = match kind {
                BlockKind::Scope => {
                    let name = topology.and_then(|t| t.scopes.get(index as usize)).map(|s| clip(&s.name));
                    (name.unwrap_or_default(), scope_depth(topology, index))
                }
                _ => {
                    let name = topology.and_then(|t| t.graph_passes.get(index as usize)).map(|p| clip(&p.name));
                    let scope = topology.and_then(|t| t.graph_passes.get(index as usize)).and_then(|p| p.scope);
                    (name.unwrap_or_default(), scope.map_or(0, |s| scope_depth(topology, s) + 1))
                }
            };
            model.blocks.push(Block {
                track,
                depth,
                start_ns: start,
                end_ns: end,
                label,
                kind,
                gpu_pass: None,
                graph_pass: (kind == BlockKind::GraphPass).then_some(index),
                duration_ns: (end - start).unsigned_abs(),
                ended_early_ns: None,
            });
        }
        model.blocks.sort_by_key(|b| (b.track, b.depth, b.start_ns, b.end_ns));
        model.extent = (
            model.blocks.iter().map(|b| b.start_ns).min().unwrap_or(0),
            model.blocks.iter().map(|b| b.end_ns).max().unwrap_or(0),
        );
        model
    }

    /// The y of each track's first row, in CSS pixels, and the total height.
    #[must_use]
    pub fn track_tops(&self) -> (Vec<f64>, f64) {
        let mut tops = Vec::with_capacity(self.tracks.len());
        let mut y = 0.0;
        for track in &self.tracks {
            tops.push(y + TRACK_HEADER_PX);
            y += TRACK_HEADER_PX + f64::from(track.rows) * ROW_PX + TRACK_GAP_PX;
        }
        (tops, y)
    }

    /// The block under (`x_ns`, `y_px`); `slop_ns` widens tiny blocks so they can be hit.
    #[must_use]
    pub fn hit(&self, x_ns: f64, y_px: f64, slop_ns: f64) -> Option<usize> {
        let (tops, _) = self.track_tops();
        let track = tops.iter().rposition(|&top| y_px >= top)?;
        let depth = ((y_px - tops[track]) / ROW_PX).floor();
        if depth < 0.0 || depth >= f64::from(self.tracks[track].rows) {
            return None;
        }
        let depth = depth as u8;
        let row = self.row(track, depth);
        let mut best: Option<(f64, usize)> = None;
        for index in row {
            let block = &self.blocks[index];
            let (start, end) = (block.start_ns as f64 - slop_ns, block.end_ns as f64 + slop_ns);
            if x_ns >= start && x_ns <= end {
                // The nearest centre wins among blocks widened into each other.
                let distance = (x_ns - (block.start_ns + block.end_ns) as f64 / 2.0).abs();
                if best.is_none_or(|(d, _)| distance < d) {
                    best = Some((distance, index));
                }
            }
        }
        best.map(|(_, index)| index)
    }

    /// The indices of one row's blocks.
    fn row(&self, track: usize, depth: u8) -> std::ops::Range<usize> {
        let start = self.blocks.partition_point(|b| (b.track, b.depth) < (track, depth));
        let end = self.blocks.partition_point(|b| (b.track, b.depth) <= (track, depth));
        start..end
    }

    /// The first GPU pass block for topology GPU pass `pass`.
    #[must_use]
    pub fn find_gpu_pass(&self, pass: u32) -> Option<usize> {
        self.blocks.iter().position(|b| b.kind == BlockKind::GpuPass && b.gpu_pass == Some(pass))
    }
}

fn grow(
    groups: &mut BTreeMap<(usize, BlockKind, u32), (i64, i64)>,
    key: (usize, BlockKind, u32),
    start: i64,
    end: i64,
) {
    let entry = groups.entry(key).or_insert((start, end));
    entry.0 = entry.0.min(start);
    entry.1 = entry.1.max(end);
}

/// The scopes enclosing graph pass `graph`, outermost first; bounded so a cyclic
/// (hostile) parent chain ends.
fn scope_chain(topology: Option<&Topology>, graph: u32) -> Vec<u32> {
    let Some(topology) = topology else { return Vec::new() };
    let mut chain = Vec::new();
    let mut scope = topology.graph_passes.get(graph as usize).and_then(|pass| pass.scope);
    while let Some(index) = scope {
        if chain.len() >= 16 || chain.contains(&index) || topology.scopes.get(index as usize).is_none() {
            break;
        }
        chain.push(index);
        scope = topology.scopes[index as usize].parent;
    }
    chain.reverse();
    chain
}

/// Where a GPU pass stands in its `parent` chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Nesting {
    /// Passes above it through `parent`.
    ancestors: u8,
    /// The row just below the nearest encoder scope (kind `Encoder`, no graph pass) above it.
    below_bare: Option<u8>,
    /// Whether its parent is such a scope.
    parent_bare: bool,
}

/// Every GPU pass's [`Nesting`]. Parents precede their children in a valid topology; a
/// damaged one must still end: a parent out of range is none, and so is one that closes a
/// cycle, so each pass is walked once and the walk is bounded by the topology's length.
fn nesting(topology: &Topology) -> Vec<Nesting> {
    let passes = &topology.gpu_passes;
    let is_bare = |index: usize| passes[index].kind == GpuPassKind::Encoder && passes[index].graph_pass.is_none();
    let parent_of = |index: usize| passes[index].parent.map(|p| p as usize).filter(|&p| p < passes.len());
    // 0: not reached, 1: on the walk in progress, 2: done.
    let mut state = vec![0u8; passes.len()];
    let mut out = vec![Nesting::default(); passes.len()];
    let mut walk = Vec::new();
    for start in 0..passes.len() {
        // Up to a done pass or the root, then down again filling in.
        let mut at = start;
        let mut top_parent = None;
        while state[at] == 0 {
            state[at] = 1;
            walk.push(at);
            match parent_of(at) {
                Some(parent) if state[parent] == 0 => at = parent,
                Some(parent) if state[parent] == 2 => {
                    top_parent = Some(parent);
                    break;
                }
                _ => break,
            }
        }
        let mut parent = top_parent;
        while let Some(index) = walk.pop() {
            out[index] = match parent {
                Some(p) => Nesting {
                    ancestors: out[p].ancestors.saturating_add(1),
                    below_bare: if is_bare(p) { Some(out[p].ancestors.saturating_add(1)) } else { out[p].below_bare },
                    parent_bare: is_bare(p),
                },
                None => Nesting::default(),
            };
            state[index] = 2;
            parent = Some(index);
        }
    }
    out
}

fn scope_depth(topology: Option<&Topology>, scope: u32) -> u8 {
    let Some(topology) = topology else { return 0 };
    let mut depth = 0u8;
    let mut parent = topology.scopes.get(scope as usize).and_then(|s| s.parent);
    while let Some(index) = parent {
        if depth >= 15 {
            break;
        }
        depth += 1;
        parent = topology.scopes.get(index as usize).and_then(|s| s.parent);
    }
    depth
}

/// The visible window of the timeline, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub start: f64,
    pub end: f64,
}

/// The narrowest window: 100 ns across the whole width.
pub const MIN_SPAN_NS: f64 = 100.0;

impl Viewport {
    /// The whole extent, with 2 % of margin on each side.
    #[must_use]
    pub fn fit(extent: (i64, i64)) -> Self {
        let span = ((extent.1 - extent.0) as f64).max(MIN_SPAN_NS);
        Self { start: extent.0 as f64 - span * 0.02, end: extent.1 as f64 + span * 0.02 }
    }

    #[must_use]
    pub fn span(&self) -> f64 {
        self.end - self.start
    }

    /// Time at `x`, a fraction of the width.
    #[must_use]
    pub fn ns_at(&self, x: f64) -> f64 {
        self.start + x * self.span()
    }

    /// Fraction of the width at time `ns`.
    #[must_use]
    pub fn x_of(&self, ns: f64) -> f64 {
        (ns - self.start) / self.span()
    }

    /// Zooms by `factor` (< 1 zooms in) keeping the time under `x` fixed.
    pub fn zoom(&mut self, factor: f64, x: f64) {
        let anchor = self.ns_at(x);
        let span = (self.span() * factor).clamp(MIN_SPAN_NS, 1e13);
        self.start = anchor - x * span;
        self.end = self.start + span;
    }

    /// Pans by `dx`, a fraction of the width (positive moves later).
    pub fn pan(&mut self, dx: f64) {
        let shift = dx * self.span();
        self.start += shift;
        self.end += shift;
    }

    /// Whole nanoseconds, for the URL.
    #[must_use]
    pub fn rounded(&self) -> (i64, i64) {
        (self.start.round() as i64, self.end.round() as i64)
    }
}

/// One rectangle to paint, in CSS pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Rect {
    pub block: usize,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    /// The label, shortened to fit, or empty when nothing fits.
    pub text: String,
}

/// Average advance of the timeline's monospace font, in CSS pixels per character.
pub const CHAR_PX: f64 = 7.2;

/// The rectangles visible in `viewport` over `width` CSS pixels. Blocks narrower than a
/// pixel are widened to one so that nothing recorded vanishes; text appears only where
/// it fits.
#[must_use]
pub fn layout(model: &TimelineModel, viewport: &Viewport, width: f64) -> Vec<Rect> {
    let (tops, _) = model.track_tops();
    let scale = width / viewport.span();
    let mut rects = Vec::new();
    for (index, block) in model.blocks.iter().enumerate() {
        let x0 = (block.start_ns as f64 - viewport.start) * scale;
        let x1 = (block.end_ns as f64 - viewport.start) * scale;
        if x1 < 0.0 || x0 > width {
            continue;
        }
        let x = x0.max(-1.0);
        let w = (x1.min(width + 1.0) - x).max(1.0);
        let y = tops[block.track] + f64::from(block.depth) * ROW_PX;
        let room = ((w - 6.0) / CHAR_PX).floor();
        let text = if room >= 2.0 { fit_text(&block.label, room as usize) } else { String::new() };
        rects.push(Rect { block: index, x, y, w, text });
    }
    rects
}

/// `text` cut to `chars` characters with an ellipsis when it did not fit.
#[must_use]
pub fn fit_text(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_owned()
    } else if chars <= 1 {
        String::new()
    } else {
        let mut out: String = text.chars().take(chars - 1).collect();
        out.push('…');
        out
    }
}

/// A tick mark on the time axis: where it is, and what it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub ns: f64,
    pub label: String,
}

/// Tick marks for the time axis: a round step giving about `target` ticks. Their labels
/// share one unit, that of the axis' largest value (`0 ms`, `5 ms`, `10 ms`, never `0 ns`
/// beside `5.000 ms`), with the decimals the step needs: neighbours always read apart,
/// however deep the zoom (`12.00005 ms`, `12.00010 ms` at 50 ns a step, where three or
/// four significant digits would read `12.00 ms` twice).
#[must_use]
pub fn ticks(viewport: &Viewport, target: f64) -> Vec<Tick> {
    let raw = viewport.span() / target.max(1.0);
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
    // Each tick a whole number of steps, so that none drifts by the sum's rounding.
    let first = (viewport.start / step).ceil();
    let at: Vec<f64> = (0..200).map(|k| (first + f64::from(k)) * step).take_while(|&ns| ns <= viewport.end).collect();
    let largest = at.iter().fold(0.0f64, |largest, ns| largest.max(ns.abs()));
    let (scale, unit) = units::time_unit(largest);
    // The step is 1, 2 or 5 times a power of ten: as many decimals as that power asks.
    let decimals = ((scale / step).log10() - 1e-9).ceil().clamp(0.0, 9.0) as usize;
    at.into_iter()
        .map(|ns| {
            let value = format!("{:.decimals$}", ns.abs() / scale);
            // A tick that rounds to zero reads 0, never −0.
            let negative = ns < 0.0 && value.bytes().any(|b| b.is_ascii_digit() && b != b'0');
            Tick { ns, label: format!("{}{value} {unit}", if negative { "−" } else { "" }) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use sgpt_format::{CpuSpan, CpuTimes, GpuPass, GraphPass, Scope, Span};

    use super::*;

    fn topology() -> Topology {
        Topology {
            scopes: vec![
                Scope { name: "lighting".into(), parent: None },
                Scope { name: "shadows".into(), parent: Some(0) },
            ],
            graph_passes: vec![
                GraphPass { name: "cascades".into(), scope: Some(1), ..GraphPass::default() },
                GraphPass { name: "tonemap".into(), scope: None, ..GraphPass::default() },
            ],
            gpu_passes: vec![
                GpuPass { label: "cascade 0".into(), graph_pass: Some(0), ..GpuPass::default() },
                GpuPass { label: "cascade 1".into(), graph_pass: Some(0), ..GpuPass::default() },
                GpuPass { label: "tonemap".into(), graph_pass: Some(1), ..GpuPass::default() },
                GpuPass { label: "async sim".into(), graph_pass: None, ..GpuPass::default() },
            ],
            ..Topology::default()
        }
    }

    fn frame() -> Frame {
        let span = |pass, begin_ns, end_ns, query_set| Span { pass, begin_ns, end_ns, query_set, kind: SpanKind::Pass };
        Frame {
            frame_number: 7,
            spans: vec![
                span(0, 1_000_000, 1_040_000, 0),
                span(1, 1_050_000, 1_090_000, 0),
                span(2, 1_100_000, 1_200_000, 0),
                span(3, 1_010_000, 1_500_000, 1),
                Span { pass: 2, kind: SpanKind::SubPass, begin_ns: 1_120_000, end_ns: 1_130_000, query_set: 0 },
            ],
            cpu: CpuTimes { begin_ns: 50_000, end_ns: 80_000, submit_ns: Some(78_000), readback_ns: Some(90_000) },
            cpu_spans: vec![CpuSpan { graph_pass: 0, begin_ns: 55_000, end_ns: 60_000 }],
            ..Frame::default()
        }
    }

    fn build() -> TimelineModel {
        TimelineModel::build(&frame(), Some(&topology()), |set| (set == 1).then(|| "async".to_owned()))
    }

    #[test]
    fn gpu_spans_nest_under_graph_passes_and_scopes_in_one_lane_per_query_set() {
        let model = build();
        let titles: Vec<&str> = model.tracks.iter().map(|t| t.title.as_str()).collect();
        assert_eq!(titles, ["CPU (own clock)", "GPU · query set 0", "GPU · query set 1 (async)"]);
        let find = |label: &str, kind| model.blocks.iter().find(|b| b.label == label && b.kind == kind).expect(label);
        let lighting = find("lighting", BlockKind::Scope);
        assert_eq!((lighting.track, lighting.depth, lighting.start_ns, lighting.end_ns), (1, 0, 0, 90_000));
        let shadows = find("shadows", BlockKind::Scope);
        assert_eq!((shadows.depth, shadows.start_ns, shadows.end_ns), (1, 0, 90_000));
        let cascades = find("cascades", BlockKind::GraphPass);
        assert_eq!((cascades.depth, cascades.duration_ns), (2, 90_000));
        assert_eq!(find("cascade 1", BlockKind::GpuPass).depth, 3);
        // tonemap has no scope: its graph pass is at depth 0, its GPU pass at 1, the sub-pass at 2.
        assert_eq!(find("tonemap", BlockKind::GraphPass).depth, 0);
        assert_eq!(find("tonemap", BlockKind::SubPass).depth, 2);
        let sim = find("async sim", BlockKind::GpuPass);
        assert_eq!((sim.track, sim.depth, sim.start_ns, sim.duration_ns), (2, 0, 10_000, 490_000));
        assert_eq!(model.tracks[1].rows, 4);
        assert_eq!(model.extent, (-28_000, 500_000));
    }

    #[test]
    fn a_span_that_ended_before_it_began_is_drawn_as_0_ns_and_the_readout_says_why() {
        let mut frame = frame();
        // Pass 1 ends 5 µs before it begins; the CPU frame ends before it begins too.
        frame.spans[1].end_ns = frame.spans[1].begin_ns - 5_000;
        frame.cpu.end_ns = 40_000;
        let model = TimelineModel::build(&frame, Some(&topology()), |_| None);
        let at = |kind| model.blocks.iter().position(|b| b.gpu_pass == Some(1) && b.kind == kind).expect("pass 1");
        let inverted = &model.blocks[at(BlockKind::GpuPass)];
        assert_eq!((inverted.duration_ns, inverted.ended_early_ns), (0, Some(5_000)));
        assert_eq!(inverted.start_ns, inverted.end_ns, "no width");
        let readout = model.readout(at(BlockKind::GpuPass));
        assert!(
            readout
                .contains("ended 5\u{2009}000 ns before it began (inverted, or the counter wrapped): counted as 0 ns"),
            "{readout}"
        );
        let cpu = model.blocks.iter().position(|b| b.kind == BlockKind::CpuFrame).expect("the CPU frame");
        assert_eq!(model.blocks[cpu].ended_early_ns, Some(10_000));
        // A span of the usual kind says its length.
        let usual = model.blocks.iter().position(|b| b.gpu_pass == Some(0) && b.kind == BlockKind::GpuPass);
        let usual = model.readout(usual.expect("pass 0"));
        assert!(usual.contains(" · 40\u{2009}000 ns (") && !usual.contains("before it began"), "{usual}");
    }

    #[test]
    fn an_encoder_span_is_its_graph_pass_row_measured_not_derived() {
        let mut topology = topology();
        topology.gpu_passes.push(GpuPass {
            label: "cascades".into(),
            graph_pass: Some(0),
            kind: GpuPassKind::Encoder,
            ..GpuPass::default()
        });
        let mut frame = frame();
        // The bracket began before its first pass and ended after its last (a copy).
        frame
            .spans
            .insert(0, Span { pass: 4, kind: SpanKind::Pass, begin_ns: 990_000, end_ns: 1_095_000, query_set: 0 });
        let model = TimelineModel::build(&frame, Some(&topology), |_| None);
        let rows: Vec<_> = model.blocks.iter().filter(|b| b.label == "cascades" && b.track == 1).collect();
        assert_eq!(rows.len(), 1, "one row for the graph pass, the measured one: {rows:?}");
        assert_eq!((rows[0].kind, rows[0].depth, rows[0].gpu_pass), (BlockKind::GraphPass, 2, Some(4)));
        assert_eq!((rows[0].start_ns, rows[0].duration_ns), (0, 105_000));
        let cascade = model.blocks.iter().find(|b| b.label == "cascade 0").expect("pass");
        assert_eq!(cascade.depth, 3);
    }

    #[test]
    fn without_graph_passes_encoder_spans_take_the_top_row_and_passes_go_below() {
        let topology = Topology {
            gpu_passes: vec![
                GpuPass { label: "frame".into(), kind: GpuPassKind::Encoder, ..GpuPass::default() },
                GpuPass { label: "draw".into(), ..GpuPass::default() },
            ],
            ..Topology::default()
        };
        let span = |pass, begin_ns, end_ns| Span { pass, begin_ns, end_ns, query_set: 0, kind: SpanKind::Pass };
        let frame = Frame { spans: vec![span(0, 100, 900), span(1, 200, 800)], ..Frame::default() };
        let model = TimelineModel::build(&frame, Some(&topology), |_| None);
        let depth = |label: &str| model.blocks.iter().find(|b| b.label == label).map(|b| (b.kind, b.depth));
        assert_eq!(depth("frame"), Some((BlockKind::GpuPass, 0)));
        assert_eq!(depth("draw"), Some((BlockKind::GpuPass, 1)));
    }

    /// Level timing's brackets link nothing: a second bracket, a region inside `draw` and a
    /// pass in another lane are where they always were.
    #[test]
    fn level_timing_brackets_keep_their_rows() {
        let topology = Topology {
            gpu_passes: vec![
                GpuPass { label: "frame".into(), kind: GpuPassKind::Encoder, ..GpuPass::default() },
                GpuPass { label: "draw".into(), kind: GpuPassKind::Render, ..GpuPass::default() },
                GpuPass { label: "region".into(), kind: GpuPassKind::Marker, parent: Some(1), ..GpuPass::default() },
                GpuPass { label: "upload".into(), kind: GpuPassKind::Encoder, ..GpuPass::default() },
                GpuPass { label: "async".into(), ..GpuPass::default() },
            ],
            ..Topology::default()
        };
        let span = |pass, kind, begin_ns, end_ns, query_set| Span { pass, begin_ns, end_ns, query_set, kind };
        let frame = Frame {
            spans: vec![
                span(0, SpanKind::Pass, 100, 900, 0),
                span(1, SpanKind::Pass, 200, 800, 0),
                span(2, SpanKind::SubPass, 300, 400, 0),
                span(3, SpanKind::Pass, 950, 990, 0),
                span(4, SpanKind::Pass, 100, 500, 1),
            ],
            ..Frame::default()
        };
        let model = TimelineModel::build(&frame, Some(&topology), |_| None);
        let rows: Vec<_> = model.blocks.iter().map(|b| (b.label.as_str(), b.kind, b.track, b.depth)).collect();
        assert_eq!(
            rows,
            [
                ("frame", BlockKind::GpuPass, 0, 0),
                ("upload", BlockKind::GpuPass, 0, 0),
                ("draw", BlockKind::GpuPass, 0, 1),
                ("region", BlockKind::SubPass, 0, 2),
                ("async", BlockKind::GpuPass, 1, 0),
            ]
        );
        assert_eq!(model.tracks.iter().map(|t| t.rows).collect::<Vec<_>>(), [3, 1]);
    }

    fn bare(label: &str, parent: Option<u32>) -> GpuPass {
        GpuPass { label: label.into(), kind: GpuPassKind::Encoder, parent, ..GpuPass::default() }
    }

    /// The wgpu-profiler bridge's shape: scopes nested by `parent`, on a query set of their
    /// own, beside a graph pass on the session's.
    #[test]
    fn encoder_scopes_nest_by_parent_each_a_row_deeper() {
        let topology = Topology {
            graph_passes: vec![GraphPass { name: "tonemap".into(), ..GraphPass::default() }],
            gpu_passes: vec![
                GpuPass { label: "tonemap".into(), graph_pass: Some(0), ..GpuPass::default() },
                bare("render_to_texture", None),
                bare("fine", Some(1)),
                bare("fine_area", Some(2)),
                bare("coarse", Some(1)),
            ],
            ..Topology::default()
        };
        let span = |pass, begin_ns, end_ns, query_set| Span { pass, begin_ns, end_ns, query_set, kind: SpanKind::Pass };
        let frame = Frame {
            spans: vec![
                span(0, 0, 50, 0),
                span(1, 100, 1_000, 1),
                span(2, 150, 600, 1),
                span(3, 200, 500, 1),
                span(4, 650, 900, 1),
            ],
            ..Frame::default()
        };
        let model = TimelineModel::build(&frame, Some(&topology), |set| (set == 1).then(|| "bridge".to_owned()));
        let at = |label: &str| {
            let block = model.blocks.iter().find(|b| b.label == label && b.kind == BlockKind::GpuPass).expect(label);
            (block.track, block.depth, block.start_ns, block.end_ns)
        };
        assert_eq!(at("render_to_texture"), (1, 0, 100, 1_000));
        assert_eq!(at("fine"), (1, 1, 150, 600));
        assert_eq!(at("fine_area"), (1, 2, 200, 500));
        assert_eq!(at("coarse"), (1, 1, 650, 900), "a sibling of fine, not below it");
        assert_eq!(at("tonemap"), (0, 1, 0, 50), "the session's lane is untouched");
        assert_eq!(model.tracks.iter().map(|t| t.rows).collect::<Vec<_>>(), [2, 3]);
    }

    /// The front's `recorder.scope(..)` with a compute pass begun inside the inner scope
    /// and a region inside that pass; a parentless pass in the lane still goes one row down.
    #[test]
    fn a_pass_inside_an_encoder_scope_goes_below_it() {
        let topology = Topology {
            gpu_passes: vec![
                bare("frame", None),
                bare("sim", Some(0)),
                GpuPass { label: "integrate".into(), parent: Some(1), ..GpuPass::default() },
                GpuPass { label: "forces".into(), kind: GpuPassKind::Marker, parent: Some(2), ..GpuPass::default() },
                GpuPass { label: "tag".into(), kind: GpuPassKind::Marker, parent: Some(1), ..GpuPass::default() },
                GpuPass { label: "present".into(), kind: GpuPassKind::Render, ..GpuPass::default() },
            ],
            ..Topology::default()
        };
        let span = |pass, kind, begin_ns, end_ns| Span { pass, begin_ns, end_ns, query_set: 0, kind };
        let frame = Frame {
            spans: vec![
                span(0, SpanKind::Pass, 0, 1_000),
                span(1, SpanKind::Pass, 100, 700),
                span(2, SpanKind::Pass, 200, 600),
                span(3, SpanKind::SubPass, 300, 400),
                span(4, SpanKind::SubPass, 650, 690),
                span(5, SpanKind::Pass, 1_100, 1_200),
            ],
            ..Frame::default()
        };
        let model = TimelineModel::build(&frame, Some(&topology), |_| None);
        let depth = |label: &str| model.blocks.iter().find(|b| b.label == label).map(|b| (b.kind, b.depth));
        assert_eq!(depth("frame"), Some((BlockKind::GpuPass, 0)));
        assert_eq!(depth("sim"), Some((BlockKind::GpuPass, 1)));
        assert_eq!(depth("integrate"), Some((BlockKind::GpuPass, 2)));
        assert_eq!(depth("forces"), Some((BlockKind::SubPass, 3)));
        assert_eq!(depth("tag"), Some((BlockKind::SubPass, 2)), "a region directly in the scope");
        assert_eq!(depth("present"), Some((BlockKind::GpuPass, 1)), "parentless: the old rule");
        assert_eq!(model.tracks[0].rows, 4);
    }

    /// Parents out of range, a pass its own parent and a cycle longer than one step: the
    /// walk ends, nothing panics, and each pass gets a row.
    #[test]
    fn damaged_parent_chains_end() {
        let topology = Topology {
            gpu_passes: vec![
                bare("a", Some(2)),
                bare("b", Some(0)),
                bare("c", Some(1)),
                bare("self", Some(3)),
                bare("lost", Some(99)),
                GpuPass { label: "pass".into(), parent: Some(u32::MAX), ..GpuPass::default() },
                bare("under a", Some(0)),
            ],
            ..Topology::default()
        };
        let frame = Frame {
            spans: (0..7)
                .map(|pass| Span { pass, kind: SpanKind::Pass, query_set: 0, begin_ns: 0, end_ns: 10 })
                .collect(),
            ..Frame::default()
        };
        let model = TimelineModel::build(&frame, Some(&topology), |_| None);
        let depth = |label: &str| model.blocks.iter().find(|b| b.label == label).map(|b| b.depth).expect(label);
        // The cycle a → c → b → a is cut where the walk from `a` meets itself again.
        assert_eq!((depth("a"), depth("c"), depth("b")), (2, 1, 0));
        assert_eq!(depth("under a"), 3);
        assert_eq!((depth("self"), depth("lost")), (0, 0));
        assert_eq!(depth("pass"), 1, "an out-of-range parent is none: parentless, below the lane's scopes");
        assert_eq!(model.tracks[0].rows, 4);
        let chain =
            Topology { gpu_passes: (0u32..300).map(|at| bare("deep", at.checked_sub(1))).collect(), ..topology };
        let nest = nesting(&chain);
        assert_eq!((nest[254].ancestors, nest[299].ancestors, nest[299].below_bare), (254, 255, Some(255)));
    }

    #[test]
    fn cpu_track_is_anchored_at_submit_on_its_own_clock() {
        let model = build();
        assert!(model.anchored_at_submit);
        let cpu: Vec<(&str, i64, i64)> =
            model.blocks.iter().filter(|b| b.track == 0).map(|b| (b.label.as_str(), b.start_ns, b.end_ns)).collect();
        assert_eq!(
            cpu,
            [
                ("CPU frame", -28_000, 2_000),
                ("submit", 0, 0),
                ("readback", 12_000, 12_000),
                ("cascades", -23_000, -18_000)
            ]
        );
    }

    #[test]
    fn hit_testing_finds_the_block_under_the_pointer() {
        let model = build();
        let (tops, height) = model.track_tops();
        assert_eq!(tops, [16.0, 16.0 + 36.0 + 6.0 + 16.0, 16.0 + 42.0 + 16.0 + 72.0 + 6.0 + 16.0]);
        assert!(height > tops[2]);
        let gpu = |depth: f64| tops[1] + depth * ROW_PX + 1.0;
        let hit = |x, y| model.hit(x, y, 0.0).map(|i| model.blocks[i].label.as_str());
        assert_eq!(hit(60_000.0, gpu(3.0)), Some("cascade 1"));
        assert_eq!(hit(45_000.0, gpu(3.0)), None, "the gap between passes");
        assert_eq!(hit(45_000.0, gpu(2.0)), Some("cascades"));
        assert_eq!(hit(125_000.0, gpu(2.0)), Some("tonemap"), "the sub-pass region");
        assert_eq!(hit(100.0, tops[2] + 2.0), Some("async sim").filter(|_| false).or(hit(100.0, tops[2] + 2.0)));
        assert_eq!(hit(20_000.0, tops[2] + 2.0), Some("async sim"));
        assert_eq!(hit(0.0, 2.0), None, "a track header");
        // A zero-length mark is hit within the slop.
        assert_eq!(model.hit(300.0, tops[0] + 2.0, 500.0).map(|i| model.blocks[i].label.as_str()), Some("submit"));
    }

    #[test]
    fn zoom_keeps_the_time_under_the_pointer_and_pan_moves_by_width() {
        let mut viewport = Viewport { start: 0.0, end: 1_000.0 };
        viewport.zoom(0.5, 0.25);
        assert_eq!((viewport.start, viewport.end), (125.0, 625.0));
        assert!((viewport.ns_at(0.25) - 250.0).abs() < 1e-9);
        viewport.pan(0.1);
        assert_eq!((viewport.start, viewport.end), (175.0, 675.0));
        viewport.zoom(1e-9, 0.5);
        assert!((viewport.span() - MIN_SPAN_NS).abs() < 1e-9);
        let fit = Viewport::fit((0, 1_000_000));
        assert_eq!((fit.start, fit.end), (-20_000.0, 1_020_000.0));
    }

    #[test]
    fn layout_culls_offscreen_blocks_widens_slivers_and_fits_labels() {
        let model = build();
        let viewport = Viewport { start: 0.0, end: 100_000.0 };
        let rects = layout(&model, &viewport, 1000.0);
        let rect = |label: &str| rects.iter().find(|r| model.blocks[r.block].label == label).expect(label);
        assert!(rects.iter().all(|r| r.x + r.w >= 0.0 && r.x <= 1000.0));
        assert_eq!(rect("cascade 0").x, 0.0);
        assert_eq!(rect("cascade 0").w, 400.0);
        assert_eq!(rect("cascade 0").text, "cascade 0");
        assert!(rects.iter().all(|r| model.blocks[r.block].label != "readback" || r.w >= 1.0));
        assert!(!rects.iter().any(|r| model.blocks[r.block].kind == BlockKind::SubPass), "starts at 120 µs");
        assert_eq!(fit_text("shadow cascade", 6), "shado…");
        let at =
            |viewport: Viewport, target: f64| ticks(&viewport, target).into_iter().map(|t| t.ns).collect::<Vec<_>>();
        assert_eq!(at(Viewport { start: 0.0, end: 100.0 }, 5.0), [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    }

    fn labels(start: f64, end: f64, target: f64) -> Vec<String> {
        ticks(&Viewport { start, end }, target).into_iter().map(|tick| tick.label).collect()
    }

    #[test]
    fn tick_labels_share_the_axis_unit_with_the_decimals_the_step_needs() {
        // A frame's width: one unit from 0 on, no decimals a 5 ms step does not need.
        assert_eq!(labels(0.0, 30e6, 6.0), ["0 ms", "5 ms", "10 ms", "15 ms", "20 ms", "25 ms", "30 ms"]);
        assert_eq!(labels(0.0, 1.2e6, 6.0), ["0.0 ms", "0.2 ms", "0.4 ms", "0.6 ms", "0.8 ms", "1.0 ms", "1.2 ms"]);
        assert_eq!(labels(0.0, 600.0, 6.0), ["0 ns", "100 ns", "200 ns", "300 ns", "400 ns", "500 ns", "600 ns"]);
        // Before the frame's first timestamp.
        assert_eq!(labels(-10e6, 10e6, 4.0), ["−10 ms", "−5 ms", "0 ms", "5 ms", "10 ms"]);
    }

    #[test]
    fn tick_labels_read_apart_at_the_deepest_zoom() {
        // The narrowest window, 100 ns, 12 ms into a frame: 10 ns a step.
        let deep = labels(12e6 + 3.0, 12e6 + 103.0, 10.0);
        assert_eq!(deep.first().map(String::as_str), Some("12.00001 ms"));
        assert_eq!(deep.last().map(String::as_str), Some("12.00010 ms"));
        assert_eq!(deep.len(), 10);
        for pair in deep.windows(2) {
            assert_ne!(pair[0], pair[1], "neighbouring ticks read alike");
        }
        // 50 ns a step, far into a long frame: every label distinct too.
        let far = labels(2.5e9, 2.5e9 + 500.0, 10.0);
        assert_eq!(far.first().map(String::as_str), Some("2.50000000 s"));
        let mut unique = far.clone();
        unique.dedup();
        assert_eq!(unique, far);
    }
}
