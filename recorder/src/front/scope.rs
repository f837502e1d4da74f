//! The front's scopes (on an encoder, on a pass) and the pass token of a pass the caller
//! begins itself.

use std::cell::Cell;
use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

use sgpt_format::{GpuPassKind, Level, Op};

use super::records::{Few, FrontCommand, GraphRef, PipelineRef, RecordHead, Records, ScopeRecord, attachments_of};
use super::shared::{Claim, FrontShared, IdRun, LateCommands, SlotRun};
use crate::encoder_key::EncoderKey;

pub(crate) mod sealed {
    /// What a scope (and a profiled pass's marker region) writes on its target; wgpu's
    /// encoder and passes share no trait.
    pub trait Sealed {
        const KIND: sgpt_format::GpuPassKind;
        fn write_timestamp(&mut self, query_set: &wgpu::QuerySet, query: u32);
        fn push_debug_group(&mut self, label: &str);
        fn pop_debug_group(&mut self);
    }
}

/// What a [`Scope`] can be opened on: `wgpu::CommandEncoder`, `wgpu::ComputePass<'_>`,
/// `wgpu::RenderPass<'_>`. Sealed.
pub trait ScopeTarget: sealed::Sealed {}

/// A pass a scope can be opened on: `wgpu::ComputePass<'_>` or `wgpu::RenderPass<'_>`.
pub trait PassTarget: ScopeTarget {}

/// One forwarding impl per wgpu type: the three methods are the same on each.
macro_rules! forward_to_wgpu {
    ($($target:ty => $kind:expr),* $(,)?) => {$(
        impl sealed::Sealed for $target {
            const KIND: GpuPassKind = $kind;
            fn write_timestamp(&mut self, query_set: &wgpu::QuerySet, query: u32) {
                <$target>::write_timestamp(self, query_set, query);
            }
            fn push_debug_group(&mut self, label: &str) {
                <$target>::push_debug_group(self, label);
            }
            fn pop_debug_group(&mut self) {
                <$target>::pop_debug_group(self);
            }
        }
    )*};
}

forward_to_wgpu! {
    wgpu::CommandEncoder => GpuPassKind::Encoder,
    wgpu::ComputePass<'_> => GpuPassKind::Marker,
    wgpu::RenderPass<'_> => GpuPassKind::Marker,
}

impl ScopeTarget for wgpu::CommandEncoder {}
impl ScopeTarget for wgpu::ComputePass<'_> {}
impl ScopeTarget for wgpu::RenderPass<'_> {}
impl PassTarget for wgpu::ComputePass<'_> {}
impl PassTarget for wgpu::RenderPass<'_> {}

/// What a scope writes into: the caller's, or a pass the scope began and ends.
pub(crate) enum Target<'a, R> {
    Borrowed(&'a mut R),
    Owned(R),
}

impl<R> Target<'_, R> {
    fn get(&self) -> &R {
        match self {
            Target::Borrowed(target) => target,
            Target::Owned(target) => target,
        }
    }

    fn get_mut(&mut self) -> &mut R {
        match self {
            Target::Borrowed(target) => target,
            Target::Owned(target) => target,
        }
    }
}

/// What a tree of scopes (an outermost scope and everything nested in it, all on one
/// encoder or pass) shares: the run of slots its scopes claim from, and their records in
/// creation order, the outermost scope's first. A nested scope's record is made in place
/// here and stays until the outermost scope ends and hands the tree to the frame under one
/// lock (no resolve of the encoder can run before: the outermost scope borrows the encoder
/// or its pass). In creation order, a tree needs no sorting at the merge.
#[derive(Debug, Default)]
struct Tree {
    run: SlotRun,
    /// Where its records' ids come from. A cell: a pass token made from a scope of the tree,
    /// which holds the tree shared, takes its id from here too (so a scope is `Send`, not `Sync`).
    ids: Cell<IdRun>,
    records: Records,
}

/// A scope's tree: owned by an outermost scope, borrowed by the scopes nested in it.
enum TreeRef<'a> {
    Own(Tree),
    Borrowed(&'a mut Tree),
}

impl TreeRef<'_> {
    fn get(&self) -> &Tree {
        match self {
            TreeRef::Own(tree) => tree,
            TreeRef::Borrowed(tree) => tree,
        }
    }

    fn get_mut(&mut self) -> &mut Tree {
        match self {
            TreeRef::Own(tree) => tree,
            TreeRef::Borrowed(tree) => tree,
        }
    }
}

/// Claims what a new scope needs: `None` when no frame is open, else the frame's
/// generation and, when `timed` and a slot was free, the slot and its timer set (from
/// `run` when the scope belongs to a tree). A timed claim that gets no slot is counted as
/// a dropped span.
#[inline]
fn begin(shared: &FrontShared, timed: bool) -> Option<(u32, Option<(u32, usize)>)> {
    begin_in(shared, timed, None)
}

#[inline]
pub(crate) fn begin_in(
    shared: &FrontShared,
    timed: bool,
    run: Option<&mut SlotRun>,
) -> Option<(u32, Option<(u32, usize)>)> {
    if !timed {
        return shared.open_generation().map(|generation| (generation, None));
    }
    let claim = match run {
        Some(run) => shared.claim_in(run),
        None => shared.claim(),
    };
    match claim {
        Claim::Closed => None,
        // No set (the pool is exhausted) or a full set: the span is dropped, and counted.
        Claim::NoSet { generation } | Claim::Refused { generation } => {
            shared.count_refused();
            Some((generation, None))
        }
        Claim::Slot { generation, set, slot } => Some((generation, Some((slot, set)))),
    }
}

/// Whether a scope of `kind` can be timed on this session's device.
#[inline]
pub(crate) fn can_time(shared: &FrontShared, kind: GpuPassKind) -> bool {
    shared.setup().is_some_and(|setup| {
        let caps = setup.capabilities;
        caps.timestamps
            && match kind {
                GpuPassKind::Encoder => caps.inside_encoders,
                GpuPassKind::Marker => caps.inside_passes,
                GpuPassKind::Compute | GpuPassKind::Render => true,
            }
    })
}

/// Whether a scope or token opened now records its workload calls.
fn records_workload(shared: &FrontShared, recording: bool) -> bool {
    recording && shared.setup().is_some_and(|setup| setup.level >= Level::Workload)
}

/// Where a scope's or token's explicit workload calls go: its record's lists (a scope's
/// record sits in its tree, so a call moves nothing), and the pipeline of the commands
/// that follow.
struct Workload<'w> {
    pipelines: &'w mut Few<PipelineRef>,
    commands: &'w mut Few<FrontCommand>,
    current: &'w mut Option<usize>,
}

impl Workload<'_> {
    #[inline]
    fn push(self, op: Op) {
        self.commands.push(FrontCommand { pipeline: *self.current, op });
    }

    /// Sets the pipeline of the commands that follow; `pipeline` is made only when the
    /// workload is recorded (a clone of a wgpu handle is an atomic, contended when threads
    /// share the pipeline).
    #[inline]
    fn pipeline(self, pipeline: impl FnOnce() -> PipelineRef) {
        self.pipelines.push(pipeline());
        *self.current = Some(self.pipelines.len() - 1);
    }

    fn dispatch(self, x: u32, y: u32, z: u32) {
        self.push(Op::Dispatch { x, y, z });
    }

    fn draw(self, vertices: Range<u32>, instances: Range<u32>) {
        self.push(Op::Draw {
            vertices: vertices.len() as u32,
            instances: instances.len() as u32,
            first_vertex: vertices.start,
            first_instance: instances.start,
        });
    }

    fn draw_indexed(self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
        self.push(Op::DrawIndexed {
            indices: indices.len() as u32,
            instances: instances.len() as u32,
            first_index: indices.start,
            base_vertex,
            first_instance: instances.start,
        });
    }
}

/// The workload calls of encoder scopes and tokens: the caller's pass is not a wrapper
/// of ours, so what it encodes is recorded only when told. These calls record; they
/// encode nothing (there is no pass here to encode on).
macro_rules! workload_calls {
    () => {
        /// Records a dispatch of `x * y * z` workgroups (the caller encodes it).
        pub fn dispatch(&mut self, x: u32, y: u32, z: u32) {
            if let Some(workload) = self.workload() {
                workload.dispatch(x, y, z);
            }
        }

        /// Records a draw (the caller encodes it).
        pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
            if let Some(workload) = self.workload() {
                workload.draw(vertices, instances);
            }
        }

        /// Records an indexed draw (the caller encodes it).
        pub fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
            if let Some(workload) = self.workload() {
                workload.draw_indexed(indices, base_vertex, instances);
            }
        }

        /// Sets the pipeline of the commands recorded next, by identity (name it with
        /// [`crate::ProfileSession::describe_compute_pipeline`]).
        pub fn compute_pipeline(&mut self, pipeline: &wgpu::ComputePipeline) {
            if let Some(workload) = self.workload() {
                workload.pipeline(|| PipelineRef::Compute(pipeline.clone()));
            }
        }

        /// Sets the pipeline of the commands recorded next, by identity (name it with
        /// [`crate::ProfileSession::describe_render_pipeline`]).
        pub fn render_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
            if let Some(workload) = self.workload() {
                workload.pipeline(|| PipelineRef::Render(pipeline.clone()));
            }
        }
    };
}

/// A scope of the [`crate::Recorder`] on an encoder or a pass; ends when dropped. Derefs
/// to its target, so the caller keeps encoding through it. Scopes nest to any depth
/// ([`Scope::scope`]); a scope inside a graph pass's scope is attributed to that graph
/// pass.
#[must_use = "the scope ends when it is dropped"]
pub struct Scope<'a, R: ScopeTarget> {
    shared: &'a Arc<FrontShared>,
    target: Target<'a, R>,
    encoder: EncoderKey,
    /// Its record's index in the tree's records; `None`: no frame was open, nothing is
    /// recorded.
    at: Option<usize>,
    /// The end query to write when the scope ends, and its timer set.
    end_query: Option<(u32, usize)>,
    debug_group: bool,
    /// Whether its workload calls are recorded (level Workload and up).
    workload: bool,
    /// The pipeline of the commands recorded next: an index into its record's pipelines.
    current: Option<usize>,
    tree: TreeRef<'a>,
}

/// A [`Scope`] on a command encoder.
pub type EncoderScope<'a> = Scope<'a, wgpu::CommandEncoder>;

impl<R: ScopeTarget> std::fmt::Debug for Scope<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("label", &self.record().map(|record| record.label.as_str()))
            .field("timed", &self.is_timed())
            .finish_non_exhaustive()
    }
}

impl<'a, R: ScopeTarget> Scope<'a, R> {
    /// Opens an outermost scope on `target`: timestamps written on it where the device can.
    /// `graph_pass` is asked for only when a frame is open, so that a scope with none open
    /// allocates nothing (a graph pass named by a string becomes an `Arc` there).
    pub(crate) fn open(
        shared: &'a Arc<FrontShared>,
        name: &str,
        target: Target<'a, R>,
        encoder: EncoderKey,
        parent: Option<u64>,
        graph_pass: impl FnOnce() -> Option<GraphRef>,
    ) -> Self {
        let up = move |_: &Tree, _| (parent, graph_pass());
        Self::open_in(shared, name, target, encoder, up, TreeRef::Own(Tree::default()))
    }

    /// Opens a scope of `tree`; `up` gives its parent's id and its graph pass, given the
    /// tree and the frame it is made in.
    fn open_in(
        shared: &'a Arc<FrontShared>,
        name: &str,
        mut target: Target<'a, R>,
        encoder: EncoderKey,
        up: impl FnOnce(&Tree, u32) -> (Option<u64>, Option<GraphRef>),
        mut tree: TreeRef<'a>,
    ) -> Self {
        let tree_mut = tree.get_mut();
        let Some((generation, slot)) = begin_in(shared, can_time(shared, R::KIND), Some(&mut tree_mut.run)) else {
            return Self::inert(shared, target, encoder);
        };
        let (parent, graph_pass) = up(tree_mut, generation);
        let id = tree_mut.next_id(shared);
        let (at, record) = tree_mut.push(shared);
        let (kind, label, slot_at) = (R::KIND, name, slot.map(|(s, _)| s));
        record.fill(RecordHead { id, generation, encoder, kind, label, graph_pass, parent, slot: slot_at });
        let target_mut = target.get_mut();
        target_mut.push_debug_group(name);
        let mut end_query = None;
        if let Some((slot, set)) = slot
            && let Some(query_set) = shared.query_set(set)
        {
            target_mut.write_timestamp(query_set, slot * 2);
            end_query = Some((slot * 2 + 1, set));
        }
        Self {
            shared,
            target,
            encoder,
            at: Some(at),
            end_query,
            debug_group: true,
            workload: records_workload(shared, true),
            current: None,
            tree,
        }
    }

    fn inert(shared: &'a Arc<FrontShared>, target: Target<'a, R>, encoder: EncoderKey) -> Self {
        Self {
            shared,
            target,
            encoder,
            at: None,
            end_query: None,
            debug_group: false,
            workload: false,
            current: None,
            tree: TreeRef::Own(Tree::default()),
        }
    }

    /// Its record, while recording.
    fn record(&self) -> Option<&ScopeRecord> {
        self.at.map(|at| &self.tree.get().records[at])
    }

    /// Where its workload calls go, when they are recorded.
    #[inline]
    fn workload(&mut self) -> Option<Workload<'_>> {
        let at = self.at.filter(|_| self.workload)?;
        let workload = self.tree.get_mut().records.workload_mut(at);
        Some(Workload {
            pipelines: &mut workload.pipelines,
            commands: &mut workload.commands,
            current: &mut self.current,
        })
    }

    /// Its record's id and graph pass, for a pass token nested in it.
    fn parent_place(&self) -> Option<(u64, Option<GraphRef>)> {
        let at = self.at?;
        let tree = self.tree.get();
        Some((tree.records[at].id, tree.graph_pass(at)))
    }

    /// Whether this scope is recorded (a frame was open when it began).
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.at.is_some()
    }

    /// Whether this scope has a span (its begin timestamp was written).
    #[must_use]
    pub fn is_timed(&self) -> bool {
        self.record().is_some_and(|record| record.slot.is_some())
    }

    /// Opens a scope nested in this one, on the same target.
    pub fn scope(&mut self, name: &str) -> Scope<'_, R> {
        // Nested in a recorded scope, it is of that scope's tree; otherwise it is an outermost
        // scope of its own.
        let target = Target::Borrowed(self.target.get_mut());
        match self.at {
            Some(at) => {
                let up = move |tree: &Tree, generation| tree.nested_in(at, generation);
                Scope::open_in(self.shared, name, target, self.encoder, up, TreeRef::Borrowed(self.tree.get_mut()))
            }
            None => Scope::open(self.shared, name, target, self.encoder, None, || None),
        }
    }

    /// Ends the scope (same as dropping it).
    pub fn end(self) {}

    /// Sets the pipeline of the commands recorded next, declared by `label` (once per
    /// label) with its workgroup size, if known (`None`: unknown, never zero). Records
    /// only: wgpu needs the pipeline object to encode.
    pub fn pipeline(&mut self, label: &str, workgroup_size: Option<[u32; 3]>) {
        if let Some(workload) = self.workload() {
            workload.pipeline(|| PipelineRef::named(label, workgroup_size));
        }
    }
}

/// On a compute pass the scope holds, a workload call records the command and encodes it.
impl Scope<'_, wgpu::ComputePass<'_>> {
    /// Sets `pipeline` on the pass and records it for the commands that follow (name it
    /// with [`crate::ProfileSession::describe_compute_pipeline`]).
    #[inline]
    pub fn compute_pipeline(&mut self, pipeline: &wgpu::ComputePipeline) {
        if let Some(workload) = self.workload() {
            workload.pipeline(|| PipelineRef::Compute(pipeline.clone()));
        }
        self.target.get_mut().set_pipeline(pipeline);
    }

    /// Dispatches `x * y * z` workgroups on the pass and records the dispatch. (A
    /// `dispatch_workgroups` through the deref is encoded and not recorded.)
    #[inline]
    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        if let Some(workload) = self.workload() {
            workload.dispatch(x, y, z);
        }
        self.target.get_mut().dispatch_workgroups(x, y, z);
    }
}

/// On a render pass the scope holds, a workload call records the command and encodes it.
impl Scope<'_, wgpu::RenderPass<'_>> {
    /// Sets `pipeline` on the pass and records it for the commands that follow (name it
    /// with [`crate::ProfileSession::describe_render_pipeline`]).
    #[inline]
    pub fn render_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
        if let Some(workload) = self.workload() {
            workload.pipeline(|| PipelineRef::Render(pipeline.clone()));
        }
        self.target.get_mut().set_pipeline(pipeline);
    }

    /// Draws on the pass and records the draw. (A draw through the deref is encoded and
    /// not recorded.)
    #[inline]
    pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        if let Some(workload) = self.workload() {
            workload.draw(vertices.clone(), instances.clone());
        }
        self.target.get_mut().draw(vertices, instances);
    }

    /// Draws indexed on the pass and records the draw.
    #[inline]
    pub fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
        if let Some(workload) = self.workload() {
            workload.draw_indexed(indices.clone(), base_vertex, instances.clone());
        }
        self.target.get_mut().draw_indexed(indices, base_vertex, instances);
    }
}

impl<'a> Scope<'a, wgpu::CommandEncoder> {
    /// Claims and records a GPU pass of `kind` nested in this scope, in its tree: the
    /// record's index there, and the pass's slot and timer set when it is timed.
    fn nested_pass(&mut self, kind: GpuPassKind, label: &str) -> (Option<usize>, Option<(u32, usize)>) {
        let Some(up) = self.at else { return (None, None) };
        let shared = self.shared;
        let tree = self.tree.get_mut();
        let Some((generation, slot)) = begin_in(shared, can_time(shared, kind), Some(&mut tree.run)) else {
            return (None, None);
        };
        let (parent, graph_pass) = tree.nested_in(up, generation);
        let id = tree.next_id(shared);
        let (at, record) = tree.push(shared);
        let (encoder, slot_at) = (self.encoder, slot.map(|(s, _)| s));
        record.fill(RecordHead { id, generation, encoder, kind, label, graph_pass, parent, slot: slot_at });
        (Some(at), slot)
    }

    /// The scope of the pass `begin` begins, begun by a scope with `tree` on `encoder`: of
    /// that tree when recorded (`at`). Inlined into the scoped passes, as they are into
    /// their callers. `begin` runs before the tree reference is made, and after every other
    /// call: with nothing of the scope to drop should it unwind, the compiler writes wgpu's
    /// pass (432 bytes for a compute pass) straight into the scope. Made the other way
    /// round, the pass was copied in once or twice (76 instructions each under callgrind).
    #[inline(always)]
    fn pass_scope<'s, P: ScopeTarget>(
        shared: &'s Arc<FrontShared>,
        encoder: EncoderKey,
        tree: &'s mut TreeRef<'_>,
        begin: impl FnOnce() -> P,
        at: Option<usize>,
    ) -> Scope<'s, P> {
        let workload = records_workload(shared, at.is_some());
        let target = Target::Owned(begin());
        let tree = match at {
            Some(_) => TreeRef::Borrowed(tree.get_mut()),
            None => TreeRef::Own(Tree::default()),
        };
        Scope { shared, target, encoder, at, end_query: None, debug_group: false, workload, current: None, tree }
    }

    /// Begins a compute pass timed by its own timestamp writes, nested in this scope;
    /// the returned scope owns the pass and ends it when dropped.
    #[inline]
    pub fn scoped_compute_pass(&mut self, label: &str) -> Scope<'_, wgpu::ComputePass<'_>> {
        let (at, slot) = self.nested_pass(GpuPassKind::Compute, label);
        let shared = self.shared;
        let writes = slot.and_then(|(slot, set)| {
            Some(wgpu::ComputePassTimestampWrites {
                query_set: shared.query_set(set)?,
                beginning_of_pass_write_index: Some(slot * 2),
                end_of_pass_write_index: Some(slot * 2 + 1),
            })
        });
        let target = self.target.get_mut();
        let begin =
            || target.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: writes });
        Self::pass_scope(shared, self.encoder, &mut self.tree, begin, at)
    }

    /// Begins a render pass from `desc`, timed by timestamp writes of ours (any in `desc`
    /// are replaced), nested in this scope; the returned scope owns the pass.
    #[inline]
    pub fn scoped_render_pass(
        &mut self,
        label: &str,
        desc: &wgpu::RenderPassDescriptor<'_>,
    ) -> Scope<'_, wgpu::RenderPass<'_>> {
        let (at, slot) = self.nested_pass(GpuPassKind::Render, label);
        let shared = self.shared;
        if let Some(at) = at
            && shared.setup().is_some_and(|setup| setup.level >= Level::Workload)
        {
            self.tree.get_mut().records.workload_mut(at).attachments = attachments_of(desc);
        }
        let writes = slot.and_then(|(slot, set)| {
            Some(wgpu::RenderPassTimestampWrites {
                query_set: shared.query_set(set)?,
                beginning_of_pass_write_index: Some(slot * 2),
                end_of_pass_write_index: Some(slot * 2 + 1),
            })
        });
        let desc = wgpu::RenderPassDescriptor { label: Some(label), timestamp_writes: writes, ..desc.clone() };
        let target = self.target.get_mut();
        Self::pass_scope(shared, self.encoder, &mut self.tree, || target.begin_render_pass(&desc), at)
    }

    /// Timestamp writes for a compute pass the caller begins itself on this scope's
    /// encoder, nested in (and attributed as) this scope. See
    /// [`crate::Recorder::compute_pass_timestamp_writes`]. The writes borrow the session,
    /// not the scope, so the pass can be begun on the scope's encoder.
    pub fn compute_pass_timestamp_writes(
        &self,
        label: &str,
    ) -> (Option<wgpu::ComputePassTimestampWrites<'a>>, PassToken) {
        let token = self.token(GpuPassKind::Compute, label);
        (token.compute_writes(self.shared), token)
    }

    /// Timestamp writes for a render pass the caller begins itself on this scope's
    /// encoder (see [`Self::compute_pass_timestamp_writes`]).
    pub fn render_pass_timestamp_writes(
        &self,
        label: &str,
    ) -> (Option<wgpu::RenderPassTimestampWrites<'a>>, PassToken) {
        let token = self.token(GpuPassKind::Render, label);
        (token.render_writes(self.shared), token)
    }

    workload_calls!();

    fn token(&self, kind: GpuPassKind, label: &str) -> PassToken {
        let (parent, graph_pass) = self.parent_place().unzip();
        // Of the tree's ids, so that it keeps its place among the tree's records.
        let id = || self.tree.get().next_id(self.shared);
        PassToken::new(self.shared, kind, label, self.encoder, parent, graph_pass.flatten(), id)
    }
}

impl Tree {
    /// The id of the tree's next record (or of a pass token made from one of its scopes).
    #[inline]
    fn next_id(&self, shared: &FrontShared) -> u64 {
        let mut run = self.ids.get();
        let id = shared.id_in(&mut run);
        self.ids.set(run);
        id
    }

    /// Adds a blank record to the tree, to be filled in where it lies: its index, and the
    /// record. The outermost scope's record takes a spare buffer, so a steady frame
    /// allocates none.
    #[inline(always)]
    fn push(&mut self, shared: &FrontShared) -> (usize, &mut ScopeRecord) {
        if self.records.capacity() == 0 {
            self.records = shared.spare_records();
        }
        self.records.push_blank()
    }

    /// The parent id and graph pass of a record nested in record `up`, made in frame
    /// `generation`. Of the parent's frame, it takes the parent's graph pass at the merge,
    /// where the parent is merged first: no `Arc` is cloned for each nested pass.
    fn nested_in(&self, up: usize, generation: u32) -> (Option<u64>, Option<GraphRef>) {
        let parent = &self.records[up];
        let graph_pass = if parent.generation == generation { Some(GraphRef::Parent) } else { self.graph_pass(up) };
        (Some(parent.id), graph_pass)
    }

    /// Record `at`'s graph pass, named: for a record the merge will not find its parent
    /// with (of another frame, or handed over apart).
    fn graph_pass(&self, mut at: usize) -> Option<GraphRef> {
        loop {
            let record = &self.records[at];
            match &record.graph_pass {
                Some(GraphRef::Parent) => {
                    // Its parent is in the tree, before it.
                    let parent = record.parent?;
                    at = self.records[..at].iter().rposition(|record| record.id == parent)?;
                }
                other => return other.clone(),
            }
        }
    }
}

impl<R: ScopeTarget> Deref for Scope<'_, R> {
    type Target = R;

    fn deref(&self) -> &R {
        self.target.get()
    }
}

impl<R: ScopeTarget> DerefMut for Scope<'_, R> {
    fn deref_mut(&mut self) -> &mut R {
        self.target.get_mut()
    }
}

impl<R: ScopeTarget> Drop for Scope<'_, R> {
    fn drop(&mut self) {
        if self.at.take().is_none() {
            return;
        }
        let target = self.target.get_mut();
        if let Some((query, set)) = self.end_query
            && let Some(query_set) = self.shared.query_set(set)
        {
            target.write_timestamp(query_set, query);
        }
        if self.debug_group {
            target.pop_debug_group();
        }
        // The outermost scope hands its tree over. An owned pass ends after this, when the
        // field drops: still before any resolve of its encoder, which it borrows.
        if let TreeRef::Own(tree) = &mut self.tree {
            self.shared.hand_over_all(&mut tree.records, &tree.run);
        }
    }
}

/// One GPU pass the caller begins itself with timestamp writes from the
/// [`crate::Recorder`]: it records the pass (its record is in the frame from the start,
/// so a resolve while the token lives still covers the pass), its explicit workload
/// calls (handed over when it drops), and scopes inside the pass ([`PassToken::scope`]).
///
/// `Send`, `'static`: it can go wherever the pass goes.
pub struct PassToken {
    shared: Arc<FrontShared>,
    /// `None`: not recorded (no frame open).
    id: Option<u64>,
    generation: u32,
    encoder: EncoderKey,
    graph_pass: Option<GraphRef>,
    slot: Option<(u32, usize)>,
    /// Whether its workload calls are recorded (level Workload and up).
    workload: bool,
    current: Option<usize>,
    /// Its workload calls, handed over when it drops.
    pipelines: Few<PipelineRef>,
    commands: Few<FrontCommand>,
}

impl std::fmt::Debug for PassToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassToken").field("recording", &self.id.is_some()).field("timed", &self.slot.is_some()).finish()
    }
}

impl PassToken {
    pub(crate) fn new(
        shared: &Arc<FrontShared>,
        kind: GpuPassKind,
        label: &str,
        encoder: EncoderKey,
        parent: Option<u64>,
        graph_pass: Option<GraphRef>,
        id: impl FnOnce() -> u64,
    ) -> Self {
        let claim = begin(shared, can_time(shared, kind));
        let mut token = Self {
            shared: Arc::clone(shared),
            id: None,
            generation: 0,
            encoder,
            graph_pass: graph_pass.clone(),
            slot: None,
            workload: records_workload(shared, claim.is_some()),
            current: None,
            pipelines: Few::new(),
            commands: Few::new(),
        };
        if let Some((generation, slot)) = claim {
            let mut record = ScopeRecord::blank();
            let (id, slot_at) = (id(), slot.map(|(s, _)| s));
            record.fill(RecordHead { id, generation, encoder, kind, label, graph_pass, parent, slot: slot_at });
            record.token = true;
            token.id = Some(record.id);
            token.generation = generation;
            token.slot = slot;
            shared.hand_over(record);
        }
        token
    }

    pub(crate) fn compute_writes<'q>(&self, shared: &'q FrontShared) -> Option<wgpu::ComputePassTimestampWrites<'q>> {
        let (slot, set) = self.slot?;
        Some(wgpu::ComputePassTimestampWrites {
            query_set: shared.query_set(set)?,
            beginning_of_pass_write_index: Some(slot * 2),
            end_of_pass_write_index: Some(slot * 2 + 1),
        })
    }

    pub(crate) fn render_writes<'q>(&self, shared: &'q FrontShared) -> Option<wgpu::RenderPassTimestampWrites<'q>> {
        let (slot, set) = self.slot?;
        Some(wgpu::RenderPassTimestampWrites {
            query_set: shared.query_set(set)?,
            beginning_of_pass_write_index: Some(slot * 2),
            end_of_pass_write_index: Some(slot * 2 + 1),
        })
    }

    /// Whether the pass is recorded (a frame was open).
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.id.is_some()
    }

    /// Whether the pass has a span: its descriptor got timestamp writes.
    #[must_use]
    pub fn is_timed(&self) -> bool {
        self.slot.is_some()
    }

    /// Opens a scope inside the pass, nested in it (a region timed inside the pass where
    /// the device has `TIMESTAMP_QUERY_INSIDE_PASSES`).
    pub fn scope<'a, P: PassTarget>(&'a self, name: &str, pass: &'a mut P) -> Scope<'a, P> {
        if self.id.is_none() {
            return Scope::inert(&self.shared, Target::Borrowed(pass), self.encoder);
        }
        Scope::open(&self.shared, name, Target::Borrowed(pass), self.encoder, self.id, || self.graph_pass.clone())
    }

    /// Ends the token (same as dropping it).
    pub fn end(self) {}

    /// Sets the pipeline of the commands recorded next, declared by `label` (once per
    /// label) with its workgroup size, if known (`None`: unknown, never zero).
    pub fn pipeline(&mut self, label: &str, workgroup_size: Option<[u32; 3]>) {
        if let Some(workload) = self.workload() {
            workload.pipeline(|| PipelineRef::named(label, workgroup_size));
        }
    }

    /// Where its workload calls go, when they are recorded.
    #[inline]
    fn workload(&mut self) -> Option<Workload<'_>> {
        self.workload.then_some(Workload {
            pipelines: &mut self.pipelines,
            commands: &mut self.commands,
            current: &mut self.current,
        })
    }

    workload_calls!();
}

impl Drop for PassToken {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if !self.commands.is_empty() || !self.pipelines.is_empty() {
            self.shared.hand_over_late(LateCommands {
                id,
                generation: self.generation,
                pipelines: std::mem::take(&mut self.pipelines),
                commands: std::mem::take(&mut self.commands),
            });
        }
    }
}
