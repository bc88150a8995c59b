//! The first Z3 layer of the concolic chain: one solver holding the path condition. With
//! incrementality on (Section 4.4 of the paper) the path is kept as a stack, one `push` per
//! constraint, so that a depth-first exploration negating the last open constraint only pops
//! and pushes the suffix that changed; each check is bounded by Z3's resource count
//! ([`INCREMENTAL_RLIMIT`]) and a query it gives up on is passed on to the fresh solver
//! ([`super::z3_fresh`]). With incrementality off, every query is asserted anew on the reset
//! solver and its answer is final. The globals (input domains, assertions) sit below the
//! stack; the solver is created on the first query that reaches it and renewed every
//! [`SOLVER_RENEWAL`] queries.

use super::model::{Origin, Z3Model};
use super::query::{EncodeError, Layer, ModelSource, PathQuery};
use super::term::Term;
use super::z3_base::SharedZ3;
use crate::layer::{SolverLayer, Verdict};
use std::rc::Rc;
use std::time::{Duration, Instant};
use z3::{SatResult, Solver};

/// Z3's resource limit for one check of the incremental solver (about 0.15 s on this
/// machine; 99% of the path and rounding queries of the housing benchmarks take less than a
/// tenth of it). A path query beyond it goes to a fresh solver; a rounding query beyond it is
/// given up (a less round input, never a lost path). A resource count rather than a time, so
/// that the inputs chosen do not depend on the machine's load.
pub(crate) const INCREMENTAL_RLIMIT: u32 = 100_000;
/// Wall time after which a check of the incremental solver is interrupted all the same. Z3
/// (4.8.12) does not count resources everywhere: on the unconstrained housing benefits, one
/// path query in some runs of 400,000 ran past its resource limit until the query's whole
/// budget (60 s) was spent, and the query was reported unknown without the fresh solver ever
/// seeing it. With this cap it goes to the fresh solver (same assertions, same answer) after
/// at most this long; a rounding query is given up. Thirteen times a check at the resource
/// limit, so that only such runaway checks meet it, even on a loaded machine.
pub(crate) const INCREMENTAL_TIME_CAP: Duration = Duration::from_secs(2);
/// Path queries between two renewals of the incremental solver.
const SOLVER_RENEWAL: u64 = 50_000;

/// The solver holding the path condition.
pub(crate) struct Z3Incremental {
    /// Created on the first query this layer has to answer, with the globals asserted.
    solver: Option<Rc<Solver<'static>>>,
    /// Constraints currently asserted above the globals, one push level each.
    stack: Vec<Term>,
    /// Globals asserted below the stack.
    globals: usize,
    incremental: bool,
    /// Path queries this layer was asked.
    pub(crate) asked: u64,
    base: SharedZ3,
}

impl Z3Incremental {
    pub(crate) fn new(base: SharedZ3, incremental: bool) -> Z3Incremental {
        Z3Incremental {
            solver: None,
            stack: Vec::new(),
            globals: 0,
            incremental,
            asked: 0,
            base,
        }
    }

    /// The solver, if created.
    #[cfg(test)]
    pub(crate) fn current(&self) -> Option<&Solver<'static>> {
        self.solver.as_deref()
    }

    /// The solver, created on first use.
    ///
    /// `arith.nl.delay` is 0: Z3 (4.8) tries its complete nonlinear procedure (nlsat, bounded)
    /// on a final check that linearization leaves open only after a number of such checks, 500
    /// by default, counted across the solver's checks. A new solver therefore searches the
    /// money formulas' products with lemmas alone for its first hundreds of queries, and a
    /// long-lived one does not: that was the warm-up that made 32 shard processes of the
    /// restricted housing benefits cost 30 % more CPU than one process (56.2 s against 43.3 s;
    /// 48.5 s with the delay at 0, the single process unchanged at 43.0 s).
    fn solver(&mut self) -> Rc<Solver<'static>> {
        if let Some(s) = &self.solver {
            return Rc::clone(s);
        }
        let mut base = self.base.borrow_mut();
        let rlimit = self.incremental.then_some(INCREMENTAL_RLIMIT);
        let solver = Rc::new(base.new_solver(rlimit, self.incremental));
        self.globals = 0;
        self.stack.clear();
        self.solver = Some(Rc::clone(&solver));
        solver
    }

    fn pop_to(&mut self, len: usize) {
        if self.stack.len() > len {
            let n = self.stack.len() - len;
            if let Some(solver) = &self.solver {
                solver.pop(n as u32);
            }
            self.stack.truncate(len);
        }
    }

    /// Asserts `terms` on `solver` at the current level.
    fn assert_all(&self, solver: &Solver<'static>, terms: &[&Term]) -> Result<(), EncodeError> {
        let mut base = self.base.borrow_mut();
        for b in base.encoder.assertions(terms)? {
            solver.assert(&b);
        }
        Ok(())
    }

    /// Puts the globals and the path of `q` on the solver.
    fn load(&mut self, q: &PathQuery<'_>) -> Result<Rc<Solver<'static>>, EncodeError> {
        if self.incremental && q.asked % SOLVER_RENEWAL == SOLVER_RENEWAL - 1 {
            // Z3's incremental solver keeps state across push/pop that grows with the number
            // of queries: a new one holds the globals only.
            self.solver = None;
        }
        let solver = self.solver();
        let globals = q.globals();
        if !self.incremental {
            solver.reset();
            self.stack.clear();
            self.assert_all(&solver, q.terms)?;
            self.globals = 0;
            return Ok(solver);
        }
        if globals.len() > self.globals {
            self.pop_to(0);
            self.assert_all(&solver, &globals[self.globals..])?;
            self.globals = globals.len();
        }
        // Terms are hash-consed: the constraints the new path shares with the stack are the
        // same nodes.
        let common = self
            .stack
            .iter()
            .zip(q.path)
            .take_while(|(a, b)| Rc::ptr_eq(a, b))
            .count();
        self.pop_to(common);
        for t in &q.path[common..] {
            let bs = self.base.borrow_mut().encoder.assertion(t)?;
            solver.push();
            for b in &bs {
                solver.assert(b);
            }
            self.stack.push(t.clone());
        }
        Ok(solver)
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for Z3Incremental {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        q.answer_from(Layer::Z3);
        let solver = self.load(q)?;
        self.asked += 1;
        let mut base = self.base.borrow_mut();
        if base.out_of_time(&q.budget) {
            return Ok(Some(Verdict::Unknown));
        }
        base.ensure_watchdog();
        let start = Instant::now();
        let limit = q.budget.limit(base.timeout);
        let limit = if self.incremental {
            Some(limit.map_or(INCREMENTAL_TIME_CAP, |l| l.min(INCREMENTAL_TIME_CAP)))
        } else {
            limit
        };
        let r = {
            let _watch = base.watch_for(limit);
            solver.check()
        };
        base.solver_time += start.elapsed();
        Ok(match r {
            SatResult::Sat => match solver.get_model() {
                Some(model) => {
                    let handle = base.encoder.handle().clone();
                    let origin = Origin::Solver(Rc::clone(&solver));
                    Some(Verdict::Sat(ModelSource::Z3(Z3Model::new(
                        model, origin, handle,
                    ))))
                }
                None => Some(Verdict::Unknown),
            },
            SatResult::Unsat => Some(Verdict::Unsat),
            SatResult::Unknown => {
                base.reason_unknown = solver.get_reason_unknown().unwrap_or_default();
                if self.incremental && !base.out_of_time(&q.budget) {
                    // The fresh solver may succeed where this one gave up.
                    None
                } else {
                    Some(Verdict::Unknown)
                }
            }
        })
    }
}
