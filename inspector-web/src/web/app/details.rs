//! The details pane: the selected pass across the selected frames (its histogram and
//! sparkline), and the shown frame with its workload.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlCanvasElement, PointerEvent};

use super::super::canvas;
use super::super::draw;
use super::super::panels;
use super::App;
use crate::units;

/// Room under the bars for the axis labels, CSS pixels.
const HISTOGRAM_AXIS_PX: f64 = 14.0;

impl App {
    pub(super) fn render_frame_detail(&self) {
        let Some(root) = self.dom.document.get_element_by_id("frame-detail") else { return };
        let ui = self.ui.borrow();
        let _ = panels::frame_detail(&self.dom, &root, ui.frame_detail.as_ref());
    }

    fn canvas(&self, id: &str) -> Option<HtmlCanvasElement> {
        self.dom.document.get_element_by_id(id).and_then(|e| e.dyn_into().ok())
    }

    /// Paints the selected pass's histogram, and the baseline's when one is open.
    pub(super) fn draw_histogram(&self) {
        let ui = self.ui.borrow();
        for (canvas, readout, histogram, hover) in [
            ("histogram", "histogram-readout", ui.histogram.as_ref(), ui.histogram_hover),
            ("histogram-base", "histogram-base-readout", ui.base_histogram.as_ref(), None),
        ] {
            let (Some(canvas), Some(histogram)) = (self.canvas(canvas), histogram) else { continue };
            let Some((ctx, w, h)) = canvas::sized_context(&canvas) else { continue };
            let layout = histogram.layout(w, (h - HISTOGRAM_AXIS_PX).max(1.0));
            draw::histogram(&ctx, w, h, &layout, hover);
            let text = format!("{} {}", histogram.summary_text(), histogram.binning_text());
            if self.dom.document.get_element_by_id(readout).and_then(|e| e.text_content()).as_deref()
                != Some(text.as_str())
            {
                self.set_text(readout, &text);
            }
        }
    }

    /// Hovering a bar of the histogram says its bin and count.
    pub(super) fn on_details_move(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        if target.id() != "histogram" {
            return;
        }
        let rect = target.get_bounding_client_rect();
        let x = f64::from(event.client_x()) - rect.left();
        let (hover, text) = {
            let ui = self.ui.borrow();
            let Some(histogram) = &ui.histogram else { return };
            let layout = histogram.layout(rect.width(), (rect.height() - HISTOGRAM_AXIS_PX).max(1.0));
            let hover = layout.hit(x);
            let text = hover.and_then(|at| layout.bars.get(at)).map(|bar| match bar.bin {
                None => format!("0 ns: {} spans", units::grouped(bar.count)),
                Some(bin) => format!(
                    "{} to {}: {} spans",
                    units::exact_ns(bin.low_ns),
                    units::exact_ns(bin.high_ns),
                    units::grouped(bar.count)
                ),
            });
            (hover, text)
        };
        if self.ui.borrow().histogram_hover != hover {
            self.ui.borrow_mut().histogram_hover = hover;
            self.draw_histogram();
        }
        if let Some(text) = text {
            self.set_text("spark-readout", &text);
        }
    }
}
