//! The session's own brackets' and profiled passes' records of the open frame, and the
//! commands and bindings those records name by range: held by the frame pipeline, filled
//! through the hooks of `local.rs`, emptied by the merge.

use sgpt_format::{Binding, Command};

use crate::front::{IdRun, Records, SlotRun};

/// The profiled passes' records of the open frame, and the commands and bindings their
/// records name by range. Reused frame after frame: a steady frame allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct LocalRecords {
    /// Not yet handed to the front.
    pub(super) records: Records,
    /// The slots and ids the records take, claimed a run at a time as a tree's are.
    pub(super) run: SlotRun,
    pub(super) ids: IdRun,
    /// Final but for their GPU pass index, which the merge gives.
    pub(super) commands: Vec<Command>,
    /// `command` indexes `commands` until the merge.
    pub(super) bindings: Vec<Binding>,
    /// The merge's map from `commands` to the frame's command indices.
    pub(super) remap: Vec<u32>,
}

impl LocalRecords {
    pub(super) fn clear(&mut self) {
        self.records.clear();
        self.commands.clear();
        self.bindings.clear();
    }
}
