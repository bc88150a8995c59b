//! The naive trace-based semantics (Fig. 5, Definition 4.7): a state carries the current context
//! R_curr; `admit R` conjoins it, `append R` concatenates. A finished path is falsified when
//! Φ ∧ (R_curr ∧ ¬R_post) is satisfiable, decided by mintermization: the literals of the
//! expression are split into a finite alphabet of satisfiable minterms, and a breadth-first
//! search over derivatives by minterms looks for an accepted trace whose events, renamed apart
//! per position, are consistent with Φ.

use crate::exec::{
    trace_constraint, EffectSemantics, ExecError, State, Step, Violation, ViolationKind,
};
use smt::{SatOutcome, Solver, Term};
use sre::{Deriver, Event, EventOracle, SmtOracle, Sre};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Instant;

/// The trace part of a naive state.
#[derive(Clone, Debug)]
pub(crate) struct NaiveEffects {
    pub curr: Sre,
    pub post: Option<Sre>,
    /// Number of `append`s of library effects on this path.
    pub appended: usize,
}

/// Settings of the naive semantics.
pub(crate) struct NaiveSemantics {
    pub deriver: Deriver,
    pub post: Sre,
    /// Longest prestate the emptiness check considers (added to the events appended on the path).
    pub max_context_len: usize,
    pub deadline: Instant,
}

/// Splits the event space along each literal, keeping satisfiable minterms.
pub(crate) fn minterms(oracle: &mut dyn EventOracle, literals: &[Event]) -> Vec<Event> {
    let mut out = vec![Event::top()];
    for l in literals {
        let mut next = Vec::new();
        for m in &out {
            for part in [m.and(l), m.and(&l.negate())] {
                if !part.is_bottom() && oracle.satisfiable(&part) && !next.contains(&part) {
                    next.push(part);
                }
            }
        }
        out = next;
    }
    out
}

impl NaiveSemantics {
    /// Looks for a trace of `r` consistent with Φ; gives it when found.
    fn nonempty(
        &mut self,
        solver: &mut Solver,
        phi: &[Term],
        r: &Sre,
        max_len: usize,
    ) -> Result<Option<Vec<Event>>, ExecError> {
        let mut lits = Vec::new();
        r.literals(&mut lits);
        lits.sort();
        lits.dedup();
        let alphabet = {
            let mut oracle = SmtOracle::new(solver);
            minterms(&mut oracle, &lits)
        };
        let mut frontier: Vec<(Sre, Vec<Event>)> = vec![(r.clone(), Vec::new())];
        for _ in 0..=max_len {
            let mut next = Vec::new();
            for (d, trace) in frontier {
                if Instant::now() > self.deadline {
                    return Ok(None);
                }
                if d.nullable() {
                    let mut all = phi.to_vec();
                    all.extend(trace_constraint(&trace));
                    if solver.check(&all)? != SatOutcome::Unsat {
                        return Ok(Some(trace));
                    }
                }
                if d.is_empty() {
                    continue;
                }
                for m in &alphabet {
                    let d2 = {
                        let mut oracle = SmtOracle::new(solver);
                        self.deriver.derivative(&mut oracle, m, &d)
                    };
                    let Some(d2) = d2 else { continue };
                    if d2.is_empty() {
                        continue;
                    }
                    let mut t2 = trace.clone();
                    t2.push(m.clone());
                    let mut all = phi.to_vec();
                    all.extend(trace_constraint(&t2));
                    if solver.check(&all)? == SatOutcome::Unsat {
                        continue;
                    }
                    next.push((d2, t2));
                }
            }
            frontier = next;
            if frontier.is_empty() {
                break;
            }
        }
        Ok(None)
    }
}

impl EffectSemantics for NaiveSemantics {
    type Effects = NaiveEffects;

    fn constraints(&self, _effects: &NaiveEffects) -> Vec<Term> {
        Vec::new()
    }

    fn admit(
        &mut self,
        _solver: &mut Solver,
        mut st: State<NaiveEffects>,
        r: Sre,
    ) -> Result<Step<NaiveEffects>, ExecError> {
        st.effects.curr = Sre::and([st.effects.curr.clone(), r]);
        Ok(Step::Continue(vec![st]))
    }

    fn append(
        &mut self,
        _solver: &mut Solver,
        mut st: State<NaiveEffects>,
        r: Sre,
        context: Option<&BTreeMap<Rc<str>, Term>>,
    ) -> Result<Step<NaiveEffects>, ExecError> {
        if let Some(subst) = context {
            st.effects.post = Some(self.post.subst(subst));
        } else {
            st.effects.appended += 1;
        }
        st.effects.curr = Sre::concat(st.effects.curr.clone(), r);
        Ok(Step::Continue(vec![st]))
    }

    fn finish(
        &mut self,
        solver: &mut Solver,
        st: &State<NaiveEffects>,
        result: &Term,
    ) -> Result<Option<Violation>, ExecError> {
        let post = st.effects.post.clone().unwrap_or_else(Sre::all);
        let bad = Sre::and([st.effects.curr.clone(), Sre::complement(post)]);
        let mut phi = st.phi.to_vec();
        let max_len = self.max_context_len + st.effects.appended;
        let mut found = self.nonempty(solver, &phi, &bad, max_len)?;
        let mut kind = ViolationKind::Terminated;
        if found.is_none() && !result.is_true() {
            phi.push(Term::negation(result.clone()));
            found = self.nonempty(solver, &phi, &st.effects.curr, max_len)?;
            kind = ViolationKind::Result;
        }
        let Some(trace) = found else { return Ok(None) };
        let mut all = phi.clone();
        all.extend(trace_constraint(&trace));
        let (_, model) = solver.check_with_model(&all)?;
        Ok(Some(Violation {
            kind,
            phi,
            trace,
            context: Some(st.effects.curr.clone()),
            cont: None,
            model: model.unwrap_or_default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::Sort;

    #[test]
    fn minterms_partition_the_events_of_the_literals() {
        let k = || Term::var("#0", Sort::Int);
        let put1 = Event::atom("put", Term::eq(k(), Term::Int(1)));
        let put_any = Event::atom("put", Term::tt());
        let mut solver = Solver::new(2000);
        let mut oracle = SmtOracle::new(&mut solver);
        let ms = minterms(&mut oracle, &[put1.clone(), put_any.clone()]);
        // put with key 1, put with another key, and every other call
        assert_eq!(ms.len(), 3, "{ms:?}");
        for (i, a) in ms.iter().enumerate() {
            for b in &ms[i + 1..] {
                assert!(!oracle.satisfiable(&a.and(b)), "{a} and {b} overlap");
            }
        }
        let union = ms.iter().fold(Event::bottom(), |acc, m| acc.or(m));
        assert!(
            !oracle.satisfiable(&union.negate()),
            "the minterms cover every event"
        );
    }
}
