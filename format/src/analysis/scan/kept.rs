//! The durations a row keeps for selecting its median and p95: those inside its two
//! windows. Each is kept as its offset from the first window's low end in the fewest
//! bytes both windows allow: 2 where they end within 2^16 ns (65.5 µs) of it, as on most
//! sampled rows of short passes (197 of the hour-long capture's 201); 4 within 2^32 ns
//! (about 4.3 s), as on any sampled range of frame-scale passes; otherwise whole, in 8.
//! The kept durations are most of what a long scan holds beside the capture (a tenth of
//! the hour-long capture's spans), so each narrower form halves it; the figures are the
//! same in every form.

use crate::analysis::compare::Inside;

/// A row's kept durations, in the narrowest form its windows allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Kept {
    /// Offsets from `base`, the first window's low end, within 2^16 ns of it.
    Short { base: u64, values: Vec<u16> },
    /// Offsets from `base`, the first window's low end, within 2^32 ns of it.
    Narrow { base: u64, values: Vec<u32> },
    /// Durations as they are.
    Wide(Vec<u64>),
}

/// What a kept value is held as: an offset of 2 or 4 bytes, or a whole duration.
pub(super) trait Offset: Copy + Ord + Default + Into<u64> + TryFrom<u64> {
    /// The low bits of `value`, the offset of a duration inside a window (it fits).
    fn truncated(value: u64) -> Self;
    fn write_le(self, bytes: &mut Vec<u8>);
    /// The value of `bytes`, exactly its size.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! offset {
    ($($ty:ty),*) => {$(
        impl Offset for $ty {
            #[inline(always)]
            fn truncated(value: u64) -> Self {
                value as $ty
            }

            fn write_le(self, bytes: &mut Vec<u8>) {
                bytes.extend_from_slice(&self.to_le_bytes());
            }

            fn read_le(bytes: &[u8]) -> Self {
                let mut le = [0; size_of::<$ty>()];
                le.copy_from_slice(bytes);
                <$ty>::from_le_bytes(le)
            }
        }
    )*};
}
offset!(u16, u32, u64);

/// Evaluates `$body` with `$values` the held values, of whichever form, and `$base`
/// what they are offsets from (0 for durations held whole).
macro_rules! each_form {
    ($kept:expr, |$values:ident| $body:expr) => {
        match $kept {
            Kept::Short { values: $values, .. } => $body,
            Kept::Narrow { values: $values, .. } => $body,
            Kept::Wide($values) => $body,
        }
    };
    ($kept:expr, |$base:ident, $values:ident| $body:expr) => {
        match $kept {
            Kept::Short { base, values: $values } => {
                let $base: u64 = *base;
                $body
            }
            Kept::Narrow { base, values: $values } => {
                let $base: u64 = *base;
                $body
            }
            Kept::Wide($values) => {
                let $base: u64 = 0;
                $body
            }
        }
    };
}

impl Kept {
    /// The form for windows `low[i]..=low[i] + width[i]`, the first window's the lower.
    pub(super) fn for_windows(low: [u64; 2], width: [u64; 2]) -> Self {
        let base = low[0];
        // The furthest either window ends from the base, if both end within u64.
        let top = (0..2).try_fold(0, |top: u64, window| {
            low[window].checked_sub(base).and_then(|from| from.checked_add(width[window])).map(|end| top.max(end))
        });
        match top {
            Some(top) if u16::try_from(top).is_ok() => Kept::Short { base, values: Vec::new() },
            Some(top) if u32::try_from(top).is_ok() => Kept::Narrow { base, values: Vec::new() },
            _ => Kept::Wide(Vec::new()),
        }
    }

    /// How many durations are held (kept, or written past the kept ones while adding).
    pub(super) fn len(&self) -> usize {
        each_form!(self, |values| values.len())
    }

    /// Bytes a held duration takes.
    pub(super) fn width(&self) -> usize {
        fn of<T>(_: &[T]) -> usize {
            size_of::<T>()
        }
        each_form!(self, |values| of(values))
    }

    pub(super) fn capacity(&self) -> usize {
        each_form!(self, |values| values.capacity())
    }

    pub(super) fn truncate(&mut self, len: usize) {
        each_form!(self, |values| values.truncate(len));
    }

    /// Makes room for `room` durations before any is kept: zeroed memory as the allocator
    /// hands it out, whose pages are touched only as durations are written to them.
    pub(super) fn make_room(&mut self, room: usize) {
        each_form!(self, |values| if values.is_empty() {
            *values = vec![0; room];
        });
    }

    pub(super) fn reserve_exact(&mut self, additional: usize) {
        each_form!(self, |values| values.reserve_exact(additional));
    }

    /// Writes `duration` at index `len`, and says 1 if it is `inside` (so the next
    /// duration goes past it), else 0 (so the next one overwrites it): no branch on where
    /// a duration falls.
    #[inline(always)]
    pub(super) fn keep(&mut self, len: usize, duration: u64, inside: bool) -> usize {
        // An accepted duration is inside a window, so its offset is exact; one that is
        // not is overwritten by the next.
        each_form!(self, |base, values| write_at(values, len, Offset::truncated(duration.wrapping_sub(base))));
        usize::from(inside)
    }

    /// Appends a later chunk's kept durations of the same row.
    pub(super) fn append(&mut self, later: Kept) {
        match (&mut *self, later) {
            (_, later) if later.len() == 0 => {}
            // Nothing held, and no room made for it: the later vector as it is.
            (this, later) if this.len() == 0 && this.capacity() < later.len() => *this = later,
            (Kept::Short { base, values }, Kept::Short { base: later_base, values: later_values })
                if *base == later_base =>
            {
                values.extend_from_slice(&later_values);
            }
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
        each_form!(self, |base, values| values
            .iter()
            .filter(|&&value| whole(base, value).wrapping_sub(low) <= width)
            .count())
    }

    /// The durations at sorted positions `ranks` (the first no greater than the second),
    /// what is held left in its order.
    pub(super) fn select(&self, [median, p95]: [u64; 2]) -> [u64; 2] {
        self.select_ascending([median as usize, p95 as usize])
    }

    /// The durations at sorted positions `ranks`, ascending, what is held left in its
    /// order: counted, never sorted or moved ([`count_select`]).
    pub(super) fn select_ascending<const N: usize>(&self, ranks: [usize; N]) -> [u64; N] {
        each_form!(self, |base, values| count_select(values, ranks).map(|value| whole(base, value)))
    }

    /// How many held durations equal `value`, and how many are at most `value`, which
    /// lies in the first window.
    pub(super) fn count_at_and_below(&self, value: u64) -> (usize, usize) {
        fn count<T: Offset>(values: &[T], value: T) -> (usize, usize) {
            values
                .iter()
                .fold((0, 0), |(at, below), &v| (at + usize::from(v == value), below + usize::from(v <= value)))
        }
        // A value below the first window's low end has no offset: every held one is above it.
        each_form!(self, |base, values| match offset_of(base, value) {
            Some(offset) => count(values, offset),
            None => (0, 0),
        })
    }

    /// The held durations inside the first window, `low..=low + width`, in the order held,
    /// taken: the offsets held, as they are (those past `width` are the second window's;
    /// 2-byte ones widened to 4), or the durations inside, copied.
    pub(super) fn take_first(&mut self, low: u64, width: u64) -> Inside {
        // The first window's low end is the base, and its width fits the offsets.
        let within = u32::try_from(width).unwrap_or(u32::MAX);
        match self {
            Kept::Short { base, values } => Inside::Offsets {
                from: *base,
                offsets: std::mem::take(values).into_iter().map(u32::from).collect(),
                within,
            },
            Kept::Narrow { base, values } => Inside::Offsets { from: *base, offsets: std::mem::take(values), within },
            Kept::Wide(values) => Inside::Durations(
                values.iter().copied().filter(|duration| duration.wrapping_sub(low) <= width).collect(),
            ),
        }
    }

    /// The held durations, whole.
    pub(super) fn durations(&self) -> Vec<u64> {
        each_form!(self, |base, values| values.iter().map(|&value| whole(base, value)).collect())
    }

    /// The held durations as little-endian bytes, [`Kept::width`] each.
    pub(super) fn write_le(&self, bytes: &mut Vec<u8>) {
        each_form!(self, |values| values.iter().for_each(|value| value.write_le(bytes)));
    }

    /// Holds the durations of `bytes`, [`Kept::width`] each, in place of what it held.
    pub(super) fn read_le(&mut self, bytes: &[u8]) {
        let width = self.width();
        each_form!(self, |values| *values = bytes.chunks_exact(width).map(Offset::read_le).collect());
    }
}

/// The duration a value held from `base` stands for.
#[inline(always)]
fn whole<T: Offset>(base: u64, value: T) -> u64 {
    base + value.into()
}

/// `duration`'s offset from `base` in the form `T`, where it is at least `base` and fits.
fn offset_of<T: Offset>(base: u64, duration: u64) -> Option<T> {
    duration.checked_sub(base).and_then(|offset| T::try_from(offset).ok())
}

/// High bits of a value counted, at most, to find the run of values a rank lies in.
const COUNTED_BITS: u32 = 12;

/// The values at sorted positions `ranks` (ascending, each below `values.len()`) of
/// `values`, which stay as they are: each value is counted by its high bits (at most
/// [`COUNTED_BITS`] of them), which tells the run of values sharing them that holds each
/// rank, and only those runs are copied out and selected in. Three reads of the values
/// (their top, their counts, the runs) and no writes to them, where selecting in place
/// moves most of them a few times over; the order held is what a pass's coins read
/// afterwards.
fn count_select<T: Offset, const N: usize>(values: &[T], ranks: [usize; N]) -> [T; N] {
    const { assert!(N < u8::MAX as usize, "a run's number fits a byte") };
    let top: u64 = values.iter().copied().max().unwrap_or_default().into();
    let shift = (u64::BITS - top.leading_zeros()).saturating_sub(COUNTED_BITS);
    let run_of = |value: T| (Into::<u64>::into(value) >> shift) as usize;
    let mut counts = vec![0usize; (top >> shift) as usize + 1];
    for &value in values {
        counts[run_of(value)] += 1;
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
    let mut runs: Vec<Vec<T>> = Vec::with_capacity(N);
    for &(run, _) in &found {
        if which[run] == NONE {
            which[run] = runs.len() as u8;
            runs.push(Vec::with_capacity(counts[run]));
        }
    }
    for &value in values {
        let at = which[run_of(value)];
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
    fn windows_keep_offsets_in_the_fewest_bytes_that_reach_their_ends() {
        // Within 65,535 ns of the base, two bytes; one more, four.
        let short = Kept::for_windows([1_000, 9_000], [500, 65_535 - 8_000]);
        assert_eq!(short, Kept::Short { base: 1_000, values: Vec::new() });
        assert_eq!(
            Kept::for_windows([1_000, 9_000], [500, 65_536 - 8_000]),
            Kept::Narrow { base: 1_000, values: Vec::new() }
        );
        // The second window may end below the first: the furthest end decides.
        assert_eq!(Kept::for_windows([1_000, 2_000], [70_000, 10]), Kept::Narrow { base: 1_000, values: Vec::new() });
        let narrow = Kept::for_windows([1_000, 9_000], [500, u64::from(u32::MAX) - 8_000]);
        assert_eq!(narrow, Kept::Narrow { base: 1_000, values: Vec::new() });
        assert_eq!(Kept::for_windows([1_000, 9_000], [500, u64::from(u32::MAX) - 7_999]), Kept::Wide(Vec::new()));
        // Keeping everything, or a window of durations of u64::MAX only.
        assert_eq!(Kept::for_windows([0, u64::MAX], [u64::MAX, 0]), Kept::Wide(Vec::new()));
        assert_eq!(Kept::for_windows([10, u64::MAX], [10, 0]), Kept::Wide(Vec::new()));
    }

    #[test]
    fn every_form_selects_the_same_durations() {
        let durations: Vec<u64> = (0..1_000u64).map(|i| 5_000_000_000 + (i * 7_919) % 1_000).collect();
        let inside = |duration: u64| duration.wrapping_sub(5_000_000_100) <= 800;
        let mut forms = [
            Kept::Short { base: 5_000_000_100, values: Vec::new() },
            Kept::Narrow { base: 5_000_000_100, values: Vec::new() },
            Kept::Wide(Vec::new()),
        ];
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
        assert_eq!(selected, [[5_000_000_500, 5_000_000_860]; 3]);
        assert_eq!(forms.map(|kept| kept.width()), [2, 4, 8]);
    }

    #[test]
    fn room_made_beforehand_holds_what_is_kept_and_more_grows_past_it() {
        for room in [0, 3, 5, 100] {
            let mut forms = [
                Kept::Short { base: 10, values: Vec::new() },
                Kept::Narrow { base: 10, values: Vec::new() },
                Kept::Wide(Vec::new()),
            ];
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
        fn trials<T: super::Offset + std::fmt::Debug>(seed: u64, most: u64) {
            let mut rng = crate::synth::Rng::new(seed);
            let of = |value: u64| T::truncated(value);
            for trial in 0..600 {
                let len = 1 + rng.below(3_000) as usize;
                // Spreads from all ties to every bit of the form; a few far above the rest
                // now and then, as a p95 window far above the median's puts most values
                // in one run.
                let spread = [1, 7, 1_000, 1 << 20, most][trial % 5].min(most);
                let mut values: Vec<T> = (0..len).map(|_| of(rng.below(spread))).collect();
                if trial % 7 == 0 {
                    values[rng.below(len as u64) as usize] = of(most - rng.below(10));
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
        trials::<u16>(20, u64::from(u16::MAX));
        trials::<u32>(21, u64::from(u32::MAX));
        trials::<u64>(22, u64::MAX - 1);
    }

    #[test]
    fn forms_that_disagree_append_as_durations() {
        let mut kept = Kept::Narrow { base: 100, values: vec![1, 2] };
        kept.append(Kept::Wide(vec![7]));
        assert_eq!(kept, Kept::Wide(vec![101, 102, 7]));
        let mut empty = Kept::Wide(Vec::new());
        empty.append(Kept::Narrow { base: 3, values: vec![4] });
        assert_eq!(empty.durations(), [7]);
        let mut short = Kept::Short { base: 100, values: vec![1] };
        short.append(Kept::Narrow { base: 100, values: vec![70_000] });
        assert_eq!(short, Kept::Wide(vec![101, 70_100]));
        let mut bases = Kept::Short { base: 100, values: vec![1] };
        bases.append(Kept::Short { base: 200, values: vec![1] });
        assert_eq!(bases, Kept::Wide(vec![101, 201]));
        // Room made beforehand is kept.
        let mut room = Kept::Narrow { base: 3, values: Vec::new() };
        room.reserve_exact(100);
        room.append(Kept::Narrow { base: 3, values: vec![4, 5] });
        assert_eq!((room.durations(), room.capacity()), (vec![7, 8], 100));
    }
}
