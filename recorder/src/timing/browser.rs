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
//! What an entry costs beyond the browser's own call is kept small: every string crosses
//! as a JS string made once ([`Names`]), since decoding one from wasm memory costs more
//! than the time stamp itself, and a `full` entry's `detail` object is built by one call
//! into a small JS module below rather than one boundary crossing per property.
//! `tests/bench/timing_bench.mjs` prints both levels beside the same calls made from JS.
//!
//! Clearing is by name, marks and measures separately: a bare `clearMarks()` leaves our
//! measures behind, and both bare forms clear entries other tools put there (
//! 8,394 of ours beside 338,065 of React DevTools'). Only names this sink emitted are
//! cleared; another tool's entry with one of exactly those names would be cleared too.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rustc_hash::FxHashMap;
use wasm_bindgen::prelude::*;

use super::entry::{Drained, Entry, EntryKind, RETAINED_CAP, Retention};
use super::level::TimingLevel;
use super::sink::TimingSink;
use super::track::{Color, GROUP};

// The receivers are held rather than looked up per call: reading the `performance` global
// costs about as much again as the clock read (`tests/bench/timing_bench.mjs` prints both).
// Each method is still looked up on its object per call, so a wrapper that a page or a test
// installs later is honoured.
#[wasm_bindgen]
extern "C" {
    type Performance;

    #[wasm_bindgen(thread_local_v2, js_name = performance)]
    static PERFORMANCE: Performance;

    #[wasm_bindgen(method)]
    fn now(this: &Performance) -> f64;

    #[wasm_bindgen(method, js_name = clearMeasures)]
    fn clear_measures(this: &Performance, name: &JsValue);

    #[wasm_bindgen(method, js_name = clearMarks)]
    fn clear_marks(this: &Performance, name: &JsValue);

    #[wasm_bindgen(method, js_name = getEntriesByName)]
    fn entries_by_name(this: &Performance, name: &JsValue, kind: &str) -> js_sys::Array;

    type Console;

    #[wasm_bindgen(thread_local_v2, js_name = console)]
    static CONSOLE: Console;

    #[wasm_bindgen(method, js_name = timeStamp)]
    fn time_stamp(
        this: &Console,
        label: &JsValue,
        start: f64,
        end: f64,
        track: &JsValue,
        group: &JsValue,
        color: &JsValue,
    );
}

// One call per `full` entry: the `detail.devtools` object is built here from scalars. The
// properties come as up to two key/value pairs plus an array of any others (`undefined`
// when none), so the common case builds nothing across the boundary. `false` when the
// browser refused the entry (a negative or non-finite time).
#[wasm_bindgen(inline_js = r#"
const timeline = globalThis.performance;

export function sgptEntry(marker, name, start, end, track, trackGroup, color, k0, v0, k1, v1, more, tooltip) {
  const devtools = { dataType: marker ? 'marker' : 'track-entry', track, trackGroup, color };
  if (k0 !== undefined) {
    const properties = [[k0, v0]];
    if (k1 !== undefined) properties.push([k1, v1]);
    if (more !== undefined) properties.push(...more);
    devtools.properties = properties;
  }
  if (tooltip !== undefined) devtools.tooltipText = tooltip;
  try {
    if (marker) {
      timeline.mark(name, { startTime: start, detail: { devtools } });
    } else {
      timeline.measure(name, { start, end, detail: { devtools } });
    }
    return true;
  } catch {
    return false;
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = sgptEntry)]
    fn user_timing_entry(
        marker: bool,
        name: &JsValue,
        start: f64,
        end: f64,
        track: &JsValue,
        group: &JsValue,
        color: &JsValue,
        k0: &JsValue,
        v0: f64,
        k1: &JsValue,
        v1: f64,
        more: &JsValue,
        tooltip: Option<&str>,
    ) -> bool;
}

/// The page's high-resolution clock: the time base of `console.timeStamp` and User Timing.
pub(crate) fn now_ms() -> f64 {
    PERFORMANCE.with(Performance::now)
}

/// The most distinct strings [`Names`] keeps. Tracks, colours, keys and span names are a
/// fixed set in practice; an application that made a new name per entry would grow the
/// table without bound, so past this its names are decoded per entry instead.
const NAMES_CAP: usize = 4_096;

/// The JS strings for the names that cross, made once each: the group and the colours
/// by position, the rest looked up by content (a copied span name arrives at a new
/// address every time).
#[derive(Debug)]
struct Names {
    /// Which thread's table this is: ids mean nothing in another's.
    table: u32,
    group: JsValue,
    colors: [JsValue; Color::ALL.len()],
    ids: FxHashMap<Box<str>, u32>,
    values: Vec<JsValue>,
}

impl Default for Names {
    fn default() -> Self {
        static TABLES: AtomicU32 = AtomicU32::new(0);
        Self {
            table: TABLES.fetch_add(1, Ordering::Relaxed),
            group: JsValue::from_str(GROUP),
            colors: Color::ALL.map(|color| JsValue::from_str(color.name())),
            ids: FxHashMap::default(),
            values: Vec::new(),
        }
    }
}

/// A name as a JS string: one of [`Names`], or made for this entry alone past the cap.
#[derive(Debug)]
enum Name {
    Kept(u32),
    Once(JsValue),
}

impl Names {
    fn name(&mut self, text: &str) -> Name {
        if let Some(id) = self.ids.get(text) {
            return Name::Kept(*id);
        }
        let value = JsValue::from_str(text);
        match u32::try_from(self.values.len()) {
            Ok(id) if self.values.len() < NAMES_CAP => {
                self.ids.insert(text.into(), id);
                self.values.push(value);
                Name::Kept(id)
            }
            _ => Name::Once(value),
        }
    }

    /// A property's key, or `undefined` when the entry has no property at `index`.
    fn key(&mut self, properties: &[(&'static str, f64)], index: usize) -> (Name, f64) {
        properties.get(index).map_or((Name::Once(JsValue::UNDEFINED), 0.0), |(key, value)| (self.name(key), *value))
    }

    fn color(&self, color: Color) -> &JsValue {
        &self.colors[color as usize]
    }

    fn js<'a>(&'a self, name: &'a Name) -> &'a JsValue {
        match name {
            Name::Kept(id) => &self.values[*id as usize],
            Name::Once(value) => value,
        }
    }
}

thread_local! {
    // JS values cannot cross threads, so the table is per thread; the sink is `Sync`.
    static NAMES: RefCell<Names> = RefCell::new(Names::default());
}

/// Runs `f` with the name table. An entry emitted from inside one of our own calls into the
/// browser (a page that wraps `console.timeStamp` with instrumented code) finds it in use
/// and is dropped, not a panic.
fn with_names(f: impl FnOnce(&mut Names)) {
    NAMES.with(|names| {
        if let Ok(mut names) = names.try_borrow_mut() {
            f(&mut names);
        }
    });
}

/// Writes entries to DevTools at the hub's level. Attach it from the page's entry point.
#[derive(Debug, Default)]
pub struct BrowserSink {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Names we gave measures and marks: what a drain reads back and clears.
    measures: Emitted,
    marks: Emitted,
    retained: usize,
    dropped: u64,
}

/// The names one kind of entry was emitted under: a bit per id of the first thread's
/// [`Names`] that emits, so the common case hashes nothing more; by text past its cap or
/// from another thread.
#[derive(Debug, Default)]
struct Emitted {
    table: Option<u32>,
    kept: Vec<u64>,
    once: HashSet<String>,
}

impl Emitted {
    fn insert(&mut self, names: &Names, name: &Name, text: &str) {
        match name {
            Name::Kept(id) if *self.table.get_or_insert(names.table) == names.table => {
                let (word, bit) = (*id as usize / 64, id % 64);
                if self.kept.len() <= word {
                    self.kept.resize(word + 1, 0);
                }
                self.kept[word] |= 1 << bit;
            }
            _ => {
                if !self.once.contains(text) {
                    self.once.insert(text.to_owned());
                }
            }
        }
    }

    /// Each name as a JS string. Another thread's ids are skipped: its entries are in its
    /// own timeline, not this one.
    fn for_each(&self, names: &Names, mut f: impl FnMut(&JsValue)) {
        if self.table == Some(names.table) {
            for (word, bits) in self.kept.iter().enumerate() {
                for bit in (0..64).filter(|bit| bits & (1 << bit) != 0) {
                    f(&names.values[word * 64 + bit]);
                }
            }
        }
        for text in &self.once {
            f(&JsValue::from_str(text));
        }
    }
}

impl BrowserSink {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn trace(entry: &Entry<'_>) {
        with_names(|names| {
            let label = names.name(entry.name);
            let track = names.name(entry.track.name);
            CONSOLE.with(|console| {
                console.time_stamp(
                    names.js(&label),
                    entry.start_ms,
                    entry.end_ms,
                    names.js(&track),
                    &names.group,
                    names.color(entry.color),
                );
            });
        });
    }

    fn retain(&self, entry: &Entry<'_>) {
        {
            // Not held across the call into the browser.
            let mut state = self.state();
            if state.retained >= RETAINED_CAP {
                state.dropped += 1;
                return;
            }
        }
        with_names(|names| {
            let name = names.name(entry.name);
            let track = names.name(entry.track.name);
            let (k0, v0) = names.key(entry.properties, 0);
            let (k1, v1) = names.key(entry.properties, 1);
            let more = entry.properties.get(2..).filter(|more| !more.is_empty()).map_or(JsValue::UNDEFINED, |more| {
                more.iter()
                    .map(|(key, value)| js_sys::Array::of2(&JsValue::from_str(key), &JsValue::from_f64(*value)))
                    .collect::<js_sys::Array>()
                    .into()
            });
            let kept = user_timing_entry(
                entry.kind == EntryKind::Marker,
                names.js(&name),
                entry.start_ms,
                entry.end_ms,
                names.js(&track),
                &names.group,
                names.color(entry.color),
                names.js(&k0),
                v0,
                names.js(&k1),
                v1,
                &more,
                entry.tooltip,
            );
            if kept {
                let mut state = self.state();
                state.retained += 1;
                match entry.kind {
                    EntryKind::Span => state.measures.insert(names, &name, entry.name),
                    EntryKind::Marker => state.marks.insert(names, &name, entry.name),
                }
            }
        });
    }
}

impl TimingSink for BrowserSink {
    fn emit(&self, level: TimingLevel, entry: &Entry<'_>) {
        match level {
            TimingLevel::Off => {}
            TimingLevel::Trace => Self::trace(entry),
            TimingLevel::Full => self.retain(entry),
        }
    }

    fn drain(&self) -> Vec<Drained> {
        let mut state = self.state();
        let mut drained = Vec::with_capacity(state.retained);
        let keys = Keys::new();
        with_names(|names| {
            state.measures.for_each(names, |name| {
                PERFORMANCE.with(|timeline| {
                    read_back(&keys, &timeline.entries_by_name(name, "measure"), &mut drained);
                    timeline.clear_measures(name);
                });
            });
            state.marks.for_each(names, |name| {
                PERFORMANCE.with(|timeline| {
                    read_back(&keys, &timeline.entries_by_name(name, "mark"), &mut drained);
                    timeline.clear_marks(name);
                });
            });
            state.retained = 0;
        });
        drained
    }

    fn retention(&self) -> Retention {
        let state = self.state();
        Retention { retained: state.retained, dropped: state.dropped, cap: RETAINED_CAP }
    }
}

/// The property keys a drain reads, made once per drain.
struct Keys {
    detail: JsValue,
    devtools: JsValue,
    track_group: JsValue,
    properties: JsValue,
    name: JsValue,
    track: JsValue,
    start_time: JsValue,
    duration: JsValue,
}

impl Keys {
    fn new() -> Self {
        Self {
            detail: JsValue::from_str("detail"),
            devtools: JsValue::from_str("devtools"),
            track_group: JsValue::from_str("trackGroup"),
            properties: JsValue::from_str("properties"),
            name: JsValue::from_str("name"),
            track: JsValue::from_str("track"),
            start_time: JsValue::from_str("startTime"),
            duration: JsValue::from_str("duration"),
        }
    }
}

fn get(target: &JsValue, key: &JsValue) -> JsValue {
    js_sys::Reflect::get(target, key).unwrap_or(JsValue::UNDEFINED)
}

/// Appends the entries of ours (track group [`GROUP`]) among `entries`.
fn read_back(keys: &Keys, entries: &js_sys::Array, out: &mut Vec<Drained>) {
    for entry in entries.iter() {
        let devtools = get(&get(&entry, &keys.detail), &keys.devtools);
        if devtools.is_undefined() || get(&devtools, &keys.track_group).as_string().as_deref() != Some(GROUP) {
            continue;
        }
        let properties = get(&devtools, &keys.properties);
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
            name: get(&entry, &keys.name).as_string().unwrap_or_default(),
            track: get(&devtools, &keys.track).as_string().unwrap_or_default(),
            start_ms: get(&entry, &keys.start_time).as_f64().unwrap_or_default(),
            duration_ms: get(&entry, &keys.duration).as_f64().unwrap_or_default(),
            properties,
        });
    }
}
