//! Frames whose spans fall in the same rows in the same order, added a position at a time.
//!
//! Nearly every frame of a long capture has the shape of the one before: one topology,
//! each pass run once, in the same order. Adding such a frame span by span reads and
//! writes a row's dozen figures for every span (some 75 instructions, a third of
//! `sgpt stats`). Here a run of frames of one shape keeps each figure per position in an
//! array of its own, and a frame is added by one loop over its positions that the
//! compiler turns into vector instructions: minimum, maximum, total, zeros and the counts
//! below each window, in 32-bit lanes. Only the durations inside a window, about a tenth,
//! are then kept one by one. The run's figures go to the rows when it ends, so the rows
//! hold exactly what adding each span to them would have given.
//!
//! A frame goes the other way, span by span (the caller's), when its shape repeats a row
//! (frames present would count it twice) or a row's windows cannot be read in 32 bits
//! (both above 4.3 s). A frame with a duration over 32 bits never comes here.

use super::rows::SlotAcc;

/// Shapes followed at once: frames may alternate between a few (a pass every other frame).
const SHAPES: usize = 4;

/// The runs of frames of the last few shapes seen, their figures not yet in the rows.
#[derive(Debug)]
pub(super) struct Shapes {
    runs: Vec<Run>,
    /// The run the next new shape replaces once [`SHAPES`] are followed.
    replace: usize,
    /// Frames a run adds before its figures go to the rows, so 32-bit counts never wrap.
    fold_every: u32,
}

impl Default for Shapes {
    fn default() -> Self {
        Self { runs: Vec::new(), replace: 0, fold_every: u32::MAX }
    }
}

impl Shapes {
    /// Adds a frame whose span `i` has duration `durations[i]` (ns) and goes to row
    /// `slots[i]` of `rows`, and says so; or adds nothing and says no, for the caller to
    /// add it span by span.
    #[inline(always)]
    pub(super) fn add(&mut self, slots: &[u32], durations: &[u32], rows: &mut [SlotAcc]) -> bool {
        let at = match self.runs.iter().position(|run| run.slots == slots) {
            Some(at) => at,
            None => self.start(slots, rows),
        };
        let run = &mut self.runs[at];
        if !run.eligible {
            return false;
        }
        if run.frames == self.fold_every {
            run.fold(rows);
        }
        run.add(durations, rows);
        true
    }

    /// Hands every run's figures to `rows`.
    pub(super) fn fold(&mut self, rows: &mut [SlotAcc]) {
        for run in &mut self.runs {
            run.fold(rows);
        }
    }

    /// Follows the shape `slots`, in place of the one followed longest if there are
    /// [`SHAPES`] already; its index.
    fn start(&mut self, slots: &[u32], rows: &mut [SlotAcc]) -> usize {
        let run = Run::new(slots, rows);
        if self.runs.len() < SHAPES {
            self.runs.push(run);
            return self.runs.len() - 1;
        }
        let at = self.replace;
        self.replace = (at + 1) % SHAPES;
        self.runs[at].fold(rows);
        self.runs[at] = run;
        at
    }
}

/// A window read in 32 bits at one position: `duration − low ≤ width`, or, where the
/// row's window starts past `u32::MAX`, every duration below it and none inside.
#[derive(Clone, Copy, Debug)]
struct Window32 {
    low: u32,
    width: u32,
    all_below: bool,
}

impl Window32 {
    /// `low..=low + width` in 32 bits: a duration `d` that fits is inside it exactly when
    /// `d − low ≤ width` in 64 bits (which never holds for `d < low`, as `low + width`
    /// does not wrap), and below it exactly when `d < low`.
    fn of(low: u64, width: u64) -> Self {
        match u32::try_from(low) {
            Ok(low32) => {
                Window32 { low: low32, width: width.min(u64::from(u32::MAX - low32)) as u32, all_below: false }
            }
            Err(_) => Window32 { low: 0, width: 0, all_below: true },
        }
    }
}

/// One shape's frames so far: per position, its row and the figures of its durations.
#[derive(Debug)]
struct Run {
    /// The row of each position.
    slots: Vec<u32>,
    /// Whether frames of this shape are added here (see the module's doc).
    eligible: bool,
    frames: u32,
    min: Vec<u32>,
    max: Vec<u32>,
    total: Vec<u64>,
    zeros: Vec<u32>,
    /// Durations below each window, where it is not `all_below` (then the count is
    /// ignored: every duration is below it).
    below: [Vec<u32>; 2],
    /// Each window as the loop reads it. A window every duration is below takes the
    /// other's bounds, so the test for either stays one `or` of two.
    low: [Vec<u32>; 2],
    width: [Vec<u32>; 2],
    all_below: [Vec<bool>; 2],
    /// Per position, 1 where the last frame's duration fell inside a window; padded to
    /// whole words of 8.
    inside: Vec<u8>,
}

impl Run {
    fn new(slots: &[u32], rows: &[SlotAcc]) -> Self {
        let n = slots.len();
        let mut seen = vec![false; rows.len()];
        let mut eligible = true;
        let mut windows = Vec::with_capacity(n);
        for &slot in slots {
            let Some(row) = rows.get(slot as usize) else {
                eligible = false;
                break;
            };
            let [first, second] = [0, 1].map(|w| Window32::of(row.low[w], row.width[w]));
            let repeated = std::mem::replace(&mut seen[slot as usize], true);
            if repeated || (first.all_below && second.all_below) {
                eligible = false;
                break;
            }
            // A window every duration is below keeps nothing: test the other one twice.
            windows.push(match (first.all_below, second.all_below) {
                (true, _) => [Window32 { all_below: true, ..second }, second],
                (_, true) => [first, Window32 { all_below: true, ..first }],
                _ => [first, second],
            });
        }
        let per_window = |read: fn(&Window32) -> u32| {
            [0, 1].map(|w| windows.iter().map(|pair| read(&pair[w])).collect::<Vec<u32>>())
        };
        Run {
            slots: slots.to_vec(),
            eligible,
            frames: 0,
            min: vec![u32::MAX; n],
            max: vec![0; n],
            total: vec![0; n],
            zeros: vec![0; n],
            below: [vec![0; n], vec![0; n]],
            low: per_window(|window| window.low),
            width: per_window(|window| window.width),
            all_below: [0, 1].map(|w| windows.iter().map(|pair| pair[w].all_below).collect()),
            inside: vec![0; n.next_multiple_of(8)],
        }
    }

    /// Adds a frame of this shape.
    #[inline(always)]
    fn add(&mut self, durations: &[u32], rows: &mut [SlotAcc]) {
        let n = self.slots.len();
        let durations = &durations[..n];
        let (min, max, total, zeros) =
            (&mut self.min[..n], &mut self.max[..n], &mut self.total[..n], &mut self.zeros[..n]);
        let [below0, below1] = &mut self.below;
        let (below0, below1) = (&mut below0[..n], &mut below1[..n]);
        let (low0, low1, width0, width1) =
            (&self.low[0][..n], &self.low[1][..n], &self.width[0][..n], &self.width[1][..n]);
        let inside = &mut self.inside[..n];
        // Passes the compiler vectorizes: every array is indexed alike and no figure
        // depends on another position's. The 64-bit totals apart, so that the rest runs
        // four lanes to a register rather than two.
        for i in 0..n {
            total[i] += u64::from(durations[i]);
        }
        for i in 0..n {
            let d = durations[i];
            min[i] = min[i].min(d);
            max[i] = max[i].max(d);
            zeros[i] += u32::from(d == 0);
            below0[i] += u32::from(d < low0[i]);
            below1[i] += u32::from(d < low1[i]);
            inside[i] = u8::from((d.wrapping_sub(low0[i]) <= width0[i]) | (d.wrapping_sub(low1[i]) <= width1[i]));
        }
        // The durations inside a window, found eight positions at a time.
        for (word_at, word) in self.inside.chunks_exact(8).enumerate() {
            let mut bits = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            while bits != 0 {
                let i = word_at * 8 + (bits.trailing_zeros() / 8) as usize;
                bits &= bits - 1;
                let row = &mut rows[self.slots[i] as usize];
                row.kept_len += row.kept.keep(row.kept_len, u64::from(durations[i]), true);
            }
        }
        self.frames += 1;
    }

    /// Hands the run's figures to `rows` and starts it again.
    fn fold(&mut self, rows: &mut [SlotAcc]) {
        if self.frames == 0 {
            return;
        }
        let frames = u64::from(self.frames);
        for (i, &slot) in self.slots.iter().enumerate() {
            let row = &mut rows[slot as usize];
            row.count += frames;
            row.zero_count += u64::from(self.zeros[i]);
            row.min = row.min.min(u64::from(self.min[i]));
            row.max = row.max.max(u64::from(self.max[i]));
            row.total += u128::from(self.total[i]);
            row.frames_present += frames;
            for w in 0..2 {
                row.below[w] += if self.all_below[w][i] { frames } else { u64::from(self.below[w][i]) };
            }
        }
        self.frames = 0;
        self.min.fill(u32::MAX);
        self.max.fill(0);
        self.total.fill(0);
        self.zeros.fill(0);
        for below in &mut self.below {
            below.fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::rows::{SlotAcc, Window};
    use super::Shapes;
    use crate::synth::Rng;

    /// Every figure of a row, its kept durations sorted.
    fn figures(row: &mut SlotAcc) -> (u64, u64, u64, u64, u128, u64, [u64; 2], Vec<u64>) {
        row.kept.truncate(row.kept_len);
        let mut kept = row.kept.durations();
        kept.sort_unstable();
        (row.count, row.zero_count, row.min, row.max, row.total, row.frames_present, row.below, kept)
    }

    fn rows(windows: &[[Window; 2]]) -> Vec<SlotAcc> {
        windows.iter().map(|&windows| SlotAcc::new(windows)).collect()
    }

    #[test]
    fn runs_of_shapes_give_each_row_what_adding_every_span_gives() {
        let mut rng = Rng::new(15);
        let mut ways = [0; 2];
        for trial in 0..300 {
            let slots_n = 1 + rng.below(12) as usize;
            // Windows of every kind: ordinary, all, past 32 bits, empty, edge-touching.
            let windows: Vec<[Window; 2]> = (0..slots_n)
                .map(|_| {
                    let edges =
                        [0, 1, 900, 1_000, 5_000, u64::from(u32::MAX) - 1, u64::from(u32::MAX), 1 << 33, u64::MAX];
                    let mut pick = || edges[rng.below(edges.len() as u64) as usize];
                    let (a, b, c, d) = (pick(), pick(), pick(), pick());
                    let mut sorted = [a, b, c, d];
                    sorted.sort_unstable();
                    match rng.below(4) {
                        0 => [Window { low: 0, high: u64::MAX }, Window { low: u64::MAX, high: 0 }],
                        1 => [Window { low: sorted[0], high: sorted[1] }, Window { low: u64::MAX, high: 0 }],
                        _ => [Window { low: sorted[0], high: sorted[1] }, Window { low: sorted[2], high: sorted[3] }],
                    }
                })
                .collect();
            // A few shapes, some repeating a row, taken in a random order.
            let shapes: Vec<Vec<u32>> = (0..1 + rng.below(6))
                .map(|_| (0..rng.below(10)).map(|_| rng.below(slots_n as u64) as u32).collect())
                .collect();
            let mut direct = rows(&windows);
            let mut shaped = rows(&windows);
            let mut by_shape = Shapes { fold_every: 1 + rng.below(5) as u32, ..Shapes::default() };

            for frame in 0..60 {
                let slots = &shapes[rng.below(shapes.len() as u64) as usize];
                let durations: Vec<u64> = slots
                    .iter()
                    .map(|_| match rng.below(8) {
                        0 => 0,
                        1 => u64::from(u32::MAX),
                        2 if trial % 3 == 0 => (1 << 33) + rng.below(10),
                        3 => 999 + rng.below(3),
                        _ => rng.below(6_000),
                    })
                    .collect();
                for (&slot, &duration) in slots.iter().zip(&durations) {
                    direct[slot as usize].add(duration, frame);
                }
                let narrow: Option<Vec<u32>> = durations.iter().map(|&d| u32::try_from(d).ok()).collect();
                if narrow.is_some_and(|narrow| by_shape.add(slots, &narrow, &mut shaped)) {
                    ways[0] += 1;
                } else {
                    ways[1] += 1;
                    for (&slot, &duration) in slots.iter().zip(&durations) {
                        shaped[slot as usize].add(duration, frame);
                    }
                }
            }
            by_shape.fold(&mut shaped);
            for (slot, (direct, shaped)) in direct.iter_mut().zip(&mut shaped).enumerate() {
                assert_eq!(figures(shaped), figures(direct), "trial {trial}, row {slot}, windows {:?}", windows[slot]);
            }
        }
        // Both ways were taken, many times each.
        assert!(ways.iter().all(|&frames| frames > 2_000), "by shape, span by span: {ways:?}");
    }
}
