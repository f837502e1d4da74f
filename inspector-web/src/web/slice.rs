//! Cooperative scheduling on the page's one thread, over [`crate::slicing`]: the page's
//! clock, the yield between slices, and the slice log the browser tests read.
//!
//! When the page's `window.__sgptSlices` is an array (a test's init script makes it one),
//! every job's share of every slice is pushed onto it as `{load, job, unit, units, cap,
//! why}`; otherwise nothing is recorded, at the cost of one property read per share.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Poll, Waker};

use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_time::{Duration, Instant};

use super::error::Error;
use crate::slicing::{self, JobKind, SliceReport};

/// The page's monotonic clock, from the first read.
#[derive(Clone, Copy, Debug, Default)]
pub struct PageClock;

impl slicing::Clock for PageClock {
    fn now(&self) -> Duration {
        thread_local! {
            static EPOCH: Instant = Instant::now();
        }
        EPOCH.with(Instant::elapsed)
    }
}

/// A slice on the page's clock.
pub type Slice = slicing::Slice<PageClock>;
/// A job's share of one.
pub type Share = slicing::Share<PageClock>;

/// Starts a slice now.
pub fn start() -> Slice {
    Slice::start(PageClock)
}

/// Appends `report`, for load `load`, to the slice log when a test keeps one.
pub fn log(load: u64, report: SliceReport) {
    let Some(window) = web_sys::window() else { return };
    let Ok(log) = js_sys::Reflect::get(&window, &JsValue::from_str("__sgptSlices")) else { return };
    let Ok(log) = log.dyn_into::<js_sys::Array>() else { return };
    let entry = js_sys::Object::new();
    let unit = report.job.unit();
    let why = report.why.map_or(JsValue::NULL, |why| JsValue::from_str(why.name()));
    for (key, value) in [
        ("load", JsValue::from_f64(load as f64)),
        ("job", JsValue::from_str(report.job.name())),
        ("unit", JsValue::from_str(unit.name())),
        ("units", JsValue::from_f64(report.units as f64)),
        ("cap", JsValue::from_f64(report.job.cap() as f64)),
        ("why", why),
    ] {
        let _ = js_sys::Reflect::set(&entry, &JsValue::from_str(key), &value);
    }
    log.push(&entry);
}

/// One job run on its own, slice after slice, by an async loop (reading, inflating,
/// opening): admits pieces of work, and between slices logs the share and yields.
#[derive(Debug)]
pub struct SoloJob {
    load: u64,
    job: JobKind,
    share: Share,
}

impl SoloJob {
    pub fn start(load: u64, job: JobKind) -> Self {
        Self { load, job, share: start().share(job) }
    }

    /// Whether a piece of at most `max` units fits this slice; see [`Share::admit`].
    pub fn admit(&mut self, max: u64) -> bool {
        self.share.admit(max)
    }

    /// Counts `units` done.
    pub fn count(&mut self, units: u64) {
        self.share.count(units);
    }

    /// Ends the slice: logs it, yields to the event loop, and starts the next.
    pub async fn next_slice(&mut self) -> Result<(), Error> {
        log(self.load, self.share.report(false));
        yield_now().await?;
        self.share = start().share(self.job);
        Ok(())
    }

    /// The job finished in this slice.
    pub fn done(self) {
        log(self.load, self.share.report(true));
    }

    /// The job is dropped unfinished (a newer file was opened).
    pub fn cancel(self) {
        log(self.load, SliceReport::cancelled(self.job, self.share.units()));
    }
}

/// Resolves after the event loop has run other tasks (input, painting). Awaiting a promise
/// that is already settled would not: it continues in the same task. A message posted to
/// ourselves is a task of its own, like a timeout, without the 4 ms a timeout set from a
/// timeout waits at least (HTML's nesting clamp): 12 % of every 30 ms slice. One channel
/// serves every yield: making and closing a channel each time cost the page's thread about
/// 30 ms over the hour-long capture's statistics, while the workers needed the cores.
pub async fn yield_now() -> Result<(), Error> {
    let turn = YIELDS.with(|yields| -> Result<Rc<Turn>, Error> {
        let mut yields = yields.borrow_mut();
        let yields = match &mut *yields {
            Some(yields) => yields,
            None => yields.insert(Yields::open()?),
        };
        let turn = Rc::new(Turn::default());
        yields.waiting.borrow_mut().push_back(Rc::clone(&turn));
        yields.sender.post_message(&JsValue::UNDEFINED)?;
        Ok(turn)
    })?;
    std::future::poll_fn(|cx| {
        if turn.came.get() {
            return Poll::Ready(());
        }
        *turn.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    })
    .await;
    Ok(())
}

thread_local! {
    /// The channel [`yield_now`] posts to, opened at the first yield.
    static YIELDS: RefCell<Option<Yields>> = const { RefCell::new(None) };
}

/// One yield waiting for its message.
#[derive(Default)]
struct Turn {
    came: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

/// A channel to ourselves: each message posted ends the oldest yield waiting, in its own task.
struct Yields {
    sender: web_sys::MessagePort,
    waiting: Rc<RefCell<VecDeque<Rc<Turn>>>>,
    _receiver: web_sys::MessagePort,
    _on_message: Closure<dyn FnMut()>,
}

impl Yields {
    fn open() -> Result<Self, Error> {
        let channel = web_sys::MessageChannel::new()?;
        let waiting: Rc<RefCell<VecDeque<Rc<Turn>>>> = Rc::default();
        let on_message = {
            let waiting = Rc::clone(&waiting);
            Closure::<dyn FnMut()>::new(move || {
                let Some(turn) = waiting.borrow_mut().pop_front() else { return };
                turn.came.set(true);
                if let Some(waker) = turn.waker.borrow_mut().take() {
                    waker.wake();
                }
            })
        };
        let receiver = channel.port1();
        receiver.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(Self { sender: channel.port2(), waiting, _receiver: receiver, _on_message: on_message })
    }
}
