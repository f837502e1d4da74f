//! A pass's order statistics that the statistics' scan selected already, so that the
//! comparison need not copy the pass's series and select in it again.
//!
//! `sgpt diff` scans each capture with its samples: the scan keeps the durations inside a
//! window around each pass's median and selects the median there (see `scan`). With the
//! samples, that window is widened to hold the ends of the density's bandwidth too, so
//! the scan hands over every rank a median's error reads whatever its spread
//! ([`median_error_ranks`]), with the counts of zeros, of ties at the median and of
//! values at or below it. Only Woodruff's interval, for a pass whose share below the
//! median is itself uncertain, reads ranks farther out: those are selected in a copy of
//! the series, as before. Every figure is the one the copy gives: these are the same
//! order statistics of the same values. A series of coins (`Durations::Coins`) has no
//! durations to copy: a rank past the bandwidth is then not given, and the comparison
//! says it needs durations.

use super::bootstrap::{Buffers, Order, OrderStats, median_error_ranks, quantile_rank};
use super::order::KnownOrder;
use super::samples::Series;

impl KnownOrder {
    /// The value of rank `rank`, where it is one the scan selected.
    fn at(&self, rank: usize) -> Option<u64> {
        median_error_ranks(self.count).iter().zip(self.values).find_map(|(&at, value)| (at == rank).then_some(value))
    }

    /// Whether these are `series`' order statistics' count: a scan's row and the series
    /// gather the same spans, so they always are; should they not, the copy decides.
    pub(crate) fn fits(&self, series: &Series) -> bool {
        self.count == series.len() && self.count > 0
    }
}

/// A series' order statistics from what its scan selected, and a copy of the series made
/// (in `buffers`) only when a rank the scan did not select is asked for.
pub(crate) struct WithKnown<'s, 'v> {
    known: KnownOrder,
    series: &'s Series,
    buffers: Option<&'v mut Buffers>,
    copy: Option<OrderStats<'v>>,
}

impl<'s, 'v> WithKnown<'s, 'v> {
    pub(crate) fn new(known: KnownOrder, series: &'s Series, buffers: &'v mut Buffers) -> Self {
        debug_assert!(known.fits(series));
        Self { known, series, buffers: Some(buffers), copy: None }
    }

    /// The copy, made once, where the series keeps its durations.
    fn copy(&mut self) -> Option<&mut OrderStats<'v>> {
        let series = self.series;
        if !series.values.kept() {
            return None;
        }
        let buffers = &mut self.buffers;
        Some(self.copy.get_or_insert_with(|| {
            OrderStats::copy(series, buffers.take().expect("the buffers lent once, for the one copy"))
        }))
    }
}

impl Order for WithKnown<'_, '_> {
    fn lower_median(&mut self) -> u64 {
        self.known.median()
    }

    fn quantile(&mut self, p: f64) -> Option<u64> {
        match self.known.at(quantile_rank(p, self.known.count)) {
            Some(value) => Some(value),
            None => self.copy().map(|copy| copy.quantile(p)),
        }
    }

    fn at_or_below_median(&mut self) -> usize {
        self.known.at_or_below_median
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::bootstrap::{Terms, bandwidth, median_error_of};
    use crate::synth::Rng;

    /// What a scan would hand over for `series`: its figures, from a sorted copy.
    fn known_of(series: &Series) -> KnownOrder {
        let mut sorted = Vec::new();
        series.values.extend_into(0..series.len(), &mut sorted);
        sorted.sort_unstable();
        let median = sorted[(sorted.len() - 1) / 2];
        KnownOrder {
            count: sorted.len(),
            values: median_error_ranks(sorted.len()).map(|rank| sorted[rank]),
            zeros: sorted.iter().filter(|&&v| v == 0).count(),
            tied: sorted.iter().filter(|&&v| v == median).count(),
            at_or_below_median: sorted.iter().filter(|&&v| v <= median).count(),
            total_ns: sorted.iter().map(|&v| u128::from(v)).sum(),
        }
    }

    #[test]
    fn known_ranks_give_the_copy_s_error_and_copy_only_for_woodruff() {
        let mut rng = Rng::new(23);
        let smooth = Series::one_per_frame((0..3_000).map(|_| rng.log_normal(50_000.0, 0.2) as u64));
        // Two levels switching rarely: the share's interval reaches past the bandwidth.
        let mut high = false;
        let switching = Series::one_per_frame((0..3_000).map(|_| {
            if rng.unit() < 0.005 {
                high = !high;
            }
            (if high { 24_000.0 } else { 4_000.0 } * (0.1 * rng.normal()).exp()) as u64
        }));
        let several = Series::from_frames(
            &(0..900).map(|_| (0..rng.below(4)).map(|_| rng.below(1_000)).collect()).collect::<Vec<_>>(),
        );
        for (series, frames, woodruff) in [(&smooth, 3_000, false), (&switching, 3_000, true), (&several, 900, false)] {
            let (mut copied, mut lent) = (Buffers::default(), Buffers::default());
            let expected =
                median_error_of(series, frames, 9, &mut OrderStats::copy(series, &mut copied), &mut Terms::default());
            let mut known = WithKnown::new(known_of(series), series, &mut lent);
            let got = median_error_of(series, frames, 9, &mut known, &mut Terms::default());
            assert_eq!(got, expected);
            assert_eq!(known.copy.is_some(), woodruff, "copied only to reach past the bandwidth");
        }
        // The bandwidth's ends are the ranks the figures name.
        let n = 3_000;
        let h = bandwidth(n);
        assert_eq!(median_error_ranks(n), [1_499, quantile_rank(0.5 - h, n), quantile_rank(0.5 + h, n)]);
    }
}
