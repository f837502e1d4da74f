//! Where a capture's bytes come from: a dropped or picked `File`, or a URL (`?file=`,
//! including the `blob:` URLs the demo hands over). Each is a thin adapter yielding the
//! whole file; reading the capture is the summary's business.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use super::error::{Error, describe};

pub enum Input {
    File(web_sys::File),
    Url(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the server answered HTTP {status}{}", status_text_suffix(.status_text))]
    Http { status: u16, status_text: String },
    #[error("the request failed ({reason}); {hint}")]
    Network { reason: String, hint: &'static str },
    #[error("the file could not be read ({0})")]
    File(String),
    #[error(transparent)]
    Js(#[from] Error),
}

fn status_text_suffix(text: &str) -> String {
    // HTTP/2 has no reason phrase; don't leave a dangling space.
    if text.is_empty() { String::new() } else { format!(" {text}") }
}

impl Input {
    /// How messages name this input: the file's name, or the URL as given.
    pub fn name(&self) -> String {
        match self {
            Input::File(file) => file.name(),
            Input::Url(url) => url.clone(),
        }
    }

    /// The whole file.
    pub async fn read(&self) -> Result<Vec<u8>, ReadError> {
        match self {
            Input::File(file) => gloo_file::futures::read_as_bytes(&gloo_file::Blob::from(file.clone()))
                .await
                .map_err(|error| ReadError::File(error.to_string())),
            Input::Url(url) => fetch(url).await,
        }
    }
}

async fn fetch(url: &str) -> Result<Vec<u8>, ReadError> {
    let network = |error: &wasm_bindgen::JsValue| ReadError::Network {
        reason: describe(error),
        hint: if url.starts_with("blob:") {
            "a blob: URL opens only in the browser session that made it, until it is revoked"
        } else {
            "check the URL, and that its server allows this origin (CORS)"
        },
    };
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let response = JsFuture::from(window.fetch_with_str(url)).await.map_err(|error| network(&error))?;
    let response: Response = response.dyn_into().map_err(Error::from)?;
    if !response.ok() {
        return Err(ReadError::Http { status: response.status(), status_text: response.status_text() });
    }
    let body = response.array_buffer().map_err(Error::from)?;
    let buffer = JsFuture::from(body).await.map_err(|error| network(&error))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
