//! A statistic's per-frame terms and the three sums the bootstrap reads of them: their
//! moments, their autocovariances a batch of lags at a time, and the circular block
//! variance. Terms are either `f64`s, summed in index order as `sum()` adds them, or
//! coins: for a pass of one span a frame, each frame's span at or below the median (1)
//! or not (0), less the share of ones. Every sum over coins is a count, so it is computed
//! exactly in integers and rounded once, where summing `f64`s rounds at every term.
//!
//! Why coins are counted (`perf record` of `sgpt diff` of two hour-long captures, one
//! thread, 1.9 s): the `f64` sums over the usual pass's terms were 17 % of the run, the
//! block variance a chain of two dependent `f64` additions a frame and the lags one
//! multiply-add a frame each. Counted, a lag is an AND of bytes summed by the vector
//! units, and the block variance a running integer count.

/// Lags whose autocovariances are summed side by side in one sweep.
pub(super) const LAGS: usize = 8;

/// What the bootstrap reads of a statistic's per-frame terms.
pub(super) trait FrameTerms {
    fn len(&self) -> usize;
    /// `Σ u`, `Σ u²` and `Σ u_i u_{i+1}`.
    fn moments(&self) -> Moments;
    /// `Σ_{i < n − k} c_i c_{i+k}` for the lags `k` of `first..first + LAGS`, `c` the terms
    /// less `mean` (`Σ u / n`, as [`Self::moments`] gave it).
    fn centred_lagged_sums(&self, mean: f64, first: usize) -> [f64; LAGS];
    /// The circular block bootstrap variance of `Σ u` over a resample of `u.len()` frames in
    /// blocks of `block`: `(F / L) · mean over every start s of U_s²`, where `U_s` sums `u`
    /// over the block starting at `s` and `Σ u = 0`.
    fn block_variance(&self, block: usize) -> f64;
}

/// `Σ u`, `Σ u²` and `Σ u_i u_{i+1}`: the block length needs the first, the AR(1)
/// variance the others.
#[derive(Clone, Copy, Debug)]
pub(super) struct Moments {
    pub(super) sum: f64,
    pub(super) squares: f64,
    pub(super) lagged: f64,
}

/// Terms as a sum reads them, term `i` always the same `f64`.
trait Series64 {
    fn len(&self) -> usize;
    fn at(&self, i: usize) -> f64;
}

impl Series64 for [f64] {
    fn len(&self) -> usize {
        self.len()
    }
    #[inline]
    fn at(&self, i: usize) -> f64 {
        self[i]
    }
}

/// Terms less a mean, computed where read instead of stored.
struct Shifted<'t> {
    values: &'t [f64],
    mean: f64,
}

impl Series64 for Shifted<'_> {
    fn len(&self) -> usize {
        self.values.len()
    }
    #[inline]
    fn at(&self, i: usize) -> f64 {
        self.values[i] - self.mean
    }
}

/// Each sum in index order from −0.0, exactly as `zip(..).map(..).sum()` sums it.
impl FrameTerms for [f64] {
    fn len(&self) -> usize {
        self.len()
    }

    /// All three in one sweep.
    fn moments(&self) -> Moments {
        let n = self.len();
        let (mut sum, mut squares, mut lagged) = (-0.0f64, -0.0f64, -0.0f64);
        for i in 1..n {
            let (x, y) = (self[i - 1], self[i]);
            sum += x;
            squares += x * x;
            lagged += x * y;
        }
        if n > 0 {
            let last = self[n - 1];
            sum += last;
            squares += last * last;
        }
        Moments { sum, squares, lagged }
    }

    fn centred_lagged_sums(&self, mean: f64, first: usize) -> [f64; LAGS] {
        lagged_sums_of(&Shifted { values: self, mean }, first)
    }

    fn block_variance(&self, block: usize) -> f64 {
        let frames = self.len();
        if frames == 0 {
            return 0.0;
        }
        let block = block.clamp(1, frames);
        let mut window: f64 = self[..block].iter().sum();
        let mut squares = 0.0;
        // The window's far end wraps past the last frame: two runs, no division per frame.
        for start in 0..frames - block {
            squares += window * window;
            window += self[start + block] - self[start];
        }
        for start in frames - block..frames {
            squares += window * window;
            window += self[start + block - frames] - self[start];
        }
        squares / block as f64
    }
}

/// `Σ_{i < n − k} c_i c_{i+k}` for the lags `k` of `first..first + LAGS`, each summed in
/// index order from −0.0, exactly as `zip(..).map(..).sum()` sums one lag; side by side,
/// so the sums' additions overlap instead of each waiting on the one before.
#[cfg(test)]
pub(super) fn lagged_sums(c: &[f64], first: usize) -> [f64; LAGS] {
    lagged_sums_of(c, first)
}

fn lagged_sums_of<T: Series64 + ?Sized>(c: &T, first: usize) -> [f64; LAGS] {
    let n = c.len();
    let mut sums = [-0.0f64; LAGS];
    // Where every lag of the batch still has a partner.
    let full = n.saturating_sub(first + LAGS - 1);
    for i in 0..full {
        let x = c.at(i);
        for (j, sum) in sums.iter_mut().enumerate() {
            *sum += x * c.at(i + first + j);
        }
    }
    for i in full..n {
        for (lag, sum) in (first..).zip(sums.iter_mut()) {
            if i + lag < n {
                *sum += c.at(i) * c.at(i + lag);
            }
        }
    }
    sums
}

/// The terms of a pass of one span a frame: `x_f − K / n`, `x_f` 1 where frame `f`'s span
/// is at or below the median and 0 where not, `K` the ones of `n` frames. Their sum is 0.
pub(super) struct Coins<'t> {
    coins: &'t [u8],
    ones: u64,
}

impl<'t> Coins<'t> {
    /// `coins` each 0 or 1.
    pub(super) fn new(coins: &'t [u8]) -> Self {
        debug_assert!(coins.iter().all(|&coin| coin <= 1));
        Self { coins, ones: ones(coins) }
    }

    /// `Σ_{i < n − k} (x_i − p)(x_{i+k} − p)`, `p = K / n`, times `n²`: an integer,
    /// `n² A − n K (B + C) + (n − k) K²` with `A` the frames whose coin and the one `k`
    /// later are both 1, `B` the ones of the first `n − k` frames and `C` of the last.
    fn lagged_times_n2(&self, lag: usize) -> i128 {
        let (n, k) = (self.coins.len(), self.ones);
        if lag >= n {
            return 0;
        }
        let both = and_count(&self.coins[..n - lag], &self.coins[lag..]);
        let first = k - ones(&self.coins[n - lag..]);
        let last = k - ones(&self.coins[..lag]);
        let (n, k, lag) = (n as i128, i128::from(k), lag as i128);
        n * n * i128::from(both) - n * k * i128::from(first + last) + (n - lag) * k * k
    }
}

/// The ones among coins of 0 and 1.
fn ones(coins: &[u8]) -> u64 {
    and_count(coins, coins)
}

/// Bytes summed in a run, at most: their sum stays a `u16`, so the vector units add
/// sixteen lanes at a time.
const RUN: usize = 255;

/// The frames where both coins are 1, `a` and `b` of one length.
fn and_count(a: &[u8], b: &[u8]) -> u64 {
    debug_assert_eq!(a.len(), b.len());
    a.chunks(RUN)
        .zip(b.chunks(RUN))
        .map(|(a, b)| u64::from(a.iter().zip(b).map(|(&x, &y)| u16::from(x & y)).sum::<u16>()))
        .sum()
}

/// `Σ window²` over a block's starts, the count `window` of its ones moving by the coin
/// entering it less the one leaving after each: in 64-bit sums of `run` starts at most,
/// where summing in 128 bits throughout had been the loop's slowest step.
fn window_squares(window: &mut i64, entering: &[u8], leaving: &[u8], run: usize) -> u128 {
    let mut total = 0u128;
    for (entering, leaving) in entering.chunks(run).zip(leaving.chunks(run)) {
        let mut squares = 0u64;
        for (&enter, &leave) in entering.iter().zip(leaving) {
            // A count of ones, never negative, and at most `block`.
            squares += (*window * *window) as u64;
            *window += i64::from(enter) - i64::from(leave);
        }
        total += u128::from(squares);
    }
    total
}

/// Starts side by side in [`straight_window_squares`].
const LANES: usize = 4;

/// [`window_squares`] over every start whose block does not wrap (`0..n − block`), in
/// [`LANES`] runs of consecutive starts side by side, each lane's count a chain of its own:
/// one chain over every start waited on each step before the next, about half of a
/// pass's bootstrap. The same integers summed, so the same sum. Returns it, and the
/// window at the first start past them, `n − block`.
fn straight_window_squares(coins: &[u8], block: usize, run: usize) -> (u128, i64) {
    let starts = coins.len() - block;
    let per_lane = starts / LANES;
    let mut total = 0u128;
    if per_lane > 0 {
        let entering: [&[u8]; LANES] = std::array::from_fn(|lane| &coins[lane * per_lane + block..][..per_lane]);
        let leaving: [&[u8]; LANES] = std::array::from_fn(|lane| &coins[lane * per_lane..][..per_lane]);
        let mut window: [i64; LANES] =
            std::array::from_fn(|lane| ones(&coins[lane * per_lane..lane * per_lane + block]) as i64);
        let mut at = 0;
        while at < per_lane {
            let end = per_lane.min(at.saturating_add(run));
            let mut squares = [0u64; LANES];
            for t in at..end {
                for lane in 0..LANES {
                    // A count of ones, never negative, and at most `block`.
                    squares[lane] += (window[lane] * window[lane]) as u64;
                    window[lane] += i64::from(entering[lane][t]) - i64::from(leaving[lane][t]);
                }
            }
            total += squares.iter().map(|&lane| u128::from(lane)).sum::<u128>();
            at = end;
        }
    }
    // The starts past the lanes', one after another.
    let from = LANES * per_lane;
    let mut window = ones(&coins[from..from + block]) as i64;
    total += window_squares(&mut window, &coins[from + block..], &coins[from..starts], run);
    (total, window)
}

/// `numerator / denominator`, each rounded to an `f64` once.
fn ratio(numerator: i128, denominator: i128) -> f64 {
    numerator as f64 / denominator as f64
}

impl FrameTerms for Coins<'_> {
    fn len(&self) -> usize {
        self.coins.len()
    }

    /// `Σ u = 0`, `Σ u² = K (n − K) / n`, and the lag-1 sum.
    fn moments(&self) -> Moments {
        let n = self.coins.len() as i128;
        if n == 0 {
            return Moments { sum: 0.0, squares: 0.0, lagged: 0.0 };
        }
        let k = i128::from(self.ones);
        Moments { sum: 0.0, squares: ratio(k * (n - k), n), lagged: ratio(self.lagged_times_n2(1), n * n) }
    }

    /// The terms' mean is 0, so `mean` (their sum over `n`, 0 as [`Self::moments`] gives it)
    /// centres nothing.
    fn centred_lagged_sums(&self, mean: f64, first: usize) -> [f64; LAGS] {
        debug_assert_eq!(mean, 0.0, "coins are centred on their own share");
        let n = self.coins.len() as i128;
        std::array::from_fn(|j| ratio(self.lagged_times_n2(first + j), n * n))
    }

    /// With `c_s` the ones in the block from `s` (circular), `U_s = c_s − L K / n` and
    /// `Σ_s c_s = L K`, so `Σ_s U_s² = (n Σ c_s² − L² K²) / n`: a running count and one
    /// division.
    fn block_variance(&self, block: usize) -> f64 {
        let frames = self.coins.len();
        if frames == 0 {
            return 0.0;
        }
        let block = block.clamp(1, frames);
        let coins = self.coins;
        // Summed in 64 bits for as many starts as cannot overflow them: all of them, unless
        // blocks run into the billions of frames.
        let most = (block as u64).saturating_mul(block as u64).max(1);
        let run = usize::try_from(u64::MAX / most).unwrap_or(usize::MAX).max(1);
        // The window's far end wraps past the last frame: two runs.
        let (mut squares, mut window) = straight_window_squares(coins, block, run);
        squares += window_squares(&mut window, &coins[..block], &coins[frames - block..], run);
        let (n, l, k) = (frames as i128, block as i128, i128::from(self.ones));
        let squares = i128::try_from(squares).unwrap_or(i128::MAX);
        ratio(n * squares - l * l * k * k, n * l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;

    /// The coins as `f64` terms, `x − K / n`.
    fn as_terms(coins: &[u8]) -> Vec<f64> {
        let share = ones(coins) as f64 / coins.len() as f64;
        coins.iter().map(|&coin| f64::from(coin) - share).collect()
    }

    fn close(counted: f64, summed: f64, scale: f64) -> bool {
        (counted - summed).abs() <= 1e-9 * scale.max(1.0)
    }

    #[test]
    fn window_squares_summed_in_runs_are_the_whole_sum() {
        let mut rng = Rng::new(3);
        let coins: Vec<u8> = (0..500).map(|_| rng.below(2) as u8).collect();
        let block = 17;
        let start = i64::try_from(ones(&coins[..block])).expect("small");
        let whole = {
            let mut window = start;
            let mut squares = 0u128;
            for at in 0..coins.len() - block {
                squares += (window * window) as u128;
                window += i64::from(coins[at + block]) - i64::from(coins[at]);
            }
            (squares, window)
        };
        for run in [1, 2, 7, 64, 483, 484, usize::MAX] {
            let mut window = start;
            let squares = window_squares(&mut window, &coins[block..], &coins[..coins.len() - block], run);
            assert_eq!((squares, window), whole, "runs of {run}");
        }
    }

    #[test]
    fn windows_summed_in_lanes_are_the_windows_summed_in_turn() {
        let mut rng = Rng::new(29);
        for n in [1usize, 2, 5, 8, 9, 17, 64, 333, 1_000] {
            let coins: Vec<u8> = (0..n).map(|_| rng.below(2) as u8).collect();
            for block in [1, 2, 3, 4, 5, n / 3, n / 2, n - 1, n].into_iter().filter(|&b| (1..=n).contains(&b)) {
                for run in [1, 2, 7, usize::MAX] {
                    let mut window = ones(&coins[..block]) as i64;
                    let in_turn = window_squares(&mut window, &coins[block..], &coins[..n - block], run);
                    assert_eq!(straight_window_squares(&coins, block, run), (in_turn, window), "n {n}, block {block}");
                }
            }
        }
    }

    #[test]
    fn counted_sums_are_the_summed_ones_to_rounding() {
        // Every sum over coins against the `f64` sums of the same terms: equal to their
        // rounding, at every length, share, run length and lag, the ends included.
        let mut rng = Rng::new(17);
        for n in [1usize, 2, 3, 4, 7, 9, 64, 65, 333, 5_000] {
            for (share, stay) in [(0.5, 0.0), (0.1, 0.0), (0.5, 0.95), (0.0, 0.0), (1.0, 0.0)] {
                let mut coin = u8::from(rng.unit() < share);
                let coins: Vec<u8> = (0..n)
                    .map(|_| {
                        if rng.unit() >= stay {
                            coin = u8::from(rng.unit() < share);
                        }
                        coin
                    })
                    .collect();
                let (counted, summed) = (Coins::new(&coins), as_terms(&coins));
                let scale = n as f64;
                let (c, s) = (counted.moments(), summed.as_slice().moments());
                assert!(close(c.sum, s.sum, scale), "n {n}: sum {} ≠ {}", c.sum, s.sum);
                assert!(close(c.squares, s.squares, scale), "n {n}: squares {} ≠ {}", c.squares, s.squares);
                assert!(close(c.lagged, s.lagged, scale), "n {n}: lagged {} ≠ {}", c.lagged, s.lagged);
                for first in [0, 1, 8, n.saturating_sub(3), n + 5] {
                    let c = counted.centred_lagged_sums(0.0, first);
                    let s = summed.as_slice().centred_lagged_sums(0.0, first);
                    for j in 0..LAGS {
                        assert!(close(c[j], s[j], scale), "n {n}, lag {}: {} ≠ {}", first + j, c[j], s[j]);
                    }
                }
                for block in [1, 2, 3, n / 2, n, n + 3] {
                    let (c, s) = (counted.block_variance(block), summed.as_slice().block_variance(block));
                    assert!(close(c, s, scale * scale), "n {n}, block {block}: {c} ≠ {s}");
                }
            }
        }
    }

    #[test]
    fn byte_sums_carry_past_a_run() {
        let all = vec![1u8; RUN * 3 + 5];
        assert_eq!(ones(&all), RUN as u64 * 3 + 5);
        assert_eq!(and_count(&all[1..], &all[..all.len() - 1]), RUN as u64 * 3 + 4);
        assert_eq!(ones(&[]), 0);
    }
}
