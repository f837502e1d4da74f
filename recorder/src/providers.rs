//! Provider metrics in the capture (SGPT_FORMAT.md §3.8.1): memory facts owned outside the
//! ledger's domains, each a `provider/<metric>` counter sampled at `end_frame`.
//!
//! A provider that cannot answer in a session is declared, never sampled, and named in a
//! NOTE (`provider <metric> unavailable: <reason>`): unavailable is never written as 0.

use sgpt_format::{CounterDef, CounterSample, CounterUnit, Declaration, Level, ResourceNode, provider_gauge_name};

/// `provider/wasm.linear_memory`: the name [`sgpt_memory::wasm_linear_memory`] reports.
pub(crate) const LINEAR_MEMORY: &str = "wasm.linear_memory";
/// `provider/gpu.declared_bytes`.
pub(crate) const DECLARED_BYTES: &str = "gpu.declared_bytes";

/// Whether this build can read wgpu's internal counters: without wgpu's `counters` feature
/// `InternalCounter::read` returns 0, and the browser's WebGPU has none.
const WGPU_COUNTERS_BUILT: bool = cfg!(all(feature = "wgpu-counters", not(target_arch = "wasm32")));

type ReadCounter = fn(&wgpu::HalCounters) -> isize;

/// The wgpu counters recorded as `provider/wgpu.<name>`: GPU memory, and the objects that
/// hold it or descriptors (pipelines and shader modules rarely change and are left out).
const WGPU_COUNTERS: [(&str, CounterUnit, ReadCounter); 9] = [
    ("buffer_memory", CounterUnit::Bytes, |c| c.buffer_memory.read()),
    ("texture_memory", CounterUnit::Bytes, |c| c.texture_memory.read()),
    ("memory_allocations", CounterUnit::Count, |c| c.memory_allocations.read()),
    ("buffers", CounterUnit::Count, |c| c.buffers.read()),
    ("textures", CounterUnit::Count, |c| c.textures.read()),
    ("texture_views", CounterUnit::Count, |c| c.texture_views.read()),
    ("bind_groups", CounterUnit::Count, |c| c.bind_groups.read()),
    ("samplers", CounterUnit::Count, |c| c.samplers.read()),
    ("query_sets", CounterUnit::Count, |c| c.query_sets.read()),
];

/// Why wgpu's counter `name` cannot be read in this session; `None` when it can. What
/// wgpu-hal 30 keeps, backend by backend: a counter it does not keep reads 0 (or worse).
fn wgpu_unavailable(name: &str, backend: wgpu::Backend) -> Option<String> {
    use wgpu::Backend::{BrowserWebGpu, Gl, Metal, Noop, Vulkan};
    if cfg!(target_arch = "wasm32") {
        return Some("the browser's WebGPU exposes no internal counters".to_owned());
    }
    if !WGPU_COUNTERS_BUILT {
        return Some("sgpt-recorder built without the `wgpu-counters` feature".to_owned());
    }
    match (name, backend) {
        (_, Noop | BrowserWebGpu) => Some(format!("wgpu's {backend} backend keeps no counters")),
        // Vulkan copies a counter nothing adds to; the others never set it.
        ("memory_allocations", _) => Some("wgpu 30 declares it but no backend updates it".to_owned()),
        ("buffer_memory" | "texture_memory", Gl | Metal) => {
            Some(format!("wgpu's {backend} backend does not track memory"))
        }
        // Only textures made from raw handles are added; every destroyed one is subtracted.
        ("textures", Vulkan) => {
            Some("wgpu 30's vulkan backend subtracts destroyed textures but never adds created ones".to_owned())
        }
        _ => None,
    }
}

fn unavailable(metric: &str, reason: &str) -> String {
    format!("provider {metric} unavailable: {reason}")
}

/// The providers a session samples.
#[derive(Debug)]
pub(crate) struct Providers {
    /// `wasm.linear_memory`'s counter, when this build has a linear memory.
    linear_memory: Option<u32>,
    /// `gpu.declared_bytes`'s counter, when the level records frame-graph resources.
    declared_id: Option<u32>,
    /// The current topology's declared bytes, once the application handed a frame graph.
    declared: Option<u64>,
    declared_sampled: bool,
    /// Scratch for [`declared_bytes`]; keeps its capacity.
    order: Vec<u32>,
    /// The wgpu counters this session reads, with their ids; empty unless the build and
    /// the backend keep them.
    wgpu: Vec<(u32, ReadCounter)>,
    device: wgpu::Device,
    /// For the first frame: the providers that cannot answer in this session.
    notes: Vec<String>,
}

impl Providers {
    /// Declares every provider counter from `first_id` on, whether or not it can answer.
    pub(crate) fn new(
        first_id: u32,
        level: Level,
        backend: wgpu::Backend,
        device: &wgpu::Device,
    ) -> (Self, Vec<Declaration>) {
        let mut declarations = Vec::new();
        let mut notes = Vec::new();
        let mut declare = |metric: &str, unit: CounterUnit| {
            let id = first_id + declarations.len() as u32;
            declarations.push(Declaration::Counter(CounterDef { id, name: provider_gauge_name(metric), unit }));
            id
        };

        let linear = sgpt_memory::wasm_linear_memory();
        debug_assert_eq!(linear.name, LINEAR_MEMORY);
        let id = declare(LINEAR_MEMORY, CounterUnit::Bytes);
        let linear_memory = match linear.reading {
            sgpt_memory::Reading::Available(_) => Some(id),
            sgpt_memory::Reading::Unavailable(reason) => {
                notes.push(unavailable(LINEAR_MEMORY, reason));
                None
            }
        };

        let id = declare(DECLARED_BYTES, CounterUnit::Bytes);
        // Below `Structure` the recorder keeps no frame graph, so no resources.
        let declared_id = if level >= Level::Structure {
            Some(id)
        } else {
            notes.push(unavailable(DECLARED_BYTES, &format!("level {level} records no frame-graph resources")));
            None
        };

        let mut wgpu = Vec::new();
        for (name, unit, read) in WGPU_COUNTERS {
            let metric = format!("wgpu.{name}");
            let id = declare(&metric, unit);
            match wgpu_unavailable(name, backend) {
                None => wgpu.push((id, read)),
                Some(reason) => notes.push(unavailable(&metric, &reason)),
            }
        }

        let providers = Self {
            linear_memory,
            declared_id,
            declared: None,
            declared_sampled: false,
            order: Vec::new(),
            wgpu,
            device: device.clone(),
            notes,
        };
        (providers, declarations)
    }

    /// The frame graph's resources as the recorder now holds them; `changed` says they
    /// differ from the last call. Sums only on a change, so a steady frame pays nothing.
    pub(crate) fn graph(&mut self, resources: &[ResourceNode], changed: bool) {
        if changed || self.declared.is_none() {
            self.declared = Some(declared_bytes(resources, &mut self.order));
        }
    }

    /// Appends one sample per provider that can answer now. Allocates nothing.
    pub(crate) fn sample(&mut self, samples: &mut Vec<CounterSample>) {
        if let Some(counter) = self.linear_memory
            && let Some(bytes) = sgpt_memory::wasm_linear_memory().reading.value()
        {
            samples.push(CounterSample { counter, value: bytes as f64 });
        }
        if let (Some(counter), Some(bytes)) = (self.declared_id, self.declared) {
            samples.push(CounterSample { counter, value: bytes as f64 });
            self.declared_sampled = true;
        }
        if !self.wgpu.is_empty() {
            // One read for all: the values belong to the same moment.
            let counters = self.device.get_internal_counters().hal;
            for &(counter, read) in &self.wgpu {
                samples.push(CounterSample { counter, value: read(&counters) as f64 });
            }
        }
    }

    /// The notes for the first frame, once.
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// At the end: the note for `gpu.declared_bytes` when the level records resources but
    /// no frame had a frame graph, so the provider never answered.
    pub(crate) fn closing_note(&self) -> Option<String> {
        (self.declared_id.is_some() && !self.declared_sampled).then(|| {
            unavailable(DECLARED_BYTES, "no frame had a frame graph (FrameGraph::execute or ProfileSession::set_graph)")
        })
    }
}

/// Declared bytes of the resources `resources` holds versions of. The versions of one
/// resource share its allocation, so each name counts once, at its largest declaration:
/// the total `sgpt_format::analysis::resource_lifetimes` reports. `order` is scratch.
pub(crate) fn declared_bytes(resources: &[ResourceNode], order: &mut Vec<u32>) -> u64 {
    order.clear();
    order.extend(0..resources.len() as u32);
    let name = |index: u32| resources[index as usize].name.as_str();
    order.sort_unstable_by(|&a, &b| name(a).cmp(name(b)));
    order
        .chunk_by(|&a, &b| name(a) == name(b))
        .map(|versions| versions.iter().map(|&index| resources[index as usize].declared_bytes).max().unwrap_or(0))
        .fold(0, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, version: u32, declared_bytes: u64) -> ResourceNode {
        ResourceNode { name: name.to_owned(), version, declared_bytes, ..ResourceNode::default() }
    }

    #[test]
    fn declared_bytes_count_each_resource_once_across_its_versions() {
        let resources = [node("hdr", 0, 800), node("depth", 0, 400), node("hdr", 1, 800), node("output", 0, 100)];
        let mut order = Vec::new();
        assert_eq!(declared_bytes(&resources, &mut order), 1300);
        let topology = sgpt_format::Topology { resources: resources.to_vec(), ..Default::default() };
        assert_eq!(sgpt_format::analysis::resource_lifetimes(&topology, &[]).total_declared_bytes, 1300);
        assert_eq!(declared_bytes(&[], &mut order), 0, "a graph without resources declares nothing");
        let capacity = order.capacity();
        declared_bytes(&resources, &mut order);
        assert_eq!(order.capacity(), capacity, "the scratch is reused");
    }

    #[test]
    fn saturating_sums_never_wrap() {
        let resources = [node("a", 0, u64::MAX), node("b", 0, 1)];
        assert_eq!(declared_bytes(&resources, &mut Vec::new()), u64::MAX);
    }

    #[test]
    fn only_counters_a_backend_keeps_are_read() {
        use wgpu::Backend::{Dx12, Gl, Noop, Vulkan};
        if !WGPU_COUNTERS_BUILT {
            let reason = wgpu_unavailable("buffers", Vulkan);
            assert!(reason.is_some_and(|reason| reason.contains("wgpu-counters")));
            return;
        }
        assert_eq!(wgpu_unavailable("buffer_memory", Vulkan), None);
        assert_eq!(wgpu_unavailable("textures", Dx12), None);
        assert_eq!(wgpu_unavailable("buffers", Gl), None);
        assert_eq!(wgpu_unavailable("buffer_memory", Gl).as_deref(), Some("wgpu's gl backend does not track memory"));
        assert!(wgpu_unavailable("textures", Vulkan).is_some());
        assert!(wgpu_unavailable("memory_allocations", Vulkan).is_some());
        assert!(wgpu_unavailable("buffers", Noop).is_some());
    }
}
