//! What a scan selected of a pass's durations for the comparison: the order statistics
//! a median's error reads and the counts beside them (see `known`). Plain figures, so the
//! samples can carry them without knowing how they are read.

/// A pass's order statistics over its `count` durations, as its scan selected them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownOrder {
    pub(crate) count: usize,
    /// The values at `median_error_ranks(count)`: the median, then the ends of the
    /// density's bandwidth.
    pub(crate) values: [u64; 3],
    pub(crate) zeros: usize,
    /// Durations equal to the median.
    pub(crate) tied: usize,
    pub(crate) at_or_below_median: usize,
    /// The durations' sum, for a pass on one side only (its cost per frame).
    pub(crate) total_ns: u128,
}

impl KnownOrder {
    pub(crate) fn median(&self) -> u64 {
        self.values[0]
    }
}
