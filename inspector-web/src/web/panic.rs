//! Panics: logged to the console, shown in the page, and afterwards every callback is
//! ignored, since the state a panic leaves behind cannot be trusted.

use std::cell::Cell;
use std::sync::Once;

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

thread_local! {
    static PANICKED: Cell<bool> = const { Cell::new(false) };
}

/// Installs the hook; later calls do nothing.
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            console_error_panic_hook::hook(info);
            PANICKED.with(|panicked| panicked.set(true));
            show_fatal(&format!("The inspector crashed: {info}. Reload the page to continue."));
        }));
    });
}

/// Whether the inspector has panicked; callbacks check this first.
pub fn happened() -> bool {
    PANICKED.with(Cell::get)
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
