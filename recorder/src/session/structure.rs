//! The structure tracker: the frame's topology kept in place (scopes, graph passes, GPU
//! passes and their attachments), the open graph-pass bracket that passes are attributed
//! to, and when the topology must be written again. It knows nothing of timestamps or of
//! the writer: the recording state asks it, and writes what it says changed.

use sgpt_format::{Attachment, GpuPass, GpuPassKind, Level, Topology, TopologyId};

use crate::error::RecordError;
use crate::front::AttachmentInfo;
use crate::sync;

/// The session's structure, updated in place frame after frame.
#[derive(Debug)]
pub(super) struct Structure {
    level: Level,
    /// The current frame's topology; `dirty` says it differs from the one `id` names.
    topology: Topology,
    dirty: bool,
    id: TopologyId,
    /// GPU passes registered in the open frame.
    gpu_pass_count: u32,
    /// The open graph-pass bracket.
    graph_pass: Option<u32>,
    /// The open bracket's name: the label of a GPU pass begun in it without one.
    bracket_name: String,
    /// Below `Structure` the topology has no graph passes: the names brackets were opened
    /// by, so that [`crate::GraphPassScope::named`] still gives each name its own index.
    timing_graph_names: Vec<String>,
    /// WebGPU names of attachment formats seen so far, so no frame allocates one.
    format_names: Vec<(wgpu::TextureFormat, String)>,
}

impl Structure {
    pub(super) fn new(level: Level) -> Self {
        Self {
            level,
            topology: Topology::default(),
            dirty: true,
            id: 0,
            gpu_pass_count: 0,
            graph_pass: None,
            bracket_name: String::new(),
            timing_graph_names: Vec::new(),
            format_names: Vec::new(),
        }
    }

    pub(super) fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The id of the topology last written.
    pub(super) fn id(&self) -> TopologyId {
        self.id
    }

    /// A new frame: no GPU pass registered yet, no bracket open.
    pub(super) fn begin_frame(&mut self) {
        self.gpu_pass_count = 0;
        self.graph_pass = None;
    }

    /// The frame is complete: GPU passes the frame did not reach are dropped. Returns the
    /// topology to write, if it changed since the last one written.
    pub(super) fn end_frame(&mut self) -> Option<&Topology> {
        self.graph_pass = None;
        let count = self.gpu_pass_count as usize;
        if self.topology.gpu_passes.len() != count {
            self.topology.gpu_passes.truncate(count);
            self.dirty = true;
        }
        self.dirty.then_some(&self.topology)
    }

    /// The topology `end_frame` returned was written as `id`.
    pub(super) fn written(&mut self, id: TopologyId) {
        self.id = id;
        self.dirty = false;
    }

    /// Takes in the application's graph (level `Structure` and up). Returns whether its
    /// resources changed.
    pub(super) fn set_graph(&mut self, graph: &Topology) -> bool {
        if self.level < Level::Structure {
            return false;
        }
        let topology = &mut self.topology;
        let mut dirty = sync::vec_clone(&mut topology.scopes, &graph.scopes);
        dirty |= sync::vec_clone(&mut topology.graph_passes, &graph.graph_passes);
        let resources = sync::vec_clone(&mut topology.resources, &graph.resources);
        self.dirty |= dirty | resources;
        resources
    }

    /// The index of the graph pass named `name`: the first one of that name, or a new one
    /// at the end, named so.
    pub(super) fn graph_pass_named(&mut self, name: &str) -> u32 {
        if self.level < Level::Structure {
            let names = &mut self.timing_graph_names;
            return match names.iter().position(|known| known == name) {
                Some(index) => index as u32,
                None => {
                    names.push(name.to_owned());
                    names.len() as u32 - 1
                }
            };
        }
        let passes = &self.topology.graph_passes;
        passes.iter().position(|pass| pass.name == name).unwrap_or(passes.len()) as u32
    }

    /// Refuses a bracket whose index the structure names otherwise: its passes would be
    /// attributed to that other graph pass. (Below `Structure` nothing is attributed.)
    pub(super) fn check_graph_pass_name(&self, graph_pass: u32, name: &str) -> Result<(), RecordError> {
        match self.topology.graph_passes.get(graph_pass as usize) {
            Some(pass) if self.level >= Level::Structure && !pass.name.is_empty() && pass.name != name => {
                Err(RecordError::GraphPassName {
                    index: graph_pass,
                    recorded: pass.name.clone(),
                    given: name.to_owned(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Opens a graph-pass bracket (checked by [`Self::check_graph_pass_name`]). A bracket
    /// whose pass the topology does not have (the application handed no graph) adds it,
    /// named as the bracket is.
    pub(super) fn enter_graph_pass(&mut self, graph_pass: u32, name: &str) {
        if self.level >= Level::Structure {
            let passes = &mut self.topology.graph_passes;
            if passes.len() <= graph_pass as usize {
                passes.resize_with(graph_pass as usize + 1, sgpt_format::GraphPass::default);
                self.dirty = true;
            }
            let pass = &mut passes[graph_pass as usize];
            if pass.name.is_empty() {
                self.dirty |= sync::string(&mut pass.name, name);
            }
        }
        self.graph_pass = Some(graph_pass);
        sync::string(&mut self.bracket_name, name);
    }

    /// The open bracket, if any.
    pub(super) fn graph_pass(&self) -> Option<u32> {
        self.graph_pass
    }

    pub(super) fn leave_graph_pass(&mut self) {
        self.graph_pass = None;
    }

    fn format_name(&mut self, format: wgpu::TextureFormat) -> usize {
        if let Some(at) = self.format_names.iter().position(|(known, _)| *known == format) {
            return at;
        }
        self.format_names.push((format, crate::footprint::format_name(format)));
        self.format_names.len() - 1
    }

    /// The label of a GPU pass begun without one: its open bracket's name, so two
    /// unlabeled passes of different graph passes stay apart even at level Timing.
    pub(super) fn unlabeled(&self, kind: GpuPassKind) -> &str {
        match (self.graph_pass, kind) {
            (Some(_), _) => &self.bracket_name,
            (None, GpuPassKind::Render) => "render pass",
            (None, _) => "compute pass",
        }
    }

    /// The index of the graph pass a shared [`crate::Recorder`] scope names, entered in
    /// the topology as a bracket would be, without changing the open bracket.
    pub(super) fn front_graph_pass(&mut self, name: &str) -> u32 {
        let index = self.graph_pass_named(name);
        let open = self.graph_pass.take();
        self.enter_graph_pass(index, name);
        self.graph_pass = open;
        index
    }

    /// Registers the frame's next GPU pass (or marker region, or encoder span), merged
    /// at `end_frame`: attributed to the graph pass its record names (`bracket`: a
    /// bracket's index, or [`Self::front_graph_pass`]'s), not to any open bracket.
    #[inline]
    pub(super) fn register(
        &mut self,
        kind: GpuPassKind,
        label: &str,
        parent: Option<u32>,
        attachments: &[AttachmentInfo],
        bracket: Option<u32>,
    ) -> u32 {
        let index = self.gpu_pass_count;
        self.gpu_pass_count += 1;
        let graph_pass = if self.level >= Level::Structure { bracket } else { None };
        let with_attachments = self.level >= Level::Workload;
        // The common case, checked first: a pass with no attachments, as the last frame had it.
        if (!with_attachments || attachments.is_empty())
            && let Some(pass) = self.topology.gpu_passes.get(index as usize)
            && pass.attachments.is_empty()
            && pass.kind == kind
            && pass.graph_pass == graph_pass
            && pass.parent == parent
            && pass.label == label
        {
            return index;
        }
        self.update(index, kind, label, parent, attachments, graph_pass);
        index
    }

    /// Makes GPU pass `index` of the topology what `register` was given, marking it dirty
    /// where it differs: a new or changed pass, or one with attachments. Kept out of
    /// `register`, so the common case stays a few comparisons.
    #[inline(never)]
    fn update(
        &mut self,
        index: u32,
        kind: GpuPassKind,
        label: &str,
        parent: Option<u32>,
        attachments: &[AttachmentInfo],
        graph_pass: Option<u32>,
    ) {
        let with_attachments = self.level >= Level::Workload;
        // Attachment format names, looked up before the topology is borrowed.
        let mut names = [0usize; 9];
        if with_attachments {
            for (slot, attachment) in names.iter_mut().zip(attachments) {
                *slot = self.format_name(attachment.format);
            }
        }
        let attachments = if with_attachments { &attachments[..attachments.len().min(names.len())] } else { &[] };
        let passes = &mut self.topology.gpu_passes;
        if passes.len() <= index as usize {
            passes.push(GpuPass::default());
            self.dirty = true;
        }
        let pass = &mut passes[index as usize];
        let mut dirty = sync::string(&mut pass.label, label);
        dirty |= sync::value(&mut pass.graph_pass, graph_pass);
        dirty |= sync::value(&mut pass.kind, kind);
        dirty |= sync::value(&mut pass.parent, parent);
        if pass.attachments.len() != attachments.len() {
            pass.attachments.resize_with(attachments.len(), Attachment::default);
            dirty = true;
        }
        for ((slot, info), &name) in pass.attachments.iter_mut().zip(attachments).zip(&names) {
            dirty |= sync::string(&mut slot.format, &self.format_names[name].1);
            dirty |= sync::value(&mut slot.role, info.role);
            dirty |= sync::value(&mut slot.load, info.load);
            dirty |= sync::value(&mut slot.store, info.store);
            dirty |= sync::value(&mut slot.stencil, info.stencil);
        }
        self.dirty |= dirty;
    }
}
