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
    /// Within the limit, but the page's memory cannot hold what it inflates to beside what
    /// is open (a candidate, when this is its baseline): `needed` bytes, as inflating found
    /// them or, before a byte is inflated, as the stream's trailer gives them.
    #[error("{}", no_room(*needed, *from_trailer))]
    NoRoom { needed: u64, from_trailer: bool },
    #[error("it is gzip-compressed but damaged ({0}); download it again, or open the uncompressed .sgpt")]
    Corrupt(String),
}

/// [`GzipError::NoRoom`]'s words: a trailer's size is what the file says, not yet seen.
fn no_room(needed: u64, from_trailer: bool) -> String {
    let size = crate::units::bytes(needed);
    let inflated = if from_trailer {
        format!("its trailer gives {size} inflated")
    } else {
        format!("inflates to at least {size}")
    };
    format!(
        "it is gzip-compressed and {inflated}, more than this page has room for beside what it holds already {}",
        crate::baseline_room::NO_ROOM_ADVICE
    )
}

/// Inflates a gzip file step by step, within the limit for its compressed size.
#[derive(Debug)]
pub struct Inflater<'a> {
    decoder: MultiGzDecoder<&'a [u8]>,
    out: Vec<u8>,
    limit: u64,
    /// The most the output may take in the page's memory, or `u64::MAX`.
    room: u64,
    /// The inflated size the stream's trailer gives, read before anything is inflated.
    hint: u64,
    compressed_len: usize,
    done: bool,
}

impl<'a> Inflater<'a> {
    /// `room` is the most the file may take in the page's memory (see `baseline_room`;
    /// `u64::MAX` where nothing else is open). The compressed bytes are held while they
    /// inflate, so the output gets that room less their size.
    #[must_use]
    pub fn new(compressed: &'a [u8], room: u64) -> Self {
        let limit = (compressed.len() as u64).saturating_mul(MAX_RATIO).clamp(MIN_LIMIT, MAX_INFLATED_BYTES);
        // ISIZE (the last 4 bytes) is the last member's inflated size mod 2^32: a lower bound
        // on the output within the limit (a member past 4 GiB is past the limit anyway).
        let hint = compressed
            .len()
            .checked_sub(4)
            .and_then(|at| compressed.get(at..))
            .and_then(|tail| tail.try_into().ok())
            .map_or(0, |tail: [u8; 4]| u64::from(u32::from_le_bytes(tail)));
        Self {
            decoder: MultiGzDecoder::new(compressed),
            out: Vec::new(),
            limit,
            room: room.saturating_sub(compressed.len() as u64),
            hint,
            compressed_len: compressed.len(),
            done: false,
        }
    }

    /// Inflates up to about `budget` more bytes. Returns `true` once everything is inflated.
    ///
    /// # Errors
    /// When the output would pass the limit, or the stream is damaged or cut short.
    pub fn step(&mut self, budget: usize) -> Result<bool, GzipError> {
        if self.done {
            return Ok(true);
        }
        if self.out.capacity() == 0 {
            // Refused before a byte is inflated where the trailer already says it cannot fit.
            if self.hint > self.room && self.hint <= self.limit {
                return Err(GzipError::NoRoom { needed: self.hint, from_trailer: true });
            }
            let first = self.hint.min(self.limit).min(self.room);
            // Named by the trailer's size, which is what the words say it is: `first` is
            // that size, or less where the limit capped it.
            self.grow_to(first).map_err(|()| GzipError::NoRoom { needed: self.hint, from_trailer: true })?;
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
            let len = (self.out.len() + read) as u64;
            if len > self.limit {
                return Err(GzipError::TooLarge { limit: self.limit });
            }
            if len > self.room {
                return Err(GzipError::NoRoom { needed: len, from_trailer: false });
            }
            if self.out.len() + read > self.out.capacity() {
                // A quarter more at a time, never past what may be held: doubling could ask
                // for twice the room just as the output nears it.
                let more = (self.out.capacity() as u64 / 4).max(read as u64);
                let capacity = (self.out.capacity() as u64 + more).min(self.limit).min(self.room).max(len);
                self.grow_to(capacity).map_err(|()| GzipError::NoRoom { needed: len, from_trailer: false })?;
            }
            self.out.extend_from_slice(&chunk[..read]);
        }
        Ok(false)
    }

    /// Makes room for `capacity` bytes of output, asking the allocator rather than
    /// aborting where the page's memory cannot grow that far.
    fn grow_to(&mut self, capacity: u64) -> Result<(), ()> {
        let additional = usize::try_from(capacity).unwrap_or(usize::MAX).saturating_sub(self.out.len());
        self.out.try_reserve_exact(additional).map_err(|_| ())
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
    let mut inflater = Inflater::new(compressed, u64::MAX);
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
        let mut inflater = Inflater::new(&compressed, u64::MAX);
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
    fn a_file_that_cannot_fit_is_refused_before_it_inflates() {
        let data = vec![7u8; 1 << 20];
        let compressed = gzip(&data);
        let room = compressed.len() as u64 + (1 << 19);
        // The trailer says a MiB: refused at once, with nothing inflated.
        let mut inflater = Inflater::new(&compressed, room);
        let refused = inflater.step(4096);
        assert_eq!(refused, Err(GzipError::NoRoom { needed: 1 << 20, from_trailer: true }));
        let words = refused.expect_err("refused").to_string();
        assert!(words.contains(&format!("its trailer gives {} inflated", crate::units::bytes(1 << 20))), "{words}");
        assert!(
            words.ends_with(
                "beside what it holds already (a web page's WebAssembly has at most 4 GiB); open it alone, or \
                 compare long captures with `sgpt diff` on the command line"
            ),
            "{words}"
        );
        assert_eq!(inflater.inflated(), 0);
        // With room for the compressed bytes and the output together, it inflates whole.
        let mut inflater = Inflater::new(&compressed, compressed.len() as u64 + (1 << 20));
        while !inflater.step(100_000).expect("it fits") {}
        assert_eq!(inflater.finish(), data);
    }

    #[test]
    fn a_file_whose_trailer_says_less_stops_at_the_room() {
        // Four members; the trailer names only the last, a quarter of the output.
        let compressed = gzip(&vec![3u8; 1 << 18]).repeat(4);
        let room = compressed.len() as u64 + (1 << 19);
        let mut inflater = Inflater::new(&compressed, room);
        let error = loop {
            match inflater.step(10_000) {
                Ok(done) => assert!(!done, "a MiB cannot fit in half of one"),
                Err(error) => break error,
            }
            assert!(inflater.inflated() as u64 <= 1 << 19, "never past the room");
            assert!(inflater.out.capacity() as u64 <= 1 << 19, "nor asks for more");
        };
        assert!(matches!(error, GzipError::NoRoom { needed, from_trailer: false } if needed > 1 << 19), "{error:?}");
        assert!(error.to_string().contains("inflates to at least"), "{error}");
        assert!(error.to_string().contains("`sgpt diff`"), "{error}");
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
