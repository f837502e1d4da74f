//! The caller-owned session and the per-frame recording state behind it.
//!
//! A frame goes `begin_frame` → graph-pass brackets and profiled passes →
//! `resolve_queries` on each encoder that began passes → `queue.submit` → `end_frame`. Its
//! record is written once its timestamps are read back, frames in order, so all
//! serialization happens at frame boundaries and never inside a pass.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sgpt_format::{Level, QuerySetDef, Topology, Writer, WriterOptions};

use crate::SessionOptions;
use crate::clock::CpuClock;
use crate::device::DeviceClaim;
use crate::error::{RecordError, StartError};
use crate::front::{FrontSetup, FrontShared, Recorder};
use crate::memory::{Gauges, memory_record};
use crate::meta::{self, Capabilities};
use crate::providers::Providers;
use crate::shared::Shared;
use crate::sink::{BoxedSink, CaptureSink};
use crate::timer::{TimerPool, WakeSlot};
use crate::workload::{PipelineInfo, Registry};

#[cfg(feature = "wgpu-profiler")]
mod bridge;
#[cfg(feature = "wgpu-profiler")]
mod bridge_state;
mod local;
mod local_state;
mod merge;
mod outcome;
mod pipeline;
mod stop;
mod structure;

pub(crate) use local::LocalPass;
use outcome::BytesCallback;
pub use outcome::{BytesWritten, BytesWrittenFn, CaptureSummary, StopReason};
pub(crate) use pipeline::Active;
pub use stop::StopFuture;
use stop::StopShared;
use structure::Structure;

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
    /// What the [`Recorder`] handles share with the session.
    front: Arc<FrontShared>,
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
            front: Arc::default(),
        }
    }

    /// A shareable recording handle: `Clone`, natively `Send + Sync`, every method
    /// `&self`; see [`Recorder`]. Handles taken before [`Self::start`] record once it has
    /// started. Frames still begin and end here; the handles' scopes are merged into the
    /// frame at [`Self::end_frame`].
    #[must_use]
    pub fn recorder(&self) -> Recorder {
        Recorder { shared: Arc::clone(&self.front) }
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
        self.front.set_up(FrontSetup {
            level: self.options.level,
            capabilities,
            max_spans: self.options.max_spans_per_frame,
            sets: pool
                .as_ref()
                .map(|pool| pool.sets.iter().map(crate::timer::TimerSet::handles).collect())
                .unwrap_or_default(),
        });
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
            warned: [false; 3],
            warnings: Vec::new(),
            on_bytes,
            next_frame_number: 0,
            frames_ended: 0,
            frames_written: 0,
            dropped_total: 0,
            open: None,
            in_flight: VecDeque::with_capacity(self.options.frames_in_flight as usize + 1),
            spare: Vec::new(),
            structure: Structure::new(self.options.level),
            timed_only_noted: Vec::new(),
            write_error: None,
            gauges,
            providers,
            memory_records: Vec::new(),
            front: Arc::clone(&self.front),
            local: local_state::LocalRecords::default(),
            merge: merge::MergeBuffers::default(),
            #[cfg(feature = "wgpu-profiler")]
            bridge: bridge_state::Bridge::default(),
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
            self.front.shut();
            active.structure.leave_graph_pass();
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
