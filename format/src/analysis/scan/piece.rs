//! A range's scan in pieces that another thread scans from a copy of their bytes alone:
//! a web worker, with its own wasm instance and no shared memory (a static site cannot
//! rely on cross-origin isolation, so there is no `SharedArrayBuffer`). The job that owns
//! the capture plans the range and hands out its [`ScanShare`] (each topology's slot table
//! and each row's windows) once, then each piece as a [`FramePiece`] (its index entries,
//! encoded by [`encode_entries`], and the bytes its records lie in); the worker answers
//! with the piece's [`PieceFigures`], encoded, which the job merges in frame order. The
//! figures are then exactly the scan's, and so [`pass_stats`](crate::analysis::pass_stats)'.
//!
//! A job that also collects the comparison's samples ([`ScanJob::with_samples`](super::ScanJob::with_samples))
//! says in its share which rows are written in place; each piece then answers with its
//! samples too: its own part of each such row's series (a code a frame, or a duration),
//! and the other rows' spans, which the job copies and concatenates in frame order.
//!
//! The encodings are little-endian 64-bit words, where JSON would cost the page as much
//! time as the scan itself: a piece's figures hold about a tenth of its spans' durations,
//! each row's in the form it keeps them (2, 4 or 8 bytes, as its windows allow), padded to a
//! whole word after the last row's, then its samples where asked for, then its defects.

use std::ops::Range;

use super::{Chunk, ChunkRun, Tables, Window};
use crate::analysis::compare::{ChunkPart, SeriesKind};
use crate::check::CheckShare;
use crate::directory::FrameEntry;
use crate::model::TopologyId;
use crate::piece::FramePiece;

/// What every piece of a range is scanned with: each topology's slot table and each row's
/// windows, from the job that planned the range.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ScanShare {
    tables: Tables,
    windows: Vec<[Window; 2]>,
    /// With the comparison's samples, per row, what its series written in place holds
    /// (see `Plan::in_place_kinds`); `None` for statistics alone.
    in_place: Option<Vec<Option<SeriesKind>>>,
}

/// What a job hands every piece out with: a scan's windows, or what checking frames
/// needs. The worker answers a piece as its share says ([`PieceShare::answer`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum PieceShare {
    /// The statistics' scan (and the comparison's samples): answers are [`PieceFigures`].
    Scan(ScanShare),
    /// Checking every frame whole: answers are [`CheckShare::check`]'s.
    Check(CheckShare),
}

impl PieceShare {
    /// The share as JSON, to post to a worker.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a share is plain numbers")
    }

    /// The share a worker was posted.
    pub fn from_json(text: &str) -> Result<Self, PieceError> {
        serde_json::from_str(text).map_err(|error| PieceError::Share(error.to_string()))
    }

    /// `piece`'s answer, encoded: its figures, or its frames' checks.
    #[must_use]
    pub fn answer(&self, piece: &FramePiece<'_>) -> Vec<u8> {
        match self {
            Self::Scan(share) => share.scan(piece).encode(),
            Self::Check(share) => share.check(piece),
        }
    }
}

/// Why a share, a piece's entries or its figures did not decode: a fault between the page
/// and its workers, never in a capture.
#[derive(Debug, thiserror::Error)]
pub enum PieceError {
    /// The share's JSON did not parse.
    #[error("the scan's share did not parse: {0}")]
    Share(String),
    /// A piece's entries were not whole 64-byte entries.
    #[error("a piece's index entries are {0} bytes, not a whole number of entries")]
    Entries(usize),
    /// A piece's figures were cut short, or encoded for another share.
    #[error("a piece's figures do not decode: {0}")]
    Figures(&'static str),
}

/// Words an entry takes in [`encode_entries`].
const ENTRY_WORDS: usize = 8;
/// Bytes an entry takes in [`encode_entries`].
pub const ENTRY_BYTES: usize = ENTRY_WORDS * 8;
/// Words each row takes in [`PieceFigures::encode`].
const SLOT_WORDS: usize = 11;
/// Words before the rows in [`PieceFigures::encode`].
const HEAD_WORDS: usize = 10;
/// The first word of encoded figures: "SGPTPIEC".
const FIGURES_MAGIC: u64 = u64::from_le_bytes(*b"SGPTPIEC");

impl ScanShare {
    pub(super) fn new(tables: Tables, windows: Vec<[Window; 2]>, in_place: Option<Vec<Option<SeriesKind>>>) -> Self {
        Self { tables, windows, in_place }
    }

    /// Scans every frame of `piece`.
    #[must_use]
    pub fn scan(&self, piece: &FramePiece<'_>) -> PieceFigures {
        let mut run: ChunkRun<'static, 'static, 'static> =
            ChunkRun::piece(&self.windows, self.in_place.as_deref(), piece.frames().len());
        run.add_frames(piece, &self.tables, piece.frames());
        PieceFigures { chunk: run.seal(), frames: piece.frames() }
    }

    /// Figures encoded by [`PieceFigures::encode`] for this share's rows.
    pub fn decode(&self, bytes: &[u8]) -> Result<PieceFigures, PieceError> {
        let words = Words(bytes);
        let head = |at| words.get(at).ok_or(PieceError::Figures("cut short in its head"));
        if head(0)? != FIGURES_MAGIC {
            return Err(PieceError::Figures("not a piece's figures"));
        }
        let rows = head(1)? as usize;
        if rows != self.windows.len() {
            return Err(PieceError::Figures("for a share with other rows"));
        }
        let frames = usize_of(head(6)?)?..usize_of(head(7)?)?;
        let mut chunk = Chunk::new(&self.windows, None);
        (chunk.frames, chunk.dropped_spans, chunk.inverted_spans) = (head(2)?, head(3)?, head(8)?);
        chunk.range = match head(4)? {
            0 => None,
            start => Some(usize_of(start - 1)?..usize_of(head(5)?)?),
        };
        let mut kept_bytes = 0usize;
        for (row, slot) in chunk.slots.iter_mut().enumerate() {
            let word = |i: usize| {
                words.get(HEAD_WORDS + row * SLOT_WORDS + i).ok_or(PieceError::Figures("cut short in its rows"))
            };
            slot.count = word(0)?;
            slot.zero_count = word(1)?;
            slot.min = word(2)?;
            slot.max = word(3)?;
            slot.total = u128::from(word(4)?) | (u128::from(word(5)?) << 64);
            slot.frames_present = word(6)?;
            slot.below = [word(7)?, word(8)?];
            slot.kept_len = usize_of(word(9)?)?;
            if word(10)? != slot.kept.width() as u64 {
                return Err(PieceError::Figures("its durations in another form than the share's windows give"));
            }
            kept_bytes = slot
                .kept_len
                .checked_mul(slot.kept.width())
                .and_then(|len| kept_bytes.checked_add(len))
                .ok_or(PieceError::Figures("more durations than bytes"))?;
        }
        let mut at = (HEAD_WORDS + rows * SLOT_WORDS) * 8;
        let end = at.saturating_add(kept_bytes.next_multiple_of(8));
        if bytes.len() < end {
            return Err(PieceError::Figures("cut short in its durations"));
        }
        for slot in &mut chunk.slots {
            let len = slot.kept_len * slot.kept.width();
            slot.kept.read_le(&bytes[at..at + len]);
            at += len;
        }
        // The samples, where the share asks for them.
        let samples_len = usize_of(head(HEAD_WORDS - 1)?)?;
        let samples_end = end.saturating_add(samples_len.next_multiple_of(8));
        let samples = bytes.get(end..end.saturating_add(samples_len)).filter(|_| samples_end <= bytes.len());
        chunk.samples = match (&self.in_place, samples) {
            (None, _) if samples_len == 0 => None,
            (Some(_), Some(samples)) if samples_len > 0 => {
                Some(ChunkPart::decode(samples, rows).map_err(PieceError::Figures)?)
            }
            (None, _) => return Err(PieceError::Figures("it holds samples its share does not ask for")),
            (Some(_), _) => return Err(PieceError::Figures("its samples are missing or cut short")),
        };
        let defects = &bytes[samples_end..];
        chunk.defects = if defects.is_empty() {
            Vec::new()
        } else {
            serde_json::from_slice(defects).map_err(|_| PieceError::Figures("its defects do not parse"))?
        };
        Ok(PieceFigures { chunk, frames })
    }
}

/// One piece's statistics, to merge with the others' in frame order.
#[derive(Debug)]
pub struct PieceFigures {
    pub(super) chunk: Chunk<'static, 'static>,
    frames: Range<usize>,
}

impl PieceFigures {
    /// The capture's frame indices the piece held.
    #[must_use]
    pub fn frames(&self) -> Range<usize> {
        self.frames.clone()
    }

    /// The figures as bytes, to post back to the job; [`ScanShare::decode`] reads them.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let chunk = &self.chunk;
        let mut words: Vec<u64> = Vec::with_capacity(HEAD_WORDS + chunk.slots.len() * SLOT_WORDS);
        // The range analysed as its start plus one (0 for none) and its end.
        let range = chunk.range.clone().map_or([0, 0], |range| [range.start as u64 + 1, range.end as u64]);
        words.extend([
            FIGURES_MAGIC,
            chunk.slots.len() as u64,
            chunk.frames,
            chunk.dropped_spans,
            range[0],
            range[1],
            self.frames.start as u64,
            self.frames.end as u64,
            chunk.inverted_spans,
            // The samples' length, once they are written.
            0,
        ]);
        debug_assert_eq!(words.len(), HEAD_WORDS);
        for slot in &chunk.slots {
            words.extend([
                slot.count,
                slot.zero_count,
                slot.min,
                slot.max,
                slot.total as u64,
                (slot.total >> 64) as u64,
                slot.frames_present,
                slot.below[0],
                slot.below[1],
                slot.kept.len() as u64,
                slot.kept.width() as u64,
            ]);
        }
        let kept: usize = chunk.slots.iter().map(|slot| slot.kept.len() * slot.kept.width()).sum();
        let mut bytes: Vec<u8> = Vec::with_capacity(words.len() * 8 + kept.next_multiple_of(8));
        bytes.extend(words.iter().flat_map(|word| word.to_le_bytes()));
        for slot in &chunk.slots {
            slot.kept.write_le(&mut bytes);
        }
        bytes.resize(bytes.len().next_multiple_of(8), 0);
        if let Some(samples) = &chunk.samples {
            let start = bytes.len();
            samples.encode(&mut bytes);
            let len = (bytes.len() - start) as u64;
            bytes[(HEAD_WORDS - 1) * 8..HEAD_WORDS * 8].copy_from_slice(&len.to_le_bytes());
            bytes.resize(bytes.len().next_multiple_of(8), 0);
        }
        if !chunk.defects.is_empty() {
            bytes.extend(serde_json::to_vec(&chunk.defects).expect("defects are plain data"));
        }
        bytes
    }
}

/// `entries` as bytes, for a worker: [`decode_entries`] reads them.
#[must_use]
pub fn encode_entries(entries: &[FrameEntry]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(entries.len() * ENTRY_WORDS * 8);
    for entry in entries {
        for word in [
            entry.frame_number,
            entry.offset,
            entry.len,
            u64::from(entry.topology),
            entry.gpu_duration_ns,
            entry.cpu_duration_ns,
            u64::from(entry.dropped_spans),
            u64::from(entry.span_count),
        ] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
    }
    bytes
}

/// The entries [`encode_entries`] wrote.
pub fn decode_entries(bytes: &[u8]) -> Result<Vec<FrameEntry>, PieceError> {
    if !bytes.len().is_multiple_of(ENTRY_WORDS * 8) {
        return Err(PieceError::Entries(bytes.len()));
    }
    let words = Words(bytes);
    let narrow = |word: u64| u32::try_from(word).map_err(|_| PieceError::Entries(bytes.len()));
    (0..words.len() / ENTRY_WORDS)
        .map(|entry| {
            let word = |i: usize| words.get(entry * ENTRY_WORDS + i).unwrap_or(0);
            Ok(FrameEntry {
                frame_number: word(0),
                offset: word(1),
                len: word(2),
                topology: narrow(word(3))? as TopologyId,
                gpu_duration_ns: word(4),
                cpu_duration_ns: word(5),
                dropped_spans: narrow(word(6))?,
                span_count: narrow(word(7))?,
            })
        })
        .collect()
}

/// Little-endian 64-bit words over bytes, the tail past the last whole word left out.
struct Words<'b>(&'b [u8]);

impl Words<'_> {
    fn len(&self) -> usize {
        self.0.len() / 8
    }

    fn get(&self, at: usize) -> Option<u64> {
        let word = self.0.get(at * 8..at * 8 + 8)?;
        Some(u64::from_le_bytes(word.try_into().expect("eight bytes")))
    }
}

fn usize_of(word: u64) -> Result<usize, PieceError> {
    usize::try_from(word).map_err(|_| PieceError::Figures("an index beyond this machine's"))
}
