//! Reading back what a test recorded.

use sgpt_format::{Capture, Frame, provider_gauge_name};

/// Every frame of `capture`, decoded.
///
/// # Panics
/// When a frame does not decode: the tests record intact captures.
#[must_use]
pub fn frames(capture: &Capture<'_>) -> Vec<Frame> {
    (0..capture.frames().len()).map(|i| capture.frame(i).expect("every frame decodes")).collect()
}

/// The counter id of `provider/<metric>`, which must be declared.
///
/// # Panics
/// When the capture does not declare it.
#[must_use]
pub fn provider(capture: &Capture<'_>, metric: &str) -> u32 {
    let name = provider_gauge_name(metric);
    capture.counters().find(|def| def.name == name).unwrap_or_else(|| panic!("{name} is declared")).id
}

/// The frame's sample of `counter`, if it has one.
#[must_use]
pub fn sample(frame: &Frame, counter: u32) -> Option<f64> {
    frame.counters.iter().find(|sample| sample.counter == counter).map(|sample| sample.value)
}

/// The capture's notes about providers, with their frame numbers.
#[must_use]
pub fn provider_notes(capture: &Capture<'_>) -> Vec<(u64, String)> {
    capture
        .notes()
        .iter()
        .filter(|note| note.text.starts_with("provider "))
        .map(|note| (note.frame_number, note.text.clone()))
        .collect()
}
