//! The derivative-based semantics (Fig. 6): a state carries a symbolic trace Π and the
//! continuation effect R_cont. `admit R` (DAdmit) conjoins Π event by event with a trace of R of
//! the same length; `append R` (DAppend) samples traces Π_eff of R (prefix enumeration, at most
//! the append bound long), relates them to prefixes of R_cont compatible with them, preferring
//! those closest to a dead state (DistToDead with a cut-off), and moves R_cont to the derivative.
//! A syntactically empty R_cont on a reachable state is an early falsification; a returned state
//! whose R_cont is not nullable is a falsification (Theorem 5.16).

use crate::core::ReplayAlt;
use crate::exec::{
    feasible, trace_constraint, EffectSemantics, ExecError, State, Step, Violation, ViolationKind,
};
use smt::{SatOutcome, Solver, Term};
use sre::{Deriver, Event, EventMemo, SmtOracle, Sre};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The trace part of a derivative-based state.
#[derive(Clone, Debug)]
pub(crate) struct DerivEffects {
    /// Changed only through [`DerivEffects::set_trace`] and [`DerivEffects::extend_trace`],
    /// which keep `formulas` in step. Shared by the copies of a state until one changes it.
    trace: Rc<Vec<Event>>,
    /// The constraint of each event of `trace` ([`trace_constraint`]), kept so that a
    /// feasibility check encodes only the events that changed.
    formulas: Rc<Vec<Term>>,
    pub cont: Sre,
    /// How many events of `trace` form the sampled prestate.
    pub context_len: usize,
}

impl DerivEffects {
    /// An empty trace with the given continuation.
    pub fn new(cont: Sre) -> Self {
        DerivEffects {
            trace: Rc::new(Vec::new()),
            formulas: Rc::new(Vec::new()),
            cont,
            context_len: 0,
        }
    }

    /// Replaces the trace, reusing the constraint of every event left as it was.
    pub fn set_trace(&mut self, trace: Vec<Event>) {
        let formulas = trace
            .iter()
            .enumerate()
            .map(|(i, e)| match (self.trace.get(i), self.formulas.get(i)) {
                (Some(old), Some(f)) if old == e => f.clone(),
                _ => event_constraint_at(e, i),
            })
            .collect();
        self.trace = Rc::new(trace);
        self.formulas = Rc::new(formulas);
    }

    /// Appends events to the trace.
    pub fn extend_trace(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        let trace = Rc::make_mut(&mut self.trace);
        let formulas = Rc::make_mut(&mut self.formulas);
        trace.reserve_exact(events.len());
        formulas.reserve_exact(events.len());
        for e in events {
            formulas.push(event_constraint_at(&e, trace.len()));
            trace.push(e);
        }
    }
}

/// The constraint of the event at position `i` of a trace, as [`trace_constraint`] gives it.
fn event_constraint_at(e: &Event, i: usize) -> Term {
    sre::event_formula(e, &format!("e{i}:"))
}

/// Settings and memo tables of the derivative semantics.
pub(crate) struct DerivativeSemantics {
    pub deriver: Deriver,
    /// Satisfiability of events, shared by every oracle of the run.
    pub event_memo: EventMemo,
    /// The property over the harness's program variables.
    pub post: Sre,
    /// `post` after the required context, when written `pre; rest`.
    pub post_after_pre: Option<Sre>,
    pub append_bound: usize,
    /// Exact length of the sampled prestate in this round.
    pub context_len: usize,
    pub dead_cutoff: usize,
    pub match_limit: usize,
    /// Library specifications for checking that a prestate is constructible.
    pub replay: HashMap<String, Vec<ReplayAlt>>,
    /// Witnesses rejected because their prestate could not be constructed.
    pub rejected: usize,
    pub deadline: std::time::Instant,
}

impl DerivativeSemantics {
    fn violation(
        &mut self,
        solver: &mut Solver,
        kind: ViolationKind,
        phi: &[Term],
        eff: &DerivEffects,
        extra: Option<Term>,
    ) -> Result<Option<Violation>, ExecError> {
        let mut phi = phi.to_vec();
        if let Some(x) = extra {
            phi.push(x);
        }
        let mut budget = 256;
        let Some(trace) = self.constructible(
            solver,
            &phi,
            eff.trace.to_vec(),
            0,
            eff.context_len,
            &mut budget,
        )?
        else {
            self.rejected += 1;
            return Ok(None);
        };
        let mut all = phi.clone();
        all.extend(trace_constraint(&trace));
        let (r, model) = solver.check_with_model(&all)?;
        if r != SatOutcome::Sat {
            return Ok(None);
        }
        Ok(Some(Violation {
            kind,
            phi,
            trace,
            context: None,
            cont: Some(eff.cont.clone()),
            model: model.unwrap_or_default(),
        }))
    }
}

impl DerivativeSemantics {
    /// Replays the prestate against the library: every call event of the first `context_len`
    /// events must follow a trace admitted by its function's `pre`, and be the effect that
    /// function appends. Gives the trace refined accordingly when Φ stays satisfiable.
    fn constructible(
        &mut self,
        solver: &mut Solver,
        phi: &[Term],
        trace: Vec<Event>,
        i: usize,
        context_len: usize,
        budget: &mut usize,
    ) -> Result<Option<Vec<Event>>, ExecError> {
        if i >= context_len.min(trace.len()) {
            let mut all = phi.to_vec();
            all.extend(trace_constraint(&trace));
            return Ok(if solver.check(&all)? == SatOutcome::Unsat {
                None
            } else {
                Some(trace)
            });
        }
        if *budget == 0 {
            return Ok(None);
        }
        *budget -= 1;
        let ops = trace[i].possible_ops();
        let op = match ops.as_deref() {
            Some([op]) if self.replay.contains_key(&**op) => op.clone(),
            // events that may be calls of several functions are unconstrained filler
            _ => return self.constructible(solver, phi, trace, i + 1, context_len, budget),
        };
        let alts = self.replay.get(&*op).cloned().unwrap_or_default();
        for alt in &alts {
            let mut map: BTreeMap<Rc<str>, Term> = BTreeMap::new();
            for (k, (p, sort)) in alt.params.iter().enumerate() {
                map.insert(
                    Rc::from(p.as_str()),
                    Term::var(&format!("e{i}:{op}#{k}"), sort.clone()),
                );
            }
            for (g, sort) in &alt.ghosts {
                map.insert(
                    Rc::from(g.as_str()),
                    Term::var(&format!("g{i}:{g}"), sort.clone()),
                );
            }
            let pre = alt.pre.subst(&map);
            let effect = alt.effect.subst(&map);
            let refined = trace[i].and(&effect);
            let prefixes = {
                let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
                if refined.is_bottom() || !sre::EventOracle::satisfiable(&mut oracle, &refined) {
                    continue;
                }
                self.deriver
                    .match_trace(&mut oracle, &trace[..i], &pre, true, false, 0, 8)
            };
            for (pfx, _) in prefixes {
                let mut t2 = pfx;
                t2.push(refined.clone());
                t2.extend(trace[i + 1..].iter().cloned());
                let mut all = phi.to_vec();
                all.extend(trace_constraint(&t2));
                if solver.check(&all)? == SatOutcome::Unsat {
                    continue;
                }
                if let Some(r) = self.constructible(solver, phi, t2, i + 1, context_len, budget)? {
                    return Ok(Some(r));
                }
            }
        }
        Ok(None)
    }
}

impl EffectSemantics for DerivativeSemantics {
    type Effects = DerivEffects;

    fn constraints(&self, effects: &DerivEffects) -> Vec<Term> {
        effects.formulas.to_vec()
    }

    fn admit(
        &mut self,
        solver: &mut Solver,
        st: State<DerivEffects>,
        r: Sre,
    ) -> Result<Step<DerivEffects>, ExecError> {
        let matches = {
            let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
            self.deriver.match_trace(
                &mut oracle,
                &st.effects.trace,
                &r,
                true,
                false,
                0,
                self.match_limit,
            )
        };
        let mut out = Vec::new();
        for (trace, _) in matches {
            let mut s2 = st.clone();
            if trace != *s2.effects.trace {
                s2.effects.set_trace(trace);
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
        let bound = if context.is_some() {
            self.context_len
        } else {
            self.append_bound
        };
        // with `post = pre; rest`, the prestate also satisfies `rest`: the invariant holds on entry
        let r = match (context, &self.post_after_pre) {
            (Some(subst), Some(rest)) => Sre::and([r, rest.subst(subst)]),
            _ => r,
        };
        let mut samples = {
            let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
            self.deriver.prefixes(&mut oracle, &r, bound, true)
        };
        if context.is_some() {
            samples.retain(|(p, _)| p.len() == self.context_len);
        }
        let mut out = Vec::new();
        for (pi_eff, _) in samples {
            if std::time::Instant::now() > self.deadline {
                break;
            }
            if let Some(subst) = context {
                if let Some(rest) = &self.post_after_pre {
                    let mut s2 = st.clone();
                    s2.effects.set_trace(pi_eff.clone());
                    s2.effects.context_len = pi_eff.len();
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
                let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
                self.deriver.match_trace(
                    &mut oracle,
                    &pi_eff,
                    &cont,
                    false,
                    true,
                    self.dead_cutoff,
                    self.match_limit,
                )
            };
            for (refined, cont2) in matches {
                let mut s2 = st.clone();
                if context.is_some() {
                    s2.effects.context_len = refined.len();
                    s2.effects.set_trace(refined);
                } else {
                    s2.effects.extend_trace(refined);
                }
                s2.effects.cont = cont2;
                if s2.effects.cont.is_empty() {
                    if let Some(v) = self.violation(
                        solver,
                        ViolationKind::Preemptive,
                        &s2.phi.to_vec(),
                        &s2.effects,
                        None,
                    )? {
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

    fn finish(
        &mut self,
        solver: &mut Solver,
        st: &State<DerivEffects>,
        result: &Term,
    ) -> Result<Option<Violation>, ExecError> {
        if !st.effects.cont.nullable() {
            return self.violation(
                solver,
                ViolationKind::Terminated,
                &st.phi.to_vec(),
                &st.effects,
                None,
            );
        }
        if !result.is_true() {
            return self.violation(
                solver,
                ViolationKind::Result,
                &st.phi.to_vec(),
                &st.effects,
                Some(Term::negation(result.clone())),
            );
        }
        Ok(None)
    }
}
