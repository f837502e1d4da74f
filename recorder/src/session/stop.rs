//! The stop future: what `stop()` and the frame limit both resolve, once the frames in
//! flight are read back and the capture is closed.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::outcome::{CaptureSummary, StopReason};
use super::pipeline::Active;
use crate::error::RecordError;
use crate::shared::Shared;
use crate::sink::CaptureSink;

/// The stop future's shared state.
#[derive(Default)]
pub(super) struct StopShared {
    pub(super) active: Option<Box<Active>>,
    pub(super) reason: StopReason,
    pub(super) result: Option<Result<CaptureSummary, RecordError>>,
    pub(super) sink: Option<Box<dyn CaptureSink>>,
    pub(super) bytes: u64,
    pub(super) frames: u64,
    /// The finished session's warnings.
    pub(super) warnings: Vec<String>,
    /// A stop future polled before the session stopped.
    pub(super) waker: Option<std::task::Waker>,
}

impl StopShared {
    pub(super) fn bytes_written(&self) -> u64 {
        self.active.as_ref().map_or(self.bytes, |active| active.bytes_written())
    }

    pub(super) fn frames_written(&self) -> u64 {
        self.active.as_ref().map_or(self.frames, |active| active.frames_written)
    }
}

/// Resolves when a session finishes. Cloning it is cheap; every clone resolves to the
/// same summary.
#[derive(Clone)]
#[must_use = "a stop future does nothing until awaited"]
pub struct StopFuture {
    pub(super) shared: Shared<StopShared>,
}

impl std::fmt::Debug for StopFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopFuture")
    }
}

impl Future for StopFuture {
    type Output = Result<CaptureSummary, RecordError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut shared = self.shared.lock();
        if let Some(result) = &shared.result {
            return Poll::Ready(result.clone());
        }
        let reason = shared.reason;
        let Some(active) = shared.active.as_mut() else {
            // Not stopped yet: stop() or the frame limit wakes this.
            shared.waker = Some(cx.waker().clone());
            return Poll::Pending;
        };
        active.wake.set(cx.waker());
        if !active.drain() {
            return Poll::Pending;
        }
        let active = shared.active.take().expect("checked above");
        let result = active.finish(reason, &mut shared.warnings);
        let result = match result {
            Ok((summary, sink)) => {
                shared.sink = Some(sink);
                shared.bytes = summary.bytes_written;
                shared.frames = summary.frames;
                Ok(summary)
            }
            Err(error) => Err(error),
        };
        shared.result = Some(result.clone());
        Poll::Ready(result)
    }
}
