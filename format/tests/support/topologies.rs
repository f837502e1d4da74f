//! A topology of one compute pass per graph pass, some culled: what the comparison tests
//! build captures with passes that come, go or are culled from.

use sgpt_format::{GpuPass, GpuPassKind, GraphPass, Topology};

/// Graph pass `names[i]` opening GPU pass `names[i]`; `culled[i]` gives it no consumer.
pub fn topology(names: &[&str], culled: &[bool]) -> Topology {
    Topology {
        graph_passes: names
            .iter()
            .zip(culled)
            .map(|(&name, &culled)| GraphPass {
                name: name.into(),
                ref_count: u32::from(!culled),
                ..GraphPass::default()
            })
            .collect(),
        gpu_passes: (0..names.len())
            .map(|i| GpuPass {
                label: names[i].into(),
                graph_pass: Some(i as u32),
                kind: GpuPassKind::Compute,
                ..GpuPass::default()
            })
            .collect(),
        ..Topology::default()
    }
}
