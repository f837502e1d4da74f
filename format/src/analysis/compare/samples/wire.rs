//! A chunk's samples as bytes, for a piece of a range that a worker scanned (see
//! `scan::piece`): little-endian words, then each array's raw values, each padded to a
//! whole word, then the skipped frames' defects as JSON. A piece of the hour-long capture
//! is mostly its usual passes' codes, a byte a frame each, which travel as they are.

use super::{ChunkPart, Durations, RangeSeries, Series};
use crate::error::Defect;

/// The first word: "SGPTSAMP".
const MAGIC: u64 = u64::from_le_bytes(*b"SGPTSAMP");
/// Words before the slots.
const HEAD_WORDS: usize = 6;
/// Words each slot takes before the arrays.
const SLOT_WORDS: usize = 8;

/// What a slot's part or series holds, as a word.
const NONE: u64 = 0;
const NARROW: u64 = 1;
const WIDE: u64 = 2;
const CODES: u64 = 3;

impl ChunkPart {
    /// Appends the samples to `out`, which [`ChunkPart::decode`] reads back.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let defects = if self.defects.is_empty() {
            Vec::new()
        } else {
            serde_json::to_vec(&self.defects).expect("defects are plain data")
        };
        let mut words = Vec::with_capacity(HEAD_WORDS + self.series.len() * SLOT_WORDS + self.frame_ns.len());
        words.extend([
            MAGIC,
            self.series.len() as u64,
            self.frames as u64,
            self.room as u64,
            u64::from(self.lost),
            defects.len() as u64,
        ]);
        for (slot, series) in self.series.iter().enumerate() {
            let owned = match self.owned.get(slot).and_then(Option::as_ref) {
                None => [NONE, 0],
                Some(RangeSeries::Durations(values)) => [NARROW, values.len() as u64],
                Some(RangeSeries::Codes(codes)) => [CODES, codes.len() as u64],
            };
            let values = match &series.values {
                Durations::Narrow(values) => [NARROW, values.len() as u64],
                Durations::Wide(values) => [WIDE, values.len() as u64],
                Durations::Coins { .. } => unreachable!("a chunk's own series keep durations"),
            };
            let starts = series.starts.as_ref().map_or(0, |starts| starts.len() as u64 + 1);
            words.extend([
                u64::from(self.in_place.get(slot) == Some(&true)),
                owned[0],
                owned[1],
                values[0],
                values[1],
                starts,
                series.frames as u64,
                series.frames_present as u64,
            ]);
        }
        words.extend(&self.frame_ns);
        out.extend(words.iter().flat_map(|word| word.to_le_bytes()));
        let pad = |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(8), 0);
        for (slot, series) in self.series.iter().enumerate() {
            match self.owned.get(slot).and_then(Option::as_ref) {
                Some(RangeSeries::Durations(values)) => out.extend(values.iter().flat_map(|v| v.to_le_bytes())),
                Some(RangeSeries::Codes(codes)) => out.extend_from_slice(codes),
                None => {}
            }
            pad(out);
            match &series.values {
                Durations::Narrow(values) => out.extend(values.iter().flat_map(|v| v.to_le_bytes())),
                Durations::Wide(values) => out.extend(values.iter().flat_map(|v| v.to_le_bytes())),
                Durations::Coins { .. } => {}
            }
            pad(out);
            if let Some(starts) = &series.starts {
                out.extend(starts.iter().flat_map(|v| v.to_le_bytes()));
            }
            pad(out);
        }
        out.extend(defects);
    }

    /// Samples [`ChunkPart::encode`] wrote for a range of `slots` slots.
    pub(crate) fn decode(bytes: &[u8], slots: usize) -> Result<ChunkPart, &'static str> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.word()? != MAGIC {
            return Err("its samples are not a chunk's");
        }
        if reader.size()? != slots {
            return Err("its samples are for a share with other rows");
        }
        let (frames, room, lost, defects_len) = (reader.size()?, reader.size()?, reader.word()?, reader.size()?);
        let mut heads = Vec::with_capacity(slots);
        for _ in 0..slots {
            let mut head = [0u64; SLOT_WORDS];
            for word in &mut head {
                *word = reader.word()?;
            }
            heads.push(head);
        }
        if frames > room {
            return Err("its samples hold more frames than the piece");
        }
        let frames_of_chunk = frames;
        let frame_ns = (0..frames).map(|_| reader.word()).collect::<Result<Vec<u64>, _>>()?;
        let (mut series, mut in_place, mut owned) =
            (Vec::with_capacity(slots), Vec::with_capacity(slots), Vec::with_capacity(slots));
        for [placed, owned_kind, owned_len, values_kind, values_len, starts, frames, frames_present] in heads {
            in_place.push(placed == 1);
            let owned_len = usize_of(owned_len)?;
            owned.push(match owned_kind {
                NONE => None,
                NARROW => Some(RangeSeries::Durations(reader.array(owned_len, u32::from_le_bytes)?)),
                CODES => Some(RangeSeries::Codes(reader.take(owned_len)?.to_vec())),
                _ => return Err("a part of its samples is of no known kind"),
            });
            reader.pad();
            let values_len = usize_of(values_len)?;
            let values = match values_kind {
                NARROW => Durations::Narrow(reader.array(values_len, u32::from_le_bytes)?),
                WIDE => Durations::Wide(reader.array(values_len, u64::from_le_bytes)?),
                _ => return Err("a series of its samples is of no known kind"),
            };
            reader.pad();
            let starts = match usize_of(starts)? {
                0 => None,
                len => Some(reader.array(len - 1, u32::from_le_bytes)?),
            };
            reader.pad();
            let one = Series { values, starts, frames: usize_of(frames)?, frames_present: usize_of(frames_present)? };
            if !holds_together(&one, frames_of_chunk) {
                return Err("a series of its samples does not hold together");
            }
            series.push(one);
        }
        let defects: Vec<Defect> = match reader.take(defects_len)? {
            [] => Vec::new(),
            text => serde_json::from_slice(text).map_err(|_| "the defects of its samples do not parse")?,
        };
        Ok(ChunkPart { series, in_place, frame_ns, defects, frames, room, lost: lost != 0, owned })
    }
}

/// Whether `series` is one the scan could have made over a chunk of `frames` analysed
/// frames: no more frames than the chunk, and its spans where its starts (or their
/// absence: one span a frame, or none at all) say. Anything else would fail far from
/// here, in the comparison.
fn holds_together(series: &Series, frames: usize) -> bool {
    let len = series.values.len();
    let starts_fit = match &series.starts {
        None => len == 0 || len == series.frames,
        Some(starts) => {
            starts.len() == series.frames + 1
                && starts.first() == Some(&0)
                && starts.windows(2).all(|pair| pair[0] <= pair[1])
                && starts.last().is_some_and(|&last| last as usize == len)
        }
    };
    series.frames <= frames && series.frames_present <= series.frames && starts_fit
}

/// Reads words and arrays in turn.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, len: usize) -> Result<&'b [u8], &'static str> {
        let end = self.at.checked_add(len).filter(|&end| end <= self.bytes.len()).ok_or("its samples are cut short")?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn word(&mut self) -> Result<u64, &'static str> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes")))
    }

    fn size(&mut self) -> Result<usize, &'static str> {
        usize_of(self.word()?)
    }

    /// `len` values of `N` bytes each.
    fn array<T, const N: usize>(&mut self, len: usize, value: fn([u8; N]) -> T) -> Result<Vec<T>, &'static str> {
        let bytes = self.take(len.checked_mul(N).ok_or("its samples hold more values than bytes")?)?;
        Ok(bytes.chunks_exact(N).map(|chunk| value(chunk.try_into().expect("a chunk of N"))).collect())
    }

    /// Skips to the next whole word.
    fn pad(&mut self) {
        self.at = self.at.next_multiple_of(8).min(self.bytes.len());
    }
}

fn usize_of(word: u64) -> Result<usize, &'static str> {
    usize::try_from(word).map_err(|_| "its samples hold an index beyond this machine's")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk of three frames: one pass in place (codes), one that ran twice in frame 0.
    fn part() -> ChunkPart {
        let mut twice = Series::default();
        twice.add_frame(0, &[5, 6]);
        twice.catch_up(3);
        ChunkPart {
            series: vec![Series::default(), twice],
            in_place: vec![true, false],
            frame_ns: vec![10, 20, 30],
            defects: Vec::new(),
            frames: 3,
            room: 3,
            lost: false,
            owned: vec![Some(RangeSeries::Codes(vec![0, 1, 3])), None],
        }
    }

    fn round_trip(part: &ChunkPart) -> Result<ChunkPart, &'static str> {
        let mut bytes = Vec::new();
        part.encode(&mut bytes);
        ChunkPart::decode(&bytes, part.series.len())
    }

    #[test]
    fn a_chunk_s_samples_come_back_as_they_went() {
        let sent = part();
        let back = round_trip(&sent).expect("decodes");
        assert_eq!(back.series, sent.series);
        assert_eq!((back.in_place, back.frame_ns, back.owned), (sent.in_place, sent.frame_ns, sent.owned));
        assert_eq!((back.frames, back.room, back.lost), (3, 3, false));
    }

    #[test]
    fn samples_that_do_not_hold_together_are_refused() {
        let mut more_frames_than_room = part();
        more_frames_than_room.frames = 4;
        more_frames_than_room.frame_ns.push(40);
        assert!(round_trip(&more_frames_than_room).is_err());
        let mut starts_going_back = part();
        starts_going_back.series[1].starts = Some(vec![0, 2, 1, 2]);
        assert!(round_trip(&starts_going_back).is_err());
        let mut spans_past_the_starts = part();
        spans_past_the_starts.series[1].values = Durations::Narrow(vec![5, 6, 7]);
        assert!(round_trip(&spans_past_the_starts).is_err());
        let mut series_past_the_chunk = part();
        series_past_the_chunk.series[1].catch_up(5);
        assert!(round_trip(&series_past_the_chunk).is_err());
    }
}
