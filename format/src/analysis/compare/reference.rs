//! The engine's figures as they were first written: a copy per call, a selection per
//! order statistic, one sum at a time. Kept for tests only, so the faster forms in
//! `bootstrap` can be checked against them: bit for bit where they sum the same `f64`s in
//! the same order, and to rounding where they count (a pass of one span a frame, whose
//! terms `terms` sums exactly in integers).

use super::bootstrap::{MedianError, WOODRUFF_Z, bandwidth, ceiling, flat_top, lower_median};
use super::samples::Series;

/// Politis and White's `b̂` on `values` (at least 4), at most [`ceiling`], with no floor.
pub(crate) fn automatic_length(values: &[f64]) -> usize {
    let n = values.len();
    let (floor, ceiling) = (1, ceiling(n));
    let mean = values.iter().sum::<f64>() / n as f64;
    let centred: Vec<f64> = values.iter().map(|&r| r - mean).collect();
    let variance = centred.iter().map(|x| x * x).sum::<f64>() / n as f64;
    if variance == 0.0 {
        return floor.min(ceiling);
    }
    let autocovariance = |lag: usize| centred.iter().zip(&centred[lag..]).map(|(x, y)| x * y).sum::<f64>() / n as f64;
    // The first lag after which K_N autocorrelations in a row are insignificant.
    let log_n = (n as f64).log10();
    let significant = 2.0 * (log_n / n as f64).sqrt();
    let run = ((log_n.sqrt().ceil()) as usize).max(5);
    let max_lag = ((n as f64).sqrt().ceil() as usize + run).min(n - 1);
    // Computed only as far as the search needs (the result is the same as computing
    // every lag up to `max_lag`): each costs `n`, and every pass of a long capture is
    // searched.
    let mut correlations = vec![1.0];
    let extend = |correlations: &mut Vec<f64>, to: usize| {
        while correlations.len() <= to {
            correlations.push(autocovariance(correlations.len()) / variance);
        }
    };
    let mut m_hat = max_lag;
    for m in 0..max_lag {
        let end = (m + 1 + run).min(max_lag + 1);
        extend(&mut correlations, end - 1);
        if correlations[m + 1..end].iter().all(|r| r.abs() < significant) {
            m_hat = m;
            break;
        }
    }
    let big_m = (2 * m_hat).min(max_lag);
    extend(&mut correlations, big_m);
    // The flat-top lag window.
    let window = |k: usize| flat_top(k, big_m);
    let (mut g, mut spectrum) = (0.0, autocovariance(0));
    for (k, &correlation) in correlations.iter().enumerate().take(big_m + 1).skip(1) {
        let r = window(k) * correlation * variance;
        g += 2.0 * k as f64 * r;
        spectrum += 2.0 * r;
    }
    let d = 4.0 / 3.0 * spectrum * spectrum;
    let chosen = if d > 0.0 { (2.0 * g * g / d).cbrt() * (n as f64).cbrt() } else { 0.0 };
    (chosen.ceil() as usize).max(floor).min(ceiling)
}

/// The value at probability `p` of the sorted values (nearest rank), selecting in place.
/// Average ranks as first written: positions sorted stably by value, read back through them.
pub(crate) fn ranks(series: &[u64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..series.len()).collect();
    order.sort_by_key(|&i| series[i]);
    let mut ranks = vec![0.0; series.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && series[order[end]] == series[order[start]] {
            end += 1;
        }
        let rank = (start + end - 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

pub(crate) fn quantile_at(values: &mut [u64], p: f64) -> u64 {
    let rank = ((p * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1;
    *values.select_nth_unstable(rank).1
}

/// The circular block bootstrap variance of `Σ u` over a resample of `u.len()` frames in
/// blocks of `block`: `(F / L) · mean over every start s of U_s²`, where `U_s` sums `u`
/// over the block starting at `s` and `Σ u = 0`.
pub(crate) fn block_variance(u: &[f64], block: usize) -> f64 {
    let frames = u.len();
    if frames == 0 {
        return 0.0;
    }
    let block = block.clamp(1, frames);
    let mut window: f64 = u[..block].iter().sum();
    let mut squares = 0.0;
    for start in 0..frames {
        squares += window * window;
        window += u[(start + block) % frames] - u[start];
    }
    squares / block as f64
}

/// The AR(1) long-run variance of `Σ u` (`u` centred) and the effective number of
/// independent terms, when the lag-1 autocorrelation is positive.
pub(crate) fn ar1_variance(u: &[f64]) -> Option<(f64, f64)> {
    let n = u.len();
    let variance = u.iter().map(|x| x * x).sum::<f64>() / n as f64;
    if n < 4 || variance <= 0.0 {
        return None;
    }
    let lag1 = u.iter().zip(&u[1..]).map(|(x, y)| x * y).sum::<f64>() / n as f64;
    // Capped below 1 so that a capture that never switches gives a finite variance.
    let rho = (lag1 / variance).min(0.999);
    (rho > 0.0).then(|| {
        let inflation = (1.0 + rho) / (1.0 - rho);
        (n as f64 * variance * inflation, n as f64 / inflation)
    })
}

/// The median of `series` (over `frames` analysed frames) and its standard error when
/// frames are resampled in blocks of `block`.
pub(crate) fn median_error(series: &Series, frames: usize, block: usize) -> MedianError {
    let n = series.len();
    let mut values = Vec::with_capacity(n);
    series.values.extend_into(0..n, &mut values);
    let median = lower_median(&mut values);
    let h = bandwidth(n);
    let low = quantile_at(&mut values, 0.5 - h);
    let high = quantile_at(&mut values, 0.5 + h);
    let degrees_of_freedom = (1.5 * frames as f64 / block.max(1) as f64).max(1.0);
    if high == low {
        return MedianError { median, standard_error: None, degrees_of_freedom };
    }
    // Per frame: spans at or below the median less the share expected of its span count.
    let mut at_or_below = 0usize;
    let counts: Vec<(usize, usize)> = (0..frames)
        .map(|frame| {
            let spans = series.spans_of(frame..frame + 1);
            let total = spans.len();
            let below = spans.filter(|&at| series.values.get(at) <= median).count();
            at_or_below += below;
            (below, total)
        })
        .collect();
    let share = at_or_below as f64 / n as f64;
    let u: Vec<f64> = counts.iter().map(|&(below, total)| below as f64 - share * total as f64).collect();
    // The capture's length comes from its frame times, but on lavapipe a small pass can
    // switch between two levels (3 µs and 24 µs) for a hundred frames at a time while the
    // frame time barely shows it: the blocks must also fit the dependence of this
    // statistic's own per-frame terms, so `b̂` on them (no floor: independent terms keep
    // the given length, 1 included) raises the given length.
    let block = if frames >= 4 { block.max(automatic_length(&u)) } else { block };
    let mut degrees_of_freedom = (1.5 * frames as f64 / block.max(1) as f64).max(1.0);
    let mut variance = block_variance(&u, block);
    // Blocks no longer than `min(3√n, n/3)` see little of a level that holds for hundreds
    // of frames, and their variance is biased low there. The lag-1 autocorrelation `ρ` of
    // the same terms, read as an AR(1) (exact for a two-level switching process), gives
    // a second long-run variance, `n var(u) (1 + ρ) / (1 − ρ)`, from `n (1 − ρ) / (1 + ρ)`
    // effectively independent frames; the larger variance, and the fewer degrees of
    // freedom, are kept. For weak dependence this is at most the block variance's size.
    if let Some((ar1, effective)) = ar1_variance(&u) {
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
        let (low, high) = (quantile_at(&mut values, 0.5 - reach), quantile_at(&mut values, 0.5 + reach));
        (high - median).max(median - low) as f64 / WOODRUFF_Z
    } else {
        share_error * (high - low) as f64 / (2.0 * h)
    };
    drop(values);
    MedianError { median, standard_error: Some(standard_error), degrees_of_freedom }
}

#[cfg(test)]
mod tests {
    //! The engine's figures against the forms above, bit for bit, on random data of every
    //! shape the engine meets: one span a frame or several, none in some frames, wide
    //! durations, ties, two levels, short series where a batch of lags overshoots.

    use super::super::bootstrap::{self, Buffers, MedianError, OrderStats, Terms, median_error_of};
    use super::super::samples::Series;
    use crate::synth::Rng;

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits()
    }

    fn same_error(x: &MedianError, y: &MedianError) -> bool {
        x.median == y.median
            && same(x.degrees_of_freedom, y.degrees_of_freedom)
            && match (x.standard_error, y.standard_error) {
                (Some(a), Some(b)) => same(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }

    /// The same median, and degrees of freedom and standard errors within `1e-12` of each
    /// other relative to their size, or `1e-9`: what counting the terms exactly instead
    /// of summing them in `f64` may change (a block variance that is exactly 0 sums to a
    /// rounding residue).
    fn same_to_rounding(x: &MedianError, y: &MedianError) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-9;
        x.median == y.median
            && close(x.degrees_of_freedom, y.degrees_of_freedom)
            && match (x.standard_error, y.standard_error) {
                (Some(a), Some(b)) => close(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }

    /// Series of many shapes, `n` frames each.
    fn shapes(rng: &mut Rng, n: usize) -> Vec<Series> {
        let mut out = Vec::new();
        out.push(Series::one_per_frame((0..n).map(|_| rng.log_normal(50_000.0, 0.2) as u64)));
        // Two levels, switching rarely (wide Woodruff reach).
        let mut high = false;
        out.push(Series::one_per_frame((0..n).map(|_| {
            if rng.unit() < 0.01 {
                high = !high;
            }
            (if high { 24_000.0 } else { 4_000.0 } * (0.1 * rng.normal()).exp()) as u64
        })));
        // Quantized: ties everywhere.
        out.push(Series::one_per_frame((0..n).map(|_| rng.below(5) * 100_000)));
        // Several spans a frame, none in some, and past u32::MAX in one.
        let frames: Vec<Vec<u64>> = (0..n)
            .map(|f| {
                let spans = rng.below(4) as usize;
                (0..spans)
                    .map(|_| if f == n / 3 { u64::from(u32::MAX) + 9 } else { rng.log_normal(8_000.0, 0.5) as u64 })
                    .collect()
            })
            .collect();
        out.push(Series::from_frames(&frames));
        // Drifting, correlated over about 30 frames.
        let mut level = 0.0f64;
        out.push(Series::one_per_frame((0..n).map(|_| {
            level = 0.97 * level + 0.24 * rng.normal();
            (1e6 * (0.02 * level).exp()) as u64
        })));
        out
    }

    #[test]
    fn the_median_error_is_the_first_form_s_selections_reused_or_not() {
        let mut rng = Rng::new(41);
        let mut terms = Terms::default();
        let mut buffer = Buffers::default();
        for n in [4, 5, 7, 12, 33, 50, 64, 199, 600, 3_601] {
            for series in shapes(&mut rng, n) {
                if series.len() == 0 {
                    continue;
                }
                for block in [1, 2, 9, 40] {
                    let expected = super::median_error(&series, n, block);
                    // Fresh, and with the scratch of the series before.
                    let fresh = bootstrap::median_error(&series, n, block);
                    let mut order = OrderStats::copy(&series, &mut buffer);
                    let reused = median_error_of(&series, n, block, &mut order, &mut terms).expect("a copy");
                    // Ranks selected beforehand, in another order, as `prepare` does.
                    let mut order = OrderStats::copy(&series, &mut buffer);
                    let _ = order.lower_median();
                    let picked = median_error_of(&series, n, block, &mut order, &mut terms).expect("a copy");
                    // Bit for bit where the terms are summed; where they are counted
                    // (one span a frame, narrow or wide), to rounding.
                    let counted = series.coins_at_or_below(0, n, &mut Vec::new());
                    for got in [fresh, reused, picked] {
                        let alike =
                            if counted { same_to_rounding(&got, &expected) } else { same_error(&got, &expected) };
                        assert!(alike, "n {n}, block {block}: {got:?} ≠ {expected:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn block_lengths_and_variances_are_the_first_form_s_bit_for_bit() {
        let mut rng = Rng::new(7);
        for n in [4, 5, 6, 9, 13, 17, 40, 333, 5_000] {
            let mut level = 0.0f64;
            let drifting: Vec<f64> = (0..n)
                .map(|_| {
                    level = 0.9 * level + rng.normal();
                    level
                })
                .collect();
            let coins: Vec<f64> = (0..n).map(|_| f64::from(u8::from(rng.unit() < 0.3)) - 0.3).collect();
            let zeros: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { -0.0 } else { 0.0 }).collect();
            for u in [&drifting, &coins, &zeros] {
                assert_eq!(bootstrap::automatic_length(u), super::automatic_length(u), "n {n}");
                for block in [1, 2, 3, n / 2, n, n + 3] {
                    assert!(same(bootstrap::block_variance(u, block), super::block_variance(u, block)));
                }
                let (got, expected) = (bootstrap::ar1_variance(u), super::ar1_variance(u));
                assert_eq!(
                    got.map(|(v, e)| (v.to_bits(), e.to_bits())),
                    expected.map(|(v, e)| (v.to_bits(), e.to_bits()))
                );
            }
        }
    }

    #[test]
    fn ranks_are_the_first_form_s_bit_for_bit_ties_included() {
        let mut rng = Rng::new(8);
        for (n, distinct) in [(1, 1), (2, 1), (7, 3), (1_000, 5), (1_000, 1_000_000), (20_000, 40)] {
            let values: Vec<u64> = (0..n).map(|_| (rng.unit() * f64::from(distinct)) as u64).collect();
            let bits = |ranks: Vec<f64>| ranks.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            assert_eq!(bits(bootstrap::ranks(&values)), bits(super::ranks(&values)), "n {n}, {distinct} values");
        }
    }

    #[test]
    fn lagged_sums_add_as_sum_does_signed_zeros_included() {
        let mut rng = Rng::new(9);
        let signed_zeros: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 0.0 } else { -0.0 }).collect();
        let noise: Vec<f64> = (0..37).map(|_| rng.normal()).collect();
        for c in [&signed_zeros, &noise] {
            for first in [0, 8, 32] {
                let sums = bootstrap::lagged_sums(c, first);
                for (j, &sum) in sums.iter().enumerate() {
                    let lag = first + j;
                    let expected: f64 = c.iter().zip(c.get(lag..).unwrap_or(&[])).map(|(x, y)| x * y).sum();
                    assert!(same(sum, expected), "lag {lag}: {sum} ≠ {expected}");
                }
            }
        }
    }

    #[test]
    fn every_order_statistic_is_the_one_a_fresh_selection_gives() {
        let mut rng = Rng::new(3);
        let mut buffer = Buffers::default();
        for n in [1, 2, 3, 10, 101, 1_000] {
            let series = Series::one_per_frame((0..n).map(|_| rng.below(50)));
            let mut sorted = Vec::new();
            series.values.extend_into(0..n, &mut sorted);
            sorted.sort_unstable();
            let mut order = OrderStats::copy(&series, &mut buffer);
            for _ in 0..20 {
                let p = rng.unit();
                let mut fresh = sorted.clone();
                assert_eq!(order.quantile(p), super::quantile_at(&mut fresh, p), "n {n}, p {p}");
            }
            assert_eq!(order.lower_median(), sorted[(n - 1) / 2]);
        }
    }
}
