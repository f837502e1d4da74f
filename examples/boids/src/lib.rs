//! A headless flock of boids, recorded by sgpt: each frame one encoder holds a compute pass
//! that moves the boids (ping-pong storage buffers) and a render pass that draws them as
//! instanced triangles into an offscreen texture.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use sgpt_recorder::{FrameScope, PipelineInfo, ProfileSession, RecordError}; // [sgpt +]
use wgpu::util::DeviceExt;

/// Boids in the flock.
pub const BOIDS: u32 = 512;
/// `@workgroup_size` of the simulation's entry point.
pub const WORKGROUP_SIZE: u32 = 64;
/// The offscreen target's side, in pixels.
pub const TARGET_SIZE: u32 = 256;

const SIMULATE_WGSL: &str = include_str!("shaders/simulate.wgsl");
const DRAW_WGSL: &str = include_str!("shaders/draw.wgsl");
/// A boid's position and velocity, two `vec2f`.
const BOID_BYTES: u64 = 16;
/// The triangle every boid is drawn as, pointing up (+y) before it is turned.
const TRIANGLE: [[f32; 2]; 3] = [[-0.5, -0.6], [0.5, -0.6], [0.0, 0.9]];

/// The flock and the GPU objects that step and draw it.
#[derive(Debug)]
pub struct Boids {
    simulate: wgpu::ComputePipeline,
    draw: wgpu::RenderPipeline,
    boids: [wgpu::Buffer; 2],
    /// `steps[i]` reads `boids[i]` and writes the other buffer.
    steps: [wgpu::BindGroup; 2],
    triangle: wgpu::Buffer,
    target: wgpu::TextureView,
    frame: usize,
}

impl Boids {
    /// Builds the pipelines and the flock's first positions (the same every run).
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let simulate_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("simulate.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SIMULATE_WGSL.into()),
        });
        let simulate = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("simulate"),
            layout: None,
            module: &simulate_module,
            entry_point: Some("simulate"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let boids = [first_flock(), vec![0; (u64::from(BOIDS) * BOID_BYTES) as usize]].map(|contents| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("boids"),
                contents: &contents,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX,
            })
        });
        let steps = [0, 1].map(|read| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("step"),
                layout: &simulate.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: boids[read].as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: boids[1 - read].as_entire_binding() },
                ],
            })
        });
        let triangle = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("triangle"),
            contents: &TRIANGLE.as_flattened().iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let target = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("boids target"),
                size: wgpu::Extent3d { width: TARGET_SIZE, height: TARGET_SIZE, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        Self { simulate, draw: draw_pipeline(device), boids, steps, triangle, target, frame: 0 }
    }

    /// Names the simulation's pipeline in the capture, with the workgroup size its WGSL declares.
    pub fn describe(&self, session: &mut ProfileSession) {
        // [sgpt +]
        let simulate = PipelineInfo {
            // [sgpt +]
            label: "simulate",              // [sgpt +]
            shader_module: "simulate.wgsl", // [sgpt +]
            entry_point: "simulate",        // [sgpt +]
            wgsl: Some(SIMULATE_WGSL),      // [sgpt +]
        }; // [sgpt +]
        session.describe_compute_pipeline(&self.simulate, &simulate); // [sgpt +]
    } // [sgpt +]

    /// Steps the flock once and draws it: one encoder, one submit.
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<(), RecordError> {
        // [sgpt ~]
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        let read = self.frame % 2;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("boids frame") });
        {
            let mut simulate = frame.scope(&mut encoder, "simulate"); // [sgpt +]
            let step = wgpu::ComputePassDescriptor { label: Some("simulate boids"), timestamp_writes: None };
            let mut pass = simulate.compute_pass(&step); // [sgpt ~]
            pass.set_pipeline(&self.simulate);
            pass.set_bind_group(0, &self.steps[read], &[]);
            pass.dispatch_workgroups(BOIDS.div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        {
            let mut draw = frame.scope(&mut encoder, "draw"); // [sgpt +]
            let onto_target = wgpu::RenderPassDescriptor {
                label: Some("draw boids"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..wgpu::RenderPassDescriptor::default()
            };
            let mut pass = draw.render_pass(&onto_target); // [sgpt ~]
            pass.set_pipeline(&self.draw);
            pass.set_vertex_buffer(0, self.boids[1 - read].slice(..));
            pass.set_vertex_buffer(1, self.triangle.slice(..));
            pass.draw(0..3, 0..BOIDS);
        }
        frame.submit(queue, [encoder])?; // [sgpt ~]
        self.frame += 1;
        Ok(()) // [sgpt +]
    }
}

/// Boids spread over a grid, each heading a different way: deterministic, so every run
/// draws the same flock.
fn first_flock() -> Vec<u8> {
    let side = f64::from(BOIDS).sqrt().ceil() as u32;
    (0..BOIDS)
        .flat_map(|i| {
            let (column, row) = (i % side, i / side);
            let at = |cell: u32| (f64::from(cell) + 0.5) / f64::from(side) * 1.8 - 0.9;
            let angle = f64::from(i) * 2.399_963; // the golden angle, in radians
            [at(column), at(row), 0.3 * angle.cos(), 0.3 * angle.sin()]
        })
        .flat_map(|value| (value as f32).to_le_bytes())
        .collect()
}

fn draw_pipeline(device: &wgpu::Device) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("draw.wgsl"),
        source: wgpu::ShaderSource::Wgsl(DRAW_WGSL.into()),
    });
    let boid = wgpu::VertexBufferLayout {
        array_stride: BOID_BYTES,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2],
    };
    let corner = wgpu::VertexBufferLayout {
        array_stride: 8,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &wgpu::vertex_attr_array![2 => Float32x2],
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("draw boids"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vertex"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            buffers: &[Some(boid), Some(corner)],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fragment"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}
