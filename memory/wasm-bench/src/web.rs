//! The JS boundary: one export, and the clock it times with.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Node and browsers both have a global `performance`.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Runs the bench ([`crate::run`]) timed by `performance.now()` and returns its [`crate::Report`]
/// as JSON.
///
/// # Errors
///
/// When `pairs` or `runs` is 0, or the recorder refuses a control call.
#[wasm_bindgen(js_name = runMemoryBench)]
pub fn run_memory_bench(pairs: u32, runs: u32) -> Result<String, JsError> {
    let report = crate::run(pairs, runs, performance_now)?;
    Ok(serde_json::to_string(&report)?)
}
