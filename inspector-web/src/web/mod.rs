//! The page: DOM, canvases, events and file reading, thin over the native view models.

mod app;
mod canvas;
mod dom;
mod draw;
mod error;
mod mailbox;
mod panels;
mod panic;
mod runner;
mod slice;
mod source;
mod trap;
mod workers;

use wasm_bindgen::prelude::*;

/// Runs once, when the page instantiates the module.
///
/// # Errors
/// When `index.html` lacks an element the inspector needs. The page says so too, since a
/// user never sees the console.
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    panic::install();
    trap::install();
    app::start().map_err(|error| {
        let message = format!(
            "The inspector could not start: {error}. Reload the page; if it persists, the site's files are incomplete."
        );
        panic::show_fatal(&message);
        JsValue::from_str(&message)
    })
}
