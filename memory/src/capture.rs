//! The investigative recorder: one opt-in capture at a time, controlled by the ledger's
//! [`begin`](crate::Ledger::begin), [`checkpoint`](crate::Ledger::checkpoint),
//! [`end`](crate::Ledger::end), [`export`](crate::Ledger::export) and
//! [`release`](crate::Ledger::release). This file holds what a capture is and its locked
//! state machine; the controls live with the ledger, which hands this state the values it
//! needs (counters, names, loss evidence), so the state machine never reaches back into
//! the ledger.
//!
//! Storage (live table, journal, checkpoint pools) is allocated by `begin` before the
//! capture attaches; nothing grows while recording, and a full table or journal loses
//! detail, never an allocation. Every mutation gets a strictly increasing operation
//! sequence under the one detail lock, so readers never reconstruct order from clocks.
//!
//! The controls require the caller's safe point: every allocation operation on the
//! included domains has finished and none starts until the call returns. They cannot
//! detect every violation; they are serialized by the capture owner.

use core::alloc::Layout;
use core::ops::Range;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::counters::DomainStats;
use crate::domain::{Domain, DomainDef, MAX_DOMAINS};
use crate::site::{Site, SiteDef, site_definitions};
use crate::table::{InsertError, LifetimeId, LiveBlock, LiveTable};

/// Longest checkpoint name accepted (bytes); names are copied into preallocated storage.
pub const MAX_CHECKPOINT_NAME: usize = 64;

/// What a capture can claim about history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureMode {
    /// Begins late. Blocks allocated before `begin` have unknown origin; their frees are
    /// recorded as [`EventKind::UnknownFree`] without an invented identity.
    Activity,
    /// Every included domain must prove an empty baseline at `begin` (valid counters and
    /// zero live blocks at the safe point), so the live table is the domain's whole live set.
    Complete,
}

/// What `begin` allocates and attaches. Storage limits, not algorithm knobs.
#[derive(Clone, Debug)]
pub struct CaptureConfig {
    pub mode: CaptureMode,
    /// Domains recorded in detail; others keep counting only. At least one, no repeats.
    pub domains: Vec<Domain>,
    /// Most blocks the live table tracks at once.
    pub table_entries: usize,
    /// Most journal events (allocations, frees, failures).
    pub journal_events: usize,
    /// Most intermediate checkpoints; the terminal one taken by `end` is reserved apart.
    pub checkpoints: usize,
    /// Live blocks all intermediate checkpoints may copy together.
    pub checkpoint_entries: usize,
    /// Time for records; called outside the lock, must not allocate (an allocating clock
    /// is recursion: it is recorded as loss). `None` records 0.
    pub clock: Option<fn() -> u64>,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        Self {
            mode: CaptureMode::Activity,
            domains: Vec::new(),
            table_entries: 1 << 16,
            journal_events: 1 << 20,
            checkpoints: 16,
            checkpoint_entries: 1 << 18,
            clock: None,
        }
    }
}

impl CaptureConfig {
    /// The bytes `begin` will allocate for this configuration (the capture's own footprint,
    /// reported as tooling overhead and never journaled).
    #[must_use]
    pub fn storage_bytes(&self) -> usize {
        let table_slots = (self.table_entries.saturating_mul(4) / 3 + 1).max(2).next_power_of_two();
        let entries = table_slots.saturating_add(self.checkpoint_entries).saturating_add(self.table_entries);
        entries
            .saturating_mul(size_of::<LiveBlock>())
            .saturating_add(self.journal_events.saturating_mul(size_of::<Event>()))
            .saturating_add((self.checkpoints + 1).saturating_mul(size_of::<CheckpointMeta>()))
            .saturating_add(
                (self.checkpoints + 1).saturating_mul(self.domains.len()).saturating_mul(size_of::<DomainStats>()),
            )
            .saturating_add(size_of::<Session>())
    }
}

/// Opaque id of a capture (never a pointer into recorder storage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CaptureId(u64);

impl CaptureId {
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }
}

/// A checkpoint's index within its capture; the terminal checkpoint is the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckpointId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Alloc,
    /// The free of a block this capture saw allocated; carries its lifetime and origin.
    Free,
    /// The free of a block the capture never saw allocated: no lifetime is invented.
    UnknownFree,
    /// The backend refused an allocation: no block, no lifetime.
    Failure,
}

/// One journal record: a POD copy, appended under the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Operation sequence: strictly increasing within the ledger.
    pub seq: u64,
    pub kind: EventKind,
    pub lifetime: Option<LifetimeId>,
    /// The block's origin domain (for a free, the one that allocated it).
    pub domain: Domain,
    /// The allocation site (for a free, the origin's site; unknown for an unknown free).
    pub site: Site,
    pub address: usize,
    pub size: usize,
    pub align: usize,
    /// The acting thread: allocating for `Alloc`, freeing for frees.
    pub thread: u32,
    pub time: u64,
}

/// Why detail was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossReason {
    /// The journal was full: events from `first_lost_seq` on are missing.
    JournalFull,
    /// The live table was full: a block went untracked, live sets are no longer exact.
    TableFull,
    /// An address was allocated while already live: a broken ownership contract.
    DuplicateAddress,
    /// Complete mode freed a block the table never held.
    MissingEntry,
}

/// The first lost operation and its reason, kept outside the journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loss {
    pub reason: LossReason,
    /// Sequence of the first operation whose detail was lost.
    pub first_lost_seq: u64,
    pub domain: Domain,
    /// Operations lost for this reason in total.
    pub count: u64,
}

/// Re-entered hooks: found before the lock, so no exact operation is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecursionLoss {
    pub count: u64,
    pub domain: Domain,
    /// Operations already issued when first seen: the loss is at or after this boundary.
    pub after_seq: u64,
}

/// The sealed capture's health. Counters stay valid per domain separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureHealth {
    pub journal_loss: Option<Loss>,
    pub table_loss: Option<Loss>,
    pub recursion: Option<RecursionLoss>,
    /// Frees of blocks allocated before the capture (expected in Activity mode).
    pub unknown_baseline_frees: u64,
    /// Broken ownership contracts: duplicate addresses, wrong-domain or wrong-size frees,
    /// and (Complete mode) frees of blocks never seen.
    pub ownership_errors: u64,
}

impl CaptureHealth {
    /// No loss of any kind: the journal and live sets are exact.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.journal_loss.is_none() && self.table_loss.is_none() && self.recursion.is_none()
    }
}

/// What an owner expects at a checkpoint. Only an explicit expectation lets a report call
/// a survivor a leak; otherwise survivors are candidates to investigate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expectation {
    #[default]
    Unspecified,
    /// The owner's blocks are expected to remain live.
    Retained,
    /// Every block allocated since the checkpoint compared against is expected released.
    Released,
}

/// A checkpoint as exported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub id: CheckpointId,
    pub name: String,
    /// Owner/generation id supplied by the caller.
    pub owner: u64,
    pub expectation: Expectation,
    /// Every operation with a lower sequence precedes it, every other one follows.
    pub boundary_seq: u64,
    pub time: u64,
    /// The live set is exact: no table loss or recursion before this boundary.
    pub table_exact: bool,
    /// The journal up to here is complete too.
    pub history_complete: bool,
    /// Counters of each included domain at the boundary.
    pub domains: Vec<(Domain, DomainStats)>,
    /// Live blocks seen by this capture, ordered by lifetime.
    pub live: Vec<LiveBlock>,
}

/// A live block at both checkpoints, and how long it has lived by the later one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Survivor {
    pub block: LiveBlock,
    /// Operations between its allocation and the later checkpoint.
    pub age_ops: u64,
    /// Clock ticks between its allocation and the later checkpoint.
    pub age_time: u64,
}

/// The difference between two checkpoints' live sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointDiff {
    /// Live at the later checkpoint only.
    pub new_live: Vec<LiveBlock>,
    /// Live at the earlier checkpoint only.
    pub released: Vec<LiveBlock>,
    /// Live at both.
    pub survivors: Vec<Survivor>,
    /// Both live sets are exact; otherwise the diff is refused as a leak proof.
    pub exact: bool,
    /// The later checkpoint expected [`Expectation::Released`] and blocks remain new-live.
    pub expectation_violated: bool,
}

/// A sealed capture, exported: definitions, journal, checkpoints and health.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryCapture {
    pub id: CaptureId,
    pub epoch: u64,
    pub mode: CaptureMode,
    /// The included domains and their names.
    pub domains: Vec<DomainDef>,
    /// Every site registered in the process when exported.
    pub sites: Vec<(Site, SiteDef)>,
    /// First operation sequence the capture could see.
    pub begin_seq: u64,
    /// First operation sequence after it.
    pub end_seq: u64,
    pub events: Vec<Event>,
    /// Intermediate checkpoints, then the terminal one.
    pub checkpoints: Vec<Checkpoint>,
    pub health: CaptureHealth,
    /// The capture's own storage (tooling overhead, not journaled).
    pub storage_bytes: usize,
}

impl MemoryCapture {
    #[must_use]
    pub fn checkpoint(&self, id: CheckpointId) -> Option<&Checkpoint> {
        self.checkpoints.get(id.0 as usize)
    }

    /// New live, released and surviving blocks from `from` to `to`.
    #[must_use]
    pub fn diff(&self, from: CheckpointId, to: CheckpointId) -> Option<CheckpointDiff> {
        let (a, b) = (self.checkpoint(from)?, self.checkpoint(to)?);
        let (mut new_live, mut released, mut survivors) = (Vec::new(), Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        // Both live sets are sorted by lifetime: one merge pass.
        while i < a.live.len() || j < b.live.len() {
            match (a.live.get(i), b.live.get(j)) {
                (Some(x), Some(y)) if x.lifetime == y.lifetime => {
                    survivors.push(Survivor {
                        block: *y,
                        age_ops: b.boundary_seq.saturating_sub(y.alloc_seq),
                        age_time: b.time.saturating_sub(y.time),
                    });
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.lifetime < y.lifetime => {
                    released.push(*x);
                    i += 1;
                }
                (Some(x), None) => {
                    released.push(*x);
                    i += 1;
                }
                (_, Some(y)) => {
                    new_live.push(*y);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        let expectation_violated = b.expectation == Expectation::Released && !new_live.is_empty();
        Some(CheckpointDiff {
            new_live,
            released,
            survivors,
            exact: a.table_exact && b.table_exact,
            expectation_violated,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BeginError {
    #[error("invalid capture config: {0}")]
    InvalidConfig(&'static str),
    #[error("domain {0:?} is not registered in this ledger")]
    UnknownDomain(Domain),
    #[error("a capture is already active")]
    AlreadyActive,
    #[error("the previous capture is sealed and must be released first")]
    Unreleased,
    #[error("complete mode needs a proven empty baseline; domain {0:?} has live blocks or invalid counters")]
    UnprovenBaseline(Domain),
    #[error("capture storage could not be allocated")]
    StorageUnavailable,
    #[error("called from inside an allocation hook")]
    Reentrant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("no capture is active")]
    NotActive,
    #[error("capture {0:?} is not the active capture")]
    WrongCapture(CaptureId),
    #[error("a checkpoint name must be at most {MAX_CHECKPOINT_NAME} bytes")]
    InvalidName,
    #[error("checkpoint storage is exhausted; no checkpoint was published")]
    Exhausted,
    #[error("called from inside an allocation hook")]
    Reentrant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EndError {
    #[error("no capture is active")]
    NotActive,
    #[error("capture {0:?} is not the active capture")]
    WrongCapture(CaptureId),
    #[error("called from inside an allocation hook")]
    Reentrant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("capture {0:?} is not sealed here (active, released or unknown)")]
    NotSealed(CaptureId),
    #[error("the capture is being exported")]
    Busy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    #[error("capture {0:?} is active; end it first")]
    Active(CaptureId),
    #[error("capture {0:?} is not sealed here (released or unknown)")]
    NotSealed(CaptureId),
    #[error("the capture is being exported")]
    Busy,
}

/// What a hook asks the recorder to apply.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Alloc { site: Site, address: usize, layout: Layout },
    Free { address: usize, layout: Layout },
    Failure { site: Site, layout: Layout },
}

#[derive(Debug)]
enum Slot {
    Empty,
    Active(Box<Session>),
    Sealed(Box<Session>),
    /// Taken out by `export` so it can be read without holding the lock.
    Exporting,
}

/// The locked detail state of a ledger.
#[derive(Debug)]
pub(crate) struct Detail {
    next_seq: u64,
    next_epoch: u64,
    next_capture: u64,
    slot: Slot,
}

#[derive(Debug, Clone, Copy)]
struct CheckpointMeta {
    name: [u8; MAX_CHECKPOINT_NAME],
    name_len: usize,
    owner: u64,
    expectation: Expectation,
    boundary_seq: u64,
    time: u64,
    table_exact: bool,
    history_complete: bool,
    live: (usize, usize),
    stats: (usize, usize),
}

/// One capture's preallocated storage and its record so far.
#[derive(Debug)]
pub(crate) struct Session {
    id: CaptureId,
    epoch: u64,
    mode: CaptureMode,
    domains: Vec<Domain>,
    included: [bool; MAX_DOMAINS],
    begin_seq: u64,
    end_seq: u64,
    next_lifetime: u64,
    table: LiveTable,
    journal: Vec<Event>,
    journal_limit: usize,
    checkpoints: Vec<CheckpointMeta>,
    checkpoint_limit: usize,
    live_pool: Vec<LiveBlock>,
    live_pool_limit: usize,
    stats_pool: Vec<DomainStats>,
    health: CaptureHealth,
    storage_bytes: usize,
}

fn reserve<T>(capacity: usize) -> Result<Vec<T>, BeginError> {
    let mut items = Vec::new();
    items.try_reserve_exact(capacity).map_err(|_| BeginError::StorageUnavailable)?;
    Ok(items)
}

fn note(loss: &mut Option<Loss>, reason: LossReason, seq: u64, domain: Domain) {
    match loss {
        Some(first) => first.count += 1,
        None => *loss = Some(Loss { reason, first_lost_seq: seq, domain, count: 1 }),
    }
}

impl Session {
    /// Everything a capture of `config` needs, allocated before it attaches.
    pub(crate) fn allocate(config: &CaptureConfig) -> Result<Box<Self>, BeginError> {
        let mut included = [false; MAX_DOMAINS];
        for domain in &config.domains {
            included[usize::from(domain.index())] = true;
        }
        let table = LiveTable::with_capacity(config.table_entries).map_err(|_| BeginError::StorageUnavailable)?;
        let session = Self {
            id: CaptureId(0),
            epoch: 0,
            mode: config.mode,
            domains: config.domains.clone(),
            included,
            begin_seq: 0,
            end_seq: 0,
            next_lifetime: 1,
            storage_bytes: config.storage_bytes(),
            table,
            journal: reserve(config.journal_events)?,
            journal_limit: config.journal_events,
            checkpoints: reserve(config.checkpoints + 1)?,
            checkpoint_limit: config.checkpoints,
            // The terminal checkpoint's room is reserved so `end` can always seal.
            live_pool: reserve(config.checkpoint_entries.saturating_add(config.table_entries))?,
            live_pool_limit: config.checkpoint_entries,
            stats_pool: reserve((config.checkpoints + 1).saturating_mul(config.domains.len()))?,
            health: CaptureHealth::default(),
        };
        Ok(Box::new(session))
    }

    fn journal(&mut self, event: Event) {
        // Within the reserved capacity `push` never reallocates.
        if self.journal.len() < self.journal_limit {
            self.journal.push(event);
        } else {
            note(&mut self.health.journal_loss, LossReason::JournalFull, event.seq, event.domain);
        }
    }

    fn apply(&mut self, domain: Domain, op: Op, seq: u64, thread: u32, time: u64) {
        match op {
            Op::Alloc { site, address, layout } => {
                let lifetime = LifetimeId { epoch: self.epoch, seq: self.next_lifetime };
                self.next_lifetime += 1;
                let block = LiveBlock {
                    address,
                    lifetime,
                    alloc_seq: seq,
                    domain,
                    site,
                    size: layout.size(),
                    align: layout.align(),
                    thread,
                    time,
                };
                match self.table.insert(block) {
                    Ok(()) => {}
                    Err(InsertError::Full) => note(&mut self.health.table_loss, LossReason::TableFull, seq, domain),
                    Err(InsertError::Duplicate) => {
                        self.health.ownership_errors += 1;
                        note(&mut self.health.table_loss, LossReason::DuplicateAddress, seq, domain);
                    }
                }
                self.journal(Event {
                    seq,
                    kind: EventKind::Alloc,
                    lifetime: Some(lifetime),
                    domain,
                    site,
                    address,
                    size: layout.size(),
                    align: layout.align(),
                    thread,
                    time,
                });
            }
            Op::Free { address, layout } => {
                let event = if let Some(origin) = self.table.remove(address) {
                    if origin.domain != domain || origin.size != layout.size() {
                        self.health.ownership_errors += 1;
                    }
                    Event {
                        seq,
                        kind: EventKind::Free,
                        lifetime: Some(origin.lifetime),
                        domain: origin.domain,
                        site: origin.site,
                        address,
                        size: origin.size,
                        align: origin.align,
                        thread,
                        time,
                    }
                } else {
                    self.health.unknown_baseline_frees += 1;
                    if self.mode == CaptureMode::Complete {
                        // A proven baseline leaves no unseen block: this is a contract break.
                        self.health.ownership_errors += 1;
                        note(&mut self.health.table_loss, LossReason::MissingEntry, seq, domain);
                    }
                    Event {
                        seq,
                        kind: EventKind::UnknownFree,
                        lifetime: None,
                        domain,
                        site: Site::UNKNOWN,
                        address,
                        size: layout.size(),
                        align: layout.align(),
                        thread,
                        time,
                    }
                };
                self.journal(event);
            }
            Op::Failure { site, layout } => self.journal(Event {
                seq,
                kind: EventKind::Failure,
                lifetime: None,
                domain,
                site,
                address: 0,
                size: layout.size(),
                align: layout.align(),
                thread,
                time,
            }),
        }
    }

    fn has_room_for_checkpoint(&self) -> bool {
        self.checkpoints.len() < self.checkpoint_limit
            && self.live_pool.len().saturating_add(self.table.len()) <= self.live_pool_limit
    }

    /// Copies the live set and counters at `boundary_seq`; within reserved capacity.
    /// `recursion` says whether a re-entered hook lost detail before this boundary.
    fn take_checkpoint(
        &mut self,
        request: CheckpointRequest<'_>,
        recursion: bool,
        stats: impl Fn(Domain) -> DomainStats,
    ) {
        let table_exact = self.health.table_loss.is_none() && !recursion;
        let start = self.live_pool.len();
        self.live_pool.extend(self.table.iter().copied());
        self.live_pool[start..].sort_unstable_by_key(|block| block.lifetime);
        let stats_start = self.stats_pool.len();
        for domain in &self.domains {
            self.stats_pool.push(stats(*domain));
        }
        let name = request.name;
        let mut stored = [0; MAX_CHECKPOINT_NAME];
        stored[..name.len()].copy_from_slice(name.as_bytes());
        self.checkpoints.push(CheckpointMeta {
            name: stored,
            name_len: name.len(),
            owner: request.owner,
            expectation: request.expectation,
            boundary_seq: self.end_seq,
            time: request.time,
            table_exact,
            history_complete: table_exact && self.health.journal_loss.is_none(),
            live: (start, self.live_pool.len()),
            stats: (stats_start, self.stats_pool.len()),
        });
    }

    /// The sealed capture as values; `domain_name` names each included domain.
    pub(crate) fn export(&self, domain_name: impl Fn(Domain) -> Option<&'static str>) -> MemoryCapture {
        let range = |(start, end): (usize, usize)| Range { start, end };
        let checkpoints = self
            .checkpoints
            .iter()
            .enumerate()
            .map(|(index, meta)| Checkpoint {
                id: CheckpointId(index as u32),
                name: String::from_utf8_lossy(&meta.name[..meta.name_len]).into_owned(),
                owner: meta.owner,
                expectation: meta.expectation,
                boundary_seq: meta.boundary_seq,
                time: meta.time,
                table_exact: meta.table_exact,
                history_complete: meta.history_complete,
                domains: self.domains.iter().copied().zip(self.stats_pool[range(meta.stats)].iter().copied()).collect(),
                live: self.live_pool[range(meta.live)].to_vec(),
            })
            .collect();
        MemoryCapture {
            id: self.id,
            epoch: self.epoch,
            mode: self.mode,
            domains: self
                .domains
                .iter()
                .map(|&domain| DomainDef { domain, name: domain_name(domain).unwrap_or("unknown") })
                .collect(),
            sites: site_definitions(),
            begin_seq: self.begin_seq,
            end_seq: self.end_seq,
            events: self.journal.clone(),
            checkpoints,
            health: self.health,
            storage_bytes: self.storage_bytes,
        }
    }
}

/// A checkpoint as its caller asks for it: what is stored beside the copied live set and counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CheckpointRequest<'a> {
    pub(crate) name: &'a str,
    pub(crate) owner: u64,
    pub(crate) expectation: Expectation,
    pub(crate) time: u64,
}

impl Detail {
    pub(crate) const fn new() -> Self {
        Self { next_seq: 1, next_epoch: 1, next_capture: 1, slot: Slot::Empty }
    }

    /// A hook's locked step: issue the operation sequence (mirrored into `issued` for loss
    /// evidence read outside the lock), update table and journal.
    pub(crate) fn apply(&mut self, issued: &AtomicU64, domain: Domain, op: Op, thread: u32, time: u64) {
        let Slot::Active(session) = &mut self.slot else { return };
        if !session.included[usize::from(domain.index())] {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        issued.store(seq, Ordering::Relaxed);
        session.apply(domain, op, seq, thread, time);
    }

    /// Why a capture cannot begin now, if it cannot.
    pub(crate) fn refuses_begin(&self) -> Option<BeginError> {
        match &self.slot {
            Slot::Empty => None,
            Slot::Active(_) => Some(BeginError::AlreadyActive),
            Slot::Sealed(_) | Slot::Exporting => Some(BeginError::Unreleased),
        }
    }

    /// Makes `session` the active capture: a new id and epoch, its sequences from here.
    /// The caller checked [`Detail::refuses_begin`] under the same lock.
    pub(crate) fn activate(&mut self, mut session: Box<Session>) -> CaptureId {
        debug_assert!(matches!(self.slot, Slot::Empty), "activate only after refuses_begin said yes");
        let id = CaptureId(self.next_capture);
        self.next_capture += 1;
        session.id = id;
        session.epoch = self.next_epoch;
        self.next_epoch += 1;
        session.begin_seq = self.next_seq;
        session.end_seq = self.next_seq;
        self.slot = Slot::Active(session);
        id
    }

    /// Publishes an intermediate checkpoint of the active capture `capture` at the next
    /// operation boundary; on failure nothing is published.
    pub(crate) fn checkpoint(
        &mut self,
        capture: CaptureId,
        request: CheckpointRequest<'_>,
        recursion: bool,
        stats: impl Fn(Domain) -> DomainStats,
    ) -> Result<CheckpointId, CheckpointError> {
        let boundary = self.next_seq;
        let session = match &mut self.slot {
            Slot::Active(session) if session.id == capture => session,
            Slot::Active(_) => return Err(CheckpointError::WrongCapture(capture)),
            _ => return Err(CheckpointError::NotActive),
        };
        if !session.has_room_for_checkpoint() {
            return Err(CheckpointError::Exhausted);
        }
        session.end_seq = boundary;
        session.take_checkpoint(request, recursion, stats);
        Ok(CheckpointId(session.checkpoints.len() as u32 - 1))
    }

    /// The included domains of the active capture `capture`, which `seal` will detach.
    pub(crate) fn active_domains(&self, capture: CaptureId) -> Result<&[Domain], EndError> {
        let Slot::Active(session) = &self.slot else { return Err(EndError::NotActive) };
        if session.id != capture {
            return Err(EndError::WrongCapture(capture));
        }
        Ok(&session.domains)
    }

    /// Seals the active capture, taking the terminal checkpoint in its reserved room.
    /// The caller checked [`Detail::active_domains`] under the same lock.
    pub(crate) fn seal(
        &mut self,
        recursion: Option<RecursionLoss>,
        time: u64,
        stats: impl Fn(Domain) -> DomainStats,
    ) -> CaptureHealth {
        let boundary = self.next_seq;
        let Slot::Active(mut session) = core::mem::replace(&mut self.slot, Slot::Empty) else {
            unreachable!("seal only after active_domains found the capture")
        };
        if let Some(loss) = recursion {
            session.health.recursion = Some(loss);
        }
        session.end_seq = boundary;
        let terminal = CheckpointRequest { name: "end", owner: 0, expectation: Expectation::Unspecified, time };
        session.take_checkpoint(terminal, recursion.is_some(), stats);
        let health = session.health;
        self.slot = Slot::Sealed(session);
        health
    }

    /// Takes the sealed capture `capture` out for export, leaving the slot marked busy.
    pub(crate) fn take_sealed(&mut self, capture: CaptureId) -> Result<Box<Session>, ExportError> {
        match &self.slot {
            Slot::Sealed(session) if session.id == capture => {}
            Slot::Exporting => return Err(ExportError::Busy),
            _ => return Err(ExportError::NotSealed(capture)),
        }
        let Slot::Sealed(session) = core::mem::replace(&mut self.slot, Slot::Exporting) else {
            unreachable!("matched above")
        };
        Ok(session)
    }

    /// Puts back what [`Detail::take_sealed`] took out.
    pub(crate) fn restore_sealed(&mut self, session: Box<Session>) {
        self.slot = Slot::Sealed(session);
    }

    /// Removes the sealed capture `capture`, for the caller to drop outside the lock.
    pub(crate) fn remove_sealed(&mut self, capture: CaptureId) -> Result<Box<Session>, ReleaseError> {
        match &self.slot {
            Slot::Sealed(session) if session.id == capture => {}
            Slot::Active(session) if session.id == capture => return Err(ReleaseError::Active(capture)),
            Slot::Exporting => return Err(ReleaseError::Busy),
            _ => return Err(ReleaseError::NotSealed(capture)),
        }
        let Slot::Sealed(session) = core::mem::replace(&mut self.slot, Slot::Empty) else {
            unreachable!("matched above")
        };
        Ok(session)
    }
}
