//! The ledger: the domain registry, each domain's checked counters, the allocation hooks
//! that feed them and (when a capture is attached) the recorder, and the recorder's
//! controls ([`Ledger::begin`] … [`Ledger::release`]) that attach, checkpoint, seal,
//! export and release a capture.

use core::alloc::Layout;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crate::capture::{
    BeginError, CaptureConfig, CaptureHealth, CaptureId, CaptureMode, CheckpointError, CheckpointId, CheckpointRequest,
    Detail, EndError, Expectation, ExportError, MAX_CHECKPOINT_NAME, MemoryCapture, Op, RecursionLoss, ReleaseError,
    Session,
};
use crate::counters::{DomainCounters, DomainStats};
use crate::domain::{Domain, DomainDef, MAX_DOMAIN_NAME, MAX_DOMAINS, RegisterError};
use crate::scope::{self, ReentryGuard};
use crate::site::Site;
use crate::sync::{AtomicClock, SpinLock};

pub(crate) static GLOBAL: Ledger = Ledger::new();

/// Loss detected before the detail lock (recursion): kept in atomics, since taking the
/// lock from inside a hook is what must not happen.
#[derive(Debug)]
pub(crate) struct EarlyLoss {
    pub(crate) count: AtomicU64,
    pub(crate) domain: AtomicU32,
    /// Operations issued when it was first seen: a bound, not the lost operation's sequence.
    pub(crate) after_seq: AtomicU64,
}

/// Domains, their counters and the optional recorder. One per process is usual
/// ([`Ledger::global`]); independent ledgers (e.g. `Box::leak(Box::new(Ledger::new()))`)
/// isolate tests. Handles borrow it for `'static` because blocks outlive any scope.
#[derive(Debug)]
pub struct Ledger {
    names: SpinLock<[&'static str; MAX_DOMAINS]>,
    registered: AtomicUsize,
    registration_failures: AtomicU64,
    counters: [DomainCounters; MAX_DOMAINS],
    /// Per domain: a capture includes it. The hooks' only extra cost when nothing records.
    pub(crate) attached: [AtomicBool; MAX_DOMAINS],
    pub(crate) clock: AtomicClock,
    pub(crate) detail: SpinLock<Detail>,
    pub(crate) early_loss: EarlyLoss,
    /// The last operation sequence issued, mirrored for loss evidence outside the lock.
    pub(crate) issued: AtomicU64,
}

impl Default for Ledger {
    fn default() -> Self {
        Self::new()
    }
}

impl Ledger {
    /// An empty ledger with only [`Domain::UNKNOWN`] registered (named `"unknown"`).
    #[must_use]
    pub const fn new() -> Self {
        let mut names = [""; MAX_DOMAINS];
        names[0] = "unknown";
        Self {
            names: SpinLock::new(names),
            registered: AtomicUsize::new(1),
            registration_failures: AtomicU64::new(0),
            counters: [const { DomainCounters::new() }; MAX_DOMAINS],
            attached: [const { AtomicBool::new(false) }; MAX_DOMAINS],
            clock: AtomicClock::new(),
            detail: SpinLock::new(Detail::new()),
            early_loss: EarlyLoss { count: AtomicU64::new(0), domain: AtomicU32::new(0), after_seq: AtomicU64::new(0) },
            issued: AtomicU64::new(0),
        }
    }

    /// The process ledger that [`TrackingAllocator::new`](crate::TrackingAllocator::new) uses.
    #[must_use]
    pub fn global() -> &'static Self {
        &GLOBAL
    }

    /// Registers a domain. Call it at start-up, outside allocation hooks; ids are stable
    /// for the process lifetime. On failure the caller keeps allocating, attributed to
    /// [`Domain::UNKNOWN`] (see [`Ledger::domain_or_unknown`]).
    pub fn register_domain(&self, name: &'static str) -> Result<Domain, RegisterError> {
        if name.is_empty() || name.len() > MAX_DOMAIN_NAME {
            return Err(RegisterError::InvalidName);
        }
        let mut names = self.names.lock();
        let count = self.registered.load(Ordering::Acquire);
        if let Some(existing) = names[..count].iter().position(|known| *known == name) {
            return Err(RegisterError::Duplicate(name, Domain::from_raw(existing as u16)));
        }
        if count == MAX_DOMAINS {
            return Err(RegisterError::Full);
        }
        names[count] = name;
        // Published after the name: a hook seeing the id sees a registered domain.
        self.registered.store(count + 1, Ordering::Release);
        Ok(Domain::from_raw(count as u16))
    }

    /// [`Ledger::register_domain`], falling back to [`Domain::UNKNOWN`] (counted in
    /// [`Ledger::registration_failures`]) when the name is refused; a duplicate name
    /// returns the existing domain.
    pub fn domain_or_unknown(&self, name: &'static str) -> Domain {
        match self.register_domain(name) {
            Ok(domain) | Err(RegisterError::Duplicate(_, domain)) => domain,
            Err(_) => {
                self.registration_failures.fetch_add(1, Ordering::Relaxed);
                Domain::UNKNOWN
            }
        }
    }

    /// How many registrations fell back to [`Domain::UNKNOWN`].
    #[must_use]
    pub fn registration_failures(&self) -> u64 {
        self.registration_failures.load(Ordering::Relaxed)
    }

    /// Every registered domain, [`Domain::UNKNOWN`] first.
    #[must_use]
    pub fn domains(&self) -> Vec<DomainDef> {
        // Copy under the lock, allocate after it.
        let (names, count) = {
            let names = self.names.lock();
            (*names, self.registered.load(Ordering::Acquire))
        };
        (0..count).map(|index| DomainDef { domain: Domain::from_raw(index as u16), name: names[index] }).collect()
    }

    /// The name of `domain`, if registered.
    #[must_use]
    pub fn domain_name(&self, domain: Domain) -> Option<&'static str> {
        let index = usize::from(domain.index());
        (index < self.registered.load(Ordering::Acquire)).then(|| self.names.lock()[index])
    }

    /// `domain`'s counters now: a relaxed sample, exact only when its allocators are quiescent.
    #[must_use]
    pub fn stats(&self, domain: Domain) -> DomainStats {
        self.counters[self.slot(domain)].snapshot()
    }

    /// The counter slot for `domain`: unregistered ids fall to [`Domain::UNKNOWN`].
    pub(crate) fn slot(&self, domain: Domain) -> usize {
        let index = usize::from(domain.index());
        if index < self.registered.load(Ordering::Relaxed) { index } else { 0 }
    }

    /// Whether a capture currently includes `domain`.
    pub(crate) fn is_recording(&self, domain: Domain) -> bool {
        self.attached[self.slot(domain)].load(Ordering::Acquire)
    }

    /// Accounts a successful allocation of `layout` at `block`. The hooks call it after the
    /// backend succeeded and before the pointer is returned; a custom backend (an arena,
    /// a pool) may call it too. Never allocates and never fails.
    pub fn record_allocation(&self, domain: Domain, site: Site, block: NonNull<u8>, layout: Layout) {
        let slot = self.slot(domain);
        self.counters[slot].on_alloc(layout.size() as u64);
        if self.attached[slot].load(Ordering::Acquire) {
            self.observe(slot, Op::Alloc { site, address: block.addr().get(), layout });
        }
    }

    /// Accounts the free of a block allocated with `layout` in `domain`. Call it before
    /// the backend releases the address, so a reuse cannot overtake it.
    pub fn record_free(&self, domain: Domain, block: NonNull<u8>, layout: Layout) {
        let slot = self.slot(domain);
        if self.attached[slot].load(Ordering::Acquire) {
            self.observe(slot, Op::Free { address: block.addr().get(), layout });
        }
        self.counters[slot].on_free(layout.size() as u64);
    }

    /// Accounts an allocation the backend refused.
    pub fn record_failure(&self, domain: Domain, site: Site, layout: Layout) {
        let slot = self.slot(domain);
        self.counters[slot].on_failure();
        if self.attached[slot].load(Ordering::Acquire) {
            self.observe(slot, Op::Failure { site, layout });
        }
    }

    /// The detail path: guard, metadata outside the lock, then one locked POD update.
    fn observe(&self, slot: usize, op: Op) {
        let domain = Domain::from_raw(slot as u16);
        let Some(_guard) = ReentryGuard::enter() else {
            // Re-entered (e.g. a clock that allocates): the block stays counted, the detail
            // is lost, and the lock is not taken again on this thread.
            if self.early_loss.count.fetch_add(1, Ordering::Relaxed) == 0 {
                self.early_loss.domain.store(u32::from(domain.index()), Ordering::Relaxed);
                self.early_loss.after_seq.store(self.issued.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            return;
        };
        let thread = scope::thread_number();
        let time = self.clock.now();
        let mut detail = self.detail.lock();
        detail.apply(&self.issued, domain, op, thread, time);
    }

    /// Whether a re-entered hook has lost detail since the capture began.
    fn recursed(&self) -> bool {
        self.early_loss.count.load(Ordering::Relaxed) != 0
    }

    /// Begins a capture at the caller's safe point. Validates, proves Complete-mode
    /// baselines, allocates all storage, then attaches. On failure nothing changes: no
    /// capture, no epoch consumed, the previous sealed capture untouched.
    pub fn begin(&self, config: &CaptureConfig) -> Result<CaptureId, BeginError> {
        if config.domains.is_empty() {
            return Err(BeginError::InvalidConfig("no domains"));
        }
        if config.table_entries == 0 || config.journal_events == 0 {
            return Err(BeginError::InvalidConfig("table and journal need room for one entry"));
        }
        for (index, domain) in config.domains.iter().enumerate() {
            if self.slot(*domain) != usize::from(domain.index()) {
                return Err(BeginError::UnknownDomain(*domain));
            }
            if config.domains[..index].contains(domain) {
                return Err(BeginError::InvalidConfig("a domain is listed twice"));
            }
        }
        let Some(_guard) = ReentryGuard::enter() else { return Err(BeginError::Reentrant) };
        // Refused before allocating storage when the slot is already taken.
        let refusal = self.detail.lock().refuses_begin();
        if let Some(error) = refusal {
            return Err(error);
        }
        if config.mode == CaptureMode::Complete {
            for domain in &config.domains {
                let stats = self.stats(*domain);
                if !stats.valid || stats.live_blocks != 0 {
                    return Err(BeginError::UnprovenBaseline(*domain));
                }
            }
        }
        let session = Session::allocate(config)?;
        let refused = {
            let mut detail = self.detail.lock();
            if let Some(error) = detail.refuses_begin() {
                (error, session)
            } else {
                self.early_loss.count.store(0, Ordering::Relaxed);
                self.clock.set(config.clock);
                let id = detail.activate(session);
                for domain in &config.domains {
                    self.attached[usize::from(domain.index())].store(true, Ordering::Release);
                }
                return Ok(id);
            }
        };
        // Storage is dropped after the lock is released: freeing may enter the hooks.
        drop(refused.1);
        Err(refused.0)
    }

    /// Copies the live set and the included domains' counters at one operation boundary.
    /// On failure nothing is published.
    pub fn checkpoint(
        &self,
        capture: CaptureId,
        name: &str,
        owner: u64,
        expectation: Expectation,
    ) -> Result<CheckpointId, CheckpointError> {
        if name.len() > MAX_CHECKPOINT_NAME {
            return Err(CheckpointError::InvalidName);
        }
        let Some(_guard) = ReentryGuard::enter() else { return Err(CheckpointError::Reentrant) };
        let time = self.clock.now();
        let mut detail = self.detail.lock();
        let request = CheckpointRequest { name, owner, expectation, time };
        detail.checkpoint(capture, request, self.recursed(), |domain| self.stats(domain))
    }

    /// Detaches and seals at the caller's safe point, taking the terminal checkpoint in its
    /// reserved room. Succeeds even when detail was lost; the health says so.
    pub fn end(&self, capture: CaptureId) -> Result<CaptureHealth, EndError> {
        let Some(_guard) = ReentryGuard::enter() else { return Err(EndError::Reentrant) };
        let time = self.clock.now();
        let mut detail = self.detail.lock();
        for domain in detail.active_domains(capture)? {
            self.attached[usize::from(domain.index())].store(false, Ordering::Release);
        }
        self.clock.set(None);
        let recursions = self.early_loss.count.load(Ordering::Relaxed);
        let recursion = (recursions != 0).then(|| RecursionLoss {
            count: recursions,
            domain: Domain::from_raw(self.early_loss.domain.load(Ordering::Relaxed) as u16),
            after_seq: self.early_loss.after_seq.load(Ordering::Relaxed),
        });
        Ok(detail.seal(recursion, time, |domain| self.stats(domain)))
    }

    /// Copies the sealed capture out; repeatable until `release`.
    pub fn export(&self, capture: CaptureId) -> Result<MemoryCapture, ExportError> {
        let session = self.detail.lock().take_sealed(capture)?;
        // Copying allocates, so it happens with the lock released.
        let exported = session.export(|domain| self.domain_name(domain));
        self.detail.lock().restore_sealed(session);
        Ok(exported)
    }

    /// Frees a sealed capture's storage. An active capture is refused.
    pub fn release(&self, capture: CaptureId) -> Result<(), ReleaseError> {
        let session = self.detail.lock().remove_sealed(capture)?;
        // Dropped with the lock released: freeing may enter the hooks.
        drop(session);
        Ok(())
    }
}
