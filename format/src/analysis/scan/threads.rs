//! How a scan runs the parts of its work that do not depend on each other: one after
//! another on the calling thread (the library's own `scan`, and wasm), or side by side
//! on rayon's pool (`scan_parallel`). Chosen by type, so each way compiles to plain
//! loops or plain rayon calls.

/// A way to run independent parts.
pub(super) trait Threads {
    /// `each` of `items`, in order.
    fn map<T: Send, U: Send>(items: Vec<T>, each: impl Fn(T) -> U + Sync + Send) -> Vec<U>;

    /// `a` and `b`'s results.
    fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B);
}

/// One part after another, on the calling thread.
#[derive(Debug)]
pub(super) struct OneThread;

impl Threads for OneThread {
    fn map<T: Send, U: Send>(items: Vec<T>, each: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
        items.into_iter().map(each).collect()
    }

    fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        (a(), b())
    }
}

/// The parts on rayon's current pool.
#[cfg(feature = "parallel")]
#[derive(Debug)]
pub(super) struct Pool;

#[cfg(feature = "parallel")]
impl Threads for Pool {
    fn map<T: Send, U: Send>(items: Vec<T>, each: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
        use rayon::prelude::*;
        items.into_par_iter().map(each).collect()
    }

    fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        rayon::join(a, b)
    }
}
