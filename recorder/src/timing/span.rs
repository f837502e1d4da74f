//! Write-only spans and markers.

use std::borrow::Cow;

use super::clock::now_ms;
use super::entry::{Entry, EntryKind};
use super::hub;
use super::track::Track;

/// Properties a span carries inline, so an open span allocates nothing of its own.
const PROPERTIES: usize = 2;

/// A timed interval on a track, emitted when it ends (on drop, or [`Span::end`]).
///
/// `end()` returns `()`: instrumented code can emit a timing and never read one back, so
/// no value it computes can depend on wall time (seed 003). At `off` a span holds nothing
/// and costs one load of the level.
///
/// ```
/// use sgpt_recorder::timing::{Span, track};
///
/// let span = Span::begin(track::ENGINE, "load level");
/// // … the work …
/// span.end(); // `()`: there is nothing to read
/// ```
#[must_use = "a span ends when it is dropped"]
#[derive(Debug)]
pub struct Span {
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    name: Cow<'static, str>,
    track: Track,
    start_ms: f64,
    properties: [(&'static str, f64); PROPERTIES],
    len: usize,
}

impl Span {
    /// Opens a span named `name` on `track`.
    #[inline]
    pub fn begin(track: Track, name: &'static str) -> Self {
        if !hub::enabled() {
            return Self { open: None };
        }
        Self::open(track, Cow::Borrowed(name))
    }

    /// Opens a span whose name is copied, only when the level is not `off`.
    #[inline]
    pub fn begin_copied(track: Track, name: &str) -> Self {
        if !hub::enabled() {
            return Self { open: None };
        }
        Self::open(track, Cow::Owned(name.to_owned()))
    }

    fn open(track: Track, name: Cow<'static, str>) -> Self {
        let start_ms = now_ms();
        Self { open: Some(Open { name, track, start_ms, properties: [("", 0.0); PROPERTIES], len: 0 }) }
    }

    /// Attaches a property shown with the entry; past two, or at `off`, it is ignored.
    #[inline]
    pub fn property(&mut self, key: &'static str, value: f64) {
        if let Some(open) = self.open.as_mut()
            && open.len < PROPERTIES
        {
            open.properties[open.len] = (key, value);
            open.len += 1;
        }
    }

    /// Ends the span (same as dropping it). Returns nothing, by design.
    pub fn end(self) {}
}

impl Drop for Span {
    #[inline]
    fn drop(&mut self) {
        if let Some(open) = self.open.take() {
            let end_ms = now_ms();
            hub::emit(&Entry {
                kind: EntryKind::Span,
                name: &open.name,
                track: open.track,
                start_ms: open.start_ms,
                end_ms,
                color: open.track.color,
                properties: &open.properties[..open.len],
                tooltip: None,
            });
        }
    }
}

/// Emits an instant on `track` (a User Timing mark at `full`), e.g. "first frame".
#[inline]
pub fn marker(track: Track, name: &'static str) {
    if !hub::enabled() {
        return;
    }
    let now = now_ms();
    hub::emit(&Entry {
        kind: EntryKind::Marker,
        name,
        track,
        start_ms: now,
        end_ms: now,
        color: track.color,
        properties: &[],
        tooltip: None,
    });
}
