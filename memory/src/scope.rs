//! Per-thread state the hooks read: the [`DomainScope`] that attributes the global
//! allocator's blocks, the re-entrancy guard, and a small thread number for records.
//!
//! Every thread-local here is `const`-initialised and has no destructor, so touching it
//! never allocates and never registers a destructor (both would re-enter the hooks).

use core::cell::Cell;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::domain::Domain;
use crate::site::Site;

thread_local! {
    static SCOPE: Cell<(Domain, Site)> = const { Cell::new((Domain::UNKNOWN, Site::UNKNOWN)) };
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
    static THREAD: Cell<u32> = const { Cell::new(0) };
}

static NEXT_THREAD: AtomicU32 = AtomicU32::new(1);

/// Picks the domain (and site) that [`TrackingAllocator`](crate::TrackingAllocator)
/// charges for allocations made on this thread until the guard drops; scopes nest.
///
/// This is attribution for std types only: it names where a block was allocated, and a
/// free still charges that domain wherever it happens. The ids must come from the ledger
/// the global wrapper accounts into.
#[derive(Debug)]
#[must_use = "the scope ends when the guard drops"]
pub struct DomainScope {
    previous: (Domain, Site),
    // The guard restores this thread's state, so it must not move to another thread.
    _not_send: PhantomData<*const ()>,
}

impl DomainScope {
    /// Charges `domain`, with an unknown site.
    pub fn enter(domain: Domain) -> Self {
        Self::enter_at(domain, Site::UNKNOWN)
    }

    /// Charges `domain` and attributes to `site`.
    pub fn enter_at(domain: Domain, site: Site) -> Self {
        let previous = SCOPE.try_with(|scope| scope.replace((domain, site))).unwrap_or_default();
        Self { previous, _not_send: PhantomData }
    }
}

impl Drop for DomainScope {
    fn drop(&mut self) {
        let _ = SCOPE.try_with(|scope| scope.set(self.previous));
    }
}

/// The current thread's scope; unknown during thread teardown.
pub(crate) fn current() -> (Domain, Site) {
    SCOPE.try_with(Cell::get).unwrap_or_default()
}

/// Held while a hook observes; a second entry on the same thread is recursion.
#[derive(Debug)]
pub(crate) struct ReentryGuard(());

impl ReentryGuard {
    /// `None` when this thread is already inside a hook (or tearing down).
    pub(crate) fn enter() -> Option<Self> {
        let entered = IN_HOOK.try_with(|flag| !flag.replace(true)).unwrap_or(false);
        // Lazily: a guard built and dropped on refusal would clear the outer entry's flag.
        entered.then(|| Self(()))
    }
}

impl Drop for ReentryGuard {
    fn drop(&mut self) {
        let _ = IN_HOOK.try_with(|flag| flag.set(false));
    }
}

/// A process-unique small number for this thread (0 during teardown). Our own, because
/// `std::thread::current()` may allocate on first use.
pub(crate) fn thread_number() -> u32 {
    THREAD
        .try_with(|slot| {
            if slot.get() == 0 {
                slot.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
            }
            slot.get()
        })
        .unwrap_or(0)
}
