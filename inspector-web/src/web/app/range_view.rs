//! The range flame graph: where GPU time goes over the selected frames. Built by the
//! session when the view is first shown, and again whenever the range changes.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Event, KeyboardEvent, MouseEvent};

use super::super::draw;
use super::App;
use crate::icicle::NodeId;
use crate::session::Command;
use crate::url_state::Tab;

/// Height of a row of the flame graph, CSS pixels.
const ROW_PX: f64 = 20.0;

impl App {
    /// The view was shown: its graph is asked for once, then kept up to date by the session.
    pub(super) fn show_range_view(&self) {
        let ask = !self.ui.borrow().icicle_asked;
        if ask {
            {
                let mut ui = self.ui.borrow_mut();
                ui.icicle_asked = true;
                ui.icicle_progress = Some(0.0);
            }
            self.send(Command::Icicle);
        }
        self.render_range_head();
        self.draw_icicle();
    }

    /// The heading, the honesty notes and the readout of the view.
    pub(super) fn render_range_head(&self) {
        let ui = self.ui.borrow();
        let range = match (ui.range, &ui.strip) {
            (Some((a, b)), Some(strip)) => {
                format!("frames {} to {} ({} frames)", strip.frame_numbers[a], strip.frame_numbers[b], b - a + 1)
            }
            _ => "the capture".to_owned(),
        };
        let title = match (&ui.icicle, ui.icicle_progress) {
            (_, Some(p)) => format!("Where GPU time goes over {range}: building… {:.0} %", p * 100.0),
            (Some(icicle), None) => format!(
                "Where GPU time goes over {range}: {} in {} spans. Click a block to zoom in, its parent to zoom out.",
                crate::units::duration(icicle.total_ns()),
                crate::units::grouped(icicle.spans)
            ),
            (None, None) => format!("Where GPU time goes over {range}"),
        };
        let mut notes = Vec::new();
        if let Some(icicle) = &ui.icicle {
            notes.push(icicle.honesty_note(ui.may_quantize));
            notes.extend(icicle.bare_encoder_note());
            if icicle.dropped_spans > 0 {
                notes.push(format!(
                    "{} spans were dropped in this range (begun but never timed); their time is missing here.",
                    crate::units::grouped(icicle.dropped_spans)
                ));
            }
            if icicle.skipped_frames > 0 {
                notes.push(format!("{} frames could not be read and are left out.", icicle.skipped_frames));
            }
            notes.extend(ui.icicle_layout.as_ref().and_then(crate::icicle::IcicleLayout::too_narrow_text));
        }
        drop(ui);
        self.set_text("range-title", &title);
        if let Some(note) = self.dom.document.get_element_by_id("range-note") {
            note.set_text_content(Some(&notes.join(" ")));
            let _ = note.dyn_ref::<web_sys::HtmlElement>().map(|n| n.set_hidden(notes.is_empty()));
        }
    }

    pub fn draw_icicle(&self) {
        if self.ui.borrow().state.tab != Tab::Range {
            return;
        }
        let width = self.icicle.width.get();
        let layout = {
            let ui = self.ui.borrow();
            let Some(icicle) = &ui.icicle else {
                self.icicle.begin();
                return;
            };
            icicle.layout(width, ROW_PX, ui.icicle_focus)
        };
        if (self.icicle.height.get() - layout.height).abs() > 0.5 {
            // The observer redraws at the new size.
            self.icicle.set_css_height(layout.height.max(ROW_PX));
        }
        let (hover, focus) = {
            let ui = self.ui.borrow();
            (ui.icicle_hover, ui.icicle_focus)
        };
        draw::icicle(&self.icicle, &layout, hover, focus);
        self.ui.borrow_mut().icicle_layout = Some(layout);
    }

    fn icicle_at(&self, event: &MouseEvent) -> Option<NodeId> {
        let rect = self.icicle.element.get_bounding_client_rect();
        let (x, y) = (f64::from(event.client_x()) - rect.left(), f64::from(event.client_y()) - rect.top());
        self.ui.borrow().icicle_layout.as_ref()?.hit(x, y)
    }

    pub(super) fn on_icicle_move(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<MouseEvent>() else { return };
        let hit = self.icicle_at(event);
        if hit == self.ui.borrow().icicle_hover {
            return;
        }
        self.hover_icicle(hit);
    }

    fn hover_icicle(&self, node: Option<NodeId>) {
        self.ui.borrow_mut().icicle_hover = node;
        let text = {
            let ui = self.ui.borrow();
            node.and_then(|n| ui.icicle.as_ref()?.readout(n)).map(|lines| lines.join(" · ")).unwrap_or_default()
        };
        self.set_text("range-readout", &text);
        self.draw_icicle();
    }

    pub(super) fn on_icicle_leave(self: &Rc<Self>, _event: &Event) {
        self.ui.borrow_mut().icicle_hover = None;
        self.draw_icicle();
    }

    /// A block zooms in; the focused block, or an ancestor row above it, zooms out to it.
    pub(super) fn on_icicle_click(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<MouseEvent>() else { return };
        let Some(node) = self.icicle_at(event) else { return };
        self.zoom_icicle(node);
    }

    fn zoom_icicle(&self, node: NodeId) {
        {
            let mut ui = self.ui.borrow_mut();
            let parent = ui.icicle.as_ref().and_then(|i| i.node(node)?.parent);
            ui.icicle_focus = if ui.icicle_focus == Some(node) { parent } else { Some(node) };
        }
        self.draw_icicle();
        self.render_range_head();
    }

    /// Arrows move between blocks (←/→ along a row, ↑ to the parent, ↓ to the first
    /// child), Enter zooms into the block, Backspace zooms out.
    pub(super) fn on_icicle_key(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
        let key = event.key();
        let next = {
            let ui = self.ui.borrow();
            let (Some(icicle), Some(layout)) = (&ui.icicle, &ui.icicle_layout) else { return };
            let cursor = ui.icicle_hover.or(ui.icicle_focus).unwrap_or(icicle.root());
            let at = layout.rects.iter().position(|r| r.node == cursor);
            match key.as_str() {
                "ArrowRight" | "ArrowLeft" => {
                    let Some(at) = at else { return self.first_icicle_block(event) };
                    let row = layout.rects[at].row;
                    let mut same: Vec<_> = layout.rects.iter().filter(|r| r.row == row).collect();
                    same.sort_by(|a, b| a.x.total_cmp(&b.x));
                    let here = same.iter().position(|r| r.node == cursor).unwrap_or(0);
                    let to = if key == "ArrowRight" { (here + 1).min(same.len() - 1) } else { here.saturating_sub(1) };
                    Some(same[to].node)
                }
                "ArrowUp" => icicle.node(cursor).and_then(|n| n.parent).filter(|&p| p != icicle.root()),
                "ArrowDown" => match at {
                    None => return self.first_icicle_block(event),
                    Some(_) => icicle.node(cursor).and_then(|n| n.children.first().copied()),
                },
                "Enter" => {
                    drop(ui);
                    event.prevent_default();
                    self.zoom_icicle(cursor);
                    return;
                }
                "Backspace" => {
                    let parent = ui.icicle_focus.and_then(|f| icicle.node(f)?.parent);
                    drop(ui);
                    event.prevent_default();
                    self.ui.borrow_mut().icicle_focus = parent;
                    self.draw_icicle();
                    self.render_range_head();
                    return;
                }
                _ => return,
            }
        };
        event.prevent_default();
        if let Some(node) = next {
            self.hover_icicle(Some(node));
        }
    }

    fn first_icicle_block(&self, event: &KeyboardEvent) {
        event.prevent_default();
        let first =
            self.ui.borrow().icicle_layout.as_ref().and_then(|l| l.rects.iter().find(|r| !r.context).map(|r| r.node));
        self.hover_icicle(first);
    }
}
