//! Where a writer's bytes go.
//!
//! A sink receives the header once, then each whole record in exactly one `append`
//! call, so a sink that keeps parts (the browser's `Blob` sink) stores one part per
//! record and never copies the capture; at stop the header is patched in place.

use std::io::{self, Seek, SeekFrom, Write};

use crate::header::HEADER_LEN;

/// The destination of a [`crate::Writer`]'s bytes: an append-only store whose first 32
/// bytes can be rewritten once.
pub trait Sink {
    /// Appends the header (first call) or one whole record (every later call).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Replaces the header written by the first `append`. Called once, at stop.
    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()>;
}

impl Sink for Vec<u8> {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        let start = self.get_mut(..HEADER_LEN).ok_or_else(|| io::Error::other("no header to patch"))?;
        start.copy_from_slice(header);
        Ok(())
    }
}

/// Writes each record straight to the file, unbuffered, so whatever a crash leaves on
/// disk ends at a record boundary or inside the last record, and stays readable.
impl Sink for std::fs::File {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_all(bytes)
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        let end = self.stream_position()?;
        self.seek(SeekFrom::Start(0))?;
        self.write_all(header)?;
        self.seek(SeekFrom::Start(end))?;
        self.flush()
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).append(bytes)
    }

    fn patch_header(&mut self, header: &[u8; HEADER_LEN]) -> io::Result<()> {
        (**self).patch_header(header)
    }
}

/// Counts bytes and keeps none: for measuring a writer without a sink's own cost.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingSink {
    /// Bytes appended, header included.
    pub bytes: u64,
    /// `append` calls: the header counts as one, then one per record.
    pub records: u64,
}

impl Sink for CountingSink {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.bytes += bytes.len() as u64;
        self.records += 1;
        Ok(())
    }

    fn patch_header(&mut self, _header: &[u8; HEADER_LEN]) -> io::Result<()> {
        Ok(())
    }
}
