//! The browser sink: the one file in the workspace that names the browser's timing APIs
//! (`console.timeStamp` and `performance`). A native test greps the tree for that.
//!
//! web-sys lacks the extended signatures, so they are bound here:
//!
//! - `trace`: `console.timeStamp(label, start, end, track, trackGroup, color)`. It
//!   reaches an active DevTools trace only and is not retained.
//! - `full`: `performance.measure(name, { start, end, detail: { devtools } })` for spans
//!   and `performance.mark(name, { startTime, detail })` for markers, with
//!   `dataType`, `track`, `trackGroup`, `color`, `properties` and `tooltipText`. They
//!   are retained in the page's timeline, readable by `getEntriesByType`, a
//!   `PerformanceObserver` or [`super::drain`]. A span is one measure with numeric ends,
//!   not a mark pair: half the entries, and nothing to clear twice.
//!
//! Clearing is by name, marks and measures separately: a bare `clearMarks()` leaves our
//! measures behind, and both bare forms clear entries other tools put there (seed 003:
//! 8,394 of ours beside 338,065 of React DevTools'). Only names this sink emitted are
//! cleared; another tool's entry with one of exactly those names would be cleared too.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use wasm_bindgen::prelude::*;

use super::entry::{Drained, Entry, EntryKind, RETAINED_CAP, Retention};
use super::level::TimingLevel;
use super::sink::TimingSink;
use super::track::GROUP;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

    #[wasm_bindgen(js_namespace = console, js_name = timeStamp)]
    fn console_time_stamp(label: &str, start: f64, end: f64, track: &JsValue, group: &JsValue, color: &JsValue);

    #[wasm_bindgen(js_namespace = performance, js_name = measure, catch)]
    fn performance_measure(name: &str, options: &js_sys::Object) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = performance, js_name = mark, catch)]
    fn performance_mark(name: &str, options: &js_sys::Object) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = performance, js_name = clearMeasures)]
    fn performance_clear_measures(name: &str);

    #[wasm_bindgen(js_namespace = performance, js_name = clearMarks)]
    fn performance_clear_marks(name: &str);

    #[wasm_bindgen(js_namespace = performance, js_name = getEntriesByName)]
    fn performance_entries_by_name(name: &str, kind: &str) -> js_sys::Array;
}

/// The page's high-resolution clock: the time base of `console.timeStamp` and User Timing.
pub(crate) fn now_ms() -> f64 {
    performance_now()
}

thread_local! {
    /// JS strings for our static names (tracks, colours, keys), made once: each `&str`
    /// crossing the boundary is otherwise decoded again.
    static STRINGS: RefCell<HashMap<(usize, usize), JsValue>> = RefCell::new(HashMap::new());
}

/// The JS string for a `'static` name, keyed by its address.
fn js(name: &'static str) -> JsValue {
    STRINGS.with(|strings| {
        strings
            .borrow_mut()
            .entry((name.as_ptr() as usize, name.len()))
            .or_insert_with(|| JsValue::from_str(name))
            .clone()
    })
}

fn set(target: &js_sys::Object, key: &'static str, value: &JsValue) {
    // Setting a data property on a plain object we made cannot throw.
    let _ = js_sys::Reflect::set(target, &js(key), value);
}

fn get(target: &JsValue, key: &'static str) -> JsValue {
    js_sys::Reflect::get(target, &js(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Writes entries to DevTools at the hub's level. Attach it from the page's entry point.
#[derive(Debug, Default)]
pub struct BrowserSink {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Names we gave measures and marks: what a drain reads back and clears.
    measures: HashSet<String>,
    marks: HashSet<String>,
    retained: usize,
    dropped: u64,
}

impl BrowserSink {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn detail(entry: &Entry<'_>) -> js_sys::Object {
        let devtools = js_sys::Object::new();
        let data_type = match entry.kind {
            EntryKind::Span => "track-entry",
            EntryKind::Marker => "marker",
        };
        set(&devtools, "dataType", &js(data_type));
        set(&devtools, "track", &js(entry.track.name));
        set(&devtools, "trackGroup", &js(GROUP));
        set(&devtools, "color", &js(entry.color.name()));
        if !entry.properties.is_empty() {
            let properties = js_sys::Array::new();
            for (key, value) in entry.properties {
                properties.push(&js_sys::Array::of2(&js(key), &JsValue::from_f64(*value)));
            }
            set(&devtools, "properties", &properties);
        }
        if let Some(tooltip) = entry.tooltip {
            set(&devtools, "tooltipText", &JsValue::from_str(tooltip));
        }
        let detail = js_sys::Object::new();
        set(&detail, "devtools", &devtools);
        detail
    }

    fn retain(&self, entry: &Entry<'_>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.retained >= RETAINED_CAP {
            state.dropped += 1;
            return;
        }
        let options = js_sys::Object::new();
        set(&options, "detail", &Self::detail(entry));
        let names = match entry.kind {
            EntryKind::Span => {
                set(&options, "start", &JsValue::from_f64(entry.start_ms));
                set(&options, "end", &JsValue::from_f64(entry.end_ms));
                // Throws only for a negative or non-finite time; such an entry is not kept.
                if performance_measure(entry.name, &options).is_err() {
                    return;
                }
                &mut state.measures
            }
            EntryKind::Marker => {
                set(&options, "startTime", &JsValue::from_f64(entry.start_ms));
                if performance_mark(entry.name, &options).is_err() {
                    return;
                }
                &mut state.marks
            }
        };
        if !names.contains(entry.name) {
            names.insert(entry.name.to_owned());
        }
        state.retained += 1;
    }
}

impl TimingSink for BrowserSink {
    fn emit(&self, level: TimingLevel, entry: &Entry<'_>) {
        match level {
            TimingLevel::Off => {}
            TimingLevel::Trace => console_time_stamp(
                entry.name,
                entry.start_ms,
                entry.end_ms,
                &js(entry.track.name),
                &js(GROUP),
                &js(entry.color.name()),
            ),
            TimingLevel::Full => self.retain(entry),
        }
    }

    fn drain(&self) -> Vec<Drained> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut drained = Vec::with_capacity(state.retained);
        for name in &state.measures {
            read_back(&performance_entries_by_name(name, "measure"), &mut drained);
            performance_clear_measures(name);
        }
        for name in &state.marks {
            read_back(&performance_entries_by_name(name, "mark"), &mut drained);
            performance_clear_marks(name);
        }
        state.retained = 0;
        drained
    }

    fn retention(&self) -> Retention {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        Retention { retained: state.retained, dropped: state.dropped, cap: RETAINED_CAP }
    }
}

/// Appends the entries of ours (track group [`GROUP`]) among `entries`.
fn read_back(entries: &js_sys::Array, out: &mut Vec<Drained>) {
    for entry in entries.iter() {
        let devtools = get(&get(&entry, "detail"), "devtools");
        if devtools.is_undefined() || get(&devtools, "trackGroup").as_string().as_deref() != Some(GROUP) {
            continue;
        }
        let properties = get(&devtools, "properties");
        let properties = if properties.is_undefined() {
            Vec::new()
        } else {
            js_sys::Array::from(&properties)
                .iter()
                .filter_map(|pair| {
                    let pair = js_sys::Array::from(&pair);
                    Some((pair.get(0).as_string()?, pair.get(1).as_f64()?))
                })
                .collect()
        };
        out.push(Drained {
            name: get(&entry, "name").as_string().unwrap_or_default(),
            track: get(&devtools, "track").as_string().unwrap_or_default(),
            start_ms: get(&entry, "startTime").as_f64().unwrap_or_default(),
            duration_ms: get(&entry, "duration").as_f64().unwrap_or_default(),
            properties,
        });
    }
}
