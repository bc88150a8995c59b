//! The derivative-based semantics (Fig. 6): a state carries a symbolic trace Π and the
//! continuation effect R_cont. `admit R` (DAdmit) conjoins Π event by event with a trace of R of
//! the same length; `append R` (DAppend) samples traces Π_eff of R (prefix enumeration, at most
//! the append bound long), relates them to prefixes of R_cont compatible with them, preferring
//! those closest to a dead state (DistToDead with a cut-off), and moves R_cont to the derivative.
//! A syntactically empty R_cont on a reachable state is an early falsification; a returned state
//! whose R_cont is not nullable is a falsification (Theorem 5.16).

use crate::core::ReplayAlt;
use crate::event_encoding::event_at;
use crate::exec::{feasible, EffectSemantics, ExecError, State, Step, Violation, ViolationKind};
use smt::{SatOutcome, Solver, Term};
use sre::{Deriver, Event, EventMemo, EventOracle, SmtOracle, Sre};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The trace part of a derivative-based state.
#[derive(Clone, Debug)]
pub(crate) struct DerivEffects {
    /// Changed only through [`DerivEffects::set_trace`] and [`DerivEffects::extend_trace`],
    /// which keep `formulas` in step. Shared by the copies of a state until one changes it.
    trace: Rc<Vec<Event>>,
    /// The constraint of each event of `trace` ([`event_constraint_at`]), kept so that a
    /// feasibility check encodes only the events that changed.
    formulas: Rc<Vec<Term>>,
    /// The constraints name the function of each event ([`event_at`]), as the disjunctions of
    /// [`Split`]s need.
    coded: bool,
    pub cont: Sre,
    /// How many events of `trace` form the sampled prestate.
    pub context_len: usize,
    /// The `admit`s whose refinements of the trace were kept as one disjunction of Φ (newest
    /// first), for finding the refined trace of a violation.
    splits: Option<Rc<Split>>,
}

/// The refinements of the trace by one `admit`, kept as one state: Φ has the conjunct
/// `conjunct`, the disjunction over the alternatives of the constraints of their events, and the
/// trace is left as it was. The concrete traces of the state are those of the trace that belong
/// to one of the alternatives, exactly the union of the states the alternatives would have been.
#[derive(Debug)]
struct Split {
    /// The trace when the split was made.
    base: Rc<Vec<Event>>,
    /// Each refinement of the first events of `base`.
    alternatives: Alternatives,
    conjunct: Term,
    before: Option<Rc<Split>>,
}

/// The alternatives of a [`Split`]. Those of an `admit` are not kept: they are the matches of
/// its expression against the base trace, which `Deriver::match_trace` gives again, the same,
/// when a violation is looked for (they took most of the memory of the states a long run keeps:
/// a refined copy of the trace per alternative, for every `admit` of every state).
#[derive(Debug)]
enum Alternatives {
    /// Kept as they are (the prestates of a group, sampled once per round).
    Kept(Vec<Vec<Event>>),
    /// The refinements of `base` by `admit r` (`match_trace` with `match_limit`).
    Admit(Sre),
}

impl DerivEffects {
    /// An empty trace with the given continuation.
    /// `coded`: the constraints of the events name their functions (needed when refinements
    /// may be kept as disjunctions, [`DerivativeSemantics::disjunctive_states`]).
    pub fn new(cont: Sre, coded: bool) -> Self {
        DerivEffects {
            trace: Rc::new(Vec::new()),
            formulas: Rc::new(Vec::new()),
            coded,
            cont,
            context_len: 0,
            splits: None,
        }
    }

    /// The kept `admit` refinements, oldest first.
    fn splits(&self) -> Vec<&Split> {
        let mut out = Vec::new();
        let mut cur = self.splits.as_deref();
        while let Some(s) = cur {
            out.push(s);
            cur = s.before.as_deref();
        }
        out.reverse();
        out
    }

    /// Replaces the trace, reusing the constraint of every event left as it was.
    pub fn set_trace(&mut self, trace: Vec<Event>) {
        let formulas = trace
            .iter()
            .enumerate()
            .map(|(i, e)| match (self.trace.get(i), self.formulas.get(i)) {
                (Some(old), Some(f)) if old == e => f.clone(),
                _ => event_constraint_at(e, i, self.coded),
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
            formulas.push(event_constraint_at(&e, trace.len(), self.coded));
            trace.push(e);
        }
    }
}

/// The constraint of the event at position `i` of a trace: with `coded`, the function it is a
/// call of made explicit, so that Φ may describe a position again ([`crate::event_encoding`]);
/// otherwise the disjunction of its qualifiers, locals renamed per position.
fn event_constraint_at(e: &Event, i: usize, coded: bool) -> Term {
    if coded {
        event_at(e, i)
    } else {
        sre::event_formula(e, &format!("e{i}:"))
    }
}

/// The constraints of the events of a trace ([`event_constraint_at`]).
fn trace_constraints(trace: &[Event], coded: bool) -> Vec<Term> {
    trace
        .iter()
        .enumerate()
        .map(|(i, e)| event_constraint_at(e, i, coded))
        .collect()
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
    /// Refinements with one continuation are one state: an `admit` with several
    /// ([`DerivativeSemantics::admit_as_one`]), the sampled prestates
    /// ([`DerivativeSemantics::append_context_as_groups`]). The states' trace constraints must
    /// then be coded ([`DerivEffects::new`]).
    pub disjunctive_states: bool,
    /// The states an `admit` or an `append` changes are kept unchecked ([`State::unchecked`]).
    pub deferred_checks: bool,
    pub deadline: std::time::Instant,
    /// The library functions no specification of the run can see ([`crate::subsume`]); with
    /// `None`, entries into user functions are not subsumed.
    pub neutral: Option<std::collections::BTreeSet<Rc<str>>>,
}

impl DerivativeSemantics {
    /// The violation of a state whose continuation is empty (the property already fails on its
    /// trace), if a witness exists.
    fn preemptive_violation(
        &mut self,
        solver: &mut Solver,
        s: &State<DerivEffects>,
    ) -> Result<Option<Violation>, ExecError> {
        self.violation(
            solver,
            ViolationKind::Preemptive,
            &s.phi.to_vec(),
            &s.effects,
            None,
        )
    }

    /// A violation of the state with path condition `phi` (and `extra`, the negated result
    /// refinement): a refinement of its trace that is satisfiable, chosen among the kept
    /// `admit` refinements ([`Split`]) when there are any, and whose prestate can be
    /// constructed. Each choice of one alternative per split is a state the search would have
    /// had without the disjunctions, checked as that state would have been.
    fn violation(
        &mut self,
        solver: &mut Solver,
        kind: ViolationKind,
        phi: &[Term],
        eff: &DerivEffects,
        extra: Option<Term>,
    ) -> Result<Option<Violation>, ExecError> {
        let splits = eff.splits();
        // the disjunctions are implied by the choice of one alternative each
        let mut phi: Vec<Term> = phi
            .iter()
            .filter(|t| !splits.iter().any(|s| s.conjunct == **t))
            .cloned()
            .collect();
        if let Some(x) = extra {
            phi.push(x);
        }
        self.violation_among(solver, kind, &phi, eff, &splits, eff.trace.to_vec())
    }

    /// [`DerivativeSemantics::violation`] for the alternatives of `splits` in turn, `trace`
    /// refined by those of the splits before them.
    fn violation_among(
        &mut self,
        solver: &mut Solver,
        kind: ViolationKind,
        phi: &[Term],
        eff: &DerivEffects,
        splits: &[&Split],
        trace: Vec<Event>,
    ) -> Result<Option<Violation>, ExecError> {
        let Some((split, later)) = splits.split_first() else {
            return self.violation_of(solver, kind, phi, eff, trace);
        };
        for alt in &self.alternatives_of(solver, split)? {
            let mut refined = trace.clone();
            for (i, e) in alt.iter().enumerate() {
                if refined[i] == split.base[i] {
                    refined[i] = e.clone();
                } else if refined[i] != *e {
                    refined[i] = refined[i].and(e);
                }
            }
            if refined.iter().any(Event::is_bottom) {
                continue;
            }
            let mut all = phi.to_vec();
            all.extend(trace_constraints(&refined, self.disjunctive_states));
            if solver.check(&all)? == SatOutcome::Unsat {
                continue;
            }
            if let Some(v) = self.violation_among(solver, kind, phi, eff, later, refined)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// The alternatives of a split: kept, or those of its `admit` computed again from its base
    /// trace, which must give back the disjunction Φ holds (the derivatives, the answers of the
    /// solver about events and the limit are those of the first time).
    fn alternatives_of(
        &mut self,
        solver: &mut Solver,
        split: &Split,
    ) -> Result<Vec<Vec<Event>>, ExecError> {
        let r = match &split.alternatives {
            Alternatives::Kept(alternatives) => return Ok(alternatives.clone()),
            Alternatives::Admit(r) => r,
        };
        let truncated = self.deriver.truncated;
        let matches = {
            let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
            self.deriver.match_trace(
                &mut oracle,
                &split.base,
                r,
                true,
                false,
                0,
                self.match_limit,
            )
        };
        // the truncation was counted the first time
        self.deriver.truncated = truncated;
        let alternatives: Vec<Vec<Event>> = matches.into_iter().map(|(t, _)| t).collect();
        let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
        let formula = {
            let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
            alternatives_formula(&all, &split.base, 0, &mut |b, e, ends| {
                covered(&mut oracle, b, e, ends)
            })
        };
        if formula != split.conjunct {
            return Err(ExecError::Recomputed(r.to_string()));
        }
        Ok(alternatives)
    }

    /// The violation of one refined trace: its prestate constructible and Φ satisfiable.
    fn violation_of(
        &mut self,
        solver: &mut Solver,
        kind: ViolationKind,
        phi: &[Term],
        eff: &DerivEffects,
        trace: Vec<Event>,
    ) -> Result<Option<Violation>, ExecError> {
        let mut budget = 256;
        let Some(trace) =
            self.constructible(solver, phi, trace, 0, eff.context_len, &mut budget)?
        else {
            self.rejected += 1;
            return Ok(None);
        };
        let mut all = phi.to_vec();
        all.extend(trace_constraints(&trace, self.disjunctive_states));
        let (r, model) = solver.check_with_model(&all)?;
        if r != SatOutcome::Sat {
            return Ok(None);
        }
        Ok(Some(Violation {
            kind,
            phi: phi.to_vec(),
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
            all.extend(trace_constraints(&trace, self.disjunctive_states));
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
                all.extend(trace_constraints(&t2, self.disjunctive_states));
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

impl DerivativeSemantics {
    /// `admit` with several refinements of the trace: one state whose Φ says that the trace is
    /// one of them, its trace left as it was ([`Split`]). The refinements of `match_trace`
    /// cover the traces of the state that `admit R` keeps (those with a prefix in R), so the
    /// state has exactly the concrete executions of the states the refinements would have been,
    /// and the same ones after every later step: a step depends on the trace only through
    /// satisfiability (which the disjunction in Φ states exactly, see
    /// [`crate::event_encoding`]), through the refinements of a later `admit` (those of the
    /// coarser trace, conjoined in Φ with this one's, are the same concrete traces as those of
    /// each refined trace), and through violations, which are looked for among the refined
    /// traces themselves ([`DerivativeSemantics::violation`]). `R_cont` does not depend on an
    /// `admit`.
    fn admit_as_one(
        &mut self,
        solver: &mut Solver,
        mut st: State<DerivEffects>,
        r: Sre,
        matches: Vec<(Vec<Event>, Sre)>,
    ) -> Result<Step<DerivEffects>, ExecError> {
        let alternatives: Vec<Vec<Event>> = matches.into_iter().map(|(t, _)| t).collect();
        let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
        add_split(&mut st, &alternatives, Alternatives::Admit(r), &mut oracle);
        Ok(Step::Continue(self.keep(solver, st)?.into_iter().collect()))
    }

    /// A state whose Φ or trace just grew: kept with its feasibility check deferred (see
    /// [`State::unchecked`]) when the semantics defers them, else kept only when feasible.
    fn keep(
        &mut self,
        solver: &mut Solver,
        mut st: State<DerivEffects>,
    ) -> Result<Option<State<DerivEffects>>, ExecError> {
        if self.deferred_checks {
            st.unchecked = true;
            return Ok(Some(st));
        }
        Ok(feasible(self, solver, &st)?.then_some(st))
    }

    /// The required context of the method (DAppend on the empty trace): the sampled prestates,
    /// each with the continuation its match against the property leaves, are grouped by that
    /// continuation, and each group is one state whose trace is that many events `•` and whose
    /// Φ says that it is one of the group's prestates ([`Split`]).
    /// Its concrete traces are exactly those of the group's states; as for an `admit`, every
    /// later step depends on the trace only through satisfiability, the refinements of later
    /// `admit`s and violations, all of which see the same concrete traces (see
    /// [`DerivativeSemantics::admit_as_one`]); `R_cont` is the group's own.
    fn append_context_as_groups(
        &mut self,
        solver: &mut Solver,
        st: State<DerivEffects>,
        samples: Vec<(Vec<Event>, Sre)>,
        subst: &BTreeMap<Rc<str>, Term>,
    ) -> Result<Step<DerivEffects>, ExecError> {
        let mut groups: Vec<(Sre, Vec<Vec<Event>>)> = Vec::new();
        let mut add =
            |cont: Sre, trace: Vec<Event>| match groups.iter_mut().find(|(c, _)| *c == cont) {
                Some((_, members)) => members.push(trace),
                None => groups.push((cont, vec![trace])),
            };
        for (pi_eff, _) in samples {
            if std::time::Instant::now() > self.deadline {
                break;
            }
            if let Some(rest) = &self.post_after_pre {
                add(rest.subst(subst), pi_eff);
                continue;
            }
            let matches = {
                let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
                self.deriver.match_trace(
                    &mut oracle,
                    &pi_eff,
                    &self.post.subst(subst),
                    false,
                    true,
                    self.dead_cutoff,
                    self.match_limit,
                )
            };
            for (refined, cont2) in matches {
                if cont2.is_empty() {
                    // an early violation is looked for on the prestate itself, as without groups
                    let mut s2 = st.clone();
                    s2.effects.context_len = refined.len();
                    s2.effects.set_trace(refined);
                    s2.effects.cont = cont2;
                    if let Some(v) = self.preemptive_violation(solver, &s2)? {
                        return Ok(Step::Falsified(v));
                    }
                    continue;
                }
                add(cont2, refined);
            }
        }
        let mut out = Vec::new();
        for (cont, mut members) in groups {
            let mut s2 = st.clone();
            s2.effects.cont = cont;
            s2.effects.context_len = self.context_len;
            if members.len() == 1 {
                s2.effects.set_trace(members.pop().unwrap_or_default());
            } else {
                // the trace says nothing of its own (every event): the disjunction in Φ says
                // which prestates it is (a trace of the unions of the members' events, position
                // by position, would be as exact, with larger queries)
                s2.effects.set_trace(vec![Event::top(); self.context_len]);
                let all = Alternatives::Kept(members.clone());
                let mut oracle = SmtOracle::with_memo(solver, &mut self.event_memo);
                add_split(&mut s2, &members, all, &mut oracle);
            }
            // checked at once even when checks are deferred: once per round, and an infeasible
            // group would run the whole method before its first branch
            if feasible(self, solver, &s2)? {
                out.push(s2);
            }
        }
        Ok(Step::Continue(out))
    }
}

/// Keeps `alternatives`, refinements of the first events of the state's trace, as one
/// disjunction of Φ ([`Split`]), with `kept` saying how to have them again; nothing when one of
/// them is the trace itself (then they keep every trace of the state). `oracle` answers the
/// questions of [`covered`] that shorten the disjunction.
fn add_split(
    st: &mut State<DerivEffects>,
    alternatives: &[Vec<Event>],
    kept: Alternatives,
    oracle: &mut dyn EventOracle,
) {
    let base = st.effects.trace.clone();
    let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
    let conjunct = alternatives_formula(&all, &base, 0, &mut |b, e, ends| {
        covered(oracle, b, e, ends)
    });
    if conjunct.is_true() {
        return;
    }
    st.phi.push(conjunct.clone());
    st.effects.splits = Some(Rc::new(Split {
        base,
        alternatives: kept,
        conjunct,
        before: st.effects.splits.take(),
    }));
}

/// Every event of `base` belongs to `e` or to one of `ends`: `base ⊓ ¬e ⊓ ¬ends…` has no
/// call (an answer the oracle cannot give counts as "some call", and nothing is shortened).
fn covered(oracle: &mut dyn EventOracle, base: &Event, e: &Event, ends: &[&Event]) -> bool {
    let rest = ends
        .iter()
        .fold(base.and(&e.negate()), |acc, x| acc.and(&x.negate()));
    !oracle.satisfiable(&rest)
}

/// The disjunction over `alternatives` (refinements of `base` from position `depth` on) of the
/// conjunction of the constraints of their events, written as a tree: the alternatives that
/// share their event at `depth` share its constraint, `e ∧ (rest₁ ∨ rest₂)` for
/// `(e ∧ rest₁) ∨ (e ∧ rest₂)` (the refinements of a match share their prefixes: "the first
/// `put` at position p" for each p is then linear in the length, not quadratic). An event the
/// same as `base`'s adds nothing (its constraint is the trace's own).
///
/// Where some alternatives end at `depth` (their disjuncts are the constraints `H₁ … Hₖ` of
/// their events alone), the constraint `H` of another event `e` is left out of its disjunct
/// `H ∧ rest` when `covered(base[depth], e, ends)`, that is when the trace's own event at
/// `depth` implies `H ∨ H₁ ∨ … ∨ Hₖ`: given that event (the trace's constraint is in every
/// query with Φ), `(H ∧ rest) ∨ H₁ ∨ … ∨ Hₖ` and `rest ∨ H₁ ∨ … ∨ Hₖ` hold together (when
/// `rest` holds and no `Hⱼ`, `H` does). So "the first `put x` at position p" for each p, whose
/// events before p say "not a `put x`", becomes "a `put x` at some position", the same set of
/// traces with no negations left.
fn alternatives_formula(
    alternatives: &[&[Event]],
    base: &[Event],
    depth: usize,
    covered: &mut dyn FnMut(&Event, &Event, &[&Event]) -> bool,
) -> Term {
    let mut groups: Vec<(&Event, Vec<&[Event]>)> = Vec::new();
    for alt in alternatives {
        let Some((e, _)) = alt.split_first() else {
            // an alternative that ends here refines nothing further
            return Term::tt();
        };
        match groups.iter_mut().find(|(g, _)| *g == e) {
            Some((_, members)) => members.push(&alt[1..]),
            None => groups.push((e, vec![&alt[1..]])),
        }
    }
    let parts: Vec<(&Event, Term)> = groups
        .into_iter()
        .map(|(e, tails)| (e, alternatives_formula(&tails, base, depth + 1, covered)))
        .collect();
    let ends: Vec<&Event> = parts
        .iter()
        .filter(|(_, rest)| rest.is_true())
        .map(|(e, _)| *e)
        .collect();
    let own = base.get(depth);
    Term::or(parts.iter().map(|(e, rest)| {
        let here = if own == Some(*e) {
            Term::tt()
        } else if let (Some(b), false, false) = (own, ends.is_empty(), rest.is_true()) {
            if covered(b, e, &ends) {
                Term::tt()
            } else {
                event_at(e, depth)
            }
        } else {
            event_at(e, depth)
        };
        Term::and([here, rest.clone()])
    }))
}

impl EffectSemantics for DerivativeSemantics {
    type Effects = DerivEffects;

    fn constraints(&self, effects: &DerivEffects) -> Vec<Term> {
        effects.formulas.to_vec()
    }

    fn trace_len(&self, effects: &DerivEffects) -> usize {
        effects.trace.len()
    }

    fn subsumes_entries(&self) -> bool {
        self.neutral.is_some()
    }

    /// The same continuation and prestate, and every event appended since `earlier` a call of a
    /// neutral function. (`later` descends from `earlier`: its first events are `earlier`'s,
    /// refined by `admit`s, which only conjoin events.)
    fn covers(&self, earlier: &DerivEffects, later: &DerivEffects) -> bool {
        let Some(neutral) = &self.neutral else {
            return false;
        };
        later.cont == earlier.cont
            && later.context_len == earlier.context_len
            && later.coded == earlier.coded
            && later.trace.len() >= earlier.trace.len()
            && later.trace[earlier.trace.len()..].iter().all(|e| {
                e.possible_ops()
                    .is_some_and(|ops| ops.iter().all(|o| neutral.contains(o)))
            })
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
        if self.disjunctive_states && matches.len() > 1 {
            return self.admit_as_one(solver, st, r, matches);
        }
        let mut out = Vec::new();
        for (trace, _) in matches {
            let mut s2 = st.clone();
            if trace != *s2.effects.trace {
                s2.effects.set_trace(trace);
                out.extend(self.keep(solver, s2)?);
                continue;
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
        if let (Some(subst), true) = (context, self.disjunctive_states) {
            return self.append_context_as_groups(solver, st, samples, subst);
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
                    out.extend(self.keep(solver, s2)?);
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
                    if let Some(v) = self.preemptive_violation(solver, &s2)? {
                        return Ok(Step::Falsified(v));
                    }
                    continue;
                }
                out.extend(self.keep(solver, s2)?);
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

#[cfg(test)]
mod tests {
    use super::*;
    use smt::Sort;

    fn put(k: &str) -> Event {
        Event::atom(
            "put",
            Term::eq(Term::var("#0", Sort::Int), Term::var(k, Sort::Int)),
        )
    }

    /// The flat disjunction over the alternatives of the conjunction of their events' constraints.
    fn flat(alternatives: &[Vec<Event>], base: &[Event]) -> Term {
        Term::or(alternatives.iter().map(|alt| {
            Term::and(
                alt.iter()
                    .enumerate()
                    .filter(|(i, e)| base.get(*i) != Some(*e))
                    .map(|(i, e)| event_at(e, i)),
            )
        }))
    }

    #[test]
    fn the_tree_of_the_alternatives_is_their_disjunction() {
        // the first `put x` at position 0, 1 or 2 of three events (any event before)
        let (p, not_p, any) = (put("x"), put("x").negate(), Event::top());
        let base = vec![any.clone(), any.clone(), any.clone()];
        let alternatives = vec![
            vec![p.clone(), any.clone(), any.clone()],
            vec![not_p.clone(), p.clone(), any.clone()],
            vec![not_p.clone(), not_p.clone(), p.clone()],
        ];
        let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
        let tree = alternatives_formula(&all, &base, 0, &mut |_, _, _| false);
        let flat = flat(&alternatives, &base);
        let mut solver = Solver::new(5000);
        // equivalent: neither holds without the other
        for (a, b) in [(&tree, &flat), (&flat, &tree)] {
            let q = Term::and([a.clone(), Term::negation(b.clone())]);
            assert_eq!(solver.check(&[q]).ok(), Some(SatOutcome::Unsat));
        }
        assert_eq!(
            solver.check(std::slice::from_ref(&tree)).ok(),
            Some(SatOutcome::Sat)
        );
        // and shorter: ¬p at position 0 is written once
        let size = |t: &Term| format!("{t}").len();
        assert!(size(&tree) < size(&flat), "{tree} / {flat}");
        // an alternative equal to the base keeps everything
        let with_base = [base.clone(), alternatives[0].clone()];
        let all: Vec<&[Event]> = with_base.iter().map(Vec::as_slice).collect();
        assert!(alternatives_formula(&all, &base, 0, &mut |_, _, _| false).is_true());
    }

    #[test]
    fn the_first_match_at_each_position_is_written_as_a_match_at_some_position() {
        // the first `put x` at position 0, 1 or 2: the alternative that ends at position p is
        // `put x` there; at every position, `¬put x` and `put x` cover `•`, so the `¬put x`
        // before it is left out, and the disjunction is that of `put x` at 0, 1 and 2
        let (p, not_p, any) = (put("x"), put("x").negate(), Event::top());
        let base = vec![any.clone(), any.clone(), any.clone()];
        let alternatives = [
            vec![p.clone(), any.clone(), any.clone()],
            vec![not_p.clone(), p.clone(), any.clone()],
            vec![not_p.clone(), not_p.clone(), p.clone()],
        ];
        let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
        let mut solver = Solver::new(5000);
        let short = {
            let mut oracle = SmtOracle::new(&mut solver);
            alternatives_formula(&all, &base, 0, &mut |b, e, ends| {
                covered(&mut oracle, b, e, ends)
            })
        };
        let expected = Term::or([event_at(&p, 0), event_at(&p, 1), event_at(&p, 2)]);
        assert_eq!(short, expected);
        // with the trace's own events: equivalent to the tree (here the trace is `• • •`,
        // whose constraints are true)
        let tree = alternatives_formula(&all, &base, 0, &mut |_, _, _| false);
        for (a, b) in [(&tree, &short), (&short, &tree)] {
            let q = Term::and([a.clone(), Term::negation(b.clone())]);
            assert_eq!(solver.check(&[q]).ok(), Some(SatOutcome::Unsat));
        }
        // on a trace whose first event is a `get`, not a `put x`: `¬put x` at position 0 is
        // that event's own constraint and adds nothing, and position 0 cannot be the `put x`
        let get = Event::atom("get", Term::tt());
        let base = vec![get.clone(), any.clone()];
        let alternatives = [vec![get.and(&not_p), p.clone()]];
        let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
        let mut oracle = SmtOracle::new(&mut solver);
        let short = alternatives_formula(&all, &base, 0, &mut |b, e, ends| {
            covered(&mut oracle, b, e, ends)
        });
        assert_eq!(short, event_at(&p, 1));
    }

    #[test]
    fn an_event_not_covered_keeps_its_constraint() {
        // alternatives `put x` (ending) and `put y` then `put x`: `put y` and `put x` do not
        // cover `•` (a `get` is neither), so `put y` at position 0 stays
        let (px, py, any) = (put("x"), put("y"), Event::top());
        let base = vec![any.clone(), any.clone()];
        let alternatives = [vec![px.clone(), any.clone()], vec![py.clone(), px.clone()]];
        let all: Vec<&[Event]> = alternatives.iter().map(Vec::as_slice).collect();
        let mut solver = Solver::new(5000);
        let mut oracle = SmtOracle::new(&mut solver);
        let short = alternatives_formula(&all, &base, 0, &mut |b, e, ends| {
            covered(&mut oracle, b, e, ends)
        });
        let expected = Term::or([
            event_at(&px, 0),
            Term::and([event_at(&py, 0), event_at(&px, 1)]),
        ]);
        assert_eq!(short, expected);
    }

    fn semantics() -> DerivativeSemantics {
        DerivativeSemantics {
            deriver: Deriver::new(),
            event_memo: EventMemo::default(),
            post: Sre::all(),
            post_after_pre: None,
            append_bound: 2,
            context_len: 0,
            dead_cutoff: 3,
            match_limit: 64,
            replay: HashMap::new(),
            rejected: 0,
            disjunctive_states: true,
            deferred_checks: true,
            deadline: std::time::Instant::now() + std::time::Duration::from_secs(3600),
            neutral: None,
        }
    }

    /// A returned state with the trace `• •` and the continuation `put x` (not nullable: the
    /// state violates the property on every trace it has).
    fn returned_with_two_events() -> State<DerivEffects> {
        let mut effects = DerivEffects::new(Sre::lit(put("x")), true);
        effects.set_trace(vec![Event::top(), Event::top()]);
        State {
            phi: crate::path_condition::PathCondition::new(),
            effects,
            control: crate::exec::Control::Return(crate::exec::Value::Term(Term::Unit)),
            stack: Vec::new(),
            calls: 0,
            unchecked: false,
            entries: None,
        }
    }

    /// `•*; put x; •*`: some event is a `put x`.
    fn some_put_x() -> Sre {
        Sre::seq([Sre::all(), Sre::lit(put("x")), Sre::all()])
    }

    #[test]
    fn a_violation_behind_an_admit_is_a_refined_trace_computed_again() {
        let mut sem = semantics();
        let mut solver = Solver::new(5000);
        // `admit (•*; put x; •*)` on `• •`: the first `put x` at position 0 or at 1, two
        // refinements kept as one state (a split), the trace left as it was
        let st = returned_with_two_events();
        let Ok(Step::Continue(mut next)) = sem.admit(&mut solver, st, some_put_x()) else {
            panic!("the admit keeps the state");
        };
        assert_eq!(next.len(), 1);
        let st = next.remove(0);
        assert!(st.effects.splits.is_some());
        assert_eq!(*st.effects.trace, vec![Event::top(), Event::top()]);
        // the violation is one of the two refined traces, not the trace `• •` of the state
        let found = sem.finish(&mut solver, &st, &Term::tt());
        let Ok(Some(v)) = found else {
            panic!("a violation: {:?}", found.map(|v| v.map(|v| v.trace)));
        };
        let (p, not_p, any) = (put("x"), put("x").negate(), Event::top());
        let refinements = [vec![p.clone(), any], vec![not_p, p]];
        assert!(refinements.contains(&v.trace), "{:?}", v.trace);
    }

    #[test]
    fn alternatives_that_do_not_give_back_the_disjunction_are_an_error() {
        let mut sem = semantics();
        let mut solver = Solver::new(5000);
        // the disjunction of the two refinements by `some_put_x`, said to come from `admit
        // (put x; •*)`, whose only refinement is `put x` first
        let mut st = returned_with_two_events();
        let (p, not_p, any) = (put("x"), put("x").negate(), Event::top());
        let alternatives = [vec![p.clone(), any], vec![not_p, p.clone()]];
        let put_first = Sre::seq([Sre::lit(p), Sre::all()]);
        {
            let mut oracle = SmtOracle::new(&mut solver);
            add_split(
                &mut st,
                &alternatives,
                Alternatives::Admit(put_first),
                &mut oracle,
            );
        }
        assert!(matches!(
            sem.finish(&mut solver, &st, &Term::tt()),
            Err(ExecError::Recomputed(_))
        ));
    }
}
