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

/// The pixels of `texture`'s first mip, row by row, tightly packed (the copy's row padding
/// removed), for tests that check what was drawn.
///
/// # Panics
/// On a block-compressed or depth-stencil format, and when the copy cannot be mapped.
#[must_use]
pub fn read_texture(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture) -> Vec<u8> {
    let texel = texture.format().block_copy_size(None).expect("a format with one copy size");
    let (width, height) = (texture.width(), texture.height());
    let row = width * texel;
    let padded = row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texture read-back"),
        size: u64::from(padded * height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: None },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |mapped| mapped.expect("the read-back maps"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("the copy finishes");
    let bytes = buffer.slice(..).get_mapped_range().expect("the mapped read-back");
    bytes.chunks(padded as usize).flat_map(|line| &line[..row as usize]).copied().collect()
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
