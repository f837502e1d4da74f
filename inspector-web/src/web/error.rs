//! Thrown JS values become one typed error at the edge, so nothing past it handles raw `JsValue`s.

use wasm_bindgen::{JsCast, JsValue};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A thrown JS value, as `name: message`.
    #[error("{0}")]
    Js(String),
    /// `index.html` lacks an element the inspector fills in.
    #[error("the page has no #{0} element")]
    MissingElement(&'static str),
    /// A browser global is absent, e.g. when run outside a window.
    #[error("no {0} in this context")]
    NoGlobal(&'static str),
}

impl From<JsValue> for Error {
    fn from(value: JsValue) -> Self {
        Error::Js(describe(&value))
    }
}

/// A thrown JS value as text: `DomException` and `Error` as `name: message`.
pub fn describe(value: &JsValue) -> String {
    if let Some(exception) = value.dyn_ref::<web_sys::DomException>() {
        format!("{}: {}", exception.name(), exception.message())
    } else if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        format!("{}: {}", String::from(error.name()), String::from(error.message()))
    } else if let Some(text) = value.as_string() {
        text
    } else {
        format!("{value:?}")
    }
}
