//! The page's DOM: what it reports on `<body>`, its messages, and event listeners that
//! unregister when dropped.

use std::sync::atomic::{AtomicBool, Ordering};

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Set by the panic hook: callbacks that arrive after a panic do nothing (the state they
/// would touch may be half-updated).
static PANICKED: AtomicBool = AtomicBool::new(false);

pub(crate) fn panicked() -> bool {
    PANICKED.load(Ordering::Relaxed)
}

/// Chains to the console hook and shows the panic in the page: otherwise the page would
/// sit in its last state and a test could only time out.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        PANICKED.store(true, Ordering::Relaxed);
        console_error_panic_hook::hook(info);
        show_error(&format!("panic: {info}"));
    }));
}

/// A JS exception at the boundary, as text: `DOMException`s read "name: message".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct JsError(pub(crate) String);

impl From<JsValue> for JsError {
    fn from(value: JsValue) -> Self {
        if let Some(error) = value.dyn_ref::<js_sys::Error>() {
            let name = String::from(error.name());
            let message = String::from(error.message());
            return Self(if name.is_empty() { message } else { format!("{name}: {message}") });
        }
        Self(value.as_string().unwrap_or_else(|| format!("{value:?}")))
    }
}

/// Thrown back to a console caller as an `Error`.
impl From<JsError> for JsValue {
    fn from(error: JsError) -> Self {
        js_sys::Error::new(&error.0).into()
    }
}

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
        .ok_or_else(|| JsError(format!("the page has no #{id}")))?
        .dyn_into::<T>()
        .map_err(|_| JsError(format!("#{id} is not the element the page expects")))
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

/// An event listener that unregisters when dropped.
pub(crate) struct Listener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener").field("kind", &self.kind).finish_non_exhaustive()
    }
}

impl Listener {
    pub(crate) fn new(
        target: &web_sys::EventTarget,
        kind: &'static str,
        mut handler: impl FnMut(web_sys::Event) + 'static,
    ) -> Result<Self, JsError> {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(move |event| {
            if !panicked() {
                handler(event);
            }
        });
        target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())?;
        Ok(Self { target: target.clone(), kind, closure })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
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
