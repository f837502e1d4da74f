//! The browser entry: runs the measurement once and publishes it in the DOM, where
//! `tests/browser/gpu_smoke.test.mjs` reads it.

use wasm_bindgen::prelude::*;

use crate::{Measurement, measure_compute_pass};

/// Runs when the module is instantiated (Trunk's loader calls it).
#[wasm_bindgen(start)]
pub fn start() {
    // The shared hook chains to the console; the page shows the panic too, or it would stay
    // `loading` and a test could only time out.
    sgpt_web_glue::panic::install(|info| publish_error(&format!("panic: {info}")));
    set_state("loading");
    wasm_bindgen_futures::spawn_local(async {
        match measure_compute_pass().await {
            Ok(measurement) => publish(&measurement),
            Err(error) => publish_error(&error.to_string()),
        }
    });
}

fn publish(m: &Measurement) {
    let body = body();
    let data = body.dataset();
    for (key, value) in [
        ("durationNs", m.duration_ns.to_string()),
        ("beginNs", m.begin_ns.to_string()),
        ("endNs", m.end_ns.to_string()),
        ("timestampPeriod", m.timestamp_period.to_string()),
        ("adapter", m.adapter.clone()),
        ("backend", m.backend.to_str().to_owned()),
    ] {
        set_or_throw(&data, key, &value);
    }
    show_text(&m.to_string());
    set_state("ready");
}

fn publish_error(message: &str) {
    set_or_throw(&body().dataset(), "error", message);
    show_text(&format!("error: {message}"));
    set_state("error");
}

fn set_state(state: &str) {
    set_or_throw(&body().dataset(), "state", state);
}

fn show_text(text: &str) {
    if let Some(out) = document().get_element_by_id("result") {
        // Text, never HTML: adapter names come from the driver.
        out.set_text_content(Some(text));
    }
}

fn document() -> web_sys::Document {
    match web_sys::window().and_then(|w| w.document()) {
        Some(document) => document,
        None => wasm_bindgen::throw_str("sgpt-gpu-smoke needs a window with a document"),
    }
}

fn body() -> web_sys::HtmlElement {
    match document().body() {
        Some(body) => body,
        None => wasm_bindgen::throw_str("sgpt-gpu-smoke needs a <body>"),
    }
}

fn set_or_throw(data: &web_sys::DomStringMap, key: &str, value: &str) {
    if let Err(error) = data.set(key, value) {
        wasm_bindgen::throw_val(error);
    }
}
