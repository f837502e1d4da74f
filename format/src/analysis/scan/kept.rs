//! The durations a row keeps for selecting its median and p95: those inside its two
//! windows. Where both windows lie within 2^32 ns (about 4.3 s) of the first one's low
//! end, as on any sampled range of frame-scale passes, each is kept as its offset from
//! there in 4 bytes; otherwise whole, in 8. The kept durations are most of what a long
//! scan holds beside the capture (a tenth of the hour-long capture's spans), so this
//! halves it; the figures are the same either way.

use super::super::select_ranks;
use crate::analysis::compare::Inside;

/// A row's kept durations, in the narrowest form its windows allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Kept {
    /// Offsets from `base`, the first window's low end.
    Narrow { base: u64, values: Vec<u32> },
    /// Durations as they are.
    Wide(Vec<u64>),
}

impl Kept {
    /// The form for windows `low[i]..=low[i] + width[i]`, the first window's the lower.
    pub(super) fn for_windows(low: [u64; 2], width: [u64; 2]) -> Self {
        let base = low[0];
        let fits = (0..2).all(|window| {
            low[window]
                .checked_sub(base)
                .and_then(|from| from.checked_add(width[window]))
                .is_some_and(|top| u32::try_from(top).is_ok())
        });
        if fits { Kept::Narrow { base, values: Vec::new() } } else { Kept::Wide(Vec::new()) }
    }

    /// How many durations are held (kept, or written past the kept ones while adding).
    pub(super) fn len(&self) -> usize {
        match self {
            Kept::Narrow { values, .. } => values.len(),
            Kept::Wide(values) => values.len(),
        }
    }

    /// Bytes a held duration takes.
    pub(super) fn width(&self) -> usize {
        match self {
            Kept::Narrow { .. } => 4,
            Kept::Wide(_) => 8,
        }
    }

    pub(super) fn capacity(&self) -> usize {
        match self {
            Kept::Narrow { values, .. } => values.capacity(),
            Kept::Wide(values) => values.capacity(),
        }
    }

    pub(super) fn truncate(&mut self, len: usize) {
        match self {
            Kept::Narrow { values, .. } => values.truncate(len),
            Kept::Wide(values) => values.truncate(len),
        }
    }

    /// Makes room for `room` durations before any is kept: zeroed memory as the allocator
    /// hands it out, whose pages are touched only as durations are written to them.
    pub(super) fn make_room(&mut self, room: usize) {
        match self {
            Kept::Narrow { values, .. } if values.is_empty() => *values = vec![0; room],
            Kept::Wide(values) if values.is_empty() => *values = vec![0; room],
            _ => {}
        }
    }

    pub(super) fn reserve_exact(&mut self, additional: usize) {
        match self {
            Kept::Narrow { values, .. } => values.reserve_exact(additional),
            Kept::Wide(values) => values.reserve_exact(additional),
        }
    }

    /// Writes `duration` at index `len`, and says 1 if it is `inside` (so the next
    /// duration goes past it), else 0 (so the next one overwrites it): no branch on where
    /// a duration falls.
    #[inline(always)]
    pub(super) fn keep(&mut self, len: usize, duration: u64, inside: bool) -> usize {
        match self {
            // An accepted duration is within 2^32 of `base`, so its offset is exact.
            Kept::Narrow { base, values } => write_at(values, len, duration.wrapping_sub(*base) as u32),
            Kept::Wide(values) => write_at(values, len, duration),
        }
        usize::from(inside)
    }

    /// Appends a later chunk's kept durations of the same row.
    pub(super) fn append(&mut self, later: Kept) {
        match (&mut *self, later) {
            (_, later) if later.len() == 0 => {}
            // Nothing held, and no room made for it: the later vector as it is.
            (this, later) if this.len() == 0 && this.capacity() < later.len() => *this = later,
            (Kept::Narrow { base, values }, Kept::Narrow { base: later_base, values: later_values })
                if *base == later_base =>
            {
                values.extend_from_slice(&later_values);
            }
            (Kept::Wide(values), Kept::Wide(later_values)) => values.extend_from_slice(&later_values),
            // Chunks of one row share its windows, so their forms agree; should they not,
            // both are held whole rather than lose a duration.
            (this, later) => {
                let mut values = this.durations();
                values.extend(later.durations());
                *this = Kept::Wide(values);
            }
        }
    }

    /// How many held durations are at most `width` above the first window's low end `low`.
    pub(super) fn count_within(&self, low: u64, width: u64) -> usize {
        match self {
            Kept::Narrow { base, values } => {
                values.iter().filter(|&&offset| (u64::from(offset) + *base).wrapping_sub(low) <= width).count()
            }
            Kept::Wide(values) => values.iter().filter(|&&duration| duration.wrapping_sub(low) <= width).count(),
        }
    }

    /// The durations at sorted positions `ranks` (the first no greater than the second),
    /// what is held left in its order: offsets are counted, durations selected in a copy.
    pub(super) fn select(&self, [median, p95]: [u64; 2]) -> [u64; 2] {
        match self {
            Kept::Narrow { base, values } => {
                count_select(values, [median as usize, p95 as usize]).map(|offset| *base + u64::from(offset))
            }
            Kept::Wide(values) => select_ranks(&mut values.clone(), [median, p95]),
        }
    }

    /// The durations at sorted positions `ranks`, ascending, what is held left in its
    /// order, as [`Kept::select`].
    pub(super) fn select_ascending<const N: usize>(&self, ranks: [usize; N]) -> [u64; N] {
        match self {
            Kept::Narrow { base, values } => count_select(values, ranks).map(|offset| *base + u64::from(offset)),
            Kept::Wide(values) => select_ascending(&mut values.clone(), ranks),
        }
    }

    /// How many held durations equal `value`, and how many are at most `value`, which
    /// lies in the first window.
    pub(super) fn count_at_and_below(&self, value: u64) -> (usize, usize) {
        fn count<T: Copy + Ord>(values: &[T], value: T) -> (usize, usize) {
            values
                .iter()
                .fold((0, 0), |(at, below), &v| (at + usize::from(v == value), below + usize::from(v <= value)))
        }
        match self {
            // Offsets below the first window's low end wrap high: every held one is above it.
            Kept::Narrow { base, values } => match u32::try_from(value.wrapping_sub(*base)) {
                Ok(offset) if value >= *base => count(values, offset),
                _ => (0, 0),
            },
            Kept::Wide(values) => count(values, value),
        }
    }

    /// The held durations inside the first window, `low..=low + width`, in the order held,
    /// taken: the offsets held, as they are (those past `width` are the second window's),
    /// or the durations inside, copied.
    pub(super) fn take_first(&mut self, low: u64, width: u64) -> Inside {
        match self {
            // The first window's low end is the base, and its width fits the offsets.
            Kept::Narrow { base, values } => Inside::Offsets {
                from: *base,
                offsets: std::mem::take(values),
                within: u32::try_from(width).unwrap_or(u32::MAX),
            },
            Kept::Wide(values) => Inside::Durations(
                values.iter().copied().filter(|duration| duration.wrapping_sub(low) <= width).collect(),
            ),
        }
    }

    /// The held durations, whole.
    pub(super) fn durations(&self) -> Vec<u64> {
        match self {
            Kept::Narrow { base, values } => values.iter().map(|&offset| *base + u64::from(offset)).collect(),
            Kept::Wide(values) => values.clone(),
        }
    }

    /// The held durations as little-endian bytes, [`Kept::width`] each.
    pub(super) fn write_le(&self, bytes: &mut Vec<u8>) {
        match self {
            Kept::Narrow { values, .. } => bytes.extend(values.iter().flat_map(|value| value.to_le_bytes())),
            Kept::Wide(values) => bytes.extend(values.iter().flat_map(|value| value.to_le_bytes())),
        }
    }

    /// Holds the durations of `bytes`, [`Kept::width`] each, in place of what it held.
    pub(super) fn read_le(&mut self, bytes: &[u8]) {
        match self {
            Kept::Narrow { values, .. } => {
                *values = bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            }
            Kept::Wide(values) => {
                *values = bytes
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                    .collect();
            }
        }
    }
}

/// The values at sorted positions `ranks` (ascending) of `values`, reordered: each
/// selected among those above the one before.
fn select_ascending<T: Ord + Copy, const N: usize>(values: &mut [T], ranks: [usize; N]) -> [T; N] {
    let mut from = 0;
    ranks.map(|rank| {
        if rank < from {
            // The rank before again: already in place.
            return values[rank];
        }
        let value = *values[from..].select_nth_unstable(rank - from).1;
        from = rank + 1;
        value
    })
}

/// High bits of an offset counted, at most, to find the run of offsets a rank lies in.
const COUNTED_BITS: u32 = 12;

/// The values at sorted positions `ranks` (ascending, each below `values.len()`) of
/// `values`, which stay as they are: each value is counted by its high bits (at most
/// [`COUNTED_BITS`] of them), which tells the run of values sharing them that holds each
/// rank, and only those runs are copied out and selected in. Three reads of the values
/// (their top, their counts, the runs) and no writes to them, where selecting in place
/// moves most of them a few times over; the order held is what a pass's coins read
/// afterwards.
fn count_select<const N: usize>(values: &[u32], ranks: [usize; N]) -> [u32; N] {
    const { assert!(N < u8::MAX as usize, "a run's number fits a byte") };
    let top = values.iter().copied().max().unwrap_or(0);
    let shift = (u32::BITS - top.leading_zeros()).saturating_sub(COUNTED_BITS);
    let mut counts = vec![0usize; (top >> shift) as usize + 1];
    for &value in values {
        counts[(value >> shift) as usize] += 1;
    }
    // Each rank's run of values, and its rank among them.
    let (mut below, mut run) = (0, 0);
    let found = ranks.map(|rank| {
        while run + 1 < counts.len() && below + counts[run] <= rank {
            below += counts[run];
            run += 1;
        }
        (run, rank - below)
    });
    // The runs the ranks lie in, copied out in one more read.
    const NONE: u8 = u8::MAX;
    let mut which = vec![NONE; counts.len()];
    let mut runs: Vec<Vec<u32>> = Vec::with_capacity(N);
    for &(run, _) in &found {
        if which[run] == NONE {
            which[run] = runs.len() as u8;
            runs.push(Vec::with_capacity(counts[run]));
        }
    }
    for &value in values {
        let at = which[(value >> shift) as usize];
        if at != NONE {
            runs[at as usize].push(value);
        }
    }
    found.map(|(run, rank)| *runs[which[run] as usize].select_nth_unstable(rank).1)
}

/// [`Kept::keep`] for one form: `values` grows (doubling) to hold index `len`.
#[inline(always)]
fn write_at<T: Copy + Default>(values: &mut Vec<T>, len: usize, value: T) {
    match values.get_mut(len) {
        Some(held) => *held = value,
        None => grow_to(values, len, value),
    }
}

#[cold]
fn grow_to<T: Copy + Default>(values: &mut Vec<T>, len: usize, value: T) {
    values.resize((2 * values.len()).max(len + 1).max(256), T::default());
    values[len] = value;
}

#[cfg(test)]
mod tests {
    use super::Kept;

    #[test]
    fn windows_within_four_seconds_keep_offsets_and_wider_ones_durations() {
        let narrow = Kept::for_windows([1_000, 9_000], [500, u64::from(u32::MAX) - 8_000]);
        assert_eq!(narrow, Kept::Narrow { base: 1_000, values: Vec::new() });
        assert_eq!(Kept::for_windows([1_000, 9_000], [500, u64::from(u32::MAX) - 7_999]), Kept::Wide(Vec::new()));
        // Keeping everything, or a window of durations of u64::MAX only.
        assert_eq!(Kept::for_windows([0, u64::MAX], [u64::MAX, 0]), Kept::Wide(Vec::new()));
        assert_eq!(Kept::for_windows([10, u64::MAX], [10, 0]), Kept::Wide(Vec::new()));
    }

    #[test]
    fn both_forms_select_the_same_durations() {
        let durations: Vec<u64> = (0..1_000u64).map(|i| 5_000_000_000 + (i * 7_919) % 1_000).collect();
        let inside = |duration: u64| duration.wrapping_sub(5_000_000_100) <= 800;
        let mut forms = [Kept::Narrow { base: 5_000_000_100, values: Vec::new() }, Kept::Wide(Vec::new())];
        let mut selected = Vec::new();
        for kept in &mut forms {
            let len = durations.iter().fold(0, |len, &duration| len + kept.keep(len, duration, inside(duration)));
            kept.truncate(len);
            assert_eq!(kept.len(), 801);
            assert_eq!(kept.count_within(5_000_000_100, 400), 401);
            let mut bytes = Vec::new();
            kept.write_le(&mut bytes);
            assert_eq!(bytes.len(), kept.len() * kept.width());
            let mut read = kept.clone();
            read.read_le(&bytes);
            assert_eq!(&read, kept);
            selected.push(kept.select([400, 760]));
            assert_eq!(
                kept.select_ascending([0, 400, 400, 800]),
                [5_000_000_100, 5_000_000_500, 5_000_000_500, 5_000_000_900]
            );
            assert_eq!(kept.count_at_and_below(5_000_000_500), (1, 401));
            assert_eq!(kept.count_at_and_below(5_000_000_099), (0, 0));
            assert_eq!(kept.count_at_and_below(5_000_001_000), (0, 801));
        }
        assert_eq!(selected, [[5_000_000_500, 5_000_000_860]; 2]);
    }

    #[test]
    fn room_made_beforehand_holds_what_is_kept_and_more_grows_past_it() {
        for room in [0, 3, 5, 100] {
            let mut forms = [Kept::Narrow { base: 10, values: Vec::new() }, Kept::Wide(Vec::new())];
            for kept in &mut forms {
                kept.make_room(room);
                assert!(kept.capacity() >= room);
                // Every other duration inside: 20 kept of 40 written.
                let len = (0..40).fold(0, |len, i| len + kept.keep(len, 10 + i, i % 2 == 0));
                kept.truncate(len);
                assert_eq!(kept.durations(), (0..20).map(|i| 10 + 2 * i).collect::<Vec<u64>>(), "room {room}");
                // Room is made only for a row that holds nothing yet.
                kept.make_room(1_000);
                assert_eq!(kept.len(), 20);
            }
        }
    }

    #[test]
    fn counting_selects_what_sorting_puts_at_each_rank_and_moves_nothing() {
        let mut rng = crate::synth::Rng::new(21);
        for trial in 0..600 {
            let len = 1 + rng.below(3_000) as usize;
            // Spreads from all ties to all 32 bits; a few far above the rest now and then,
            // as a p95 window far above the median's puts most values in one run.
            let spread = [1, 7, 1_000, 1 << 20, u64::from(u32::MAX)][trial % 5];
            let mut values: Vec<u32> = (0..len).map(|_| rng.below(spread) as u32).collect();
            if trial % 7 == 0 {
                values[rng.below(len as u64) as usize] = u32::MAX - rng.below(10) as u32;
            }
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let held = values.clone();
            let mut ranks: [usize; 4] = std::array::from_fn(|_| rng.below(len as u64) as usize);
            ranks.sort_unstable();
            assert_eq!(super::count_select(&values, ranks), ranks.map(|rank| sorted[rank]), "trial {trial}");
            assert_eq!(super::count_select(&values, [0, len - 1]), [sorted[0], sorted[len - 1]], "trial {trial}");
            assert_eq!(values, held, "trial {trial}: the values stay in their order");
        }
    }

    #[test]
    fn forms_that_disagree_append_as_durations() {
        let mut kept = Kept::Narrow { base: 100, values: vec![1, 2] };
        kept.append(Kept::Wide(vec![7]));
        assert_eq!(kept, Kept::Wide(vec![101, 102, 7]));
        let mut empty = Kept::Wide(Vec::new());
        empty.append(Kept::Narrow { base: 3, values: vec![4] });
        assert_eq!(empty.durations(), [7]);
        // Room made beforehand is kept.
        let mut room = Kept::Narrow { base: 3, values: Vec::new() };
        room.reserve_exact(100);
        room.append(Kept::Narrow { base: 3, values: vec![4, 5] });
        assert_eq!((room.durations(), room.capacity()), (vec![7, 8], 100));
    }
}
