//! How lexprobe keeps Z3 contexts: one per thread, created on first use and shared by every
//! solver of that thread (concolic sessions, the derivative-guided engine's solver), never one
//! per solver. Creating a context costs about 10 ms and 8 MB, so the explorations of a thread
//! (e.g. the mutants of a campaign) reuse it. Each solver holds a [`ContextHandle`], a counted
//! reference to its context, as its last field: the context is freed when the thread has ended
//! and the last solver built on it is gone, whatever the order, so nothing leaks and no Z3 term
//! outlives its context.
//!
//! The `z3` crate ties its terms to a `&'ctx Context`; the handle lends out `&'static` so that
//! a solver can own both the context reference and the terms built on it. That is sound
//! because Z3 objects never leave `smt` (its public types hold them privately, next to the
//! handle that keeps their context alive) and none of them is `Send`.

use std::ptr::NonNull;
use std::rc::Rc;
use z3::{Config, Context};

/// Owns one Z3 context and frees it when dropped.
struct OwnedContext(NonNull<Context>);

impl Drop for OwnedContext {
    fn drop(&mut self) {
        // SAFETY: the pointer comes from `Box::into_raw` in `OwnedContext::new` and is freed
        // only here, once, when the last handle is gone.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

impl OwnedContext {
    fn new() -> OwnedContext {
        let mut cfg = Config::new();
        cfg.set_model_generation(true);
        let boxed = Box::new(Context::new(&cfg));
        OwnedContext(NonNull::from(Box::leak(boxed)))
    }
}

/// A counted reference to a thread's Z3 context; the context lives while a handle does.
#[derive(Clone)]
pub(crate) struct ContextHandle(Rc<OwnedContext>);

impl ContextHandle {
    /// The context of the current thread (created on first use).
    pub(crate) fn of_thread() -> ContextHandle {
        THREAD_CONTEXT.with(|c| ContextHandle(Rc::clone(c)))
    }

    /// The context, for building terms that the holder of this handle owns.
    pub(crate) fn get(&self) -> &'static Context {
        // SAFETY: the context is freed only when the last handle is dropped (`OwnedContext`'s
        // drop); every holder declares the handle after the Z3 objects it builds, so those are
        // dropped first (see the module documentation).
        unsafe { &*self.0 .0.as_ptr() }
    }
}

thread_local! {
    static THREAD_CONTEXT: Rc<OwnedContext> = Rc::new(OwnedContext::new());
}

/// Number of live handles on this thread's context (the thread's own included), for tests.
#[cfg(test)]
pub(crate) fn handles_on_thread() -> usize {
    THREAD_CONTEXT.with(Rc::strong_count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solvers_of_a_thread_share_one_context_and_release_their_handles() {
        let run = std::thread::spawn(|| {
            let before = handles_on_thread();
            let a = ContextHandle::of_thread();
            let b = ContextHandle::of_thread();
            assert!(std::ptr::eq(a.get(), b.get()));
            assert_eq!(handles_on_thread(), before + 2);
            drop((a, b));
            assert_eq!(handles_on_thread(), before);
        })
        .join();
        assert!(run.is_ok());
    }
}
