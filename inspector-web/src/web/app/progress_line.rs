//! The status line and its progress bar, repainted at the pace `progress_pace` sets: an
//! update held back is shown by a timer when its turn comes, unless a newer one was shown
//! first.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::HtmlElement;

use crate::progress_pace::{Offer, ProgressPace};
use crate::slicing::Clock;
use crate::web::slice::PageClock;

/// An update: the bar's fraction (`None` hides it) and the status text.
type Progress = (Option<f64>, String);

pub struct ProgressLine {
    status: HtmlElement,
    bar: HtmlElement,
    pace: RefCell<ProgressPace>,
    /// The newest update held back for its turn.
    held: RefCell<Option<Progress>>,
    /// Whether a timer is set to show it.
    timer_set: Cell<bool>,
}

impl ProgressLine {
    pub fn new(status: HtmlElement, bar: HtmlElement) -> Rc<Self> {
        Rc::new(Self {
            status,
            bar,
            pace: RefCell::new(ProgressPace::default()),
            held: RefCell::new(None),
            timer_set: Cell::new(false),
        })
    }

    /// Shows `text`, and the bar at `fraction` (hidden for `None`), now or at its turn.
    pub fn set(self: &Rc<Self>, fraction: Option<f64>, text: &str) {
        let now = now_ms();
        let offer =
            if fraction.is_some() && !self.bar.hidden() { self.pace.borrow().offer(now, text) } else { Offer::Show };
        if let Offer::HoldUntil(at) = offer {
            *self.held.borrow_mut() = Some((fraction, text.to_owned()));
            self.show_at(at - now);
            return;
        }
        self.show(now, fraction, text);
    }

    /// Forgets any update held back: the page wrote the status line itself.
    pub fn drop_held(&self) {
        self.held.borrow_mut().take();
        self.pace.borrow_mut().reset();
    }

    fn show(&self, now: f64, fraction: Option<f64>, text: &str) {
        self.held.borrow_mut().take();
        match fraction {
            Some(value) => {
                let value = format!("{:.3}", value.clamp(0.0, 1.0));
                if self.bar.get_attribute("value").as_deref() != Some(value.as_str()) {
                    let _ = self.bar.set_attribute("value", &value);
                }
                if self.bar.hidden() {
                    self.bar.set_hidden(false);
                }
                self.pace.borrow_mut().shown(now, text);
            }
            None => {
                if !self.bar.hidden() {
                    self.bar.set_hidden(true);
                }
                self.pace.borrow_mut().reset();
            }
        }
        if !text.is_empty() && self.status.text_content().as_deref() != Some(text) {
            self.status.set_text_content(Some(text));
        }
    }

    /// Shows the held update in `delay_ms`, unless a timer is set already.
    fn show_at(self: &Rc<Self>, delay_ms: f64) {
        let Some(window) = web_sys::window() else { return };
        if self.timer_set.replace(true) {
            return;
        }
        let line = Rc::clone(self);
        let fire = Closure::once_into_js(move || {
            line.timer_set.set(false);
            let held = line.held.borrow_mut().take();
            if let Some((fraction, text)) = held {
                line.show(now_ms(), fraction, &text);
            }
        });
        let delay = delay_ms.ceil().clamp(0.0, f64::from(i32::MAX)) as i32;
        if window.set_timeout_with_callback_and_timeout_and_arguments_0(fire.unchecked_ref(), delay).is_err() {
            self.timer_set.set(false);
        }
    }
}

fn now_ms() -> f64 {
    PageClock.now().as_secs_f64() * 1000.0
}
