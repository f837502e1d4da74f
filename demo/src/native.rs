//! Native set-up: a headless Vulkan device with the recorder's timer features.

use sgpt_recorder::{Level, ProfileSession, SessionOptions, StopFuture};

use crate::memory::DemoMemory;
use crate::{Scene, SceneOptions};

/// Why a native device could not be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("no Vulkan adapter: {0} (install mesa-vulkan-drivers for lavapipe)")]
    NoAdapter(String),
    #[error("the adapter refused a device: {0}")]
    RequestDevice(String),
}

/// The process's one wgpu instance. wgpu identifies a device by an id unique within its
/// instance, which is what the recorder's one-session-per-device check relies on.
fn instance() -> &'static wgpu::Instance {
    static INSTANCE: std::sync::OnceLock<wgpu::Instance> = std::sync::OnceLock::new();
    INSTANCE.get_or_init(|| {
        wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            // Debian 12's lavapipe (Mesa 22.3) crashes in vkCmdBeginDebugUtilsLabelEXT, which
            // wgpu calls for debug groups only when the DEBUG flag enables VK_EXT_debug_utils.
            flags: wgpu::InstanceFlags::from_build_config().with_env().difference(wgpu::InstanceFlags::DEBUG),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        })
    })
}

/// A device on the first Vulkan adapter, with every timer feature it has.
pub fn device() -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), DeviceError> {
    let instance = instance();
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .map_err(|error| DeviceError::NoAdapter(error.to_string()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("sgpt-demo"),
        required_features: sgpt_recorder::timer_features(&adapter),
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    }))
    .map_err(|error| DeviceError::RequestDevice(error.to_string()))?;
    Ok((adapter, device, queue))
}

/// Session options describing `scene` at `level`.
#[must_use]
pub fn session_options(scene: &Scene, level: Level, frames: Option<u64>) -> SessionOptions {
    SessionOptions {
        level,
        frame_limit: frames,
        application: "sgpt-demo".to_owned(),
        application_version: env!("CARGO_PKG_VERSION").to_owned(),
        git_revision: option_env!("SGPT_GIT_REVISION").unwrap_or_default().to_owned(),
        settings: scene.settings_meta(),
        scene: scene.scene_meta(),
        ..SessionOptions::default()
    }
}

/// Builds the scene on a fresh native device.
pub fn scene(options: SceneOptions) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue, Scene), crate::DemoError> {
    let (adapter, device, queue) = device().map_err(|error| crate::DemoError::Device(error.to_string()))?;
    let scene = Scene::new(&device, &queue, options)?;
    Ok((adapter, device, queue, scene))
}

/// Records `frames` frames of `scene` into `session` (started here) and waits for it.
pub fn record(
    scene: &mut Scene,
    session: &mut ProfileSession,
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    frames: u64,
) -> Result<sgpt_recorder::CaptureSummary, crate::DemoError> {
    record_with_memory(scene, None, session, adapter, device, queue, frames)
}

/// [`record`], running `memory`'s per-frame work before each frame and handing its
/// exported capture to the session before it stops. The session's options name
/// `memory`'s ledger for the domain gauges.
pub fn record_with_memory(
    scene: &mut Scene,
    mut memory: Option<&mut DemoMemory>,
    session: &mut ProfileSession,
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    frames: u64,
) -> Result<sgpt_recorder::CaptureSummary, crate::DemoError> {
    scene.describe(session);
    session.start(device, queue, adapter).map_err(|error| crate::DemoError::Device(error.to_string()))?;
    let finished: StopFuture = session.finished();
    for frame in 0..frames {
        if let Some(memory) = memory.as_deref_mut() {
            memory.frame(frame);
        }
        scene.frame(Some(session))?;
        if !session.is_recording() {
            break;
        }
    }
    if let Some(capture) = memory.and_then(DemoMemory::finish) {
        session.record_memory(&capture)?;
    }
    let summary = pollster::block_on(session.stop())?;
    drop(finished);
    Ok(summary)
}
