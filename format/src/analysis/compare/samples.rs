//! Per-frame series of one capture: every span's duration per pass, in frame order, and
//! the GPU frame time, kept so a block bootstrap can resample whole frames.
//!
//! Memory: 4 bytes a span (8 for a pass with any span over `u32::MAX` ns, 4.29 s), plus
//! 4 bytes a frame for a pass that runs, but not exactly once in every analysed frame,
//! plus 8 bytes a frame for the frame time; a pass that never runs stores nothing. Two
//! hour-long captures of the standard workload (216,000 frames × 200 passes) hold
//! 2 × 173 MB. A scan with coins keeps a pass of at most one span a frame as a byte a
//! frame instead ([`Durations::Coins`]): 2 × 43 MB.

mod frame_block;
mod in_place;
mod wire;

use std::collections::HashMap;
use std::ops::Range;

use super::order::KnownOrder;
use crate::analysis::held::{Column, HeldFrames};
use crate::analysis::{Key, isa, pass_key, reads_alone};
use crate::error::{Defect, DefectKind};
use crate::model::{Frame, SpanKind, TopologyId};
use crate::reader::Capture;
use crate::spans;
use frame_block::FrameBlock;
use in_place::InPlace;
pub(crate) use in_place::{Inside, NO_SPAN, Part, RangeSeries, SeriesKind, codes_to_coins};

/// Durations in ns, narrow while every one fits in a `u32`; or, for the usual pass of a
/// scan with coins, no durations at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Durations {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    /// At most one span a frame, known only as at or below the pass's median (1), above it
    /// (0), or absent ([`NO_SPAN`]), and the spans' count: all the block bootstrap reads
    /// of a pass whose order statistics its scan selected (see `scan`'s `coins`). A byte a
    /// frame where a duration takes four. Nothing reads a duration from it: a figure that
    /// needs one is left to samples that keep them.
    Coins {
        coins: Vec<u8>,
        spans: usize,
    },
}

impl Default for Durations {
    fn default() -> Self {
        Durations::Narrow(Vec::new())
    }
}

impl Durations {
    #[inline]
    fn push(&mut self, value: u64) {
        match self {
            Durations::Narrow(values) => match u32::try_from(value) {
                Ok(narrow) => values.push(narrow),
                Err(_) => {
                    let mut wide: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
                    wide.push(value);
                    *self = Durations::Wide(wide);
                }
            },
            Durations::Wide(values) => values.push(value),
            Durations::Coins { .. } => unreachable!("coins are made whole, never pushed"),
        }
    }

    fn reserve(&mut self, additional: usize) {
        match self {
            Durations::Narrow(values) => values.reserve(additional),
            Durations::Wide(values) => values.reserve(additional),
            Durations::Coins { .. } => {}
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Durations::Narrow(values) => values.len(),
            Durations::Wide(values) => values.len(),
            Durations::Coins { spans, .. } => *spans,
        }
    }

    /// Whether the durations themselves are kept (not only coins).
    pub(crate) fn kept(&self) -> bool {
        !matches!(self, Durations::Coins { .. })
    }

    /// Duration `at`. Coins keep none: callers ask [`Durations::kept`] first.
    pub(crate) fn get(&self, at: usize) -> u64 {
        match self {
            Durations::Narrow(values) => u64::from(values[at]),
            Durations::Wide(values) => values[at],
            Durations::Coins { .. } => panic!("a series of coins keeps no durations"),
        }
    }

    /// Appends the durations at `range` to `out`. Coins keep none: callers ask
    /// [`Durations::kept`] first.
    pub(crate) fn extend_into(&self, range: Range<usize>, out: &mut Vec<u64>) {
        match self {
            Durations::Narrow(values) => out.extend(values[range].iter().map(|&v| u64::from(v))),
            Durations::Wide(values) => out.extend_from_slice(&values[range]),
            Durations::Coins { .. } => panic!("a series of coins keeps no durations"),
        }
    }
}

/// One pass's spans in frame order, over the analysed frames.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Series {
    pub(crate) values: Durations,
    /// `starts[f]..starts[f + 1]` are the spans of analysed frame `f`; `None` while every
    /// frame has exactly one span, where span `f` is frame `f`'s.
    starts: Option<Vec<u32>>,
    /// Analysed frames so far, this pass present or not.
    frames: usize,
    /// Frames with at least one span.
    pub(crate) frames_present: usize,
}

impl Series {
    /// A series with exactly one value per frame.
    pub(crate) fn one_per_frame(values: impl IntoIterator<Item = u64>) -> Self {
        let mut series = Series::default();
        for value in values {
            series.values.push(value);
            series.frames += 1;
            series.frames_present += 1;
        }
        series
    }

    /// A series of the given spans per frame (any number each, none included).
    #[cfg(test)]
    pub(crate) fn from_frames(frames: &[Vec<u64>]) -> Self {
        let mut series = Series::default();
        for (frame, spans) in frames.iter().enumerate().filter(|(_, spans)| !spans.is_empty()) {
            series.add_frame(frame, spans);
        }
        series.catch_up(frames.len());
        series
    }

    /// Spells out where each frame's spans start, for a series that is about to stop
    /// having exactly one span in every frame.
    fn spell_out(&mut self) {
        if self.starts.is_none() {
            // One span a frame so far (span f is frame f's), or no span in any frame.
            self.starts = Some(if self.values.len() == 0 {
                vec![0; self.frames + 1]
            } else {
                (0..=self.frames as u32).collect()
            });
        }
    }

    /// Records that analysed frames up to `frames` without spans of this pass. A pass no
    /// frame has run in stores nothing per frame.
    fn catch_up(&mut self, frames: usize) {
        if self.frames >= frames {
            return;
        }
        if self.values.len() == 0 && self.starts.is_none() {
            self.frames = frames;
            return;
        }
        self.spell_out();
        let end = self.values.len() as u32;
        if let Some(starts) = &mut self.starts {
            starts.resize(frames + 1, end);
        }
        self.frames = frames;
    }

    /// Adds the spans of this pass in analysed frame `frame` (at least one), every frame
    /// before it without spans of this pass not yet added: a frame's spans gathered
    /// first, the form the tests build series in and check [`Series::push_span`] against.
    #[cfg(test)]
    fn add_frame(&mut self, frame: usize, spans: &[u64]) {
        self.catch_up(frame);
        if self.starts.is_none() && (spans.len() != 1 || self.values.len() != self.frames) {
            self.spell_out();
        }
        for &duration in spans {
            self.values.push(duration);
        }
        if let Some(starts) = &mut self.starts {
            starts.push(self.values.len() as u32);
        }
        self.frames += 1;
        self.frames_present += 1;
    }

    /// Adds one span of analysed frame `frame`, the spans of a frame in their order and
    /// frames in order (no frame before it added since): what adding the frame's spans
    /// gathered gives (the tests' `Series::add_frame`), without gathering them first.
    /// `room`: values to make room for when the first arrives, so that a long series is
    /// not copied as it grows.
    #[inline]
    fn push_span(&mut self, frame: usize, duration: u64, room: usize) {
        // The usual pass: one narrow span in every frame so far, and this frame's first.
        if let (Durations::Narrow(values), None, Ok(narrow)) = (&mut self.values, &self.starts, u32::try_from(duration))
            && self.frames == frame
            && values.len() == frame
        {
            if values.capacity() == 0 {
                values.reserve(room);
            }
            values.push(narrow);
            self.frames += 1;
            self.frames_present += 1;
            return;
        }
        if self.frames == frame + 1 {
            // Another span of the frame this series last opened.
            self.spell_out();
            self.values.push(duration);
            if let Some(end) = self.starts.as_mut().and_then(|starts| starts.last_mut()) {
                *end += 1;
            }
            return;
        }
        if self.values.len() == 0 {
            self.values.reserve(room);
        }
        self.catch_up(frame);
        if self.starts.is_none() && self.values.len() != self.frames {
            self.spell_out();
        }
        self.values.push(duration);
        if let Some(starts) = &mut self.starts {
            starts.push(self.values.len() as u32);
        }
        self.frames += 1;
        self.frames_present += 1;
    }

    /// [`Series::push_span`] of `frames` frames from analysed frame `first` on, each one
    /// span of this pass, in `column`: the usual pass's copied in one run, any other's span
    /// by span.
    fn push_column(&mut self, first: usize, frames: usize, column: Column<'_>, room: usize) {
        if let (Durations::Narrow(values), None) = (&mut self.values, &self.starts)
            && self.frames == first
            && values.len() == first
        {
            if values.capacity() == 0 {
                values.reserve(room);
            }
            values.extend(column);
            self.frames += frames;
            self.frames_present += frames;
            return;
        }
        for (at, &duration) in column.enumerate() {
            self.push_span(first + at, u64::from(duration), room.saturating_sub(at));
        }
    }

    /// The spans of analysed frames `frames`.
    pub(crate) fn spans_of(&self, frames: Range<usize>) -> Range<usize> {
        match &self.starts {
            None => frames,
            Some(starts) => starts[frames.start] as usize..starts[frames.end] as usize,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// A series of at most one span in each of `coins.len()` frames, each known only as at
    /// or below the median (1), above it (0) or absent ([`NO_SPAN`]).
    #[cfg(test)]
    pub(crate) fn of_coins(coins: Vec<u8>) -> Self {
        let spans = coins.iter().filter(|&&coin| coin != NO_SPAN).count();
        let mut series = Series::of_codes(coins);
        series.coined(spans);
        series
    }

    /// A series of each frame's code against its pass's median window, for the scan to
    /// turn into coins ([`codes_to_coins`]) and then say how many spans they hold
    /// ([`Series::coined`]).
    pub(crate) fn of_codes(codes: Vec<u8>) -> Self {
        let frames = codes.len();
        Series { values: Durations::Coins { coins: codes, spans: 0 }, starts: None, frames, frames_present: 0 }
    }

    /// Records that a series of coins holds `spans` spans, one in as many frames.
    pub(crate) fn coined(&mut self, spans: usize) {
        if let Durations::Coins { spans: held, .. } = &mut self.values {
            *held = spans;
            self.frames_present = spans;
        }
    }

    /// The coins, for a series that keeps only them.
    pub(crate) fn coins(&self) -> Option<&[u8]> {
        match &self.values {
            Durations::Coins { coins, .. } => Some(coins),
            _ => None,
        }
    }

    /// Writes into `coins` each frame's span at or below `median` (1) or not (0), and says
    /// so, when the series holds exactly one span in each of `frames` frames, narrow or
    /// wide: the usual pass, whose per-frame terms are counted. Otherwise writes nothing.
    pub(crate) fn coins_at_or_below(&self, median: u64, frames: usize, coins: &mut Vec<u8>) -> bool {
        if self.starts.is_some() || self.len() != frames {
            return false;
        }
        match &self.values {
            Durations::Narrow(values) => coins.extend(values.iter().map(|&v| u8::from(u64::from(v) <= median))),
            Durations::Wide(values) => coins.extend(values.iter().map(|&v| u8::from(v <= median))),
            Durations::Coins { .. } => return false,
        }
        true
    }

    /// The values, one per frame so far, when every frame has exactly one and all are
    /// narrow: the usual pass, whose per-frame terms need no look-up of where a frame starts.
    #[cfg(test)]
    pub(crate) fn one_span_per_frame(&self) -> Option<&[u32]> {
        match (&self.values, &self.starts) {
            (Durations::Narrow(values), None) => Some(values),
            _ => None,
        }
    }

    /// The series of consecutive runs of frames, each caught up to its own frames, as
    /// one: exactly what adding their frames one after another gives, representation
    /// included (starts spelled out unless every frame has one span or none has any;
    /// wide if any value is).
    fn concat(parts: &[Series]) -> Series {
        let frames = parts.iter().map(|part| part.frames).sum();
        let len: usize = parts.iter().map(Series::len).sum();
        let spelled = len > 0 && !parts.iter().all(|part| part.starts.is_none() && part.len() == part.frames);
        let starts = spelled.then(|| {
            let mut starts = Vec::with_capacity(frames + 1);
            starts.push(0);
            let mut base = 0u32;
            for part in parts {
                match &part.starts {
                    Some(own) => starts.extend(own[1..].iter().map(|&start| base + start)),
                    None if part.len() == 0 => starts.extend(std::iter::repeat_n(base, part.frames)),
                    None => starts.extend((1..=part.frames as u32).map(|frame| base + frame)),
                }
                base += part.len() as u32;
            }
            starts
        });
        let values = if parts.iter().any(|part| matches!(part.values, Durations::Wide(_))) {
            let mut wide = Vec::with_capacity(len);
            for part in parts {
                part.values.extend_into(0..part.len(), &mut wide);
            }
            Durations::Wide(wide)
        } else {
            let mut narrow = Vec::with_capacity(len);
            for part in parts {
                if let Durations::Narrow(values) = &part.values {
                    narrow.extend_from_slice(values);
                }
            }
            Durations::Narrow(narrow)
        };
        let frames_present = parts.iter().map(|part| part.frames_present).sum();
        Series { values, starts, frames, frames_present }
    }
}

/// A pass's series and whether, where it ran in no frame, its graph pass was culled.
#[derive(Clone, Debug)]
pub(crate) struct PassSamples {
    pub(crate) key: Key,
    pub(crate) series: Series,
    /// For a pass without spans: whether the first frame of each topology that holds it
    /// marks its graph pass culled.
    pub(crate) culled: bool,
    /// The series' order statistics, where the scan that collected it selected them.
    pub(crate) known: Option<KnownOrder>,
}

/// The samples themselves: what a scan already selected of them is a shortcut to
/// figures they give anyway, so samples with it and without are alike.
impl PartialEq for PassSamples {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.series == other.series && self.culled == other.culled
    }
}

/// What a comparison reads from one capture (or one frame range of it): per pass, each
/// analysed frame's span durations; per frame, the GPU frame time from the index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    pub(crate) frames: usize,
    pub(crate) frame_ns: Vec<u64>,
    pub(crate) passes: Vec<PassSamples>,
    /// Frames that could not be analysed and were skipped, with why.
    pub defects: Vec<Defect>,
}

impl Samples {
    /// Frames analysed.
    #[must_use]
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Reads `frames` (indices into [`Capture::frames`], clamped) of `capture`.
    #[must_use]
    pub fn collect(capture: &Capture<'_>, frames: Range<usize>) -> Self {
        let end = frames.end.min(capture.frames().len());
        let mut collector = SampleCollector::with_frames(capture, end.saturating_sub(frames.start));
        for index in frames.start.min(end)..end {
            collector.add_frame(index);
        }
        collector.finish()
    }
}

/// Frames read alone the collector holds at most before writing them out
/// ([`HeldFrames`]): a cache line of `u32` per pass.
const COLLECTOR_HELD: usize = 16;

/// Writes the frames `held` holds into their passes' series, a pass's run at once, `room`
/// made for the frames still expected of `expected` when a series' first arrives.
fn write_out(held: &mut HeldFrames, passes: &mut [PassSamples], expected: usize) {
    let (first, frames) = held.held();
    let room = expected.saturating_sub(first);
    held.drain(|slot, column| passes[slot as usize].series.push_column(first, frames, column, room));
}

/// Builds [`Samples`] one frame at a time, so a caller can show progress or yield.
/// Frames are skipped whole, as `sgpt stats` skips them, when they fail to decode, use a
/// lost topology or name a GPU pass their topology lacks.
#[derive(Debug)]
pub struct SampleCollector<'c, 'a> {
    capture: &'c Capture<'a>,
    /// Per topology id: slot per `2 × GPU pass + span kind`, or `None` when it was lost.
    tables: HashMap<TopologyId, Option<Vec<u32>>>,
    slot_of: HashMap<Key, u32>,
    passes: Vec<PassSamples>,
    /// Per slot, `(frame index, graph pass index)` of the first frame of each topology
    /// holding the pass: where to look whether it was culled, should it never run.
    probes: Vec<Vec<(usize, usize)>>,
    frame_ns: Vec<u64>,
    defects: Vec<Defect>,
    scratch: Vec<(u32, u64)>,
    /// Frames read alone, held to be written a pass at a time.
    held: HeldFrames,
    /// Frames the caller means to add: a pass's series is sized for the rest of them when
    /// its first span arrives, so that 200 series filled in step are not all copied to
    /// twice their size in the same frame (hundreds of MB at once on eight hours).
    expected_frames: usize,
}

impl<'c, 'a> SampleCollector<'c, 'a> {
    /// A collector over `capture` with no frame added yet.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        Self::with_frames(capture, 0)
    }

    /// A collector that expects `frames` frames to be added: the samples are the same as
    /// [`SampleCollector::new`]'s, their memory taken once instead of grown by doubling.
    #[must_use]
    pub fn with_frames(capture: &'c Capture<'a>, frames: usize) -> Self {
        Self {
            expected_frames: frames,
            capture,
            tables: HashMap::new(),
            slot_of: HashMap::new(),
            passes: Vec::new(),
            probes: Vec::new(),
            frame_ns: Vec::new(),
            defects: Vec::new(),
            scratch: Vec::new(),
            held: HeldFrames::default(),
        }
    }

    fn table(&mut self, id: TopologyId, frame_index: usize) -> bool {
        if let Some(table) = self.tables.get(&id) {
            return table.is_some();
        }
        let table = self.capture.topology(id).map(|topology| {
            let mut table = Vec::with_capacity(topology.gpu_passes.len() * 2);
            for pass in &topology.gpu_passes {
                for span_kind in [SpanKind::Pass, SpanKind::SubPass] {
                    let key = pass_key(topology, pass, span_kind);
                    let slot = match self.slot_of.get(&key) {
                        Some(&slot) => slot,
                        None => {
                            let slot = self.passes.len() as u32;
                            self.slot_of.insert(key.clone(), slot);
                            // Frames analysed before this pass first appeared are caught up
                            // as frames without it when it first runs.
                            self.passes.push(PassSamples {
                                key,
                                series: Series::default(),
                                culled: false,
                                known: None,
                            });
                            self.probes.push(Vec::new());
                            slot
                        }
                    };
                    if let Some(graph) = pass.graph_pass {
                        self.probes[slot as usize].push((frame_index, graph as usize));
                    }
                    table.push(slot);
                }
            }
            table
        });
        let known = table.is_some();
        self.tables.insert(id, table);
        known
    }

    /// Adds frame `index` (an index into [`Capture::frames`]).
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
        if !self.table(entry.topology, index) {
            self.defects.push(Defect::new(
                DefectKind::MissingReference,
                entry.offset,
                format!("frame {} uses topology {}, which was lost; skipped", entry.frame_number, entry.topology),
            ));
            return;
        }
        let table = self.tables.get(&entry.topology).and_then(Option::as_ref).map_or(&[][..], Vec::as_slice);
        let frame = self.frame_ns.len();
        // Each series makes room for the frames still to come when its first span arrives,
        // so that 200 series filled in step are not all copied to twice their size at once.
        let rest = self.expected_frames.saturating_sub(frame);
        // Nearly every frame of a long capture stores passes 0, 1, 2, … in turn: its
        // durations are read alone, as the statistics read them (`spans::durations`, which
        // fails exactly where a whole decode does). Any other frame, one with a duration
        // past 32 bits, or one whose spans may wrap past the clock's end, is decoded
        // whole. Frames read alone are held, up to [`COLLECTOR_HELD`] of one shape (whose
        // passes are of distinct keys), and written a pass at a time: a frame's 200
        // spans written one by one went to as many series, each store a page and cache
        // line of its own (a sixth of collecting the hour-long capture's samples).
        let alone = match capture.open_frame(index) {
            Ok(open) if reads_alone(&open, table) => {
                let count = open.spans.len();
                let signed = !open.spans.passes_in_order();
                if !self.held.joins(entry.topology, count, COLLECTOR_HELD) {
                    write_out(&mut self.held, &mut self.passes, self.expected_frames);
                }
                self.held.hold((entry.topology, table, count), frame, |durations| {
                    // Compiled for x86-64-v3 where the CPU has it, as the statistics' decode is.
                    isa::fastest(
                        #[inline(always)]
                        || spans::durations(open.spans, durations),
                    )
                    // A span that wrapped past the clock's end reads 0 ns, whose stored
                    // duration is small: such a frame is decoded whole.
                    .is_some_and(|column| column.high == 0 && !column.may_wrap(count, signed))
                })
            }
            _ => false,
        };
        if !alone {
            // Held frames come before this one in every series.
            write_out(&mut self.held, &mut self.passes, self.expected_frames);
            let scratch = &mut self.scratch;
            scratch.clear();
            let mut unknown = None;
            let decoded = capture.for_each_span(index, |span| {
                match table.get((span.pass as usize).wrapping_mul(2) | span.kind as usize) {
                    Some(&slot) => scratch.push((slot, span.duration_ns())),
                    None => drop(unknown.get_or_insert(span.pass)),
                }
            });
            if let Err(defect) = decoded {
                self.defects.push(defect);
                return;
            }
            if let Some(pass) = unknown {
                self.defects.push(unknown_pass(entry.offset, entry.frame_number, pass));
                return;
            }
            // A frame's spans in their order: each series takes its own in turn.
            for &(slot, duration) in &self.scratch {
                self.passes[slot as usize].series.push_span(frame, duration, rest);
            }
        }
        if self.frame_ns.capacity() == 0 {
            self.frame_ns.reserve_exact(rest);
        }
        self.frame_ns.push(entry.gpu_duration_ns);
    }

    /// The samples of every frame added.
    #[must_use]
    pub fn finish(mut self) -> Samples {
        write_out(&mut self.held, &mut self.passes, self.expected_frames);
        let frames = self.frame_ns.len();
        for pass in &mut self.passes {
            pass.series.catch_up(frames);
        }
        mark_culled(self.capture, &mut self.passes, &self.probes);
        Samples { frames: self.frame_ns.len(), frame_ns: self.frame_ns, passes: self.passes, defects: self.defects }
    }
}

/// Marks each pass without spans culled when the first frame of every topology holding it
/// (`probes`: frame index, graph pass index) marks its graph pass culled.
fn mark_culled(capture: &Capture<'_>, passes: &mut [PassSamples], probes: &[Vec<(usize, usize)>]) {
    let mut frame = Frame::default();
    // The frame decoded last, and whether it decoded: a topology's passes share their
    // probe, so a frame is decoded once, not once a pass (hundreds, on a long capture).
    let mut decoded: Option<(usize, bool)> = None;
    for (pass, probes) in passes.iter_mut().zip(probes) {
        if pass.series.len() > 0 || probes.is_empty() {
            continue;
        }
        pass.culled = probes.iter().all(|&(index, graph)| {
            let ok = match decoded {
                Some((last, ok)) if last == index => ok,
                _ => {
                    let ok = capture.frame_into(index, &mut frame).is_ok();
                    decoded = Some((index, ok));
                    ok
                }
            };
            ok && frame.culled.get(graph).copied().unwrap_or(false)
        });
    }
}

/// The defect [`SampleCollector`] records for a frame with a span of a GPU pass its
/// topology lacks.
pub(crate) fn unknown_pass(offset: u64, frame_number: u64, pass: u32) -> Defect {
    Defect::new(
        DefectKind::Malformed,
        offset,
        format!("frame {frame_number} has a span for GPU pass {pass}, beyond its topology's; skipped"),
    )
}

/// One chunk of frames' samples for the scan (`analysis::scan`), over the slot table every
/// chunk shares (its rows, in the order [`SampleCollector`] meets them), so the chunks'
/// series concatenate, in frame order, into exactly what [`SampleCollector`] collects.
///
/// A pass expected to have one span in every frame (the usual one) is written in place,
/// into the chunk's part of a series the scan sized for the whole range beforehand: the
/// chunks' parts then need no concatenating, which copied every value into as many fresh
/// pages again. A chunk where such a pass turns out otherwise moves what it wrote into a
/// series of its own and goes on there, as for any other pass.
#[derive(Debug)]
pub(crate) struct ChunkSamples<'b> {
    series: Vec<Series>,
    /// Per slot, the chunk's part of the range's series and how many frames it holds.
    in_place: Vec<Option<InPlace<'b>>>,
    frame_ns: Vec<u64>,
    defects: Vec<Defect>,
    /// The chunk's frames: room for a series of one span a frame, the usual pass.
    room: usize,
    /// Recent frames' spans that go in place, held to be written there a block at a time.
    block: FrameBlock,
    /// Whether a part of codes had to leave its place: the frames it coded have no
    /// durations to move, so the chunk's samples are incomplete.
    lost: bool,
}

/// A chunk's samples once its frames are all added: no longer borrowing the range's series.
#[derive(Debug)]
pub(crate) struct ChunkPart {
    series: Vec<Series>,
    /// Per slot, whether the chunk's part of the range's series holds every frame of the
    /// chunk (the slot's `series` is then empty).
    in_place: Vec<bool>,
    frame_ns: Vec<u64>,
    defects: Vec<Defect>,
    /// The chunk's frames analysed.
    frames: usize,
    /// The chunk's frames, analysed or not: the length of its part of each range series.
    room: usize,
    /// Whether a part of codes had to leave its place (see [`ChunkSamples`]).
    lost: bool,
    /// Per slot, the chunk's own part of the range's series where it ran apart and the part
    /// stayed in place, until [`ChunkPart::append_to`] appends it there.
    owned: Vec<Option<RangeSeries>>,
}

impl<'b> ChunkSamples<'b> {
    /// For a chunk of `frames` frames; `in_place` holds, per slot, the chunk's part of the
    /// range's series (`frames` long) for a pass expected to have one span in every frame,
    /// and `windows` each slot's median window, which parts of codes code against.
    pub(crate) fn new(
        slots: usize,
        frames: usize,
        mut in_place: Vec<Option<Part<'b>>>,
        windows: impl Fn(usize) -> [u64; 2],
    ) -> Self {
        in_place.resize_with(slots, || None);
        Self {
            series: vec![Series::default(); slots],
            in_place: in_place
                .into_iter()
                .enumerate()
                .map(|(slot, part)| part.map(|values| InPlace { values, next: 0, window: windows(slot) }))
                .collect(),
            frame_ns: Vec::with_capacity(frames),
            defects: Vec::new(),
            room: frames,
            block: FrameBlock::default(),
            lost: false,
        }
    }

    /// Adds a frame decoded whole, its span `i` of duration `durations[i]` in slot
    /// `slots[i]`, and its GPU frame time: the spans that go in place held, to be written a
    /// block of frames at a time (see `frame_block`), the others added one by one.
    #[inline]
    pub(crate) fn push_frame(&mut self, slots: &[u32], durations: &[u32], frame_ns: u64) {
        if self.block.hold(&mut self.in_place, self.frame_ns.len(), slots, durations) {
            // The spans held are in slots of their own, which these never touch.
            for at in 0..self.block.direct_len() {
                let position = self.block.direct(at);
                self.push_beside_block(slots[position] as usize, u64::from(durations[position]));
            }
            self.frame_ns.push(frame_ns);
            return;
        }
        for (&slot, &duration) in slots.iter().zip(durations) {
            self.push(slot as usize, u64::from(duration));
        }
        self.end_frame(frame_ns);
    }

    /// Adds a span of the frame being analysed, whose spans come in their order. Span by
    /// span, straight into each series: gathering a frame's spans per slot first, as
    /// [`SampleCollector`] does, cost more than the statistics themselves.
    #[inline]
    pub(crate) fn push(&mut self, slot: usize, duration: u64) {
        self.block.close(&mut self.in_place);
        self.push_beside_block(slot, duration);
    }

    /// [`ChunkSamples::push`] with frames held in the block, to a slot the block holds none of.
    #[inline]
    fn push_beside_block(&mut self, slot: usize, duration: u64) {
        let frame = self.frame_ns.len();
        if let Some(part) = &mut self.in_place[slot] {
            // This frame's first span: its value's place.
            if part.place(frame, duration) {
                return;
            }
            self.spill(slot);
        }
        self.series[slot].push_span(frame, duration, self.room);
    }

    /// Moves slot `slot`'s frames written in place into its own series, where the rest of
    /// the chunk's spans of it go.
    /// A part of codes has no durations to move: the chunk's samples are then incomplete.
    #[cold]
    fn spill(&mut self, slot: usize) {
        match self.in_place[slot].take() {
            Some(InPlace { values: Part::Durations(values), next, .. }) if next > 0 => {
                let mut moved = Vec::with_capacity(self.room.max(next));
                moved.extend_from_slice(&values[..next]);
                self.series[slot] =
                    Series { values: Durations::Narrow(moved), starts: None, frames: next, frames_present: next };
            }
            Some(InPlace { values: Part::Codes(_), .. }) => self.lost = true,
            _ => {}
        }
    }

    /// Ends the frame being analysed, whose spans were pushed, with its GPU frame time.
    pub(crate) fn end_frame(&mut self, frame_ns: u64) {
        self.block.close(&mut self.in_place);
        self.frame_ns.push(frame_ns);
    }

    /// Records a skipped frame's defect, in frame order.
    pub(crate) fn defect(&mut self, defect: Defect) {
        self.block.close(&mut self.in_place);
        self.defects.push(defect);
    }

    /// Ends the chunk. A part written in place stays there only if it holds every frame of
    /// the chunk: a pass missing from the chunk's last frames, or a skipped frame (which
    /// leaves the part's end unwritten), moves it into the slot's own series.
    pub(crate) fn seal(mut self) -> ChunkPart {
        self.block.close(&mut self.in_place);
        let frames = self.frame_ns.len();
        let in_place: Vec<bool> =
            self.in_place.iter_mut().map(|part| part.as_mut().is_some_and(|part| part.end(frames))).collect();
        for (slot, &kept) in in_place.iter().enumerate() {
            if !kept {
                self.spill(slot);
            }
        }
        let owned = self.in_place.into_iter().map(|part| part.and_then(|part| part.values.into_owned())).collect();
        ChunkPart {
            owned,
            series: self.series,
            in_place,
            frame_ns: self.frame_ns,
            defects: self.defects,
            frames,
            room: self.room,
            lost: self.lost,
        }
    }
}

impl ChunkPart {
    /// The samples of a chunk of `room` frames that could not be kept: they leave the
    /// range's incomplete.
    pub(crate) fn lost(room: usize) -> Self {
        ChunkPart {
            series: Vec::new(),
            in_place: Vec::new(),
            frame_ns: Vec::new(),
            defects: Vec::new(),
            frames: 0,
            room,
            lost: true,
            owned: Vec::new(),
        }
    }

    /// The chunk's frames, analysed or not: the length of its part of each series.
    pub(crate) fn room(&self) -> usize {
        self.room
    }

    /// Appends the parts the chunk wrote apart (a piece's, see [`Part::owned`]) to the
    /// range's series `range`, which hold the chunks before it: the frames of a part that
    /// did not stay in place are skipped. A part that does not fit (another kind or
    /// length: a fault of whoever scanned the piece, never of a capture) leaves the
    /// chunk's samples incomplete, as a part of codes that left its place does.
    pub(crate) fn append_to(&mut self, range: &mut [Option<RangeSeries>]) {
        let mut owned = std::mem::take(&mut self.owned).into_iter();
        for (slot, series) in range.iter_mut().enumerate() {
            let part = owned.next().flatten();
            let Some(series) = series else {
                self.lost |= part.is_some();
                continue;
            };
            let placed = match part {
                Some(part) => part.len() == self.room && self.in_place.get(slot) == Some(&true) && series.append(&part),
                None => {
                    series.skip(self.room);
                    self.in_place.get(slot) != Some(&true)
                }
            };
            self.lost |= !placed;
        }
        self.lost |= owned.any(|part| part.is_some());
    }

    /// Lets go of the chunk's own series where none holds anything (every pass of the
    /// chunk went in place, or never ran): a piece of the range keeps its place in the
    /// order and nothing else, where hundreds of empty series a piece added up to tens of
    /// MB on long ranges.
    pub(crate) fn shed_empty(&mut self) {
        if self.series.iter().all(|series| *series == Series::default()) {
            self.series = Vec::new();
        }
    }

    /// The samples of consecutive chunks, in order. `keys` names the slots; `in_place`
    /// holds, per slot, the range's series the chunks wrote in place (each chunk its part,
    /// in order), if any; `probes` holds, per slot, `(frame index, graph pass index)` of
    /// the first frame of each topology of the range holding it. A range series of codes
    /// becomes a series of coins still holding its codes, which the scan turns into coins
    /// once it knows the median. `None` where a chunk lost the durations of frames it
    /// coded.
    pub(crate) fn finish(
        capture: &Capture<'_>,
        mut chunks: Vec<ChunkPart>,
        in_place: Vec<Option<RangeSeries>>,
        keys: Vec<Key>,
        probes: &[Vec<(usize, usize)>],
    ) -> Option<Samples> {
        if chunks.iter().any(|chunk| chunk.lost) {
            return None;
        }
        let mut frame_ns = Vec::with_capacity(chunks.iter().map(|chunk| chunk.frame_ns.len()).sum());
        let mut defects = Vec::new();
        for chunk in &mut chunks {
            frame_ns.append(&mut chunk.frame_ns);
            defects.append(&mut chunk.defects);
        }
        // Per slot, whether a chunk holds a series of it of its own: a slot none does and
        // none wrote in place (a sub-pass region that never ran, say) is as many empty
        // parts concatenated, made at once.
        let mut own = vec![false; keys.len()];
        for chunk in &chunks {
            for (own, series) in own.iter_mut().zip(&chunk.series) {
                *own |= *series != Series::default();
            }
        }
        let mut in_place = in_place.into_iter();
        let mut passes: Vec<PassSamples> = Vec::with_capacity(keys.len());
        for (slot, key) in keys.into_iter().enumerate() {
            let range_series = in_place.next().flatten();
            let series = match range_series {
                // Every chunk wrote its frames in place: that is the series, copied nowhere.
                Some(RangeSeries::Durations(values)) if chunks.iter().all(|chunk| chunk.in_place[slot]) => {
                    let frames = values.len();
                    Series { values: Durations::Narrow(values), starts: None, frames, frames_present: frames }
                }
                Some(RangeSeries::Codes(codes)) if chunks.iter().all(|chunk| chunk.in_place[slot]) => {
                    Series::of_codes(codes)
                }
                // Codes some chunk did not keep in place: never without a chunk lost.
                Some(RangeSeries::Codes(_)) => return None,
                None if !own[slot] => Series { frames: frame_ns.len(), ..Series::default() },
                range_series => {
                    let range_series = match range_series {
                        Some(RangeSeries::Durations(values)) => Some(values),
                        _ => None,
                    };
                    let mut parts = Vec::with_capacity(chunks.len());
                    let mut offset = 0;
                    for chunk in &mut chunks {
                        let room = chunk.room;
                        let mut part = chunk.series.get_mut(slot).map(std::mem::take).unwrap_or_default();
                        if chunk.in_place[slot]
                            && let Some(values) = &range_series
                        {
                            part = Series {
                                values: Durations::Narrow(values[offset..offset + room].to_vec()),
                                starts: None,
                                frames: room,
                                frames_present: room,
                            };
                        }
                        part.catch_up(chunk.frames);
                        parts.push(part);
                        offset += room;
                    }
                    Series::concat(&parts)
                }
            };
            passes.push(PassSamples { key, series, culled: false, known: None });
        }
        mark_culled(capture, &mut passes, probes);
        Some(Samples { frames: frame_ns.len(), frame_ns, passes, defects })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spans of each frame, read back through `spans_of`.
    fn frames_of(series: &Series) -> Vec<Vec<u64>> {
        (0..series.frames).map(|f| series.spans_of(f..f + 1).map(|at| series.values.get(at)).collect()).collect()
    }

    #[test]
    fn frames_without_a_pass_are_caught_up_whatever_came_before() {
        // Regular, then a gap, then two spans in one frame.
        let mut series = Series::default();
        series.add_frame(0, &[5]);
        series.add_frame(1, &[6]);
        assert!(series.starts.is_none(), "one span a frame needs no starts");
        series.add_frame(3, &[7, 8]);
        series.catch_up(5);
        assert_eq!(frames_of(&series), [vec![5], vec![6], vec![], vec![7, 8], vec![]]);
        assert_eq!(series.frames_present, 3);

        // First seen late, and a pass that never runs stores nothing per frame.
        let mut late = Series::default();
        late.add_frame(2, &[9]);
        late.catch_up(4);
        assert_eq!(frames_of(&late), [vec![], vec![], vec![9], vec![]]);
        let mut never = Series::default();
        never.catch_up(216_000);
        assert!(never.starts.is_none() && never.len() == 0 && never.frames == 216_000);
    }

    #[test]
    fn spans_pushed_one_by_one_make_the_series_their_frames_gathered_make() {
        // The collector pushes each span of a frame in turn, to whichever series it is
        // of, where it once gathered each series' spans of the frame first.
        let mut rng = crate::synth::Rng::new(11);
        for trial in 0..500 {
            let (series_count, frames) = (1 + rng.below(4) as usize, rng.below(40) as usize);
            let mut pushed = vec![Series::default(); series_count];
            let mut gathered = vec![Series::default(); series_count];
            for frame in 0..frames {
                // A frame's spans in their order: any series, any number of times, some
                // durations past 32 bits.
                let spans: Vec<(usize, u64)> = (0..rng.below(5))
                    .map(|_| {
                        let wide = rng.below(10) == 0;
                        (rng.below(series_count as u64) as usize, rng.below(100) + if wide { 1 << 33 } else { 0 })
                    })
                    .collect();
                for &(series, duration) in &spans {
                    pushed[series].push_span(frame, duration, frames);
                }
                for (series, gathered) in gathered.iter_mut().enumerate() {
                    let own: Vec<u64> = spans.iter().filter(|(of, _)| *of == series).map(|&(_, d)| d).collect();
                    if !own.is_empty() {
                        gathered.add_frame(frame, &own);
                    }
                }
            }
            for (pushed, gathered) in pushed.iter_mut().zip(&mut gathered) {
                pushed.catch_up(frames);
                gathered.catch_up(frames);
                assert_eq!(pushed, gathered, "trial {trial}");
            }
        }
    }

    #[test]
    fn frames_held_in_a_block_land_where_span_by_span_puts_them() {
        let mut rng = crate::synth::Rng::new(41);
        let (mut held_frames, mut lost) = (0, 0);
        for trial in 0..500 {
            let slots_n = 1 + rng.below(8) as usize;
            let frames = 1 + rng.below(70) as usize;
            // Parts in place for most slots, some shorter than the chunk.
            let parts: Vec<Option<usize>> = (0..slots_n)
                .map(|_| (rng.below(4) != 0).then(|| frames - rng.below(3).min(frames as u64 - 1) as usize))
                .collect();
            // A few shapes: most hold every slot once, some repeat one or leave one out, and
            // some are another's in a new order, with or without a slot more (a block opened
            // on one holds frames of the other).
            let mut shapes: Vec<Vec<u32>> = (0..1 + rng.below(3))
                .map(|_| {
                    let mut shape: Vec<u32> = (0..slots_n as u32).filter(|_| rng.below(8) != 0).collect();
                    if rng.below(4) == 0 && !shape.is_empty() {
                        shape.push(shape[rng.below(shape.len() as u64) as usize]);
                    }
                    shape
                })
                .collect();
            for _ in 0..rng.below(3) {
                let mut shape = shapes[rng.below(shapes.len() as u64) as usize].clone();
                for at in (1..shape.len()).rev() {
                    shape.swap(at, rng.below(at as u64 + 1) as usize);
                }
                if rng.below(2) == 0 {
                    shape.insert(rng.below(shape.len() as u64 + 1) as usize, rng.below(slots_n as u64) as u32);
                }
                shapes.push(shape);
            }
            // Half the trials write codes against a window, as a scan with coins does.
            let codes = trial % 2 == 1;
            let range = |len: usize| {
                if codes { RangeSeries::Codes(vec![0; len]) } else { RangeSeries::Durations(vec![0; len]) }
            };
            let mut stores: [Vec<Option<RangeSeries>>; 2] =
                std::array::from_fn(|_| parts.iter().map(|len| len.map(range)).collect());
            let [by_block_store, by_span_store] = &mut stores;
            fn borrow(store: &mut [Option<RangeSeries>]) -> Vec<Option<Part<'_>>> {
                store.iter_mut().map(|part| part.as_mut().map(RangeSeries::whole)).collect()
            }
            let windows = |slot: usize| [1 << 18, (1 << 19) + slot as u64];
            let mut by_block = ChunkSamples::new(slots_n, frames, borrow(by_block_store), windows);
            let mut by_span = ChunkSamples::new(slots_n, frames, borrow(by_span_store), windows);
            for frame in 0..frames as u64 {
                if rng.below(16) == 0 {
                    let defect = Defect::new(DefectKind::Malformed, frame, format!("frame {frame} skipped"));
                    by_block.defect(defect.clone());
                    by_span.defect(defect);
                    continue;
                }
                let slots = &shapes[rng.below(shapes.len() as u64) as usize];
                let durations: Vec<u32> = slots
                    .iter()
                    .map(|_| if rng.below(9) == 0 { u32::MAX } else { rng.below(1 << 20) as u32 })
                    .collect();
                // Now and then a frame the scan adds span by span, between held ones.
                if rng.below(6) == 0 {
                    for (&slot, &duration) in slots.iter().zip(&durations) {
                        by_block.push(slot as usize, u64::from(duration));
                    }
                    by_block.end_frame(frame * 3);
                } else {
                    held_frames += 1;
                    by_block.push_frame(slots, &durations, frame * 3);
                }
                for (&slot, &duration) in slots.iter().zip(&durations) {
                    by_span.push(slot as usize, u64::from(duration));
                }
                by_span.end_frame(frame * 3);
            }
            let (held, spanned) = (by_block.seal(), by_span.seal());
            assert_eq!(held.lost, spanned.lost, "trial {trial}");
            assert_eq!(held.series, spanned.series, "trial {trial}");
            assert_eq!(held.in_place, spanned.in_place, "trial {trial}");
            assert_eq!(
                (&held.frame_ns, held.frames, &held.defects),
                (&spanned.frame_ns, spanned.frames, &spanned.defects)
            );
            for (slot, &in_place) in held.in_place.iter().enumerate() {
                if in_place {
                    assert_eq!(stores[0][slot], stores[1][slot], "trial {trial}, slot {slot}");
                }
            }
            lost += usize::from(held.lost);
        }
        assert!(held_frames > 10_000, "{held_frames} frames went through the block");
        assert!(lost > 10 && lost < 250, "{lost} trials of codes lost a part");
    }

    #[test]
    fn a_duration_past_u32_widens_the_store_and_loses_nothing() {
        let mut series = Series::default();
        let long = u64::from(u32::MAX) + 7;
        series.add_frame(0, &[3]);
        series.add_frame(1, &[long]);
        assert!(matches!(series.values, Durations::Wide(_)));
        assert_eq!(frames_of(&series), [vec![3], vec![long]]);
    }
}
