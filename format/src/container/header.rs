//! The 32-byte file header (SGPT_FORMAT.md §2.1).
//!
//! ```text
//! offset size field
//!      0    4 magic                  u32 LE 0x54504753 ("SGPT")
//!      4    2 format_version         u16 LE
//!      6    2 min_reader_version     u16 LE
//!      8    4 flags                  u32 LE, bit0 CLOSED
//!     12    4 header_checksum        u32 LE, crc32 of bytes [0, 8) only
//!     16    8 directory_offset       u64 LE, 0 until stop
//!     24    8 directory_byte_length  u64 LE, 0 until stop
//! ```
//!
//! The checksum stops short of `flags` because everything from there on is patched at
//! stop; a capture that never stops must still checksum correctly.

use crate::error::OpenError;

/// The header's size in bytes; the META record starts right after it.
pub const HEADER_LEN: usize = 32;
/// "SGPT" read as a little-endian u32.
pub const MAGIC: u32 = u32::from_le_bytes(*b"SGPT");
/// The version this crate writes.
pub const FORMAT_VERSION: u16 = 1;
/// The oldest reader that can read what this crate writes.
pub const MIN_READER_VERSION: u16 = 1;
/// The newest `min_reader_version` this reader accepts.
pub const READER_VERSION: u16 = 1;
pub const FLAG_CLOSED: u32 = 1;

/// The decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version the writer wrote.
    pub format_version: u16,
    /// The oldest reader version that may read the capture; above
    /// [`READER_VERSION`] the capture is refused.
    pub min_reader_version: u16,
    /// Bit 0 is CLOSED, set at stop; the other bits are reserved and ignored.
    pub flags: u32,
    /// File offset of the DIRE record; 0 until stop.
    pub directory_offset: u64,
    /// The DIRE record's length, framing included; 0 until stop.
    pub directory_len: u64,
}

impl Header {
    /// A header for a capture still being written: not closed, no directory.
    #[must_use]
    pub fn open() -> Self {
        Self {
            format_version: FORMAT_VERSION,
            min_reader_version: MIN_READER_VERSION,
            flags: 0,
            directory_offset: 0,
            directory_len: 0,
        }
    }

    /// Whether the writer reached stop.
    #[must_use]
    pub fn closed(&self) -> bool {
        self.flags & FLAG_CLOSED != 0
    }

    /// The 32 header bytes, with the checksum computed over bytes `[0, 8)`.
    #[must_use]
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        out[4..6].copy_from_slice(&self.format_version.to_le_bytes());
        out[6..8].copy_from_slice(&self.min_reader_version.to_le_bytes());
        out[8..12].copy_from_slice(&self.flags.to_le_bytes());
        let checksum = crc32fast::hash(&out[0..8]);
        out[12..16].copy_from_slice(&checksum.to_le_bytes());
        out[16..24].copy_from_slice(&self.directory_offset.to_le_bytes());
        out[24..32].copy_from_slice(&self.directory_len.to_le_bytes());
        out
    }

    /// Decodes and checks the trusted part of the header: magic, checksum, reader version.
    ///
    /// A file of 16 to 31 bytes whose checked part checks out is a capture cut inside its
    /// header: it decodes with no flags and no directory, and the caller reports the cut.
    /// Under 16 bytes there is nothing to trust, so it is not an sgpt.
    pub fn decode(bytes: &[u8]) -> Result<Self, OpenError> {
        if bytes.is_empty() {
            return Err(OpenError::NotSgpt { offset: 0, reason: "the file is empty" });
        }
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(OpenError::NotSgpt { offset: 0, reason: "gzip-compressed data; decompress it first" });
        }
        if bytes.len() < 4 || u32_at(bytes, 0) != MAGIC {
            return Err(OpenError::NotSgpt { offset: 0, reason: "the magic is not \"SGPT\"" });
        }
        if bytes.len() < 16 {
            return Err(OpenError::NotSgpt {
                offset: bytes.len() as u64,
                reason: "the file ends inside the header's checked part",
            });
        }
        if u32_at(bytes, 12) != crc32fast::hash(&bytes[0..8]) {
            return Err(OpenError::NotSgpt { offset: 12, reason: "the header checksum does not match" });
        }
        let format_version = u16::from_le_bytes([bytes[4], bytes[5]]);
        let min_reader_version = u16::from_le_bytes([bytes[6], bytes[7]]);
        if min_reader_version > READER_VERSION {
            return Err(OpenError::NeedsNewerReader { required: min_reader_version, supported: READER_VERSION });
        }
        let (flags, directory_offset, directory_len) = if bytes.len() >= HEADER_LEN {
            (u32_at(bytes, 8), u64_at(bytes, 16), u64_at(bytes, 24))
        } else {
            (0, 0, 0)
        };
        Ok(Self { format_version, min_reader_version, flags, directory_offset, directory_len })
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_spells_sgpt_in_file_order() {
        assert_eq!(MAGIC, 0x5450_4753);
        assert_eq!(&Header::open().encode()[0..4], b"SGPT");
    }

    #[test]
    fn header_round_trips_and_patching_keeps_the_checksum_valid() {
        let mut header = Header::open();
        let before = header.encode();
        header.flags = FLAG_CLOSED;
        header.directory_offset = 1234;
        header.directory_len = 56;
        let after = header.encode();
        assert_eq!(before[12..16], after[12..16], "flags and directory are outside the checksum");
        assert_eq!(Header::decode(&after).unwrap(), header);
    }

    #[test]
    fn a_newer_min_reader_version_is_refused_by_name() {
        let mut header = Header::open();
        header.min_reader_version = READER_VERSION + 1;
        let error = Header::decode(&header.encode()).unwrap_err();
        assert_eq!(error, OpenError::NeedsNewerReader { required: 2, supported: 1 });
    }

    #[test]
    fn empty_gzip_and_foreign_bytes_are_named() {
        assert!(Header::decode(&[]).unwrap_err().to_string().contains("empty"));
        assert!(Header::decode(&[0x1f, 0x8b, 8, 0]).unwrap_err().to_string().contains("gzip"));
        assert!(Header::decode(b"PK\x03\x04rest").unwrap_err().to_string().contains("magic"));
        let mut bad = Header::open().encode();
        bad[5] ^= 1;
        assert!(Header::decode(&bad).unwrap_err().to_string().contains("checksum"));
    }
}
