//! The `/demo/` page (`demo/index.html`): the scene on the browser's WebGPU, shown in a
//! canvas, with a Record panel (level, frames, memory, Start/Stop, Download, Open in
//! inspector).
//!
//! `?record=N&level=L` records N frames as soon as the scene runs, then publishes the
//! capture as `window.sgpt.capture` (a Blob) and `window.sgpt.captureUrl` (its object
//! URL), and shows the "Open in inspector" link (`/?file=<object URL>`, a new tab: this
//! tab owns the Blob). `?scale=S` scales the scene up for real GPUs; `?lose-device=F`
//! destroys the device after frame F, to see what a capture cut by a device loss keeps.
//!
//! Recordings include the demo's memory profile by default: domain gauges, provider
//! metrics, and the memory capture around the scene unload (frame 80) and reload (120),
//! checkpointed at frames 40, 80 and 160. `?memory=0`, or the panel's Memory box, leaves
//! it out.
//!
//! The page reports on `<body>`: `data-state` (loading, running, recording, recorded,
//! error), `data-error`, `data-backend`, `data-timestamp-query`, `data-level`, and for
//! the last capture `data-frames`, `data-bytes` and `data-record-ms`.
//!
//! The page uses the recorder's public API only, and hands its capture to the inspector
//! the way any user would: the container is the only interface between the two.

mod app;
mod dom;
mod gpu;
mod present;
mod query;
mod record;
mod timing;

use std::cell::RefCell;
use std::rc::Rc;

use sgpt_recorder::timing::{PhaseClock, track};
use sgpt_web_glue::{JsError, Listener};
use wasm_bindgen::prelude::*;

use self::app::{AnimationLoop, App, Panel};
use self::query::PageQuery;
use crate::{Scene, SceneOptions};

/// What keeps the page running: its app, frame loop and listeners.
struct Page {
    _app: Rc<RefCell<App>>,
    _frames: AnimationLoop,
    _listeners: Vec<Listener>,
}

thread_local! {
    /// The page's one running instance, for the page's lifetime.
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
}

/// Runs when the module is instantiated (Trunk's loader calls it).
#[wasm_bindgen(start)]
pub fn start() {
    // The shared hook also stops every listener and callback that checks it: the state a
    // panic leaves behind may be half-updated.
    sgpt_web_glue::panic::install(|info| dom::show_error(&format!("panic: {info}")));
    dom::set_state("loading");
    let query = match PageQuery::parse(&dom::window().location().search().unwrap_or_default()) {
        Ok(query) => query,
        Err(error) => return dom::show_error(&error),
    };
    // Before anything boots: boot is what the timeline most wants to show.
    if let Err(error) = timing::init(query.timing) {
        return dom::show_error(&format!("the timing API could not be installed: {error}"));
    }
    let boot = PhaseClock::start(track::BOOT);
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(error) = run(query, boot).await {
            dom::show_error(&error);
        }
    });
}

async fn run(query: PageQuery, mut boot: PhaseClock) -> Result<(), String> {
    let canvas = dom::element::<web_sys::HtmlCanvasElement>("view").map_err(|error| error.to_string())?;
    let gpu = gpu::boot(canvas.clone()).await.map_err(|error| error.to_string())?;
    boot.phase("adapter");
    let info = gpu.adapter.get_info();
    dom::set_data("backend", info.backend.to_str());
    dom::set_data("timestampQuery", &gpu.timestamps.to_string());
    dom::set_text(
        "adapter",
        &format!(
            "{} ({}), timestamp-query {}",
            gpu.adapter_label(),
            info.backend.to_str(),
            if gpu.timestamps { "on" } else { "off" }
        ),
    );
    if !gpu.timestamps {
        dom::show_notice(
            "This adapter has no timestamp-query: captures hold CPU times, structure and workload but no GPU \
             spans (META says timestamp_query=false).",
        );
    }
    let options = SceneOptions { scale: query.scale, ..SceneOptions::default() };
    let scene = Scene::new(&gpu.device, &gpu.queue, options).map_err(|error| error.to_string())?;
    // The canvas holds the scene's output at its own resolution; CSS scales it.
    let size = scene.size();
    canvas.set_width(size.width);
    canvas.set_height(size.height);
    let presenter = present::Presenter::new(&gpu.adapter, &gpu.device, &gpu.surface, size.width, size.height)?;
    boot.phase("pipelines");
    let app = Rc::new(RefCell::new(App::new(gpu, scene, presenter, query.lose_device, boot)));
    let listeners = Panel::wire(&app).map_err(|error: JsError| error.to_string())?;
    app::install_profile(&app).map_err(|error| error.to_string())?;
    dom::set_state("running");
    Panel::show_memory(query.memory);
    if let Some(frames) = query.record {
        Panel::show(query.level, frames);
        app.borrow_mut().start_recording(query.level, Some(frames), query.memory)?;
    }
    let frames = {
        let app = Rc::clone(&app);
        AnimationLoop::start(move || {
            let stop = app.borrow_mut().tick();
            if let Some(stop) = stop {
                app::finish(&app, stop);
            }
        })
    };
    PAGE.with(|page| *page.borrow_mut() = Some(Page { _app: app, _frames: frames, _listeners: listeners }));
    Ok(())
}
