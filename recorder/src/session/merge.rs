//! The merge at `end_frame`: the shared front's records, in resolve-batch order, become
//! the frame's GPU passes (each after its parent, attributed to its graph pass), its spans
//! with the slots they are read back from, and its commands. It runs once per record of
//! every frame, so its loop is kept to what a record needs: a plain record (no commands,
//! as every record at level Timing) costs a parent lookup, a structure comparison and two
//! pushes.

use std::sync::Arc;

use sgpt_format::{Binding, Command, Frame, GpuPassKind, Op, Span, SpanKind};

use super::local_state::LocalRecords;
use super::structure::Structure;
use crate::front::{FrontTaken, GraphRef, LateCommands, PipelineRef, RecordWorkload, ScopeRecord};
use crate::workload::Registry;

/// Where a span's queries are written, and whether the encoder that wrote them resolved them.
#[derive(Clone, Copy, Debug)]
pub(super) struct SpanSlot {
    /// The slot's index in the timer set: queries `2 * slot` and `2 * slot + 1`.
    pub(super) slot: u32,
    pub(super) resolved: bool,
}

/// The merge's buffers, kept across frames so that no frame allocates them.
#[derive(Debug, Default)]
pub(super) struct MergeBuffers {
    /// The open ancestors of the record being merged.
    ancestors: Vec<Merged>,
    /// Every record merged this frame, for a parent that is not an open ancestor.
    merged: Vec<Merged>,
}

/// A record merged into the frame: its GPU pass index and graph pass, for the records
/// nested in it.
#[derive(Clone, Copy, Debug)]
struct Merged {
    id: u64,
    index: u32,
    bracket: Option<u32>,
}

/// One frame's merge: what its records are merged into.
pub(super) struct Merge<'a> {
    pub(super) structure: &'a mut Structure,
    pub(super) registry: &'a mut Registry,
    /// The profiled passes' commands, moved into the frame as their records merge.
    pub(super) local: &'a mut LocalRecords,
    pub(super) buffers: &'a mut MergeBuffers,
    pub(super) frame: &'a mut Frame,
    pub(super) slots: &'a mut Vec<SpanSlot>,
    /// The frame's timer set, when it has one: only then does a slot become a span.
    pub(super) set_id: Option<u8>,
}

/// A merge under way: the merge, and what it learns record by record.
struct Merging<'m, 'a> {
    merge: Merge<'m>,
    late: &'a [LateCommands],
    /// Consecutive records mostly name the same graph pass (one `Arc`): looked up once.
    last_graph: Option<(&'a Arc<str>, u32)>,
    /// The labels of passes timed through a pass token that recorded no command (rare:
    /// empty, so unallocated, in nearly every frame).
    timed_only: Vec<&'a str>,
}

impl Merge<'_> {
    /// Merges `taken`'s records in merge order. Returns the labels of the passes timed
    /// through a token that recorded no command, in merge order.
    pub(super) fn run(self, taken: &FrontTaken) -> Vec<&str> {
        self.buffers.ancestors.clear();
        self.buffers.merged.clear();
        self.local.remap.clear();
        self.local.remap.resize(self.local.commands.len(), u32::MAX);
        let mut merging = Merging { merge: self, late: &taken.late, last_graph: None, timed_only: Vec::new() };
        taken.each_in_merge_order(|record, workload| merging.add(record, workload));
        merging.timed_only
    }
}

impl<'a> Merging<'_, 'a> {
    /// The merged parent of a record nested in scope `id`. A record merges after its
    /// parent: within an encoder's records, which come in creation order, after its
    /// parent's other descendants (scopes on one encoder nest), so the parent is one of the
    /// open ancestors. Anything else (a child handed over after its encoder was resolved)
    /// is looked up among every record merged.
    #[inline(always)]
    fn parent(&mut self, id: u64) -> Option<Merged> {
        let MergeBuffers { ancestors, merged } = &mut *self.merge.buffers;
        while let Some(open) = ancestors.last() {
            if open.id == id {
                return Some(*open);
            }
            ancestors.pop();
        }
        merged.iter().rev().find(|known| known.id == id).copied()
    }

    /// Merges one record: its GPU pass, its span and slot, its commands.
    #[inline(always)]
    fn add(&mut self, record: &'a ScopeRecord, workload: Option<&'a RecordWorkload>) {
        let parent = match record.parent {
            None => {
                self.merge.buffers.ancestors.clear();
                None
            }
            Some(id) => self.parent(id),
        };
        let bracket = match &record.graph_pass {
            None => None,
            Some(GraphRef::Index(index)) => Some(*index),
            Some(GraphRef::Named(name)) => Some(match self.last_graph {
                Some((last, index)) if Arc::ptr_eq(last, name) => index,
                _ => {
                    let index = self.merge.structure.front_graph_pass(name);
                    self.last_graph = Some((name, index));
                    index
                }
            }),
            // Made in the same frame as its parent, which is merged before it.
            Some(GraphRef::Parent) => parent.and_then(|parent| parent.bracket),
        };
        let index = self.merge.structure.register(
            record.kind,
            record.label.as_str(),
            parent.map(|parent| parent.index),
            workload.map_or(&[], |workload| &workload.attachments[..]),
            bracket,
        );
        let this = Merged { id: record.id, index, bracket };
        self.merge.buffers.ancestors.push(this);
        self.merge.buffers.merged.push(this);
        if let (Some(slot), Some(query_set)) = (record.slot, self.merge.set_id) {
            let kind = if record.kind == GpuPassKind::Marker { SpanKind::SubPass } else { SpanKind::Pass };
            self.merge.frame.spans.push(Span { pass: index, kind, query_set, begin_ns: 0, end_ns: 0 });
            self.merge.slots.push(SpanSlot { slot, resolved: record.resolved.is_some() });
        }
        // Most records (all at level Timing) have no workload and no late commands:
        // nothing to walk.
        let any = workload.is_some_and(|workload| move_local(self.merge.local, workload, index, self.merge.frame));
        let any = (workload.is_some() || !self.late.is_empty())
            && merge_commands(self.merge.registry, record, workload, self.late, index, self.merge.frame)
            || any;
        if record.token && !any {
            self.timed_only.push(record.label.as_str());
        }
    }
}

/// Moves a profiled pass's commands and bindings, recorded into the session's buffers,
/// into `frame` as GPU pass `index`'s, noting where each command went. Whether it had any.
fn move_local(local: &mut LocalRecords, workload: &RecordWorkload, index: u32, frame: &mut Frame) -> bool {
    let (commands, bindings) = (workload.local.commands.clone(), workload.local.bindings.clone());
    let base = frame.commands.len() as u32;
    for (at, command) in commands.clone().zip(&local.commands[commands.start as usize..commands.end as usize]) {
        local.remap[at as usize] = base + (at - commands.start);
        frame.commands.push(Command { gpu_pass: index, ..*command });
    }
    for binding in &local.bindings[bindings.start as usize..bindings.end as usize] {
        let command = base + (binding.command - commands.start);
        frame.bindings.push(Binding { command, ..*binding });
    }
    !commands.is_empty()
}

/// Adds a scope's workload calls, and those its token handed over late, to `frame` as GPU
/// pass `index`'s, each pipeline by its registry id. Whether it had any.
fn merge_commands(
    registry: &mut Registry,
    record: &ScopeRecord,
    workload: Option<&RecordWorkload>,
    late: &[LateCommands],
    index: u32,
    frame: &mut Frame,
) -> bool {
    let mut any = false;
    let own = workload.map(|workload| (&workload.pipelines, &workload.commands));
    let later = late.iter().filter(|late| late.id == record.id).map(|late| (&late.pipelines, &late.commands));
    for (pipelines, commands) in own.into_iter().chain(later) {
        for command in commands {
            any = true;
            let render = matches!(command.op, Op::Draw { .. } | Op::DrawIndexed { .. } | Op::DrawIndirect { .. });
            let pipeline = command.pipeline.and_then(|at| pipelines.get(at)).map(|pipeline| match pipeline {
                PipelineRef::Compute(pipeline) => registry.compute_id(pipeline),
                PipelineRef::Render(pipeline) => registry.render_id(pipeline),
                PipelineRef::Named(named) => registry.named_id(&named.label, render, named.workgroup_size),
            });
            frame.commands.push(Command { gpu_pass: index, pipeline, op: command.op });
        }
    }
    any
}
