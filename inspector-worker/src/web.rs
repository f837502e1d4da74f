//! The worker in the browser: listens, says it is ready, and answers each piece. A panic
//! (logged to the console) reaches the page as the worker's `error` event, and the page
//! scans that worker's pieces itself; the listener then stops answering.

use std::cell::RefCell;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use sgpt_web_glue::{Listener, panic};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::Answerer;

thread_local! {
    /// The message listener, for as long as the worker lives.
    static LISTENER: RefCell<Option<Listener>> = const { RefCell::new(None) };
}

#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    panic::install(|_| {});
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let answerer = RefCell::new(Answerer::default());
    let listener = Listener::new(&scope, "message", move |event| {
        let Some(event) = event.dyn_ref::<MessageEvent>() else { return };
        let message = Array::from(&event.data());
        let generation = message.get(1).as_f64().map_or(u32::MAX, |value| value as u32);
        match message.get(0).as_string().as_deref() {
            Some("share") => answerer.borrow_mut().begin(generation, &message.get(2).as_string().unwrap_or_default()),
            Some("piece") => {
                let number = message.get(2);
                let first = message.get(3).as_f64().unwrap_or(0.0) as usize;
                let base = message.get(4).as_f64().unwrap_or(0.0) as u64;
                let entries_len = message.get(5).as_f64().unwrap_or(0.0) as u32;
                let bytes_len = message.get(6).as_f64().unwrap_or(0.0) as u32;
                let buffer: ArrayBuffer = message.get(7).unchecked_into();
                let part =
                    |offset: u32, len: u32| Uint8Array::new_with_byte_offset_and_length(&buffer, offset, len).to_vec();
                let (entries, bytes) = (part(0, entries_len), part(entries_len, bytes_len));
                let answer = answerer.borrow().answer(generation, first, base, &entries, &bytes);
                // The buffer goes back with the answer in it, for the page's next piece; a
                // new one only where it does not fit.
                let (kind, payload, buffer) = match answer {
                    Ok(figures) => {
                        let len = figures.len() as u32;
                        let buffer = if len <= buffer.byte_length() { buffer } else { ArrayBuffer::new(len) };
                        Uint8Array::new_with_byte_offset_and_length(&buffer, 0, len).copy_from(&figures);
                        ("figures", JsValue::from(len), buffer)
                    }
                    Err(why) => ("failed", JsValue::from(why), buffer),
                };
                let message = Array::of5(&kind.into(), &generation.into(), &number, &payload, &buffer);
                // Posting fails only once the page has dropped the worker: nobody to tell.
                let _ = reply.post_message_with_transfer(&message, &Array::of1(&buffer));
            }
            _ => {}
        }
    })
    .map_err(|error| JsValue::from_str(error.message()))?;
    LISTENER.with(|slot| *slot.borrow_mut() = Some(listener));
    scope.post_message(&Array::of1(&"ready".into()))
}
