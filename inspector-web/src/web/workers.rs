//! The statistics workers: web workers, each its own wasm instance (the
//! `sgpt-stats-worker` crate), that scan pieces of the statistics job's range, then of a
//! comparison's sides, then check pieces of the capture's frames whole, while the page
//! goes on with everything else (see `sgpt_format::analysis::scan::piece` for what
//! travels, and that crate's documentation for the messages). Nothing is shared: a piece's
//! entries and bytes are copied out of the page's memory and transferred, its answer
//! transferred back.
//!
//! They start with the load, so that each has compiled its wasm by the time statistics
//! begin; until one says it is ready, and whenever none is left, the page scans the
//! pieces itself. `?workers=N` sets how many (0: none); otherwise one for each core the
//! browser reports, at most [`MOST_WORKERS`]. With a worker on every core the page leaves
//! checking every frame until the statistics are done, and sleeps while the workers scan:
//! on two cores two workers so finish the hour-long capture's statistics in about two
//! thirds of one worker's time beside the page's check. Each worker costs some 30 MB.
//! `body[data-stats-workers]` says how many are ready.
//!
//! V8 compiles the hot functions again with TurboFan as the statistics run, on the same
//! cores (a few hundred ms of CPU on the 95 MB capture). Having each worker scan a small
//! synthetic capture while the file downloads, so that this happened earlier, was measured
//! and made the load slower: the warm-up's own scan in baseline code cost more than it moved.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use sgpt_format::FramePiece;
use sgpt_format::analysis::scan::piece::{ENTRY_BYTES, PieceShare, encode_entries};
use sgpt_format::analysis::scan::{PIECE_BYTES, PIECE_FRAMES, PieceScanner};
use sgpt_web_glue::{Listener, describe};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, UrlSearchParams, Worker};

use super::mailbox::Mailbox;

/// The worker's loader, beside the page: Trunk's shim that loads its wasm.
const LOADER: &str = "sgpt-stats-worker_loader.js";
/// Workers started at most, whatever the cores.
pub const MOST_WORKERS: usize = 4;
/// Pieces a worker holds at once: one to scan, one waiting, so it never idles between them.
const PIECES_EACH: usize = 2;
/// A new buffer's size: the most a piece holds, its records' bytes and its entries
/// encoded, unless one frame alone is larger.
const SPARE_BYTES: u32 = (PIECE_BYTES as usize + PIECE_FRAMES * ENTRY_BYTES) as u32;
/// Spare buffers kept at most: as many as pieces can be out at once.
const MOST_SPARES: usize = MOST_WORKERS * PIECES_EACH;

/// An answer as a worker posts it: its job's generation, the piece's number, its figures.
type Answer = (u32, usize, Result<Vec<u8>, String>);

/// One worker and what it holds.
struct Handle {
    worker: Worker,
    state: Rc<WorkerState>,
    _listeners: [Listener; 2],
}

#[derive(Default)]
struct WorkerState {
    ready: Cell<bool>,
    gone: Cell<bool>,
    /// The generation whose share it was last posted.
    share: Cell<u32>,
    /// (generation, piece) posted and not yet answered.
    holding: RefCell<BTreeSet<(u32, usize)>>,
}

/// The workers, as the session's jobs' [`PieceScanner`].
pub struct WorkerPool {
    workers: Vec<Handle>,
    answers: Rc<RefCell<VecDeque<Answer>>>,
    /// Buffers the workers handed back, to copy the next pieces into.
    spares: Rc<RefCell<Vec<ArrayBuffer>>>,
    /// The current job's generation (0 before the first) and its share, as JSON.
    generation: u32,
    share: Option<String>,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool")
            .field("workers", &self.workers.len())
            .field("generation", &self.generation)
            .finish()
    }
}

impl WorkerPool {
    /// Starts the workers the page wants; `mailbox` is woken whenever one answers or
    /// becomes ready, so a session waiting on them goes on. A worker that cannot be
    /// started is left out (the page then scans more itself), and the console says why.
    pub fn start(mailbox: &Rc<Mailbox>) -> Self {
        let answers = Rc::new(RefCell::new(VecDeque::new()));
        let spares = Rc::new(RefCell::new(Vec::new()));
        let ready = Rc::new(Cell::new(0));
        let mut workers = Vec::new();
        for _ in 0..wanted() {
            match spawn(&answers, &spares, &ready, mailbox) {
                Ok(handle) => workers.push(handle),
                Err(error) => {
                    web_sys::console::warn_1(
                        &format!("a statistics worker did not start: {}", describe(&error)).into(),
                    );
                    break;
                }
            }
        }
        show_ready(0);
        Self { workers, answers, spares, generation: 0, share: None }
    }

    /// Whether the workers started are as many as the cores: the page's thread then
    /// leaves checking frames until the statistics are done, rather than take a core
    /// from a worker.
    pub fn takes_every_core(&self) -> bool {
        self.workers.len() >= cores()
    }

    fn live(&self) -> impl Iterator<Item = &Handle> {
        self.workers.iter().filter(|handle| handle.state.ready.get() && !handle.state.gone.get())
    }

    /// `entries` then `bytes`, in a spare buffer large enough, else in a new one.
    fn buffer_for(&self, entries: &[u8], bytes: &[u8]) -> ArrayBuffer {
        let len = (entries.len() + bytes.len()) as u32;
        let spare = {
            let mut spares = self.spares.borrow_mut();
            let at = spares.iter().position(|buffer| buffer.byte_length() >= len);
            at.map(|at| spares.swap_remove(at))
        };
        // New buffers are as large as a piece may be, so that any later piece fits in them.
        let buffer = spare.unwrap_or_else(|| ArrayBuffer::new(len.max(SPARE_BYTES)));
        Uint8Array::new_with_byte_offset_and_length(&buffer, 0, entries.len() as u32).copy_from(entries);
        Uint8Array::new_with_byte_offset_and_length(&buffer, entries.len() as u32, bytes.len() as u32).copy_from(bytes);
        buffer
    }

    fn holding(&self, handle: &Handle) -> usize {
        handle.state.holding.borrow().iter().filter(|(generation, _)| *generation == self.generation).count()
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        for handle in &self.workers {
            handle.worker.terminate();
        }
    }
}

impl PieceScanner for WorkerPool {
    fn begin(&mut self, share: &PieceShare) {
        self.generation += 1;
        self.share = Some(share.to_json());
        self.answers.borrow_mut().clear();
    }

    fn has_room(&self) -> bool {
        self.live().any(|handle| self.holding(handle) < PIECES_EACH)
    }

    fn send(&mut self, number: usize, piece: &FramePiece<'_>) {
        // A piece that cannot be sent is answered as failed at once: the job scans it.
        let fail = |why: String| self.answers.borrow_mut().push_back((self.generation, number, Err(why)));
        let Some(json) = &self.share else { return fail("no job was begun".to_owned()) };
        let Some(handle) = self.live().min_by_key(|handle| self.holding(handle)) else {
            return fail("no worker is ready".to_owned());
        };
        let generation = JsValue::from(self.generation);
        if handle.state.share.get() != self.generation {
            let message = Array::of3(&"share".into(), &generation, &json.into());
            if let Err(error) = handle.worker.post_message(&message) {
                return fail(describe(&error));
            }
            handle.state.share.set(self.generation);
        }
        let entries = encode_entries(piece.entries());
        let buffer = self.buffer_for(&entries, piece.bytes());
        let message = Array::new();
        for part in [
            JsValue::from("piece"),
            generation,
            (number as f64).into(),
            (piece.first() as f64).into(),
            (piece.base() as f64).into(),
            (entries.len() as f64).into(),
            (piece.bytes().len() as f64).into(),
            buffer.clone().into(),
        ] {
            message.push(&part);
        }
        let transfer = Array::of1(&buffer);
        match handle.worker.post_message_with_transfer(&message, &transfer) {
            Ok(()) => {
                handle.state.holding.borrow_mut().insert((self.generation, number));
            }
            Err(error) => fail(describe(&error)),
        }
    }

    fn generation(&self) -> u64 {
        u64::from(self.generation)
    }

    fn receive(&mut self) -> Option<(usize, Result<Vec<u8>, String>)> {
        loop {
            let (generation, number, answer) = self.answers.borrow_mut().pop_front()?;
            if generation == self.generation {
                return Some((number, answer));
            }
        }
    }
}

/// How many workers the page wants: `?workers=N`, else one a core, at most
/// [`MOST_WORKERS`]. The page's own thread mostly sleeps while they scan (see
/// [`WorkerPool::takes_every_core`]), so it needs no core of its own.
fn wanted() -> usize {
    let Some(window) = web_sys::window() else { return 0 };
    let asked = window
        .location()
        .search()
        .ok()
        .and_then(|search| UrlSearchParams::new_with_str(&search).ok())
        .and_then(|params| params.get("workers"))
        .and_then(|text| text.parse::<usize>().ok());
    asked.unwrap_or_else(cores).min(MOST_WORKERS)
}

/// The cores the browser reports, at least one.
fn cores() -> usize {
    web_sys::window().map_or(1, |window| window.navigator().hardware_concurrency() as usize).max(1)
}

/// Starts one worker; `spares` takes the buffers it hands back, `ready` counts the pool's
/// workers ready and not gone.
fn spawn(
    answers: &Rc<RefCell<VecDeque<Answer>>>,
    spares: &Rc<RefCell<Vec<ArrayBuffer>>>,
    ready: &Rc<Cell<usize>>,
    mailbox: &Rc<Mailbox>,
) -> Result<Handle, JsValue> {
    let worker = Worker::new(LOADER)?;
    let state = Rc::new(WorkerState::default());
    let on_message = {
        let (state, answers, ready, mailbox) =
            (Rc::clone(&state), Rc::clone(answers), Rc::clone(ready), Rc::clone(mailbox));
        let spares = Rc::clone(spares);
        Listener::new(&worker, "message", move |event| {
            let Some(event) = event.dyn_ref::<MessageEvent>() else { return };
            let message = Array::from(&event.data());
            let kind = message.get(0).as_string().unwrap_or_default();
            if kind == "ready" {
                if !state.ready.replace(true) {
                    ready.set(ready.get() + 1);
                    show_ready(ready.get());
                }
                mailbox.wake();
                return;
            }
            let generation = message.get(1).as_f64().map_or(0, |value| value as u32);
            let number = message.get(2).as_f64().map_or(usize::MAX, |value| value as usize);
            state.holding.borrow_mut().remove(&(generation, number));
            let buffer = message.get(4).dyn_into::<ArrayBuffer>().ok();
            let answer = match (kind.as_str(), &buffer) {
                ("figures", Some(buffer)) => {
                    let len = message.get(3).as_f64().map_or(0, |len| len as u32).min(buffer.byte_length());
                    Ok(Uint8Array::new_with_byte_offset_and_length(buffer, 0, len).to_vec())
                }
                _ => Err(message.get(3).as_string().unwrap_or_else(|| "the worker gave no reason".to_owned())),
            };
            if let Some(buffer) = buffer {
                let mut spares = spares.borrow_mut();
                if spares.len() < MOST_SPARES {
                    spares.push(buffer);
                }
            }
            answers.borrow_mut().push_back((generation, number, answer));
            mailbox.wake();
        })
    }
    .map_err(|error| JsValue::from_str(error.message()))?;
    let on_error = {
        let (state, answers, ready, mailbox) =
            (Rc::clone(&state), Rc::clone(answers), Rc::clone(ready), Rc::clone(mailbox));
        Listener::new(&worker, "error", move |event| {
            let why = event.dyn_ref::<ErrorEvent>().map_or_else(|| "it failed".to_owned(), ErrorEvent::message);
            if !state.gone.replace(true) && state.ready.get() {
                ready.set(ready.get() - 1);
                show_ready(ready.get());
            }
            // Whatever it held comes back as failed, for the page to scan.
            for (generation, number) in std::mem::take(&mut *state.holding.borrow_mut()) {
                answers.borrow_mut().push_back((generation, number, Err(format!("the worker stopped: {why}"))));
            }
            mailbox.wake();
        })
    }
    .map_err(|error| JsValue::from_str(error.message()))?;
    Ok(Handle { worker, state, _listeners: [on_message, on_error] })
}

/// `body[data-stats-workers]`: how many workers are ready and not gone.
fn show_ready(count: usize) {
    if let Some(body) = web_sys::window().and_then(|window| window.document()).and_then(|document| document.body()) {
        let _ = body.dataset().set("statsWorkers", &count.to_string());
    }
}
