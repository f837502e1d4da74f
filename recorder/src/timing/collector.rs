//! The native sink: keeps entries in memory, for tests and for `sgpt-demo`.

use std::sync::{Arc, Mutex, PoisonError};

use super::entry::{Drained, Entry, EntryKind, RETAINED_CAP, Retention};
use super::level::TimingLevel;
use super::sink::TimingSink;
use super::track::Color;

/// An entry as the collector saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Collected {
    pub level: TimingLevel,
    pub kind: EntryKind,
    pub name: String,
    pub track: &'static str,
    pub start_ms: f64,
    pub end_ms: f64,
    pub color: Color,
    pub properties: Vec<(&'static str, f64)>,
    pub tooltip: Option<String>,
}

/// Keeps every entry it is handed, at `trace` and `full`, up to [`RETAINED_CAP`] (past it
/// entries are counted as dropped). A cheap handle: attach one clone, read another.
#[derive(Clone, Debug, Default)]
pub struct Collector {
    inner: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    entries: Vec<Collected>,
    dropped: u64,
}

impl Collector {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The entries so far, in emission order, without removing them.
    #[must_use]
    pub fn entries(&self) -> Vec<Collected> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).entries.clone()
    }
}

impl TimingSink for Collector {
    fn emit(&self, level: TimingLevel, entry: &Entry<'_>) {
        let mut state = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if state.entries.len() >= RETAINED_CAP {
            state.dropped += 1;
            return;
        }
        state.entries.push(Collected {
            level,
            kind: entry.kind,
            name: entry.name.to_owned(),
            track: entry.track.name,
            start_ms: entry.start_ms,
            end_ms: entry.end_ms,
            color: entry.color,
            properties: entry.properties.to_vec(),
            tooltip: entry.tooltip.map(str::to_owned),
        });
    }

    fn drain(&self) -> Vec<Drained> {
        let entries = std::mem::take(&mut self.inner.lock().unwrap_or_else(PoisonError::into_inner).entries);
        entries
            .into_iter()
            .map(|entry| Drained {
                name: entry.name,
                track: entry.track.to_owned(),
                start_ms: entry.start_ms,
                duration_ms: entry.end_ms - entry.start_ms,
                properties: entry.properties.into_iter().map(|(key, value)| (key.to_owned(), value)).collect(),
            })
            .collect()
    }

    fn retention(&self) -> Retention {
        let state = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        Retention { retained: state.entries.len(), dropped: state.dropped, cap: RETAINED_CAP }
    }
}
