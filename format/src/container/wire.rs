//! Byte-level primitives shared by every record: LEB128 varints, zigzag, length-prefixed
//! strings, and a bounds-checked cursor that never panics on hostile input.

use crate::error::DecodeError;

/// Appends `value` as an unsigned LEB128 varint (1–10 bytes).
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Maps signed to unsigned so small magnitudes of either sign stay small.
#[inline]
#[must_use]
pub fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

#[inline]
#[must_use]
pub fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Appends a string as a varint byte length followed by its UTF-8 bytes.
pub fn put_str(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// `Some(i)` is written as `i + 1`, `None` as 0.
#[inline]
pub fn put_opt_index(out: &mut Vec<u8>, index: Option<u32>) {
    put_varint(out, index.map_or(0, |i| u64::from(i) + 1));
}

/// `base + delta` as a `u32` index; `None` when it leaves that range, as only hostile
/// input makes it (checked, so debug builds do not panic on overflow either).
#[must_use]
pub fn apply_delta(base: u32, delta: i64) -> Option<u32> {
    i64::from(base).checked_add(delta).and_then(|value| u32::try_from(value).ok())
}

/// A forward reader over one record's payload. Every read is bounds-checked, and every
/// error names the absolute file offset where it happened.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`, for error messages.
    base: u64,
}

impl<'a> Cursor<'a> {
    #[must_use]
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// Absolute file offset of the next byte.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[must_use]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[cold]
    fn error(&self, what: &'static str) -> DecodeError {
        DecodeError::new(self.offset(), what)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        let byte = *self.data.get(self.pos).ok_or_else(|| self.error(what))?;
        self.pos += 1;
        Ok(byte)
    }

    pub fn bytes(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        if len > self.remaining() {
            return Err(self.error(what));
        }
        let slice = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(slice)
    }

    pub fn u32_le(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let bytes = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    pub fn u64_le(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let bytes = self.bytes(8, what)?;
        let mut word = [0; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    pub fn f64_le(&mut self, what: &'static str) -> Result<f64, DecodeError> {
        self.u64_le(what).map(f64::from_bits)
    }

    /// An unsigned LEB128 varint of at most 10 bytes whose value fits in 64 bits. Every
    /// failure, an 11th byte, a 10th byte above 1, or a payload that ends inside it, is
    /// reported at its first byte (SGPT_FORMAT.md §7.1): the field, not where reading
    /// stopped, is what a reader names.
    #[inline]
    pub fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let start = self.offset();
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.u8(what).map_err(|_| DecodeError::new(start, what))?;
            if shift == 63 && byte > 1 {
                return Err(DecodeError::new(start, what));
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(DecodeError::new(start, what))
    }

    /// A `v32`: a value of 2^32 or more is reported at the varint's first byte.
    pub fn varint_u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let at = self.offset();
        let value = self.varint(what)?;
        u32::try_from(value).map_err(|_| DecodeError::new(at, what))
    }

    pub fn varint_i64(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        self.varint(what).map(unzigzag)
    }

    /// A varint index written as `i + 1`, 0 meaning none.
    pub fn opt_index(&mut self, what: &'static str) -> Result<Option<u32>, DecodeError> {
        let at = self.offset();
        match self.varint(what)? {
            0 => Ok(None),
            // `u32::MAX` is a valid index, written as 2^32.
            n => u32::try_from(n - 1).map(Some).map_err(|_| DecodeError::new(at, what)),
        }
    }

    /// A count of items each at least `min_item_bytes` long, checked against the bytes
    /// left so that no allocation is sized by an untrusted number. A count that fails is
    /// reported at its varint's first byte.
    pub fn count(&mut self, min_item_bytes: usize, what: &'static str) -> Result<usize, DecodeError> {
        let at = self.offset();
        let count = self.varint(what)?;
        let budget = self.remaining() / min_item_bytes.max(1);
        if count > budget as u64 {
            return Err(DecodeError::new(at, what));
        }
        Ok(count as usize)
    }

    /// A string: a length that overruns is reported at the length's first byte, invalid
    /// UTF-8 at the string's first byte, since the length is sound and the bytes are not
    /// (SGPT_FORMAT.md §7.1).
    pub fn str(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let len = self.count(1, what)?;
        let at = self.offset();
        let bytes = self.bytes(len, what)?;
        std::str::from_utf8(bytes).map_err(|_| DecodeError::new(at, what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_width() {
        let values = [0, 1, 127, 128, 16_383, 16_384, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        let mut out = Vec::new();
        for value in values {
            put_varint(&mut out, value);
        }
        let mut cursor = Cursor::new(&out, 0);
        for value in values {
            assert_eq!(cursor.varint("v").unwrap(), value);
        }
        assert_eq!(cursor.remaining(), 0);
    }

    #[test]
    fn overlong_varint_is_an_error_at_its_start() {
        let bytes = [0xff; 11];
        let error = Cursor::new(&bytes, 100).varint("v").unwrap_err();
        assert_eq!(error.offset, 100);
        let too_big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(Cursor::new(&too_big, 7).varint("v").unwrap_err().offset, 7);
    }

    #[test]
    fn every_field_failure_is_reported_at_the_fields_first_byte() {
        // A varint cut short by the end of the payload: at its first byte, not the end.
        let mut cursor = Cursor::new(&[0x05, 0x80, 0x80], 10);
        cursor.u8("lead").unwrap();
        assert_eq!(cursor.varint("v").unwrap_err().offset, 11);
        // A fixed-width field cut short: at its first byte too.
        let mut cursor = Cursor::new(&[0x05, 1, 2, 3], 10);
        cursor.u8("lead").unwrap();
        assert_eq!(cursor.u64_le("w").unwrap_err().offset, 11);
        // A v32 of 2^32 and a count over the bytes left: at the varint's first byte.
        let mut out = vec![0x05];
        put_varint(&mut out, 1 << 32);
        let mut cursor = Cursor::new(&out, 10);
        cursor.u8("lead").unwrap();
        assert_eq!(cursor.varint_u32("v").unwrap_err().offset, 11);
        let mut cursor = Cursor::new(&[0x05, 0x03, 0x00], 10);
        cursor.u8("lead").unwrap();
        assert_eq!(cursor.count(1, "n").unwrap_err().offset, 11);
        // A string whose bytes are not UTF-8: at its bytes, after a sound length.
        let mut cursor = Cursor::new(&[0x05, 0x02, 0xc3, 0x28], 10);
        cursor.u8("lead").unwrap();
        assert_eq!(cursor.str("s").unwrap_err().offset, 12);
    }

    #[test]
    fn zigzag_round_trips_extremes() {
        for value in [0, -1, 1, i64::MIN, i64::MAX, -12_345] {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn a_count_larger_than_the_bytes_left_is_refused_before_allocating() {
        let mut out = Vec::new();
        put_varint(&mut out, 1 << 40);
        out.extend_from_slice(&[0; 10]);
        assert!(Cursor::new(&out, 0).count(1, "n").is_err());
    }
}
