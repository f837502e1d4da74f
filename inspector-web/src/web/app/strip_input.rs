//! The frame strip and the memory lane under it: pointer and keys choose a frame or a range.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, KeyboardEvent, PointerEvent};

use super::super::draw;
use super::super::panels;
use super::{App, x_fraction};
use crate::session::Command;
use crate::strip::{StripData, StripLayout};
use crate::units;

impl App {
    pub fn relayout_strip(&self) {
        let mut ui = self.ui.borrow_mut();
        let width = (self.strip.width.get() * self.strip.scale.get()).max(1.0) as u32;
        ui.layout = ui.strip.as_ref().map(|data| StripLayout::new(data, width));
        let base_width = (self.base_strip.width.get() * self.base_strip.scale.get()).max(1.0) as u32;
        ui.base_layout = ui.base_strip.as_ref().map(|data| StripLayout::new(data, base_width));
    }

    pub fn draw_strip(&self) {
        let ui = self.ui.borrow();
        if let (Some(data), Some(layout)) = (&ui.strip, &ui.layout) {
            draw::strip(&self.strip, data, layout, ui.range, ui.frame, ui.brush);
        }
        if !self.lane.element.hidden() {
            let frames = ui.strip.as_ref().map_or(0, StripData::len);
            draw::memory_lane(&self.lane, ui.lane.as_ref(), frames, ui.range, ui.frame, ui.brush);
        }
        // The baseline's strip marks side A of the comparison as its range.
        if let (Some(data), Some(layout)) = (&ui.base_strip, &ui.base_layout) {
            let side_a = ui.compare.map(|(a, _)| a);
            draw::strip(&self.base_strip, data, layout, side_a, None, None);
        }
    }

    /// Shows the lane (and its legend) for a capture with domain gauges, hides it otherwise.
    pub fn show_lane(&self, shown: bool) {
        self.lane.element.set_hidden(!shown);
        self.lane_legend.set_hidden(!shown);
        self.set_data("memoryLane", if shown { "shown" } else { "none" });
        let ui = self.ui.borrow();
        let _ = panels::memory_lane_legend(&self.dom, &self.lane_legend, ui.lane.as_ref());
    }

    /// The strip or the lane the event is on: both map x to frames the same way.
    pub(super) fn strip_target(&self, event: &Event) -> Element {
        event
            .current_target()
            .and_then(|target| target.dyn_into::<Element>().ok())
            .unwrap_or_else(|| self.strip.element.clone().into())
    }

    pub(super) fn on_strip_down(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let target = self.strip_target(event);
        let (x, _) = x_fraction(event, &target);
        let _ = target.set_pointer_capture(event.pointer_id());
        self.ui.borrow_mut().brush = Some((x, x));
    }

    pub(super) fn on_strip_move(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let target = self.strip_target(event);
        let (x, _) = x_fraction(event, &target);
        let on_lane = target == **self.lane.element;
        let readout = {
            let mut ui = self.ui.borrow_mut();
            if let Some(brush) = ui.brush.as_mut() {
                brush.1 = x;
            }
            let (Some(data), Some(layout)) = (&ui.strip, &ui.layout) else { return };
            match (&ui.lane, on_lane) {
                (Some(lane), true) => lane.readout(x, &data.frame_numbers),
                _ => layout.frame_at(data, x).map(|index| strip_readout(data, index)),
            }
        };
        self.set_text("strip-readout", &readout.unwrap_or_default());
        if self.ui.borrow().brush.is_some() {
            self.draw_strip();
        }
    }

    pub(super) fn on_strip_up(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let (x, _) = x_fraction(event, &self.strip_target(event));
        let width = self.strip.width.get().max(1.0);
        let (brush, choice) = {
            let mut ui = self.ui.borrow_mut();
            let brush = ui.brush.take();
            let (Some(data), Some(layout)) = (&ui.strip, &ui.layout) else { return };
            let choice = match brush {
                Some((start, _)) if ((x - start) * width).abs() >= 4.0 => layout.range_between(start, x).map(Err),
                _ => layout.frame_at(data, x).map(Ok),
            };
            (brush, choice)
        };
        let _ = brush;
        match choice {
            Some(Ok(frame)) => self.select_frame(frame),
            Some(Err((first, last))) => self.select_range(first, last),
            None => self.draw_strip(),
        }
    }

    pub(super) fn on_strip_key(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
        let (frame, range, len) = {
            let ui = self.ui.borrow();
            (ui.frame.unwrap_or(0), ui.range, ui.strip.as_ref().map_or(0, StripData::len))
        };
        if len == 0 {
            return;
        }
        let step = if event.ctrl_key() || event.meta_key() { 10 } else { 1 };
        let target = match event.key().as_str() {
            "ArrowLeft" => frame.saturating_sub(step),
            "ArrowRight" => (frame + step).min(len - 1),
            "Home" => 0,
            "End" => len - 1,
            "a" | "A" if event.ctrl_key() => {
                event.prevent_default();
                self.select_range(0, len - 1);
                return;
            }
            _ => return,
        };
        event.prevent_default();
        if event.shift_key() {
            let (first, last) = range.unwrap_or((frame, frame));
            let anchor = if target < frame { last } else { first };
            self.select_range(anchor.min(target), anchor.max(target));
        }
        self.select_frame(target);
    }

    pub fn select_frame(&self, index: usize) {
        {
            let mut ui = self.ui.borrow_mut();
            if ui.frame == Some(index) && ui.timeline.is_some() {
                drop(ui);
                self.draw_strip();
                return;
            }
            ui.frame = Some(index);
            ui.viewport = None;
            ui.selected = None;
            ui.hover = None;
        }
        self.draw_strip();
        self.send(Command::Frame(index));
        self.write_hash();
    }

    pub fn select_range(&self, first: usize, last: usize) {
        {
            let mut ui = self.ui.borrow_mut();
            ui.range = Some((first, last));
            ui.stats = None;
            ui.stats_progress = Some(0.0);
        }
        self.set_data("stats", "computing");
        self.draw_strip();
        self.render_stats();
        self.send(Command::Range(first, last));
        self.write_hash();
    }
}

fn strip_readout(data: &StripData, index: usize) -> String {
    let mut text = format!(
        "frame {} · GPU {} · CPU {}",
        data.frame_numbers[index],
        units::exact_ns(data.gpu_ns[index]),
        units::exact_ns(data.cpu_ns[index])
    );
    if data.is_hitch(index) {
        text.push_str(" · hitch");
    }
    if data.dropped[index] > 0 {
        text.push_str(&format!(" · {} spans dropped", data.dropped[index]));
    }
    text
}
impl App {}
