//! The caller-owned session (seed 000 §6.1) and the per-frame recording state behind it.
//!
//! A frame goes `begin_frame` → graph-pass brackets and profiled passes →
//! `resolve_queries` on each encoder that began passes → `queue.submit` → `end_frame`. Its
//! record is written once its timestamps are read back, frames in order, so all
//! serialization happens at frame boundaries and never inside a pass.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use sgpt_format::{
    Attachment, Binding, Command, CpuSpan, Frame, GpuPass, GpuPassKind, Level, MemoryRecord, Note, Op, QuerySetDef,
    Span, SpanKind, Topology, TopologyId, Writer, WriterOptions,
};

use crate::clock::CpuClock;
use crate::device::DeviceClaim;
use crate::error::{RecordError, StartError};
use crate::memory::{Gauges, memory_record};
use crate::meta::{self, Capabilities};
use crate::providers::Providers;
use crate::shared::Shared;
use crate::sink::{BoxedSink, CaptureSink};
use crate::stale::Refusal;
use crate::timer::{INDIRECT_SLOT_BYTES, QUERY_BYTES, TimerPool, WakeSlot};
use crate::workload::{PipelineInfo, Registry};
use crate::{SessionOptions, sync};

/// What the per-frame callback is told after each frame record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BytesWritten {
    pub frame_number: u64,
    /// Bytes of this frame's record (plus any TOPO/DECL/NOTE written with it).
    pub frame_bytes: u64,
    /// Bytes of the whole capture so far, header included.
    pub total_bytes: u64,
}

/// The per-frame callback: `Send` natively, like the session.
pub trait BytesWrittenFn: FnMut(BytesWritten) + wgpu::WasmNotSend {}

impl<F: FnMut(BytesWritten) + wgpu::WasmNotSend> BytesWrittenFn for F {}

type BytesCallback = Box<dyn BytesWrittenFn>;

/// Why a session stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StopReason {
    /// `stop()` was called.
    #[default]
    Stopped,
    /// `frame_limit` frames were recorded.
    FrameLimit,
    /// The device was lost; the capture holds every frame recorded before.
    DeviceLost,
}

/// What a finished session recorded. The bytes are in the sink (keep a handle such as
/// [`crate::MemorySink`], or take the sink back with [`ProfileSession::take_sink`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureSummary {
    pub level: Level,
    pub frames: u64,
    pub bytes_written: u64,
    pub dropped_spans: u64,
    pub reason: StopReason,
}

/// Tells a session its device was lost, for applications that own the device-lost
/// callback (see [`SessionOptions::watch_device_lost`]).
#[derive(Clone, Debug)]
pub struct DeviceLostNotifier(Arc<AtomicBool>);

impl DeviceLostNotifier {
    pub fn notify(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// A profiling session. The application builds it, starts it on its device, and hands
/// `Some(&mut session)` to the recorder's hooks; with `None` every hook is a null check.
///
/// ```no_run
/// # async fn frame_loop(device: wgpu::Device, queue: wgpu::Queue, adapter: wgpu::Adapter) -> Result<(), Box<dyn std::error::Error>> {
/// use sgpt_recorder::{Level, MemorySink, ProfileSession, SessionOptions};
///
/// let capture = MemorySink::new();
/// let mut session = ProfileSession::new(
///     SessionOptions { level: Level::Workload, frame_limit: Some(600), ..SessionOptions::default() },
///     capture.clone(),
/// );
/// session.start(&device, &queue, &adapter)?;
/// let done = session.finished(); // resolves at frame 600, or when stop() is called
/// // ... frames run ...
/// let summary = done.await?;
/// let bytes = capture.take();
/// # let _ = (summary, bytes); Ok(()) }
/// ```
pub struct ProfileSession {
    options: SessionOptions,
    state: State,
    stop: Shared<StopShared>,
    lost: Arc<AtomicBool>,
}

enum State {
    /// Built, not started: what `start()` will need.
    Ready {
        sink: Box<dyn CaptureSink>,
        registry: Box<Registry>,
        on_bytes: Option<BytesCallback>,
    },
    Recording(Box<Active>),
    /// Stopping or stopped: the recording state lives in the stop future's shared state.
    Done,
    /// Only while moving between states.
    Empty,
}

impl std::fmt::Debug for ProfileSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state {
            State::Ready { .. } => "ready",
            State::Recording(_) => "recording",
            State::Done => "stopped",
            State::Empty => "empty",
        };
        f.debug_struct("ProfileSession").field("level", &self.options.level).field("state", &state).finish()
    }
}

impl ProfileSession {
    /// A session writing to `sink`. Nothing touches the GPU until [`Self::start`].
    pub fn new(options: SessionOptions, sink: impl CaptureSink) -> Self {
        Self {
            options,
            state: State::Ready { sink: Box::new(sink), registry: Box::default(), on_bytes: None },
            stop: Shared::new(StopShared::default()),
            lost: Arc::new(AtomicBool::new(false)),
        }
    }

    #[must_use]
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    #[must_use]
    pub fn level(&self) -> Level {
        self.options.level
    }

    /// Whether frames are being recorded now (started, not stopped).
    #[must_use]
    pub fn is_recording(&self) -> bool {
        matches!(self.state, State::Recording(_))
    }

    /// Calls `callback` after every frame record with the capture's size so far.
    pub fn on_bytes_written(&mut self, callback: impl BytesWrittenFn + 'static) {
        match &mut self.state {
            State::Ready { on_bytes, .. } => *on_bytes = Some(Box::new(callback)),
            State::Recording(active) => active.on_bytes = Some(Box::new(callback)),
            State::Done | State::Empty => {}
        }
    }

    /// The handle an application forwards its own device-lost callback to.
    #[must_use]
    pub fn device_lost_notifier(&self) -> DeviceLostNotifier {
        DeviceLostNotifier(Arc::clone(&self.lost))
    }

    fn registry(&mut self) -> Option<&mut Registry> {
        match &mut self.state {
            State::Ready { registry, .. } => Some(registry),
            State::Recording(active) => Some(&mut active.registry),
            State::Done | State::Empty => None,
        }
    }

    /// Names a compute pipeline and reads its `@workgroup_size` from the WGSL, if given.
    /// Returns the workgroup size (`None`: unknown, e.g. an override expression).
    pub fn describe_compute_pipeline(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        info: &PipelineInfo<'_>,
    ) -> Option<[u32; 3]> {
        let registry = self.registry()?;
        registry.describe_compute(pipeline, info);
        info.wgsl.and_then(|wgsl| crate::workgroup_size(wgsl, info.entry_point))
    }

    /// Names a render pipeline.
    pub fn describe_render_pipeline(&mut self, pipeline: &wgpu::RenderPipeline, info: &PipelineInfo<'_>) {
        if let Some(registry) = self.registry() {
            registry.describe_render(pipeline, info);
        }
    }

    /// Names a buffer that indirect calls read their arguments from.
    pub fn name_buffer(&mut self, buffer: &wgpu::Buffer, label: &str) {
        if let Some(registry) = self.registry() {
            registry.name_buffer(buffer, label);
        }
    }

    /// Names a bind group (recorded at `Verbose`).
    pub fn name_bind_group(&mut self, bind_group: &wgpu::BindGroup, label: &str) {
        if let Some(registry) = self.registry() {
            registry.name_bind_group(bind_group, label);
        }
    }

    /// Starts recording on `device`: creates the timer pool and writes META.
    ///
    /// Request [`crate::timer_features`] when creating the device to get GPU spans;
    /// without `TIMESTAMP_QUERY` the capture says so and still records CPU times,
    /// structure and workload.
    pub fn start(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        adapter: &wgpu::Adapter,
    ) -> Result<(), StartError> {
        self.options.validate().map_err(StartError::Options)?;
        if !matches!(self.state, State::Ready { .. }) {
            return Err(StartError::AlreadyStarted);
        }
        if self.lost.load(Ordering::Acquire) {
            return Err(StartError::DeviceLost);
        }
        let claim = DeviceClaim::take(device)?;
        let State::Ready { sink, registry, on_bytes } = std::mem::replace(&mut self.state, State::Empty) else {
            unreachable!("checked above");
        };
        let backend = adapter.get_info().backend;
        let capabilities = Capabilities::of(device, backend);
        let meta = meta::build(&self.options, device, adapter, capabilities);
        let expected_frames = self.options.frame_limit.map_or(0, |limit| limit.min(1 << 20) as usize);
        let mut writer = match Writer::with_options(BoxedSink(sink), &meta, WriterOptions { expected_frames }) {
            Ok(writer) => writer,
            Err(error) => return Err(StartError::Write(error.to_string())),
        };
        let wake = Arc::new(WakeSlot::default());
        let verbose = self.options.level >= Level::Verbose;
        let pool = (capabilities.timestamps || verbose).then(|| {
            TimerPool::new(
                device,
                self.options.frames_in_flight,
                self.options.max_spans_per_frame,
                if verbose { self.options.max_resolved_indirect_per_frame } else { 0 },
                capabilities.timestamps,
                &wake,
            )
        });
        if let Some(pool) = pool.as_ref().filter(|_| capabilities.timestamps) {
            let sets: Vec<_> = pool
                .sets
                .iter()
                .map(|set| {
                    sgpt_format::Declaration::QuerySet(QuerySetDef {
                        id: set.id,
                        label: format!("timer pool set {}", set.id),
                    })
                })
                .collect();
            writer.declare(&sets).map_err(|error| StartError::Write(error.to_string()))?;
        }
        // Counter ids: the domain gauges from 0, then the providers; the recorder declares
        // no other counters, and each declaration here is one counter.
        let mut counters = Vec::new();
        let gauges = self.options.memory.map(|source| {
            let (gauges, declarations) = Gauges::new(source, 0);
            counters.extend(declarations);
            gauges
        });
        let providers = self.options.providers.then(|| {
            let (providers, declarations) = Providers::new(counters.len() as u32, self.options.level, backend, device);
            counters.extend(declarations);
            providers
        });
        if !counters.is_empty() {
            writer.declare(&counters).map_err(|error| StartError::Write(error.to_string()))?;
        }
        if self.options.watch_device_lost {
            let lost = Arc::clone(&self.lost);
            device.set_device_lost_callback(move |_, _| lost.store(true, Ordering::Release));
        }
        let clock = CpuClock::start();
        self.state = State::Recording(Box::new(Active {
            level: self.options.level,
            device: device.clone(),
            period: queue.get_timestamp_period(),
            capabilities,
            clock,
            writer: Some(writer),
            pool,
            wake,
            lost: Arc::clone(&self.lost),
            _claim: claim,
            registry: *registry,
            frame_limit: self.options.frame_limit,
            byte_budget: self.options.byte_budget,
            budget_warned: false,
            warned: [false; 2],
            warnings: Vec::new(),
            on_bytes,
            max_spans: self.options.max_spans_per_frame,
            next_frame_number: 0,
            frames_ended: 0,
            frames_written: 0,
            dropped_total: 0,
            open: None,
            in_flight: VecDeque::with_capacity(self.options.frames_in_flight as usize + 1),
            spare: Vec::new(),
            topology: Topology::default(),
            topology_dirty: true,
            topology_id: 0,
            gpu_pass_count: 0,
            graph_pass: None,
            bracket_name: String::new(),
            timing_graph_names: Vec::new(),
            timed_only_noted: Vec::new(),
            format_names: Vec::new(),
            write_error: None,
            gauges,
            providers,
            memory_records: Vec::new(),
        }));
        Ok(())
    }

    /// The recording state, when a frame hook should record.
    #[inline]
    pub(crate) fn active(&mut self) -> Option<&mut Active> {
        match &mut self.state {
            State::Recording(active) => Some(active),
            _ => None,
        }
    }

    fn check_lost(&mut self) -> Result<(), RecordError> {
        if self.lost.load(Ordering::Acquire) {
            self.begin_stop(StopReason::DeviceLost);
            return Err(RecordError::DeviceLost);
        }
        Ok(())
    }

    /// Opens a frame. Returns `Ok(false)` when the session is no longer recording (it
    /// reached its frame limit or was stopped), so a frame loop can go on unchanged.
    pub fn begin_frame(&mut self) -> Result<bool, RecordError> {
        match &mut self.state {
            State::Ready { .. } => return Err(RecordError::NotStarted),
            State::Done | State::Empty => return Ok(false),
            State::Recording(active) => active.poll_device(),
        }
        self.check_lost()?;
        let Some(active) = self.active() else { return Ok(false) };
        active.begin_frame()?;
        Ok(true)
    }

    /// Resolves the timestamps of the passes begun on `encoder` since its last resolve
    /// (and, at `Verbose`, copies their indirect arguments) into the timer pool.
    ///
    /// Call it on every encoder that began profiled passes, after its last one and before
    /// its `finish()`. Each call resolves only what no earlier call did, so calling it more
    /// than once on an encoder, or on an encoder with no passes, is safe.
    ///
    /// A pass's queries are resolved only on the encoder that wrote them: a resolve in
    /// another command buffer could run on the GPU before the pass, and would read what an
    /// earlier frame left in the slot. A pass never resolved on its own encoder has no
    /// timestamps: `end_frame` counts its span in `dropped_spans`, never fills it from a
    /// buffer, and warns (log and NOTE) the first time.
    pub fn resolve_queries(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), RecordError> {
        if self.lost.load(Ordering::Acquire) {
            return Err(RecordError::DeviceLost);
        }
        match &mut self.state {
            State::Ready { .. } => Err(RecordError::NotStarted),
            State::Recording(active) => active.resolve_queries(encoder),
            State::Done | State::Empty => Ok(()),
        }
    }

    /// Closes the frame. Call it right after `queue.submit`: the time is the frame's
    /// submit time. Reaching `frame_limit` here stops the session.
    pub fn end_frame(&mut self) -> Result<(), RecordError> {
        match &mut self.state {
            State::Ready { .. } => return Err(RecordError::NotStarted),
            State::Done | State::Empty => return Ok(()),
            State::Recording(_) => {}
        }
        self.check_lost()?;
        let Some(active) = self.active() else { return Ok(()) };
        let result = active.end_frame();
        if active.frame_limit.is_some_and(|limit| active.frames_ended >= limit) {
            self.begin_stop(StopReason::FrameLimit);
        }
        result
    }

    /// Adds a note on the current (or last) frame.
    pub fn note(&mut self, text: &str) -> Result<(), RecordError> {
        let Some(active) = self.active() else { return Err(RecordError::NotStarted) };
        let frame_number = active.next_frame_number.saturating_sub(1);
        active.note(frame_number, text.to_owned())
    }

    /// Hands over an exported memory capture (from [`sgpt_memory::Ledger::export`]); it is
    /// written as a MEMO record when the session finishes. Accepted while recording and
    /// after a frame limit or `stop()` until the stop future has finished the capture.
    pub fn record_memory(&mut self, capture: &sgpt_memory::MemoryCapture) -> Result<(), RecordError> {
        let record = memory_record(capture);
        if let Some(active) = self.active() {
            active.memory_records.push(record);
            return Ok(());
        }
        // Stopping: the recording state waits in the stop future's shared state.
        match self.stop.lock().active.as_mut() {
            Some(active) => {
                active.memory_records.push(record);
                Ok(())
            }
            None => Err(RecordError::NotStarted),
        }
    }

    /// Hands the structure of the application's own frame graph to the recorder
    /// (scopes, graph passes, resource nodes; `gpu_passes` is ignored: the recorder
    /// fills it) and which passes were culled this frame. [`crate::FrameGraph`] calls this
    /// itself.
    pub fn set_graph(&mut self, graph: &Topology, culled: &[bool]) {
        if let Some(active) = self.active() {
            active.set_graph(graph, culled);
        }
    }

    /// Bytes handed to the sink so far, header included.
    #[must_use]
    pub fn bytes_written(&self) -> u64 {
        match &self.state {
            State::Recording(active) => active.bytes_written(),
            _ => self.stop.lock().bytes_written(),
        }
    }

    /// Frames whose records were written.
    #[must_use]
    pub fn frames_written(&self) -> u64 {
        match &self.state {
            State::Recording(active) => active.frames_written,
            _ => self.stop.lock().frames_written(),
        }
    }

    /// Warnings raised so far: the byte budget, spans never resolved, spans refused at readback.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        match &self.state {
            State::Recording(active) => active.warnings.clone(),
            _ => {
                let stop = self.stop.lock();
                stop.active.as_ref().map_or_else(|| stop.warnings.clone(), |active| active.warnings.clone())
            }
        }
    }

    /// A readable capture of everything written so far: open (the reader scans it)
    /// while recording, closed once finished.
    pub fn snapshot(&self) -> Result<Vec<u8>, RecordError> {
        let snapshot =
            |sink: &dyn CaptureSink| sink.snapshot().map_err(|error| RecordError::Snapshot(error.to_string()));
        match &self.state {
            State::Ready { sink, .. } => snapshot(sink.as_ref()),
            State::Recording(active) => snapshot(active.sink()?),
            State::Done | State::Empty => {
                let stop = self.stop.lock();
                match (&stop.active, &stop.sink) {
                    (Some(active), _) => snapshot(active.sink()?),
                    (None, Some(sink)) => snapshot(sink.as_ref()),
                    (None, None) => Err(RecordError::Snapshot("the sink was taken".to_owned())),
                }
            }
        }
    }

    /// The future that resolves when this session finishes, by `stop()` or by reaching
    /// its frame limit: both resolve this same future.
    pub fn finished(&self) -> StopFuture {
        StopFuture { shared: self.stop.clone() }
    }

    /// Stops recording. Frames already submitted are still read back and written; a
    /// frame still open is left out. Resolves to what was recorded.
    ///
    /// Natively the future waits on the device for the last readbacks; on the web it
    /// resolves when the browser delivers them.
    pub fn stop(&mut self) -> StopFuture {
        match &self.state {
            State::Ready { .. } => {
                let mut stop = self.stop.lock();
                if stop.result.is_none() {
                    stop.result = Some(Err(RecordError::NotStarted));
                }
            }
            State::Recording(_) => self.begin_stop(StopReason::Stopped),
            State::Done | State::Empty => {}
        }
        self.finished()
    }

    fn begin_stop(&mut self, reason: StopReason) {
        if let State::Recording(mut active) = std::mem::replace(&mut self.state, State::Done) {
            active.open = None;
            active.graph_pass = None;
            let mut stop = self.stop.lock();
            stop.reason = reason;
            stop.active = Some(active);
            if let Some(waker) = stop.waker.take() {
                waker.wake();
            }
        }
    }

    /// The sink, once the session finished, if it is an `S`.
    pub fn take_sink<S: CaptureSink>(&mut self) -> Option<S> {
        let mut stop = self.stop.lock();
        let is_s = stop.sink.as_deref().is_some_and(|sink| (sink as &dyn std::any::Any).is::<S>());
        if !is_s {
            return None;
        }
        let sink: Box<dyn std::any::Any> = stop.sink.take()?;
        sink.downcast::<S>().ok().map(|sink| *sink)
    }
}

impl Drop for ProfileSession {
    fn drop(&mut self) {
        // A dropped session still closes what it can: a capture cut here stays readable
        // up to its last whole record anyway.
        if let State::Recording(_) = self.state {
            self.begin_stop(StopReason::Stopped);
        }
    }
}

/// The stop future's shared state.
#[derive(Default)]
struct StopShared {
    active: Option<Box<Active>>,
    reason: StopReason,
    result: Option<Result<CaptureSummary, RecordError>>,
    sink: Option<Box<dyn CaptureSink>>,
    bytes: u64,
    frames: u64,
    /// The finished session's warnings.
    warnings: Vec<String>,
    /// A stop future polled before the session stopped.
    waker: Option<std::task::Waker>,
}

impl StopShared {
    fn bytes_written(&self) -> u64 {
        self.active.as_ref().map_or(self.bytes, |active| active.bytes_written())
    }

    fn frames_written(&self) -> u64 {
        self.active.as_ref().map_or(self.frames, |active| active.frames_written)
    }
}

/// Resolves when a session finishes. Cloning it is cheap; every clone resolves to the
/// same summary.
#[derive(Clone)]
#[must_use = "a stop future does nothing until awaited"]
pub struct StopFuture {
    shared: Shared<StopShared>,
}

impl std::fmt::Debug for StopFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopFuture")
    }
}

impl Future for StopFuture {
    type Output = Result<CaptureSummary, RecordError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut shared = self.shared.lock();
        if let Some(result) = &shared.result {
            return Poll::Ready(result.clone());
        }
        let reason = shared.reason;
        let Some(active) = shared.active.as_mut() else {
            // Not stopped yet: stop() or the frame limit wakes this.
            shared.waker = Some(cx.waker().clone());
            return Poll::Pending;
        };
        active.wake.set(cx.waker());
        if !active.drain() {
            return Poll::Pending;
        }
        let active = shared.active.take().expect("checked above");
        let result = active.finish(reason, &mut shared.warnings);
        let result = match result {
            Ok((summary, sink)) => {
                shared.sink = Some(sink);
                shared.bytes = summary.bytes_written;
                shared.frames = summary.frames;
                Ok(summary)
            }
            Err(error) => Err(error),
        };
        shared.result = Some(result.clone());
        Poll::Ready(result)
    }
}

/// A frame between `begin_frame` and the write of its record.
#[derive(Debug, Default)]
struct PendingFrame {
    frame: Frame,
    /// The timer set holding this frame's queries and readback.
    set: Option<usize>,
    /// Per span, the encoder that writes its queries and whether it resolved them.
    slots: Vec<SpanSlot>,
    mapping: bool,
    indirect: Vec<IndirectCopy>,
}

/// Spans a frame's readback refused, by why.
#[derive(Debug, Default)]
struct Refused {
    stale: u32,
    unwritten: u32,
}

/// The warnings a session raises once, with a NOTE on the frame that first raised them.
#[derive(Clone, Copy, Debug)]
enum Warning {
    /// Spans begun after the frame's last resolve.
    Unresolved,
    /// Spans whose read-back values their passes did not write.
    Refused,
}

/// Where a span's queries are written, and whether that encoder resolved them.
#[derive(Clone, Copy, Debug)]
struct SpanSlot {
    encoder: EncoderKey,
    resolved: bool,
}

/// A command encoder's identity for the frame, from wgpu's own identity of the encoder.
pub(crate) type EncoderKey = u64;

/// The key of `encoder`: wgpu compares and hashes encoders by identity.
#[inline]
pub(crate) fn encoder_key(encoder: &wgpu::CommandEncoder) -> EncoderKey {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    encoder.hash(&mut hasher);
    hasher.finish()
}

#[derive(Debug)]
struct IndirectCopy {
    /// The encoder whose pass made the indirect call; the copy is recorded there.
    encoder: EncoderKey,
    resolved: bool,
    command: u32,
    buffer: wgpu::Buffer,
    offset: u64,
    /// 12 (dispatch), 16 (draw) or 20 (indexed draw) bytes of arguments.
    len: u64,
}

/// A recording session's state.
pub(crate) struct Active {
    pub(crate) level: Level,
    /// Held so the device's identity (the claim's key) outlives the session; natively
    /// also polled to drive readbacks.
    #[cfg_attr(target_arch = "wasm32", expect(dead_code, reason = "the browser drives readbacks; held for the claim"))]
    device: wgpu::Device,
    period: f32,
    pub(crate) capabilities: Capabilities,
    pub(crate) clock: CpuClock,
    /// `None` only once finished.
    writer: Option<Writer<BoxedSink>>,
    pool: Option<TimerPool>,
    wake: Arc<WakeSlot>,
    lost: Arc<AtomicBool>,
    _claim: DeviceClaim,
    pub(crate) registry: Registry,
    frame_limit: Option<u64>,
    byte_budget: u64,
    budget_warned: bool,
    /// Which [`Warning`]s were raised, by discriminant.
    warned: [bool; 2],
    warnings: Vec<String>,
    on_bytes: Option<BytesCallback>,
    max_spans: u32,
    next_frame_number: u64,
    frames_ended: u64,
    frames_written: u64,
    dropped_total: u64,
    open: Option<PendingFrame>,
    in_flight: VecDeque<PendingFrame>,
    spare: Vec<PendingFrame>,
    /// Domain gauges sampled at each `end_frame`.
    gauges: Option<Gauges>,
    /// Provider metrics sampled at each `end_frame`, after the gauges.
    providers: Option<Providers>,
    /// Memory captures handed over by the application, written as MEMO records at stop.
    memory_records: Vec<MemoryRecord>,
    /// The current frame's topology, updated in place; `topology_dirty` says it differs
    /// from the one `topology_id` names.
    topology: Topology,
    topology_dirty: bool,
    topology_id: TopologyId,
    gpu_pass_count: u32,
    /// The open graph-pass bracket.
    pub(crate) graph_pass: Option<u32>,
    /// The open bracket's name: the label of a GPU pass begun in it without one.
    bracket_name: String,
    /// Labels of passes timed through a [`crate::PassTimer`] that a NOTE already named.
    timed_only_noted: Vec<String>,
    /// Below `Structure` the topology has no graph passes: the names brackets were opened
    /// by, so that [`crate::GraphPassScope::named`] still gives each name its own index.
    timing_graph_names: Vec<String>,
    /// WebGPU names of attachment formats seen so far, so no frame allocates one.
    format_names: Vec<(wgpu::TextureFormat, String)>,
    /// The first write failure; once set, records stop (what reached the sink stays readable).
    write_error: Option<RecordError>,
}

impl Active {
    fn sink(&self) -> Result<&dyn CaptureSink, RecordError> {
        self.writer.as_ref().map(|writer| writer.sink().0.as_ref()).ok_or(RecordError::NotStarted)
    }

    fn bytes_written(&self) -> u64 {
        self.writer.as_ref().map_or(0, Writer::bytes_written)
    }

    fn poll_device(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if !self.in_flight.is_empty() && !self.lost.load(Ordering::Acquire) {
            // Drives map callbacks natively; never blocks.
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
    }

    fn begin_frame(&mut self) -> Result<(), RecordError> {
        if let Some(open) = &self.open {
            return Err(RecordError::FrameAlreadyOpen(open.frame.frame_number));
        }
        let started = self.clock.now_ns();
        self.collect(false);
        let mut pending = self.spare.pop().unwrap_or_default();
        pending.set = self.pool.as_mut().and_then(TimerPool::acquire);
        pending.slots.clear();
        pending.mapping = false;
        pending.indirect.clear();
        let frame = &mut pending.frame;
        frame.frame_number = self.next_frame_number;
        frame.spans.clear();
        frame.cpu = sgpt_format::CpuTimes { begin_ns: started, ..Default::default() };
        frame.cpu_spans.clear();
        frame.culled.clear();
        frame.dropped_spans = 0;
        frame.commands.clear();
        frame.bindings.clear();
        frame.counters.clear();
        self.next_frame_number += 1;
        self.gpu_pass_count = 0;
        self.graph_pass = None;
        frame.recorder_cost_ns = self.clock.now_ns() - started;
        self.open = Some(pending);
        Ok(())
    }

    fn resolve_queries(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), RecordError> {
        let started = self.clock.now_ns();
        let Some(pending) = self.open.as_mut() else { return Err(RecordError::NoFrameOpen) };
        pending.frame.cpu.end_ns = started;
        let key = encoder_key(encoder);
        if let (Some(pool), Some(set)) = (&self.pool, pending.set) {
            let set = &pool.sets[set];
            // One resolve per run of consecutive slots this encoder wrote and has not resolved.
            let mine = |slot: &SpanSlot| slot.encoder == key && !slot.resolved;
            let mut at = 0;
            while let Some(start) = pending.slots[at..].iter().position(mine).map(|i| at + i) {
                let end = pending.slots[start..]
                    .iter()
                    .position(|slot| !mine(slot))
                    .map_or(pending.slots.len(), |i| start + i);
                set.resolve(encoder, start as u32 * 2..end as u32 * 2);
                for slot in &mut pending.slots[start..end] {
                    slot.resolved = true;
                }
                at = end;
            }
            for (slot, copy) in pending.indirect.iter_mut().enumerate() {
                if copy.encoder == key && !copy.resolved {
                    set.copy_indirect(encoder, slot as u32, &copy.buffer, copy.offset, copy.len);
                    copy.resolved = true;
                }
            }
        }
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        Ok(())
    }

    fn end_frame(&mut self) -> Result<(), RecordError> {
        let started = self.clock.now_ns();
        let Some(mut pending) = self.open.take() else { return Err(RecordError::NoFrameOpen) };
        self.graph_pass = None;
        pending.frame.cpu.submit_ns = Some(started);
        if pending.frame.cpu.end_ns == 0 {
            pending.frame.cpu.end_ns = started;
        }
        // A slot its encoder never resolved holds whatever an earlier frame left there:
        // counted as dropped here, and skipped when the frame is read back.
        let unresolved = pending.slots.iter().filter(|slot| !slot.resolved).count();
        pending.frame.dropped_spans += unresolved as u32;
        if unresolved == pending.slots.len() {
            pending.frame.spans.clear();
            pending.slots.clear();
        }
        let reported = if unresolved > 0 {
            let message = format!(
                "sgpt-recorder: frame {}: {unresolved} GPU span(s) were never resolved on the encoder that began their pass and have no timestamps; they are dropped and counted in dropped_spans (call resolve_queries on every encoder, after its last pass, before finish())",
                pending.frame.frame_number
            );
            self.warn_once(Warning::Unresolved, pending.frame.frame_number, message)
        } else {
            Ok(())
        };
        if let Some(gauges) = &self.gauges {
            // Sampled once the frame's CPU work is done: the frame's own allocations count.
            gauges.sample(&mut pending.frame.counters);
        }
        if let Some(providers) = self.providers.as_mut() {
            providers.sample(&mut pending.frame.counters);
        }
        let written = reported
            .and_then(|()| self.write_structure())
            .and_then(|()| self.write_provider_notes(pending.frame.frame_number));
        pending.frame.topology = self.topology_id;
        if let (Some(pool), Some(set)) = (self.pool.as_mut(), pending.set) {
            let queries = pending.frame.spans.len() as u64 * 2;
            let indirect = pending.indirect.iter().any(|copy| copy.resolved);
            if queries > 0 || indirect {
                let len = if !indirect {
                    queries * QUERY_BYTES
                } else {
                    pool.sets[set].indirect_base + pending.indirect.len() as u64 * INDIRECT_SLOT_BYTES
                };
                pool.sets[set].map(len);
                pending.mapping = true;
            } else {
                pool.release(set);
                pending.set = None;
            }
        }
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        self.in_flight.push_back(pending);
        self.frames_ended += 1;
        self.poll_device();
        self.collect(false);
        written
    }

    /// Writes a TOPO record if the frame's structure changed, and pending declarations.
    fn write_structure(&mut self) -> Result<(), RecordError> {
        let count = self.gpu_pass_count as usize;
        if self.topology.gpu_passes.len() != count {
            self.topology.gpu_passes.truncate(count);
            self.topology_dirty = true;
        }
        let Some(writer) = self.writer.as_mut().filter(|_| self.write_error.is_none()) else { return Ok(()) };
        if self.topology_dirty {
            match writer.topology(&self.topology) {
                Ok(id) => {
                    self.topology_id = id;
                    self.topology_dirty = false;
                }
                Err(error) => return Err(self.failed(error.into())),
            }
        }
        if !self.registry.pending.is_empty() {
            if self.level >= Level::Workload
                && let Err(error) = writer.declare(&self.registry.pending)
            {
                return Err(self.failed(error.into()));
            }
            self.registry.pending.clear();
        }
        Ok(())
    }

    /// The first frame's notes on providers that cannot answer in this session.
    fn write_provider_notes(&mut self, frame_number: u64) -> Result<(), RecordError> {
        let Some(notes) = self.providers.as_mut().map(Providers::take_notes) else { return Ok(()) };
        for text in notes {
            if self.write_error.is_some() {
                break;
            }
            if let Err(error) = self.note(frame_number, text) {
                return Err(self.failed(error));
            }
        }
        Ok(())
    }

    /// Logs `message` and writes it as a NOTE on `frame_number`, the first time `warning`
    /// is raised; the dropped spans themselves are counted on every frame.
    fn warn_once(&mut self, warning: Warning, frame_number: u64, message: String) -> Result<(), RecordError> {
        if std::mem::replace(&mut self.warned[warning as usize], true) {
            return Ok(());
        }
        log::warn!("{message}");
        self.warnings.push(message.clone());
        if self.write_error.is_some() {
            return Ok(());
        }
        self.note(frame_number, message).map_err(|error| self.failed(error))
    }

    fn failed(&mut self, error: RecordError) -> RecordError {
        log::error!("sgpt-recorder: {error}; the capture stays readable up to its last whole record");
        self.write_error.get_or_insert(error).clone()
    }

    fn note(&mut self, frame_number: u64, text: String) -> Result<(), RecordError> {
        let Some(writer) = self.writer.as_mut() else { return Err(RecordError::NotStarted) };
        writer.note(&Note { frame_number, text }).map_err(RecordError::from)
    }

    /// Writes every frame whose readback landed, in order. With `wait`, blocks natively
    /// until all have. Returns whether no frame is left in flight.
    fn collect(&mut self, wait: bool) -> bool {
        loop {
            let lost = self.lost.load(Ordering::Acquire);
            let Some(front) = self.in_flight.front() else { return true };
            if front.mapping && !lost {
                let set = front.set.and_then(|set| self.pool.as_ref().map(|pool| &pool.sets[set]));
                if set.is_some_and(|set| set.poll_mapped().is_none()) {
                    #[cfg(not(target_arch = "wasm32"))]
                    if wait {
                        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
                        continue;
                    }
                    let _ = wait;
                    return false;
                }
            }
            let Some(mut pending) = self.in_flight.pop_front() else { return true };
            self.complete(&mut pending);
            self.spare.push(pending);
        }
    }

    /// Reads a frame's timestamps and indirect arguments back and writes its record.
    fn complete(&mut self, pending: &mut PendingFrame) {
        let started = self.clock.now_ns();
        let mut read_ok = false;
        let mut refused = Refused::default();
        if let (Some(pool), Some(set)) = (self.pool.as_mut(), pending.set.take()) {
            let timer = &mut pool.sets[set];
            let period = f64::from(self.period);
            let base = timer.indirect_base as usize;
            let frame = &mut pending.frame;
            let indirect = &pending.indirect;
            let slots = &pending.slots;
            // Moved out for the read (no allocation): the closure borrows the set's buffer.
            let mut guard = std::mem::take(&mut timer.guard);
            timer.read(|bytes| {
                read_ok = true;
                let mut kept = 0;
                // Unresolved slots were counted at end_frame and are never read.
                for (slot, _) in slots.iter().enumerate().filter(|(_, slot)| slot.resolved) {
                    let begin = word_u64(bytes, slot * 16);
                    let end = word_u64(bytes, slot * 16 + 8);
                    match guard.check(slot, begin, end) {
                        Ok(()) => {
                            let mut span = frame.spans[slot];
                            span.begin_ns = ticks_to_ns(begin, period);
                            span.end_ns = ticks_to_ns(end, period);
                            frame.spans[kept] = span;
                            kept += 1;
                        }
                        Err(Refusal::Stale) => refused.stale += 1,
                        Err(Refusal::Unwritten) => refused.unwritten += 1,
                    }
                }
                frame.spans.truncate(kept);
                guard.frame_read();
                for (slot, copy) in indirect.iter().enumerate().filter(|(_, copy)| copy.resolved) {
                    let at = base + slot * INDIRECT_SLOT_BYTES as usize;
                    let word = |i: usize| word_u32(bytes, at + 4 * i);
                    if let Some(command) = frame.commands.get_mut(copy.command as usize) {
                        match &mut command.op {
                            Op::DispatchIndirect { resolved, .. } => *resolved = Some([word(0), word(1), word(2)]),
                            Op::DrawIndirect { resolved, .. } => *resolved = Some([word(0), word(1)]),
                            _ => {}
                        }
                    }
                }
            });
            pool.sets[set].guard = guard;
            pool.release(set);
            if pending.mapping {
                pending.frame.cpu.readback_ns = Some(started);
            }
        }
        if pending.mapping && !read_ok {
            // The readback failed (a lost device): these spans have no timestamps. The
            // unresolved ones were counted at end_frame.
            pending.frame.dropped_spans += pending.slots.iter().filter(|slot| slot.resolved).count() as u32;
            pending.frame.spans.clear();
        }
        pending.indirect.clear();
        let refused_total = refused.stale + refused.unwritten;
        if refused_total > 0 {
            pending.frame.dropped_spans += refused_total;
            let message = format!(
                "sgpt-recorder: frame {}: {refused_total} GPU span(s) read back values their passes did not write ({} from an earlier frame, {} never written): they were resolved on a command buffer the queue ran before the passes' own; they are dropped and counted in dropped_spans (resolve on each encoder, or on one submitted after all of them)",
                pending.frame.frame_number, refused.stale, refused.unwritten
            );
            // A failed NOTE is already the session's write error; the frame is still written.
            let _ = self.warn_once(Warning::Refused, pending.frame.frame_number, message);
        }
        self.dropped_total += u64::from(pending.frame.dropped_spans);
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        self.write_frame(&pending.frame);
    }

    fn write_frame(&mut self, frame: &Frame) {
        if self.write_error.is_some() {
            return;
        }
        let Some(writer) = self.writer.as_mut() else { return };
        let before = writer.bytes_written();
        if let Err(error) = writer.frame(frame) {
            self.failed(error.into());
            return;
        }
        self.frames_written += 1;
        let total = writer.bytes_written();
        if total > self.byte_budget && !self.budget_warned {
            self.budget_warned = true;
            let elapsed_s = (self.clock.now_ns() as f64 / 1e9).max(1e-9);
            let message = format!(
                "sgpt-recorder: the capture passed its byte budget of {} bytes at frame {}: level {} writes {:.0} bytes/frame, {:.0} bytes/s; recording goes on, nothing is truncated",
                self.byte_budget,
                frame.frame_number,
                self.level,
                total as f64 / self.frames_written as f64,
                total as f64 / elapsed_s,
            );
            log::warn!("{message}");
            let _ = writer.note(&Note { frame_number: frame.frame_number, text: message.clone() });
            self.warnings.push(message);
        }
        if let Some(callback) = self.on_bytes.as_mut() {
            callback(BytesWritten {
                frame_number: frame.frame_number,
                frame_bytes: total - before,
                total_bytes: total,
            });
        }
    }

    /// Writes whatever can be written; `true` once nothing is left in flight.
    fn drain(&mut self) -> bool {
        self.collect(cfg!(not(target_arch = "wasm32")))
    }

    /// Writes what is left and closes the capture; the session's warnings, including any
    /// raised here, go to `warnings`.
    fn finish(
        mut self: Box<Self>,
        reason: StopReason,
        warnings: &mut Vec<String>,
    ) -> Result<(CaptureSummary, Box<dyn CaptureSink>), RecordError> {
        let result = self.close(reason);
        *warnings = std::mem::take(&mut self.warnings);
        result
    }

    fn close(&mut self, reason: StopReason) -> Result<(CaptureSummary, Box<dyn CaptureSink>), RecordError> {
        self.collect(false);
        // Anything still in flight (a lost device) is written without its timestamps.
        while let Some(mut pending) = self.in_flight.pop_front() {
            pending.mapping = true;
            pending.set = None;
            self.complete(&mut pending);
        }
        let reason = if self.lost.load(Ordering::Acquire) { StopReason::DeviceLost } else { reason };
        // Known only now: a provider that never answered in any frame. Frame 0 is the first.
        if self.frames_written > 0
            && self.write_error.is_none()
            && let Some(text) = self.providers.as_ref().and_then(Providers::closing_note)
            && let Err(error) = self.note(0, text)
        {
            self.failed(error);
        }
        for record in std::mem::take(&mut self.memory_records) {
            if self.write_error.is_some() {
                break;
            }
            if let Some(Err(error)) = self.writer.as_mut().map(|writer| writer.memory(&record)) {
                self.failed(error.into());
            }
        }
        let writer = self.writer.take().ok_or(RecordError::NotStarted)?;
        let bytes_written = writer.bytes_written();
        let summary = CaptureSummary {
            level: self.level,
            frames: self.frames_written,
            bytes_written,
            dropped_spans: self.dropped_total,
            reason,
        };
        if let Some(error) = self.write_error.take() {
            return Err(error);
        }
        let sink = writer.finish().map_err(RecordError::from)?;
        let bytes_written = sink.0.snapshot().map_or(bytes_written, |bytes| bytes.len() as u64);
        Ok((CaptureSummary { bytes_written, ..summary }, sink.0))
    }

    // ---- hooks used by the graph-pass bracket and the profiled passes ----

    #[inline]
    pub(crate) fn frame_open(&self) -> bool {
        self.open.is_some()
    }

    /// Takes in the graph's structure for this frame (level `Structure` and up).
    pub(crate) fn set_graph(&mut self, graph: &Topology, culled: &[bool]) {
        if self.level < Level::Structure {
            return;
        }
        let topology = &mut self.topology;
        let mut dirty = sync::vec_clone(&mut topology.scopes, &graph.scopes);
        dirty |= sync::vec_clone(&mut topology.graph_passes, &graph.graph_passes);
        let resources = sync::vec_clone(&mut topology.resources, &graph.resources);
        self.topology_dirty |= dirty | resources;
        if let Some(providers) = self.providers.as_mut() {
            providers.graph(&self.topology.resources, resources);
        }
        if let Some(open) = self.open.as_mut() {
            open.frame.culled.clear();
            open.frame.culled.extend_from_slice(culled);
        }
    }

    /// Says once per label, at Workload and up, that a pass timed through a
    /// [`crate::PassTimer`] has no recorded commands: absent, not zero.
    pub(crate) fn timed_only(&mut self, label: &str) {
        if self.level < Level::Workload || self.timed_only_noted.iter().any(|known| known == label) {
            return;
        }
        self.timed_only_noted.push(label.to_owned());
        let Some(open) = self.open.as_ref() else { return };
        let frame_number = open.frame.frame_number;
        let text = format!(
            "sgpt-recorder: GPU pass {label:?} is begun by the application and timed through a PassTimer: its time is recorded, its commands (draws, dispatches, pipelines) are not"
        );
        if self.write_error.is_none()
            && let Err(error) = self.note(frame_number, text)
        {
            self.failed(error);
        }
    }

    /// The index of the graph pass named `name`: the first one of that name, or a new one
    /// at the end, named so.
    pub(crate) fn graph_pass_named(&mut self, name: &str) -> u32 {
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
    pub(crate) fn check_graph_pass_name(&self, graph_pass: u32, name: &str) -> Result<(), RecordError> {
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
    pub(crate) fn enter_graph_pass(&mut self, graph_pass: u32, name: &str) {
        if self.level >= Level::Structure {
            let passes = &mut self.topology.graph_passes;
            if passes.len() <= graph_pass as usize {
                passes.resize_with(graph_pass as usize + 1, sgpt_format::GraphPass::default);
                self.topology_dirty = true;
            }
            let pass = &mut passes[graph_pass as usize];
            if pass.name.is_empty() {
                self.topology_dirty |= sync::string(&mut pass.name, name);
            }
        }
        self.graph_pass = Some(graph_pass);
        sync::string(&mut self.bracket_name, name);
    }

    /// CPU time of one graph pass's bracket.
    pub(crate) fn graph_pass_cpu(&mut self, graph_pass: u32, begin_ns: u64, end_ns: u64) {
        if self.level < Level::Structure {
            return;
        }
        if let Some(open) = self.open.as_mut() {
            open.frame.cpu_spans.push(CpuSpan { graph_pass, begin_ns, end_ns });
        }
    }

    fn format_name(&mut self, format: wgpu::TextureFormat) -> usize {
        if let Some(at) = self.format_names.iter().position(|(known, _)| *known == format) {
            return at;
        }
        self.format_names.push((format, crate::footprint::format_name(format)));
        self.format_names.len() - 1
    }

    /// Registers a GPU pass (or marker region) and claims its span's two queries.
    /// Returns the pass index and the first query index, if a slot was free. A pass
    /// without a label takes its bracket's name, so two unlabeled passes of different
    /// graph passes stay apart even at level Timing.
    pub(crate) fn begin_gpu_pass(
        &mut self,
        kind: GpuPassKind,
        label: Option<&str>,
        parent: Option<u32>,
        attachments: &[AttachmentInfo],
        timed: bool,
        encoder: EncoderKey,
    ) -> (u32, Option<u32>) {
        let index = self.gpu_pass_count;
        self.gpu_pass_count += 1;
        let graph_pass = if self.level >= Level::Structure { self.graph_pass } else { None };
        let with_attachments = self.level >= Level::Workload;
        // Attachment format names, looked up before the topology is borrowed.
        let mut names = [0usize; 9];
        if with_attachments {
            for (slot, attachment) in names.iter_mut().zip(attachments) {
                *slot = self.format_name(attachment.format);
            }
        }
        let attachments = if with_attachments { &attachments[..attachments.len().min(names.len())] } else { &[] };
        let label = match (label, self.graph_pass) {
            (Some(label), _) => label,
            (None, Some(_)) => self.bracket_name.as_str(),
            (None, None) if kind == GpuPassKind::Render => "render pass",
            (None, None) => "compute pass",
        };
        let passes = &mut self.topology.gpu_passes;
        if passes.len() <= index as usize {
            passes.push(GpuPass::default());
            self.topology_dirty = true;
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
        self.topology_dirty |= dirty;

        let span_kind = if kind == GpuPassKind::Marker { SpanKind::SubPass } else { SpanKind::Pass };
        let query = if timed { self.claim_span(index, span_kind, encoder) } else { None };
        (index, query)
    }

    fn claim_span(&mut self, pass: u32, kind: SpanKind, encoder: EncoderKey) -> Option<u32> {
        if !self.capabilities.timestamps {
            return None;
        }
        let open = self.open.as_mut()?;
        let set = open.set.and_then(|set| self.pool.as_ref().map(|pool| &pool.sets[set]));
        let spans = open.frame.spans.len() as u32;
        match set {
            Some(set) if spans < self.max_spans => {
                open.frame.spans.push(Span { pass, kind, query_set: set.id, begin_ns: 0, end_ns: 0 });
                open.slots.push(SpanSlot { encoder, resolved: false });
                Some(spans * 2)
            }
            _ => {
                open.frame.dropped_spans += 1;
                None
            }
        }
    }

    /// The open frame's query set.
    pub(crate) fn query_set(&self) -> Option<&wgpu::QuerySet> {
        let set = self.open.as_ref()?.set?;
        self.pool.as_ref()?.sets[set].query_set.as_ref()
    }

    #[inline]
    pub(crate) fn record(&mut self, gpu_pass: u32, pipeline: Option<u32>, op: Op, groups: &[Option<u32>]) -> u32 {
        let Some(open) = self.open.as_mut() else { return 0 };
        let command = open.frame.commands.len() as u32;
        open.frame.commands.push(Command { gpu_pass, pipeline, op });
        if self.level >= Level::Verbose {
            for (group, bind_group) in groups.iter().enumerate() {
                if let Some(bind_group) = *bind_group {
                    open.frame.bindings.push(Binding { command, group: group as u32, bind_group });
                }
            }
        }
        command
    }

    /// At `Verbose`, schedules the read-back of an indirect call's arguments.
    pub(crate) fn resolve_indirect(
        &mut self,
        encoder: EncoderKey,
        command: u32,
        buffer: &wgpu::Buffer,
        offset: u64,
        len: u64,
    ) {
        let Some(open) = self.open.as_mut() else { return };
        let Some(pool) = self.pool.as_ref() else { return };
        // Reading needs COPY_SRC on the application's buffer; without it the count stays
        // *encoded* only.
        if open.set.is_none()
            || open.indirect.len() as u32 >= pool.indirect_slots
            || !buffer.usage().contains(wgpu::BufferUsages::COPY_SRC)
        {
            return;
        }
        open.indirect.push(IndirectCopy { encoder, resolved: false, command, buffer: buffer.clone(), offset, len });
    }
}

/// A render pass attachment as the profiled pass reports it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttachmentInfo {
    pub(crate) role: sgpt_format::AttachmentRole,
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) load: sgpt_format::LoadOp,
    pub(crate) store: sgpt_format::StoreOp,
    pub(crate) stencil: Option<(sgpt_format::LoadOp, sgpt_format::StoreOp)>,
}

fn ticks_to_ns(ticks: u64, period: f64) -> u64 {
    // Period 1.0 (lavapipe, Chromium) is exact; f64 keeps sub-ns error elsewhere.
    (ticks as f64 * period).round() as u64
}

fn word_u64(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).map_or(0, |word| u64::from_le_bytes(word.try_into().unwrap_or_default()))
}

fn word_u32(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |word| u32::from_le_bytes(word.try_into().unwrap_or_default()))
}
