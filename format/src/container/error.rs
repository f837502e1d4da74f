//! What can go wrong, named, each with the byte offset where it happened
//! (SGPT_FORMAT.md §7). `open` fails only when the bytes are not a capture this reader may
//! read; everything else is a [`Defect`] listed beside what was recovered.

use std::fmt;

/// A malformed field inside one record's payload.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed {what} (at offset {offset:#x})")]
pub struct DecodeError {
    /// Absolute byte offset in the file of the offending field (SGPT_FORMAT.md §7.1).
    pub offset: u64,
    /// The field, named for the defect's detail (`"topology id"`, `"directory span count"`).
    pub what: &'static str,
}

impl DecodeError {
    /// A malformed `what` at absolute file offset `offset`.
    #[cold]
    #[must_use]
    pub fn new(offset: u64, what: &'static str) -> Self {
        Self { offset, what }
    }
}

/// Why [`crate::Capture::open`] refused the bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// The bytes are not a capture: empty, gzip-compressed, a magic other than "SGPT",
    /// under 16 bytes, or a header checksum that does not match bytes `[0, 8)`.
    #[error("not an sgpt capture: {reason} (at offset {offset:#x})")]
    NotSgpt {
        /// Where the check failed: 0 for an empty, gzip or foreign file, 12 for the
        /// checksum, the file length when the file ends inside the header's checked part.
        offset: u64,
        /// What failed, in words.
        reason: &'static str,
    },
    /// The header's `min_reader_version` is above [`crate::READER_VERSION`].
    #[error("needs a newer reader: the capture requires reader version {required}, this reader is version {supported}")]
    NeedsNewerReader {
        /// The capture's `min_reader_version`.
        required: u16,
        /// This reader's version, [`crate::READER_VERSION`].
        supported: u16,
    },
}

/// What kind of damage a reader found and worked around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DefectKind {
    /// The writer never reached stop: no CLOSED flag and no directory.
    NotClosed,
    /// The directory was missing, unreadable or disagreed with the file; records were scanned.
    DirectoryInvalid,
    /// The file ends inside a record (or inside the header).
    Truncated,
    /// Bytes that are not a whole valid record were skipped to resynchronise.
    Corrupt,
    /// A record checksum did not match its payload.
    ChecksumMismatch,
    /// A record of a type this reader does not know was skipped by its length.
    UnknownRecord,
    /// A record checksummed correctly but a field inside it is invalid.
    Malformed,
    /// A record references something (a symbol, a topology) whose defining record was lost.
    MissingReference,
    /// Resynchronisation gave up: too many plausible-looking candidates failed.
    ResyncBudgetExhausted,
}

impl DefectKind {
    /// The stable name used in JSON output and the inspector.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DefectKind::NotClosed => "not_closed",
            DefectKind::DirectoryInvalid => "directory_invalid",
            DefectKind::Truncated => "truncated",
            DefectKind::Corrupt => "corrupt",
            DefectKind::ChecksumMismatch => "checksum_mismatch",
            DefectKind::UnknownRecord => "unknown_record",
            DefectKind::Malformed => "malformed",
            DefectKind::MissingReference => "missing_reference",
            DefectKind::ResyncBudgetExhausted => "resync_budget_exhausted",
        }
    }
}

impl fmt::Display for DefectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Damage found in a capture, where it is, and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Defect {
    /// What kind of damage; its [`DefectKind::name`] is the JSON `kind`.
    pub kind: DefectKind,
    /// Absolute byte offset in the file.
    pub offset: u64,
    /// A human-readable sentence saying what was found.
    pub detail: String,
}

impl Defect {
    /// A defect of `kind` at absolute file offset `offset`.
    #[cold]
    pub fn new(kind: DefectKind, offset: u64, detail: impl Into<String>) -> Self {
        Self { kind, offset, detail: detail.into() }
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (at offset {:#x})", self.kind, self.detail, self.offset)
    }
}

// A frame that fails to decode is returned as its defect.
impl std::error::Error for Defect {}

impl From<DecodeError> for Defect {
    fn from(error: DecodeError) -> Self {
        Defect::new(DefectKind::Malformed, error.offset, format!("malformed {}", error.what))
    }
}

/// Why the writer could not record something.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The sink's `append` or `patch_header` failed. The writer writes nothing after a
    /// failed append; what reached the sink before it stays readable.
    #[error("the sink failed: {0}")]
    Sink(#[from] std::io::Error),
    /// [`crate::Writer::frame`] was given a topology id that no
    /// [`crate::Writer::topology`] call returned. Nothing was written.
    #[error("frame {frame_number} references topology {topology}, which was never written")]
    UnknownTopology {
        /// The refused frame's number.
        frame_number: u64,
        /// The id it named.
        topology: u32,
    },
    /// [`crate::Writer::frame`] was given a frame number not greater than the previous
    /// frame's. Nothing was written.
    #[error("frame numbers must increase: {frame_number} follows {previous}")]
    FrameOrder {
        /// The refused frame's number.
        frame_number: u64,
        /// The number of the last frame written.
        previous: u64,
    },
    /// A record's payload would exceed [`crate::MAX_PAYLOAD_LEN`]. Nothing was written.
    #[error("a record payload of {len} bytes exceeds the format's limit of {limit} bytes")]
    RecordTooLarge {
        /// The payload's length in bytes.
        len: usize,
        /// [`crate::MAX_PAYLOAD_LEN`].
        limit: usize,
    },
    /// The input breaks a writer rule (a META without a level, an invalid META or
    /// topology), or the sink failed earlier so nothing more is written. The text says which.
    #[error("{0}")]
    Invalid(&'static str),
}

// An error stays one small value, so the happy path carries no large `Result`.
const _: () = assert!(size_of::<OpenError>() <= 24);
const _: () = assert!(size_of::<DecodeError>() <= 32);
