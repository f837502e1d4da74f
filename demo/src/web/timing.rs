//! The page's timing level and its console API on `window.sgpt`.
//!
//! The level is read once at module start, before the renderer boots (boot is what most
//! wants measuring): `?timing=off|trace|full`, then the stored preference, else `off`.
//! From the console:
//!
//! - `sgpt.timing.level()` returns the level; `sgpt.timing.level('full')` changes it and
//!   stores the preference for the next visit;
//! - `sgpt.timing.drain()` returns the retained entries (at `full`) as plain objects
//!   `{name, track, start, duration, properties}` and clears them;
//! - `sgpt.timing.retention()` returns `{retained, dropped, cap}`;
//! - `sgpt.timing.bench(n)` times `n` spans at each level against an empty loop, warm;
//! - `sgpt.profile(frames)` (see [`Profile`]) runs frames at `full` and summarizes them.

use std::cell::RefCell;

use sgpt_recorder::timing::{self, BrowserSink, Drained, RETAINED_CAP, Span, TimingLevel, TrackSummary, track};
use sgpt_web_glue::JsError;
use wasm_bindgen::prelude::*;
use web_time::Instant;

use super::dom;

/// Where `sgpt.timing.level(name)` keeps the preference.
const STORAGE_KEY: &str = "sgpt.timing";

type ApiFn = Closure<dyn FnMut(JsValue) -> Result<JsValue, JsValue>>;

thread_local! {
    /// The console API's closures, owned for the page's lifetime.
    static API: RefCell<Vec<ApiFn>> = const { RefCell::new(Vec::new()) };
}

/// The preference stored by an earlier `sgpt.timing.level(name)`.
fn stored() -> Option<TimingLevel> {
    let storage = dom::window().local_storage().ok().flatten()?;
    TimingLevel::from_name(&storage.get_item(STORAGE_KEY).ok().flatten()?)
}

fn store(level: TimingLevel) {
    // Storage can be unavailable (private mode, quota); the level still applies now.
    if let Some(storage) = dom::window().local_storage().ok().flatten() {
        let _ = storage.set_item(STORAGE_KEY, level.name());
    }
}

pub(crate) fn apply(level: TimingLevel) {
    timing::set_level(level);
    dom::set_data("timing", level.name());
}

/// Attaches the browser sink and sets the level from `?timing=` or the stored preference.
/// The page's entry point calls it first: attaching is a process-wide side effect.
pub(crate) fn init(query: Option<TimingLevel>) -> Result<(), JsError> {
    timing::attach(BrowserSink::new());
    apply(query.or_else(stored).unwrap_or_default());
    let api = js_sys::Object::new();
    method(&api, "level", |name| {
        if name.is_undefined() {
            return Ok(JsValue::from_str(timing::level().name()));
        }
        let name = name.as_string().unwrap_or_default();
        let level = TimingLevel::from_name(&name)
            .ok_or_else(|| js_sys::Error::new(&format!("timing level {name:?}: expected off, trace or full")))?;
        apply(level);
        store(level);
        Ok(JsValue::from_str(level.name()))
    })?;
    method(&api, "drain", |_| Ok(drained(&timing::drain()).into()))?;
    method(&api, "retention", |_| {
        let retention = timing::retention();
        let out = js_sys::Object::new();
        dom::set_property(&out, "retained", &JsValue::from_f64(retention.retained as f64))?;
        dom::set_property(&out, "dropped", &JsValue::from_f64(retention.dropped as f64))?;
        dom::set_property(&out, "cap", &JsValue::from_f64(retention.cap as f64))?;
        Ok(out.into())
    })?;
    method(&api, "bench", |iterations| Ok(bench(iterations.as_f64().map_or(10_000, |n| n as usize))?.into()))?;
    let sgpt = dom::sgpt()?;
    dom::set_property(&sgpt, "timing", &api)?;
    Ok(())
}

/// Sets `target[name]` to a function of one argument, owned by the page.
pub(crate) fn method(
    target: &js_sys::Object,
    name: &str,
    body: impl FnMut(JsValue) -> Result<JsValue, JsValue> + 'static,
) -> Result<(), JsError> {
    let closure = ApiFn::new(body);
    dom::set_property(target, name, closure.as_ref())?;
    API.with(|api| api.borrow_mut().push(closure));
    Ok(())
}

/// Drained entries as plain objects.
fn drained(entries: &[Drained]) -> js_sys::Array {
    let out = js_sys::Array::new();
    for entry in entries {
        let object = js_sys::Object::new();
        let properties = js_sys::Object::new();
        for (key, value) in &entry.properties {
            let _ = js_sys::Reflect::set(&properties, &JsValue::from_str(key), &JsValue::from_f64(*value));
        }
        let _ = js_sys::Reflect::set(&object, &"name".into(), &JsValue::from_str(&entry.name));
        let _ = js_sys::Reflect::set(&object, &"track".into(), &JsValue::from_str(&entry.track));
        let _ = js_sys::Reflect::set(&object, &"start".into(), &JsValue::from_f64(entry.start_ms));
        let _ = js_sys::Reflect::set(&object, &"duration".into(), &JsValue::from_f64(entry.duration_ms));
        let _ = js_sys::Reflect::set(&object, &"properties".into(), &properties);
        out.push(&object);
    }
    out
}

/// A profile's summary: `{frames, dropped, tracks: {name: {count, total, mean, share}}}`,
/// `share` being a fraction of the frame track's total, or "—" for a track whose spans
/// overlap.
pub(crate) fn summary(frames: u64, tracks: &[TrackSummary], dropped: u64) -> Result<js_sys::Object, JsError> {
    let out = js_sys::Object::new();
    dom::set_property(&out, "frames", &JsValue::from_f64(frames as f64))?;
    dom::set_property(&out, "dropped", &JsValue::from_f64(dropped as f64))?;
    let by_track = js_sys::Object::new();
    for summary in tracks {
        let object = js_sys::Object::new();
        dom::set_property(&object, "count", &JsValue::from_f64(summary.count as f64))?;
        dom::set_property(&object, "total", &JsValue::from_f64(summary.total_ms))?;
        dom::set_property(&object, "mean", &JsValue::from_f64(summary.mean_ms))?;
        let share = summary.share.map_or_else(|| JsValue::from_str("—"), JsValue::from_f64);
        dom::set_property(&object, "share", &share)?;
        dom::set_property(&by_track, &summary.track, &object)?;
    }
    dom::set_property(&out, "tracks", &by_track)?;
    Ok(out)
}

/// How many more iterations the loops that cost nanoseconds run.
const FAST_LOOPS: usize = 100;

/// Nanoseconds per iteration of `body`, over `iterations`.
fn per_iteration(iterations: usize, mut body: impl FnMut(usize)) -> f64 {
    let started = Instant::now();
    for i in 0..iterations {
        body(std::hint::black_box(i));
    }
    started.elapsed().as_secs_f64() * 1e9 / iterations as f64
}

/// The second of two runs: the first compiles and warms what the second times.
fn warm(mut run: impl FnMut() -> f64) -> f64 {
    run();
    run()
}

/// Cost per span at each level against an empty loop: `{iterations, emptyNs, offNs,
/// traceNs, fullNs, offRatio, traceRatio, fullRatio}` (ratios to the empty loop). A span
/// is what instrumented code pays: two clock reads and one entry. Each level runs once
/// untimed first, so the figure is the steady state rather than the first run's compile.
/// `trace` and `full` run at most [`RETAINED_CAP`] spans, so none is refused by the cap
/// (entries are drained after each run); the empty loop and `off` run [`FAST_LOOPS`]
/// times as many, so a 100 µs clock still resolves them. `tests/bench/timing_bench.mjs`
/// sets these beside the same calls made from JS.
fn bench(iterations: usize) -> Result<js_sys::Object, JsError> {
    let iterations = iterations.clamp(1, RETAINED_CAP);
    let previous = timing::level();
    let _ = timing::drain();
    let empty = warm(|| {
        per_iteration(iterations * FAST_LOOPS, |i| {
            std::hint::black_box(i);
        })
    });
    let mut figures = Vec::new();
    for level in TimingLevel::ALL {
        let count = if level == TimingLevel::Off { iterations * FAST_LOOPS } else { iterations };
        figures.push(warm(|| {
            timing::set_level(level);
            let ns = per_iteration(count, |_| Span::begin(track::ENGINE, "bench").end());
            timing::set_level(TimingLevel::Off);
            let _ = timing::drain();
            ns
        }));
    }
    timing::set_level(previous);
    let out = js_sys::Object::new();
    dom::set_property(&out, "iterations", &JsValue::from_f64(iterations as f64))?;
    dom::set_property(&out, "emptyNs", &JsValue::from_f64(empty))?;
    for (level, ns) in TimingLevel::ALL.into_iter().zip(&figures) {
        dom::set_property(&out, &format!("{}Ns", level.name()), &JsValue::from_f64(*ns))?;
        dom::set_property(&out, &format!("{}Ratio", level.name()), &JsValue::from_f64(ns / empty.max(1e-3)))?;
    }
    Ok(out)
}
