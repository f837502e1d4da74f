//! What the page shows when the inspector stops: a panic (through the shared hook, which
//! also stops every listener) or a page it cannot start on.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

pub use sgpt_web_glue::panic::happened;

/// Installs the shared panic hook with the inspector's banner; later calls do nothing.
pub fn install() {
    sgpt_web_glue::panic::install(|info| {
        show_fatal(&format!("The inspector crashed: {info}. Reload the page to continue."));
    });
}

/// Says in the page that the inspector stopped: a panic, or a page it cannot start on.
pub fn show_fatal(message: &str) {
    // Plain DOM calls rather than the view: the view may be what failed.
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    if let Some(body) = document.body() {
        let dataset = body.dataset();
        let _ = dataset.set("state", "error");
        if happened() {
            let _ = dataset.set("panicked", "true");
        }
    }
    if let Some(error) = document.get_element_by_id("error") {
        error.set_text_content(Some(message));
        if let Ok(error) = error.dyn_into::<HtmlElement>() {
            error.set_hidden(false);
        }
    }
}
