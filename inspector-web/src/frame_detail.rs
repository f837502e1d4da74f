//! The details pane for the shown frame when no pass is selected: its times, what it
//! lost, and its workload pass by pass, so dispatch and draw counts are on screen
//! without selecting anything.

use sgpt_format::{Capture, Frame, FrameEntry, Level, Topology};

use crate::pass_detail::PassDetail;
use crate::summary::clip;
use crate::units;

/// One GPU pass's workload in the frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadRow {
    /// The GPU pass's index in the frame's topology (a row selects it).
    pub pass: u32,
    /// `graph › label`, or the label.
    pub name: String,
    pub dispatches: usize,
    pub draws: usize,
    /// Invocations over the dispatches, short: a count, `–` without dispatches, or
    /// `unknown`; `invocations_title` says it whole.
    pub invocations: String,
    pub invocations_title: String,
}

/// What the pane shows about a frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameDetail {
    pub heading: String,
    pub facts: Vec<(&'static str, String)>,
    /// Passes with at least one dispatch or draw, in pass order; empty when the level
    /// records no workload (then `workload_note` says so).
    pub workload: Vec<WorkloadRow>,
    pub workload_note: Option<String>,
    /// The workload heading: counts where the level records them, "not recorded" below.
    pub workload_heading: String,
}

impl FrameDetail {
    #[must_use]
    pub fn new(capture: &Capture<'_>, entry: &FrameEntry, frame: &Frame, topology: Option<&Topology>) -> Self {
        let mut facts = vec![
            ("GPU time", units::exact_ns(entry.gpu_duration_ns)),
            ("CPU time", units::exact_ns(entry.cpu_duration_ns)),
            ("Spans", units::grouped(u64::from(entry.span_count))),
            (
                "Dropped spans",
                match entry.dropped_spans {
                    0 => "0".to_owned(),
                    n => format!("{n}: begun but never timed, so some passes are missing"),
                },
            ),
            ("Recorder's own CPU time", units::exact_ns(frame.recorder_cost_ns)),
        ];
        let culled = frame.culled.iter().filter(|&&c| c).count();
        if let Some(topology) = topology {
            facts.push(("Graph passes", format!("{} ({culled} culled)", topology.graph_passes.len())));
            facts.push(("GPU passes", topology.gpu_passes.len().to_string()));
        }
        let mut workload = Vec::new();
        if let Some(topology) = topology {
            let mut passes: Vec<u32> = frame.commands.iter().map(|c| c.gpu_pass).collect();
            passes.dedup();
            passes.sort_unstable();
            passes.dedup();
            for pass in passes {
                let Some(detail) = PassDetail::new(capture, topology, frame, pass) else { continue };
                let name = match &detail.graph_pass {
                    Some(graph) => format!("{graph} › {}", detail.label),
                    None => clip(&detail.label),
                };
                workload.push(WorkloadRow {
                    pass,
                    name,
                    dispatches: detail.dispatches,
                    draws: detail.draws,
                    invocations: match (detail.invocations, detail.dispatches) {
                        (_, 0) => "–".to_owned(),
                        (Some(total), _) => units::grouped(total),
                        (None, _) => "unknown".to_owned(),
                    },
                    invocations_title: detail.invocations_text(),
                });
            }
        }
        // Below level workload no command is recorded: a count there would be made up.
        let level = capture.level().filter(|&level| level >= Level::Workload).ok_or(capture.level());
        let workload_note = workload.is_empty().then(|| match (&level, frame.commands.is_empty()) {
            (Err(level), _) => format!(
                "Level {} records no dispatches or draws.",
                level.map_or("unknown", Level::name)
            ),
            (Ok(_), true) => "No dispatches or draws were recorded in this frame. Passes the recorder did not begin (timed through the wgpu-profiler bridge or a pass timer) have their time only: the capture's notes say which.".to_owned(),
            (Ok(_), false) => "This frame's dispatches and draws name no pass of its topology.".to_owned(),
        });
        let workload_heading = match level {
            Err(_) => "Workload: not recorded".to_owned(),
            Ok(_) => {
                let (dispatches, draws) = totals(&workload);
                format!("Workload: {dispatches} dispatches, {draws} draws recorded")
            }
        };
        Self { heading: format!("Frame {}", entry.frame_number), facts, workload, workload_note, workload_heading }
    }

    /// Dispatches and draws over the frame.
    #[must_use]
    pub fn totals(&self) -> (usize, usize) {
        totals(&self.workload)
    }
}

fn totals(workload: &[WorkloadRow]) -> (usize, usize) {
    workload.iter().fold((0, 0), |(d, r), row| (d + row.dispatches, r + row.draws))
}
