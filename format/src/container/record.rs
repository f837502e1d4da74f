//! Record framing (SGPT_FORMAT.md §2.2). Every record, of every type, is framed the same way:
//!
//! ```text
//! offset size field
//!      0    4 sync              u32 LE 0x43455253 ("SREC")
//!      4    4 record_type       FourCC, the four ASCII bytes in file order
//!      8    4 payload_len       u32 LE
//!     12    4 payload_checksum  u32 LE, crc32 (IEEE) of the payload
//!     16    n payload
//! ```

/// "SREC" read as a little-endian u32.
pub const SYNC: u32 = u32::from_le_bytes(*b"SREC");
/// Bytes of framing before every payload: sync, type, payload length and checksum.
pub const RECORD_HEADER_LEN: usize = 16;
/// The largest payload a writer produces and a reader accepts. A frame is kilobytes;
/// this bound stops a hostile length from steering a reader (SGPT_FORMAT.md §2.2:
/// nothing in a record scales with resource size).
pub const MAX_PAYLOAD_LEN: usize = 64 << 20;

/// A record type: four ASCII bytes, stored in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    /// The capture context: level and JSON; exactly one, first (SGPT_FORMAT.md §3.2).
    pub const META: FourCc = FourCc(*b"META");
    /// A frame-graph topology, deduplicated by content (§3.3).
    pub const TOPO: FourCc = FourCc(*b"TOPO");
    /// Declarations of pipelines, counters, bind groups, buffers and query sets (§3.4).
    pub const DECL: FourCc = FourCc(*b"DECL");
    /// One frame (§3.5).
    pub const FRAM: FourCc = FourCc(*b"FRAM");
    /// An annotation on a frame (§3.6).
    pub const NOTE: FourCc = FourCc(*b"NOTE");
    /// The directory: an index of every other record, written last, at stop (§3.7).
    pub const DIRE: FourCc = FourCc(*b"DIRE");
    /// One exported memory capture (§3.8).
    pub const MEMO: FourCc = FourCc(*b"MEMO");

    /// The four bytes read as a little-endian u32, as a record header holds them.
    #[must_use]
    pub fn to_u32(self) -> u32 {
        u32::from_le_bytes(self.0)
    }

    /// The FourCC whose little-endian u32 is `value`; the inverse of [`FourCc::to_u32`].
    #[must_use]
    pub fn from_u32(value: u32) -> Self {
        FourCc(value.to_le_bytes())
    }
}

impl std::fmt::Display for FourCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &byte in &self.0 {
            if byte.is_ascii_graphic() {
                write!(f, "{}", byte as char)?;
            } else {
                write!(f, "\\x{byte:02x}")?;
            }
        }
        Ok(())
    }
}

/// Frames `payload` as one record, appending header and payload to `out`.
#[cfg(test)]
pub fn frame_record(out: &mut Vec<u8>, kind: FourCc, payload: &[u8]) {
    out.extend_from_slice(&SYNC.to_le_bytes());
    out.extend_from_slice(&kind.0);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&checksum(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// The payload checksum. Under `cfg(fuzzing)` it is constant, so a fuzzer gets past it
/// to the decoders.
#[must_use]
pub fn checksum(payload: &[u8]) -> u32 {
    if cfg!(fuzzing) { 0 } else { crc32fast::hash(payload) }
}

/// A record header as found in the file, not yet checked against its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// The record's type.
    pub kind: FourCc,
    /// Payload bytes after the 16-byte framing, as claimed: not yet checked against
    /// [`MAX_PAYLOAD_LEN`] or the file's end.
    pub payload_len: u32,
    /// The stored crc32 (IEEE) of the payload.
    pub checksum: u32,
}

impl RecordHeader {
    /// Reads a record header at `at` if one fits and its sync matches.
    #[must_use]
    pub fn parse(file: &[u8], at: usize) -> Option<Self> {
        let bytes = file.get(at..at.checked_add(RECORD_HEADER_LEN)?)?;
        let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        (word(0) == SYNC).then(|| RecordHeader {
            kind: FourCc([bytes[4], bytes[5], bytes[6], bytes[7]]),
            payload_len: word(8),
            checksum: word(12),
        })
    }

    /// The whole record's length, header included.
    #[must_use]
    pub fn record_len(&self) -> usize {
        RECORD_HEADER_LEN + self.payload_len as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_and_fourccs_are_their_ascii_bytes() {
        assert_eq!(SYNC, 0x4345_5253);
        assert_eq!(FourCc::FRAM.to_u32().to_le_bytes(), *b"FRAM");
        assert_eq!(FourCc::from_u32(FourCc::META.to_u32()), FourCc::META);
        assert_eq!(FourCc(*b"X\0YZ").to_string(), "X\\x00YZ");
    }

    #[test]
    fn a_framed_record_parses_back() {
        let mut out = Vec::new();
        frame_record(&mut out, FourCc::NOTE, b"hello");
        let header = RecordHeader::parse(&out, 0).unwrap();
        assert_eq!(header.kind, FourCc::NOTE);
        assert_eq!(header.payload_len, 5);
        assert_eq!(header.checksum, crc32fast::hash(b"hello"));
        assert_eq!(header.record_len(), out.len());
        assert_eq!(RecordHeader::parse(&out, 1), None);
    }
}
