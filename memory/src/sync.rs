//! The crate's lowest-level primitives: a spin lock and an atomic clock slot. One of the
//! crate's two files with `unsafe` code (the other is `hooks.rs`). It imports nothing of
//! the crate, so every other module can build on it.

use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The one lock of the detail state. It spins because wasm32 may have no threads to park
/// (and `std::sync::Mutex` may allocate lazily on some targets, inside an allocation hook).
pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reachable only through a guard, and `locked` admits one guard at a
// time, so sharing the lock shares `T` between threads exactly like a mutex does.
#[expect(unsafe_code, reason = "a mutex is Sync when its value is Send")]
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> core::fmt::Debug for SpinLock<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SpinLock")
    }
}

impl<T> SpinLock<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self { locked: AtomicBool::new(false), value: UnsafeCell::new(value) }
    }

    pub(crate) fn lock(&self) -> SpinGuard<'_, T> {
        let mut spins = 0u32;
        while self.locked.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            core::hint::spin_loop();
            spins = spins.wrapping_add(1);
            // Natively a descheduled holder needs the CPU back; yielding does not allocate.
            #[cfg(not(target_arch = "wasm32"))]
            if spins.is_multiple_of(64) {
                std::thread::yield_now();
            }
        }
        SpinGuard { lock: self }
    }
}

pub(crate) struct SpinGuard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;

    #[expect(unsafe_code, reason = "the guard proves exclusive access")]
    fn deref(&self) -> &T {
        // SAFETY: this guard holds `locked`, so no other reference to the value exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    #[expect(unsafe_code, reason = "the guard proves exclusive access")]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds `locked`, so no other reference to the value exists.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for SpinGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}

/// The capture's clock, read by hooks outside the detail lock (a callback never runs under
/// it: it could allocate and re-enter), so it cannot live in the locked state.
pub(crate) struct AtomicClock(AtomicPtr<()>);

impl core::fmt::Debug for AtomicClock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AtomicClock")
    }
}

impl AtomicClock {
    pub(crate) const fn new() -> Self {
        Self(AtomicPtr::new(ptr::null_mut()))
    }

    pub(crate) fn set(&self, clock: Option<fn() -> u64>) {
        self.0.store(clock.map_or(ptr::null_mut(), |f| f as *mut ()), Ordering::Release);
    }

    #[expect(unsafe_code, reason = "a function pointer round-trips through AtomicPtr")]
    pub(crate) fn now(&self) -> u64 {
        let raw = self.0.load(Ordering::Acquire);
        if raw.is_null() {
            return 0;
        }
        // SAFETY: the only non-null value ever stored is a `fn() -> u64` cast in `set`.
        let clock = unsafe { core::mem::transmute::<*mut (), fn() -> u64>(raw) };
        clock()
    }
}
