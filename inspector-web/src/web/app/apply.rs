//! The one place the page's view state and DOM change in answer to a load or its
//! session: each [`Update`] is applied here, in the order it was produced.

use wasm_bindgen::JsCast;

use super::super::dom::clear;
use super::super::error::Error;
use super::super::panels;
use super::App;
use crate::memory_lane::MemoryLane;
use crate::session::{FrameView, IDLE_STATUS, Opened, Update};
use crate::strip::StripData;
use crate::summary::{DefectRow, Rows};
use crate::timeline::Viewport;
use crate::url_state::Tab;

/// The `<body>` data keys a load sets, cleared when another begins.
const LOAD_KEYS: [&str; 18] = [
    "frames",
    "spans",
    "topologies",
    "droppedSpans",
    "defects",
    "verified",
    "stats",
    "timelineFrame",
    "gzip",
    "memory",
    "memoryLane",
    "compare",
    "framesRead",
    "spansRead",
    "selection",
    "icicle",
    "base",
    "baseError",
];

impl App {
    /// Shows `update`.
    pub fn apply(&self, update: Update) {
        match update {
            Update::Loading { ticket, name } => self.loading(ticket, &name),
            Update::Gzip => self.set_data("gzip", "true"),
            Update::Failed(message) => self.show_error(&message),
            Update::Progress { fraction, text } => self.set_progress(fraction, &text),
            Update::Status(text) => self.set_text("status", &text),
            Update::Opened(opened) => self.opened(*opened),
            Update::Ready => self.ready(),
            Update::BaseOpened(base) => self.base_opened(*base),
            Update::BaseFailed(message) => {
                self.ui.borrow_mut().base_reading = None;
                let _ = self.dom.add_class(&self.banners, "p", "warning", &message);
                self.set_data("baseError", &message);
                self.render_compare();
            }
            Update::BaseHistogram(histogram) => {
                self.ui.borrow_mut().base_histogram = Some(*histogram);
                self.draw_histogram();
            }
            Update::Restored { frame, range, compare } => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.restored = true;
                    ui.pending_zoom = ui.state.zoom;
                    ui.frame = frame;
                    if let Some(range) = range {
                        ui.range = Some(range);
                        ui.stats = None;
                        ui.stats_progress = Some(0.0);
                    }
                    if compare.is_some() {
                        ui.compare = compare;
                        ui.comparison = None;
                        ui.compare_progress = None;
                    }
                }
                if range.is_some() {
                    self.set_data("stats", "computing");
                }
                self.draw_strip();
                self.render_stats();
                self.render_compare();
                self.write_hash();
            }
            Update::CompareRanges(a, b) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.compare = Some((a, b));
                    ui.comparison = None;
                    ui.compare_progress = None;
                }
                self.render_compare();
                self.write_hash();
            }
            Update::Frame(view) => self.frame_shown(*view),
            Update::FrameFailed { index, number: _, message } => {
                self.set_text("timeline-title", &message);
                let mut ui = self.ui.borrow_mut();
                ui.frame = Some(index);
                ui.timeline = None;
            }
            Update::Pass(detail) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    let key = |d: &crate::pass_detail::PassDetail| (d.graph_pass.clone(), d.label.clone(), d.kind);
                    // Another pass's series are not this one's: gone until its own arrive.
                    if ui.detail.as_ref().map(key) != detail.as_deref().map(key) {
                        ui.sparkline = None;
                        ui.histogram = None;
                        ui.base_histogram = None;
                    }
                    ui.detail = detail.map(|d| *d);
                }
                self.render_pass();
            }
            Update::Histogram(histogram) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.histogram = Some(*histogram);
                    ui.histogram_hover = None;
                }
                self.draw_histogram();
            }
            Update::IcicleProgress(progress) => {
                self.ui.borrow_mut().icicle_progress = Some(progress);
                if self.ui.borrow().state.tab == Tab::Range {
                    self.render_range_head();
                }
            }
            Update::Icicle(icicle) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    // Keep the zoom on the same name path when the range changes.
                    let path: Option<Vec<String>> = ui
                        .icicle
                        .as_ref()
                        .zip(ui.icicle_focus)
                        .map(|(old, focus)| old.path(focus).into_iter().map(str::to_owned).collect());
                    ui.icicle_focus = path.and_then(|p| icicle.find(&p.iter().map(String::as_str).collect::<Vec<_>>()));
                    ui.icicle_hover = None;
                    ui.icicle = Some(*icicle);
                    ui.icicle_progress = None;
                }
                self.set_data("icicle", "ready");
                self.draw_icicle();
                self.render_range_head();
            }
            Update::Revealed { kind, index } => self.revealed(kind, index),
            Update::Sparkline(points) => {
                self.ui.borrow_mut().sparkline = Some(points);
                self.draw_sparkline();
            }
            Update::StatsProgress(progress) => {
                // The panel shows whole percents: rebuilt only when the one shown changes.
                let shown = |progress: Option<f64>| progress.map(|p| format!("{:.0}", p * 100.0));
                let moved = shown(self.ui.borrow().stats_progress) != shown(Some(progress));
                self.ui.borrow_mut().stats_progress = Some(progress);
                if moved && self.ui.borrow().state.tab == Tab::Stats {
                    self.render_stats();
                }
            }
            Update::Stats(report) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.stats = Some(*report);
                    ui.stats_progress = None;
                }
                self.render_stats();
                self.set_data("stats", "ready");
            }
            Update::CompareProgress(progress) => {
                let started = self.ui.borrow().compare_progress.is_none();
                self.ui.borrow_mut().compare_progress = Some(progress);
                if started {
                    self.set_data("compare", "computing");
                    self.render_compare();
                }
            }
            Update::Compare(view) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.comparison = Some(*view);
                    ui.compare_progress = None;
                }
                self.render_compare();
                self.set_data("compare", "ready");
            }
            Update::Verified { defects, read, summary } => {
                self.show_defects(&defects, true);
                if let Some(summary) = summary {
                    self.set_data("framesRead", &read.frames.to_string());
                    self.set_data("spansRead", &read.spans.to_string());
                    let name = self.ui.borrow().name.clone();
                    let _ = panels::summary(&self.dom, &self.summary, &name, &summary);
                }
            }
            Update::Gauges(gauges) => {
                {
                    let mut ui = self.ui.borrow_mut();
                    ui.lane = MemoryLane::new(&gauges);
                    if let Some(view) = ui.memory.as_mut() {
                        view.set_gauges(gauges);
                    }
                }
                self.render_memory();
                let shown = self.ui.borrow().lane.is_some();
                self.show_lane(shown);
                self.draw_strip();
                self.set_data("memory", "ready");
            }
            Update::Download { bytes, file_name, mime, status } => {
                match download(&self.dom.document, &bytes, &file_name, mime) {
                    Ok(()) => self.set_text("status", &status),
                    Err(error) => self.set_text("status", &format!("The download could not start: {error}.")),
                }
            }
        }
    }

    fn loading(&self, ticket: u64, name: &str) {
        self.set_data("load", &ticket.to_string());
        self.set_data("state", "loading");
        self.error.set_hidden(true);
        self.workspace.set_hidden(true);
        self.summary.set_hidden(true);
        let _ = self.export.set_attribute("disabled", "");
        clear(&self.banners);
        let _ = self.dom.find("capture").map(|c| c.set_hidden(true));
        let _ = self.dom.find("search-open").map(|b| b.set_attribute("disabled", ""));
        for key in LOAD_KEYS {
            self.delete_data(key);
        }
        // A baseline belongs to the load that opened it.
        for id in ["base-label", "candidate-label"] {
            let _ = self.dom.find(id).map(|e| e.set_hidden(true));
        }
        self.base_strip.element.set_hidden(true);
        for element in [&self.strip.element, &self.lane.element, &self.base_strip.element] {
            let _ = element.style().remove_property("width");
        }
        self.set_progress(Some(0.0), &format!("Opening {name}…"));
    }

    /// Everything the directory and the records give, before a frame is decoded.
    fn opened(&self, opened: Opened) {
        let Opened { name, summary, strip, banners, notes, omitted_notes, memory, gauges_pending, has_domains, search } =
            opened;
        {
            let mut ui = self.ui.borrow_mut();
            ui.name.clone_from(&name);
            ui.verbose = summary.verbose;
            ui.may_quantize = summary.may_quantize;
            ui.strip = Some(strip);
            ui.search = Some(search);
        }
        self.show_capture_facts(&name, &summary);
        let _ = panels::summary(&self.dom, &self.summary, &name, &summary);
        for banner in &banners {
            let _ = self.dom.add_class(&self.banners, "p", "warning", banner);
        }
        if let Some(root) = self.dom.document.get_element_by_id("notes") {
            let _ = panels::notes(&self.dom, &root, &notes, omitted_notes);
        }
        self.show_defects(&summary.defects, false);
        if let Some(root) = self.dom.document.get_element_by_id("panel-memory") {
            let _ = panels::memory(&self.dom, &root, Some(&memory));
        }
        self.ui.borrow_mut().memory = Some(memory);
        self.show_lane(has_domains);
        self.set_data("memory", if gauges_pending { "reading" } else { "ready" });
        self.set_data("frames", &summary.frames.to_string());
        self.set_data("spans", &summary.spans.to_string());
        self.set_data("topologies", &summary.topologies.to_string());
        self.set_data("droppedSpans", &summary.dropped_spans.to_string());
    }

    /// Shows what [`App::opened`] built and paints the strip.
    fn ready(&self) {
        let empty = self.ui.borrow().strip.as_ref().is_none_or(StripData::is_empty);
        self.workspace.set_hidden(empty);
        self.summary.set_hidden(false);
        self.relayout_strip();
        self.draw_strip();
        let _ = self.export.remove_attribute("disabled");
        self.set_progress(None, IDLE_STATUS);
        self.set_data("state", "ready");
        let tab = self.ui.borrow().state.tab;
        self.show_tab(tab);
    }

    fn frame_shown(&self, view: FrameView) {
        let FrameView { index, number, topology, title, timeline, structure, resources, selected_block, detail } = view;
        self.set_text("timeline-title", &title);
        {
            let mut ui = self.ui.borrow_mut();
            ui.frame = Some(index);
            let zoom = ui.pending_zoom.take().map(|(start, end)| Viewport { start: start as f64, end: end as f64 });
            ui.viewport = Some(zoom.unwrap_or_else(|| Viewport::fit(timeline.extent)));
            ui.selected = selected_block;
            ui.timeline = Some(timeline);
            ui.structure = structure;
            ui.resources = resources;
            ui.topology = Some(topology);
            ui.frame_detail = Some(detail);
        }
        self.set_data("timelineFrame", &number.to_string());
        self.draw_timeline();
        self.draw_strip();
        self.render_frame_panels();
    }

    /// The baseline: its strip above the candidate's, on one axis per frame index, and its
    /// name beside the candidate's.
    fn base_opened(&self, base: crate::session::BaseOpened) {
        let crate::session::BaseOpened { name, strip, facts, recorded_differently } = base;
        if let Some(banner) = recorded_differently {
            let _ = self.dom.add_class(&self.banners, "p", "warning", &banner);
        }
        let facts: Vec<String> = facts.iter().map(|f| f.text.clone()).collect();
        self.set_text("base-label", &format!("Baseline (A): {name} · {}", facts.join(" · ")));
        let candidate = self.ui.borrow().name.clone();
        self.set_text("candidate-label", &format!("Candidate (B): {candidate}"));
        for id in ["base-label", "candidate-label"] {
            let _ = self.dom.find(id).map(|e| e.set_hidden(false));
        }
        self.base_strip.element.set_hidden(false);
        {
            let mut ui = self.ui.borrow_mut();
            ui.base_strip = Some(strip);
            ui.base_name = Some(name.clone());
            ui.base_reading = None;
        }
        self.set_data("base", &name);
        // One frame index, one x: each strip is as wide as its share of the longer one.
        let (len, base_len) = {
            let ui = self.ui.borrow();
            (ui.strip.as_ref().map_or(0, StripData::len), ui.base_strip.as_ref().map_or(0, StripData::len))
        };
        let longest = len.max(base_len).max(1) as f64;
        for (element, frames) in
            [(&self.strip.element, len), (&self.lane.element, len), (&self.base_strip.element, base_len)]
        {
            let _ = element.style().set_property("width", &format!("{:.3}%", frames as f64 / longest * 100.0));
        }
        self.relayout_strip();
        self.draw_strip();
    }

    /// The toolbar's name and key facts of the open capture.
    fn show_capture_facts(&self, name: &str, summary: &crate::summary::Summary) {
        let Ok(capture) = self.dom.find("capture") else { return };
        let Ok(facts) = self.dom.find("capture-facts") else { return };
        self.set_text("capture-name", name);
        let _ = self.dom.find("capture-name").map(|e| e.set_title(name));
        clear(&facts);
        for fact in summary.toolbar_facts() {
            if let Ok(span) = self.dom.add(&facts, "span", &fact.text) {
                let _ = span.set_attribute("title", &fact.title);
                if fact.alarm {
                    span.set_class_name("bad");
                }
            }
        }
        capture.set_hidden(false);
        let _ = self.dom.find("search-open").map(|b| b.remove_attribute("disabled"));
    }

    fn show_defects(&self, rows: &Rows<DefectRow>, verified: bool) {
        if let Some(root) = self.dom.document.get_element_by_id("defects") {
            let _ = panels::defects(&self.dom, &root, rows, verified);
        }
        if verified {
            self.set_data("defects", &rows.total().to_string());
            self.set_data("verified", "true");
        }
    }
}

/// Saves `bytes` as `file_name` through a temporary object URL.
fn download(document: &web_sys::Document, bytes: &[u8], file_name: &str, mime: &str) -> Result<(), Error> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(file_name);
    anchor.click();
    // The download has its own reference to the blob by now.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
