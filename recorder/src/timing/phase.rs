//! Phases that tile a frame, and the interval between frames.

use super::budget::Budget;
use super::clock::{Clock, TimingClock};
use super::entry::{Entry, EntryKind};
use super::hub;
use super::track::{self, Track};

/// Tiles a stretch of work into consecutive phases from one clock read per boundary.
///
/// Each phase ends where the next begins, on the same reading, so a coarse clock's
/// quantization error moves between neighbours instead of accumulating, and the phases
/// sum exactly to the parent [`PhaseClock::finish`] emits (a per-phase clock read measured 99.7 % with
/// two reads per span). Write-only, like [`super::Span`].
///
/// ```
/// use sgpt_recorder::timing::{Budget, PhaseClock, track};
///
/// let mut phases = PhaseClock::start(track::PHASES);
/// // … simulate …
/// phases.phase("simulate");
/// // … encode and submit …
/// phases.phase("encode");
/// phases.finish(track::ENGINE, "engine", Budget::Engine);
/// ```
#[must_use = "phases are emitted as they close; finish emits their parent"]
#[derive(Debug)]
pub struct PhaseClock<C: Clock = TimingClock> {
    clock: C,
    track: Track,
    start_ms: f64,
    last_ms: f64,
    on: bool,
}

impl PhaseClock {
    /// Starts the first phase, on `track`, on the timing clock.
    #[inline]
    pub fn start(track: Track) -> Self {
        Self::start_on(TimingClock::new(), track)
    }
}

impl<C: Clock> PhaseClock<C> {
    /// Starts the first phase, on `track`, reading `clock`.
    #[inline]
    pub fn start_on(clock: C, track: Track) -> Self {
        let on = hub::enabled();
        let now = if on { clock.now_ms() } else { 0.0 };
        Self { clock, track, start_ms: now, last_ms: now, on }
    }

    /// Closes the current phase as `name` and starts the next one, on one clock read.
    #[inline]
    pub fn phase(&mut self, name: &'static str) {
        if !self.on {
            return;
        }
        let now = self.clock.now_ms();
        hub::emit(&Entry {
            kind: EntryKind::Span,
            name,
            track: self.track,
            start_ms: self.last_ms,
            end_ms: now,
            color: self.track.color,
            properties: &[],
            tooltip: None,
        });
        self.last_ms = now;
    }

    /// Ends the clock with no parent entry (its phases are the whole story, as at boot).
    pub fn end(self) {}

    /// Emits the parent, from the first boundary to the last (no further read), on
    /// `track`, judged against `budget`. The parent sits on its own track: a track's
    /// entries never overlap, so a profile can sum them.
    pub fn finish(self, track: Track, name: &'static str, budget: Budget) {
        if self.on {
            hub::emit_budgeted(track, name, self.start_ms, self.last_ms, budget);
        }
    }
}

/// The interval between animation frames: one `frame` entry per tick on
/// [`track::FRAME`], judged against [`Budget::Frame`]. It covers the frame that just
/// ended, so every span of that frame falls inside its bar.
#[derive(Debug)]
pub struct FrameInterval<C: Clock = TimingClock> {
    clock: C,
    last_ms: Option<f64>,
}

impl FrameInterval {
    /// Frame intervals on the timing clock.
    #[must_use]
    pub fn new() -> Self {
        Self::on(TimingClock::new())
    }
}

impl Default for FrameInterval {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Clock> FrameInterval<C> {
    /// Frame intervals read from `clock`.
    #[must_use]
    pub fn on(clock: C) -> Self {
        Self { clock, last_ms: None }
    }

    /// Marks a frame boundary: emits the interval since the previous one.
    #[inline]
    pub fn tick(&mut self) {
        if !hub::enabled() {
            // A later interval must not span the time spent off.
            self.last_ms = None;
            return;
        }
        let now = self.clock.now_ms();
        if let Some(last) = self.last_ms {
            hub::emit_budgeted(track::FRAME, "frame", last, now, Budget::Frame);
        }
        self.last_ms = Some(now);
    }
}
