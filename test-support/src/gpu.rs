//! The device the GPU tests run on: the first Vulkan adapter (Mesa's lavapipe in CI).

/// An adapter with its device and queue.
#[derive(Debug)]
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

/// The process's one instance: wgpu identifies a device by an id unique within its
/// instance, which the recorder's one-session-per-device check relies on.
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

/// A device with the features `features` picks from the adapter's (pass
/// `sgpt_recorder::timer_features`), or `None` with a printed reason where no Vulkan
/// adapter exists. Under `CI=true` a missing adapter fails the test instead
/// ([`crate::skip`]).
///
/// # Panics
/// Under `CI=true` without an adapter, and when an adapter refuses the device.
#[must_use]
pub fn device(features: impl FnOnce(&wgpu::Adapter) -> wgpu::Features) -> Option<Gpu> {
    let adapter = match pollster::block_on(instance().request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    })) {
        Ok(adapter) => adapter,
        Err(error) => {
            let why = format!("no Vulkan adapter ({error}); install mesa-vulkan-drivers for lavapipe");
            crate::skip::skip_without_adapter("a GPU test", &why);
            return None;
        }
    };
    let required_features = features(&adapter);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("sgpt tests"),
        required_features,
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    }))
    .unwrap_or_else(|error| panic!("the adapter refused a device: {error}"));
    Some(Gpu { adapter, device, queue })
}

/// A compute pipeline whose shader does nothing: the benches time the passes around it.
pub fn empty_compute_pipeline(device: &wgpu::Device) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("empty"),
        source: wgpu::ShaderSource::Wgsl("@compute @workgroup_size(64) fn main() {}".into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("empty"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    })
}
