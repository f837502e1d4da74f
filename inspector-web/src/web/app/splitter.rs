//! The splitter between the timeline and the views panel: drag it, or focus it and use
//! the arrow keys, to share the height between them.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Event, KeyboardEvent, PointerEvent};

use super::App;

/// The views panel's share of the height, in percent, at least and at most.
const MIN_PERCENT: f64 = 15.0;
const MAX_PERCENT: f64 = 85.0;
/// How far one arrow key moves it.
const STEP_PERCENT: f64 = 5.0;

impl App {
    fn tables_height(&self) -> f64 {
        self.dom.document.get_element_by_id("tables").map_or(0.0, |t| t.get_bounding_client_rect().height())
    }

    /// Sets the views panel to `percent` of the height the timeline and it share.
    fn set_tables_percent(&self, percent: f64) {
        let percent = percent.clamp(MIN_PERCENT, MAX_PERCENT);
        let _ = self.center.style().set_property("--tables-h", &format!("{percent:.1}%"));
        let _ = self.splitter.set_attribute("aria-valuenow", &format!("{percent:.0}"));
    }

    pub(super) fn on_split_down(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let _ = self.splitter.set_pointer_capture(event.pointer_id());
        self.ui.borrow_mut().split_drag = Some((f64::from(event.client_y()), self.tables_height()));
        event.prevent_default();
    }

    pub(super) fn on_split_move(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let Some((y0, h0)) = self.ui.borrow().split_drag else { return };
        let total = self.center.get_bounding_client_rect().height().max(1.0);
        // Dragging up grows the panel below.
        let height = h0 + (y0 - f64::from(event.client_y()));
        self.set_tables_percent(height / total * 100.0);
    }

    pub(super) fn on_split_up(self: &Rc<Self>, _event: &Event) {
        self.ui.borrow_mut().split_drag = None;
    }

    pub(super) fn on_split_key(self: &Rc<Self>, event: &Event) {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else { return };
        let now = self.splitter.get_attribute("aria-valuenow").and_then(|v| v.parse::<f64>().ok()).unwrap_or(45.0);
        let next = match key.key().as_str() {
            "ArrowUp" => now + STEP_PERCENT,
            "ArrowDown" => now - STEP_PERCENT,
            "Home" => MIN_PERCENT,
            "End" => MAX_PERCENT,
            _ => return,
        };
        event.prevent_default();
        self.set_tables_percent(next);
        let _ = self.splitter.dyn_ref::<web_sys::HtmlElement>();
    }
}
