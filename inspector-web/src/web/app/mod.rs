//! The inspector's wiring: events in, commands to the current session, views out.
//! UI state (selection, zoom, sort) lives here; anything needing the capture is a
//! [`Command`] to the session that owns it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sgpt_format::analysis::StatsReport;
use sgpt_web_glue::Listener;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{
    DragEvent, Element, Event, EventTarget, HtmlDialogElement, HtmlElement, HtmlInputElement, MouseEvent,
    UrlSearchParams,
};

use super::canvas::{Canvas, Resizer};
use super::dom::Dom;
use super::error::Error;
use super::mailbox::Mailbox;
use super::panic;
use super::runner;
use super::source::Input;
use crate::compare_view::CompareView;
use crate::frame_detail::FrameDetail;
use crate::histogram::Histogram;
use crate::icicle::{Icicle, IcicleLayout, NodeId};
use crate::memory::MemoryView;
use crate::memory_lane::MemoryLane;
use crate::pass_detail::PassDetail;
use crate::resources::ResourceTable;
use crate::search::{SearchHit, SearchIndex};
use crate::session::{Command, Restore, Update};
use crate::stats_table::TableState;
use crate::strip::{StripData, StripLayout};
use crate::structure::Structure;
use crate::timeline::{TimelineModel, Viewport};
use crate::url_state::{Tab, ViewState};
use progress_line::ProgressLine;

thread_local! {
    // The page's one inspector lives as long as the page: kept here rather than leaked,
    // so its listeners stay owned handles.
    static INSPECTOR: RefCell<Option<Inspector>> = const { RefCell::new(None) };
}

struct Inspector {
    _listeners: Vec<Listener>,
    _resizer: Resizer,
}

/// What the views show, outside the capture: the page's view state, changed only by the
/// page's own handlers and by [`App::apply`].
#[derive(Debug, Default)]
struct Ui {
    state: ViewState,
    name: String,
    verbose: bool,
    /// The capture's timestamps may be quantized (a browser's, or of no named adapter).
    may_quantize: bool,
    strip: Option<StripData>,
    layout: Option<StripLayout>,
    frame: Option<usize>,
    range: Option<(usize, usize)>,
    brush: Option<(f64, f64)>,
    timeline: Option<TimelineModel>,
    /// The shown frame's topology, where search results are looked up.
    topology: Option<u32>,
    viewport: Option<Viewport>,
    hover: Option<usize>,
    selected: Option<usize>,
    drag: Option<(f64, Viewport, bool)>,
    stats: Option<StatsReport>,
    stats_progress: Option<f64>,
    table: TableState,
    structure: Option<Structure>,
    resources: Option<ResourceTable>,
    detail: Option<PassDetail>,
    frame_detail: Option<FrameDetail>,
    sparkline: Option<Vec<Option<(u64, u64)>>>,
    histogram: Option<Histogram>,
    /// The baseline's histogram of the same pass, when a baseline is open.
    base_histogram: Option<Histogram>,
    /// The baseline's strip, above the candidate's on the same frame axis.
    base_strip: Option<StripData>,
    base_layout: Option<StripLayout>,
    histogram_hover: Option<usize>,
    memory: Option<MemoryView>,
    /// The lane under the strip, once the gauges are read.
    lane: Option<MemoryLane>,
    compare: Option<((usize, usize), (usize, usize))>,
    comparison: Option<CompareView>,
    /// The baseline's name, when a baseline and a candidate are open.
    base_name: Option<String>,
    /// The baseline's name while it is read, after the candidate is shown.
    base_reading: Option<String>,
    compare_progress: Option<f64>,
    /// The range flame graph, once built, the node zoomed into and the one under the pointer.
    icicle: Option<Icicle>,
    icicle_progress: Option<f64>,
    icicle_focus: Option<NodeId>,
    icicle_hover: Option<NodeId>,
    icicle_layout: Option<IcicleLayout>,
    /// The flame graph was asked for once: the session keeps it up to date since.
    icicle_asked: bool,
    search: Option<SearchIndex>,
    search_hits: Vec<SearchHit>,
    search_at: usize,
    /// The splitter drag: the pointer's y and the views panel's height when it began.
    split_drag: Option<(f64, f64)>,
    /// A zoom the link asked for, applied when its frame is next shown (instead of fitting).
    pending_zoom: Option<(i64, i64)>,
    /// Set once the link's state was applied; until then the hash is left as it came.
    restored: bool,
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
    /// The baseline's strip, shown when two captures are compared.
    pub base_strip: Canvas,
    pub lane_legend: HtmlElement,
    pub timeline: Canvas,
    /// The range flame graph.
    pub icicle: Canvas,
    search_dialog: HtmlDialogElement,
    search_input: HtmlInputElement,
    help_dialog: HtmlDialogElement,
    /// Holds the timeline and the views panel; its `--tables-h` is the panel's height.
    center: HtmlElement,
    splitter: HtmlElement,
    ui: RefCell<Ui>,
    current: Cell<u64>,
    mailbox: RefCell<Rc<Mailbox>>,
    /// The hash as this page last wrote it, so only edits from outside are applied.
    last_hash: RefCell<String>,
    /// The status line and progress bar, repainted at a pace.
    progress_line: Rc<ProgressLine>,
}

/// Wires the page up and opens `?file=` if given.
pub fn start() -> Result<(), Error> {
    let dom = Dom::new()?;
    let (status, progress): (HtmlElement, HtmlElement) = (dom.find("status")?, dom.find("progress")?);
    let app = Rc::new(App {
        body: dom.document.body().ok_or(Error::MissingElement("body"))?,
        input: dom.find("file-input")?.dyn_into().map_err(|_| Error::MissingElement("file-input"))?,
        progress_line: ProgressLine::new(status.clone(), progress.clone()),
        status,
        progress,
        error: dom.find("error")?,
        banners: dom.find("banners")?,
        workspace: dom.find("workspace")?,
        summary: dom.find("summary")?,
        export: dom.find("export")?,
        tabs: dom.find("tabs")?,
        strip: Canvas::find(&dom.document, "frame-strip")?,
        lane: Canvas::find(&dom.document, "memory-lane")?,
        base_strip: Canvas::find(&dom.document, "base-strip")?,
        lane_legend: dom.find("memory-lane-legend")?,
        timeline: Canvas::find(&dom.document, "timeline-canvas")?,
        icicle: Canvas::find(&dom.document, "icicle-canvas")?,
        search_dialog: dom.find("search")?.dyn_into().map_err(|_| Error::MissingElement("search"))?,
        search_input: dom.find("search-input")?.dyn_into().map_err(|_| Error::MissingElement("search-input"))?,
        help_dialog: dom.find("help")?.dyn_into().map_err(|_| Error::MissingElement("help"))?,
        center: dom.find("center")?,
        splitter: dom.find("splitter")?,
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
    let icicle: &EventTarget = &app.icicle.element;
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
        on(&window, "hashchange", App::on_hash_change)?,
        on(document, "keydown", App::on_global_key)?,
        on(&app.dom.find("search-open")?.into(), "click", |app, _| app.open_search())?,
        on(&app.dom.find("help-open")?.into(), "click", |app, _| app.open_help())?,
        on(&app.dom.find("help-close")?.into(), "click", |app, _| app.help_dialog.close())?,
        on(&app.dom.find("theme")?.into(), "click", |app, _| app.toggle_theme())?,
        on(&app.search_input, "input", App::on_search_input)?,
        on(&app.search_input, "keydown", App::on_search_key)?,
        on(&app.dom.find("search-results")?.into(), "click", App::on_search_click)?,
        on(icicle, "pointermove", App::on_icicle_move)?,
        on(icicle, "pointerleave", App::on_icicle_leave)?,
        on(icicle, "click", App::on_icicle_click)?,
        on(icicle, "keydown", App::on_icicle_key)?,
        on(&app.splitter, "pointerdown", App::on_split_down)?,
        on(&app.splitter, "pointermove", App::on_split_move)?,
        on(&app.splitter, "pointerup", App::on_split_up)?,
        on(&app.splitter, "keydown", App::on_split_key)?,
        on(&app.dom.find("details")?.into(), "pointermove", App::on_details_move)?,
    ];
    let resizer = {
        let handle = Rc::clone(&app);
        Resizer::new(&[&app.strip, &app.lane, &app.base_strip, &app.timeline, &app.icicle], move || {
            if !panic::happened() {
                handle.relayout_strip();
                handle.draw_strip();
                handle.draw_timeline();
                handle.draw_icicle();
            }
        })?
    };
    app.restore_theme();
    app.render_help();
    app.show_idle();
    match file_params()? {
        (Some(url), base) => app.open(Input::Url(url), base.map(Input::Url)),
        (None, Some(_)) => {
            app.show_error("The link names a baseline (base=) but no capture to compare with it (file=).");
        }
        (None, None) => {}
    }
    INSPECTOR.with(|slot| slot.replace(Some(Inspector { _listeners: listeners, _resizer: resizer })));
    Ok(())
}

/// `?file=URL`, and `&base=URL` for the baseline it is compared with.
fn file_params() -> Result<(Option<String>, Option<String>), Error> {
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let params = UrlSearchParams::new_with_str(&window.location().search()?)?;
    let get = |key: &str| params.get(key).filter(|url| !url.is_empty());
    Ok((get("file"), get("base")))
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
            // The number keys choose the views in this order.
            let digit = Tab::ALL.iter().position(|&t| t == tab).map_or(0, |at| at + 1);
            let _ = button.set_attribute("aria-keyshortcuts", &digit.to_string());
            let _ = button.set_attribute("title", &format!("{} ({digit})", tab.title()));
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
            // The timeline is always shown; the Timeline view gives it the whole height.
            if other != Tab::Timeline
                && let Some(panel) = self.dom.document.get_element_by_id(&format!("panel-{}", other.key()))
                && let Ok(panel) = panel.dyn_into::<HtmlElement>()
            {
                panel.set_hidden(!selected);
            }
        }
        self.ui.borrow_mut().state.tab = tab;
        self.set_data("tab", tab.key());
        match tab {
            Tab::Memory => self.draw_memory(),
            Tab::Range => self.show_range_view(),
            Tab::Compare => {
                // The comparison is made when its view is first shown.
                let waiting = {
                    let ui = self.ui.borrow();
                    ui.compare.filter(|_| ui.comparison.is_none() && ui.compare_progress.is_none())
                };
                if let Some((a, b)) = waiting {
                    self.start_compare(a, b);
                }
            }
            _ => {}
        }
        // The timeline's height changes with the views panel's; the resize observer redraws.
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
        self.progress_line.drop_held();
        self.set_data("state", "idle");
        self.status.set_text_content(Some("Drop a capture (.sgpt or .sgpt.gz) anywhere on this page, or pick one."));
    }

    /// Long work reports progress every slice; only what changed is written, and within one
    /// phase at most a few times a second (see `progress_pace`), as each change to the page
    /// costs a frame's style, layout, paint and compositing.
    pub fn set_progress(&self, fraction: Option<f64>, text: &str) {
        self.progress_line.set(fraction, text);
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
        self.progress_line.drop_held();
        self.progress.set_hidden(true);
        let _ = self.export.set_attribute("disabled", "");
        self.error.set_text_content(Some(message));
        self.error.set_hidden(false);
        self.status.set_text_content(Some("Drop another capture, or pick one."));
    }

    // ---- opening ----

    /// Opens `input`, compared with `base` when one is given.
    fn open(self: &Rc<Self>, input: Input, base: Option<Input>) {
        let ticket = self.current.get() + 1;
        self.current.set(ticket);
        let mailbox = Rc::new(Mailbox::default());
        let old = self.mailbox.replace(Rc::clone(&mailbox));
        old.send(Command::Close);
        let state = initial_hash();
        let restore = Restore {
            frame: state.frame,
            range: state.range,
            compare: state.compare,
            pass: state.pass,
            compare_now: state.tab == Tab::Compare || state.compare.is_some(),
        };
        let base_reading = base.as_ref().map(Input::name);
        *self.ui.borrow_mut() = Ui { table: TableState::default(), state, base_reading, ..Ui::default() };
        let page: Rc<dyn runner::Page> = Rc::<Self>::clone(self);
        spawn_local(runner::run(page, ticket, input, base, mailbox, restore));
    }

    /// Opens the files dropped or picked: one is shown; of two, the older (by modification
    /// time, then the first) is the baseline the newer is compared with.
    fn open_files(self: &Rc<Self>, files: Option<web_sys::FileList>) {
        let files: Vec<web_sys::File> =
            files.map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect()).unwrap_or_default();
        match files.as_slice() {
            [] => self.show_error("Nothing to open: what was dropped is not a file. Drop a .sgpt or .sgpt.gz file."),
            [one] => self.open(Input::File(one.clone()), None),
            [first, second] => {
                let (base, candidate) =
                    if second.last_modified() < first.last_modified() { (second, first) } else { (first, second) };
                self.open(Input::File(candidate.clone()), Some(Input::File(base.clone())));
            }
            more => self.show_error(&format!(
                "{} files at once: open one capture, or two to compare (the older is the baseline).",
                more.len()
            )),
        }
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
        let files = event.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer).and_then(|t| t.files());
        self.open_files(files);
    }

    fn on_pick(self: &Rc<Self>, _event: &Event) {
        let files = self.input.files();
        if files.as_ref().is_some_and(|f| f.length() > 0) {
            self.open_files(files);
        }
        // Cleared so that picking the same file again still fires `change` (after reading
        // the list: clearing the input empties it).
        self.input.set_value("");
    }
}

mod actions;
mod apply;
mod details;
mod finder;
mod hash;
mod overlays;
mod progress_line;
mod range_view;
mod render;
mod splitter;
mod strip_input;
mod timeline_input;

impl runner::Page for App {
    fn apply(&self, update: Update) {
        App::apply(self, update);
    }

    fn is_current(&self, ticket: u64) -> bool {
        App::is_current(self, ticket)
    }
}
