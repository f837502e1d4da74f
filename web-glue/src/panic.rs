//! Panics: logged to the console, then shown by the page, and afterwards no listener runs,
//! since the state a panic leaves behind cannot be trusted.

use std::panic::PanicHookInfo;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// The hook is process-wide, so the flag it sets is too.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Installs the hook; later calls do nothing.
///
/// After chaining to the console hook and marking the panic, it calls `show`, which puts
/// the panic in the page: otherwise the page would sit in its last state, and a test
/// could only time out. [`happened`] is already true when `show` runs.
pub fn install(show: impl Fn(&PanicHookInfo<'_>) + Send + Sync + 'static) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(move |info| {
            console_error_panic_hook::hook(info);
            PANICKED.store(true, Ordering::Relaxed);
            show(info);
        }));
    });
}

/// Whether the page has panicked; callbacks that are not listeners check this first.
pub fn happened() -> bool {
    PANICKED.load(Ordering::Relaxed)
}
