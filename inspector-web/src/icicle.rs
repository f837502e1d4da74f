//! Where the GPU time of a frame range goes: an icicle (a top-down flame graph) of
//! scope → graph pass → GPU pass → sub-pass region, merged over every frame of the range.
//!
//! **Identity.** A node is its name path from the root, with each step's level (scope,
//! graph pass, GPU pass, sub-pass region): labels are not unique keys, and topology
//! indices mean nothing across topologies, so two topologies' `lighting › shadows ›
//! cascade 0` are one node while `bloom › blur` and `dof › blur` are two.
//!
//! **Placement of spans** (the model in `sgpt_format`):
//! - a span of kind `Pass` on a compute or render GPU pass is that GPU pass's node, under
//!   its graph pass (`GpuPass::graph_pass`), under that graph pass's scope chain
//!   (`GraphPass::scope`, then `Scope::parent`); passes outside any graph pass sit at the top;
//! - a span of kind `SubPass` measures a marker region: its GPU pass (kind `Marker`) names
//!   the GPU pass it lies inside in `GpuPass::parent`, so the region's node is a child of
//!   that pass's node (regions nest through `parent` when a marker lies inside a marker);
//!   a region whose `parent` is missing sits beside the passes of its graph pass;
//! - a span on a GPU pass of kind `Encoder` with a graph pass is that graph pass measured
//!   on its encoder (every command of its bracket, copies and clears included): it is the
//!   graph pass node's own measured time, not a child;
//! - an encoder-level span with no graph pass is an encoder scope. When the topology links
//!   it through `GpuPass::parent` (it names a parent, or some GPU pass of the topology names
//!   it as parent: the recorder's nested encoder scopes, the wgpu-profiler bridge's scopes),
//!   it is a node of kind GPU pass under its parent's node, at the top level when it has
//!   no parent, and the GPU passes and scopes naming it as parent are its children: the
//!   topology says what it encloses. A parent out of range, or one that closes a cycle, is
//!   taken as none;
//! - an encoder-level span with no graph pass that nothing links (level `timing`'s
//!   brackets) encloses passes the topology cannot attribute to it: drawing both would
//!   count that time twice, so such spans are left out of the tree and counted in
//!   [`Icicle::bare_encoder`].
//!
//! **Width.** A node's [`Node::total_ns`] is its own measured time when it has one
//! (a GPU pass's spans, an encoder scope's, a region's, a graph pass's encoder spans) and that is at
//! least what its children sum to; otherwise the sum of its children. Nothing is
//! estimated: where a measured parent reads less than its children (a quantizing browser,
//! or a graph pass measured on its encoder in some topologies only), the node is drawn at
//! its children's sum and [`Node::measured_short`] says so, and the readout says by how much.
//! Children are drawn left to right in the order the range first showed them.
//!
//! [`IcicleJob`] builds it a frame at a time, like the statistics, in memory that grows
//! with the distinct nodes, never the spans. Frames are skipped whole exactly where the
//! statistics skip them (a frame that fails to decode, uses a lost topology or names a
//! GPU pass its topology lacks), so the span and 0 ns counts agree with the table's.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use sgpt_format::{Capture, GpuPassKind, SpanKind, Topology, TopologyId};

use crate::slicing::FrameCursor;
use crate::summary::clip;
use crate::timeline::{CHAR_PX, fit_text};
use crate::units;

/// A node of an [`Icicle`]: an index into [`Icicle::nodes`]. The root is `NodeId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// What level of the frame graph a node stands for; part of its identity with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKind {
    /// The whole range: every span in the tree. Never drawn.
    Root,
    Scope,
    GraphPass,
    GpuPass,
    SubPass,
}

impl NodeKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Root => "range",
            NodeKind::Scope => "scope",
            NodeKind::GraphPass => "graph pass",
            NodeKind::GpuPass => "GPU pass",
            NodeKind::SubPass => "sub-pass region",
        }
    }
}

/// One node with its figures over the range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The name (scope or graph pass name, pass label), clipped for display; `(no label)` when empty.
    pub name: String,
    pub kind: NodeKind,
    pub parent: Option<NodeId>,
    /// In the order the range first showed them.
    pub children: Vec<NodeId>,
    /// Steps from the root: the root is 0, the top level 1.
    pub depth: u32,
    /// The sum of the spans that measure this node itself, `None` when none does: scopes,
    /// and graph passes without an encoder-level span. Saturates at `u64::MAX`.
    pub measured_ns: Option<u64>,
    /// How many spans measure this node itself, and how many of those read 0 ns.
    pub own_spans: u64,
    pub own_zero_spans: u64,
    /// The sum of the children's totals.
    pub children_ns: u64,
    /// The width: `measured_ns` when it is at least `children_ns`, else `children_ns`.
    pub total_ns: u64,
    /// Spans in this node's subtree, itself included, and how many read 0 ns.
    pub spans: u64,
    pub zero_spans: u64,
    /// Nodes below this one, all levels.
    pub descendants: u32,
}

impl Node {
    /// The node's own measurement reads less than its children sum to: drawn at the
    /// children's sum, and said so.
    #[must_use]
    pub fn measured_short(&self) -> bool {
        self.measured_ns.is_some_and(|measured| measured < self.children_ns)
    }
}

/// Encoder-level spans without a graph pass that no `parent` links, left out of the tree
/// (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BareEncoder {
    pub spans: u64,
    pub zero_spans: u64,
    pub total_ns: u64,
}

/// Where the time of a frame range goes, merged by name path. Built by [`IcicleJob`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icicle {
    /// The frame indices asked for, clamped to the capture.
    pub range: Range<usize>,
    /// Frames analysed, and frames skipped whole because they could not be.
    pub frames: u64,
    pub skipped_frames: u64,
    /// Every span of the analysed frames, bare encoder-level ones included, and how many
    /// read 0 ns, and of those how many ended before they began: the statistics table's
    /// `spans`, `zero_spans` and `inverted_spans` for the same range.
    pub spans: u64,
    pub zero_spans: u64,
    pub inverted_spans: u64,
    /// Spans the recorder dropped (begun but never timed) in the analysed frames.
    pub dropped_spans: u64,
    pub bare_encoder: BareEncoder,
    nodes: Vec<Node>,
}

/// The slot of a (GPU pass, span kind) in a topology's table not yet resolved to a node.
const UNRESOLVED: u32 = u32::MAX;
/// The slot of a bare encoder-level span: counted, not placed.
const BARE: u32 = u32::MAX - 1;
/// Scope chains and marker nesting deeper than this are cut (a hostile or cyclic chain).
const MAX_NESTING: usize = 16;

/// One topology's resolved nodes, and which of its encoder scopes `parent` links.
#[derive(Debug)]
struct Table {
    slots: Vec<u32>,
    /// GPU pass `p` is an encoder-level pass without a graph pass that has a parent or is one.
    linked: Vec<bool>,
}

impl Table {
    fn new(topology: &Topology) -> Self {
        let passes = &topology.gpu_passes;
        let mut named = vec![false; passes.len()];
        for index in 0..passes.len() {
            if let Some(parent) = valid_parent(topology, index) {
                named[parent] = true;
            }
        }
        let linked = (0..passes.len())
            .map(|index| is_scope(topology, index) && (named[index] || valid_parent(topology, index).is_some()))
            .collect();
        Self { slots: vec![UNRESOLVED; passes.len() * 2], linked }
    }
}

/// Whether GPU pass `index` is encoder-level with no graph pass.
fn is_scope(topology: &Topology, index: usize) -> bool {
    let pass = &topology.gpu_passes[index];
    pass.kind == GpuPassKind::Encoder && pass.graph_pass.is_none()
}

/// GPU pass `index`'s parent, `None` when it names none, itself, or one out of range.
fn valid_parent(topology: &Topology, index: usize) -> Option<usize> {
    let parent = topology.gpu_passes[index].parent? as usize;
    (parent != index && parent < topology.gpu_passes.len()).then_some(parent)
}

#[derive(Debug)]
struct Building {
    name: String,
    kind: NodeKind,
    parent: u32,
    children: Vec<u32>,
    depth: u32,
    own_ns: u128,
    own_spans: u64,
    own_zero: u64,
}

/// Builds an [`Icicle`] over a frame range a frame at a time, so the page never freezes.
#[derive(Debug)]
pub struct IcicleJob<'c, 'a> {
    capture: &'c Capture<'a>,
    cursor: FrameCursor,
    nodes: Vec<Building>,
    child_of: HashMap<(u32, NodeKind, String), u32>,
    /// Per topology id: index into `tables`, or `None` when the topology was lost.
    table_of: HashMap<TopologyId, Option<usize>>,
    /// Per topology: for GPU pass `p` and span kind `k`, the node at `2 p + k`, resolved
    /// on first use, so each span costs one indexed load.
    tables: Vec<Table>,
    /// One frame's (table slot, duration) pairs, applied once the whole frame decoded.
    scratch: Vec<(usize, u64)>,
    frames: u64,
    skipped_frames: u64,
    spans: u64,
    zero_spans: u64,
    inverted_spans: u64,
    dropped_spans: u64,
    bare: BareEncoder,
    bare_ns: u128,
}

impl<'c, 'a> IcicleJob<'c, 'a> {
    /// The icicle over frame indices `range`, clamped to the capture.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>, range: Range<usize>) -> Self {
        let root = Building {
            name: "all GPU spans".into(),
            kind: NodeKind::Root,
            parent: 0,
            children: Vec::new(),
            depth: 0,
            own_ns: 0,
            own_spans: 0,
            own_zero: 0,
        };
        Self {
            capture,
            cursor: FrameCursor::new(range, capture.frames().len()),
            nodes: vec![root],
            child_of: HashMap::new(),
            table_of: HashMap::new(),
            tables: Vec::new(),
            scratch: Vec::new(),
            frames: 0,
            skipped_frames: 0,
            spans: 0,
            zero_spans: 0,
            inverted_spans: 0,
            dropped_spans: 0,
            bare: BareEncoder::default(),
            bare_ns: 0,
        }
    }

    /// Adds one frame for each time `more()` returns `true`, until the range is done.
    /// Returns `true` once [`IcicleJob::finish`] is ready (it then only sums the nodes).
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> bool {
        while let Some(index) = self.cursor.next_frame(more) {
            self.add_frame(index);
        }
        self.cursor.done()
    }

    /// Progress from 0 to 1, in frames.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.cursor.progress()
    }

    /// The icicle; adds whatever frames are left first.
    #[must_use]
    pub fn finish(mut self) -> Icicle {
        while !self.step(&mut || true) {}
        let mut nodes: Vec<Node> = self
            .nodes
            .into_iter()
            .enumerate()
            .map(|(index, node)| Node {
                name: node.name,
                kind: node.kind,
                parent: (index > 0).then_some(NodeId(node.parent)),
                children: node.children.into_iter().map(NodeId).collect(),
                depth: node.depth,
                measured_ns: (node.own_spans > 0).then(|| u64::try_from(node.own_ns).unwrap_or(u64::MAX)),
                own_spans: node.own_spans,
                own_zero_spans: node.own_zero,
                children_ns: 0,
                total_ns: 0,
                spans: node.own_spans,
                zero_spans: node.own_zero,
                descendants: 0,
            })
            .collect();
        // A child is always created after its parent: summing from the last node up
        // finishes every child before its parent.
        for index in (0..nodes.len()).rev() {
            let node = &mut nodes[index];
            node.total_ns = match node.measured_ns {
                Some(measured) if measured >= node.children_ns => measured,
                _ => node.children_ns,
            };
            let (total, spans, zeros, below) = (node.total_ns, node.spans, node.zero_spans, node.descendants);
            if let Some(NodeId(parent)) = node.parent {
                let parent = &mut nodes[parent as usize];
                parent.children_ns = parent.children_ns.saturating_add(total);
                parent.spans += spans;
                parent.zero_spans += zeros;
                parent.descendants += below + 1;
            }
        }
        let mut bare = self.bare;
        bare.total_ns = u64::try_from(self.bare_ns).unwrap_or(u64::MAX);
        Icicle {
            range: self.cursor.range(),
            frames: self.frames,
            skipped_frames: self.skipped_frames,
            spans: self.spans,
            zero_spans: self.zero_spans,
            inverted_spans: self.inverted_spans,
            dropped_spans: self.dropped_spans,
            bare_encoder: bare,
            nodes,
        }
    }

    fn add_frame(&mut self, index: usize) {
        let capture = self.capture;
        let Some(entry) = capture.frames().get(index) else {
            self.skipped_frames += 1;
            return;
        };
        let Some(table) = self.table(entry.topology) else {
            self.skipped_frames += 1;
            return;
        };
        let slots = self.tables[table].slots.len();
        let scratch = &mut self.scratch;
        scratch.clear();
        let mut unknown = false;
        let mut inverted = 0;
        let decoded = capture.for_each_span(index, |span| {
            let at = (span.pass as usize).wrapping_mul(2) | span.kind as usize;
            if at < slots {
                scratch.push((at, span.duration_ns()));
            } else {
                unknown = true;
            }
            inverted += u64::from(span.end_ns < span.begin_ns);
        });
        // Skipped whole, as the statistics skip it, so the counts agree.
        if decoded.is_err() || unknown {
            self.skipped_frames += 1;
            return;
        }
        let Some(topology) = capture.topology(entry.topology) else { return };
        self.inverted_spans += inverted;
        for at in 0..self.scratch.len() {
            let (slot, duration) = self.scratch[at];
            let mut node = self.tables[table].slots[slot];
            if node == UNRESOLVED {
                let pass = (slot / 2) as u32;
                let kind = if slot % 2 == 0 { SpanKind::Pass } else { SpanKind::SubPass };
                node = self.resolve(topology, table, pass, kind);
                self.tables[table].slots[slot] = node;
            }
            self.spans += 1;
            self.zero_spans += u64::from(duration == 0);
            if node == BARE {
                self.bare.spans += 1;
                self.bare.zero_spans += u64::from(duration == 0);
                self.bare_ns += u128::from(duration);
            } else {
                let node = &mut self.nodes[node as usize];
                node.own_spans += 1;
                node.own_zero += u64::from(duration == 0);
                node.own_ns += u128::from(duration);
            }
        }
        self.frames += 1;
        self.dropped_spans += u64::from(entry.dropped_spans);
    }

    /// The table for topology `id`, made on first use; `None` when it was lost.
    fn table(&mut self, id: TopologyId) -> Option<usize> {
        if let Some(&table) = self.table_of.get(&id) {
            return table;
        }
        let table = self.capture.topology(id).map(|topology| {
            self.tables.push(Table::new(topology));
            self.tables.len() - 1
        });
        self.table_of.insert(id, table);
        table
    }

    /// The node spans of `kind` on GPU pass `pass` of `topology` measure (see the module
    /// docs); `table` is the topology's.
    fn resolve(&mut self, topology: &Topology, table: usize, pass: u32, kind: SpanKind) -> u32 {
        let Some(gpu) = topology.gpu_passes.get(pass as usize) else { return BARE };
        match kind {
            SpanKind::Pass if gpu.kind == GpuPassKind::Encoder => {
                match gpu.graph_pass.filter(|&graph| (graph as usize) < topology.graph_passes.len()) {
                    Some(graph) => self.graph_node(topology, graph),
                    None if self.tables[table].linked[pass as usize] => self.scope_node(topology, table, pass, 0),
                    None => BARE,
                }
            }
            SpanKind::Pass => self.pass_node(topology, table, pass, 0),
            SpanKind::SubPass => self.region_node(topology, table, pass, 0),
        }
    }

    /// The node of marker region `pass`: inside its `parent` pass when it names one.
    fn region_node(&mut self, topology: &Topology, table: usize, pass: u32, nesting: usize) -> u32 {
        let gpu = &topology.gpu_passes[pass as usize];
        let parent = match valid_parent(topology, pass as usize) {
            Some(parent) if nesting < MAX_NESTING => self.container_node(topology, table, parent as u32, nesting + 1),
            _ => self.graph_parent(topology, gpu.graph_pass),
        };
        self.child(parent, NodeKind::SubPass, &gpu.label)
    }

    /// The node of GPU pass `pass` as the container of a region or a pass: a region itself
    /// when it is a marker inside another pass, an encoder scope when `parent` links it,
    /// else the pass.
    fn container_node(&mut self, topology: &Topology, table: usize, pass: u32, nesting: usize) -> u32 {
        let gpu = &topology.gpu_passes[pass as usize];
        if gpu.kind == GpuPassKind::Marker && gpu.parent.is_some() {
            return self.region_node(topology, table, pass, nesting);
        }
        if self.tables[table].linked[pass as usize] {
            return self.scope_node(topology, table, pass, nesting);
        }
        self.pass_node(topology, table, pass, nesting)
    }

    /// The node of GPU pass `pass` (not a region): inside the encoder scope its `parent`
    /// names, else under its graph pass.
    fn pass_node(&mut self, topology: &Topology, table: usize, pass: u32, nesting: usize) -> u32 {
        let gpu = &topology.gpu_passes[pass as usize];
        let parent = match valid_parent(topology, pass as usize) {
            Some(scope) if nesting < MAX_NESTING && self.tables[table].linked[scope] => {
                self.scope_node(topology, table, scope as u32, nesting + 1)
            }
            _ => self.graph_parent(topology, gpu.graph_pass),
        };
        self.child(parent, NodeKind::GpuPass, &gpu.label)
    }

    /// The node of linked encoder scope `pass`, and of the scopes above it through `parent`
    /// on the way: walked up, not recursed, since scope trees may be deeper than region
    /// nesting, and remembered in the table's slot for the scope's own spans.
    fn scope_node(&mut self, topology: &Topology, table: usize, pass: u32, nesting: usize) -> u32 {
        // Unplaced scopes, innermost first, and the node the outermost of them hangs from.
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut at = pass as usize;
        let top = loop {
            let placed = self.tables[table].slots[2 * at];
            if placed != UNRESOLVED {
                break placed;
            }
            chain.push(at);
            seen.insert(at);
            match valid_parent(topology, at) {
                // A parent that closes a cycle is none.
                Some(parent) if seen.contains(&parent) => break 0,
                Some(parent) if self.tables[table].linked[parent] => at = parent,
                // A scope inside something that is no scope (a damaged topology).
                Some(parent) if nesting < MAX_NESTING => {
                    break self.container_node(topology, table, parent as u32, nesting + 1);
                }
                _ => break 0,
            }
        };
        let mut node = top;
        for &scope in chain.iter().rev() {
            node = self.child(node, NodeKind::GpuPass, &topology.gpu_passes[scope].label);
            self.tables[table].slots[2 * scope] = node;
        }
        node
    }

    /// The node GPU passes of graph pass `graph` hang from: the graph pass, or the root
    /// outside any graph pass.
    fn graph_parent(&mut self, topology: &Topology, graph: Option<u32>) -> u32 {
        match graph.filter(|&graph| (graph as usize) < topology.graph_passes.len()) {
            Some(graph) => self.graph_node(topology, graph),
            None => 0,
        }
    }

    fn graph_node(&mut self, topology: &Topology, graph: u32) -> u32 {
        let pass = &topology.graph_passes[graph as usize];
        // The scopes enclosing it, innermost first; bounded so a cyclic chain ends.
        let mut chain = Vec::new();
        let mut scope = pass.scope;
        while let Some(index) = scope {
            if chain.len() >= MAX_NESTING || chain.contains(&index) || topology.scopes.get(index as usize).is_none() {
                break;
            }
            chain.push(index);
            scope = topology.scopes[index as usize].parent;
        }
        let mut parent = 0;
        for &scope in chain.iter().rev() {
            parent = self.child(parent, NodeKind::Scope, &topology.scopes[scope as usize].name);
        }
        self.child(parent, NodeKind::GraphPass, &pass.name)
    }

    /// The child of `parent` of `kind` named `name`, made if new.
    fn child(&mut self, parent: u32, kind: NodeKind, name: &str) -> u32 {
        let name = if name.is_empty() { "(no label)".to_owned() } else { clip(name) };
        let key = (parent, kind, name);
        if let Some(&node) = self.child_of.get(&key) {
            return node;
        }
        let node = self.nodes.len() as u32;
        let depth = self.nodes[parent as usize].depth + 1;
        self.nodes[parent as usize].children.push(node);
        self.nodes.push(Building {
            name: key.2.clone(),
            kind,
            parent,
            children: Vec::new(),
            depth,
            own_ns: 0,
            own_spans: 0,
            own_zero: 0,
        });
        self.child_of.insert(key, node);
        node
    }
}

/// Rectangles narrower than this many pixels are not drawn, only counted.
pub const MIN_RECT_PX: f64 = 0.5;

/// One rectangle of the icicle to paint, in CSS pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct IcicleRect {
    pub node: NodeId,
    pub kind: NodeKind,
    pub x: f64,
    pub width: f64,
    /// The row, 0 at the top, and its top edge (`row × row_height`).
    pub row: usize,
    pub y: f64,
    pub height: f64,
    /// The name, with the total when it fits, shortened to the width; empty when nothing fits.
    pub label: String,
    /// An ancestor of the focused node, drawn full width above it so a click can zoom out.
    pub context: bool,
    /// [`Node::measured_short`]: drawn at its children's sum.
    pub short: bool,
}

/// An icicle laid out for a width: what to paint, and what was too narrow to.
#[derive(Clone, Debug, PartialEq)]
pub struct IcicleLayout {
    pub rects: Vec<IcicleRect>,
    /// Nodes not drawn because they (or an ancestor) would be narrower than [`MIN_RECT_PX`].
    pub too_narrow: usize,
    /// The node drawn full width.
    pub focus: NodeId,
    /// Rows used, and their height in pixels.
    pub rows: usize,
    pub height: f64,
    row_height: f64,
}

impl IcicleLayout {
    /// The node under (`x`, `y`), in the layout's pixels.
    #[must_use]
    pub fn hit(&self, x: f64, y: f64) -> Option<NodeId> {
        if y < 0.0 || self.row_height <= 0.0 {
            return None;
        }
        let row = (y / self.row_height).floor() as usize;
        self.rects.iter().find(|rect| rect.row == row && x >= rect.x && x < rect.x + rect.width).map(|rect| rect.node)
    }

    /// "3 nodes too narrow to draw", or `None` when everything was drawn.
    #[must_use]
    pub fn too_narrow_text(&self) -> Option<String> {
        match self.too_narrow {
            0 => None,
            1 => Some("1 node too narrow to draw".to_owned()),
            n => Some(format!("{} nodes too narrow to draw", units::grouped(n as u64))),
        }
    }
}

impl Icicle {
    /// The root: the whole range.
    #[must_use]
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// Every node; [`NodeId`] indexes it.
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    #[must_use]
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0 as usize)
    }

    /// The range's GPU time in the tree: the root's total.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        self.nodes[0].total_ns
    }

    /// The names from the top level down to `id` (empty for the root).
    #[must_use]
    pub fn path(&self, id: NodeId) -> Vec<&str> {
        let mut path = Vec::new();
        let mut at = self.node(id);
        while let Some(node) = at.filter(|node| node.kind != NodeKind::Root) {
            path.push(node.name.as_str());
            at = node.parent.and_then(|parent| self.node(parent));
        }
        path.reverse();
        path
    }

    /// `lighting › shadows › cascade 0`.
    #[must_use]
    pub fn path_text(&self, id: NodeId) -> String {
        self.path(id).join(" › ")
    }

    /// The node at a name path (level by level, whatever each level's kind), if any:
    /// what keeps a focus across a new range.
    #[must_use]
    pub fn find(&self, path: &[&str]) -> Option<NodeId> {
        let mut at = self.root();
        for name in path {
            at = *self.node(at)?.children.iter().find(|&&child| self.nodes[child.0 as usize].name == *name)?;
        }
        Some(at)
    }

    /// The sentence above the view: the statistics table's, word for word.
    #[must_use]
    pub fn honesty_note(&self, may_quantize: bool) -> String {
        crate::stats_table::range_note(
            self.zero_spans,
            self.inverted_spans,
            self.spans,
            "this flame graph",
            may_quantize,
        )
    }

    /// What the view says beside the graph about spans it cannot place, if any.
    #[must_use]
    pub fn bare_encoder_note(&self) -> Option<String> {
        (self.bare_encoder.spans > 0).then(|| {
            format!(
                "{} encoder-level spans ({}) have no graph pass to belong to and no parent link to nest them by, and \
                 are left out: each brackets passes drawn here, so drawing both would count that time twice.",
                units::grouped(self.bare_encoder.spans),
                units::duration(self.bare_encoder.total_ns),
            )
        })
    }

    /// The readout for `id`, a line each: path, total, share, spans, mean per frame, and
    /// how the total was found.
    #[must_use]
    pub fn readout(&self, id: NodeId) -> Option<Vec<String>> {
        let node = self.node(id)?;
        let whole = self.total_ns();
        let mut lines = vec![
            if node.kind == NodeKind::Root {
                "All GPU spans of the range".to_owned()
            } else {
                format!("{} ({})", self.path_text(id), node.kind.name())
            },
            format!(
                "{} total ({}), {} of the range's {}",
                units::duration(node.total_ns),
                units::exact_ns(node.total_ns),
                units::percent(node.total_ns, whole),
                units::duration(whole),
            ),
            format!("{} spans, {} of them exactly 0 ns", units::grouped(node.spans), units::grouped(node.zero_spans)),
            format!(
                "{} per frame over {} frames (a frame without it counts 0 ns)",
                units::duration(div_round(node.total_ns, self.frames)),
                units::grouped(self.frames),
            ),
        ];
        let measured_by = match node.kind {
            NodeKind::GraphPass => "its encoder-level spans",
            _ => "its own spans",
        };
        match node.measured_ns {
            Some(measured) if node.measured_short() => lines.push(format!(
                "{measured_by} measure {} ({}), {} less than its children's {}: drawn at the children's sum; \
                 the capture does not say which is right",
                units::duration(measured),
                units::exact_ns(measured),
                units::duration(node.children_ns - measured),
                units::duration(node.children_ns),
            )),
            Some(_) if !node.children.is_empty() => lines.push(format!(
                "Measured by {measured_by}; its children account for {} of it",
                units::duration(node.children_ns)
            )),
            Some(_) => lines.push(format!("Measured by {measured_by}")),
            None if node.kind != NodeKind::Root => {
                lines.push("The sum of its children: no span measures it as a whole".to_owned());
            }
            None => {}
        }
        Some(lines)
    }

    /// Lays the icicle out over `width_px` with rows `row_height` high. With a `focus`,
    /// that node takes the full width, its ancestors stand full width above it, and only
    /// its subtree is drawn below; without one (or with the root) the top level shares
    /// the width. Widths are proportional to totals; a node narrower than [`MIN_RECT_PX`]
    /// is not drawn, nor anything under it, and is counted in `too_narrow`.
    #[must_use]
    pub fn layout(&self, width_px: f64, row_height: f64, focus: Option<NodeId>) -> IcicleLayout {
        let focus = focus.filter(|id| self.node(*id).is_some()).unwrap_or(self.root());
        let width_px = width_px.max(0.0);
        let mut layout = IcicleLayout { rects: Vec::new(), too_narrow: 0, focus, rows: 0, height: 0.0, row_height };
        let mut row = 0;
        if focus != self.root() {
            let mut chain = Vec::new();
            let mut at = Some(focus);
            while let Some(id) = at.filter(|&id| id != self.root()) {
                chain.push(id);
                at = self.nodes[id.0 as usize].parent;
            }
            for (index, &id) in chain.iter().rev().enumerate() {
                let context = id != focus;
                layout.rects.push(self.rect(id, 0.0, width_px, row, row_height, context));
                row = index + 1;
            }
        }
        let focus_total = self.nodes[focus.0 as usize].total_ns;
        let scale = if focus_total == 0 { 0.0 } else { width_px / focus_total as f64 };
        let mut stack = vec![(focus, 0.0f64, row)];
        while let Some((id, x, row)) = stack.pop() {
            let mut child_x = x;
            for &child in &self.nodes[id.0 as usize].children {
                let node = &self.nodes[child.0 as usize];
                let width = node.total_ns as f64 * scale;
                if width < MIN_RECT_PX {
                    layout.too_narrow += 1 + node.descendants as usize;
                } else {
                    layout.rects.push(self.rect(child, child_x, width, row, row_height, false));
                    stack.push((child, child_x, row + 1));
                }
                child_x += width;
            }
        }
        layout.rows = layout.rects.iter().map(|rect| rect.row + 1).max().unwrap_or(0);
        layout.height = layout.rows as f64 * row_height;
        layout.rects.sort_by(|a, b| (a.row, a.x).partial_cmp(&(b.row, b.x)).unwrap_or(std::cmp::Ordering::Equal));
        layout
    }

    fn rect(&self, id: NodeId, x: f64, width: f64, row: usize, row_height: f64, context: bool) -> IcicleRect {
        let node = &self.nodes[id.0 as usize];
        let room = ((width - 6.0) / CHAR_PX).floor();
        let label = if room < 2.0 {
            String::new()
        } else {
            let full = format!("{} · {}", node.name, units::duration(node.total_ns));
            let room = room as usize;
            if full.chars().count() <= room { full } else { fit_text(&node.name, room) }
        };
        IcicleRect {
            node: id,
            kind: node.kind,
            x,
            width,
            row,
            y: row as f64 * row_height,
            height: row_height,
            label,
            context,
            short: node.measured_short(),
        }
    }
}

fn div_round(total: u64, n: u64) -> u64 {
    if n == 0 { 0 } else { ((u128::from(total) + u128::from(n) / 2) / u128::from(n)) as u64 }
}

#[cfg(test)]
mod tests {
    use sgpt_format::{Frame, GpuPass, GraphPass, Level, Meta, Scope, Span, Writer};

    use super::*;

    /// An encoder-level GPU pass with no graph pass: an encoder scope.
    fn scope(label: &str, parent: Option<u32>) -> GpuPass {
        GpuPass { label: label.into(), kind: GpuPassKind::Encoder, parent, ..GpuPass::default() }
    }

    /// A topology the writer would refuse: cyclic scopes, markers inside each other and
    /// themselves, a graph pass index past the end. Placing its spans must end, and place them.
    #[test]
    fn hostile_chains_end_and_still_place_every_span() {
        let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
        let bytes = Writer::new(Vec::new(), &meta).expect("writer").finish().expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let marker = |label: &str, parent| GpuPass {
            label: label.into(),
            graph_pass: Some(0),
            kind: GpuPassKind::Marker,
            parent: Some(parent),
            ..GpuPass::default()
        };
        let topology = Topology {
            scopes: vec![Scope { name: "a".into(), parent: Some(1) }, Scope { name: "b".into(), parent: Some(0) }],
            graph_passes: vec![GraphPass { name: "g".into(), scope: Some(0), ..GraphPass::default() }],
            gpu_passes: vec![
                marker("m0", 1),
                marker("m1", 0),
                marker("self", 2),
                GpuPass { label: "lost graph".into(), graph_pass: Some(99), ..GpuPass::default() },
                GpuPass { kind: GpuPassKind::Encoder, graph_pass: Some(99), ..GpuPass::default() },
                scope("s0", Some(6)),
                scope("s1", Some(5)),
                scope("lost parent", Some(99)),
                GpuPass { label: "in s0".into(), parent: Some(5), ..GpuPass::default() },
                scope("own parent", Some(9)),
            ],
            ..Topology::default()
        };
        let mut job = IcicleJob::new(&capture, 0..0);
        job.tables.push(Table::new(&topology));
        let m0 = job.resolve(&topology, 0, 0, SpanKind::SubPass);
        let itself = job.resolve(&topology, 0, 2, SpanKind::SubPass);
        let lost = job.resolve(&topology, 0, 3, SpanKind::Pass);
        assert_eq!(job.resolve(&topology, 0, 4, SpanKind::Pass), BARE, "an encoder span with no graph pass to measure");
        assert_eq!(job.resolve(&topology, 0, 99, SpanKind::Pass), BARE, "a pass the topology lacks");
        // Scopes s0 and s1 name each other: the walk from s0 cuts the link back to it.
        let in_s0 = job.resolve(&topology, 0, 8, SpanKind::Pass);
        fn path(job: &IcicleJob<'_, '_>, mut node: u32) -> String {
            let mut names = Vec::new();
            while node != 0 {
                names.push(job.nodes[node as usize].name.clone());
                node = job.nodes[node as usize].parent;
            }
            names.reverse();
            names.join(" › ")
        }
        assert_eq!(path(&job, in_s0), "s1 › s0 › in s0");
        let s1 = job.resolve(&topology, 0, 6, SpanKind::Pass);
        assert_eq!(path(&job, s1), "s1", "the same node, remembered");
        assert_eq!(job.resolve(&topology, 0, 7, SpanKind::Pass), BARE, "a parent out of range links nothing");
        assert_eq!(job.resolve(&topology, 0, 9, SpanKind::Pass), BARE, "nor does being one's own parent");
        let depth = |node: u32| job.nodes[node as usize].depth as usize;
        assert!(depth(m0) <= 2 * MAX_NESTING + 4, "bounded: {}", depth(m0));
        // Cyclic scopes `a`, `b` are cut where they repeat: b › a › g, and the regions below g.
        assert_eq!(job.nodes[1].name, "b");
        assert_eq!((job.nodes[itself as usize].name.as_str(), depth(itself)), ("self", 4));
        assert_eq!((job.nodes[lost as usize].kind, depth(lost)), (NodeKind::GpuPass, 1), "at the top level");
        assert_eq!(job.resolve(&topology, 0, 0, SpanKind::SubPass), m0, "the same path is the same node");
    }

    #[test]
    fn empty_names_read_no_label_and_nodes_merge_by_kind_and_name() {
        let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
        let bytes = Writer::new(Vec::new(), &meta).expect("writer").finish().expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let mut job = IcicleJob::new(&capture, 0..0);
        let pass = job.child(0, NodeKind::GpuPass, "");
        assert_eq!(job.nodes[pass as usize].name, "(no label)");
        assert_eq!(job.child(0, NodeKind::GpuPass, ""), pass);
        assert_ne!(job.child(0, NodeKind::GraphPass, ""), pass, "a graph pass is not a GPU pass of the same name");
        let icicle = job.finish();
        assert_eq!(icicle.nodes().len(), 3);
        assert_eq!(icicle.total_ns(), 0);
        assert_eq!(icicle.layout(100.0, 10.0, None).too_narrow, 2);
    }

    /// A scope tree as the wgpu-profiler bridge writes it, a compute pass with a region
    /// inside one of its scopes, and level timing's unlinked bracket beside them.
    fn scoped_capture() -> Vec<u8> {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).expect("writer");
        let topology = Topology {
            gpu_passes: vec![
                GpuPass { label: "draw".into(), kind: GpuPassKind::Render, ..GpuPass::default() },
                scope("render_to_texture", None),
                scope("fine", Some(1)),
                scope("fine_area", Some(2)),
                scope("coarse", Some(1)),
                GpuPass { label: "integrate".into(), parent: Some(2), ..GpuPass::default() },
                scope("frame", None),
                GpuPass { label: "tag".into(), kind: GpuPassKind::Marker, parent: Some(5), ..GpuPass::default() },
            ],
            ..Topology::default()
        };
        let id = writer.topology(&topology).expect("topology");
        let durations = [70, 1_000, 400, 300, 200, 150, 5_000, 50];
        for frame_number in 0..2u64 {
            let mut frame = Frame { frame_number, topology: id, ..Frame::default() };
            let mut t = 1_000_000 * frame_number;
            for (pass, ns) in durations.into_iter().enumerate() {
                let kind = if pass == 7 { SpanKind::SubPass } else { SpanKind::Pass };
                frame.spans.push(Span { pass: pass as u32, kind, query_set: 0, begin_ns: t, end_ns: t + ns });
                t += ns + 10;
            }
            writer.frame(&frame).expect("frame");
        }
        writer.finish().expect("finish")
    }

    #[test]
    fn linked_encoder_scopes_nest_by_parent_and_unlinked_ones_stay_out() {
        let bytes = scoped_capture();
        let capture = Capture::open(&bytes).expect("opens");
        let icicle = IcicleJob::new(&capture, 0..2).finish();
        assert_eq!((icicle.frames, icicle.spans), (2, 16));
        let node = |path: &[&str]| icicle.node(icicle.find(path).expect("a node")).expect("found nodes exist");
        let root = node(&[]);
        let top: Vec<&str> = root.children.iter().map(|&id| icicle.node(id).expect("child").name.as_str()).collect();
        assert_eq!(top, ["draw", "render_to_texture"], "the unlinked bracket is no node");

        let rtt = node(&["render_to_texture"]);
        assert_eq!((rtt.kind, rtt.depth, rtt.measured_ns, rtt.children_ns), (NodeKind::GpuPass, 1, Some(2_000), 1_300));
        assert_eq!((rtt.total_ns, rtt.measured_short(), rtt.spans, rtt.descendants), (2_000, false, 12, 5));
        // fine reads 800 ns, less than fine_area and integrate inside it (600 + 300).
        let fine = node(&["render_to_texture", "fine"]);
        assert_eq!((fine.depth, fine.measured_ns, fine.children_ns, fine.total_ns), (2, Some(800), 900, 900));
        assert!(fine.measured_short());
        let area = node(&["render_to_texture", "fine", "fine_area"]);
        assert_eq!((area.kind, area.depth, area.total_ns, area.own_spans), (NodeKind::GpuPass, 3, 600, 2));
        let integrate = node(&["render_to_texture", "fine", "integrate"]);
        assert_eq!((integrate.measured_ns, integrate.children_ns, integrate.total_ns), (Some(300), 100, 300));
        let tag = node(&["render_to_texture", "fine", "integrate", "tag"]);
        assert_eq!((tag.kind, tag.depth, tag.total_ns), (NodeKind::SubPass, 4, 100));
        assert_eq!(node(&["render_to_texture", "coarse"]).total_ns, 400);

        assert_eq!(icicle.bare_encoder, BareEncoder { spans: 2, zero_spans: 0, total_ns: 10_000 });
        assert_eq!(icicle.total_ns(), 140 + 2_000);
        let measured: u64 = icicle.nodes().iter().filter_map(|node| node.measured_ns).sum();
        assert_eq!(measured + icicle.bare_encoder.total_ns, 2 * 7_170, "every span once, in the tree or counted");
        assert!(icicle.bare_encoder_note().expect("a note").starts_with("2 encoder-level spans"));
        let fine_id = icicle.find(&["render_to_texture", "fine"]).expect("a node");
        assert_eq!(icicle.readout(fine_id).expect("a readout")[0], "render_to_texture › fine (GPU pass)");
    }

    /// Scope trees are walked, not recursed: a chain far deeper than region nesting ends
    /// with every scope at its depth.
    #[test]
    fn a_deep_scope_chain_is_placed_whole() {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let bytes = Writer::new(Vec::new(), &meta).expect("writer").finish().expect("finish");
        let capture = Capture::open(&bytes).expect("opens");
        let topology = Topology {
            gpu_passes: (0u32..300).map(|at| scope(&format!("s{at}"), at.checked_sub(1))).collect(),
            ..Topology::default()
        };
        let mut job = IcicleJob::new(&capture, 0..0);
        job.tables.push(Table::new(&topology));
        let deepest = job.resolve(&topology, 0, 299, SpanKind::Pass);
        assert_eq!((job.nodes[deepest as usize].name.as_str(), job.nodes[deepest as usize].depth), ("s299", 300));
        let middle = job.resolve(&topology, 0, 150, SpanKind::Pass);
        assert_eq!(job.nodes[middle as usize].depth, 151);
        assert_eq!(job.nodes.len(), 301, "each scope one node, the root besides");
    }
}
