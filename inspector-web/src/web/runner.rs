//! Runs one open capture on the page: reads the file, inflates it if gzip, opens it, then
//! serves the page's commands with a [`Session`], a slice of work at a time between
//! yields to the event loop, so the page never freezes. A baseline to compare with is
//! read once the capture is shown, while the session serves it (its statistics on the
//! workers meanwhile); one that cannot be opened leaves the capture open alone, and the
//! page says why. Everything to show goes to the page as [`Update`] values through
//! [`Page::apply`]; nothing here touches the page's state or the DOM. Every job's share
//! of every slice is logged ([`super::slice::log`]).

use std::rc::Rc;
use std::task::Poll;

use sgpt_format::{Capture, Opener};

use super::error::Error;
use super::mailbox::Mailbox;
use super::slice::{self, SoloJob, yield_now};
use super::source::{Input, ReadError};
use super::workers::WorkerPool;
use crate::baseline_room::{OpenCapture, baseline_room};
use crate::gzip::{self, GzipError, Inflater};
use crate::session::{OpenedBuild, Restore, Session, Update};
use crate::slicing::JobKind;
use crate::summary::LoadError;
use crate::units;

/// How much of a file one opening step checks or scans: a few ms on a slow CPU, so the
/// clock is read often.
const OPEN_STEP_BYTES: usize = 256 << 10;
/// How much one inflating step writes: likewise.
const INFLATE_STEP_BYTES: usize = 256 << 10;

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

/// What the runner needs of the page: somewhere to hand updates, and whether its load is
/// still the one shown. The app implements it; the runner knows nothing more of it, so
/// the app (which starts runs) sits above the runner and never the other way round.
pub trait Page {
    /// Shows one of the running session's updates.
    fn apply(&self, update: Update);
    /// Whether load `ticket` is still the page's current one.
    fn is_current(&self, ticket: u64) -> bool;
}

/// Loads `input` as load `ticket` (and `base`, the baseline it is compared with, when
/// two captures are opened), then serves `mailbox` until a newer load or the page closes
/// it; `restore` is what the link asked to show.
pub async fn run(
    app: Rc<dyn Page>,
    ticket: u64,
    input: Input,
    base: Option<Input>,
    mailbox: Rc<Mailbox>,
    restore: Restore,
) {
    let name = input.name();
    app.apply(Update::Loading { ticket, name: name.clone() });
    if let Err((which, failure)) = load(&*app, ticket, &input, base.as_ref(), &mailbox, &restore).await
        && app.is_current(ticket)
    {
        app.apply(Update::Failed(format!("Could not open {which}: {failure}.")));
    }
}

/// A load's failure, with the name of the file it is about.
type Failed = (String, Failure);

async fn load(
    app: &dyn Page,
    ticket: u64,
    input: &Input,
    base: Option<&Input>,
    mailbox: &Rc<Mailbox>,
    restore: &Restore,
) -> Result<(), Failed> {
    let name = input.name();
    let page = |error: Error| (name.clone(), Failure::Page(error));
    // The page's start (its wasm instantiated, the app built, its first functions compiled
    // as they are first called) runs as microtasks of one task, and so would this load's
    // first steps: each step here is a task of its own. Traced on the 95 MB capture, that
    // one task held the start, the workers' start and the read's first slice (a response
    // begun early is ready by then): 58 ms in all. With the read apart, it still held the
    // workers' start, 50 ms.
    yield_now().await.map_err(page)?;
    // Started before the read, so each has compiled its wasm by the time statistics begin.
    let workers = WorkerPool::start(mailbox);
    yield_now().await.map_err(page)?;
    fn named(name: &str) -> impl FnOnce(Failure) -> Failed + '_ {
        move |failure| (name.to_owned(), failure)
    }
    let Some(bytes) = fetch(app, ticket, &name, input, u64::MAX).await.map_err(named(&name))? else { return Ok(()) };
    let Some(capture) = open(app, ticket, &name, &bytes).await.map_err(named(&name))? else { return Ok(()) };
    yield_now().await.map_err(page)?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    // Each part of what the page shows first walks the index once, and on a long capture
    // laying out and painting the strip is much of a task: each a task of its own.
    let Some(build) = built(app, ticket, OpenedBuild::new(&capture, &name)).await.map_err(page)? else {
        return Ok(());
    };
    let (opened, gauges) = build.finish();
    let summary = opened.summary.clone();
    let candidate = OpenCapture { bytes: bytes.len() as u64, frames: summary.frames, spans: summary.spans };
    app.apply(Update::Opened(Box::new(opened)));
    yield_now().await.map_err(page)?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    app.apply(Update::Ready);
    yield_now().await.map_err(page)?;
    if !app.is_current(ticket) {
        return Ok(());
    }
    // The baseline's bytes and capture outlive the session that compares with them.
    let base_bytes: Vec<u8>;
    let base_capture: Capture<'_>;
    let every_core = workers.takes_every_core();
    let mut session =
        Session::new(&capture, &name, gauges).with_scanner(Box::new(workers), every_core).with_summary(summary);
    if base.is_some() {
        session = session.with_base_coming();
    }
    let mut running = Running { app, ticket, session };
    running.begin(restore).await.map_err(|failure| (name.clone(), failure))?;
    if let Some(base) = base {
        let file = base.name();
        // What an error about the baseline names it as.
        let base_name = format!("the baseline {file}");
        // The candidate is shown, and its statistics run on the workers, while the page
        // reads the baseline: they would otherwise wait for each other.
        // Only a baseline that fits beside the candidate, with what comparing them needs:
        // running out of memory would end the page, the candidate with it.
        let memory = core::arch::wasm32::memory_size(0) as u64 * WASM_PAGE_BYTES;
        let read = fetch(app, ticket, &base_name, base, baseline_room(memory, candidate));
        let Some(read) = running.serve_until(mailbox, read).await.map_err(|failure| (name.clone(), failure))? else {
            return Ok(());
        };
        match read {
            Ok(Some(bytes)) => {
                base_bytes = bytes;
                match open(app, ticket, &base_name, &base_bytes).await {
                    Ok(Some(opened)) => {
                        base_capture = opened;
                        let build = OpenedBuild::new(&base_capture, &file);
                        let Some(build) = built(app, ticket, build).await.map_err(page)? else { return Ok(()) };
                        let base = build.into_base().against(&base_capture, &capture);
                        app.apply(Update::BaseOpened(Box::new(base)));
                        running.session.set_base(&base_capture);
                        running.deliver();
                    }
                    Ok(None) => return Ok(()),
                    Err(failure) => running.base_failed(&base_name, &failure),
                }
            }
            Ok(None) => return Ok(()),
            Err(failure) => running.base_failed(&base_name, &failure),
        }
    }
    running.serve(mailbox).await.map_err(|failure| (name.clone(), failure))
}

/// A wasm memory page.
const WASM_PAGE_BYTES: u64 = 64 << 10;

/// Reads `input` (refused past `room` bytes, see [`Input::read`]) and inflates it if it is
/// gzip; `None` when a newer load began meanwhile.
async fn fetch(app: &dyn Page, ticket: u64, name: &str, input: &Input, room: u64) -> Result<Option<Vec<u8>>, Failure> {
    let progress = |done: u64, total: Option<u64>| {
        let fraction = total.map(|t| done as f64 / t.max(1) as f64 * 0.5);
        let text = format!("Reading {name}: {}…", units::bytes(done));
        app.apply(Update::Progress { fraction: fraction.or(Some(0.0)), text });
    };
    let mut bytes = input.read(ticket, &progress, room).await?;
    if !app.is_current(ticket) {
        return Ok(None);
    }
    if gzip::is_gzip(&bytes) {
        app.apply(Update::Gzip);
        let compressed = std::mem::take(&mut bytes);
        // Inflated only within the room the file was read under: a baseline that fits
        // compressed may not once inflated.
        let mut inflater = Inflater::new(&compressed, room);
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
            app.apply(Update::Progress {
                fraction: Some(0.5 + 0.5 * inflater.consumed() as f64 / compressed.len().max(1) as f64),
                text: format!("Decompressing {name}…"),
            });
            job.next_slice().await?;
            if !app.is_current(ticket) {
                job.cancel();
                return Ok(None);
            }
        }
        bytes = inflater.finish();
    }
    if bytes.is_empty() {
        return Err(LoadError::Empty.into());
    }
    // Each step after this is tens of ms on big files: a task of its own, not one run-on task.
    yield_now().await?;
    Ok(app.is_current(ticket).then_some(bytes))
}

/// Steps `build` a part a task; `None` when a newer file was opened meanwhile.
async fn built<'c, 'b>(
    app: &dyn Page,
    ticket: u64,
    mut build: OpenedBuild<'c, 'b>,
) -> Result<Option<OpenedBuild<'c, 'b>>, Error> {
    while !build.step() {
        yield_now().await?;
        if !app.is_current(ticket) {
            return Ok(None);
        }
    }
    yield_now().await?;
    Ok(app.is_current(ticket).then_some(build))
}

/// Opens the capture in slices: checking a closed one's directory against the file, or
/// scanning a never-closed or directory-less one record by record, is hundreds of ms on
/// big files. `None` when a newer file was opened meanwhile.
async fn open<'b>(app: &dyn Page, ticket: u64, name: &str, bytes: &'b [u8]) -> Result<Option<Capture<'b>>, Failure> {
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
        app.apply(Update::Progress { fraction: Some(done as f64 / total.max(1) as f64), text: message });
        job.next_slice().await?;
        if !app.is_current(ticket) {
            job.cancel();
            return Ok(None);
        }
    }
}

/// The session of load `ticket`, delivering what it produces to the page.
struct Running<'a, 'c> {
    app: &'a dyn Page,
    ticket: u64,
    session: Session<'c>,
}

impl Drop for Running<'_, '_> {
    /// A session ends when another file is opened or the page closes the capture: every
    /// job still under way is cancelled, and the log says so.
    fn drop(&mut self) {
        self.session.close();
        for report in self.session.take_reports() {
            slice::log(self.ticket, report);
        }
    }
}

impl Running<'_, '_> {
    /// Shows what the link asked for, and the jobs it starts.
    async fn begin(&mut self, restore: &Restore) -> Result<(), Failure> {
        self.session.restore(restore);
        self.deliver();
        yield_now().await?;
        Ok(())
    }

    /// The baseline `name` could not be read or opened: the capture stays open alone, and
    /// the page says why.
    fn base_failed(&mut self, name: &str, failure: &Failure) {
        self.session.base_failed();
        if self.app.is_current(self.ticket) {
            self.app
                .apply(Update::BaseFailed(format!("Could not open {name}: {failure}. The candidate is shown alone.")));
        }
        self.deliver();
    }

    /// Serves the session while `other` runs beside it on the page's thread: `other`'s
    /// output once it finishes, `None` where the session ended first (another file was
    /// opened, or the page closed it).
    async fn serve_until<T>(
        &mut self,
        mailbox: &Mailbox,
        other: impl Future<Output = T>,
    ) -> Result<Option<T>, Failure> {
        let mut other = std::pin::pin!(other);
        let mut serving = std::pin::pin!(self.serve(mailbox));
        std::future::poll_fn(|cx| {
            if let Poll::Ready(output) = other.as_mut().poll(cx) {
                return Poll::Ready(Ok(Some(output)));
            }
            serving.as_mut().poll(cx).map(|served| served.map(|()| None))
        })
        .await
    }

    /// Serves commands and the session's jobs until the session ends.
    async fn serve(&mut self, mailbox: &Mailbox) -> Result<(), Failure> {
        let mut woken = false;
        loop {
            while let Some(command) = mailbox.try_recv() {
                let open = self.session.handle(command);
                self.deliver();
                if !open {
                    return Ok(());
                }
            }
            if !self.app.is_current(self.ticket) {
                return Ok(());
            }
            if !woken && self.session.waiting() {
                // Only the workers have work: sleep until one answers or a command comes,
                // then give the jobs a slice whatever woke it, as `waiting` tells only
                // how the last slice ended.
                mailbox.wait().await;
                woken = true;
                continue;
            }
            woken = false;
            if self.session.busy() {
                self.session.work(&slice::start());
                self.deliver();
                yield_now().await?;
                continue;
            }
            let command = mailbox.recv().await;
            let open = self.session.handle(command);
            self.deliver();
            if !open {
                return Ok(());
            }
        }
    }

    /// Logs the session's slices and hands its updates to the page, oldest first.
    fn deliver(&mut self) {
        for report in self.session.take_reports() {
            slice::log(self.ticket, report);
        }
        if !self.app.is_current(self.ticket) {
            return;
        }
        for update in self.session.take_updates() {
            self.app.apply(update);
        }
    }
}
