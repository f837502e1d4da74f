//! The budgets everything that colours by budget reads: the trace entries' colour and a
//! profile's verdict use these same numbers (one definition, every consumer).
//!
//! `engine` and `frame` are two entries against two budgets. Judging the engine step
//! against the frame period hides a slow renderer behind a fast engine: the half
//! compared would be the half that was fine.

use super::track::Color;

/// 60 Hz: the interval a display refresh allows.
pub const FRAME_BUDGET_MS: f64 = 1000.0 / 60.0;
/// An interval between animation frames longer than this missed at least one refresh
/// (1.5 periods, so vsync jitter alone never counts).
pub const DROPPED_FRAME_MS: f64 = FRAME_BUDGET_MS * 1.5;
/// The application's own CPU work per frame: half a period, leaving the rest to the
/// browser, the compositor and the driver.
pub const ENGINE_BUDGET_MS: f64 = FRAME_BUDGET_MS / 2.0;

/// What an entry is judged against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// The application's own work ([`ENGINE_BUDGET_MS`]).
    Engine,
    /// The interval between animation frames ([`DROPPED_FRAME_MS`]).
    Frame,
}

impl Budget {
    /// The budget, in milliseconds.
    #[must_use]
    pub fn ms(self) -> f64 {
        match self {
            Self::Engine => ENGINE_BUDGET_MS,
            Self::Frame => DROPPED_FRAME_MS,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Engine => "engine",
            Self::Frame => "frame",
        }
    }

    /// Whether `duration_ms` is over this budget.
    #[must_use]
    pub fn over(self, duration_ms: f64) -> bool {
        duration_ms > self.ms()
    }

    /// `within` when `duration_ms` fits the budget, else [`Color::Error`].
    #[must_use]
    pub fn color(self, duration_ms: f64, within: Color) -> Color {
        if self.over(duration_ms) { Color::Error } else { within }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_budget_takes_the_error_colour_and_each_budget_is_its_own() {
        assert_eq!(Budget::Engine.color(9.0, Color::Primary), Color::Error);
        assert_eq!(Budget::Engine.color(8.0, Color::Primary), Color::Primary);
        // 20 ms is a slow engine step but not a dropped frame.
        assert_eq!(Budget::Frame.color(20.0, Color::Secondary), Color::Secondary);
        assert_eq!(Budget::Frame.color(25.5, Color::Secondary), Color::Error);
        assert!((DROPPED_FRAME_MS - 25.0).abs() < 1e-9);
    }
}
