//! The web glue the inspector, the `/demo/` page and gpu-smoke share: a panic hook that
//! chains to the console and then lets the page say so, thrown JS values as one typed
//! error, and event listeners as owned handles.
//!
//! Web-only and free of wgpu, so the inspector can use it and still never reach wgpu
//! (docs/ARCHITECTURE.md, "Crates and the direction of their arrows"). Natively the crate
//! is empty.

#![cfg(target_arch = "wasm32")]

mod error;
mod listener;
pub mod panic;

pub use error::{JsError, describe};
pub use listener::Listener;
