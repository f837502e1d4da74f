//! What the whole page answers to: the global keys, the keyboard help and the theme.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, KeyboardEvent};

use super::App;
use crate::keys::{self, GlobalAction};
use crate::url_state::Tab;

/// Where the chosen theme is remembered between visits.
const THEME_KEY: &str = "sgpt-theme";

/// The themes in the order the button cycles them; "system" follows the OS.
const THEMES: [&str; 3] = ["system", "light", "dark"];

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

impl App {
    /// Applies the theme remembered from an earlier visit.
    pub(super) fn restore_theme(&self) {
        let theme = storage().and_then(|s| s.get_item(THEME_KEY).ok().flatten()).unwrap_or_default();
        self.set_theme(if THEMES.contains(&theme.as_str()) { &theme } else { "system" });
    }

    /// Light, dark, or the system's, in turn.
    pub(super) fn toggle_theme(&self) {
        let current = self.dom.document.document_element().and_then(|e| e.get_attribute("data-theme"));
        let at = THEMES.iter().position(|&t| Some(t) == current.as_deref()).unwrap_or(0);
        let next = THEMES[(at + 1) % THEMES.len()];
        self.set_theme(next);
        if let Some(storage) = storage() {
            let _ = storage.set_item(THEME_KEY, next);
        }
        // The canvases paint with the theme's colours.
        self.draw_strip();
        self.draw_timeline();
        self.draw_icicle();
        self.draw_sparkline();
        self.draw_histogram();
        self.draw_memory();
    }

    fn set_theme(&self, theme: &str) {
        if let Some(root) = self.dom.document.document_element() {
            let _ = root.set_attribute("data-theme", theme);
        }
        self.set_text("theme", &format!("Theme: {theme}"));
    }

    /// The keyboard help: every binding, grouped, from [`keys::bindings`].
    pub(super) fn render_help(&self) {
        let Some(root) = self.dom.document.get_element_by_id("help-body") else { return };
        super::super::dom::clear(&root);
        for group in keys::bindings() {
            let _ = self.dom.add(&root, "h3", group.title);
            if !group.when.is_empty() {
                let _ = self.dom.add_class(&root, "p", "muted", group.when);
            }
            let Ok(table) = self.dom.table(&root, &[("Keys", false), ("Action", false)]) else { continue };
            for binding in group.bindings {
                let _ = self.dom.row(&table, &[(&binding.keys_text(), false), (binding.action, false)]);
            }
        }
    }

    pub(super) fn open_help(&self) {
        if !self.help_dialog.open() {
            let _ = self.help_dialog.show_modal();
        }
    }

    /// `/` and Ctrl+K search, `?` help, the number keys choose a view, T the theme, O
    /// opens a file; Escape closes what is open. Plain keys do nothing while typing.
    pub(super) fn on_global_key(self: &Rc<Self>, event: &Event) {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else { return };
        if key.default_prevented() {
            return;
        }
        let target = event.target().and_then(|t| t.dyn_into::<Element>().ok());
        let typing = target.as_ref().is_some_and(|t| {
            matches!(t.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || t.has_attribute("contenteditable")
        });
        let action = keys::global_action(&key.key(), key.ctrl_key(), key.meta_key(), key.shift_key(), typing);
        let Some(action) = action else { return };
        // A dialog open takes the keys, except those that close it or switch to the search.
        let dialog_open = self.search_dialog.open() || self.help_dialog.open();
        match action {
            GlobalAction::CloseOverlay => {
                // The dialogs close themselves on Escape; this also leaves a drag.
                self.delete_data("dragging");
                return;
            }
            GlobalAction::Search => {
                self.help_dialog.close();
                self.open_search();
            }
            _ if dialog_open => return,
            GlobalAction::Help => self.open_help(),
            GlobalAction::ToggleTheme => self.toggle_theme(),
            GlobalAction::Open => self.input.click(),
            GlobalAction::View(view) => {
                let Some(tab) = Tab::from_key(view.key()) else { return };
                if self.workspace.hidden() {
                    return;
                }
                self.show_tab(tab);
            }
        }
        event.prevent_default();
    }
}
