//! The process-global hub: one level, one sink.
//!
//! The default sink is none and the default level is `off`, so importing the crate emits
//! nothing. Attaching a sink is a process-wide side effect and belongs to the
//! application's entry point, like installing a logger.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{PoisonError, RwLock};

use super::budget::Budget;
use super::entry::{Drained, Entry, EntryKind, Retention};
use super::level::TimingLevel;
use super::sink::TimingSink;
use super::track::Track;

static LEVEL: AtomicU8 = AtomicU8::new(0);
static SINK: RwLock<Option<Box<dyn TimingSink>>> = RwLock::new(None);

/// Installs `sink`, replacing any other. Call it from the application's entry point.
pub fn attach(sink: impl TimingSink + 'static) {
    *SINK.write().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(sink));
}

/// Removes the sink; entries are discarded until another is attached.
pub fn detach() {
    SINK.write().unwrap_or_else(PoisonError::into_inner).take();
}

/// Sets the level for the whole process; takes effect at the next entry.
pub fn set_level(level: TimingLevel) {
    LEVEL.store(level.to_u8(), Ordering::Relaxed);
}

/// The current level.
#[must_use]
#[inline]
pub fn level() -> TimingLevel {
    TimingLevel::from_u8(LEVEL.load(Ordering::Relaxed))
}

/// Whether anything is emitted: the one load every instrumented site pays when `off`.
#[must_use]
#[inline]
pub fn enabled() -> bool {
    LEVEL.load(Ordering::Relaxed) != 0
}

/// The sink's retained entries (at `full`), removed from retention, sorted by start.
#[must_use]
pub fn drain() -> Vec<Drained> {
    let mut entries = SINK.read().unwrap_or_else(PoisonError::into_inner).as_ref().map_or_else(Vec::new, |s| s.drain());
    entries.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    entries
}

/// What the sink retains and what it dropped.
#[must_use]
pub fn retention() -> Retention {
    SINK.read().unwrap_or_else(PoisonError::into_inner).as_ref().map_or_else(Retention::default, |s| s.retention())
}

pub(crate) fn emit(entry: &Entry<'_>) {
    let level = level();
    if level == TimingLevel::Off {
        return;
    }
    if let Some(sink) = SINK.read().unwrap_or_else(PoisonError::into_inner).as_ref() {
        sink.emit(level, entry);
    }
}

/// An interval judged against `budget`: the error colour and a tooltip when over.
pub(crate) fn emit_budgeted(track: Track, name: &str, start_ms: f64, end_ms: f64, budget: Budget) {
    let duration = end_ms - start_ms;
    let over = budget.over(duration);
    // Formatted only when over budget, and only reached when the level is not off.
    let tooltip =
        over.then(|| format!("{name}: {duration:.2} ms, over the {} budget of {:.2} ms", budget.name(), budget.ms()));
    emit(&Entry {
        kind: EntryKind::Span,
        name,
        track,
        start_ms,
        end_ms,
        color: budget.color(duration, track.color),
        properties: &[("budget ms", budget.ms())],
        tooltip: tooltip.as_deref(),
    });
}
