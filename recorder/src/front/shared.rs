//! What the recording fronts share: the claim word every query slot is taken from, the
//! counter record ids are taken from (both in runs), and the frame's buffers a scope's
//! records ([`super::records`]) are handed into when it ends. Below both the
//! [`super::Recorder`] handle's scopes and the session's frame pipeline.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use crossbeam_utils::CachePadded;
use sgpt_format::Level;

use super::records::{Few, FrontCommand, PipelineRef, RecordWorkload, Records, ScopeRecord};
use crate::encoder_key::{EncoderKey, encoder_key};
use crate::meta::Capabilities;
use crate::timer::SetHandles;

/// Bit layout of the claim word: `[open:1 | set:7 | generation:24 | count:32]`.
const OPEN: u64 = 1 << 63;
const SET_SHIFT: u32 = 56;
const NO_SET: u64 = 0x7f;
const GEN_SHIFT: u32 = 32;
const GEN_MASK: u64 = 0xff_ffff;

/// What the session fixes at `start()`, read by every claim.
#[derive(Debug)]
pub(crate) struct FrontSetup {
    pub(crate) level: Level,
    pub(crate) capabilities: Capabilities,
    pub(crate) max_spans: u32,
    pub(crate) sets: Vec<SetHandles>,
}

/// The outcome of claiming one span slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// No frame is open.
    Closed,
    /// A frame is open, but it has no timer set (pool exhausted, or no timestamps).
    NoSet { generation: u32 },
    /// The frame's set is full: the span is refused and must be counted as dropped.
    Refused { generation: u32 },
    /// Span slot `slot` (queries `2 * slot` and `2 * slot + 1`) of timer set `set`.
    Slot { generation: u32, set: usize, slot: u32 },
}

/// Consecutive slots a tree of scopes (an outermost scope and everything nested in it, all
/// on one encoder) claimed at once and hands to its scopes in order. While other threads
/// claim too, one encoder's spans then sit in a few runs of consecutive slots, resolved
/// by a few commands, not one resolve and one copy per span.
#[derive(Debug, Default)]
pub(crate) struct SlotRun {
    generation: u32,
    set: usize,
    next: u32,
    end: u32,
    /// The length of the next run claimed: 1, then doubling up to [`MAX_RUN`], so a
    /// small tree leaves at most half of its last run unused.
    size: u32,
}

/// The longest run a tree claims at once. Slots a tree leaves unused (fewer than this)
/// still count against `max_spans_per_frame`: a short cap keeps that small, and a
/// thousand passes on one encoder still resolve in about 60 runs, not one per pass.
const MAX_RUN: u32 = 16;

impl SlotRun {
    /// Slots claimed and not handed out, of frame `generation`.
    pub(crate) fn unused(&self) -> (u32, u32) {
        (self.generation, self.end - self.next)
    }
}

/// Record ids a tree of scopes claimed at once and gives its records in order: one write
/// to the shared counter a run, not one a scope. Each thread's trees then write that
/// counter's cache line once in [`MAX_ID_RUN`] scopes; written by every scope of two
/// threads, it moves between their cores on nearly every scope, which costs each about as
/// much as the rest of a scope's bookkeeping. Ids stay in creation order on an encoder:
/// a tree is the only one recording on its encoder while it lives, and whatever is
/// made there after it claims later ids. A pass token made from a scope of the tree takes
/// its id from the same run, so it keeps its place among the tree's records.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdRun {
    next: u64,
    end: u64,
    /// The length of the next run claimed: 1, then doubling up to [`MAX_ID_RUN`].
    size: u64,
}

/// The longest run of ids a tree claims at once (ids are 64-bit: what a run leaves
/// unused is never missed).
const MAX_ID_RUN: u64 = 64;

/// Commands a [`super::PassToken`] recorded, handed over when it drops (its record was handed
/// over when it was made, so that a resolve while it lives still finds it).
#[derive(Debug)]
pub(crate) struct LateCommands {
    pub(crate) id: u64,
    pub(crate) generation: u32,
    pub(crate) pipelines: Few<PipelineRef>,
    pub(crate) commands: Few<FrontCommand>,
}

#[derive(Debug, Default)]
struct FrontFrame {
    generation: u32,
    records: Records,
    /// Trees of scopes handed over whole once `records` held some: moved in, not copied
    /// (a thousand-pass tree is 128 KB).
    trees: Vec<Records>,
    /// The list `close_frame` hands the buffers over in, handed back by `recycle`.
    buffers: Vec<Records>,
    late: Vec<LateCommands>,
    resolves: u32,
    /// Reused by resolves: the slots one encoder wrote.
    scratch: Vec<u32>,
    /// Emptied record buffers, for the next trees of scopes.
    spare: Vec<Records>,
    /// The merge order's buffer, handed back by `recycle`.
    order: Vec<(u32, u32)>,
    /// Slots trees claimed in runs and left unused: no scope had them, so none is dropped.
    unused: u32,
}

/// Whether `buffers`, read in order, are sorted by `key` (checked with plain loops: it
/// reads every record of every frame).
fn in_merge_order<K: PartialOrd>(buffers: &[Records], key: impl Fn(&ScopeRecord) -> K) -> bool {
    let mut last = None;
    for buffer in buffers {
        for record in buffer.iter() {
            let next = key(record);
            if last.as_ref().is_some_and(|last| *last > next) {
                return false;
            }
            last = Some(next);
        }
    }
    true
}

/// Spare record buffers kept: about one per thread recording at once.
const SPARE_BUFFERS: usize = 16;

impl FrontFrame {
    /// Keeps an emptied record buffer for the next tree, while fewer than
    /// [`SPARE_BUFFERS`] are kept.
    fn keep_spare(&mut self, buffer: Records) {
        if buffer.capacity() > 0 && self.spare.len() < SPARE_BUFFERS {
            self.spare.push(buffer);
        }
    }
}

/// What `end_frame` takes from the front.
#[derive(Debug, Default)]
pub(crate) struct FrontTaken {
    /// Slots claimed in the frame by both fronts, refused ones excluded: the readback
    /// covers them.
    pub(crate) claimed: u32,
    /// Of `claimed`, slots claimed in runs and never handed to a scope.
    pub(crate) unused: u32,
    /// Spans the front refused (set full).
    pub(crate) refused: u32,
    /// In hand-over order: the frame's buffer, then the trees handed over whole after it;
    /// `order` gives the merge order.
    pub(crate) records: Vec<Records>,
    /// `(buffer, index)` into `records` by resolve batch (unresolved last), then by
    /// encoder and creation: sorted apart from the records, which are large. Empty when
    /// hand-over order is that order already, as it mostly is (a tree of scopes arrives in
    /// creation order): see [`Self::each_in_merge_order`].
    pub(crate) order: Vec<(u32, u32)>,
    pub(crate) late: Vec<LateCommands>,
}

impl FrontTaken {
    /// Hands each record and its workload (when it recorded one) to `each`, in merge
    /// order: through `order` when hand-over order is not it. Plain loops, not chained
    /// iterators: it runs for every record of every frame.
    #[inline(always)]
    pub(crate) fn each_in_merge_order<'s>(&'s self, mut each: impl FnMut(&'s ScopeRecord, Option<&'s RecordWorkload>)) {
        if self.order.is_empty() {
            for buffer in &self.records {
                for record in buffer.iter() {
                    each(record, buffer.workload(record));
                }
            }
        } else {
            for &(buffer, at) in &self.order {
                let buffer = &self.records[buffer as usize];
                let record = &buffer[at as usize];
                each(record, buffer.workload(record));
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.records.iter().all(|buffer| buffer.is_empty())
    }
}

/// The state shared between a session and its [`super::Recorder`] handles.
#[derive(Debug, Default)]
pub(crate) struct FrontShared {
    /// Written by every timed scope of every thread: apart from what is only read.
    claims: CachePadded<AtomicU64>,
    refused: AtomicU32,
    /// Written by every scope of every thread.
    next_id: CachePadded<AtomicU64>,
    setup: OnceLock<FrontSetup>,
    frame: Mutex<FrontFrame>,
}

fn decode(word: u64) -> (bool, Option<usize>, u32, u32) {
    let set = (word >> SET_SHIFT) & NO_SET;
    let set = (set != NO_SET).then_some(set as usize);
    (word & OPEN != 0, set, ((word >> GEN_SHIFT) & GEN_MASK) as u32, word as u32)
}

impl FrontShared {
    fn lock(&self) -> MutexGuard<'_, FrontFrame> {
        // Plain data: a panic while it was held leaves it usable.
        self.frame.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn set_up(&self, setup: FrontSetup) {
        // A session starts once (`start` refuses a second time).
        let _ = self.setup.set(setup);
    }

    pub(crate) fn setup(&self) -> Option<&FrontSetup> {
        self.setup.get()
    }

    /// Opens frame `generation` on timer set `set`: claims start at slot 0.
    pub(crate) fn open_frame(&self, generation: u64, set: Option<usize>) {
        let generation = (generation & GEN_MASK) as u32;
        {
            let mut frame = self.lock();
            frame.generation = generation;
            // Records of an earlier frame handed over after it ended: counted there.
            frame.records.clear();
            while let Some(mut tree) = frame.trees.pop() {
                tree.clear();
                frame.keep_spare(tree);
            }
            frame.late.clear();
            frame.resolves = 0;
            frame.unused = 0;
        }
        self.refused.store(0, Ordering::Relaxed);
        let set = set.map_or(NO_SET, |set| set as u64 & NO_SET);
        self.claims.store(OPEN | set << SET_SHIFT | u64::from(generation) << GEN_SHIFT, Ordering::Release);
    }

    /// Closes the open frame and takes what its scopes handed over.
    pub(crate) fn close_frame(&self) -> FrontTaken {
        let word = self.claims.fetch_and(!OPEN, Ordering::AcqRel);
        let (open, set, generation, count) = decode(word);
        if !open {
            return FrontTaken::default();
        }
        let max = self.setup().map_or(0, |setup| setup.max_spans);
        let mut frame = self.lock();
        // Every record is this frame's: a hand-over checks the generation under the lock,
        // and `open_frame` clears what came after the last close.
        let mut records = std::mem::take(&mut frame.buffers);
        records.clear();
        records.push(std::mem::take(&mut frame.records));
        records.append(&mut frame.trees);
        // Merge order: by resolve batch (unresolved last), then by encoder, then creation,
        // so each encoder's records stay in creation order. Mostly so already: then no
        // order is built.
        let key = |record: &ScopeRecord| (record.resolved.unwrap_or(u32::MAX), record.encoder, record.id);
        let mut order = std::mem::take(&mut frame.order);
        order.clear();
        if !in_merge_order(&records, key) {
            for (buffer, tree) in records.iter().enumerate() {
                order.extend((0..tree.len() as u32).map(|at| (buffer as u32, at)));
            }
            // Stable: it merges the sorted runs the trees and batches arrive in, in linear time.
            order.sort_by_key(|&(buffer, at)| key(&records[buffer as usize][at as usize]));
        }
        let mut late = std::mem::take(&mut frame.late);
        late.retain(|late| late.generation == generation);
        // Without a set no claim got a slot: each was counted where it was refused.
        let claimed = if set.is_some() { count.min(max) } else { 0 };
        let unused = if set.is_some() { std::mem::take(&mut frame.unused).min(claimed) } else { 0 };
        FrontTaken { claimed, unused, refused: self.refused.swap(0, Ordering::Relaxed), records, order, late }
    }

    /// Gives back the record and order buffers `close_frame` took, emptied, so the next
    /// frame reuses their capacity instead of growing new ones.
    pub(crate) fn recycle(&self, mut records: Vec<Records>, order: Vec<(u32, u32)>) {
        for buffer in &mut records {
            buffer.clear();
        }
        let mut frame = self.lock();
        frame.order = order;
        let mut buffers = records.drain(..);
        if let Some(mut first) = buffers.next() {
            if first.capacity() > frame.records.capacity() {
                // Records handed over since the close stay (the next frame clears them).
                first.append(&mut frame.records);
                first = std::mem::replace(&mut frame.records, first);
            }
            frame.keep_spare(first);
        }
        for tree in buffers {
            frame.keep_spare(tree);
        }
        frame.buffers = records;
    }

    /// Closes the frame for good (the session stops): nothing more is claimed.
    pub(crate) fn shut(&self) {
        self.claims.fetch_and(!OPEN, Ordering::AcqRel);
    }

    /// Claims one span slot of the open frame.
    #[inline]
    pub(crate) fn claim(&self) -> Claim {
        self.claim_many(1).0
    }

    /// Claims `count` consecutive slots; a slot given is the first, and the second value is
    /// where the claimed slots end (slots past the set's end are refused when asked for,
    /// not before).
    #[inline]
    fn claim_many(&self, count: u32) -> (Claim, u32) {
        let word = self.claims.fetch_add(u64::from(count), Ordering::AcqRel);
        let (open, set, generation, first) = decode(word);
        let max = self.setup().map_or(0, |setup| setup.max_spans);
        let claim = match (open, set) {
            (false, _) => Claim::Closed,
            (true, None) => Claim::NoSet { generation },
            (true, Some(_)) if first >= max => Claim::Refused { generation },
            (true, Some(set)) => Claim::Slot { generation, set, slot: first },
        };
        (claim, first.saturating_add(count).min(max))
    }

    /// Claims one slot for a scope of the tree that owns `run`: the run's next slot, or the
    /// first of a new run when it is spent.
    #[inline]
    pub(crate) fn claim_in(&self, run: &mut SlotRun) -> Claim {
        let generation = self.open_generation();
        if run.next < run.end && generation == Some(run.generation) {
            run.next += 1;
            return Claim::Slot { generation: run.generation, set: run.set, slot: run.next - 1 };
        }
        // What is left of a run of an earlier frame is that frame's: not handed out here.
        if generation != Some(run.generation) {
            *run = SlotRun::default();
        }
        let size = run.size.clamp(1, MAX_RUN);
        let (claim, end) = self.claim_many(size);
        if let Claim::Slot { generation, set, slot } = claim {
            *run = SlotRun { generation, set, next: slot + 1, end, size: (size * 2).min(MAX_RUN) };
        }
        claim
    }

    /// The open frame's generation, without claiming.
    #[inline]
    pub(crate) fn open_generation(&self) -> Option<u32> {
        let (open, _, generation, _) = decode(self.claims.load(Ordering::Acquire));
        open.then_some(generation)
    }

    pub(crate) fn count_refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The next id of the session's own records, from `run` while no id was claimed after
    /// it (else from a new run). Those records share encoders with the handle's trees (a
    /// tree on the encoder of a graph pass bracket): a tree begun since the run was claimed
    /// took later ids, which the records made after it must follow. Alone, the session
    /// reads the counter and writes it once a run.
    #[inline]
    pub(crate) fn local_id(&self, run: &mut IdRun) -> u64 {
        if run.next != run.end && self.next_id.load(Ordering::Relaxed) != run.end {
            run.next = run.end;
        }
        self.id_in(run)
    }

    /// The next id of a tree whose ids come from `run`: the run's next, or the first of a
    /// new run when it is spent.
    #[inline]
    pub(crate) fn id_in(&self, run: &mut IdRun) -> u64 {
        if run.next == run.end {
            let size = run.size.clamp(1, MAX_ID_RUN);
            let first = self.next_id.fetch_add(size, Ordering::Relaxed);
            *run = IdRun { next: first, end: first + size, size: (size * 2).min(MAX_ID_RUN) };
        }
        run.next += 1;
        run.next - 1
    }

    pub(crate) fn query_set(&self, set: usize) -> Option<&wgpu::QuerySet> {
        self.setup()?.sets.get(set)?.query_set.as_ref()
    }

    /// Hands a scope's record to the frame.
    pub(crate) fn hand_over(&self, record: ScopeRecord) {
        let mut frame = self.lock();
        if frame.generation == record.generation {
            frame.records.push(record);
        }
    }

    /// Gives back, under the lock a hand-over takes anyway, what a tree's run left unused.
    fn give_back(frame: &mut FrontFrame, run: &SlotRun) {
        let (generation, unused) = run.unused();
        if unused > 0 && frame.generation == generation {
            frame.unused += unused;
        }
    }

    /// Hands a tree of records (an outermost scope's, with its nested ones') to the
    /// frame under one lock, with what its run left unused, and keeps the emptied buffer
    /// for reuse.
    pub(crate) fn hand_over_all(&self, records: &mut Records, run: &SlotRun) {
        let mut frame = self.lock();
        Self::give_back(&mut frame, run);
        let generation = frame.generation;
        records.retain_generation(generation);
        // The first tree of a frame becomes the frame's buffer, and the frame's empty one the
        // spare: a frame recorded as one tree copies no record. Buffers are only swapped and
        // recycled, so each settles at the largest size it held and a steady frame
        // reallocates none (a large buffer's growth is an mmap and page faults, which
        // threads contend on).
        if frame.records.is_empty() {
            std::mem::swap(&mut frame.records, records);
        }
        // What is left here is the frame's old buffer, a tree with nothing of this frame, or
        // a later tree: the first two are kept for reuse, the last is moved in whole.
        if records.is_empty() {
            frame.keep_spare(std::mem::take(records));
        } else {
            frame.trees.push(std::mem::take(records));
        }
    }

    /// Hands the session's profiled passes' records to the frame under one lock. The
    /// buffer stays the caller's, emptied (swapped with the frame's when that is empty),
    /// so a steady frame allocates none.
    pub(crate) fn hand_over_local(&self, records: &mut Records, run: &mut SlotRun) {
        if records.is_empty() && run.next == run.end {
            return;
        }
        let mut frame = self.lock();
        // What the run left is given back now, and the run ends: the next record claims
        // a new one, so no slot is both given back and used.
        Self::give_back(&mut frame, run);
        run.next = run.end;
        let generation = frame.generation;
        records.retain_generation(generation);
        if frame.records.is_empty() {
            std::mem::swap(&mut frame.records, records);
        } else {
            frame.records.append(records);
        }
    }

    /// An empty record buffer, reused where one was handed back.
    pub(crate) fn spare_records(&self) -> Records {
        self.lock().spare.pop().unwrap_or_default()
    }

    pub(crate) fn hand_over_late(&self, late: LateCommands) {
        let mut frame = self.lock();
        if frame.generation == late.generation {
            frame.late.push(late);
        }
    }

    /// Resolves, on `encoder`, the slots of every record handed over for it and not yet
    /// resolved; those records form the next batch in merge order.
    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let (open, set, generation, _) = decode(self.claims.load(Ordering::Acquire));
        if !open {
            return;
        }
        let Some(mut slots) = self.batch(encoder_key(encoder), generation) else { return };
        if let Some(handles) = set.and_then(|set| self.setup()?.sets.get(set)) {
            slots.sort_unstable();
            // One resolve per run of consecutive slots.
            let mut at = 0;
            while at < slots.len() {
                let mut end = at + 1;
                while end < slots.len() && slots[end] == slots[end - 1] + 1 {
                    end += 1;
                }
                handles.resolve(encoder, slots[at] * 2..(slots[end - 1] + 1) * 2);
                at = end;
            }
        }
        let mut frame = self.lock();
        if frame.scratch.capacity() < slots.capacity() {
            frame.scratch = slots;
        }
    }

    /// Makes the records of encoder `key` not yet resolved the next batch of frame
    /// `generation`, and returns their slots (`None`: another frame is open).
    fn batch(&self, key: EncoderKey, generation: u32) -> Option<Vec<u32>> {
        let mut frame = self.lock();
        if frame.generation != generation {
            return None;
        }
        let batch = frame.resolves;
        let mut slots = std::mem::take(&mut frame.scratch);
        slots.clear();
        let mut any = false;
        let FrontFrame { records, trees, .. } = &mut *frame;
        for buffer in std::iter::once(records).chain(trees.iter_mut()) {
            for record in buffer.iter_mut() {
                if record.encoder == key && record.resolved.is_none() {
                    record.resolved = Some(batch);
                    any = true;
                    if let Some(slot) = record.slot {
                        slots.push(slot);
                    }
                }
            }
        }
        if any {
            frame.resolves += 1;
        }
        Some(slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgpt_format::GpuPassKind;

    use crate::front::records::RecordHead;

    fn front(max_spans: u32) -> FrontShared {
        let front = FrontShared::default();
        let capabilities = Capabilities { timestamps: true, inside_passes: true, inside_encoders: true };
        front.set_up(FrontSetup { level: Level::Workload, capabilities, max_spans, sets: Vec::new() });
        front
    }

    fn record(front: &FrontShared, generation: u32, encoder: EncoderKey, slot: Option<u32>) -> ScopeRecord {
        let mut record = ScopeRecord::blank();
        let kind = GpuPassKind::Encoder;
        record.fill(RecordHead {
            id: front.next_id(),
            generation,
            encoder,
            kind,
            label: "",
            graph_pass: None,
            parent: None,
            slot,
        });
        record
    }

    /// A tree's buffer of `records`.
    fn tree(records: impl IntoIterator<Item = ScopeRecord>) -> Records {
        let mut tree = Records::default();
        for record in records {
            tree.push(record);
        }
        tree
    }

    #[test]
    fn slots_are_claimed_in_order_only_while_a_frame_is_open_and_refused_past_the_set() {
        let front = front(2);
        assert_eq!(front.claim(), Claim::Closed, "before the first frame");
        front.open_frame(7, Some(1));
        assert_eq!(front.claim(), Claim::Slot { generation: 7, set: 1, slot: 0 });
        assert_eq!(front.claim(), Claim::Slot { generation: 7, set: 1, slot: 1 });
        assert_eq!(front.claim(), Claim::Refused { generation: 7 });
        let taken = front.close_frame();
        assert_eq!(taken.claimed, 2, "refused claims are not slots");
        assert_eq!(front.claim(), Claim::Closed, "between frames");
        front.open_frame(8, None);
        assert_eq!(front.claim(), Claim::NoSet { generation: 8 });
        assert_eq!(front.close_frame().claimed, 0, "without a set nothing was claimed");
    }

    fn merge_order(taken: &FrontTaken) -> Vec<u64> {
        let mut ids = Vec::new();
        taken.each_in_merge_order(|record, _| ids.push(record.id));
        ids
    }

    fn slot(claim: Claim) -> u32 {
        match claim {
            Claim::Slot { slot, .. } => slot,
            other => panic!("no slot: {other:?}"),
        }
    }

    #[test]
    fn trees_claim_runs_of_consecutive_slots_and_what_they_leave_is_not_dropped() {
        let front = front(100);
        front.open_frame(3, Some(0));
        let (mut a, mut b) = (SlotRun::default(), SlotRun::default());
        // Two trees claiming in turn: runs of 1, 2, 4, … each, consecutive within a run.
        let slots = [
            slot(front.claim_in(&mut a)),
            slot(front.claim_in(&mut b)),
            slot(front.claim_in(&mut a)),
            slot(front.claim_in(&mut a)),
            slot(front.claim_in(&mut b)),
            slot(front.claim_in(&mut a)),
        ];
        assert_eq!(slots, [0, 1, 2, 3, 4, 6], "a: 0 | 2 3 | 6.., b: 1 | 4 5");
        assert_eq!((a.unused(), b.unused()), ((3, 3), (3, 1)));
        front.hand_over_all(&mut tree([record(&front, 3, 1, Some(0))]), &a);
        front.hand_over_all(&mut tree([record(&front, 3, 2, Some(1))]), &b);
        let taken = front.close_frame();
        assert_eq!((taken.claimed, taken.unused), (10, 4), "the readback covers the runs; 4 slots had no scope");
    }

    #[test]
    fn trees_take_ids_in_runs_each_in_creation_order_and_unique_across_trees() {
        let front = front(8);
        let mut runs = [IdRun::default(), IdRun::default()];
        let before = front.next_id();
        let ids: Vec<u64> = [0, 1, 0, 0, 1, 0, 0].into_iter().map(|tree| front.id_in(&mut runs[tree])).collect();
        // Runs of 1, 2, 4, … each: a takes 1 | 3 4 | 7.., b takes 2 | 5 6.
        assert_eq!(ids.iter().map(|id| id - before).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 7, 8]);
        let after = front.next_id();
        assert!(ids.iter().all(|&id| id < after), "whatever is made later has a later id");
        let mut all = ids.clone();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), ids.len(), "no id is given twice");
    }

    #[test]
    fn the_sessions_ids_follow_any_tree_begun_since_its_run_was_claimed() {
        let front = front(8);
        let (mut local, mut tree) = (IdRun::default(), IdRun::default());
        // Runs of 1, 2, 4: while nothing else claims, the session's run goes on.
        let alone: Vec<u64> = (0..4).map(|_| front.local_id(&mut local)).collect();
        assert_eq!(alone, [0, 1, 2, 3]);
        // A tree begun on the same encoder (inside a graph pass bracket), then the bracket's
        // next pass: after the tree's records, not from what was left of the run (4..7).
        let nested = front.id_in(&mut tree);
        let after = front.local_id(&mut local);
        assert!(after > nested, "{after} follows the tree's {nested}");
    }

    #[test]
    fn the_sessions_run_of_slots_is_given_back_and_ended_at_each_hand_over() {
        let front = front(100);
        front.open_frame(5, Some(0));
        let mut run = SlotRun::default();
        let first: Vec<u32> = (0..2).map(|_| slot(front.claim_in(&mut run))).collect();
        assert_eq!(first, [0, 1], "runs of 1, then 2");
        // An encoder resolved: the slot left in the run is given back, and the run ends.
        front.hand_over_local(&mut Records::default(), &mut run);
        assert_eq!(slot(front.claim_in(&mut run)), 3, "a new run, after the one given back");
        front.hand_over_local(&mut Records::default(), &mut run);
        let taken = front.close_frame();
        assert_eq!((taken.claimed, taken.unused), (3 + 4, 1 + 3), "slot 2 and 4..7 were never used");
    }

    #[test]
    fn a_run_stops_at_the_end_of_the_set_and_an_earlier_frames_run_is_not_reused() {
        let front = front(3);
        front.open_frame(1, Some(0));
        let mut run = SlotRun::default();
        let slots: Vec<u32> = (0..3).map(|_| slot(front.claim_in(&mut run))).collect();
        assert_eq!(slots, [0, 1, 2]);
        assert_eq!(front.claim_in(&mut run), Claim::Refused { generation: 1 });
        assert_eq!(front.close_frame().claimed, 3);
        front.open_frame(2, Some(0));
        let mut run = SlotRun { generation: 1, set: 0, next: 1, end: 2, size: 4 };
        assert_eq!(front.claim_in(&mut run), Claim::Slot { generation: 2, set: 0, slot: 0 }, "a fresh run");
    }

    #[test]
    fn records_handed_over_in_merge_order_are_merged_as_they_came_without_an_order_list() {
        let front = front(8);
        front.open_frame(1, Some(0));
        let mut first = tree([record(&front, 1, 10, Some(0)), record(&front, 1, 10, Some(1))]);
        let mut later = tree([record(&front, 1, 10, Some(2))]);
        let ids: Vec<u64> = first.iter().chain(later.iter()).map(|record| record.id).collect();
        front.hand_over_all(&mut first, &SlotRun::default());
        front.hand_over_all(&mut later, &SlotRun::default());
        assert_eq!(front.batch(10, 1), Some(vec![0, 1, 2]));
        let taken = front.close_frame();
        assert!(taken.order.is_empty(), "already in order: no order list is built");
        assert_eq!(taken.records.len(), 2, "the second tree is moved in whole");
        assert_eq!(merge_order(&taken), ids);
    }

    #[test]
    fn records_merge_by_resolve_batch_then_creation_and_late_ones_are_left_out() {
        let front = front(8);
        front.open_frame(1, Some(0));
        let stale = record(&front, 0, 5, None);
        let (a, b, c) = (record(&front, 1, 10, Some(4)), record(&front, 1, 20, None), record(&front, 1, 30, Some(5)));
        let ids = [a.id, b.id, c.id];
        front.hand_over(stale);
        for record in [a, b, c] {
            front.hand_over(record);
        }
        // Encoder 20 resolved first, then 10; 30 never. A second resolve of 20 finds nothing.
        assert_eq!(front.batch(20, 1), Some(vec![]));
        assert_eq!(front.batch(10, 1), Some(vec![4]));
        assert_eq!(front.batch(20, 1), Some(vec![]));
        assert_eq!(front.batch(10, 2), None, "another frame's resolve");
        let taken = front.close_frame();
        assert_eq!(merge_order(&taken), [ids[1], ids[0], ids[2]], "resolve order first, unresolved last");
        let mut resolved = Vec::new();
        taken.each_in_merge_order(|record, _| resolved.push(record.resolved));
        assert_eq!(resolved[2], None, "the unresolved one");
    }
}
