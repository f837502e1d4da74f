//! How often the page's status line and progress bar are repainted while one phase of
//! work (reading, checking, computing statistics) reports its progress.
//!
//! Long work reports progress after every slice, a few ms apart. Every change to the
//! page, even one attribute of the progress bar, costs the browser a whole frame: style,
//! layout, paint, raster and compositing, in the renderer and in the GPU process. At
//! one change a frame that was a fifth of both cores while the hour-long capture loaded,
//! taken from the statistics workers and the read. So within one phase the display moves
//! at most every [`REPAINT_EVERY_MS`]; a new phase, and hiding the bar, show at once. An
//! update held back is shown when its turn comes unless a newer one replaced it, so the
//! display never stays behind the work for longer than that.

/// The least time between two repaints of one phase's progress: five a second.
pub const REPAINT_EVERY_MS: f64 = 200.0;

/// What to do with a progress update now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Offer {
    /// Show it now.
    Show,
    /// Hold it, and show it at this time (same clock as the offers) unless a newer one
    /// is shown first.
    HoldUntil(f64),
}

/// The pace of one progress display, on a clock the caller reads (ms).
#[derive(Debug, Default)]
pub struct ProgressPace {
    /// When the display last changed, and the phase it then showed.
    shown: Option<(f64, String)>,
}

impl ProgressPace {
    /// Whether the update `text` (with its bar at some fraction) may be shown at `now`.
    /// Once shown, say so with [`ProgressPace::shown`].
    #[must_use]
    pub fn offer(&self, now: f64, text: &str) -> Offer {
        match &self.shown {
            Some((at, phase)) if *phase == phase_of(text) && now - at < REPAINT_EVERY_MS => {
                Offer::HoldUntil(at + REPAINT_EVERY_MS)
            }
            _ => Offer::Show,
        }
    }

    /// Records that `text` was shown at `now`.
    pub fn shown(&mut self, now: f64, text: &str) {
        self.shown = Some((now, phase_of(text)));
    }

    /// The bar was hidden: the next update starts a phase, whatever it says.
    pub fn reset(&mut self) {
        self.shown = None;
    }
}

/// The phase a status line reports on: its words without the figures that move.
fn phase_of(text: &str) -> String {
    text.chars().filter(|c| !c.is_ascii_digit()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(pace: &mut ProgressPace, now: f64, text: &str) -> Offer {
        let offer = pace.offer(now, text);
        if offer == Offer::Show {
            pace.shown(now, text);
        }
        offer
    }

    #[test]
    fn one_phase_moves_at_most_once_a_turn_and_holds_what_comes_between() {
        let mut pace = ProgressPace::default();
        assert_eq!(show(&mut pace, 1000.0, "Reading a.sgpt: 1.0 MB…"), Offer::Show);
        // Every slice a few ms apart: held until the turn after the last shown.
        for at in [1004.0, 1050.0, 1199.9] {
            assert_eq!(show(&mut pace, at, "Reading a.sgpt: 7.5 MB…"), Offer::HoldUntil(1200.0));
        }
        assert_eq!(show(&mut pace, 1200.0, "Reading a.sgpt: 9.0 MB…"), Offer::Show);
        assert_eq!(show(&mut pace, 1201.0, "Reading a.sgpt: 9.5 MB…"), Offer::HoldUntil(1400.0));
        // A turn counts from the last shown, not the last offered.
        assert_eq!(show(&mut pace, 1500.0, "Reading a.sgpt: 12.5 MB…"), Offer::Show);
    }

    #[test]
    fn a_new_phase_or_a_hidden_bar_shows_at_once() {
        let mut pace = ProgressPace::default();
        assert_eq!(show(&mut pace, 0.0, "Reading a.sgpt: 176.8 MB…"), Offer::Show);
        assert_eq!(show(&mut pace, 1.0, "Checking a.sgpt against its index…"), Offer::Show);
        assert_eq!(show(&mut pace, 2.0, "Computing statistics… 0 %"), Offer::Show);
        assert_eq!(show(&mut pace, 3.0, "Computing statistics… 1 %"), Offer::HoldUntil(202.0));
        pace.reset();
        assert_eq!(show(&mut pace, 4.0, "Computing statistics… 2 %"), Offer::Show);
    }
}
