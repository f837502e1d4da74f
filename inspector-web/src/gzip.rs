//! Gzip-compressed captures (`.sgpt.gz`), recognised by their magic, not their name.
//!
//! Inflated in Rust rather than with the browser's `DecompressionStream`: the size limit
//! is enforced as the bytes are produced (a gzip bomb stops at the limit, never after),
//! the output lands directly in the buffer the reader opens (no second copy through JS),
//! inflation runs in bounded steps so the page can yield between them, and the same code
//! is tested natively on bombs, truncation and corruption.

use std::io::Read as _;

use flate2::read::MultiGzDecoder;

/// The gzip magic, RFC 1952.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The most a capture may inflate to, whatever its compressed size.
pub const MAX_INFLATED_BYTES: u64 = 1536 << 20;

/// Captures are varint-packed and compress a few times at most; a ratio far beyond
/// this is a bomb, not a capture.
pub const MAX_RATIO: u64 = 64;

/// Any file may inflate to this much, whatever its ratio: small files stay openable.
pub const MIN_LIMIT: u64 = 64 << 20;

#[must_use]
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Why a gzip file could not be inflated. Displays as a sentence fragment that says what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GzipError {
    #[error(
        "it is gzip-compressed and inflates to more than {}, the most this page accepts for its size \
         ({}× it, at least {} and at most {}); a real capture compresses far less (a gzip bomb?). \
         Decompress it yourself if you trust it",
        crate::units::bytes(*limit), MAX_RATIO, crate::units::bytes(MIN_LIMIT), crate::units::bytes(MAX_INFLATED_BYTES)
    )]
    TooLarge { limit: u64 },
    #[error("it is gzip-compressed but damaged ({0}); download it again, or open the uncompressed .sgpt")]
    Corrupt(String),
}

/// Inflates a gzip file step by step, within the limit for its compressed size.
#[derive(Debug)]
pub struct Inflater<'a> {
    decoder: MultiGzDecoder<&'a [u8]>,
    out: Vec<u8>,
    limit: u64,
    compressed_len: usize,
    done: bool,
}

impl<'a> Inflater<'a> {
    #[must_use]
    pub fn new(compressed: &'a [u8]) -> Self {
        let limit = (compressed.len() as u64).saturating_mul(MAX_RATIO).clamp(MIN_LIMIT, MAX_INFLATED_BYTES);
        // ISIZE (the last 4 bytes) is the inflated size mod 2^32: only a hint, capped.
        let hint = compressed
            .len()
            .checked_sub(4)
            .and_then(|at| compressed.get(at..))
            .and_then(|tail| tail.try_into().ok())
            .map_or(0, |tail: [u8; 4]| u64::from(u32::from_le_bytes(tail)));
        let out = Vec::with_capacity(usize::try_from(hint.min(limit)).unwrap_or(0));
        Self { decoder: MultiGzDecoder::new(compressed), out, limit, compressed_len: compressed.len(), done: false }
    }

    /// Inflates up to about `budget` more bytes. Returns `true` once everything is inflated.
    ///
    /// # Errors
    /// When the output would pass the limit, or the stream is damaged or cut short.
    pub fn step(&mut self, budget: usize) -> Result<bool, GzipError> {
        if self.done {
            return Ok(true);
        }
        let target = self.out.len().saturating_add(budget);
        let mut chunk = [0u8; 64 * 1024];
        while self.out.len() < target {
            let want = (target - self.out.len()).min(chunk.len());
            let read = self.decoder.read(&mut chunk[..want]).map_err(|error| GzipError::Corrupt(error.to_string()))?;
            if read == 0 {
                self.done = true;
                return Ok(true);
            }
            if (self.out.len() + read) as u64 > self.limit {
                return Err(GzipError::TooLarge { limit: self.limit });
            }
            self.out.extend_from_slice(&chunk[..read]);
        }
        Ok(false)
    }

    /// Compressed bytes consumed so far, for a progress bar.
    #[must_use]
    pub fn consumed(&self) -> usize {
        self.compressed_len - self.decoder.get_ref().len()
    }

    /// Bytes inflated so far: what the steps did, for the slice they ran in.
    #[must_use]
    pub fn inflated(&self) -> usize {
        self.out.len()
    }

    /// The inflated bytes; call once [`Inflater::step`] returned `true`.
    #[must_use]
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// Inflates `compressed` in one go (tests and small files).
///
/// # Errors
/// As [`Inflater::step`].
pub fn inflate(compressed: &[u8]) -> Result<Vec<u8>, GzipError> {
    let mut inflater = Inflater::new(compressed);
    while !inflater.step(1 << 20)? {}
    Ok(inflater.finish())
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    #[test]
    fn round_trips_in_small_steps() {
        let mut state = 1u32;
        let data: Vec<u8> = (0..300_000)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 24) as u8
            })
            .collect();
        let compressed = gzip(&data);
        assert!(is_gzip(&compressed));
        let mut inflater = Inflater::new(&compressed);
        let mut steps = 0;
        while !inflater.step(10_000).expect("valid") {
            steps += 1;
        }
        assert!(steps >= 29, "{steps} steps");
        assert_eq!(inflater.consumed(), compressed.len());
        assert_eq!(inflater.finish(), data);
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        // 80 gzip members of 1 MiB of zeros each: 80 MiB from about 80 KiB.
        let member = gzip(&vec![0u8; 1 << 20]);
        let compressed = member.repeat(80);
        assert!((compressed.len() as u64) * MAX_RATIO < MIN_LIMIT, "the sample must exceed the ratio");
        assert_eq!(inflate(&compressed), Err(GzipError::TooLarge { limit: MIN_LIMIT }));
        // One member alone is within the floor and inflates whole.
        assert_eq!(inflate(&member).map(|bytes| bytes.len()), Ok(1 << 20));
    }

    #[test]
    fn truncated_or_damaged_streams_are_named() {
        let compressed = gzip(&[1u8; 100_000]);
        let error = inflate(&compressed[..compressed.len() / 2]).expect_err("cut short");
        assert!(matches!(error, GzipError::Corrupt(_)), "{error:?}");
        let mut damaged = compressed.clone();
        let last = damaged.len() - 6;
        damaged[last] ^= 0xff; // inside the CRC
        assert!(matches!(inflate(&damaged), Err(GzipError::Corrupt(_))));
        assert!(!is_gzip(b"SGPT"));
    }
}
