//! The timing port: CPU timing into Chrome DevTools' Performance panel (docs/ARCHITECTURE.md, "The timing port").
//!
//! Three levels, `off` by default everywhere:
//!
//! - [`TimingLevel::Off`]: nothing is emitted, nothing is allocated per span; every
//!   instrumented site costs one load of the level.
//! - [`TimingLevel::Trace`]: the console's time-stamp call with track, group and colour. It reaches
//!   an active DevTools trace only and is not retained (about 46.5 ns an entry).
//! - [`TimingLevel::Full`]: User Timing measures and marks with `detail.devtools`,
//!   retained in the page's timeline and readable by [`drain`] (988.5 ns an entry). At
//!   most [`RETAINED_CAP`] entries are kept; the rest are counted as dropped.
//!
//! Those figures are Chrome's on the seed's machine; `tests/bench/timing_bench.mjs` prints a
//! span's cost at each level here beside the same calls made directly from JS.
//!
//! A [`Span`]'s `end()` returns `()`: code can emit timings and never read them. A
//! process-global hub holds the level and one sink; its default sink is none, so
//! importing this crate emits nothing. The application's entry point attaches a sink:
//! the browser sink on wasm32 (`BrowserSink`, the one file in the workspace that names
//! the browser's timing APIs) or the native [`Collector`]. Feature detection is not a
//! capability check: the time stamp's extended arguments have no capability query
//! and the function exists everywhere, so only the chosen level decides what is paid.
//!
//! [`PhaseClock`] tiles a frame into phases from one clock read per boundary;
//! [`FrameInterval`] times the interval between frames. `engine` and `frame` are judged
//! against two budgets, defined once in [`budget`], on the [`Clock`] they are given
//! ([`TimingClock`] unless a test injects its own).

#[cfg(target_arch = "wasm32")]
mod browser;
pub mod budget;
mod clock;
mod collector;
mod entry;
mod hub;
mod level;
mod phase;
mod sink;
mod span;
mod summary;
pub mod track;

#[cfg(target_arch = "wasm32")]
pub use browser::BrowserSink;
pub use budget::Budget;
pub use clock::{Clock, TimingClock};
pub use collector::{Collected, Collector};
pub use entry::{Drained, Entry, EntryKind, RETAINED_CAP, Retention};
pub use hub::{attach, detach, drain, enabled, level, retention, set_level};
pub use level::TimingLevel;
pub use phase::{FrameInterval, PhaseClock};
pub use sink::TimingSink;
pub use span::{Span, marker};
pub use summary::{TrackSummary, summarize};
pub use track::{Color, Track};
