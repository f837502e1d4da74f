//! A side's block length found a bounded step at a time, for [`super::ComparisonJob`]: on
//! an eight-hour capture's half (864,000 frames) ranking the frame times is a sort that a
//! page cannot run between two frames, so it is sliced ([`SlicedSort`]); then the ranks are
//! a step, and the autocorrelation a sweep over them a step ([`LengthSearch`]: a drifting
//! capture needs hundreds of lags). The length is [`block_length`]'s to the frame: the
//! same pairs sorted the same way, then the same sums.

use super::bootstrap::{LengthSearch, block_length, block_length_within, positioned, ranks_of_sorted};
use super::sliced_sort::{RUN, SlicedSort};

#[derive(Debug)]
enum State {
    /// Nothing computed yet.
    Waiting,
    /// The options gave the length: taken in a step of its own, as a found one is.
    Given(usize),
    Sorting(SlicedSort<(u64, usize)>),
    Sorted(Vec<(u64, usize)>),
    Searching(Vec<f64>, LengthSearch),
    Done(usize),
}

/// One side's block length, found a step at a time.
#[derive(Debug)]
pub(crate) struct BlockLengthJob {
    state: State,
}

impl BlockLengthJob {
    /// The length for a side's frame times, or the one the options give (at least 1).
    pub(crate) fn new(given: Option<usize>) -> Self {
        Self { state: given.map_or(State::Waiting, |block| State::Given(block.max(1))) }
    }

    /// The length, once found.
    pub(crate) fn length(&self) -> Option<usize> {
        match self.state {
            State::Done(block) => Some(block),
            _ => None,
        }
    }

    /// Share of the work done, 0 to 1, rising with every step.
    pub(crate) fn progress(&self) -> f64 {
        match &self.state {
            State::Waiting | State::Given(_) => 0.0,
            State::Sorting(sort) => 0.5 * sort.progress(),
            State::Sorted(_) => 0.5,
            // Each sweep adds a part of what is left: the sweeps to come are not known.
            State::Searching(_, search) => 1.0 - 0.45 * 0.9f64.powi(search.sweeps() as i32),
            State::Done(_) => 1.0,
        }
    }

    /// One bounded step over the side's frame times `series` (the same series every
    /// step): a side of at most [`RUN`] frames is found whole, a longer one is copied and
    /// its first run sorted, then sorted a run or a merge at a time, then ranked, then
    /// autocorrelated a sweep at a time.
    pub(crate) fn step(&mut self, series: &[u64]) {
        self.state = match std::mem::replace(&mut self.state, State::Waiting) {
            State::Given(block) => State::Done(block),
            State::Waiting if series.len() <= RUN => State::Done(block_length(series).max(1)),
            State::Waiting => {
                let mut sort = SlicedSort::new(positioned(series));
                sort.step();
                State::Sorting(sort)
            }
            // A sort that ends moves on in the step that ended it.
            State::Sorting(mut sort) => {
                if sort.step() {
                    State::Sorted(sort.into_sorted())
                } else {
                    State::Sorting(sort)
                }
            }
            State::Sorted(order) => {
                let ranks = ranks_of_sorted(&order);
                let search = LengthSearch::of_ranks(&ranks);
                State::Searching(ranks, search)
            }
            State::Searching(ranks, mut search) => match search.sweep_ranks(&ranks) {
                Some(b_hat) => State::Done(block_length_within(ranks.len(), b_hat).max(1)),
                None => State::Searching(ranks, search),
            },
            done @ State::Done(_) => done,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;

    #[test]
    fn a_long_side_is_found_in_bounded_steps_and_is_the_length_found_at_once() {
        let mut rng = Rng::new(21);
        // A drift every pass moves together, on durations with ties (a 1 µs grid).
        let mut level = 0.0f64;
        let rho = (-1.0f64 / 50.0).exp();
        let series: Vec<u64> = (0..5 * RUN + 123)
            .map(|_| {
                level = rho * level + (1.0 - rho * rho).sqrt() * rng.normal();
                ((1e6 * (0.02 * level).exp() * (0.01 * rng.normal()).exp()) as u64) / 1_000 * 1_000
            })
            .collect();
        let mut job = BlockLengthJob::new(None);
        let mut steps = 0;
        let mut last = job.progress();
        while job.length().is_none() {
            job.step(&series);
            steps += 1;
            assert!(job.progress() > last, "step {steps}: progress rises");
            last = job.progress();
        }
        let whole = block_length(&series);
        assert!(whole > 40, "the drift makes long blocks: {whole}");
        assert_eq!(job.length(), Some(whole));
        // The copy and the first run, 5 more runs, 3 merge passes of 3 steps each (a
        // step moves `MERGED` items), the ranks, then the autocorrelation a sweep of 8
        // lags a step: this drift's search reads about 400 lags, in 53 sweeps.
        let sorting = 1 + 5 + 3 * 3;
        assert_eq!(steps, sorting + 1 + 53);
        // A short side and a given length are one step each.
        let short = &series[..RUN];
        let mut job = BlockLengthJob::new(None);
        job.step(short);
        assert_eq!(job.length(), Some(block_length(short)));
        let mut job = BlockLengthJob::new(Some(0));
        assert_eq!(job.length(), None, "nothing before the first step");
        job.step(&series);
        assert_eq!(job.length(), Some(1), "a given length is at least 1");
    }
}
