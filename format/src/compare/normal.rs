//! The standard normal quantile function, for intervals at the levels Holm's procedure
//! asks for (down to α / m for m tests, far beyond what bootstrap percentiles of a few
//! hundred resamples could reach).

/// `Φ⁻¹(p)` for `0 < p < 1`: Wichura's algorithm AS 241 (PPND16), accurate to about 1 part
/// in 10¹⁶. Outside (0, 1) it returns ±∞ (or NaN for NaN).
// The coefficients are AS 241's as published, digits beyond f64 included.
#[allow(clippy::excessive_precision)]
pub(crate) fn quantile(p: f64) -> f64 {
    const A: [f64; 8] = [
        3.387_132_872_796_366_6,
        133.141_667_891_784_38,
        1_971.590_950_306_551_3,
        13_731.693_765_509_461,
        45_921.953_931_549_87,
        67_265.770_927_008_7,
        33_430.575_583_588_13,
        2_509.080_928_730_122_7,
    ];
    const B: [f64; 8] = [
        1.0,
        42.313_330_701_600_91,
        687.187_007_492_057_9,
        5_394.196_021_424_751,
        21_213.794_301_586_597,
        39_307.895_800_092_71,
        28_729.085_735_721_943,
        5_226.495_278_852_854_5,
    ];
    const C: [f64; 8] = [
        1.423_437_110_749_683_5,
        4.630_337_846_156_545,
        5.769_497_221_460_691,
        3.647_848_324_763_204_5,
        1.270_458_252_452_368_4,
        0.241_780_725_177_450_6,
        0.022_723_844_989_269_184,
        7.745_450_142_783_414e-4,
    ];
    const D: [f64; 8] = [
        1.0,
        2.053_191_626_637_758_8,
        1.676_384_830_183_803_8,
        0.689_767_334_985_1,
        0.148_103_976_427_480_08,
        0.015_198_666_563_616_457,
        5.475_938_084_995_345e-4,
        1.050_750_071_644_416_8e-9,
    ];
    const E: [f64; 8] = [
        6.657_904_643_501_103,
        5.463_784_911_164_114,
        1.784_826_539_917_291_3,
        0.296_560_571_828_504_9,
        0.026_532_189_526_576_124,
        0.001_242_660_947_388_078_4,
        2.711_555_568_743_487_6e-5,
        2.010_334_399_292_288_1e-7,
    ];
    const F: [f64; 8] = [
        1.0,
        0.599_832_206_555_887_9,
        0.136_929_880_922_735_8,
        0.014_875_361_290_850_615,
        7.868_691_311_456_133e-4,
        1.846_318_317_510_054_8e-5,
        1.421_511_758_316_446e-7,
        2.044_263_103_389_939_7e-15,
    ];
    fn poly(coefficients: &[f64; 8], x: f64) -> f64 {
        coefficients.iter().rev().fold(0.0, |sum, &c| sum * x + c)
    }
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180_625 - q * q;
        return q * poly(&A, r) / poly(&B, r);
    }
    let r = (-(if q < 0.0 { p } else { 1.0 - p }).ln()).sqrt();
    let z = if r <= 5.0 {
        let r = r - 1.6;
        poly(&C, r) / poly(&D, r)
    } else {
        let r = r - 5.0;
        poly(&E, r) / poly(&F, r)
    };
    if q < 0.0 { -z } else { z }
}

#[cfg(test)]
mod tests {
    use super::quantile;

    #[test]
    fn quantiles_match_reference_values() {
        // Reference values of Φ⁻¹, as Python's statistics.NormalDist().inv_cdf gives them.
        for (p, z) in [
            (0.5, 0.0),
            (0.975, 1.959_963_984_540_053_6),
            (0.025, -1.959_963_984_540_053_6),
            (0.999_875, 3.662_259_930_887_615),
            (1e-10, -6.361_340_902_404_056),
            (1e-300, -37.047_096_299_361_2),
        ] {
            assert!((quantile(p) - z).abs() < 1e-12 * z.abs().max(1.0), "Φ⁻¹({p}) = {} ≠ {z}", quantile(p));
        }
    }
}
