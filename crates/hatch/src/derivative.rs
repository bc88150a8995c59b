//! The derivative-based semantics (Fig. 6): a state carries a symbolic trace Π and the
//! continuation effect R_cont. `admit R` (DAdmit) conjoins Π event by event with a trace of R of
//! the same length; `append R` (DAppend) samples traces Π_eff of R (prefix enumeration, at most
//! the append bound long), relates them to prefixes of R_cont compatible with them, preferring
//! those closest to a dead state (DistToDead with a cut-off), and moves R_cont to the derivative.
//! A syntactically empty R_cont on a reachable state is an early falsification; a returned state
//! whose R_cont is not nullable is a falsification (Theorem 5.16).

use crate::exec::{feasible, trace_constraint, EffectSemantics, ExecError, State, Step, Violation, ViolationKind};
use smt::{SatOutcome, Solver, Term};
use sre::{Deriver, Event, SmtOracle, Sre};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The trace part of a derivative-based state.
#[derive(Clone, Debug)]
pub struct DerivEffects {
    pub trace: Vec<Event>,
    pub cont: Sre,
}

/// Settings and memo tables of the derivative semantics.
pub struct DerivativeSemantics {
    pub deriver: Deriver,
    /// The property over the harness's program variables.
    pub post: Sre,
    /// `post` after the required context, when written `pre; rest`.
    pub post_after_pre: Option<Sre>,
    pub append_bound: usize,
    pub dead_cutoff: usize,
    pub match_limit: usize,
}

impl DerivativeSemantics {
    fn violation(
        &self,
        solver: &mut Solver,
        kind: ViolationKind,
        phi: &[Term],
        eff: &DerivEffects,
        extra: Option<Term>,
    ) -> Result<Option<Violation>, ExecError> {
        let mut all = phi.to_vec();
        all.extend(trace_constraint(&eff.trace));
        if let Some(x) = extra {
            all.push(x);
        }
        let (r, model) = solver.check_with_model(&all)?;
        if r != SatOutcome::Sat {
            return Ok(None);
        }
        Ok(Some(Violation {
            kind,
            phi: phi.to_vec(),
            trace: eff.trace.clone(),
            context: None,
            cont: Some(eff.cont.clone()),
            model: model.unwrap_or_default(),
        }))
    }
}

impl EffectSemantics for DerivativeSemantics {
    type Effects = DerivEffects;

    fn constraints(&self, effects: &DerivEffects) -> Vec<Term> {
        trace_constraint(&effects.trace)
    }

    fn admit(&mut self, solver: &mut Solver, st: State<DerivEffects>, r: Sre) -> Result<Step<DerivEffects>, ExecError> {
        let matches = {
            let mut oracle = SmtOracle::new(solver);
            self.deriver.match_trace(&mut oracle, &st.effects.trace, &r, true, false, 0, self.match_limit)
        };
        let mut out = Vec::new();
        for (trace, _) in matches {
            let mut s2 = st.clone();
            if trace != s2.effects.trace {
                s2.effects.trace = trace;
                if !feasible(self, solver, &s2)? {
                    continue;
                }
            }
            out.push(s2);
        }
        Ok(Step::Continue(out))
    }

    fn append(
        &mut self,
        solver: &mut Solver,
        st: State<DerivEffects>,
        r: Sre,
        context: Option<&BTreeMap<Rc<str>, Term>>,
    ) -> Result<Step<DerivEffects>, ExecError> {
        let samples = {
            let mut oracle = SmtOracle::new(solver);
            self.deriver.prefixes(&mut oracle, &r, self.append_bound, true)
        };
        let mut out = Vec::new();
        for (pi_eff, _) in samples {
            if let Some(subst) = context {
                if let Some(rest) = &self.post_after_pre {
                    let mut s2 = st.clone();
                    s2.effects.trace = pi_eff.clone();
                    s2.effects.cont = rest.subst(subst);
                    if feasible(self, solver, &s2)? {
                        out.push(s2);
                    }
                    continue;
                }
            }
            let cont = match context {
                Some(subst) => self.post.subst(subst),
                None => st.effects.cont.clone(),
            };
            let matches = {
                let mut oracle = SmtOracle::new(solver);
                self.deriver.match_trace(&mut oracle, &pi_eff, &cont, false, true, self.dead_cutoff, self.match_limit)
            };
            for (refined, cont2) in matches {
                let mut s2 = st.clone();
                if context.is_some() {
                    s2.effects.trace = refined;
                } else {
                    s2.effects.trace.extend(refined);
                }
                s2.effects.cont = cont2;
                if s2.effects.cont.is_empty() {
                    if let Some(v) = self.violation(solver, ViolationKind::Preemptive, &s2.phi, &s2.effects, None)? {
                        return Ok(Step::Falsified(v));
                    }
                    continue;
                }
                if feasible(self, solver, &s2)? {
                    out.push(s2);
                }
            }
        }
        Ok(Step::Continue(out))
    }

    fn finish(&mut self, solver: &mut Solver, st: &State<DerivEffects>, result: &Term) -> Result<Option<Violation>, ExecError> {
        if !st.effects.cont.nullable() {
            return self.violation(solver, ViolationKind::Terminated, &st.phi, &st.effects, None);
        }
        if !result.is_true() {
            return self.violation(solver, ViolationKind::Result, &st.phi, &st.effects, Some(Term::not(result.clone())));
        }
        Ok(None)
    }
}
