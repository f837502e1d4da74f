//! Checked per-domain counters: relaxed atomics, each a sample, not a transaction across
//! fields or domains; exact reconciliation needs quiescence (no allocation in flight).

use core::sync::atomic::{
    AtomicBool, AtomicU64,
    Ordering::{AcqRel, Relaxed},
};

/// One domain's counters as read at one moment.
///
/// `peak_bytes` is this domain's own high-water of live requested bytes. Peaks of several
/// domains happened at different moments and are never summed into a process peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainStats {
    /// Requested bytes of blocks allocated and not yet freed.
    pub live_bytes: u64,
    /// Blocks allocated and not yet freed.
    pub live_blocks: u64,
    /// Highest `live_bytes` this domain has reached.
    pub peak_bytes: u64,
    /// Requested bytes of every successful allocation.
    pub allocated_bytes: u64,
    /// Requested bytes of every free.
    pub freed_bytes: u64,
    /// Successful allocations.
    pub allocations: u64,
    /// Frees.
    pub frees: u64,
    /// Allocations the backend refused (or that could not be laid out).
    pub failures: u64,
    /// False once any counter overflowed or underflowed: sticky, since arithmetic cannot
    /// restore accuracy; the saturated values are then bounds at best.
    pub valid: bool,
}

/// Live blocks are not a counter of their own but `allocations - frees`: that saves two
/// locked read-modify-writes per alloc+free pair (a quarter of the hot path). Live bytes
/// keep their own counter because the peak must be the exact high-water of one value.
#[derive(Debug)]
pub(crate) struct DomainCounters {
    live_bytes: AtomicU64,
    peak_bytes: AtomicU64,
    allocated_bytes: AtomicU64,
    freed_bytes: AtomicU64,
    allocations: AtomicU64,
    frees: AtomicU64,
    failures: AtomicU64,
    invalid: AtomicBool,
}

impl DomainCounters {
    pub(crate) const fn new() -> Self {
        Self {
            live_bytes: AtomicU64::new(0),
            peak_bytes: AtomicU64::new(0),
            allocated_bytes: AtomicU64::new(0),
            freed_bytes: AtomicU64::new(0),
            allocations: AtomicU64::new(0),
            frees: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            invalid: AtomicBool::new(false),
        }
    }

    /// Adds; on overflow saturates and marks the domain invalid. Returns the new value.
    fn add(&self, counter: &AtomicU64, n: u64) -> u64 {
        // fetch_add, not a CAS loop: the common path is one uncontended RMW.
        let previous = counter.fetch_add(n, Relaxed);
        previous.checked_add(n).unwrap_or_else(|| {
            counter.store(u64::MAX, Relaxed);
            self.invalid.store(true, Relaxed);
            u64::MAX
        })
    }

    /// Subtracts; on underflow clamps to zero and marks the domain invalid.
    fn sub(&self, counter: &AtomicU64, n: u64) {
        let previous = counter.fetch_sub(n, Relaxed);
        if previous < n {
            counter.store(0, Relaxed);
            self.invalid.store(true, Relaxed);
        }
    }

    pub(crate) fn on_alloc(&self, size: u64) {
        let live = self.add(&self.live_bytes, size);
        // A plain load first: the peak rarely moves, and fetch_max is a locked RMW.
        if live != u64::MAX && live > self.peak_bytes.load(Relaxed) {
            self.peak_bytes.fetch_max(live, Relaxed);
        }
        self.add(&self.allocated_bytes, size);
        self.add(&self.allocations, 1);
    }

    pub(crate) fn on_free(&self, size: u64) {
        self.sub(&self.live_bytes, size);
        self.add(&self.freed_bytes, size);
        // More frees than allocations is the live-block count underflowing. AcqRel makes
        // the frees counter a release sequence: each free counted before this one
        // happened after its own allocation's count, so the load below sees those counts
        // and cannot fire falsely under concurrency. On x86 it is the same instruction.
        let previous = self.frees.fetch_add(1, AcqRel);
        if previous == u64::MAX {
            self.frees.store(u64::MAX, Relaxed);
            self.invalid.store(true, Relaxed);
        } else if previous + 1 > self.allocations.load(Relaxed) {
            self.invalid.store(true, Relaxed);
        }
    }

    pub(crate) fn on_failure(&self) {
        self.add(&self.failures, 1);
    }

    pub(crate) fn snapshot(&self) -> DomainStats {
        // Frees first: a free counted between the two loads then cannot make the
        // difference read one block short of a state that existed.
        let frees = self.frees.load(Relaxed);
        let allocations = self.allocations.load(Relaxed);
        DomainStats {
            live_bytes: self.live_bytes.load(Relaxed),
            peak_bytes: self.peak_bytes.load(Relaxed),
            allocated_bytes: self.allocated_bytes.load(Relaxed),
            freed_bytes: self.freed_bytes.load(Relaxed),
            allocations,
            frees,
            live_blocks: allocations.saturating_sub(frees),
            failures: self.failures.load(Relaxed),
            valid: !self.invalid.load(Relaxed),
        }
    }
}
