//! One recording into a Blob, and the finished capture the page hands out.

use sgpt_format::NamedText;
use sgpt_recorder::{BlobSink, CaptureSummary, Level, MemorySource, ProfileSession, SessionOptions, StopFuture};
use sgpt_web_glue::JsError;
use wasm_bindgen::JsValue;
use web_time::Instant;

use super::dom;
use super::gpu::Gpu;
use crate::Scene;
use crate::memory::{DemoMemory, process_ledger};

/// A session recording the scene into a [`BlobSink`].
pub(crate) struct Recording {
    session: ProfileSession,
    sink: BlobSink,
    started: Instant,
    /// The stop future was handed out: the page is waiting for the last readbacks.
    stopping: bool,
    /// The demo's memory profile for this recording; dropped with it, so the next
    /// recording's capture begins on empty domains again.
    memory: Option<DemoMemory>,
    /// The number of the next frame the session records: the memory profile's clock.
    next_frame: u64,
}

impl Recording {
    /// Starts a session at `level` on the scene's device, for `frames` frames or until
    /// stopped; with `memory`, also the demo's memory profile (domain gauges, provider
    /// metrics and the scene-reload capture).
    pub(crate) fn start(
        scene: &Scene,
        gpu: &Gpu,
        level: Level,
        frames: Option<u64>,
        memory: bool,
    ) -> Result<Self, String> {
        let sink = BlobSink::new();
        let mut settings = scene.settings_meta();
        settings.push(NamedText { name: "page".to_owned(), value: "/demo/ (wasm32, browser WebGPU)".to_owned() });
        settings.extend(gpu.adapter_settings.iter().cloned());
        let mut options = SessionOptions {
            level,
            frame_limit: frames,
            application: "sgpt-demo".to_owned(),
            application_version: env!("CARGO_PKG_VERSION").to_owned(),
            git_revision: option_env!("SGPT_GIT_REVISION").unwrap_or_default().to_owned(),
            settings,
            scene: scene.scene_meta(),
            // The page owns the device-lost callback and forwards the loss (see `gpu::boot`).
            watch_device_lost: false,
            ..SessionOptions::default()
        };
        // Domains are registered before the session starts, so its gauges include them.
        let size = scene.size();
        let memory = memory.then(|| DemoMemory::new(process_ledger(), size.instances(), size.particles));
        if let Some(memory) = &memory {
            options.memory = Some(MemorySource(memory.ledger()));
            options.providers = true;
            if let Some(error) = memory.begin_error() {
                dom::show_notice(&format!("No memory capture, domain gauges only: {error}"));
            }
        }
        let mut session = ProfileSession::new(options, sink.clone());
        scene.describe(&mut session);
        session.start(&gpu.device, &gpu.queue, &gpu.adapter).map_err(|error| error.to_string())?;
        Ok(Self { session, sink, started: Instant::now(), stopping: false, memory, next_frame: 0 })
    }

    /// The session for the frame about to be rendered, while it records frames; runs the
    /// memory profile's work for that frame first, as `sgpt-demo` does.
    pub(crate) fn frame(&mut self) -> Option<&mut ProfileSession> {
        if !self.session.is_recording() {
            return None;
        }
        if let Some(memory) = self.memory.as_mut() {
            memory.frame(self.next_frame);
        }
        self.next_frame += 1;
        Some(&mut self.session)
    }

    pub(crate) fn level(&self) -> Level {
        self.session.level()
    }

    pub(crate) fn frames_written(&self) -> u64 {
        self.session.frames_written()
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.sink.len()
    }

    pub(crate) fn device_lost(&self) {
        self.session.device_lost_notifier().notify();
    }

    /// Stops the session (if it has not stopped itself at its frame limit) and hands out
    /// its stop future, once.
    pub(crate) fn stop(&mut self) -> Option<StopFuture> {
        if self.stopping {
            return None;
        }
        self.stopping = true;
        // Before the stop future finishes the capture, which writes it as a MEMO record; a
        // recording stopped early exports the checkpoints it reached.
        if let Some(capture) = self.memory.as_mut().and_then(DemoMemory::finish)
            && let Err(error) = self.session.record_memory(&capture)
        {
            dom::show_notice(&format!("The memory capture was not recorded: {error}"));
        }
        Some(self.session.stop())
    }

    /// Whether the session stopped by itself (frame limit, device lost) and nobody
    /// awaits it yet.
    pub(crate) fn stopped_unawaited(&self) -> bool {
        !self.stopping && !self.session.is_recording()
    }

    /// The capture as it stands: closed once the stop future resolved.
    pub(crate) fn into_capture(self, summary: Result<CaptureSummary, String>) -> Result<Capture, JsError> {
        let elapsed_ms = self.started.elapsed().as_secs_f64() * 1e3;
        let blob = self.sink.blob()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)?;
        Ok(Capture { blob, url, level: self.session.level(), summary, elapsed_ms })
    }
}

/// A finished capture: the Blob the page owns and its object URL, revoked when a newer
/// capture replaces it.
pub(crate) struct Capture {
    blob: web_sys::Blob,
    url: String,
    level: Level,
    summary: Result<CaptureSummary, String>,
    elapsed_ms: f64,
}

impl Capture {
    pub(crate) fn summary(&self) -> &Result<CaptureSummary, String> {
        &self.summary
    }

    /// Publishes the capture: `window.sgpt`, the download and inspector links, and the
    /// figures on `<body>`.
    pub(crate) fn publish(&self) -> Result<(), JsError> {
        let frames = self.summary.as_ref().map_or(0, |summary| summary.frames);
        let bytes = self.blob.size() as u64;
        // Shared with the timing API: fields are replaced, the object is not.
        let sgpt = dom::sgpt()?;
        set(&sgpt, "capture", &self.blob)?;
        set(&sgpt, "captureUrl", &JsValue::from_str(&self.url))?;
        set(&sgpt, "level", &JsValue::from_str(self.level.name()))?;
        set(&sgpt, "frames", &JsValue::from_f64(frames as f64))?;
        set(&sgpt, "bytes", &JsValue::from_f64(bytes as f64))?;
        set(&sgpt, "recordMs", &JsValue::from_f64(self.elapsed_ms))?;

        let name = format!("sgpt-demo-{}-{frames}f.sgpt", self.level.name());
        let download = dom::element::<web_sys::HtmlAnchorElement>("download")?;
        download.set_href(&self.url);
        download.set_download(&name);
        download.set_hidden(false);
        // The inspector is the site's root page; the demo tab keeps the Blob alive.
        let inspector = dom::element::<web_sys::HtmlAnchorElement>("open-in-inspector")?;
        inspector.set_href(&format!("../?file={}", String::from(js_sys::encode_uri_component(&self.url))));
        inspector.set_hidden(false);

        dom::set_data("frames", &frames.to_string());
        dom::set_data("bytes", &bytes.to_string());
        dom::set_data("recordMs", &format!("{:.0}", self.elapsed_ms));
        let status = match &self.summary {
            Ok(summary) => format!(
                "recorded {frames} frames at {} in {:.1} s: {} ({} dropped spans)",
                self.level,
                self.elapsed_ms / 1e3,
                size(bytes),
                summary.dropped_spans
            ),
            Err(error) => format!("recording failed ({error}); kept {} up to the last whole record", size(bytes)),
        };
        dom::set_text("status", &status);
        Ok(())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = web_sys::Url::revoke_object_url(&self.url);
    }
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsError> {
    js_sys::Reflect::set(target, &JsValue::from_str(key), value)?;
    Ok(())
}

/// Bytes for people: `12.3 KiB`.
pub(crate) fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}
