//! What the workspace's tests share, in one place instead of copied per crate:
//!
//! - [`alloc`]: a global allocator that counts, per thread and in total, for the tests that
//!   prove a path allocates nothing;
//! - [`callgrind`]: reading callgrind's output, for the benches that count instructions;
//! - `gpu` (feature `gpu`): the device GPU tests run on, and reading back what they drew;
//! - [`skip`]: the rule every GPU test follows without an adapter: skip, but fail under
//!   `CI=true`, where lavapipe is installed.
#![cfg(not(target_arch = "wasm32"))]

pub mod alloc;
pub mod callgrind;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod skip;
