//! Cooperative scheduling on the page's one thread: long work runs in slices of about
//! [`SLICE`], reading the clock as it goes rather than doing a fixed amount (a frame costs
//! four times as much on a CPU four times slower), and yields to the event loop between
//! slices so input and painting are never held up for long.

use wasm_bindgen_futures::JsFuture;
use web_time::{Duration, Instant};

use super::error::Error;

/// A slice of work stops after about this long, far below the ~100 ms a task may take.
pub const SLICE: Duration = Duration::from_millis(30);
const UNITS_PER_CLOCK_READ: u32 = 8;

/// The slice under way.
#[derive(Clone, Copy, Debug)]
pub struct Slice {
    started: Instant,
}

impl Slice {
    pub fn start() -> Self {
        Self { started: Instant::now() }
    }

    /// Whether the slice is over: the caller stops after the unit of work in hand.
    pub fn spent(&self) -> bool {
        self.started.elapsed() >= SLICE
    }

    /// `more()` for a job's step, whose units (a frame, a pass) are microseconds each:
    /// the clock is read every few units, as reading it costs about as much as a unit.
    pub fn more(&self) -> impl FnMut() -> bool + '_ {
        let mut units = 0u32;
        move || {
            units = units.wrapping_add(1);
            !units.is_multiple_of(UNITS_PER_CLOCK_READ) || !self.spent()
        }
    }

    /// Yields to the event loop when the slice is over, starting the next one.
    pub async fn yield_if_spent(&mut self) -> Result<(), Error> {
        if self.spent() {
            yield_now().await?;
            *self = Self::start();
        }
        Ok(())
    }
}

/// Resolves after the event loop has run other tasks (input, painting). Awaiting a promise
/// that is already settled would not: it continues in the same task. A message posted to
/// ourselves is a task of its own, like a timeout, without the 4 ms a timeout set from a
/// timeout waits at least (HTML's nesting clamp): 12 % of every 30 ms slice.
pub async fn yield_now() -> Result<(), Error> {
    let channel = web_sys::MessageChannel::new()?;
    let received = js_sys::Promise::new(&mut |resolve, _reject| channel.port1().set_onmessage(Some(&resolve)));
    channel.port2().post_message(&wasm_bindgen::JsValue::UNDEFINED)?;
    JsFuture::from(received).await?;
    channel.port1().close();
    Ok(())
}
