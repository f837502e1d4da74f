//! Where a session's capture goes.
//!
//! A [`CaptureSink`] is an `sgpt_format::Sink` (whole records, one `append` each; the
//! header patched at stop) that can also read back what it holds, for `snapshot()`.
//! Sinks the application wants to read after `stop()` are shared handles: the app keeps
//! a clone ([`MemorySink`] natively; the browser's Blob sink likewise) and reads the
//! capture from it, so the session itself never has to hand a sink back.

use std::any::Any;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sgpt_format::{HEADER_LEN, Sink};

/// A sink a [`crate::ProfileSession`] can write to.
pub trait CaptureSink: Sink + Any + wgpu::WasmNotSend {
    /// A readable copy of everything appended so far: an open capture (a reader scans it)
    /// before stop, the closed one after.
    fn snapshot(&self) -> io::Result<Vec<u8>>;
}

/// A boxed sink, as the writer holds it.
pub(crate) struct BoxedSink(pub(crate) Box<dyn CaptureSink>);

impl std::fmt::Debug for BoxedSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BoxedSink")
    }
}

impl Sink for BoxedSink {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.append(bytes)
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        self.0.patch_header(header)
    }
}

impl CaptureSink for Vec<u8> {
    fn snapshot(&self) -> io::Result<Vec<u8>> {
        Ok(self.clone())
    }
}

/// An in-memory capture the application keeps a handle to.
///
/// ```
/// let sink = sgpt_recorder::MemorySink::new();
/// let handle = sink.clone(); // give `sink` to a session, keep `handle`
/// assert!(handle.bytes().is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl MemorySink {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reserves room for `bytes` of capture up front, so appends do not reallocate.
    #[must_use]
    pub fn with_capacity(bytes: usize) -> Self {
        Self { bytes: Arc::new(Mutex::new(Vec::with_capacity(bytes))) }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<u8>> {
        self.bytes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the capture so far.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        self.lock().clone()
    }

    /// Takes the capture out, leaving the sink empty.
    #[must_use]
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.lock())
    }

    /// Bytes held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Sink for MemorySink {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        Sink::append(&mut *self.lock(), bytes)
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        Sink::patch_header(&mut *self.lock(), header)
    }
}

impl CaptureSink for MemorySink {
    fn snapshot(&self) -> io::Result<Vec<u8>> {
        Ok(self.bytes())
    }
}

/// A capture written straight to a file, one unbuffered write per record, so a crash
/// leaves a file that reads back up to its last whole record.
#[derive(Debug)]
pub struct FileSink {
    file: std::fs::File,
    path: PathBuf,
}

impl FileSink {
    /// Creates (or truncates) the file at `path`.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        Ok(Self { file: std::fs::File::create(&path)?, path })
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Sink for FileSink {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.append(bytes)
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        self.file.patch_header(header)
    }
}

impl CaptureSink for FileSink {
    fn snapshot(&self) -> io::Result<Vec<u8>> {
        std::fs::read(&self.path)
    }
}
