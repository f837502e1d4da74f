//! Deterministic synthetic captures: the standard workload every figure is measured on,
//! and captures of any size for benches, fixtures and scale tests.
//!
//! The frame modelled (`--passes 200` is the standard workload):
//! - scopes of 10 GPU passes each (20 scopes for 200 passes), the same order every frame,
//!   opened by graph passes that open one to three GPU passes each;
//! - pass durations log-normal with a median of 40 µs: each pass has its own typical
//!   duration (log-normal around 40 µs, σ = 0.6) and varies frame to frame (σ = 0.2);
//! - gaps between passes log-normal around 2 µs (σ = 0.5); frames every 16.6 ms with
//!   ±0.5 ms of uniform jitter; timestamps in whole nanoseconds;
//! - a shadow refresh every 8 frames (one more GPU pass) and a resolution change halfway,
//!   so there are a few topology variants;
//! - two query sets (the first two scopes on the second, as an async-compute context
//!   would), two counters, a note on the hitch frame;
//! - workload (dispatches and draws, one indirect dispatch) at level `workload` and up;
//!   bind groups, resolved indirect counts, CPU encode spans and sub-pass markers at
//!   `verbose`.
//!
//! `quantize_ns` floors every generated timestamp to a multiple, as a default Chrome
//! does at 100 µs. The generator quantizes; the writer never knows.
//!
//! [`workload_with`] adds what a comparison is measured against ([`SynthChanges`]): other
//! runs of the same workload, one pass made slower by a fraction, and a frame-wide drift. Without them the bytes are
//! those of [`workload`].

use crate::error::WriteError;
use crate::model::{
    AdapterInfo, Attachment, AttachmentRole, BindGroupDef, Binding, BufferDef, Command, CounterDef, CounterSample,
    CounterUnit, CpuSpan, CpuTimes, Declaration, Frame, GpuPass, GpuPassKind, GraphPass, Indirect, Level, LoadOp, Meta,
    NamedText, NamedValue, Note, Op, Pipeline, PipelineKind, QuerySetDef, ResourceDesc, ResourceNode, Scope, Span,
    SpanKind, StoreOp, TextureDimension, Topology,
};
use crate::sink::Sink;
use crate::writer::{Writer, WriterOptions};

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SynthOptions {
    pub frames: u32,
    pub passes: u32,
    pub level: Level,
    pub seed: u64,
    /// Floor every timestamp to a multiple of this many nanoseconds.
    pub quantize_ns: Option<u64>,
}

impl Default for SynthOptions {
    /// The standard workload: 600 frames of 200 passes.
    fn default() -> Self {
        Self { frames: 600, passes: 200, level: Level::Timing, seed: 1, quantize_ns: None }
    }
}

/// Changes to the workload for measuring a comparison: a slowdown in one pass, a drift of
/// every pass together. The default changes nothing: the same options give the same bytes
/// as [`workload`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SynthChanges {
    /// Another run of the same workload: the frame-to-frame variation (and the drift) is
    /// drawn from this seed, while each pass's typical duration still comes from
    /// `SynthOptions::seed`. Two runs are two captures of one unchanged program.
    pub run: Option<u64>,
    /// Make the GPU pass with this label slower by this fraction (0.1 is 10 %) in every frame.
    pub slow_pass: Option<(String, f64)>,
    /// A slow frame-wide drift, as thermal throttling gives: every pass of a frame is
    /// scaled by one factor that wanders from frame to frame.
    pub drift: Option<Drift>,
}

/// A frame-wide drift: the log of the factor is a stationary AR(1) process with standard
/// deviation `sigma` and correlation time `frames` (its autocorrelation at lag `k` is
/// `exp(−k / frames)`), drawn from its own generator so the rest of the workload is the
/// one the same seed gives without drift.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drift {
    pub sigma: f64,
    pub frames: f64,
}

impl Drift {
    /// The factor of every frame, `count` of them, for `seed`.
    #[must_use]
    pub fn factors(&self, seed: u64, count: u32) -> Vec<f64> {
        let mut rng = Rng::new(seed ^ 0xd1b5_4a32_d192_ed03);
        let rho = if self.frames > 0.0 { (-1.0 / self.frames).exp() } else { 0.0 };
        let innovation = (1.0 - rho * rho).sqrt();
        let mut level = rng.normal();
        (0..count)
            .map(|_| {
                let factor = (self.sigma * level).exp();
                level = rho * level + innovation * rng.normal();
                factor
            })
            .collect()
    }
}

/// A deterministic generator (SplitMix64), so a seed always yields the same capture.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Log-normal with the given median and shape.
    pub fn log_normal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }
}

/// Everything a synthetic capture holds, before it is written.
#[derive(Clone, Debug)]
pub struct Workload {
    pub meta: Meta,
    pub declarations: Vec<Declaration>,
    /// In order of first use, so a writer assigns each its index as id.
    pub topologies: Vec<Topology>,
    /// `frame.topology` indexes `topologies`.
    pub frames: Vec<Frame>,
    /// Notes, each written after its frame.
    pub notes: Vec<Note>,
}

const SCOPE_NAMES: [&str; 20] = [
    "simulation",
    "particles",
    "culling",
    "hzb",
    "shadows",
    "depth_prepass",
    "gbuffer",
    "decals",
    "ssao",
    "lighting",
    "volumetrics",
    "sky",
    "transparent",
    "reflections",
    "taa",
    "bloom",
    "dof",
    "tonemap",
    "ui",
    "present",
];
/// GPU passes opened by each graph pass of a 10-pass scope.
const GRAPH_PASS_SHAPE: [u32; 6] = [1, 2, 1, 3, 1, 2];
const SHADOW_SCOPE: usize = 4;
const HITCH_FRAME_DIVISOR: u32 = 2;
const FRAME_NS: f64 = 16_600_000.0;

/// A pass's typical duration in ns, by label: stable across topology variants, where
/// the same pass can sit at a different index.
fn typical_ns(label: &str, seed: u64) -> f64 {
    Rng::new(xxhash_rust::xxh3::xxh3_64(label.as_bytes()) ^ seed).log_normal(40_000.0, 0.6)
}

fn scope_name(index: usize) -> String {
    match SCOPE_NAMES.get(index) {
        Some(name) => (*name).to_owned(),
        None => format!("scope_{index}"),
    }
}

fn texture(name: String, version: u32, width: u32, height: u32, format: &str, bytes_per_pixel: u64) -> ResourceNode {
    ResourceNode {
        name,
        version,
        imported: false,
        declared_bytes: u64::from(width) * u64::from(height) * bytes_per_pixel,
        desc: ResourceDesc::Texture {
            dimension: TextureDimension::D2,
            width,
            height,
            depth_or_array_layers: 1,
            mip_level_count: 1,
            sample_count: 1,
            format: format.to_owned(),
            usage: 0x10 | 0x04, // RENDER_ATTACHMENT | TEXTURE_BINDING
        },
    }
}

/// Builds one topology variant.
fn topology(options: &SynthOptions, shadow_refresh: bool, width: u32, height: u32) -> Topology {
    let structure = options.level >= Level::Structure;
    let workload = options.level >= Level::Workload;
    let verbose = options.level >= Level::Verbose;
    let mut topology = Topology::default();
    let scope_count = options.passes.div_ceil(10) as usize;
    let mut gpu_left = options.passes;
    let mut previous_output: Option<u32> = None;
    if structure {
        topology.resources.push(ResourceNode {
            name: "swapchain".into(),
            version: 0,
            imported: true,
            declared_bytes: u64::from(width) * u64::from(height) * 4,
            desc: ResourceDesc::None,
        });
    }
    for scope_index in 0..scope_count {
        let scope_id = scope_index as u32;
        if structure {
            topology.scopes.push(Scope { name: scope_name(scope_index), parent: None });
        }
        let mut gpu_in_scope = 0;
        for (graph_index, &opens) in GRAPH_PASS_SHAPE.iter().enumerate() {
            if gpu_left == 0 || gpu_in_scope >= 10 {
                break;
            }
            let graph_id = topology.graph_passes.len() as u32;
            let name = format!("{}.pass{graph_index}", scope_name(scope_index));
            if structure {
                let output = topology.resources.len() as u32;
                let compute = scope_index < 4;
                topology.resources.push(if compute {
                    ResourceNode {
                        name: format!("{name}.out"),
                        version: 0,
                        imported: false,
                        declared_bytes: 4 << 20,
                        desc: ResourceDesc::Buffer { size: 4 << 20, usage: 0x80 | 0x100 },
                    }
                } else {
                    texture(format!("{name}.out"), 0, width, height, "rgba16float", 8)
                });
                let is_present = scope_index + 1 == scope_count && graph_index == 0;
                let mut writes = vec![output];
                if is_present {
                    writes.push(0);
                }
                topology.graph_passes.push(GraphPass {
                    name: name.clone(),
                    scope: Some(scope_id),
                    side_effects: is_present,
                    ref_count: 1,
                    reads: previous_output.into_iter().collect(),
                    writes,
                    creates: vec![output],
                });
                previous_output = Some(output);
            }
            for sub in 0..opens.min(gpu_left).min(10 - gpu_in_scope) {
                let compute = scope_index < 4;
                topology.gpu_passes.push(GpuPass {
                    label: if opens > 1 { format!("{name}.{sub}") } else { name.clone() },
                    graph_pass: structure.then_some(graph_id),
                    kind: if compute { GpuPassKind::Compute } else { GpuPassKind::Render },
                    parent: None,
                    attachments: if workload && !compute {
                        vec![
                            Attachment {
                                role: AttachmentRole::Color,
                                format: "rgba16float".into(),
                                load: LoadOp::Clear,
                                store: StoreOp::Store,
                                stencil: None,
                            },
                            Attachment {
                                role: AttachmentRole::DepthStencil,
                                format: "depth24plus-stencil8".into(),
                                load: LoadOp::Load,
                                store: StoreOp::Discard,
                                stencil: Some((LoadOp::Load, StoreOp::Discard)),
                            },
                        ]
                    } else {
                        Vec::new()
                    },
                });
                gpu_in_scope += 1;
                gpu_left -= 1;
            }
        }
        if scope_index == SHADOW_SCOPE && shadow_refresh {
            topology.gpu_passes.push(GpuPass {
                label: "shadows.cascade3.refresh".into(),
                graph_pass: structure.then_some(topology.graph_passes.len().saturating_sub(1) as u32),
                kind: GpuPassKind::Render,
                parent: None,
                attachments: Vec::new(),
            });
        }
    }
    if structure {
        // A debug branch nobody reads: culled every frame.
        let output = topology.resources.len() as u32;
        topology.resources.push(texture("debug.overlay.out".into(), 0, width, height, "rgba8unorm", 4));
        topology.graph_passes.push(GraphPass {
            name: "debug.overlay".into(),
            scope: None,
            side_effects: false,
            ref_count: 0,
            reads: previous_output.into_iter().collect(),
            writes: vec![output],
            creates: vec![output],
        });
    }
    if verbose && !topology.gpu_passes.is_empty() {
        // Two sub-pass regions inside the first render pass (timestamps inside passes).
        if let Some(parent) = topology.gpu_passes.iter().position(|pass| pass.kind == GpuPassKind::Render) {
            for region in ["opaque", "alpha_tested"] {
                topology.gpu_passes.push(GpuPass {
                    label: format!("{}/{region}", topology.gpu_passes[parent].label),
                    graph_pass: topology.gpu_passes[parent].graph_pass,
                    kind: GpuPassKind::Marker,
                    parent: Some(parent as u32),
                    attachments: Vec::new(),
                });
            }
        }
    }
    topology
}

fn meta(options: &SynthOptions) -> Meta {
    Meta {
        level: Some(options.level),
        timestamp_query: true,
        timestamp_query_inside_passes: options.level >= Level::Verbose,
        adapter: AdapterInfo {
            name: "sgpt synthetic adapter".into(),
            device_type: "Cpu".into(),
            backend: "synthetic".into(),
            driver: "sgpt synth".into(),
            ..AdapterInfo::default()
        },
        features: vec!["timestamp-query".into()],
        limits: vec![NamedValue { name: "max_compute_workgroup_size_x".into(), value: 256.0 }],
        application: "sgpt synth".into(),
        application_version: env!("CARGO_PKG_VERSION").into(),
        recorder: concat!("sgpt-format ", env!("CARGO_PKG_VERSION")).into(),
        git_revision: String::new(),
        settings: vec![NamedText { name: "resolution".into(), value: "1920x1080".into() }],
        scene: vec![NamedValue { name: "passes".into(), value: f64::from(options.passes) }],
        wall_clock_start_unix_ns: 1_764_000_000_000_000_000,
        note: format!(
            "synthetic workload: {} frames, {} passes, seed {}{}",
            options.frames,
            options.passes,
            options.seed,
            options.quantize_ns.map(|q| format!(", timestamps floored to {q} ns")).unwrap_or_default()
        ),
        extra: serde_json::Map::new(),
    }
}

fn declarations(options: &SynthOptions) -> Vec<Declaration> {
    let mut declarations = vec![
        Declaration::QuerySet(QuerySetDef { id: 0, label: "graphics".into() }),
        Declaration::QuerySet(QuerySetDef { id: 1, label: "async compute".into() }),
        Declaration::Counter(CounterDef { id: 0, name: "gpu_memory_usage".into(), unit: CounterUnit::Bytes }),
        Declaration::Counter(CounterDef { id: 1, name: "instances".into(), unit: CounterUnit::Count }),
    ];
    if options.level >= Level::Workload {
        declarations.push(Declaration::Pipeline(Pipeline {
            id: 0,
            label: "simulate".into(),
            kind: PipelineKind::Compute,
            shader_module: "simulate.wgsl".into(),
            entry_point: "main".into(),
            workgroup_size: Some([64, 1, 1]),
        }));
        declarations.push(Declaration::Pipeline(Pipeline {
            id: 1,
            label: "cull_instances".into(),
            kind: PipelineKind::Compute,
            shader_module: "cull.wgsl".into(),
            entry_point: "main".into(),
            // An override expression: unknown, never zero.
            workgroup_size: None,
        }));
        declarations.push(Declaration::Pipeline(Pipeline {
            id: 2,
            label: "mesh_opaque".into(),
            kind: PipelineKind::Render,
            shader_module: "mesh.wgsl".into(),
            entry_point: "vs_main".into(),
            workgroup_size: None,
        }));
        declarations.push(Declaration::Buffer(BufferDef { id: 0, label: "indirect_args".into(), size: 4096 }));
    }
    if options.level >= Level::Verbose {
        declarations.push(Declaration::BindGroup(BindGroupDef { id: 0, label: "frame_uniforms".into() }));
        declarations.push(Declaration::BindGroup(BindGroupDef { id: 1, label: "material".into() }));
    }
    declarations
}

/// Generates the workload for `options`.
#[must_use]
pub fn workload(options: &SynthOptions) -> Workload {
    workload_with(options, &SynthChanges::default())
}

/// Generates the workload for `options`, with `changes` applied to the pass durations.
#[must_use]
pub fn workload_with(options: &SynthOptions, changes: &SynthChanges) -> Workload {
    let run = changes.run.unwrap_or(options.seed);
    let mut rng = Rng::new(run);
    let drift = changes.drift.map(|drift| drift.factors(run, options.frames));
    let variants = [(false, 1920, 1080), (true, 1920, 1080), (false, 2560, 1440), (true, 2560, 1440)];
    let built: Vec<Topology> =
        variants.iter().map(|&(refresh, width, height)| topology(options, refresh, width, height)).collect();
    // Variants can coincide (resolution is invisible at level `timing`): keep distinct
    // contents only, in order of first use, as a writer would assign ids.
    let mut topologies: Vec<Topology> = Vec::new();
    let mut variant_index: [Option<usize>; 4] = [None; 4];
    let typical: Vec<Vec<f64>> = built
        .iter()
        .map(|topology| topology.gpu_passes.iter().map(|pass| typical_ns(&pass.label, options.seed)).collect())
        .collect();
    let quantize = |t: u64| options.quantize_ns.filter(|&q| q > 0).map_or(t, |q| t / q * q);
    let hitch_frame = options.frames / HITCH_FRAME_DIVISOR;
    let gpu_origin = 3_000_000_000u64;
    let cpu_origin = 5_000_000_000u64;

    let mut frames = Vec::with_capacity(options.frames as usize);
    let mut notes = Vec::new();
    for f in 0..options.frames {
        let variant = usize::from(f % 8 == 7) + if f >= options.frames / 2 { 2 } else { 0 };
        let topology_index = *variant_index[variant].get_or_insert_with(|| {
            topologies.iter().position(|t| *t == built[variant]).unwrap_or_else(|| {
                topologies.push(built[variant].clone());
                topologies.len() - 1
            })
        });
        let topology = &built[variant];
        let frame_start = f64::from(f) * FRAME_NS + (rng.unit() - 0.5) * 1_000_000.0;
        let mut t = gpu_origin + frame_start.max(0.0) as u64 + 200_000;
        let mut frame = Frame { frame_number: u64::from(f), topology: topology_index as u32, ..Frame::default() };
        let dropped = if options.passes >= 20 && f % 97 == 96 { 3 } else { 0 };
        let timed = topology.gpu_passes.iter().filter(|pass| pass.kind != GpuPassKind::Marker).count();
        for (index, pass) in topology.gpu_passes.iter().enumerate() {
            if pass.kind == GpuPassKind::Marker || index >= timed.saturating_sub(dropped as usize) {
                continue;
            }
            t += rng.log_normal(2_000.0, 0.5) as u64;
            let hitch = if f == hitch_frame && index % 10 == 3 { 6.0 } else { 1.0 };
            let mut duration = typical[variant][index] * hitch * (0.2 * rng.normal()).exp();
            if let Some((_, by)) = changes.slow_pass.as_ref().filter(|(label, _)| *label == pass.label) {
                duration *= 1.0 + by;
            }
            if let Some(factors) = &drift {
                duration *= factors[f as usize];
            }
            let duration = duration as u64;
            let query_set = u8::from(index < 20);
            frame.spans.push(Span {
                pass: index as u32,
                kind: SpanKind::Pass,
                query_set,
                begin_ns: quantize(t),
                end_ns: quantize(t + duration),
            });
            // Sub-pass regions inside this pass, if it has any.
            let mut region_start = t + 500;
            for (marker_index, marker) in topology.gpu_passes.iter().enumerate() {
                if marker.kind == GpuPassKind::Marker && marker.parent == Some(index as u32) {
                    let region = duration / 3;
                    frame.spans.push(Span {
                        pass: marker_index as u32,
                        kind: SpanKind::SubPass,
                        query_set,
                        begin_ns: quantize(region_start),
                        end_ns: quantize(region_start + region),
                    });
                    region_start += region + 200;
                }
            }
            t += duration;
        }
        frame.dropped_spans = dropped;

        let cpu_begin = cpu_origin + (f64::from(f) * FRAME_NS) as u64;
        let cpu_work = rng.log_normal(4_000_000.0, 0.1) as u64;
        frame.cpu = CpuTimes {
            begin_ns: cpu_begin,
            end_ns: cpu_begin + cpu_work,
            submit_ns: Some(cpu_begin + cpu_work - 50_000),
            readback_ns: Some(cpu_begin + cpu_work + 2 * 16_600_000),
        };
        frame.recorder_cost_ns = rng.log_normal(30_000.0, 0.2) as u64;
        if options.level >= Level::Structure {
            frame.culled = topology.graph_passes.iter().map(|pass| pass.ref_count == 0 && !pass.side_effects).collect();
        }
        if options.level >= Level::Verbose {
            let per_pass = cpu_work / topology.graph_passes.len().max(1) as u64;
            for (index, _) in topology.graph_passes.iter().enumerate().filter(|(i, _)| !frame.culled[*i]) {
                let begin = cpu_begin + index as u64 * per_pass;
                frame.cpu_spans.push(CpuSpan {
                    graph_pass: index as u32,
                    begin_ns: begin,
                    end_ns: begin + per_pass * 9 / 10,
                });
            }
        }
        if options.level >= Level::Workload {
            for (index, pass) in topology.gpu_passes.iter().enumerate() {
                let gpu_pass = index as u32;
                match pass.kind {
                    GpuPassKind::Compute if index == 0 => frame.commands.push(Command {
                        gpu_pass,
                        pipeline: Some(1),
                        op: Op::DispatchIndirect {
                            indirect: Indirect { buffer: 0, offset: 0 },
                            resolved: (options.level >= Level::Verbose).then_some([rng.below(512) as u32 + 1, 1, 1]),
                        },
                    }),
                    GpuPassKind::Compute => frame.commands.push(Command {
                        gpu_pass,
                        pipeline: Some(0),
                        op: Op::Dispatch { x: 1024, y: 1, z: 1 },
                    }),
                    GpuPassKind::Render => {
                        for draw in 0..3 {
                            frame.commands.push(Command {
                                gpu_pass,
                                pipeline: Some(2),
                                op: Op::DrawIndexed {
                                    indices: 3 * (1000 + draw * 250),
                                    instances: 1 + rng.below(64) as u32,
                                    first_index: 0,
                                    base_vertex: 0,
                                    first_instance: 0,
                                },
                            });
                        }
                    }
                    GpuPassKind::Marker | GpuPassKind::Encoder => {}
                }
            }
            if options.level >= Level::Verbose {
                for command in 0..frame.commands.len() as u32 {
                    frame.bindings.push(Binding { command, group: 0, bind_group: 0 });
                    frame.bindings.push(Binding { command, group: 1, bind_group: 1 });
                }
            }
        }
        frame.counters.push(CounterSample { counter: 0, value: (512u64 << 20) as f64 + f64::from(f % 60) * 65_536.0 });
        frame.counters.push(CounterSample { counter: 1, value: f64::from(10_000 + f % 100) });
        if f == hitch_frame && options.frames > 1 {
            notes.push(Note { frame_number: u64::from(f), text: "hitch: lighting passes ran 6x long".into() });
        }
        frames.push(frame);
    }
    let mut meta = meta(options);
    if let Some(run) = changes.run {
        meta.note.push_str(&format!(", run {run}"));
    }
    if let Some((label, by)) = &changes.slow_pass {
        meta.note.push_str(&format!(", {label} {:+.1} % slower", by * 100.0));
    }
    if let Some(drift) = changes.drift {
        meta.note.push_str(&format!(", drift σ {:.1} % over {} frames", drift.sigma * 100.0, drift.frames));
    }
    Workload { meta, declarations: declarations(options), topologies, frames, notes }
}

impl Workload {
    /// Writes the workload through `writer`: declarations first, each topology when a
    /// frame first uses it, notes after their frame.
    pub fn write_into<S: Sink>(&self, writer: &mut Writer<S>) -> Result<(), WriteError> {
        writer.declare(&self.declarations)?;
        let mut registered = 0usize;
        let mut notes = self.notes.iter().peekable();
        for frame in &self.frames {
            while registered <= frame.topology as usize {
                let topology =
                    self.topologies.get(registered).ok_or(WriteError::Invalid("frame topology out of range"))?;
                if writer.topology(topology)? as usize != registered {
                    return Err(WriteError::Invalid("workload topologies must be distinct, in order of first use"));
                }
                registered += 1;
            }
            writer.frame(frame)?;
            while let Some(note) = notes.next_if(|note| note.frame_number == frame.frame_number) {
                writer.note(note)?;
            }
        }
        Ok(())
    }

    /// Writes a whole, closed capture into `sink`.
    pub fn write<S: Sink>(&self, sink: S) -> Result<S, WriteError> {
        let options = WriterOptions { expected_frames: self.frames.len() };
        let mut writer = Writer::with_options(sink, &self.meta, options)?;
        self.write_into(&mut writer)?;
        writer.finish()
    }

    /// Total GPU spans.
    #[must_use]
    pub fn span_count(&self) -> usize {
        self.frames.iter().map(|frame| frame.spans.len()).sum()
    }
}

/// Generates a closed capture in memory.
#[must_use]
pub fn generate(options: &SynthOptions) -> Vec<u8> {
    // Writing into a Vec cannot fail, and the generator's topologies always precede use.
    workload(options).write(Vec::new()).unwrap_or_default()
}
