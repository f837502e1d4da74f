//! What a sink is handed, and what a drain hands back.

use super::track::{Color, Track};

/// The most entries of ours the `full` level keeps before a drain: about 15 s of the demo
/// at 60 fps (~18 entries a frame). User Timing retains without bound, so at ~2,800
/// entries a second an undrained session would be a leak; past the cap new
/// entries are dropped and counted (see [`Retention`]).
pub const RETAINED_CAP: usize = 16_384;

/// One timing entry, handed to a [`super::TimingSink`]. A span when `end_ms > start_ms`
/// or [`EntryKind::Span`]; a marker is an instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry<'a> {
    pub kind: EntryKind,
    pub name: &'a str,
    pub track: Track,
    /// Milliseconds on the timing clock (the page's time origin in a browser).
    pub start_ms: f64,
    pub end_ms: f64,
    pub color: Color,
    /// Shown in DevTools' summary of the entry, and returned by a drain.
    pub properties: &'a [(&'static str, f64)],
    pub tooltip: Option<&'a str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// An interval: a User Timing measure at `full`.
    Span,
    /// An instant: a User Timing mark at `full`.
    Marker,
}

/// A retained entry, read back by a drain: plain data, sorted by start.
#[derive(Clone, Debug, PartialEq)]
pub struct Drained {
    pub name: String,
    pub track: String,
    pub start_ms: f64,
    pub duration_ms: f64,
    pub properties: Vec<(String, f64)>,
}

/// How much of its retention cap a sink holds, and what it refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retention {
    /// Entries of ours retained since the last drain.
    pub retained: usize,
    /// Entries refused because [`RETAINED_CAP`] was reached, since the sink was attached.
    pub dropped: u64,
    pub cap: usize,
}
