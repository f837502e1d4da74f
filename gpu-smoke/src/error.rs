use thiserror::Error;

/// Why [`measure_compute_pass`](crate::measure_compute_pass) could not produce a measurement.
///
/// The payloads are rendered strings rather than wgpu's error types so that the enum is `Clone`
/// and `PartialEq` (tests compare errors) and identical on native and wasm.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SmokeError {
    /// No adapter of the required backend exists (natively: no Vulkan driver such as lavapipe).
    #[error("no {backends} adapter: {reason}")]
    NoAdapter {
        /// The backend that was searched: Vulkan natively, WebGPU in the browser.
        backends: &'static str,
        /// wgpu's reason.
        reason: String,
    },
    /// The adapter exists but cannot write timestamps, so there is nothing to prove.
    #[error("adapter {adapter:?} ({backend}) does not support TIMESTAMP_QUERY")]
    NoTimestampQuery {
        /// The adapter's name.
        adapter: String,
        /// The adapter's backend.
        backend: String,
    },
    /// The adapter refused to create a device with `TIMESTAMP_QUERY`.
    #[error("requesting a device failed: {0}")]
    RequestDevice(String),
    /// wgpu reported a validation, out-of-memory or internal error while recording the pass.
    #[error("the GPU rejected the measured pass: {0}")]
    Gpu(String),
    /// Waiting for the GPU natively failed.
    #[error("waiting for the GPU failed: {0}")]
    Poll(String),
    /// Mapping the readback buffer failed, or its callback never ran.
    #[error("mapping the readback buffer failed: {0}")]
    Map(String),
    /// The compute pass did not produce what the CPU computes, so its timing proves nothing.
    #[error("the compute pass wrote {got:#010x} at element {index}, expected {expected:#010x}")]
    WrongResult {
        /// The element checked.
        index: u32,
        /// What the GPU wrote.
        got: u32,
        /// What the CPU computed.
        expected: u32,
    },
    /// The end timestamp precedes the begin timestamp.
    #[error("end timestamp {end_ticks} precedes begin timestamp {begin_ticks} (ticks)")]
    TimestampsOutOfOrder {
        /// Raw begin value.
        begin_ticks: u64,
        /// Raw end value.
        end_ticks: u64,
    },
}
