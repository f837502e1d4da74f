//! `sgpt info`: what a capture is, where it came from, and what it holds.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::analysis::check::verify_and_time_parallel;
use sgpt_format::chrome::is_timer_pool_set;
use sgpt_format::{Capture, GpuPassKind};

use crate::input::{self, printable};
use crate::json::{self, DefectJson, FrameTimingJson, SCHEMA};
use crate::output;
use crate::stats::write_frame_timing;
use crate::validate::{IndexedCountsJson, count_text, losses};

#[derive(Debug, Serialize)]
struct InfoJson<'p> {
    schema: u32,
    file: &'p str,
    bytes: usize,
    format_version: u16,
    min_reader_version: u16,
    closed: bool,
    used_directory: bool,
    level: Option<&'static str>,
    /// The META record as an object, with `level` added.
    meta: serde_json::Value,
    /// Frames, spans and dropped spans that read back.
    frames: usize,
    spans: u64,
    dropped_spans: u64,
    #[serde(flatten)]
    indexed: IndexedCountsJson,
    topologies: usize,
    graph_passes: Vec<GraphPassJson>,
    gpu_passes: Vec<GpuPassJson>,
    query_sets: Vec<NamedJson>,
    counters: Vec<CounterJson>,
    notes: Vec<NoteJson>,
    defects: Vec<DefectJson>,
    /// Frame intervals, latency, span coverage and recorder cost over every frame.
    frame_timing: FrameTimingJson,
}

#[derive(Debug, Serialize)]
struct GraphPassJson {
    name: String,
    gpu_passes: Vec<String>,
}

#[derive(Debug, Serialize)]
struct GpuPassJson {
    label: String,
    graph_pass: Option<String>,
    kind: GpuPassKind,
}

#[derive(Debug, Serialize)]
struct NamedJson {
    id: u32,
    label: String,
    /// Whether it is one of the recorder's timer-pool sets (`timer pool set N`): all of
    /// them are one queue (added to schema 1).
    timer_pool: bool,
}

#[derive(Debug, Serialize)]
struct CounterJson {
    id: u32,
    name: String,
    unit: sgpt_format::CounterUnit,
}

#[derive(Debug, Serialize)]
struct NoteJson {
    frame_number: u64,
    text: String,
}

/// Every graph pass with its GPU pass labels, and every GPU pass, over all topologies,
/// deduplicated in order of first appearance.
fn passes(capture: &Capture<'_>) -> (Vec<GraphPassJson>, Vec<GpuPassJson>) {
    let mut graph: Vec<GraphPassJson> = Vec::new();
    let mut graph_index: HashMap<String, usize> = HashMap::new();
    let mut gpu: Vec<GpuPassJson> = Vec::new();
    let mut seen_gpu: HashSet<(Option<String>, String, GpuPassKind)> = HashSet::new();
    // Sets, not list scans: a hostile topology may hold millions of passes.
    let mut seen_labels: HashSet<(usize, String)> = HashSet::new();
    for (_, topology) in capture.topologies() {
        for pass in &topology.graph_passes {
            graph_index.entry(pass.name.clone()).or_insert_with(|| {
                graph.push(GraphPassJson { name: pass.name.clone(), gpu_passes: Vec::new() });
                graph.len() - 1
            });
        }
        for pass in &topology.gpu_passes {
            let owner = pass.graph_pass.and_then(|g| topology.graph_passes.get(g as usize)).map(|g| g.name.clone());
            if let Some(&at) = owner.as_ref().and_then(|name| graph_index.get(name))
                && seen_labels.insert((at, pass.label.clone()))
            {
                graph[at].gpu_passes.push(pass.label.clone());
            }
            if seen_gpu.insert((owner.clone(), pass.label.clone(), pass.kind)) {
                gpu.push(GpuPassJson { label: pass.label.clone(), graph_pass: owner, kind: pass.kind });
            }
        }
    }
    (graph, gpu)
}

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let checking = input::spinner(input::is_large(&capture, bytes.len()), "checking");
    // One decode of each frame serves the check and the frame timing alike.
    let (defects, counts, timing) = verify_and_time_parallel(&capture);
    checking.finish_and_clear();
    let (graph_passes, gpu_passes) = passes(&capture);
    let header = capture.header();
    let meta = capture.meta().cloned().unwrap_or_default();
    let level = capture.level().map(sgpt_format::Level::name);
    let file = path.display().to_string();

    if as_json {
        let mut meta_json = serde_json::to_value(&meta)?;
        if let Some(object) = meta_json.as_object_mut() {
            object.insert("level".into(), level.into());
        }
        return json::print(&InfoJson {
            schema: SCHEMA,
            file: &file,
            bytes: bytes.len(),
            format_version: header.format_version,
            min_reader_version: header.min_reader_version,
            closed: header.closed(),
            used_directory: capture.used_directory(),
            level,
            meta: meta_json,
            frames: counts.frames,
            spans: counts.spans,
            dropped_spans: counts.dropped_spans,
            indexed: IndexedCountsJson::new(&counts),
            topologies: capture.topology_count(),
            graph_passes,
            gpu_passes,
            query_sets: (0..=u8::MAX)
                .filter_map(|id| capture.query_set(id))
                .map(|set| NamedJson {
                    id: u32::from(set.id),
                    label: set.label.clone(),
                    timer_pool: is_timer_pool_set(set.id, &set.label),
                })
                .collect(),
            counters: capture
                .counters()
                .map(|counter| CounterJson { id: counter.id, name: counter.name.clone(), unit: counter.unit })
                .collect(),
            notes: capture
                .notes()
                .iter()
                .map(|note| NoteJson { frame_number: note.frame_number, text: note.text.clone() })
                .collect(),
            defects: json::defects(&defects),
            frame_timing: FrameTimingJson::new(&timing),
        })
        .map(|()| ExitCode::SUCCESS);
    }

    let mut out = output::stdout();
    let field = |out: &mut output::Out, name: &str, value: &str| writeln!(out, "{name:<13}{}", printable(value));
    field(&mut out, "file", &format!("{file} ({} bytes)", bytes.len()))?;
    field(
        &mut out,
        "format",
        &format!(
            "version {} (needs reader {}), {}, {}",
            header.format_version,
            header.min_reader_version,
            if header.closed() { "closed" } else { "never closed" },
            if capture.used_directory() { "indexed by its directory" } else { "records scanned" }
        ),
    )?;
    field(&mut out, "level", level.unwrap_or("unknown (no META)"))?;
    if capture.level() == Some(sgpt_format::Level::Verbose) {
        field(&mut out, "", "verbose captures cost the application time; timings are pessimistic")?;
    }
    if !meta.application.is_empty() {
        field(&mut out, "application", &format!("{} {}", meta.application, meta.application_version))?;
    }
    if !meta.recorder.is_empty() {
        field(&mut out, "recorder", format!("{} {}", meta.recorder, meta.git_revision).trim_end())?;
    }
    let adapter = &meta.adapter;
    field(
        &mut out,
        "adapter",
        &format!(
            "{} (backend {}, {}, driver {} {})",
            adapter.name,
            // Either spelling of the browser's WebGPU is named `webgpu` (SGPT_FORMAT.md §3.2);
            // the JSON keeps the META as written.
            adapter.backend_name(),
            adapter.device_type,
            adapter.driver,
            adapter.driver_info
        ),
    )?;
    field(
        &mut out,
        "timestamps",
        &format!(
            "query {}, inside passes {}",
            if meta.timestamp_query { "yes" } else { "no" },
            if meta.timestamp_query_inside_passes { "yes" } else { "no" }
        ),
    )?;
    for setting in &meta.settings {
        field(&mut out, "setting", &format!("{} = {}", setting.name, setting.value))?;
    }
    if !meta.note.is_empty() {
        field(&mut out, "note", &meta.note)?;
    }
    let frames = capture.frames();
    let numbers = match (frames.first(), frames.last()) {
        (Some(first), Some(last)) => format!(" (frame numbers {}..={})", first.frame_number, last.frame_number),
        _ => String::new(),
    };
    field(&mut out, "frames", &format!("{}{numbers}", count_text(counts.frames as u64, counts.frames_indexed as u64)))?;
    for lost in losses(&counts) {
        field(&mut out, "lost", &lost)?;
    }
    field(
        &mut out,
        "spans",
        &format!(
            "{} ({} dropped: begun but never timed)",
            count_text(counts.spans, counts.spans_indexed),
            count_text(counts.dropped_spans, counts.dropped_spans_indexed)
        ),
    )?;
    field(&mut out, "topologies", &capture.topology_count().to_string())?;
    let sets: Vec<_> = (0..=u8::MAX).filter_map(|id| capture.query_set(id)).collect();
    let pool: Vec<String> =
        sets.iter().filter(|set| is_timer_pool_set(set.id, &set.label)).map(|set| set.id.to_string()).collect();
    if !pool.is_empty() {
        let name = if pool.len() == 1 { "query set" } else { "query sets" };
        field(&mut out, name, &format!("{}: the recorder's timer pool, one queue", pool.join(", ")))?;
    }
    for set in sets.iter().filter(|set| !is_timer_pool_set(set.id, &set.label)) {
        field(&mut out, "query set", &format!("{}: {:?}", set.id, set.label))?;
    }
    for counter in capture.counters() {
        let unit = serde_json::to_value(counter.unit)?;
        field(&mut out, "counter", &format!("{} {} ({})", counter.id, counter.name, unit.as_str().unwrap_or("?")))?;
    }
    for note in capture.notes() {
        field(&mut out, "note", &format!("frame {}: {}", note.frame_number, note.text))?;
    }
    if graph_passes.is_empty() {
        // Below level structure no graph is recorded; at or above it the app named none.
        let why = match capture.level() {
            Some(level) if level >= sgpt_format::Level::Structure => "the application named no graph passes",
            _ => "no frame graph below level structure",
        };
        writeln!(out, "\nGPU passes ({}; {why}):", gpu_passes.len())?;
        for pass in &gpu_passes {
            writeln!(out, "  {} ({})", printable(&pass.label), pass.kind.name())?;
        }
    } else {
        writeln!(out, "\ngraph passes ({}) and the GPU passes they open:", graph_passes.len())?;
        for pass in &graph_passes {
            let labels: Vec<String> = pass.gpu_passes.iter().map(|label| printable(label)).collect();
            let labels = if labels.is_empty() { "(none; culled or CPU-only)".to_owned() } else { labels.join(", ") };
            writeln!(out, "  {}: {labels}", printable(&pass.name))?;
        }
    }
    writeln!(out)?;
    write_frame_timing(&mut out, &timing)?;
    writeln!(out, "\ndefects ({}):", defects.len())?;
    for defect in &defects {
        writeln!(out, "  {}", printable(&defect.to_string()))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
