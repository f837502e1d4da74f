//! Rebuilds a panel, or repaints a small canvas, from the view state.

use wasm_bindgen::JsCast;

use super::super::canvas::{self};
use super::super::draw;
use super::super::panels;
use super::App;
use crate::pass_detail::sparkline;
use crate::strip::StripData;

impl App {
    pub fn render_stats(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-stats") else { return };
        let ui = self.ui.borrow();
        let range_text = match (ui.range, &ui.strip) {
            (Some((a, b)), Some(strip)) => {
                format!("frames {} to {} ({} frames)", strip.frame_numbers[a], strip.frame_numbers[b], b - a + 1)
            }
            _ => "the capture".to_owned(),
        };
        let _ = panels::stats(
            &self.dom,
            &root,
            ui.stats.as_ref(),
            &ui.table,
            &range_text,
            ui.stats_progress,
            ui.detail.as_ref(),
            ui.may_quantize,
        );
    }

    pub fn render_structure(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-structure") else { return };
        let ui = self.ui.borrow();
        let _ = panels::structure(&self.dom, &root, ui.structure.as_ref(), ui.state.graph_pass, ui.state.node);
        // The same selection in the details pane.
        if let Some(detail) = self.dom.document.get_element_by_id("selection-detail") {
            let _ =
                panels::selection_detail(&self.dom, &detail, ui.structure.as_ref(), ui.state.graph_pass, ui.state.node);
        }
    }

    pub fn render_frame_panels(&self) {
        self.render_structure();
        self.render_resources();
        self.render_pass();
        self.render_frame_detail();
    }

    /// The resources table, with the resource the selection names marked.
    pub fn render_resources(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-resources") else { return };
        let ui = self.ui.borrow();
        let selected =
            ui.state.node.and_then(|node| ui.structure.as_ref()?.nodes.get(node as usize)).map(|n| n.name.as_str());
        let _ = panels::resources(&self.dom, &root, ui.resources.as_ref(), selected);
    }

    /// Rebuilds the Memory panel (after the gauges are read) and paints its series.
    pub fn render_memory(&self) {
        if let Some(root) = self.dom.document.get_element_by_id("panel-memory") {
            let ui = self.ui.borrow();
            let _ = panels::memory(&self.dom, &root, ui.memory.as_ref());
        }
        self.draw_memory();
    }

    pub fn render_pass(&self) {
        // The statistics mark the selected pass's row.
        if self.ui.borrow().state.tab == crate::url_state::Tab::Stats {
            self.render_stats();
        }
        let Some(root) = self.dom.document.get_element_by_id("panel-pass") else { return };
        let ui = self.ui.borrow();
        let number = ui.frame.and_then(|i| ui.strip.as_ref()?.frame_numbers.get(i).copied());
        let _ = panels::pass_detail(&self.dom, &root, ui.detail.as_ref(), ui.verbose, number, ui.base_name.as_deref());
        drop(ui);
        self.draw_sparkline();
        self.draw_histogram();
    }

    pub fn draw_sparkline(&self) {
        let Some(canvas) = self
            .dom
            .document
            .get_element_by_id("sparkline")
            .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        let ui = self.ui.borrow();
        let Some(points) = &ui.sparkline else { return };
        let Some((ctx, w, h)) = canvas::sized_context(&canvas) else { return };
        let at = match (ui.frame, ui.range) {
            (Some(frame), Some((a, b))) if frame >= a && frame <= b => {
                Some((frame - a) as f64 / (b - a + 1).max(1) as f64)
            }
            _ => None,
        };
        draw::sparkline(&ctx, w, h, points, at);
    }

    /// Paints each domain's live-bytes series on its canvas in the Memory panel.
    pub fn draw_memory(&self) {
        let ui = self.ui.borrow();
        let Some(view) = &ui.memory else { return };
        let Ok(canvases) = self.dom.document.query_selector_all("canvas.memory-spark") else { return };
        // Points are sampled frames, evenly spaced: the shown frame's place is its fraction.
        let frames = ui.strip.as_ref().map_or(0, StripData::len);
        let at = ui.frame.filter(|_| frames > 0).map(|frame| (frame as f64 + 0.5) / frames as f64);
        for index in 0..canvases.length() {
            let Some(canvas) = canvases.get(index).and_then(|n| n.dyn_into::<web_sys::HtmlCanvasElement>().ok()) else {
                continue;
            };
            let Some(series) = canvas
                .get_attribute("data-series")
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| view.series().get(i))
            else {
                continue;
            };
            let Some((ctx, w, h)) = canvas::sized_context(&canvas) else { continue };
            draw::sparkline(&ctx, w, h, &sparkline(&series.live_bytes, 600), at);
        }
    }

    pub fn render_compare(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-compare") else { return };
        let ui = self.ui.borrow();
        let Some(strip) = &ui.strip else { return };
        let Some(((a0, a1), (b0, b1))) = ui.compare else {
            if let Some(name) = &ui.base_reading {
                let _ = panels::compare_waiting(&self.dom, &root, name);
            }
            return;
        };
        // Side A is the baseline's frames when one is open.
        let side_a = ui.base_strip.as_ref().unwrap_or(strip);
        let n = |strip: &StripData, i: usize| strip.frame_numbers.get(i).copied().unwrap_or(0);
        let _ = panels::compare(
            &self.dom,
            &root,
            ((n(side_a, a0), n(side_a, a1)), (n(strip, b0), n(strip, b1))),
            ui.comparison.as_ref(),
            ui.compare_progress,
            ui.base_name.as_deref(),
        );
    }
}
