//! One row's figures in one chunk of a scan, and the windows whose durations it keeps
//! for selecting its median and p95.

use serde::{Deserialize, Serialize};

use super::kept::Kept;
use crate::analysis::compare::{Inside, KnownOrder, median_error_ranks};
use crate::analysis::ranks;

/// Durations `low..=high` kept for selection; empty when `low > high`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Window {
    pub(super) low: u64,
    pub(super) high: u64,
}

pub(super) const ALL: Window = Window { low: 0, high: u64::MAX };
pub(super) const EMPTY: Window = Window { low: u64::MAX, high: 0 };

/// One row's figures in one chunk, and the durations in its windows.
#[derive(Debug)]
pub(super) struct SlotAcc {
    pub(super) count: u64,
    pub(super) zero_count: u64,
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) total: u128,
    pub(super) frames_present: u64,
    /// The frame that last added to this row.
    last_frame: usize,
    /// The windows as the per-span test reads them: `duration − low ≤ width`. Disjoint,
    /// the median's below the p95's, so the kept durations sorted are the first window's
    /// then the second's.
    pub(super) low: [u64; 2],
    pub(super) width: [u64; 2],
    /// Durations below each window.
    pub(super) below: [u64; 2],
    /// Durations inside either window: the first `kept_len` of `kept` while adding, all
    /// of it once sealed.
    pub(super) kept: Kept,
    pub(super) kept_len: usize,
}

impl SlotAcc {
    pub(super) fn new(windows: [Window; 2]) -> Self {
        // An empty window keeps only durations of u64::MAX, which the other one holds too:
        // never counted twice, as the second window is then never where a rank is found.
        let windows = windows
            .map(|window| if window.low > window.high { Window { low: u64::MAX, high: u64::MAX } } else { window });
        let (low, width) = (windows.map(|window| window.low), windows.map(|window| window.high - window.low));
        Self {
            count: 0,
            zero_count: 0,
            min: u64::MAX,
            max: 0,
            total: 0,
            frames_present: 0,
            last_frame: usize::MAX,
            low,
            width,
            below: [0; 2],
            kept: Kept::for_windows(low, width),
            kept_len: 0,
        }
    }

    /// Adds a duration of frame `index`: no branch on where it falls, as near a window's
    /// edge that is a coin toss.
    #[inline(always)]
    pub(super) fn add(&mut self, duration: u64, index: usize) {
        self.count += 1;
        self.zero_count += u64::from(duration == 0);
        self.min = self.min.min(duration);
        self.max = self.max.max(duration);
        self.total += u128::from(duration);
        self.below[0] += u64::from(duration < self.low[0]);
        self.below[1] += u64::from(duration < self.low[1]);
        let inside = (duration.wrapping_sub(self.low[0]) <= self.width[0])
            | (duration.wrapping_sub(self.low[1]) <= self.width[1]);
        self.kept_len += self.kept.keep(self.kept_len, duration, inside);
        // Last, so that nothing computed above has to outlive the branch.
        if self.last_frame != index {
            self.last_frame = index;
            self.frames_present += 1;
        }
    }

    /// Adds a later chunk's figures of the same row (windows are the same in every chunk).
    pub(super) fn merge(&mut self, later: SlotAcc) {
        self.count += later.count;
        self.zero_count += later.zero_count;
        self.min = self.min.min(later.min);
        self.max = self.max.max(later.max);
        self.total += later.total;
        self.frames_present += later.frames_present;
        self.below[0] += later.below[0];
        self.below[1] += later.below[1];
        self.kept.append(later.kept);
        self.kept_len = self.kept.len();
    }

    /// The median and p95 (nearest rank, as `PassStats` defines them), `None` when either
    /// fell outside the windows; the kept durations stay in their order.
    pub(super) fn order(&mut self) -> Option<[u64; 2]> {
        if self.count == 0 {
            return Some([0, 0]);
        }
        let in_window = self.in_window();
        let [median, p95] = ranks(self.count).map(|rank| self.locate(in_window, rank));
        Some(self.kept.select([median?, p95?]))
    }

    /// [`SlotAcc::order`], and the order statistics a comparison's median error reads
    /// (see `compare::known`) where the windows hold them.
    pub(super) fn order_and_known(&mut self) -> Option<([u64; 2], Option<KnownOrder>)> {
        let Ok(count) = usize::try_from(self.count) else { return self.order().map(|figures| (figures, None)) };
        if count == 0 {
            return Some(([0, 0], None));
        }
        let in_window = self.in_window();
        let [median, p95] = ranks(self.count);
        let [_, low, high] = median_error_ranks(count);
        // Ascending: the bandwidth's ends lie on either side of the median, below the p95.
        let at = [low as u64, median, high as u64, p95].map(|rank| self.locate(in_window, rank));
        let (Some(median), Some(p95)) = (at[1], at[3]) else { return None };
        let Some(at) = at.into_iter().collect::<Option<Vec<u64>>>() else {
            return Some((self.kept.select([median, p95]), None));
        };
        let [low, median, high, p95] = self.kept.select_ascending([at[0], at[1], at[2], at[3]].map(|at| at as usize));
        // The counts at and below the median are whole only where it lies in its own window:
        // one the p95's window found leaves the durations between the windows uncounted.
        if !self.in_median_window(median) {
            return Some(([median, p95], None));
        }
        let (tied, at_or_below) = self.kept.count_at_and_below(median);
        let known = KnownOrder {
            count,
            values: [median, low, high],
            zeros: usize::try_from(self.zero_count).unwrap_or(usize::MAX),
            tied,
            at_or_below_median: usize::try_from(self.below[0]).unwrap_or(usize::MAX) + at_or_below,
            total_ns: self.total,
        };
        Some(([median, p95], Some(known)))
    }

    /// The kept durations inside the median's window, in the order they were added (frame
    /// order, across chunks merged in order, which the selections leave as it is), taken
    /// from the row: call it once the figures are selected.
    pub(super) fn take_median_window(&mut self) -> Inside {
        self.kept.take_first(self.low[0], self.width[0])
    }

    /// Whether `duration` lies in the median's window.
    pub(super) fn in_median_window(&self, duration: u64) -> bool {
        duration.wrapping_sub(self.low[0]) <= self.width[0]
    }

    /// How many kept durations lie in each window.
    fn in_window(&self) -> [u64; 2] {
        let first = self.kept.count_within(self.low[0], self.width[0]);
        [first as u64, (self.kept.len() - first) as u64]
    }

    /// Where rank `rank` sits among the kept durations, sorted; `None` outside the windows.
    fn locate(&self, in_window: [u64; 2], rank: u64) -> Option<u64> {
        (0..2).find_map(|window| {
            let inside = rank.checked_sub(self.below[window])?;
            (inside < in_window[window]).then_some(inside + if window == 0 { 0 } else { in_window[0] })
        })
    }
}
