//! Routing: the URL hash holds the view state, written as it changes and read when edited.

use std::rc::Rc;

use web_sys::Event;

use super::App;
use crate::session::Command;
use crate::timeline::Viewport;
use crate::url_state::ViewState;

impl App {
    /// Writes the view state into the URL. It runs on every change the user makes, each
    /// wheel step on the timeline among them, so it reads the frames' numbers where the
    /// strips hold them: a copy costs 8 bytes a frame a call, 14 MB on eight hours.
    pub fn write_hash(&self) {
        let mut guard = self.ui.borrow_mut();
        // Through a plain reference, the strips are read while the state is written.
        let ui = &mut *guard;
        let Some(strip) = ui.strip.as_ref().filter(|_| ui.restored) else { return };
        let numbers = strip.frame_numbers.as_slice();
        let number = |index: usize| numbers.get(index).copied();
        ui.state.frame = ui.frame.and_then(number);
        ui.state.range = ui.range.and_then(|(a, b)| Some((number(a)?, number(b)?)));
        ui.state.zoom = ui.viewport.map(|v| v.rounded()).or(ui.pending_zoom);
        // Side A is the baseline's frames when one is open.
        let base_numbers = ui.base_strip.as_ref().map(|s| s.frame_numbers.as_slice());
        let number_a = |index: usize| base_numbers.map_or_else(|| number(index), |n| n.get(index).copied());
        // Only a comparison made is the link's: a default one not yet run is not.
        let made = ui.comparison.is_some() || ui.compare_progress.is_some();
        ui.state.compare = ui
            .compare
            .filter(|_| made)
            .and_then(|((a0, a1), (b0, b1))| Some(((number_a(a0)?, number_a(a1)?), (number(b0)?, number(b1)?))));
        let hash = ui.state.to_hash();
        drop(guard);
        self.last_hash.replace(hash.clone());
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            // Replace, not push: dragging a brush must not flood the back button.
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash));
        }
    }

    /// The hash edited after load (by hand, or a link followed within the page): shows
    /// what it names without reopening the capture. Writing the hash uses `replaceState`,
    /// which fires no `hashchange`; comparing with the last value written also skips a
    /// hash set back to what is already shown.
    pub(super) fn on_hash_change(self: &Rc<Self>, _event: &Event) {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        if hash == *self.last_hash.borrow() {
            return;
        }
        let state = ViewState::parse(&hash);
        let resolved = {
            let mut ui = self.ui.borrow_mut();
            match (&ui.strip, ui.restored) {
                (Some(strip), true) if !strip.is_empty() => {
                    let index = |number: u64| strip.index_of(number);
                    let frame = state.frame.and_then(index).unwrap_or(0);
                    let range =
                        state.range.and_then(|(a, b)| Some((index(a)?, index(b)?))).unwrap_or((0, strip.len() - 1));
                    let index_a =
                        |number: u64| ui.base_strip.as_ref().map_or_else(|| index(number), |b| b.index_of(number));
                    let compare = state.compare.and_then(|((a0, a1), (b0, b1))| {
                        Some(((index_a(a0)?, index_a(a1)?), (index(b0)?, index(b1)?)))
                    });
                    Some((frame, range, compare))
                }
                _ => {
                    // Still opening: the session applies the state once the strip exists.
                    ui.state = state.clone();
                    None
                }
            }
        };
        let Some((frame, range, compare)) = resolved else {
            self.show_tab(state.tab);
            return;
        };
        let (frame_changed, pass_changed) = {
            let mut ui = self.ui.borrow_mut();
            let pass_changed = ui.state.pass != state.pass;
            ui.state.pass = state.pass;
            ui.state.graph_pass = state.graph_pass;
            ui.state.node = state.node;
            let frame_changed = ui.frame != Some(frame) || ui.timeline.is_none();
            if frame_changed {
                ui.pending_zoom = state.zoom;
            } else {
                let fit = ui.timeline.as_ref().map(|m| Viewport::fit(m.extent));
                ui.viewport = state.zoom.map(|(start, end)| Viewport { start: start as f64, end: end as f64 }).or(fit);
                ui.selected = state.pass.and_then(|p| ui.timeline.as_ref()?.find_gpu_pass(p));
            }
            (frame_changed, pass_changed)
        };
        if frame_changed {
            // The session selects the pass and applies the zoom when it shows the frame.
            self.select_frame(frame);
        } else {
            if pass_changed {
                self.send(Command::Pass(state.pass));
            }
            self.draw_timeline();
        }
        if self.ui.borrow().range != Some(range) {
            self.select_range(range.0, range.1);
        }
        if let Some((a, b)) = compare
            && self.ui.borrow().compare != Some((a, b))
        {
            self.start_compare(a, b);
        }
        self.render_structure();
        self.show_tab(state.tab);
    }
}
