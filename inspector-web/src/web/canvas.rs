//! A canvas whose backing store follows its CSS size in device pixels, so lines and
//! text are sharp on HiDPI screens: sized from `devicePixelContentBoxSize`
//! where the browser reports it, else from the CSS size times `devicePixelRatio`.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry};

use super::error::Error;

/// Sizes a small, unobserved canvas (a sparkline) to its CSS size in device pixels and
/// returns its context scaled to CSS pixels, with that size; `None` while it has no width.
pub fn sized_context(canvas: &HtmlCanvasElement) -> Option<(CanvasRenderingContext2d, f64, f64)> {
    let (width, height) = (f64::from(canvas.client_width()), f64::from(canvas.client_height()));
    if width <= 0.0 {
        return None;
    }
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    canvas.set_width((width * ratio) as u32);
    canvas.set_height((height * ratio) as u32);
    let context: CanvasRenderingContext2d = canvas.get_context("2d").ok().flatten()?.dyn_into().ok()?;
    let _ = context.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    Some((context, width, height))
}

#[derive(Debug)]
pub struct Canvas {
    pub element: HtmlCanvasElement,
    pub context: CanvasRenderingContext2d,
    /// CSS pixels.
    pub width: Rc<Cell<f64>>,
    pub height: Rc<Cell<f64>>,
    /// Device pixels per CSS pixel, as measured.
    pub scale: Rc<Cell<f64>>,
    /// The CSS min-height last set, so an unchanged one is not written again.
    pub min_height: Cell<f64>,
}

impl Canvas {
    pub fn find(document: &web_sys::Document, id: &'static str) -> Result<Self, Error> {
        let element: HtmlCanvasElement =
            document.get_element_by_id(id).and_then(|e| e.dyn_into().ok()).ok_or(Error::MissingElement(id))?;
        let context: CanvasRenderingContext2d =
            element.get_context("2d")?.and_then(|c| c.dyn_into().ok()).ok_or(Error::NoGlobal("2d canvas context"))?;
        Ok(Self {
            element,
            context,
            width: Rc::new(Cell::new(0.0)),
            height: Rc::new(Cell::new(0.0)),
            scale: Rc::new(Cell::new(1.0)),
            min_height: Cell::new(0.0),
        })
    }

    /// Sets the CSS height; the width follows the layout.
    pub fn set_css_height(&self, height: f64) {
        let _ = self.element.style().set_property("height", &format!("{height}px"));
    }

    /// Sets the CSS min-height: the canvas is at least this tall, and as tall as its CSS
    /// height makes it otherwise.
    pub fn set_css_min_height(&self, height: f64) {
        self.min_height.set(height);
        let _ = self.element.style().set_property("min-height", &format!("{height}px"));
    }

    /// Resets the transform so that drawing is in CSS pixels, and clears.
    pub fn begin(&self) -> &CanvasRenderingContext2d {
        let scale = self.scale.get();
        let _ = self.context.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
        self.context.clear_rect(0.0, 0.0, self.width.get(), self.height.get());
        &self.context
    }
}

/// A watched canvas and where its CSS width, height and device scale go.
type Watched = (HtmlCanvasElement, Rc<Cell<f64>>, Rc<Cell<f64>>, Rc<Cell<f64>>);

/// Watches canvases' sizes; calls `on_resize` after any changed. Unobserves on drop.
pub struct Resizer {
    observer: ResizeObserver,
    _closure: Closure<dyn FnMut(js_sys::Array)>,
}

impl std::fmt::Debug for Resizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resizer")
    }
}

impl Resizer {
    pub fn new(canvases: &[&Canvas], mut on_resize: impl FnMut() + 'static) -> Result<Self, Error> {
        let targets: Vec<Watched> = canvases
            .iter()
            .map(|c| (c.element.clone(), Rc::clone(&c.width), Rc::clone(&c.height), Rc::clone(&c.scale)))
            .collect();
        let closure = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
            for entry in entries.iter() {
                let Ok(entry) = entry.dyn_into::<ResizeObserverEntry>() else { continue };
                let Some((element, width, height, scale)) =
                    targets.iter().find(|(element, ..)| *element == entry.target().unchecked_into())
                else {
                    continue;
                };
                let rect = entry.content_rect();
                let (css_w, css_h) = (rect.width(), rect.height());
                // devicePixelContentBoxSize is exact (no rounding guess); absent in Safari.
                let device = entry
                    .device_pixel_content_box_size()
                    .get(0)
                    .dyn_into::<web_sys::ResizeObserverSize>()
                    .ok()
                    .map(|size| (size.inline_size(), size.block_size()));
                let estimate = ((css_w * ratio).round(), (css_h * ratio).round());
                // It differs from the estimate only by pixel snapping; a larger gap means
                // an emulated ratio (DevTools, headless) that the box size ignores.
                let (dev_w, dev_h) = device
                    .filter(|(w, h)| (w - estimate.0).abs() <= 2.0 && (h - estimate.1).abs() <= 2.0)
                    .unwrap_or(estimate);
                element.set_width(dev_w.max(1.0) as u32);
                element.set_height(dev_h.max(1.0) as u32);
                width.set(css_w);
                height.set(css_h);
                scale.set(if css_w > 0.0 { dev_w / css_w } else { ratio });
            }
            on_resize();
        });
        let observer = ResizeObserver::new(closure.as_ref().unchecked_ref())?;
        for canvas in canvases {
            let options = web_sys::ResizeObserverOptions::new();
            options.set_box(web_sys::ResizeObserverBoxOptions::DevicePixelContentBox);
            observer.observe_with_options(&canvas.element, &options);
        }
        Ok(Self { observer, _closure: closure })
    }
}

impl Drop for Resizer {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
