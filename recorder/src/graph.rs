//! A small frame graph for applications that have none.
//!
//! Each frame: [`FrameGraph::reset`], declare passes and the resource versions they
//! create, read and write, [`FrameGraph::compile`] (culling, reference counts,
//! lifetimes), then [`FrameGraph::execute`], which calls the application once per
//! surviving pass inside a [`GraphPassScope`] bracket. Passes carry an application tag
//! (`T`, usually an enum) instead of a boxed closure, so a frame rebuilt from the same
//! declarations allocates nothing: every list here keeps its capacity across frames.
//!
//! The graph describes resources; it does not allocate them. Texture footprints are
//! computed from the descriptors (declared bytes).

use std::ops::Range;

use sgpt_format::{GraphPass, ResourceDesc, ResourceNode, Scope, Topology};

use crate::footprint::{BufferDesc, TextureDesc};
use crate::pass::GraphPassScope;
use crate::{ProfileSession, sync};

/// A version of a resource: what passes read and write. Writing a handle returns the
/// next version's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceHandle(u32);

impl ResourceHandle {
    /// The resource node's index in the topology.
    #[must_use]
    pub fn index(self) -> u32 {
        self.0
    }
}

/// What a pass listener is told.
#[derive(Clone, Copy, Debug)]
pub struct PassEvent<'a> {
    /// The pass's index in the graph (and in the recorded topology).
    pub index: u32,
    pub name: &'a str,
}

/// Observes graph-pass boundaries during [`FrameGraph::execute`]. Any number may listen;
/// adding one never replaces another.
pub trait PassListener: wgpu::WasmNotSend {
    fn pass_begin(&mut self, pass: PassEvent<'_>);
    fn pass_end(&mut self, pass: PassEvent<'_>);
}

/// Identifies a listener for [`FrameGraph::remove_listener`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ListenerId(u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Desc {
    Texture(TextureDesc),
    Buffer(BufferDesc),
}

impl Desc {
    fn declared_bytes(self) -> u64 {
        match self {
            Desc::Texture(texture) => texture.declared_bytes(),
            Desc::Buffer(buffer) => buffer.size,
        }
    }

    fn to_format(self) -> ResourceDesc {
        match self {
            Desc::Texture(texture) => texture.to_format(),
            Desc::Buffer(buffer) => buffer.to_format(),
        }
    }
}

#[derive(Debug)]
struct PassNode<T> {
    name: String,
    tag: T,
    scope: Option<u32>,
    side_effects: bool,
    reads: Vec<u32>,
    writes: Vec<u32>,
    creates: Vec<u32>,
}

#[derive(Debug)]
struct ResourceEntry {
    name: String,
    desc: Desc,
    imported: bool,
    /// First and last surviving pass that uses the resource, after compile.
    lifetime: Option<(u32, u32)>,
}

#[derive(Clone, Copy, Debug)]
struct NodeEntry {
    resource: u32,
    version: u32,
    producer: Option<u32>,
}

/// The graph. `T` tags each pass for the application's execute callback.
pub struct FrameGraph<T> {
    passes: Vec<PassNode<T>>,
    pass_count: usize,
    resources: Vec<ResourceEntry>,
    resource_count: usize,
    nodes: Vec<NodeEntry>,
    scopes: Vec<(String, Option<u32>)>,
    scope_count: usize,
    scope_stack: Vec<u32>,
    listeners: Vec<(ListenerId, Box<dyn PassListener>)>,
    next_listener: u64,
    compiled: bool,
    /// The structure as the recorder stores it, updated in place by compile.
    topology: Topology,
    culled: Vec<bool>,
    /// Compile scratch: node and pass reference counts, and the cull work list.
    node_refs: Vec<u32>,
    pass_refs: Vec<u32>,
    work: Vec<u32>,
    /// Last frame's descriptors, so an unchanged resource skips rebuilding its record.
    previous_descs: Vec<Option<Desc>>,
}

impl<T> std::fmt::Debug for FrameGraph<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameGraph")
            .field("passes", &self.pass_count)
            .field("resources", &self.resource_count)
            .field("nodes", &self.nodes.len())
            .field("listeners", &self.listeners.len())
            .finish_non_exhaustive()
    }
}

impl<T: Copy> Default for FrameGraph<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> FrameGraph<T> {
    #[must_use]
    pub fn new() -> Self {
        Self {
            passes: Vec::new(),
            pass_count: 0,
            resources: Vec::new(),
            resource_count: 0,
            nodes: Vec::new(),
            scopes: Vec::new(),
            scope_count: 0,
            scope_stack: Vec::new(),
            listeners: Vec::new(),
            next_listener: 0,
            compiled: false,
            topology: Topology::default(),
            culled: Vec::new(),
            node_refs: Vec::new(),
            pass_refs: Vec::new(),
            work: Vec::new(),
            previous_descs: Vec::new(),
        }
    }

    /// Forgets this frame's declarations, keeping every list's capacity. Listeners stay.
    pub fn reset(&mut self) {
        self.pass_count = 0;
        self.resource_count = 0;
        self.nodes.clear();
        self.scope_count = 0;
        self.scope_stack.clear();
        self.compiled = false;
    }

    /// Opens a named scope: passes added until the matching [`Self::pop_scope`] belong
    /// to it. Scopes nest.
    pub fn push_scope(&mut self, name: &str) {
        let parent = self.scope_stack.last().copied();
        let index = self.scope_count;
        if let Some(scope) = self.scopes.get_mut(index) {
            sync::string(&mut scope.0, name);
            scope.1 = parent;
        } else {
            self.scopes.push((name.to_owned(), parent));
        }
        self.scope_count += 1;
        self.scope_stack.push(index as u32);
    }

    pub fn pop_scope(&mut self) {
        self.scope_stack.pop();
    }

    fn add_resource(&mut self, name: &str, desc: Desc, imported: bool, producer: Option<u32>) -> ResourceHandle {
        let index = self.resource_count;
        if let Some(entry) = self.resources.get_mut(index) {
            sync::string(&mut entry.name, name);
            entry.desc = desc;
            entry.imported = imported;
            entry.lifetime = None;
        } else {
            self.resources.push(ResourceEntry { name: name.to_owned(), desc, imported, lifetime: None });
        }
        self.resource_count += 1;
        self.nodes.push(NodeEntry { resource: index as u32, version: 0, producer });
        ResourceHandle(self.nodes.len() as u32 - 1)
    }

    /// Brings in a texture that lives outside the graph (a swapchain image, a history
    /// buffer). Writing an imported resource is a side effect: such a pass is never culled.
    pub fn import_texture(&mut self, name: &str, desc: TextureDesc) -> ResourceHandle {
        self.add_resource(name, Desc::Texture(desc), true, None)
    }

    /// Brings in a buffer that lives outside the graph.
    pub fn import_buffer(&mut self, name: &str, desc: BufferDesc) -> ResourceHandle {
        self.add_resource(name, Desc::Buffer(desc), true, None)
    }

    /// Adds a pass. Declare what it creates, reads and writes on the returned builder.
    pub fn add_pass(&mut self, name: &str, tag: T) -> PassBuilder<'_, T> {
        let index = self.pass_count;
        let scope = self.scope_stack.last().copied();
        if let Some(pass) = self.passes.get_mut(index) {
            sync::string(&mut pass.name, name);
            pass.tag = tag;
            pass.scope = scope;
            pass.side_effects = false;
            pass.reads.clear();
            pass.writes.clear();
            pass.creates.clear();
        } else {
            self.passes.push(PassNode {
                name: name.to_owned(),
                tag,
                scope,
                side_effects: false,
                reads: Vec::new(),
                writes: Vec::new(),
                creates: Vec::new(),
            });
        }
        self.pass_count += 1;
        self.compiled = false;
        PassBuilder { graph: self, pass: index as u32 }
    }

    /// Culls passes with no side effects whose outputs nobody reads, counts references,
    /// computes resource lifetimes, and refreshes the recorded structure.
    pub fn compile(&mut self) {
        let passes = self.pass_count;
        self.node_refs.clear();
        self.node_refs.resize(self.nodes.len(), 0);
        self.pass_refs.clear();
        self.pass_refs.resize(passes, 0);
        self.culled.clear();
        self.culled.resize(passes, false);
        for (index, pass) in self.passes[..passes].iter_mut().enumerate() {
            for &node in &pass.reads {
                self.node_refs[node as usize] += 1;
            }
            self.pass_refs[index] = (pass.writes.len() + pass.creates.len()) as u32;
            let imported_write =
                pass.writes.iter().any(|&node| self.resources[self.nodes[node as usize].resource as usize].imported);
            pass.side_effects |= imported_write;
        }
        // Nodes nobody reads release their producer; a producer left with no consumed
        // output and no side effects is culled, which releases what it read in turn.
        self.work.clear();
        self.work.extend((0..self.nodes.len() as u32).filter(|&node| self.node_refs[node as usize] == 0));
        while let Some(node) = self.work.pop() {
            let Some(producer) = self.nodes[node as usize].producer else { continue };
            let producer = producer as usize;
            let refs = &mut self.pass_refs[producer];
            *refs = refs.saturating_sub(1);
            if *refs == 0 && !self.passes[producer].side_effects && !self.culled[producer] {
                self.culled[producer] = true;
                for &read in &self.passes[producer].reads {
                    let count = &mut self.node_refs[read as usize];
                    *count = count.saturating_sub(1);
                    if *count == 0 {
                        self.work.push(read);
                    }
                }
            }
        }
        // Lifetimes: first and last surviving pass touching each resource.
        for resource in &mut self.resources[..self.resource_count] {
            resource.lifetime = None;
        }
        for (index, pass) in self.passes[..passes].iter().enumerate() {
            if self.culled[index] {
                continue;
            }
            for &node in pass.reads.iter().chain(&pass.writes).chain(&pass.creates) {
                let resource = &mut self.resources[self.nodes[node as usize].resource as usize];
                let index = index as u32;
                resource.lifetime = Some(resource.lifetime.map_or((index, index), |(first, _)| (first, index)));
            }
        }
        self.build_topology();
        self.compiled = true;
    }

    fn build_topology(&mut self) {
        let topology = &mut self.topology;
        topology.scopes.truncate(self.scope_count);
        for (index, (name, parent)) in self.scopes[..self.scope_count].iter().enumerate() {
            if let Some(scope) = topology.scopes.get_mut(index) {
                sync::string(&mut scope.name, name);
                scope.parent = *parent;
            } else {
                topology.scopes.push(Scope { name: name.clone(), parent: *parent });
            }
        }
        topology.graph_passes.truncate(self.pass_count);
        for (index, pass) in self.passes[..self.pass_count].iter().enumerate() {
            if topology.graph_passes.len() <= index {
                topology.graph_passes.push(GraphPass::default());
            }
            let out = &mut topology.graph_passes[index];
            sync::string(&mut out.name, &pass.name);
            out.scope = pass.scope;
            out.side_effects = pass.side_effects;
            // References to this pass's outputs from passes that survived culling.
            out.ref_count = self.passes[..self.pass_count]
                .iter()
                .enumerate()
                .filter(|&(reader, _)| !self.culled[reader])
                .map(|(_, reader)| {
                    reader
                        .reads
                        .iter()
                        .filter(|&&node| self.nodes[node as usize].producer == Some(index as u32))
                        .count() as u32
                })
                .sum();
            sync::vec_clone(&mut out.reads, &pass.reads);
            sync::vec_clone(&mut out.writes, &pass.writes);
            sync::vec_clone(&mut out.creates, &pass.creates);
        }
        topology.resources.truncate(self.nodes.len());
        self.previous_descs.resize(self.nodes.len(), None);
        for (index, node) in self.nodes.iter().enumerate() {
            let resource = &self.resources[node.resource as usize];
            if topology.resources.len() <= index {
                topology.resources.push(ResourceNode::default());
            }
            let out = &mut topology.resources[index];
            sync::string(&mut out.name, &resource.name);
            out.version = node.version;
            out.imported = resource.imported;
            // Descriptors rarely change; rebuilding one (a format name) only when it does
            // keeps a steady frame free of allocations.
            if self.previous_descs[index] != Some(resource.desc) {
                self.previous_descs[index] = Some(resource.desc);
                out.declared_bytes = resource.desc.declared_bytes();
                out.desc = resource.desc.to_format();
            }
        }
    }

    /// Runs the frame: calls `body` once per surviving pass, in declaration order,
    /// inside a [`GraphPassScope`] that attributes the pass's GPU passes to it. Compiles
    /// first if needed. With `session` `None` the bracket is a null check.
    pub fn execute(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        mut session: Option<&mut ProfileSession>,
        mut body: impl FnMut(T, &mut GraphPassScope<'_>),
    ) {
        if !self.compiled {
            self.compile();
        }
        if let Some(session) = session.as_deref_mut() {
            session.set_graph(&self.topology, &self.culled);
        }
        for index in 0..self.pass_count {
            if self.culled[index] {
                continue;
            }
            let pass = &self.passes[index];
            let event = PassEvent { index: index as u32, name: &pass.name };
            // Guarded so an unobserved graph does no listener work at all.
            if !self.listeners.is_empty() {
                for (_, listener) in &mut self.listeners {
                    listener.pass_begin(event);
                }
            }
            {
                // set_graph above named every index as the graph does: never refused.
                let mut scope =
                    GraphPassScope::begin_or_unrecorded(session.as_deref_mut(), encoder, index as u32, &pass.name);
                body(pass.tag, &mut scope);
            }
            if !self.listeners.is_empty() {
                for (_, listener) in &mut self.listeners {
                    listener.pass_end(event);
                }
            }
        }
    }

    /// Adds a pass listener; returns its id for removal.
    pub fn add_listener(&mut self, listener: impl PassListener + 'static) -> ListenerId {
        let id = ListenerId(self.next_listener);
        self.next_listener += 1;
        self.listeners.push((id, Box::new(listener)));
        id
    }

    /// Removes a listener; `false` if it was not there.
    pub fn remove_listener(&mut self, id: ListenerId) -> bool {
        let before = self.listeners.len();
        self.listeners.retain(|(listener, _)| *listener != id);
        self.listeners.len() != before
    }

    /// The structure as recorded: scopes, graph passes and resource nodes (no GPU passes).
    /// Valid after [`Self::compile`].
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// One entry per pass: whether compile culled it.
    #[must_use]
    pub fn culled(&self) -> &[bool] {
        &self.culled
    }

    /// Whether the pass at `index` was culled.
    #[must_use]
    pub fn is_culled(&self, index: u32) -> bool {
        self.culled.get(index as usize).copied().unwrap_or(false)
    }

    /// Passes declared this frame.
    #[must_use]
    pub fn pass_count(&self) -> usize {
        self.pass_count
    }

    /// The surviving passes (first, last) that use `handle`'s resource, any version.
    #[must_use]
    pub fn lifetime(&self, handle: ResourceHandle) -> Option<Range<u32>> {
        let node = self.nodes.get(handle.0 as usize)?;
        let (first, last) = self.resources[node.resource as usize].lifetime?;
        Some(first..last + 1)
    }

    /// Declared bytes of `handle`'s resource.
    #[must_use]
    pub fn declared_bytes(&self, handle: ResourceHandle) -> u64 {
        self.nodes.get(handle.0 as usize).map_or(0, |node| self.resources[node.resource as usize].desc.declared_bytes())
    }
}

/// Declares one pass's resource use.
#[must_use = "a pass builder declares what the pass uses"]
pub struct PassBuilder<'g, T> {
    graph: &'g mut FrameGraph<T>,
    pass: u32,
}

impl<T> std::fmt::Debug for PassBuilder<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassBuilder").field("pass", &self.pass).finish()
    }
}

impl<T: Copy> PassBuilder<'_, T> {
    /// The pass's index (what [`GraphPassScope`] and the topology use).
    #[must_use]
    pub fn index(&self) -> u32 {
        self.pass
    }

    /// Creates a transient texture this pass produces (version 0).
    pub fn create_texture(&mut self, name: &str, desc: TextureDesc) -> ResourceHandle {
        let handle = self.graph.add_resource(name, Desc::Texture(desc), false, Some(self.pass));
        self.graph.passes[self.pass as usize].creates.push(handle.0);
        handle
    }

    /// Creates a transient buffer this pass produces (version 0).
    pub fn create_buffer(&mut self, name: &str, desc: BufferDesc) -> ResourceHandle {
        let handle = self.graph.add_resource(name, Desc::Buffer(desc), false, Some(self.pass));
        self.graph.passes[self.pass as usize].creates.push(handle.0);
        handle
    }

    /// Declares a read of this version.
    pub fn read(&mut self, handle: ResourceHandle) -> ResourceHandle {
        self.graph.passes[self.pass as usize].reads.push(handle.0);
        handle
    }

    /// Declares a write: returns the resource's next version, produced by this pass.
    /// A write does not read; a pass that loads the old contents also calls `read`.
    pub fn write(&mut self, handle: ResourceHandle) -> ResourceHandle {
        let graph = &mut *self.graph;
        let Some(&node) = graph.nodes.get(handle.0 as usize) else { return handle };
        let version = graph.nodes.iter().filter(|other| other.resource == node.resource).count() as u32;
        graph.nodes.push(NodeEntry { resource: node.resource, version, producer: Some(self.pass) });
        let next = graph.nodes.len() as u32 - 1;
        graph.passes[self.pass as usize].writes.push(next);
        ResourceHandle(next)
    }

    /// Reads this version and writes the next (a load-and-store attachment).
    pub fn read_write(&mut self, handle: ResourceHandle) -> ResourceHandle {
        self.read(handle);
        self.write(handle)
    }

    /// Marks the pass as having effects outside the graph: it is never culled.
    pub fn side_effects(&mut self) {
        self.graph.passes[self.pass as usize].side_effects = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Tag {
        Depth,
        Light,
        Debug,
        Post,
    }

    fn texture() -> TextureDesc {
        TextureDesc::d2(64, 32, wgpu::TextureFormat::Rgba16Float, wgpu::TextureUsages::RENDER_ATTACHMENT)
    }

    fn build(graph: &mut FrameGraph<Tag>) {
        graph.reset();
        let output = graph.import_texture("output", texture());
        graph.push_scope("scene");
        let mut depth = graph.add_pass("depth", Tag::Depth);
        let depth_target = depth.create_texture("depth", texture());
        let mut light = graph.add_pass("light", Tag::Light);
        light.read(depth_target);
        let hdr = light.create_texture("hdr", texture());
        graph.pop_scope();
        let mut debug = graph.add_pass("debug", Tag::Debug);
        debug.read(depth_target);
        let _overlay = debug.create_texture("overlay", texture());
        let mut post = graph.add_pass("post", Tag::Post);
        post.read(hdr);
        post.write(output);
        graph.compile();
    }

    #[test]
    fn a_pass_nobody_reads_is_culled_and_the_rest_survive() {
        let mut graph = FrameGraph::new();
        build(&mut graph);
        assert_eq!(graph.culled(), &[false, false, true, false]);
        let topology = graph.topology();
        let names: Vec<_> = topology.graph_passes.iter().map(|pass| pass.name.as_str()).collect();
        assert_eq!(names, ["depth", "light", "debug", "post"]);
        // depth's output is read by light (survives) and debug (culled): one reference.
        assert_eq!(topology.graph_passes[0].ref_count, 1);
        assert_eq!(topology.graph_passes[1].ref_count, 1);
        assert_eq!(topology.graph_passes[3].ref_count, 0);
        assert!(topology.graph_passes[3].side_effects, "writing an imported resource is a side effect");
        assert_eq!(topology.graph_passes[0].scope, Some(0));
        assert_eq!(topology.graph_passes[2].scope, None);
        assert_eq!(topology.scopes[0].name, "scene");
    }

    #[test]
    fn writes_make_versions_and_lifetimes_span_surviving_users() {
        let mut graph = FrameGraph::new();
        build(&mut graph);
        let topology = graph.topology();
        let output_versions: Vec<_> =
            topology.resources.iter().filter(|node| node.name == "output").map(|node| node.version).collect();
        assert_eq!(output_versions, [0, 1]);
        assert_eq!(topology.resources[0].declared_bytes, 64 * 32 * 8);
        // depth is used by pass 0 (create) and pass 1 (read); debug's read was culled.
        assert_eq!(graph.lifetime(ResourceHandle(1)), Some(0..2));
        // The overlay's only user was culled.
        let overlay = topology.resources.iter().position(|node| node.name == "overlay").unwrap();
        assert_eq!(graph.lifetime(ResourceHandle(overlay as u32)), None);
    }

    #[test]
    fn culling_cascades_through_producers() {
        let mut graph = FrameGraph::new();
        graph.reset();
        let mut a = graph.add_pass("a", Tag::Depth);
        let x = a.create_texture("x", texture());
        let mut b = graph.add_pass("b", Tag::Light);
        b.read(x);
        let _y = b.create_texture("y", texture());
        graph.compile();
        assert_eq!(graph.culled(), &[true, true]);
    }

    #[test]
    fn listeners_all_hear_every_pass_and_removal_is_by_id() {
        use std::sync::{Arc, Mutex};

        struct Log(Arc<Mutex<Vec<String>>>, &'static str);
        impl PassListener for Log {
            fn pass_begin(&mut self, pass: PassEvent<'_>) {
                self.0.lock().unwrap().push(format!("{} begin {}", self.1, pass.name));
            }
            fn pass_end(&mut self, pass: PassEvent<'_>) {
                self.0.lock().unwrap().push(format!("{} end {}", self.1, pass.name));
            }
        }

        let mut graph: FrameGraph<Tag> = FrameGraph::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let first = graph.add_listener(Log(Arc::clone(&log), "first"));
        let second = graph.add_listener(Log(Arc::clone(&log), "second"));
        assert_ne!(first, second);
        assert!(graph.remove_listener(first));
        assert!(!graph.remove_listener(first));
        assert_eq!(graph.listeners.len(), 1);
    }
}
