//! A global allocator that counts allocations (and reallocations) and forwards everything
//! to the system allocator. Tests run in parallel threads, so [`counted`] counts only the
//! calling thread; [`allocations`] is the process total, for single-test binaries and
//! benches. Install it in a test binary with
//! `#[global_allocator] static GLOBAL: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The counting allocator.
#[derive(Debug)]
pub struct Counting;

static TOTAL: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

fn note(bytes: i64, allocation: bool) {
    if allocation {
        TOTAL.fetch_add(1, Ordering::Relaxed);
    }
    // `try_with`: the allocator runs during thread teardown too.
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            if allocation {
                let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
            }
            let _ = LIVE.try_with(|live| live.set(live.get() + bytes));
        }
    });
}

#[expect(unsafe_code, reason = "a global allocator is an unsafe trait; this one only counts and forwards")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as i64, true);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as i64), false);
        // SAFETY: `ptr` came from `alloc`, i.e. from the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as i64 - layout.size() as i64, true);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations and reallocations in the whole process since it started.
#[must_use]
pub fn allocations() -> u64 {
    TOTAL.load(Ordering::Relaxed)
}

/// Runs `f`, returning its result, the allocations it made on this thread and the net
/// bytes it left live on this thread.
pub fn counted<R>(f: impl FnOnce() -> R) -> (R, u64, i64) {
    ALLOCATIONS.with(|count| count.set(0));
    LIVE.with(|live| live.set(0));
    COUNTING.with(|counting| counting.set(true));
    let result = f();
    COUNTING.with(|counting| counting.set(false));
    (result, ALLOCATIONS.with(Cell::get), LIVE.with(Cell::get))
}
