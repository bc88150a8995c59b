//! A time limit for Z3 checks without Z3's own timer. Z3 4.8 runs each check given a `timeout`
//! with a timer thread: the check hands the deadline to that thread when it starts and waits
//! for it to stand down when it ends, two thread switches per check. An exploration makes tens
//! of thousands of checks of a few hundred microseconds, and on the restricted housing
//! benefits the handovers were 12 % of the CPU time. A [`Watchdog`] is one thread per solver
//! that wakes a few times per limit, looks at the check under watch (a start time behind a
//! mutex, set and cleared by the checking thread), and interrupts the context when that check
//! has run past the limit; a check costs two uncontended locks.
//!
//! A watchdog also ends a check in flight when the exploration must stop: at its deadline
//! (`--timeout`) or when a flag is raised (Ctrl-C), see [`Stop`]; a check is then interrupted
//! within one polling interval (at most 50 ms), whatever its own limit.
//!
//! The interrupt is issued under the same mutex the checking thread takes to clear the start,
//! so it never reaches a later check. It may reach the context in the instant after the check
//! returned and before the start is cleared; Z3 ignores an interrupt outside a check (the next
//! check runs normally, see the tests).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use z3::{Context, ContextHandle};

/// When every check must end, whatever its own limit: a deadline, and a flag another thread
/// may raise (e.g. on Ctrl-C). The default never stops.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    pub deadline: Option<Instant>,
    pub flag: Option<Arc<AtomicBool>>,
}

impl Stop {
    /// Whether the deadline has passed or the flag is raised.
    pub fn reached(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Interrupts the checks of one context that run longer than a limit, or past a [`Stop`].
pub(crate) struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    /// When the check under watch started and its own limit (`None`: no check under watch).
    started: Mutex<Option<(Instant, Option<Duration>)>>,
    stop: AtomicBool,
}

impl Shared {
    fn started(&self) -> MutexGuard<'_, Option<(Instant, Option<Duration>)>> {
        // A poisoned lock only means a thread panicked while holding it; the value (a time)
        // is still meaningful.
        self.started.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A check under watch: the watchdog stands down for it when this is dropped.
pub(crate) struct Watch<'a>(&'a Shared);

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        *self.0.started() = None;
    }
}

impl Watchdog {
    /// A watchdog interrupting `context`'s checks after `limit` when given (give or take a
    /// twentieth of it, at most 50 ms), and any check once `stop` is reached (within 50 ms).
    /// The context must outlive the watchdog: its owner declares the watchdog before the
    /// context handle, so the thread is joined first.
    pub(crate) fn new(context: &'static Context, limit: Option<Duration>, stop: Stop) -> Watchdog {
        let shared = Arc::new(Shared {
            started: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let handle: ContextHandle<'static> = context.handle();
        let poll = limit.map_or(Duration::from_millis(50), |l| {
            (l / 20).clamp(Duration::from_millis(1), Duration::from_millis(50))
        });
        let watched = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("z3-watchdog".into())
            .spawn(move || loop {
                std::thread::park_timeout(poll);
                if watched.stop.load(Ordering::Acquire) {
                    return;
                }
                let mut started = watched.started();
                let over = |(t, l): &(Instant, Option<Duration>)| {
                    l.is_some_and(|l| t.elapsed() >= l) || stop.reached()
                };
                if started.as_ref().is_some_and(over) {
                    handle.interrupt();
                    *started = None;
                }
            })
            .ok();
        Watchdog { shared, thread }
    }

    /// Puts the check about to start under watch until the returned guard is dropped, ending
    /// it after `limit` (`None`: only the stop ends it). When the thread could not be
    /// started, nothing watches (the check keeps its resource limit). A check timed this way
    /// must not also have Z3's own `timeout`: Z3 4.8 can deadlock when its timer and an
    /// interrupt end a check at the same moment.
    pub(crate) fn watch_for(&self, limit: Option<Duration>) -> Watch<'_> {
        *self.shared.started() = Some((Instant::now(), limit));
        Watch(&self.shared)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            // The thread only sleeps, reads and interrupts: it cannot have panicked in a way
            // that matters here, and the join only makes sure it is gone.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Ast, Int};
    use z3::{Config, SatResult, Solver};

    /// x³ = 2y³ + 4z³ over positive integers below 1,000: unsatisfiable (by descent), and
    /// a query Z3 4.8 searches for minutes without concluding.
    fn hard_query<'c>(ctx: &'c Context, s: &Solver<'c>) {
        let [x, y, z] = ["x", "y", "z"].map(|n| Int::new_const(ctx, n));
        let n = |k: i64| Int::from_i64(ctx, k);
        for v in [&x, &y, &z] {
            s.assert(&v.gt(&n(0)));
        }
        s.assert(&x.lt(&n(1000)));
        let cube = |a: &Int<'c>| -> Int<'c> { Int::mul(ctx, &[a, a, a]) };
        let rhs = Int::add(
            ctx,
            &[
                &Int::mul(ctx, &[&n(2), &cube(&y)]),
                &Int::mul(ctx, &[&n(4), &cube(&z)]),
            ],
        );
        s.assert(&cube(&x)._eq(&rhs));
    }

    #[test]
    fn a_check_past_the_limit_is_interrupted_and_the_next_one_runs() {
        let ctx: &'static Context = Box::leak(Box::new(Context::new(&Config::new())));
        let dog = Watchdog::new(ctx, Some(Duration::from_millis(300)), Stop::default());
        let s = Solver::new(ctx);
        s.push();
        hard_query(ctx, &s);
        let start = Instant::now();
        let r = {
            let _watch = dog.watch_for(Some(Duration::from_millis(300)));
            s.check()
        };
        // Unwatched, this check runs for minutes; watched, it ends soon after 0.3 s.
        assert_eq!(r, SatResult::Unknown);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
        s.pop(1);
        // The interrupt did not outlive its check.
        s.assert(&Int::new_const(ctx, "w").gt(&Int::from_i64(ctx, 3)));
        let _watch = dog.watch_for(Some(Duration::from_millis(300)));
        assert_eq!(s.check(), SatResult::Sat);
    }

    #[test]
    fn a_check_in_flight_is_interrupted_at_the_deadline_and_by_the_flag() {
        let ctx: &'static Context = Box::leak(Box::new(Context::new(&Config::new())));
        // A per-check limit far beyond the test: only the deadline can end the check.
        let start = Instant::now();
        let stop = Stop {
            deadline: Some(start + Duration::from_millis(300)),
            flag: None,
        };
        let dog = Watchdog::new(ctx, Some(Duration::from_secs(3600)), stop);
        let s = Solver::new(ctx);
        hard_query(ctx, &s);
        let r = {
            let _watch = dog.watch_for(Some(Duration::from_secs(3600)));
            s.check()
        };
        assert_eq!(r, SatResult::Unknown);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
        drop(dog);
        // The flag, raised by another thread while the check runs, with no limit at all.
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Stop {
            deadline: None,
            flag: Some(Arc::clone(&flag)),
        };
        let dog = Watchdog::new(ctx, None, stop);
        let raiser = {
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                flag.store(true, Ordering::Relaxed);
            })
        };
        let start = Instant::now();
        let r = {
            let _watch = dog.watch_for(None);
            s.check()
        };
        let _ = raiser.join();
        assert_eq!(r, SatResult::Unknown);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn an_interrupt_between_checks_is_ignored() {
        let ctx: &'static Context = Box::leak(Box::new(Context::new(&Config::new())));
        let s = Solver::new(ctx);
        s.assert(&Int::new_const(ctx, "w").gt(&Int::from_i64(ctx, 3)));
        ctx.handle().interrupt();
        assert_eq!(s.check(), SatResult::Sat);
    }
}
