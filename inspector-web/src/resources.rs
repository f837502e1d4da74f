//! The resource table: every resource with its declared bytes, format, usage,
//! transient or imported, lifetime, and the peak concurrent footprint, beside the GPU
//! memory counter where the capture recorded one.

use sgpt_format::analysis::{ResourceReport, resource_lifetimes};
use sgpt_format::{Capture, CounterUnit, Frame, Topology};

use crate::structure::describe;
use crate::summary::clip;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceRow {
    pub name: String,
    pub versions: u32,
    pub imported: bool,
    pub declared_bytes: u64,
    pub desc: String,
    /// `first pass → last pass` by name, or why there is none.
    pub lifetime: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceTable {
    /// Largest declared first.
    pub rows: Vec<ResourceRow>,
    pub report: ResourceReport,
    pub peak_at: Option<String>,
    /// The GPU memory counter's name and value this frame, when recorded.
    pub gpu_memory: Option<(String, u64)>,
}

impl ResourceTable {
    #[must_use]
    pub fn new(capture: &Capture<'_>, topology: &Topology, frame: &Frame) -> Self {
        let report = resource_lifetimes(topology, &frame.culled);
        let pass_name = |index: usize| topology.graph_passes.get(index).map_or_else(String::new, |p| clip(&p.name));
        let mut rows: Vec<ResourceRow> = report
            .resources
            .iter()
            .map(|resource| {
                let desc = topology
                    .resources
                    .iter()
                    .find(|node| node.name == resource.name)
                    .map_or_else(String::new, |node| describe(&node.desc));
                ResourceRow {
                    name: clip(&resource.name),
                    versions: resource.versions,
                    imported: resource.imported,
                    declared_bytes: resource.declared_bytes,
                    desc,
                    lifetime: match (resource.first_pass, resource.last_pass) {
                        (Some(first), Some(last)) if first == last => pass_name(first),
                        (Some(first), Some(last)) => format!("{} → {}", pass_name(first), pass_name(last)),
                        _ => "no live pass touches it".to_owned(),
                    },
                }
            })
            .collect();
        rows.sort_by(|a, b| b.declared_bytes.cmp(&a.declared_bytes).then_with(|| a.name.cmp(&b.name)));
        let gpu_memory = frame.counters.iter().find_map(|sample| {
            let def = capture.counter(sample.counter)?;
            let is_memory = def.unit == CounterUnit::Bytes && def.name.to_lowercase().contains("memory");
            (is_memory && sample.value.is_finite() && sample.value >= 0.0)
                .then(|| (clip(&def.name), sample.value as u64))
        });
        Self { peak_at: report.peak_at_pass.map(pass_name), rows, report, gpu_memory }
    }
}

#[cfg(test)]
mod tests {
    use sgpt_format::{GraphPass, Level, Meta, ResourceNode, Writer};

    use super::*;

    #[test]
    fn rows_sort_by_size_and_name_their_lifetime() {
        let node = |name: &str, bytes, imported| ResourceNode {
            name: name.into(),
            declared_bytes: bytes,
            imported,
            ..ResourceNode::default()
        };
        let topology = Topology {
            graph_passes: vec![
                GraphPass { name: "a".into(), creates: vec![0], ..GraphPass::default() },
                GraphPass { name: "b".into(), reads: vec![0], creates: vec![1], ..GraphPass::default() },
                GraphPass { name: "c".into(), reads: vec![1, 2], ..GraphPass::default() },
            ],
            resources: vec![node("small", 100, false), node("big", 5000, false), node("history", 700, true)],
            ..Topology::default()
        };
        let bytes = Writer::new(Vec::new(), &Meta { level: Some(Level::Structure), ..Meta::default() })
            .expect("meta")
            .finish()
            .expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let table = ResourceTable::new(&capture, &topology, &Frame::default());
        let names: Vec<&str> = table.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["big", "history", "small"]);
        assert_eq!(table.rows[0].lifetime, "b → c");
        assert_eq!(table.rows[2].lifetime, "a → b");
        assert_eq!(table.report.peak_concurrent_bytes, 5100);
        assert_eq!(table.peak_at.as_deref(), Some("b"));
        assert_eq!(table.report.total_declared_bytes, 5800);
        assert_eq!(table.gpu_memory, None);
    }
}
