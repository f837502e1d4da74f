//! Event listeners as owned handles: registered on creation, removed on drop, so no closure is leaked with `forget`.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Event, EventTarget};

use super::error::Error;

#[derive(Debug)]
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    /// Calls `handler` for every `kind` event reaching `target`, until dropped.
    pub fn new(target: &EventTarget, kind: &'static str, handler: impl FnMut(Event) + 'static) -> Result<Self, Error> {
        let closure = Closure::<dyn FnMut(Event)>::new(handler);
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
