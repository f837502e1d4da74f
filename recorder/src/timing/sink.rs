//! The port: what a timing sink implements.

use super::entry::{Drained, Entry, Retention};
use super::level::TimingLevel;

/// Receives entries from the hub. The hub calls it only when the level is not `off`.
///
/// The browser sink writes to DevTools; [`super::Collector`] keeps entries natively.
pub trait TimingSink: Send + Sync {
    /// One entry, at `level` (`Trace` or `Full`).
    fn emit(&self, level: TimingLevel, entry: &Entry<'_>);

    /// The retained entries, removed from retention; only this sink's own entries.
    fn drain(&self) -> Vec<Drained> {
        Vec::new()
    }

    fn retention(&self) -> Retention {
        Retention::default()
    }
}
