//! A 2D scene rendered headless by vello into an offscreen texture. Vello encodes, submits
//! and times its own compute passes: with its `wgpu-profiler` feature on it owns a
//! `GpuProfiler`, and the recorder's wgpu-profiler bridge turns that profiler's results
//! into spans in the capture, each in the frame it was measured in.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use std::f64::consts::TAU;
use std::num::NonZeroUsize;

use sgpt_recorder::{FrameScope, ProfileSession, RecordError}; // [sgpt +]
use vello::kurbo::{Affine, BezPath, Circle, Point, Rect, RoundedRect, Stroke};
use vello::peniko::{Color, Fill, Gradient};
use vello::{AaConfig, AaSupport, RenderParams, Renderer, RendererOptions, Scene};

/// The offscreen target's size, in pixels: small, as lavapipe runs vello's compute shaders
/// on the CPU.
pub const TARGET_SIZE: [u32; 2] = [256, 256];

/// Why a frame (or the renderer's creation) failed.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("vello failed: {0}")]
    Vello(#[from] vello::Error),
    #[error("the recorder failed: {0}")] // [sgpt +]
    Record(#[from] RecordError), // [sgpt +]
}

/// The scene, the renderer that draws it and the texture it draws into.
pub struct Drawing {
    renderer: Renderer,
    scene: Scene,
    target: wgpu::Texture,
    view: wgpu::TextureView,
    frame: u32,
}

impl std::fmt::Debug for Drawing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drawing").field("frame", &self.frame).finish_non_exhaustive()
    }
}

impl Drawing {
    /// Compiles vello's shaders (once: keep the drawing) and creates the target.
    ///
    /// # Errors
    /// When vello cannot create its pipelines or its profiler on `device`.
    pub fn new(device: &wgpu::Device) -> Result<Self, FrameError> {
        let renderer = Renderer::new(
            device,
            RendererOptions {
                use_cpu: false,
                // One antialiasing mode: the others would compile pipelines never used.
                antialiasing_support: AaSupport::area_only(),
                // Shaders compile on this thread: no thread pool for one small headless renderer.
                num_init_threads: NonZeroUsize::new(1),
                pipeline_cache: None,
            },
        )?;
        let [width, height] = TARGET_SIZE;
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("vello target"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            // What vello's fine stage writes: a storage texture in this format. Copied out
            // by the test, which checks the scene was drawn.
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self { renderer, scene: Scene::new(), target, view, frame: 0 })
    }

    /// The texture the scene is rendered into.
    #[must_use]
    pub fn target(&self) -> &wgpu::Texture {
        &self.target
    }

    /// Builds this frame's scene and renders it: vello encodes and submits its work itself.
    ///
    /// # Errors
    /// When vello cannot render, or the recorder fails.
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<(), FrameError> {
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        self.build_scene();
        let [width, height] = TARGET_SIZE;
        let params = RenderParams {
            base_color: Color::from_rgb8(16, 18, 24),
            width,
            height,
            antialiasing_method: AaConfig::Area,
        };
        self.renderer.render_to_texture(device, queue, &self.scene, &self.view, &params)?;
        // Vello ended its profiler frame and may have fetched an older one: both go to the bridge.
        let (profiler, fetched) = (&mut self.renderer.profiler, self.renderer.profile_result.take()); // [sgpt +]
        frame.wgpu_profiler_frame(profiler, fetched, queue.get_timestamp_period())?; // [sgpt +]
        frame.end()?; // [sgpt +]
        Ok(())
    }

    /// After the last frame, once the device was waited on and before the session stops:
    /// hands the bridge the profiler results still out, so the last frames keep theirs.
    pub fn collect_profiler_results(&mut self, queue: &wgpu::Queue, session: &mut ProfileSession) {
        // [sgpt +]
        let (profiler, fetched) = (&mut self.renderer.profiler, self.renderer.profile_result.take()); // [sgpt +]
        session.wgpu_profiler_collect(profiler, fetched, queue.get_timestamp_period()); // [sgpt +]
    } // [sgpt +]

    /// A gradient backdrop, a ring of circles that turns a little each frame, a rounded
    /// panel with an outline, and a stroked cubic whose control points sway.
    fn build_scene(&mut self) {
        let phase = f64::from(self.frame) * 0.05;
        self.frame += 1;
        let scene = &mut self.scene;
        scene.reset();
        let (width, height) = (f64::from(TARGET_SIZE[0]), f64::from(TARGET_SIZE[1]));
        let backdrop = Gradient::new_linear((0.0, 0.0), (width, height))
            .with_stops([Color::from_rgb8(40, 60, 120), Color::from_rgb8(120, 40, 90)]);
        scene.fill(Fill::NonZero, Affine::IDENTITY, &backdrop, None, &Rect::new(0.0, 0.0, width, height));

        let panel = RoundedRect::new(24.0, 24.0, width - 24.0, height - 24.0, 16.0);
        scene.fill(Fill::NonZero, Affine::IDENTITY, Color::from_rgba8(255, 255, 255, 40), None, &panel);
        scene.stroke(&Stroke::new(3.0), Affine::IDENTITY, Color::from_rgb8(230, 230, 240), None, &panel);

        let centre = Point::new(width / 2.0, height / 2.0);
        for i in 0..8 {
            let angle = phase + TAU * f64::from(i) / 8.0;
            let at = centre + 70.0 * vello::kurbo::Vec2::from_angle(angle);
            let shade = u8::try_from(100 + 18 * i).unwrap_or(u8::MAX);
            scene.fill(Fill::NonZero, Affine::IDENTITY, Color::from_rgb8(255, shade, 60), None, &Circle::new(at, 14.0));
        }

        let sway = 40.0 * phase.sin();
        let mut curve = BezPath::new();
        curve.move_to((32.0, height - 56.0));
        curve.curve_to((96.0, 40.0 + sway), (160.0, height - 40.0 - sway), (width - 32.0, 56.0));
        scene.stroke(&Stroke::new(6.0), Affine::IDENTITY, Color::from_rgb8(90, 220, 200), None, &curve);
    }
}
