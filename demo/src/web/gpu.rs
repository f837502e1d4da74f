//! Boots wgpu on the browser's WebGPU, with a surface on the page's canvas.

use std::sync::{Arc, Mutex, PoisonError};

use sgpt_format::NamedText;
use sgpt_web_glue::JsError;
use wasm_bindgen::{JsCast as _, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::dom;

/// Why the page has no GPU to render on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BootError {
    #[error(
        "this browser has no WebGPU (navigator.gpu is missing): use a recent Chrome or Edge, \
         served over http://127.0.0.1 or https"
    )]
    NoWebGpu,
    #[error("no WebGPU adapter: {0}")]
    NoAdapter(String),
    #[error("the WebGPU adapter refused a device: {0}")]
    RequestDevice(String),
    #[error("the canvas gave no WebGPU surface: {0}")]
    Surface(String),
}

/// The device the scene runs on, and what the page watches on it.
pub(crate) struct Gpu {
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) surface: wgpu::Surface<'static>,
    /// Whether the device has `timestamp-query`: without it captures hold no GPU spans.
    pub(crate) timestamps: bool,
    /// What the WebGPU adapter tells about itself (wgpu keeps only the description),
    /// for META's settings.
    pub(crate) adapter_settings: Vec<NamedText>,
    /// Uncaptured device errors and the device-lost message, set from wgpu's callbacks
    /// (which must be `Send`) and read by the frame loop.
    pub(crate) faults: Arc<Mutex<Faults>>,
}

impl Gpu {
    /// The adapter as far as WebGPU names it: browsers hide the device name, and often
    /// tell only a vendor and an architecture.
    pub(crate) fn adapter_label(&self) -> String {
        let setting = |name: &str| {
            self.adapter_settings.iter().find(|setting| setting.name == name).map(|setting| setting.value.as_str())
        };
        let named = [setting("webgpu_adapter.vendor"), setting("webgpu_adapter.architecture")];
        let named: Vec<&str> = named.into_iter().flatten().collect();
        match (self.adapter.get_info().name, named.is_empty()) {
            (name, _) if !name.is_empty() => name,
            (_, false) => named.join(" "),
            (_, true) => "an unnamed adapter".to_owned(),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Faults {
    pub(crate) errors: Vec<String>,
    pub(crate) lost: Option<String>,
}

impl Faults {
    pub(crate) fn take(faults: &Mutex<Faults>) -> Faults {
        std::mem::take(&mut *faults.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

pub(crate) async fn boot(canvas: web_sys::HtmlCanvasElement) -> Result<Gpu, BootError> {
    let gpu = js_sys::Reflect::get(&dom::window().navigator(), &JsValue::from_str("gpu")).unwrap_or_default();
    if gpu.is_undefined() || gpu.is_null() {
        return Err(BootError::NoWebGpu);
    }
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
        .map_err(|error| BootError::Surface(error.to_string()))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await
        .map_err(|error| BootError::NoAdapter(error.to_string()))?;
    let required_features = sgpt_recorder::timer_features(&adapter);
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("sgpt-demo"),
            required_features,
            required_limits: wgpu::Limits::downlevel_defaults(),
            ..Default::default()
        })
        .await
        .map_err(|error| BootError::RequestDevice(error.to_string()))?;
    let faults = Arc::new(Mutex::new(Faults::default()));
    let errors = Arc::clone(&faults);
    device.on_uncaptured_error(Arc::new(move |error| {
        errors.lock().unwrap_or_else(PoisonError::into_inner).errors.push(error.to_string());
    }));
    // The page owns the device-lost callback (wgpu keeps one) and forwards the loss to
    // the session, which is started with `watch_device_lost: false`.
    let lost = Arc::clone(&faults);
    device.set_device_lost_callback(move |reason, message| {
        lost.lock().unwrap_or_else(PoisonError::into_inner).lost = Some(format!("{reason:?}: {message}"));
    });
    let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let adapter_settings = adapter_settings(&gpu).await;
    Ok(Gpu { adapter, device, queue, surface, timestamps, adapter_settings, faults })
}

/// `GPUAdapterInfo`'s vendor, architecture, device and description, as far as the browser
/// tells them (it may leave any empty), plus the user agent. A second adapter request:
/// wgpu does not hand its `GPUAdapter` out.
async fn adapter_settings(gpu: &JsValue) -> Vec<NamedText> {
    let mut settings = Vec::new();
    if let Ok(agent) = dom::window().navigator().user_agent() {
        settings.push(NamedText { name: "user_agent".to_owned(), value: agent });
    }
    let info = async {
        let request = call0(gpu, "requestAdapter")?;
        let adapter = JsFuture::from(request.dyn_into::<js_sys::Promise>().map_err(JsError::from)?).await?;
        Ok::<_, JsError>(js_sys::Reflect::get(&adapter, &JsValue::from_str("info"))?)
    };
    if let Ok(info) = info.await {
        for field in ["vendor", "architecture", "device", "description"] {
            let value = js_sys::Reflect::get(&info, &JsValue::from_str(field)).ok().and_then(|v| v.as_string());
            if let Some(value) = value.filter(|value| !value.is_empty()) {
                settings.push(NamedText { name: format!("webgpu_adapter.{field}"), value });
            }
        }
    }
    settings
}

/// `target[method]()`.
fn call0(target: &JsValue, method: &str) -> Result<JsValue, JsError> {
    let function = js_sys::Reflect::get(target, &JsValue::from_str(method))?;
    let function =
        function.dyn_into::<js_sys::Function>().map_err(|_| JsError::new(format!("{method} is not a function")))?;
    Ok(function.call0(target)?)
}
