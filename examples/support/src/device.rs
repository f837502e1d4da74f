//! A headless Vulkan device with the recorder's timer features.

/// Why no device could be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("no Vulkan adapter: {0} (install mesa-vulkan-drivers for lavapipe)")]
    NoAdapter(String),
    #[error("the adapter refused a device: {0}")]
    RequestDevice(String),
}

/// An adapter with its device and queue.
#[derive(Debug)]
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

/// The process's one wgpu instance: the recorder tells devices apart by an id that is
/// unique only within an instance.
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

/// A device on the first Vulkan adapter, with every timer feature the adapter has.
pub fn device() -> Result<Gpu, DeviceError> {
    let adapter = pollster::block_on(instance().request_adapter(&wgpu::RequestAdapterOptions::default()))
        .map_err(|error| DeviceError::NoAdapter(error.to_string()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("sgpt example"),
        required_features: sgpt_recorder::timer_features(&adapter), // [sgpt ~]
        ..Default::default()
    }))
    .map_err(|error| DeviceError::RequestDevice(error.to_string()))?;
    Ok(Gpu { adapter, device, queue })
}

/// The device for a test, or `None` with a printed reason where no Vulkan adapter exists.
/// Under `CI=true` a missing adapter fails the test: CI installs lavapipe.
///
/// # Panics
/// Under `CI=true` without an adapter, and wherever the adapter refuses the device.
#[must_use]
pub fn gpu_or_skip() -> Option<Gpu> {
    match device() {
        Ok(gpu) => Some(gpu),
        Err(error @ DeviceError::NoAdapter(_)) => {
            sgpt_test_support::skip::skip_without_adapter("an example test", &error);
            None
        }
        Err(error) => panic!("device set-up failed: {error}"),
    }
}
