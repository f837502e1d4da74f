//! Delegated actions (tabs, table rows, sort headers, buttons) and the tab keys.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlElement, HtmlInputElement, KeyboardEvent};

use super::App;
use crate::session::Command;
use crate::stats_table::Column;
use crate::url_state::Tab;

impl App {
    pub(super) fn on_action(self: &Rc<Self>, event: &Event) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Ok(Some(element)) = target.closest("[data-action]") else { return };
        let action = element.get_attribute("data-action").unwrap_or_default();
        let value = element.get_attribute("data-value").unwrap_or_default();
        self.act(&action, &value);
    }

    pub(super) fn on_action_key(self: &Rc<Self>, event: &Event) {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else { return };
        if key.key() != "Enter" && key.key() != " " {
            return;
        }
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        if target.tag_name() == "BUTTON" || target.tag_name() == "INPUT" {
            return; // buttons click themselves
        }
        if let Some(action) = target.get_attribute("data-action") {
            event.prevent_default();
            self.act(&action, &target.get_attribute("data-value").unwrap_or_default());
        }
    }

    pub(super) fn on_tab_key(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
        let current = self.ui.borrow().state.tab;
        let at = Tab::ALL.iter().position(|&t| t == current).unwrap_or(0);
        let next = match event.key().as_str() {
            "ArrowRight" => Tab::ALL[(at + 1) % Tab::ALL.len()],
            "ArrowLeft" => Tab::ALL[(at + Tab::ALL.len() - 1) % Tab::ALL.len()],
            "Home" => Tab::ALL[0],
            "End" => Tab::ALL[Tab::ALL.len() - 1],
            _ => return,
        };
        event.prevent_default();
        self.show_tab(next);
        if let Some(button) = self.dom.document.get_element_by_id(&format!("tab-{}", next.key()))
            && let Ok(button) = button.dyn_into::<HtmlElement>()
        {
            let _ = button.focus();
        }
    }

    pub(super) fn on_input(self: &Rc<Self>, event: &Event) {
        let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if input.id() == "stats-filter" {
            self.ui.borrow_mut().table.filter = input.value();
            self.render_stats();
            // The table was rebuilt; keep typing in the new field.
            if let Some(field) =
                self.dom.document.get_element_by_id("stats-filter").and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
            {
                let _ = field.focus();
                let len = field.value().len() as u32;
                let _ = field.set_selection_range(len, len);
            }
        }
    }

    pub(super) fn act(self: &Rc<Self>, action: &str, value: &str) {
        match action {
            "tab" => {
                if let Some(tab) = Tab::from_key(value) {
                    self.show_tab(tab);
                }
            }
            "sort" => {
                if let Some(column) = Column::ALL.into_iter().find(|c| c.title() == value) {
                    self.ui.borrow_mut().table.click(column);
                    self.render_stats();
                }
            }
            "stats-row" => {
                // The row's pass, shown where it runs: the frame shown if it runs there.
                let key = {
                    let ui = self.ui.borrow();
                    let pass = value.parse::<usize>().ok().and_then(|i| ui.stats.as_ref()?.passes.get(i).cloned());
                    pass.as_ref().map(crate::histogram::PassKey::of_stats)
                };
                if let Some(key) = key {
                    self.send(Command::RevealPass(key));
                }
            }
            "pass" => {
                // A row of the frame's workload: that pass in the frame shown.
                let index = value.parse::<u32>().ok();
                let block = self.ui.borrow().timeline.as_ref().and_then(|m| m.find_gpu_pass(index?));
                match block {
                    Some(block) => self.select_block(Some(block)),
                    None => {
                        self.ui.borrow_mut().state.pass = index;
                        self.send(Command::Pass(index));
                    }
                }
            }
            "show-node" => {
                self.ui.borrow_mut().state.node = value.parse().ok();
                self.ui.borrow_mut().state.graph_pass = None;
                self.render_structure();
                self.show_tab(Tab::Structure);
            }
            "show-gp" => {
                self.ui.borrow_mut().state.graph_pass = value.parse().ok();
                self.ui.borrow_mut().state.node = None;
                self.render_structure();
                self.show_tab(Tab::Structure);
            }
            "gp" => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.state.graph_pass = value.parse().ok();
                    ui.state.node = None;
                }
                self.render_structure();
                self.write_hash();
            }
            "node" => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.state.node = value.parse().ok();
                    ui.state.graph_pass = None;
                }
                self.render_structure();
                self.write_hash();
            }
            "frame" => {
                let index = value.parse::<u64>().ok().and_then(|n| self.ui.borrow().strip.as_ref()?.index_of(n));
                if let Some(index) = index {
                    self.select_frame(index);
                    self.show_tab(Tab::Timeline);
                }
            }
            "compare" => {
                let read = |id: &str| {
                    self.dom
                        .document
                        .get_element_by_id(id)
                        .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
                        .and_then(|i| i.value().parse::<u64>().ok())
                };
                let index = |id: &str| {
                    let number = read(id)?;
                    let ui = self.ui.borrow();
                    // Side A's numbers are the baseline's frames when one is open.
                    let base = if id.starts_with("cmp-a") { ui.base_strip.as_ref() } else { None };
                    let strip = base.or(ui.strip.as_ref())?;
                    // The nearest frame at or after the number typed.
                    let at = strip.frame_numbers.partition_point(|&n| n < number);
                    Some(at.min(strip.len().saturating_sub(1)))
                };
                if let (Some(a0), Some(a1), Some(b0), Some(b1)) =
                    (index("cmp-a0"), index("cmp-a1"), index("cmp-b0"), index("cmp-b1"))
                {
                    self.start_compare((a0.min(a1), a0.max(a1)), (b0.min(b1), b0.max(b1)));
                }
            }
            _ => {}
        }
    }

    pub fn start_compare(&self, a: (usize, usize), b: (usize, usize)) {
        {
            let mut ui = self.ui.borrow_mut();
            ui.compare = Some((a, b));
            ui.comparison = None;
            ui.compare_progress = Some(0.0);
        }
        self.set_data("compare", "computing");
        self.render_compare();
        self.send(Command::Compare(a, b));
        self.write_hash();
    }
}
