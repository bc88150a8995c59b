//! One path condition as a conjunction over the inputs: for each input the set of values it
//! may take (a truth value, enumeration cases, a union of intervals), and for each constraint
//! that bounds no single input a truth value of that constraint. Sets equal to the input's
//! domain are left out, so a case says only what the path requires.

use crate::inputs::{Inputs, Unit};
use crate::numset::NumSet;
use crate::term_text::literal_texts;
use num_bigint::BigInt;
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

/// Builds the case of one path.
pub(crate) struct CaseBuilder<'a> {
    pub(crate) inputs: &'a Inputs,
}

impl CaseBuilder<'_> {
    /// The conjunction of the path's constraints, `None` when they contradict each other.
    pub(crate) fn case(&self, path: &[Term]) -> Option<Work> {
        let mut work = Work::new();
        for t in path {
            self.add(&mut work, t, true)?;
        }
        // A set equal to the domain says nothing.
        let keys: Vec<Key> = work.keys().cloned().collect();
        for k in keys {
            if work.get(&k) == domain(&k, self.inputs).as_ref() {
                work.remove(&k);
            }
        }
        Some(work)
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

    fn add(&self, work: &mut Work, t: &Term, positive: bool) -> Option<()> {
        match &**t {
            TermNode::Bool(b) => return (*b == positive).then_some(()),
            TermNode::Var(v, Kind::Bool) => {
                return self.restrict(work, Key::Input(*v), Allowed::Truth(positive))
            }
            TermNode::App(Op::Not, args) if args.len() == 1 => {
                return self.add(work, &args[0], !positive)
            }
            TermNode::App(Op::And, args) if positive => {
                for a in args {
                    self.add(work, a, true)?;
                }
                return Some(());
            }
            TermNode::App(Op::Or, args) if !positive => {
                for a in args {
                    self.add(work, a, false)?;
                }
                return Some(());
            }
            _ => {}
        }
        if let Some((v, set)) = self.inputs.bound_of(t, positive) {
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
            return self.restrict(work, Key::Input(v), allowed);
        }
        let (text, negated) = literal_texts(t, self.inputs);
        let key = Key::Literal(Arc::new(Literal { text, negated }));
        self.restrict(work, key, Allowed::Truth(positive))
    }
}
