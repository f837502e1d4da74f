//! A headless frame spread over three encoders: an upload encoder copies the frame's time
//! into a uniform buffer, a compute encoder places a wave of points, and a render encoder
//! draws them into an offscreen texture. The encoders reach the queue in one, two or three
//! submits ([`Submits`]); each resolves its own queries before it is submitted.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use sgpt_recorder::{FrameScope, PipelineInfo, ProfileSession, RecordError}; // [sgpt +]

/// Points in the wave.
pub const POINTS: u32 = 256;
/// `@workgroup_size` of the compute entry point.
pub const WORKGROUP_SIZE: u32 = 32;
/// The offscreen target's side, in pixels.
pub const TARGET_SIZE: u32 = 128;

const INTEGRATE_WGSL: &str = include_str!("shaders/integrate.wgsl");
const DRAW_WGSL: &str = include_str!("shaders/draw.wgsl");
/// The uniform: the time in `x` of a `vec4f`.
const TIME_BYTES: u64 = 16;

/// How a frame's three encoders reach the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submits {
    /// One `queue.submit` per encoder: upload, then compute, then render.
    Three,
    /// The upload alone, then compute and render in one `queue.submit`.
    Two,
    /// All three through `FrameScope::submit`, which resolves each, submits them in order
    /// and ends the frame.
    Frame,
}

/// The wave and the GPU objects that place and draw it.
#[derive(Debug)]
pub struct Wave {
    staging: wgpu::Buffer,
    time: wgpu::Buffer,
    integrate: wgpu::ComputePipeline,
    integrate_group: wgpu::BindGroup,
    draw: wgpu::RenderPipeline,
    draw_group: wgpu::BindGroup,
    target: wgpu::TextureView,
    frame: u32,
}

impl Wave {
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        let staging = buffer("time staging", TIME_BYTES, wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
        let time = buffer("time", TIME_BYTES, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
        let points = buffer("points", u64::from(POINTS) * 8, wgpu::BufferUsages::STORAGE);
        let module = |label, wgsl: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            })
        };
        let integrate = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("integrate"),
            layout: None,
            module: &module("integrate.wgsl", INTEGRATE_WGSL),
            entry_point: Some("integrate"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let integrate_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("integrate"),
            layout: &integrate.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: time.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: points.as_entire_binding() },
            ],
        });
        let draw_module = module("draw.wgsl", DRAW_WGSL);
        let draw = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("draw"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &draw_module,
                entry_point: Some("vertex"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &draw_module,
                entry_point: Some("fragment"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("draw"),
            layout: &draw.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: points.as_entire_binding() }],
        });
        let target = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("wave target"),
                size: wgpu::Extent3d { width: TARGET_SIZE, height: TARGET_SIZE, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        Self { staging, time, integrate, integrate_group, draw, draw_group, target, frame: 0 }
    }

    /// Names the compute pipeline in the capture, with the workgroup size its WGSL declares.
    pub fn describe(&self, session: &mut ProfileSession) {
        // [sgpt +]
        let integrate = PipelineInfo {
            // [sgpt +]
            label: "integrate",              // [sgpt +]
            shader_module: "integrate.wgsl", // [sgpt +]
            entry_point: "integrate",        // [sgpt +]
            wgsl: Some(INTEGRATE_WGSL),      // [sgpt +]
        }; // [sgpt +]
        session.describe_compute_pipeline(&self.integrate, &integrate); // [sgpt +]
    } // [sgpt +]

    /// Uploads the frame's time, places the wave and draws it: three encoders, reaching the
    /// queue as `submits` says.
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        submits: Submits,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<(), RecordError> {
        // [sgpt ~]
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        let seconds = self.frame as f32 / 60.0;
        self.frame += 1;
        queue.write_buffer(&self.staging, 0, &[seconds, 0.0, 0.0, 0.0].map(f32::to_le_bytes).concat());
        let encoder = |label| device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });

        let mut upload = encoder("upload");
        {
            let mut scope = frame.scope(&mut upload, "upload"); // [sgpt +]
            scope.encoder().copy_buffer_to_buffer(&self.staging, 0, &self.time, 0, TIME_BYTES); // [sgpt ~]
        }

        let mut compute = encoder("compute");
        {
            let mut scope = frame.scope(&mut compute, "integrate"); // [sgpt +]
            let place = wgpu::ComputePassDescriptor { label: Some("integrate wave"), timestamp_writes: None };
            let mut pass = scope.compute_pass(&place); // [sgpt ~]
            pass.set_pipeline(&self.integrate);
            pass.set_bind_group(0, &self.integrate_group, &[]);
            pass.dispatch_workgroups(POINTS.div_ceil(WORKGROUP_SIZE), 1, 1);
        }

        let mut render = encoder("render");
        {
            let mut scope = frame.scope(&mut render, "draw"); // [sgpt +]
            let onto_target = wgpu::RenderPassDescriptor {
                label: Some("draw wave"),
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
            let mut pass = scope.render_pass(&onto_target); // [sgpt ~]
            pass.set_pipeline(&self.draw);
            pass.set_bind_group(0, &self.draw_group, &[]);
            pass.draw(0..6, 0..POINTS);
        }

        match submits {
            Submits::Three => {
                for mut encoder in [upload, compute, render] {
                    // [sgpt ~]
                    frame.resolve_queries(&mut encoder)?; // [sgpt +]
                    queue.submit([encoder.finish()]);
                }
            }
            Submits::Two => {
                frame.resolve_queries(&mut upload)?; // [sgpt +]
                queue.submit([upload.finish()]);
                frame.resolve_queries(&mut compute)?; // [sgpt +]
                frame.resolve_queries(&mut render)?; // [sgpt +]
                queue.submit([compute.finish(), render.finish()]);
            }
            Submits::Frame => return frame.submit(queue, [upload, compute, render]).map(drop), // [sgpt ~]
        }
        frame.end() // [sgpt +]
    }
}
