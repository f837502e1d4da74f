//! The front's scopes (on an encoder, on a pass) and the pass token of a pass the caller
//! begins itself.

use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

use sgpt_format::{GpuPassKind, Level, Op};

use super::shared::{
    Claim, Few, FrontCommand, FrontShared, GraphRef, Label, LateCommands, LocalRanges, PipelineRef, ScopeRecord,
    SlotRun, attachments_of,
};
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

/// Where a scope's tree claims its slots: its outermost scope owns the run.
enum Run<'a> {
    Own(SlotRun),
    Borrowed(&'a mut SlotRun),
}

impl Run<'_> {
    fn get(&mut self) -> &mut SlotRun {
        match self {
            Run::Own(run) => run,
            Run::Borrowed(run) => run,
        }
    }
}

/// Claims what a new scope needs: `None` when no frame is open, else the frame's
/// generation and, when `timed` and a slot was free, the slot and its timer set (from
/// `run` when the scope belongs to a tree). A timed claim that gets no slot is counted as
/// a dropped span.
#[inline]
pub(crate) fn begin(shared: &FrontShared, timed: bool) -> Option<(u32, Option<(u32, usize)>)> {
    begin_in(shared, timed, None)
}

#[inline]
fn begin_in(shared: &FrontShared, timed: bool, run: Option<&mut SlotRun>) -> Option<(u32, Option<(u32, usize)>)> {
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

/// The workload a scope or token records through its explicit calls.
#[derive(Debug, Default)]
struct Ops {
    enabled: bool,
    pipelines: Few<PipelineRef>,
    commands: Few<FrontCommand>,
    current: Option<usize>,
}

impl Ops {
    fn new(shared: &FrontShared, recording: bool) -> Self {
        let enabled = recording && shared.setup().is_some_and(|setup| setup.level >= Level::Workload);
        Self { enabled, ..Self::default() }
    }

    #[inline]
    fn push(&mut self, op: Op) {
        if self.enabled {
            self.commands.push(FrontCommand { pipeline: self.current, op });
        }
    }

    /// Sets the pipeline of the commands that follow; `pipeline` is made only when the
    /// workload is recorded (a clone of a wgpu handle is an atomic, contended when threads
    /// share the pipeline).
    #[inline]
    fn pipeline(&mut self, pipeline: impl FnOnce() -> PipelineRef) {
        if self.enabled {
            self.pipelines.push(pipeline());
            self.current = Some(self.pipelines.len() - 1);
        }
    }

    fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        self.push(Op::Dispatch { x, y, z });
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        self.push(Op::Draw {
            vertices: vertices.len() as u32,
            instances: instances.len() as u32,
            first_vertex: vertices.start,
            first_instance: instances.start,
        });
    }

    fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
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
            self.ops.dispatch(x, y, z);
        }

        /// Records a draw (the caller encodes it).
        pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
            self.ops.draw(vertices, instances);
        }

        /// Records an indexed draw (the caller encodes it).
        pub fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
            self.ops.draw_indexed(indices, base_vertex, instances);
        }

        /// Sets the pipeline of the commands recorded next, by identity (name it with
        /// [`crate::ProfileSession::describe_compute_pipeline`]).
        pub fn compute_pipeline(&mut self, pipeline: &wgpu::ComputePipeline) {
            self.ops.pipeline(|| PipelineRef::Compute(pipeline.clone()));
        }

        /// Sets the pipeline of the commands recorded next, by identity (name it with
        /// [`crate::ProfileSession::describe_render_pipeline`]).
        pub fn render_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
            self.ops.pipeline(|| PipelineRef::Render(pipeline.clone()));
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
    /// `None`: no frame was open, nothing is recorded.
    record: Option<ScopeRecord>,
    /// The end query to write when the scope ends, and its timer set.
    end_query: Option<(u32, usize)>,
    debug_group: bool,
    ops: Ops,
    /// The enclosing scope's `children`: a nested scope's record waits there, so a tree
    /// of scopes is handed over under one lock when its outermost scope ends (no resolve
    /// can run before: the outermost scope borrows the encoder or its pass).
    up: Option<&'a mut Vec<ScopeRecord>>,
    /// Records of the scopes nested in this one, ended already.
    children: Vec<ScopeRecord>,
    /// The tree's slots: owned by an outermost scope (`up` is `None`), borrowed by the
    /// scopes nested in it.
    run: Run<'a>,
}

/// A [`Scope`] on a command encoder.
pub type EncoderScope<'a> = Scope<'a, wgpu::CommandEncoder>;

impl<R: ScopeTarget> std::fmt::Debug for Scope<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("label", &self.record.as_ref().map(|record| record.label.as_str()))
            .field("timed", &self.record.as_ref().is_some_and(|record| record.slot.is_some()))
            .finish_non_exhaustive()
    }
}

/// Where a record sits: its frame, its encoder, what encloses it.
struct Place {
    generation: u32,
    encoder: EncoderKey,
    parent: Option<u64>,
    graph_pass: Option<GraphRef>,
}

fn new_record(
    shared: &FrontShared,
    place: Place,
    kind: GpuPassKind,
    label: &str,
    slot: Option<u32>,
    token: bool,
) -> ScopeRecord {
    let Place { generation, encoder, parent, graph_pass } = place;
    ScopeRecord {
        id: shared.next_id(),
        generation,
        encoder,
        kind,
        label: Label::new(label),
        graph_pass,
        parent,
        slot,
        pipelines: Few::default(),
        commands: Few::default(),
        local: LocalRanges::default(),
        attachments: Few::default(),
        resolved: None,
        token,
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
        Self::open_in(shared, name, target, encoder, parent, graph_pass, Run::Own(SlotRun::default()))
    }

    /// Opens a scope of the tree whose slots are `run`.
    fn open_in(
        shared: &'a Arc<FrontShared>,
        name: &str,
        mut target: Target<'a, R>,
        encoder: EncoderKey,
        parent: Option<u64>,
        graph_pass: impl FnOnce() -> Option<GraphRef>,
        mut run: Run<'a>,
    ) -> Self {
        let Some((generation, slot)) = begin_in(shared, can_time(shared, R::KIND), Some(run.get())) else {
            return Self::inert(shared, target, encoder);
        };
        let record = new_record(
            shared,
            Place { generation, encoder, parent, graph_pass: graph_pass() },
            R::KIND,
            name,
            slot.map(|(s, _)| s),
            false,
        );
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
            record: Some(record),
            end_query,
            debug_group: true,
            ops: Ops::new(shared, true),
            up: None,
            children: Vec::new(),
            run,
        }
    }

    fn inert(shared: &'a Arc<FrontShared>, target: Target<'a, R>, encoder: EncoderKey) -> Self {
        Self {
            shared,
            target,
            encoder,
            record: None,
            end_query: None,
            debug_group: false,
            ops: Ops::default(),
            up: None,
            children: Vec::new(),
            run: Run::Own(SlotRun::default()),
        }
    }

    /// Whether this scope is recorded (a frame was open when it began).
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.record.is_some()
    }

    /// Whether this scope has a span (its begin timestamp was written).
    #[must_use]
    pub fn is_timed(&self) -> bool {
        self.record.as_ref().is_some_and(|record| record.slot.is_some())
    }

    /// Opens a scope nested in this one, on the same target.
    pub fn scope(&mut self, name: &str) -> Scope<'_, R> {
        let parent = self.record.as_ref().map(|record| record.id);
        let graph_pass = self.record.as_ref().and_then(|record| record.graph_pass.clone());
        let up = parent.map(|_| &mut self.children);
        // Nested in a recorded scope, it claims from that tree's run and is handed over with
        // it; otherwise it is an outermost scope of its own.
        let run = match parent {
            Some(_) => Run::Borrowed(self.run.get()),
            None => Run::Own(SlotRun::default()),
        };
        let target = Target::Borrowed(self.target.get_mut());
        let mut scope = Scope::open_in(self.shared, name, target, self.encoder, parent, move || graph_pass, run);
        scope.up = up;
        scope
    }

    /// Ends the scope (same as dropping it).
    pub fn end(self) {}

    /// Sets the pipeline of the commands recorded next, declared by `label` (once per
    /// label) with its workgroup size, if known (`None`: unknown, never zero). Records
    /// only: wgpu needs the pipeline object to encode.
    pub fn pipeline(&mut self, label: &str, workgroup_size: Option<[u32; 3]>) {
        self.ops.pipeline(|| PipelineRef::Named { label: label.to_owned(), workgroup_size });
    }
}

/// On a compute pass the scope holds, a workload call records the command and encodes it.
impl Scope<'_, wgpu::ComputePass<'_>> {
    /// Sets `pipeline` on the pass and records it for the commands that follow (name it
    /// with [`crate::ProfileSession::describe_compute_pipeline`]).
    pub fn compute_pipeline(&mut self, pipeline: &wgpu::ComputePipeline) {
        self.ops.pipeline(|| PipelineRef::Compute(pipeline.clone()));
        self.target.get_mut().set_pipeline(pipeline);
    }

    /// Dispatches `x * y * z` workgroups on the pass and records the dispatch. (A
    /// `dispatch_workgroups` through the deref is encoded and not recorded.)
    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        self.ops.dispatch(x, y, z);
        self.target.get_mut().dispatch_workgroups(x, y, z);
    }
}

/// On a render pass the scope holds, a workload call records the command and encodes it.
impl Scope<'_, wgpu::RenderPass<'_>> {
    /// Sets `pipeline` on the pass and records it for the commands that follow (name it
    /// with [`crate::ProfileSession::describe_render_pipeline`]).
    pub fn render_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
        self.ops.pipeline(|| PipelineRef::Render(pipeline.clone()));
        self.target.get_mut().set_pipeline(pipeline);
    }

    /// Draws on the pass and records the draw. (A draw through the deref is encoded and
    /// not recorded.)
    pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        self.ops.draw(vertices.clone(), instances.clone());
        self.target.get_mut().draw(vertices, instances);
    }

    /// Draws indexed on the pass and records the draw.
    pub fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
        self.ops.draw_indexed(indices.clone(), base_vertex, instances.clone());
        self.target.get_mut().draw_indexed(indices, base_vertex, instances);
    }
}

impl Scope<'_, wgpu::CommandEncoder> {
    fn claim_pass(&mut self) -> Option<(u32, Option<(u32, usize)>)> {
        self.record.as_ref()?;
        begin_in(self.shared, can_time(self.shared, GpuPassKind::Compute), Some(self.run.get()))
    }

    fn pass_record(
        &self,
        kind: GpuPassKind,
        label: &str,
        claim: Option<(u32, Option<(u32, usize)>)>,
    ) -> Option<ScopeRecord> {
        let (generation, slot) = claim?;
        let parent = self.record.as_ref().map(|record| record.id);
        let graph_pass = self.record.as_ref().and_then(|record| record.graph_pass.clone());
        let place = Place { generation, encoder: self.encoder, parent, graph_pass };
        Some(new_record(self.shared, place, kind, label, slot.map(|(s, _)| s), false))
    }

    /// Begins a compute pass timed by its own timestamp writes, nested in this scope;
    /// the returned scope owns the pass and ends it when dropped.
    pub fn scoped_compute_pass(&mut self, label: &str) -> Scope<'_, wgpu::ComputePass<'_>> {
        let claim = self.claim_pass();
        let record = self.pass_record(GpuPassKind::Compute, label, claim);
        let writes = claim.and_then(|(_, slot)| slot).and_then(|(slot, set)| {
            Some(wgpu::ComputePassTimestampWrites {
                query_set: self.shared.query_set(set)?,
                beginning_of_pass_write_index: Some(slot * 2),
                end_of_pass_write_index: Some(slot * 2 + 1),
            })
        });
        let shared = self.shared;
        let encoder = self.encoder;
        let recording = record.is_some();
        let up = recording.then_some(&mut self.children);
        // A recording pass is this tree's; its nested scopes claim from the tree's run.
        let run = if recording { Run::Borrowed(self.run.get()) } else { Run::Own(SlotRun::default()) };
        let pass = self
            .target
            .get_mut()
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: writes });
        Scope {
            shared,
            target: Target::Owned(pass),
            encoder,
            record,
            end_query: None,
            debug_group: false,
            ops: Ops::new(shared, recording),
            up,
            children: Vec::new(),
            run,
        }
    }

    /// Begins a render pass from `desc`, timed by timestamp writes of ours (any in `desc`
    /// are replaced), nested in this scope; the returned scope owns the pass.
    pub fn scoped_render_pass(
        &mut self,
        label: &str,
        desc: &wgpu::RenderPassDescriptor<'_>,
    ) -> Scope<'_, wgpu::RenderPass<'_>> {
        let claim = self.claim_pass();
        let mut record = self.pass_record(GpuPassKind::Render, label, claim);
        if let Some(record) = record.as_mut()
            && self.shared.setup().is_some_and(|setup| setup.level >= Level::Workload)
        {
            record.attachments = attachments_of(desc);
        }
        let writes = claim.and_then(|(_, slot)| slot).and_then(|(slot, set)| {
            Some(wgpu::RenderPassTimestampWrites {
                query_set: self.shared.query_set(set)?,
                beginning_of_pass_write_index: Some(slot * 2),
                end_of_pass_write_index: Some(slot * 2 + 1),
            })
        });
        let shared = self.shared;
        let encoder = self.encoder;
        let recording = record.is_some();
        let up = recording.then_some(&mut self.children);
        // A recording pass is this tree's; its nested scopes claim from the tree's run.
        let run = if recording { Run::Borrowed(self.run.get()) } else { Run::Own(SlotRun::default()) };
        let desc = wgpu::RenderPassDescriptor { label: Some(label), timestamp_writes: writes, ..desc.clone() };
        let pass = self.target.get_mut().begin_render_pass(&desc);
        Scope {
            shared,
            target: Target::Owned(pass),
            encoder,
            record,
            end_query: None,
            debug_group: false,
            ops: Ops::new(shared, recording),
            up,
            children: Vec::new(),
            run,
        }
    }

    /// Timestamp writes for a compute pass the caller begins itself on this scope's
    /// encoder, nested in (and attributed as) this scope. See
    /// [`crate::Recorder::compute_pass_timestamp_writes`].
    pub fn compute_pass_timestamp_writes(
        &self,
        label: &str,
    ) -> (Option<wgpu::ComputePassTimestampWrites<'_>>, PassToken) {
        let token = self.token(GpuPassKind::Compute, label);
        (token.compute_writes(self.shared), token)
    }

    /// Timestamp writes for a render pass the caller begins itself on this scope's
    /// encoder (see [`Self::compute_pass_timestamp_writes`]).
    pub fn render_pass_timestamp_writes(
        &self,
        label: &str,
    ) -> (Option<wgpu::RenderPassTimestampWrites<'_>>, PassToken) {
        let token = self.token(GpuPassKind::Render, label);
        (token.render_writes(self.shared), token)
    }

    workload_calls!();

    fn token(&self, kind: GpuPassKind, label: &str) -> PassToken {
        let parent = self.record.as_ref().map(|record| record.id);
        let graph_pass = self.record.as_ref().and_then(|record| record.graph_pass.clone());
        PassToken::new(self.shared, kind, label, self.encoder, parent, graph_pass)
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
        let Some(mut record) = self.record.take() else { return };
        let target = self.target.get_mut();
        if let Some((query, set)) = self.end_query
            && let Some(query_set) = self.shared.query_set(set)
        {
            target.write_timestamp(query_set, query);
        }
        if self.debug_group {
            target.pop_debug_group();
        }
        let ops = std::mem::take(&mut self.ops);
        record.pipelines = ops.pipelines;
        record.commands = ops.commands;
        // An owned pass ends after this, when the field drops: still before any resolve
        // of its encoder, which it borrows.
        match self.up.take() {
            Some(up) => {
                if up.capacity() == 0 {
                    *up = self.shared.spare_records();
                }
                up.push(record);
                up.append(&mut self.children);
                if self.children.capacity() > 0 {
                    // A middle scope's buffer: kept for the next frame's.
                    self.shared.give_spare(std::mem::take(&mut self.children));
                }
            }
            // The outermost scope: its tree's run is its own (`up` is `None` only then).
            None if self.children.is_empty() => self.shared.hand_over_root(record, self.run.get()),
            None => {
                self.children.push(record);
                let run = self.run.get();
                self.shared.hand_over_all(&mut self.children, run);
            }
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
    ops: Ops,
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
    ) -> Self {
        let claim = begin(shared, can_time(shared, kind));
        let mut token = Self {
            shared: Arc::clone(shared),
            id: None,
            generation: 0,
            encoder,
            graph_pass: graph_pass.clone(),
            slot: None,
            ops: Ops::new(shared, claim.is_some()),
        };
        if let Some((generation, slot)) = claim {
            let record = new_record(
                shared,
                Place { generation, encoder, parent, graph_pass },
                kind,
                label,
                slot.map(|(s, _)| s),
                true,
            );
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
        self.ops.pipeline(|| PipelineRef::Named { label: label.to_owned(), workgroup_size });
    }

    workload_calls!();
}

impl Drop for PassToken {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let ops = std::mem::take(&mut self.ops);
        if !ops.commands.is_empty() || !ops.pipelines.is_empty() {
            self.shared.hand_over_late(LateCommands {
                id,
                generation: self.generation,
                pipelines: ops.pipelines,
                commands: ops.commands,
            });
        }
    }
}
