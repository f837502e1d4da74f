//! The standard error of a median under dependence between frames: the circular block
//! bootstrap (Politis and Romano, 1992) variance of the share of spans at or below the
//! median, carried to the median through the density there (the delta method for
//! quantiles; Siddiqui's spacing estimate of the density, Bofinger's bandwidth).
//!
//! Frames are not independent: a thermal drift, a shadow refresh every few frames or a
//! periodic pass make consecutive frames alike. Treating them as independent would make
//! every interval too narrow. A circular block bootstrap resample is made of blocks of
//! `L` consecutive frames, each starting at a uniformly drawn frame of the capture read as
//! a circle, so dependence shorter than a block survives. For a share (a mean of
//! per-frame counts) the bootstrap variance has a closed form, the variance over all `F`
//! circular blocks times the number of blocks drawn, so it is computed exactly here,
//! with nothing drawn at random: the result is what infinitely many resamples would
//! give. (Resampling medians directly would be noisier: the bootstrap variance of a
//! median converges only at the rate `n^(−1/4)`.)
//!
//! Under slow switching between levels (lavapipe's small passes) blocks of at most
//! `3√n` frames see too little: the variance is at least the AR(1) one of the same terms,
//! and a wide share interval is mapped through the sorted values (Woodruff) rather than
//! through a local density; see [`median_error_of`].
//!
//! Assumptions: within a capture, frames are stationary and dependence fades within a
//! block; the durations near the median are resolved finely enough that the spacing of
//! order statistics measures a density (ties make it zero, and the caller says
//! inconclusive instead).
//!
//! Where the time went (`perf record` of `sgpt diff --json` of two hour-long captures,
//! 216,000 frames × 200 passes each, one thread, 5.4 s): the scans 53 %, this comparison
//! 40 %: selections 11 % (each side's median selected twice, once by the tie checks and
//! once here, and both ends of the bandwidth over the whole copy), `b̂` on the per-frame
//! terms 11 % (one lag at a time, each addition waiting on the one before), the rest of
//! [`median_error_of`] 9 % (a division per frame in the block variance, three buffers of
//! `f64` a frame allocated per pass), copies and counts 7 %. Now (3.0 s): the scans 70 %,
//! the comparison 21 %: one copy a side at 4 bytes a value with its median selected once
//! and every later rank between known ones (7 %), the lags summed eight side by side
//! (5 %), the terms of a pass of one span a frame kept as a byte a frame (6 % with the
//! block variance and the AR(1) sums, swept together), copies 2 %. Every sum adds the
//! same terms in the same order as before, so every figure is the same to the bit; the
//! first forms are kept in `reference.rs`, for tests to check that. Seeding the median
//! from the statistics' own (`sgpt stats` places it) saved nothing measurable: a
//! branch-free copy around it cost what the selection did. Later, with the scans faster
//! (1.9 s), those `f64` sums over the usual pass's coins were 17 %; they are now counted
//! in integers (`terms`), 5 %, and exact: its standard errors differ from the summed
//! ones from about the twelfth significant digit, the summed ones' rounding.

use super::samples::{Durations, NO_SPAN, Series};
#[cfg(test)]
use super::terms::{self, LAGS};
use super::terms::{Coins, FrameTerms, Moments};

/// The normal quantile the share's interval is mapped at where it is wider than the
/// density's bandwidth: about that of Holm's level for 30 tests at α = 0.05.
pub(crate) const WOODRUFF_Z: f64 = 3.0;

/// Fewest blocks a capture must hold for its resamples to say anything about variance.
pub(crate) const MIN_BLOCKS: usize = 10;

/// The block length, in frames, for a capture whose frame times are `series`:
/// `max(⌈n^(1/3)⌉, b̂)`, where `b̂` is the automatic choice for the circular block bootstrap
/// of Politis and White (2004, with the correction of Patton, Politis and White, 2009),
/// computed on the ranks of the frame times (so one hitch frame does not dominate the
/// autocorrelation) and bounded by `min(3√n, n/3)`.
///
/// The frame time is where dependence shared by every pass shows most (a drift moves all
/// passes together, and summing the passes averages their own noise away), so one length
/// serves every pass of the capture. `n^(1/3)` is the rate the optimal length grows at; it
/// is a floor so that weak dependence the autocorrelation cannot detect is still kept.
pub(crate) fn block_length(series: &[u64]) -> usize {
    if series.len() < 4 {
        return 1;
    }
    let mut order = positioned(series);
    order.sort_unstable();
    block_length_within(series.len(), automatic_length(&ranks_of_sorted(&order)))
}

/// `b̂` of a series of `n` frame times held to the bounds of [`block_length`].
pub(crate) fn block_length_within(n: usize, b_hat: usize) -> usize {
    let floor = (n as f64).cbrt().ceil() as usize;
    b_hat.max(floor).min(ceiling(n))
}

/// Each value beside its position: sorted, the order ranks are read from.
pub(crate) fn positioned(series: &[u64]) -> Vec<(u64, usize)> {
    series.iter().copied().zip(0..).collect()
}

/// `min(3√n, n/3)`: the longest block, so a capture always holds at least 3.
pub(crate) fn ceiling(n: usize) -> usize {
    ((3.0 * (n as f64).sqrt()).ceil() as usize).min(n / 3).max(1)
}

/// Reusable buffers for a statistic's per-frame terms, so that preparing a pass allocates
/// nothing once the first pass has sized them.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    /// For a pass of one span a frame: whether each frame's is at or below the median.
    coins: Vec<u8>,
    /// Otherwise the terms themselves.
    u: Vec<f64>,
    correlations: Vec<f64>,
}

/// Politis and White's `b̂` on `values` (at least 4), at most [`ceiling`], with no floor.
pub(crate) fn automatic_length(values: &[f64]) -> usize {
    automatic_length_in(values, values.moments().sum, &mut Vec::new())
}

/// `Σ_{i < n − k} c_i c_{i+k}` for the lags `k` of `first..first + LAGS`, each summed in
/// index order from −0.0, exactly as `zip(..).map(..).sum()` sums one lag.
#[cfg(test)]
pub(crate) fn lagged_sums(c: &[f64], first: usize) -> [f64; LAGS] {
    terms::lagged_sums(c, first)
}

/// [`automatic_length`] on any terms, with the correlations' buffer lent.
/// `sum` is `Σ values`, as [`Moments`] sums it.
fn automatic_length_in<T: FrameTerms + ?Sized>(values: &T, sum: f64, correlations: &mut Vec<f64>) -> usize {
    let mut search = LengthSearch::new(values.len(), sum, std::mem::take(correlations));
    let length = loop {
        if let Some(length) = search.sweep(values) {
            break length;
        }
    };
    *correlations = search.correlations;
    length
}

/// Politis and White's `b̂` found a sweep over the values at a time (a batch of
/// [`LAGS`](super::terms::LAGS) lags each), so that a caller that must yield can stop
/// between sweeps: each costs `n` per lag, and a long, drifting capture needs hundreds of
/// lags. Run to the end it is [`automatic_length`], sum for sum.
#[derive(Debug)]
pub(crate) struct LengthSearch {
    n: usize,
    mean: f64,
    /// Found by the first sweep.
    variance: Option<f64>,
    correlations: Vec<f64>,
    /// The lag the search for the first run of insignificant autocorrelations is at, and
    /// the lag it found (or its end).
    m: usize,
    m_hat: Option<usize>,
    /// Calls to [`Self::sweep`] so far.
    sweeps: u32,
}

impl LengthSearch {
    /// The search over `n` (at least 4) values summing to `sum`, as [`Moments`] sums them.
    fn new(n: usize, sum: f64, correlations: Vec<f64>) -> Self {
        Self { n, mean: sum / n as f64, variance: None, correlations, m: 0, m_hat: None, sweeps: 0 }
    }

    /// The search over a capture's frame-time ranks (at least 4).
    pub(crate) fn of_ranks(ranks: &[f64]) -> Self {
        Self::new(ranks.len(), ranks.moments().sum, Vec::new())
    }

    /// Sweeps taken so far.
    pub(crate) fn sweeps(&self) -> u32 {
        self.sweeps
    }

    /// [`Self::sweep`] over the ranks [`Self::of_ranks`] was made for.
    pub(crate) fn sweep_ranks(&mut self, ranks: &[f64]) -> Option<usize> {
        self.sweep(ranks)
    }

    /// One sweep over `values` (the same every call), or none where what was swept is
    /// enough: `Some` length, at most [`ceiling`] and with no floor, once found.
    fn sweep<T: FrameTerms + ?Sized>(&mut self, values: &T) -> Option<usize> {
        self.sweeps += 1;
        let n = self.n;
        let (floor, ceiling) = (1, ceiling(n));
        let mean = self.mean;
        let Some(variance) = self.variance else {
            let first = values.centred_lagged_sums(mean, 0);
            let variance = first[0] / n as f64;
            if variance == 0.0 {
                return Some(floor.min(ceiling));
            }
            self.variance = Some(variance);
            self.correlations.clear();
            self.correlations.push(1.0);
            self.correlations.extend(first[1..].iter().map(|&sum| sum / n as f64 / variance));
            return None;
        };
        // The first lag after which K_N autocorrelations in a row are insignificant.
        let log_n = (n as f64).log10();
        let significant = 2.0 * (log_n / n as f64).sqrt();
        let run = ((log_n.sqrt().ceil()) as usize).max(5);
        let max_lag = ((n as f64).sqrt().ceil() as usize + run).min(n - 1);
        // Computed only as far as the search needs, a batch of lags per sweep over the
        // values (each lag's sum is what summing it alone gives).
        let extend = |correlations: &mut Vec<f64>, to: usize| {
            let more = correlations.len() <= to;
            if more {
                let sums = values.centred_lagged_sums(mean, correlations.len());
                correlations.extend(sums.iter().map(|&sum| sum / n as f64 / variance));
            }
            more
        };
        let m_hat = loop {
            if let Some(m_hat) = self.m_hat {
                break m_hat;
            }
            let m = self.m;
            if m >= max_lag {
                self.m_hat = Some(max_lag);
                continue;
            }
            let end = (m + 1 + run).min(max_lag + 1);
            if extend(&mut self.correlations, end - 1) {
                return None;
            }
            if self.correlations[m + 1..end].iter().all(|r| r.abs() < significant) {
                self.m_hat = Some(m);
            } else {
                self.m += 1;
            }
        };
        let big_m = (2 * m_hat).min(max_lag);
        if extend(&mut self.correlations, big_m) {
            return None;
        }
        let window = |k: usize| flat_top(k, big_m);
        // The lag-0 autocovariance is the variance, summed the same way.
        let (mut g, mut spectrum) = (0.0, variance);
        for (k, &correlation) in self.correlations.iter().enumerate().take(big_m + 1).skip(1) {
            let r = window(k) * correlation * variance;
            g += 2.0 * k as f64 * r;
            spectrum += 2.0 * r;
        }
        let d = 4.0 / 3.0 * spectrum * spectrum;
        let chosen = if d > 0.0 { (2.0 * g * g / d).cbrt() * (n as f64).cbrt() } else { 0.0 };
        Some((chosen.ceil() as usize).max(floor).min(ceiling))
    }
}

/// The flat-top lag window at lag `k` of a window `big_m` lags wide.
pub(crate) fn flat_top(k: usize, big_m: usize) -> f64 {
    if big_m == 0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    let t = k as f64 / big_m as f64;
    if t <= 0.5 {
        1.0
    } else if t <= 1.0 {
        2.0 * (1.0 - t)
    } else {
        0.0
    }
}

/// Average ranks (ties share the mean of their ranks), 0-based.
#[cfg(test)]
pub(crate) fn ranks(series: &[u64]) -> Vec<f64> {
    let mut order = positioned(series);
    order.sort_unstable();
    ranks_of_sorted(&order)
}

/// Average ranks (ties share the mean of their ranks), 0-based, of the values whose
/// positions `order` lists sorted by value. Sorted unstably is enough: ties share one
/// mid-rank, so their order among themselves cannot matter, and the pairs sort without
/// reaching back into the series (a frame-time series of eight hours' halves is 864,000
/// values).
pub(crate) fn ranks_of_sorted(order: &[(u64, usize)]) -> Vec<f64> {
    let mut ranks = vec![0.0; order.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && order[end].0 == order[start].0 {
            end += 1;
        }
        let rank = (start + end - 1) as f64 / 2.0;
        for &(_, i) in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// The lower median, `d[(n − 1) / 2]` of the sorted values: the one `sgpt stats` shows.
/// `values` is reordered.
#[cfg(test)]
pub(crate) fn lower_median(values: &mut [u64]) -> u64 {
    let at = (values.len() - 1) / 2;
    *values.select_nth_unstable(at).1
}

/// A median's standard error and the degrees of freedom of the variance it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MedianError {
    pub(crate) median: u64,
    /// `None` when the durations around the median are tied (the spacing is 0).
    pub(crate) standard_error: Option<f64>,
    /// `3F / 2L`: the equivalent degrees of freedom of a block variance estimate with
    /// `F / L` blocks (the Bartlett-window value; the circular block bootstrap variance is
    /// a Bartlett-window long-run variance).
    pub(crate) degrees_of_freedom: f64,
}

/// The rank (0-based) of the value at probability `p` among `n` sorted values (nearest
/// rank).
pub(crate) fn quantile_rank(p: f64, n: usize) -> usize {
    ((p * n as f64).ceil() as usize).clamp(1, n) - 1
}

/// The ranks among `n` values (at least 1) that a median's error reads whatever its
/// spread: the lower median, then the ends of the density's bandwidth, `0.5 ∓ h`.
pub(crate) fn median_error_ranks(n: usize) -> [usize; 3] {
    let h = bandwidth(n);
    [(n - 1) / 2, quantile_rank(0.5 - h, n), quantile_rank(0.5 + h, n)]
}

/// Where a median's error reads its order statistics: a copy of the series selected in
/// ([`OrderStats`]), or the ones a scan selected already (`known`).
pub(crate) trait Order {
    /// The lower median, `d[(n − 1) / 2]`: the one `sgpt stats` shows.
    fn lower_median(&mut self) -> u64;
    /// The value at probability `p` (nearest rank); `None` where neither the scan selected
    /// it nor the series keeps its durations.
    fn quantile(&mut self, p: f64) -> Option<u64>;
    /// How many values are at or below the lower median.
    fn at_or_below_median(&mut self) -> usize;
}

impl Order for OrderStats<'_> {
    fn lower_median(&mut self) -> u64 {
        OrderStats::lower_median(self)
    }
    fn quantile(&mut self, p: f64) -> Option<u64> {
        Some(OrderStats::quantile(self, p))
    }
    fn at_or_below_median(&mut self) -> usize {
        OrderStats::at_or_below_median(self)
    }
}

/// Bofinger's bandwidth for the density at the median of `n` values: `h = n^(−1/5) ·
/// (4.5 φ(0)⁴)^(1/5)`, capped below 0.45.
pub(crate) fn bandwidth(n: usize) -> f64 {
    let phi0 = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    ((4.5 * phi0.powi(4)).powf(0.2) * (n as f64).powf(-0.2)).min(0.45)
}

/// A copy of a series' values, its order statistics selected in place and remembered:
/// each selected rank holds its value and splits the copy (smaller values before it,
/// larger after), so a later rank is selected only between its nearest selected
/// neighbours. The median, both ends of the density's bandwidth and Woodruff's interval
/// are then one selection over the copy and four over parts of it, where each used to
/// copy or select over the whole.
#[derive(Debug)]
pub(crate) struct OrderStats<'v> {
    values: Copied<'v>,
    known: [usize; KNOWN],
    len: usize,
}

/// The copy, 4 bytes a value while every one fits (as the series keeps them): half the
/// memory to sweep for each selection.
#[derive(Debug)]
enum Copied<'v> {
    Narrow(&'v mut [u32]),
    Wide(&'v mut [u64]),
}

/// Where an [`OrderStats`] copies a series' values; kept from one pass to the next.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    narrow: Vec<u32>,
    wide: Vec<u64>,
}

/// Ranks an [`OrderStats`] remembers: more than a median error ever selects.
const KNOWN: usize = 8;

/// The ranks an [`OrderStats`] has selected in its copy, to resume it later on the same
/// buffers (a comparison's test in stages).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Selected {
    known: [usize; KNOWN],
    len: usize,
}

/// The value of rank `rank` among `values`, every rank in `known` already in place (the
/// value at it, smaller ones before, larger after): selected between its neighbours.
fn select<T: Copy + Ord>(values: &mut [T], known: &[usize], rank: usize) -> T {
    if known.contains(&rank) {
        return values[rank];
    }
    let start = known.iter().filter(|&&k| k < rank).max().map_or(0, |&k| k + 1);
    let end = known.iter().copied().filter(|&k| k > rank).min().unwrap_or(values.len());
    *values[start..end].select_nth_unstable(rank - start).1
}

impl<'v> OrderStats<'v> {
    /// `series`' values, copied into `buffers` (their room kept for the next pass).
    pub(crate) fn copy(series: &Series, buffers: &'v mut Buffers) -> Self {
        let values = match &series.values {
            Durations::Narrow(values) => {
                buffers.narrow.clear();
                buffers.narrow.extend_from_slice(values);
                Copied::Narrow(&mut buffers.narrow)
            }
            Durations::Wide(values) => {
                buffers.wide.clear();
                buffers.wide.extend_from_slice(values);
                Copied::Wide(&mut buffers.wide)
            }
            Durations::Coins { .. } => panic!("a series of coins keeps no durations to order"),
        };
        Self { values, known: [0; KNOWN], len: 0 }
    }

    /// The copy of `series` that [`OrderStats::copy`] left in `buffers`, with the ranks
    /// `selected` there since: it goes on exactly as the one it resumes would have.
    pub(crate) fn resume(series: &Series, buffers: &'v mut Buffers, selected: Selected) -> Self {
        let values = match &series.values {
            Durations::Narrow(_) => Copied::Narrow(&mut buffers.narrow),
            Durations::Wide(_) => Copied::Wide(&mut buffers.wide),
            Durations::Coins { .. } => panic!("a series of coins keeps no durations to order"),
        };
        let resumed = Self { values, known: selected.known, len: selected.len };
        debug_assert_eq!(resumed.len(), series.len(), "the buffers hold another series' copy");
        resumed
    }

    /// The ranks selected so far, for [`OrderStats::resume`].
    pub(crate) fn selected(&self) -> Selected {
        Selected { known: self.known, len: self.len }
    }

    fn len(&self) -> usize {
        match &self.values {
            Copied::Narrow(values) => values.len(),
            Copied::Wide(values) => values.len(),
        }
    }

    /// The value of rank `rank` (0-based) among the sorted values.
    fn rank(&mut self, rank: usize) -> u64 {
        let known = &self.known[..self.len];
        let value = match &mut self.values {
            Copied::Narrow(values) => u64::from(select(values, known, rank)),
            Copied::Wide(values) => select(values, known, rank),
        };
        if self.len < KNOWN && !known.contains(&rank) {
            self.known[self.len] = rank;
            self.len += 1;
        }
        value
    }

    /// The lower median, `d[(n − 1) / 2]`: the one `sgpt stats` shows.
    pub(crate) fn lower_median(&mut self) -> u64 {
        self.rank((self.len() - 1) / 2)
    }

    /// The value at probability `p` (nearest rank).
    pub(crate) fn quantile(&mut self, p: f64) -> u64 {
        self.rank(quantile_rank(p, self.len()))
    }

    /// How many values read 0 and how many read exactly `value`.
    pub(crate) fn zeros_and(&self, value: u64) -> (usize, usize) {
        fn count<T: Copy + Into<u64>>(values: &[T], value: u64) -> (usize, usize) {
            values.iter().fold((0, 0), |(zeros, equal), &v| {
                let v: u64 = v.into();
                (zeros + usize::from(v == 0), equal + usize::from(v == value))
            })
        }
        match &self.values {
            Copied::Narrow(values) => count(values, value),
            Copied::Wide(values) => count(values, value),
        }
    }

    /// How many values are at or below the lower median: those before it, itself, and
    /// the ones after it that equal it (everything after it is at least it).
    pub(crate) fn at_or_below_median(&mut self) -> usize {
        let at = (self.len() - 1) / 2;
        let median = self.rank(at);
        let equal_after = match &self.values {
            Copied::Narrow(values) => values[at + 1..].iter().filter(|&&v| u64::from(v) == median).count(),
            Copied::Wide(values) => values[at + 1..].iter().filter(|&&v| v == median).count(),
        };
        at + 1 + equal_after
    }
}

/// The circular block bootstrap variance of `Σ u` over a resample of `u.len()` frames in
/// blocks of `block`: `(F / L) · mean over every start s of U_s²`, where `U_s` sums `u`
/// over the block starting at `s` and `Σ u = 0`.
#[cfg(test)]
pub(crate) fn block_variance(u: &[f64], block: usize) -> f64 {
    u.block_variance(block)
}

/// The AR(1) long-run variance of `Σ u` (`u` centred) and the effective number of
/// independent terms, when the lag-1 autocorrelation is positive.
#[cfg(test)]
pub(crate) fn ar1_variance(u: &[f64]) -> Option<(f64, f64)> {
    ar1_variance_of(u.len(), u.moments())
}

/// The AR(1) long-run variance of `Σ u` over `n` centred terms, from their [`Moments`],
/// and the effective number of independent terms, when the lag-1 autocorrelation is
/// positive.
fn ar1_variance_of(n: usize, moments: Moments) -> Option<(f64, f64)> {
    let variance = moments.squares / n as f64;
    if n < 4 || variance <= 0.0 {
        return None;
    }
    let lag1 = moments.lagged / n as f64;
    // Capped below 1 so that a capture that never switches gives a finite variance.
    let rho = (lag1 / variance).min(0.999);
    (rho > 0.0).then(|| {
        let inflation = (1.0 + rho) / (1.0 - rho);
        (n as f64 * variance * inflation, n as f64 / inflation)
    })
}

/// The median of `series` (over `frames` analysed frames) and its standard error when
/// frames are resampled in blocks of `block`.
#[cfg(test)]
pub(crate) fn median_error(series: &Series, frames: usize, block: usize) -> MedianError {
    let mut buffers = Buffers::default();
    median_error_of(series, frames, block, &mut OrderStats::copy(series, &mut buffers), &mut Terms::default())
        .expect("a copy gives every order statistic")
}

/// The median of `series` (over `frames` analysed frames) and its standard error when
/// frames are resampled in blocks of `block`, from `order`, its order statistics (a copy
/// of its values, any ranks already selected there reused, or those a scan selected),
/// with `terms`' buffers. `None` where it needs an order statistic that `order` cannot
/// give: one past the bandwidth, of a series of coins.
pub(crate) fn median_error_of(
    series: &Series,
    frames: usize,
    block: usize,
    order: &mut impl Order,
    terms: &mut Terms,
) -> Option<MedianError> {
    let n = series.len();
    let median = order.lower_median();
    let h = bandwidth(n);
    let low = order.quantile(0.5 - h)?;
    let high = order.quantile(0.5 + h)?;
    let degrees_of_freedom = (1.5 * frames as f64 / block.max(1) as f64).max(1.0);
    if high == low {
        return Some(MedianError { median, standard_error: None, degrees_of_freedom });
    }
    // Per frame: spans at or below the median less the share expected of its span count.
    let order = (order, median, h, [low, high]);
    terms.coins.clear();
    match (series.coins(), series.coins_at_or_below(median, frames, &mut terms.coins)) {
        // The usual pass of a scan with coins, a span in every frame: its coins as the scan
        // made them.
        (Some(coins), _) if coins.len() == frames && n == frames => {
            spread(n, block, frames, &Coins::new(coins), &mut terms.correlations, order)
        }
        // Coins with frames without a span: each frame's term as the durations' general
        // form below gives it (`below − share · total`, both 0 where there is no span).
        (Some(coins), _) => {
            let share = order.0.at_or_below_median() as f64 / n as f64;
            terms.u.clear();
            terms.u.extend(coins.iter().map(|&coin| {
                let (below, total) = if coin == NO_SPAN { (0.0, 0.0) } else { (f64::from(coin), 1.0) };
                below - share * total
            }));
            spread(n, block, frames, &terms.u[..], &mut terms.correlations, order)
        }
        // The usual pass: a frame's term is 1 or 0 less the share, `below − share · 1`,
        // the share the coins' own count. Counted whether its durations are narrow or
        // wide, as a scan's coins are: a span past 4.3 s must not send the same pass to
        // the summed form, whose sums round at every term.
        (_, true) => {
            let coins = Coins::new(&terms.coins);
            spread(n, block, frames, &coins, &mut terms.correlations, order)
        }
        _ => {
            let share = order.0.at_or_below_median() as f64 / n as f64;
            terms.u.clear();
            terms.u.extend((0..frames).map(|frame| {
                let spans = series.spans_of(frame..frame + 1);
                let total = spans.len();
                let below = spans.filter(|&at| series.values.get(at) <= median).count();
                below as f64 - share * total as f64
            }));
            spread(n, block, frames, &terms.u[..], &mut terms.correlations, order)
        }
    }
}

/// The rest of [`median_error_of`], from the per-frame terms `u` on: their block length,
/// their variance, and the standard error it gives the median.
fn spread<T: FrameTerms + ?Sized>(
    n: usize,
    block: usize,
    frames: usize,
    u: &T,
    correlations: &mut Vec<f64>,
    (order, median, h, [low, high]): (&mut impl Order, u64, f64, [u64; 2]),
) -> Option<MedianError> {
    // The capture's length comes from its frame times, but on lavapipe a small pass can
    // switch between two levels (3 µs and 24 µs) for a hundred frames at a time while the
    // frame time barely shows it: the blocks must also fit the dependence of this
    // statistic's own per-frame terms, so `b̂` on them (no floor: independent terms keep
    // the given length, 1 included) raises the given length.
    let moments = u.moments();
    let block = if frames >= 4 { block.max(automatic_length_in(u, moments.sum, correlations)) } else { block };
    let mut degrees_of_freedom = (1.5 * frames as f64 / block.max(1) as f64).max(1.0);
    let mut variance = u.block_variance(block);
    // Blocks no longer than `min(3√n, n/3)` see little of a level that holds for hundreds
    // of frames, and their variance is biased low there. The lag-1 autocorrelation `ρ` of
    // the same terms, read as an AR(1) (exact for a two-level switching process), gives
    // a second long-run variance, `n var(u) (1 + ρ) / (1 − ρ)`, from `n (1 − ρ) / (1 + ρ)`
    // effectively independent frames; the larger variance, and the fewer degrees of
    // freedom, are kept. For weak dependence this is at most the block variance's size.
    if let Some((ar1, effective)) = ar1_variance_of(u.len(), moments) {
        if ar1 > variance {
            variance = ar1;
        }
        degrees_of_freedom = degrees_of_freedom.min((effective - 1.0).max(1.0));
    }
    let share_error = variance.sqrt() / n as f64;
    // The density at the median is about 2h / (high − low): the standard error of the
    // median is that of the share divided by it. Where the share itself is uncertain by
    // more than h/2 (slow switching between levels, as on lavapipe), a local density
    // says nothing about where the median of another run lands: the spacing is taken
    // over the shares the share's own ±2 se reach instead (Woodruff's interval, mapped
    // through the sorted values, not linearised). A smooth unimodal pass keeps h.
    let reach = (WOODRUFF_Z * share_error).clamp(h, 0.49);
    let standard_error = if reach > h {
        // The farther end from the median, so the symmetric interval the caller makes
        // still reaches it (a median between two levels is far from one of them).
        let (low, high) = (order.quantile(0.5 - reach)?, order.quantile(0.5 + reach)?);
        (high - median).max(median - low) as f64 / WOODRUFF_Z
    } else {
        share_error * (high - low) as f64 / (2.0 * h)
    };
    Some(MedianError { median, standard_error: Some(standard_error), degrees_of_freedom })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::reference::quantile_at;
    use crate::synth::Rng;

    #[test]
    fn the_block_variance_is_the_variance_over_every_resample() {
        // Two blocks of 5 over 10 frames: every one of the 100 pairs of starts is a
        // resample, equally likely; the closed form must be their exact variance.
        let mut rng = Rng::new(2);
        let raw: Vec<f64> = (0..10).map(|_| rng.normal()).collect();
        let mean = raw.iter().sum::<f64>() / 10.0;
        let u: Vec<f64> = raw.iter().map(|x| x - mean).collect();
        let block_sum = |s: usize| (0..5).map(|j| u[(s + j) % 10]).sum::<f64>();
        let sums: Vec<f64> =
            (0..10).flat_map(|s| (0..10).map(move |t| (s, t))).map(|(s, t)| block_sum(s) + block_sum(t)).collect();
        let mean_sum = sums.iter().sum::<f64>() / 100.0;
        let variance = sums.iter().map(|x| (x - mean_sum).powi(2)).sum::<f64>() / 100.0;
        assert!((block_variance(&u, 5) - variance).abs() < 1e-12, "{} ≠ {variance}", block_variance(&u, 5));
    }

    #[test]
    fn independent_frames_give_the_textbook_error_of_a_median() {
        // Normal durations: the median's standard error is √(π/2) σ / √n.
        let mut rng = Rng::new(8);
        let n = 20_000;
        let series = Series::one_per_frame((0..n).map(|_| (1e6 + 1e4 * rng.normal()) as u64));
        let error = median_error(&series, n, 1);
        let expected = (std::f64::consts::PI / 2.0).sqrt() * 1e4 / (n as f64).sqrt();
        let se = error.standard_error.expect("continuous durations are not tied");
        assert!((se / expected - 1.0).abs() < 0.1, "{se} against {expected}");
        assert!(error.degrees_of_freedom > 1e4);
    }

    #[test]
    fn a_pass_with_a_span_past_32_bits_is_counted_as_a_narrow_one_is() {
        // The same coins, medians and bandwidth: one span above the median is 5 s in the
        // wide series. Both are counted in integers, as a scan's coins of either are, so
        // their figures agree to the bit (summed in `f64`, the wide one's did not).
        // 57 frames, as a short capture has: there summing rounds differently at once.
        let mut rng = Rng::new(0);
        let n = 57;
        let mut level = 0.0f64;
        let narrow: Vec<u64> = (0..n)
            .map(|_| {
                level = 0.8 * level + rng.normal();
                (100_000.0 + 5_000.0 * level) as u64
            })
            .collect();
        let highest = (0..n).max_by_key(|&at| narrow[at]).expect("frames");
        let mut wide = narrow.clone();
        wide[highest] = 5_000_000_000;
        let (narrow, wide) = (Series::one_per_frame(narrow), Series::one_per_frame(wide));
        assert!(narrow.one_span_per_frame().is_some() && wide.one_span_per_frame().is_none(), "one narrow, one wide");
        for block in [1, 2, 4] {
            assert_eq!(median_error(&wide, n, block), median_error(&narrow, n, block), "blocks of {block}");
        }
    }

    #[test]
    fn tied_durations_have_no_error_to_give() {
        let series = Series::one_per_frame((0..600).map(|i| if i % 10 == 0 { 0 } else { 100_000 }));
        assert_eq!(median_error(&series, 600, 9).standard_error, None);
    }

    #[test]
    fn independent_frames_get_the_floor_and_correlated_ones_longer_blocks() {
        let mut rng = Rng::new(5);
        let independent: Vec<u64> = (0..3_600).map(|_| rng.log_normal(1e6, 0.2) as u64).collect();
        assert_eq!(block_length(&independent), 16, "⌈3600^(1/3)⌉");
        // An AR(1) drift with a correlation time of 30 frames.
        let mut level = 0.0f64;
        let rho = (-1.0f64 / 30.0).exp();
        let drifting: Vec<u64> = (0..3_600)
            .map(|_| {
                level = rho * level + (1.0 - rho * rho).sqrt() * rng.normal();
                (1e6 * (0.02 * level).exp() * (0.005 * rng.normal()).exp()) as u64
            })
            .collect();
        assert!(block_length(&drifting) > 40, "{}", block_length(&drifting));
    }

    /// A small pass as lavapipe runs it: about 4 µs or about 24 µs, switching level once
    /// per 100 frames on average (`SWITCH` a frame), so a 600-frame capture holds only a
    /// few regimes, and the frame time does not show them.
    const SWITCH: f64 = 0.01;

    fn switching(rng: &mut Rng, n: usize) -> Series {
        let mut high = rng.unit() < 0.5;
        Series::one_per_frame((0..n).map(|_| {
            if rng.unit() < SWITCH {
                high = !high;
            }
            let level = if high { 24_000.0 } else { 4_000.0 };
            (level * (0.1 * rng.normal()).exp()) as u64
        }))
    }

    #[test]
    fn a_pass_switching_levels_gets_blocks_of_its_own_and_honest_intervals() {
        // The frame time's blocks are the floor (9 frames for 600): the pass's own
        // dependence must lengthen them. Two independent runs then differ by more than
        // the t quantile at a Holm level for 30 tests in few pairs (measured: 10 of 200);
        // with the frame time's blocks and the local density alone, in about half (95).
        let mut rng = Rng::new(11);
        let (pairs, n) = (200, 600);
        let (mut own, mut given, mut longer) = (0, 0, 0);
        for _ in 0..pairs {
            let (a, b) = (switching(&mut rng, n), switching(&mut rng, n));
            let (ea, eb) = (median_error(&a, n, 9), median_error(&b, n, 9));
            longer += usize::from(ea.degrees_of_freedom < 1.5 * n as f64 / 9.0);
            let delta = (eb.median as f64 - ea.median as f64).abs();
            let (Some(sa), Some(sb)) = (ea.standard_error, eb.standard_error) else { continue };
            let df = ea.degrees_of_freedom.min(eb.degrees_of_freedom);
            own += usize::from(delta > super::super::normal::student_t_quantile(1.0 - 0.05 / 60.0, df) * sa.hypot(sb));
            // The same with blocks of 9: the error the frame time's length alone gives.
            let fixed = |series: &Series| {
                let mut values = Vec::new();
                series.values.extend_into(0..n, &mut values);
                let median = lower_median(&mut values);
                let h = bandwidth(n);
                let spread = (quantile_at(&mut values, 0.5 + h) - quantile_at(&mut values, 0.5 - h)) as f64;
                let share = values.iter().filter(|&&v| v <= median).count() as f64 / n as f64;
                let u: Vec<f64> = (0..n).map(|f| f64::from(u8::from(series.values.get(f) <= median)) - share).collect();
                block_variance(&u, 9).sqrt() / n as f64 * spread / (2.0 * h)
            };
            let critical = super::super::normal::student_t_quantile(1.0 - 0.05 / 60.0, 1.5 * n as f64 / 9.0);
            given += usize::from(delta > critical * fixed(&a).hypot(fixed(&b)));
        }
        assert!(longer * 100 >= 90 * pairs, "blocks longer than 9 frames in {longer} of {pairs}");
        assert!(own * 100 <= 10 * pairs, "own blocks: {own} of {pairs} pairs beyond the quantile");
        assert!(given * 100 >= 30 * pairs, "the frame time's blocks: only {given} of {pairs}");
    }
}
