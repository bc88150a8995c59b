//! Ctrl-C during a long run: the first one raises a flag the run watches (a concolic
//! exploration then interrupts its solver check, writes its checkpoint and closing line, and
//! ends as at a limit); a second one ends the process at once, as the default would.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    // Only atomic operations and `signal` here: both are safe in a signal handler.
    if let Some(f) = FLAG.get() {
        f.store(true, Ordering::SeqCst);
    }
    // SAFETY: restoring the default disposition of SIGINT is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// The flag raised by the first Ctrl-C from now on.
pub(crate) fn on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))));
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and resets the disposition.
    unsafe {
        let handler: extern "C" fn(libc::c_int) = on_sigint;
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
    flag
}
