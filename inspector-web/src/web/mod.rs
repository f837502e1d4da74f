//! The page: DOM, events and file reading, all thin over [`crate::summary`].

mod app;
mod error;
mod listener;
mod panic;
mod source;
mod view;

use wasm_bindgen::prelude::*;

/// Runs once, when the page instantiates the module.
///
/// # Errors
/// When `index.html` lacks an element the inspector needs. The page says so too, since a
/// user never sees the console.
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    panic::install();
    app::start().map_err(|error| {
        let message = format!("The inspector could not start: {error}.");
        panic::show_fatal(&message);
        JsValue::from_str(&message)
    })
}
