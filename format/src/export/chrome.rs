//! Chrome Trace Event JSON export, for Perfetto (<https://ui.perfetto.dev>) and
//! `chrome://tracing`.
//!
//! Every string is written by `serde_json`, so a label holding quotes, backslashes,
//! control characters or `<script>` stays data (never format JSON by hand,
//! unlike wgpu-profiler's `chrometrace.rs`). Events are serialized one at a time into a
//! buffered writer; the trace never exists as one JSON value in memory.
//!
//! What the trace holds:
//! - **GPU** (pid 1), one track (tid = query set id + 1) per query set, since sets need
//!   not share a clock domain, except that the sets of a recorder's timer
//!   pool (labelled `timer pool set N`), which it cycles frame by frame on one queue, share
//!   one track, the lowest set's; each span's `args.query_set` keeps its set. Per frame
//!   and track, `X` slices for the frame, each scope and each graph pass span the extent
//!   of their GPU spans, so Perfetto nests GPU passes under graph passes under scopes;
//!   sub-pass regions nest inside their pass. Times are relative to the first frame's
//!   first span. At level Workload and up each pass span carries its commands in
//!   `args.workload`, unknowns as `null`.
//! - **CPU** (pid 2), kept apart: its own clock, relative to the first frame's CPU
//!   begin, so alignment with the GPU is nominal: the two clocks are never merged. Per frame an `X` slice,
//!   `X` slices for each graph pass's CPU encode time, and `submit` and `readback` as
//!   instant events.
//! - **Counters** (pid 3): `C` events at each frame's CPU begin, named as declared.
//! - **Notes**: global instant events (`"s":"g"`) at their frame's GPU begin.
//! - `M` metadata naming and ordering every process and thread.
//!
//! Slices of one track are assumed not to interleave: a scope's slice covers its first
//! to its last GPU span in the frame, whatever ran in between.
//!
//! ```
//! use sgpt_format::{Capture, chrome, synth};
//!
//! let bytes = synth::generate(&synth::SynthOptions { frames: 4, passes: 20, ..Default::default() });
//! let capture = Capture::open(&bytes)?;
//! let mut json = Vec::new();
//! let summary = chrome::export(&capture, &mut json)?;
//! assert_eq!(summary.frames_exported, 4);
//! let trace: serde_json::Value = serde_json::from_slice(&json)?;
//! assert!(trace["traceEvents"].as_array().is_some_and(|events| events.len() as u64 == summary.events));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::io::{self, BufWriter, Write};

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::error::Defect;
use crate::model::{Command, CounterUnit, Frame, Level, Op, SpanKind, Topology, TopologyId};
use crate::reader::Capture;
use crate::workload_summary::{TimedOnly, invocations};

/// The GPU process: one thread per query set.
pub const GPU_PID: u32 = 1;
/// The CPU process, on its own clock.
pub const CPU_PID: u32 = 2;
/// Per-frame counter samples.
pub const COUNTER_PID: u32 = 3;
/// The CPU process's single thread.
const CPU_TID: u32 = 1;
/// The counter process's single thread.
const COUNTER_TID: u32 = 1;

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Entries of `traceEvents`.
    pub events: u64,
    /// Bytes written to the output.
    pub bytes: u64,
    /// Frames written to the trace: every indexed frame that decoded.
    pub frames_exported: u64,
    /// Frames that failed to decode and were left out; each is in `defects`.
    pub frames_skipped: u64,
    /// The decode defect of each skipped frame, in index order. Defects found at open are
    /// not repeated here: they are in [`Capture::defects`].
    pub defects: Vec<Defect>,
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing to the output failed; what was written before stays, an incomplete trace.
    #[error("could not write the trace: {0}")]
    Io(#[from] io::Error),
    /// `serde_json` failed for a reason other than I/O.
    #[error("could not serialize the trace: {0}")]
    Json(serde_json::Error),
}

impl From<serde_json::Error> for ExportError {
    fn from(error: serde_json::Error) -> Self {
        if error.is_io() { ExportError::Io(error.into()) } else { ExportError::Json(error) }
    }
}

/// Writes `capture` as Chrome Trace Event JSON into `out` (buffered here).
pub fn export<W: Write>(capture: &Capture<'_>, out: W) -> Result<ExportSummary, ExportError> {
    export_with_progress(capture, out, |_| {})
}

/// [`export`], calling `progress` with the number of frames done after each frame.
pub fn export_with_progress<W: Write>(
    capture: &Capture<'_>,
    out: W,
    progress: impl FnMut(usize),
) -> Result<ExportSummary, ExportError> {
    let mut counted = Counting { inner: out, bytes: 0 };
    let state = RefCell::new(State {
        summary: ExportSummary::default(),
        progress: Box::new(progress),
        tracks: BTreeSet::new(),
    });
    {
        let mut buffered = BufWriter::with_capacity(1 << 16, &mut counted);
        let document = Document { capture, state: &state };
        document.serialize(&mut serde_json::Serializer::new(&mut buffered))?;
        buffered.flush()?;
    }
    let mut summary = state.into_inner().summary;
    summary.bytes = counted.bytes;
    Ok(summary)
}

/// Counts the bytes that reach the caller's writer.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

struct State<'p> {
    summary: ExportSummary,
    progress: Box<dyn FnMut(usize) + 'p>,
    /// Every (pid, tid) an event used, so each gets a `thread_name`.
    tracks: BTreeSet<(u32, u32)>,
}

/// The whole document. Serializing it streams the events, then the trailing keys, whose
/// values depend on what the events found.
struct Document<'c, 'a, 's, 'p> {
    capture: &'c Capture<'a>,
    state: &'s RefCell<State<'p>>,
}

impl Serialize for Document<'_, '_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("traceEvents", &Events { capture: self.capture, state: self.state })?;
        map.serialize_entry("displayTimeUnit", "ns")?;
        map.serialize_entry("otherData", &other_data(self.capture, &self.state.borrow().summary))?;
        map.end()
    }
}

/// The capture's context, for the trace's metadata panel.
fn other_data(capture: &Capture<'_>, summary: &ExportSummary) -> serde_json::Value {
    let meta = capture.meta().cloned().unwrap_or_default();
    let header = capture.header();
    serde_json::json!({
        "producer": concat!("sgpt-format ", env!("CARGO_PKG_VERSION")),
        "format_version": header.format_version,
        "closed": header.closed(),
        "level": capture.level().map(Level::name),
        "application": meta.application,
        "recorder": meta.recorder,
        "adapter": meta.adapter.name,
        "backend": meta.adapter.backend,
        "driver": meta.adapter.driver,
        "note": meta.note,
        "frames": capture.frames().len(),
        "frames_exported": summary.frames_exported,
        "frames_skipped": summary.frames_skipped,
        "spans": capture.span_count(),
        "dropped_spans": capture.dropped_span_count(),
        "clocks": "GPU (pid 1) and CPU (pid 2) times are on separate clocks, each relative to its own first frame; their alignment is nominal",
    })
}

/// One trace event. `A` is its `args` object.
#[derive(Serialize)]
struct Event<'n, A> {
    name: &'n str,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'static str,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    /// Scope of an instant event: `g` global, `t` thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    args: A,
}

#[derive(Serialize)]
struct GpuSpanArgs<'n, 'c> {
    graph_pass: Option<&'n str>,
    kind: &'static str,
    span_kind: &'static str,
    query_set: u8,
    frame: u64,
    begin_ns: u64,
    end_ns: u64,
    /// The pass's commands this frame, at level Workload and up, on pass spans only.
    #[serde(skip_serializing_if = "Option::is_none")]
    workload: Option<WorkloadArgs<'n, 'c>>,
}

/// A pass span's commands: `"not recorded"` where a NOTE says the pass was timed through
/// a `PassTimer`, else its dispatch and draw counts and each command's facts.
enum WorkloadArgs<'n, 'c> {
    NotRecorded,
    Recorded { capture: &'c Capture<'c>, commands: &'n [Command], order: &'n [u32] },
}

impl Serialize for WorkloadArgs<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (capture, commands, order) = match *self {
            WorkloadArgs::NotRecorded => return serializer.serialize_str("not recorded"),
            WorkloadArgs::Recorded { capture, commands, order } => (capture, commands, order),
        };
        let each = || order.iter().filter_map(|&at| commands.get(at as usize));
        let dispatches = each().filter(|command| command.op.is_dispatch()).count();
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("dispatches", &dispatches)?;
        map.serialize_entry("draws", &(order.len() - dispatches))?;
        map.serialize_entry("commands", &CommandList { capture, commands: each })?;
        map.end()
    }
}

struct CommandList<'c, F> {
    capture: &'c Capture<'c>,
    commands: F,
}

impl<'n, 'c, F, I> Serialize for CommandList<'c, F>
where
    F: Fn() -> I,
    I: Iterator<Item = &'n Command>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for command in (self.commands)() {
            seq.serialize_element(&command_json(self.capture, command))?;
        }
        seq.end()
    }
}

/// One command's facts: its pipeline with its workgroup size (`null` when unknown), its
/// encoded arguments, resolved indirect arguments (`null` where not read back) and, for a
/// dispatch with known counts and size, its invocations (`null` otherwise).
fn command_json(capture: &Capture<'_>, command: &Command) -> serde_json::Value {
    use serde_json::json;
    let pipeline = command.pipeline.and_then(|id| capture.pipeline(id));
    let workgroup_size = pipeline.and_then(|pipeline| pipeline.workgroup_size);
    let mut value = json!({
        "pipeline": command.pipeline,
        "pipeline_label": pipeline.map(|pipeline| pipeline.label.as_str()),
    });
    let facts = match command.op {
        Op::Dispatch { x, y, z } => json!({
            "op": "dispatch", "workgroups": [x, y, z], "workgroup_size": workgroup_size,
            "invocations": invocations([x, y, z], workgroup_size),
        }),
        Op::DispatchIndirect { indirect, resolved } => json!({
            "op": "dispatch_indirect", "indirect": { "buffer": indirect.buffer, "offset": indirect.offset },
            "resolved": resolved, "workgroup_size": workgroup_size,
            "invocations": resolved.and_then(|groups| invocations(groups, workgroup_size)),
        }),
        Op::Draw { vertices, instances, first_vertex, first_instance } => json!({
            "op": "draw", "vertices": vertices, "instances": instances,
            "first_vertex": first_vertex, "first_instance": first_instance,
        }),
        Op::DrawIndexed { indices, instances, first_index, base_vertex, first_instance } => json!({
            "op": "draw_indexed", "indices": indices, "instances": instances, "first_index": first_index,
            "base_vertex": base_vertex, "first_instance": first_instance,
        }),
        Op::DrawIndirect { indexed, indirect, resolved } => json!({
            "op": if indexed { "draw_indexed_indirect" } else { "draw_indirect" },
            "indirect": { "buffer": indirect.buffer, "offset": indirect.offset },
            "resolved": resolved.map(|[count, instances]| json!({ "count": count, "instances": instances })),
        }),
    };
    if let (Some(value), serde_json::Value::Object(facts)) = (value.as_object_mut(), facts) {
        value.extend(facts);
    }
    value
}

#[derive(Serialize)]
struct RangeArgs<'n> {
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'n str>,
    query_set: u8,
    frame: u64,
    begin_ns: u64,
    end_ns: u64,
}

#[derive(Serialize)]
struct FrameArgs {
    frame: u64,
    begin_ns: u64,
    end_ns: u64,
    dropped_spans: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    recorder_cost_ns: Option<u64>,
}

#[derive(Serialize)]
struct CpuSpanArgs {
    frame: u64,
    graph_pass: u32,
    begin_ns: u64,
    end_ns: u64,
}

#[derive(Serialize)]
struct InstantArgs {
    frame: u64,
    at_ns: u64,
}

#[derive(Serialize)]
struct NoteArgs<'n> {
    frame: u64,
    text: &'n str,
}

#[derive(Serialize)]
struct NameArgs<'n> {
    name: &'n str,
}

#[derive(Serialize)]
struct SortArgs {
    sort_index: i64,
}

/// Nanoseconds after `origin` as microseconds, Chrome's unit. Signed: a later frame's
/// clock may read earlier than the first frame's.
fn micros(ns: u64, origin: u64) -> f64 {
    ns.wrapping_sub(origin) as i64 as f64 / 1000.0
}

fn micros_len(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Scope slices nest at most this deep; outer scopes beyond it are left out. Real frame
/// graphs nest a few levels; the bound keeps a hostile (or cyclic) parent chain cheap.
const MAX_SCOPE_DEPTH: usize = 64;

/// Derived per-topology data: for each graph pass its scope chain, outermost first.
struct TopologyInfo {
    scope_chain: Vec<Vec<u32>>,
    scope_depth: Vec<usize>,
}

impl TopologyInfo {
    fn new(topology: &Topology) -> Self {
        let scope_count = topology.scopes.len();
        let chain_of = |start: Option<u32>| {
            let mut chain = Vec::new();
            let mut at = start;
            while let Some(scope) = at.filter(|&s| (s as usize) < scope_count && chain.len() < MAX_SCOPE_DEPTH) {
                chain.push(scope);
                at = topology.scopes[scope as usize].parent;
            }
            chain.reverse();
            chain
        };
        Self {
            scope_chain: topology.graph_passes.iter().map(|pass| chain_of(pass.scope)).collect(),
            scope_depth: (0..scope_count as u32).map(|scope| chain_of(Some(scope)).len()).collect(),
        }
    }
}

/// Extents of graph passes and scopes on one track of one frame. The vectors stay all
/// `EMPTY` between uses: only touched entries are reset, so a huge topology costs memory
/// once, not time per frame.
#[derive(Default)]
struct Extents {
    graph: Vec<(u64, u64)>,
    scopes: Vec<(u64, u64)>,
    touched_graph: Vec<u32>,
    touched_scopes: Vec<u32>,
}

impl Extents {
    fn fit(&mut self, graph_count: usize, scope_count: usize) {
        if self.graph.len() < graph_count {
            self.graph.resize(graph_count, EMPTY);
        }
        if self.scopes.len() < scope_count {
            self.scopes.resize(scope_count, EMPTY);
        }
    }

    fn add(&mut self, graph: u32, chain: &[u32], begin: u64, end: u64) {
        let range = &mut self.graph[graph as usize];
        if *range == EMPTY {
            self.touched_graph.push(graph);
        }
        widen(range, begin, end);
        for &scope in chain {
            let range = &mut self.scopes[scope as usize];
            if *range == EMPTY {
                self.touched_scopes.push(scope);
            }
            widen(range, begin, end);
        }
    }

    fn reset(&mut self) {
        for graph in self.touched_graph.drain(..) {
            self.graph[graph as usize] = EMPTY;
        }
        for scope in self.touched_scopes.drain(..) {
            self.scopes[scope as usize] = EMPTY;
        }
    }
}

const EMPTY: (u64, u64) = (u64::MAX, 0);

fn widen(range: &mut (u64, u64), begin: u64, end: u64) {
    range.0 = range.0.min(begin);
    range.1 = range.1.max(end);
}

/// The `traceEvents` array, produced frame by frame.
struct Events<'c, 'a, 's, 'p> {
    capture: &'c Capture<'a>,
    state: &'s RefCell<State<'p>>,
}

impl Serialize for Events<'_, '_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut writer = EventWriter { seq: serializer.serialize_seq(None)?, state: self.state };
        write_events(self.capture, &mut writer)?;
        writer.seq.end()
    }
}

struct EventWriter<'s, 'p, Q> {
    seq: Q,
    state: &'s RefCell<State<'p>>,
}

impl<Q: SerializeSeq> EventWriter<'_, '_, Q> {
    fn emit<A: Serialize>(&mut self, event: &Event<'_, A>) -> Result<(), Q::Error> {
        let mut state = self.state.borrow_mut();
        state.summary.events += 1;
        if event.ph != "M" {
            state.tracks.insert((event.pid, event.tid));
        }
        drop(state);
        self.seq.serialize_element(event)
    }

    fn metadata(&mut self, name: &'static str, pid: u32, tid: u32, args: impl Serialize) -> Result<(), Q::Error> {
        self.emit(&Event { name, cat: "", ph: "M", ts: None, dur: None, pid, tid, s: None, args })
    }
}

/// The first frame's first span begin (GPU origin) and CPU begin (CPU origin).
fn origins(capture: &Capture<'_>) -> (u64, u64) {
    let mut frame = Frame::default();
    let mut gpu = None;
    let mut cpu = None;
    for index in 0..capture.frames().len() {
        if capture.frame_into(index, &mut frame).is_err() {
            continue;
        }
        cpu.get_or_insert(frame.cpu.begin_ns);
        if let Some(begin) = frame.spans.iter().map(|span| span.begin_ns).min() {
            gpu = Some(begin);
            break;
        }
    }
    (gpu.unwrap_or(0), cpu.unwrap_or(0))
}

fn write_events<Q: SerializeSeq>(capture: &Capture<'_>, out: &mut EventWriter<'_, '_, Q>) -> Result<(), Q::Error> {
    for (pid, name, sort_index) in [
        (GPU_PID, "GPU", 1),
        (CPU_PID, "CPU (own clock, nominal alignment)", 2),
        (COUNTER_PID, "Counters (per frame, CPU clock)", 3),
    ] {
        out.metadata("process_name", pid, 0, NameArgs { name })?;
        out.metadata("process_sort_index", pid, 0, SortArgs { sort_index })?;
    }

    let (gpu_origin, cpu_origin) = origins(capture);
    let tracks = Tracks::new(capture);
    let timed_only = TimedOnly::new(capture);
    let commands_recorded = capture.level().map(|level| level >= Level::Workload);
    let mut infos: HashMap<TopologyId, TopologyInfo> = HashMap::new();
    let mut extents = Extents::default();
    let mut frame_tracks: Vec<u32> = Vec::new();
    // This frame's command indices, ordered by GPU pass: each pass span's commands are a run.
    let mut order: Vec<u32> = Vec::new();
    let mut frame = Frame::default();
    let mut label = String::new();
    // (frame number, GPU ts, tid) of every exported frame, to place notes.
    let mut placed: Vec<(u64, f64, u32)> = Vec::new();

    for index in 0..capture.frames().len() {
        if let Err(defect) = capture.frame_into(index, &mut frame) {
            let mut state = out.state.borrow_mut();
            state.summary.frames_skipped += 1;
            state.summary.defects.push(defect);
            (state.progress)(index + 1);
            continue;
        }
        let topology = capture.topology(frame.topology);
        let info = topology.map(|t| &*infos.entry(frame.topology).or_insert_with(|| TopologyInfo::new(t)));
        let graph_count = topology.map_or(0, |t| t.graph_passes.len());
        let scope_count = topology.map_or(0, |t| t.scopes.len());

        extents.fit(graph_count, scope_count);
        frame_tracks.clear();
        frame_tracks.extend(frame.spans.iter().map(|span| tracks.tid(span.query_set)));
        frame_tracks.sort_unstable();
        frame_tracks.dedup();

        let frame_number = frame.frame_number;
        // One track at a time, so the scratch is sized by the topology, not by tracks too.
        for &tid in &frame_tracks {
            let mut extent = EMPTY;
            let on_track = |span: &&crate::model::Span| tracks.tid(span.query_set) == tid;
            // The set the track's first span came from, kept in the slices' args.
            let query_set = frame.spans.iter().find(on_track).map_or(0, |span| span.query_set);
            for span in frame.spans.iter().filter(on_track) {
                let end = span.end_ns.max(span.begin_ns);
                widen(&mut extent, span.begin_ns, end);
                let graph = topology
                    .and_then(|t| t.gpu_passes.get(span.pass as usize))
                    .and_then(|pass| pass.graph_pass)
                    .filter(|&graph| (graph as usize) < graph_count);
                if let (Some(graph), Some(info)) = (graph, info) {
                    extents.add(graph, &info.scope_chain[graph as usize], span.begin_ns, end);
                }
            }
            label.clear();
            // Writing into a String cannot fail.
            let _ = write_frame_name(&mut label, frame_number);
            let args = FrameArgs {
                frame: frame_number,
                begin_ns: extent.0,
                end_ns: extent.1,
                dropped_spans: frame.dropped_spans,
                recorder_cost_ns: None,
            };
            out.emit(&gpu_slice(&label, "frame", tid, extent, gpu_origin, args))?;
            if placed.last().is_none_or(|&(number, _, _)| number != frame_number) {
                placed.push((frame_number, micros(extent.0, gpu_origin), tid));
            }
            if let (Some(topology), Some(info)) = (topology, info) {
                write_ranges(out, &mut extents, topology, info, (tid, query_set, frame_number, gpu_origin))?;
            }
            extents.reset();
        }

        let with_commands = commands_recorded.unwrap_or(!frame.commands.is_empty());
        order.clear();
        if with_commands {
            order.extend(0..frame.commands.len() as u32);
            order.sort_by_key(|&at| frame.commands[at as usize].gpu_pass);
        }
        for span in &frame.spans {
            let pass = topology.and_then(|t| t.gpu_passes.get(span.pass as usize));
            let graph_pass = pass
                .and_then(|pass| pass.graph_pass)
                .and_then(|graph| topology.and_then(|t| t.graph_passes.get(graph as usize)))
                .map(|graph| graph.name.as_str());
            let name = match pass {
                Some(pass) => pass.label.as_str(),
                None => {
                    label.clear();
                    let _ = write_unknown_pass(&mut label, span.pass);
                    label.as_str()
                }
            };
            out.emit(&Event {
                name,
                cat: match span.kind {
                    SpanKind::Pass => "gpu_pass",
                    SpanKind::SubPass => "gpu_subpass",
                },
                ph: "X",
                ts: Some(micros(span.begin_ns, gpu_origin)),
                dur: Some(micros_len(span.duration_ns())),
                pid: GPU_PID,
                tid: tracks.tid(span.query_set),
                s: None,
                args: GpuSpanArgs {
                    graph_pass,
                    kind: pass.map_or("unknown", |pass| pass.kind.name()),
                    span_kind: span.kind.name(),
                    query_set: span.query_set,
                    frame: frame_number,
                    begin_ns: span.begin_ns,
                    end_ns: span.end_ns,
                    workload: (with_commands && span.kind == SpanKind::Pass).then(|| {
                        let first = order.partition_point(|&at| frame.commands[at as usize].gpu_pass < span.pass);
                        let last = order.partition_point(|&at| frame.commands[at as usize].gpu_pass <= span.pass);
                        if first == last && pass.is_some_and(|pass| timed_only.contains(&pass.label)) {
                            WorkloadArgs::NotRecorded
                        } else {
                            WorkloadArgs::Recorded { capture, commands: &frame.commands, order: &order[first..last] }
                        }
                    }),
                },
            })?;
        }

        write_cpu(capture, out, &frame, topology, cpu_origin, &mut label)?;
        let mut state = out.state.borrow_mut();
        state.summary.frames_exported += 1;
        (state.progress)(index + 1);
    }

    for note in capture.notes() {
        // At the note's frame, or the last exported frame before it.
        let at = placed.partition_point(|&(number, _, _)| number <= note.frame_number);
        let (ts, tid) = at.checked_sub(1).map_or((0.0, 1), |i| (placed[i].1, placed[i].2));
        out.emit(&Event {
            name: &note.text,
            cat: "note",
            ph: "i",
            ts: Some(ts),
            dur: None,
            pid: GPU_PID,
            tid,
            s: Some("g"),
            args: NoteArgs { frame: note.frame_number, text: &note.text },
        })?;
    }

    let used: Vec<(u32, u32)> = out.state.borrow().tracks.iter().copied().collect();
    for (pid, tid) in used {
        let name = match pid {
            GPU_PID => {
                let id = u8::try_from(tid - 1).unwrap_or(u8::MAX);
                label.clear();
                let _ = if tracks.is_pool(id) {
                    write_pool(&mut label, &tracks.pool)
                } else {
                    match capture.query_set(id) {
                        Some(set) => write_query_set(&mut label, &set.label, id),
                        None => write_query_set(&mut label, "", id),
                    }
                };
                label.as_str()
            }
            CPU_PID => "frames and encode",
            _ => "counters",
        };
        out.metadata("thread_name", pid, tid, NameArgs { name })?;
        out.metadata("thread_sort_index", pid, tid, SortArgs { sort_index: i64::from(tid) })?;
    }
    Ok(())
}

/// The scope and graph-pass slices of one track of one frame: parents before children,
/// so slices with equal extents nest the right way.
fn write_ranges<Q: SerializeSeq>(
    out: &mut EventWriter<'_, '_, Q>,
    extents: &mut Extents,
    topology: &Topology,
    info: &TopologyInfo,
    (tid, query_set, frame, origin): (u32, u8, u64, u64),
) -> Result<(), Q::Error> {
    let Extents { graph, scopes, touched_graph, touched_scopes } = extents;
    touched_scopes.sort_unstable_by_key(|&s| (info.scope_depth[s as usize], scopes[s as usize].0));
    for &scope in touched_scopes.iter() {
        let range = scopes[scope as usize];
        let scope = &topology.scopes[scope as usize];
        let parent = scope.parent.and_then(|p| topology.scopes.get(p as usize));
        let args =
            RangeArgs { scope: parent.map(|p| p.name.as_str()), query_set, frame, begin_ns: range.0, end_ns: range.1 };
        out.emit(&gpu_slice(&scope.name, "scope", tid, range, origin, args))?;
    }
    // Graph passes in execution order.
    touched_graph.sort_unstable();
    for &index in touched_graph.iter() {
        let range = graph[index as usize];
        let pass = &topology.graph_passes[index as usize];
        let scope = pass.scope.and_then(|s| topology.scopes.get(s as usize)).map(|s| s.name.as_str());
        let args = RangeArgs { scope, query_set, frame, begin_ns: range.0, end_ns: range.1 };
        out.emit(&gpu_slice(&pass.name, "graph_pass", tid, range, origin, args))?;
    }
    Ok(())
}

/// An `X` slice on a GPU track covering `begin..end`.
fn gpu_slice<'n, A>(
    name: &'n str,
    cat: &'static str,
    tid: u32,
    (begin, end): (u64, u64),
    origin: u64,
    args: A,
) -> Event<'n, A> {
    Event {
        name,
        cat,
        ph: "X",
        ts: Some(micros(begin, origin)),
        dur: Some(micros_len(end.saturating_sub(begin))),
        pid: GPU_PID,
        tid,
        s: None,
        args,
    }
}

fn write_frame_name(out: &mut String, number: u64) -> std::fmt::Result {
    use std::fmt::Write as _;
    write!(out, "frame {number}")
}

fn write_unknown_pass(out: &mut String, pass: u32) -> std::fmt::Result {
    use std::fmt::Write as _;
    write!(out, "GPU pass {pass}")
}

fn write_pool(out: &mut String, pool: &[u8]) -> std::fmt::Result {
    use std::fmt::Write as _;
    out.push_str("GPU queue (timer pool sets ");
    for (at, id) in pool.iter().enumerate() {
        write!(out, "{}{id}", if at == 0 { "" } else { ", " })?;
    }
    out.push(')');
    Ok(())
}

/// The label `sgpt-recorder` gives each query set of its timer pool.
pub const TIMER_POOL_LABEL: &str = "timer pool set ";

/// Whether a query set is one of the recorder's timer-pool sets: its label is
/// `timer pool set N` with N its own id.
#[must_use]
pub fn is_timer_pool_set(id: u8, label: &str) -> bool {
    label.strip_prefix(TIMER_POOL_LABEL).and_then(|n| n.parse::<u8>().ok()) == Some(id)
}

/// Which GPU track each query set's spans go on. A recorder cycles the sets of its timer
/// pool frame by frame on one queue, so they share one track (the lowest set's); any other
/// set keeps a track of its own, since sets need not share a clock domain (§5).
struct Tracks {
    /// The timer-pool set ids, ascending.
    pool: Vec<u8>,
}

impl Tracks {
    fn new(capture: &Capture<'_>) -> Self {
        let pool = (0..=u8::MAX)
            .filter(|&id| capture.query_set(id).is_some_and(|set| is_timer_pool_set(id, &set.label)))
            .collect();
        Self { pool }
    }

    fn is_pool(&self, id: u8) -> bool {
        self.pool.binary_search(&id).is_ok()
    }

    /// The tid of query set `id`'s track: set id + 1, or the pool's first set's.
    fn tid(&self, id: u8) -> u32 {
        match self.pool.first() {
            Some(&first) if self.is_pool(id) => u32::from(first) + 1,
            _ => u32::from(id) + 1,
        }
    }
}

fn write_query_set(out: &mut String, label: &str, id: u8) -> std::fmt::Result {
    use std::fmt::Write as _;
    if label.is_empty() { write!(out, "GPU query set {id}") } else { write!(out, "GPU query set {id}: {label}") }
}

fn unit_name(unit: CounterUnit) -> &'static str {
    match unit {
        CounterUnit::Count => "count",
        CounterUnit::Bytes => "bytes",
        CounterUnit::Nanoseconds => "ns",
        CounterUnit::Percent => "percent",
    }
}

/// The frame's CPU track and counters, on the CPU clock.
fn write_cpu<Q: SerializeSeq>(
    capture: &Capture<'_>,
    out: &mut EventWriter<'_, '_, Q>,
    frame: &Frame,
    topology: Option<&Topology>,
    cpu_origin: u64,
    label: &mut String,
) -> Result<(), Q::Error> {
    let number = frame.frame_number;
    let cpu = &frame.cpu;
    label.clear();
    let _ = write_frame_name(label, number);
    out.emit(&Event {
        name: label,
        cat: "cpu_frame",
        ph: "X",
        ts: Some(micros(cpu.begin_ns, cpu_origin)),
        dur: Some(micros_len(cpu.end_ns.saturating_sub(cpu.begin_ns))),
        pid: CPU_PID,
        tid: CPU_TID,
        s: None,
        args: FrameArgs {
            frame: number,
            begin_ns: cpu.begin_ns,
            end_ns: cpu.end_ns,
            dropped_spans: frame.dropped_spans,
            recorder_cost_ns: Some(frame.recorder_cost_ns),
        },
    })?;
    for span in &frame.cpu_spans {
        let name = topology.and_then(|t| t.graph_passes.get(span.graph_pass as usize)).map(|pass| pass.name.as_str());
        out.emit(&Event {
            name: name.unwrap_or("graph pass"),
            cat: "cpu_encode",
            ph: "X",
            ts: Some(micros(span.begin_ns, cpu_origin)),
            dur: Some(micros_len(span.end_ns.saturating_sub(span.begin_ns))),
            pid: CPU_PID,
            tid: CPU_TID,
            s: None,
            args: CpuSpanArgs {
                frame: number,
                graph_pass: span.graph_pass,
                begin_ns: span.begin_ns,
                end_ns: span.end_ns,
            },
        })?;
    }
    for (name, at) in [("submit", cpu.submit_ns), ("readback", cpu.readback_ns)] {
        let Some(at) = at else { continue };
        out.emit(&Event {
            name,
            cat: "cpu",
            ph: "i",
            ts: Some(micros(at, cpu_origin)),
            dur: None,
            pid: CPU_PID,
            tid: CPU_TID,
            s: Some("t"),
            args: InstantArgs { frame: number, at_ns: at },
        })?;
    }
    for sample in &frame.counters {
        let def = capture.counter(sample.counter);
        let name = def.map(|def| def.name.as_str());
        label.clear();
        if name.is_none() {
            use std::fmt::Write as _;
            let _ = write!(label, "counter {}", sample.counter);
        }
        let mut args = serde_json::Map::with_capacity(1);
        args.insert(def.map_or("value", |def| unit_name(def.unit)).to_owned(), serde_json::Value::from(sample.value));
        out.emit(&Event {
            name: name.unwrap_or(label),
            cat: "counter",
            ph: "C",
            ts: Some(micros(cpu.begin_ns, cpu_origin)),
            dur: None,
            pid: COUNTER_PID,
            tid: COUNTER_TID,
            s: None,
            args,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Declaration, GpuPass, GpuPassKind, Indirect, Meta, Note, Pipeline, QuerySetDef, Span};
    use crate::writer::Writer;

    /// Four frames of two compute passes ("step", "app"); frame f's spans are on query set
    /// `f % 3`, as a recorder's timer pool cycles its sets, labelled `labels[set]`.
    fn capture(labels: [&str; 3], level: Level, notes: &[&str]) -> Vec<u8> {
        let meta = Meta { level: Some(level), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).unwrap();
        let mut declarations: Vec<Declaration> = (0..3u8)
            .map(|id| Declaration::QuerySet(QuerySetDef { id, label: labels[usize::from(id)].to_owned() }))
            .collect();
        declarations.push(Declaration::Pipeline(Pipeline {
            id: 0,
            label: "step".into(),
            workgroup_size: Some([64, 1, 1]),
            ..Pipeline::default()
        }));
        declarations.push(Declaration::Pipeline(Pipeline {
            id: 1,
            label: "sized by override".into(),
            ..Pipeline::default()
        }));
        writer.declare(&declarations).unwrap();
        let topology = Topology {
            gpu_passes: ["step", "app"]
                .into_iter()
                .map(|label| GpuPass { label: label.into(), kind: GpuPassKind::Compute, ..GpuPass::default() })
                .collect(),
            ..Topology::default()
        };
        let id = writer.topology(&topology).unwrap();
        for f in 0..4u32 {
            let begin = 1_000_000 * u64::from(f);
            let query_set = (f % 3) as u8;
            let span = |pass, from, to| Span {
                pass,
                query_set,
                begin_ns: begin + from,
                end_ns: begin + to,
                ..Span::default()
            };
            let commands = if level >= Level::Workload {
                vec![
                    Command { gpu_pass: 0, pipeline: Some(0), op: Op::Dispatch { x: 24, y: 1, z: 1 } },
                    Command {
                        gpu_pass: 0,
                        pipeline: Some(1),
                        op: Op::DispatchIndirect {
                            indirect: Indirect { buffer: 2, offset: 8 },
                            resolved: (f % 2 == 0).then_some([3, 1, 1]),
                        },
                    },
                ]
            } else {
                Vec::new()
            };
            let frame = Frame {
                frame_number: u64::from(f),
                topology: id,
                spans: vec![span(0, 0, 1_000), span(1, 2_000, 3_000)],
                commands,
                ..Frame::default()
            };
            writer.frame(&frame).unwrap();
        }
        for text in notes {
            writer.note(&Note { frame_number: 0, text: (*text).to_owned() }).unwrap();
        }
        writer.finish().unwrap()
    }

    fn trace(bytes: &[u8]) -> Vec<serde_json::Value> {
        let capture = Capture::open(bytes).unwrap();
        let mut out = Vec::new();
        export(&capture, &mut out).unwrap();
        let trace: serde_json::Value = serde_json::from_slice(&out).unwrap();
        trace["traceEvents"].as_array().unwrap().clone()
    }

    fn gpu_tids(events: &[serde_json::Value]) -> BTreeSet<u64> {
        events.iter().filter(|e| e["pid"] == GPU_PID && e["ph"] == "X").map(|e| e["tid"].as_u64().unwrap()).collect()
    }

    #[test]
    fn a_timer_pools_sets_share_one_track_and_keep_their_set_in_args() {
        let events = trace(&capture(["timer pool set 0", "timer pool set 1", "timer pool set 2"], Level::Timing, &[]));
        assert_eq!(gpu_tids(&events), BTreeSet::from([1]));
        let sets: BTreeSet<u64> = events
            .iter()
            .filter(|e| e["cat"] == "gpu_pass")
            .map(|e| e["args"]["query_set"].as_u64().unwrap())
            .collect();
        assert_eq!(sets, BTreeSet::from([0, 1, 2]));
        let name = events.iter().find(|e| e["name"] == "thread_name" && e["pid"] == GPU_PID).unwrap();
        assert_eq!(name["args"]["name"], "GPU queue (timer pool sets 0, 1, 2)");
        // One frame slice a frame on the one track.
        assert_eq!(events.iter().filter(|e| e["cat"] == "frame").count(), 4);
    }

    #[test]
    fn query_sets_of_other_queues_keep_a_track_each() {
        let events = trace(&capture(["graphics", "async compute", "copy"], Level::Timing, &[]));
        assert_eq!(gpu_tids(&events), BTreeSet::from([1, 2, 3]));
        assert!(!is_timer_pool_set(1, "timer pool set 0"), "the label must name the set's own id");
        assert!(is_timer_pool_set(7, "timer pool set 7"));
    }

    #[test]
    fn pass_spans_carry_their_commands_with_unknowns_as_null() {
        let events = trace(&capture(["a", "b", "c"], Level::Workload, &[]));
        let step: Vec<_> = events.iter().filter(|e| e["cat"] == "gpu_pass" && e["name"] == "step").collect();
        assert_eq!(step.len(), 4);
        let workload = &step[0]["args"]["workload"];
        assert_eq!((workload["dispatches"].as_u64(), workload["draws"].as_u64()), (Some(2), Some(0)));
        let direct = &workload["commands"][0];
        assert_eq!(direct["op"], "dispatch");
        assert_eq!(direct["workgroups"], serde_json::json!([24, 1, 1]));
        assert_eq!(direct["invocations"], 24 * 64);
        let indirect = &workload["commands"][1];
        assert_eq!(indirect["indirect"], serde_json::json!({ "buffer": 2, "offset": 8 }));
        assert_eq!(indirect["resolved"], serde_json::json!([3, 1, 1]));
        // Resolved, but the workgroup size is an override: unknown, not 0.
        assert!(indirect["workgroup_size"].is_null() && indirect["invocations"].is_null());
        // Frame 1 did not resolve its indirect arguments.
        assert!(step[1]["args"]["workload"]["commands"][1]["resolved"].is_null());
        // "app" recorded nothing and no NOTE says why: zero commands.
        let app = events.iter().find(|e| e["cat"] == "gpu_pass" && e["name"] == "app").unwrap();
        assert_eq!(app["args"]["workload"]["dispatches"], 0);
    }

    #[test]
    fn a_pass_timer_pass_says_not_recorded_and_timing_captures_carry_no_workload() {
        let note = "sgpt-recorder: GPU pass \"app\" is begun by the application and timed through a PassTimer: its \
                    time is recorded, its commands (draws, dispatches, pipelines) are not";
        let events = trace(&capture(["a", "b", "c"], Level::Workload, &[note]));
        let app = events.iter().find(|e| e["cat"] == "gpu_pass" && e["name"] == "app").unwrap();
        assert_eq!(app["args"]["workload"], "not recorded");

        let events = trace(&capture(["a", "b", "c"], Level::Timing, &[]));
        assert!(events.iter().filter(|e| e["cat"] == "gpu_pass").all(|e| e["args"].get("workload").is_none()));
    }
}
