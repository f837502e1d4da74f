//! Write-only spans and markers.

use super::clock::now_ms;
use super::entry::{Entry, EntryKind};
use super::hub;
use super::track::Track;

/// Properties a span carries inline, so an open span allocates nothing of its own.
const PROPERTIES: usize = 2;

/// Bytes of a copied name a span carries inline: graph-pass names fit, so a copied name
/// allocates nothing either.
const INLINE_NAME: usize = 38;

/// A timed interval on a track, emitted when it ends (on drop, or [`Span::end`]).
///
/// `end()` returns `()`: instrumented code can emit a timing and never read one back, so
/// no value it computes can depend on wall time. At `off` a span holds nothing
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
    name: Name,
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
        Self::open(track, Name::Static(name))
    }

    /// Opens a span whose name is copied, only when the level is not `off`.
    #[inline]
    pub fn begin_copied(track: Track, name: &str) -> Self {
        if !hub::enabled() {
            return Self { open: None };
        }
        Self::open(track, Name::copied(name))
    }

    fn open(track: Track, name: Name) -> Self {
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
                name: open.name.as_str(),
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

/// A span's name: borrowed, copied inline, or on the heap past [`INLINE_NAME`] bytes.
#[derive(Debug)]
enum Name {
    Static(&'static str),
    Inline { len: u8, bytes: [u8; INLINE_NAME] },
    Heap(Box<str>),
}

impl Name {
    fn copied(name: &str) -> Self {
        match u8::try_from(name.len()) {
            Ok(len) if name.len() <= INLINE_NAME => {
                let mut bytes = [0; INLINE_NAME];
                bytes[..name.len()].copy_from_slice(name.as_bytes());
                Self::Inline { len, bytes }
            }
            _ => Self::Heap(name.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Self::Static(name) => name,
            // Whole UTF-8 copied from a `str`: it cannot fail.
            Self::Inline { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default(),
            Self::Heap(name) => name,
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

#[cfg(test)]
mod tests {
    use super::{INLINE_NAME, Name};

    #[test]
    fn a_copied_name_reads_back_whether_inline_or_not() {
        let long = "x".repeat(INLINE_NAME + 1);
        for name in ["", "hzb/build", "ombres \u{e9}t\u{e9} \u{2192} cascade 2", &"y".repeat(INLINE_NAME), &long] {
            let copied = Name::copied(name);
            assert_eq!(copied.as_str(), name);
            assert_eq!(matches!(copied, Name::Heap(_)), name.len() > INLINE_NAME, "{name}");
        }
    }
}
