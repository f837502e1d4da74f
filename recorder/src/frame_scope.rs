//! One frame as one value: opened on an optional session, closed by `submit`, which does the
//! frame's last three steps in the order the recorder needs (resolve each encoder, submit,
//! end the frame). With no session every method is one `None` check and `submit` is
//! `queue.submit`, so an application keeps one code path whether it records or not.

use crate::{GraphPassScope, PassTimer, ProfileSession, ProfiledComputePass, ProfiledRenderPass, RecordError};

/// A frame of an optional [`ProfileSession`]: see the crate docs' example.
///
/// Dropped without [`FrameScope::submit`], the frame still ends: spans of encoders it never
/// resolved are counted as dropped.
#[must_use = "a frame ends when its scope is submitted or dropped"]
pub struct FrameScope<'s> {
    /// `None` when not recording: no session, or one past its frame limit or stopped.
    session: Option<&'s mut ProfileSession>,
}

impl std::fmt::Debug for FrameScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameScope").field("recording", &self.session.is_some()).finish()
    }
}

impl<'s> FrameScope<'s> {
    /// Opens a frame on `session`. A session that no longer records (its frame limit was
    /// reached, or it was stopped) gives a scope that records nothing, like `None`.
    #[inline]
    pub fn begin(session: Option<&'s mut ProfileSession>) -> Result<Self, RecordError> {
        let Some(session) = session else { return Ok(Self { session: None }) };
        let recording = session.begin_frame()?;
        Ok(Self { session: recording.then_some(session) })
    }

    /// Whether this frame is being recorded.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.session.is_some()
    }

    /// The session, for the hooks this scope does not wrap (`set_graph`, `note`, …).
    pub fn session(&mut self) -> Option<&mut ProfileSession> {
        self.session.as_deref_mut()
    }

    /// Opens the graph pass named `name` on `encoder` ([`GraphPassScope::named`]).
    #[track_caller]
    #[inline]
    pub fn scope<'a>(&'a mut self, encoder: &'a mut wgpu::CommandEncoder, name: &str) -> GraphPassScope<'a> {
        GraphPassScope::named(self.session.as_deref_mut(), encoder, name)
    }

    /// Begins a compute pass outside any graph pass.
    #[inline]
    pub fn compute_pass<'a>(
        &'a mut self,
        encoder: &'a mut wgpu::CommandEncoder,
        desc: &wgpu::ComputePassDescriptor<'_>,
    ) -> ProfiledComputePass<'a> {
        crate::compute_pass(self.session.as_deref_mut(), encoder, desc)
    }

    /// Begins a render pass outside any graph pass.
    #[inline]
    pub fn render_pass<'a>(
        &'a mut self,
        encoder: &'a mut wgpu::CommandEncoder,
        desc: &wgpu::RenderPassDescriptor<'_>,
    ) -> ProfiledRenderPass<'a> {
        crate::render_pass(self.session.as_deref_mut(), encoder, desc)
    }

    /// Timestamp writes for a compute pass the caller begins itself ([`crate::PassTimer`]).
    pub fn time_compute_pass(&mut self, encoder: &wgpu::CommandEncoder, label: &str) -> Option<PassTimer> {
        crate::time_compute_pass(self.session.as_deref_mut(), encoder, label)
    }

    /// Timestamp writes for a render pass the caller begins itself ([`crate::PassTimer`]).
    pub fn time_render_pass(&mut self, encoder: &wgpu::CommandEncoder, label: &str) -> Option<PassTimer> {
        crate::time_render_pass(self.session.as_deref_mut(), encoder, label)
    }

    /// Resolves `encoder`'s queries, for an application that finishes and submits its
    /// encoders itself ([`ProfileSession::resolve_queries`]); then end the frame with
    /// [`Self::end`] after its last submit.
    #[inline]
    pub fn resolve_queries(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), RecordError> {
        match self.session.as_deref_mut() {
            Some(session) => session.resolve_queries(encoder),
            None => Ok(()),
        }
    }

    /// Resolves each encoder's queries, finishes the encoders and submits them in one
    /// `queue.submit`, in order, then ends the frame. The work is submitted even when the
    /// recorder reports an error; the first one is returned.
    pub fn submit(
        mut self,
        queue: &wgpu::Queue,
        encoders: impl IntoIterator<Item = wgpu::CommandEncoder>,
    ) -> Result<wgpu::SubmissionIndex, RecordError> {
        let mut session = self.session.take();
        let mut first_error = None;
        // Lazy: command buffers go straight to wgpu, nothing is collected.
        let buffers = encoders.into_iter().map(|mut encoder| {
            if let Some(session) = session.as_deref_mut()
                && let Err(error) = session.resolve_queries(&mut encoder)
            {
                first_error.get_or_insert(error);
            }
            encoder.finish()
        });
        let index = queue.submit(buffers);
        if let Some(session) = session
            && let Err(error) = session.end_frame()
        {
            first_error.get_or_insert(error);
        }
        first_error.map_or(Ok(index), Err)
    }

    /// One wgpu-profiler frame ended in this frame ([`ProfileSession::wgpu_profiler_frame`]);
    /// not recording, the profiler is still emptied.
    #[cfg(feature = "wgpu-profiler")]
    pub fn wgpu_profiler_frame(
        &mut self,
        profiler: &mut wgpu_profiler::GpuProfiler,
        fetched: Option<Vec<wgpu_profiler::GpuTimerQueryResult>>,
        timestamp_period: f32,
    ) -> Result<(), RecordError> {
        match self.session.as_deref_mut() {
            Some(session) => session.wgpu_profiler_frame(profiler, fetched, timestamp_period),
            None => {
                std::iter::from_fn(|| profiler.process_finished_frame(timestamp_period)).for_each(drop);
                Ok(())
            }
        }
    }

    /// Ends the frame after the application's own last `queue.submit`
    /// ([`ProfileSession::end_frame`]).
    pub fn end(mut self) -> Result<(), RecordError> {
        match self.session.take() {
            Some(session) => session.end_frame(),
            None => Ok(()),
        }
    }
}

impl Drop for FrameScope<'_> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take()
            && let Err(error) = session.end_frame()
        {
            log::error!("sgpt-recorder: a frame dropped unsubmitted could not end: {error}");
        }
    }
}
