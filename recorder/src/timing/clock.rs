//! The timing clock, in milliseconds. Instrumented code can emit timings but never read
//! them: the real clock, [`TimingClock`], cannot be made outside this crate, so
//! nothing outside it can call [`Clock::now_ms`] on it.
//!
//! In a browser it is the page's high-resolution clock, the time base DevTools and User
//! Timing use; natively it counts from the first read in the process.
//!
//! What is judged against a budget ([`super::PhaseClock`], [`super::FrameInterval`])
//! reads a [`Clock`] it is given: [`TimingClock`] by default, a zero-sized type, so the
//! default costs exactly the direct read; a test hands in a clock it sets by hand and
//! judges exact durations instead of the scheduler's.

/// A source of the time, in milliseconds from any fixed origin, never going backwards.
pub trait Clock {
    /// The time now.
    fn now_ms(&self) -> f64;
}

/// The timing clock (see the module docs). Held only inside the timing types.
#[derive(Clone, Copy, Debug)]
pub struct TimingClock {
    _private: (),
}

impl TimingClock {
    pub(crate) const fn new() -> Self {
        Self { _private: () }
    }
}

impl Clock for TimingClock {
    #[inline]
    fn now_ms(&self) -> f64 {
        now_ms()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn now_ms(&self) -> f64 {
        (**self).now_ms()
    }
}

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
