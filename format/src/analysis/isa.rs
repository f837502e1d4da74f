//! The statistics' hot loops compiled for the instruction set of the machine they run on.
//!
//! The portable x86-64 build has no trailing-zero count that takes zero, no shifts by a
//! register other than `cl`, and vectors of four 32-bit lanes. The span decoder is a
//! chain of counts, shifts and masks, and the statistics' per-position loop a run of
//! 32-bit lanes, so x86-64-v3 (BMI1, BMI2, AVX2: every x86 CPU since about 2015) makes
//! `sgpt stats` on the hour-long capture about a sixth faster (0.52 s to 0.45 s on one
//! thread, when this came in). The work is compiled twice, and the machine's own CPU
//! picks one at run time; the figures are the same either way, as the code is.

/// Runs `work`, compiled for x86-64-v3 where this CPU has it.
#[inline(always)]
pub(crate) fn fastest<R>(work: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_v3() {
        // SAFETY: `with_v3` only needs its target features, and `has_v3` has just found
        // each of them on this CPU.
        #[allow(unsafe_code)]
        return unsafe { with_v3(work) };
    }
    work()
}

/// Whether this CPU has every feature [`with_v3`] is compiled with (std caches the
/// answer after the first look).
#[cfg(target_arch = "x86_64")]
fn has_v3() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// `work`, inlined here so that it and what it inlines are compiled for these features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn with_v3<R>(work: impl FnOnce() -> R) -> R {
    work()
}
