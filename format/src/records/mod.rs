//! One codec per record body (SGPT_FORMAT.md §3–§5): META, declarations, topologies, frames
//! and their span columns, notes and memory records.

pub(crate) mod declaration;
pub(crate) mod frame;
pub(crate) mod memory;
pub(crate) mod meta;
pub(crate) mod note;
pub(crate) mod spans;
pub(crate) mod topology;
