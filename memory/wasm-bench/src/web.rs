//! The JS boundary: one export, and the clock it times with.

use std::sync::OnceLock;

use wasm_bindgen::prelude::*;

/// Milliseconds since the first reading, on the JS engine's monotonic clock (`web-time`
/// reads it in Node and in browsers alike).
fn now_ms() -> f64 {
    static ORIGIN: OnceLock<web_time::Instant> = OnceLock::new();
    ORIGIN.get_or_init(web_time::Instant::now).elapsed().as_secs_f64() * 1e3
}

/// Runs the bench ([`crate::run`]) timed by the JS clock and returns its [`crate::Report`]
/// as JSON.
///
/// # Errors
///
/// When `pairs` or `runs` is 0, or the recorder refuses a control call.
#[wasm_bindgen(js_name = runMemoryBench)]
pub fn run_memory_bench(pairs: u32, runs: u32) -> Result<String, JsError> {
    let report = crate::run(pairs, runs, now_ms)?;
    Ok(serde_json::to_string(&report)?)
}
