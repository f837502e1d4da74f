//! The scene and its per-frame loop, target-independent: the native binary and the web
//! page drive the same [`Scene::frame`].

use sgpt_format::{NamedText, NamedValue};
use sgpt_recorder::timing::{self, Budget, PhaseClock};
use sgpt_recorder::{
    BufferDesc, FrameGraph, GraphPassScope, PipelineInfo, ProfileSession, ProfiledRenderPass, RecordError,
    ResourceHandle, TextureDesc,
};

const SCENE_WGSL: &str = include_str!("shaders/scene.wgsl");
const PARTICLES_WGSL: &str = include_str!("shaders/particles.wgsl");
const HZB_WGSL: &str = include_str!("shaders/hzb.wgsl");
const POST_WGSL: &str = include_str!("shaders/post.wgsl");

const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const OUTPUT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const HZB: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;
const CASCADES: usize = 3;
const BLOOM_LEVELS: usize = 4;
const PARTICLE_BYTES: u64 = 32;
const PARTICLE_WORKGROUP: u32 = 64;
const HZB_WORKGROUP: u32 = 8;

/// How big the scene is and how often its structure changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneOptions {
    /// Multiplies resolution, shadow-map size, cube and particle counts. 1.0 keeps a
    /// frame well under a second on software renderers (lavapipe, SwiftShader).
    pub scale: f32,
    /// Cascades 1 and 2 are re-rendered every this many frames; cascade 0 every frame.
    pub shadow_refresh_every: u64,
    /// The internal resolution drops to three quarters, and back, every this many frames.
    pub resolution_change_every: u64,
    /// Make one GPU pass heavier, to measure what a comparison of captures finds.
    pub heavier: Option<Heavier>,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self { scale: 1.0, shadow_refresh_every: 8, resolution_change_every: 240, heavier: None }
    }
}

/// One GPU pass made heavier, the image unchanged: before its own work the pass does a
/// share `by` of it again (0.1 is 10 %), which its own work then writes over with the same
/// values. How much longer the pass takes for it depends on the pass and the device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heavier {
    pub pass: HeavierPass,
    pub by: f32,
}

/// Which pass [`Heavier`] makes heavier, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeavierPass {
    /// The HZB mip's pass (0 is `hzb copy depth`) dispatches over the first `by` of its
    /// rows of workgroups again. The HZB passes are idempotent (each writes what it read
    /// reduced). Their times spread widely between runs on lavapipe.
    Hzb(u32),
    /// Every `bloom down` pass draws its blur again over the first `by` of its target's
    /// rows (a scissor), with the same inputs, so the same values. Its time is among the
    /// steadiest of the scene between runs (about 5 %, against 15 % and more for the HZB
    /// passes). On lavapipe its time does not follow its fragments: a tenth of the rows
    /// again measured +2.5 %, 40 % of them +5 % and all of them +14 %, as most of these
    /// small passes' time is the pass itself. About 75 % adds the 10 % a comparison's
    /// power is measured at.
    BloomDown,
}

/// The label of every bloom down pass, one per level below the first.
const BLOOM_DOWN_LABEL: &str = "bloom down";

impl HeavierPass {
    fn label(self) -> &'static str {
        match self {
            Self::Hzb(mip) => HZB_LABELS.get(mip as usize).copied().unwrap_or("hzb downsample"),
            Self::BloomDown => BLOOM_DOWN_LABEL,
        }
    }
}

impl SceneOptions {
    /// These options with the GPU pass labelled `label` made heavier by `by` (see
    /// [`SceneOptions::heavier`]); `None` when that pass is not one that can be.
    #[must_use]
    pub fn with_heavier_pass(self, label: &str, by: f32) -> Option<Self> {
        let pass = if label == BLOOM_DOWN_LABEL {
            HeavierPass::BloomDown
        } else {
            HeavierPass::Hzb(HZB_LABELS.iter().position(|&l| l == label)? as u32)
        };
        Some(Self { heavier: Some(Heavier { pass, by }), ..self })
    }

    /// The labels [`SceneOptions::with_heavier_pass`] accepts.
    #[must_use]
    pub fn heavier_pass_labels() -> Vec<&'static str> {
        std::iter::once(BLOOM_DOWN_LABEL).chain(HZB_LABELS).collect()
    }
}

/// Why the scene could not be built or run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DemoError {
    #[error("scene scale must be a finite number between 0.25 and 16, got {0}")]
    Scale(String),
    #[error("a heavier pass does a share of its work again, between 0 and 1, got {0}")]
    Heavier(String),
    #[error("recording failed: {0}")]
    Record(#[from] RecordError),
    #[error("no device: {0}")]
    Device(String),
}

/// A frame-graph pass of the demo: the tag the graph hands back at execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemoPass {
    Simulate,
    Cull,
    Shadow(u8),
    Main,
    Hzb,
    BloomThreshold,
    BloomDown(u8),
    BloomUp(u8),
    Tonemap,
    DebugHeatmap,
    DebugOverlay,
}

/// Counts the scene derives from its scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneSize {
    pub width: u32,
    pub height: u32,
    pub shadow_size: u32,
    pub grid: u32,
    pub particles: u32,
}

impl SceneSize {
    fn of(scale: f32) -> Self {
        let scaled = |base: f32| ((base * scale).round() as u32).max(8);
        Self {
            width: scaled(320.0),
            height: scaled(180.0),
            shadow_size: scaled(256.0),
            grid: scaled(8.0),
            particles: ((4096.0 * scale * scale).round() as u32).max(64),
        }
    }

    #[must_use]
    pub fn instances(&self) -> u32 {
        self.grid * self.grid
    }
}

/// Textures, views and bind groups that depend on the internal resolution.
struct Targets {
    width: u32,
    height: u32,
    depth: wgpu::TextureView,
    hdr: wgpu::TextureView,
    bloom: Vec<wgpu::TextureView>,
    hzb_mips: u32,
    hzb_groups: Vec<wgpu::BindGroup>,
    threshold_group: wgpu::BindGroup,
    down_groups: Vec<wgpu::BindGroup>,
    up_groups: Vec<wgpu::BindGroup>,
    tonemap_group: wgpu::BindGroup,
}

struct Pipelines {
    simulate: wgpu::ComputePipeline,
    cull: wgpu::ComputePipeline,
    shadow: wgpu::RenderPipeline,
    main: wgpu::RenderPipeline,
    points: wgpu::RenderPipeline,
    hzb_copy: wgpu::ComputePipeline,
    hzb_down: wgpu::ComputePipeline,
    threshold: wgpu::RenderPipeline,
    blur: wgpu::RenderPipeline,
    blur_add: wgpu::RenderPipeline,
    tonemap: wgpu::RenderPipeline,
}

/// The demo scene. Build it once per device; call [`Scene::frame`] per frame.
pub struct Scene {
    device: wgpu::Device,
    queue: wgpu::Queue,
    options: SceneOptions,
    size: SceneSize,
    pipelines: Pipelines,
    globals: wgpu::Buffer,
    draw_args: wgpu::Buffer,
    simulate_args: wgpu::Buffer,
    simulate_group: wgpu::BindGroup,
    cull_group: wgpu::BindGroup,
    points_group: wgpu::BindGroup,
    shadow_maps: Vec<wgpu::TextureView>,
    shadow_globals: wgpu::BindGroup,
    shadow_groups: Vec<wgpu::BindGroup>,
    main_globals: wgpu::BindGroup,
    main_shadow: wgpu::BindGroup,
    hzb_layout: [wgpu::BindGroupLayout; 2],
    sampler: wgpu::Sampler,
    output: wgpu::TextureView,
    targets: Targets,
    graph: FrameGraph<DemoPass>,
    frame: u64,
}

impl std::fmt::Debug for Scene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scene").field("size", &self.size).field("frame", &self.frame).finish_non_exhaustive()
    }
}

fn texture(device: &wgpu::Device, label: &str, desc: &TextureDesc) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: desc.size,
        mip_level_count: desc.mip_level_count,
        sample_count: desc.sample_count,
        dimension: desc.dimension,
        format: desc.format,
        usage: desc.usage,
        view_formats: &[],
    })
}

fn view(texture: &wgpu::Texture) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}

fn mip_view(texture: &wgpu::Texture, mip: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        base_mip_level: mip,
        mip_level_count: Some(1),
        ..wgpu::TextureViewDescriptor::default()
    })
}

fn group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource<'_>],
) -> wgpu::BindGroup {
    let entries: Vec<_> = resources
        .iter()
        .enumerate()
        .map(|(binding, resource)| wgpu::BindGroupEntry { binding: binding as u32, resource: resource.clone() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

impl SceneSize {
    /// The internal resolution at `frame`: three quarters every other period.
    fn resolution(&self, options: &SceneOptions, frame: u64) -> (u32, u32) {
        let reduced = options.resolution_change_every > 0 && (frame / options.resolution_change_every) % 2 == 1;
        if reduced { ((self.width * 3 / 4).max(8), (self.height * 3 / 4).max(8)) } else { (self.width, self.height) }
    }
}

fn hzb_mips(width: u32, height: u32) -> u32 {
    // Down to 4 texels on the short side.
    (width.min(height).max(8).ilog2() - 1).max(2)
}

fn depth_desc(width: u32, height: u32) -> TextureDesc {
    TextureDesc::d2(width, height, DEPTH, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING)
}

fn hdr_desc(width: u32, height: u32) -> TextureDesc {
    TextureDesc::d2(width, height, HDR, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING)
}

fn bloom_desc(width: u32, height: u32, level: usize) -> TextureDesc {
    hdr_desc((width >> (level + 1)).max(1), (height >> (level + 1)).max(1))
}

fn hzb_desc(width: u32, height: u32) -> TextureDesc {
    TextureDesc::d2(width, height, HZB, wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING)
        .with_mips(hzb_mips(width, height))
}

fn shadow_desc(size: u32) -> TextureDesc {
    TextureDesc::d2(size, size, DEPTH, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING)
}

fn output_desc(width: u32, height: u32) -> TextureDesc {
    TextureDesc::d2(width, height, OUTPUT, wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC)
}

impl Scene {
    /// Builds the scene's pipelines and resources on `device`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, options: SceneOptions) -> Result<Self, DemoError> {
        if let Some(heavier) = options.heavier
            && !(heavier.by.is_finite() && (0.0..=1.0).contains(&heavier.by))
        {
            return Err(DemoError::Heavier(heavier.by.to_string()));
        }
        if !(options.scale.is_finite() && (0.25..=16.0).contains(&options.scale)) {
            return Err(DemoError::Scale(options.scale.to_string()));
        }
        let size = SceneSize::of(options.scale);
        let module = |label: &str, source: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let scene = module("scene.wgsl", SCENE_WGSL);
        let particles_module = module("particles.wgsl", PARTICLES_WGSL);
        let hzb_module = module("hzb.wgsl", HZB_WGSL);
        let post = module("post.wgsl", POST_WGSL);

        let compute = |label: &str, module: &wgpu::ShaderModule, entry: &str, layout: Option<&wgpu::PipelineLayout>| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout,
                module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let render = |label: &str,
                      module: &wgpu::ShaderModule,
                      vs: &str,
                      fs: Option<&str>,
                      format: Option<wgpu::TextureFormat>,
                      blend: Option<wgpu::BlendState>,
                      depth: bool,
                      topology: wgpu::PrimitiveTopology| {
            let targets =
                [format.map(|format| wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::ALL })];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: None,
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState { topology, ..wgpu::PrimitiveState::default() },
                depth_stencil: depth.then(|| wgpu::DepthStencilState {
                    format: DEPTH,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: fs.map(|fs| wgpu::FragmentState {
                    module,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let storage_layout = |sample_type: wgpu::TextureSampleType| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("hzb"),
                entries: &[
                    wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Texture {
                            sample_type,
                            view_dimension: wgpu::TextureViewDimension::D2,
                            multisampled: false,
                        },
                        count: None,
                    },
                    wgpu::BindGroupLayoutEntry {
                        binding: 1,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::StorageTexture {
                            access: wgpu::StorageTextureAccess::WriteOnly,
                            format: HZB,
                            view_dimension: wgpu::TextureViewDimension::D2,
                        },
                        count: None,
                    },
                ],
            })
        };
        // r32float is not filterable, so HZB layouts are explicit rather than derived.
        let hzb_layout = [
            storage_layout(wgpu::TextureSampleType::Depth),
            storage_layout(wgpu::TextureSampleType::Float { filterable: false }),
        ];
        let pipeline_layout = |layout: &wgpu::BindGroupLayout| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("hzb"),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            })
        };
        let additive = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent::REPLACE,
        };
        let triangles = wgpu::PrimitiveTopology::TriangleList;
        let pipelines = Pipelines {
            simulate: compute("particles.simulate", &particles_module, "simulate", None),
            cull: compute("particles.cull", &particles_module, "cull", None),
            shadow: render("shadow", &scene, "vs_shadow", None, None, None, true, triangles),
            main: render("main", &scene, "vs_main", Some("fs_main"), Some(HDR), None, true, triangles),
            points: render(
                "particles.draw",
                &particles_module,
                "vs_point",
                Some("fs_point"),
                Some(HDR),
                None,
                true,
                wgpu::PrimitiveTopology::PointList,
            ),
            hzb_copy: compute("hzb.copy", &hzb_module, "copy_depth", Some(&pipeline_layout(&hzb_layout[0]))),
            hzb_down: compute("hzb.downsample", &hzb_module, "downsample", Some(&pipeline_layout(&hzb_layout[1]))),
            threshold: render(
                "bloom.threshold",
                &post,
                "vs_fullscreen",
                Some("fs_threshold"),
                Some(HDR),
                None,
                false,
                triangles,
            ),
            blur: render("bloom.down", &post, "vs_fullscreen", Some("fs_blur"), Some(HDR), None, false, triangles),
            blur_add: render(
                "bloom.up",
                &post,
                "vs_fullscreen",
                Some("fs_blur"),
                Some(HDR),
                Some(additive),
                false,
                triangles,
            ),
            tonemap: render(
                "tonemap",
                &post,
                "vs_fullscreen",
                Some("fs_tonemap"),
                Some(OUTPUT),
                None,
                false,
                triangles,
            ),
        };

        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        let globals = buffer("globals", 16, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
        let particle_bytes = u64::from(size.particles) * PARTICLE_BYTES;
        let particles = buffer("particles", particle_bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST);
        let visible = buffer("particles.visible", u64::from(size.particles) * 4, wgpu::BufferUsages::STORAGE);
        // COPY_SRC lets a Verbose session read the arguments back (resolved counts).
        let indirect = wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_SRC;
        let draw_args =
            buffer("particles.draw_args", 16, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | indirect);
        let simulate_args = buffer("particles.simulate_args", 12, wgpu::BufferUsages::COPY_DST | indirect);
        queue.write_buffer(&particles, 0, &initial_particles(size.particles));
        let workgroups = size.particles.div_ceil(PARTICLE_WORKGROUP);
        queue.write_buffer(&simulate_args, 0, &words(&[workgroups, 1, 1]));

        let layout = |pipeline: &wgpu::ComputePipeline| pipeline.get_bind_group_layout(0);
        let simulate_group = group(
            device,
            "particles.simulate",
            &layout(&pipelines.simulate),
            &[globals.as_entire_binding(), particles.as_entire_binding()],
        );
        let cull_group = group(
            device,
            "particles.cull",
            &layout(&pipelines.cull),
            &[
                globals.as_entire_binding(),
                particles.as_entire_binding(),
                visible.as_entire_binding(),
                draw_args.as_entire_binding(),
            ],
        );
        let points_group = group(
            device,
            "particles.draw",
            &pipelines.points.get_bind_group_layout(0),
            &[globals.as_entire_binding(), particles.as_entire_binding(), visible.as_entire_binding()],
        );
        let shadow_maps: Vec<_> = (0..CASCADES)
            .map(|i| view(&texture(device, &format!("shadow cascade {i}"), &shadow_desc(size.shadow_size))))
            .collect();
        let shadow_globals =
            group(device, "globals", &pipelines.shadow.get_bind_group_layout(0), &[globals.as_entire_binding()]);
        let shadow_groups = (0..CASCADES as u32)
            .map(|i| {
                let uniform = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("cascade index"),
                    size: 16,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                queue.write_buffer(&uniform, 0, &words(&[i, 0, 0, 0]));
                group(device, "cascade", &pipelines.shadow.get_bind_group_layout(1), &[uniform.as_entire_binding()])
            })
            .collect();
        let main_globals =
            group(device, "globals", &pipelines.main.get_bind_group_layout(0), &[globals.as_entire_binding()]);
        let main_shadow = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &pipelines.main.get_bind_group_layout(1),
            entries: &[wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&shadow_maps[0]),
            }],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("linear"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..wgpu::SamplerDescriptor::default()
        });
        let output = view(&texture(device, "output", &output_desc(size.width, size.height)));
        let (width, height) = size.resolution(&options, 0);
        let targets = Targets::new(device, &pipelines, &hzb_layout, &sampler, width, height);
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            options,
            size,
            pipelines,
            globals,
            draw_args,
            simulate_args,
            simulate_group,
            cull_group,
            points_group,
            shadow_maps,
            shadow_globals,
            shadow_groups,
            main_globals,
            main_shadow,
            hzb_layout,
            sampler,
            output,
            targets,
            graph: FrameGraph::new(),
            frame: 0,
        })
    }

    #[must_use]
    pub fn size(&self) -> SceneSize {
        self.size
    }

    #[must_use]
    pub fn options(&self) -> SceneOptions {
        self.options
    }

    /// Frames drawn so far.
    #[must_use]
    pub fn frames(&self) -> u64 {
        self.frame
    }

    /// The final image (`Rgba8Unorm` at the output size, `COPY_SRC`), for a page to present.
    #[must_use]
    pub fn output(&self) -> &wgpu::Texture {
        self.output.texture()
    }

    /// The graph as compiled for the last frame.
    #[must_use]
    pub fn graph(&self) -> &FrameGraph<DemoPass> {
        &self.graph
    }

    /// The frame graph, to add pass listeners.
    pub fn graph_mut(&mut self) -> &mut FrameGraph<DemoPass> {
        &mut self.graph
    }

    /// Scene scale for META.
    #[must_use]
    pub fn scene_meta(&self) -> Vec<NamedValue> {
        let named = |name: &str, value: u32| NamedValue { name: name.to_owned(), value: f64::from(value) };
        vec![
            named("instances", self.size.instances()),
            named("particles", self.size.particles),
            named("shadow_cascades", CASCADES as u32),
            named("bloom_levels", BLOOM_LEVELS as u32),
        ]
    }

    /// Renderer settings for META.
    #[must_use]
    pub fn settings_meta(&self) -> Vec<NamedText> {
        let named = |name: &str, value: String| NamedText { name: name.to_owned(), value };
        let mut settings = vec![
            named("output_resolution", format!("{}x{}", self.size.width, self.size.height)),
            named("scale", self.options.scale.to_string()),
            named("shadow_map", format!("{0}x{0} x{CASCADES}", self.size.shadow_size)),
            named("shadow_refresh_every", self.options.shadow_refresh_every.to_string()),
            named("resolution_change_every", self.options.resolution_change_every.to_string()),
        ];
        if let Some(heavier) = self.options.heavier {
            // The share of the pass's work done again, not how much longer it takes.
            let again = format!("{}: {} % of its work again", heavier.pass.label(), heavier.by * 100.0);
            settings.push(named("heavier", again));
        }
        settings
    }

    /// Names the scene's pipelines (with their WGSL, for workgroup sizes) and indirect
    /// buffers to `session`.
    pub fn describe(&self, session: &mut ProfileSession) {
        let p = &self.pipelines;
        let compute = [
            (&p.simulate, "particles.simulate", "particles.wgsl", "simulate", PARTICLES_WGSL),
            (&p.cull, "particles.cull", "particles.wgsl", "cull", PARTICLES_WGSL),
            (&p.hzb_copy, "hzb.copy", "hzb.wgsl", "copy_depth", HZB_WGSL),
            (&p.hzb_down, "hzb.downsample", "hzb.wgsl", "downsample", HZB_WGSL),
        ];
        for (pipeline, label, shader_module, entry_point, wgsl) in compute {
            session.describe_compute_pipeline(
                pipeline,
                &PipelineInfo { label, shader_module, entry_point, wgsl: Some(wgsl) },
            );
        }
        let render = [
            (&p.shadow, "shadow", "scene.wgsl", "vs_shadow"),
            (&p.main, "main", "scene.wgsl", "fs_main"),
            (&p.points, "particles.draw", "particles.wgsl", "fs_point"),
            (&p.threshold, "bloom.threshold", "post.wgsl", "fs_threshold"),
            (&p.blur, "bloom.down", "post.wgsl", "fs_blur"),
            (&p.blur_add, "bloom.up", "post.wgsl", "fs_blur"),
            (&p.tonemap, "tonemap", "post.wgsl", "fs_tonemap"),
        ];
        for (pipeline, label, shader_module, entry_point) in render {
            session.describe_render_pipeline(pipeline, &PipelineInfo { label, shader_module, entry_point, wgsl: None });
        }
        session.name_buffer(&self.draw_args, "particles.draw_args");
        session.name_buffer(&self.simulate_args, "particles.simulate_args");
        session.name_bind_group(&self.simulate_group, "particles.simulate");
        session.name_bind_group(&self.cull_group, "particles.cull");
        session.name_bind_group(&self.points_group, "particles.draw");
    }

    /// Whether frame `frame` re-renders the far shadow cascades.
    #[must_use]
    pub fn refreshes_shadows(&self, frame: u64) -> bool {
        self.options.shadow_refresh_every <= 1 || frame.is_multiple_of(self.options.shadow_refresh_every)
    }

    /// Declares this frame's graph.
    fn build_graph(&mut self) {
        let frame = self.frame;
        let refresh = self.refreshes_shadows(frame);
        let (width, height) = (self.targets.width, self.targets.height);
        let size = self.size;
        let graph = &mut self.graph;
        graph.reset();
        let particles = graph.import_buffer(
            "particles",
            BufferDesc { size: u64::from(size.particles) * PARTICLE_BYTES, usage: wgpu::BufferUsages::STORAGE },
        );
        let draw_args =
            graph.import_buffer("particles.draw_args", BufferDesc { size: 16, usage: self.draw_args.usage() });
        let cascades: [ResourceHandle; CASCADES] =
            std::array::from_fn(|i| graph.import_texture(CASCADE_NAMES[i], shadow_desc(size.shadow_size)));
        let hzb = graph.import_texture("hzb", hzb_desc(width, height));
        let output = graph.import_texture("output", output_desc(size.width, size.height));

        graph.push_scope("particles");
        let mut simulate = graph.add_pass("particles/simulate", DemoPass::Simulate);
        let particles = simulate.read_write(particles);
        let mut cull = graph.add_pass("particles/cull", DemoPass::Cull);
        cull.read(particles);
        let draw_args = cull.write(draw_args);
        graph.pop_scope();

        graph.push_scope("shadows");
        let mut cascades_now = cascades;
        for (i, cascade) in cascades_now.iter_mut().enumerate() {
            if i == 0 || refresh {
                let mut pass = graph.add_pass(CASCADE_PASSES[i], DemoPass::Shadow(i as u8));
                *cascade = pass.write(*cascade);
            }
        }
        graph.pop_scope();

        let mut main = graph.add_pass("main", DemoPass::Main);
        let depth = main.create_texture("depth", depth_desc(width, height));
        let hdr = main.create_texture("hdr", hdr_desc(width, height));
        for cascade in cascades_now {
            main.read(cascade);
        }
        main.read(particles);
        main.read(draw_args);

        let mut hzb_pass = graph.add_pass("hzb/build", DemoPass::Hzb);
        hzb_pass.read(depth);
        hzb_pass.write(hzb);

        graph.push_scope("post");
        let mut threshold = graph.add_pass("bloom/threshold", DemoPass::BloomThreshold);
        threshold.read(hdr);
        let mut bloom = [threshold.create_texture(BLOOM_NAMES[0], bloom_desc(width, height, 0)); BLOOM_LEVELS];
        for level in 1..BLOOM_LEVELS {
            let mut down = graph.add_pass(BLOOM_DOWN[level], DemoPass::BloomDown(level as u8));
            down.read(bloom[level - 1]);
            bloom[level] = down.create_texture(BLOOM_NAMES[level], bloom_desc(width, height, level));
        }
        for level in (0..BLOOM_LEVELS - 1).rev() {
            let mut up = graph.add_pass(BLOOM_UP[level], DemoPass::BloomUp(level as u8));
            up.read(bloom[level + 1]);
            bloom[level] = up.read_write(bloom[level]);
        }
        let mut tonemap = graph.add_pass("tonemap", DemoPass::Tonemap);
        tonemap.read(hdr);
        tonemap.read(bloom[0]);
        tonemap.write(output);
        graph.pop_scope();

        // A debug branch nobody reads: compile culls both passes.
        graph.push_scope("debug");
        let mut heat = graph.add_pass("debug/hzb heatmap", DemoPass::DebugHeatmap);
        heat.read(depth);
        let heatmap = heat.create_texture("debug heatmap", hdr_desc(width, height));
        let mut overlay = graph.add_pass("debug/overlay", DemoPass::DebugOverlay);
        overlay.read(heatmap);
        let _ = overlay.create_texture("debug overlay", output_desc(width, height));
        graph.pop_scope();

        graph.compile();
    }

    /// Renders one frame, headless, recording into `session` when given. At a timing level
    /// other than `off` its phases tile an `engine` entry (see [`Scene::frame_phased`]).
    pub fn frame(&mut self, session: Option<&mut ProfileSession>) -> Result<(), DemoError> {
        let mut phases = PhaseClock::start(timing::track::PHASES);
        let result = self.frame_phased(session, &mut phases);
        phases.finish(timing::track::ENGINE, "engine", Budget::Engine);
        result
    }

    /// [`Scene::frame`], closing its phases (`update`, `encode`, `submit`) on `phases`; the
    /// caller may add its own (the page's `present`) before finishing the clock.
    pub fn frame_phased(
        &mut self,
        mut session: Option<&mut ProfileSession>,
        phases: &mut PhaseClock,
    ) -> Result<(), DemoError> {
        let (width, height) = self.size.resolution(&self.options, self.frame);
        if (width, height) != (self.targets.width, self.targets.height) {
            self.targets = Targets::new(&self.device, &self.pipelines, &self.hzb_layout, &self.sampler, width, height);
        }
        if let Some(session) = session.as_deref_mut() {
            session.begin_frame()?;
        }
        let time = self.frame as f32 / 60.0;
        let globals = [time.to_bits(), (width as f32 / height as f32).to_bits(), self.size.grid, self.size.particles];
        self.queue.write_buffer(&self.globals, 0, &words(&globals));
        self.build_graph();
        phases.phase("update");
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        let mut graph = std::mem::take(&mut self.graph);
        graph.execute(&mut encoder, session.as_deref_mut(), |pass, scope| self.encode(pass, scope));
        self.graph = graph;
        phases.phase("encode");
        if let Some(session) = session.as_deref_mut() {
            session.resolve_queries(&mut encoder)?;
        }
        self.queue.submit([encoder.finish()]);
        if let Some(session) = session {
            session.end_frame()?;
        }
        phases.phase("submit");
        self.frame += 1;
        Ok(())
    }

    fn encode(&self, pass: DemoPass, scope: &mut GraphPassScope<'_>) {
        let p = &self.pipelines;
        let t = &self.targets;
        match pass {
            DemoPass::Simulate => {
                let mut compute = scope.compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("particles simulate"),
                    timestamp_writes: None,
                });
                compute.set_pipeline(&p.simulate);
                compute.set_bind_group(0, &self.simulate_group, &[]);
                compute.dispatch_workgroups_indirect(&self.simulate_args, 0);
            }
            DemoPass::Cull => {
                scope.encoder().clear_buffer(&self.draw_args, 0, None);
                let mut compute = scope.compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("particles cull"),
                    timestamp_writes: None,
                });
                compute.set_pipeline(&p.cull);
                compute.set_bind_group(0, &self.cull_group, &[]);
                compute.dispatch_workgroups(self.size.particles.div_ceil(PARTICLE_WORKGROUP), 1, 1);
            }
            DemoPass::Shadow(cascade) => {
                let label = CASCADE_NAMES[usize::from(cascade)];
                let mut render = scope.render_pass(&wgpu::RenderPassDescriptor {
                    label: Some(label),
                    color_attachments: &[],
                    depth_stencil_attachment: Some(depth_attachment(&self.shadow_maps[usize::from(cascade)])),
                    ..wgpu::RenderPassDescriptor::default()
                });
                render.set_pipeline(&p.shadow);
                render.set_bind_group(0, &self.shadow_globals, &[]);
                render.set_bind_group(1, &self.shadow_groups[usize::from(cascade)], &[]);
                render.draw(0..36, 0..self.size.instances());
            }
            DemoPass::Main => {
                let mut render = scope.render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("main"),
                    color_attachments: &[Some(color_attachment(&t.hdr, true))],
                    depth_stencil_attachment: Some(depth_attachment(&t.depth)),
                    ..wgpu::RenderPassDescriptor::default()
                });
                render.begin_marker("cubes");
                render.set_pipeline(&p.main);
                render.set_bind_group(0, &self.main_globals, &[]);
                render.set_bind_group(1, &self.main_shadow, &[]);
                render.draw(0..36, 0..self.size.instances());
                render.end_marker();
                render.begin_marker("particles");
                render.set_pipeline(&p.points);
                render.set_bind_group(0, &self.points_group, &[]);
                render.draw_indirect(&self.draw_args, 0);
                render.end_marker();
            }
            DemoPass::Hzb => {
                // One graph pass, several GPU passes with their own labels: labels are not keys.
                for mip in 0..t.hzb_mips {
                    let label = HZB_LABELS.get(mip as usize).copied().unwrap_or("hzb downsample");
                    let mut compute =
                        scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: None });
                    compute.set_pipeline(if mip == 0 { &p.hzb_copy } else { &p.hzb_down });
                    compute.set_bind_group(0, &t.hzb_groups[mip as usize], &[]);
                    let (w, h) = ((t.width >> mip).max(1), (t.height >> mip).max(1));
                    let (columns, rows) = (w.div_ceil(HZB_WORKGROUP), h.div_ceil(HZB_WORKGROUP));
                    // The extra dispatch comes first: on lavapipe a pass's end timestamp
                    // does not wait for its last dispatch, so extra work after it landed
                    // outside the span (10 % of rows measured 9 % faster, the encoder 5 %
                    // slower); before it, every row again doubles the pass as it should.
                    if let Some(heavier) = self.options.heavier.filter(|heavier| heavier.pass == HeavierPass::Hzb(mip))
                    {
                        let again = ((rows as f32 * heavier.by).ceil() as u32).min(rows);
                        compute.dispatch_workgroups(columns, again, 1);
                    }
                    compute.dispatch_workgroups(columns, rows, 1);
                }
            }
            DemoPass::BloomThreshold => {
                fullscreen(scope, "bloom threshold", &t.bloom[0], false, &p.threshold, &t.threshold_group)
                    .draw(0..3, 0..1);
            }
            DemoPass::BloomDown(level) => {
                let level = usize::from(level);
                let target = &t.bloom[level];
                let mut render = fullscreen(scope, BLOOM_DOWN_LABEL, target, false, &p.blur, &t.down_groups[level - 1]);
                if let Some(heavier) = self.options.heavier.filter(|heavier| heavier.pass == HeavierPass::BloomDown) {
                    // Before the pass's own draw, for the reason the HZB pass's extra
                    // dispatch comes first; the own draw writes the same values over it.
                    let desc = bloom_desc(t.width, t.height, level);
                    let (width, height) = (desc.size.width, desc.size.height);
                    let rows = ((height as f32 * heavier.by).ceil() as u32).clamp(1, height);
                    render.set_scissor_rect(0, 0, width, rows);
                    render.draw(0..3, 0..1);
                    render.set_scissor_rect(0, 0, width, height);
                }
                render.draw(0..3, 0..1);
            }
            DemoPass::BloomUp(level) => {
                let level = usize::from(level);
                fullscreen(scope, "bloom up", &t.bloom[level], true, &p.blur_add, &t.up_groups[level]).draw(0..3, 0..1);
            }
            DemoPass::Tonemap => {
                fullscreen(scope, "tonemap", &self.output, false, &p.tonemap, &t.tonemap_group).draw(0..3, 0..1);
            }
            DemoPass::DebugHeatmap | DemoPass::DebugOverlay => {
                // Culled every frame: nothing reads the debug branch. Were it to run, it
                // would tonemap into the output.
                fullscreen(scope, "debug", &self.output, true, &p.tonemap, &t.tonemap_group).draw(0..3, 0..1);
            }
        }
    }
}

const CASCADE_NAMES: [&str; CASCADES] = ["shadow cascade 0", "shadow cascade 1", "shadow cascade 2"];
const CASCADE_PASSES: [&str; CASCADES] = ["shadows/cascade 0", "shadows/cascade 1", "shadows/cascade 2"];
const BLOOM_NAMES: [&str; BLOOM_LEVELS] = ["bloom 0", "bloom 1", "bloom 2", "bloom 3"];
const BLOOM_DOWN: [&str; BLOOM_LEVELS] = ["", "bloom/down 1", "bloom/down 2", "bloom/down 3"];
const BLOOM_UP: [&str; BLOOM_LEVELS] = ["bloom/up 0", "bloom/up 1", "bloom/up 2", ""];

const HZB_LABELS: [&str; 10] = [
    "hzb copy depth",
    "hzb downsample mip 1",
    "hzb downsample mip 2",
    "hzb downsample mip 3",
    "hzb downsample mip 4",
    "hzb downsample mip 5",
    "hzb downsample mip 6",
    "hzb downsample mip 7",
    "hzb downsample mip 8",
    "hzb downsample mip 9",
];

fn color_attachment(view: &wgpu::TextureView, clear: bool) -> wgpu::RenderPassColorAttachment<'_> {
    wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: if clear {
                wgpu::LoadOp::Clear(wgpu::Color { r: 0.02, g: 0.02, b: 0.05, a: 1.0 })
            } else {
                wgpu::LoadOp::Load
            },
            store: wgpu::StoreOp::Store,
        },
    }
}

fn depth_attachment(view: &wgpu::TextureView) -> wgpu::RenderPassDepthStencilAttachment<'_> {
    wgpu::RenderPassDepthStencilAttachment {
        view,
        depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
        stencil_ops: None,
    }
}

/// A full-screen pass onto `target`, its pipeline and bind group set: the caller draws
/// its one triangle (`draw(0..3, 0..1)`).
fn fullscreen<'s>(
    scope: &'s mut GraphPassScope<'_>,
    label: &str,
    target: &wgpu::TextureView,
    load: bool,
    pipeline: &wgpu::RenderPipeline,
    bind_group: &wgpu::BindGroup,
) -> ProfiledRenderPass<'s> {
    let mut render = scope.render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(color_attachment(target, !load))],
        ..wgpu::RenderPassDescriptor::default()
    });
    render.set_pipeline(pipeline);
    render.set_bind_group(0, bind_group, &[]);
    render
}

impl Targets {
    fn new(
        device: &wgpu::Device,
        pipelines: &Pipelines,
        hzb_layout: &[wgpu::BindGroupLayout; 2],
        sampler: &wgpu::Sampler,
        width: u32,
        height: u32,
    ) -> Self {
        let depth_texture = texture(device, "depth", &depth_desc(width, height));
        let depth = view(&depth_texture);
        let hdr = view(&texture(device, "hdr", &hdr_desc(width, height)));
        let bloom: Vec<_> =
            (0..BLOOM_LEVELS).map(|level| view(&texture(device, "bloom", &bloom_desc(width, height, level)))).collect();
        let hzb_desc = hzb_desc(width, height);
        let hzb_texture = texture(device, "hzb", &hzb_desc);
        let hzb_mips = hzb_desc.mip_level_count;
        let mips: Vec<_> = (0..hzb_mips).map(|mip| mip_view(&hzb_texture, mip)).collect();
        let hzb_groups = (0..hzb_mips as usize)
            .map(|mip| {
                let (layout, source) =
                    if mip == 0 { (&hzb_layout[0], &depth) } else { (&hzb_layout[1], &mips[mip - 1]) };
                group(
                    device,
                    "hzb",
                    layout,
                    &[wgpu::BindingResource::TextureView(source), wgpu::BindingResource::TextureView(&mips[mip])],
                )
            })
            .collect();
        let post_group = |pipeline: &wgpu::RenderPipeline, source: &wgpu::TextureView| {
            group(
                device,
                "post",
                &pipeline.get_bind_group_layout(0),
                &[wgpu::BindingResource::TextureView(source), wgpu::BindingResource::Sampler(sampler)],
            )
        };
        let threshold_group = post_group(&pipelines.threshold, &hdr);
        let down_groups = (0..BLOOM_LEVELS - 1).map(|level| post_group(&pipelines.blur, &bloom[level])).collect();
        let up_groups = (0..BLOOM_LEVELS - 1).map(|level| post_group(&pipelines.blur_add, &bloom[level + 1])).collect();
        let tonemap_group = group(
            device,
            "tonemap",
            &pipelines.tonemap.get_bind_group_layout(0),
            &[
                wgpu::BindingResource::TextureView(&hdr),
                wgpu::BindingResource::Sampler(sampler),
                wgpu::BindingResource::TextureView(&bloom[0]),
            ],
        );
        Self {
            width,
            height,
            depth,
            hdr,
            bloom,
            hzb_mips,
            hzb_groups,
            threshold_group,
            down_groups,
            up_groups,
            tonemap_group,
        }
    }
}

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

/// Deterministic starting particles: a fountain over the grid.
fn initial_particles(count: u32) -> Vec<u8> {
    let mut state = 0x1234_5678u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state as f32 / u32::MAX as f32) * 2.0 - 1.0
    };
    let mut bytes = Vec::with_capacity(count as usize * PARTICLE_BYTES as usize);
    for _ in 0..count {
        let values =
            [next() * 20.0, 5.0 + next() * 4.0, next() * 20.0, 1.0, next() * 3.0, next() * 6.0, next() * 3.0, 0.0];
        for value in values {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
    }
    bytes
}
