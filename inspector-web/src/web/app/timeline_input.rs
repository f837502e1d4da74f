//! The timeline: wheel, drag and keys zoom and pan; a click or the arrows select a block.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Event, KeyboardEvent, MouseEvent, PointerEvent, WheelEvent};

use super::super::draw;
use super::{App, x_fraction};
use crate::session::Command;
use crate::timeline::{BlockKind, Viewport};
use crate::units;

impl App {
    pub fn draw_timeline(&self) {
        let ui = self.ui.borrow();
        let (Some(model), Some(viewport)) = (&ui.timeline, &ui.viewport) else { return };
        // The canvas fills the height left to it and grows past it (the pane then scrolls)
        // when the frame's tracks need more; the observer redraws at the new size.
        let height = model.track_tops().1 + draw::AXIS_PX;
        if self.timeline.min_height.get() != height {
            self.timeline.set_css_min_height(height);
        }
        // web-time, so only the recorder's browser timing sink names the browser's clock API.
        let started = web_time::Instant::now();
        draw::timeline(&self.timeline, model, viewport, ui.hover, ui.selected);
        let spent = started.elapsed().as_secs_f64() * 1000.0;
        self.set_data("timelineDrawMs", &format!("{spent:.2}"));
    }

    pub(super) fn timeline_point(&self, event: &MouseEvent) -> Option<(f64, f64, f64)> {
        let (x, y) = x_fraction(event, &self.timeline.element);
        let ui = self.ui.borrow();
        let viewport = ui.viewport?;
        let slop = 3.0 / self.timeline.width.get().max(1.0) * viewport.span();
        Some((viewport.ns_at(x), y - draw::AXIS_PX, slop))
    }

    pub(super) fn on_wheel(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<WheelEvent>() else { return };
        event.prevent_default();
        let (x, _) = x_fraction(event, &self.timeline.element);
        {
            let mut ui = self.ui.borrow_mut();
            let Some(viewport) = ui.viewport.as_mut() else { return };
            // Pixels, lines or pages: one notch is about 100 px however the device reports it.
            let unit = match event.delta_mode() {
                1 => 33.0,
                2 => 300.0,
                _ => 1.0,
            };
            let (dx, dy) = (event.delta_x() * unit, event.delta_y() * unit);
            if event.shift_key() || dx.abs() > dy.abs() {
                viewport.pan((if dx.abs() > dy.abs() { dx } else { dy }) / 1000.0);
            } else {
                viewport.zoom((dy / 500.0).exp(), x.clamp(0.0, 1.0));
            }
        }
        self.draw_timeline();
        self.write_hash();
    }

    pub(super) fn on_timeline_down(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let (x, _) = x_fraction(event, &self.timeline.element);
        let mut ui = self.ui.borrow_mut();
        if let Some(viewport) = ui.viewport {
            ui.drag = Some((x, viewport, false));
            let _ = self.timeline.element.set_pointer_capture(event.pointer_id());
        }
    }

    pub(super) fn on_timeline_move(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let (x, _) = x_fraction(event, &self.timeline.element);
        let dragging = {
            let mut ui = self.ui.borrow_mut();
            let width = self.timeline.width.get().max(1.0);
            match ui.drag.as_mut() {
                Some((start, viewport, moved)) => {
                    if ((x - *start) * width).abs() >= 3.0 {
                        *moved = true;
                    }
                    let mut next = *viewport;
                    next.pan(*start - x);
                    let moved = *moved;
                    if moved {
                        ui.viewport = Some(next);
                    }
                    moved
                }
                None => false,
            }
        };
        if dragging {
            let _ = self.timeline.element.class_list().add_1("dragging");
            self.draw_timeline();
            return;
        }
        let Some((ns, y, slop)) = self.timeline_point(event) else { return };
        let (hit, readout) = {
            let ui = self.ui.borrow();
            let Some(model) = &ui.timeline else { return };
            let hit = model.hit(ns, y, slop);
            (hit, hit.map(|index| model.readout(index)))
        };
        let changed = {
            let mut ui = self.ui.borrow_mut();
            let changed = ui.hover != hit;
            ui.hover = hit;
            changed
        };
        self.set_text(
            "timeline-readout",
            &readout.unwrap_or_else(|| format!("{} at the pointer", units::signed_ns(ns))),
        );
        if changed {
            self.draw_timeline();
        }
    }

    pub(super) fn on_timeline_up(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let drag = self.ui.borrow_mut().drag.take();
        let _ = self.timeline.element.class_list().remove_1("dragging");
        if matches!(drag, Some((_, _, true))) {
            self.write_hash();
            return;
        }
        let Some((ns, y, slop)) = self.timeline_point(event) else { return };
        let hit = self.ui.borrow().timeline.as_ref().and_then(|model| model.hit(ns, y, slop));
        self.select_block(hit);
    }

    pub(super) fn on_timeline_leave(self: &Rc<Self>, _event: &Event) {
        if self.ui.borrow().drag.is_some() {
            return;
        }
        self.ui.borrow_mut().hover = None;
        self.draw_timeline();
    }

    pub fn select_block(&self, hit: Option<usize>) {
        let (pass, graph, readout) = {
            let mut ui = self.ui.borrow_mut();
            ui.selected = hit;
            let Some(model) = &ui.timeline else { return };
            let block = hit.map(|index| &model.blocks[index]);
            let pass =
                block.filter(|b| matches!(b.kind, BlockKind::GpuPass | BlockKind::SubPass)).and_then(|b| b.gpu_pass);
            let graph = block.and_then(|b| b.graph_pass);
            (pass, graph, hit.map(|index| model.readout(index)))
        };
        {
            let mut ui = self.ui.borrow_mut();
            if pass.is_some() {
                ui.state.pass = pass;
            }
            if graph.is_some() {
                ui.state.graph_pass = graph;
                ui.state.node = None;
            }
        }
        if let Some(readout) = readout {
            self.set_text("timeline-readout", &format!("Selected: {readout}"));
        }
        if pass.is_some() {
            self.send(Command::Pass(pass));
        }
        if graph.is_some() {
            self.render_structure();
        }
        self.draw_timeline();
        self.write_hash();
    }

    pub(super) fn on_timeline_key(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
        let key = event.key();
        {
            let mut ui = self.ui.borrow_mut();
            let extent = ui.timeline.as_ref().map(|m| m.extent);
            let Some(viewport) = ui.viewport.as_mut() else { return };
            match key.as_str() {
                "w" | "W" | "+" | "=" => viewport.zoom(0.8, 0.5),
                "s" | "S" | "-" => viewport.zoom(1.25, 0.5),
                "a" | "A" => viewport.pan(-0.15),
                "d" | "D" => viewport.pan(0.15),
                "f" | "F" | "0" => {
                    if let Some(extent) = extent {
                        *viewport = Viewport::fit(extent);
                    }
                }
                "ArrowLeft" | "ArrowRight" | "Enter" => {}
                _ => return,
            }
        }
        event.prevent_default();
        if key == "Enter" {
            // The selection's details are beside the timeline: move there to read them.
            if let Ok(details) = self.dom.find("details") {
                let _ = details.focus();
            }
            return;
        }
        if key == "ArrowLeft" || key == "ArrowRight" {
            let next = {
                let ui = self.ui.borrow();
                let Some(model) = &ui.timeline else { return };
                let mut passes: Vec<usize> =
                    (0..model.blocks.len()).filter(|&i| model.blocks[i].kind == BlockKind::GpuPass).collect();
                passes.sort_by_key(|&i| (model.blocks[i].start_ns, model.blocks[i].track));
                let at = ui.selected.and_then(|s| passes.iter().position(|&i| i == s));
                match (at, key.as_str()) {
                    (None, _) => passes.first().copied(),
                    (Some(at), "ArrowLeft") => passes.get(at.saturating_sub(1)).copied(),
                    (Some(at), _) => passes.get((at + 1).min(passes.len().saturating_sub(1))).copied(),
                }
            };
            self.select_block(next);
            return;
        }
        self.draw_timeline();
        self.write_hash();
    }
}

impl App {}
