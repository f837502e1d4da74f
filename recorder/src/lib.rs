//! `sgpt-recorder`: records a wgpu application's frames into `.sgpt` captures.
//!
//! The application owns a [`ProfileSession`] and hands `Some(&mut session)` to the hooks;
//! with `None` each hook is one null check. A frame is bracketed by
//! [`ProfileSession::begin_frame`] and [`ProfileSession::end_frame`]; graph passes by a
//! [`GraphPassScope`] (or the built-in [`FrameGraph`]); GPU passes are begun through the
//! scope and come back as [`ProfiledComputePass`] / [`ProfiledRenderPass`], which deref to
//! wgpu's passes.
//!
//! ```no_run
//! use sgpt_recorder::{GraphPassScope, Level, MemorySink, ProfileSession, SessionOptions};
//!
//! fn frame(device: &wgpu::Device, queue: &wgpu::Queue, mut session: Option<&mut ProfileSession>) {
//!     if let Some(session) = session.as_deref_mut() {
//!         session.begin_frame().expect("a frame opens once");
//!     }
//!     let mut encoder = device.create_command_encoder(&Default::default());
//!     {
//!         let mut hzb = GraphPassScope::begin(session.as_deref_mut(), &mut encoder, 0, "hzb/build");
//!         for label in ["hzb mip 1", "hzb mip 2"] {
//!             let mut pass = hzb.compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), ..Default::default() });
//!             pass.dispatch_workgroups(8, 8, 1); // recorded, then forwarded to wgpu
//!         }
//!     }
//!     if let Some(session) = session.as_deref_mut() {
//!         session.resolve_queries(&mut encoder).expect("frame is open");
//!     }
//!     queue.submit([encoder.finish()]);
//!     if let Some(session) = session {
//!         session.end_frame().expect("frame is open");
//!     }
//! }
//!
//! # fn run(device: wgpu::Device, queue: wgpu::Queue, adapter: wgpu::Adapter) -> Result<(), Box<dyn std::error::Error>> {
//! let capture = MemorySink::new();
//! let mut session = ProfileSession::new(SessionOptions::at(Level::Workload), capture.clone());
//! session.start(&device, &queue, &adapter)?;
//! for _ in 0..600 {
//!     frame(&device, &queue, Some(&mut session));
//! }
//! pollster::block_on(session.stop())?;
//! std::fs::write("frames.sgpt", capture.take())?;
//! # Ok(()) }
//! ```
//!
//! Call `resolve_queries` on every encoder that began profiled passes: a span is resolved
//! only on the encoder that wrote it, so no resolve can run before its pass and read another
//! frame's values. A span never resolved is dropped and counted in the frame's
//! `dropped_spans`, never filled in.
//!
//! Where the device has `TIMESTAMP_QUERY_INSIDE_ENCODERS` (native Vulkan, Metal, D3D12; no
//! browser has it), [`timer_features`] requests it and each [`GraphPassScope`] is also timed
//! on the encoder: a GPU pass of kind `encoder`, named as the graph pass, whose span covers
//! everything the bracket recorded, copies and clears included. It is a second, independent
//! measurement beside the pass spans: a driver whose pass timestamps do not bracket the
//! work shows there as a pass span far shorter than its bracket.
//!
//! Timestamps are stored as the device reported them. Browsers quantize WebGPU
//! timestamps (Chrome to 100 µs unless `chrome://flags/#enable-webgpu-developer-features`
//! is on): the recorder neither measures nor corrects that (seed 000 §2.1). Read a
//! coarse capture across frames, not frame by frame.

mod clock;
mod device;
mod error;
mod footprint;
mod graph;
mod memory;
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
pub use graph::{FrameGraph, ListenerId, PassBuilder, PassEvent, PassListener, ResourceHandle};
pub use memory::{MemorySource, memory_record};
pub use meta::timer_features;
pub use options::{DEFAULT_BYTE_BUDGET, SessionOptions};
pub use pass::{GraphPassScope, ProfiledComputePass, ProfiledRenderPass, compute_pass, render_pass};
pub use session::{
    BytesWritten, BytesWrittenFn, CaptureSummary, DeviceLostNotifier, ProfileSession, StopFuture, StopReason,
};
pub use sgpt_format::{Level, Topology};
pub use sink::{CaptureSink, FileSink, MemorySink};
#[cfg(target_arch = "wasm32")]
pub use sink_blob::BlobSink;
pub use workload::{PipelineInfo, workgroup_size};
