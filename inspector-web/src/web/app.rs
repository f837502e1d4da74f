//! The inspector's wiring: events in, commands to the current session, views out.
//! UI state (selection, zoom, sort) lives here; anything needing the capture is a
//! [`Command`] to the session that owns it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sgpt_format::analysis::{PassDelta, StatsReport};
use sgpt_web_glue::Listener;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{
    DragEvent, Element, Event, EventTarget, HtmlElement, HtmlInputElement, KeyboardEvent, MouseEvent, PointerEvent,
    UrlSearchParams, WheelEvent,
};

use super::canvas::{self, Canvas, Resizer};
use super::dom::Dom;
use super::draw;
use super::error::Error;
use super::mailbox::{Command, Mailbox};
use super::panels;
use super::panic;
use super::session;
use super::source::Input;
use crate::memory::MemoryView;
use crate::memory_lane::MemoryLane;
use crate::pass_detail::{PassDetail, sparkline};
use crate::resources::ResourceTable;
use crate::stats_table::{Column, TableState};
use crate::strip::{StripData, StripLayout};
use crate::structure::Structure;
use crate::timeline::{BlockKind, TimelineModel, Viewport};
use crate::units;
use crate::url_state::{Tab, ViewState};

thread_local! {
    // The page's one inspector lives as long as the page: kept here rather than leaked,
    // so its listeners stay owned handles.
    static INSPECTOR: RefCell<Option<Inspector>> = const { RefCell::new(None) };
}

struct Inspector {
    _listeners: Vec<Listener>,
    _resizer: Resizer,
}

/// What the views show, outside the capture.
#[derive(Debug, Default)]
pub struct Ui {
    pub state: ViewState,
    pub name: String,
    pub verbose: bool,
    pub strip: Option<StripData>,
    pub layout: Option<StripLayout>,
    pub frame: Option<usize>,
    pub range: Option<(usize, usize)>,
    brush: Option<(f64, f64)>,
    pub timeline: Option<TimelineModel>,
    pub viewport: Option<Viewport>,
    hover: Option<usize>,
    pub selected: Option<usize>,
    drag: Option<(f64, Viewport, bool)>,
    pub stats: Option<StatsReport>,
    pub stats_progress: Option<f64>,
    pub table: TableState,
    pub structure: Option<Structure>,
    pub resources: Option<ResourceTable>,
    pub detail: Option<PassDetail>,
    pub sparkline: Option<Vec<Option<(u64, u64)>>>,
    pub memory: Option<MemoryView>,
    /// The lane under the strip, once the gauges are read.
    pub lane: Option<MemoryLane>,
    pub compare: Option<((usize, usize), (usize, usize))>,
    pub deltas: Option<Vec<PassDelta>>,
    pub compare_progress: Option<f64>,
    /// A zoom the link asked for, applied when its frame is next shown (instead of fitting).
    pub pending_zoom: Option<(i64, i64)>,
    /// Set once the link's state was applied; until then the hash is left as it came.
    pub restored: bool,
}

pub struct App {
    pub dom: Dom,
    pub body: HtmlElement,
    input: HtmlInputElement,
    pub status: HtmlElement,
    pub progress: HtmlElement,
    pub error: HtmlElement,
    pub banners: HtmlElement,
    pub workspace: HtmlElement,
    pub summary: HtmlElement,
    pub export: HtmlElement,
    tabs: HtmlElement,
    pub strip: Canvas,
    /// The memory lane under the strip: shown only for captures with domain gauges.
    pub lane: Canvas,
    pub lane_legend: HtmlElement,
    pub timeline: Canvas,
    pub ui: RefCell<Ui>,
    current: Cell<u64>,
    mailbox: RefCell<Rc<Mailbox>>,
    /// The hash as this page last wrote it, so only edits from outside are applied.
    last_hash: RefCell<String>,
}

/// Wires the page up and opens `?file=` if given.
pub fn start() -> Result<(), Error> {
    let dom = Dom::new()?;
    let app = Rc::new(App {
        body: dom.document.body().ok_or(Error::MissingElement("body"))?,
        input: dom.find("file-input")?.dyn_into().map_err(|_| Error::MissingElement("file-input"))?,
        status: dom.find("status")?,
        progress: dom.find("progress")?,
        error: dom.find("error")?,
        banners: dom.find("banners")?,
        workspace: dom.find("workspace")?,
        summary: dom.find("summary")?,
        export: dom.find("export")?,
        tabs: dom.find("tabs")?,
        strip: Canvas::find(&dom.document, "frame-strip")?,
        lane: Canvas::find(&dom.document, "memory-lane")?,
        lane_legend: dom.find("memory-lane-legend")?,
        timeline: Canvas::find(&dom.document, "timeline-canvas")?,
        ui: RefCell::new(Ui::default()),
        current: Cell::new(0),
        mailbox: RefCell::new(Rc::new(Mailbox::default())),
        last_hash: RefCell::new(String::new()),
        dom,
    });
    app.build_tabs()?;
    let on = |target: &EventTarget, kind, handler: fn(&Rc<App>, &Event)| {
        let app = Rc::clone(&app);
        // The listener itself stops calling after a panic.
        Listener::new(target, kind, move |event| handler(&app, &event))
    };
    let document: &EventTarget = &app.dom.document;
    let strip: &EventTarget = &app.strip.element;
    let lane: &EventTarget = &app.lane.element;
    let timeline: &EventTarget = &app.timeline.element;
    let workspace: &EventTarget = &app.workspace;
    let window: EventTarget = web_sys::window().ok_or(Error::NoGlobal("window"))?.into();
    // The whole document is the drop zone.
    let listeners = vec![
        on(document, "dragover", App::on_drag_over)?,
        on(document, "dragleave", App::on_drag_leave)?,
        on(document, "drop", App::on_drop)?,
        on(&app.input, "change", App::on_pick)?,
        on(&app.export, "click", |app, _| app.send(Command::Export))?,
        on(strip, "pointerdown", App::on_strip_down)?,
        on(strip, "pointermove", App::on_strip_move)?,
        on(strip, "pointerup", App::on_strip_up)?,
        on(strip, "pointerleave", |app, _| app.set_text("strip-readout", ""))?,
        on(strip, "keydown", App::on_strip_key)?,
        // The lane shares the strip's x mapping, so the same brush and clicks.
        on(lane, "pointerdown", App::on_strip_down)?,
        on(lane, "pointermove", App::on_strip_move)?,
        on(lane, "pointerup", App::on_strip_up)?,
        on(lane, "pointerleave", |app, _| app.set_text("strip-readout", ""))?,
        on(timeline, "wheel", App::on_wheel)?,
        on(timeline, "pointerdown", App::on_timeline_down)?,
        on(timeline, "pointermove", App::on_timeline_move)?,
        on(timeline, "pointerup", App::on_timeline_up)?,
        on(timeline, "pointerleave", App::on_timeline_leave)?,
        on(timeline, "keydown", App::on_timeline_key)?,
        on(workspace, "click", App::on_action)?,
        on(workspace, "keydown", App::on_action_key)?,
        on(workspace, "input", App::on_input)?,
        on(&app.tabs, "keydown", App::on_tab_key)?,
        on(&app.tabs, "click", App::on_action)?,
        on(&window, "hashchange", App::on_hash_change)?,
    ];
    let resizer = {
        let handle = Rc::clone(&app);
        Resizer::new(&[&app.strip, &app.lane, &app.timeline], move || {
            if !panic::happened() {
                handle.relayout_strip();
                handle.draw_strip();
                handle.draw_timeline();
            }
        })?
    };
    app.show_idle();
    if let Some(url) = file_param()? {
        app.open(Input::Url(url));
    }
    INSPECTOR.with(|slot| slot.replace(Some(Inspector { _listeners: listeners, _resizer: resizer })));
    Ok(())
}

/// `?file=URL`: bookmarkable, and how the demo hands over its `blob:` capture.
fn file_param() -> Result<Option<String>, Error> {
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let params = UrlSearchParams::new_with_str(&window.location().search()?)?;
    Ok(params.get("file").filter(|url| !url.is_empty()))
}

fn initial_hash() -> ViewState {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    ViewState::parse(&hash)
}

/// Pointer x as a fraction of `element`'s width.
fn x_fraction(event: &MouseEvent, element: &Element) -> (f64, f64) {
    let rect = element.get_bounding_client_rect();
    let x = (f64::from(event.client_x()) - rect.left()) / rect.width().max(1.0);
    (x, f64::from(event.client_y()) - rect.top())
}

impl App {
    fn build_tabs(&self) -> Result<(), Error> {
        for tab in Tab::ALL {
            let button = self.dom.add(&self.tabs, "button", tab.title())?;
            button.set_id(&format!("tab-{}", tab.key()));
            let _ = button.set_attribute("type", "button");
            let _ = button.set_attribute("role", "tab");
            let _ = button.set_attribute("aria-controls", &format!("panel-{}", tab.key()));
            let _ = button.set_attribute("data-action", "tab");
            let _ = button.set_attribute("data-value", tab.key());
        }
        self.show_tab(Tab::Timeline);
        Ok(())
    }

    pub fn show_tab(&self, tab: Tab) {
        for other in Tab::ALL {
            let selected = other == tab;
            if let Some(button) = self.dom.document.get_element_by_id(&format!("tab-{}", other.key())) {
                let _ = button.set_attribute("aria-selected", if selected { "true" } else { "false" });
                let _ = button.set_attribute("tabindex", if selected { "0" } else { "-1" });
            }
            if let Some(panel) = self.dom.document.get_element_by_id(&format!("panel-{}", other.key()))
                && let Ok(panel) = panel.dyn_into::<HtmlElement>()
            {
                panel.set_hidden(!selected);
            }
        }
        self.ui.borrow_mut().state.tab = tab;
        self.set_data("tab", tab.key());
        if tab == Tab::Timeline {
            self.draw_timeline();
        }
        if tab == Tab::Pass {
            self.draw_sparkline();
        }
        if tab == Tab::Memory {
            self.draw_memory();
        }
        self.write_hash();
    }

    pub fn send(&self, command: Command) {
        self.mailbox.borrow().send(command);
    }

    // ---- state shown on <body>, status and errors ----

    pub fn set_data(&self, key: &str, value: &str) {
        let _ = self.body.dataset().set(key, value);
    }

    pub fn delete_data(&self, key: &str) {
        self.body.dataset().delete(key);
    }

    pub fn set_text(&self, id: &str, text: &str) {
        if let Some(element) = self.dom.document.get_element_by_id(id) {
            element.set_text_content(Some(text));
        }
    }

    fn show_idle(&self) {
        self.set_data("state", "idle");
        self.status.set_text_content(Some("Drop a capture (.sgpt or .sgpt.gz) anywhere on this page, or pick one."));
    }

    /// Long work reports progress every slice; only what changed is written, as each
    /// change to the page costs a style, layout and paint before the next slice.
    pub fn set_progress(&self, fraction: Option<f64>, text: &str) {
        match fraction {
            Some(value) => {
                let value = format!("{:.3}", value.clamp(0.0, 1.0));
                if self.progress.get_attribute("value").as_deref() != Some(value.as_str()) {
                    let _ = self.progress.set_attribute("value", &value);
                }
                if self.progress.hidden() {
                    self.progress.set_hidden(false);
                }
            }
            None if !self.progress.hidden() => self.progress.set_hidden(true),
            None => {}
        }
        if !text.is_empty() && self.status.text_content().as_deref() != Some(text) {
            self.status.set_text_content(Some(text));
        }
    }

    pub fn show_error(&self, message: &str) {
        self.set_data("state", "error");
        for key in ["frames", "spans", "topologies", "droppedSpans", "defects", "verified", "stats", "timelineFrame"] {
            self.delete_data(key);
        }
        self.workspace.set_hidden(true);
        self.summary.set_hidden(true);
        crate::web::dom::clear(&self.summary);
        crate::web::dom::clear(&self.banners);
        self.progress.set_hidden(true);
        let _ = self.export.set_attribute("disabled", "");
        self.error.set_text_content(Some(message));
        self.error.set_hidden(false);
        self.status.set_text_content(Some("Drop another capture, or pick one."));
    }

    // ---- opening ----

    fn open(self: &Rc<Self>, input: Input) {
        let ticket = self.current.get() + 1;
        self.current.set(ticket);
        let mailbox = Rc::new(Mailbox::default());
        let old = self.mailbox.replace(Rc::clone(&mailbox));
        old.send(Command::Close);
        *self.ui.borrow_mut() = Ui { table: TableState::default(), state: initial_hash(), ..Ui::default() };
        spawn_local(session::run(Rc::clone(self), ticket, input, mailbox));
    }

    pub fn is_current(&self, ticket: u64) -> bool {
        !panic::happened() && self.current.get() == ticket
    }

    fn on_drag_over(self: &Rc<Self>, event: &Event) {
        // Without this the browser refuses the drop, then opens the file itself.
        event.prevent_default();
        if let Some(transfer) = event.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer) {
            transfer.set_drop_effect("copy");
        }
        self.set_data("dragging", "true");
    }

    fn on_drag_leave(self: &Rc<Self>, event: &Event) {
        // `dragleave` fires at every element boundary crossed; only leaving the window,
        // where there is no element to enter, ends the drag.
        let left_window = event.dyn_ref::<MouseEvent>().is_none_or(|event| event.related_target().is_none());
        if left_window {
            self.delete_data("dragging");
        }
    }

    fn on_drop(self: &Rc<Self>, event: &Event) {
        event.prevent_default();
        self.delete_data("dragging");
        let file = event
            .dyn_ref::<DragEvent>()
            .and_then(DragEvent::data_transfer)
            .and_then(|transfer| transfer.files())
            .and_then(|files| files.get(0));
        match file {
            Some(file) => self.open(Input::File(file)),
            None => self.show_error("Nothing to open: what was dropped is not a file. Drop a .sgpt or .sgpt.gz file."),
        }
    }

    fn on_pick(self: &Rc<Self>, _event: &Event) {
        let file = self.input.files().and_then(|files| files.get(0));
        // Cleared so that picking the same file again still fires `change`.
        self.input.set_value("");
        if let Some(file) = file {
            self.open(Input::File(file));
        }
    }

    // ---- URL hash ----

    pub fn write_hash(&self) {
        let mut ui = self.ui.borrow_mut();
        if ui.strip.is_none() || !ui.restored {
            return;
        }
        let numbers = ui.strip.as_ref().map(|s| s.frame_numbers.clone()).unwrap_or_default();
        let number = |index: usize| numbers.get(index).copied();
        ui.state.frame = ui.frame.and_then(number);
        ui.state.range = ui.range.and_then(|(a, b)| Some((number(a)?, number(b)?)));
        ui.state.zoom = ui.viewport.map(|v| v.rounded()).or(ui.pending_zoom);
        ui.state.compare =
            ui.compare.and_then(|((a0, a1), (b0, b1))| Some(((number(a0)?, number(a1)?), (number(b0)?, number(b1)?))));
        let hash = ui.state.to_hash();
        drop(ui);
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
    fn on_hash_change(self: &Rc<Self>, _event: &Event) {
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
                    let compare = state
                        .compare
                        .and_then(|((a0, a1), (b0, b1))| Some(((index(a0)?, index(a1)?), (index(b0)?, index(b1)?))));
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

    // ---- frame strip ----

    pub fn relayout_strip(&self) {
        let mut ui = self.ui.borrow_mut();
        let width = (self.strip.width.get() * self.strip.scale.get()).max(1.0) as u32;
        ui.layout = ui.strip.as_ref().map(|data| StripLayout::new(data, width));
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
    fn strip_target(&self, event: &Event) -> Element {
        event
            .current_target()
            .and_then(|target| target.dyn_into::<Element>().ok())
            .unwrap_or_else(|| self.strip.element.clone().into())
    }

    fn on_strip_down(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let target = self.strip_target(event);
        let (x, _) = x_fraction(event, &target);
        let _ = target.set_pointer_capture(event.pointer_id());
        self.ui.borrow_mut().brush = Some((x, x));
    }

    fn on_strip_move(self: &Rc<Self>, event: &Event) {
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

    fn on_strip_up(self: &Rc<Self>, event: &Event) {
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

    fn on_strip_key(self: &Rc<Self>, event: &Event) {
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
        self.draw_strip();
        self.render_stats();
        self.send(Command::Range(first, last));
        self.write_hash();
    }

    // ---- timeline ----

    pub fn draw_timeline(&self) {
        let ui = self.ui.borrow();
        let (Some(model), Some(viewport)) = (&ui.timeline, &ui.viewport) else { return };
        let height = model.track_tops().1 + draw::AXIS_PX;
        if (self.timeline.height.get() - height).abs() > 0.5 {
            // The observer redraws at the new size.
            self.timeline.set_css_height(height);
        }
        // web-time, so only the recorder's browser timing sink names the browser's clock API.
        let started = web_time::Instant::now();
        draw::timeline(&self.timeline, model, viewport, ui.hover, ui.selected);
        let spent = started.elapsed().as_secs_f64() * 1000.0;
        self.set_data("timelineDrawMs", &format!("{spent:.2}"));
    }

    fn timeline_point(&self, event: &MouseEvent) -> Option<(f64, f64, f64)> {
        let (x, y) = x_fraction(event, &self.timeline.element);
        let ui = self.ui.borrow();
        let viewport = ui.viewport?;
        let slop = 3.0 / self.timeline.width.get().max(1.0) * viewport.span();
        Some((viewport.ns_at(x), y - draw::AXIS_PX, slop))
    }

    fn on_wheel(self: &Rc<Self>, event: &Event) {
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

    fn on_timeline_down(self: &Rc<Self>, event: &Event) {
        let Some(event) = event.dyn_ref::<PointerEvent>() else { return };
        let (x, _) = x_fraction(event, &self.timeline.element);
        let mut ui = self.ui.borrow_mut();
        if let Some(viewport) = ui.viewport {
            ui.drag = Some((x, viewport, false));
            let _ = self.timeline.element.set_pointer_capture(event.pointer_id());
        }
    }

    fn on_timeline_move(self: &Rc<Self>, event: &Event) {
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
            (hit, hit.map(|index| block_readout(model, index)))
        };
        let changed = {
            let mut ui = self.ui.borrow_mut();
            let changed = ui.hover != hit;
            ui.hover = hit;
            changed
        };
        self.set_text("timeline-readout", &readout.unwrap_or_else(|| format!("{} at the pointer", signed_ns(ns))));
        if changed {
            self.draw_timeline();
        }
    }

    fn on_timeline_up(self: &Rc<Self>, event: &Event) {
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

    fn on_timeline_leave(self: &Rc<Self>, _event: &Event) {
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
            (pass, graph, hit.map(|index| block_readout(model, index)))
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

    fn on_timeline_key(self: &Rc<Self>, event: &Event) {
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

    // ---- delegated actions: tabs, table rows, sort headers, buttons ----

    fn on_action(self: &Rc<Self>, event: &Event) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        let Ok(Some(element)) = target.closest("[data-action]") else { return };
        let action = element.get_attribute("data-action").unwrap_or_default();
        let value = element.get_attribute("data-value").unwrap_or_default();
        self.act(&action, &value);
    }

    fn on_action_key(self: &Rc<Self>, event: &Event) {
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

    fn on_tab_key(self: &Rc<Self>, event: &Event) {
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

    fn on_input(self: &Rc<Self>, event: &Event) {
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

    fn act(self: &Rc<Self>, action: &str, value: &str) {
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
                // Find the pass in the shown frame's timeline by its key.
                let found = {
                    let ui = self.ui.borrow();
                    let pass = value.parse::<usize>().ok().and_then(|i| ui.stats.as_ref()?.passes.get(i).cloned());
                    pass.and_then(|pass| {
                        let model = ui.timeline.as_ref()?;
                        model.blocks.iter().position(|b| {
                            b.kind == BlockKind::GpuPass && b.label == pass.label && {
                                let graph = b.graph_pass.and_then(|g| {
                                    model
                                        .blocks
                                        .iter()
                                        .find(|o| o.kind == BlockKind::GraphPass && o.graph_pass == Some(g))
                                });
                                graph.map(|g| g.label.as_str()) == pass.graph_pass.as_deref()
                            }
                        })
                    })
                };
                match found {
                    Some(block) => {
                        self.select_block(Some(block));
                        self.show_tab(Tab::Pass);
                    }
                    None => self
                        .set_text("status", "That pass does not run in the frame shown; pick a frame where it runs."),
                }
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
                    let strip = ui.strip.as_ref()?;
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
            ui.deltas = None;
            ui.compare_progress = Some(0.0);
        }
        self.render_compare();
        self.send(Command::Compare(a, b));
        self.write_hash();
    }

    // ---- panels ----

    pub fn render_stats(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-stats") else { return };
        let ui = self.ui.borrow();
        let range_text = match (ui.range, &ui.strip) {
            (Some((a, b)), Some(strip)) => {
                format!("frames {} to {} ({} frames)", strip.frame_numbers[a], strip.frame_numbers[b], b - a + 1)
            }
            _ => "the capture".to_owned(),
        };
        let _ = panels::stats(&self.dom, &root, ui.stats.as_ref(), &ui.table, &range_text, ui.stats_progress);
    }

    pub fn render_structure(&self) {
        let Some(root) = self.dom.document.get_element_by_id("panel-structure") else { return };
        let ui = self.ui.borrow();
        let _ = panels::structure(&self.dom, &root, ui.structure.as_ref(), ui.state.graph_pass, ui.state.node);
    }

    pub fn render_frame_panels(&self) {
        self.render_structure();
        let ui = self.ui.borrow();
        if let Some(root) = self.dom.document.get_element_by_id("panel-resources") {
            let _ = panels::resources(&self.dom, &root, ui.resources.as_ref());
        }
        drop(ui);
        self.render_pass();
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
        let Some(root) = self.dom.document.get_element_by_id("panel-pass") else { return };
        let ui = self.ui.borrow();
        let number = ui.frame.and_then(|i| ui.strip.as_ref()?.frame_numbers.get(i).copied());
        let _ = panels::pass_detail(&self.dom, &root, ui.detail.as_ref(), ui.verbose, number);
        drop(ui);
        self.draw_sparkline();
        self.draw_memory();
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
        let Some(((a0, a1), (b0, b1))) = ui.compare else { return };
        let n = |i: usize| strip.frame_numbers[i];
        let _ = panels::compare(
            &self.dom,
            &root,
            ((n(a0), n(a1)), (n(b0), n(b1))),
            ui.deltas.as_deref(),
            ui.compare_progress,
        );
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

fn signed_ns(ns: f64) -> String {
    if ns < 0.0 { format!("−{}", units::exact_ns((-ns) as u64)) } else { format!("+{}", units::exact_ns(ns as u64)) }
}

/// What the readout says about a block: its name, kind and exact times.
pub fn block_readout(model: &TimelineModel, index: usize) -> String {
    let block = &model.blocks[index];
    let track = &model.tracks[block.track].title;
    format!(
        "{} · {} · {} ({}) · starts {} · {}",
        block.label,
        block.kind.name(),
        units::exact_ns(block.duration_ns),
        units::duration(block.duration_ns),
        signed_ns(block.start_ns as f64),
        track
    )
}
