//! One path condition as a conjunction over the inputs: for each input the set of values it
//! may take (a truth value, enumeration cases, a union of intervals), and for each constraint
//! that bounds no single input a truth value of that constraint. Sets equal to the input's
//! domain are left out, so a case says only what the path requires.

use crate::inputs::{Inputs, Unit};
use crate::numset::NumSet;
use crate::term_text::literal_texts;
use num_bigint::BigInt;
use smt::catala::term::{app, bool_const, int_const};
use smt::catala::{Kind, Op, Term, TermNode, VarId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A constraint over several inputs: its text and the text of its negation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Literal {
    pub(crate) text: String,
    pub(crate) negated: String,
}

/// What a case constrains: an input, or a constraint over several inputs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Key {
    Input(VarId),
    Literal(Arc<Literal>),
}

/// The values allowed for a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Allowed {
    Truth(bool),
    Cases(BTreeSet<u32>),
    Numbers(NumSet),
}

/// A conjunction: every key not listed is unconstrained.
pub(crate) type Work = BTreeMap<Key, Allowed>;

/// The whole domain of a key.
pub(crate) fn domain(key: &Key, inputs: &Inputs) -> Option<Allowed> {
    match key {
        Key::Literal(_) => None,
        Key::Input(v) => match inputs.info(*v).unit {
            Unit::Bool => None,
            Unit::Choice(names) => Some(Allowed::Cases((0..names.len() as u32).collect())),
            _ => Some(Allowed::Numbers(inputs.domain(*v))),
        },
    }
}

/// `a ∩ b`, `None` when empty.
fn intersect(a: &Allowed, b: &Allowed) -> Option<Allowed> {
    let out = match (a, b) {
        (Allowed::Truth(x), Allowed::Truth(y)) => return (x == y).then_some(a.clone()),
        (Allowed::Cases(x), Allowed::Cases(y)) => {
            Allowed::Cases(x.intersection(y).copied().collect())
        }
        (Allowed::Numbers(x), Allowed::Numbers(y)) => Allowed::Numbers(x.intersect(y)),
        _ => return Some(a.clone()),
    };
    (!is_empty(&out)).then_some(out)
}

fn is_empty(a: &Allowed) -> bool {
    match a {
        Allowed::Truth(_) => false,
        Allowed::Cases(c) => c.is_empty(),
        Allowed::Numbers(n) => n.is_empty(),
    }
}

/// `a ∪ b`, `None` when it is the whole domain `full` (or every truth value).
pub(crate) fn union(a: &Allowed, b: &Allowed, full: &Option<Allowed>) -> Option<Allowed> {
    let out = match (a, b) {
        (Allowed::Truth(x), Allowed::Truth(y)) => return (x == y).then_some(a.clone()),
        (Allowed::Cases(x), Allowed::Cases(y)) => Allowed::Cases(x.union(y).copied().collect()),
        (Allowed::Numbers(x), Allowed::Numbers(y)) => Allowed::Numbers(x.union(y)),
        _ => return None,
    };
    (Some(&out) != full.as_ref()).then_some(out)
}

/// True when every value of `a` is in `b`.
pub(crate) fn is_subset(a: &Allowed, b: &Allowed) -> bool {
    match (a, b) {
        (Allowed::Truth(x), Allowed::Truth(y)) => x == y,
        (Allowed::Cases(x), Allowed::Cases(y)) => x.is_subset(y),
        (Allowed::Numbers(x), Allowed::Numbers(y)) => x.is_subset(y),
        _ => false,
    }
}

/// The complement of `a` within the domain of `key`.
fn complement(a: &Allowed, key: &Key, inputs: &Inputs) -> Allowed {
    match (a, domain(key, inputs)) {
        (Allowed::Truth(b), _) => Allowed::Truth(!b),
        (Allowed::Cases(c), Some(Allowed::Cases(all))) => {
            Allowed::Cases(all.difference(c).copied().collect())
        }
        (Allowed::Numbers(n), Some(Allowed::Numbers(d))) => {
            Allowed::Numbers(n.complement().intersect(&d))
        }
        (Allowed::Numbers(n), _) => Allowed::Numbers(n.complement()),
        (other, _) => other.clone(),
    }
}

/// A boolean term read against the sets a case already has.
enum Reduced {
    Const(bool),
    /// Holds exactly when the input is in the set.
    Set(VarId, Allowed),
    /// Depends on several inputs, or on something other than bounds.
    Mixed,
}

/// The most values of an input a case is split on, and the most cases one path gives.
const SPLIT_VALUES: usize = 16;
const SPLIT_CASES: usize = 256;

/// Builds the cases of one path.
pub(crate) struct CaseBuilder<'a> {
    pub(crate) inputs: &'a Inputs,
    /// The parts a path may still be split into.
    budget: std::cell::Cell<usize>,
}

/// The most parts the splits of one path make in all.
const SPLIT_BUDGET: usize = 1024;

impl<'a> CaseBuilder<'a> {
    pub(crate) fn new(inputs: &'a Inputs) -> CaseBuilder<'a> {
        CaseBuilder {
            inputs,
            budget: std::cell::Cell::new(SPLIT_BUDGET),
        }
    }

    /// The path condition as a disjunction of cases (one, unless a constraint over several
    /// inputs was split over the values of a finite one); none when it contradicts itself.
    pub(crate) fn cases(&self, path: &[Term]) -> Vec<Work> {
        self.budget.set(SPLIT_BUDGET);
        let mut work = Work::new();
        let mut pending = Vec::new();
        for t in path {
            if self.add(&mut work, &mut pending, t, true).is_none() {
                return Vec::new();
            }
        }
        self.settle(work, pending)
    }

    /// Removes the sets equal to their domain (they say nothing).
    fn trim(&self, mut work: Work) -> Work {
        let keys: Vec<Key> = work.keys().cloned().collect();
        for k in keys {
            if work.get(&k) == domain(&k, self.inputs).as_ref() {
                work.remove(&k);
            }
        }
        work
    }

    fn restrict(&self, work: &mut Work, key: Key, allowed: Allowed) -> Option<()> {
        let current = work
            .get(&key)
            .cloned()
            .or_else(|| domain(&key, self.inputs));
        let next = match current {
            Some(c) => intersect(&c, &allowed)?,
            None => allowed,
        };
        work.insert(key, next);
        Some(())
    }

    /// Bounds and flags go straight into the case; other constraints wait in `pending`.
    fn add(
        &self,
        work: &mut Work,
        pending: &mut Vec<(Term, bool)>,
        t: &Term,
        positive: bool,
    ) -> Option<()> {
        match &**t {
            TermNode::Bool(b) => (*b == positive).then_some(()),
            TermNode::Var(v, Kind::Bool) => {
                self.restrict(work, Key::Input(*v), Allowed::Truth(positive))
            }
            TermNode::App(Op::Not, args) if args.len() == 1 => {
                self.add(work, pending, &args[0], !positive)
            }
            TermNode::App(Op::And, args) if positive => {
                for a in args {
                    self.add(work, pending, a, true)?;
                }
                Some(())
            }
            TermNode::App(Op::Or, args) if !positive => {
                for a in args {
                    self.add(work, pending, a, false)?;
                }
                Some(())
            }
            _ => match self.bound(t) {
                Some((v, set)) => {
                    let key = Key::Input(v);
                    let set = if positive {
                        set
                    } else {
                        complement(&set, &key, self.inputs)
                    };
                    self.restrict(work, key, set)
                }
                None => {
                    pending.push((t.clone(), positive));
                    Some(())
                }
            },
        }
    }

    /// A comparison bounding one input, as the set of values it allows.
    fn bound(&self, t: &Term) -> Option<(VarId, Allowed)> {
        let (v, set) = self.inputs.bound_of(t, true)?;
        let allowed = match self.inputs.info(v).unit {
            Unit::Choice(names) => Allowed::Cases(
                (0..names.len() as u32)
                    .filter(|c| {
                        let n = num_rational::BigRational::from_integer(BigInt::from(*c));
                        set.intersect(&NumSet::compare(true, crate::numset::Cmp::Eq, n))
                            .single()
                            .is_some()
                    })
                    .collect(),
            ),
            _ => Allowed::Numbers(set),
        };
        Some((v, allowed))
    }

    /// `v ∈ set` read against the case: decided when the case's set for `v` lies inside or
    /// outside `set`.
    fn decide(&self, work: &Work, v: VarId, set: Allowed) -> Reduced {
        let key = Key::Input(v);
        let Some(current) = work
            .get(&key)
            .cloned()
            .or_else(|| domain(&key, self.inputs))
        else {
            return Reduced::Set(v, set);
        };
        if is_subset(&current, &set) {
            Reduced::Const(true)
        } else if intersect(&current, &set).is_none() {
            Reduced::Const(false)
        } else {
            Reduced::Set(v, set)
        }
    }

    fn reduce(&self, work: &Work, t: &Term) -> Reduced {
        match &**t {
            TermNode::Bool(b) => Reduced::Const(*b),
            TermNode::Var(v, Kind::Bool) => self.decide(work, *v, Allowed::Truth(true)),
            TermNode::App(Op::Not, args) if args.len() == 1 => match self.reduce(work, &args[0]) {
                Reduced::Const(b) => Reduced::Const(!b),
                Reduced::Set(v, s) => {
                    let c = complement(&s, &Key::Input(v), self.inputs);
                    self.decide(work, v, c)
                }
                Reduced::Mixed => Reduced::Mixed,
            },
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                let and = *op == Op::And;
                let mut acc: Option<(VarId, Allowed)> = None;
                let mut mixed = false;
                for a in args {
                    match self.reduce(work, a) {
                        Reduced::Const(b) if b == and => {}
                        Reduced::Const(b) => return Reduced::Const(b),
                        Reduced::Mixed => mixed = true,
                        Reduced::Set(v, s) => match acc.take() {
                            None => acc = Some((v, s)),
                            Some((w, prev)) if w == v => {
                                let key = Key::Input(v);
                                let joined = if and {
                                    intersect(&prev, &s)
                                } else {
                                    union(&prev, &s, &None)
                                };
                                match joined {
                                    Some(j) => acc = Some((v, j)),
                                    // An empty intersection: false; a union of every truth
                                    // value: true.
                                    None if and => return Reduced::Const(false),
                                    None => match domain(&key, self.inputs) {
                                        Some(d) => acc = Some((v, d)),
                                        None => return Reduced::Const(true),
                                    },
                                }
                            }
                            Some(_) => mixed = true,
                        },
                    }
                }
                match (mixed, acc) {
                    (true, _) => Reduced::Mixed,
                    (false, None) => Reduced::Const(and),
                    (false, Some((v, s))) => self.decide(work, v, s),
                }
            }
            _ => match self.bound(t) {
                Some((v, s)) => self.decide(work, v, s),
                None => Reduced::Mixed,
            },
        }
    }

    /// Reads the waiting constraints against the case until none changes; then splits the case
    /// over the values of finite inputs when that leaves no constraint over several inputs;
    /// what remains is kept as written.
    fn settle(&self, mut work: Work, mut pending: Vec<(Term, bool)>) -> Vec<Work> {
        loop {
            let mut changed = false;
            let mut rest = Vec::new();
            for (t, positive) in pending {
                match self.reduce(&work, &t) {
                    Reduced::Const(b) if b == positive => changed = true,
                    Reduced::Const(_) => return Vec::new(),
                    Reduced::Set(v, s) => {
                        let key = Key::Input(v);
                        let s = if positive {
                            s
                        } else {
                            complement(&s, &key, self.inputs)
                        };
                        if self.restrict(&mut work, key, s).is_none() {
                            return Vec::new();
                        }
                        changed = true;
                    }
                    Reduced::Mixed => rest.push((t, positive)),
                }
            }
            pending = rest;
            if !changed || pending.is_empty() {
                break;
            }
        }
        if pending.is_empty() {
            return vec![self.trim(work)];
        }
        if let Some(split) = self.split(&work, &pending) {
            return split;
        }
        for (t, positive) in pending {
            // What the case already decides is folded into the constraint before it is
            // written: `if days of d = 0 then … else …` under `days of d = 0` keeps its first
            // branch; a part known true or false leaves the conjunction or disjunction.
            let t = self.specialize(&work, &t);
            match self.reduce(&work, &t) {
                Reduced::Const(b) if b == positive => continue,
                Reduced::Const(_) => return Vec::new(),
                Reduced::Set(v, s) => {
                    let key = Key::Input(v);
                    let s = if positive {
                        s
                    } else {
                        complement(&s, &key, self.inputs)
                    };
                    if self.restrict(&mut work, key, s).is_none() {
                        return Vec::new();
                    }
                    continue;
                }
                Reduced::Mixed => {}
            }
            let (text, negated) = literal_texts(&t, self.inputs);
            let key = Key::Literal(Arc::new(Literal { text, negated }));
            if self
                .restrict(&mut work, key, Allowed::Truth(positive))
                .is_none()
            {
                return Vec::new();
            }
        }
        vec![self.trim(work)]
    }

    /// `t` with what the case decides folded in: boolean parts the case makes true or false
    /// become constants, a conditional whose condition is decided becomes its branch, and an
    /// integer input the case fixes to one value becomes that value.
    fn specialize(&self, work: &Work, t: &Term) -> Term {
        if t.kind() == Kind::Bool {
            if let Reduced::Const(b) = self.reduce(work, t) {
                return bool_const(b);
            }
        }
        match &**t {
            TermNode::Var(v, Kind::Int)
                if matches!(self.inputs.info(*v).unit, Unit::Integer | Unit::Count) =>
            {
                match work.get(&Key::Input(*v)) {
                    Some(Allowed::Numbers(n)) => match n.single() {
                        Some(q) if q.is_integer() => int_const(q.to_integer().to_string()),
                        _ => t.clone(),
                    },
                    _ => t.clone(),
                }
            }
            TermNode::App(Op::Ite, args) if args.len() == 3 => match self.reduce(work, &args[0]) {
                Reduced::Const(true) => self.specialize(work, &args[1]),
                Reduced::Const(false) => self.specialize(work, &args[2]),
                _ => app(
                    Op::Ite,
                    args.iter().map(|a| self.specialize(work, a)).collect(),
                ),
            },
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                let and = *op == Op::And;
                let mut kept = Vec::new();
                for a in args {
                    let a = self.specialize(work, a);
                    match &*a {
                        TermNode::Bool(b) if *b == and => {}
                        TermNode::Bool(_) => return a,
                        _ => kept.push(a),
                    }
                }
                match kept.len() {
                    0 => bool_const(and),
                    1 => kept.remove(0),
                    _ => app(*op, kept),
                }
            }
            TermNode::App(Op::Not, args) if args.len() == 1 => {
                let a = self.specialize(work, &args[0]);
                match &*a {
                    TermNode::Bool(b) => bool_const(!b),
                    _ => app(Op::Not, vec![a]),
                }
            }
            TermNode::App(op, args) => {
                app(*op, args.iter().map(|a| self.specialize(work, a)).collect())
            }
            _ => t.clone(),
        }
    }

    /// The single values a finite input may still take in the case.
    fn values(&self, work: &Work, v: VarId) -> Option<Vec<Allowed>> {
        let key = Key::Input(v);
        let current = work
            .get(&key)
            .cloned()
            .or_else(|| domain(&key, self.inputs));
        match current {
            None => Some(vec![Allowed::Truth(true), Allowed::Truth(false)]),
            Some(Allowed::Truth(b)) => Some(vec![Allowed::Truth(b)]),
            Some(Allowed::Cases(c)) => Some(
                c.iter()
                    .map(|i| Allowed::Cases([*i].into_iter().collect()))
                    .collect(),
            ),
            Some(Allowed::Numbers(n)) => {
                let ints = n.integers(SPLIT_VALUES)?;
                Some(
                    ints.into_iter()
                        .map(|i| {
                            let q = num_rational::BigRational::from_integer(i);
                            Allowed::Numbers(NumSet::compare(true, crate::numset::Cmp::Eq, q))
                        })
                        .collect(),
                )
            }
        }
        .filter(|vals| vals.len() <= SPLIT_VALUES)
    }

    /// The case split over the values of the finite inputs of one waiting constraint, the
    /// first that each part reads as decided or as a bound on one input; each part settles
    /// the other waiting constraints in turn. `None` when no constraint allows it within the
    /// path's budget of parts.
    fn split(&self, work: &Work, pending: &[(Term, bool)]) -> Option<Vec<Work>> {
        for (t, _) in pending {
            let mut vars = Vec::new();
            t.collect_vars(&mut vars);
            vars.sort();
            vars.dedup();
            let finite: Vec<(VarId, Vec<Allowed>)> = vars
                .iter()
                .filter_map(|v| Some((*v, self.values(work, *v)?)))
                .collect();
            let Some(combinations) = finite
                .iter()
                .try_fold(1usize, |n, (_, vals)| n.checked_mul(vals.len()))
            else {
                continue;
            };
            if finite.is_empty() || combinations > SPLIT_CASES || combinations > self.budget.get() {
                continue;
            }
            let mut parts = vec![work.clone()];
            for (v, vals) in &finite {
                let mut next = Vec::new();
                for p in &parts {
                    for val in vals {
                        let mut q = p.clone();
                        if self.restrict(&mut q, Key::Input(*v), val.clone()).is_some() {
                            next.push(q);
                        }
                    }
                }
                parts = next;
            }
            if parts
                .iter()
                .any(|p| matches!(self.reduce(p, t), Reduced::Mixed))
            {
                continue;
            }
            self.budget.set(self.budget.get() - combinations);
            let mut out = Vec::new();
            for p in parts {
                out.extend(self.settle(p, pending.to_vec()));
            }
            return Some(out);
        }
        None
    }
}
