//! Everything about one GPU pass in one frame: its workload (dispatches, draws, derived
//! invocations, pipelines and workgroup sizes), attachments, indirect arguments marked
//! encoded or resolved, bindings at `Verbose`, and its duration across frames.

use sgpt_format::{AttachmentRole, Capture, Frame, LoadOp, Op, StoreOp, Topology};

use crate::summary::clip;
use crate::units;

/// One dispatch or draw, described.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandRow {
    pub what: String,
    pub pipeline: String,
    pub workgroup: String,
    /// Invocations (dispatch) or vertices × instances (draw); `None` when unknown.
    pub work: Option<u64>,
    pub indirect: String,
    pub bindings: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassDetail {
    pub label: String,
    pub kind: &'static str,
    pub graph_pass: Option<String>,
    /// The graph pass's index in the topology, for a link to it in the structure view.
    pub graph_pass_index: Option<u32>,
    pub durations: Vec<u64>,
    pub dispatches: usize,
    pub draws: usize,
    /// Total invocations over the dispatches, or `None` if any is unknown (with how many are known).
    pub invocations: Option<u64>,
    pub unknown_invocations: usize,
    pub commands: Vec<CommandRow>,
    pub attachments: Vec<String>,
    /// The capture's level when it records no commands (below workload): the counts
    /// above are then not measured, not zero. `None` at workload and up.
    pub workload_not_recorded: Option<&'static str>,
}

/// At most this many commands are listed; counts cover all of them.
pub const MAX_COMMANDS: usize = 500;

impl PassDetail {
    /// The detail of GPU pass `pass` in `frame`.
    #[must_use]
    pub fn new(capture: &Capture<'_>, topology: &Topology, frame: &Frame, pass: u32) -> Option<Self> {
        let gpu = topology.gpu_passes.get(pass as usize)?;
        let mut detail = PassDetail {
            label: clip(&gpu.label),
            kind: gpu.kind.name(),
            graph_pass: gpu.graph_pass.and_then(|g| topology.graph_passes.get(g as usize)).map(|g| clip(&g.name)),
            graph_pass_index: gpu.graph_pass.filter(|&g| (g as usize) < topology.graph_passes.len()),
            durations: frame.spans.iter().filter(|s| s.pass == pass).map(sgpt_format::Span::duration_ns).collect(),
            attachments: gpu
                .attachments
                .iter()
                .map(|a| {
                    let role = match a.role {
                        AttachmentRole::Color => "color",
                        AttachmentRole::DepthStencil => "depth/stencil",
                    };
                    let mut text =
                        format!("{role} {}: load {}, store {}", clip(&a.format), load(a.load), store(a.store));
                    if let Some((l, s)) = a.stencil {
                        text.push_str(&format!("; stencil load {}, store {}", load(l), store(s)));
                    }
                    text
                })
                .collect(),
            workload_not_recorded: match capture.level() {
                Some(level) if level >= sgpt_format::Level::Workload => None,
                level => Some(level.map_or("unknown", sgpt_format::Level::name)),
            },
            ..PassDetail::default()
        };
        let mut total = 0u64;
        for (index, command) in frame.commands.iter().enumerate().filter(|(_, c)| c.gpu_pass == pass) {
            let pipeline = command.pipeline.and_then(|id| capture.pipeline(id));
            let pipeline_name = match (command.pipeline, pipeline) {
                (None, _) => "none set".to_owned(),
                (Some(id), None) => format!("#{id} (not declared)"),
                (Some(id), Some(p)) if p.label.is_empty() => format!("#{id}"),
                (Some(_), Some(p)) => clip(&p.label),
            };
            let workgroup = pipeline.and_then(|p| p.workgroup_size);
            let workgroup_text = workgroup.map_or_else(|| "unknown".to_owned(), |[x, y, z]| format!("{x}×{y}×{z}"));
            let indirect_text = |indirect: &sgpt_format::Indirect, resolved: Option<String>| {
                let buffer = capture
                    .buffer(indirect.buffer)
                    .map_or_else(|| format!("buffer #{}", indirect.buffer), |b| format!("buffer {}", clip(&b.label)));
                let encoded = format!("encoded: {buffer} at offset {}", indirect.offset);
                match resolved {
                    Some(resolved) => format!("{encoded}; resolved after submit: {resolved}"),
                    None => format!("{encoded}; counts unknown (resolved only at level verbose)"),
                }
            };
            let per_group = workgroup.map(|[x, y, z]| u64::from(x) * u64::from(y) * u64::from(z));
            let (what, work, indirect) = match command.op {
                Op::Dispatch { x, y, z } => {
                    detail.dispatches += 1;
                    let groups = u64::from(x) * u64::from(y) * u64::from(z);
                    (format!("dispatch {x}×{y}×{z}"), per_group.map(|g| g * groups), String::new())
                }
                Op::DispatchIndirect { indirect, resolved } => {
                    detail.dispatches += 1;
                    let work =
                        resolved.zip(per_group).map(|([x, y, z], g)| g * u64::from(x) * u64::from(y) * u64::from(z));
                    let resolved = resolved.map(|[x, y, z]| format!("{x}×{y}×{z}"));
                    ("dispatch indirect".to_owned(), work, indirect_text(&indirect, resolved))
                }
                Op::Draw { vertices, instances, .. } => {
                    detail.draws += 1;
                    (
                        format!("draw {vertices} vertices × {instances}"),
                        Some(u64::from(vertices) * u64::from(instances)),
                        String::new(),
                    )
                }
                Op::DrawIndexed { indices, instances, .. } => {
                    detail.draws += 1;
                    (
                        format!("draw indexed {indices} indices × {instances}"),
                        Some(u64::from(indices) * u64::from(instances)),
                        String::new(),
                    )
                }
                Op::DrawIndirect { indexed, indirect, resolved } => {
                    detail.draws += 1;
                    let what = if indexed { "draw indexed indirect" } else { "draw indirect" };
                    let resolved_text = resolved.map(|[count, instances]| format!("{count} × {instances}"));
                    (
                        what.to_owned(),
                        resolved.map(|[c, i]| u64::from(c) * u64::from(i)),
                        indirect_text(&indirect, resolved_text),
                    )
                }
            };
            if command.op.is_dispatch() {
                match work {
                    Some(work) => total = total.saturating_add(work),
                    None => detail.unknown_invocations += 1,
                }
            }
            if detail.commands.len() < MAX_COMMANDS {
                let bindings = frame
                    .bindings
                    .iter()
                    .filter(|b| b.command as usize == index)
                    .take(16)
                    .map(|b| {
                        let group = capture.bind_group(b.bind_group).map_or_else(
                            || format!("#{}", b.bind_group),
                            |g| if g.label.is_empty() { format!("#{}", b.bind_group) } else { clip(&g.label) },
                        );
                        format!("@group({}) {group}", b.group)
                    })
                    .collect();
                detail.commands.push(CommandRow {
                    what,
                    pipeline: pipeline_name,
                    workgroup: if command.op.is_dispatch() { workgroup_text } else { "–".to_owned() },
                    work,
                    indirect,
                    bindings,
                });
            }
        }
        detail.invocations = (detail.unknown_invocations == 0).then_some(total);
        Some(detail)
    }

    /// "1 234 invocations", or how many dispatches are unknown.
    #[must_use]
    pub fn invocations_text(&self) -> String {
        if let Some(level) = self.workload_not_recorded {
            return format!("not recorded (level {level})");
        }
        match (self.invocations, self.dispatches) {
            (_, 0) => "no dispatches".to_owned(),
            (Some(total), _) => format!("{} invocations", units::grouped(total)),
            (None, dispatches) => format!(
                "unknown: {} of {dispatches} dispatches have an unknown workgroup size or unresolved indirect counts",
                self.unknown_invocations
            ),
        }
    }
}

fn load(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "load",
        LoadOp::Clear => "clear",
        LoadOp::None => "none",
    }
}

fn store(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Store => "store",
        StoreOp::Discard => "discard",
        StoreOp::None => "none",
    }
}

/// A sparkline's points: per bucket of frames, the min and max of the per-frame values
/// present (`None` where the pass ran in none of its frames).
#[must_use]
pub fn sparkline(values: &[Option<u64>], points: usize) -> Vec<Option<(u64, u64)>> {
    let points = points.max(1).min(values.len());
    (0..points)
        .map(|point| {
            let (start, end) = (point * values.len() / points, (point + 1) * values.len() / points);
            values[start..end]
                .iter()
                .flatten()
                .fold(None, |acc: Option<(u64, u64)>, &v| Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v)))))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use sgpt_format::{Command, GpuPass, Indirect, Level, Meta, Pipeline, Writer};

    use super::*;

    #[test]
    fn invocations_multiply_workgroup_size_and_unknowns_stay_unknown() {
        let meta = Meta { level: Some(Level::Verbose), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).expect("meta");
        let topology =
            Topology { gpu_passes: vec![GpuPass { label: "sim".into(), ..GpuPass::default() }], ..Topology::default() };
        let id = writer.topology(&topology).expect("topology");
        writer
            .declare(&[sgpt_format::Declaration::Pipeline(Pipeline {
                id: 1,
                label: "integrate".into(),
                workgroup_size: Some([64, 1, 1]),
                ..Pipeline::default()
            })])
            .expect("declare");
        let frame = Frame {
            topology: id,
            commands: vec![
                Command { gpu_pass: 0, pipeline: Some(1), op: Op::Dispatch { x: 10, y: 2, z: 1 } },
                Command {
                    gpu_pass: 0,
                    pipeline: Some(1),
                    op: Op::DispatchIndirect { indirect: Indirect { buffer: 9, offset: 16 }, resolved: None },
                },
            ],
            ..Frame::default()
        };
        writer.frame(&frame).expect("frame");
        let bytes = writer.finish().expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let detail = PassDetail::new(&capture, &topology, &frame, 0).expect("pass 0 exists");
        assert_eq!(detail.dispatches, 2);
        assert_eq!(detail.commands[0].work, Some(1280));
        assert_eq!(detail.commands[0].workgroup, "64×1×1");
        assert_eq!(detail.commands[0].pipeline, "integrate");
        assert_eq!(detail.commands[1].work, None);
        assert!(detail.commands[1].indirect.contains("encoded: buffer #9 at offset 16"));
        assert!(detail.commands[1].indirect.contains("counts unknown"));
        assert_eq!(detail.invocations, None);
        assert!(detail.invocations_text().starts_with("unknown: 1 of 2 dispatches"));
        assert!(PassDetail::new(&capture, &topology, &frame, 5).is_none());
        assert_eq!(detail.workload_not_recorded, None, "verbose records commands");
    }

    #[test]
    fn below_level_workload_counts_are_not_recorded_rather_than_zero() {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).expect("meta");
        let topology =
            Topology { gpu_passes: vec![GpuPass { label: "sim".into(), ..GpuPass::default() }], ..Topology::default() };
        let frame = Frame { topology: writer.topology(&topology).expect("topology"), ..Frame::default() };
        writer.frame(&frame).expect("frame");
        let bytes = writer.finish().expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let detail = PassDetail::new(&capture, &topology, &frame, 0).expect("pass 0 exists");
        assert_eq!(detail.workload_not_recorded, Some("timing"));
        assert_eq!(detail.invocations_text(), "not recorded (level timing)");
    }

    #[test]
    fn sparklines_keep_the_extremes_of_each_bucket() {
        let values = [Some(5), Some(9), None, None, Some(1), Some(3)];
        assert_eq!(sparkline(&values, 3), [Some((5, 9)), None, Some((1, 3))]);
        assert_eq!(sparkline(&values, 100).len(), 6);
        assert!(sparkline(&[], 10).is_empty());
    }
}
