//! The browser's sink: every record leaves WASM memory as soon as it is written.
//!
//! Each `append` copies the finished record into its own `Uint8Array` part, held in a JS
//! array, so a long capture grows the browser's memory, never the wasm heap (which cannot
//! shrink). A [`web_sys::Blob`] is built from the parts on demand: before `stop()` it is
//! an open capture a reader scans, after it the closed one. Because parts are whole
//! records, a capture cut off by `device.lost` or a dead tab's last `blob()` reads back up
//! to its last whole record.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;

use sgpt_format::{HEADER_LEN, Sink};
use wasm_bindgen::{JsCast as _, JsValue};

use crate::CaptureSink;

/// The MIME type of a capture Blob: `.sgpt` has no registered one.
const CAPTURE_MIME: &str = "application/octet-stream";

/// A capture held as Blob parts outside the wasm heap. A shared handle: give a clone to
/// the session and keep one to read the capture.
///
/// ```no_run
/// use sgpt_recorder::{BlobSink, Level, ProfileSession, SessionOptions};
///
/// let capture = BlobSink::new();
/// let session = ProfileSession::new(SessionOptions::at(Level::Workload), capture.clone());
/// // ... start, record frames, await stop() ...
/// let blob = capture.blob().expect("the browser builds a Blob");
/// # let _ = (session, blob);
/// ```
#[derive(Clone, Debug, Default)]
pub struct BlobSink {
    inner: Rc<RefCell<Parts>>,
}

#[derive(Debug)]
struct Parts {
    /// `Uint8Array`s: the header first, then one whole record each.
    parts: js_sys::Array,
    len: u64,
}

impl Default for Parts {
    fn default() -> Self {
        Self { parts: js_sys::Array::new(), len: 0 }
    }
}

impl BlobSink {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The capture so far as a Blob (the browser copies the parts, so later appends do
    /// not change it).
    pub fn blob(&self) -> Result<web_sys::Blob, JsValue> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(CAPTURE_MIME);
        web_sys::Blob::new_with_u8_array_sequence_and_options(&self.inner.borrow().parts, &options)
    }

    /// Bytes held.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.inner.borrow().len
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Parts held: the header and one per record.
    #[must_use]
    pub fn parts(&self) -> u32 {
        self.inner.borrow().parts.length()
    }
}

impl Sink for BlobSink {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut inner = self.inner.borrow_mut();
        // `from` copies: the part owns its bytes, outside WASM memory.
        inner.parts.push(&js_sys::Uint8Array::from(bytes));
        inner.len += bytes.len() as u64;
        Ok(())
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        let inner = self.inner.borrow();
        // The first append is the header, alone in part 0. A new part rather than a write
        // into the old one: nothing else ever sees a part change.
        let first = inner.parts.get(0);
        let first = part(&first).ok_or_else(|| io::Error::other("no header to patch"))?;
        if first.length() as usize != HEADER_LEN {
            return Err(io::Error::other(format!(
                "part 0 holds {} bytes, not a {HEADER_LEN}-byte header",
                first.length()
            )));
        }
        inner.parts.set(0, js_sys::Uint8Array::from(&header[..]).into());
        Ok(())
    }
}

impl CaptureSink for BlobSink {
    fn snapshot(&self) -> io::Result<Vec<u8>> {
        let inner = self.inner.borrow();
        let mut bytes = Vec::with_capacity(usize::try_from(inner.len).map_err(io::Error::other)?);
        for value in inner.parts.iter() {
            let part = part(&value).ok_or_else(|| io::Error::other("a capture part is not a Uint8Array"))?;
            let start = bytes.len();
            bytes.resize(start + part.length() as usize, 0);
            part.copy_to(&mut bytes[start..]);
        }
        Ok(bytes)
    }
}

/// A part as the `Uint8Array` it is (`Uint8Array::new` would copy it).
fn part(value: &JsValue) -> Option<&js_sys::Uint8Array> {
    value.dyn_ref::<js_sys::Uint8Array>()
}
