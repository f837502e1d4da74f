//! The wgpu-profiler bridge (feature `wgpu-profiler`): a renderer already timed through
//! wgpu-profiler (vello, and the programs built on it) lands in the capture, each of its
//! scopes a GPU pass with its span, in the session frame its profiler frame ended in.
//!
//! wgpu-profiler hands back a finished frame's results some frames later, oldest first,
//! and tags them with no frame. So the application tells the session each time a profiler
//! frame ends ([`ProfileSession::wgpu_profiler_frame`]); the session pairs results with
//! those frames in order, and holds a frame whose results are still out before writing it
//! (at most [`HOLD_FRAMES`] frames, never once the session stops). Its topology is written
//! again with the bridged scopes appended, so the session's own passes keep their indices.
//!
//! What the bridge cannot know it says: the spans are on a query set of their own (they are
//! wgpu-profiler's queries, read back by it), attributed to no graph pass, and all of kind
//! `encoder` with their nesting kept as `parent` (wgpu-profiler does not report whether a
//! scope was timed on the encoder, around a pass or inside one), all in a NOTE. A frame written without its
//! results, results that came too late, and frames wgpu-profiler dropped are counted and
//! named in a closing NOTE, never filled in.

use sgpt_format::{Declaration, GpuPass, GpuPassKind, QuerySetDef, Span, SpanKind};
use wgpu_profiler::{GpuProfiler, GpuTimerQueryResult};

use super::ProfileSession;
use super::bridge_state::{HOLD_FRAMES, QUERY_SET_LABEL, flatten};
use super::pipeline::{Active, PendingFrame};
use crate::error::RecordError;

impl Active {
    /// A profiler frame ended inside the open frame. `max_pending` is wgpu-profiler's
    /// `max_num_pending_frames`: when that many were already pending, its `end_frame`
    /// dropped the newest of them unfinished, so its results never come.
    fn bridge_announce(&mut self, max_pending: usize) -> Result<(), RecordError> {
        let Some(frame_number) = self.open.as_ref().map(|open| open.frame.frame_number) else {
            return Err(RecordError::NoFrameOpen);
        };
        if self.bridge.awaited.len() >= max_pending.max(1)
            && let Some(dropped) = self.bridge.awaited.pop_back()
        {
            self.bridge.dropped.add(dropped);
            if let Some(pending) = self.pending_mut(dropped) {
                pending.bridged.dropped += 1;
            }
        }
        self.bridge.awaited.push_back(frame_number);
        if let Some(open) = self.open.as_mut() {
            open.bridged.expected += 1;
        }
        Ok(())
    }

    /// One profiler frame's results, paired with the oldest frame still waiting for some.
    fn bridge_deliver(&mut self, results: Vec<GpuTimerQueryResult>) {
        let Some(frame_number) = self.bridge.awaited.pop_front() else {
            self.bridge.unannounced += 1;
            return;
        };
        let Some(pending) = self.pending_mut(frame_number) else {
            self.bridge.late.add(frame_number);
            return;
        };
        pending.bridged.arrived += 1;
        flatten(results, None, &mut pending.bridged.scopes);
    }

    /// The open or in-flight frame `frame_number`.
    fn pending_mut(&mut self, frame_number: u64) -> Option<&mut PendingFrame> {
        let open = self.open.as_mut().filter(|open| open.frame.frame_number == frame_number);
        open.or_else(|| self.in_flight.iter_mut().find(|pending| pending.frame.frame_number == frame_number))
    }

    /// At `end_frame`, after the structure was written: a frame expecting results keeps
    /// its topology to extend.
    pub(super) fn bridge_end_frame(&mut self, pending: &mut PendingFrame) {
        if pending.bridged.expected > 0 {
            pending.bridged.base = Some(self.structure.topology().clone());
        }
    }

    /// Whether the oldest frame in flight must wait for its results before it is written.
    pub(super) fn bridge_holds(&self, pending: &PendingFrame) -> bool {
        !self.bridge.stopping && pending.bridged.waiting() && self.in_flight.len() <= HOLD_FRAMES
    }

    /// Nothing is held any more: the session stops.
    pub(super) fn bridge_stop(&mut self) {
        self.bridge.stopping = true;
    }

    /// Before a frame is written: its bridged scopes become GPU passes appended to its
    /// topology, and their spans join the frame's.
    pub(super) fn bridge_attach(&mut self, pending: &mut PendingFrame) {
        let bridged = &mut pending.bridged;
        if bridged.expected == 0 {
            return;
        }
        let frame_number = pending.frame.frame_number;
        if bridged.waiting() {
            self.bridge.missing.add(frame_number);
        }
        let Some(mut topology) = bridged.base.take().filter(|_| !bridged.scopes.is_empty()) else { return };
        let query_set = match self.bridge_query_set(frame_number) {
            Ok(query_set) => query_set,
            Err(error) => {
                self.failed(error);
                return;
            }
        };
        let base = topology.gpu_passes.len() as u32;
        for (at, scope) in bridged.scopes.drain(..).enumerate() {
            let pass = base + at as u32;
            // One kind for every scope: wgpu-profiler times a scope on the encoder, around a
            // pass or inside one, and does not say which. The nesting is kept as `parent`.
            topology.gpu_passes.push(GpuPass {
                label: scope.label,
                graph_pass: None,
                kind: GpuPassKind::Encoder,
                parent: scope.parent.map(|parent| base + parent),
                attachments: Vec::new(),
            });
            match scope.time {
                // Both zero: the query was never written.
                Some((0, 0)) | None => self.bridge.untimed += 1,
                Some((begin_ns, end_ns)) => {
                    pending.frame.spans.push(Span { pass, kind: SpanKind::Pass, query_set, begin_ns, end_ns });
                }
            }
        }
        let Some(writer) = self.writer.as_mut().filter(|_| self.write_error.is_none()) else { return };
        match writer.topology(&topology) {
            Ok(id) => pending.frame.topology = id,
            Err(error) => {
                self.failed(error.into());
            }
        }
    }

    /// The bridged spans' query set, declared (with the NOTE saying what it holds) the
    /// first time.
    fn bridge_query_set(&mut self, frame_number: u64) -> Result<u8, RecordError> {
        if let Some(id) = self.bridge.query_set {
            return Ok(id);
        }
        let own =
            self.pool.as_ref().map_or(0, |pool| pool.sets.iter().map(|set| u16::from(set.id) + 1).max().unwrap_or(0));
        let id = u8::try_from(own).unwrap_or(u8::MAX);
        let writer = self.writer.as_mut().ok_or(RecordError::NotStarted)?;
        writer.declare(&[Declaration::QuerySet(QuerySetDef { id, label: QUERY_SET_LABEL.to_owned() })])?;
        self.bridge.query_set = Some(id);
        if !self.bridge.noted {
            self.bridge.noted = true;
            let text = format!(
                "sgpt-recorder: the spans on query set {id} ({QUERY_SET_LABEL:?}) came through the wgpu-profiler bridge: they are wgpu-profiler's own timestamp queries, read back by it; every scope is written as kind encoder with its enclosing scope as parent, as wgpu-profiler does not say whether it timed a scope on the encoder, around a pass or inside one; they are attributed to no graph pass"
            );
            self.note(frame_number, text)?;
        }
        Ok(id)
    }
}

impl ProfileSession {
    /// Brings a renderer timed through wgpu-profiler into the capture: call it once each
    /// time the profiler's frame ends (`GpuProfiler::end_frame`), while this session's frame
    /// is open; that profiler frame's scopes land in this frame, as GPU passes with spans.
    ///
    /// `fetched` is what the caller already took out of the profiler since the last call
    /// (vello's `renderer.profile_result.take()`: vello ends its profiler frame inside
    /// `render_to_texture` and fetches one finished frame itself); then every frame the
    /// profiler has finished is taken from it. Hand over everything taken from the
    /// profiler, and nothing else, or results pair with the wrong frames.
    ///
    /// Off the session (not started, stopped, off) the profiler is still emptied, so it
    /// never queues results; `Err(NoFrameOpen)` when recording with no frame open.
    pub fn wgpu_profiler_frame(
        &mut self,
        profiler: &mut GpuProfiler,
        fetched: Option<Vec<GpuTimerQueryResult>>,
        timestamp_period: f32,
    ) -> Result<(), RecordError> {
        let max_pending = profiler.settings().max_num_pending_frames;
        let announced = self.active().map_or(Ok(()), |active| active.bridge_announce(max_pending));
        self.wgpu_profiler_collect(profiler, fetched, timestamp_period);
        announced
    }

    /// Takes the profiler's finished frames (and `fetched`, as for
    /// [`Self::wgpu_profiler_frame`]) without announcing a new one: after waiting on the
    /// device once the last frame is submitted, so the last frames' results land before
    /// the session is finished. Accepted until the stop future has finished the capture.
    pub fn wgpu_profiler_collect(
        &mut self,
        profiler: &mut GpuProfiler,
        fetched: Option<Vec<GpuTimerQueryResult>>,
        timestamp_period: f32,
    ) {
        let results =
            fetched.into_iter().chain(std::iter::from_fn(|| profiler.process_finished_frame(timestamp_period)));
        if let Some(active) = self.active() {
            results.for_each(|results| active.bridge_deliver(results));
            return;
        }
        // Stopping: the recording state waits in the stop future's shared state.
        match self.stop.lock().active.as_deref_mut() {
            Some(active) => results.for_each(|results| active.bridge_deliver(results)),
            None => results.for_each(drop),
        }
    }
}
