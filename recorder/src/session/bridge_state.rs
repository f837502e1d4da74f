//! The wgpu-profiler bridge's state (feature `wgpu-profiler`): what the session keeps of it
//! and what each pending frame holds, with the rules that need nothing else of the session
//! (how results are flattened, whether a frame still waits, the closing NOTE's text).
//! [`super::bridge`] drives it from the session's frame pipeline.

use sgpt_format::Topology;
use wgpu_profiler::GpuTimerQueryResult;

/// Frames ended after a frame whose results are out before it is written without them.
/// wgpu-profiler keeps at most `max_num_pending_frames` (3 by default) frames pending, so
/// results handed over every frame arrive well inside this.
pub(crate) const HOLD_FRAMES: usize = 8;

/// The label of the query set the bridged spans are written on.
pub(super) const QUERY_SET_LABEL: &str = "wgpu-profiler (bridge)";

/// One wgpu-profiler scope of a finished frame, flattened: parents before their children.
#[derive(Clone, Debug)]
pub(crate) struct BridgedScope {
    pub(super) label: String,
    /// The enclosing scope's index in the same frame's list.
    pub(super) parent: Option<u32>,
    /// Begin and end in ns on wgpu-profiler's query sets' clock; `None` where wgpu-profiler
    /// wrote no timestamps for the scope (its timer queries off, or the device lacks them).
    pub(super) time: Option<(u64, u64)>,
}

/// What a pending frame holds of the bridge.
#[derive(Debug, Default)]
pub(crate) struct BridgedFrame {
    /// Profiler frames that ended in this session frame, and how many of them arrived.
    pub(super) expected: u32,
    pub(super) arrived: u32,
    /// Profiler frames of this one that wgpu-profiler dropped before finishing them.
    pub(super) dropped: u32,
    pub(super) scopes: Vec<BridgedScope>,
    /// The frame's topology as written at `end_frame`, extended at the write.
    pub(super) base: Option<Topology>,
}

impl BridgedFrame {
    pub(crate) fn clear(&mut self) {
        self.expected = 0;
        self.arrived = 0;
        self.dropped = 0;
        self.scopes.clear();
        self.base = None;
    }

    pub(super) fn waiting(&self) -> bool {
        self.arrived + self.dropped < self.expected
    }
}

/// The session's bridge state.
#[derive(Debug, Default)]
pub(crate) struct Bridge {
    /// The session frames that profiler frames ended in, oldest first, results not yet in.
    pub(super) awaited: std::collections::VecDeque<u64>,
    /// Once the session stops no frame is held: nothing more may arrive.
    pub(super) stopping: bool,
    /// The query set id of the bridged spans, once declared.
    pub(super) query_set: Option<u8>,
    pub(super) noted: bool,
    /// Frames written before (some of) their results arrived, and the first of them.
    pub(super) missing: Tally,
    /// Results that arrived for a frame already written.
    pub(super) late: Tally,
    /// Profiler frames wgpu-profiler dropped unfinished (it had too many pending).
    pub(super) dropped: Tally,
    /// Results for which no profiler frame had been announced.
    pub(super) unannounced: u64,
    /// Scopes wgpu-profiler returned without timestamps.
    pub(super) untimed: u64,
}

/// How often something happened, and on which frame first.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) count: u64,
    pub(super) first: Option<u64>,
}

impl Tally {
    pub(super) fn add(&mut self, frame_number: u64) {
        self.count += 1;
        self.first.get_or_insert(frame_number);
    }
}

/// Flattens a finished frame's result trees into `out`, parents before their children.
pub(super) fn flatten(results: Vec<GpuTimerQueryResult>, parent: Option<u32>, out: &mut Vec<BridgedScope>) {
    for result in results {
        let at = out.len() as u32;
        // wgpu-profiler turned raw ticks × period into seconds; back to ns on the same clock.
        let time = result.time.map(|time| (seconds_to_ns(time.start), seconds_to_ns(time.end)));
        out.push(BridgedScope { label: result.label, parent, time });
        flatten(result.nested_queries, Some(at), out);
    }
}

fn seconds_to_ns(seconds: f64) -> u64 {
    (seconds * 1e9).round().max(0.0) as u64
}

impl Bridge {
    /// The closing NOTE: every frame written without its results, every result that came
    /// too late or for no frame, and the scopes with no timestamps.
    pub(crate) fn closing_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        let mut tally = |what: &str, tally: &Tally| {
            if let Some(first) = tally.first {
                parts.push(format!("{} {what} (the first frame {first})", tally.count));
            }
        };
        tally(
            "frame(s) were written before their wgpu-profiler results arrived; their bridged spans are missing",
            &self.missing,
        );
        tally("wgpu-profiler result set(s) arrived after their frame was written and were not recorded", &self.late);
        tally("wgpu-profiler frame(s) were dropped by wgpu-profiler unfinished (too many pending)", &self.dropped);
        if self.unannounced > 0 {
            parts.push(format!(
                "{} wgpu-profiler result set(s) came with no profiler frame announced and were not recorded",
                self.unannounced
            ));
        }
        if !self.awaited.is_empty() {
            parts.push(format!("{} profiler frame(s) had no results when the session stopped", self.awaited.len()));
        }
        if self.untimed > 0 {
            parts.push(format!("{} bridged scope(s) had no timestamps and have no span", self.untimed));
        }
        (!parts.is_empty()).then(|| format!("sgpt-recorder: wgpu-profiler bridge: {}", parts.join("; ")))
    }
}
