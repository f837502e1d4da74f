//! Event listeners as owned handles: registered on creation, removed on drop, so no
//! closure is leaked with `forget`.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Event, EventTarget};

use crate::error::JsError;
use crate::panic;

#[derive(Debug)]
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Calls `handler` for every `kind` event reaching `target`, until dropped or until a
    /// panic (see [`panic::install`]): the state a handler would touch may be half-updated.
    pub fn new(
        target: &EventTarget,
        kind: &'static str,
        mut handler: impl FnMut(Event) + 'static,
    ) -> Result<Self, JsError> {
        let closure = Closure::<dyn FnMut(Event)>::new(move |event| {
            if !panic::happened() {
                handler(event);
            }
        });
        target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())?;
        Ok(Self { target: target.clone(), kind, closure })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        // Removing fails only when the target is already gone, leaving nothing to undo.
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}
