//! A chunk's part of a range's series, written in place (see `ChunkSamples`): each
//! frame's duration, or, in a scan with coins, each frame's code.

use std::sync::LazyLock;

/// A range's series of one span a frame, sized beforehand, for the chunks to write in
/// place: the durations (narrow), or each frame's code against its pass's median window
/// (where a frame may also have no span).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RangeSeries {
    Durations(Vec<u32>),
    Codes(Vec<u8>),
}

/// What a [`RangeSeries`] holds a frame: its duration, or its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum SeriesKind {
    Durations,
    Codes,
}

/// A chunk's part of a [`RangeSeries`]: borrowed from the range's series where chunks
/// run side by side (threads), or its own where a chunk runs apart (a piece of the range
/// scanned by a worker or a step at a time), to be copied into the range's series when
/// it is merged ([`RangeSeries::append`]).
#[derive(Debug)]
pub(crate) enum Part<'b> {
    Durations(Values<'b, u32>),
    Codes(Values<'b, u8>),
}

/// A part's values, borrowed or owned.
#[derive(Debug)]
pub(crate) enum Values<'b, T> {
    Borrowed(&'b mut [T]),
    Owned(Vec<T>),
}

impl<T> std::ops::Deref for Values<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Values::Borrowed(values) => values,
            Values::Owned(values) => values,
        }
    }
}

impl<T> std::ops::DerefMut for Values<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Values::Borrowed(values) => values,
            Values::Owned(values) => values,
        }
    }
}

impl Part<'static> {
    /// A part of its own, `len` frames long.
    pub(crate) fn owned(kind: SeriesKind, len: usize) -> Self {
        match kind {
            SeriesKind::Durations => Part::Durations(Values::Owned(vec![0; len])),
            SeriesKind::Codes => Part::Codes(Values::Owned(vec![0; len])),
        }
    }
}

impl Part<'_> {
    /// The part as a series of its own, where it owns its values.
    pub(crate) fn into_owned(self) -> Option<RangeSeries> {
        match self {
            Part::Durations(Values::Owned(values)) => Some(RangeSeries::Durations(values)),
            Part::Codes(Values::Owned(codes)) => Some(RangeSeries::Codes(codes)),
            Part::Durations(Values::Borrowed(_)) | Part::Codes(Values::Borrowed(_)) => None,
        }
    }
}

impl RangeSeries {
    /// A series of `len` frames, each to be written.
    pub(crate) fn new(kind: SeriesKind, len: usize) -> Self {
        match kind {
            SeriesKind::Durations => RangeSeries::Durations(vec![0; len]),
            SeriesKind::Codes => RangeSeries::Codes(vec![0; len]),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            RangeSeries::Durations(values) => values.len(),
            RangeSeries::Codes(codes) => codes.len(),
        }
    }

    /// The whole series as one part.
    #[cfg(test)]
    pub(crate) fn whole(&mut self) -> Part<'_> {
        match self {
            RangeSeries::Durations(values) => Part::Durations(Values::Borrowed(values)),
            RangeSeries::Codes(codes) => Part::Codes(Values::Borrowed(codes)),
        }
    }

    /// The series' parts, `lens` frames each in turn (together no more than its length).
    pub(crate) fn split(&mut self, lens: impl Iterator<Item = usize>) -> Vec<Part<'_>> {
        fn parts<'b, T>(
            mut rest: &'b mut [T],
            lens: impl Iterator<Item = usize>,
            part: fn(Values<'b, T>) -> Part<'b>,
        ) -> Vec<Part<'b>> {
            lens.map(|len| {
                let (own, later) = std::mem::take(&mut rest).split_at_mut(len);
                rest = later;
                part(Values::Borrowed(own))
            })
            .collect()
        }
        match self {
            RangeSeries::Durations(values) => parts(values, lens, Part::Durations),
            RangeSeries::Codes(codes) => parts(codes, lens, Part::Codes),
        }
    }

    /// A series of `len` frames to be filled in order by [`RangeSeries::append`]: only
    /// room, none of it written (zeroing a long range's series at once took tens of ms in
    /// wasm, and its pages are touched as the pieces arrive instead).
    pub(crate) fn room(kind: SeriesKind, len: usize) -> Self {
        match kind {
            SeriesKind::Durations => RangeSeries::Durations(Vec::with_capacity(len)),
            SeriesKind::Codes => RangeSeries::Codes(Vec::with_capacity(len)),
        }
    }

    /// Appends `part`, the next chunk's own; `false`, appending nothing, where it is of
    /// another kind.
    pub(crate) fn append(&mut self, part: &RangeSeries) -> bool {
        match (self, part) {
            (RangeSeries::Durations(to), RangeSeries::Durations(from)) => to.extend_from_slice(from),
            (RangeSeries::Codes(to), RangeSeries::Codes(from)) => to.extend_from_slice(from),
            _ => return false,
        }
        true
    }

    /// Appends `len` frames that nothing reads: a chunk's, where its part did not stay in place.
    pub(crate) fn skip(&mut self, len: usize) {
        match self {
            RangeSeries::Durations(values) => values.resize(values.len() + len, 0),
            RangeSeries::Codes(codes) => codes.resize(codes.len() + len, NO_SPAN),
        }
    }
}

/// Where a frame's span of a pass lies against the pass's median window: below it, inside
/// it, above it. A frame inside needs its duration, kept with the window's, to tell
/// whether it is at or below the median; the others do not.
pub(crate) const BELOW: u8 = 0;
pub(crate) const INSIDE: u8 = 1;
pub(crate) const ABOVE: u8 = 2;
/// A frame without a span of the pass: its code, and its coin.
pub(crate) const NO_SPAN: u8 = 3;

/// `duration`'s code against the window `low..=high`: no branch, as near an end of the
/// window that is a coin toss.
#[inline(always)]
pub(crate) fn code(duration: u64, [low, high]: [u64; 2]) -> u8 {
    u8::from(duration >= low) + u8::from(duration > high)
}

/// [`code`] of each of `durations` into `to`: in 32 bits, so the vector units take many
/// at once.
pub(super) fn code_run(to: &mut [u8], durations: &[u32], [low, high]: [u64; 2]) {
    // A window that starts past 32 bits has every narrow duration below it, and one that
    // ends there none above it (`u32::MAX` is then never more than its end).
    let low_reached = u8::from(u32::try_from(low).is_ok());
    let (low, high) = (u32::try_from(low).unwrap_or(u32::MAX), u32::try_from(high).unwrap_or(u32::MAX));
    for (to, &duration) in to.iter_mut().zip(durations) {
        *to = (u8::from(duration >= low) & low_reached) + u8::from(duration > high);
    }
}

/// Turns each frame's code into its coin, in place: below the window 1, above it 0,
/// inside it whether its duration (the next of `inside`) is at most `median`, and a frame
/// without a span stays so. The frames
/// with a span; `None` where `inside` does not hold exactly one duration a frame inside.
#[inline(always)]
pub(crate) fn codes_to_coins(codes: &mut [u8], inside: &Inside, median: u64) -> Option<usize> {
    let verdicts = match inside {
        Inside::Offsets { from, offsets, within } => {
            let median = median.checked_sub(*from)?;
            Verdicts::of(offsets.iter().map(|&offset| (u64::from(offset) <= median, offset <= *within)))
        }
        Inside::Durations(durations) => Verdicts::of(durations.iter().map(|&duration| (duration <= median, true))),
    };
    coins_of(codes, &verdicts)
}

/// The durations inside a pass's median window, in frame order: as offsets from its low
/// end where they fit in 32 bits (as the statistics keep them), else whole.
#[derive(Debug)]
pub(crate) enum Inside {
    /// The window's durations are the offsets of at most `within`, in the order held;
    /// others, past the window, are skipped (the statistics keep the p95's window's too,
    /// and hand over what they hold rather than copy the median's out of it).
    Offsets {
        from: u64,
        offsets: Vec<u32>,
        within: u32,
    },
    Durations(Vec<u64>),
}

/// Whether each duration inside the median's window is at most the median, a bit each in
/// turn: what a frame inside takes for its coin, read eight frames at a time.
struct Verdicts {
    bits: Vec<u64>,
    /// Durations read: bits `0..len`.
    len: usize,
}

impl Verdicts {
    /// From each held duration's (at most the median, inside the median's window): one
    /// outside it (kept for the p95's window) takes no bit. No branch on either, which a
    /// filter and a loop over the frames inside had taken on every one.
    #[inline(always)]
    fn of(held: impl ExactSizeIterator<Item = (bool, bool)>) -> Self {
        let mut bits = Vec::with_capacity(held.len() / 64 + 2);
        let (mut word, mut filled, mut len) = (0u64, 0, 0);
        for (at_most, inside) in held {
            word |= u64::from(at_most & inside) << filled;
            filled += u32::from(inside);
            if filled == 64 {
                bits.push(word);
                (word, filled) = (0, 0);
                len += 64;
            }
        }
        // Two words past the last bit, so that eight bits from any bit up to `len` read
        // in bounds.
        bits.extend([word, 0]);
        Self { bits, len: len + filled as usize }
    }

    /// The eight bits from bit `at` on; `at` at most `len`.
    #[inline(always)]
    fn eight(&self, at: usize) -> u8 {
        let pair = u128::from(self.bits[at / 64]) | (u128::from(self.bits[at / 64 + 1]) << 64);
        (pair >> (at % 64)) as u8
    }
}

/// For each 8-bit set of positions and 8 bits, the bits placed at those positions in
/// turn, lowest first (x86's `pdep` on a byte): a word's frames inside take their coins
/// from the verdicts in one look. Built on first use, so that the 64 KB are in no binary
/// that never turns codes into coins (the web inspector's).
static DEPOSIT: LazyLock<Box<[[u8; 256]]>> = LazyLock::new(|| {
    let mut table = vec![[0u8; 256]; 256].into_boxed_slice();
    for (mask, row) in table.iter_mut().enumerate() {
        for (bits, placed) in row.iter_mut().enumerate() {
            let positions = (0..8).filter(|position| mask & (1 << position) != 0);
            *placed =
                positions.enumerate().fold(0, |out, (next, position)| out | ((((bits >> next) & 1) as u8) << position));
        }
    }
    table
});

/// [`codes_to_coins`] with the verdicts of the frames inside.
#[inline(always)]
fn coins_of(codes: &mut [u8], verdicts: &Verdicts) -> Option<usize> {
    // Eight codes a word: the frames below, inside and without a span found for all of
    // them at once, and the frames inside given their verdicts together.
    let (mut absent, mut read) = (0, 0);
    let deposit: &[[u8; 256]] = &DEPOSIT;
    let mut words = codes.chunks_exact_mut(8);
    for word in &mut words {
        let codes = u64::from_le_bytes(<[u8; 8]>::try_from(&*word).expect("a chunk of eight"));
        if codes & !(3 * ONES) != 0 || read > verdicts.len {
            return None;
        }
        let no_span = zero_bytes(codes ^ (u64::from(NO_SPAN) * ONES)) >> 7;
        absent += no_span.count_ones() as usize;
        // 1 below the window, no span as it is, 0 above it, and inside its verdict.
        let mut coins = (zero_bytes(codes) >> 7) | (u64::from(NO_SPAN) * no_span);
        let inside = zero_bytes(codes ^ (u64::from(INSIDE) * ONES)) >> 7;
        // Each byte's low bit to a bit of its own: byte i's to bit 56 + i, the top byte's.
        let positions = (inside.wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
        let placed = deposit[positions][usize::from(verdicts.eight(read))];
        coins |= spread(placed);
        read += positions.count_ones() as usize;
        word.copy_from_slice(&coins.to_le_bytes());
    }
    for code in words.into_remainder() {
        *code = match *code {
            INSIDE if read < verdicts.len => {
                read += 1;
                verdicts.eight(read - 1) & 1
            }
            INSIDE => return None,
            NO_SPAN => {
                absent += 1;
                NO_SPAN
            }
            BELOW => 1,
            ABOVE => 0,
            _ => return None,
        };
    }
    (read == verdicts.len).then_some(codes.len() - absent)
}

/// A 1 in every byte's low bit.
const ONES: u64 = 0x0101_0101_0101_0101;
/// Every byte's low seven bits.
const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Bit i of `bits` as byte i's low bit, the rest 0.
#[inline(always)]
fn spread(bits: u8) -> u64 {
    // Copies in every byte, each byte keeping its own bit, then that bit to the byte's low.
    let each = (u64::from(bits) * ONES) & 0x8040_2010_0804_0201;
    (each + LOW_SEVEN) >> 7 & ONES
}

/// Per byte of `word`, `0x80` where the byte is zero and 0 where it is not, exactly.
fn zero_bytes(word: u64) -> u64 {
    // A byte's low seven bits plus 0x7f reach its high bit unless they are all zero, and
    // never carry into the next byte.
    !(((word & LOW_SEVEN) + LOW_SEVEN) | word) & !LOW_SEVEN
}

/// A chunk's part of a series of one span a frame, written from its start.
#[derive(Debug)]
pub(super) struct InPlace<'b> {
    pub(super) values: Part<'b>,
    /// Frames written so far: value `f` is analysed frame `f`'s.
    pub(super) next: usize,
    /// The median window codes are taken against (for [`Part::Codes`]).
    pub(super) window: [u64; 2],
}

impl InPlace<'_> {
    /// Frames the part has room for.
    pub(super) fn len(&self) -> usize {
        match &self.values {
            Part::Durations(values) => values.len(),
            Part::Codes(codes) => codes.len(),
        }
    }

    /// Writes analysed frame `frame`'s span, its first: its duration, which needs every
    /// frame before it written, or its code, the frames since the last written marked as
    /// without a span. `false`, writing nothing, where it cannot (no room, a frame without
    /// a duration, a duration past 32 bits, a second span in the frame).
    #[inline]
    pub(super) fn place(&mut self, frame: usize, duration: u64) -> bool {
        match &mut self.values {
            Part::Durations(values) => match (values.get_mut(frame), u32::try_from(duration)) {
                (Some(value), Ok(narrow)) if self.next == frame => *value = narrow,
                _ => return false,
            },
            Part::Codes(codes) => match codes.get_mut(self.next..=frame) {
                Some(gap) if self.next <= frame => {
                    let (to, gap) = gap.split_last_mut().expect("the range holds the frame");
                    gap.fill(NO_SPAN);
                    *to = code(duration, self.window);
                }
                _ => return false,
            },
        }
        self.next = frame + 1;
        true
    }

    /// Ends the part after `frames` analysed frames: a part of codes marks the frames it
    /// has not written as without a span. Whether it then holds every frame of its chunk.
    pub(super) fn end(&mut self, frames: usize) -> bool {
        if let Part::Codes(codes) = &mut self.values
            && let Some(gap) = codes.get_mut(self.next..frames)
        {
            gap.fill(NO_SPAN);
            self.next = frames;
        }
        self.next == frames && frames == self.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_place_a_duration_below_inside_or_above_its_window() {
        let window = [10, 20];
        let codes: Vec<u8> = [0, 9, 10, 15, 20, 21, u64::MAX].iter().map(|&d| code(d, window)).collect();
        assert_eq!(codes, [BELOW, BELOW, INSIDE, INSIDE, INSIDE, ABOVE, ABOVE]);
        assert_eq!(code(0, [0, u64::MAX]), INSIDE);
        assert_eq!(code(u64::MAX, [0, u64::MAX]), INSIDE);
    }

    #[test]
    fn a_run_of_narrow_durations_codes_as_each_alone() {
        let durations = [0, 1, 9, 10, 11, 19, 20, 21, u32::MAX - 1, u32::MAX];
        let big = u64::from(u32::MAX);
        for window in [[10, 20], [0, 0], [0, u64::MAX], [big, big], [big - 1, big + 5], [big + 1, u64::MAX], [20, big]]
        {
            let mut run = [9u8; 10];
            code_run(&mut run, &durations, window);
            let each: Vec<u8> = durations.iter().map(|&d| code(u64::from(d), window)).collect();
            assert_eq!(run.as_slice(), each, "{window:?}");
        }
    }

    /// [`codes_to_coins`] a code at a time.
    fn codes_to_coins_each(codes: &mut [u8], inside: &[u64], median: u64) -> Option<usize> {
        let (mut next, mut spans) = (0, 0);
        for code in codes.iter_mut() {
            spans += usize::from(*code != NO_SPAN);
            *code = match *code {
                BELOW => 1,
                INSIDE => {
                    next += 1;
                    u8::from(*inside.get(next - 1)? <= median)
                }
                ABOVE => 0,
                NO_SPAN => NO_SPAN,
                _ => return None,
            };
        }
        (next == inside.len()).then_some(spans)
    }

    #[test]
    fn a_word_of_codes_becomes_the_coins_each_code_gives() {
        let mut rng = crate::synth::Rng::new(5);
        for trial in 0..3_000 {
            // Short runs, and runs whose verdicts span several words.
            let len = rng.below(if trial % 3 == 0 { 700 } else { 40 }) as usize;
            let mut codes: Vec<u8> = (0..len).map(|_| rng.below(4) as u8).collect();
            if trial % 50 == 0 && len > 0 {
                codes[rng.below(len as u64) as usize] = 4 + rng.below(250) as u8;
            }
            let inside_frames = codes.iter().filter(|&&code| code == INSIDE).count();
            // Now and then one duration too few or too many.
            let durations = (inside_frames + 1).saturating_sub(rng.below(3) as usize);
            let inside: Vec<u64> = (0..durations).map(|_| rng.below(20)).collect();
            // The same as offsets from 100, among others past the window (the p95's).
            let mut offsets = Vec::new();
            for &duration in &inside {
                while rng.below(3) == 0 {
                    offsets.push(20 + rng.below(1000) as u32);
                }
                offsets.push(duration as u32);
            }
            let offsets = Inside::Offsets { from: 100, offsets, within: 19 };
            let (mut words, mut from_offsets, mut each) = (codes.clone(), codes.clone(), codes.clone());
            let expected = codes_to_coins_each(&mut each, &inside, 9);
            assert_eq!(codes_to_coins(&mut words, &Inside::Durations(inside.clone()), 9), expected, "trial {trial}");
            assert_eq!(codes_to_coins(&mut from_offsets, &offsets, 109), expected, "trial {trial}");
            if expected.is_some() {
                assert_eq!(words, each, "trial {trial}: {codes:?}");
                assert_eq!(from_offsets, each, "trial {trial}: {codes:?}");
            }
        }
        assert_eq!(zero_bytes(0x00ff_0100_8000_7f01), 0x8000_0080_0080_0000);
    }

    #[test]
    fn bits_are_placed_and_spread_as_each_would_be_alone() {
        for (positions, row) in DEPOSIT.iter().enumerate() {
            for (bits, &placed) in row.iter().enumerate() {
                // Position p, where chosen, takes the bit numbered by the chosen below it.
                for position in 0..8 {
                    let chosen = positions & (1 << position) != 0;
                    let number = (positions & ((1 << position) - 1)).count_ones();
                    let expected = chosen && (bits >> number) & 1 == 1;
                    assert_eq!(placed & (1 << position) != 0, expected, "{positions:08b} {bits:08b} at {position}");
                }
            }
            let spread_alone = (0..8).fold(0u64, |word, byte| word | (((positions >> byte) & 1) as u64) << (8 * byte));
            assert_eq!(spread(positions as u8), spread_alone, "{positions:08b}");
            // And back: each byte's low bit gathered into a bit of its own.
            assert_eq!((spread_alone.wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize, positions);
        }
    }

    #[test]
    fn codes_become_coins_with_the_durations_inside_in_turn() {
        let codes = [BELOW, INSIDE, ABOVE, NO_SPAN, INSIDE, INSIDE, BELOW];
        let (mut whole, mut offset) = (codes, codes);
        assert_eq!(codes_to_coins(&mut whole, &Inside::Durations(vec![15, 16, 14]), 15), Some(6));
        assert_eq!(whole, [1, 1, 0, NO_SPAN, 0, 1, 1]);
        // The same as offsets from the window's low end, 10, beside those past it (the
        // p95's window's), which are skipped.
        let offsets = Inside::Offsets { from: 10, offsets: vec![30, 5, 6, 31, 4], within: 10 };
        assert_eq!(codes_to_coins(&mut offset, &offsets, 15), Some(6));
        assert_eq!(offset, whole);
        // A median below the window, one duration too few, or too many, or a code that is none.
        assert_eq!(codes_to_coins(&mut [INSIDE], &Inside::Offsets { from: 10, offsets: vec![1], within: 5 }, 9), None);
        assert_eq!(codes_to_coins(&mut [INSIDE, INSIDE], &Inside::Durations(vec![1]), 5), None);
        assert_eq!(codes_to_coins(&mut [INSIDE], &Inside::Durations(vec![1, 2]), 5), None);
        assert_eq!(codes_to_coins(&mut [7], &Inside::Durations(Vec::new()), 5), None);
    }

    #[test]
    fn a_range_series_splits_into_its_chunks_parts() {
        let mut series = RangeSeries::Codes(vec![0; 10]);
        let parts = series.split([3, 0, 7].into_iter());
        let lens: Vec<usize> = parts
            .iter()
            .map(|part| match part {
                Part::Codes(codes) => codes.len(),
                Part::Durations(values) => values.len(),
            })
            .collect();
        assert_eq!(lens, [3, 0, 7]);
    }
}
