//! Commands ([`Command`]) from event handlers to the session that owns the open capture. The session
//! is one future that holds the file's bytes and the `Capture` borrowing them (a future
//! may borrow from itself), so the capture is opened once and freed when it ends.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Poll, Waker};

use crate::session::Command;

#[derive(Debug, Default)]
pub struct Mailbox {
    queue: RefCell<VecDeque<Command>>,
    waker: RefCell<Option<Waker>>,
    /// Woken without a command since the last [`Mailbox::wait`].
    woken: Cell<bool>,
}

impl Mailbox {
    pub fn send(&self, command: Command) {
        self.queue.borrow_mut().push_back(command);
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }

    /// Wakes whoever waits, with no command: the statistics workers answered.
    pub fn wake(&self) {
        self.woken.set(true);
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }

    /// Waits until a command is queued or [`Mailbox::wake`] is called (since the last
    /// wait), whichever comes first; takes no command.
    pub async fn wait(&self) {
        poll_fn(|cx| {
            if self.woken.replace(false) || !self.queue.borrow().is_empty() {
                Poll::Ready(())
            } else {
                *self.waker.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await;
    }

    pub fn try_recv(&self) -> Option<Command> {
        self.queue.borrow_mut().pop_front()
    }

    pub async fn recv(&self) -> Command {
        poll_fn(|cx| match self.try_recv() {
            Some(command) => Poll::Ready(command),
            None => {
                *self.waker.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }
}
