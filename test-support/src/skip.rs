//! The one rule for a test that needs a machine's GPU: skip where none exists, but fail
//! under `CI=true`, where lavapipe is installed, so that a skip there never hides that the
//! GPU tests did not run.

use std::fmt::Display;

/// Says why `what` (e.g. "a GPU test") is skipped, for a test that then returns.
///
/// # Panics
/// Under `CI=true`: CI installs mesa-vulkan-drivers, so a missing adapter is a failure.
pub fn skip_without_adapter(what: &str, why: &dyn Display) {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but {what} cannot run: {why}");
    eprintln!("skipping {what}: {why}");
}
