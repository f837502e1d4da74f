//! `sgpt workload`: per GPU pass, what it asked the GPU to do.

use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use sgpt_format::workload_summary::{
    IndirectUse, PassWorkload, PerFrame, PipelineUse, Recording, Shape, ShapeUse, WorkloadReport, summarize_parallel,
};
use sgpt_format::{Attachment, AttachmentRole, Capture, GpuPassKind, LoadOp, PipelineKind, StoreOp};

use crate::input::{self, printable};
use crate::json::{self, DefectJson, SCHEMA};
use crate::output;
use crate::recovered;
use crate::stats::FrameRange;

#[derive(Debug, Serialize)]
struct WorkloadJson<'p> {
    schema: u32,
    file: &'p str,
    frame_range: [usize; 2],
    frames: u64,
    level: Option<&'static str>,
    commands_recorded: bool,
    commands: u64,
    passes: Vec<PassJson>,
    defects: Vec<DefectJson>,
    /// What opening the capture found: a writer that never stopped, a file cut short,
    /// skipped bytes or records (added to schema 1).
    capture_defects: Vec<DefectJson>,
}

/// min/median/max per frame; a figure that is not known is `null`.
#[derive(Debug, Serialize)]
struct PerFrameJson {
    frames: u64,
    min: Option<u64>,
    median: Option<u64>,
    max: Option<u64>,
}

impl PerFrameJson {
    fn new(figure: &PerFrame, recording: Recording) -> Option<Self> {
        (recording == Recording::Recorded && figure.frames > 0).then_some(Self {
            frames: figure.frames,
            min: figure.min,
            median: figure.median,
            max: figure.max,
        })
    }
}

#[derive(Debug, Serialize)]
struct PassJson {
    label: String,
    graph_pass: Option<String>,
    kind: GpuPassKind,
    /// `recorded`, `not_recorded` (a PassTimer pass) or `below_level`.
    recording: &'static str,
    frames: u64,
    dispatches: Option<PerFrameJson>,
    draws: Option<PerFrameJson>,
    indirect: Option<PerFrameJson>,
    invocations: Option<PerFrameJson>,
    invocations_unknown_frames: u64,
    pipelines: Vec<PipelineJson>,
    commands: Vec<ShapeJson>,
    indirect_arguments: Vec<IndirectJson>,
    other_commands: u64,
    attachments: Vec<AttachmentJson>,
}

#[derive(Debug, Serialize)]
struct PipelineJson {
    id: Option<u32>,
    label: Option<String>,
    kind: Option<&'static str>,
    shader_module: Option<String>,
    entry_point: Option<String>,
    workgroup_size: Option<[u32; 3]>,
    commands: u64,
}

#[derive(Debug, Serialize)]
struct ShapeJson {
    op: &'static str,
    pipeline: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    workgroups: Option<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vertices: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    indices: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instances: Option<u32>,
    /// For a dispatch: `null` when the pipeline's workgroup size is unknown.
    #[serde(skip_serializing_if = "is_draw")]
    invocations: Option<Option<u64>>,
    commands: u64,
    frames: u64,
}

fn is_draw(invocations: &Option<Option<u64>>) -> bool {
    invocations.is_none()
}

#[derive(Debug, Serialize)]
struct IndirectJson {
    op: &'static str,
    pipeline: Option<u32>,
    buffer: u32,
    buffer_label: Option<String>,
    offset: u64,
    commands: u64,
    resolved_commands: u64,
    /// Over the resolved commands: `[min, max]` workgroups (x·y·z) of a dispatch, vertices
    /// or indices of a draw; `null` when none was resolved.
    resolved_range: Option<[u64; 2]>,
    resolved_instances: Option<[u64; 2]>,
}

#[derive(Debug, Serialize)]
struct AttachmentJson {
    role: &'static str,
    format: String,
    load: &'static str,
    store: &'static str,
    stencil_load: Option<&'static str>,
    stencil_store: Option<&'static str>,
}

fn load_name(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "load",
        LoadOp::Clear => "clear",
        LoadOp::None => "none",
    }
}

fn store_name(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Store => "store",
        StoreOp::Discard => "discard",
        StoreOp::None => "none",
    }
}

fn attachment_json(attachment: &Attachment) -> AttachmentJson {
    AttachmentJson {
        role: match attachment.role {
            AttachmentRole::Color => "color",
            AttachmentRole::DepthStencil => "depth_stencil",
        },
        format: attachment.format.clone(),
        load: load_name(attachment.load),
        store: store_name(attachment.store),
        stencil_load: attachment.stencil.map(|(load, _)| load_name(load)),
        stencil_store: attachment.stencil.map(|(_, store)| store_name(store)),
    }
}

fn pipeline_json(pipeline: &PipelineUse) -> PipelineJson {
    let declared = pipeline.pipeline.as_ref();
    PipelineJson {
        id: pipeline.id,
        label: declared.map(|p| p.label.clone()),
        kind: declared.map(|p| match p.kind {
            PipelineKind::Compute => "compute",
            PipelineKind::Render => "render",
        }),
        shader_module: declared.map(|p| p.shader_module.clone()),
        entry_point: declared.map(|p| p.entry_point.clone()),
        workgroup_size: pipeline.workgroup_size(),
        commands: pipeline.commands,
    }
}

fn shape_json(shape: &ShapeUse) -> ShapeJson {
    let mut json = ShapeJson {
        op: "",
        pipeline: shape.pipeline,
        workgroups: None,
        vertices: None,
        indices: None,
        instances: None,
        invocations: None,
        commands: shape.commands,
        frames: shape.frames,
    };
    match shape.shape {
        Shape::Dispatch { x, y, z } => {
            json.op = "dispatch";
            json.workgroups = Some([x, y, z]);
            json.invocations = Some(shape.invocations);
        }
        Shape::Draw { vertices, instances } => {
            json.op = "draw";
            (json.vertices, json.instances) = (Some(vertices), Some(instances));
        }
        Shape::DrawIndexed { indices, instances } => {
            json.op = "draw_indexed";
            (json.indices, json.instances) = (Some(indices), Some(instances));
        }
    }
    json
}

fn indirect_json(capture: &Capture<'_>, source: &IndirectUse) -> IndirectJson {
    IndirectJson {
        op: source.op,
        pipeline: source.pipeline,
        buffer: source.buffer,
        buffer_label: capture.buffer(source.buffer).map(|buffer| buffer.label.clone()),
        offset: source.offset,
        commands: source.commands,
        resolved_commands: source.resolved,
        resolved_range: source.resolved_count,
        resolved_instances: source.resolved_instances,
    }
}

fn pass_json(capture: &Capture<'_>, pass: &PassWorkload) -> PassJson {
    let recording = pass.recording;
    PassJson {
        label: pass.label.clone(),
        graph_pass: pass.graph_pass.clone(),
        kind: pass.kind,
        recording: recording.name(),
        frames: pass.frames,
        dispatches: PerFrameJson::new(&pass.dispatches, recording),
        draws: PerFrameJson::new(&pass.draws, recording),
        indirect: PerFrameJson::new(&pass.indirect, recording),
        invocations: PerFrameJson::new(&pass.invocations, recording),
        invocations_unknown_frames: pass.invocations_unknown_frames,
        pipelines: pass.pipelines.iter().map(pipeline_json).collect(),
        commands: pass.shapes.iter().map(shape_json).collect(),
        indirect_arguments: pass.indirect_sources.iter().map(|source| indirect_json(capture, source)).collect(),
        other_commands: pass.other_commands,
        attachments: pass.attachments.iter().map(attachment_json).collect(),
    }
}

/// Distinct commands the text lists per pass, most frequent first; `--json` has up to
/// `workload_summary::MAX_SHAPES`.
const TEXT_SHAPES: usize = 6;

/// The workload of `range`, summarised on every core, with a spinner on large captures.
pub fn report(capture: &Capture<'_>, range: Range<usize>, large: bool) -> WorkloadReport {
    let summarising = input::spinner(large, "summarising");
    let report = summarize_parallel(capture, range);
    summarising.finish_and_clear();
    report
}

/// `1 per frame` when every frame agrees, else `min 0, median 1, max 3 per frame`.
fn per_frame_text(figure: &PerFrame) -> String {
    match (figure.min, figure.median, figure.max) {
        (Some(min), _, Some(max)) if min == max => format!("{min} per frame"),
        (Some(min), Some(median), Some(max)) => format!("min {min}, median {median}, max {max} per frame"),
        (Some(min), None, Some(max)) => {
            format!("min {min}, max {max} per frame (median unknown: too many distinct values to hold)")
        }
        _ => "unknown".to_owned(),
    }
}

fn workgroup_text(size: Option<[u32; 3]>) -> String {
    size.map_or_else(|| "workgroup size unknown".to_owned(), |[x, y, z]| format!("workgroup size {x}×{y}×{z}"))
}

fn pipeline_text(capture: &Capture<'_>, id: Option<u32>) -> String {
    match id {
        None => "no pipeline".to_owned(),
        Some(id) => match capture.pipeline(id) {
            Some(pipeline) => format!("pipeline {id} {:?}", pipeline.label),
            None => format!("pipeline {id} (undeclared)"),
        },
    }
}

fn write_pass(out: &mut impl Write, capture: &Capture<'_>, pass: &PassWorkload) -> io::Result<()> {
    let graph =
        pass.graph_pass.as_deref().map_or_else(String::new, |graph| format!(", graph pass {}", printable(graph)));
    writeln!(out, "\n{} ({}{graph}): ran in {} frames", printable(&pass.label), pass.kind.name(), pass.frames)?;
    match pass.recording {
        Recording::NotRecorded => {
            return writeln!(
                out,
                "  commands     not recorded: a NOTE says the application began this pass and timed it through a PassTimer"
            );
        }
        Recording::BelowLevel => return writeln!(out, "  commands     not recorded at this capture's level"),
        Recording::Recorded => {}
    }
    writeln!(out, "  dispatches   {}", per_frame_text(&pass.dispatches))?;
    writeln!(out, "  draws        {}", per_frame_text(&pass.draws))?;
    if pass.indirect.max.is_some_and(|max| max > 0) {
        writeln!(out, "  indirect     {}", per_frame_text(&pass.indirect))?;
    }
    if pass.dispatches.max.is_some_and(|max| max > 0) {
        let unknown = pass.invocations_unknown_frames;
        let why = unknown_invocations_reason(pass);
        let text = match (pass.invocations.frames, unknown) {
            (_, 0) => per_frame_text(&pass.invocations),
            (0, _) => format!("unknown in all {unknown} frames ({why})"),
            (known, _) => {
                format!("{} over {known} frames; unknown in {unknown} ({why})", per_frame_text(&pass.invocations))
            }
        };
        writeln!(out, "  invocations  {text}")?;
    }
    for pipeline in &pass.pipelines {
        let what = match &pipeline.pipeline {
            Some(p) if p.kind == PipelineKind::Compute => format!(
                "{} ({} {}), {}",
                pipeline_text(capture, pipeline.id),
                printable(&p.shader_module),
                printable(&p.entry_point),
                workgroup_text(p.workgroup_size)
            ),
            Some(p) => format!(
                "{} ({} {})",
                pipeline_text(capture, pipeline.id),
                printable(&p.shader_module),
                printable(&p.entry_point)
            ),
            None => pipeline_text(capture, pipeline.id),
        };
        writeln!(out, "  pipeline     {}: {} commands", printable(&what), pipeline.commands)?;
    }
    for shape in pass.shapes.iter().take(TEXT_SHAPES) {
        let what = match shape.shape {
            Shape::Dispatch { x, y, z } => {
                let invocations =
                    shape.invocations.map_or_else(|| "invocations unknown".to_owned(), |n| format!("{n} invocations"));
                format!("dispatch {x}×{y}×{z} ({invocations})")
            }
            Shape::Draw { vertices, instances } => format!("draw {vertices} vertices × {instances} instances"),
            Shape::DrawIndexed { indices, instances } => {
                format!("draw indexed {indices} indices × {instances} instances")
            }
        };
        writeln!(
            out,
            "  command      {what}, {}: {} times in {} frames",
            printable(&pipeline_text(capture, shape.pipeline)),
            shape.commands,
            shape.frames
        )?;
    }
    for source in &pass.indirect_sources {
        let buffer = capture
            .buffer(source.buffer)
            .map_or_else(|| format!("buffer {}", source.buffer), |b| format!("buffer {} {:?}", source.buffer, b.label));
        let resolved = match (source.resolved, source.resolved_count) {
            (0, _) | (_, None) => "not resolved in this capture (encoded arguments only)".to_owned(),
            (n, Some([low, high])) => {
                let what = if source.op == "dispatch" { "workgroups" } else { "count" };
                let instances = source
                    .resolved_instances
                    .map_or_else(String::new, |[low, high]| format!(", instances {}", range_text(low, high)));
                format!("resolved in {n} of {}: {what} {}{instances}", source.commands, range_text(low, high))
            }
        };
        writeln!(
            out,
            "  indirect     {} from {} at offset {}, {}: {} times; {resolved}",
            source.op,
            printable(&buffer),
            source.offset,
            printable(&pipeline_text(capture, source.pipeline)),
            source.commands
        )?;
    }
    let unlisted = pass.other_commands + pass.shapes.iter().skip(TEXT_SHAPES).map(|shape| shape.commands).sum::<u64>();
    if unlisted > 0 {
        writeln!(out, "  other        {unlisted} commands of further shapes, not listed (`--json` lists more)")?;
    }
    for attachment in &pass.attachments {
        let json = attachment_json(attachment);
        let stencil = match (json.stencil_load, json.stencil_store) {
            (Some(load), Some(store)) => format!(", stencil {load}/{store}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "  attachment   {} {}, {}/{}{stencil}",
            json.role,
            printable(&json.format),
            json.load,
            json.store
        )?;
    }
    Ok(())
}

/// Why a pass's invocations are unknown in some frames, from what the pass used.
fn unknown_invocations_reason(pass: &PassWorkload) -> String {
    let mut reasons = Vec::new();
    let dispatching =
        |pipeline: &&PipelineUse| pipeline.pipeline.as_ref().is_none_or(|p| p.kind == PipelineKind::Compute);
    if pass.pipelines.iter().filter(dispatching).any(|pipeline| pipeline.workgroup_size().is_none()) {
        reasons.push("a workgroup size is unknown");
    }
    if pass.indirect_sources.iter().any(|source| source.op == "dispatch" && source.resolved < source.commands) {
        reasons.push("indirect dispatch arguments are not resolved");
    }
    if reasons.is_empty() {
        reasons.push("a workgroup count overflows");
    }
    reasons.join(" and ")
}

fn range_text(low: u64, high: u64) -> String {
    if low == high { low.to_string() } else { format!("{low}..={high}") }
}

pub fn run(path: &Path, frames: Option<FrameRange>, as_json: bool) -> anyhow::Result<ExitCode> {
    let bytes = input::read(path)?;
    let capture = input::open(path, &bytes)?;
    let count = capture.frames().len();
    let range = match frames {
        Some(frames) => frames.resolve(count).map_err(|error| error.context(path.display().to_string()))?,
        None => 0..count,
    };
    let report = report(&capture, range.clone(), input::is_large(&capture, bytes.len()));
    let file = path.display().to_string();
    let level = report.level.map(sgpt_format::Level::name);
    if as_json {
        json::print(&WorkloadJson {
            schema: SCHEMA,
            file: &file,
            frame_range: [range.start, range.end],
            frames: report.frames,
            level,
            commands_recorded: report.commands_recorded,
            commands: report.commands,
            passes: report.passes.iter().map(|pass| pass_json(&capture, pass)).collect(),
            defects: json::defects(&report.defects),
            capture_defects: json::defects(capture.defects()),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = output::stdout();
    writeln!(
        out,
        "{}: frames {}..{} ({} analysed), level {}, {} commands",
        printable(&file),
        range.start,
        range.end,
        report.frames,
        level.unwrap_or("unknown (no META)"),
        report.commands
    )?;
    recovered::write(&mut out, "the capture", capture.defects())?;
    if !report.commands_recorded {
        writeln!(
            out,
            "commands (dispatches, draws, pipelines) are recorded at level workload and up: none are in this capture"
        )?;
    }
    for pass in report.passes.iter().filter(|_| report.commands_recorded) {
        write_pass(&mut out, &capture, pass)?;
    }
    if !report.defects.is_empty() {
        writeln!(out, "\nskipped {} frames:", report.defects.len())?;
        for defect in &report.defects {
            writeln!(out, "  {}", printable(&defect.to_string()))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
