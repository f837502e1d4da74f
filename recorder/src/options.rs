//! Session settings: a plain struct with `Default` and `validate()`.

use sgpt_format::{Level, NamedText, NamedValue};

use crate::MemorySource;

/// 512 MiB: the default byte budget, past which a session warns once (and goes on).
pub const DEFAULT_BYTE_BUDGET: u64 = 512 << 20;

/// What a [`crate::ProfileSession`] records and how.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionOptions {
    /// How much to record. Each level includes everything below it.
    pub level: Level,
    /// Stop after this many frames; `None` (the default) records until `stop()`.
    /// Reaching it resolves the same future `stop()` returns.
    pub frame_limit: Option<u64>,
    /// Past this many bytes the session warns once, naming the level and the observed
    /// rate. It never truncates: full history is the point.
    pub byte_budget: u64,
    /// The user's note on this session, stored in META.
    pub note: String,
    /// Application name, version and source revision, stored in META.
    pub application: String,
    pub application_version: String,
    pub git_revision: String,
    /// Renderer settings (resolution, upscaler, enabled features), stored in META.
    pub settings: Vec<NamedText>,
    /// Scene scale (mesh, instance and light counts, resident bytes), stored in META.
    pub scene: Vec<NamedValue>,
    /// GPU spans one frame may hold. Each takes two timestamp queries; a frame that opens
    /// more passes has the rest refused and counted in `Frame::dropped_spans`.
    pub max_spans_per_frame: u32,
    /// How many frames may await their timestamps at once: the timer pool's depth. A frame
    /// that finds every set still in flight records its spans as dropped.
    pub frames_in_flight: u32,
    /// Indirect calls per frame whose arguments `Verbose` reads back; the rest stay
    /// *encoded* only.
    pub max_resolved_indirect_per_frame: u32,
    /// Install a device-lost callback so hooks on a lost device return
    /// [`crate::RecordError::DeviceLost`]. wgpu keeps one such callback per device: an
    /// application with its own sets this to `false` and forwards the loss with
    /// [`crate::ProfileSession::device_lost_notifier`].
    pub watch_device_lost: bool,
    /// A ledger whose domains (those registered by `start`) are sampled into
    /// `memory/<domain>/<field>` counters every frame; `None` records no gauges.
    pub memory: Option<MemorySource>,
    /// Samples provider metrics every frame as `provider/<metric>` counters
    /// (SGPT_FORMAT.md §3.8.1): `wasm.linear_memory` (wasm32 builds), `gpu.declared_bytes`
    /// (the frame graph's declared resource bytes, level `Structure` and up) and
    /// `wgpu.<counter>` (wgpu's internal counters: native builds with the `wgpu-counters`
    /// feature). A provider that cannot answer is declared, never sampled, and named in a
    /// note. Off by default: each provider that answers adds about 9 bytes to every frame
    /// record, and an application that does not ask keeps its bytes per frame.
    pub providers: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            level: Level::Workload,
            frame_limit: None,
            byte_budget: DEFAULT_BYTE_BUDGET,
            note: String::new(),
            application: String::new(),
            application_version: String::new(),
            git_revision: String::new(),
            settings: Vec::new(),
            scene: Vec::new(),
            max_spans_per_frame: 1024,
            frames_in_flight: 4,
            max_resolved_indirect_per_frame: 256,
            watch_device_lost: true,
            memory: None,
            providers: false,
        }
    }
}

impl SessionOptions {
    /// Options at `level`, everything else default.
    #[must_use]
    pub fn at(level: Level) -> Self {
        Self { level, ..Self::default() }
    }

    /// Checks the settings a session relies on.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.frame_limit == Some(0) {
            return Err("frame_limit must be at least 1 (None means unbounded)");
        }
        if self.max_spans_per_frame == 0 {
            return Err("max_spans_per_frame must be at least 1");
        }
        // WebGPU caps a query set at 4096 queries; each span takes two.
        if self.max_spans_per_frame > 2048 {
            return Err("max_spans_per_frame must be at most 2048 (WebGPU's 4096 queries per set)");
        }
        if !(1..=16).contains(&self.frames_in_flight) {
            return Err("frames_in_flight must be between 1 and 16");
        }
        if !self.scene.iter().all(|named| named.value.is_finite()) {
            return Err("scene values must be finite numbers");
        }
        Ok(())
    }
}
