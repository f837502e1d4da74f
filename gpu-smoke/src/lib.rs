//! GPU smoke: proves the GPU timestamp path on a real adapter.
//!
//! [`measure_compute_pass`] runs one compute pass with `timestamp_writes` and reads the two
//! timestamps back. Natively it runs on Vulkan only (Mesa's lavapipe in CI, see
//! `tests/lavapipe.rs`); on wasm32 it runs on the browser's WebGPU, driven by `index.html`
//! and `tests/browser/gpu_smoke.test.mjs`.

mod error;
mod measure;
#[cfg(target_arch = "wasm32")]
mod web;

pub use error::SmokeError;
pub use measure::{ELEMENTS, Measurement, measure_compute_pass};
