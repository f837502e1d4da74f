//! What the session's own brackets and profiled passes (`pass.rs`) record into: records of
//! the shared front ([`crate::front::ScopeRecord`]), so that one merge orders every GPU
//! pass of a frame whichever front began it. They hold `&mut ProfileSession`, so their
//! records, commands and bindings are kept here without a lock and handed to the front
//! in one go when an encoder is resolved or the frame ends.

use sgpt_format::{Binding, Command, GpuPassKind, Level, Op};

use super::pipeline::{Active, IndirectCopy};
use crate::encoder_key::EncoderKey;
use crate::front::{self, AttachmentInfo, Few, GraphRef, LocalRanges, RecordHead};

/// A record the profiled passes opened: where it sits until it is handed over.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalPass {
    /// Its index in the session's local records (`LocalRecords::records`).
    at: usize,
    /// Its record's id, for the records nested in it.
    pub(crate) id: u64,
    /// Its span's begin query and timer set, when it was given a slot.
    pub(crate) slot: Option<(u32, usize)>,
}

impl LocalPass {
    /// The queries to write at begin and end, when the record has a span.
    pub(crate) fn queries(self) -> Option<(u32, u32, usize)> {
        self.slot.map(|(slot, set)| (slot * 2, slot * 2 + 1, set))
    }
}

/// What the brackets and profiled passes ask of the recording state.
impl Active {
    /// Opens a record of kind `kind` on `encoder`, attributed to the open bracket, and
    /// claims its span where `timed` and the device can time it. A pass without a label
    /// takes its bracket's name.
    pub(crate) fn begin_local(
        &mut self,
        kind: GpuPassKind,
        label: Option<&str>,
        parent: Option<u64>,
        encoder: EncoderKey,
        timed: bool,
    ) -> Option<LocalPass> {
        let timed = timed && front::can_time(&self.front, kind);
        let (generation, slot) = front::claim_span_in(&self.front, timed, Some(&mut self.local.run))?;
        let label = label.unwrap_or_else(|| self.structure.unlabeled(kind));
        let id = self.front.local_id(&mut self.local.ids);
        let graph_pass = self.structure.graph_pass().map(GraphRef::Index);
        let (at, record) = self.local.records.push_blank();
        let slot_at = slot.map(|(slot, _)| slot);
        record.fill(RecordHead { id, generation, encoder, kind, label, graph_pass, parent, slot: slot_at });
        Some(LocalPass { at, id, slot })
    }

    /// Marks a record as a pass the application begins itself: the capture notes that its
    /// commands were not recorded.
    pub(crate) fn local_token(&mut self, pass: LocalPass) {
        if let Some(record) = self.local.records.get_mut(pass.at) {
            record.token = true;
        }
    }

    /// Gives a render pass's record its attachments (the caller reads them only at level
    /// Workload and up, as the handle's render passes do).
    pub(crate) fn local_attachments(&mut self, pass: LocalPass, attachments: Few<AttachmentInfo, 2>) {
        if pass.at < self.local.records.len() {
            self.local.records.workload_mut(pass.at).attachments = attachments;
        }
    }

    /// Records `op` of `pass`, with the bind groups set at `Verbose`; returns its index in
    /// the local commands, for an indirect read-back.
    #[inline]
    pub(crate) fn record(&mut self, pass: LocalPass, pipeline: Option<u32>, op: Op, groups: &[Option<u32>]) -> u32 {
        let local = &mut self.local;
        let command = local.commands.len() as u32;
        let bindings = local.bindings.len() as u32;
        // The GPU pass index is the merge's to give.
        local.commands.push(Command { gpu_pass: 0, pipeline, op });
        if self.level >= Level::Verbose {
            for (group, bind_group) in groups.iter().enumerate() {
                if let Some(bind_group) = *bind_group {
                    local.bindings.push(Binding { command, group: group as u32, bind_group });
                }
            }
        }
        if pass.at < local.records.len() {
            // A pass's commands are contiguous: no other profiled pass is open meanwhile, so
            // its ranges begin where its first command went.
            let ranges = &mut local.records.workload_mut(pass.at).local;
            if ranges.commands.is_empty() && ranges.bindings.is_empty() {
                *ranges = LocalRanges { commands: command..command, bindings: bindings..bindings };
            }
            ranges.commands.end = local.commands.len() as u32;
            ranges.bindings.end = local.bindings.len() as u32;
        }
        command
    }

    /// At `Verbose`, schedules the read-back of an indirect call's arguments (`command`:
    /// its index in the local commands).
    pub(crate) fn resolve_indirect(
        &mut self,
        encoder: EncoderKey,
        command: u32,
        buffer: &wgpu::Buffer,
        offset: u64,
        len: u64,
    ) {
        let Some(open) = self.open.as_mut() else { return };
        let Some(pool) = self.pool.as_ref() else { return };
        // Reading needs COPY_SRC on the application's buffer; without it the count stays
        // *encoded* only.
        if open.set.is_none()
            || open.indirect.len() as u32 >= pool.indirect_slots
            || !buffer.usage().contains(wgpu::BufferUsages::COPY_SRC)
        {
            return;
        }
        open.indirect.push(IndirectCopy { encoder, resolved: false, command, buffer: buffer.clone(), offset, len });
    }

    /// The timer set `set`'s query set.
    #[inline]
    pub(crate) fn front_query_set(&self, set: usize) -> Option<&wgpu::QuerySet> {
        self.front.query_set(set)
    }

    /// Hands the profiled passes' records to the front, for a resolve or the frame's end.
    pub(super) fn hand_over_local(&mut self) {
        self.front.hand_over_local(&mut self.local.records, &mut self.local.run);
    }
}
