//! A handle shared between a session and its stop future.
//!
//! Natively it is `Arc<Mutex<_>>`, so a session and its future are `Send`. On wasm32 the
//! state holds JS handles that are not `Send`, and there is one thread: `Rc<RefCell<_>>`.

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::sync::{Arc, Mutex, MutexGuard};

    #[derive(Debug)]
    pub(crate) struct Shared<T>(Arc<Mutex<T>>);

    impl<T> Clone for Shared<T> {
        fn clone(&self) -> Self {
            Self(Arc::clone(&self.0))
        }
    }

    impl<T> Shared<T> {
        pub(crate) fn new(value: T) -> Self {
            Self(Arc::new(Mutex::new(value)))
        }

        /// A panic while the lock was held leaves plain data behind; keep using it.
        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::{RefCell, RefMut};
    use std::rc::Rc;

    #[derive(Debug)]
    pub(crate) struct Shared<T>(Rc<RefCell<T>>);

    impl<T> Clone for Shared<T> {
        fn clone(&self) -> Self {
            Self(Rc::clone(&self.0))
        }
    }

    impl<T> Shared<T> {
        pub(crate) fn new(value: T) -> Self {
            Self(Rc::new(RefCell::new(value)))
        }

        pub(crate) fn lock(&self) -> RefMut<'_, T> {
            self.0.borrow_mut()
        }
    }
}

pub(crate) use imp::Shared;
