//! The page's DOM: what it reports on `<body>`, its messages, and `window.sgpt`.

use sgpt_web_glue::JsError;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

pub(crate) fn window() -> web_sys::Window {
    web_sys::window().unwrap_or_else(|| wasm_bindgen::throw_str("sgpt-demo runs in a window"))
}

pub(crate) fn document() -> web_sys::Document {
    window().document().unwrap_or_else(|| wasm_bindgen::throw_str("sgpt-demo needs a document"))
}

pub(crate) fn body() -> web_sys::HtmlElement {
    document().body().unwrap_or_else(|| wasm_bindgen::throw_str("sgpt-demo needs a <body>"))
}

/// The element with `id`, as a `T`.
pub(crate) fn element<T: JsCast>(id: &str) -> Result<T, JsError> {
    document()
        .get_element_by_id(id)
        .ok_or_else(|| JsError::new(format!("the page has no #{id}")))?
        .dyn_into::<T>()
        .map_err(|_| JsError::new(format!("#{id} is not the element the page expects")))
}

/// Sets `data-<key>` on `<body>`.
pub(crate) fn set_data(key: &str, value: &str) {
    // Only a key that is not a valid name throws; ours are literals.
    let _ = body().dataset().set(key, value);
}

pub(crate) fn set_state(state: &str) {
    set_data("state", state);
}

/// Shows `message` as the page's error and sets data-state "error".
pub(crate) fn show_error(message: &str) {
    set_data("error", message);
    show_message("error", message);
    set_state("error");
}

/// Shows an informational note (e.g. a missing feature that recording works around).
pub(crate) fn show_notice(message: &str) {
    show_message("notice", message);
}

fn show_message(id: &str, message: &str) {
    if let Some(out) = document().get_element_by_id(id) {
        // Text, never HTML.
        out.set_text_content(Some(message));
        let _ = out.remove_attribute("hidden");
    }
}

pub(crate) fn set_text(id: &str, text: &str) {
    if let Some(out) = document().get_element_by_id(id) {
        out.set_text_content(Some(text));
    }
}

/// `window.sgpt`, made on first use: the capture, the timing API and the profile share it.
pub(crate) fn sgpt() -> Result<js_sys::Object, JsError> {
    let window = window();
    let existing = js_sys::Reflect::get(&window, &JsValue::from_str("sgpt"))?;
    if let Ok(object) = existing.dyn_into::<js_sys::Object>() {
        return Ok(object);
    }
    let object = js_sys::Object::new();
    set_property(&window, "sgpt", &object)?;
    Ok(object)
}

/// `target[key] = value`.
pub(crate) fn set_property(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsError> {
    js_sys::Reflect::set(target, &JsValue::from_str(key), value)?;
    Ok(())
}
