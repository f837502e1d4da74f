//! One open capture: reads the file, inflates it if gzip, opens it, paints the strip
//! from the directory, then serves commands and runs long work (memory gauges,
//! verification, statistics, sparklines, comparison) in slices ([`crate::slicing`]),
//! yielding to the event loop between slices so the page never freezes. Work is done a
//! frame, a pass or a few hundred KiB of the file at a time; a slice ends when its time
//! is spent, however slow the CPU, or when its job did its cap of units, whatever the
//! clock says. Every job's share of every slice is logged ([`super::slice::log`]).

use std::rc::Rc;

use sgpt_format::analysis::{self, StatsReport};
use sgpt_format::memory_analysis::GaugeScan;
use sgpt_format::{Capture, Defect, Frame, Opener, SpanKind};
use sgpt_web_glue::JsError;
use wasm_bindgen::JsCast;

use super::app::App;
use super::error::Error;
use super::mailbox::{Command, Mailbox};
use super::panels;
use super::slice::{self, SoloJob, yield_now};
use super::source::{Input, ReadError};
use crate::gzip::{self, GzipError, Inflater};
use crate::memory::MemoryView;
use crate::memory_lane::MemoryLane;
use crate::pass_detail::{PassDetail, sparkline};
use crate::resources::ResourceTable;
use crate::slicing::{JobKind, SliceReport};
use crate::stats::StatsJob;
use crate::strip::StripData;
use crate::structure::Structure;
use crate::summary::{self, DefectRow, LoadError, MAX_ROWS, Rows, Summary, clip};
use crate::timeline::{TimelineModel, Viewport};
use crate::units;
use crate::url_state::Tab;
use crate::verify::ReadBack;

/// How much of a file one opening step checks or scans: a few ms on a slow CPU, so the
/// clock is read often.
const OPEN_STEP_BYTES: usize = 256 << 10;
/// How much one inflating step writes: likewise.
const INFLATE_STEP_BYTES: usize = 256 << 10;
/// Above this many spans an export would not fit in the tab; the CLI streams it instead.
const MAX_EXPORT_SPANS: u64 = 4_000_000;

/// Why a load stopped. Each displays as the reason, for "Could not open x: …".
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Gzip(#[from] GzipError),
    #[error("{0}; {hint}", hint = load_hint(.0))]
    Capture(#[from] LoadError),
    #[error(transparent)]
    Page(#[from] Error),
}

fn load_hint(error: &LoadError) -> &'static str {
    match error {
        LoadError::Empty => "the download or copy probably failed; fetch the capture again",
        LoadError::Open(sgpt_format::OpenError::NeedsNewerReader { .. }) => {
            "open it with a newer inspector, or convert it with a newer `sgpt`"
        }
        LoadError::Open(_) => "open a .sgpt capture (or a gzip of one) written by an sgpt recorder",
    }
}

pub async fn run(app: Rc<App>, ticket: u64, input: Input, mailbox: Rc<Mailbox>) {
    let name = input.name();
    app.set_data("load", &ticket.to_string());
    app.set_data("state", "loading");
    app.error.set_hidden(true);
    app.workspace.set_hidden(true);
    app.summary.set_hidden(true);
    let _ = app.export.set_attribute("disabled", "");
    crate::web::dom::clear(&app.banners);
    for key in [
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
    ] {
        app.delete_data(key);
    }
    app.set_progress(Some(0.0), &format!("Opening {name}…"));
    if let Err(failure) = load(&app, ticket, &name, &input, &mailbox).await
        && app.is_current(ticket)
    {
        app.show_error(&format!("Could not open {name}: {failure}."));
    }
}

async fn load(app: &Rc<App>, ticket: u64, name: &str, input: &Input, mailbox: &Mailbox) -> Result<(), Failure> {
    let progress = |done: u64, total: Option<u64>| {
        let fraction = total.map(|t| done as f64 / t.max(1) as f64 * 0.5);
        app.set_progress(fraction.or(Some(0.0)), &format!("Reading {name}: {}…", units::bytes(done)));
    };
    let mut bytes = input.read(ticket, &progress).await?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    if gzip::is_gzip(&bytes) {
        app.set_data("gzip", "true");
        let compressed = std::mem::take(&mut bytes);
        let mut inflater = Inflater::new(&compressed);
        let mut job = SoloJob::start(ticket, JobKind::Inflate);
        loop {
            let mut done = false;
            while !done && job.admit(INFLATE_STEP_BYTES as u64) {
                let before = inflater.inflated();
                done = inflater.step(INFLATE_STEP_BYTES)?;
                job.count((inflater.inflated() - before) as u64);
            }
            if done {
                job.done();
                break;
            }
            app.set_progress(
                Some(0.5 + 0.5 * inflater.consumed() as f64 / compressed.len().max(1) as f64),
                &format!("Decompressing {name}…"),
            );
            job.next_slice().await?;
            if !app.is_current(ticket) {
                job.cancel();
                return Ok(());
            }
        }
        bytes = inflater.finish();
    }
    if bytes.is_empty() {
        return Err(LoadError::Empty.into());
    }
    // Each step below is tens of ms on big files: a task of its own, not one run-on task.
    yield_now().await?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    let Some(capture) = open(app, ticket, name, &bytes).await? else { return Ok(()) };
    yield_now().await?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    let gauges = show_capture(app, name, &capture)?;
    yield_now().await?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    show_strip(app, &capture);
    yield_now().await?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    let mut session = Session::new(app, ticket, &capture);
    session.gauges = gauges.map(Job::Gauges);
    session.serve(mailbox).await
}

/// Opens the capture in slices: checking a closed one's directory against the file, or
/// scanning a never-closed or directory-less one record by record, is hundreds of ms on
/// big files. `None` when a newer file was opened meanwhile.
async fn open<'b>(app: &App, ticket: u64, name: &str, bytes: &'b [u8]) -> Result<Option<Capture<'b>>, Failure> {
    let mut opener = Opener::new(bytes).map_err(LoadError::Open)?;
    let mut job = SoloJob::start(ticket, JobKind::Open);
    loop {
        let mut done = false;
        while !done && job.admit(1) {
            done = opener.step(OPEN_STEP_BYTES);
            job.count(1);
        }
        if done {
            job.done();
            // Nothing is left for `finish` to do.
            return Ok(Some(opener.finish()));
        }
        let (done, total) = opener.progress();
        let message = match opener.scanning() {
            Some((walked, len)) => format!(
                "Scanning {name} for records (it has no index): {} of {}…",
                units::bytes(walked),
                units::bytes(len)
            ),
            None => format!("Checking {name} against its index…"),
        };
        app.set_progress(Some(done as f64 / total.max(1) as f64), &message);
        job.next_slice().await?;
        if !app.is_current(ticket) {
            job.cancel();
            return Ok(None);
        }
    }
}

/// Builds everything the directory and the records give without decoding a frame:
/// summary, banners, strip data, notes, memory records. Returns the scan that reads the
/// memory gauges, when the capture declares any.
fn show_capture(app: &Rc<App>, name: &str, capture: &Capture<'_>) -> Result<Option<GaugeScan>, Failure> {
    let summary = Summary::of(capture);
    let data = StripData::from_index(capture.frames());
    {
        let mut ui = app.ui.borrow_mut();
        ui.name = name.to_owned();
        ui.verbose = summary.verbose;
        ui.strip = Some(data);
    }
    panels::summary(&app.dom, &app.summary, name, &summary)?;
    banners(app, &summary, capture)?;
    let notes: Vec<(u64, String)> =
        capture.notes().iter().take(MAX_ROWS).map(|n| (n.frame_number, clip(&n.text))).collect();
    if let Some(root) = app.dom.document.get_element_by_id("notes") {
        panels::notes(&app.dom, &root, &notes, capture.notes().len().saturating_sub(MAX_ROWS))?;
    }
    show_defects(app, &summary.defects, false);
    // The gauges are read later, in slices: a bounded, evenly spaced sample of frames (memory.rs).
    let (memory, scan) = MemoryView::from_records(capture);
    if let Some(root) = app.dom.document.get_element_by_id("panel-memory") {
        panels::memory(&app.dom, &root, Some(&memory))?;
    }
    app.ui.borrow_mut().memory = Some(memory);
    app.show_lane(scan.as_ref().is_some_and(GaugeScan::has_domains));
    app.set_data("memory", if scan.is_some() { "reading" } else { "ready" });
    app.set_data("frames", &summary.frames.to_string());
    app.set_data("spans", &summary.spans.to_string());
    app.set_data("topologies", &summary.topologies.to_string());
    app.set_data("droppedSpans", &summary.dropped_spans.to_string());
    Ok(scan)
}

/// Shows what [`show_capture`] built and paints the strip: a task of its own, as laying
/// out and painting a long capture's strip takes much of one.
fn show_strip(app: &App, capture: &Capture<'_>) {
    app.workspace.set_hidden(capture.frames().is_empty());
    app.summary.set_hidden(false);
    app.relayout_strip();
    app.draw_strip();
    let _ = app.export.remove_attribute("disabled");
    app.set_progress(None, "Drop or pick another capture to open it instead.");
    app.set_data("state", "ready");
    let tab = app.ui.borrow().state.tab;
    app.show_tab(tab);
}

fn banners(app: &App, summary: &Summary, capture: &Capture<'_>) -> Result<(), Error> {
    let root = &app.banners;
    if !summary.closed {
        app.dom.add_class(root, "p", "warning", "This capture was never closed: the recording stopped without reaching stop (a crash, a tab kill, a lost device). Every whole frame is shown; its index was rebuilt by scanning.")?;
    }
    if summary.dropped_spans > 0 {
        let frames: Vec<String> = capture
            .frames()
            .iter()
            .filter(|f| f.dropped_spans > 0)
            .take(12)
            .map(|f| format!("{} ({})", f.frame_number, f.dropped_spans))
            .collect();
        let more = if summary.frames_with_dropped_spans > 12 { ", …" } else { "" };
        app.dom.add_class(root, "p", "warning", &format!(
            "{} spans were dropped by a full timer pool, on {} frames (marked purple in the strip): frames {}{more}. Those frames lack some passes.",
            units::grouped(summary.dropped_spans), summary.frames_with_dropped_spans, frames.join(", ")
        ))?;
    }
    if summary.verbose {
        app.dom.add_class(root, "p", "warning", "Recorded at level verbose: recording bind groups and indirect counts perturbs the timings it measures. Use it to understand a frame, not to time it.")?;
    }
    if capture.frames().is_empty() {
        app.dom.add_class(root, "p", "warning", "This capture holds no frames.")?;
    }
    Ok(())
}

fn show_defects(app: &App, rows: &Rows<DefectRow>, verified: bool) {
    if let Some(root) = app.dom.document.get_element_by_id("defects") {
        let _ = panels::defects(&app.dom, &root, rows, verified);
    }
    if verified {
        app.set_data("defects", &rows.total().to_string());
        app.set_data("verified", "true");
    }
}

/// Long work, a frame or a pass at a time.
enum Job<'c> {
    Verify {
        next: usize,
        defects: Vec<Defect>,
        frame: Frame,
        read: ReadBack,
    },
    Stats(StatsJob<'c, 'c>),
    Spark {
        key: Option<PassKey>,
        next: usize,
        end: usize,
        start: usize,
        values: Vec<Option<u64>>,
        table: Vec<(u32, Vec<bool>)>,
    },
    Compare {
        a: Box<StatsJob<'c, 'c>>,
        b: Box<StatsJob<'c, 'c>>,
        a_done: Option<StatsReport>,
    },
    Gauges(GaugeScan),
}

impl Job<'_> {
    fn kind(&self) -> JobKind {
        match self {
            Job::Verify { .. } => JobKind::Verify,
            Job::Stats(_) => JobKind::Stats,
            Job::Spark { .. } => JobKind::Spark,
            Job::Compare { .. } => JobKind::Compare,
            Job::Gauges(_) => JobKind::Gauges,
        }
    }
}

/// The order jobs run in a slice: the memory lane (a bounded sample of frames) and the
/// frame views first, then statistics, then the rest.
const ORDER: [JobKind; 5] = [JobKind::Gauges, JobKind::Spark, JobKind::Stats, JobKind::Compare, JobKind::Verify];

struct Session<'s, 'c> {
    app: &'s Rc<App>,
    ticket: u64,
    capture: &'c Capture<'c>,
    frame: Frame,
    verify: Option<Job<'c>>,
    stats: Option<Job<'c>>,
    spark: Option<Job<'c>>,
    compare: Option<Job<'c>>,
    gauges: Option<Job<'c>>,
    /// Jobs done whose results are not shown yet, oldest first: one is shown per slice.
    ready: std::collections::VecDeque<Job<'c>>,
}

impl Drop for Session<'_, '_> {
    /// A session ends when another file is opened or the page closes the capture: every
    /// job still under way is cancelled.
    fn drop(&mut self) {
        for kind in ORDER {
            if self.slot(kind).is_some() {
                slice::log(self.ticket, SliceReport::cancelled(kind, 0));
            }
        }
    }
}

impl<'s, 'c> Session<'s, 'c> {
    fn new(app: &'s Rc<App>, ticket: u64, capture: &'c Capture<'c>) -> Self {
        Self {
            app,
            ticket,
            capture,
            frame: Frame::default(),
            verify: Some(Job::Verify {
                next: 0,
                defects: capture.defects().to_vec(),
                frame: Frame::default(),
                read: ReadBack::default(),
            }),
            stats: None,
            spark: None,
            compare: None,
            gauges: None,
            ready: std::collections::VecDeque::new(),
        }
    }

    async fn serve(mut self, mailbox: &Mailbox) -> Result<(), Failure> {
        let frames = self.capture.frames().len();
        // What the link asked for, else the first frame and the whole capture.
        let (frame, range, compare) = {
            let ui = self.app.ui.borrow();
            let strip = ui.strip.as_ref().ok_or(Error::NoGlobal("strip"))?;
            let frame = ui.state.frame.and_then(|n| strip.index_of(n)).unwrap_or(0);
            let range = ui.state.range.and_then(|(a, b)| Some((strip.index_of(a)?, strip.index_of(b)?)));
            let compare = ui.state.compare.and_then(|((a0, a1), (b0, b1))| {
                Some(((strip.index_of(a0)?, strip.index_of(a1)?), (strip.index_of(b0)?, strip.index_of(b1)?)))
            });
            (frame, range, compare)
        };
        self.app.ui.borrow_mut().restored = true;
        if frames > 0 {
            {
                let mut ui = self.app.ui.borrow_mut();
                ui.pending_zoom = ui.state.zoom;
            }
            self.show_frame(frame);
            // Frame views first, on screen; then statistics and comparison start.
            yield_now().await?;
            if !self.app.is_current(self.ticket) {
                return Ok(());
            }
            let (first, last) = range.unwrap_or((0, frames - 1));
            self.app.select_range(first, last);
            // By default the first half of the range against the second.
            let half = (last - first).div_ceil(2);
            let a_end = first + half.saturating_sub(1);
            let (a, b) = compare.unwrap_or(((first, a_end), ((a_end + 1).min(last), last)));
            self.app.start_compare(a, b);
        } else {
            show_defects(self.app, &summary::defect_rows(self.capture.defects()), true);
            self.verify = None;
        }
        yield_now().await?;
        loop {
            while let Some(command) = mailbox.try_recv() {
                if !self.handle(command)? {
                    return Ok(());
                }
            }
            if !self.app.is_current(self.ticket) {
                return Ok(());
            }
            let busy = [&self.verify, &self.stats, &self.spark, &self.compare, &self.gauges];
            if busy.iter().any(|job| job.is_some()) || !self.ready.is_empty() {
                self.work();
                yield_now().await?;
                continue;
            }
            let command = mailbox.recv().await;
            if !self.handle(command)? {
                return Ok(());
            }
        }
    }

    /// Returns `false` when the session should end.
    #[expect(clippy::needless_pass_by_value, reason = "commands are consumed one by one from the mailbox")]
    fn handle(&mut self, command: Command) -> Result<bool, Failure> {
        match command {
            Command::Close => return Ok(false),
            Command::Frame(index) => self.show_frame(index),
            Command::Range(first, last) => {
                self.replace(Job::Stats(StatsJob::new(self.capture, first..last + 1)));
                self.app.set_data("stats", "computing");
                let pass = self.app.ui.borrow().state.pass;
                if let Some(pass) = pass {
                    self.start_spark(pass);
                }
            }
            Command::Pass(pass) => {
                self.app.ui.borrow_mut().state.pass = pass;
                self.show_pass();
            }
            Command::Compare(a, b) => {
                self.replace(Job::Compare {
                    a: Box::new(StatsJob::new(self.capture, a.0..a.1 + 1)),
                    b: Box::new(StatsJob::new(self.capture, b.0..b.1 + 1)),
                    a_done: None,
                });
            }
            Command::Export => self.export()?,
        }
        Ok(true)
    }

    fn show_frame(&mut self, index: usize) {
        let capture = self.capture;
        let decoded = capture.frame_into(index, &mut self.frame);
        let number = capture.frames().get(index).map_or(0, |f| f.frame_number);
        let topology = capture.topology(self.frame.topology).filter(|_| decoded.is_ok());
        if let Err(defect) = &decoded {
            self.app.set_text(
                "timeline-title",
                &format!("Frame {number} could not be decoded: {defect}. Pick another frame."),
            );
            let mut ui = self.app.ui.borrow_mut();
            ui.frame = Some(index);
            ui.timeline = None;
            return;
        }
        let model = TimelineModel::build(&self.frame, topology, |set| capture.query_set(set).map(|q| q.label.clone()));
        let entry = capture.frames()[index];
        let mut title = format!(
            "Frame {number} · GPU {} · CPU {} · {} spans",
            units::exact_ns(entry.gpu_duration_ns),
            units::exact_ns(entry.cpu_duration_ns),
            entry.span_count
        );
        if entry.dropped_spans > 0 {
            title.push_str(&format!(" · {} spans dropped on this frame: some passes are missing", entry.dropped_spans));
        }
        if model.unknown_spans > 0 {
            title.push_str(&format!(" · {} spans name a pass the topology lacks", model.unknown_spans));
        }
        self.app.set_text("timeline-title", &title);
        {
            let mut ui = self.app.ui.borrow_mut();
            ui.frame = Some(index);
            let zoom = ui.pending_zoom.take().map(|(start, end)| Viewport { start: start as f64, end: end as f64 });
            ui.viewport = Some(zoom.unwrap_or_else(|| Viewport::fit(model.extent)));
            ui.selected = ui.state.pass.and_then(|p| model.find_gpu_pass(p));
            ui.timeline = Some(model);
            ui.structure = topology.map(|t| Structure::new(t, &self.frame.culled));
            ui.resources =
                topology.filter(|t| !t.resources.is_empty()).map(|t| ResourceTable::new(capture, t, &self.frame));
        }
        self.app.set_data("timelineFrame", &number.to_string());
        self.app.draw_timeline();
        self.app.draw_strip();
        self.show_pass();
        self.app.render_frame_panels();
    }

    fn show_pass(&mut self) {
        let pass = self.app.ui.borrow().state.pass;
        let topology = self.capture.topology(self.frame.topology);
        let detail = pass.zip(topology).and_then(|(p, t)| PassDetail::new(self.capture, t, &self.frame, p));
        self.app.ui.borrow_mut().detail = detail;
        if let Some(pass) = pass {
            self.start_spark(pass);
        }
        self.app.render_pass();
    }

    fn start_spark(&mut self, pass: u32) {
        let (first, last) = self.app.ui.borrow().range.unwrap_or((0, self.capture.frames().len().saturating_sub(1)));
        // Remembered by key: indices differ between topologies, labels alone are not keys.
        let key = self.capture.topology(self.frame.topology).and_then(|t| key_of(t, pass as usize));
        self.replace(Job::Spark {
            key,
            next: first,
            start: first,
            end: last + 1,
            values: Vec::new(),
            table: Vec::new(),
        });
    }

    /// Where the job of kind `kind` is kept while it runs.
    fn slot(&mut self, kind: JobKind) -> &mut Option<Job<'c>> {
        match kind {
            JobKind::Gauges => &mut self.gauges,
            JobKind::Spark => &mut self.spark,
            JobKind::Stats => &mut self.stats,
            JobKind::Compare => &mut self.compare,
            // The loading jobs (read, inflate, open) are over before a session starts.
            JobKind::Verify | JobKind::Read | JobKind::Inflate | JobKind::Open => &mut self.verify,
        }
    }

    /// Starts `job`, cancelling one of its kind still under way; a finished one not shown
    /// yet is dropped too, as its results are out of date.
    fn replace(&mut self, job: Job<'c>) {
        let kind = job.kind();
        if self.slot(kind).replace(job).is_some() {
            slice::log(self.ticket, SliceReport::cancelled(kind, 0));
        }
        self.ready.retain(|ready| ready.kind() != kind);
    }

    /// Shows at most one finished job's results, then gives every job its share of the
    /// slice, until the slice is spent.
    fn work(&mut self) {
        let capture = self.capture;
        let slice = slice::start();
        // Showing a result (a table of hundreds of rows on big captures) can take much of a
        // slice: it starts one rather than ending one.
        if let Some(job) = self.ready.pop_front() {
            self.finish(job);
        }
        for kind in ORDER {
            if slice.spent() {
                break;
            }
            let Some(job) = self.slot(kind).as_mut() else { continue };
            let mut share = slice.share(kind);
            let done = step(capture, job, &mut || share.more());
            slice::log(self.ticket, share.report(done));
            if done && let Some(job) = self.slot(kind).take() {
                self.ready.push_back(job);
            }
        }
        self.report_progress();
    }

    fn report_progress(&self) {
        let progress = match &self.stats {
            Some(Job::Stats(job)) => Some(job.progress()),
            _ => None,
        };
        if let Some(p) = progress {
            self.app.ui.borrow_mut().stats_progress = Some(p);
            self.app.set_progress(Some(p), &format!("Computing statistics… {:.0} %", p * 100.0));
            if self.app.ui.borrow().state.tab == Tab::Stats {
                self.app.render_stats();
            }
        } else if let Some(Job::Verify { next, .. }) = &self.verify {
            let total = self.capture.frames().len().max(1);
            self.app.set_progress(Some(*next as f64 / total as f64), "Checking every frame for damage…");
        } else {
            self.app.set_progress(None, "Drop or pick another capture to open it instead.");
        }
        if let Some(Job::Compare { a, b, a_done }) = &self.compare {
            let p = if a_done.is_some() { 0.5 + b.progress() / 2.0 } else { a.progress() / 2.0 };
            self.app.ui.borrow_mut().compare_progress = Some(p);
        }
    }

    fn finish(&mut self, job: Job) {
        match job {
            Job::Verify { defects, read, .. } => {
                show_defects(self.app, &summary::defect_rows(&defects), true);
                self.app.set_data("framesRead", &read.frames.to_string());
                self.app.set_data("spansRead", &read.spans.to_string());
                // The summary again, now saying what reads back beside the index's counts.
                let summary = Summary { read_back: Some(read), ..Summary::of(self.capture) };
                let name = self.app.ui.borrow().name.clone();
                let _ = panels::summary(&self.app.dom, &self.app.summary, &name, &summary);
            }
            Job::Stats(job) => {
                let report = job.finish();
                {
                    let mut ui = self.app.ui.borrow_mut();
                    ui.stats = Some(report);
                    ui.stats_progress = None;
                }
                self.app.render_stats();
                self.app.set_data("stats", "ready");
            }
            Job::Spark { values, .. } => {
                self.app.ui.borrow_mut().sparkline = Some(sparkline(&values, 600));
                self.app.draw_sparkline();
            }
            Job::Compare { b, a_done, .. } => {
                let report_b = b.finish();
                let deltas = a_done.map(|a| analysis::deltas(&a, &report_b));
                {
                    let mut ui = self.app.ui.borrow_mut();
                    ui.deltas = deltas;
                    ui.compare_progress = None;
                }
                self.app.render_compare();
                self.app.set_data("compare", "ready");
            }
            Job::Gauges(scan) => {
                let gauges = scan.finish();
                {
                    let mut ui = self.app.ui.borrow_mut();
                    ui.lane = MemoryLane::new(&gauges);
                    if let Some(view) = ui.memory.as_mut() {
                        view.set_gauges(gauges);
                    }
                }
                self.app.render_memory();
                let shown = self.app.ui.borrow().lane.is_some();
                self.app.show_lane(shown);
                self.app.draw_strip();
                self.app.set_data("memory", "ready");
            }
        }
    }

    fn export(&mut self) -> Result<(), Failure> {
        let spans = self.capture.span_count();
        if spans > MAX_EXPORT_SPANS {
            self.app.set_text(
                "status",
                &format!(
                    "This capture has {} spans; its Chrome Trace JSON would be several GB, too large for a browser tab. Run `sgpt export` on it instead.",
                    units::grouped(spans)
                ),
            );
            return Ok(());
        }
        let mut json = Vec::new();
        let summary = sgpt_format::chrome::export(self.capture, &mut json)
            .map_err(|e| Error::Js(JsError::new(format!("the export failed: {e}"))))?;
        let array = js_sys::Uint8Array::from(json.as_slice());
        let parts = js_sys::Array::of1(&array);
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("application/json");
        let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(Error::from)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(Error::from)?;
        let anchor: web_sys::HtmlAnchorElement =
            self.app.dom.document.create_element("a").map_err(Error::from)?.unchecked_into();
        anchor.set_href(&url);
        let name = self.app.ui.borrow().name.clone();
        let stem = name.rsplit('/').next().unwrap_or("capture").trim_end_matches(".gz").trim_end_matches(".sgpt");
        anchor.set_download(&format!("{}.trace.json", if stem.is_empty() { "capture" } else { stem }));
        anchor.click();
        // The download has its own reference to the blob by now.
        let _ = web_sys::Url::revoke_object_url(&url);
        self.app.set_text(
            "status",
            &format!(
                "Exported {} events ({}) for Perfetto or chrome://tracing.",
                units::grouped(summary.events),
                units::bytes(summary.bytes)
            ),
        );
        Ok(())
    }
}

/// Works on `job` a frame or a pass at a time for as long as `more()` returns `true`;
/// `true` once it is finished (at once, when it already was).
fn step<'c>(capture: &'c Capture<'c>, job: &mut Job<'c>, more: &mut dyn FnMut() -> bool) -> bool {
    match job {
        Job::Verify { next, defects, frame, read } => {
            while *next < capture.frames().len() {
                if !more() {
                    return false;
                }
                if let Some(defect) = crate::verify::check_frame_counting(capture, *next, frame, read) {
                    defects.push(defect);
                }
                *next += 1;
            }
            true
        }
        Job::Stats(job) => job.step(more),
        Job::Spark { key, next, end, start, values, table } => {
            if values.capacity() == 0 {
                values.reserve_exact(*end - *start);
            }
            while *next < *end {
                if !more() {
                    return false;
                }
                let index = *next;
                *next += 1;
                let Some(entry) = capture.frames().get(index) else { break };
                // Which GPU passes of this frame's topology are "the same pass" as the
                // selected one: same graph pass name, label and kind (labels are not keys).
                let matches = match table.iter().position(|(id, _)| *id == entry.topology) {
                    Some(at) => at,
                    None => {
                        table.push((entry.topology, same_pass(capture, entry.topology, key.as_ref())));
                        table.len() - 1
                    }
                };
                let mask = &table[matches].1;
                let mut total: Option<u64> = None;
                let _ = capture.for_each_span(index, |span| {
                    if span.kind == SpanKind::Pass && mask.get(span.pass as usize).copied().unwrap_or(false) {
                        total = Some(total.unwrap_or(0).saturating_add(span.duration_ns()));
                    }
                });
                values.push(total);
            }
            true
        }
        // The scan counts in sampled frames; one is a frame decode.
        Job::Gauges(scan) => loop {
            if !more() {
                return scan.step(capture, 0);
            }
            if scan.step(capture, 1) {
                return true;
            }
        },
        Job::Compare { a, b, a_done } => {
            if a_done.is_none() {
                if !a.step(more) {
                    return false;
                }
                let finished = std::mem::replace(a.as_mut(), StatsJob::new(capture, 0..0));
                *a_done = Some(finished.finish());
            }
            b.step(more)
        }
    }
}

/// A GPU pass across topologies: graph pass name, label and kind.
type PassKey = (Option<String>, String, sgpt_format::GpuPassKind);

fn key_of(topology: &sgpt_format::Topology, index: usize) -> Option<PassKey> {
    topology.gpu_passes.get(index).map(|g| {
        (
            g.graph_pass.and_then(|i| topology.graph_passes.get(i as usize)).map(|p| p.name.clone()),
            g.label.clone(),
            g.kind,
        )
    })
}

/// For topology `id`: which of its GPU passes are the pass `key` names.
fn same_pass(capture: &Capture<'_>, id: u32, key: Option<&PassKey>) -> Vec<bool> {
    let Some(topology) = capture.topology(id) else { return Vec::new() };
    (0..topology.gpu_passes.len()).map(|index| key_of(topology, index).as_ref() == key).collect()
}
