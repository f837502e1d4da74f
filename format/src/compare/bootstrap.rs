//! The circular block bootstrap of a median (Politis and Romano, 1992) and the rule that
//! picks its block length.
//!
//! Frames are not independent: a thermal drift, a shadow refresh every few frames or a
//! periodic pass make consecutive frames alike. Resampling single frames would treat them
//! as independent and make every interval too narrow. Instead a resample is made of
//! blocks of `L` consecutive frames, each starting at a uniformly drawn frame, the frames
//! read as a circle (so the last frames are drawn as often as the others), until it holds
//! as many frames as the capture. Dependence shorter than a block survives resampling.
//!
//! A resample's median is found exactly, but cheaply: the spans far from the sample
//! median (outside a band of ranks several standard deviations of the resampled median
//! wide) are only counted per block, through prefix sums over frames; only the spans
//! inside the band are gathered and selected from. Should a resample's median fall
//! outside the band, all its spans are gathered instead, so the result never depends on
//! the band.

use std::ops::Range;

use super::samples::Series;
use crate::synth::Rng;

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
    let n = series.len();
    if n < 4 {
        return 1;
    }
    let floor = (n as f64).cbrt().ceil() as usize;
    let ceiling = ((3.0 * (n as f64).sqrt()).ceil() as usize).min(n / 3).max(1);
    let ranks = ranks(series);
    let mean = (n as f64 - 1.0) / 2.0;
    let centred: Vec<f64> = ranks.iter().map(|&r| r - mean).collect();
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
    let correlations: Vec<f64> = (0..=max_lag).map(|lag| autocovariance(lag) / variance).collect();
    let mut m_hat = max_lag;
    for m in 0..max_lag {
        let after = &correlations[m + 1..(m + 1 + run).min(max_lag + 1)];
        if after.iter().all(|r| r.abs() < significant) {
            m_hat = m;
            break;
        }
    }
    let big_m = (2 * m_hat).min(max_lag);
    // The flat-top lag window.
    let window = |k: usize| {
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
    };
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

/// Average ranks (ties share the mean of their ranks), 0-based.
fn ranks(series: &[u64]) -> Vec<f64> {
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

/// The lower median, `d[(n − 1) / 2]` of the sorted values: the one `sgpt stats` shows.
/// `values` is reordered.
pub(crate) fn lower_median(values: &mut [u64]) -> u64 {
    let at = (values.len() - 1) / 2;
    *values.select_nth_unstable(at).1
}

/// The frame ranges of one resample: blocks of `block` frames from uniformly drawn starts
/// on a circle of `frames` frames, the last block cut so the resample has `frames` frames.
/// A block that wraps is two ranges.
pub(crate) fn resample_blocks(rng: &mut Rng, frames: usize, block: usize, out: &mut Vec<Range<usize>>) {
    out.clear();
    let mut taken = 0;
    while taken < frames {
        let len = block.min(frames - taken);
        let start = rng.below(frames as u64) as usize;
        let end = start + len;
        if end <= frames {
            out.push(start..end);
        } else {
            out.push(start..frames);
            out.push(0..end - frames);
        }
        taken += len;
    }
}

/// The seed of resample `index` of one side: every pass of a capture sees the same frames
/// in the same resample, so dependence between passes is kept too.
pub(crate) fn resample_rng(seed: u64, side: u64, index: u32) -> Rng {
    let base = Rng::new(seed ^ side.wrapping_mul(0xa076_1d64_78bd_642f)).next_u64();
    Rng::new(base ^ u64::from(index).wrapping_mul(0xe703_7ed1_a0b4_28db))
}

/// The medians of `resamples` circular block resamples of `series` (a capture of `frames`
/// analysed frames), in resample order; a resample that drew no span of the pass gives
/// `None`.
pub(crate) fn resampled_medians(
    series: &Series,
    frames: usize,
    block: usize,
    seed: u64,
    side: u64,
    resamples: u32,
) -> Vec<Option<u64>> {
    let n = series.len();
    let mut all = Vec::with_capacity(n);
    series.values.extend_into(0..n, &mut all);
    // The band: ranks within `width` of the median, several standard deviations of a
    // resampled median's rank (about √(n·L) / 2 for blocks of L frames) to each side.
    let median_rank = (n - 1) / 2;
    let width = (4.0 * ((n * block.max(1)) as f64).sqrt()).ceil() as usize + 16;
    let low = *all.select_nth_unstable(median_rank.saturating_sub(width)).1;
    let high = *all.select_nth_unstable((median_rank + width).min(n - 1)).1;
    drop(all);
    // Per frame: spans before it below the band, and in it; the in-band spans in order.
    let mut below = Vec::with_capacity(frames + 1);
    let mut inside = Vec::with_capacity(frames + 1);
    let mut band = Vec::new();
    let (mut below_count, mut inside_count) = (0u32, 0u32);
    for frame in 0..frames {
        below.push(below_count);
        inside.push(inside_count);
        for at in series.spans_of(frame..frame + 1) {
            let value = series.values.get(at);
            if value < low {
                below_count += 1;
            } else if value <= high {
                inside_count += 1;
                band.push(value);
            }
        }
    }
    below.push(below_count);
    inside.push(inside_count);

    let mut blocks = Vec::new();
    let mut gathered = Vec::new();
    (0..resamples)
        .map(|index| {
            let mut rng = resample_rng(seed, side, index);
            resample_blocks(&mut rng, frames, block, &mut blocks);
            gathered.clear();
            let (mut total, mut under) = (0usize, 0usize);
            for range in &blocks {
                total += series.spans_of(range.clone()).len();
                under += (below[range.end] - below[range.start]) as usize;
                gathered.extend_from_slice(&band[inside[range.start] as usize..inside[range.end] as usize]);
            }
            if total == 0 {
                return None;
            }
            let target = (total - 1) / 2;
            if under <= target && target < under + gathered.len() {
                return Some(*gathered.select_nth_unstable(target - under).1);
            }
            gathered.clear();
            for range in &blocks {
                series.values.extend_into(series.spans_of(range.clone()), &mut gathered);
            }
            Some(lower_median(&mut gathered))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct_medians(series: &Series, frames: usize, block: usize, seed: u64, resamples: u32) -> Vec<Option<u64>> {
        let mut blocks = Vec::new();
        (0..resamples)
            .map(|index| {
                let mut rng = resample_rng(seed, 0, index);
                resample_blocks(&mut rng, frames, block, &mut blocks);
                let mut values = Vec::new();
                for range in &blocks {
                    series.values.extend_into(series.spans_of(range.clone()), &mut values);
                }
                (!values.is_empty()).then(|| lower_median(&mut values))
            })
            .collect()
    }

    #[test]
    fn the_band_gives_the_medians_that_gathering_everything_gives() {
        let mut rng = Rng::new(3);
        // Heavy tails and long blocks push some resampled medians outside the band.
        let values: Vec<u64> = (0..2_000).map(|_| rng.log_normal(50_000.0, 1.5) as u64).collect();
        let series = Series::one_per_frame(values);
        for block in [1, 7, 200] {
            assert_eq!(
                resampled_medians(&series, 2_000, block, 9, 0, 64),
                direct_medians(&series, 2_000, block, 9, 64),
                "block {block}"
            );
        }
    }

    #[test]
    fn a_resample_holds_as_many_frames_as_the_capture() {
        let mut rng = Rng::new(1);
        let mut blocks = Vec::new();
        for (frames, block) in [(600, 9), (601, 9), (10, 10), (5, 1)] {
            resample_blocks(&mut rng, frames, block, &mut blocks);
            assert_eq!(blocks.iter().map(ExactSizeIterator::len).sum::<usize>(), frames);
            assert!(blocks.iter().all(|range| range.end <= frames));
        }
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
}
