//! The merge at `end_frame`: the shared front's records, in resolve-batch order, become
//! the frame's GPU passes (each after its parent, attributed to its graph pass), its spans
//! with the slots they are read back from, and its commands. It runs once per record of
//! every frame, so its loop is kept to what a record needs: a plain record (no commands,
//! as every record at level Timing) costs a parent lookup, a structure comparison and two
//! pushes.

use std::sync::Arc;

use sgpt_format::{Binding, Command, Frame, GpuPassKind, Op, Span, SpanKind};

use super::local_state::LocalRecords;
use super::pipeline::{Active, PendingFrame, SpanSlot};
use super::structure::Structure;
use crate::front::{FrontTaken, GraphRef, LateCommands, PipelineRef, ScopeRecord};
use crate::workload::Registry;

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

/// One frame's merge, holding what each record is merged into.
struct Merge<'a> {
    structure: &'a mut Structure,
    registry: &'a mut Registry,
    local: &'a mut LocalRecords,
    buffers: &'a mut MergeBuffers,
    frame: &'a mut Frame,
    slots: &'a mut Vec<SpanSlot>,
    late: &'a [LateCommands],
    /// The frame's timer set, when it has one: only then does a slot become a span.
    set_id: Option<u8>,
    /// Consecutive records mostly name the same graph pass (one `Arc`): looked up once.
    last_graph: Option<(&'a Arc<str>, u32)>,
    /// Whether a record timed through a pass token recorded no command (noted after).
    timed_only: bool,
}

impl<'a> Merge<'a> {
    /// The merged parent of a record nested in scope `id`. A record merges after its
    /// parent: within an encoder's records, which come in creation order, after its
    /// parent's other descendants (scopes on one encoder nest), so the parent is one of the
    /// open ancestors. Anything else (a child handed over after its encoder was resolved)
    /// is looked up among every record merged.
    #[inline(always)]
    fn parent(&mut self, id: u64) -> Option<Merged> {
        let MergeBuffers { ancestors, merged } = &mut *self.buffers;
        while let Some(open) = ancestors.last() {
            if open.id == id {
                return Some(*open);
            }
            ancestors.pop();
        }
        merged.iter().rev().find(|known| known.id == id).copied()
    }

    #[inline(always)]
    fn add(&mut self, record: &'a ScopeRecord) {
        let parent = match record.parent {
            None => {
                self.buffers.ancestors.clear();
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
                    let index = self.structure.front_graph_pass(name);
                    self.last_graph = Some((name, index));
                    index
                }
            }),
            // Made in the same frame as its parent, which is merged before it.
            Some(GraphRef::Parent) => parent.and_then(|parent| parent.bracket),
        };
        let index = self.structure.register(
            record.kind,
            record.label.as_str(),
            parent.map(|parent| parent.index),
            &record.attachments,
            bracket,
        );
        let this = Merged { id: record.id, index, bracket };
        self.buffers.ancestors.push(this);
        self.buffers.merged.push(this);
        if let (Some(slot), Some(query_set)) = (record.slot, self.set_id) {
            let kind = if record.kind == GpuPassKind::Marker { SpanKind::SubPass } else { SpanKind::Pass };
            self.frame.spans.push(Span { pass: index, kind, query_set, begin_ns: 0, end_ns: 0 });
            self.slots.push(SpanSlot { slot, resolved: record.resolved.is_some() });
        }
        // Most records (all at level Timing) have no commands: nothing to walk.
        let local_any = !record.local.commands.is_empty() || !record.local.bindings.is_empty();
        let any = local_any && move_local(self.local, record, index, self.frame);
        let any = (!record.commands.is_empty() || !self.late.is_empty())
            && merge_commands(self.registry, record, self.late, index, self.frame)
            || any;
        self.timed_only |= record.token && !any;
    }
}

impl Active {
    /// Closes the front's frame and merges its scopes into `pending`, encoder batch by
    /// batch in resolve order. Returns the slots claimed in the frame by both fronts.
    pub(super) fn merge_front(&mut self, pending: &mut PendingFrame) -> u32 {
        let taken = self.front.close_frame();
        let (claimed, unused) = (taken.claimed, taken.unused);
        pending.frame.dropped_spans += taken.refused;
        // Slots handed to scopes; the rest of the trees' runs had none.
        let handed = claimed - unused;
        if taken.is_empty() {
            pending.frame.dropped_spans += handed.saturating_sub(pending.slots.len() as u32);
            // The buffers go back all the same: an empty frame keeps their capacity.
            self.front.recycle(taken.records, taken.order);
            return claimed;
        }
        self.merge.ancestors.clear();
        self.merge.merged.clear();
        // The profiled passes' commands, moved into the frame as their records merge.
        self.local.remap.clear();
        self.local.remap.resize(self.local.commands.len(), u32::MAX);
        let mut merge = Merge {
            structure: &mut self.structure,
            registry: &mut self.registry,
            local: &mut self.local,
            buffers: &mut self.merge,
            frame: &mut pending.frame,
            slots: &mut pending.slots,
            late: &taken.late,
            set_id: pending.set.and_then(|set| self.pool.as_ref().map(|pool| pool.sets[set].id)),
            last_graph: None,
            timed_only: false,
        };
        taken.each_in_merge_order(|record| merge.add(record));
        if merge.timed_only {
            self.note_timed_only(&taken, pending.frame.frame_number);
        }
        // Indirect read-backs name their command by its local index until now.
        for copy in &mut pending.indirect {
            copy.command = self.local.remap.get(copy.command as usize).copied().unwrap_or(u32::MAX);
        }
        self.local.clear();
        let FrontTaken { records, order, .. } = taken;
        self.front.recycle(records, order);
        // A slot claimed with no span: its scope had not ended (or its record came too
        // late) at end_frame. It has no timestamps: dropped, and counted.
        pending.frame.dropped_spans += handed.saturating_sub(pending.slots.len() as u32);
        claimed
    }

    /// Notes each pass timed through a token that recorded no command (rare: walked again
    /// only when the merge saw one).
    fn note_timed_only(&mut self, taken: &FrontTaken, frame_number: u64) {
        let mut labels = Vec::new();
        taken.each_in_merge_order(|record| {
            let late = taken.late.iter().filter(|late| late.id == record.id);
            let any = !record.local.commands.is_empty()
                || !record.commands.is_empty()
                || late.into_iter().any(|late| !late.commands.is_empty());
            if record.token && !any {
                labels.push(record.label.as_str());
            }
        });
        for label in labels {
            self.timed_only_at(label, frame_number);
        }
    }
}

/// Moves a profiled pass's commands and bindings, recorded into the session's buffers,
/// into `frame` as GPU pass `index`'s, noting where each command went. Whether it had any.
fn move_local(local: &mut LocalRecords, record: &ScopeRecord, index: u32, frame: &mut Frame) -> bool {
    let (commands, bindings) = (record.local.commands.clone(), record.local.bindings.clone());
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
    late: &[LateCommands],
    index: u32,
    frame: &mut Frame,
) -> bool {
    let mut any = false;
    let own = std::iter::once((&record.pipelines, &record.commands));
    let later = late.iter().filter(|late| late.id == record.id).map(|late| (&late.pipelines, &late.commands));
    for (pipelines, commands) in own.chain(later) {
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
