//! The web inspector's statistics worker. The page starts a few, each its own wasm
//! instance, and posts them a job's share and then pieces of its range (see
//! `sgpt_format::analysis::scan::piece`); each piece comes back as the share says: the
//! statistics' or a comparison's figures, or the checks of its frames. No memory is
//! shared (a static site gets no cross-origin isolation): every piece's bytes are
//! transferred to the worker, and its answer back.
//!
//! The messages, as JS arrays (`generation` tells one job's from the next's):
//! - page to worker: `["share", generation, json]`, then for each piece
//!   `["piece", generation, number, first, base, entries_len, bytes_len, buffer]`, the
//!   buffer holding the piece's encoded entries and then its bytes;
//! - worker to page: `["ready"]` once it listens, then per piece
//!   `["figures", generation, number, len, buffer]`, the buffer holding the encoded
//!   answer, or `["failed", generation, number, why, buffer]`.
//!
//! The one buffer goes back and forth, so the page copies its next piece into it rather
//! than into a new one: a few MiB of garbage a piece would otherwise pile up faster than
//! it is collected, in the page and in the worker alike.

mod answer;

pub use answer::{Answerer, answer_piece};

#[cfg(target_arch = "wasm32")]
mod web;
