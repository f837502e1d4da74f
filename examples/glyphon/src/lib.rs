//! A caption drawn headless by glyphon: cosmic-text shapes it, glyphon prepares its glyphs
//! and draws them into a render pass this program begins itself on an offscreen texture.
//! The recorder times that pass through a [`PassTimer`]; its draws are glyphon's and never
//! pass through the recorder, which the capture says.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use glyphon::{
    Attrs, Buffer, Cache, Color, Family, FontSystem, Metrics, PrepareError, RenderError, Resolution, Shaping,
    SwashCache, TextArea, TextAtlas, TextBounds, TextRenderer, Viewport, fontdb,
};
use sgpt_recorder::{FrameScope, PassTimer, ProfileSession, RecordError}; // [sgpt +]

/// The offscreen target's size, in pixels.
pub const TARGET_SIZE: [u32; 2] = [320, 96];
/// The label of the render pass glyphon draws in: the GPU pass's name in the capture.
pub const PASS_LABEL: &str = "text";

/// Why a frame failed.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("glyphon could not prepare the text: {0}")]
    Prepare(#[from] PrepareError),
    #[error("glyphon could not draw the text: {0}")]
    Render(#[from] RenderError),
    #[error("the recorder failed: {0}")] // [sgpt +]
    Record(#[from] RecordError), // [sgpt +]
}

/// The caption and what shapes and draws it.
pub struct Caption {
    fonts: FontSystem,
    rasterizer: SwashCache,
    viewport: Viewport,
    atlas: TextAtlas,
    text: TextRenderer,
    buffer: Buffer,
    target: wgpu::TextureView,
    frame: u32,
}

impl std::fmt::Debug for Caption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caption").field("frame", &self.frame).finish_non_exhaustive()
    }
}

impl Caption {
    #[must_use]
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let mut fonts = fontdb::Database::new();
        fonts.load_font_data(epaint_default_fonts::HACK_REGULAR.to_vec());
        fonts.set_monospace_family("Hack");
        let mut fonts = FontSystem::new_with_locale_and_db("en-US".to_owned(), fonts);
        let cache = Cache::new(device);
        let mut atlas = TextAtlas::new(device, queue, &cache, format);
        let text = TextRenderer::new(&mut atlas, device, wgpu::MultisampleState::default(), None);
        let mut buffer = Buffer::new(&mut fonts, Metrics::new(20.0, 26.0));
        buffer.set_size(Some(TARGET_SIZE[0] as f32), Some(TARGET_SIZE[1] as f32));
        let target = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("caption target"),
                size: wgpu::Extent3d { width: TARGET_SIZE[0], height: TARGET_SIZE[1], depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let viewport = Viewport::new(device, &cache);
        Self { fonts, rasterizer: SwashCache::new(), viewport, atlas, text, buffer, target, frame: 0 }
    }

    /// Shapes this frame's caption and draws it: one encoder, one submit. Returns how many
    /// glyphs were laid out.
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<usize, FrameError> {
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        let caption = format!("frame {}\nrecorded by sgpt", self.frame);
        self.frame += 1;
        let attrs = Attrs::new().family(Family::Monospace);
        self.buffer.set_text(&caption, &attrs, Shaping::Advanced, None);
        self.buffer.shape_until_scroll(&mut self.fonts, false);
        let glyphs = self.buffer.layout_runs().map(|run| run.glyphs.len()).sum();
        let [width, height] = TARGET_SIZE;
        self.viewport.update(queue, Resolution { width, height });
        let area = TextArea {
            buffer: &self.buffer,
            left: 8.0,
            top: 8.0,
            scale: 1.0,
            bounds: TextBounds::default(),
            default_color: Color::rgb(235, 235, 235),
            custom_glyphs: &[],
        };
        let (fonts, atlas, viewport) = (&mut self.fonts, &mut self.atlas, &self.viewport);
        self.text.prepare(device, queue, fonts, atlas, viewport, [area], &mut self.rasterizer)?;

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("caption") });
        {
            let mut scope = frame.scope(&mut encoder, "caption"); // [sgpt +]
            let timer = scope.time_render_pass(PASS_LABEL); // [sgpt +]
            let onto_target = wgpu::RenderPassDescriptor {
                label: Some(PASS_LABEL),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                timestamp_writes: timer.as_ref().map(PassTimer::render), // [sgpt +]
                ..wgpu::RenderPassDescriptor::default()
            };
            let mut pass = scope.encoder().begin_render_pass(&onto_target); // [sgpt ~]
            self.text.render(&self.atlas, &self.viewport, &mut pass)?;
        }
        frame.submit(queue, [encoder])?; // [sgpt ~]
        self.atlas.trim();
        Ok(glyphs)
    }
}
