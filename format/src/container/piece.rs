//! Frames of a capture read from a copy of their bytes alone, for a thread that never
//! holds the whole file (a web worker, with its own wasm instance): the same checks and
//! the same defects, at the same file offsets, as [`Capture`](crate::Capture) gives for
//! those frames.

use crate::directory::FrameEntry;
use crate::error::{Defect, DefectKind};
use crate::frame::{self, FrameSummary};
use crate::model::{Frame, Span};
use crate::record::{FourCc, RECORD_HEADER_LEN, RecordHeader, checksum};
use crate::spans::SpanStream;
use crate::wire::Cursor;

/// Frames `first..first + entries.len()` of a capture: their index entries and the file's
/// bytes from offset `base` on, as far as their records reach.
#[derive(Clone, Copy, Debug)]
pub struct FramePiece<'a> {
    first: usize,
    entries: &'a [FrameEntry],
    base: u64,
    bytes: &'a [u8],
}

impl<'a> FramePiece<'a> {
    /// The frames whose index entries are `entries`, the first at index `first` of the
    /// capture, read from `bytes`, which start at file offset `base`.
    #[must_use]
    pub fn new(first: usize, entries: &'a [FrameEntry], base: u64, bytes: &'a [u8]) -> Self {
        Self { first, entries, base, bytes }
    }

    /// The capture's index of the piece's first frame.
    #[must_use]
    pub fn first(&self) -> usize {
        self.first
    }

    /// The frames' index entries.
    #[must_use]
    pub fn entries(&self) -> &'a [FrameEntry] {
        self.entries
    }

    /// The file offset of [`FramePiece::bytes`]' first byte.
    #[must_use]
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The bytes the frames' records lie in.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The capture's frame indices the piece holds.
    #[must_use]
    pub fn frames(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.entries.len()
    }

    /// The entry of frame `index` (the capture's index); `None` outside the piece.
    #[must_use]
    pub fn entry(&self, index: usize) -> Option<&'a FrameEntry> {
        self.entries.get(index.checked_sub(self.first)?)
    }

    /// Hands each GPU span of frame `index` to `each`, as [`Capture::for_each_span`](crate::Capture::for_each_span).
    pub fn for_each_span(&self, index: usize, each: impl FnMut(Span)) -> Result<(), Defect> {
        let entry = self.entry(index).ok_or_else(|| no_frame(index))?;
        let summary = frame::decode_spans(&mut payload(self.bytes, self.base, entry)?, each)?;
        check_entry(entry, &summary)
    }

    /// Decodes frame `index` into `frame`, as [`Capture::frame_into`](crate::Capture::frame_into).
    pub fn frame_into(&self, index: usize, frame: &mut Frame) -> Result<(), Defect> {
        let entry = self.entry(index).ok_or_else(|| no_frame(index))?;
        let summary = frame::decode(&mut payload(self.bytes, self.base, entry)?, frame)?;
        check_entry(entry, &summary)
    }

    /// Frame `index`, opened: see [`OpenFrame`].
    pub(crate) fn open_frame(&self, index: usize) -> Result<OpenFrame<'a>, Defect> {
        open_frame(self.bytes, self.base, self.entry(index).ok_or_else(|| no_frame(index))?)
    }
}

/// A frame whose checksum and summary were checked, its summary against its index entry,
/// with its span section read up to the bit stream and the rest of its payload after it:
/// what a reader needs to decode several frames' spans at once.
///
/// The checks run in another order than a whole decode's, so a frame that fails here (or
/// later) is named by [`Capture::for_each_span`](crate::Capture::for_each_span), whose
/// defect is the first field that fails in stored order.
pub(crate) struct OpenFrame<'b> {
    pub summary: FrameSummary,
    pub spans: SpanStream<'b>,
    /// What follows the span section: [`frame::decode_tail`] reads it.
    pub tail: Cursor<'b>,
}

/// Opens `entry`'s frame in `bytes`, which start at file offset `base`.
pub(crate) fn open_frame<'b>(bytes: &'b [u8], base: u64, entry: &FrameEntry) -> Result<OpenFrame<'b>, Defect> {
    let mut cursor = payload(bytes, base, entry)?;
    let (summary, spans) = frame::open_spans(&mut cursor)?;
    check_entry(entry, &summary)?;
    Ok(OpenFrame { summary, spans, tail: cursor })
}

pub(crate) fn no_frame(index: usize) -> Defect {
    Defect::new(DefectKind::MissingReference, 0, format!("there is no frame at index {index}"))
}

/// The payload of `entry`'s record in `bytes` (which start at file offset `base`), its
/// checksum checked.
pub(crate) fn payload<'b>(bytes: &'b [u8], base: u64, entry: &FrameEntry) -> Result<Cursor<'b>, Defect> {
    let missing = || Defect::new(DefectKind::Corrupt, entry.offset, "no frame record where the index says");
    let at = usize::try_from(entry.offset.checked_sub(base).ok_or_else(missing)?).map_err(|_| missing())?;
    let header = RecordHeader::parse(bytes, at)
        .filter(|header| header.kind == FourCc::FRAM && at + header.record_len() <= bytes.len())
        .ok_or_else(missing)?;
    let payload = &bytes[at + RECORD_HEADER_LEN..at + header.record_len()];
    if checksum(payload) != header.checksum {
        return Err(Defect::new(
            DefectKind::ChecksumMismatch,
            entry.offset,
            format!("frame {}'s checksum does not match its payload", entry.frame_number),
        ));
    }
    Ok(Cursor::new(payload, entry.offset + RECORD_HEADER_LEN as u64))
}

/// The file offset where `entry`'s record ends in `file`: as far as its header claims when
/// that parses, else as far as the entry says (the larger of the two).
pub(crate) fn record_end(file: &[u8], entry: &FrameEntry) -> u64 {
    let claimed = usize::try_from(entry.offset)
        .ok()
        .and_then(|at| RecordHeader::parse(file, at))
        .map_or(0, |header| entry.offset + header.record_len() as u64);
    claimed.max(entry.offset.saturating_add(entry.len))
}

/// A frame must say what the index said of it: a directory is trusted for the strip
/// only until the frame itself is read.
pub(crate) fn check_entry(entry: &FrameEntry, summary: &FrameSummary) -> Result<(), Defect> {
    if FrameEntry::new(summary, entry.offset, entry.len) == *entry {
        Ok(())
    } else {
        Err(Defect::new(
            DefectKind::DirectoryInvalid,
            entry.offset,
            format!("the directory's entry for frame {} disagrees with the frame record", entry.frame_number),
        ))
    }
}
