//! What the page asks of the session that owns the open capture: commands go down, and
//! what they produce comes back up as [`super::Update`] values.

use crate::search::{ItemKind, Place};

/// One request from the page. Frame and range values are indices into the capture's frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Show frame index `usize` in the timeline and the frame views.
    Frame(usize),
    /// Compute statistics (and the range views) over frame indices `first..=last`.
    Range(usize, usize),
    /// Select GPU pass (index into the shown frame's topology), or none.
    Pass(Option<u32>),
    /// Build the range flame graph over the range, and again whenever the range changes.
    Icicle,
    /// Show a search result: a frame where it is, and it selected there. `places` are the
    /// topologies that hold it, each with its index there.
    Reveal { kind: ItemKind, places: Vec<Place> },
    /// Show the pass of a statistics row (its key) where it runs, selected.
    RevealPass(crate::histogram::PassKey),
    /// Compare two ranges of frame indices.
    Compare((usize, usize), (usize, usize)),
    /// Export the capture as Chrome Trace JSON.
    Export,
    /// A newer file was opened: stop and free everything.
    Close,
}

/// What the link (the URL hash) asked to show, in frame numbers as the link holds them;
/// given to the session when it is spawned, so it never reads the page's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Restore {
    pub frame: Option<u64>,
    pub range: Option<(u64, u64)>,
    pub compare: Option<((u64, u64), (u64, u64))>,
    /// A GPU pass index in the restored frame's topology.
    pub pass: Option<u32>,
    /// Compare at once (the Compare view is shown, or the link names the ranges); else
    /// the comparison waits until the view is first shown, as its samples cost memory
    /// in proportion to the frames. Against a baseline it always runs.
    pub compare_now: bool,
}
