//! The second Z3 layer of the concolic chain: the query the incremental solver gave up on
//! (within its resource limit), in a fresh solver. A solver that has never been pushed
//! simplifies the whole problem first (constants propagated, equalities solved), which the
//! incremental one does not, and the money formulas' roundings are then often solved in
//! milliseconds where the incremental solver searches for seconds. The same assertions, so
//! the same answer; the rounding queries of its model use fresh solvers too.
//!
//! When the query has a count with few values left ([`case_split::split_variable`]), the fresh
//! solver has [`SPLIT_AFTER`] at most, and if it gives up the query is split into one query
//! per value. Every check, the fresh one and each case, runs within what is left of the
//! query's budget: a query whose budget runs out answers unknown, whatever the cases left.

use super::case_split;
use super::model::{Origin, Z3Model};
use super::query::{EncodeError, Layer, ModelSource, PathQuery};
use super::term::VarId;
use super::z3_base::SharedZ3;
use crate::layer::{SolverLayer, Verdict};
use std::rc::Rc;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Int};
use z3::{SatResult, Solver};

/// How long the fresh solver searches before a query with a count to split on is split.
const SPLIT_AFTER: Duration = Duration::from_secs(10);

/// A fresh solver that found a model, with the assertions it holds.
type Solved = (Solver<'static>, Vec<Bool<'static>>);

/// The fresh-solver layer.
pub struct Z3Fresh {
    /// Queries this layer was asked.
    pub(crate) asked: u64,
    /// Queries split into cases.
    pub(crate) split: u64,
    /// Cases checked, over every split.
    pub(crate) cases: u64,
    base: SharedZ3,
}

impl Z3Fresh {
    pub(crate) fn new(base: SharedZ3) -> Z3Fresh {
        Z3Fresh {
            asked: 0,
            split: 0,
            cases: 0,
            base,
        }
    }

    /// One check of `solver` within `limit` and the query's budget.
    fn check(&self, solver: &Solver<'static>, limit: Option<Duration>, q: &PathQuery<'_>) -> SatResult {
        let base = self.base.borrow();
        if base.out_of_time(&q.budget) {
            return SatResult::Unknown;
        }
        let _watch = base.watch_for(q.budget.limit(limit));
        solver.check()
    }

    /// A new solver holding `assertions` and `extra`, checked within `limit`.
    fn solver_with(
        &self,
        assertions: &[Bool<'static>],
        extra: &[Bool<'static>],
        limit: Option<Duration>,
    ) -> Solver<'static> {
        let solver = self.base.borrow_mut().new_solver(limit, None, false);
        for b in assertions.iter().chain(extra) {
            solver.assert(b);
        }
        solver
    }

    /// The query `assertions` split on the values of `v`: satisfiable with the first value
    /// that is (the solver and its assertions returned), unsatisfiable when every value is,
    /// unknown otherwise (and as soon as the budget or the stop ends the split).
    pub(crate) fn check_cases(
        &mut self,
        assertions: &[Bool<'static>],
        v: VarId,
        values: &[i128],
        q: &PathQuery<'_>,
    ) -> (SatResult, Option<Solved>) {
        let (x, timeout) = {
            let base = self.base.borrow();
            (base.encoder.int_var(v), base.timeout)
        };
        let ctx = self.base.borrow().encoder.ctx();
        let mut unknown = false;
        for value in values {
            if self.base.borrow().out_of_time(&q.budget) {
                return (SatResult::Unknown, None);
            }
            let Some(k) = Int::from_str(ctx, &value.to_string()) else {
                unknown = true;
                continue;
            };
            let case = [x._eq(&k)];
            let solver = self.solver_with(assertions, &case, timeout);
            self.cases += 1;
            match self.check(&solver, timeout, q) {
                SatResult::Sat => {
                    let held = assertions.iter().chain(&case).cloned().collect();
                    return (SatResult::Sat, Some((solver, held)));
                }
                SatResult::Unsat => {}
                SatResult::Unknown => {
                    if !unknown {
                        self.base.borrow_mut().reason_unknown =
                            solver.get_reason_unknown().unwrap_or_default();
                    }
                    unknown = true;
                }
            }
        }
        let r = if unknown {
            SatResult::Unknown
        } else {
            SatResult::Unsat
        };
        (r, None)
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for Z3Fresh {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        q.answer_from(Layer::Z3Fresh);
        let start = Instant::now();
        let Ok(assertions) = self.base.borrow_mut().encoder.assertions(q.terms) else {
            return Ok(Some(Verdict::Unknown));
        };
        let split = case_split::split_variable(q.terms);
        let timeout = self.base.borrow().timeout;
        let first_limit = match (&split, timeout) {
            (Some(_), Some(t)) => Some(t.min(SPLIT_AFTER)),
            (Some(_), None) => Some(SPLIT_AFTER),
            (None, t) => t,
        };
        self.asked += 1;
        let fresh = self.solver_with(&assertions, &[], first_limit);
        let first = self.check(&fresh, first_limit, q);
        let out_of_time = self.base.borrow().out_of_time(&q.budget);
        let (r, solved) = match (first, split) {
            (SatResult::Sat, _) => (SatResult::Sat, Some((fresh, assertions))),
            (SatResult::Unknown, _) if out_of_time => (SatResult::Unknown, None),
            (SatResult::Unknown, Some((v, values))) => {
                q.answer_from(Layer::Z3Split);
                self.split += 1;
                self.check_cases(&assertions, v, &values, q)
            }
            (SatResult::Unknown, None) => {
                self.base.borrow_mut().reason_unknown =
                    fresh.get_reason_unknown().unwrap_or_default();
                (SatResult::Unknown, None)
            }
            (SatResult::Unsat, _) => (SatResult::Unsat, None),
        };
        let mut base = self.base.borrow_mut();
        base.solver_time += start.elapsed();
        Ok(Some(match (r, solved) {
            (SatResult::Sat, Some((solver, held))) => match solver.get_model() {
                Some(model) => {
                    let origin = Origin::Fresh(Rc::from(held));
                    let handle = base.encoder.handle().clone();
                    Verdict::Sat(ModelSource::Z3(Z3Model::new(model, origin, handle)))
                }
                None => Verdict::Unknown,
            },
            (SatResult::Unsat, _) => Verdict::Unsat,
            _ => Verdict::Unknown,
        }))
    }
}
