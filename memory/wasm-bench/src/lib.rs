//! The `sgpt-memory` bench (`memory/benches/memory.rs`) compiled for wasm32 and timed with the
//! JS clock: ns per alloc+free pair of 64 bytes for the system allocator alone, domain
//! counters only (a [`DomainAlloc`](sgpt_memory::DomainAlloc) with no capture), the
//! investigative recorder active, and the recorder once its journal is full. Printed, never
//! asserted:
//!
//! ```text
//! cargo xtask bench-memory-wasm [--pairs N] [--runs N] [--json]
//! ```
//!
//! builds this crate for `wasm32-unknown-unknown` in release, binds it with wasm-bindgen
//! (`--target web`), and runs it in Node and in headless Chromium
//! (`tests/bench/memory_wasm_bench.mjs`), printing one table with each case's ratio to the
//! system allocator of the same run.
//!
//! On `wasm32-unknown-unknown` the system allocator is dlmalloc, which Rust's std bundles for
//! that target, and the ledger's lock spins: single-threaded there, so it is never contended.
//! The JS clock is coarse in browsers (100 µs in Chromium, 5 µs in the cross-origin
//! isolated page the runner serves), so every figure comes from a whole batch's total, the
//! median of several batches.

mod bench;
#[cfg(target_arch = "wasm32")]
mod web;

pub use bench::{BLOCK_BYTES, BenchError, Case, PAIRS, RUNS, Report, WARMUP_RUNS, run};
