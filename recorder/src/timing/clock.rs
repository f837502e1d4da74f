//! The timing clock, in milliseconds. Crate-private: instrumented code can emit timings
//! but never read them (seed 003), so no public function returns a time.
//!
//! In a browser it is the page's high-resolution clock, the time base DevTools and User
//! Timing use; natively it counts from the first read in the process.

#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub(crate) fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use web_time::Instant;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
}

#[cfg(target_arch = "wasm32")]
#[inline]
pub(crate) fn now_ms() -> f64 {
    super::browser::now_ms()
}
