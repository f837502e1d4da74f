//! The frame graph's structure: passes and resource nodes, cross-linked. Selecting a
//! pass finds its transitive inputs; selecting a resource, its version chain and readers.

use std::collections::BTreeSet;

use sgpt_format::{ResourceDesc, Topology};

use crate::summary::clip;
use crate::units;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassRow {
    pub index: u32,
    pub name: String,
    /// Enclosing scopes, outermost first, joined with ` › `.
    pub scope: String,
    pub culled: bool,
    pub side_effects: bool,
    pub ref_count: u32,
    pub reads: Vec<u32>,
    pub writes: Vec<u32>,
    pub creates: Vec<u32>,
    /// Labels of the GPU passes it opened.
    pub gpu_passes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRow {
    pub index: u32,
    /// `name v2`.
    pub label: String,
    pub name: String,
    pub version: u32,
    pub imported: bool,
    pub declared_bytes: u64,
    pub desc: String,
    /// Graph passes that create or write this node.
    pub producers: Vec<u32>,
    pub readers: Vec<u32>,
}

/// The structure of one topology, with one frame's cull state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Structure {
    pub passes: Vec<PassRow>,
    pub nodes: Vec<NodeRow>,
}

impl Structure {
    /// `culled[i]` says whether graph pass `i` was culled in the frame shown.
    #[must_use]
    pub fn new(topology: &Topology, culled: &[bool]) -> Self {
        let node_count = topology.resources.len();
        let valid = |list: &[u32]| list.iter().copied().filter(|&n| (n as usize) < node_count).collect::<Vec<u32>>();
        let mut nodes: Vec<NodeRow> = topology
            .resources
            .iter()
            .enumerate()
            .map(|(index, node)| NodeRow {
                index: index as u32,
                label: format!("{} v{}", clip(&node.name), node.version),
                name: clip(&node.name),
                version: node.version,
                imported: node.imported,
                declared_bytes: node.declared_bytes,
                desc: describe(&node.desc),
                producers: Vec::new(),
                readers: Vec::new(),
            })
            .collect();
        let passes = topology
            .graph_passes
            .iter()
            .enumerate()
            .map(|(index, pass)| {
                let (reads, writes, creates) = (valid(&pass.reads), valid(&pass.writes), valid(&pass.creates));
                for &node in writes.iter().chain(&creates) {
                    push_unique(&mut nodes[node as usize].producers, index as u32);
                }
                for &node in &reads {
                    push_unique(&mut nodes[node as usize].readers, index as u32);
                }
                PassRow {
                    index: index as u32,
                    name: clip(&pass.name),
                    scope: scope_path(topology, pass.scope),
                    culled: culled.get(index).copied().unwrap_or(false),
                    side_effects: pass.side_effects,
                    ref_count: pass.ref_count,
                    reads,
                    writes,
                    creates,
                    gpu_passes: topology
                        .gpu_passes
                        .iter()
                        .filter(|gpu| gpu.graph_pass == Some(index as u32))
                        .take(64)
                        .map(|gpu| clip(&gpu.label))
                        .collect(),
                }
            })
            .collect();
        Self { passes, nodes }
    }

    /// Every pass whose output `pass` depends on, directly or not, and the nodes between them.
    #[must_use]
    pub fn transitive_inputs(&self, pass: u32) -> (BTreeSet<u32>, BTreeSet<u32>) {
        let (mut passes, mut nodes) = (BTreeSet::new(), BTreeSet::new());
        let mut stack = vec![pass];
        while let Some(current) = stack.pop() {
            let Some(row) = self.passes.get(current as usize) else { continue };
            for &node in &row.reads {
                if !nodes.insert(node) {
                    continue;
                }
                for &producer in &self.nodes[node as usize].producers {
                    if producer != pass && passes.insert(producer) {
                        stack.push(producer);
                    }
                }
            }
        }
        (passes, nodes)
    }

    /// Every version of node `node`'s resource, in version order.
    #[must_use]
    pub fn version_chain(&self, node: u32) -> Vec<u32> {
        let Some(row) = self.nodes.get(node as usize) else { return Vec::new() };
        let mut chain: Vec<&NodeRow> = self.nodes.iter().filter(|other| other.name == row.name).collect();
        chain.sort_by_key(|other| (other.version, other.index));
        chain.into_iter().map(|other| other.index).collect()
    }
}

fn push_unique(list: &mut Vec<u32>, value: u32) {
    if !list.contains(&value) {
        list.push(value);
    }
}

/// `outer › inner`, bounded against cyclic parents.
#[must_use]
pub fn scope_path(topology: &Topology, scope: Option<u32>) -> String {
    let mut names = Vec::new();
    let mut current = scope;
    while let Some(index) = current {
        let Some(scope) = topology.scopes.get(index as usize) else { break };
        if names.len() >= 16 {
            break;
        }
        names.push(clip(&scope.name));
        current = scope.parent;
    }
    names.reverse();
    names.join(" › ")
}

/// A descriptor in one line: `buffer 4.000 MiB (STORAGE | COPY_DST)`, `rgba16float 1920×1080 ×4 mips`.
#[must_use]
pub fn describe(desc: &ResourceDesc) -> String {
    match desc {
        ResourceDesc::None => "not described".to_owned(),
        ResourceDesc::Buffer { size, usage } => format!("buffer {} ({})", units::bytes(*size), buffer_usage(*usage)),
        ResourceDesc::Texture {
            width,
            height,
            depth_or_array_layers,
            mip_level_count,
            sample_count,
            format,
            usage,
            ..
        } => {
            let mut text = format!("{} {width}×{height}", clip(format));
            if *depth_or_array_layers > 1 {
                text.push_str(&format!("×{depth_or_array_layers}"));
            }
            if *mip_level_count > 1 {
                text.push_str(&format!(", {mip_level_count} mips"));
            }
            if *sample_count > 1 {
                text.push_str(&format!(", {sample_count}× MSAA"));
            }
            text.push_str(&format!(" ({})", texture_usage(*usage)));
            text
        }
    }
}

/// `wgpu::BufferUsages` bits by name.
#[must_use]
pub fn buffer_usage(bits: u32) -> String {
    flags(
        bits,
        &[
            "MAP_READ",
            "MAP_WRITE",
            "COPY_SRC",
            "COPY_DST",
            "INDEX",
            "VERTEX",
            "UNIFORM",
            "STORAGE",
            "INDIRECT",
            "QUERY_RESOLVE",
        ],
    )
}

/// `wgpu::TextureUsages` bits by name.
#[must_use]
pub fn texture_usage(bits: u32) -> String {
    flags(bits, &["COPY_SRC", "COPY_DST", "TEXTURE_BINDING", "STORAGE_BINDING", "RENDER_ATTACHMENT"])
}

fn flags(bits: u32, names: &[&str]) -> String {
    let mut parts: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(bit, _)| bits & (1 << bit) != 0)
        .map(|(_, name)| (*name).to_owned())
        .collect();
    let known = (1u32 << names.len()) - 1;
    if bits & !known != 0 {
        parts.push(format!("{:#x}", bits & !known));
    }
    if parts.is_empty() { "no usage".to_owned() } else { parts.join(" | ") }
}

#[cfg(test)]
mod tests {
    use sgpt_format::{GraphPass, ResourceNode, Scope};

    use super::*;

    fn node(name: &str, version: u32) -> ResourceNode {
        ResourceNode { name: name.into(), version, declared_bytes: 1024, ..ResourceNode::default() }
    }

    /// depth ← prepass; gbuffer ← geometry(depth v0); light ← lighting(gbuffer, depth);
    /// debug (culled) reads gbuffer; post writes light v1.
    fn topology() -> Topology {
        let pass = |name: &str, reads: Vec<u32>, writes: Vec<u32>, creates: Vec<u32>| GraphPass {
            name: name.into(),
            scope: Some(1),
            reads,
            writes,
            creates,
            ref_count: 1,
            ..GraphPass::default()
        };
        Topology {
            scopes: vec![
                Scope { name: "frame".into(), parent: None },
                Scope { name: "opaque".into(), parent: Some(0) },
            ],
            graph_passes: vec![
                pass("prepass", vec![], vec![], vec![0]),
                pass("geometry", vec![0], vec![], vec![1]),
                pass("lighting", vec![1, 0], vec![], vec![2]),
                GraphPass { name: "debug".into(), reads: vec![1, 99], ..GraphPass::default() },
                pass("post", vec![2], vec![3], vec![]),
            ],
            resources: vec![node("depth", 0), node("gbuffer", 0), node("light", 0), node("light", 1)],
            ..Topology::default()
        }
    }

    #[test]
    fn passes_and_nodes_are_cross_linked() {
        let structure = Structure::new(&topology(), &[false, false, false, true]);
        assert!(structure.passes[3].culled);
        assert!(!structure.passes[4].culled, "a missing cull entry means not culled");
        assert_eq!(structure.passes[3].reads, [1], "a node index the topology lacks is dropped");
        assert_eq!(structure.passes[0].scope, "frame › opaque");
        assert_eq!(structure.nodes[1].producers, [1]);
        assert_eq!(structure.nodes[1].readers, [2, 3]);
        assert_eq!(structure.nodes[3].label, "light v1");
        assert_eq!(structure.nodes[3].producers, [4]);
    }

    #[test]
    fn transitive_inputs_follow_reads_back_to_their_producers() {
        let structure = Structure::new(&topology(), &[]);
        let (passes, nodes) = structure.transitive_inputs(4);
        assert_eq!(passes.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(nodes.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        assert!(structure.transitive_inputs(0).0.is_empty());
    }

    #[test]
    fn version_chains_list_every_version_in_order() {
        let structure = Structure::new(&topology(), &[]);
        assert_eq!(structure.version_chain(3), [2, 3]);
        assert_eq!(structure.version_chain(0), [0]);
        assert!(structure.version_chain(42).is_empty());
    }

    #[test]
    fn descriptors_and_usages_read_as_names() {
        assert_eq!(buffer_usage(0x80 | 0x8), "COPY_DST | STORAGE");
        assert_eq!(texture_usage(0x10 | 0x4 | 0x100), "TEXTURE_BINDING | RENDER_ATTACHMENT | 0x100");
        assert_eq!(describe(&ResourceDesc::Buffer { size: 4 << 20, usage: 0x80 }), "buffer 4.000 MiB (STORAGE)");
        let texture = ResourceDesc::Texture {
            dimension: sgpt_format::TextureDimension::D2,
            width: 1920,
            height: 1080,
            depth_or_array_layers: 1,
            mip_level_count: 4,
            sample_count: 1,
            format: "rgba16float".into(),
            usage: 0x14,
        };
        assert_eq!(describe(&texture), "rgba16float 1920×1080, 4 mips (TEXTURE_BINDING | RENDER_ATTACHMENT)");
    }
}
