//! The capture's data model: what a writer is handed and what a reader gives back.
//!
//! One set of types serves both directions, so a round trip is an equality test.
//! Every collection is a plain `Vec` the caller owns and reuses frame to frame: the
//! writer borrows them, so recording allocates nothing per frame once they are warm.

use serde::{Deserialize, Serialize};

/// How much a capture records. Each level includes everything below it (seed 000 §4.1).
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

/// The capture's context (seed 000 §3.5): without it a shared capture means nothing.
///
/// Deliberately absent: anything about timestamp quantization (seed 000 §2.1). The
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
/// and referenced by id (seed 000 §5.4). At level `Timing` it holds only `gpu_passes`.
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
    /// mip chain times its sample count. Declared, not allocated (seed 000 §3.3).
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
/// Labels are not keys (seed 000 §1.4): one graph pass may open several GPU passes with
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
    /// CPU times on the CPU clock. Never on the GPU's axis (seed 000 §2.3).
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
    /// domain (seed 000 §2.4), so the reader keeps them apart.
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
/// measurements and are never mixed (seed 000 §2.2).
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
