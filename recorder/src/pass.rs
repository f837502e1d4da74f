//! The graph-pass bracket and the profiled pass wrappers.
//!
//! A [`GraphPassScope`] makes every GPU pass begun through it belong to its graph pass:
//! labels are not keys. [`ProfiledComputePass`] and [`ProfiledRenderPass`]
//! deref to wgpu's passes, so no method is ever lost, and shadow the calls a capture
//! counts. With no session every hook is one `None` check: the wrapper is the wgpu pass
//! and an empty `Option`, nothing is allocated and no recording state is built.

use std::ops::{Deref, DerefMut, Range};

use arrayvec::ArrayVec;
use sgpt_format::{GpuPassKind, Indirect, Level, Op};

use crate::ProfileSession;
use crate::encoder_key::{EncoderKey, encoder_key};
use crate::front::{RecordTarget, attachments_of};
use crate::session::{Active, LocalPass};
use crate::timing::{self, Span};

/// Bind group slots a pass tracks for `Verbose` (WebGPU's `maxBindGroups` default is 4).
const GROUPS: usize = 8;
/// Nesting depth of sub-pass markers.
const MARKER_DEPTH: usize = 8;

/// A graph pass's bracket: opened with [`GraphPassScope::begin`], closed on drop.
///
/// While open it pushes a debug group named for the graph pass (RenderDoc, PIX and
/// browser tools show it), attributes the GPU passes begun through it, and times the
/// bracket on the CPU clock. When the timing level is not `off` it also emits the
/// bracket's CPU encode time on the "GPU encode" track, with or without a session.
#[must_use = "the graph pass ends when its scope is dropped"]
pub struct GraphPassScope<'a> {
    encoder: &'a mut wgpu::CommandEncoder,
    active: Option<&'a mut Active>,
    graph_pass: u32,
    /// The encoder's key, taken once: the scope borrows the encoder for its whole life,
    /// so every pass begun through it shares the key (0 when not recording).
    key: EncoderKey,
    begin_ns: u64,
    debug_group: bool,
    /// The end query of the bracket's encoder-level span and its timer set, when the
    /// device times encoders.
    encoder_end_query: Option<(u32, usize)>,
    /// Dropped after `drop` runs, so it covers the whole bracket.
    _cpu_span: Span,
}

impl std::fmt::Debug for GraphPassScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphPassScope")
            .field("graph_pass", &self.graph_pass)
            .field("recording", &self.active.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> GraphPassScope<'a> {
    /// Opens the graph pass named `name`: the first bracket of a name gives it the next
    /// index, and every later bracket of that name gets the same one. For applications
    /// without a frame graph of their own; nothing to number, nothing to get wrong.
    #[track_caller]
    #[inline]
    pub fn named(session: Option<&'a mut ProfileSession>, encoder: &'a mut wgpu::CommandEncoder, name: &str) -> Self {
        let mut session = session;
        let index = recording(session.as_deref_mut()).map_or(0, |active| active.graph_pass_named(name));
        // Looked up by this name, so never refused.
        Self::open(session, encoder, index, name)
    }

    /// Opens graph pass `graph_pass`: its index in the topology handed to
    /// [`ProfileSession::set_graph`], or the [`crate::FrameGraph`]'s pass index.
    ///
    /// Refused with [`crate::RecordError::GraphPassName`] when the session's structure
    /// already names that index otherwise (a reused literal index, say): its passes would
    /// be attributed to the other graph pass.
    #[track_caller]
    #[inline]
    pub fn begin(
        session: Option<&'a mut ProfileSession>,
        encoder: &'a mut wgpu::CommandEncoder,
        graph_pass: u32,
        name: &str,
    ) -> Result<Self, crate::RecordError> {
        let mut session = session;
        if let Some(active) = recording(session.as_deref_mut()) {
            active.check_graph_pass_name(graph_pass, name)?;
        }
        Ok(Self::open(session, encoder, graph_pass, name))
    }

    /// [`Self::begin`] where the caller set the structure itself (the [`crate::FrameGraph`]);
    /// were it refused anyway, the bracket is logged and not recorded.
    #[track_caller]
    pub(crate) fn begin_or_unrecorded(
        session: Option<&'a mut ProfileSession>,
        encoder: &'a mut wgpu::CommandEncoder,
        graph_pass: u32,
        name: &str,
    ) -> Self {
        let mut session = session;
        let refused = recording(session.as_deref_mut()).and_then(|a| a.check_graph_pass_name(graph_pass, name).err());
        if let Some(error) = refused {
            log::error!("sgpt-recorder: {error}");
            session = None;
        }
        Self::open(session, encoder, graph_pass, name)
    }

    #[track_caller]
    #[inline]
    fn open(
        session: Option<&'a mut ProfileSession>,
        encoder: &'a mut wgpu::CommandEncoder,
        graph_pass: u32,
        name: &str,
    ) -> Self {
        // One load of the timing level when off; the name is copied only when on.
        let mut cpu_span = Span::begin_copied(timing::track::GPU_ENCODE, name);
        cpu_span.property("graph pass", f64::from(graph_pass));
        let Some(active) = recording(session) else {
            return Self {
                encoder,
                active: None,
                graph_pass,
                key: 0,
                begin_ns: 0,
                debug_group: false,
                encoder_end_query: None,
                _cpu_span: cpu_span,
            };
        };
        if let Some(open) = active.open_graph_pass() {
            // Graph passes do not nest; the inner one takes over attribution until it ends.
            log::debug!(
                "sgpt-recorder: graph pass {graph_pass} opened inside graph pass {open} at {}",
                std::panic::Location::caller()
            );
        }
        active.enter_graph_pass(graph_pass, name);
        encoder.push_debug_group(name);
        let key = encoder_key(encoder);
        let encoder_end_query = time_on_encoder(active, encoder, key, name);
        let begin_ns = active.now_ns();
        Self {
            encoder,
            active: Some(active),
            graph_pass,
            key,
            begin_ns,
            debug_group: true,
            encoder_end_query,
            _cpu_span: cpu_span,
        }
    }

    /// Timestamp writes for a compute pass the caller begins itself on [`Self::encoder`],
    /// attributed to this graph pass. See [`PassTimer`].
    pub fn time_compute_pass(&mut self, label: &str) -> Option<PassTimer> {
        time_own_pass(self.active.as_deref_mut(), self.encoder, GpuPassKind::Compute, label)
    }

    /// Timestamp writes for a render pass the caller begins itself on [`Self::encoder`],
    /// attributed to this graph pass. See [`PassTimer`].
    pub fn time_render_pass(&mut self, label: &str) -> Option<PassTimer> {
        time_own_pass(self.active.as_deref_mut(), self.encoder, GpuPassKind::Render, label)
    }

    /// The command encoder, for copies and clears inside the graph pass.
    pub fn encoder(&mut self) -> &mut wgpu::CommandEncoder {
        self.encoder
    }

    /// Whether a session records this bracket.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.active.is_some()
    }

    /// Begins a compute pass attributed to this graph pass.
    #[inline]
    pub fn compute_pass(&mut self, desc: &wgpu::ComputePassDescriptor<'_>) -> ProfiledComputePass<'_> {
        begin_compute(self.active.as_deref_mut(), self.encoder, Some(self.key), desc)
    }

    /// Begins a render pass attributed to this graph pass.
    #[inline]
    pub fn render_pass(&mut self, desc: &wgpu::RenderPassDescriptor<'_>) -> ProfiledRenderPass<'_> {
        begin_render(self.active.as_deref_mut(), self.encoder, Some(self.key), desc)
    }

    /// Ends the bracket (same as dropping it).
    pub fn end(self) {}
}

impl Drop for GraphPassScope<'_> {
    fn drop(&mut self) {
        if let Some(active) = self.active.as_deref_mut() {
            let end_ns = active.now_ns();
            if let Some((query, set)) = self.encoder_end_query
                && let Some(query_set) = active.front_query_set(set)
            {
                self.encoder.write_timestamp(query_set, query);
            }
            active.leave_graph_pass(self.graph_pass, self.begin_ns, end_ns);
        }
        if self.debug_group {
            self.encoder.pop_debug_group();
        }
    }
}

/// The timestamp writes of one GPU pass that the application begins itself: for code that
/// owns its pass, such as a renderer drawing into a `RenderPass<'static>`
/// (`forget_lifetime()`) the application began. Put [`PassTimer::render`] or
/// [`PassTimer::compute`] in the pass descriptor's `timestamp_writes`.
///
/// The pass's time is recorded; its commands are not, since they never pass through the
/// recorder. At level Workload and up the capture says so in a NOTE, once per label, so
/// that no reader takes the missing draws for zero draws.
#[derive(Clone, Debug)]
pub struct PassTimer {
    /// A handle to the frame's query set (wgpu handles are reference-counted), so the
    /// descriptor does not borrow the session while the encoder is borrowed.
    query_set: wgpu::QuerySet,
    begin: u32,
}

impl PassTimer {
    #[must_use]
    pub fn compute(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(self.begin),
            end_of_pass_write_index: Some(self.begin + 1),
        }
    }

    #[must_use]
    pub fn render(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(self.begin),
            end_of_pass_write_index: Some(self.begin + 1),
        }
    }
}

/// Timestamp writes for a compute pass outside any graph pass, begun by the caller on
/// `encoder`. See [`PassTimer`].
pub fn time_compute_pass(
    session: Option<&mut ProfileSession>,
    encoder: &wgpu::CommandEncoder,
    label: &str,
) -> Option<PassTimer> {
    time_own_pass(recording(session), encoder, GpuPassKind::Compute, label)
}

/// Timestamp writes for a render pass outside any graph pass, begun by the caller on
/// `encoder`. See [`PassTimer`].
pub fn time_render_pass(
    session: Option<&mut ProfileSession>,
    encoder: &wgpu::CommandEncoder,
    label: &str,
) -> Option<PassTimer> {
    time_own_pass(recording(session), encoder, GpuPassKind::Render, label)
}

fn time_own_pass(
    active: Option<&mut Active>,
    encoder: &wgpu::CommandEncoder,
    kind: GpuPassKind,
    label: &str,
) -> Option<PassTimer> {
    let active = active?;
    let pass = active.begin_local(kind, Some(label), None, encoder_key(encoder), true)?;
    active.local_token(pass);
    let (begin, _, set) = pass.queries()?;
    Some(PassTimer { query_set: active.front_query_set(set)?.clone(), begin })
}

/// The recording state when `session` records and has a frame open: one null check off.
#[inline]
fn recording(session: Option<&mut ProfileSession>) -> Option<&mut Active> {
    session.and_then(ProfileSession::active).filter(|active| active.frame_open())
}

/// Opens the bracket's encoder-level span where the device has timestamps inside
/// encoders: a GPU pass of kind `encoder`, named as the graph pass, whose span covers every
/// command the bracket records, copies and clears included. It is a second measurement
/// beside the pass spans, from the encoder's own timestamps. Returns its end query.
fn time_on_encoder(
    active: &mut Active,
    encoder: &mut wgpu::CommandEncoder,
    key: EncoderKey,
    name: &str,
) -> Option<(u32, usize)> {
    if !active.capabilities().inside_encoders {
        return None;
    }
    let (begin, end, set) = active.begin_local(GpuPassKind::Encoder, Some(name), None, key, true)?.queries()?;
    encoder.write_timestamp(active.front_query_set(set)?, begin);
    Some((end, set))
}

/// Begins a compute pass outside any graph pass.
#[inline]
pub fn compute_pass<'p>(
    session: Option<&'p mut ProfileSession>,
    encoder: &'p mut wgpu::CommandEncoder,
    desc: &wgpu::ComputePassDescriptor<'_>,
) -> ProfiledComputePass<'p> {
    begin_compute(session.and_then(ProfileSession::active), encoder, None, desc)
}

/// Begins a render pass outside any graph pass.
#[inline]
pub fn render_pass<'p>(
    session: Option<&'p mut ProfileSession>,
    encoder: &'p mut wgpu::CommandEncoder,
    desc: &wgpu::RenderPassDescriptor<'_>,
) -> ProfiledRenderPass<'p> {
    begin_render(session.and_then(ProfileSession::active), encoder, None, desc)
}

/// What a profiled pass records into.
struct PassRecorder<'p> {
    active: &'p mut Active,
    pass: LocalPass,
    /// The encoder the pass was begun on: its markers' and indirect copies' queries are
    /// resolved there.
    encoder: EncoderKey,
    workload: bool,
    verbose: bool,
    pipeline: Option<u32>,
    groups: [Option<u32>; GROUPS],
    /// End-of-region query and timer set of each open marker (`None`: not timed).
    /// Only its length is set when a pass begins.
    markers: ArrayVec<Option<(u32, usize)>, MARKER_DEPTH>,
}

impl<'p> PassRecorder<'p> {
    fn new(active: &'p mut Active, pass: LocalPass, encoder: EncoderKey) -> Self {
        let level = active.level();
        Self {
            active,
            pass,
            encoder,
            workload: level >= Level::Workload,
            verbose: level >= Level::Verbose,
            pipeline: None,
            groups: [None; GROUPS],
            markers: ArrayVec::new(),
        }
    }

    #[inline]
    fn record(&mut self, op: Op) -> u32 {
        if !self.workload {
            return 0;
        }
        self.active.record(self.pass, self.pipeline, op, &self.groups)
    }

    #[inline]
    fn bind_group(&mut self, index: u32, bind_group: Option<&wgpu::BindGroup>) {
        if self.verbose
            && let Some(slot) = self.groups.get_mut(index as usize)
        {
            *slot = bind_group.map(|group| self.active.registry().bind_group_id(group));
        }
    }

    #[inline]
    fn indirect(&mut self, buffer: &wgpu::Buffer, offset: u64) -> Indirect {
        Indirect { buffer: if self.workload { self.active.registry().buffer_id(buffer) } else { 0 }, offset }
    }

    /// Opens a marker region: `None` when nested too deep (ignored), else the begin
    /// query to write and its timer set, if the region is timed.
    fn begin_marker(&mut self, label: &str) -> Option<Option<(u32, usize)>> {
        if self.markers.is_full() {
            return None;
        }
        let region = self.active.begin_local(GpuPassKind::Marker, Some(label), Some(self.pass.id), self.encoder, true);
        let queries = region.and_then(LocalPass::queries);
        self.markers.push(queries.map(|(_, end, set)| (end, set)));
        Some(queries.map(|(begin, _, set)| (begin, set)))
    }

    /// Closes the innermost marker region: `None` when none is open, else the end
    /// query to write and its timer set, if the region is timed.
    fn end_marker(&mut self) -> Option<Option<(u32, usize)>> {
        self.markers.pop()
    }
}

/// `key`: the encoder's, where the caller holds it already (else it is taken here).
// Where a timed pass's CPU time goes (`passes` bench, lavapipe): wgpu's work for the
// timestamp pair, 300-450 ns, mostly in `finish`; this loop's own share, 30-100 ns (it
// was SipHash of the encoder on every pass and of the pipeline at Workload, ~20 ns each:
// now one multiply, the key taken once per bracket); the frame hooks, 80-100 ns a pass,
// mostly `begin_frame` reading back and writing the frame before.
fn begin_compute<'p>(
    active: Option<&'p mut Active>,
    encoder: &'p mut wgpu::CommandEncoder,
    key: Option<EncoderKey>,
    desc: &wgpu::ComputePassDescriptor<'_>,
) -> ProfiledComputePass<'p> {
    // A pass the application times itself keeps its own timestamp writes, untouched.
    let timed = desc.timestamp_writes.is_none();
    let Some((active, pass, key)) = open_local(active, encoder, key, GpuPassKind::Compute, desc.label, timed) else {
        return ProfiledComputePass { inner: encoder.begin_compute_pass(desc), rec: None };
    };
    let writes = pass.queries().and_then(|(begin, end, set)| {
        Some(wgpu::ComputePassTimestampWrites {
            query_set: active.front_query_set(set)?,
            beginning_of_pass_write_index: Some(begin),
            end_of_pass_write_index: Some(end),
        })
    });
    // The caller's descriptor is copied, never changed: the application's own timestamp writes stay its own.
    let inner = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: desc.label,
        timestamp_writes: if timed { writes } else { desc.timestamp_writes.clone() },
    });
    ProfiledComputePass { inner, rec: Some(PassRecorder::new(active, pass, key)) }
}

/// Opens a profiled pass's record, when a frame is open; with the encoder's key, taken
/// here where the caller does not hold it (off, nothing is computed: one null check).
#[inline]
fn open_local<'p>(
    active: Option<&'p mut Active>,
    encoder: &wgpu::CommandEncoder,
    key: Option<EncoderKey>,
    kind: GpuPassKind,
    label: Option<&str>,
    timed: bool,
) -> Option<(&'p mut Active, LocalPass, EncoderKey)> {
    let active = active.filter(|active| active.frame_open())?;
    let key = key.unwrap_or_else(|| encoder_key(encoder));
    let pass = active.begin_local(kind, label, None, key, timed)?;
    Some((active, pass, key))
}

fn begin_render<'p>(
    active: Option<&'p mut Active>,
    encoder: &'p mut wgpu::CommandEncoder,
    key: Option<EncoderKey>,
    desc: &wgpu::RenderPassDescriptor<'_>,
) -> ProfiledRenderPass<'p> {
    let timed = desc.timestamp_writes.is_none();
    let Some((active, pass, key)) = open_local(active, encoder, key, GpuPassKind::Render, desc.label, timed) else {
        return ProfiledRenderPass { inner: encoder.begin_render_pass(desc), rec: None };
    };
    if active.level() >= Level::Workload {
        active.local_attachments(pass, attachments_of(desc));
    }
    let writes = pass.queries().and_then(|(begin, end, set)| {
        Some(wgpu::RenderPassTimestampWrites {
            query_set: active.front_query_set(set)?,
            beginning_of_pass_write_index: Some(begin),
            end_of_pass_write_index: Some(end),
        })
    });
    let inner = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        timestamp_writes: if timed { writes } else { desc.timestamp_writes.clone() },
        ..desc.clone()
    });
    ProfiledRenderPass { inner, rec: Some(PassRecorder::new(active, pass, key)) }
}

/// Opens a marker region on either pass kind: a debug group, and a timestamp where the
/// device has one for it.
fn begin_marker(rec: Option<&mut PassRecorder<'_>>, pass: &mut impl RecordTarget, label: &str) {
    let Some(rec) = rec else { return };
    let Some(query) = rec.begin_marker(label) else { return };
    pass.push_debug_group(label);
    if let Some((query, set)) = query
        && let Some(query_set) = rec.active.front_query_set(set)
    {
        pass.write_timestamp(query_set, query);
    }
}

/// Closes the innermost marker region on either pass kind.
fn end_marker(rec: Option<&mut PassRecorder<'_>>, pass: &mut impl RecordTarget) {
    let Some(rec) = rec else { return };
    let Some(query) = rec.end_marker() else { return };
    if let Some((query, set)) = query
        && let Some(query_set) = rec.active.front_query_set(set)
    {
        pass.write_timestamp(query_set, query);
    }
    pass.pop_debug_group();
}

/// A compute pass that records its dispatches. Derefs to [`wgpu::ComputePass`].
///
/// Only calls made on this wrapper are counted. A dispatch made through the deref (by
/// handing `&mut *pass` to code that takes `&mut wgpu::ComputePass`) reaches wgpu and is
/// inside the pass's time, but not in its commands: time such code's own pass with a
/// [`PassTimer`] instead, and the capture says its commands were not recorded.
pub struct ProfiledComputePass<'p> {
    inner: wgpu::ComputePass<'p>,
    rec: Option<PassRecorder<'p>>,
}

impl std::fmt::Debug for ProfiledComputePass<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfiledComputePass").field("recording", &self.rec.is_some()).finish_non_exhaustive()
    }
}

impl<'p> Deref for ProfiledComputePass<'p> {
    type Target = wgpu::ComputePass<'p>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl DerefMut for ProfiledComputePass<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl ProfiledComputePass<'_> {
    /// Whether a session records this pass.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.rec.is_some()
    }

    #[inline]
    pub fn set_pipeline(&mut self, pipeline: &wgpu::ComputePipeline) {
        if let Some(rec) = self.rec.as_mut().filter(|rec| rec.workload) {
            rec.pipeline = Some(rec.active.registry().compute_id(pipeline));
        }
        self.inner.set_pipeline(pipeline);
    }

    #[inline]
    pub fn set_bind_group<'a, BG>(&mut self, index: u32, bind_group: BG, offsets: &[wgpu::DynamicOffset])
    where
        Option<&'a wgpu::BindGroup>: From<BG>,
    {
        let bind_group: Option<&wgpu::BindGroup> = bind_group.into();
        if let Some(rec) = self.rec.as_mut() {
            rec.bind_group(index, bind_group);
        }
        self.inner.set_bind_group::<Option<&wgpu::BindGroup>>(index, bind_group, offsets);
    }

    #[inline]
    pub fn dispatch_workgroups(&mut self, x: u32, y: u32, z: u32) {
        if let Some(rec) = self.rec.as_mut() {
            rec.record(Op::Dispatch { x, y, z });
        }
        self.inner.dispatch_workgroups(x, y, z);
    }

    /// Records the argument buffer and offset (*encoded*); at `Verbose` the arguments
    /// are read back after submit (*resolved*).
    #[inline]
    pub fn dispatch_workgroups_indirect(&mut self, indirect_buffer: &wgpu::Buffer, indirect_offset: u64) {
        if let Some(rec) = self.rec.as_mut() {
            let indirect = rec.indirect(indirect_buffer, indirect_offset);
            let command = rec.record(Op::DispatchIndirect { indirect, resolved: None });
            if rec.verbose {
                rec.active.resolve_indirect(rec.encoder, command, indirect_buffer, indirect_offset, 12);
            }
        }
        self.inner.dispatch_workgroups_indirect(indirect_buffer, indirect_offset);
    }

    /// Opens a sub-pass marker region, timed where the device has
    /// `TIMESTAMP_QUERY_INSIDE_PASSES` (natively only). Regions nest; close with
    /// [`Self::end_marker`]. Also a debug group.
    pub fn begin_marker(&mut self, label: &str) {
        begin_marker(self.rec.as_mut(), &mut self.inner, label);
    }

    /// Closes the innermost marker region.
    pub fn end_marker(&mut self) {
        end_marker(self.rec.as_mut(), &mut self.inner);
    }
}

impl Drop for ProfiledComputePass<'_> {
    fn drop(&mut self) {
        while self.rec.as_ref().is_some_and(|rec| !rec.markers.is_empty()) {
            self.end_marker();
        }
    }
}

/// A render pass that records its draws and attachments. Derefs to [`wgpu::RenderPass`].
///
/// Only calls made on this wrapper are counted. A draw made through the deref (by handing
/// `&mut *pass` to a renderer that takes `&mut wgpu::RenderPass`) reaches wgpu and is
/// inside the pass's time, but not in its commands: give such a renderer a pass of its own
/// timed with a [`PassTimer`], and the capture says its commands were not recorded.
pub struct ProfiledRenderPass<'p> {
    inner: wgpu::RenderPass<'p>,
    rec: Option<PassRecorder<'p>>,
}

impl std::fmt::Debug for ProfiledRenderPass<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfiledRenderPass").field("recording", &self.rec.is_some()).finish_non_exhaustive()
    }
}

impl<'p> Deref for ProfiledRenderPass<'p> {
    type Target = wgpu::RenderPass<'p>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl DerefMut for ProfiledRenderPass<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl ProfiledRenderPass<'_> {
    /// Whether a session records this pass.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.rec.is_some()
    }

    #[inline]
    pub fn set_pipeline(&mut self, pipeline: &wgpu::RenderPipeline) {
        if let Some(rec) = self.rec.as_mut().filter(|rec| rec.workload) {
            rec.pipeline = Some(rec.active.registry().render_id(pipeline));
        }
        self.inner.set_pipeline(pipeline);
    }

    #[inline]
    pub fn set_bind_group<'a, BG>(&mut self, index: u32, bind_group: BG, offsets: &[wgpu::DynamicOffset])
    where
        Option<&'a wgpu::BindGroup>: From<BG>,
    {
        let bind_group: Option<&wgpu::BindGroup> = bind_group.into();
        if let Some(rec) = self.rec.as_mut() {
            rec.bind_group(index, bind_group);
        }
        self.inner.set_bind_group::<Option<&wgpu::BindGroup>>(index, bind_group, offsets);
    }

    #[inline]
    pub fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        if let Some(rec) = self.rec.as_mut() {
            rec.record(Op::Draw {
                vertices: vertices.len() as u32,
                instances: instances.len() as u32,
                first_vertex: vertices.start,
                first_instance: instances.start,
            });
        }
        self.inner.draw(vertices, instances);
    }

    #[inline]
    pub fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
        if let Some(rec) = self.rec.as_mut() {
            rec.record(Op::DrawIndexed {
                indices: indices.len() as u32,
                instances: instances.len() as u32,
                first_index: indices.start,
                base_vertex,
                first_instance: instances.start,
            });
        }
        self.inner.draw_indexed(indices, base_vertex, instances);
    }

    #[inline]
    fn record_indirect(&mut self, indexed: bool, buffer: &wgpu::Buffer, offset: u64) {
        if let Some(rec) = self.rec.as_mut() {
            let indirect = rec.indirect(buffer, offset);
            let command = rec.record(Op::DrawIndirect { indexed, indirect, resolved: None });
            if rec.verbose {
                rec.active.resolve_indirect(rec.encoder, command, buffer, offset, if indexed { 20 } else { 16 });
            }
        }
    }

    /// Records the argument buffer and offset (*encoded*); at `Verbose` the counts are
    /// read back after submit (*resolved*).
    #[inline]
    pub fn draw_indirect(&mut self, indirect_buffer: &wgpu::Buffer, indirect_offset: u64) {
        self.record_indirect(false, indirect_buffer, indirect_offset);
        self.inner.draw_indirect(indirect_buffer, indirect_offset);
    }

    #[inline]
    pub fn draw_indexed_indirect(&mut self, indirect_buffer: &wgpu::Buffer, indirect_offset: u64) {
        self.record_indirect(true, indirect_buffer, indirect_offset);
        self.inner.draw_indexed_indirect(indirect_buffer, indirect_offset);
    }

    /// Records one indirect draw per argument block.
    pub fn multi_draw_indirect(&mut self, indirect_buffer: &wgpu::Buffer, indirect_offset: u64, count: u32) {
        for i in 0..u64::from(count) {
            self.record_indirect(false, indirect_buffer, indirect_offset + i * 16);
        }
        self.inner.multi_draw_indirect(indirect_buffer, indirect_offset, count);
    }

    /// Records one indexed indirect draw per argument block.
    pub fn multi_draw_indexed_indirect(&mut self, indirect_buffer: &wgpu::Buffer, indirect_offset: u64, count: u32) {
        for i in 0..u64::from(count) {
            self.record_indirect(true, indirect_buffer, indirect_offset + i * 20);
        }
        self.inner.multi_draw_indexed_indirect(indirect_buffer, indirect_offset, count);
    }

    /// Opens a sub-pass marker region (see [`ProfiledComputePass::begin_marker`]).
    pub fn begin_marker(&mut self, label: &str) {
        begin_marker(self.rec.as_mut(), &mut self.inner, label);
    }

    /// Closes the innermost marker region.
    pub fn end_marker(&mut self) {
        end_marker(self.rec.as_mut(), &mut self.inner);
    }
}

impl Drop for ProfiledRenderPass<'_> {
    fn drop(&mut self) {
        while self.rec.as_ref().is_some_and(|rec| !rec.markers.is_empty()) {
            self.end_marker();
        }
    }
}
