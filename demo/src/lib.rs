//! The demo "game": a wgpu scene built on `sgpt-recorder`'s [`sgpt_recorder::FrameGraph`].
//!
//! A compute particle simulation with indirect dispatch and draw, three shadow cascades
//! (the far two refreshed every few frames), a main pass with sub-pass markers, an HZB
//! build whose one graph pass opens a GPU pass per mip, a bloom down/up chain and a
//! tonemap, plus a debug branch the graph culls. The internal resolution changes
//! periodically, so the recorded topology varies. Rendering is headless (to textures).
//!
//! The scene and its frame loop are target-independent; `sgpt-demo` drives them natively.

pub mod memory;
mod scene;

pub use scene::{DemoError, DemoPass, Scene, SceneOptions, SceneSize};

#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(target_arch = "wasm32")]
mod web;
