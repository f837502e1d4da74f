//! `sgpt-recorder`: records a wgpu application's frames into `.sgpt` captures.
//!
//! The application owns a [`ProfileSession`] and hands `Some(&mut session)` to the hooks;
//! with `None` each hook is one null check. A frame is a [`FrameScope`] (or
//! [`ProfileSession::begin_frame`] … [`ProfileSession::end_frame`]); graph passes are
//! [`GraphPassScope`]s, opened by name (or the built-in [`FrameGraph`]); GPU passes are begun
//! through the scope and come back as [`ProfiledComputePass`] / [`ProfiledRenderPass`], which
//! deref to wgpu's passes.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
//! #     backends: wgpu::Backends::VULKAN,
//! #     // Debian 12's lavapipe crashes in debug labels, which only the DEBUG flag turns on.
//! #     flags: wgpu::InstanceFlags::from_build_config().with_env().difference(wgpu::InstanceFlags::DEBUG),
//! #     ..wgpu::InstanceDescriptor::new_without_display_handle()
//! # });
//! # let Ok(adapter) = pollster::block_on(instance.request_adapter(&Default::default())) else {
//! #     assert!(std::env::var("CI").as_deref() != Ok("true"), "CI runs this on lavapipe");
//! #     return Ok(());
//! # };
//! # let features = sgpt_recorder::timer_features(&adapter);
//! # let descriptor = wgpu::DeviceDescriptor { required_features: features, ..Default::default() };
//! # let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))?;
//! # let wgsl = "@compute @workgroup_size(8, 8) fn main() {}";
//! # let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(wgsl.into()) });
//! # let blur = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor { label: None, layout: None, module: &module, entry_point: None, compilation_options: Default::default(), cache: None });
//! use sgpt_recorder::{FrameScope, Level, MemorySink, ProfileSession, RecordError, SessionOptions};
//!
//! fn frame(device: &wgpu::Device, queue: &wgpu::Queue, blur: &wgpu::ComputePipeline,
//!          session: Option<&mut ProfileSession>) -> Result<(), RecordError> {
//!     let mut frame = FrameScope::begin(session)?; // with `None`, every hook is one null check
//!     let mut encoder = device.create_command_encoder(&Default::default());
//!     {
//!         // One graph pass, by name; any number of GPU passes in it, attributed to it.
//!         let mut bloom = frame.scope(&mut encoder, "bloom");
//!         let mut pass = bloom.compute_pass(&wgpu::ComputePassDescriptor { label: Some("bloom blur"), ..Default::default() });
//!         pass.set_pipeline(blur);
//!         pass.dispatch_workgroups(8, 8, 1); // recorded, then forwarded: the pass derefs to wgpu's
//!     }
//!     frame.submit(queue, [encoder])?; // resolves the encoder's queries, submits, ends the frame
//!     Ok(())
//! }
//!
//! let capture = MemorySink::new(); // keep a handle; the session writes into a clone
//! let mut session = ProfileSession::new(SessionOptions { frame_limit: Some(600), ..SessionOptions::at(Level::Workload) }, capture.clone());
//! session.start(&device, &queue, &adapter)?;
//! let done = session.finished(); // resolved by the frame limit or by stop()
//! for _ in 0..600 { frame(&device, &queue, &blur, Some(&mut session))?; }
//! pollster::block_on(done)?;
//! # assert_eq!(session.frames_written(), 600, "the example records on the device");
//! std::fs::write(std::env::temp_dir().join("frames.sgpt"), capture.take())?;
//! # Ok(()) }
//! ```
//!
//! Call `resolve_queries` on every encoder that began profiled passes: a span is resolved
//! only on the encoder that wrote it, so no resolve can run before its pass and read another
//! frame's values. A span never resolved is dropped and counted in the frame's
//! `dropped_spans`, never filled in.
//!
//! Code that cannot hold `&mut ProfileSession` (render-graph nodes run with `&World`,
//! encoders recorded on worker threads, a renderer that owns its pass) records through a
//! [`Recorder`] from [`ProfileSession::recorder`]: `Clone`, natively `Send + Sync`, every
//! method `&self`. Its scopes (`recorder.scope(name, &mut encoder)`, nested with
//! `scope.scope(name)`, passes with `scoped_compute_pass` / `scoped_render_pass`, regions in
//! a pass the caller holds with `pass_scope`, `forget_lifetime()` ones included) and its
//! pass tokens (`compute_pass_timestamp_writes` / `render_pass_timestamp_writes` for the
//! caller's own descriptor) record exactly what the session's brackets and profiled passes
//! record: both are one front, whose query slots come from one atomic word. A scope hands
//! its record over under one short lock when it ends; the session's own passes, which hold
//! `&mut ProfileSession`, keep theirs without a lock until their encoder is resolved.
//! `recorder.resolve_queries(&mut encoder)` (or the session's, which resolves both)
//! resolves them per encoder, and `end_frame` merges every GPU pass of the frame, whichever
//! front began it, in resolve order, each encoder's in creation order: wgpu does not tell a
//! library when a command buffer is submitted, so the order in which encoders were resolved
//! is the recorder's submission order. The same guarantees hold: a span is read
//! only from the encoder that wrote it, and one never resolved there is dropped and counted.
//!
//! Where the device has `TIMESTAMP_QUERY_INSIDE_ENCODERS` (native Vulkan, Metal, D3D12; no
//! browser has it), [`timer_features`] requests it and each [`GraphPassScope`] is also timed
//! on the encoder: a GPU pass of kind `encoder`, named as the graph pass, whose span covers
//! everything the bracket recorded, copies and clears included. It is a second, independent
//! measurement beside the pass spans: a driver whose pass timestamps do not bracket the
//! work shows there as a pass span far shorter than its bracket.
//!
//! With the `wgpu-profiler` feature, a renderer already timed through wgpu-profiler (vello,
//! and what is built on it) lands in the capture: `ProfileSession::wgpu_profiler_frame`
//! (also on [`FrameScope`]) pairs each of that profiler's frames with the session frame it
//! ended in, holds the frame until its results come back, and writes every scope as a GPU
//! pass of kind `encoder` nested by `parent`, on a query set of its own that a NOTE names.
//!
//! Timestamps are stored as the device reported them. Browsers quantize WebGPU
//! timestamps (Chrome to 100 µs unless `chrome://flags/#enable-webgpu-developer-features`
//! is on): the recorder neither measures nor corrects that. Read a
//! coarse capture across frames, not frame by frame.

mod clock;
mod device;
mod encoder_key;
mod error;
mod footprint;
mod frame_scope;
mod front;
mod graph;
mod memory;
#[doc(hidden)]
// Native dev tooling: the fixtures are written on the machine that builds them.
#[cfg(not(target_arch = "wasm32"))]
pub mod memory_fixtures;
mod meta;
mod options;
mod pass;
mod providers;
mod session;
mod shared;
mod sink;
#[cfg(target_arch = "wasm32")]
mod sink_blob;
mod stale;
mod sync;
mod timer;
pub mod timing;
mod workload;

pub use error::{RecordError, StartError};
pub use footprint::{BufferDesc, TextureDesc, format_name};
pub use frame_scope::FrameScope;
pub use front::{EncoderId, EncoderScope, PassTarget, PassToken, Recorder, Scope, ScopeTarget};
pub use graph::{FrameGraph, ListenerId, PassBuilder, PassEvent, PassListener, ResourceHandle};
pub use memory::{MemorySource, memory_diff, memory_record};
pub use meta::timer_features;
pub use options::{DEFAULT_BYTE_BUDGET, SessionOptions};
pub use pass::{
    GraphPassScope, PassTimer, ProfiledComputePass, ProfiledRenderPass, compute_pass, render_pass, time_compute_pass,
    time_render_pass,
};
pub use session::{
    BytesWritten, BytesWrittenFn, CaptureSummary, DeviceLostNotifier, ProfileSession, StopFuture, StopReason,
};
pub use sgpt_format::{Level, Topology};
pub use sink::{CaptureSink, FileSink, MemorySink};
#[cfg(target_arch = "wasm32")]
pub use sink_blob::BlobSink;
pub use workload::{PipelineInfo, workgroup_size};
