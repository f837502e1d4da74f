//! The inspector's wiring: events in, loads out. One load is current at a time; the result
//! of a load overtaken by a newer file is dropped.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use web_sys::{DragEvent, Event, EventTarget, MouseEvent, UrlSearchParams};

use super::error::Error;
use super::listener::Listener;
use super::panic;
use super::source::{Input, ReadError};
use super::view::View;
use crate::summary::{self, LoadError};

thread_local! {
    // The page's one inspector lives as long as the page: kept here rather than leaked,
    // so its listeners stay owned handles.
    static INSPECTOR: RefCell<Option<Inspector>> = const { RefCell::new(None) };
}

struct Inspector {
    _listeners: Vec<Listener>,
}

struct App {
    view: View,
    /// The ticket of the newest load; older loads stop when they see it changed.
    current: Cell<u64>,
}

/// Wires the page up and opens `?file=` if given.
pub fn start() -> Result<(), Error> {
    let app = Rc::new(App { view: View::find()?, current: Cell::new(0) });
    let document: &EventTarget = app.view.document();
    let on = |target: &EventTarget, kind, handler: fn(&Rc<App>, &Event)| {
        let app = Rc::clone(&app);
        Listener::new(target, kind, move |event| {
            if !panic::happened() {
                handler(&app, &event);
            }
        })
    };
    // The whole document is the drop zone.
    let listeners = vec![
        on(document, "dragover", App::on_drag_over)?,
        on(document, "dragleave", App::on_drag_leave)?,
        on(document, "drop", App::on_drop)?,
        on(app.view.input(), "change", App::on_pick)?,
    ];
    app.view.show_idle();
    if let Some(url) = file_param()? {
        app.open(Input::Url(url));
    }
    let inspector = Inspector { _listeners: listeners };
    INSPECTOR.with(|slot| slot.replace(Some(inspector)));
    Ok(())
}

/// `?file=URL`: bookmarkable, and how the demo hands over its `blob:` capture.
fn file_param() -> Result<Option<String>, Error> {
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let params = UrlSearchParams::new_with_str(&window.location().search()?)?;
    Ok(params.get("file").filter(|url| !url.is_empty()))
}

impl App {
    fn on_drag_over(self: &Rc<Self>, event: &Event) {
        // Without this the browser refuses the drop, then opens the file itself.
        event.prevent_default();
        if let Some(transfer) = event.dyn_ref::<DragEvent>().and_then(DragEvent::data_transfer) {
            transfer.set_drop_effect("copy");
        }
        self.view.set_dragging(true);
    }

    fn on_drag_leave(self: &Rc<Self>, event: &Event) {
        // `dragleave` fires at every element boundary crossed; only leaving the window,
        // where there is no element to enter, ends the drag.
        let left_window = event.dyn_ref::<MouseEvent>().is_none_or(|event| event.related_target().is_none());
        if left_window {
            self.view.set_dragging(false);
        }
    }

    fn on_drop(self: &Rc<Self>, event: &Event) {
        event.prevent_default();
        self.view.set_dragging(false);
        let file = event
            .dyn_ref::<DragEvent>()
            .and_then(DragEvent::data_transfer)
            .and_then(|transfer| transfer.files())
            .and_then(|files| files.get(0));
        match file {
            Some(file) => self.open(Input::File(file)),
            None => self.view.show_error("Nothing to open: what was dropped is not a file."),
        }
    }

    fn on_pick(self: &Rc<Self>, _event: &Event) {
        let file = self.view.input().files().and_then(|files| files.get(0));
        // Cleared so that picking the same file again still fires `change`.
        self.view.input().set_value("");
        if let Some(file) = file {
            self.open(Input::File(file));
        }
    }

    fn open(self: &Rc<Self>, input: Input) {
        let ticket = self.current.get() + 1;
        self.current.set(ticket);
        spawn_local(Rc::clone(self).load(ticket, input));
    }

    fn is_current(&self, ticket: u64) -> bool {
        !panic::happened() && self.current.get() == ticket
    }

    async fn load(self: Rc<Self>, ticket: u64, input: Input) {
        let name = input.name();
        self.view.show_loading(ticket, &name);
        let outcome = self.try_load(ticket, &name, &input).await;
        // A load overtaken by a newer one says nothing; the newer one speaks.
        if let Err(failure) = outcome
            && self.is_current(ticket)
        {
            self.view.show_error(&format!("Could not open {name}: {failure}."));
        }
    }

    async fn try_load(&self, ticket: u64, name: &str, input: &Input) -> Result<(), Failure> {
        let bytes = input.read().await?;
        if !self.is_current(ticket) {
            return Ok(());
        }
        let summary = summary::summarize(&bytes)?;
        self.view.show_summary(name, &summary)?;
        // Verifying decodes every frame; let the summary reach the screen first.
        after_paint().await?;
        if !self.is_current(ticket) {
            return Ok(());
        }
        let defects = summary::verify(&bytes)?;
        self.view.show_verified_defects(&defects)?;
        Ok(())
    }
}

/// Why a load stopped. Each displays as the reason, for "Could not open x: …".
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Capture(#[from] LoadError),
    #[error(transparent)]
    Page(#[from] Error),
}

/// Resolves after the next frame is painted: an animation frame, then a task.
async fn after_paint() -> Result<(), Error> {
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let mut scheduled = Ok(0);
    let frame = js_sys::Promise::new(&mut |resolve, _reject| {
        scheduled = window.request_animation_frame(&resolve);
    });
    scheduled?;
    JsFuture::from(frame).await?;
    let mut scheduled = Ok(0);
    let task = js_sys::Promise::new(&mut |resolve, _reject| {
        scheduled = window.set_timeout_with_callback(&resolve);
    });
    scheduled?;
    JsFuture::from(task).await?;
    Ok(())
}
