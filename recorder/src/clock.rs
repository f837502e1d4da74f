//! The CPU clock: monotonic nanoseconds since the session started.
//!
//! `web-time` is `std::time::Instant` natively and the page's high-resolution clock on
//! wasm32, so this file never names the browser API (only `timing/browser.rs` does).
//! CPU times stay on this clock and are never placed on the GPU's axis: the two clocks are never merged.

use web_time::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct CpuClock {
    epoch: Instant,
}

impl CpuClock {
    pub(crate) fn start() -> Self {
        Self { epoch: Instant::now() }
    }

    /// Nanoseconds since the session started.
    #[inline]
    pub(crate) fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

/// Wall-clock time, Unix epoch, nanoseconds (META's start time).
pub(crate) fn unix_now_ns() -> u64 {
    web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64)
}
