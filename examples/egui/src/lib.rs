//! A small egui panel drawn headless: egui lays it out for a fixed input, tessellates it,
//! and egui-wgpu uploads it and draws it into a render pass this program begins itself on
//! an offscreen texture. egui-wgpu's `Renderer::render` takes a `RenderPass<'static>`, so the
//! pass is the program's own (`forget_lifetime`), not one begun through the recorder: the
//! recorder times it through a [`PassTimer`] and, since its draws never pass through the
//! recorder, says in the capture that they are not recorded.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use egui_wgpu::{Renderer, RendererOptions, ScreenDescriptor};
use sgpt_recorder::{FrameScope, PassTimer, ProfileSession, RecordError}; // [sgpt +]

/// The offscreen target's size, in pixels.
pub const TARGET_SIZE: [u32; 2] = [320, 200];
/// The label of the render pass egui draws in: the GPU pass's name in the capture.
pub const PASS_LABEL: &str = "egui";

/// The UI and what draws it.
pub struct Panel {
    context: egui::Context,
    renderer: Renderer,
    target: wgpu::TextureView,
    frame: u32,
}

impl std::fmt::Debug for Panel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Panel").field("frame", &self.frame).finish_non_exhaustive()
    }
}

impl Panel {
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let target = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("panel target"),
                size: wgpu::Extent3d { width: TARGET_SIZE[0], height: TARGET_SIZE[1], depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let renderer = Renderer::new(device, format, RendererOptions::PREDICTABLE);
        Self { context: egui::Context::default(), renderer, target, frame: 0 }
    }

    /// Lays the panel out for this frame's fixed input and draws it: one encoder, one submit.
    /// Returns how many clipped meshes egui drew.
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<usize, RecordError> {
        // [sgpt ~]
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        let output = self.context.run_ui(self.input(), |ui| panel(ui, self.frame));
        self.frame += 1;
        let primitives = self.context.tessellate(output.shapes, output.pixels_per_point);
        let screen = ScreenDescriptor { size_in_pixels: TARGET_SIZE, pixels_per_point: output.pixels_per_point };
        // Every delta is applied or freed here: egui checks that none is dropped unhandled.
        let mut textures = output.textures_delta;
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.renderer.update_texture(device, queue, id, delta);
            }
        }

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("panel") });
        let mut scope = frame.scope(&mut encoder, "ui"); // [sgpt +]
        let callbacks = self.renderer.update_buffers(device, queue, scope.encoder(), &primitives, &screen); // [sgpt ~]
        let timer = scope.time_render_pass(PASS_LABEL); // [sgpt +]
        let onto_target = wgpu::RenderPassDescriptor {
            label: Some(PASS_LABEL),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
            })],
            timestamp_writes: timer.as_ref().map(PassTimer::render), // [sgpt +]
            ..wgpu::RenderPassDescriptor::default()
        };
        // egui-wgpu draws into a pass that outlives its borrow of the encoder.
        let mut pass = scope.encoder().begin_render_pass(&onto_target).forget_lifetime(); // [sgpt ~]
        self.renderer.render(&mut pass, &primitives, &screen);
        drop(pass);
        drop(scope); // [sgpt +]

        for id in textures.free.drain() {
            self.renderer.free_texture(&id);
        }
        frame.resolve_queries(&mut encoder)?; // [sgpt +]
        queue.submit(callbacks.into_iter().chain([encoder.finish()]));
        frame.end()?; // [sgpt +]
        Ok(primitives.len()) // [sgpt ~]
    }

    /// The same input every frame but the time: a fixed screen, no events.
    fn input(&self) -> egui::RawInput {
        let [width, height] = TARGET_SIZE.map(|side| side as f32);
        egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height))),
            time: Some(f64::from(self.frame) / 60.0),
            ..egui::RawInput::default()
        }
    }
}

/// The panel's widgets: a heading, a frame counter, a progress bar and a few controls.
fn panel(ui: &mut egui::Ui, frame: u32) {
    egui::Frame::central_panel(ui.style()).show(ui, |ui| {
        ui.heading("sgpt");
        ui.label(format!("frame {frame}"));
        ui.add(egui::ProgressBar::new((frame % 10) as f32 / 10.0).show_percentage());
        ui.horizontal(|ui| {
            let _ = ui.button("record");
            let _ = ui.button("stop");
        });
        let mut level = frame % 4;
        ui.add(egui::Slider::new(&mut level, 0..=3).text("level"));
        let mut verbose = frame.is_multiple_of(2);
        ui.checkbox(&mut verbose, "verbose");
    });
}
