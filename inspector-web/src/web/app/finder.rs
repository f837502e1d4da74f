//! The search (`/` or Ctrl+K): finds passes, graph passes and resources by name across
//! the capture; choosing a result shows a frame that holds it, selected in every view.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlElement, KeyboardEvent};

use super::super::dom::clear;
use super::App;
use crate::search::{ItemKind, SearchHit};
use crate::session::Command;
use crate::timeline::{BlockKind, Viewport};
use crate::units;

/// How many results the list shows.
const MAX_RESULTS: usize = 60;

impl App {
    pub(super) fn open_search(&self) {
        if self.ui.borrow().search.is_none() {
            return;
        }
        if !self.search_dialog.open() {
            let _ = self.search_dialog.show_modal();
        }
        self.search_input.select();
        self.run_search();
    }

    pub(super) fn on_search_input(self: &Rc<Self>, _event: &Event) {
        self.run_search();
    }

    fn run_search(&self) {
        let text = self.search_input.value();
        {
            let mut ui = self.ui.borrow_mut();
            let hits = ui.search.as_ref().map(|index| index.query(&text, MAX_RESULTS)).unwrap_or_default();
            ui.search_hits = hits;
            ui.search_at = 0;
        }
        self.render_search_results(&text);
    }

    fn render_search_results(&self, text: &str) {
        let Some(list) = self.dom.document.get_element_by_id("search-results") else { return };
        clear(&list);
        let ui = self.ui.borrow();
        let Some(index) = &ui.search else { return };
        let _ = self.search_input.set_attribute("aria-activedescendant", "");
        if ui.search_hits.is_empty() {
            let message = if text.trim().is_empty() {
                format!(
                    "Type to search {} names: passes, graph passes and resources.",
                    units::grouped(index.items().len() as u64)
                )
            } else {
                "Nothing in this capture has that name.".to_owned()
            };
            let _ = self.dom.add_class(&list, "li", "muted", &message);
            return;
        }
        for (at, hit) in ui.search_hits.iter().enumerate() {
            let item = &index.items()[hit.item];
            let Ok(li) = self.dom.add(&list, "li", "") else { continue };
            li.set_id(&format!("search-hit-{at}"));
            let _ = li.set_attribute("role", "option");
            let _ = li.set_attribute("data-hit", &at.to_string());
            let selected = at == ui.search_at;
            let _ = li.set_attribute("aria-selected", if selected { "true" } else { "false" });
            if selected {
                let _ = self.search_input.set_attribute("aria-activedescendant", &li.id());
            }
            let kind = match item.pass_kind {
                Some(kind) => format!("{} ({})", item.kind.title(), kind.name()),
                None => item.kind.title().to_owned(),
            };
            let _ = self.dom.add_class(&li, "span", "kind", &kind);
            if let Ok(name) = self.dom.add_class(&li, "span", "name", "") {
                self.highlighted(&name, &item.name, hit);
            }
            let frames = format!("{} frames", units::grouped(item.frames));
            let _ = self.dom.add_class(&li, "span", "frames", &frames);
        }
    }

    /// Writes `name` into `parent` as text, the matched parts in `<mark>`.
    fn highlighted(&self, parent: &Element, name: &str, hit: &SearchHit) {
        let mut at = 0;
        for range in &hit.ranges {
            let (Some(before), Some(marked)) = (name.get(at..range.start), name.get(range.clone())) else { continue };
            if !before.is_empty() {
                let _ = self.dom.add(parent, "span", before);
            }
            let _ = self.dom.add(parent, "mark", marked);
            at = range.end;
        }
        if let Some(rest) = name.get(at..)
            && !rest.is_empty()
        {
            let _ = self.dom.add(parent, "span", rest);
        }
    }

    pub(super) fn on_search_key(self: &Rc<Self>, event: &Event) {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else { return };
        let count = self.ui.borrow().search_hits.len();
        let at = self.ui.borrow().search_at;
        let next = match key.key().as_str() {
            "ArrowDown" => (at + 1).min(count.saturating_sub(1)),
            "ArrowUp" => at.saturating_sub(1),
            "Enter" => {
                event.prevent_default();
                self.choose(at);
                return;
            }
            // A search field's first Escape would only clear it: one Escape closes.
            "Escape" => {
                event.prevent_default();
                self.search_dialog.close();
                return;
            }
            _ => return,
        };
        event.prevent_default();
        self.ui.borrow_mut().search_at = next;
        self.render_search_results(&self.search_input.value());
        if let Some(item) = self.dom.document.get_element_by_id(&format!("search-hit-{next}")) {
            item.scroll_into_view_with_bool(false);
        }
    }

    pub(super) fn on_search_click(self: &Rc<Self>, event: &Event) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Ok(Some(item)) = target.closest("[data-hit]") else { return };
        if let Some(at) = item.get_attribute("data-hit").and_then(|v| v.parse().ok()) {
            self.choose(at);
        }
    }

    /// Selects result `at`: the session shows a frame holding it and reports back.
    fn choose(&self, at: usize) {
        let chosen = {
            let ui = self.ui.borrow();
            let index = ui.search.as_ref();
            ui.search_hits.get(at).and_then(|hit| index?.items().get(hit.item)).cloned()
        };
        let Some(item) = chosen else { return };
        self.search_dialog.close();
        self.send(Command::Reveal { kind: item.kind, places: item.places });
    }

    /// The session showed the chosen item, `index` in the shown frame's topology: it is
    /// selected in every view, and the timeline frames it.
    pub(super) fn revealed(&self, kind: ItemKind, index: u32) {
        // A graph pass or a resource is the selection now: the pass shown before is not.
        if kind != ItemKind::Pass && self.ui.borrow().state.pass.is_some() {
            self.ui.borrow_mut().state.pass = None;
            self.send(Command::Pass(None));
        }
        {
            let mut ui = self.ui.borrow_mut();
            match kind {
                ItemKind::Pass => {
                    ui.state.pass = Some(index);
                    ui.state.graph_pass = None;
                    ui.state.node = None;
                    ui.selected = ui.timeline.as_ref().and_then(|m| m.find_gpu_pass(index));
                }
                ItemKind::GraphPass => {
                    ui.state.graph_pass = Some(index);
                    ui.state.node = None;
                    ui.selected = ui.timeline.as_ref().and_then(|model| {
                        model.blocks.iter().position(|b| b.kind == BlockKind::GraphPass && b.graph_pass == Some(index))
                    });
                }
                ItemKind::Resource => {
                    ui.state.node = Some(index);
                    ui.state.graph_pass = None;
                }
            }
            // Frame the block with a margin of a quarter of its length on each side.
            let block = ui.selected.and_then(|at| ui.timeline.as_ref()?.blocks.get(at).cloned());
            if let Some(block) = block.filter(|_| kind != ItemKind::Resource) {
                let (start, length) = (block.start_ns as f64, (block.duration_ns as f64).max(1.0));
                ui.viewport = Some(Viewport { start: start - length / 4.0, end: start + length * 1.25 });
            }
        }
        let readout = {
            let ui = self.ui.borrow();
            ui.selected.zip(ui.timeline.as_ref()).map(|(at, model)| model.readout(at))
        };
        if let Some(readout) = readout.filter(|_| kind != ItemKind::Resource) {
            self.set_text("timeline-readout", &format!("Selected: {readout}"));
        }
        self.set_data("selection", kind.title());
        self.render_structure();
        self.render_resources();
        self.render_stats();
        self.draw_timeline();
        self.write_hash();
        if kind == ItemKind::Resource
            && let Some(row) = self.dom.document.query_selector("[data-testid=structure] tr.selected").ok().flatten()
            && let Ok(row) = row.dyn_into::<HtmlElement>()
        {
            row.scroll_into_view_with_bool(false);
        }
    }
}
