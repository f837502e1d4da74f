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
//! as reported, and no quantum is inferred (SGPT_FORMAT.md §5).

use crate::error::DecodeError;

/// Writes bits LSB-first into a byte slice that has 8 bytes of slack past the stream's
/// end: every put stores the whole accumulator and advances by whole bytes, so the hot
/// path has no data-dependent branch.
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut [u8],
    /// Bytes completed.
    pos: usize,
    /// Pending bits (fewer than 8 between puts).
    acc: u64,
    len: u32,
}

impl<'a> BitWriter<'a> {
    /// `out` must hold the stream's bytes plus 8 bytes of slack.
    pub fn new(out: &'a mut [u8]) -> Self {
        Self { out, pos: 0, acc: 0, len: 0 }
    }

    /// Appends the low `bits <= 56` bits of `value` (its higher bits zero).
    #[inline(always)]
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 56 && value >> bits == 0);
        self.acc |= value << self.len;
        self.len += bits;
        let word = self.out.get_mut(self.pos..).and_then(<[u8]>::first_chunk_mut::<8>);
        // The caller's 8 bytes of slack: never `None` but for a misuse, where the bits stop.
        if let Some(word) = word {
            *word = self.acc.to_le_bytes();
        }
        let bytes = self.len / 8;
        self.pos += bytes as usize;
        // `bytes <= 7`, so the shift stays below 64.
        self.acc >>= bytes * 8;
        self.len -= bytes * 8;
    }

    /// Appends the low `bits <= 64` bits of `value`.
    fn put_wide(&mut self, value: u64, bits: u32) {
        if bits <= 32 {
            self.put(value & mask(bits), bits);
        } else {
            self.put(value & 0xffff_ffff, 32);
            self.put((value >> 32) & mask(bits - 32), bits - 32);
        }
    }

    /// Appends `v` in the code described in the module docs.
    #[inline(always)]
    pub fn put_code(&mut self, v: u64, k: u32) {
        match Code::of(v, k) {
            Code::Fits { bits, len } => self.put(bits, len),
            Code::Wide { zeros, payload_bits } => self.put_code_wide(v, zeros, payload_bits),
        }
    }

    /// Appends `a` with parameter `ka`, then `b` with `kb` (a span's gap and duration):
    /// one store when both codes fit in it together, which real timings almost always do.
    #[inline(always)]
    pub fn put_code_pair(&mut self, a: u64, ka: u32, b: u64, kb: u32) {
        match (Code::of(a, ka), Code::of(b, kb)) {
            (Code::Fits { bits: first, len: first_len }, Code::Fits { bits: second, len: second_len })
                if first_len + second_len <= 56 =>
            {
                self.put(first | second << first_len, first_len + second_len);
            }
            _ => self.put_codes_apart(a, ka, b, kb),
        }
    }

    /// Kept out of the pair's loop, so its state stays in registers.
    #[cold]
    #[inline(never)]
    fn put_codes_apart(&mut self, a: u64, ka: u32, b: u64, kb: u32) {
        self.put_code(a, ka);
        self.put_code(b, kb);
    }

    #[cold]
    fn put_code_wide(&mut self, v: u64, zeros: u32, payload_bits: u32) {
        self.put_wide(0, zeros);
        self.put(1, 1);
        self.put_wide(v, payload_bits);
    }

    /// The stream's length in bytes, the last one padded with zero bits.
    #[must_use]
    pub fn finish(self) -> usize {
        self.pos + usize::from(self.len > 0)
    }
}

/// One value's code, made before it is stored.
enum Code {
    /// The whole code in `len <= 56` bits, first bit lowest.
    Fits { bits: u64, len: u32 },
    /// Too long for one store: stored piece by piece.
    Wide { zeros: u32, payload_bits: u32 },
}

impl Code {
    #[inline(always)]
    fn of(v: u64, k: u32) -> Self {
        let n = 64 - v.leading_zeros();
        let long = n > k;
        // Short form: a one, then k bits. Long form: n − k zeros, a one, then n − 1 bits.
        let zeros = if long { n - k } else { 0 };
        let payload_bits = if long { n - 1 } else { k };
        let len = zeros + 1 + payload_bits;
        if len <= 56 {
            // `payload_bits < 56` here, so the mask needs no wide case.
            let payload = v & ((1u64 << payload_bits) - 1);
            Self::Fits { bits: (1 | (payload << 1)) << zeros, len }
        } else {
            Self::Wide { zeros, payload_bits }
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
}

impl Default for BitLengths {
    fn default() -> Self {
        Self { counts: [0; 65] }
    }
}

impl BitLengths {
    #[inline(always)]
    pub fn add(&mut self, v: u64) {
        self.counts[(64 - v.leading_zeros()) as usize] += 1;
    }

    /// The histogram of `v / 2` from that of even values `v`: each nonzero length one
    /// shorter. A column with no negative value, histogrammed zigzagged (`2v`), gets its
    /// own histogram so without a second pass.
    #[must_use]
    pub fn halved(&self) -> Self {
        let mut counts = [0; 65];
        counts[0] = self.counts[0];
        counts[..64].iter_mut().skip(1).zip(&self.counts[2..]).for_each(|(to, &from)| *to = from);
        debug_assert_eq!(self.counts[1], 0, "an odd value: not a doubled one");
        Self { counts }
    }

    /// The occupied bit lengths, `min..=max` (empty when nothing was added).
    fn span(&self) -> (u32, u32) {
        let min = self.counts.iter().position(|&c| c > 0).unwrap_or(65) as u32;
        let max = self.counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        (min, max)
    }

    /// The column's exact size in bits with parameter `k`.
    #[must_use]
    pub fn cost(&self, k: u32) -> u64 {
        let (min, max) = self.span();
        (min..=max).map(|n| u64::from(self.counts[n as usize]) * code_bits(n, k)).sum()
    }

    /// The `k` that minimises the column's total size (the smallest such `k`).
    ///
    /// One walk over the lengths: with `C(k)` values of length at most `k` and the rest
    /// `R(k)`, whose lengths sum to `L(k)`, the cost is `(k + 1)·C(k) + 2·L(k) − k·R(k)`.
    /// Trying each `k` with [`Self::cost`] instead is quadratic, which a frame of a few
    /// spans pays for in full.
    #[must_use]
    pub fn best_k(&self) -> u32 {
        let (min, max) = self.span();
        if min > max {
            return 0;
        }
        let count: u64 = self.counts.iter().map(|&c| u64::from(c)).sum();
        let mut rest_lengths: u64 = (min..=max).map(|n| u64::from(n) * u64::from(self.counts[n as usize])).sum();
        let mut at_most = 0u64;
        let mut best = (u64::MAX, 0);
        for k in 0..=max.min(63) {
            let here = u64::from(self.counts[k as usize]);
            at_most += here;
            rest_lengths -= u64::from(k) * here;
            let k64 = u64::from(k);
            let cost = (k64 + 1) * at_most + 2 * rest_lengths - k64 * (count - at_most);
            if cost < best.0 {
                best = (cost, k);
            }
        }
        best.1
    }
}

/// Reads a bit stream written by [`BitWriter`]. Reads past the end yield zero bits and
/// are reported by [`BitReader::check_end`], so decoding never indexes out of bounds.
///
/// A classic refilling reader: `buf` holds at least 56 unread bits after each refill,
/// loaded eight bytes at a time.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// The next byte to load into `buf`.
    next: usize,
    /// Unread bits, LSB first. Bits above `avail` are either zero or the stream's own
    /// next bits, so reloading them is harmless.
    buf: u64,
    avail: u32,
    /// Zero bits appended past the end of `data`.
    padding: u64,
    base: u64,
}

impl<'a> BitReader<'a> {
    /// `base` is the absolute file offset of `data[0]`, for errors.
    #[must_use]
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, next: 0, buf: 0, avail: 0, padding: 0, base }
    }

    /// Makes at least 56 bits available.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(bytes) = self.data.get(self.next..self.next + 8) {
            let mut word = [0; 8];
            word.copy_from_slice(bytes);
            self.buf |= u64::from_le_bytes(word) << self.avail;
            let whole_bytes = (63 - self.avail) / 8;
            self.next += whole_bytes as usize;
            self.avail += whole_bytes * 8;
        } else {
            self.refill_tail();
        }
    }

    /// Near the end: byte by byte, zero bits past it. Stops at 56..=63 bits, never 64,
    /// so no later shift or consume reaches the word size.
    #[cold]
    fn refill_tail(&mut self) {
        while self.avail < 56 {
            if let Some(&byte) = self.data.get(self.next) {
                self.buf |= u64::from(byte) << self.avail;
                self.next += 1;
            } else {
                self.padding += 8;
            }
            self.avail += 8;
        }
    }

    #[inline(always)]
    fn consume(&mut self, bits: u32) {
        debug_assert!(bits <= self.avail && bits < 64);
        self.buf >>= bits;
        self.avail -= bits;
    }

    /// Reads `bits <= 64` bits.
    fn get(&mut self, bits: u32) -> u64 {
        if bits <= 56 {
            self.refill();
            let value = self.buf & mask(bits);
            self.consume(bits);
            value
        } else {
            let low = self.get(32);
            low | (self.get(bits - 32) << 32)
        }
    }

    /// Reads one value written by [`BitWriter::put_code`] with the same `k`.
    ///
    /// Branch-free in the common case: whether a value took the short or the long form
    /// is a coin flip on real timings, so it is computed rather than branched on.
    #[inline(always)]
    pub fn get_code(&mut self, k: u32) -> Result<u64, DecodeError> {
        self.refill();
        let window = self.buf;
        let zeros = window.trailing_zeros();
        let long = u32::from(zeros != 0);
        // Short form (no zeros): k payload bits. Long form: n − 1 = zeros + k − 1 bits
        // under an implied top bit.
        let payload_bits = zeros + k - long;
        let total = zeros + 1 + payload_bits;
        if total > 56 {
            return self.get_code_wide(k);
        }
        let payload = (window >> (zeros + 1)) & mask(payload_bits);
        self.consume(total);
        Ok((u64::from(long) << payload_bits) | payload)
    }

    /// Reads two consecutive values (a span's gap and duration) from one refill when
    /// both fit in it, which real timings almost always do; otherwise one at a time.
    #[inline(always)]
    pub fn get_code_pair(&mut self, k1: u32, k2: u32) -> Result<(u64, u64), DecodeError> {
        self.refill();
        let window = self.buf;
        let zeros = window.trailing_zeros();
        let long = u32::from(zeros != 0);
        let payload_bits = zeros + k1 - long;
        let first_bits = zeros + 1 + payload_bits;
        if first_bits <= 56 {
            let first = (u64::from(long) << payload_bits) | ((window >> (zeros + 1)) & mask(payload_bits));
            let rest = window >> first_bits;
            let zeros = rest.trailing_zeros();
            let long = u32::from(zeros != 0);
            let payload_bits = zeros + k2 - long;
            let second_bits = zeros + 1 + payload_bits;
            // Only bits below `avail` are known: the second value must end within them.
            if first_bits + second_bits <= self.avail && second_bits <= 56 {
                let second = (u64::from(long) << payload_bits) | ((rest >> (zeros + 1)) & mask(payload_bits));
                self.consume(first_bits + second_bits);
                return Ok((first, second));
            }
        }
        Ok((self.get_code(k1)?, self.get_code(k2)?))
    }

    /// [`BitReader::get_code_pair`] where nothing rare happens: eight whole bytes left to
    /// load and both codes within one refill. `None`, having consumed nothing, otherwise.
    /// Nothing cold is called, so a reader held in a local stays in registers: a span's
    /// place in the stream depends on the span before it, and a round trip through memory
    /// on that chain is most of a span's time.
    #[inline(always)]
    pub fn code_pair_fast(&mut self, k1: u32, k2: u32) -> Option<(u64, u64)> {
        let bytes = self.data.get(self.next..self.next + 8)?;
        let mut word = [0; 8];
        word.copy_from_slice(bytes);
        let window = self.buf | (u64::from_le_bytes(word) << self.avail);
        let whole_bytes = (63 - self.avail) / 8;
        let avail = self.avail + whole_bytes * 8;
        let zeros = window.trailing_zeros();
        let long = u64::from(zeros != 0);
        let payload_bits = zeros + k1 - long as u32;
        let first_bits = zeros + 1 + payload_bits;
        let rest = window.checked_shr(first_bits)?;
        let zeros2 = rest.trailing_zeros();
        let long2 = u64::from(zeros2 != 0);
        let payload_bits2 = zeros2 + k2 - long2 as u32;
        let second_bits = zeros2 + 1 + payload_bits2;
        let total = first_bits + second_bits;
        if first_bits > 56 || second_bits > 56 || total > avail {
            return None;
        }
        // Both payloads are under 56 bits, so their masks are plain shifts.
        let first = (long << payload_bits) | ((window >> (zeros + 1)) & ((1 << payload_bits) - 1));
        let second = (long2 << payload_bits2) | ((rest >> (zeros2 + 1)) & ((1 << payload_bits2) - 1));
        self.next += whole_bytes as usize;
        self.buf = window >> total;
        self.avail = avail - total;
        Some((first, second))
    }

    /// [`BitReader::get_code_pair`], the reader passed and returned by value so that the
    /// caller's copy never has its address taken: where [`BitReader::code_pair_fast`]
    /// declines.
    #[cold]
    #[inline(never)]
    pub fn code_pair_slow(mut self, k1: u32, k2: u32) -> (Self, Result<(u64, u64), DecodeError>) {
        let pair = self.get_code_pair(k1, k2);
        (self, pair)
    }

    /// The same code when it does not fit one refill: very long prefixes or `k > 55`.
    #[cold]
    fn get_code_wide(&mut self, k: u32) -> Result<u64, DecodeError> {
        // Where the code starts: a zero run too long is reported at the zero that made
        // `z + k` exceed 64, stream bit `start + 64 − k` (SGPT_FORMAT.md §4.3).
        let too_long = self.position() + u64::from(64 - k);
        self.refill();
        let window = self.buf;
        if window & 1 == 1 {
            self.consume(1);
            return Ok(self.get(k));
        }
        let zeros = window.trailing_zeros();
        let zeros = if zeros < 56 {
            self.consume(zeros + 1);
            zeros
        } else {
            self.long_prefix(k).map_err(|_| self.error_at(too_long))?
        };
        let n = zeros + k;
        if n > 64 {
            return Err(self.error_at(too_long));
        }
        Ok((1u64 << (n - 1)) | self.get(n - 1))
    }

    /// Counts a run of 56 or more zero bits and its closing one (never in real data).
    #[cold]
    fn long_prefix(&mut self, k: u32) -> Result<u32, DecodeError> {
        let mut zeros = 0;
        while self.get(1) == 0 {
            zeros += 1;
            if zeros + k > 64 || self.padding > 64 {
                return Err(self.error());
            }
        }
        Ok(zeros)
    }

    /// The file offset of the stream's first byte.
    #[cfg(test)]
    pub(crate) fn base(&self) -> u64 {
        self.base
    }

    /// Bits consumed so far.
    fn position(&self) -> u64 {
        self.next as u64 * 8 + self.padding - u64::from(self.avail)
    }

    #[cold]
    fn error(&self) -> DecodeError {
        self.error_at(self.position())
    }

    /// A failure at stream bit `bit`: reported at the byte that holds it, or, past the
    /// stream, at the first byte after it, where the missing bits would have been.
    #[cold]
    fn error_at(&self, bit: u64) -> DecodeError {
        let byte = (bit / 8).min(self.data.len() as u64);
        DecodeError::new(self.base + byte, "span bit stream")
    }

    /// Fails if decoding ran past the end of the stream: reported at the first byte
    /// after it.
    pub fn check_end(&self) -> Result<(), DecodeError> {
        if self.position() > self.data.len() as u64 * 8 { Err(self.error_at(self.position())) } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(values: &[u64], k: u32) -> Vec<u8> {
        let mut out = vec![0; values.len() * 17 + 8];
        let mut writer = BitWriter::new(&mut out);
        for &v in values {
            writer.put_code(v, k);
        }
        let len = writer.finish();
        out.truncate(len);
        out
    }

    fn round_trip(values: &[u64], k: u32) -> usize {
        let out = encode(values, k);
        let mut lengths = BitLengths::default();
        values.iter().for_each(|&v| lengths.add(v));
        assert_eq!(out.len() as u64, lengths.cost(k).div_ceil(8), "the histogram predicts the size exactly");
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
    fn the_fast_pair_reads_what_the_general_one_does_or_declines_having_read_nothing() {
        let mut rng = crate::synth::Rng::new(17);
        let (mut fast, mut declined) = (0, 0);
        for trial in 0..20_000 {
            let ks = [(0, 0), (7, 11), (16, 24), (31, 5), (55, 56), (63, 64), (12, 12)][trial % 7];
            let count = 2 * (1 + rng.below(12) as usize);
            let values: Vec<u64> = (0..count)
                .map(|at| {
                    let k = if at % 2 == 0 { ks.0 } else { ks.1 };
                    let bits = match rng.below(3) {
                        0 => rng.below(65) as u32,
                        _ => (k + rng.below(4) as u32).min(64),
                    };
                    if bits == 0 { 0 } else { rng.next_u64() >> (64 - bits) }
                })
                .collect();
            let mut out = vec![0; values.len() * 17 + 8];
            let mut writer = BitWriter::new(&mut out);
            for pair in values.chunks(2) {
                writer.put_code_pair(pair[0], ks.0, pair[1], ks.1);
            }
            let len = writer.finish();
            out.truncate(len);
            let mut reader = BitReader::new(&out, 0);
            for pair in values.chunks(2) {
                let before = (reader.next, reader.buf, reader.avail, reader.padding);
                let read = match reader.code_pair_fast(ks.0, ks.1) {
                    Some(read) => {
                        fast += 1;
                        read
                    }
                    None => {
                        declined += 1;
                        assert_eq!((reader.next, reader.buf, reader.avail, reader.padding), before, "consumed nothing");
                        let (back, read) = reader.code_pair_slow(ks.0, ks.1);
                        reader = back;
                        read.unwrap()
                    }
                };
                assert_eq!(read, (pair[0], pair[1]), "ks={ks:?}");
            }
            reader.check_end().unwrap();
        }
        // Both ways were taken, many times each.
        assert!(fast > 10_000 && declined > 10_000, "fast {fast}, declined {declined}");
    }

    #[test]
    fn every_stream_length_and_pairing_decodes_at_the_tail() {
        // The tail refill runs on the last bytes of every stream; walk it through all
        // alignments, single and paired reads, with values of every width around k.
        let mut rng = crate::synth::Rng::new(9);
        for trial in 0..20_000 {
            let k = [0, 1, 7, 11, 16, 24, 31, 55, 56, 63, 64][trial % 11];
            let count = 1 + rng.below(24) as usize;
            // Widths near k and near the refill boundary, where the tail cases live.
            let values: Vec<u64> = (0..count)
                .map(|_| {
                    let bits = match rng.below(3) {
                        0 => rng.below(65) as u32,
                        1 => (k + rng.below(6) as u32).min(64),
                        _ => 20 + rng.below(13) as u32,
                    };
                    if bits == 0 { 0 } else { rng.next_u64() >> (64 - bits) }
                })
                .collect();
            {
                let bytes = encode(&values, k);
                let mut single = BitReader::new(&bytes, 0);
                for &v in &values {
                    assert_eq!(single.get_code(k).unwrap(), v, "k={k} count={count}");
                }
                single.check_end().unwrap();
                let mut paired = BitReader::new(&bytes, 0);
                for pair in values.chunks(2) {
                    if let [a, b] = *pair {
                        assert_eq!(paired.get_code_pair(k, k).unwrap(), (a, b), "k={k} count={count}");
                    } else {
                        assert_eq!(paired.get_code(k).unwrap(), pair[0]);
                    }
                }
                paired.check_end().unwrap();
            }
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
    fn a_pair_writes_the_same_bits_as_its_two_codes() {
        let mut rng = crate::synth::Rng::new(5);
        for _ in 0..20_000 {
            let ks = [rng.below(65) as u32, rng.below(65) as u32];
            let values: Vec<u64> = (0..6)
                .map(|_| {
                    let bits = rng.below(65) as u32;
                    if bits == 0 { 0 } else { rng.next_u64() >> (64 - bits) }
                })
                .collect();
            let one_by_one = {
                let mut out = vec![0; 6 * 17 + 8];
                let mut writer = BitWriter::new(&mut out);
                for (at, &v) in values.iter().enumerate() {
                    writer.put_code(v, ks[at % 2]);
                }
                let len = writer.finish();
                out.truncate(len);
                out
            };
            let mut out = vec![0; 6 * 17 + 8];
            let mut writer = BitWriter::new(&mut out);
            for pair in values.chunks(2) {
                writer.put_code_pair(pair[0], ks[0], pair[1], ks[1]);
            }
            let len = writer.finish();
            out.truncate(len);
            assert_eq!(out, one_by_one, "k={ks:?} values={values:?}");
        }
    }

    #[test]
    fn halving_a_histogram_of_doubled_values_gives_the_values_histogram() {
        let values = [0u64, 1, 2, 3, 1000, (1 << 62) + 5, (1 << 63) - 1];
        let (mut plain, mut doubled) = (BitLengths::default(), BitLengths::default());
        for &v in &values {
            plain.add(v);
            doubled.add(v * 2);
        }
        assert_eq!(doubled.halved().counts, plain.counts);
    }

    #[test]
    fn the_chosen_k_is_the_smallest_of_the_cheapest() {
        let mut rng = crate::synth::Rng::new(3);
        for trial in 0..2_000 {
            let mut lengths = BitLengths::default();
            let centre = rng.below(60) as u32;
            for _ in 0..1 + rng.below(200) {
                let bits = if trial % 3 == 0 { rng.below(65) as u32 } else { (centre + rng.below(5) as u32).min(64) };
                lengths.add(if bits == 0 { 0 } else { rng.next_u64() >> (64 - bits) | 1 << (bits - 1) });
            }
            let costs: Vec<u64> = (0..64).map(|k| lengths.cost(k)).collect();
            let cheapest = *costs.iter().min().unwrap_or(&0);
            let expected = costs.iter().position(|&cost| cost == cheapest).unwrap_or(0) as u32;
            assert_eq!(lengths.best_k(), expected, "trial {trial}");
        }
    }

    #[test]
    fn truncated_streams_are_errors_not_panics() {
        let mut out = encode(&[1 << 40], 3);
        out.truncate(2);
        let mut reader = BitReader::new(&out, 0);
        let _ = reader.get_code(3);
        assert!(reader.check_end().is_err());
        let zeros = [0u8; 16];
        assert!(BitReader::new(&zeros, 0).get_code(0).is_err());
    }

    #[test]
    fn a_code_past_the_stream_is_reported_at_the_byte_after_it() {
        // k = 8 wants 9 bits from a 1-byte stream.
        let mut reader = BitReader::new(&[0x01], 100);
        reader.get_code(8).unwrap();
        assert_eq!(reader.check_end().unwrap_err().offset, 101);
    }

    #[test]
    fn a_zero_run_too_long_is_reported_at_the_zero_that_made_it_too_long() {
        // After one short code of k = 60 (61 bits), a code of k = 60 starts at bit 61:
        // its fifth zero, bit 61 + 4 = 65 in byte 8, makes z + k = 65.
        let mut stream = [0u8; 12];
        stream[0] = 1;
        let mut reader = BitReader::new(&stream, 100);
        reader.get_code(60).unwrap();
        assert_eq!(reader.get_code(60).unwrap_err().offset, 108);
        // With k = 0 the 65th zero, bit 64 of a code at bit 0, is in byte 8.
        let zeros = [0u8; 16];
        assert_eq!(BitReader::new(&zeros, 100).get_code(0).unwrap_err().offset, 108);
        // With k = 64 the first zero already does, at the code's own first bit.
        assert_eq!(BitReader::new(&zeros, 100).get_code(64).unwrap_err().offset, 100);
        // A run that the stream's end cuts first is reported after the stream.
        assert_eq!(BitReader::new(&[0u8; 4], 100).get_code(0).unwrap_err().offset, 104);
    }
}
