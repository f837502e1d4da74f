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
    /// A decoded META always has one; the writer refuses a META without one.
    #[serde(skip)]
    pub level: Option<Level>,
    /// Whether the device exposed GPU timestamp queries. Without them the capture still
    /// holds CPU times, structure and workload, and no GPU spans.
    pub timestamp_query: bool,
    /// Whether timestamps inside passes were available (sub-pass markers).
    pub timestamp_query_inside_passes: bool,
    /// The GPU adapter the device was created on.
    pub adapter: AdapterInfo,
    /// Device features, by wgpu name.
    pub features: Vec<String>,
    /// The device limits that matter, by wgpu name.
    pub limits: Vec<NamedValue>,
    /// The application's name.
    pub application: String,
    /// The application's version.
    pub application_version: String,
    /// The recorder that wrote this capture, e.g. `sgpt-recorder 0.1.0`.
    pub recorder: String,
    /// Source revision of the application or recorder build.
    pub git_revision: String,
    /// Renderer settings: internal and output resolution, upscaler, enabled features.
    pub settings: Vec<NamedText>,
    /// Scene scale: mesh, instance and light counts, resident bytes.
    pub scene: Vec<NamedValue>,
    /// Wall-clock start of the session, Unix epoch, nanoseconds: a third reference,
    /// related to neither the GPU nor the CPU clock (SGPT_FORMAT.md §5). 0 when unknown.
    pub wall_clock_start_unix_ns: u64,
    /// The user's note on this session.
    pub note: String,
    /// Keys this reader does not know, kept verbatim (written by a newer writer).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The GPU adapter a capture was recorded on, mostly as wgpu's `AdapterInfo` reports it.
/// An empty string or a 0 means the backend did not report the value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AdapterInfo {
    /// The adapter's name, usually the GPU's product name.
    pub name: String,
    /// Backend-specific vendor id, usually the PCI vendor id in the low 16 bits.
    pub vendor: u32,
    /// Backend-specific device id, usually the PCI device id in the low 16 bits.
    pub device: u32,
    /// `DiscreteGpu`, `IntegratedGpu`, `Cpu`, ... as wgpu spells it.
    pub device_type: String,
    /// The driver's name.
    pub driver: String,
    /// Driver detail, such as its version.
    pub driver_info: String,
    /// The graphics backend as wgpu's `Backend::to_str` spells it (SGPT_FORMAT.md §3.2):
    /// `vulkan`, `metal`, `dx12`, `gl`, `webgpu` (the browser's WebGPU) or `noop`. Kept
    /// as written; [`AdapterInfo::backend_name`] is the name to interpret.
    pub backend: String,
    /// WebGPU's `GPUAdapterInfo.architecture`, where known.
    pub architecture: String,
}

impl AdapterInfo {
    /// The backend's name, with `browser_webgpu`, the spelling SGPT_FORMAT.md §3.2 gave
    /// the browser's WebGPU before it said what the recorder writes, read as `webgpu`:
    /// readers name and interpret both alike. Any other value is returned as written.
    #[must_use]
    pub fn backend_name(&self) -> &str {
        if self.backend == "browser_webgpu" { "webgpu" } else { &self.backend }
    }
}

/// A named number (a limit, a scene count).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NamedValue {
    /// What the number is, e.g. the wgpu limit `max_buffer_size`.
    pub name: String,
    /// The number. Always finite: JSON cannot hold NaN or infinity, so the writer refuses them.
    pub value: f64,
}

/// A named string (a renderer setting).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedText {
    /// The setting's name.
    pub name: String,
    /// Its value, as text.
    pub value: String,
}

/// Identifies a topology within one capture: the order in which TOPO records were written.
pub type TopologyId = u32;

/// A frame graph's structure: what stays the same frame to frame, so it is written once
/// and referenced by id. At level `Timing` it holds only `gpu_passes`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    /// The graph's scopes, each after its parent.
    pub scopes: Vec<Scope>,
    /// The graph's passes. [`Frame::culled`], [`CpuSpan::graph_pass`] and
    /// [`GpuPass::graph_pass`] index this list.
    pub graph_passes: Vec<GraphPass>,
    /// One node per version of each resource. The graph passes' `reads`, `writes` and
    /// `creates` index this list.
    pub resources: Vec<ResourceNode>,
    /// The GPU passes in the order the frame opens them. A span's `pass` indexes this list.
    pub gpu_passes: Vec<GpuPass>,
}

/// A `FrameGraphScope`: a named group of graph passes, nested.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// The scope's name.
    pub name: String,
    /// Index of the enclosing scope in `Topology::scopes`, or `None` at the root.
    pub parent: Option<u32>,
}

/// A frame-graph pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphPass {
    /// The name the application gave the pass.
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
    /// The resource's name, the same for all its versions.
    pub name: String,
    /// Which version of the resource this node is: 0 for the first, one more per write.
    pub version: u32,
    /// Imported resources outlive the frame; transient ones the graph creates and may alias.
    pub imported: bool,
    /// Bytes the descriptor declares: a buffer's size, a texture's blocks summed over its
    /// mip chain times its sample count. Declared, not allocated: a pooled allocator may serve more.
    pub declared_bytes: u64,
    /// The resource's descriptor.
    pub desc: ResourceDesc,
}

/// A resource's typed descriptor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ResourceDesc {
    /// Not described (level `Timing`, or an opaque imported resource).
    #[default]
    None,
    /// A buffer.
    Buffer {
        /// Size in bytes.
        size: u64,
        /// `wgpu::BufferUsages` bits.
        usage: u32,
    },
    /// A texture, as its WebGPU descriptor declares it.
    Texture {
        /// 1D, 2D or 3D.
        dimension: TextureDimension,
        /// Width of mip level 0, in texels.
        width: u32,
        /// Height of mip level 0, in texels.
        height: u32,
        /// Depth of mip level 0 for a 3D texture; the number of array layers otherwise.
        depth_or_array_layers: u32,
        /// Mip levels in the chain, level 0 included.
        mip_level_count: u32,
        /// Samples per texel: 1 unless multisampled.
        sample_count: u32,
        /// The format as WebGPU spells it, e.g. `rgba16float`.
        format: String,
        /// `wgpu::TextureUsages` bits.
        usage: u32,
    },
}

/// A texture's dimensionality.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    /// One-dimensional.
    D1,
    /// Two-dimensional, possibly an array of layers.
    #[default]
    D2,
    /// Three-dimensional.
    D3,
}

/// A GPU pass (or sub-pass marker region) the frame opens.
///
/// Labels are not keys: one graph pass may open several GPU passes with
/// unrelated labels, so each GPU pass names the graph pass that opened it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuPass {
    /// The label the pass was begun with; several GPU passes may share one. The reference
    /// recorder gives a pass begun without a label its graph pass's name.
    pub label: String,
    /// The graph pass whose bracket this GPU pass was begun inside; `None` outside any
    /// bracket, and always below level `Structure`.
    pub graph_pass: Option<u32>,
    /// Whether this is a pass, a marker region inside one, or an encoder-level pair.
    pub kind: GpuPassKind,
    /// For a sub-pass marker region: the GPU pass it lies inside.
    pub parent: Option<u32>,
    /// Render pass attachments (level `Workload` and up).
    pub attachments: Vec<Attachment>,
}

/// What a GPU pass is, and so what its spans time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuPassKind {
    /// A compute pass.
    #[default]
    Compute,
    /// A render pass.
    Render,
    /// A region between two timestamps written inside a pass.
    Marker,
    /// Timestamps written on the encoder outside any pass (copies, clears).
    Encoder,
}

impl GpuPassKind {
    /// The lower-case name, as JSON and the exports spell it.
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
    /// Whether it is a color or the depth-stencil attachment.
    pub role: AttachmentRole,
    /// The attachment's texture format as WebGPU spells it, e.g. `depth32float`.
    pub format: String,
    /// For a depth-stencil attachment these are the depth aspect's ops.
    pub load: LoadOp,
    /// What the pass does with the contents when it ends; for a depth-stencil
    /// attachment, with the depth aspect's.
    pub store: StoreOp,
    /// The stencil aspect's ops; `None` for color attachments, and for a depth-stencil
    /// attachment given no stencil ops (a depth-only format, or a read-only stencil aspect).
    pub stencil: Option<(LoadOp, StoreOp)>,
}

/// Which kind of slot a render pass attachment fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AttachmentRole {
    /// A color attachment.
    #[default]
    Color,
    /// The depth-stencil attachment.
    DepthStencil,
}

/// What a render pass does with an attachment aspect's contents when it begins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LoadOp {
    /// Keeps the previous contents.
    #[default]
    Load,
    /// Clears them (the clear value is not recorded).
    Clear,
    /// The aspect is not loaded: it is read-only, or its contents start undefined
    /// (wgpu's `DontCare`, which is not a clear).
    None,
}

/// What a render pass does with an attachment aspect's contents when it ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StoreOp {
    /// Keeps what the pass wrote.
    #[default]
    Store,
    /// Discards it: the contents are not kept past the pass.
    Discard,
    /// The aspect is not stored: it is read-only.
    None,
}

/// Things a frame references by id that are not part of the graph's structure:
/// pipelines, counters, bind groups, buffers and query sets. Each is declared once, in a
/// DECL record written before the first frame that references it.
#[derive(Clone, Debug, PartialEq)]
pub enum Declaration {
    /// A pipeline that commands name (DECL entry kind 0).
    Pipeline(Pipeline),
    /// A counter that frames sample (kind 1).
    Counter(CounterDef),
    /// A bind group that bindings name (kind 2).
    BindGroup(BindGroupDef),
    /// A buffer that indirect commands read their arguments from (kind 3).
    Buffer(BufferDef),
    /// A timestamp query set that spans come from (kind 4).
    QuerySet(QuerySetDef),
}

/// A compute or render pipeline, as the application described it. Fields the
/// application did not describe are empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The id [`Command::pipeline`] names. Compute and render pipelines share one id
    /// space; a later declaration of the same id replaces the earlier (SGPT_FORMAT.md §3.4).
    pub id: u32,
    /// The pipeline's name. The reference recorder names an undescribed one by kind and
    /// id, e.g. `compute pipeline #3`.
    pub label: String,
    /// Compute or render.
    pub kind: PipelineKind,
    /// The shader module's name (its file, or its label).
    pub shader_module: String,
    /// The shader entry point's name.
    pub entry_point: String,
    /// `@workgroup_size` from the shader; `None` when it is an override expression or
    /// otherwise unknown — never zero.
    pub workgroup_size: Option<[u32; 3]>,
}

/// Which kind of pipeline a [`Pipeline`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PipelineKind {
    /// A compute pipeline.
    #[default]
    Compute,
    /// A render pipeline.
    Render,
}

/// A counter: a named quantity frames sample, in one unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterDef {
    /// The id [`CounterSample::counter`] names.
    pub id: u32,
    /// The counter's name. Names that start with [`MEMORY_GAUGE_PREFIX`] or
    /// [`PROVIDER_GAUGE_PREFIX`] carry memory facts (SGPT_FORMAT.md §3.8.1).
    pub name: String,
    /// The unit of every sample's value.
    pub unit: CounterUnit,
}

/// The unit of a counter's values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CounterUnit {
    /// A plain number of things.
    #[default]
    Count,
    /// A size or amount in bytes.
    Bytes,
    /// A duration in nanoseconds.
    Nanoseconds,
    /// Per cent: 100 is the whole.
    Percent,
}

/// A bind group that [`Binding`]s name by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindGroupDef {
    /// The id [`Binding::bind_group`] names.
    pub id: u32,
    /// The bind group's name. The reference recorder names an undescribed one by id,
    /// e.g. `bind group #3`.
    pub label: String,
}

/// A buffer that indirect commands read their arguments from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferDef {
    /// The id [`Indirect::buffer`] names.
    pub id: u32,
    /// The buffer's name. The reference recorder names an undescribed one by id, e.g.
    /// `buffer #3`.
    pub label: String,
    /// The buffer's size in bytes, as created.
    pub size: u64,
}

/// A GPU timestamp query set. Timestamps of different sets need not share a clock
/// domain (SGPT_FORMAT.md §5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuerySetDef {
    /// The id [`Span::query_set`] names.
    pub id: u8,
    /// The set's name, e.g. `timer pool set 0`.
    pub label: String,
}

/// What changes every frame. `Frame::default()` is an empty frame; the caller fills and
/// reuses one value, clearing its vectors between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// The application's frame counter. Strictly increasing within a capture.
    pub frame_number: u64,
    /// The frame's topology: an id [`Writer::topology`](crate::Writer::topology) returned.
    pub topology: TopologyId,
    /// GPU timestamps, in nanoseconds on the device's clock, as the device reported them.
    pub spans: Vec<Span>,
    /// CPU times on the CPU clock. Never on the GPU's axis.
    pub cpu: CpuTimes,
    /// CPU encode time per graph pass, on the CPU clock.
    pub cpu_spans: Vec<CpuSpan>,
    /// One entry per graph pass of the topology: `true` when the pass was culled. Empty
    /// when cull state was not recorded (always so below level `Structure`).
    pub culled: Vec<bool>,
    /// GPU spans the recorder lost this frame; they have no entry in `spans`. A span is
    /// lost when no timer slot was free, when its encoder never resolved it, when its
    /// readback failed, or when it read back values its pass cannot have written.
    pub dropped_spans: u32,
    /// The recorder's own CPU time spent on this frame, so a reader sees the observer's cost.
    pub recorder_cost_ns: u64,
    /// Dispatches and draws, grouped by GPU pass in pass order (level `Workload` and up).
    pub commands: Vec<Command>,
    /// Bind groups set for each command (level `Verbose`).
    pub bindings: Vec<Binding>,
    /// Counter samples taken this frame. A counter without a sample has no value this
    /// frame, which is not 0.
    pub counters: Vec<CounterSample>,
}

impl Frame {
    /// This frame's sample of `counter`; `None` where the frame has none (a counter not
    /// sampled in a frame is absent from it, never 0).
    #[must_use]
    pub fn sample(&self, counter: u32) -> Option<f64> {
        self.counters.iter().find(|sample| sample.counter == counter).map(|sample| sample.value)
    }
}

/// One GPU span: the begin and end timestamps of a pass or a sub-pass marker region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Index into the topology's `gpu_passes`.
    pub pass: u32,
    /// Whether it times a whole pass or a region inside one.
    pub kind: SpanKind,
    /// The query set the timestamps came from. Sets are not specified to share a clock
    /// domain, so the reader keeps them apart.
    pub query_set: u8,
    /// Begin timestamp: nanoseconds on the GPU timestamp clock, exactly as the device
    /// reported it (SGPT_FORMAT.md §5). The clock's origin is unspecified.
    pub begin_ns: u64,
    /// End timestamp, on the same clock. It may be below `begin_ns` (an inverted or
    /// wrapped span): stored as reported, and not a defect.
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
    /// A whole pass, or an encoder-level timestamp pair.
    #[default]
    Pass,
    /// A marker region inside a pass.
    SubPass,
}

impl SpanKind {
    /// The lower-case name (`pass`, `subpass`), as JSON and the exports spell it.
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
    /// When the frame's command buffers were submitted; `None` when not recorded.
    pub submit_ns: Option<u64>,
    /// When the frame's GPU timestamps were read back on the CPU; `None` when not recorded.
    pub readback_ns: Option<u64>,
}

/// CPU encode time of one graph pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CpuSpan {
    /// Index into the topology's `graph_passes`.
    pub graph_pass: u32,
    /// When encoding of the graph pass began, nanoseconds on the CPU clock.
    pub begin_ns: u64,
    /// When it ended, on the same clock.
    pub end_ns: u64,
}

/// A dispatch or draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Command {
    /// Index into the topology's `gpu_passes`: the pass this command was recorded in.
    pub gpu_pass: u32,
    /// The pipeline set when the command was recorded (declared id).
    pub pipeline: Option<u32>,
    /// What the command was, with its arguments.
    pub op: Op,
}

/// A command's operation and the arguments it was encoded with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A dispatch of `x × y × z` workgroups.
    Dispatch {
        /// Workgroups along x.
        x: u32,
        /// Workgroups along y.
        y: u32,
        /// Workgroups along z.
        z: u32,
    },
    /// A dispatch whose workgroup counts the GPU reads from a buffer.
    DispatchIndirect {
        /// Where the counts were read from.
        indirect: Indirect,
        /// `[x, y, z]` read back after submit (level `Verbose`): *resolved*, never to be
        /// confused with counts known at encode time.
        resolved: Option<[u32; 3]>,
    },
    /// A non-indexed draw.
    Draw {
        /// Vertices per instance.
        vertices: u32,
        /// Instances drawn.
        instances: u32,
        /// Index of the first vertex.
        first_vertex: u32,
        /// Index of the first instance.
        first_instance: u32,
    },
    /// An indexed draw.
    DrawIndexed {
        /// Indices per instance.
        indices: u32,
        /// Instances drawn.
        instances: u32,
        /// Position of the first index in the index buffer.
        first_index: u32,
        /// Added to each index before the vertex is fetched.
        base_vertex: i32,
        /// Index of the first instance.
        first_instance: u32,
    },
    /// A draw whose counts the GPU reads from a buffer, indexed or not.
    DrawIndirect {
        /// Whether it is an indexed draw (`draw_indexed_indirect`).
        indexed: bool,
        /// Where the arguments were read from.
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
    /// Byte offset of the arguments in that buffer.
    pub offset: u64,
}

/// A bind group set for a command (level `Verbose`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Index into the frame's `commands`.
    pub command: u32,
    /// The bind group slot (the index `set_bind_group` was given).
    pub group: u32,
    /// Declared bind group id.
    pub bind_group: u32,
}

/// One counter's value this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterSample {
    /// Declared counter id.
    pub counter: u32,
    /// The value, in the counter's declared unit. Any `f64`, NaN included.
    pub value: f64,
}

/// A free-form annotation on a frame ("this is where it hitches").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    /// The frame it annotates; a reader does not check that such a frame was written.
    pub frame_number: u64,
    /// The note: plain text, never to be read as markup.
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
///
/// Its `time` fields read the clock the application gave the memory capture, in that
/// clock's units (0 when it gave none). No calibration relates them to the frames'
/// CPU or GPU times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryRecord {
    /// The recorder's id of this memory capture.
    pub capture_id: u64,
    /// Lifetime ids of blocks this capture saw allocated carry this epoch.
    pub epoch: u64,
    /// Whether the capture began late or from a proven empty baseline.
    pub mode: MemoryMode,
    /// First operation sequence the capture could see.
    pub begin_seq: u64,
    /// First operation sequence after it.
    pub end_seq: u64,
    /// The capture's own storage: tooling overhead, never journaled.
    pub storage_bytes: u64,
    /// The domains the capture included, with their names.
    pub domains: Vec<MemoryDomain>,
    /// The allocation sites events and blocks name; site 0 is the unknown site.
    pub sites: Vec<MemorySite>,
    /// Allocations, frees and failures in operation order.
    pub events: Vec<MemoryEvent>,
    /// Intermediate checkpoints, then the terminal one.
    pub checkpoints: Vec<MemoryCheckpoint>,
    /// What detail the capture lost, if any.
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

/// A memory domain: a named category of allocations with its own counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryDomain {
    /// The id events, blocks and counters name; 0 is the unknown domain.
    pub id: u32,
    /// The domain's name.
    pub name: String,
}

/// An allocation site: a source location, optionally named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemorySite {
    /// The id events and blocks name; 0 is the unknown site.
    pub id: u32,
    /// Source file of the allocation; empty when unknown.
    pub file: String,
    /// Line in `file`; 0 when unknown.
    pub line: u32,
    /// Column in `line`; 0 when unknown.
    pub column: u32,
    /// The site's label; empty when the site is only a location.
    pub name: String,
}

/// A block's identity, never reused: a reused address starts a new one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Lifetime {
    /// The epoch of the memory capture that saw the allocation ([`MemoryRecord::epoch`]).
    pub epoch: u64,
    /// Order of the allocation within its epoch, from 1.
    pub seq: u64,
}

/// What a journal entry records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryEventKind {
    /// A successful allocation: a new block with a new lifetime.
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
    /// Allocation, free, unknown-baseline free or failure.
    pub kind: MemoryEventKind,
    /// The block's identity: present for `Alloc` and `Free`, `None` for `UnknownFree`
    /// and `Failure`, which have none.
    pub lifetime: Option<Lifetime>,
    /// The block's origin domain (for a free, the one that allocated it).
    pub domain: u32,
    /// The allocation site (for a free, the block's); 0 when unknown.
    pub site: u32,
    /// The block's address (0 for a failure). Addresses are reused: only the lifetime
    /// identifies a block.
    pub address: u64,
    /// Requested bytes.
    pub size: u64,
    /// Requested alignment, in bytes.
    pub align: u64,
    /// The acting thread's number (not an OS thread id): the allocating thread for an
    /// allocation or failure, the freeing thread for a free.
    pub thread: u32,
    /// The capture clock at the event (see [`MemoryRecord`]).
    pub time: u64,
}

/// A live block as a checkpoint copied it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryBlock {
    /// The block's address; not an identity on its own.
    pub address: u64,
    /// The block's identity.
    pub lifetime: Lifetime,
    /// Operation sequence of the allocation.
    pub alloc_seq: u64,
    /// The domain that allocated it.
    pub domain: u32,
    /// The allocation site; 0 when unknown.
    pub site: u32,
    /// Requested bytes.
    pub size: u64,
    /// Requested alignment, in bytes.
    pub align: u64,
    /// The allocating thread's number (not an OS thread id).
    pub thread: u32,
    /// The capture clock at the allocation (see [`MemoryRecord`]).
    pub time: u64,
}

/// One domain's checked counters at one moment. Peaks of different domains happened at
/// different moments and are never summed.
///
/// They are the domain's own counters, kept whether or not a capture runs, so they
/// include blocks allocated before the capture began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainCounters {
    /// The domain counted.
    pub domain: u32,
    /// Requested bytes of blocks allocated and not yet freed.
    pub live_bytes: u64,
    /// Blocks allocated and not yet freed.
    pub live_blocks: u64,
    /// The highest `live_bytes` this domain has reached.
    pub peak_bytes: u64,
    /// Requested bytes of every successful allocation.
    pub allocated_bytes: u64,
    /// Requested bytes of every free.
    pub freed_bytes: u64,
    /// Successful allocations.
    pub allocations: u64,
    /// Frees.
    pub frees: u64,
    /// Allocations the backend refused.
    pub failures: u64,
    /// False once a counter overflowed or underflowed: the values are then bounds at best.
    pub valid: bool,
}

/// What an owner expects at a checkpoint; only `Released` lets a report call a new live
/// block a leak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryExpectation {
    /// No expectation: new live blocks are candidates to investigate, not leaks.
    #[default]
    Unspecified,
    /// The owner's blocks are expected to remain live.
    Retained,
    /// Every block allocated since the earlier checkpoint compared against is expected
    /// to be released.
    Released,
}

/// A copy of the live set and the included domains' counters at one operation boundary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryCheckpoint {
    /// The checkpoint's index within its capture.
    pub id: u32,
    /// The name the application gave it; the reference recorder names the terminal one `end`.
    pub name: String,
    /// An owner or generation id the application supplied; its meaning is the application's.
    pub owner: u64,
    /// What the owner expects of the blocks live here.
    pub expectation: MemoryExpectation,
    /// Every operation with a lower sequence precedes it, every other follows.
    pub boundary_seq: u64,
    /// The capture clock when it was taken (see [`MemoryRecord`]).
    pub time: u64,
    /// The live set is exact: no table loss or recursion before it.
    pub table_exact: bool,
    /// The journal up to here is complete too.
    pub history_complete: bool,
    /// Counters of each included domain at the boundary.
    pub domains: Vec<DomainCounters>,
    /// Live blocks seen by the capture, ordered by lifetime.
    pub live: Vec<MemoryBlock>,
}

/// Why a memory capture lost detail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryLossReason {
    /// The journal was full: events from the first lost one on are missing.
    #[default]
    JournalFull,
    /// The live table was full: a block went untracked, so live sets are no longer exact.
    TableFull,
    /// An address was allocated while already live: a broken ownership contract.
    DuplicateAddress,
    /// In complete mode, a free of a block the live table never held.
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

/// The first operation whose detail was lost, why, and how many were lost in all. The
/// count takes in every later loss of the same slot whatever its reason, so a table loss
/// that began `TableFull` may count duplicate addresses too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryLoss {
    /// Why the first operation was lost.
    pub reason: MemoryLossReason,
    /// Sequence of the first operation whose detail was lost.
    pub first_lost_seq: u64,
    /// The domain of that first lost operation.
    pub domain: u32,
    /// Operations whose detail was lost, this one included.
    pub count: u64,
}

/// Re-entered hooks: the loss is at or after `after_seq`, no exact operation is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryRecursionLoss {
    /// Hook entries whose detail was lost to re-entry.
    pub count: u64,
    /// The domain of the first of them.
    pub domain: u32,
    /// Operations already issued when the first was seen: a bound, not a lost operation's
    /// own sequence.
    pub after_seq: u64,
}

/// A memory capture's health: the detail it lost, kept outside the journal. With no
/// loss present the capture is complete; an incomplete interval is reported, never
/// interpolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryHealth {
    /// Detail lost because the journal was full; `None` when none was.
    pub journal_loss: Option<MemoryLoss>,
    /// Detail lost by the live table (full, a duplicate address, a missing entry): live
    /// sets from then on are not exact. `None` when none was.
    pub table_loss: Option<MemoryLoss>,
    /// Detail lost to re-entered hooks; `None` when none was.
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
    /// The block, as the later checkpoint copied it.
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
    /// Live at both, matched by lifetime.
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

    /// The site `id`, if the record defines it.
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
