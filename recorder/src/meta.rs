//! META: the context a shared capture needs to mean anything.
//!
//! Deliberately absent: anything about timestamp quantization (docs/ARCHITECTURE.md). Browsers
//! quantize WebGPU timestamps (Chrome to 100 µs unless
//! `chrome://flags/#enable-webgpu-developer-features` is on); the capture stores what the
//! device reported, and the inspector says so. Nothing here measures or corrects it.

use sgpt_format::{AdapterInfo, Meta, NamedValue};

use crate::SessionOptions;
use crate::clock::unix_now_ns;

/// What the recorder can use on this device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capabilities {
    pub(crate) timestamps: bool,
    /// Timestamps written inside passes: native only. wgpu's WebGPU backend panics on
    /// `write_timestamp`, so it is never used there.
    pub(crate) inside_passes: bool,
    /// Timestamps written on the encoder between passes: native only, like inside passes.
    /// Each graph-pass bracket is then timed as a whole, copies and clears included.
    pub(crate) inside_encoders: bool,
}

impl Capabilities {
    pub(crate) fn of(device: &wgpu::Device, backend: wgpu::Backend) -> Self {
        let features = device.features();
        let timestamps = features.contains(wgpu::Features::TIMESTAMP_QUERY);
        let native = timestamps && backend != wgpu::Backend::BrowserWebGpu;
        let inside_passes = native && features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES);
        let inside_encoders = native && features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
        Self { timestamps, inside_passes, inside_encoders }
    }
}

/// The timer features the recorder uses, as far as `adapter` has them: pass this (or'd
/// with the app's own) to `DeviceDescriptor::required_features`.
#[must_use]
pub fn timer_features(adapter: &wgpu::Adapter) -> wgpu::Features {
    let wanted = if adapter.get_info().backend == wgpu::Backend::BrowserWebGpu {
        wgpu::Features::TIMESTAMP_QUERY
    } else {
        wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
    };
    adapter.features() & wanted
}

pub(crate) fn build(
    options: &SessionOptions,
    device: &wgpu::Device,
    adapter: &wgpu::Adapter,
    capabilities: Capabilities,
) -> Meta {
    let info = adapter.get_info();
    let limits = device.limits();
    let limit = |name: &str, value: u64| NamedValue { name: name.to_owned(), value: value as f64 };
    Meta {
        level: Some(options.level),
        timestamp_query: capabilities.timestamps,
        timestamp_query_inside_passes: capabilities.inside_passes,
        adapter: AdapterInfo {
            name: info.name.clone(),
            vendor: info.vendor,
            device: info.device,
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            backend: info.backend.to_str().to_owned(),
            architecture: String::new(),
        },
        features: device.features().iter_names().map(|(name, _)| name.to_owned()).collect(),
        // The limits that bound what a frame can do and what a capture can show.
        limits: vec![
            limit("max_texture_dimension_2d", limits.max_texture_dimension_2d.into()),
            limit("max_buffer_size", limits.max_buffer_size),
            limit("max_storage_buffer_binding_size", limits.max_storage_buffer_binding_size),
            limit("max_bind_groups", limits.max_bind_groups.into()),
            limit("max_color_attachments", limits.max_color_attachments.into()),
            limit("max_compute_workgroup_storage_size", limits.max_compute_workgroup_storage_size.into()),
            limit("max_compute_invocations_per_workgroup", limits.max_compute_invocations_per_workgroup.into()),
            limit("max_compute_workgroups_per_dimension", limits.max_compute_workgroups_per_dimension.into()),
        ],
        application: options.application.clone(),
        application_version: options.application_version.clone(),
        recorder: concat!("sgpt-recorder ", env!("CARGO_PKG_VERSION")).to_owned(),
        git_revision: options.git_revision.clone(),
        settings: options.settings.clone(),
        scene: options.scene.clone(),
        wall_clock_start_unix_ns: unix_now_ns(),
        note: options.note.clone(),
        ..Meta::default()
    }
}
