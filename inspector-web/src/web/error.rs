//! The inspector's page errors: a thrown JS value (made typed at the edge by the shared web
//! glue), or a page or context that lacks what the inspector needs.

use sgpt_web_glue::JsError;
use wasm_bindgen::JsValue;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A thrown JS value, as `name: message`.
    #[error(transparent)]
    Js(#[from] JsError),
    /// `index.html` lacks an element the inspector fills in.
    #[error("the page has no #{0} element")]
    MissingElement(&'static str),
    /// A browser global is absent, e.g. when run outside a window.
    #[error("no {0} in this context")]
    NoGlobal(&'static str),
}

impl From<JsValue> for Error {
    fn from(value: JsValue) -> Self {
        Error::Js(value.into())
    }
}
