//! The allocator hooks: the [`DomainAlloc`] boundary and the optional [`TrackingAllocator`]
//! global wrapper. One of the crate's two files with `unsafe` code (the other is `sync.rs`):
//! the code here hands out and takes back raw blocks; everything it tells the ledger is an
//! address and a layout.

use core::alloc::{GlobalAlloc, Layout};
use core::ptr::{self, NonNull};
use std::alloc::System;

use allocator_api2::alloc::{AllocError, Allocator};

use crate::domain::Domain;
use crate::ledger::Ledger;
use crate::scope;
use crate::site::Site;

/// The explicit allocation boundary: a copyable handle charging one domain (and one site)
/// of a ledger. It implements [`allocator_api2::alloc::Allocator`], so
/// `allocator_api2::vec::Vec::new_in(handle)` or `hashbrown::HashMap::new_in(handle)`
/// account their storage. A block is freed by the handle stored in its container, so the
/// free charges the allocating domain on whatever thread drops it.
///
/// It allocates from [`System`] directly, not through the global allocator, so a process
/// that also installs [`TrackingAllocator`] counts each block once.
#[derive(Clone, Copy)]
pub struct DomainAlloc {
    ledger: &'static Ledger,
    domain: Domain,
    site: Site,
}

impl core::fmt::Debug for DomainAlloc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DomainAlloc").field("domain", &self.domain).field("site", &self.site).finish_non_exhaustive()
    }
}

impl DomainAlloc {
    /// The same handle, attributing its allocations to `site`.
    #[must_use]
    pub const fn with_site(self, site: Site) -> Self {
        Self { site, ..self }
    }

    /// The domain this handle charges.
    #[must_use]
    pub const fn domain(&self) -> Domain {
        self.domain
    }

    /// The site this handle attributes to.
    #[must_use]
    pub const fn site(&self) -> Site {
        self.site
    }
}

impl Ledger {
    /// A handle charging `domain` for [`allocator_api2`] / `hashbrown` containers.
    #[must_use]
    pub fn allocator(&'static self, domain: Domain) -> DomainAlloc {
        DomainAlloc { ledger: self, domain, site: Site::UNKNOWN }
    }
}

fn dangling(layout: Layout) -> NonNull<[u8]> {
    // Zero-sized requests create no block and no lifetime: an aligned dangling pointer.
    let align = core::num::NonZeroUsize::MIN.saturating_add(layout.align() - 1);
    NonNull::slice_from_raw_parts(NonNull::without_provenance(align), 0)
}

// SAFETY: blocks come from `System` with the caller's layout and go back to it with the
// same layout; accounting only reads addresses and sizes, never the memory. The handle is
// `Copy` and every copy frees what any other allocated (they share the one backend).
#[expect(unsafe_code, reason = "implementing the allocator trait is unsafe")]
unsafe impl Allocator for DomainAlloc {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if layout.size() == 0 {
            return Ok(dangling(layout));
        }
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { System.alloc(layout) };
        match NonNull::new(raw) {
            Some(block) => {
                self.ledger.record_allocation(self.domain, self.site, block, layout);
                Ok(NonNull::slice_from_raw_parts(block, layout.size()))
            }
            None => {
                self.ledger.record_failure(self.domain, self.site, layout);
                Err(AllocError)
            }
        }
    }

    #[expect(unsafe_code, reason = "the trait's contract is the caller's promise")]
    unsafe fn deallocate(&self, block: NonNull<u8>, layout: Layout) {
        if layout.size() == 0 {
            return;
        }
        // Publication precedes backend release, so a reused address cannot erase a newer lifetime.
        self.ledger.record_free(self.domain, block, layout);
        // SAFETY: the caller promises `block` came from this allocator with `layout`.
        unsafe { System.dealloc(block.as_ptr(), layout) };
    }
}

/// Optional `#[global_allocator]` wrapper over [`System`] for everything that does not go
/// through a [`DomainAlloc`] (std containers, dependencies).
///
/// Each block carries a two-byte trailer naming its domain, so a free charges the domain
/// that allocated the block on any thread, and `realloc` keeps it. The domain is chosen
/// per thread by a [`DomainScope`](crate::DomainScope); outside any scope it is
/// [`Domain::UNKNOWN`]. This attributes std types only by where they were allocated, not
/// by who owns them later; prefer an explicit [`DomainAlloc`] where ownership matters.
///
/// ```no_run
/// #[global_allocator]
/// static ALLOC: sgpt_memory::TrackingAllocator = sgpt_memory::TrackingAllocator::new();
/// ```
#[derive(Debug)]
pub struct TrackingAllocator {
    ledger: &'static Ledger,
}

impl TrackingAllocator {
    /// Accounts into [`Ledger::global`].
    #[must_use]
    pub const fn new() -> Self {
        Self { ledger: &crate::ledger::GLOBAL }
    }

    /// Accounts into `ledger` instead.
    #[must_use]
    pub const fn with_ledger(ledger: &'static Ledger) -> Self {
        Self { ledger }
    }
}

impl Default for TrackingAllocator {
    fn default() -> Self {
        Self::new()
    }
}

const TRAILER: Layout = Layout::new::<u16>();

/// The block as the backend sees it, and where its trailer sits.
fn with_trailer(layout: Layout) -> Option<(Layout, usize)> {
    let (extended, offset) = layout.extend(TRAILER).ok()?;
    Some((extended.pad_to_align(), offset))
}

impl TrackingAllocator {
    #[expect(unsafe_code, reason = "writes the trailer into a block just allocated")]
    fn finish_alloc(&self, raw: *mut u8, layout: Layout, offset: usize, domain: Domain, site: Site) -> *mut u8 {
        let Some(block) = NonNull::new(raw) else {
            self.ledger.record_failure(domain, site, layout);
            return raw;
        };
        // SAFETY: the block spans `offset + 2` bytes (`with_trailer`); unaligned write of a u16.
        unsafe { raw.add(offset).cast::<u16>().write_unaligned(domain.index()) };
        self.ledger.record_allocation(domain, site, block, layout);
        raw
    }
}

// SAFETY: every block is the caller's layout extended by a trailer, allocated from and
// returned to `System` with that same extended layout; the trailer is written once after
// allocation, read before release, and lies outside the caller's bytes. Nothing here
// allocates (the ledger's hooks are allocation-free), so there is no recursion into `alloc`.
#[expect(unsafe_code, reason = "implementing the global allocator is unsafe")]
unsafe impl GlobalAlloc for TrackingAllocator {
    #[expect(unsafe_code, reason = "the trait's contract is the caller's promise")]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let (domain, site) = scope::current();
        let Some((extended, offset)) = with_trailer(layout) else {
            self.ledger.record_failure(domain, site, layout);
            return ptr::null_mut();
        };
        // SAFETY: `extended` is at least as large as the caller's non-zero layout.
        let raw = unsafe { System.alloc(extended) };
        self.finish_alloc(raw, layout, offset, domain, site)
    }

    #[expect(unsafe_code, reason = "the trait's contract is the caller's promise")]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let (domain, site) = scope::current();
        let Some((extended, offset)) = with_trailer(layout) else {
            self.ledger.record_failure(domain, site, layout);
            return ptr::null_mut();
        };
        // SAFETY: as in `alloc`.
        let raw = unsafe { System.alloc_zeroed(extended) };
        self.finish_alloc(raw, layout, offset, domain, site)
    }

    #[expect(unsafe_code, reason = "the trait's contract is the caller's promise")]
    unsafe fn dealloc(&self, raw: *mut u8, layout: Layout) {
        let Some((extended, offset)) = with_trailer(layout) else { return };
        // SAFETY: `raw` came from `alloc` with `layout`, so its trailer sits at `offset`.
        let domain = Domain::from_raw(unsafe { raw.add(offset).cast::<u16>().read_unaligned() });
        if let Some(block) = NonNull::new(raw) {
            self.ledger.record_free(domain, block, layout);
        }
        // SAFETY: the same extended layout `alloc` used.
        unsafe { System.dealloc(raw, extended) };
    }

    #[expect(unsafe_code, reason = "the trait's contract is the caller's promise")]
    unsafe fn realloc(&self, raw: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (Some((old_extended, old_offset)), Ok(new_layout)) =
            (with_trailer(layout), Layout::from_size_align(new_size, layout.align()))
        else {
            return ptr::null_mut();
        };
        // SAFETY: `raw` came from `alloc` with `layout`, so its trailer sits at `old_offset`.
        let domain = Domain::from_raw(unsafe { raw.add(old_offset).cast::<u16>().read_unaligned() });
        let site = scope::current().1;
        let Some((new_extended, new_offset)) = with_trailer(new_layout) else {
            self.ledger.record_failure(domain, site, new_layout);
            return ptr::null_mut();
        };
        if self.ledger.is_recording(domain) {
            // A recorded free must precede the backend's release of the address, which an
            // in-place `realloc` cannot promise; so move the block by hand while recording.
            // SAFETY: `new_extended` has a non-zero size.
            let fresh = unsafe { System.alloc(new_extended) };
            if fresh.is_null() {
                self.ledger.record_failure(domain, site, new_layout);
                return fresh;
            }
            // SAFETY: both blocks hold at least `min(old, new)` caller bytes and are distinct.
            unsafe { ptr::copy_nonoverlapping(raw, fresh, layout.size().min(new_size)) };
            let fresh = self.finish_alloc(fresh, new_layout, new_offset, domain, site);
            if let Some(block) = NonNull::new(raw) {
                self.ledger.record_free(domain, block, layout);
            }
            // SAFETY: the old block's own extended layout.
            unsafe { System.dealloc(raw, old_extended) };
            return fresh;
        }
        // SAFETY: `raw` was allocated with `old_extended`; `new_extended.size()` is non-zero.
        let moved = unsafe { System.realloc(raw, old_extended, new_extended.size()) };
        match NonNull::new(moved) {
            None => {
                self.ledger.record_failure(domain, site, new_layout);
            }
            Some(block) => {
                // SAFETY: the block spans `new_offset + 2` bytes.
                unsafe { moved.add(new_offset).cast::<u16>().write_unaligned(domain.index()) };
                // Origin is immutable: the resized block stays in the domain that allocated it.
                if let Some(old) = NonNull::new(raw) {
                    self.ledger.record_free(domain, old, layout);
                }
                self.ledger.record_allocation(domain, site, block, new_layout);
            }
        }
        moved
    }
}
