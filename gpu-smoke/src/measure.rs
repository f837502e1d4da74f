use std::fmt;

use futures_channel::oneshot;

use crate::SmokeError;

/// Elements in the storage buffer the pass works on (4 MiB of `u32`).
pub const ELEMENTS: u32 = 1 << 20;
/// Must match `ROUNDS` in `smoke.wgsl`; [`expected_element`] checks the GPU against it.
const ROUNDS: u32 = 64;
const WORKGROUP_SIZE: u32 = 64;
/// Two `u64` timestamps.
const TIMESTAMP_BYTES: u64 = 2 * wgpu::QUERY_SIZE as u64;
/// The readback holds the timestamps, then the last element of the data buffer.
const READBACK_BYTES: u64 = TIMESTAMP_BYTES + 8;

/// One timed compute pass, as the device reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Beginning-of-pass timestamp, in ns on the device's timestamp clock.
    pub begin_ns: u64,
    /// End-of-pass timestamp, in ns on the device's timestamp clock.
    pub end_ns: u64,
    /// `end_ns - begin_ns`.
    pub duration_ns: u64,
    /// Nanoseconds per timestamp tick (`Queue::get_timestamp_period`).
    pub timestamp_period: f32,
    /// The adapter's name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`; empty on WebGPU.
    pub adapter: String,
    /// The adapter's backend.
    pub backend: wgpu::Backend,
}

impl fmt::Display for Measurement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "compute pass over {ELEMENTS} elements: {} ns (begin {} ns, end {} ns, period {} ns/tick) on {} ({})",
            self.duration_ns,
            self.begin_ns,
            self.end_ns,
            self.timestamp_period,
            // WebGPU hides adapter names.
            if self.adapter.is_empty() { "an unnamed adapter" } else { &self.adapter },
            self.backend.to_str(),
        )
    }
}

/// Runs one compute pass with `timestamp_writes` on a real adapter and returns its timestamps.
///
/// Natively only Vulkan is searched, so a machine without a Vulkan driver reports
/// [`SmokeError::NoAdapter`] rather than silently measuring on something else.
///
/// # Errors
///
/// [`SmokeError::NoAdapter`] and [`SmokeError::NoTimestampQuery`] mean the machine cannot run
/// the smoke test; every other variant means the timestamp path is broken.
pub async fn measure_compute_pass() -> Result<Measurement, SmokeError> {
    let (backends, backend_name) = if cfg!(target_arch = "wasm32") {
        (wgpu::Backends::BROWSER_WEBGPU, "WebGPU")
    } else {
        (wgpu::Backends::VULKAN, "Vulkan")
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
        .map_err(|e| SmokeError::NoAdapter { backends: backend_name, reason: e.to_string() })?;
    let info = adapter.get_info();
    if !adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        return Err(SmokeError::NoTimestampQuery { adapter: info.name, backend: info.backend.to_str().to_owned() });
    }
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("sgpt-gpu-smoke"),
            required_features: wgpu::Features::TIMESTAMP_QUERY,
            // The pass needs a 4 MiB storage buffer and 16384 workgroups: downlevel limits cover
            // that on every adapter we target, SwiftShader included.
            required_limits: wgpu::Limits::downlevel_defaults(),
            ..Default::default()
        })
        .await
        .map_err(|e| SmokeError::RequestDevice(e.to_string()))?;

    // Catch validation errors as values: wgpu's default handler panics, which in the browser
    // would leave the page without a state.
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let readback = record_and_submit(&device, &queue);
    if let Some(error) = scope.pop().await {
        return Err(SmokeError::Gpu(error.to_string()));
    }

    let (sender, receiver) = oneshot::channel();
    readback.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver only goes away when this function already returned.
        let _ = sender.send(result);
    });
    // Natively this drives the map callback; on WebGPU it is a no-op and the browser's event
    // loop resolves the map while we await the receiver.
    device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| SmokeError::Poll(e.to_string()))?;
    receiver
        .await
        .map_err(|_| SmokeError::Map("the map callback was dropped without running".to_owned()))?
        .map_err(|e| SmokeError::Map(e.to_string()))?;

    let (begin_ticks, end_ticks, last) = {
        let view = readback.get_mapped_range(..).map_err(|e| SmokeError::Map(e.to_string()))?;
        (word_u64(&view, 0), word_u64(&view, 8), word_u32(&view, 20))
    };
    readback.unmap();

    let expected = expected_element(ELEMENTS - 1);
    if last != expected {
        return Err(SmokeError::WrongResult { index: ELEMENTS - 1, got: last, expected });
    }
    if end_ticks < begin_ticks {
        return Err(SmokeError::TimestampsOutOfOrder { begin_ticks, end_ticks });
    }
    let timestamp_period = queue.get_timestamp_period();
    let begin_ns = ticks_to_ns(begin_ticks, timestamp_period);
    let end_ns = ticks_to_ns(end_ticks, timestamp_period);
    Ok(Measurement {
        begin_ns,
        end_ns,
        duration_ns: end_ns - begin_ns,
        timestamp_period,
        adapter: info.name,
        backend: info.backend,
    })
}

/// Records the timed pass, resolves its timestamps and copies them plus the last data element
/// into a mappable buffer, which it returns.
fn record_and_submit(device: &wgpu::Device, queue: &wgpu::Queue) -> wgpu::Buffer {
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("smoke data"),
        size: u64::from(ELEMENTS) * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("smoke timestamps"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("smoke resolve"),
        size: TIMESTAMP_BYTES,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("smoke readback"),
        size: READBACK_BYTES,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("smoke.wgsl"),
        source: wgpu::ShaderSource::Wgsl(include_str!("smoke.wgsl").into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("smoke"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("smoke data"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: data.as_entire_binding() }],
    });

    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("smoke") });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("smoke pass"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            }),
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(ELEMENTS.div_ceil(WORKGROUP_SIZE), 1, 1);
    }
    encoder.resolve_query_set(&queries, 0..2, &resolve, 0);
    encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, TIMESTAMP_BYTES);
    // Copies must be 4-byte multiples: take the last two elements, the last one is checked.
    encoder.copy_buffer_to_buffer(&data, u64::from(ELEMENTS - 2) * 4, &readback, TIMESTAMP_BYTES, 8);
    queue.submit([encoder.finish()]);
    readback
}

/// What `smoke.wgsl` writes at `index`.
fn expected_element(index: u32) -> u32 {
    scramble(index, ROUNDS)
}

fn scramble(mut x: u32, rounds: u32) -> u32 {
    for _ in 0..rounds {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x ^= x >> 16;
    }
    x
}

fn ticks_to_ns(ticks: u64, period: f32) -> u64 {
    // Period is 1.0 on lavapipe and on Chromium's WebGPU, so this is exact there; elsewhere f64
    // keeps sub-ns error for any realistic clock value.
    (ticks as f64 * f64::from(period)).round() as u64
}

fn word_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

fn word_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_convert_with_the_device_period() {
        assert_eq!(ticks_to_ns(1_000, 1.0), 1_000);
        assert_eq!(ticks_to_ns(1_000, 83.333), 83_333);
    }

    #[test]
    fn scramble_matches_a_hand_computed_round() {
        // One round on 0: 1013904223 = 0x3C6EF35F; xorshift by 16 gives 0x3C6ECF31.
        assert_eq!(scramble(0, 1), 0x3C6E_CF31);
        assert_eq!(scramble(7, 0), 7);
        assert_eq!(expected_element(ELEMENTS - 1), scramble(ELEMENTS - 1, ROUNDS));
    }
}
