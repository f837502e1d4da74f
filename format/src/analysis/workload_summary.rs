//! What each GPU pass asked the GPU to do: dispatch and draw counts per frame, the
//! pipelines it used with their workgroup sizes, derived invocations, attachments, and
//! indirect arguments as *encoded* and, where the capture has them, as *resolved*.
//!
//! Nothing here is ever filled in: a workgroup size the shader did not state is unknown,
//! a pass whose commands never reached the recorder is "not recorded", and neither is 0.
//! One frame at a time, in memory that grows with passes and distinct command shapes
//! (each capped), never with frames, so an hour-long capture is summarised as cheaply as
//! a short one.
//!
//! ```
//! use sgpt_format::{Capture, Level, synth, workload_summary};
//!
//! let bytes = synth::generate(&synth::SynthOptions { frames: 8, passes: 20, level: Level::Workload, ..Default::default() });
//! let capture = Capture::open(&bytes)?;
//! let report = workload_summary::summarize(&capture, 0..capture.frames().len());
//! assert!(report.commands_recorded);
//! let first = report.passes.iter().find(|pass| pass.dispatches.max == Some(1)).expect("a pass that dispatches");
//! assert_eq!(first.dispatches.median, Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use crate::analysis::{Key, pass_key};
use crate::error::{Defect, DefectKind};
use crate::model::{Attachment, Command, Frame, GpuPassKind, Level, Op, Pipeline, SpanKind, TopologyId};
use crate::reader::Capture;

/// Distinct values one per-frame quantity of one pass keeps exactly; past it only the
/// minimum and maximum stay exact and the median is not claimed. Per-frame command counts
/// of one pass take at most √(2 × its commands) distinct values, so they never reach it
/// in practice; invocations with resolved indirect arguments may.
pub const MAX_DISTINCT_VALUES: usize = 4096;
/// Distinct command shapes (or indirect argument sources) listed per pass; the rest are
/// counted in [`PassWorkload::other_commands`].
pub const MAX_SHAPES: usize = 32;
/// Distinct shapes (or sources) a chunk of a range summarised apart keeps per pass, so that
/// merging can tell which were met first; a chunk that meets more gives up, and the range
/// is summarised in one pass instead, so memory never grows with frames.
#[cfg(feature = "parallel")]
const CHUNK_SHAPES: usize = 256;

/// The phrase of the NOTE `sgpt-recorder` writes, once per label, for a pass timed through
/// its `PassTimer`: the pass's commands never pass through the recorder.
const TIMED_ONLY_NOTE: &str = "is begun by the application and timed through a PassTimer";

/// The GPU pass labels a NOTE says were timed through a `PassTimer`, whose commands are
/// therefore "not recorded" rather than none.
#[derive(Clone, Debug, Default)]
pub struct TimedOnly {
    texts: Vec<String>,
}

impl TimedOnly {
    /// Collects the NOTEs of `capture` that name a pass timed through a `PassTimer`.
    #[must_use]
    pub fn new(capture: &Capture<'_>) -> Self {
        let texts =
            capture.notes().iter().filter(|note| note.text.contains(TIMED_ONLY_NOTE)).map(|note| note.text.clone());
        Self { texts: texts.collect() }
    }

    /// Whether a NOTE says the GPU pass `label` was timed through a `PassTimer`.
    #[must_use]
    pub fn contains(&self, label: &str) -> bool {
        if self.texts.is_empty() {
            return false;
        }
        let quoted = format!("GPU pass {label:?} {TIMED_ONLY_NOTE}");
        self.texts.iter().any(|text| text.contains(&quoted))
    }
}

/// A per-frame quantity over the frames a pass ran in: `None` where it is unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerFrame {
    /// Frames the figures are over.
    pub frames: u64,
    /// The smallest value; `None` when unknown or over no frame.
    pub min: Option<u64>,
    /// The lower median; `None` when more than [`MAX_DISTINCT_VALUES`] distinct values
    /// occurred (the minimum and maximum are still exact).
    pub median: Option<u64>,
    /// The largest value; `None` when unknown or over no frame.
    pub max: Option<u64>,
}

/// Exact counts of each value, while there are at most [`MAX_DISTINCT_VALUES`] of them.
///
/// A pass's count mostly repeats from one frame to the next, so a run of one value is
/// counted apart and goes into the map when another value comes (or before the figures
/// are read): on the hour-long capture that took a map search a pass a frame for each of
/// four counts, most of `sgpt workload`'s time. Whether the values overflowed depends
/// only on how many distinct ones came, so counting a run late changes nothing.
#[derive(Clone, Debug, Default)]
struct ValueCounts {
    counts: BTreeMap<u64, u64>,
    /// The value added last and how many times in a row, not yet in `counts`.
    run: Option<(u64, u64)>,
    overflowed: bool,
    n: u64,
    min: u64,
    max: u64,
}

impl ValueCounts {
    #[inline]
    fn add(&mut self, value: u64) {
        if self.n == 0 {
            (self.min, self.max) = (value, value);
        }
        self.n += 1;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        if self.overflowed {
            return;
        }
        match &mut self.run {
            Some((last, times)) if *last == value => *times += 1,
            _ => {
                self.flush();
                self.run = Some((value, 1));
            }
        }
    }

    /// Puts the run into the map.
    fn flush(&mut self) {
        let Some((value, times)) = self.run.take() else { return };
        if self.overflowed {
            return;
        }
        *self.counts.entry(value).or_insert(0) += times;
        if self.counts.len() > MAX_DISTINCT_VALUES {
            self.overflowed = true;
            self.counts = BTreeMap::new();
        }
    }

    /// Adds the values counted by `later`, as though they had been added here.
    #[cfg(feature = "parallel")]
    fn merge(&mut self, mut later: ValueCounts) {
        if later.n == 0 {
            return;
        }
        self.flush();
        later.flush();
        (self.min, self.max) =
            if self.n == 0 { (later.min, later.max) } else { (self.min.min(later.min), self.max.max(later.max)) };
        self.n += later.n;
        // Overflowing depends only on how many distinct values came, here or there.
        self.overflowed |= later.overflowed;
        if self.overflowed {
            self.counts = BTreeMap::new();
            return;
        }
        for (value, times) in later.counts {
            *self.counts.entry(value).or_insert(0) += times;
        }
        if self.counts.len() > MAX_DISTINCT_VALUES {
            self.overflowed = true;
            self.counts = BTreeMap::new();
        }
    }

    /// The figures; the run is put into the map first.
    fn per_frame(&mut self) -> PerFrame {
        self.flush();
        if self.n == 0 {
            return PerFrame::default();
        }
        let rank = (self.n - 1) / 2;
        let median = (!self.overflowed)
            .then(|| {
                let mut below = 0;
                self.counts.iter().find_map(|(&value, &count)| {
                    below += count;
                    (below > rank).then_some(value)
                })
            })
            .flatten();
        PerFrame { frames: self.n, min: Some(self.min), median, max: Some(self.max) }
    }
}

/// Whether a pass's commands are in the capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recording {
    /// The capture records commands and this pass's are here (possibly none).
    Recorded,
    /// A NOTE says the pass was timed through a `PassTimer`: its commands never reached
    /// the recorder, so its counts are unknown, not 0.
    NotRecorded,
    /// The capture's level is below Workload: no pass's commands were recorded.
    BelowLevel,
}

impl Recording {
    /// The stable name, as `sgpt workload --json` writes it: `recorded`, `not_recorded` or
    /// `below_level`. Sentences for people belong to the text that prints them.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Recording::Recorded => "recorded",
            Recording::NotRecorded => "not_recorded",
            Recording::BelowLevel => "below_level",
        }
    }
}

/// A pipeline a pass used, as declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineUse {
    /// The declared id; `None` for commands recorded with no pipeline set.
    pub id: Option<u32>,
    /// The declaration, when the capture has it.
    pub pipeline: Option<Pipeline>,
    /// Commands recorded with it, over the frames analysed.
    pub commands: u64,
}

impl PipelineUse {
    /// `@workgroup_size`, when the pipeline is declared and its size is known.
    #[must_use]
    pub fn workgroup_size(&self) -> Option<[u32; 3]> {
        self.pipeline.as_ref().and_then(|pipeline| pipeline.workgroup_size)
    }
}

/// A direct command's arguments, as encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// A direct dispatch.
    Dispatch {
        /// Workgroups along x.
        x: u32,
        /// Workgroups along y.
        y: u32,
        /// Workgroups along z.
        z: u32,
    },
    /// A direct non-indexed draw.
    Draw {
        /// Vertices drawn per instance.
        vertices: u32,
        /// Instances drawn.
        instances: u32,
    },
    /// A direct indexed draw.
    DrawIndexed {
        /// Indices drawn per instance.
        indices: u32,
        /// Instances drawn.
        instances: u32,
    },
}

/// One distinct direct command of a pass: a shape with a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeUse {
    /// The declared pipeline id; `None` for commands recorded with no pipeline set.
    pub pipeline: Option<u32>,
    /// The encoded arguments.
    pub shape: Shape,
    /// Times recorded, over the frames analysed.
    pub commands: u64,
    /// Frames it was recorded in.
    pub frames: u64,
    /// For a dispatch: workgroups × the pipeline's workgroup size; `None` when the size is
    /// unknown (an override expression, or an undeclared pipeline) or for draws.
    pub invocations: Option<u64>,
}

/// One source of indirect arguments of a pass: *encoded* buffer and offset, and the
/// *resolved* arguments where the capture read them back (level Verbose).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndirectUse {
    /// The declared pipeline id; `None` for commands recorded with no pipeline set.
    pub pipeline: Option<u32>,
    /// `dispatch`, `draw` or `draw_indexed`.
    pub op: &'static str,
    /// The declared id of the buffer the arguments are read from, as encoded.
    pub buffer: u32,
    /// The arguments' byte offset in that buffer, as encoded.
    pub offset: u64,
    /// Times recorded.
    pub commands: u64,
    /// Of those, how many carry resolved arguments.
    pub resolved: u64,
    /// Over the resolved ones: workgroups (x·y·z) for a dispatch, the vertex or index count
    /// for a draw; `[min, max]`.
    pub resolved_count: Option<[u64; 2]>,
    /// Instances of a resolved draw, `[min, max]`; `None` for dispatches.
    pub resolved_instances: Option<[u64; 2]>,
}

/// One GPU pass's workload over the frames analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassWorkload {
    /// The GPU pass's label.
    pub label: String,
    /// The name of the graph pass that opened the GPU pass; `None` without one.
    pub graph_pass: Option<String>,
    /// The GPU pass's kind.
    pub kind: GpuPassKind,
    /// Whether its commands are in the capture; unless `Recorded`, the per-frame figures
    /// are unknown (`None`) and `invocations_unknown_frames` is 0.
    pub recording: Recording,
    /// Frames the pass ran in: its topology holds it and its graph pass was not culled.
    pub frames: u64,
    /// Dispatches (direct and indirect) per frame; unknown unless `Recorded`.
    pub dispatches: PerFrame,
    /// Draws of every kind per frame; unknown unless `Recorded`.
    pub draws: PerFrame,
    /// Indirect commands per frame.
    pub indirect: PerFrame,
    /// Invocations per frame, over the frames in which every dispatch of the pass had a
    /// known workgroup size and known (direct or resolved) workgroup counts.
    pub invocations: PerFrame,
    /// Frames in which the pass dispatched and its invocations are unknown.
    pub invocations_unknown_frames: u64,
    /// Every pipeline its commands used (every command is counted here, whether or not it
    /// made the shape lists), by id, commands with no pipeline set first.
    pub pipelines: Vec<PipelineUse>,
    /// Distinct direct commands: the first [`MAX_SHAPES`] met, most frequent first.
    pub shapes: Vec<ShapeUse>,
    /// Indirect argument sources: the first [`MAX_SHAPES`] met, ordered by pipeline, op,
    /// buffer and offset.
    pub indirect_sources: Vec<IndirectUse>,
    /// Commands in neither list because the lists were full.
    pub other_commands: u64,
    /// The render pass's attachments, as its first topology declares them.
    pub attachments: Vec<Attachment>,
}

/// What [`summarize`] found over a frame range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkloadReport {
    /// The frame indices asked for, clamped to the capture.
    pub range: Range<usize>,
    /// The capture's level, from META; `None` when META was lost or names none.
    pub level: Option<Level>,
    /// Whether the capture records commands at all: level Workload and up, or, with META
    /// lost, any frame holding a command.
    pub commands_recorded: bool,
    /// Frames analysed: the range less the frames in `defects`.
    pub frames: u64,
    /// Commands in the frames analysed, those naming a GPU pass beyond their topology left
    /// out.
    pub commands: u64,
    /// Compute and render passes, and any other pass commands name, in order of first
    /// appearance.
    pub passes: Vec<PassWorkload>,
    /// Frames that could not be decoded or whose topology was lost, skipped whole.
    pub defects: Vec<Defect>,
}

#[derive(Debug)]
struct Slot {
    key: Key,
    attachments: Vec<Attachment>,
    not_recorded: bool,
    frames: u64,
    dispatches: ValueCounts,
    draws: ValueCounts,
    indirect: ValueCounts,
    invocations: ValueCounts,
    invocations_unknown_frames: u64,
    pipelines: BTreeMap<Option<u32>, u64>,
    shapes: HashMap<(Option<u32>, Shape), ShapeTally>,
    /// Each source with the order it was first met in, as shapes keep theirs.
    indirect_sources: HashMap<IndirectKey, (usize, IndirectUse)>,
    other_commands: u64,
}

/// An indirect source: pipeline, op, buffer and offset.
type IndirectKey = (Option<u32>, &'static str, u32, u64);

/// A shape's counts so far; `last_frame` is the frame serial that last counted it, and
/// `order` how many shapes of its pass were met before it.
#[derive(Clone, Copy, Debug)]
struct ShapeTally {
    commands: u64,
    frames: u64,
    last_frame: u64,
    invocations: Option<u64>,
    // Read only where chunks are merged (the CLI's `parallel` build).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    order: usize,
}

impl Slot {
    fn new(key: Key, attachments: Vec<Attachment>, not_recorded: bool) -> Self {
        Self {
            key,
            attachments,
            not_recorded,
            frames: 0,
            dispatches: ValueCounts::default(),
            draws: ValueCounts::default(),
            indirect: ValueCounts::default(),
            invocations: ValueCounts::default(),
            invocations_unknown_frames: 0,
            pipelines: BTreeMap::new(),
            shapes: HashMap::new(),
            indirect_sources: HashMap::new(),
            other_commands: 0,
        }
    }

    /// Adds the same pass's counts from `later`, a chunk of the frames that follow: its
    /// shapes and sources join the lists in the order it met them while they hold fewer
    /// than `cap`, and count as other commands once they are full, as they would have one
    /// frame after another.
    #[cfg(feature = "parallel")]
    fn merge(&mut self, later: Slot, cap: usize) {
        self.frames += later.frames;
        self.dispatches.merge(later.dispatches);
        self.draws.merge(later.draws);
        self.indirect.merge(later.indirect);
        self.invocations.merge(later.invocations);
        self.invocations_unknown_frames += later.invocations_unknown_frames;
        for (pipeline, commands) in later.pipelines {
            *self.pipelines.entry(pipeline).or_insert(0) += commands;
        }
        self.other_commands += later.other_commands;
        let mut shapes: Vec<_> = later.shapes.into_iter().collect();
        shapes.sort_unstable_by_key(|(_, tally)| tally.order);
        for (key, tally) in shapes {
            if let Some(known) = self.shapes.get_mut(&key) {
                known.commands += tally.commands;
                known.frames += tally.frames;
            } else if self.shapes.len() < cap {
                let order = self.shapes.len();
                self.shapes.insert(key, ShapeTally { order, ..tally });
            } else {
                self.other_commands += tally.commands;
            }
        }
        let mut sources: Vec<_> = later.indirect_sources.into_iter().collect();
        sources.sort_unstable_by_key(|(_, (order, _))| *order);
        for (key, (_, source)) in sources {
            if let Some((_, known)) = self.indirect_sources.get_mut(&key) {
                known.commands += source.commands;
                known.resolved += source.resolved;
                for (range, more) in [
                    (&mut known.resolved_count, source.resolved_count),
                    (&mut known.resolved_instances, source.resolved_instances),
                ] {
                    more.into_iter().flatten().for_each(|value| widen(range, value));
                }
            } else if self.indirect_sources.len() < cap {
                let order = self.indirect_sources.len();
                self.indirect_sources.insert(key, (order, source));
            } else {
                self.other_commands += source.commands;
            }
        }
    }
}

/// This frame's tally of one pass.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    ran: bool,
    dispatches: u64,
    draws: u64,
    indirect: u64,
    invocations: Option<u64>,
}

/// Builds a [`WorkloadReport`] one frame at a time.
#[derive(Debug)]
pub struct WorkloadAccumulator<'c, 'a> {
    capture: &'c Capture<'a>,
    /// Per topology: the slot of each GPU pass (`None` for a marker or encoder pass that no
    /// command has named yet), or `None` when the topology was lost.
    tables: HashMap<TopologyId, Option<Vec<Option<u32>>>>,
    slot_of: HashMap<Key, u32>,
    slots: Vec<Slot>,
    timed_only: TimedOnly,
    range: Option<Range<usize>>,
    frames: u64,
    commands: u64,
    any_command: bool,
    defects: Vec<Defect>,
    frame: Frame,
    tally: Vec<Tally>,
    /// How many shapes and sources each pass lists, the first met: [`MAX_SHAPES`], or for a
    /// chunk of a range more, for [`WorkloadAccumulator::merge`] to know which would have
    /// come first.
    cap: usize,
    /// Whether a pass met more shapes or sources than `cap`.
    spilled: bool,
}

/// Workgroups × workgroup size, `None` when either is unknown or it overflows.
#[must_use]
pub fn invocations(workgroups: [u32; 3], workgroup_size: Option<[u32; 3]>) -> Option<u64> {
    let size = workgroup_size?;
    workgroups.iter().chain(&size).try_fold(1u64, |product, &factor| product.checked_mul(u64::from(factor)))
}

/// The workgroup counts a dispatch ran with, where known: encoded for a direct dispatch,
/// resolved for an indirect one; `None` for draws and unresolved indirect dispatches.
#[must_use]
pub fn workgroups(op: &Op) -> Option<[u32; 3]> {
    match *op {
        Op::Dispatch { x, y, z } => Some([x, y, z]),
        Op::DispatchIndirect { resolved, .. } => resolved,
        _ => None,
    }
}

fn widen(range: &mut Option<[u64; 2]>, value: u64) {
    *range = Some(match *range {
        Some([low, high]) => [low.min(value), high.max(value)],
        None => [value, value],
    });
}

impl<'c, 'a> WorkloadAccumulator<'c, 'a> {
    /// An accumulator over `capture` with no frame added yet.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        let timed_only = TimedOnly::new(capture);
        Self {
            capture,
            tables: HashMap::new(),
            slot_of: HashMap::new(),
            slots: Vec::new(),
            timed_only,
            range: None,
            frames: 0,
            commands: 0,
            any_command: false,
            defects: Vec::new(),
            frame: Frame::default(),
            tally: Vec::new(),
            cap: MAX_SHAPES,
            spilled: false,
        }
    }

    /// An accumulator for one chunk of a range, to be merged into one made by
    /// [`WorkloadAccumulator::new`]: it keeps up to [`CHUNK_SHAPES`] shapes and sources a
    /// pass, in the order it met them, and says when it met more (`spilled`).
    #[cfg(feature = "parallel")]
    fn for_chunk(capture: &'c Capture<'a>) -> Self {
        Self { cap: CHUNK_SHAPES, ..Self::new(capture) }
    }

    /// Adds `later`, a [`WorkloadAccumulator::for_chunk`] fed the frames that follow this
    /// one's, as though its frames had been added here: the passes it met first are listed
    /// after this one's, in the order it met them.
    #[cfg(feature = "parallel")]
    fn merge(&mut self, later: Self) {
        self.frames += later.frames;
        self.commands += later.commands;
        self.any_command |= later.any_command;
        self.defects.extend(later.defects);
        self.range = match (self.range.take(), later.range) {
            (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
            (a, b) => a.or(b),
        };
        for slot in later.slots {
            let at = match self.slot_of.get(&slot.key) {
                Some(&at) => at as usize,
                None => {
                    self.slot_of.insert(slot.key.clone(), self.slots.len() as u32);
                    self.slots.push(Slot::new(slot.key.clone(), slot.attachments.clone(), slot.not_recorded));
                    self.slots.len() - 1
                }
            };
            self.slots[at].merge(slot, self.cap);
        }
    }

    fn slot(&mut self, topology: TopologyId, pass: u32) -> Option<u32> {
        let topo = self.capture.topology(topology)?;
        let gpu_pass = topo.gpu_passes.get(pass as usize)?;
        let key = pass_key(topo, gpu_pass, SpanKind::Pass);
        if let Some(&slot) = self.slot_of.get(&key) {
            return Some(slot);
        }
        let not_recorded = self.timed_only.contains(&gpu_pass.label);
        let slot = self.slots.len() as u32;
        self.slots.push(Slot::new(key.clone(), gpu_pass.attachments.clone(), not_recorded));
        self.slot_of.insert(key, slot);
        Some(slot)
    }

    /// The table for topology `id`, taken out of `tables` (a frame puts it back once
    /// added, rather than copy it each frame): compute and render passes get a slot up
    /// front, so a pass that never records a command is still listed (as 0, or "not
    /// recorded"). A lost topology's `None` stays in `tables`.
    fn take_table(&mut self, id: TopologyId) -> Option<Vec<Option<u32>>> {
        if let Some(table) = self.tables.remove(&id) {
            if table.is_none() {
                self.tables.insert(id, None);
            }
            return table;
        }
        let table = self.capture.topology(id).map(|topology| {
            let kinds: Vec<GpuPassKind> = topology.gpu_passes.iter().map(|pass| pass.kind).collect();
            kinds
                .iter()
                .enumerate()
                .map(|(index, kind)| {
                    matches!(kind, GpuPassKind::Compute | GpuPassKind::Render)
                        .then(|| self.slot(id, index as u32))
                        .flatten()
                })
                .collect()
        });
        if table.is_none() {
            self.tables.insert(id, None);
        }
        table
    }

    /// Adds frame `index`. A frame that cannot be decoded, or whose topology was lost, adds
    /// nothing but a defect.
    pub fn add_frame(&mut self, index: usize) {
        let mut frame = std::mem::take(&mut self.frame);
        let result = self.capture.frame_into(index, &mut frame);
        match result {
            Ok(()) => self.add_decoded(index, &frame),
            Err(defect) => self.defects.push(defect),
        }
        self.frame = frame;
    }

    fn add_decoded(&mut self, index: usize, frame: &Frame) {
        let Some(mut table) = self.take_table(frame.topology) else {
            self.defects.push(Defect::new(
                DefectKind::MissingReference,
                self.capture.frames().get(index).map_or(0, |entry| entry.offset),
                format!("frame {} uses topology {}, which was lost; skipped", frame.frame_number, frame.topology),
            ));
            return;
        };
        let Some(topology) = self.capture.topology(frame.topology) else {
            self.tables.insert(frame.topology, Some(table));
            return;
        };
        self.tally.clear();
        self.tally.resize(table.len(), Tally::default());
        for (pass, tally) in topology.gpu_passes.iter().zip(&mut self.tally) {
            let culled = pass.graph_pass.is_some_and(|graph| frame.culled.get(graph as usize) == Some(&true));
            tally.ran = !culled;
            tally.invocations = Some(0);
        }
        let pass_count = table.len();
        for command in &frame.commands {
            let pass = command.gpu_pass as usize;
            if pass >= pass_count {
                continue; // `validate` reports a command beyond its topology.
            }
            self.any_command = true;
            self.commands += 1;
            let slot = match table[pass] {
                Some(slot) => slot,
                None => {
                    let slot = self.slot(frame.topology, command.gpu_pass);
                    table[pass] = slot;
                    match slot {
                        Some(slot) => slot,
                        None => continue,
                    }
                }
            };
            self.tally[pass].ran = true;
            self.record(slot, command);
        }
        for (pass, tally) in self.tally.iter().enumerate() {
            let Some(slot) = table[pass] else { continue };
            if !tally.ran {
                continue;
            }
            let slot = &mut self.slots[slot as usize];
            slot.frames += 1;
            slot.dispatches.add(tally.dispatches);
            slot.draws.add(tally.draws);
            slot.indirect.add(tally.indirect);
            match tally.invocations {
                Some(invocations) => slot.invocations.add(invocations),
                None => slot.invocations_unknown_frames += 1,
            }
        }
        self.tables.insert(frame.topology, Some(table));
        self.frames += 1;
        self.range = Some(match self.range.take() {
            Some(range) => range.start.min(index)..range.end.max(index + 1),
            None => index..index + 1,
        });
    }

    fn record(&mut self, slot_index: u32, command: &Command) {
        let pass = command.gpu_pass as usize;
        let workgroup_size = command.pipeline.and_then(|id| self.capture.pipeline(id)).and_then(|p| p.workgroup_size);
        let cap = self.cap;
        let tally = &mut self.tally[pass];
        let slot = &mut self.slots[slot_index as usize];
        *slot.pipelines.entry(command.pipeline).or_insert(0) += 1;
        if command.op.is_dispatch() {
            tally.dispatches += 1;
            let counted = workgroups(&command.op).and_then(|groups| invocations(groups, workgroup_size));
            tally.invocations = match (tally.invocations, counted) {
                (Some(total), Some(more)) => total.checked_add(more),
                _ => None,
            };
        } else {
            tally.draws += 1;
        }
        let shape = match command.op {
            Op::Dispatch { x, y, z } => Shape::Dispatch { x, y, z },
            Op::Draw { vertices, instances, .. } => Shape::Draw { vertices, instances },
            Op::DrawIndexed { indices, instances, .. } => Shape::DrawIndexed { indices, instances },
            Op::DispatchIndirect { indirect, resolved } => {
                tally.indirect += 1;
                let key = (command.pipeline, "dispatch", indirect.buffer, indirect.offset);
                let resolved = resolved.map(|[x, y, z]| (u64::from(x) * u64::from(y) * u64::from(z), None));
                self.spilled |= add_indirect(slot, key, resolved, cap);
                return;
            }
            Op::DrawIndirect { indexed, indirect, resolved } => {
                tally.indirect += 1;
                let op = if indexed { "draw_indexed" } else { "draw" };
                let key = (command.pipeline, op, indirect.buffer, indirect.offset);
                let resolved = resolved.map(|[count, instances]| (u64::from(count), Some(u64::from(instances))));
                self.spilled |= add_indirect(slot, key, resolved, cap);
                return;
            }
        };
        // `frames` is the serial of the frame being added: it counts frames added before it.
        let serial = self.frames;
        let key = (command.pipeline, shape);
        if let Some(entry) = slot.shapes.get_mut(&key) {
            entry.commands += 1;
            entry.frames += u64::from(entry.last_frame != serial);
            entry.last_frame = serial;
        } else if slot.shapes.len() < cap {
            let invocations = match shape {
                Shape::Dispatch { x, y, z } => invocations([x, y, z], workgroup_size),
                _ => None,
            };
            let order = slot.shapes.len();
            slot.shapes.insert(key, ShapeTally { commands: 1, frames: 1, last_frame: serial, invocations, order });
        } else {
            slot.other_commands += 1;
            self.spilled = true;
        }
    }

    /// Finishes and returns the report.
    #[must_use]
    pub fn finish(self) -> WorkloadReport {
        let level = self.capture.level();
        let commands_recorded = level.map_or(self.any_command, |level| level >= Level::Workload);
        let capture = self.capture;
        let passes = self
            .slots
            .into_iter()
            .filter(|slot| slot.frames > 0)
            .map(|mut slot| {
                let recording = if !commands_recorded {
                    Recording::BelowLevel
                } else if slot.not_recorded && slot.pipelines.is_empty() {
                    Recording::NotRecorded
                } else {
                    Recording::Recorded
                };
                let known = |counts: &mut ValueCounts| {
                    if recording == Recording::Recorded {
                        counts.per_frame()
                    } else {
                        PerFrame { frames: counts.n, ..PerFrame::default() }
                    }
                };
                let mut shapes: Vec<ShapeUse> = slot
                    .shapes
                    .into_iter()
                    .map(|((pipeline, shape), tally)| ShapeUse {
                        pipeline,
                        shape,
                        commands: tally.commands,
                        frames: tally.frames,
                        invocations: tally.invocations,
                    })
                    .collect();
                shapes.sort_by(|a, b| {
                    b.commands.cmp(&a.commands).then((a.pipeline, a.shape).cmp(&(b.pipeline, b.shape)))
                });
                let mut indirect_sources: Vec<IndirectUse> =
                    slot.indirect_sources.into_values().map(|(_, source)| source).collect();
                indirect_sources.sort_by(|a, b| {
                    (a.pipeline, a.op, a.buffer, a.offset).cmp(&(b.pipeline, b.op, b.buffer, b.offset))
                });
                let (graph_pass, label, kind, _) = slot.key;
                PassWorkload {
                    label,
                    graph_pass,
                    kind,
                    recording,
                    frames: slot.frames,
                    dispatches: known(&mut slot.dispatches),
                    draws: known(&mut slot.draws),
                    indirect: known(&mut slot.indirect),
                    invocations: if recording == Recording::Recorded {
                        slot.invocations.per_frame()
                    } else {
                        PerFrame::default()
                    },
                    invocations_unknown_frames: if recording == Recording::Recorded {
                        slot.invocations_unknown_frames
                    } else {
                        0
                    },
                    pipelines: slot
                        .pipelines
                        .into_iter()
                        .map(|(id, commands)| PipelineUse {
                            id,
                            pipeline: id.and_then(|id| capture.pipeline(id)).cloned(),
                            commands,
                        })
                        .collect(),
                    shapes,
                    indirect_sources,
                    other_commands: slot.other_commands,
                    attachments: slot.attachments,
                }
            })
            .collect();
        WorkloadReport {
            range: self.range.unwrap_or(0..0),
            level,
            commands_recorded,
            frames: self.frames,
            commands: self.commands,
            passes,
            defects: self.defects,
        }
    }
}

/// Counts an indirect command of `key`; `true` when the pass's list held `cap` sources and
/// not this one, so that it counts as another command.
fn add_indirect(slot: &mut Slot, key: IndirectKey, resolved: Option<(u64, Option<u64>)>, cap: usize) -> bool {
    let full = slot.indirect_sources.len() >= cap;
    let order = slot.indirect_sources.len();
    let Some((_, entry)) = (match slot.indirect_sources.get_mut(&key) {
        Some(entry) => Some(entry),
        None if full => None,
        None => Some(slot.indirect_sources.entry(key).or_insert((
            order,
            IndirectUse {
                pipeline: key.0,
                op: key.1,
                buffer: key.2,
                offset: key.3,
                commands: 0,
                resolved: 0,
                resolved_count: None,
                resolved_instances: None,
            },
        ))),
    }) else {
        slot.other_commands += 1;
        return true;
    };
    entry.commands += 1;
    if let Some((count, instances)) = resolved {
        entry.resolved += 1;
        widen(&mut entry.resolved_count, count);
        if let Some(instances) = instances {
            widen(&mut entry.resolved_instances, instances);
        }
    }
    false
}

/// The workload of every GPU pass over `frames`, a range of indices into
/// [`Capture::frames`] (clamped to the capture).
#[must_use]
pub fn summarize(capture: &Capture<'_>, frames: Range<usize>) -> WorkloadReport {
    let end = frames.end.min(capture.frames().len());
    let start = frames.start.min(end);
    let mut accumulator = WorkloadAccumulator::new(capture);
    for index in start..end {
        accumulator.add_frame(index);
    }
    accumulator.finish()
}

/// [`summarize`] on every core (rayon's pool): the range in a few chunks a thread, each
/// summarised apart and merged in frame order, so the report is the same. Where a chunk
/// meets more distinct command shapes than it keeps, the range is summarised in one pass.
#[cfg(feature = "parallel")]
#[must_use]
pub fn summarize_parallel(capture: &Capture<'_>, frames: Range<usize>) -> WorkloadReport {
    use rayon::prelude::*;
    let end = frames.end.min(capture.frames().len());
    let start = frames.start.min(end);
    // Four chunks a thread, as the statistics' scan takes them: a chunk keeps every shape
    // it meets, so more chunks would hold more of them at once.
    let count = (rayon::current_num_threads() * 4).clamp(1, (end - start).max(1));
    let bounds: Vec<usize> = (0..=count).map(|at| start + (end - start) * at / count).collect();
    let chunks: Vec<WorkloadAccumulator<'_, '_>> = bounds
        .par_windows(2)
        .map(|range| {
            let mut chunk = WorkloadAccumulator::for_chunk(capture);
            (range[0]..range[1]).for_each(|index| chunk.add_frame(index));
            chunk
        })
        .collect();
    if chunks.iter().any(|chunk| chunk.spilled) {
        // A chunk met more shapes than it keeps: which came first is lost, so one pass
        // counts them instead, as exactly and in memory that does not grow with frames.
        drop(chunks);
        return summarize(capture, start..end);
    }
    let mut accumulator = WorkloadAccumulator::new(capture);
    chunks.into_iter().for_each(|chunk| accumulator.merge(chunk));
    accumulator.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Declaration, GpuPass, Indirect, Meta, Note, PipelineKind, Topology};
    use crate::writer::Writer;

    fn pipeline(id: u32, workgroup_size: Option<[u32; 3]>) -> Declaration {
        Declaration::Pipeline(Pipeline {
            id,
            label: format!("pipeline {id}"),
            kind: PipelineKind::Compute,
            workgroup_size,
            ..Pipeline::default()
        })
    }

    /// A Workload capture of three compute passes ("step", "cull", "app") over `frames`,
    /// with `commands(frame index)` as each frame's commands and `notes` written at the end.
    fn write_capture(level: Level, frames: u32, commands: impl Fn(u32) -> Vec<Command>, notes: &[&str]) -> Vec<u8> {
        let meta = Meta { level: Some(level), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).unwrap();
        writer.declare(&[pipeline(0, Some([64, 1, 1])), pipeline(1, None)]).unwrap();
        let topology = Topology {
            gpu_passes: ["step", "cull", "app"]
                .into_iter()
                .map(|label| GpuPass { label: label.into(), ..GpuPass::default() })
                .collect(),
            ..Topology::default()
        };
        let id = writer.topology(&topology).unwrap();
        for f in 0..frames {
            let frame = Frame { frame_number: u64::from(f), topology: id, commands: commands(f), ..Frame::default() };
            writer.frame(&frame).unwrap();
        }
        for text in notes {
            writer.note(&Note { frame_number: 0, text: (*text).to_owned() }).unwrap();
        }
        writer.finish().unwrap()
    }

    fn dispatch(gpu_pass: u32, pipeline: u32, x: u32) -> Command {
        Command { gpu_pass, pipeline: Some(pipeline), op: Op::Dispatch { x, y: 1, z: 1 } }
    }

    fn indirect(gpu_pass: u32, resolved: Option<[u32; 3]>) -> Command {
        Command {
            gpu_pass,
            pipeline: Some(0),
            op: Op::DispatchIndirect { indirect: Indirect { buffer: 3, offset: 16 }, resolved },
        }
    }

    fn pass<'r>(report: &'r WorkloadReport, label: &str) -> &'r PassWorkload {
        report.passes.iter().find(|pass| pass.label == label).unwrap()
    }

    #[test]
    fn counts_per_frame_are_min_median_max_and_a_pass_without_commands_is_zero() {
        // Frame f dispatches f % 3 + 1 times in "step": 1, 2, 3, 1, 2.
        let bytes = write_capture(
            Level::Workload,
            5,
            |f| (0..=f % 3).map(|_| dispatch(0, 0, 10)).collect(),
            &["an unrelated note"],
        );
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..5);
        assert!(report.commands_recorded);
        assert_eq!((report.frames, report.commands), (5, 9));
        let step = pass(&report, "step");
        assert_eq!(step.recording, Recording::Recorded);
        assert_eq!(step.dispatches, PerFrame { frames: 5, min: Some(1), median: Some(2), max: Some(3) });
        assert_eq!(step.draws, PerFrame { frames: 5, min: Some(0), median: Some(0), max: Some(0) });
        // 10 workgroups × 64: 640 invocations a dispatch.
        assert_eq!(step.invocations, PerFrame { frames: 5, min: Some(640), median: Some(1280), max: Some(1920) });
        assert_eq!(step.shapes.len(), 1);
        assert_eq!((step.shapes[0].commands, step.shapes[0].frames, step.shapes[0].invocations), (9, 5, Some(640)));
        // No command and no NOTE: the pass ran and recorded none, which is 0.
        let app = pass(&report, "app");
        assert_eq!(app.recording, Recording::Recorded);
        assert_eq!(app.dispatches.max, Some(0));
    }

    #[test]
    fn an_unknown_workgroup_size_makes_invocations_unknown_never_zero() {
        let bytes = write_capture(Level::Workload, 3, |_| vec![dispatch(1, 1, 8)], &[]);
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..3);
        let cull = pass(&report, "cull");
        assert_eq!(cull.dispatches.median, Some(1));
        assert_eq!(cull.invocations, PerFrame::default());
        assert_eq!(cull.invocations_unknown_frames, 3);
        assert_eq!(cull.shapes[0].invocations, None);
        assert_eq!(cull.pipelines[0].workgroup_size(), None);
        assert_eq!(invocations([8, 1, 1], None), None);
        assert_eq!(invocations([8, 2, 1], Some([64, 1, 1])), Some(1024));
    }

    #[test]
    fn indirect_arguments_are_encoded_and_resolved_only_where_read_back() {
        // Frames 0 and 2 resolve (4 and 6 workgroups); frame 1 does not.
        let resolved = |f: u32| (f != 1).then_some([4 + f, 1, 1]);
        let bytes = write_capture(Level::Verbose, 3, |f| vec![indirect(0, resolved(f))], &[]);
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..3);
        let step = pass(&report, "step");
        let source = &step.indirect_sources[0];
        assert_eq!((source.op, source.buffer, source.offset), ("dispatch", 3, 16));
        assert_eq!((source.commands, source.resolved), (3, 2));
        assert_eq!(source.resolved_count, Some([4, 6]));
        assert_eq!(step.indirect.median, Some(1));
        // Invocations are known where resolved (4 × 64, 6 × 64), unknown in frame 1.
        assert_eq!(step.invocations, PerFrame { frames: 2, min: Some(256), median: Some(256), max: Some(384) });
        assert_eq!(step.invocations_unknown_frames, 1);

        let bytes = write_capture(Level::Workload, 2, |_| vec![indirect(0, None)], &[]);
        let capture = Capture::open(&bytes).unwrap();
        let source = pass(&summarize(&capture, 0..2), "step").indirect_sources[0].clone();
        assert_eq!((source.resolved, source.resolved_count), (0, None));
    }

    #[test]
    fn a_pass_timer_note_makes_a_pass_not_recorded_rather_than_zero() {
        let note = "sgpt-recorder: GPU pass \"app\" is begun by the application and timed through a PassTimer: its \
                    time is recorded, its commands (draws, dispatches, pipelines) are not";
        let bytes = write_capture(Level::Workload, 2, |_| vec![dispatch(0, 0, 1)], &[note]);
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..2);
        let app = pass(&report, "app");
        assert_eq!(app.recording, Recording::NotRecorded);
        assert_eq!((app.dispatches.median, app.draws.median, app.frames), (None, None, 2));
        // The note names "app" only.
        assert_eq!(pass(&report, "cull").recording, Recording::Recorded);
        assert_eq!(pass(&report, "cull").dispatches.max, Some(0));
    }

    #[test]
    fn recording_names_are_the_stable_json_names() {
        // Snake case like every other `name()`: these are what `sgpt workload --json` writes.
        let names = [Recording::Recorded, Recording::NotRecorded, Recording::BelowLevel].map(Recording::name);
        assert_eq!(names, ["recorded", "not_recorded", "below_level"]);
    }

    #[test]
    fn below_level_workload_no_pass_claims_a_count() {
        let bytes = write_capture(Level::Structure, 2, |_| Vec::new(), &[]);
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..2);
        assert!(!report.commands_recorded);
        assert!(
            report.passes.iter().all(|pass| pass.recording == Recording::BelowLevel && pass.dispatches.min.is_none())
        );
    }

    #[test]
    fn zero_and_one_frame_captures_summarise_without_inventing_figures() {
        let bytes = write_capture(Level::Workload, 0, |_| Vec::new(), &[]);
        let capture = Capture::open(&bytes).unwrap();
        let report = summarize(&capture, 0..10);
        assert_eq!((report.frames, report.passes.len(), report.range.clone()), (0, 0, 0..0));

        let bytes = write_capture(Level::Workload, 1, |_| vec![dispatch(0, 0, 2)], &[]);
        let capture = Capture::open(&bytes).unwrap();
        let step = pass(&summarize(&capture, 0..1), "step").clone();
        assert_eq!(step.dispatches, PerFrame { frames: 1, min: Some(1), median: Some(1), max: Some(1) });
    }

    /// Counts of every value, the median read off them: what [`ValueCounts`] must give
    /// however it counts runs.
    fn naive(values: &[u64]) -> PerFrame {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let distinct = sorted.windows(2).filter(|pair| pair[0] != pair[1]).count() + 1;
        let median = (distinct <= MAX_DISTINCT_VALUES).then(|| sorted[(sorted.len() - 1) / 2]);
        PerFrame { frames: values.len() as u64, min: sorted.first().copied(), median, max: sorted.last().copied() }
    }

    #[test]
    fn runs_of_one_value_count_as_each_frame_would() {
        // Runs of one value, values that alternate, and a run's value seen again later.
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        for distinct in [1, 2, 5, 300, MAX_DISTINCT_VALUES, MAX_DISTINCT_VALUES + 1] {
            let mut values = Vec::new();
            while values.len() < 20_000 {
                let value = next() % distinct as u64;
                let run = 1 + next() % 9;
                values.extend(std::iter::repeat_n(value, run as usize));
            }
            // Every value at least once, so the distinct count is the one asked for.
            values.extend(0..distinct as u64);
            let mut counts = ValueCounts::default();
            values.iter().for_each(|&value| counts.add(value));
            assert_eq!(counts.per_frame(), naive(&values), "{distinct} distinct values");
        }
    }

    /// Counts merged from parts of a sequence are the whole sequence's, the overflow
    /// included where no part alone overflows.
    #[cfg(feature = "parallel")]
    #[test]
    fn counts_merged_from_parts_are_the_whole_sequence_s() {
        let half = MAX_DISTINCT_VALUES as u64 / 2 + 10;
        // Each half under the limit, the two together over it; then both under it.
        for (first, second) in [(0..half, half..2 * half), (0..half, 5..half - 5)] {
            let values: Vec<u64> = first.clone().chain(second.clone()).flat_map(|v| [v, v, v / 2]).collect();
            let split = (first.end - first.start) as usize * 3;
            for cut in [0, 1, split, values.len() - 1, values.len()] {
                let (mut a, mut b) = (ValueCounts::default(), ValueCounts::default());
                values[..cut].iter().for_each(|&value| a.add(value));
                values[cut..].iter().for_each(|&value| b.add(value));
                a.merge(b);
                assert_eq!(a.per_frame(), naive(&values), "cut at {cut}");
            }
        }
    }

    #[test]
    fn too_many_distinct_values_keep_min_and_max_but_claim_no_median() {
        let mut counts = ValueCounts::default();
        for value in 0..=MAX_DISTINCT_VALUES as u64 {
            counts.add(value * 3);
        }
        let figure = counts.per_frame();
        assert_eq!((figure.min, figure.median, figure.max), (Some(0), None, Some(3 * MAX_DISTINCT_VALUES as u64)));
    }
}
