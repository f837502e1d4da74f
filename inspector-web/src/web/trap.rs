//! Traps: the page's WebAssembly stopping without a panic, most often an allocation that
//! wasm32's 4 GiB cannot give. The handler is JavaScript (`trap.js`), so it runs whatever
//! state the trap left the module in.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/trap.js")]
extern "C" {
    #[wasm_bindgen(js_name = watchTraps)]
    fn watch_traps(memory: &JsValue);
}

/// Has the page show any later trap as its error.
pub fn install() {
    watch_traps(&wasm_bindgen::memory());
}
