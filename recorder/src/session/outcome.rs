//! What a session reports: bytes after each frame, and the summary of a finished capture.

use sgpt_format::Level;

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

pub(super) type BytesCallback = Box<dyn BytesWrittenFn>;

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
/// [`crate::MemorySink`], or take the sink back with [`crate::ProfileSession::take_sink`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureSummary {
    pub level: Level,
    pub frames: u64,
    pub bytes_written: u64,
    pub dropped_spans: u64,
    pub reason: StopReason,
}
