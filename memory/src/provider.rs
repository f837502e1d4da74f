//! Provider metrics: memory facts owned elsewhere (wasm linear memory, GPU bytes the
//! topology declares, wgpu's internal counters). Each is its own named metric family,
//! never summed with domain counters, and a provider that cannot answer reads
//! [`Reading::Unavailable`], never 0.

/// What a provider measures. Families are different quantities and are not added up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricKind {
    /// The wasm linear memory's size: capacity, not live heap and not process RSS.
    WasmLinearMemoryBytes,
    /// GPU buffer and texture bytes the frame graph's topology declares.
    GpuDeclaredBytes,
    /// One of wgpu's internal counters (natively), named by the sample.
    WgpuInternalCounter,
}

/// A provider's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    Available(u64),
    /// The provider does not exist here; the reason says why. Not zero.
    Unavailable(&'static str),
}

impl Reading {
    /// The value, if there is one.
    #[must_use]
    pub const fn value(self) -> Option<u64> {
        match self {
            Self::Available(value) => Some(value),
            Self::Unavailable(_) => None,
        }
    }
}

/// One provider sample, taken by an explicit owner call outside allocation hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderSample {
    /// A stable metric name, e.g. `"wasm.linear_memory"` or `"wgpu.buffers"`.
    pub name: &'static str,
    pub kind: MetricKind,
    pub reading: Reading,
}

/// The wasm linear memory's current size in bytes; [`Reading::Unavailable`] natively.
#[must_use]
pub fn wasm_linear_memory() -> ProviderSample {
    #[cfg(target_arch = "wasm32")]
    let reading = Reading::Available(core::arch::wasm32::memory_size(0) as u64 * 65_536);
    #[cfg(not(target_arch = "wasm32"))]
    let reading = Reading::Unavailable("not a wasm32 build");
    ProviderSample { name: "wasm.linear_memory", kind: MetricKind::WasmLinearMemoryBytes, reading }
}
