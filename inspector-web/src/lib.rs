//! The sgpt web inspector: opens a `.sgpt` capture in the browser and shows what it holds.
//!
//! [`summary`] computes what the page shows and builds on every target, so it is tested
//! natively. The page itself (`web`: DOM, events, file reading) exists only on `wasm32`
//! and is tested in Chromium by `tests/browser/inspector.test.mjs`.

pub mod baseline_room;
pub mod compare_view;
pub mod frame_detail;
pub mod gzip;
pub mod histogram;
pub mod icicle;
pub mod keys;
pub mod memory;
pub mod memory_lane;
pub mod pass_detail;
pub mod progress_pace;
pub mod resources;
pub mod search;
pub mod session;
pub mod slicing;
pub mod stats;
pub mod stats_table;
pub mod strip;
pub mod structure;
pub mod summary;
pub mod timeline;
pub mod units;
pub mod url_state;
pub mod verify;

#[cfg(target_arch = "wasm32")]
mod web;
