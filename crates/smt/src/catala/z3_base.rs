//! What the Z3 layers of one chain (the first solver, the fresh solver, the SMT-LIB dump) and
//! its model refiner share: the [`Encoder`] (with the thread's context), the per-check time
//! limit and the [`Stop`] of the exploration, the watchdog that enforces both, and the time
//! spent in Z3. One [`SharedZ3`] per chain, behind a counted cell: the layers are separate
//! types, but they encode into one context and one term cache.
//!
//! Every Z3 check is timed by the watchdog, with the smaller of its own limit and what is
//! left of its query's [`Budget`]; Z3's own timer is never used (see [`crate::watchdog`]).

use super::encoder::Encoder;
use super::query::Budget;
use crate::watchdog::{Watch, Watchdog};
use crate::Stop;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use z3::{Params, Solver};

/// The state shared by the Z3 layers of a chain.
pub(crate) type SharedZ3 = Rc<RefCell<Z3Base>>;

pub(crate) struct Z3Base {
    /// The limit of one check (and of one whole query, see [`Budget`]).
    pub(crate) timeout: Option<Duration>,
    /// When every check must end (the exploration's deadline, Ctrl-C).
    pub(crate) stop: Stop,
    /// Time spent in Z3 checks of path queries.
    pub(crate) solver_time: Duration,
    /// Why Z3 gave up on the last query it gave up on.
    pub(crate) reason_unknown: String,
    /// Created with the first solver; declared before the
    /// encoder, whose context its thread interrupts.
    watchdog: Option<Watchdog>,
    pub(crate) encoder: Encoder,
}

impl Z3Base {
    pub(crate) fn shared(timeout: Option<Duration>, stop: Stop) -> SharedZ3 {
        Rc::new(RefCell::new(Z3Base {
            timeout,
            stop,
            solver_time: Duration::ZERO,
            reason_unknown: String::new(),
            watchdog: None,
            encoder: Encoder::new(),
        }))
    }

    /// Starts the watchdog if it is not running (even without a limit or a stop: the
    /// incremental solver's checks have a time cap of their own, see
    /// [`super::z3_incremental::INCREMENTAL_TIME_CAP`]).
    pub(crate) fn ensure_watchdog(&mut self) {
        if self.watchdog.is_none() {
            let ctx = self.encoder.ctx();
            self.watchdog = Some(Watchdog::new(ctx, self.timeout, self.stop.clone()));
        }
    }

    /// Puts a check under the watchdog with the limit `limit` (nothing before the first
    /// solver is made, when there is no check to watch).
    pub(crate) fn watch_for(&self, limit: Option<Duration>) -> Option<Watch<'_>> {
        self.watchdog.as_ref().map(|w| w.watch_for(limit))
    }

    /// Whether a query with `budget` must end now: the stop is reached or nothing is left.
    pub(crate) fn out_of_time(&self, budget: &Budget) -> bool {
        self.stop.reached() || budget.exhausted()
    }

    /// A new solver, with the watchdog started to time its checks, and, when given, a
    /// resource limit and the tuning of a long-lived solver (`arith.nl.delay` 0, see
    /// [`super::z3_incremental`]).
    pub(crate) fn new_solver(&mut self, rlimit: Option<u32>, long_lived: bool) -> Solver<'static> {
        self.ensure_watchdog();
        let ctx = self.encoder.ctx();
        let solver = Solver::new(ctx);
        let mut params = Params::new(ctx);
        // Z3 would otherwise install its own SIGINT handler around each check and restore the
        // previous one after it: with checks in several threads, a handler saved by one
        // thread while another's check ran is restored last, and Ctrl-C then reaches a
        // finished check instead of the exploration's flag (the watchdog interrupts checks).
        params.set_bool("ctrl_c", false);
        if let Some(r) = rlimit {
            params.set_u32("rlimit", r);
        }
        if long_lived {
            params.set_u32("arith.nl.delay", 0);
        }
        solver.set_params(&params);
        solver
    }
}

/// Milliseconds of a limit, for the command line's `u32` settings.
pub(crate) fn millis(t: Option<u32>) -> Option<Duration> {
    t.map(|ms| Duration::from_millis(u64::from(ms)))
}
