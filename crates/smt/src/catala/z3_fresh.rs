//! The second Z3 layer of the concolic chain: the query the incremental solver gave up on
//! (within its resource limit), in a fresh solver. A solver that has never been pushed
//! simplifies the whole problem first (constants propagated, equalities solved), which the
//! incremental one does not, and the money formulas' roundings are then often solved in
//! milliseconds where the incremental solver searches for seconds. The same assertions, so
//! the same answer; the rounding queries of its model use fresh solvers too.
//!
//! When the query has a count with few values left ([`case_split::split_variable`]), the fresh
//! solver has [`SPLIT_AFTER_RLIMIT`] of Z3's resources ([`SPLIT_AFTER`] at most), and if it
//! gives up the query is split into one query per value. Every check, the fresh one and each case, runs within what is left of the
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

/// Z3's resource limit for the fresh solver's check of a query with a count to split on,
/// after which the query is split (ten times the incremental solver's limit, about 1.5 s on
/// this machine). A resource count rather than a time, so that when a query is split does
/// not depend on the machine's load.
const SPLIT_AFTER_RLIMIT: u32 = 1_000_000;
/// Wall time after which that check is interrupted all the same (Z3 does not count resources
/// everywhere; see [`super::z3_incremental::INCREMENTAL_TIME_CAP`]).
const SPLIT_AFTER: Duration = Duration::from_secs(10);

/// A fresh solver that found a model, with the assertions it holds.
type Solved = (Solver<'static>, Vec<Bool<'static>>);

/// The fresh-solver layer.
pub(crate) struct Z3Fresh {
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
    fn check(
        &self,
        solver: &Solver<'static>,
        limit: Option<Duration>,
        q: &PathQuery<'_>,
    ) -> SatResult {
        let base = self.base.borrow();
        if base.out_of_time(&q.budget) {
            return SatResult::Unknown;
        }
        let _watch = base.watch_for(q.budget.limit(limit));
        solver.check()
    }

    /// A new solver holding `assertions` and `extra` (its checks are timed by [`Self::check`]).
    fn solver_with(
        &self,
        assertions: &[Bool<'static>],
        extra: &[Bool<'static>],
        rlimit: Option<u32>,
    ) -> Solver<'static> {
        let solver = self.base.borrow_mut().new_solver(rlimit, false);
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
            let solver = self.solver_with(assertions, &case, None);
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
        let rlimit = split.as_ref().map(|_| SPLIT_AFTER_RLIMIT);
        let fresh = self.solver_with(&assertions, &[], rlimit);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::query::Budget;
    use crate::catala::term::{app, int_const, var, Kind, Op, Term};
    use crate::catala::z3_base::Z3Base;
    use crate::Stop;

    fn int(v: u32) -> Term {
        var(VarId(v), Kind::Int)
    }

    fn layer(timeout: Option<Duration>) -> Z3Fresh {
        Z3Fresh::new(Z3Base::shared(timeout, Stop::default()))
    }

    #[test]
    fn a_fresh_solver_decides_and_names_itself() {
        // x · y = 391 = 17 · 23 with x, y > 1 has models; x · y = 389 (a prime) has none.
        let above_one = |v: u32| app(Op::Gt, vec![int(v), int_const("1")]);
        for (n, sat) in [("391", true), ("389", false)] {
            let mut fresh = layer(None);
            let product = app(
                Op::Eq,
                vec![app(Op::Mul, vec![int(0), int(1)]), int_const(n)],
            );
            let path = [above_one(0), above_one(1), product];
            let terms: Vec<&Term> = path.iter().collect();
            let q = PathQuery::new(&terms, &path, 0, Budget::unbounded());
            let verdict = fresh.decide(&q).ok().flatten();
            assert_eq!(q.answered_by(), Some(Layer::Z3Fresh));
            match verdict {
                Some(Verdict::Sat(ModelSource::Z3(m))) if sat => {
                    let (a, b) = (m.int(VarId(0)), m.int(VarId(1)));
                    assert_eq!(a.zip(b).map(|(a, b)| a * b), Some(391));
                }
                Some(Verdict::Unsat) if !sat => {}
                _ => panic!("wrong answer for {n}"),
            }
            assert_eq!((fresh.asked, fresh.split), (1, 0));
        }
    }

    #[test]
    fn a_split_query_is_satisfiable_with_one_case_and_unsatisfiable_with_none() {
        // n ∈ {1, 2, 3}: n · x = 6 with x > 2 holds for n = 1 (x = 6) and n = 2 (x = 3), the
        // first case found is n = 1; n · x = 7 with 1 < x < 7 holds for no n.
        let mut fresh = layer(Some(Duration::from_secs(5)));
        let (n, x, k, ctx) = {
            let base = fresh.base.borrow();
            let ctx = base.encoder.ctx();
            (
                base.encoder.int_var(VarId(0)),
                base.encoder.int_var(VarId(1)),
                move |i: i64| Int::from_i64(ctx, i),
                ctx,
            )
        };
        let domain = vec![n.ge(&k(1)), n.le(&k(3))];
        let times = |c: i64| Int::mul(ctx, &[&n, &x])._eq(&k(c));
        let mut six = domain.clone();
        six.extend([times(6), x.gt(&k(2))]);
        let q = PathQuery::new(&[], &[], 0, Budget::unbounded());
        let (r, solved) = fresh.check_cases(&six, VarId(0), &[1, 2, 3], &q);
        assert_eq!(r, SatResult::Sat);
        let Some((solver, held)) = solved else {
            panic!("no model")
        };
        assert_eq!(held.len(), six.len() + 1);
        let model = solver.get_model().unwrap_or_else(|| panic!("no model"));
        assert_eq!(model.eval(&n, true).and_then(|v| v.as_i64()), Some(1));
        assert_eq!(model.eval(&x, true).and_then(|v| v.as_i64()), Some(6));
        assert_eq!(fresh.cases, 1);
        let mut seven = domain;
        seven.extend([times(7), x.gt(&k(1)), x.lt(&k(7))]);
        let (r, solved) = fresh.check_cases(&seven, VarId(0), &[1, 2, 3], &q);
        assert_eq!(r, SatResult::Unsat);
        assert!(solved.is_none());
        assert_eq!(fresh.cases, 4);
    }

    /// x³ = 2y³ + 4z³ over positives below 1,000 (unsatisfiable, which Z3 searches for far
    /// longer than these tests) and a count 1 ≤ n ≤ 32 to split on.
    fn hard_with_a_count() -> Vec<Term> {
        let mut path = crate::catala::session::tests::cubes();
        path.push(app(Op::Ge, vec![int(3), int_const("1")]));
        path.push(app(Op::Le, vec![int(3), int_const("32")]));
        path
    }

    #[test]
    fn the_budget_bounds_the_fresh_solver_and_its_cases_together() {
        let path = hard_with_a_count();
        let terms: Vec<&Term> = path.iter().collect();
        assert_eq!(
            case_split::split_variable(&terms).map(|(v, values)| (v, values.len())),
            Some((VarId(3), 32))
        );
        // Each check may take a minute, but the query only 0.3 s: the fresh check ends at
        // the budget's end and none of the 32 cases (up to 32 minutes) is tried.
        let mut fresh = layer(Some(Duration::from_secs(60)));
        let q = PathQuery::new(
            &terms,
            &path,
            0,
            Budget::within(Some(Duration::from_millis(300))),
        );
        let verdict = fresh.decide(&q).ok().flatten();
        assert!(matches!(verdict, Some(Verdict::Unknown)));
        assert_eq!((fresh.asked, fresh.split, fresh.cases), (1, 0, 0));
        // A budget already spent: nothing is checked at all.
        let q = PathQuery::new(&terms, &path, 1, Budget::until(std::time::Instant::now()));
        assert!(matches!(
            fresh.decide(&q).ok().flatten(),
            Some(Verdict::Unknown)
        ));
        assert_eq!(fresh.cases, 0);
    }

    #[test]
    fn a_query_with_a_count_is_split_when_the_fresh_solver_reaches_its_resource_limit() {
        let path = hard_with_a_count();
        let terms: Vec<&Term> = path.iter().collect();
        // The query may take 9 s, each check a minute. The fresh check stops at its resource
        // limit (about 1.5 s on an idle machine) and the cases start; stopped by its time
        // cap instead (10 s), it would have met the end of the budget first and the query
        // would not have been split.
        let mut fresh = layer(Some(Duration::from_secs(60)));
        let q = PathQuery::new(
            &terms,
            &path,
            0,
            Budget::within(Some(Duration::from_secs(9))),
        );
        let verdict = fresh.decide(&q).ok().flatten();
        assert!(matches!(verdict, Some(Verdict::Unknown)));
        assert_eq!((fresh.asked, fresh.split), (1, 1));
        assert!(fresh.cases >= 1);
        assert_eq!(q.answered_by(), Some(Layer::Z3Split));
    }

    #[test]
    fn a_raised_stop_flag_ends_a_split_before_its_next_case() {
        let path = hard_with_a_count();
        let terms: Vec<&Term> = path.iter().collect();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = Stop {
            deadline: None,
            flag: Some(flag.clone()),
        };
        let mut fresh = Z3Fresh::new(Z3Base::shared(Some(Duration::from_millis(200)), stop));
        let assertions = fresh
            .base
            .borrow_mut()
            .encoder
            .assertions(&terms)
            .unwrap_or_default();
        let q = PathQuery::new(&terms, &path, 0, Budget::unbounded());
        // Two cases of 0.2 s each when nothing stops them.
        let (r, _) = fresh.check_cases(&assertions, VarId(3), &[1, 2], &q);
        assert_eq!((r, fresh.cases), (SatResult::Unknown, 2));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        let (r, _) = fresh.check_cases(&assertions, VarId(3), &[1, 2], &q);
        assert_eq!((r, fresh.cases), (SatResult::Unknown, 2));
    }
}
