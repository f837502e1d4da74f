//! The running page: the scene in a requestAnimationFrame loop, and the Record panel.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use sgpt_recorder::timing::{self, Budget, FrameInterval, PhaseClock, TimingLevel, track};
use sgpt_recorder::{Level, RecordError, StopFuture};
use sgpt_web_glue::{JsError, Listener, panic};
use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

use super::dom;
use super::gpu::{Faults, Gpu};
use super::present::Presenter;
use super::query;
use super::record::{Capture, Recording, size};
use super::timing as page_timing;
use crate::{DemoError, Scene};

/// Frames submitted but not yet done on the GPU. A software renderer draws slower than
/// the display refreshes; past this the page skips animation frames instead of queueing
/// work (and outrunning the recorder's timer pool).
const MAX_FRAMES_IN_FLIGHT: u32 = 2;

pub(crate) struct App {
    gpu: Gpu,
    scene: Scene,
    presenter: Presenter,
    recording: Option<Recording>,
    capture: Option<Capture>,
    in_flight: Arc<AtomicU32>,
    /// A fatal fault was shown: no more frames.
    halted: bool,
    /// `?lose-device=N`: destroy the device after frame N.
    lose_device: Option<u64>,
    /// Start-up's phases, until the first frame is presented.
    boot: Option<PhaseClock>,
    frame_interval: FrameInterval,
    profile: Option<Profile>,
}

/// `sgpt.profile(frames)` in progress: frames left at `full`, then a summary.
struct Profile {
    frames: u64,
    remaining: u64,
    previous: TimingLevel,
    resolve: js_sys::Function,
}

impl App {
    pub(crate) fn new(
        gpu: Gpu,
        scene: Scene,
        presenter: Presenter,
        lose_device: Option<u64>,
        boot: PhaseClock,
    ) -> Self {
        Self {
            gpu,
            scene,
            presenter,
            recording: None,
            capture: None,
            in_flight: Arc::new(AtomicU32::new(0)),
            halted: false,
            lose_device,
            boot: Some(boot),
            frame_interval: FrameInterval::new(),
            profile: None,
        }
    }

    /// Starts `sgpt.profile`: `frames` rendered frames at `full`, then `resolve(summary)`.
    fn start_profile(&mut self, frames: u64, resolve: js_sys::Function) -> Result<(), String> {
        if self.profile.is_some() {
            return Err("a profile is already running".to_owned());
        }
        if self.halted {
            return Err("the page stopped rendering after an error".to_owned());
        }
        let previous = timing::level();
        // Entries from before the profile are not part of it.
        let _ = timing::drain();
        page_timing::apply(TimingLevel::Full);
        self.profile = Some(Profile { frames, remaining: frames, previous, resolve });
        Ok(())
    }

    /// Counts a rendered frame toward a running profile; the last one summarizes it.
    fn profile_frame(&mut self) {
        let Some(profile) = self.profile.as_mut() else { return };
        profile.remaining -= 1;
        if profile.remaining > 0 {
            return;
        }
        let Some(profile) = self.profile.take() else { return };
        let entries = timing::drain();
        let dropped = timing::retention().dropped;
        page_timing::apply(profile.previous);
        let summary = page_timing::summary(profile.frames, &timing::summarize(&entries), dropped);
        let _ = match summary {
            Ok(summary) => profile.resolve.call1(&JsValue::NULL, &summary),
            Err(error) => profile.resolve.call1(&JsValue::NULL, &js_sys::Error::new(&error.to_string())),
        };
    }

    /// Starts recording, with the demo's memory profile when `memory`; a session already
    /// recording is left alone.
    pub(crate) fn start_recording(&mut self, level: Level, frames: Option<u64>, memory: bool) -> Result<(), String> {
        if self.halted {
            return Err("the page stopped rendering after an error".to_owned());
        }
        if self.recording.is_some() {
            return Err("a recording is already running".to_owned());
        }
        self.recording = Some(Recording::start(&self.scene, &self.gpu, level, frames, memory)?);
        dom::set_data("level", level.name());
        dom::set_state("recording");
        Panel::recording(true);
        Ok(())
    }

    /// Stops the recording; the returned future resolves once its last frames are read back.
    pub(crate) fn stop_recording(&mut self) -> Option<StopFuture> {
        self.recording.as_mut().and_then(Recording::stop)
    }

    /// One animation frame: render, record, present. Returns a stop future to await when
    /// the recording finished during this frame.
    pub(crate) fn tick(&mut self) -> Option<StopFuture> {
        if self.halted {
            return None;
        }
        self.frame_interval.tick();
        let faults = Faults::take(&self.gpu.faults);
        if let Some(lost) = faults.lost {
            if let Some(recording) = &self.recording {
                recording.device_lost();
            }
            return self.halt(&format!("the GPU device was lost ({lost})"));
        }
        if let Some(error) = faults.errors.first() {
            return self.halt(&format!("WebGPU error: {error}"));
        }
        if self.in_flight.load(Ordering::Acquire) >= MAX_FRAMES_IN_FLIGHT {
            return None;
        }
        let session = self.recording.as_mut().and_then(Recording::frame);
        let mut phases = PhaseClock::start(track::PHASES);
        match self.scene.frame_phased(session, &mut phases) {
            Ok(()) => {}
            Err(DemoError::Record(RecordError::DeviceLost)) => return self.halt("the GPU device was lost"),
            Err(error) => return self.halt(&error.to_string()),
        }
        self.presenter.present(&self.gpu.device, &self.gpu.queue, &self.gpu.surface, self.scene.output());
        phases.phase("present");
        phases.finish(track::ENGINE, "engine", Budget::Engine);
        if let Some(mut boot) = self.boot.take() {
            boot.phase("first frame");
            boot.end();
            timing::marker(track::BOOT, "first frame");
        }
        self.profile_frame();
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let in_flight = Arc::clone(&self.in_flight);
        self.gpu.queue.on_submitted_work_done(move || {
            in_flight.fetch_sub(1, Ordering::AcqRel);
        });
        if self.lose_device.is_some_and(|after| self.scene.frames() >= after) {
            self.lose_device = None;
            // The browser reports the loss through the device-lost callback, as a real one.
            self.gpu.device.destroy();
        }
        let recording = self.recording.as_mut()?;
        dom::set_text(
            "status",
            &format!(
                "recording at {}: {} frames, {}",
                recording.level(),
                recording.frames_written(),
                size(recording.bytes())
            ),
        );
        // The frame limit stops the session inside `end_frame`.
        if recording.stopped_unawaited() { recording.stop() } else { None }
    }

    /// Shows a fatal error and stops rendering; a recording stops with what it has.
    fn halt(&mut self, message: &str) -> Option<StopFuture> {
        self.halted = true;
        dom::show_error(message);
        self.recording.as_mut().and_then(Recording::stop)
    }

    /// The recording's stop future resolved: publish its capture.
    fn finished(&mut self, summary: Result<sgpt_recorder::CaptureSummary, RecordError>) {
        let Some(recording) = self.recording.take() else { return };
        Panel::recording(false);
        let capture = match recording.into_capture(summary.map_err(|error| error.to_string())) {
            Ok(capture) => capture,
            Err(error) => {
                dom::show_error(&format!("the capture Blob could not be built: {error}"));
                return;
            }
        };
        if let Err(error) = capture.publish() {
            dom::show_error(&format!("the capture could not be published: {error}"));
            return;
        }
        let failed = capture.summary().as_ref().err().cloned();
        // Replacing the previous capture revokes its object URL.
        self.capture = Some(capture);
        match failed {
            Some(error) => dom::show_error(&format!("recording failed: {error}")),
            None if !self.halted => dom::set_state("recorded"),
            None => {}
        }
    }
}

/// Installs `sgpt.profile(frames)`: a promise of the per-track summary of `frames`
/// rendered frames at `full` (see `timing::summary`).
pub(crate) fn install_profile(app: &Rc<RefCell<App>>) -> Result<(), JsError> {
    let app = Rc::clone(app);
    let sgpt = dom::sgpt()?;
    page_timing::method(&sgpt, "profile", move |frames| {
        let frames = frames.as_f64().unwrap_or(60.0);
        let frames =
            query::frames(&format!("{frames}"), "profile frames").map_err(|error| js_sys::Error::new(&error))?;
        let mut failed = None;
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            failed = app.borrow_mut().start_profile(frames, resolve).err();
        });
        match failed {
            Some(error) => Err(js_sys::Error::new(&error).into()),
            None => Ok(promise.into()),
        }
    })
}

/// Awaits a recording's stop future, then publishes its capture.
pub(crate) fn finish(app: &Rc<RefCell<App>>, stop: StopFuture) {
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        let summary = stop.await;
        if !panic::happened() {
            app.borrow_mut().finished(summary);
        }
    });
}

/// The Record panel's controls.
pub(crate) struct Panel;

impl Panel {
    /// Wires the panel to `app`; the listeners live as long as the returned handles.
    pub(crate) fn wire(app: &Rc<RefCell<App>>) -> Result<Vec<Listener>, JsError> {
        let start = dom::element::<web_sys::HtmlButtonElement>("start")?;
        let stop = dom::element::<web_sys::HtmlButtonElement>("stop")?;
        let on_start = {
            let app = Rc::clone(app);
            move |_: web_sys::Event| {
                let chosen = Panel::chosen()
                    .and_then(|(level, frames, memory)| app.borrow_mut().start_recording(level, frames, memory));
                if let Err(error) = chosen {
                    dom::set_text("status", &error);
                }
            }
        };
        let on_stop = {
            let app = Rc::clone(app);
            move |_: web_sys::Event| {
                let stop = app.borrow_mut().stop_recording();
                if let Some(stop) = stop {
                    dom::set_text("status", "stopping: reading back the last frames…");
                    finish(&app, stop);
                }
            }
        };
        Panel::recording(false);
        Ok(vec![Listener::new(&start, "click", on_start)?, Listener::new(&stop, "click", on_stop)?])
    }

    /// The level, frame count and memory switch the panel is set to; an empty frame count
    /// records until Stop.
    fn chosen() -> Result<(Level, Option<u64>, bool), String> {
        let level = dom::element::<web_sys::HtmlSelectElement>("level").map_err(|error| error.to_string())?;
        let frames = dom::element::<web_sys::HtmlInputElement>("frames").map_err(|error| error.to_string())?;
        let memory = dom::element::<web_sys::HtmlInputElement>("memory").map_err(|error| error.to_string())?;
        let level = query::level(&level.value())?;
        let frames = frames.value();
        let frames = if frames.trim().is_empty() { None } else { Some(query::frames(&frames, "frames")?) };
        Ok((level, frames, memory.checked()))
    }

    /// Sets the memory switch to what the query asked for (`?memory=0` clears it).
    pub(crate) fn show_memory(memory: bool) {
        if let Ok(input) = dom::element::<web_sys::HtmlInputElement>("memory") {
            input.set_checked(memory);
        }
    }

    /// Sets the panel to the values a `?record=` link asked for.
    pub(crate) fn show(level: Level, frames: u64) {
        if let Ok(select) = dom::element::<web_sys::HtmlSelectElement>("level") {
            select.set_value(level.name());
        }
        if let Ok(input) = dom::element::<web_sys::HtmlInputElement>("frames") {
            input.set_value(&frames.to_string());
        }
    }

    fn recording(recording: bool) {
        if let Ok(start) = dom::element::<web_sys::HtmlButtonElement>("start") {
            start.set_disabled(recording);
        }
        if let Ok(stop) = dom::element::<web_sys::HtmlButtonElement>("stop") {
            stop.set_disabled(!recording);
        }
    }
}

/// A requestAnimationFrame loop that stops when dropped.
pub(crate) struct AnimationLoop {
    inner: Rc<LoopInner>,
}

type FrameCallback = Closure<dyn FnMut(f64)>;

struct LoopInner {
    closure: RefCell<Option<FrameCallback>>,
    request: Cell<Option<i32>>,
}

impl LoopInner {
    fn schedule(&self) {
        if let Some(closure) = self.closure.borrow().as_ref()
            && let Ok(id) = dom::window().request_animation_frame(closure.as_ref().unchecked_ref())
        {
            self.request.set(Some(id));
        }
    }
}

impl AnimationLoop {
    /// Calls `body` once per animation frame until dropped (or a panic).
    pub(crate) fn start(mut body: impl FnMut() + 'static) -> Self {
        let inner = Rc::new(LoopInner { closure: RefCell::new(None), request: Cell::new(None) });
        // Weak: the closure must not keep its own loop alive.
        let weak: Weak<LoopInner> = Rc::downgrade(&inner);
        let closure = FrameCallback::new(move |_time: f64| {
            let Some(inner) = weak.upgrade() else { return };
            inner.request.set(None);
            if panic::happened() {
                return;
            }
            body();
            inner.schedule();
        });
        *inner.closure.borrow_mut() = Some(closure);
        inner.schedule();
        Self { inner }
    }
}

impl Drop for AnimationLoop {
    fn drop(&mut self) {
        if let Some(id) = self.inner.request.take() {
            let _ = dom::window().cancel_animation_frame(id);
        }
        self.inner.closure.borrow_mut().take();
    }
}
