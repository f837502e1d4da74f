//! The capture's data model: what a writer is handed and what a reader gives back.
//!
//! One set of types serves both directions, so a round trip is an equality test.
//! Every collection is a plain `Vec` the caller owns and reuses frame to frame: the
//! writer borrows them, so recording allocates nothing per frame once they are warm.

use serde::{Deserialize, Serialize};

/// How much a capture records. Each level includes everything below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// GPU pass spans and frame boundaries.
    Timing = 0,
    /// Plus the frame-graph topology, resource descriptors and cull state.
    Structure = 1,
    /// Plus dispatch/draw counts, pipeline identities and attachment state.
    Workload = 2,
    /// Plus bind groups and resolved indirect counts. Costly; meant for a repro.
    Verbose = 3,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Timing, Level::Structure, Level::Workload, Level::Verbose];

    /// The byte stored in META.
    #[must_use]
    pub fn to_byte(self) -> u8 {
        self as u8
    }

    /// The level a META byte names, if any.
    #[must_use]
    pub fn from_byte(byte: u8) -> Option<Self> {
        Self::ALL.get(usize::from(byte)).copied()
    }

    /// The lower-case name used on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Level::Timing => "timing",
            Level::Structure => "structure",
            Level::Workload => "workload",
            Level::Verbose => "verbose",
        }
    }

    /// Parses a lower-case level name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|level| level.name() == name)
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The capture's context: without it a shared capture means nothing.
///
/// Deliberately absent: anything about timestamp quantization (docs/ARCHITECTURE.md, "The container"). The
/// capture holds what the device reported; it never measures, estimates or stores a quantum.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// The level this capture was recorded at. Stored as META's first byte, not in the JSON.
    #[serde(skip)]
    pub level: Option<Level>,
    /// Whether the device exposed GPU timestamp queries. Without them the capture still
    /// holds CPU times, structure and workload, and no GPU spans.
    pub timestamp_query: bool,
    /// Whether timestamps inside passes were available (sub-pass markers).
    pub timestamp_query_inside_passes: bool,
    pub adapter: AdapterInfo,
    /// Device features, by wgpu name.
    pub features: Vec<String>,
    /// The device limits that matter, by wgpu name.
    pub limits: Vec<NamedValue>,
    /// Application name and version.
    pub application: String,
    pub application_version: String,
    /// The recorder that wrote this capture, e.g. `sgpt-recorder 0.1.0`.
    pub recorder: String,
    /// Source revision of the application or recorder build.
    pub git_revision: String,
    /// Renderer settings: internal and output resolution, upscaler, enabled features.
    pub settings: Vec<NamedText>,
    /// Scene scale: mesh, instance and light counts, resident bytes.
    pub scene: Vec<NamedValue>,
    /// Wall-clock start of the session, Unix epoch, nanoseconds.
    pub wall_clock_start_unix_ns: u64,
    /// The user's note on this session.
    pub note: String,
    /// Keys this reader does not know, kept verbatim (written by a newer writer).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The GPU adapter a capture was recorded on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AdapterInfo {
    pub name: String,
    pub vendor: u32,
    pub device: u32,
    /// `DiscreteGpu`, `IntegratedGpu`, `Cpu`, ... as wgpu spells it.
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    /// `vulkan`, `metal`, `dx12`, `gl`, `browser_webgpu`.
    pub backend: String,
    /// WebGPU's `GPUAdapterInfo.architecture`, where known.
    pub architecture: String,
}

/// A named number (a limit, a scene count).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NamedValue {
    pub name: String,
    pub value: f64,
}

/// A named string (a renderer setting).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedText {
    pub name: String,
    pub value: String,
}

/// Identifies a topology within one capture: the order in which TOPO records were written.
pub type TopologyId = u32;

/// A frame graph's structure: what stays the same frame to frame, so it is written once
/// and referenced by id. At level `Timing` it holds only `gpu_passes`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    pub scopes: Vec<Scope>,
    pub graph_passes: Vec<GraphPass>,
    pub resources: Vec<ResourceNode>,
    /// The GPU passes in the order the frame opens them. A span's `pass` indexes this list.
    pub gpu_passes: Vec<GpuPass>,
}

/// A `FrameGraphScope`: a named group of graph passes, nested.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    pub name: String,
    /// Index of the enclosing scope in `Topology::scopes`, or `None` at the root.
    pub parent: Option<u32>,
}

/// A frame-graph pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphPass {
    pub name: String,
    /// Index of the innermost enclosing scope in `Topology::scopes`.
    pub scope: Option<u32>,
    /// A pass with side effects is never culled.
    pub side_effects: bool,
    /// How many passes consume what this pass produces, as the graph's compile step counted.
    pub ref_count: u32,
    /// Resource nodes (indices into `Topology::resources`) this pass reads.
    pub reads: Vec<u32>,
    /// Resource nodes this pass writes (each write produces a new version).
    pub writes: Vec<u32>,
    /// Resource nodes this pass creates.
    pub creates: Vec<u32>,
}

/// A version of a frame-graph resource. Writing a resource produces its next version,
/// so a resource appears once per version, sharing `name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceNode {
    pub name: String,
    pub version: u32,
    /// Imported resources outlive the frame; transient ones the graph creates and may alias.
    pub imported: bool,
    /// Bytes the descriptor declares: a buffer's size, a texture's blocks summed over its
    /// mip chain times its sample count. Declared, not allocated: a pooled allocator may serve more.
    pub declared_bytes: u64,
    pub desc: ResourceDesc,
}

/// A resource's typed descriptor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ResourceDesc {
    /// Not described (level `Timing`, or an opaque imported resource).
    #[default]
    None,
    Buffer {
        size: u64,
        /// `wgpu::BufferUsages` bits.
        usage: u32,
    },
    Texture {
        dimension: TextureDimension,
        width: u32,
        height: u32,
        depth_or_array_layers: u32,
        mip_level_count: u32,
        sample_count: u32,
        /// The format as WebGPU spells it, e.g. `rgba16float`.
        format: String,
        /// `wgpu::TextureUsages` bits.
        usage: u32,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    D1,
    #[default]
    D2,
    D3,
}

/// A GPU pass (or sub-pass marker region) the frame opens.
///
/// Labels are not keys: one graph pass may open several GPU passes with
/// unrelated labels, so each GPU pass names the graph pass that opened it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuPass {
    pub label: String,
    /// The graph pass whose bracket this GPU pass was begun inside.
    pub graph_pass: Option<u32>,
    pub kind: GpuPassKind,
    /// For a sub-pass marker region: the GPU pass it lies inside.
    pub parent: Option<u32>,
    /// Render pass attachments (level `Workload` and up).
    pub attachments: Vec<Attachment>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuPassKind {
    #[default]
    Compute,
    Render,
    /// A region between two timestamps written inside a pass.
    Marker,
    /// Timestamps written on the encoder outside any pass (copies, clears).
    Encoder,
}

impl GpuPassKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GpuPassKind::Compute => "compute",
            GpuPassKind::Render => "render",
            GpuPassKind::Marker => "marker",
            GpuPassKind::Encoder => "encoder",
        }
    }
}

/// A render pass attachment and what the pass does with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attachment {
    pub role: AttachmentRole,
    pub format: String,
    /// For a depth-stencil attachment these are the depth aspect's ops.
    pub load: LoadOp,
    pub store: StoreOp,
    /// The stencil aspect's ops; `None` for color attachments and depth-only formats.
    pub stencil: Option<(LoadOp, StoreOp)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AttachmentRole {
    #[default]
    Color,
    DepthStencil,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LoadOp {
    #[default]
    Load,
    Clear,
    /// The aspect is not loaded (read-only or untouched).
    None,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StoreOp {
    #[default]
    Store,
    Discard,
    None,
}

/// Things a frame references by id that are not part of the graph's structure:
/// pipelines, counters, bind groups, buffers and query sets. Each is declared once, in a
/// DECL record written before the first frame that references it.
#[derive(Clone, Debug, PartialEq)]
pub enum Declaration {
    Pipeline(Pipeline),
    Counter(CounterDef),
    BindGroup(BindGroupDef),
    Buffer(BufferDef),
    QuerySet(QuerySetDef),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    pub id: u32,
    pub label: String,
    pub kind: PipelineKind,
    pub shader_module: String,
    pub entry_point: String,
    /// `@workgroup_size` from the shader; `None` when it is an override expression or
    /// otherwise unknown — never zero.
    pub workgroup_size: Option<[u32; 3]>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PipelineKind {
    #[default]
    Compute,
    Render,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterDef {
    pub id: u32,
    pub name: String,
    pub unit: CounterUnit,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CounterUnit {
    #[default]
    Count,
    Bytes,
    Nanoseconds,
    Percent,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindGroupDef {
    pub id: u32,
    pub label: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferDef {
    pub id: u32,
    pub label: String,
    pub size: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuerySetDef {
    pub id: u8,
    pub label: String,
}

/// What changes every frame. `Frame::default()` is an empty frame; the caller fills and
/// reuses one value, clearing its vectors between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// The application's frame counter. Strictly increasing within a capture.
    pub frame_number: u64,
    pub topology: TopologyId,
    /// GPU timestamps, in nanoseconds on the device's clock, as the device reported them.
    pub spans: Vec<Span>,
    /// CPU times on the CPU clock. Never on the GPU's axis.
    pub cpu: CpuTimes,
    /// CPU encode time per graph pass, on the CPU clock.
    pub cpu_spans: Vec<CpuSpan>,
    /// One entry per graph pass of the topology: `true` when the pass was culled.
    pub culled: Vec<bool>,
    /// Spans the recorder could not record because its timer pool was full.
    pub dropped_spans: u32,
    /// The recorder's own CPU time spent on this frame, so a reader sees the observer's cost.
    pub recorder_cost_ns: u64,
    /// Dispatches and draws, grouped by GPU pass in pass order (level `Workload` and up).
    pub commands: Vec<Command>,
    /// Bind groups set for each command (level `Verbose`).
    pub bindings: Vec<Binding>,
    /// Counter samples taken this frame.
    pub counters: Vec<CounterSample>,
}

/// One GPU span: the begin and end timestamps of a pass or a sub-pass marker region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Index into the topology's `gpu_passes`.
    pub pass: u32,
    pub kind: SpanKind,
    /// The query set the timestamps came from. Sets are not specified to share a clock
    /// domain, so the reader keeps them apart.
    pub query_set: u8,
    pub begin_ns: u64,
    pub end_ns: u64,
}

impl Span {
    /// `end - begin`, or zero when the device reported an end before the begin.
    #[must_use]
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.begin_ns)
    }
}

/// Whether a span measures a whole pass or a region inside one. The two are different
/// measurements and are never mixed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpanKind {
    #[default]
    Pass,
    SubPass,
}

impl SpanKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SpanKind::Pass => "pass",
            SpanKind::SubPass => "subpass",
        }
    }
}

/// A frame's CPU-side times, nanoseconds on the CPU clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CpuTimes {
    /// When the frame began on the CPU.
    pub begin_ns: u64,
    /// When the frame's CPU work ended.
    pub end_ns: u64,
    /// When the frame's command buffers were submitted.
    pub submit_ns: Option<u64>,
    /// When the frame's GPU timestamps were read back on the CPU.
    pub readback_ns: Option<u64>,
}

/// CPU encode time of one graph pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CpuSpan {
    /// Index into the topology's `graph_passes`.
    pub graph_pass: u32,
    pub begin_ns: u64,
    pub end_ns: u64,
}

/// A dispatch or draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Command {
    /// Index into the topology's `gpu_passes`: the pass this command was recorded in.
    pub gpu_pass: u32,
    /// The pipeline set when the command was recorded (declared id).
    pub pipeline: Option<u32>,
    pub op: Op,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Dispatch {
        x: u32,
        y: u32,
        z: u32,
    },
    DispatchIndirect {
        indirect: Indirect,
        /// `[x, y, z]` read back after submit (level `Verbose`): *resolved*, never to be
        /// confused with counts known at encode time.
        resolved: Option<[u32; 3]>,
    },
    Draw {
        vertices: u32,
        instances: u32,
        first_vertex: u32,
        first_instance: u32,
    },
    DrawIndexed {
        indices: u32,
        instances: u32,
        first_index: u32,
        base_vertex: i32,
        first_instance: u32,
    },
    DrawIndirect {
        indexed: bool,
        indirect: Indirect,
        /// `(vertex or index count, instance count)` read back after submit: *resolved*.
        resolved: Option<[u32; 2]>,
    },
}

impl Op {
    /// Whether this is a dispatch (direct or indirect).
    #[must_use]
    pub fn is_dispatch(&self) -> bool {
        matches!(self, Op::Dispatch { .. } | Op::DispatchIndirect { .. })
    }
}

/// Where an indirect command takes its arguments from: the *encoded* facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Indirect {
    /// Declared buffer id.
    pub buffer: u32,
    pub offset: u64,
}

/// A bind group set for a command (level `Verbose`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Index into the frame's `commands`.
    pub command: u32,
    pub group: u32,
    /// Declared bind group id.
    pub bind_group: u32,
}

/// One counter's value this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterSample {
    /// Declared counter id.
    pub counter: u32,
    pub value: f64,
}

/// A free-form annotation on a frame ("this is where it hitches").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    pub frame_number: u64,
    pub text: String,
}

/// Prefix of the counter names that carry per-frame memory domain gauges:
/// `memory/<domain>/<field>`, the field one of [`MEMORY_GAUGE_FIELDS`]. They are plain
/// DECL counters sampled in FRAM, so every reader (and the Chrome export) sees them.
pub const MEMORY_GAUGE_PREFIX: &str = "memory/";

/// The gauge fields a writer may sample per domain, with their units.
pub const MEMORY_GAUGE_FIELDS: [(&str, CounterUnit); 9] = [
    ("live_bytes", CounterUnit::Bytes),
    ("live_blocks", CounterUnit::Count),
    ("peak_bytes", CounterUnit::Bytes),
    ("allocated_bytes", CounterUnit::Bytes),
    ("freed_bytes", CounterUnit::Bytes),
    ("allocations", CounterUnit::Count),
    ("frees", CounterUnit::Count),
    ("failures", CounterUnit::Count),
    ("valid", CounterUnit::Count),
];

/// The counter name of one domain gauge.
#[must_use]
pub fn memory_gauge_name(domain: &str, field: &str) -> String {
    format!("{MEMORY_GAUGE_PREFIX}{domain}/{field}")
}

/// Splits a counter name into `(domain, field)` when it is a memory gauge. The field is
/// the last segment, so a domain name may itself contain `/`.
#[must_use]
pub fn parse_memory_gauge(name: &str) -> Option<(&str, &str)> {
    let (domain, field) = name.strip_prefix(MEMORY_GAUGE_PREFIX)?.rsplit_once('/')?;
    (!domain.is_empty() && MEMORY_GAUGE_FIELDS.iter().any(|(known, _)| *known == field)).then_some((domain, field))
}

/// Prefix of the counter names that carry per-frame provider metrics:
/// `provider/<metric>`, e.g. `provider/wasm.linear_memory`. A provider is a memory fact
/// owned outside the domains (wasm linear memory, GPU bytes the topology declares,
/// wgpu's internal counters); each is its own quantity and is never summed with domain
/// gauges or with another provider.
pub const PROVIDER_GAUGE_PREFIX: &str = "provider/";

/// The counter name of one provider metric.
#[must_use]
pub fn provider_gauge_name(metric: &str) -> String {
    format!("{PROVIDER_GAUGE_PREFIX}{metric}")
}

/// The metric a provider counter names, e.g. `wasm.linear_memory`.
#[must_use]
pub fn parse_provider_gauge(name: &str) -> Option<&str> {
    name.strip_prefix(PROVIDER_GAUGE_PREFIX).filter(|metric| !metric.is_empty())
}

/// One exported memory capture (an investigative recording session), as a MEMO record
/// holds it: definitions, journal, checkpoints and health. Self-contained: its names
/// are inline, so it needs no other record to be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryRecord {
    pub capture_id: u64,
    /// Lifetime ids of blocks this capture saw allocated carry this epoch.
    pub epoch: u64,
    pub mode: MemoryMode,
    /// First operation sequence the capture could see.
    pub begin_seq: u64,
    /// First operation sequence after it.
    pub end_seq: u64,
    /// The capture's own storage: tooling overhead, never journaled.
    pub storage_bytes: u64,
    pub domains: Vec<MemoryDomain>,
    pub sites: Vec<MemorySite>,
    /// Allocations, frees and failures in operation order.
    pub events: Vec<MemoryEvent>,
    /// Intermediate checkpoints, then the terminal one.
    pub checkpoints: Vec<MemoryCheckpoint>,
    pub health: MemoryHealth,
}

/// What a memory capture can claim about history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryMode {
    /// Began late: frees of blocks allocated before it are unknown-baseline frees.
    #[default]
    Activity,
    /// Every included domain had a proven empty baseline at begin.
    Complete,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryDomain {
    pub id: u32,
    pub name: String,
}

/// An allocation site: a source location, optionally named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemorySite {
    pub id: u32,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub name: String,
}

/// A block's identity, never reused: a reused address starts a new one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Lifetime {
    pub epoch: u64,
    pub seq: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryEventKind {
    #[default]
    Alloc,
    /// The free of a block the capture saw allocated.
    Free,
    /// The free of a block allocated before the capture: no lifetime.
    UnknownFree,
    /// The backend refused an allocation.
    Failure,
}

/// One journal entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryEvent {
    /// Operation sequence, strictly increasing within the ledger.
    pub seq: u64,
    pub kind: MemoryEventKind,
    pub lifetime: Option<Lifetime>,
    /// The block's origin domain (for a free, the one that allocated it).
    pub domain: u32,
    pub site: u32,
    pub address: u64,
    /// Requested bytes.
    pub size: u64,
    pub align: u64,
    pub thread: u32,
    pub time: u64,
}

/// A live block as a checkpoint copied it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryBlock {
    pub address: u64,
    pub lifetime: Lifetime,
    /// Operation sequence of the allocation.
    pub alloc_seq: u64,
    pub domain: u32,
    pub site: u32,
    pub size: u64,
    pub align: u64,
    pub thread: u32,
    pub time: u64,
}

/// One domain's checked counters at one moment. Peaks of different domains happened at
/// different moments and are never summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainCounters {
    pub domain: u32,
    pub live_bytes: u64,
    pub live_blocks: u64,
    pub peak_bytes: u64,
    pub allocated_bytes: u64,
    pub freed_bytes: u64,
    pub allocations: u64,
    pub frees: u64,
    pub failures: u64,
    /// False once a counter overflowed or underflowed: the values are then bounds at best.
    pub valid: bool,
}

/// What an owner expects at a checkpoint; only `Released` lets a report call a new live
/// block a leak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryExpectation {
    #[default]
    Unspecified,
    Retained,
    Released,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryCheckpoint {
    pub id: u32,
    pub name: String,
    pub owner: u64,
    pub expectation: MemoryExpectation,
    /// Every operation with a lower sequence precedes it, every other follows.
    pub boundary_seq: u64,
    pub time: u64,
    /// The live set is exact: no table loss or recursion before it.
    pub table_exact: bool,
    /// The journal up to here is complete too.
    pub history_complete: bool,
    pub domains: Vec<DomainCounters>,
    /// Live blocks seen by the capture, ordered by lifetime.
    pub live: Vec<MemoryBlock>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryLossReason {
    #[default]
    JournalFull,
    TableFull,
    DuplicateAddress,
    MissingEntry,
}

impl MemoryLossReason {
    /// The reason in words, as a report prints it.
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Self::JournalFull => "journal full",
            Self::TableFull => "live table full",
            Self::DuplicateAddress => "an address allocated while already live",
            Self::MissingEntry => "a complete-mode free of a block the live table never held",
        }
    }
}

/// The first lost operation for one reason, and how many were lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryLoss {
    pub reason: MemoryLossReason,
    pub first_lost_seq: u64,
    pub domain: u32,
    pub count: u64,
}

/// Re-entered hooks: the loss is at or after `after_seq`, no exact operation is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryRecursionLoss {
    pub count: u64,
    pub domain: u32,
    pub after_seq: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryHealth {
    pub journal_loss: Option<MemoryLoss>,
    pub table_loss: Option<MemoryLoss>,
    pub recursion: Option<MemoryRecursionLoss>,
    /// Frees of blocks allocated before the capture (expected in activity mode).
    pub unknown_baseline_frees: u64,
    /// Broken ownership contracts seen by the recorder.
    pub ownership_errors: u64,
}

impl MemoryHealth {
    /// No loss of any kind: journal and live sets are exact.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.journal_loss.is_none() && self.table_loss.is_none() && self.recursion.is_none()
    }
}

/// A live block at both checkpoints, and its age at the later one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemorySurvivor {
    pub block: MemoryBlock,
    /// Operations between its allocation and the later checkpoint.
    pub age_ops: u64,
    /// Clock ticks between its allocation and the later checkpoint.
    pub age_time: u64,
}

/// The difference between two checkpoints' live sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryDiff {
    /// Live at the later checkpoint only.
    pub new_live: Vec<MemoryBlock>,
    /// Live at the earlier checkpoint only.
    pub released: Vec<MemoryBlock>,
    pub survivors: Vec<MemorySurvivor>,
    /// Both live sets are exact; otherwise the diff is no leak proof.
    pub exact: bool,
    /// The later checkpoint expected `Released` and blocks remain new-live.
    pub expectation_violated: bool,
}

impl MemoryRecord {
    /// The name of domain `id`, if the record defines it.
    #[must_use]
    pub fn domain_name(&self, id: u32) -> Option<&str> {
        self.domains.iter().find(|domain| domain.id == id).map(|domain| domain.name.as_str())
    }

    #[must_use]
    pub fn site(&self, id: u32) -> Option<&MemorySite> {
        self.sites.iter().find(|site| site.id == id)
    }

    /// New live, released and surviving blocks from checkpoint index `from` to `to`.
    /// Live sets are matched by lifetime, so a reused address is never a survivor.
    #[must_use]
    pub fn diff(&self, from: usize, to: usize) -> Option<MemoryDiff> {
        let (a, b) = (self.checkpoints.get(from)?, self.checkpoints.get(to)?);
        let mut earlier: Vec<&MemoryBlock> = a.live.iter().collect();
        let mut later: Vec<&MemoryBlock> = b.live.iter().collect();
        // Sorted by the writer, but a reader must not trust that for correctness.
        earlier.sort_by_key(|block| block.lifetime);
        later.sort_by_key(|block| block.lifetime);
        let mut diff = MemoryDiff { exact: a.table_exact && b.table_exact, ..MemoryDiff::default() };
        let (mut i, mut j) = (0, 0);
        while i < earlier.len() || j < later.len() {
            match (earlier.get(i), later.get(j)) {
                (Some(x), Some(y)) if x.lifetime == y.lifetime => {
                    diff.survivors.push(MemorySurvivor {
                        block: **y,
                        age_ops: b.boundary_seq.saturating_sub(y.alloc_seq),
                        age_time: b.time.saturating_sub(y.time),
                    });
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.lifetime < y.lifetime => {
                    diff.released.push(**x);
                    i += 1;
                }
                (Some(x), None) => {
                    diff.released.push(**x);
                    i += 1;
                }
                (_, Some(y)) => {
                    diff.new_live.push(**y);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        diff.expectation_violated = b.expectation == MemoryExpectation::Released && !diff.new_live.is_empty();
        Some(diff)
    }
}
