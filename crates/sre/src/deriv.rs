//! Symbolic derivatives (Lemma 6.4), admissible next events (Definition 6.3), prefix
//! enumeration in increasing length (Fig. 7), DistToDead with a cut-off (Section 5.2), and the
//! interleaved matching of a symbolic trace against an expression (the second optimization of
//! Section 7: prefixes are only enumerated along events compatible with the trace).
//!
//! Questions about events (is ℓ satisfiable for some interpretation, is ℓ' ⊑ ℓ for every
//! interpretation of the symbolic variables) go to an [`EventOracle`]; [`SmtOracle`] discharges
//! them to Z3 through the `smt` crate. Everything is memoised.

use crate::event::Event;
use crate::regex::{Node, Sre};
use smt::{GenerationalMap, SatOutcome, Solver, Term};
use std::collections::HashMap;
use std::rc::Rc;

/// Decides questions about symbolic events.
pub trait EventOracle {
    /// Some interpretation of the symbolic variables makes some call belong to `e`.
    fn satisfiable(&mut self, e: &Event) -> bool;
    /// `a ⊑ b` under every interpretation: `a ⊓ ~b` is unsatisfiable.
    fn included(&mut self, a: &Event, b: &Event) -> bool {
        !self.satisfiable(&a.and(&b.negate()))
    }
}

/// The constraint of a single event with locals renamed apart per function.
pub fn event_constraint(e: &Event, tag: &str) -> Term {
    e.constraint(&|op: &str, local: &str| {
        if local.starts_with('#') {
            Some(Term::var(&format!("{tag}{op}{local}"), smt::Sort::Bool))
        } else {
            None
        }
    })
}

/// An oracle answering with Z3.
pub struct SmtOracle<'s> {
    pub solver: &'s mut Solver,
    cache: HashMap<Event, bool>,
    /// Answers kept across oracles (by [`SmtOracle::with_memo`]).
    memo: Option<&'s mut EventMemo>,
}

/// Satisfiability of events, kept from one oracle to the next (the solver's answers do not
/// change, so an answer can be reused by any later oracle on the same solver); bounded like the
/// memo tables of a [`Deriver`].
pub struct EventMemo {
    answers: GenerationalMap<Event, bool>,
}

impl Default for EventMemo {
    fn default() -> Self {
        EventMemo {
            answers: GenerationalMap::new(MEMO_GENERATION),
        }
    }
}

impl<'s> SmtOracle<'s> {
    pub fn new(solver: &'s mut Solver) -> Self {
        SmtOracle {
            solver,
            cache: HashMap::new(),
            memo: None,
        }
    }

    /// An oracle that reads and fills `memo`, for answers shared by many oracles on `solver`.
    pub fn with_memo(solver: &'s mut Solver, memo: &'s mut EventMemo) -> Self {
        SmtOracle {
            solver,
            cache: HashMap::new(),
            memo: Some(memo),
        }
    }
}

/// Renames the locals of an event for a solver query, preserving sorts.
pub fn event_formula(e: &Event, tag: &str) -> Term {
    let parts = e.ops.iter().map(|(op, q)| {
        q.rename(&|n: &str| {
            if n.starts_with('#') {
                Some(format!("{tag}{op}{n}"))
            } else {
                None
            }
        })
    });
    Term::or(parts.chain(std::iter::once(e.others.clone())))
}

impl EventOracle for SmtOracle<'_> {
    fn satisfiable(&mut self, e: &Event) -> bool {
        if e.is_bottom() {
            return false;
        }
        if let Some(memo) = &mut self.memo {
            if let Some(r) = memo.answers.get(e) {
                return r;
            }
        } else if let Some(r) = self.cache.get(e) {
            return *r;
        }
        // asked with its variables named in order of first occurrence: events that differ only
        // in the names of their variables (the same qualifier over the fresh variables of
        // another call) are one query, which the solver's cache answers after the first
        let f = canonical_names(&event_formula(e, ""));
        // unknown counts as satisfiable: the event is kept
        let r = !matches!(self.solver.check(&[f]), Ok(SatOutcome::Unsat));
        match &mut self.memo {
            Some(memo) => memo.answers.insert(e.clone(), r),
            None => {
                self.cache.insert(e.clone(), r);
            }
        }
        r
    }
}

/// `t` with its free variables renamed `%0`, `%1`, … in the order of their first occurrence
/// (sorts kept). The renaming is a bijection between free constants, so the formula is
/// satisfiable (with the solver's closed axioms) exactly when `t` is; two formulas equal up to
/// the names of their variables become the same formula. `%` occurs in no name the front end
/// or the engine makes, so the new names meet no function or other variable.
pub fn canonical_names(t: &Term) -> Term {
    fn visit(t: &Term, bound: &[Rc<str>], order: &mut HashMap<Rc<str>, String>) {
        match t {
            Term::Var(n, _) => {
                if !bound.contains(n) && !order.contains_key(n) {
                    let name = format!("%{}", order.len());
                    order.insert(n.clone(), name);
                }
            }
            Term::Bool(_) | Term::Int(_) | Term::Unit => {}
            Term::Not(a) => visit(a, bound, order),
            Term::And(xs) | Term::Or(xs) | Term::App(_, xs, _) => {
                for x in xs.iter() {
                    visit(x, bound, order)
                }
            }
            Term::Implies(a, b)
            | Term::Iff(a, b)
            | Term::Eq(a, b)
            | Term::Cmp(_, a, b)
            | Term::Arith(_, a, b) => {
                visit(a, bound, order);
                visit(b, bound, order)
            }
            Term::Forall(vs, body) => {
                let mut inner = bound.to_vec();
                inner.extend(vs.iter().map(|(v, _)| v.clone()));
                visit(body, &inner, order)
            }
        }
    }
    let mut order = HashMap::new();
    visit(t, &[], &mut order);
    t.rename(&|n: &str| order.get(n).cloned())
}

/// Entries per generation of each memo table of a [`Deriver`] (two generations are kept, so a
/// long search keeps the recent entries and its memory stays flat).
const MEMO_GENERATION: usize = 20_000;

/// Derivatives, next events and prefix enumeration with bounded memo tables.
pub struct Deriver {
    next_cache: GenerationalMap<Sre, Vec<Event>>,
    deriv_cache: GenerationalMap<(Sre, Event), Option<Sre>>,
    dist_cache: GenerationalMap<Sre, usize>,
    /// Number of derivative computations that could not decide an inclusion.
    pub undecided: u64,
    /// Number of [`Deriver::match_trace`] calls that stopped at their limit with refinements
    /// left unexplored.
    pub truncated: u64,
    /// [`Deriver::successors`] gives one event per distinct derivative (the union of the next
    /// events that reach it) instead of one per next event.
    pub merge_successors: bool,
}

/// The dual of a set of events: `~⊔L`.
pub fn dual(events: &[Event]) -> Event {
    events
        .iter()
        .fold(Event::bottom(), |acc, e| acc.or(e))
        .negate()
}

impl Default for Deriver {
    fn default() -> Self {
        Deriver {
            next_cache: GenerationalMap::new(MEMO_GENERATION),
            deriv_cache: GenerationalMap::new(MEMO_GENERATION),
            dist_cache: GenerationalMap::new(MEMO_GENERATION),
            undecided: 0,
            truncated: 0,
            merge_successors: true,
        }
    }
}

impl Deriver {
    pub fn new() -> Self {
        Self::default()
    }

    fn join(&self, oracle: &mut dyn EventOracle, l1: &[Event], l2: &[Event]) -> Vec<Event> {
        let d1 = dual(l1);
        let d2 = dual(l2);
        let mut out: Vec<Event> = Vec::new();
        let mut push = |e: Event, out: &mut Vec<Event>| {
            if !e.is_bottom() && !out.contains(&e) && oracle.satisfiable(&e) {
                out.push(e)
            }
        };
        for a in l1 {
            for b in l2 {
                push(a.and(b), &mut out);
            }
            push(a.and(&d2), &mut out);
        }
        for b in l2 {
            push(d1.and(b), &mut out);
        }
        out
    }

    /// next(R) of Definition 6.3, without the dual event; unsatisfiable events are dropped.
    pub fn next(&mut self, oracle: &mut dyn EventOracle, r: &Sre) -> Vec<Event> {
        if let Some(v) = self.next_cache.get(r) {
            return v;
        }
        let v = match r.node() {
            Node::Empty | Node::Eps => Vec::new(),
            Node::Lit(e) => {
                if oracle.satisfiable(e) {
                    vec![e.clone()]
                } else {
                    Vec::new()
                }
            }
            Node::Star(inner) => self.next(oracle, inner),
            Node::Concat(a, b) => {
                let na = self.next(oracle, a);
                if a.nullable() {
                    let nb = self.next(oracle, b);
                    self.join(oracle, &na, &nb)
                } else {
                    na
                }
            }
            Node::Not(inner) => {
                let mut n = self.next(oracle, inner);
                let d = dual(&n);
                if !d.is_bottom() && oracle.satisfiable(&d) {
                    n.push(d);
                }
                n
            }
            Node::And(xs) => {
                let mut acc: Option<Vec<Event>> = None;
                for x in xs {
                    let nx = self.next(oracle, x);
                    acc = Some(match acc {
                        None => nx,
                        Some(prev) => {
                            let mut out = Vec::new();
                            for a in &prev {
                                for b in &nx {
                                    let e = a.and(b);
                                    if !e.is_bottom() && !out.contains(&e) && oracle.satisfiable(&e)
                                    {
                                        out.push(e);
                                    }
                                }
                            }
                            out
                        }
                    });
                }
                acc.unwrap_or_default()
            }
            Node::Or(xs) => {
                let mut acc: Option<Vec<Event>> = None;
                for x in xs {
                    let nx = self.next(oracle, x);
                    acc = Some(match acc {
                        None => nx,
                        Some(prev) => self.join(oracle, &prev, &nx),
                    });
                }
                acc.unwrap_or_default()
            }
        };
        self.next_cache.insert(r.clone(), v.clone());
        v
    }

    /// next(R) ∪ {next(R)ᶜ}: a partition of the event space (up to unsatisfiable parts).
    pub fn next_with_dual(&mut self, oracle: &mut dyn EventOracle, r: &Sre) -> Vec<Event> {
        let mut n = self.next(oracle, r);
        let d = dual(&n);
        if !d.is_bottom() && oracle.satisfiable(&d) {
            n.push(d);
        }
        n
    }

    /// The partition of Fig. 7 with derivatives: each next event of R with D_ℓ R, and the dual
    /// event, whose derivative is ∅ because it lies outside every admissible event. With
    /// [`Deriver::merge_successors`], the events with the same derivative are given as one
    /// event, their union: a trace through ℓ₁ and the same trace through ℓ₂ (same events before
    /// and, the derivative being the same, the same choices after) are the one trace through
    /// ℓ₁ ⊔ ℓ₂, so prefix enumeration and trace matching give one symbolic trace for the two,
    /// with exactly their concrete traces (events are sets, and the union is taken at one
    /// position). The parts stay disjoint, so this is still a partition.
    pub fn successors(
        &mut self,
        oracle: &mut dyn EventOracle,
        r: &Sre,
        with_dual: bool,
    ) -> Vec<(Event, Sre)> {
        let events = self.next(oracle, r);
        let mut cells: Vec<(Event, Sre)> = Vec::new();
        // every next event has its derivative (the cells cover the next events)
        let mut complete = true;
        for e in &events {
            match self.derivative(oracle, e, r) {
                Some(d) => cells.push((e.clone(), d)),
                None => complete = false,
            }
        }
        let d = dual(&events);
        if with_dual && !d.is_bottom() && oracle.satisfiable(&d) {
            cells.push((d.clone(), Sre::empty()));
        }
        if !self.merge_successors {
            return cells;
        }
        // next events with the same derivative lead to the same continuation: one event, their
        // union, stands for them (the union of the traces through each)
        let mut groups: Vec<(Vec<usize>, Sre)> = Vec::new();
        for (i, (_, d)) in cells.iter().enumerate() {
            match groups.iter_mut().find(|(_, d0)| d0 == d) {
                Some((members, _)) => members.push(i),
                None => groups.push((vec![i], d.clone())),
            }
        }
        // the cells cover every event (with the dual, or when the next events do: a complement
        // in R makes its dual one of them)
        let covering = complete
            && groups.iter().any(|(members, _)| members.len() > 1)
            && (with_dual || d.is_bottom() || !oracle.satisfiable(&d));
        groups
            .into_iter()
            .map(|(members, d)| {
                let union = |idx: &mut dyn Iterator<Item = usize>| {
                    idx.fold(Event::bottom(), |acc, i| acc.union(&cells[i].0))
                };
                let outside = cells.len() - members.len();
                let e = if members.len() == 1 {
                    cells[members[0]].0.clone()
                } else if covering && outside < members.len() {
                    // the cells partition the events: the union is the complement of the others
                    // (the whole event space when every cell is in the group)
                    union(&mut (0..cells.len()).filter(|i| !members.contains(i))).negate()
                } else {
                    union(&mut members.iter().copied())
                };
                (e, d)
            })
            .collect()
    }

    /// D_ℓ R (Lemma 6.4) for a next event ℓ of R; `None` when an inclusion is undecided.
    pub fn derivative(&mut self, oracle: &mut dyn EventOracle, e: &Event, r: &Sre) -> Option<Sre> {
        let key = (r.clone(), e.clone());
        if let Some(v) = self.deriv_cache.get(&key) {
            return v;
        }
        let v = self.derivative_uncached(oracle, e, r);
        if v.is_none() {
            self.undecided += 1;
        }
        self.deriv_cache.insert(key, v.clone());
        v
    }

    fn derivative_uncached(
        &mut self,
        oracle: &mut dyn EventOracle,
        e: &Event,
        r: &Sre,
    ) -> Option<Sre> {
        // outside every admissible next event, R has no continuation
        if !matches!(r.node(), Node::Empty | Node::Eps | Node::Lit(_)) {
            let admissible = self
                .next(oracle, r)
                .iter()
                .fold(Event::bottom(), |acc, n| acc.or(n));
            let overlap = e.and(&admissible);
            if overlap.is_bottom() || !oracle.satisfiable(&overlap) {
                return Some(Sre::empty());
            }
        }
        Some(match r.node() {
            Node::Empty | Node::Eps => Sre::empty(),
            Node::Lit(l) => {
                if !e.compatible(l) || !oracle.satisfiable(&e.and(l)) {
                    Sre::empty()
                } else if oracle.included(e, l) {
                    Sre::eps()
                } else {
                    return None;
                }
            }
            Node::Star(inner) => Sre::concat(self.derivative(oracle, e, inner)?, r.clone()),
            Node::Concat(a, b) => {
                let first = Sre::concat(self.derivative(oracle, e, a)?, b.clone());
                if a.nullable() {
                    Sre::or([first, self.derivative(oracle, e, b)?])
                } else {
                    first
                }
            }
            Node::Not(inner) => Sre::complement(self.derivative(oracle, e, inner)?),
            // a conjunct that is decidedly dead kills the conjunction even when another conjunct
            // straddles a literal (the dual of a conjunction's next events lies outside one of them)
            Node::And(xs) => {
                let parts: Vec<Option<Sre>> =
                    xs.iter().map(|x| self.derivative(oracle, e, x)).collect();
                if parts.iter().any(|p| p.as_ref().is_some_and(Sre::is_empty)) {
                    Sre::empty()
                } else {
                    Sre::and(parts.into_iter().collect::<Option<Vec<_>>>()?)
                }
            }
            Node::Or(xs) => {
                let parts: Vec<Option<Sre>> =
                    xs.iter().map(|x| self.derivative(oracle, e, x)).collect();
                if parts.iter().any(|p| p.as_ref().is_some_and(Sre::is_all)) {
                    Sre::all()
                } else {
                    Sre::or(parts.into_iter().collect::<Option<Vec<_>>>()?)
                }
            }
        })
    }

    /// D_Π R along a whole symbolic trace of next events.
    pub fn derivative_trace(
        &mut self,
        oracle: &mut dyn EventOracle,
        trace: &[Event],
        r: &Sre,
    ) -> Option<Sre> {
        let mut cur = r.clone();
        for e in trace {
            cur = self.derivative(oracle, e, &cur)?;
        }
        Some(cur)
    }

    /// Prefixes (Fig. 7) of length at most `max_len`, in increasing length, with derivatives.
    /// With `accepting_only`, only prefixes whose derivative is nullable (traces of R) are kept and
    /// dead branches are not followed.
    pub fn prefixes(
        &mut self,
        oracle: &mut dyn EventOracle,
        r: &Sre,
        max_len: usize,
        accepting_only: bool,
    ) -> Vec<(Vec<Event>, Sre)> {
        let mut out = Vec::new();
        let mut frontier = vec![(Vec::new(), r.clone())];
        for len in 0..=max_len {
            let mut next_frontier = Vec::new();
            for (pfx, d) in frontier {
                if !accepting_only || d.nullable() {
                    out.push((pfx.clone(), d.clone()));
                }
                if len == max_len || (accepting_only && d.is_empty()) {
                    continue;
                }
                for (e, d2) in self.successors(oracle, &d, !accepting_only) {
                    if accepting_only && d2.is_empty() {
                        continue;
                    }
                    let mut p = pfx.clone();
                    p.push(e);
                    next_frontier.push((p, d2));
                }
            }
            frontier = next_frontier;
        }
        out
    }

    /// DistToDead(R) = min |Π| with D_Π R = ∅, or `cutoff + 1` when no dead state is that close.
    pub fn dist_to_dead(&mut self, oracle: &mut dyn EventOracle, r: &Sre, cutoff: usize) -> usize {
        if let Some(d) = self.dist_cache.get(r) {
            return d;
        }
        let mut frontier = vec![r.clone()];
        let mut seen: Vec<Sre> = vec![r.clone()];
        let mut result = cutoff + 1;
        'outer: for dist in 0..=cutoff {
            let mut next_frontier = Vec::new();
            for d in &frontier {
                if d.is_empty() {
                    result = dist;
                    break 'outer;
                }
            }
            if dist == cutoff {
                break;
            }
            for d in frontier {
                for (_, d2) in self.successors(oracle, &d, true) {
                    if !seen.contains(&d2) {
                        seen.push(d2.clone());
                        next_frontier.push(d2);
                    }
                }
            }
            frontier = next_frontier;
        }
        self.dist_cache.insert(r.clone(), result);
        result
    }

    /// Matches a symbolic trace against `r` event by event (DAdmit/DAppend): each trace event is
    /// conjoined with a compatible next event of the current derivative. Returns up to `limit`
    /// refined traces with the derivative reached, those closest to a dead state first when
    /// `toward_dead` (a cut-off of `dead_cutoff`), and only nullable ends when `accepting_only`.
    #[allow(clippy::too_many_arguments)]
    pub fn match_trace(
        &mut self,
        oracle: &mut dyn EventOracle,
        trace: &[Event],
        r: &Sre,
        accepting_only: bool,
        toward_dead: bool,
        dead_cutoff: usize,
        limit: usize,
    ) -> Vec<(Vec<Event>, Sre)> {
        let mut out = Vec::new();
        let mut stack: Vec<(Vec<Event>, Sre)> = vec![(Vec::new(), r.clone())];
        while let Some((done, d)) = stack.pop() {
            if out.len() >= limit {
                self.truncated += 1;
                break;
            }
            if done.len() == trace.len() {
                if !accepting_only || d.nullable() {
                    out.push((done, d));
                }
                continue;
            }
            if accepting_only && d.is_empty() {
                continue;
            }
            let ev = &trace[done.len()];
            let mut choices: Vec<(usize, Event, Sre)> = Vec::new();
            for (l, d2) in self.successors(oracle, &d, !accepting_only) {
                if !l.compatible(ev) {
                    continue;
                }
                let refined = ev.and(&l);
                if refined.is_bottom() || !oracle.satisfiable(&refined) {
                    continue;
                }
                if accepting_only && d2.is_empty() {
                    continue;
                }
                let rank = if toward_dead {
                    self.dist_to_dead(oracle, &d2, dead_cutoff)
                } else {
                    0
                };
                choices.push((rank, refined, d2));
            }
            choices.sort_by_key(|c| std::cmp::Reverse(c.0)); // stack: best popped first
            for (_, refined, d2) in choices {
                let mut p = done.clone();
                p.push(refined);
                stack.push((p, d2));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::Sort;

    fn elem(n: &str) -> Term {
        Term::var(n, Sort::Named("Elem.t".into()))
    }

    fn lt(a: Term, b: Term) -> Term {
        Term::app("elem_lt", vec![a, b], Sort::Bool)
    }

    #[test]
    fn variables_are_named_in_the_order_of_their_first_occurrence() {
        // y occurs first, then x; the second occurrence of y keeps its name
        let t = Term::and([Term::eq(elem("y"), elem("x")), lt(elem("x"), elem("y"))]);
        let expected = Term::and([Term::eq(elem("%0"), elem("%1")), lt(elem("%1"), elem("%0"))]);
        assert_eq!(canonical_names(&t), expected);
        // the same formula over other names is the same canonical formula
        let u = Term::and([
            Term::eq(elem("r_97"), elem("a_3")),
            lt(elem("a_3"), elem("r_97")),
        ]);
        assert_eq!(canonical_names(&u), expected);
        // a different shape is not: here the first variable is compared twice
        let v = Term::and([Term::eq(elem("y"), elem("x")), lt(elem("y"), elem("x"))]);
        assert_ne!(canonical_names(&v), expected);
    }

    #[test]
    fn quantified_variables_and_sorts_are_kept() {
        let a = Rc::<str>::from("a");
        let body = Term::implies(lt(elem("a"), elem("k")), Term::var("b", Sort::Bool));
        let t = Term::Forall(
            vec![(a, Sort::Named("Elem.t".into()))].into(),
            Rc::new(body),
        );
        let Term::Forall(vs, body) = canonical_names(&t) else {
            panic!("a quantifier stays a quantifier");
        };
        assert_eq!(&*vs[0].0, "a");
        let expected = Term::implies(lt(elem("a"), elem("%0")), Term::var("%1", Sort::Bool));
        assert_eq!(*body, expected);
    }

    #[test]
    fn events_equal_up_to_their_variables_are_one_solver_query() {
        let mut solver = Solver::new(10_000);
        let mut memo = EventMemo::default();
        let mut oracle = SmtOracle::with_memo(&mut solver, &mut memo);
        // `put k` with k the result of two different calls: the same question
        let put = |k: &str| Event::atom("put", Term::eq(elem("#0"), elem(k)));
        assert!(oracle.satisfiable(&put("r_9")));
        assert!(oracle.satisfiable(&put("r_25")));
        // an event that no call belongs to stays unsatisfiable under the renaming
        let never = |k: &str| {
            Event::atom(
                "put",
                Term::and([lt(elem("#0"), elem(k)), Term::eq(elem("#0"), elem(k))]),
            )
        };
        let mut solver2 = Solver::new(10_000);
        // lt a b implies a ≠ b, so `#0 < k ∧ #0 = k` has no call
        let (a, b) = (Rc::<str>::from("a"), Rc::<str>::from("b"));
        let elem_sort = Sort::Named("Elem.t".into());
        solver2.add_axiom(Term::Forall(
            vec![(a, elem_sort.clone()), (b, elem_sort)].into(),
            Rc::new(Term::implies(
                lt(elem("a"), elem("b")),
                Term::negation(Term::eq(elem("a"), elem("b"))),
            )),
        ));
        let mut memo2 = EventMemo::default();
        let mut oracle2 = SmtOracle::with_memo(&mut solver2, &mut memo2);
        assert!(!oracle2.satisfiable(&never("x_2")));
        assert!(!oracle2.satisfiable(&never("cur_1")));
        assert_eq!(solver2.stats().queries, 1);
        assert_eq!(solver.stats().queries, 1);
        assert_eq!(solver.stats().cache_hits, 1);
    }
}
