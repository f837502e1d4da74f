//! Thrown JS values become one typed error at the edge, so nothing past it handles raw
//! `JsValue`s.

use std::fmt;

use wasm_bindgen::{JsCast, JsValue};

/// A thrown JS value, as text: `DOMException`s and `Error`s read `name: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsError(String);

impl JsError {
    /// An error of our own at the JS edge, e.g. an element the page lacks.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// The error as the page shows it: `name: message`, or the message alone.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsError {}

impl From<JsValue> for JsError {
    fn from(value: JsValue) -> Self {
        Self(describe(&value))
    }
}

/// Thrown back to a JS caller as an `Error`.
impl From<JsError> for JsValue {
    fn from(error: JsError) -> Self {
        js_sys::Error::new(&error.0).into()
    }
}

/// A thrown JS value as text: `DOMException` and `Error` as `name: message` (the message
/// alone when the name is empty), a string as itself, anything else as its debug form.
pub fn describe(value: &JsValue) -> String {
    // DOMException first: where it is not an `Error`, its name still says what went wrong.
    let named = if let Some(exception) = value.dyn_ref::<web_sys::DomException>() {
        Some((exception.name(), exception.message()))
    } else {
        value.dyn_ref::<js_sys::Error>().map(|error| (String::from(error.name()), String::from(error.message())))
    };
    match named {
        Some((name, message)) if name.is_empty() => message,
        Some((name, message)) => format!("{name}: {message}"),
        None => value.as_string().unwrap_or_else(|| format!("{value:?}")),
    }
}
