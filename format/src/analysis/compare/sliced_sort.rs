//! A sort that runs a bounded piece at a time, for a caller that must yield between pieces
//! (the inspector's comparison on the page's thread): runs of the items are sorted in place
//! a run a step, then merged bottom-up, a bounded number of items a step, through a second
//! buffer. The order it ends in is the one `sort_unstable` gives wherever no two items are
//! equal but distinguishable (the block length sorts values beside their positions).

use std::cmp::Ordering;

/// Items sorted in place by one step of the first phase.
pub(crate) const RUN: usize = 1 << 15;
/// Items moved by one step of the merge phase.
pub(crate) const MERGED: usize = 1 << 16;

#[derive(Debug)]
enum Stage {
    /// Sorting runs of `run` items in place; the next starts at `next`.
    Runs {
        next: usize,
    },
    /// Merging pairs of sorted runs of `width` into `spare`: the pair at `lo`, its left run
    /// read up to `left`, its right run up to `right` (so `left + right - lo - width`
    /// merged).
    Merge {
        width: usize,
        lo: usize,
        left: usize,
        right: usize,
    },
    Done,
}

/// Items being sorted, a bounded step at a time.
#[derive(Debug)]
pub(crate) struct SlicedSort<T> {
    items: Vec<T>,
    spare: Vec<T>,
    stage: Stage,
    run: usize,
    merged: usize,
    /// Items sorted or moved so far, and what the whole sort moves: for progress.
    work: (usize, usize),
}

impl<T: Copy + Ord> SlicedSort<T> {
    /// `items` to sort, [`RUN`] items sorted and [`MERGED`] moved a step.
    pub(crate) fn new(items: Vec<T>) -> Self {
        Self::with_steps(items, RUN, MERGED)
    }

    /// `items` to sort, `run` items sorted and `merged` moved a step (each at least 1).
    pub(crate) fn with_steps(items: Vec<T>, run: usize, merged: usize) -> Self {
        let (run, merged) = (run.max(1), merged.max(1));
        let n = items.len();
        let mut passes = 0;
        let mut width = run;
        while width < n {
            passes += 1;
            width = width.saturating_mul(2);
        }
        Self { items, spare: Vec::new(), stage: Stage::Runs { next: 0 }, run, merged, work: (0, n * (1 + passes)) }
    }

    /// Whether the items are sorted.
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// Share of the sort done, 0 to 1, rising with every step that had work.
    pub(crate) fn progress(&self) -> f64 {
        if self.work.1 == 0 { 1.0 } else { self.work.0 as f64 / self.work.1 as f64 }
    }

    /// One step: a run sorted, or at most `merged` items merged. `true` once sorted.
    pub(crate) fn step(&mut self) -> bool {
        let n = self.items.len();
        match self.stage {
            Stage::Runs { next } => {
                let end = (next + self.run).min(n);
                self.items[next..end].sort_unstable();
                self.work.0 += end - next;
                self.stage = if end < n { Stage::Runs { next: end } } else { self.merge_pass(self.run) };
            }
            Stage::Merge { width, lo, left, right } => self.merge_step(width, lo, left, right),
            Stage::Done => {}
        }
        self.is_done()
    }

    /// The first stage of a merge pass of runs of `width`: done if one run holds every item.
    fn merge_pass(&mut self, width: usize) -> Stage {
        if width >= self.items.len() {
            self.spare = Vec::new();
            return Stage::Done;
        }
        self.spare.clear();
        self.spare.reserve_exact(self.items.len());
        Stage::Merge { width, lo: 0, left: 0, right: width.min(self.items.len()) }
    }

    fn merge_step(&mut self, width: usize, mut lo: usize, mut left: usize, mut right: usize) {
        let n = self.items.len();
        let mut budget = self.merged;
        loop {
            let (mid, hi) = ((lo + width).min(n), (lo + 2 * width).min(n));
            // A pair merged moves on before the budget is looked at, so that a step never
            // ends on a pass whose every item is already moved.
            if left == mid && right == hi {
                lo = hi;
                if lo >= n {
                    std::mem::swap(&mut self.items, &mut self.spare);
                    self.stage = self.merge_pass(width.saturating_mul(2));
                    return;
                }
                left = lo;
                right = (lo + width).min(n);
                continue;
            }
            if budget == 0 {
                break;
            }
            // Ties take the left run first, as a stable merge does.
            let take_left =
                right == hi || (left < mid && self.items[left].cmp(&self.items[right]) != Ordering::Greater);
            if take_left {
                self.spare.push(self.items[left]);
                left += 1;
            } else {
                self.spare.push(self.items[right]);
                right += 1;
            }
            budget -= 1;
            self.work.0 += 1;
        }
        self.stage = Stage::Merge { width, lo, left, right };
    }

    /// The sorted items (sorting whatever is left first).
    pub(crate) fn into_sorted(mut self) -> Vec<T> {
        while !self.step() {}
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;

    #[test]
    fn every_size_sorts_as_sort_unstable_each_step_bounded_and_progress_rising() {
        let mut rng = Rng::new(11);
        for n in [0usize, 1, 2, 7, 8, 9, 31, 32, 33, 100, 257] {
            // Few distinct values beside positions: ties in the value, none in the pair.
            let items: Vec<(u64, usize)> = (0..n).map(|i| (rng.next_u64() % 5, i)).collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            for (run, merged) in [(1, 1), (4, 3), (8, 16), (1_000, 1_000)] {
                let mut sort = SlicedSort::with_steps(items.clone(), run, merged);
                let mut last = sort.progress();
                let mut steps = 0;
                while !sort.is_done() {
                    let before = sort.work.0;
                    sort.step();
                    steps += 1;
                    assert!(sort.work.0 - before <= run.max(merged), "n {n}: a step is bounded");
                    assert!(sort.progress() > last || n == 0, "n {n}: progress rises");
                    last = sort.progress();
                    assert!(steps <= sort.work.1 + 1, "n {n}: ends");
                }
                assert_eq!(sort.progress(), 1.0, "n {n}, runs of {run}");
                assert_eq!(sort.into_sorted(), expected, "n {n}, runs of {run}, {merged} merged a step");
            }
        }
    }
}
