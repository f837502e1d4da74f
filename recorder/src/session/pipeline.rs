//! The in-flight frame pipeline, and the recording state that drives it. A frame's spans
//! are claimed as its passes begin, resolved on the encoders that wrote them, mapped at
//! `end_frame`, then read back, checked and written in frame order, with the warnings and
//! notes that raises. The frame's structure is the structure tracker's (`structure.rs`), and
//! the merge of the front's records into it is `merge.rs`'s.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sgpt_format::{CpuSpan, Frame, Level, MemoryRecord, Note, Op, Topology, Writer};

use super::local_state::LocalRecords;
use super::merge::{Merge, MergeBuffers, SpanSlot};
use super::outcome::{BytesCallback, BytesWritten, CaptureSummary, StopReason};
use super::structure::Structure;
use crate::clock::CpuClock;
use crate::device::DeviceClaim;
use crate::encoder_key::{EncoderKey, encoder_key};
use crate::error::RecordError;
use crate::front::{FrontShared, FrontTaken};
use crate::memory::Gauges;
use crate::meta::Capabilities;
use crate::providers::Providers;
use crate::sink::{BoxedSink, CaptureSink};
use crate::stale::Refusal;
use crate::timer::{INDIRECT_SLOT_BYTES, QUERY_BYTES, TimerPool, WakeSlot};
use crate::workload::Registry;

/// The warnings a session raises once, with a NOTE on the frame that first raised them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Warning {
    /// Spans never resolved on the encoder that wrote them.
    Unresolved,
    /// Spans whose read-back values their passes did not write.
    Refused,
    /// Spans of a frame that found every timer set still in flight.
    NoTimerSet,
}

/// A recording session's state.
pub(crate) struct Active {
    pub(super) level: Level,
    /// Held so the device's identity (the claim's key) outlives the session; natively
    /// also polled to drive readbacks.
    #[cfg_attr(target_arch = "wasm32", expect(dead_code, reason = "the browser drives readbacks; held for the claim"))]
    pub(super) device: wgpu::Device,
    pub(super) period: f32,
    pub(super) capabilities: Capabilities,
    pub(super) clock: CpuClock,
    /// `None` only once finished.
    pub(super) writer: Option<Writer<BoxedSink>>,
    pub(super) pool: Option<TimerPool>,
    pub(super) wake: Arc<WakeSlot>,
    pub(super) lost: Arc<AtomicBool>,
    pub(super) _claim: DeviceClaim,
    pub(super) registry: Registry,
    pub(super) frame_limit: Option<u64>,
    pub(super) byte_budget: u64,
    pub(super) budget_warned: bool,
    /// Which [`Warning`]s were raised, by discriminant.
    pub(super) warned: [bool; 3],
    pub(super) warnings: Vec<String>,
    pub(super) on_bytes: Option<BytesCallback>,
    pub(super) next_frame_number: u64,
    pub(super) frames_ended: u64,
    pub(super) frames_written: u64,
    pub(super) dropped_total: u64,
    pub(super) open: Option<PendingFrame>,
    pub(super) in_flight: VecDeque<PendingFrame>,
    pub(super) spare: Vec<PendingFrame>,
    /// Domain gauges sampled at each `end_frame`.
    pub(super) gauges: Option<Gauges>,
    /// Provider metrics sampled at each `end_frame`, after the gauges.
    pub(super) providers: Option<Providers>,
    /// Memory captures handed over by the application, written as MEMO records at stop.
    pub(super) memory_records: Vec<MemoryRecord>,
    /// The frame's structure and the open graph-pass bracket.
    pub(super) structure: Structure,
    /// Labels of passes timed through a [`crate::PassTimer`] that a NOTE already named.
    pub(super) timed_only_noted: Vec<String>,
    /// The first write failure; once set, records stop (what reached the sink stays readable).
    pub(super) write_error: Option<RecordError>,
    /// The shared recording front: span slots are claimed from it by both fronts.
    pub(super) front: Arc<FrontShared>,
    /// The records of the session's own brackets and profiled passes, not yet merged.
    pub(super) local: LocalRecords,
    /// The merge's buffers (`merge.rs`).
    pub(super) merge: MergeBuffers,
    /// Results of a renderer timed through wgpu-profiler, paired with their frames.
    #[cfg(feature = "wgpu-profiler")]
    pub(super) bridge: super::bridge_state::Bridge,
}

/// What the pass wrappers and brackets (`pass.rs`) ask of the recording state.
impl Active {
    #[inline]
    pub(crate) fn level(&self) -> Level {
        self.level
    }

    #[inline]
    pub(crate) fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    /// Now on the session's CPU clock.
    #[inline]
    pub(crate) fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    #[inline]
    pub(crate) fn registry(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The open graph-pass bracket, if any.
    #[inline]
    pub(crate) fn open_graph_pass(&self) -> Option<u32> {
        self.structure.graph_pass()
    }

    /// Closes the bracket of `graph_pass`, begun at `begin_ns`, recording its CPU time.
    pub(crate) fn leave_graph_pass(&mut self, graph_pass: u32, begin_ns: u64, end_ns: u64) {
        if self.level >= Level::Structure
            && let Some(open) = self.open.as_mut()
        {
            open.frame.cpu_spans.push(CpuSpan { graph_pass, begin_ns, end_ns });
        }
        self.structure.leave_graph_pass();
    }
}

impl Active {
    pub(super) fn sink(&self) -> Result<&dyn CaptureSink, RecordError> {
        self.writer.as_ref().map(|writer| writer.sink().0.as_ref()).ok_or(RecordError::NotStarted)
    }

    pub(super) fn bytes_written(&self) -> u64 {
        self.writer.as_ref().map_or(0, Writer::bytes_written)
    }

    pub(super) fn poll_device(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if !self.in_flight.is_empty() && !self.lost.load(Ordering::Acquire) {
            // Drives map callbacks natively; never blocks.
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
    }

    // ---- hooks used by the graph-pass bracket and the profiled passes ----

    #[inline]
    pub(crate) fn frame_open(&self) -> bool {
        self.open.is_some()
    }

    /// The first frame's notes on providers that cannot answer in this session.
    pub(super) fn write_provider_notes(&mut self, frame_number: u64) -> Result<(), RecordError> {
        let Some(notes) = self.providers.as_mut().map(Providers::take_notes) else { return Ok(()) };
        for text in notes {
            if self.write_error.is_some() {
                break;
            }
            if let Err(error) = self.note(frame_number, text) {
                return Err(self.failed(error));
            }
        }
        Ok(())
    }

    /// Logs `message` and writes it as a NOTE on `frame_number`, the first time `warning`
    /// is raised; the dropped spans themselves are counted on every frame.
    pub(super) fn warn_once(
        &mut self,
        warning: Warning,
        frame_number: u64,
        message: String,
    ) -> Result<(), RecordError> {
        if std::mem::replace(&mut self.warned[warning as usize], true) {
            return Ok(());
        }
        log::warn!("{message}");
        self.warnings.push(message.clone());
        if self.write_error.is_some() {
            return Ok(());
        }
        self.note(frame_number, message).map_err(|error| self.failed(error))
    }

    pub(super) fn failed(&mut self, error: RecordError) -> RecordError {
        log::error!("sgpt-recorder: {error}; the capture stays readable up to its last whole record");
        self.write_error.get_or_insert(error).clone()
    }

    pub(super) fn note(&mut self, frame_number: u64, text: String) -> Result<(), RecordError> {
        let Some(writer) = self.writer.as_mut() else { return Err(RecordError::NotStarted) };
        writer.note(&Note { frame_number, text }).map_err(RecordError::from)
    }

    /// Says once per label, at Workload and up, that a pass timed through a
    /// [`crate::PassTimer`] or a [`crate::PassToken`] has no recorded commands: absent,
    /// not zero. Noted on frame `frame_number`.
    pub(super) fn timed_only_at(&mut self, label: &str, frame_number: u64) {
        if self.level < Level::Workload || self.timed_only_noted.iter().any(|known| known == label) {
            return;
        }
        self.timed_only_noted.push(label.to_owned());
        let text = format!(
            "sgpt-recorder: GPU pass {label:?} is begun by the application and timed through a PassTimer: its time is recorded, its commands (draws, dispatches, pipelines) are not"
        );
        if self.write_error.is_none()
            && let Err(error) = self.note(frame_number, text)
        {
            self.failed(error);
        }
    }

    /// Writes whatever can be written; `true` once nothing is left in flight.
    pub(super) fn drain(&mut self) -> bool {
        #[cfg(feature = "wgpu-profiler")]
        self.bridge_stop();
        self.collect(cfg!(not(target_arch = "wasm32")))
    }

    /// Writes what is left and closes the capture; the session's warnings, including any
    /// raised here, go to `warnings`.
    pub(super) fn finish(
        mut self: Box<Self>,
        reason: StopReason,
        warnings: &mut Vec<String>,
    ) -> Result<(CaptureSummary, Box<dyn CaptureSink>), RecordError> {
        let result = self.close(reason);
        *warnings = std::mem::take(&mut self.warnings);
        result
    }

    pub(super) fn close(&mut self, reason: StopReason) -> Result<(CaptureSummary, Box<dyn CaptureSink>), RecordError> {
        #[cfg(feature = "wgpu-profiler")]
        self.bridge_stop();
        self.collect(false);
        // Anything still in flight (a lost device) is written without its timestamps.
        while let Some(mut pending) = self.in_flight.pop_front() {
            pending.mapping = true;
            pending.set = None;
            self.complete(&mut pending);
        }
        let reason = if self.lost.load(Ordering::Acquire) { StopReason::DeviceLost } else { reason };
        // Known only now: a provider that never answered in any frame. Frame 0 is the first.
        if self.frames_written > 0
            && self.write_error.is_none()
            && let Some(text) = self.providers.as_ref().and_then(Providers::closing_note)
            && let Err(error) = self.note(0, text)
        {
            self.failed(error);
        }
        #[cfg(feature = "wgpu-profiler")]
        if self.write_error.is_none()
            && let Some(text) = self.bridge.closing_note()
        {
            let last = self.next_frame_number.saturating_sub(1);
            if let Err(error) = self.note(last, text) {
                self.failed(error);
            }
        }
        for record in std::mem::take(&mut self.memory_records) {
            if self.write_error.is_some() {
                break;
            }
            if let Some(Err(error)) = self.writer.as_mut().map(|writer| writer.memory(&record)) {
                self.failed(error.into());
            }
        }
        let writer = self.writer.take().ok_or(RecordError::NotStarted)?;
        let bytes_written = writer.bytes_written();
        let summary = CaptureSummary {
            level: self.level,
            frames: self.frames_written,
            bytes_written,
            dropped_spans: self.dropped_total,
            reason,
        };
        if let Some(error) = self.write_error.take() {
            return Err(error);
        }
        let sink = writer.finish().map_err(RecordError::from)?;
        let bytes_written = sink.0.snapshot().map_or(bytes_written, |bytes| bytes.len() as u64);
        Ok((CaptureSummary { bytes_written, ..summary }, sink.0))
    }
}

/// A frame between `begin_frame` and the write of its record.
#[derive(Debug, Default)]
pub(super) struct PendingFrame {
    pub(super) frame: Frame,
    /// The timer set holding this frame's queries and readback.
    pub(super) set: Option<usize>,
    /// Per span, the encoder that writes its queries and whether it resolved them.
    pub(super) slots: Vec<SpanSlot>,
    pub(super) mapping: bool,
    pub(super) indirect: Vec<IndirectCopy>,
    /// Whether the timestamps were read back (a frame held for the bridge is read early,
    /// so its timer set goes back to the pool).
    pub(super) read: bool,
    #[cfg(feature = "wgpu-profiler")]
    pub(super) bridged: super::bridge_state::BridgedFrame,
}

/// Spans a frame's readback refused, by why.
#[derive(Debug, Default)]
pub(super) struct Refused {
    pub(super) stale: u32,
    pub(super) unwritten: u32,
}

#[derive(Debug)]
pub(super) struct IndirectCopy {
    /// The encoder whose pass made the indirect call; the copy is recorded there.
    pub(super) encoder: EncoderKey,
    pub(super) resolved: bool,
    pub(super) command: u32,
    pub(super) buffer: wgpu::Buffer,
    pub(super) offset: u64,
    /// 12 (dispatch), 16 (draw) or 20 (indexed draw) bytes of arguments.
    pub(super) len: u64,
}

impl Active {
    pub(super) fn begin_frame(&mut self) -> Result<(), RecordError> {
        if let Some(open) = &self.open {
            return Err(RecordError::FrameAlreadyOpen(open.frame.frame_number));
        }
        let started = self.clock.now_ns();
        self.collect(false);
        let mut pending = self.spare.pop().unwrap_or_default();
        pending.set = self.pool.as_mut().and_then(TimerPool::acquire);
        pending.slots.clear();
        self.local.clear();
        pending.mapping = false;
        pending.read = false;
        pending.indirect.clear();
        #[cfg(feature = "wgpu-profiler")]
        pending.bridged.clear();
        let frame = &mut pending.frame;
        frame.frame_number = self.next_frame_number;
        frame.spans.clear();
        frame.cpu = sgpt_format::CpuTimes { begin_ns: started, ..Default::default() };
        frame.cpu_spans.clear();
        frame.culled.clear();
        frame.dropped_spans = 0;
        frame.commands.clear();
        frame.bindings.clear();
        frame.counters.clear();
        self.front.open_frame(frame.frame_number, pending.set);
        self.next_frame_number += 1;
        self.structure.begin_frame();
        frame.recorder_cost_ns = self.clock.now_ns() - started;
        self.open = Some(pending);
        Ok(())
    }

    pub(super) fn resolve_queries(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), RecordError> {
        let started = self.clock.now_ns();
        let Some(pending) = self.open.as_mut() else { return Err(RecordError::NoFrameOpen) };
        pending.frame.cpu.end_ns = started;
        let key = encoder_key(encoder);
        if let (Some(pool), Some(set)) = (&self.pool, pending.set) {
            let set = &pool.sets[set];
            for (slot, copy) in pending.indirect.iter_mut().enumerate() {
                if copy.encoder == key && !copy.resolved {
                    set.copy_indirect(encoder, slot as u32, &copy.buffer, copy.offset, copy.len);
                    copy.resolved = true;
                }
            }
        }
        // The shared front's scopes on this encoder, whichever front recorded them.
        self.front.hand_over_local(&mut self.local.records, &mut self.local.run);
        self.front.resolve(encoder);
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        Ok(())
    }

    pub(super) fn end_frame(&mut self) -> Result<(), RecordError> {
        let started = self.clock.now_ns();
        let Some(mut pending) = self.open.take() else { return Err(RecordError::NoFrameOpen) };
        pending.frame.cpu.submit_ns = Some(started);
        if pending.frame.cpu.end_ns == 0 {
            pending.frame.cpu.end_ns = started;
        }
        self.hand_over_local();
        let claimed = self.merge_front(&mut pending);
        // A slot its encoder never resolved holds whatever an earlier frame left there:
        // counted as dropped here, and skipped when the frame is read back.
        let unresolved = pending.slots.iter().filter(|slot| !slot.resolved).count();
        pending.frame.dropped_spans += unresolved as u32;
        if unresolved == pending.slots.len() {
            pending.frame.spans.clear();
            pending.slots.clear();
        }
        let reported = if unresolved > 0 {
            let message = format!(
                "sgpt-recorder: frame {}: {unresolved} GPU span(s) were never resolved on the encoder that began their pass and have no timestamps; they are dropped and counted in dropped_spans (call resolve_queries on every encoder, after its last pass, before finish())",
                pending.frame.frame_number
            );
            self.warn_once(Warning::Unresolved, pending.frame.frame_number, message)
        } else {
            Ok(())
        };
        let reported = if pending.set.is_none()
            && self.capabilities.timestamps
            && self.pool.is_some()
            && pending.frame.dropped_spans > unresolved as u32
        {
            let message = format!(
                "sgpt-recorder: frame {}: every timer set was still waiting for an earlier frame's readback, so {} GPU span(s) have no timestamps; they are dropped and counted in dropped_spans (raise SessionOptions::frames_in_flight)",
                pending.frame.frame_number,
                pending.frame.dropped_spans - unresolved as u32
            );
            reported.and_then(|()| self.warn_once(Warning::NoTimerSet, pending.frame.frame_number, message))
        } else {
            reported
        };
        if let Some(gauges) = &self.gauges {
            // Sampled once the frame's CPU work is done: the frame's own allocations count.
            gauges.sample(&mut pending.frame.counters);
        }
        if let Some(providers) = self.providers.as_mut() {
            providers.sample(&mut pending.frame.counters);
        }
        let written = reported
            .and_then(|()| self.write_structure())
            .and_then(|()| self.write_provider_notes(pending.frame.frame_number));
        pending.frame.topology = self.structure.id();
        #[cfg(feature = "wgpu-profiler")]
        self.bridge_end_frame(&mut pending);
        if let (Some(pool), Some(set)) = (self.pool.as_mut(), pending.set) {
            let queries = if pending.frame.spans.is_empty() { 0 } else { u64::from(claimed) * 2 };
            let indirect = pending.indirect.iter().any(|copy| copy.resolved);
            if queries > 0 || indirect {
                let len = if !indirect {
                    queries * QUERY_BYTES
                } else {
                    pool.sets[set].indirect_base + pending.indirect.len() as u64 * INDIRECT_SLOT_BYTES
                };
                pool.sets[set].map(len);
                pending.mapping = true;
            } else {
                pool.release(set);
                pending.set = None;
            }
        }
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        self.in_flight.push_back(pending);
        self.frames_ended += 1;
        self.poll_device();
        self.collect(false);
        written
    }

    /// Writes every frame whose readback landed, in order. With `wait`, blocks natively
    /// until all have. Returns whether no frame is left in flight.
    pub(super) fn collect(&mut self, wait: bool) -> bool {
        loop {
            let lost = self.lost.load(Ordering::Acquire);
            let Some(front) = self.in_flight.front() else { return true };
            if front.mapping && !lost {
                let set = front.set.and_then(|set| self.pool.as_ref().map(|pool| &pool.sets[set]));
                if set.is_some_and(|set| set.poll_mapped().is_none()) {
                    #[cfg(not(target_arch = "wasm32"))]
                    if wait {
                        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
                        continue;
                    }
                    let _ = wait;
                    return false;
                }
            }
            #[cfg(feature = "wgpu-profiler")]
            if self.bridge_holds(front) {
                self.read_back_ready();
                return false;
            }
            let Some(mut pending) = self.in_flight.pop_front() else { return true };
            self.complete(&mut pending);
            self.spare.push(pending);
        }
    }

    /// Reads back every frame in flight whose readback landed, in order, without writing
    /// them, so their timer sets return to the pool while the oldest one is held.
    #[cfg(feature = "wgpu-profiler")]
    fn read_back_ready(&mut self) {
        let mut in_flight = std::mem::take(&mut self.in_flight);
        for pending in &mut in_flight {
            let set = pending.set.and_then(|set| self.pool.as_ref().map(|pool| &pool.sets[set]));
            if pending.mapping && set.is_some_and(|set| set.poll_mapped().is_none()) {
                break;
            }
            self.read_back(pending);
        }
        self.in_flight = in_flight;
    }

    /// Reads a frame's timestamps and indirect arguments back and writes its record.
    pub(super) fn complete(&mut self, pending: &mut PendingFrame) {
        self.read_back(pending);
        let started = self.clock.now_ns();
        #[cfg(feature = "wgpu-profiler")]
        self.bridge_attach(pending);
        self.dropped_total += u64::from(pending.frame.dropped_spans);
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
        self.write_frame(&pending.frame);
    }

    /// Reads a frame's timestamps and indirect arguments back (once), counting what it
    /// refuses.
    fn read_back(&mut self, pending: &mut PendingFrame) {
        if std::mem::replace(&mut pending.read, true) {
            return;
        }
        let started = self.clock.now_ns();
        let mut read_ok = false;
        let mut refused = Refused::default();
        if let (Some(pool), Some(set)) = (self.pool.as_mut(), pending.set.take()) {
            let timer = &mut pool.sets[set];
            let period = f64::from(self.period);
            let base = timer.indirect_base as usize;
            let frame = &mut pending.frame;
            let indirect = &pending.indirect;
            let slots = &pending.slots;
            // Moved out for the read (no allocation): the closure borrows the set's buffer.
            let mut guard = std::mem::take(&mut timer.guard);
            timer.read(|bytes| {
                read_ok = true;
                // Unresolved slots were counted at end_frame and are never read.
                let mut slot_of = slots.iter();
                frame.spans.retain_mut(|span| {
                    let Some(slot) = slot_of.next().filter(|slot| slot.resolved) else { return false };
                    let (begin, end) = pair_at(bytes, slot.slot);
                    match guard.check(slot.slot as usize, begin, end) {
                        Ok(()) => {
                            span.begin_ns = ticks_to_ns(begin, period);
                            span.end_ns = ticks_to_ns(end, period);
                            true
                        }
                        Err(Refusal::Stale) => {
                            refused.stale += 1;
                            false
                        }
                        Err(Refusal::Unwritten) => {
                            refused.unwritten += 1;
                            false
                        }
                    }
                });
                guard.frame_read();
                for (slot, copy) in indirect.iter().enumerate().filter(|(_, copy)| copy.resolved) {
                    let at = base + slot * INDIRECT_SLOT_BYTES as usize;
                    let word = |i: usize| word_u32(bytes, at + 4 * i);
                    if let Some(command) = frame.commands.get_mut(copy.command as usize) {
                        match &mut command.op {
                            Op::DispatchIndirect { resolved, .. } => *resolved = Some([word(0), word(1), word(2)]),
                            Op::DrawIndirect { resolved, .. } => *resolved = Some([word(0), word(1)]),
                            _ => {}
                        }
                    }
                }
            });
            pool.sets[set].guard = guard;
            pool.release(set);
            if pending.mapping {
                pending.frame.cpu.readback_ns = Some(started);
            }
        }
        if pending.mapping && !read_ok {
            // The readback failed (a lost device): these spans have no timestamps. The
            // unresolved ones were counted at end_frame.
            pending.frame.dropped_spans += pending.slots.iter().filter(|slot| slot.resolved).count() as u32;
            pending.frame.spans.clear();
        }
        pending.indirect.clear();
        let refused_total = refused.stale + refused.unwritten;
        if refused_total > 0 {
            pending.frame.dropped_spans += refused_total;
            let message = format!(
                "sgpt-recorder: frame {}: {refused_total} GPU span(s) read back values their passes cannot have written ({} repeat or precede an earlier frame's, {} were never written); they are dropped and counted in dropped_spans",
                pending.frame.frame_number, refused.stale, refused.unwritten
            );
            // A failed NOTE is already the session's write error; the frame is still written.
            let _ = self.warn_once(Warning::Refused, pending.frame.frame_number, message);
        }
        pending.frame.recorder_cost_ns += self.clock.now_ns() - started;
    }

    pub(super) fn write_frame(&mut self, frame: &Frame) {
        if self.write_error.is_some() {
            return;
        }
        let Some(writer) = self.writer.as_mut() else { return };
        let before = writer.bytes_written();
        if let Err(error) = writer.frame(frame) {
            self.failed(error.into());
            return;
        }
        self.frames_written += 1;
        let total = writer.bytes_written();
        if total > self.byte_budget && !self.budget_warned {
            self.budget_warned = true;
            let elapsed_s = (self.clock.now_ns() as f64 / 1e9).max(1e-9);
            let message = format!(
                "sgpt-recorder: the capture passed its byte budget of {} bytes at frame {}: level {} writes {:.0} bytes/frame, {:.0} bytes/s; recording goes on, nothing is truncated",
                self.byte_budget,
                frame.frame_number,
                self.level,
                total as f64 / self.frames_written as f64,
                total as f64 / elapsed_s,
            );
            log::warn!("{message}");
            let _ = writer.note(&Note { frame_number: frame.frame_number, text: message.clone() });
            self.warnings.push(message);
        }
        if let Some(callback) = self.on_bytes.as_mut() {
            callback(BytesWritten {
                frame_number: frame.frame_number,
                frame_bytes: total - before,
                total_bytes: total,
            });
        }
    }
}

/// The merge of the shared front's records into the frame (`merge.rs`).
impl Active {
    /// Closes the front's frame and merges its scopes into `pending`, encoder batch by
    /// batch in resolve order. Returns the slots claimed in the frame by both fronts.
    fn merge_front(&mut self, pending: &mut PendingFrame) -> u32 {
        let taken = self.front.close_frame();
        let (claimed, unused) = (taken.claimed, taken.unused);
        pending.frame.dropped_spans += taken.refused;
        // Slots handed to scopes; the rest of the trees' runs had none.
        let handed = claimed - unused;
        if taken.is_empty() {
            pending.frame.dropped_spans += handed.saturating_sub(pending.slots.len() as u32);
            // The buffers go back all the same: an empty frame keeps their capacity.
            self.front.recycle(taken.records, taken.order);
            return claimed;
        }
        let merge = Merge {
            structure: &mut self.structure,
            registry: &mut self.registry,
            local: &mut self.local,
            buffers: &mut self.merge,
            frame: &mut pending.frame,
            slots: &mut pending.slots,
            set_id: pending.set.and_then(|set| self.pool.as_ref().map(|pool| pool.sets[set].id)),
        };
        for label in merge.run(&taken) {
            self.timed_only_at(label, pending.frame.frame_number);
        }
        // Indirect read-backs name their command by its local index until now.
        for copy in &mut pending.indirect {
            copy.command = self.local.remap.get(copy.command as usize).copied().unwrap_or(u32::MAX);
        }
        self.local.clear();
        let FrontTaken { records, order, .. } = taken;
        self.front.recycle(records, order);
        // A slot claimed with no span: its scope had not ended (or its record came too
        // late) at end_frame. It has no timestamps: dropped, and counted.
        pending.frame.dropped_spans += handed.saturating_sub(pending.slots.len() as u32);
        claimed
    }
}

fn ticks_to_ns(ticks: u64, period: f64) -> u64 {
    // Period 1.0 (lavapipe, Chromium, most desktop drivers) is the ticks themselves, exact
    // past 2^53 too and without a float rounding call per timestamp; f64 keeps sub-ns
    // error elsewhere.
    if period == 1.0 { ticks } else { (ticks as f64 * period).round() as u64 }
}

/// Span slot `slot`'s begin and end ticks (zeros past the bytes, which the guard refuses).
fn pair_at(bytes: &[u8], slot: u32) -> (u64, u64) {
    let pair = bytes.get(slot as usize * 16..).and_then(<[u8]>::first_chunk::<16>);
    pair.map_or((0, 0), |pair| {
        let (begin, end) = pair.split_at(8);
        let word = |half: &[u8]| u64::from_le_bytes(half.try_into().unwrap_or_default());
        (word(begin), word(end))
    })
}

fn word_u32(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |word| u32::from_le_bytes(word.try_into().unwrap_or_default()))
}

/// The structure tracker's face to the brackets and passes.
impl Active {
    /// Writes a TOPO record if the frame's structure changed, and pending declarations.
    fn write_structure(&mut self) -> Result<(), RecordError> {
        let Some(writer) = self.writer.as_mut().filter(|_| self.write_error.is_none()) else {
            self.structure.end_frame();
            return Ok(());
        };
        if let Some(topology) = self.structure.end_frame() {
            match writer.topology(topology) {
                Ok(id) => self.structure.written(id),
                Err(error) => return Err(self.failed(error.into())),
            }
        }
        if !self.registry.pending.is_empty() {
            if self.level >= Level::Workload
                && let Err(error) = writer.declare(&self.registry.pending)
            {
                return Err(self.failed(error.into()));
            }
            self.registry.pending.clear();
        }
        Ok(())
    }

    /// Takes in the graph's structure for this frame (level `Structure` and up).
    pub(crate) fn set_graph(&mut self, graph: &Topology, culled: &[bool]) {
        if self.level < Level::Structure {
            return;
        }
        let resources = self.structure.set_graph(graph);
        if let Some(providers) = self.providers.as_mut() {
            providers.graph(&self.structure.topology().resources, resources);
        }
        if let Some(open) = self.open.as_mut() {
            open.frame.culled.clear();
            open.frame.culled.extend_from_slice(culled);
        }
    }

    pub(crate) fn graph_pass_named(&mut self, name: &str) -> u32 {
        self.structure.graph_pass_named(name)
    }

    pub(crate) fn check_graph_pass_name(&self, graph_pass: u32, name: &str) -> Result<(), RecordError> {
        self.structure.check_graph_pass_name(graph_pass, name)
    }

    pub(crate) fn enter_graph_pass(&mut self, graph_pass: u32, name: &str) {
        self.structure.enter_graph_pass(graph_pass, name);
    }
}
