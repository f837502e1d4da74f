//! The reader: opens a capture from `&[u8]`, never panics, and recovers everything that
//! survived. The directory is the fast path; a forward scan that resynchronises past
//! damage is the fallback. Frames are decoded lazily, on request, through the index.

use std::collections::BTreeMap;

use crate::check::{CheckShare, FrameChecks, LostFrame};
use crate::declaration;
use crate::directory::{DirectoryDecoder, FrameEntry, RecordEntry};
use crate::error::{DecodeError, Defect, DefectKind, OpenError};
use crate::frame::{self, FrameSummary};
use crate::header::{HEADER_LEN, Header};
use crate::memory;
use crate::meta;
use crate::model::{
    BindGroupDef, BufferDef, CounterDef, Declaration, Frame, Level, MemoryRecord, Meta, Note, Pipeline, QuerySetDef,
    Span, Topology, TopologyId,
};
use crate::note;
use crate::piece::{self, FramePiece, OpenFrame};
use crate::record::{FourCc, MAX_PAYLOAD_LEN, RECORD_HEADER_LEN, RecordHeader, SYNC, checksum};
use crate::spans;
use crate::symbols::SymbolTable;
use crate::topology;
use crate::wire::Cursor;

/// Resynchronisation is charged the claimed payload length (capped at the bytes left) of
/// every candidate whose sync matches, and gives up past this many times the file's size
/// plus 1 MiB, so a file crafted full of plausible record headers cannot stall a reader.
const RESYNC_BUDGET_FACTOR: u64 = 16;

/// An opened capture, borrowing the file's bytes.
#[derive(Debug)]
pub struct Capture<'a> {
    bytes: &'a [u8],
    header: Header,
    meta: Option<Meta>,
    topologies: BTreeMap<TopologyId, Topology>,
    pipelines: BTreeMap<u32, Pipeline>,
    counters: BTreeMap<u32, CounterDef>,
    bind_groups: BTreeMap<u32, BindGroupDef>,
    buffers: BTreeMap<u32, BufferDef>,
    query_sets: BTreeMap<u8, QuerySetDef>,
    notes: Vec<Note>,
    memory: Vec<MemoryRecord>,
    frames: Vec<FrameEntry>,
    records: Vec<RecordEntry>,
    /// Offsets of records whose header says FRAM but that the scan could not index.
    unindexed_frames: Vec<u64>,
    defects: Vec<Defect>,
    used_directory: bool,
}

/// What reads back beside what the index claims, so that no count hides a loss.
///
/// A frame *reads back* when it decodes whole ([`Capture::frame`] succeeds); its spans and
/// dropped spans are then counted. A frame that decodes but whose topology was lost, or
/// whose span names a GPU pass its topology lacks, still reads back: that defect is about
/// what the spans mean, and is listed among the defects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadableCounts {
    /// Indexed frames that read back (`frames` in the CLI's `validate` and `info` JSON).
    pub frames: usize,
    /// Frames the index lists (`frames_indexed`, written only when it differs from `frames`).
    pub frames_indexed: usize,
    /// GPU spans of the frames that read back, as decoded (`spans`).
    pub spans: u64,
    /// GPU spans the index claims over all its frames (`spans_indexed`).
    pub spans_indexed: u64,
    /// Dropped spans of the frames that read back, from their decoded records (`dropped_spans`).
    pub dropped_spans: u64,
    /// Dropped spans the index claims over all its frames (`dropped_spans_indexed`).
    pub dropped_spans_indexed: u64,
    /// Every indexed frame that does not read back, in index order.
    pub lost: Vec<LostFrame>,
    /// Offsets of records whose header says FRAM but that never reached the index (a
    /// checksum that failed during a scan, a file that ends inside one, a malformed
    /// summary): frames lost without a trustworthy number.
    pub unindexed_frame_records: Vec<u64>,
}

/// A record found in the file: where, and what its framing says.
#[derive(Clone, Copy, Debug)]
struct Found {
    offset: usize,
    header: RecordHeader,
}

impl Found {
    fn payload<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.offset + RECORD_HEADER_LEN..self.offset + self.header.record_len()]
    }
}

/// Whether a whole, checksummed record starts at `at`.
fn valid_record(bytes: &[u8], at: usize) -> Option<RecordHeader> {
    let header = RecordHeader::parse(bytes, at)?;
    let len = header.payload_len as usize;
    let end = (at + RECORD_HEADER_LEN).checked_add(len)?;
    if len > MAX_PAYLOAD_LEN || end > bytes.len() {
        return None;
    }
    (checksum(&bytes[at + RECORD_HEADER_LEN..end]) == header.checksum).then_some(header)
}

/// Finds the next offset after `from` where a whole, checksummed record starts.
fn resync(bytes: &[u8], from: usize, budget: &mut u64) -> Result<Option<usize>, ()> {
    let sync = SYNC.to_le_bytes();
    let mut at = from;
    while let Some(found) = bytes.get(at..).and_then(|rest| rest.windows(4).position(|window| window == sync)) {
        let candidate = at + found;
        if let Some(header) = RecordHeader::parse(bytes, candidate) {
            let cost = u64::from(header.payload_len).min((bytes.len() - candidate) as u64);
            *budget = budget.checked_sub(cost).ok_or(())?;
            if valid_record(bytes, candidate).is_some() {
                return Ok(Some(candidate));
            }
        }
        at = candidate + 1;
    }
    Ok(None)
}

/// Walks the file record by record from the header, skipping and reporting damage. The
/// [`Opener`] drives it a record at a time, so a caller that must stay responsive can
/// interleave the work.
#[derive(Debug)]
struct Scanner {
    at: usize,
    budget: u64,
    done: bool,
}

impl Scanner {
    fn new(bytes: &[u8]) -> Self {
        Self {
            at: HEADER_LEN,
            budget: RESYNC_BUDGET_FACTOR * bytes.len() as u64 + (1 << 20),
            done: bytes.len() <= HEADER_LEN,
        }
    }

    /// Takes one whole record, or skips one damaged stretch and reports it.
    fn next(&mut self, bytes: &[u8], defects: &mut Vec<Defect>, unindexed_frames: &mut Vec<u64>) -> Option<Found> {
        let at = self.at;
        if let Some(header) = valid_record(bytes, at) {
            self.at += header.record_len();
            self.done |= self.at >= bytes.len();
            return Some(Found { offset: at, header });
        }
        let here = RecordHeader::parse(bytes, at);
        let Ok(next) = resync(bytes, at + 1, &mut self.budget) else {
            defects.push(Defect::new(
                DefectKind::ResyncBudgetExhausted,
                at as u64,
                format!("gave up resynchronising; {} bytes to the end of the file were not read", bytes.len() - at),
            ));
            self.done = true;
            return None;
        };
        let end = next.unwrap_or(bytes.len());
        let skipped = end - at;
        let defect = match here {
            Some(header) if next.is_none() && at + header.record_len() > bytes.len() => Defect::new(
                DefectKind::Truncated,
                at as u64,
                format!(
                    "the file ends inside a {} record: {} of its {} bytes are present",
                    header.kind,
                    bytes.len() - at,
                    header.record_len()
                ),
            ),
            Some(header) if at + header.record_len() <= bytes.len() => Defect::new(
                DefectKind::ChecksumMismatch,
                at as u64,
                format!("a {} record's checksum does not match its payload; skipped {skipped} bytes", header.kind),
            ),
            None if next.is_none() && bytes.len() - at < RECORD_HEADER_LEN && is_sync_prefix(&bytes[at..]) => {
                Defect::new(
                    DefectKind::Truncated,
                    at as u64,
                    format!("the file ends inside a record header ({skipped} bytes)"),
                )
            }
            _ => Defect::new(
                DefectKind::Corrupt,
                at as u64,
                format!("skipped {skipped} bytes that are not a whole record"),
            ),
        };
        // A record that says it is a frame and was skipped whole is a frame lost before
        // indexing: counted, though its number cannot be trusted.
        if here.is_some_and(|header| header.kind == FourCc::FRAM)
            && matches!(defect.kind, DefectKind::Truncated | DefectKind::ChecksumMismatch)
        {
            unindexed_frames.push(at as u64);
        }
        defects.push(defect);
        self.at = end;
        self.done |= self.at >= bytes.len();
        None
    }
}

fn is_sync_prefix(tail: &[u8]) -> bool {
    let sync = SYNC.to_le_bytes();
    tail.iter().zip(sync.iter()).all(|(a, b)| a == b)
}

/// Whether every frame entry lists its record where it is in the file, the directory
/// starting at the offset given: see `Capture::open_parallel`.
type FramesCheck = fn(&[u8], &[FrameEntry], usize) -> bool;

/// A closed capture's directory, checked against the file a few entries at a time: every
/// listed record must be where the directory says, and together with the directory they
/// must tile the file exactly. Any disagreement rejects it whole, and the file is scanned.
#[derive(Debug, Default)]
struct DirectoryCheck {
    /// The directory record's offset and length, once found intact.
    record: Option<(usize, usize)>,
    /// The directory's entries as far as decoded, until `decoded`.
    decoder: DirectoryDecoder,
    decoded: bool,
    records: Vec<RecordEntry>,
    frames: Vec<FrameEntry>,
    /// The listed records other than frames, as found.
    found: Vec<Found>,
    /// Entries checked: the records first, then the frames.
    checked: usize,
    /// Whether the frames checked so far are listed in file order, as a writer lists them:
    /// then they need no sorting to check the tiling.
    frames_in_order: bool,
    /// Checks every frame entry against the file at once, once the entries are decoded
    /// (see `Capture::open_parallel`); where it finds them all there, the entry-by-entry
    /// check only counts them.
    precheck: Option<FramesCheck>,
    frames_prechecked: bool,
}

impl DirectoryCheck {
    fn entries(&self) -> usize {
        self.records.len() + self.frames.len()
    }

    /// Progress through the file's `len` bytes: 1 once the directory record is found,
    /// then each entry decoded an even share of half the bytes, then each entry checked an
    /// even share of the other half but the last byte, which is for the tiling. A
    /// directory holds far fewer entries than the file has bytes (each lists a record of
    /// at least a record header), so each entry adds at least one.
    fn progress(&self, len: u64) -> u64 {
        let half = u128::from(len.saturating_sub(2) / 2);
        let share = |done: usize, total: usize| (half * done as u128 / total.max(1) as u128) as u64;
        match self.entries() {
            _ if self.record.is_none() => 0,
            _ if !self.decoded => 1 + self.decoder.progress().map_or(0, |(done, total)| share(done, total)),
            0 => len,
            entries => 1 + half as u64 + share(self.checked, entries),
        }
    }

    /// Finds the intact directory record the header points at.
    fn locate(bytes: &[u8], header: &Header) -> Result<(usize, usize), Defect> {
        let offset = header.directory_offset;
        let at = usize::try_from(offset).ok().filter(|&at| at >= HEADER_LEN && at < bytes.len());
        let at = at.ok_or_else(|| invalid(16, format!("the directory offset {offset:#x} is outside the file")))?;
        let record = valid_record(bytes, at)
            .filter(|record| record.kind == FourCc::DIRE && record.record_len() as u64 == header.directory_len)
            .ok_or_else(|| invalid(offset, "no intact directory record at the header's directory offset".into()))?;
        Ok((at, record.record_len()))
    }

    /// Checks the directory a step at a time: its checksum, then its entries covering
    /// about `max_bytes` of the file (at least one) a step, then, once they all are, that
    /// they tile the file. `Ok(true)` once done; `found` then holds the records other than
    /// frames, in file order.
    fn step(&mut self, bytes: &[u8], header: &Header, max_bytes: usize) -> Result<bool, Defect> {
        let Some((at, len)) = self.record else {
            // The checksum covers the whole directory, about 10 bytes a frame.
            self.record = Some(Self::locate(bytes, header)?);
            return Ok(false);
        };
        if !self.decoded {
            let payload = &bytes[at + RECORD_HEADER_LEN..at + len];
            // Decoding an entry costs about what checking a few dozen bytes of frames does.
            let done = self
                .decoder
                .step(payload, (at + RECORD_HEADER_LEN) as u64, max_bytes / DECODE_BYTES_PER_ENTRY)
                .map_err(|error| invalid(error.offset, format!("the directory is malformed: {}", error.what)))?;
            if !done {
                return Ok(false);
            }
            let (records, frames) = std::mem::take(&mut self.decoder).finish();
            (self.records, self.frames, self.decoded, self.frames_in_order) = (records, frames, true, true);
            self.found = Vec::with_capacity(self.records.len());
            self.frames_prechecked = self.precheck.is_some_and(|precheck| precheck(bytes, &self.frames, at));
        }
        let checked = self.checked;
        let mut covered = 0usize;
        while self.checked < self.entries() && covered < max_bytes {
            let (kind, offset, listed_len) = match self.records.get(self.checked) {
                Some(record) => (record.kind, record.offset, record.len),
                None => {
                    let frame = &self.frames[self.checked - self.records.len()];
                    (FourCc::FRAM, frame.offset, frame.len)
                }
            };
            let record_len = if kind == FourCc::FRAM && self.frames_prechecked {
                // Found where listed, of the listed length, by the check beforehand.
                listed_len as usize
            } else {
                let found = listed(bytes, kind, offset, listed_len, at).ok_or_else(|| {
                    if offset < bytes.len() as u64 {
                        invalid(offset, format!("the directory lists a {kind} record here that is not in the file"))
                    } else {
                        // Every defect names a place in the file: here, the directory's.
                        invalid(
                            at as u64,
                            format!("the directory lists a {kind} record at {offset:#x}, past the file's end"),
                        )
                    }
                })?;
                if kind != FourCc::FRAM {
                    self.found.push(found);
                }
                found.header.record_len()
            };
            if kind == FourCc::FRAM {
                let previous = self.checked.checked_sub(self.records.len() + 1).map(|index| self.frames[index].offset);
                self.frames_in_order &= previous.is_none_or(|previous| previous < offset);
            }
            covered = covered.saturating_add(record_len);
            self.checked += 1;
        }
        if self.checked > checked || self.checked < self.entries() {
            return Ok(false);
        }
        self.check_tiling(bytes, at, len)?;
        Ok(true)
    }

    /// Any gap or overlap between the listed records means damage. Sorted by offset (the
    /// records first where two share one), they must follow on from the header to the
    /// directory, and the directory must end the file.
    fn check_tiling(&mut self, bytes: &[u8], at: usize, len: usize) -> Result<(), Defect> {
        self.found.sort_by_key(|f| f.offset);
        let records: Vec<(usize, usize)> = self.found.iter().map(|f| (f.offset, f.header.record_len())).collect();
        let frames = self.frames.iter().map(|frame| (frame.offset as usize, frame.len as usize));
        let expected = if self.frames_in_order {
            // Already in file order: merged with the records as they come, without sorting
            // (or holding) an entry per frame.
            follow_on(&records, frames)
        } else {
            let mut sorted: Vec<(usize, usize)> = frames.collect();
            sorted.sort_by_key(|&(offset, _)| offset);
            follow_on(&records, sorted.into_iter())
        }?;
        if expected != at {
            return Err(invalid(expected as u64, "the directory does not account for every byte of the file".into()));
        }
        // Bytes after the directory are reported where they begin, the first byte it does
        // not account for (SGPT_FORMAT.md §7), not at the directory itself.
        if at + len != bytes.len() {
            return Err(invalid(
                (at + len) as u64,
                format!("{} bytes follow the directory, which must end the file", bytes.len() - at - len),
            ));
        }
        Ok(())
    }
}

/// The record a directory entry lists as a `kind` record at `offset`, `len` bytes long,
/// where it is: its header there, of that kind and length, within bounds, and ending
/// before the directory at `directory`.
fn listed(bytes: &[u8], kind: FourCc, offset: u64, len: u64, directory: usize) -> Option<Found> {
    let offset = usize::try_from(offset).ok()?;
    let header = RecordHeader::parse(bytes, offset)?;
    (header.kind == kind
        && header.record_len() as u64 == len
        && header.payload_len as usize <= MAX_PAYLOAD_LEN
        && offset + header.record_len() <= directory)
        .then_some(Found { offset, header })
}

/// Whether every one of `frames` is listed where its record is in `bytes` (see
/// [`listed`]), checked on rayon's pool: a closed capture's open touches each frame's first
/// bytes once, and those reads wait on memory far more than on the core.
#[cfg(feature = "parallel")]
fn frames_listed_in_parallel(bytes: &[u8], frames: &[FrameEntry], directory: usize) -> bool {
    use rayon::prelude::*;
    frames.par_chunks(4096).all(|chunk| {
        chunk.iter().all(|frame| listed(bytes, FourCc::FRAM, frame.offset, frame.len, directory).is_some())
    })
}

/// Walks `records` and `frames`, each (offset, length) sorted by offset, merged (a record
/// first where both share an offset), checking each starts where the last ended. Returns
/// where the last ends.
fn follow_on(records: &[(usize, usize)], mut frames: impl Iterator<Item = (usize, usize)>) -> Result<usize, Defect> {
    let mut expected = HEADER_LEN;
    let mut records = records.iter().copied().peekable();
    let mut frame = frames.next();
    loop {
        let next = match (records.peek(), frame) {
            (Some(&(record, _)), Some((offset, _))) if offset < record => frame.take(),
            (Some(_), _) => records.next(),
            (None, _) => frame.take(),
        };
        let Some((offset, len)) = next else { return Ok(expected) };
        if frame.is_none() {
            frame = frames.next();
        }
        if offset != expected {
            return Err(invalid(expected as u64, "the directory does not account for every byte before it".into()));
        }
        expected = offset + len;
    }
}

fn invalid(offset: u64, detail: String) -> Defect {
    Defect::new(DefectKind::DirectoryInvalid, offset, detail)
}

/// Opens a capture in steps, for a caller that must stay responsive (a browser's main
/// thread). [`Opener::new`] reads the header; each [`Opener::step`] then checks about
/// `max_bytes` more of the file against its directory or, without a usable directory,
/// scans that much record by record, loading each record as it is found.
/// [`Capture::open`] is `Opener::new(bytes)?.finish()`.
#[derive(Debug)]
pub struct Opener<'a> {
    capture: Capture<'a>,
    stage: Stage,
    symbols: SymbolTable,
    /// What the scan found wrong: reported before what loading the records found, as in
    /// a scan done whole before loading.
    walk_defects: Vec<Defect>,
    /// Where the defects of loading records begin in `capture.defects`.
    loaded_from: usize,
    /// How far a directory check that proved unusable had come: the scan's progress
    /// counts on from it, so progress never goes back.
    abandoned: u64,
}

/// Bytes of `Opener::step`'s budget one decoded directory entry stands for: decoding an
/// entry (eight varints) costs about what checking a few dozen bytes of frames against
/// the directory does, so a step of 256 KiB decodes 4,096 entries.
const DECODE_BYTES_PER_ENTRY: usize = 64;

#[derive(Debug)]
enum Stage {
    Directory(DirectoryCheck),
    Scan(Scanner),
    Done,
}

impl<'a> Opener<'a> {
    /// Checks the header. Fails only when the bytes are not an sgpt capture or need a
    /// newer reader.
    pub fn new(bytes: &'a [u8]) -> Result<Self, OpenError> {
        let header = Header::decode(bytes)?;
        let mut capture = Capture {
            bytes,
            header,
            meta: None,
            topologies: BTreeMap::new(),
            pipelines: BTreeMap::new(),
            counters: BTreeMap::new(),
            bind_groups: BTreeMap::new(),
            buffers: BTreeMap::new(),
            query_sets: BTreeMap::new(),
            notes: Vec::new(),
            memory: Vec::new(),
            frames: Vec::new(),
            records: Vec::new(),
            unindexed_frames: Vec::new(),
            defects: Vec::new(),
            used_directory: false,
        };
        let stage = if bytes.len() < HEADER_LEN {
            capture.defects.push(Defect::new(
                DefectKind::Truncated,
                bytes.len() as u64,
                format!("the file ends inside the header ({} of {HEADER_LEN} bytes)", bytes.len()),
            ));
            Stage::Done
        } else if header.closed() {
            Stage::Directory(DirectoryCheck::default())
        } else {
            capture.defects.push(Defect::new(
                DefectKind::NotClosed,
                8,
                "the writer never reached stop (no CLOSED flag, no directory); the records were scanned",
            ));
            Stage::Scan(Scanner::new(bytes))
        };
        let loaded_from = capture.defects.len();
        let mut opener = Self {
            capture,
            stage,
            symbols: SymbolTable::default(),
            walk_defects: Vec::new(),
            loaded_from,
            abandoned: 0,
        };
        if matches!(opener.stage, Stage::Done) {
            opener.conclude();
        }
        Ok(opener)
    }

    /// Checks or scans about `max_bytes` more of the file. Returns whether the capture is
    /// complete.
    pub fn step(&mut self, max_bytes: usize) -> bool {
        let bytes = self.capture.bytes;
        let max_bytes = max_bytes.max(1);
        match &mut self.stage {
            Stage::Done => return true,
            Stage::Directory(check) => match check.step(bytes, &self.capture.header, max_bytes) {
                Ok(false) => return false,
                Ok(true) => {
                    // The frame strip comes from the index alone; each frame is checked
                    // against its entry when it is decoded.
                    let check = std::mem::take(check);
                    self.capture.used_directory = true;
                    self.capture.frames = check.frames;
                    self.loaded_from = self.capture.defects.len();
                    for found in &check.found {
                        self.capture.load(found, &mut self.symbols);
                    }
                }
                Err(defect) => {
                    self.abandoned = check.progress(bytes.len() as u64);
                    self.capture.defects.push(defect);
                    self.loaded_from = self.capture.defects.len();
                    self.stage = Stage::Scan(Scanner::new(bytes));
                    return false;
                }
            },
            Stage::Scan(scanner) => {
                let stop = scanner.at.saturating_add(max_bytes);
                while !scanner.done && scanner.at < stop {
                    if let Some(found) = scanner.next(bytes, &mut self.walk_defects, &mut self.capture.unindexed_frames)
                    {
                        self.capture.load(&found, &mut self.symbols);
                    }
                }
                if !scanner.done {
                    return false;
                }
            }
        }
        self.conclude();
        true
    }

    /// Reports what the walk and loading found, in that order, and what only the whole
    /// capture shows.
    fn conclude(&mut self) {
        let defects = &mut self.capture.defects;
        let loaded = defects.split_off(self.loaded_from);
        defects.append(&mut self.walk_defects);
        defects.extend(loaded);
        // A file cut inside its header has been reported as truncated, and nothing more.
        if self.capture.meta.is_none() && self.capture.bytes.len() >= HEADER_LEN {
            self.capture.defects.push(Defect::new(
                DefectKind::MissingReference,
                HEADER_LEN as u64,
                "no META record survived: the capture's level and context are unknown",
            ));
        }
        self.capture.check_frame_order();
        // A scan grew the index frame by frame; what it over-allocated is given back.
        self.capture.frames.shrink_to_fit();
        self.stage = Stage::Done;
    }

    /// How far opening has come, as (done, total) in bytes of the file: bytes scanned or,
    /// when checking the directory, entries checked as an even share each. A scan after a
    /// directory that proved unusable counts on from where the check stopped, so `done`
    /// only grows.
    #[must_use]
    pub fn progress(&self) -> (u64, u64) {
        let len = self.capture.bytes.len() as u64;
        let done = match &self.stage {
            Stage::Directory(check) => check.progress(len),
            Stage::Scan(scanner) => scanner.at as u64,
            Stage::Done => len,
        };
        (self.abandoned + done, self.abandoned + len)
    }

    /// While the file is scanned for its records (it has no usable directory): bytes
    /// walked so far, out of its length.
    #[must_use]
    pub fn scanning(&self) -> Option<(u64, u64)> {
        match &self.stage {
            Stage::Scan(scanner) => Some((scanner.at as u64, self.capture.bytes.len() as u64)),
            _ => None,
        }
    }

    /// Finishes opening (all at once, if steps remain) and returns the capture.
    #[must_use]
    pub fn finish(mut self) -> Capture<'a> {
        while !self.step(usize::MAX) {}
        self.capture
    }
}

impl<'a> Capture<'a> {
    /// Opens a capture. Fails only when the bytes are not an sgpt capture or need a
    /// newer reader; all other damage is listed in [`Capture::defects`].
    pub fn open(bytes: &'a [u8]) -> Result<Self, OpenError> {
        Ok(Opener::new(bytes)?.finish())
    }

    /// [`Capture::open`], a closed capture's frame entries checked against the file on
    /// rayon's current pool: the same capture, the same defects.
    #[cfg(feature = "parallel")]
    pub fn open_parallel(bytes: &'a [u8]) -> Result<Self, OpenError> {
        let mut opener = Opener::new(bytes)?;
        if let Stage::Directory(check) = &mut opener.stage {
            check.precheck = Some(frames_listed_in_parallel);
        }
        Ok(opener.finish())
    }

    /// Loads one record the walk found: a frame into the index, anything else into the
    /// model. Called in file order, as symbols are introduced in that order.
    fn load(&mut self, f: &Found, symbols: &mut SymbolTable) {
        let payload = f.payload(self.bytes);
        let base = (f.offset + RECORD_HEADER_LEN) as u64;
        let mut cursor = Cursor::new(payload, base);
        if f.header.kind == FourCc::FRAM {
            match frame::decode_summary(&mut cursor) {
                Ok(summary) => {
                    self.frames.push(FrameEntry::new(&summary, f.offset as u64, f.header.record_len() as u64));
                }
                Err(error) => {
                    self.unindexed_frames.push(f.offset as u64);
                    self.defects.push(error.into());
                }
            }
            return;
        }
        if self.used_directory && checksum(payload) != f.header.checksum {
            self.defects.push(Defect::new(
                DefectKind::ChecksumMismatch,
                f.offset as u64,
                format!("a {} record's checksum does not match its payload; skipped", f.header.kind),
            ));
            return;
        }
        self.records.push(RecordEntry {
            kind: f.header.kind,
            offset: f.offset as u64,
            len: f.header.record_len() as u64,
        });
        if let Err(error) = self.load_record(f.header.kind, f.offset as u64, &mut cursor, symbols) {
            self.defects.push(error.into());
        }
    }
    fn load_record(
        &mut self,
        kind: FourCc,
        offset: u64,
        cursor: &mut Cursor<'_>,
        symbols: &mut SymbolTable,
    ) -> Result<(), DecodeError> {
        match kind {
            FourCc::META => {
                let meta = meta::decode(cursor)?;
                if self.meta.is_some() {
                    self.defects.push(Defect::new(
                        DefectKind::Malformed,
                        offset,
                        "a second META record; the first was kept",
                    ));
                } else {
                    self.meta = Some(meta);
                }
            }
            FourCc::TOPO => {
                let id = cursor.varint_u32("topology id")?;
                let _content_hash = cursor.u64_le("topology hash")?;
                symbols.read_block(cursor, &mut self.defects)?;
                let topology = topology::decode_body(cursor, symbols)?;
                if self.topologies.insert(id, topology).is_some() {
                    self.defects.push(Defect::new(
                        DefectKind::Malformed,
                        offset,
                        format!("topology {id} is defined twice; the later one was kept"),
                    ));
                }
            }
            FourCc::DECL => {
                symbols.read_block(cursor, &mut self.defects)?;
                for item in declaration::decode_entries(cursor, symbols, &mut self.defects)? {
                    match item {
                        Declaration::Pipeline(p) => drop(self.pipelines.insert(p.id, p)),
                        Declaration::Counter(c) => drop(self.counters.insert(c.id, c)),
                        Declaration::BindGroup(b) => drop(self.bind_groups.insert(b.id, b)),
                        Declaration::Buffer(b) => drop(self.buffers.insert(b.id, b)),
                        Declaration::QuerySet(q) => drop(self.query_sets.insert(q.id, q)),
                    }
                }
            }
            FourCc::NOTE => self.notes.push(note::decode(cursor)?),
            FourCc::MEMO => self.memory.push(memory::decode(cursor)?),
            // The directory was used or deliberately bypassed; either way it adds nothing.
            FourCc::DIRE => {}
            unknown => self.defects.push(Defect::new(
                DefectKind::UnknownRecord,
                offset,
                format!("a {unknown} record is unknown to this reader; skipped {} bytes", cursor.remaining()),
            )),
        }
        Ok(())
    }

    fn check_frame_order(&mut self) {
        for pair in self.frames.windows(2) {
            if pair[1].frame_number <= pair[0].frame_number {
                self.defects.push(Defect::new(
                    DefectKind::Malformed,
                    pair[1].offset,
                    format!(
                        "frame {} follows frame {}: frame numbers must increase",
                        pair[1].frame_number, pair[0].frame_number
                    ),
                ));
            }
        }
    }

    /// The decoded file header. For a file cut inside the header it has no flags and no
    /// directory.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether the frame index came from the directory (rather than a scan).
    #[must_use]
    pub fn used_directory(&self) -> bool {
        self.used_directory
    }

    /// The META record; `None` when none survived (reported as `missing_reference`). With
    /// several, the first.
    #[must_use]
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// The capture's level, from META; `None` when META was lost or names no level.
    #[must_use]
    pub fn level(&self) -> Option<Level> {
        self.meta.as_ref().and_then(|meta| meta.level)
    }

    /// The frame index, in file order. Available without decoding any frame.
    #[must_use]
    pub fn frames(&self) -> &[FrameEntry] {
        &self.frames
    }

    /// Total GPU spans over all frames, from the index.
    #[must_use]
    pub fn span_count(&self) -> u64 {
        self.frames.iter().map(|frame| u64::from(frame.span_count)).sum()
    }

    /// Total spans the recorder dropped (begun but never timed: `Frame::dropped_spans`),
    /// from the index.
    #[must_use]
    pub fn dropped_span_count(&self) -> u64 {
        self.frames.iter().map(|frame| u64::from(frame.dropped_spans)).sum()
    }

    /// The topology with TOPO id `id`; `None` when no intact TOPO defines it. An id
    /// defined twice holds the later definition.
    #[must_use]
    pub fn topology(&self, id: TopologyId) -> Option<&Topology> {
        self.topologies.get(&id)
    }

    /// Every topology that survived, by id.
    pub fn topologies(&self) -> impl Iterator<Item = (TopologyId, &Topology)> {
        self.topologies.iter().map(|(&id, topology)| (id, topology))
    }

    /// How many distinct topology ids survived.
    #[must_use]
    pub fn topology_count(&self) -> usize {
        self.topologies.len()
    }

    /// The pipeline declared with `id`; `None` when no surviving DECL declares it. A
    /// later declaration of the same id replaces an earlier one, as for every kind below.
    #[must_use]
    pub fn pipeline(&self, id: u32) -> Option<&Pipeline> {
        self.pipelines.get(&id)
    }

    /// Every declared pipeline, by id.
    pub fn pipelines(&self) -> impl Iterator<Item = &Pipeline> {
        self.pipelines.values()
    }

    /// The counter declared with `id`; `None` when no surviving DECL declares it.
    #[must_use]
    pub fn counter(&self, id: u32) -> Option<&CounterDef> {
        self.counters.get(&id)
    }

    /// Every declared counter, by id.
    pub fn counters(&self) -> impl Iterator<Item = &CounterDef> {
        self.counters.values()
    }

    /// The counter a provider metric is sampled as (`provider/<metric>`, SGPT_FORMAT.md
    /// §3.8.1); `None` when the capture declares no such provider.
    #[must_use]
    pub fn provider(&self, metric: &str) -> Option<&CounterDef> {
        let name = crate::provider_gauge_name(metric);
        self.counters.values().find(|def| def.name == name)
    }

    /// The bind group declared with `id`; `None` when no surviving DECL declares it.
    #[must_use]
    pub fn bind_group(&self, id: u32) -> Option<&BindGroupDef> {
        self.bind_groups.get(&id)
    }

    /// The buffer declared with `id`; `None` when no surviving DECL declares it.
    #[must_use]
    pub fn buffer(&self, id: u32) -> Option<&BufferDef> {
        self.buffers.get(&id)
    }

    /// The query set declared with `id`; `None` when no surviving DECL declares it.
    #[must_use]
    pub fn query_set(&self, id: u8) -> Option<&QuerySetDef> {
        self.query_sets.get(&id)
    }

    /// Every intact NOTE record, in file order.
    #[must_use]
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The NOTEs about providers (`provider <metric> …`, such as why one is unavailable,
    /// SGPT_FORMAT.md §3.8.1), in file order.
    pub fn provider_notes(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter().filter(|note| note.text.starts_with("provider "))
    }

    /// Every intact MEMO record (one per exported memory capture), in file order.
    #[must_use]
    pub fn memory_records(&self) -> &[MemoryRecord] {
        &self.memory
    }

    /// The records other than frames that were read, in file order.
    #[must_use]
    pub fn records(&self) -> &[RecordEntry] {
        &self.records
    }

    /// Damage found while opening. Frames are checked when decoded: see [`Capture::verify`].
    #[must_use]
    pub fn defects(&self) -> &[Defect] {
        &self.defects
    }

    /// The checked payload of frame `index`.
    fn frame_payload(&self, index: usize) -> Result<Cursor<'a>, Defect> {
        let entry = self.frames.get(index).ok_or_else(|| piece::no_frame(index))?;
        piece::payload(self.bytes, 0, entry)
    }

    /// Frames `frames` (clamped to the capture) with the bytes their records lie in, for a
    /// reader that gets a copy of those bytes alone: see [`FramePiece`].
    #[must_use]
    pub fn piece(&self, frames: std::ops::Range<usize>) -> FramePiece<'_> {
        let end = frames.end.min(self.frames.len());
        let start = frames.start.min(end);
        let entries = &self.frames[start..end];
        let len = self.bytes.len() as u64;
        let base = entries.iter().map(|entry| entry.offset).min().unwrap_or(0).min(len);
        let reach = entries.iter().map(|entry| piece::record_end(self.bytes, entry)).max().unwrap_or(base);
        let bytes = &self.bytes[base as usize..reach.clamp(base, len) as usize];
        FramePiece::new(start, entries, base, bytes)
    }

    /// Decodes frame `index` (an index into [`Capture::frames`]).
    pub fn frame(&self, index: usize) -> Result<Frame, Defect> {
        let mut frame = Frame::default();
        self.frame_into(index, &mut frame)?;
        Ok(frame)
    }

    /// Decodes frame `index` into `frame`, reusing its vectors.
    pub fn frame_into(&self, index: usize, frame: &mut Frame) -> Result<(), Defect> {
        let mut cursor = self.frame_payload(index)?;
        let summary = frame::decode(&mut cursor, frame)?;
        self.check_entry(index, &summary)
    }

    /// Hands each GPU span of frame `index` to `each` without building a `Frame`: the
    /// fast path for statistics.
    pub fn for_each_span(&self, index: usize, each: impl FnMut(Span)) -> Result<(), Defect> {
        let mut cursor = self.frame_payload(index)?;
        let summary = frame::decode_spans(&mut cursor, each)?;
        self.check_entry(index, &summary)
    }

    /// [`Capture::for_each_span`] of frames `a` and `b` at once, a span of each in turn:
    /// about 1.1× the spans a second of one frame at a time (see `spans::decode_two`). Each
    /// result is `for_each_span`'s for that frame; a frame with a defect may have handed
    /// over other spans before it than `for_each_span` would, so drop what it handed over.
    pub fn for_each_span_two(
        &self,
        [a, b]: [usize; 2],
        mut each_a: impl FnMut(Span),
        mut each_b: impl FnMut(Span),
    ) -> [Result<(), Defect>; 2] {
        let [first, second] = match (self.open_frame(a), self.open_frame(b)) {
            (Ok(first), Ok(second)) => spans::decode_two(first.spans, second.spans, &mut each_a, &mut each_b)
                .map(|result| result.map(drop).map_err(drop)),
            // Either did not open: each is read alone.
            _ => [Err(()), Err(())],
        };
        // A frame read alone, or with a defect as `for_each_span` names it (the same
        // bytes fail it too).
        [
            first.or_else(|()| self.for_each_span(a, &mut each_a)),
            second.or_else(|()| self.for_each_span(b, &mut each_b)),
        ]
    }

    /// Frame `index`, opened: see [`OpenFrame`].
    pub(crate) fn open_frame(&self, index: usize) -> Result<OpenFrame<'a>, Defect> {
        piece::open_frame(self.bytes, 0, self.frames.get(index).ok_or_else(|| piece::no_frame(index))?)
    }

    fn check_entry(&self, index: usize, summary: &FrameSummary) -> Result<(), Defect> {
        piece::check_entry(&self.frames[index], summary)
    }

    /// Decodes every frame and returns all defects: those found at open, then each
    /// frame's, including references to topologies or passes that do not exist.
    #[must_use]
    pub fn verify(&self) -> Vec<Defect> {
        self.verify_counting().0
    }

    /// What reads back of the indexed frames and spans, beside what the index claims, and
    /// which frames are lost (decodes every frame, as [`Capture::verify`] does).
    #[must_use]
    pub fn readable_counts(&self) -> ReadableCounts {
        self.verify_counting().1
    }

    /// [`Capture::verify`] and [`Capture::readable_counts`] from one pass over the frames.
    ///
    /// Each frame reports one defect at most, the first of these that applies: no FRAM
    /// where the index says (`corrupt`), its checksum (`checksum_mismatch`), the first
    /// field that fails in the order the fields are stored (`malformed`), its summary
    /// against its index entry (`directory_invalid`), its topology (`missing_reference`),
    /// then the first span, in stored order, beyond its topology's GPU passes
    /// (`malformed`), as SGPT_FORMAT.md §6.8 says.
    #[must_use]
    pub fn verify_counting(&self) -> (Vec<Defect>, ReadableCounts) {
        let (mut frame, mut checks) = (Frame::default(), FrameChecks::default());
        for index in 0..self.frames.len() {
            let _ = self.check_frame(index, &mut frame, &mut checks);
        }
        self.verified(checks)
    }

    /// Decodes frame `index` whole into `frame` (room reused between calls) and adds what
    /// [`Capture::verify_counting`] finds of it to `checks`. Returns the decode's outcome,
    /// as [`Capture::frame_into`] gives it, for a caller that reads the frame too.
    pub fn check_frame(&self, index: usize, frame: &mut Frame, checks: &mut FrameChecks) -> Result<(), Defect> {
        let entry = self.frames.get(index).ok_or_else(|| piece::no_frame(index))?;
        let decoded = self.frame_into(index, frame);
        checks.add(index, entry, decoded.clone(), frame, |id| {
            self.topology(id).map(|topology| topology.gpu_passes.len())
        });
        decoded
    }

    /// [`Capture::verify_counting`]'s answer from `checks` of every indexed frame, in
    /// index order, wherever they were made (a web worker checks pieces of the file):
    /// the defects found at open, then each frame's.
    #[must_use]
    pub fn verified(&self, checks: FrameChecks) -> (Vec<Defect>, ReadableCounts) {
        let counts = ReadableCounts {
            frames: checks.frames,
            frames_indexed: self.frames.len(),
            spans: checks.spans,
            spans_indexed: self.span_count(),
            dropped_spans: checks.dropped_spans,
            dropped_spans_indexed: self.dropped_span_count(),
            lost: checks.lost_frames(),
            unindexed_frame_records: self.unindexed_frames.clone(),
        };
        let mut defects = self.defects.clone();
        defects.extend(checks.defects);
        (defects, counts)
    }

    /// What a piece of this capture's frames is checked with away from it: each
    /// topology's GPU pass count.
    #[must_use]
    pub fn check_share(&self) -> CheckShare {
        CheckShare::new(self.topologies().map(|(id, topology)| (id, topology.gpu_passes.len())).collect())
    }

    /// Whether the capture is closed and nothing is damaged (decodes every frame).
    #[must_use]
    pub fn is_intact(&self) -> bool {
        self.header.closed() && self.verify().is_empty()
    }
}
