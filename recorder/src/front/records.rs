//! What a scope records: its [`ScopeRecord`] (label, attribution, span slot) and, at level
//! Workload, its pipelines, commands and attachments, kept apart in the same buffer
//! ([`Records`]), so that the records every frame walks stay small.

use std::sync::Arc;

use arrayvec::ArrayString;
use sgpt_format::{AttachmentRole, GpuPassKind, LoadOp, Op, StoreOp};
use smallvec::SmallVec;

use crate::encoder_key::EncoderKey;

/// A record's workload index when it has none (every record at level Timing).
const NO_WORKLOAD: u32 = u32::MAX;

/// A pipeline as a front scope names it.
#[derive(Clone, Debug)]
pub(crate) enum PipelineRef {
    Compute(wgpu::ComputePipeline),
    Render(wgpu::RenderPipeline),
    /// Declared by label (one declaration per label), for code that does not hand us
    /// its pipeline object. Boxed: it is the rare one, and a record holds one inline.
    Named(Box<NamedPipeline>),
}

/// A pipeline declared by label, with its workgroup size if known.
#[derive(Clone, Debug)]
pub(crate) struct NamedPipeline {
    pub(crate) label: String,
    pub(crate) workgroup_size: Option<[u32; 3]>,
}

impl PipelineRef {
    pub(crate) fn named(label: &str, workgroup_size: Option<[u32; 3]>) -> Self {
        Self::Named(Box::new(NamedPipeline { label: label.to_owned(), workgroup_size }))
    }
}

/// A list whose first items live inline: most scopes record one pipeline and one
/// command, most render passes one or two attachments, and a scope should cost no
/// allocation for them.
pub(crate) type Few<T, const N: usize = 1> = SmallVec<[T; N]>;

/// Longest label kept inline (a label is copied per scope, and most are short).
const INLINE_LABEL: usize = 30;

/// A scope's label, copied without allocating when it is short.
#[derive(Clone, Debug)]
pub(crate) enum Label {
    Inline(ArrayString<INLINE_LABEL>),
    Heap(String),
}

impl Label {
    pub(crate) fn new(label: &str) -> Self {
        match ArrayString::from(label) {
            Ok(inline) => Self::Inline(inline),
            Err(_) => Self::Heap(label.to_owned()),
        }
    }

    /// Makes the label `label`, copied in place where it fits inline.
    #[inline]
    pub(crate) fn set(&mut self, label: &str) {
        if let Self::Inline(inline) = self {
            inline.clear();
            if inline.try_push_str(label).is_ok() {
                return;
            }
        }
        *self = Self::new(label);
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Inline(label) => label,
            Self::Heap(label) => label,
        }
    }
}

/// A render pass attachment as a profiled pass or a scope's render pass reports it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttachmentInfo {
    pub(crate) role: AttachmentRole,
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) load: LoadOp,
    pub(crate) store: StoreOp,
    pub(crate) stencil: Option<(LoadOp, StoreOp)>,
}

fn load_op<V>(op: &wgpu::LoadOp<V>) -> LoadOp {
    match op {
        wgpu::LoadOp::Load => LoadOp::Load,
        wgpu::LoadOp::Clear(_) => LoadOp::Clear,
        // Don't-care starts undefined, which a capture shown as a clear would misstate.
        wgpu::LoadOp::DontCare(_) => LoadOp::None,
    }
}

fn store_op(op: wgpu::StoreOp) -> StoreOp {
    match op {
        wgpu::StoreOp::Store => StoreOp::Store,
        wgpu::StoreOp::Discard => StoreOp::Discard,
    }
}

/// A render pass descriptor's attachments: its colour attachments (8 at most), then its
/// depth-stencil one.
pub(crate) fn attachments_of(desc: &wgpu::RenderPassDescriptor<'_>) -> Few<AttachmentInfo, 2> {
    let colors = desc.color_attachments.iter().flatten().take(8).map(|color| AttachmentInfo {
        role: AttachmentRole::Color,
        format: color.view.texture().format(),
        load: load_op(&color.ops.load),
        store: store_op(color.ops.store),
        stencil: None,
    });
    let depth = desc.depth_stencil_attachment.iter().map(|depth| {
        let (load, store) =
            depth.depth_ops.map_or((LoadOp::None, StoreOp::None), |ops| (load_op(&ops.load), store_op(ops.store)));
        AttachmentInfo {
            role: AttachmentRole::DepthStencil,
            format: depth.view.texture().format(),
            load,
            store,
            stencil: depth.stencil_ops.map(|ops| (load_op(&ops.load), store_op(ops.store))),
        }
    });
    colors.chain(depth).collect()
}

/// The graph pass a record is attributed to.
#[derive(Clone, Debug)]
pub(crate) enum GraphRef {
    /// A session bracket's index, known when the record was made.
    Index(u32),
    /// A [`super::Recorder`] scope's graph pass, by name: its index is looked up at the merge.
    Named(Arc<str>),
    /// Its parent's, for a record made in the same frame as its parent (no `Arc` to clone
    /// for each nested pass).
    Parent,
}

/// One command recorded through a scope's explicit workload calls.
#[derive(Clone, Debug)]
pub(crate) struct FrontCommand {
    /// Index into the record's `pipelines`.
    pub(crate) pipeline: Option<usize>,
    pub(crate) op: Op,
}

/// A scope's record, handed to the shared frame when the scope ends. What every record
/// has: a workload-level record's pipelines, commands and attachments sit apart, in its
/// buffer's [`Records::workloads`], so that a record is two cache lines, not five. A
/// thousand-pass frame's records are walked a few times a frame, mostly on another core
/// than the one that wrote them. Laid out in field order, the fields every walk reads
/// first (a resolve reads only the first line of each), then what the merge reads.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct ScopeRecord {
    /// Unique in the session, and in creation order among one encoder's records (ids are
    /// claimed in runs, so not across encoders): parents before their children.
    pub(crate) id: u64,
    pub(crate) encoder: EncoderKey,
    /// The enclosing scope's id.
    pub(crate) parent: Option<u64>,
    pub(crate) slot: Option<u32>,
    /// The resolve that covered it (its batch): `None` while unresolved.
    pub(crate) resolved: Option<u32>,
    pub(crate) generation: u32,
    /// Its workload's index in its buffer's workloads, or [`NO_WORKLOAD`].
    workload: u32,
    pub(crate) kind: GpuPassKind,
    /// A pass timed through a [`super::PassToken`] (the capture notes its commands may be partial).
    pub(crate) token: bool,
    pub(crate) graph_pass: Option<GraphRef>,
    pub(crate) label: Label,
}

impl ScopeRecord {
    /// A record with nothing in it yet, to be filled where it lies once pushed. Built
    /// aside first, a record is copied into its buffer as well; this one is written in place.
    #[inline(always)]
    pub(crate) fn blank() -> Self {
        Self {
            id: 0,
            generation: 0,
            encoder: 0,
            kind: GpuPassKind::Encoder,
            label: Label::Inline(ArrayString::new()),
            graph_pass: None,
            parent: None,
            slot: None,
            workload: NO_WORKLOAD,
            resolved: None,
            token: false,
        }
    }

    /// Fills a blank record's head in, where it lies.
    #[inline(always)]
    pub(crate) fn fill(&mut self, head: RecordHead<'_>) {
        let RecordHead { id, generation, encoder, kind, label, graph_pass, parent, slot } = head;
        self.id = id;
        self.generation = generation;
        self.encoder = encoder;
        self.kind = kind;
        self.label.set(label);
        self.graph_pass = graph_pass;
        self.parent = parent;
        self.slot = slot;
    }
}

/// What a new record is filled in with; the rest stays blank until its scope records it.
pub(crate) struct RecordHead<'l> {
    pub(crate) id: u64,
    pub(crate) generation: u32,
    pub(crate) encoder: EncoderKey,
    pub(crate) kind: GpuPassKind,
    pub(crate) label: &'l str,
    pub(crate) graph_pass: Option<GraphRef>,
    pub(crate) parent: Option<u64>,
    pub(crate) slot: Option<u32>,
}

/// Where a profiled pass's commands and bindings sit in the session's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct LocalRanges {
    pub(crate) commands: std::ops::Range<u32>,
    pub(crate) bindings: std::ops::Range<u32>,
}

/// What a workload-level record carries beyond its head: kept apart from the record, in
/// its buffer, and made only for a record that records some.
#[derive(Debug, Default)]
pub(crate) struct RecordWorkload {
    /// Commands and bindings a profiled pass recorded into the session's own buffers
    /// (already final, but for their GPU pass index), as ranges of those buffers.
    pub(crate) local: LocalRanges,
    /// A render pass's attachments.
    pub(crate) attachments: Few<AttachmentInfo, 2>,
    pub(crate) pipelines: Few<PipelineRef>,
    pub(crate) commands: Few<FrontCommand>,
}

/// A buffer of records, in the order they were made, and the workloads some of them
/// name. Read as a slice of records; a record's workload through [`Records::workload`].
#[derive(Debug, Default)]
pub(crate) struct Records {
    heads: Vec<ScopeRecord>,
    workloads: Vec<RecordWorkload>,
}

impl std::ops::Deref for Records {
    type Target = [ScopeRecord];

    fn deref(&self) -> &[ScopeRecord] {
        &self.heads
    }
}

impl std::ops::DerefMut for Records {
    fn deref_mut(&mut self) -> &mut [ScopeRecord] {
        &mut self.heads
    }
}

impl Records {
    /// Pushes a blank record, to be filled in where it lies: its index, and the record.
    /// Made inside `extend`, once its room is reserved, the blank is written straight into
    /// the buffer; a `push`, whose growth may unwind, builds it on the stack and copies it in.
    #[inline(always)]
    pub(crate) fn push_blank(&mut self) -> (usize, &mut ScopeRecord) {
        self.heads.extend(std::iter::once_with(ScopeRecord::blank));
        let at = self.heads.len() - 1;
        (at, &mut self.heads[at])
    }

    /// Pushes a record made aside from [`ScopeRecord::blank`], so with no workload (only a
    /// buffer gives a record one, and no record leaves its buffer).
    pub(crate) fn push(&mut self, record: ScopeRecord) {
        self.heads.push(record);
    }

    /// Room for records, reused frame after frame.
    pub(crate) fn capacity(&self) -> usize {
        self.heads.capacity()
    }

    /// Drops every record and workload, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.heads.clear();
        self.workloads.clear();
    }

    /// Record `record`'s workload, when it recorded one (`record` is of this buffer).
    #[inline]
    pub(crate) fn workload(&self, record: &ScopeRecord) -> Option<&RecordWorkload> {
        if record.workload == NO_WORKLOAD { None } else { self.workloads.get(record.workload as usize) }
    }

    /// Record `at`'s workload, made empty for it on first use.
    pub(crate) fn workload_mut(&mut self, at: usize) -> &mut RecordWorkload {
        let record = &mut self.heads[at];
        if record.workload == NO_WORKLOAD {
            record.workload = self.workloads.len() as u32;
            self.workloads.push(RecordWorkload::default());
        }
        &mut self.workloads[record.workload as usize]
    }

    /// Keeps the records of frame `generation` only (a workload left without its record
    /// stays until the buffer is cleared).
    pub(crate) fn retain_generation(&mut self, generation: u32) {
        self.heads.retain(|record| record.generation == generation);
    }

    /// Moves `other`'s records and workloads to the end of these, leaving it empty.
    pub(crate) fn append(&mut self, other: &mut Records) {
        let base = self.workloads.len() as u32;
        if base > 0 {
            for record in other.heads.iter_mut().filter(|record| record.workload != NO_WORKLOAD) {
                record.workload += base;
            }
        }
        self.heads.append(&mut other.heads);
        self.workloads.append(&mut other.workloads);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(records: &mut Records, id: u64, generation: u32) -> usize {
        let (at, record) = records.push_blank();
        record.id = id;
        record.generation = generation;
        at
    }

    fn one_command(records: &mut Records, at: usize, vertices: u32) {
        let op = Op::Draw { vertices, instances: 1, first_vertex: 0, first_instance: 0 };
        records.workload_mut(at).commands.push(FrontCommand { pipeline: None, op });
    }

    fn vertices(records: &Records, at: usize) -> Option<u32> {
        let workload = records.workload(&records[at])?;
        match workload.commands.first()?.op {
            Op::Draw { vertices, .. } => Some(vertices),
            _ => None,
        }
    }

    #[test]
    fn a_record_has_no_workload_until_it_records_one_and_keeps_its_own_when_appended() {
        let mut first = Records::default();
        let a = record(&mut first, 1, 7);
        let b = record(&mut first, 2, 7);
        one_command(&mut first, b, 3);
        assert_eq!((vertices(&first, a), vertices(&first, b)), (None, Some(3)));
        assert!(first.workload(&first[a]).is_none(), "a record at level Timing makes none");

        let mut second = Records::default();
        let c = record(&mut second, 3, 7);
        let d = record(&mut second, 4, 7);
        one_command(&mut second, d, 5);
        one_command(&mut second, c, 4);
        first.append(&mut second);
        assert!(second.is_empty());
        let drawn: Vec<Option<u32>> = (0..first.len()).map(|at| vertices(&first, at)).collect();
        assert_eq!(drawn, [None, Some(3), Some(4), Some(5)], "each record finds its own after the move");
    }

    #[test]
    fn a_record_without_its_workload_is_two_cache_lines() {
        // Every walk of a frame's records reads them whole, mostly on another core than the
        // one that wrote them: the workload lists alone would make a record five lines.
        assert!(size_of::<ScopeRecord>() <= 128, "{} bytes", size_of::<ScopeRecord>());
    }

    #[test]
    fn records_of_another_frame_are_left_out_and_the_rest_keep_their_workloads() {
        let mut records = Records::default();
        for (id, generation) in [(1, 1), (2, 2), (3, 1)] {
            let at = record(&mut records, id, generation);
            one_command(&mut records, at, id as u32);
        }
        records.retain_generation(1);
        let kept: Vec<(u64, Option<u32>)> =
            (0..records.len()).map(|at| (records[at].id, vertices(&records, at))).collect();
        assert_eq!(kept, [(1, Some(1)), (3, Some(3))]);
        records.clear();
        assert!(records.is_empty() && records.workloads.is_empty());
    }
}
