//! A little-endian bit stream and the one integer code the span columns use.
//!
//! The code is an adaptive Elias–gamma variant with a per-column parameter `k`, chosen
//! by the writer per frame from a histogram of bit lengths:
//!
//! - `v < 2^k`: a `1` bit, then `v` in `k` bits;
//! - otherwise, with `n = bit_length(v)` (so `n > k`): `n - k` zero bits, a `1` bit, then
//!   the low `n - 1` bits of `v` (its top bit is implied).
//!
//! It costs `k + 1` bits below `2^k` and `2n - k` bits above, decodes with one
//! trailing-zero count, and handles every `u64` (a hostile or broken device may report
//! anything). It never looks for a common factor in the values: timestamps are stored
//! as reported, and no quantum is inferred (seed 000 §2.1).

use crate::error::DecodeError;

/// Writes bits LSB-first into a byte vector.
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    len: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, acc: 0, len: 0 }
    }

    /// Appends the low `bits` bits of `value` (`bits <= 32`, higher bits of `value` zero).
    #[inline]
    fn put32(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32 && (bits == 64 || value >> bits == 0));
        self.acc |= value << self.len;
        self.len += bits;
        if self.len >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.len -= 32;
        }
    }

    /// Appends the low `bits` bits of `value`, any `bits <= 64`.
    #[inline]
    pub fn put(&mut self, value: u64, bits: u32) {
        if bits <= 32 {
            self.put32(value, bits);
        } else {
            self.put32(value & 0xffff_ffff, 32);
            self.put32(value >> 32, bits - 32);
        }
    }

    /// Appends `v` in the code described in the module docs.
    #[inline]
    pub fn put_code(&mut self, v: u64, k: u32) {
        if k < 64 && v < (1u64 << k) {
            if k < 32 {
                self.put32((v << 1) | 1, k + 1);
            } else {
                self.put32(1, 1);
                self.put(v, k);
            }
        } else {
            let n = 64 - v.leading_zeros();
            let zeros = n - k;
            if zeros < 32 {
                self.put32(1u64 << zeros, zeros + 1);
            } else {
                self.put(0, zeros);
                self.put32(1, 1);
            }
            self.put(v & mask(n - 1), n - 1);
        }
    }

    /// Flushes the partial byte; the stream is padded with zero bits.
    pub fn finish(self) {
        let mut acc = self.acc;
        let mut len = self.len;
        while len > 0 {
            self.out.push(acc as u8);
            acc >>= 8;
            len = len.saturating_sub(8);
        }
    }
}

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// The cost in bits of `v` with parameter `k`, from its bit length alone.
#[inline]
fn code_bits(bit_len: u32, k: u32) -> u64 {
    if bit_len <= k { u64::from(k) + 1 } else { u64::from(2 * bit_len - k) }
}

/// A histogram of bit lengths (0..=64) from which the cheapest `k` is chosen.
#[derive(Clone, Debug)]
pub struct BitLengths {
    counts: [u32; 65],
    min: u32,
    max: u32,
}

impl Default for BitLengths {
    fn default() -> Self {
        Self { counts: [0; 65], min: 64, max: 0 }
    }
}

impl BitLengths {
    #[inline]
    pub fn add(&mut self, v: u64) {
        let n = 64 - v.leading_zeros();
        self.counts[n as usize] += 1;
        self.min = self.min.min(n);
        self.max = self.max.max(n);
    }

    /// The column's exact size in bits with parameter `k`.
    #[must_use]
    pub fn cost(&self, k: u32) -> u64 {
        (self.min..=self.max).map(|n| u64::from(self.counts[n as usize]) * code_bits(n, k)).sum()
    }

    /// The `k` that minimises the column's total size.
    #[must_use]
    pub fn best_k(&self) -> u32 {
        if self.min > self.max {
            return 0;
        }
        let mut best = (u64::MAX, 0);
        for k in 0..=self.max.min(63) {
            let cost = self.cost(k);
            if cost < best.0 {
                best = (cost, k);
            }
        }
        best.1
    }
}

/// Reads a bit stream written by [`BitWriter`]. Reads past the end yield zero bits and
/// are reported by [`BitReader::check_end`], so decoding never indexes out of bounds.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> BitReader<'a> {
    /// `base` is the absolute file offset of `data[0]`, for errors.
    #[must_use]
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// At least 57 bits from the current position, zero-filled past the end.
    #[inline]
    fn peek(&self) -> u64 {
        let byte = self.pos >> 3;
        let shift = (self.pos & 7) as u32;
        let word = if let Some(bytes) = self.data.get(byte..byte + 8) {
            let mut word = [0; 8];
            word.copy_from_slice(bytes);
            u64::from_le_bytes(word)
        } else {
            let mut word = [0; 8];
            let tail = self.data.get(byte..).unwrap_or(&[]);
            word[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(word)
        };
        word >> shift
    }

    /// Reads `bits <= 64` bits.
    #[inline]
    fn get(&mut self, bits: u32) -> u64 {
        if bits <= 56 {
            let value = self.peek() & mask(bits);
            self.pos += bits as usize;
            value
        } else {
            let low = self.get(32);
            low | (self.get(bits - 32) << 32)
        }
    }

    /// Reads one value written by [`BitWriter::put_code`] with the same `k`.
    #[inline]
    pub fn get_code(&mut self, k: u32) -> Result<u64, DecodeError> {
        let window = self.peek();
        if window & 1 == 1 {
            if k <= 55 {
                self.pos += k as usize + 1;
                return Ok((window >> 1) & mask(k));
            }
            self.pos += 1;
            return Ok(self.get(k));
        }
        let mut zeros = window.trailing_zeros();
        if zeros >= 56 {
            // Too many zeros for one window: count the rest bit by bit (never in real data).
            zeros = 0;
            while self.get(1) == 0 {
                zeros += 1;
                if zeros + k > 64 || self.pos > self.data.len() * 8 {
                    return Err(self.error());
                }
            }
        } else {
            self.pos += zeros as usize + 1;
        }
        let n = zeros + k;
        if n > 64 {
            return Err(self.error());
        }
        Ok((1u64 << (n - 1)) | self.get(n - 1))
    }

    #[cold]
    fn error(&self) -> DecodeError {
        DecodeError::new(self.base + (self.pos / 8).min(self.data.len()) as u64, "span bit stream")
    }

    /// Fails if decoding ran past the end of the stream.
    pub fn check_end(&self) -> Result<(), DecodeError> {
        if self.pos > self.data.len() * 8 { Err(self.error()) } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[u64], k: u32) -> usize {
        let mut out = Vec::new();
        let mut writer = BitWriter::new(&mut out);
        for &v in values {
            writer.put_code(v, k);
        }
        writer.finish();
        let mut reader = BitReader::new(&out, 0);
        for &v in values {
            assert_eq!(reader.get_code(k).unwrap(), v, "k={k}");
        }
        reader.check_end().unwrap();
        out.len()
    }

    #[test]
    fn every_bit_length_round_trips_at_every_k() {
        let mut values = vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1, 1 << 63];
        for n in 0..64 {
            values.push(1u64 << n);
            values.push((1u64 << n) - 1);
            values.push((1u64 << n) | 0x5555_5555_5555_5555 >> (63 - n));
        }
        for k in 0..64 {
            round_trip(&values, k);
        }
    }

    #[test]
    fn the_chosen_k_fits_the_values() {
        let mut lengths = BitLengths::default();
        for v in [40_000u64, 38_000, 45_000, 41_000, 52_000] {
            lengths.add(v);
        }
        let k = lengths.best_k();
        assert!((15..=16).contains(&k), "k={k}");
        // All zeros: one bit each.
        let mut zeros = BitLengths::default();
        zeros.add(0);
        assert_eq!(zeros.best_k(), 0);
        assert_eq!(round_trip(&[0; 64], 0), 8);
    }

    #[test]
    fn truncated_streams_are_errors_not_panics() {
        let mut out = Vec::new();
        let mut writer = BitWriter::new(&mut out);
        writer.put_code(1 << 40, 3);
        writer.finish();
        out.truncate(2);
        let mut reader = BitReader::new(&out, 0);
        let _ = reader.get_code(3);
        assert!(reader.check_end().is_err());
        let zeros = [0u8; 16];
        assert!(BitReader::new(&zeros, 0).get_code(0).is_err());
    }
}
