//! Rounding queries refuted without Z3. A rounding query asks whether the path condition
//! still holds with some inputs fixed at candidate values (the money amounts rounded, dates
//! moved to the first of a month). Every other variable is free for Z3 to change, except
//! those the path condition itself pins to a constant (`b`, `¬b`, `v = c`, or `c ≤ v ≤ c`).
//! When a constraint whose variables are all fixed or pinned evaluates, exactly, to false at
//! those values, no model has them: the query is unsatisfiable, and Z3 need not be asked.
//! Such a query is only ever answered "no", so skipping it changes no answer and no input.
//!
//! On the housing benefits, most rounding queries are of this kind: a path that compares a
//! rounded formula of the amounts with a scale fixes the amounts to within the scale's step,
//! and the round candidates fall outside.

use super::query::ModelValue;
use super::term::{Kind, Op, Term, TermNode, VarId};
use std::collections::{BTreeMap, HashSet};

/// The constraints of one query with their variables, and the variables the query pins.
pub(crate) struct PinnedFacts {
    /// Each constraint with its variables (sorted, without duplicates).
    terms: Vec<(Term, Vec<VarId>)>,
    /// Variables every model gives one value, with that value.
    pinned: BTreeMap<VarId, ModelValue>,
}

impl PinnedFacts {
    /// The facts of the conjunction of `terms`.
    pub(crate) fn of(terms: &[Term]) -> PinnedFacts {
        let mut pinned = BTreeMap::new();
        let mut bounds: BTreeMap<VarId, (Option<i128>, Option<i128>)> = BTreeMap::new();
        for t in terms {
            pins(t, &mut pinned, &mut bounds);
        }
        for (v, (lo, hi)) in bounds {
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if lo == hi {
                    pinned
                        .entry(v)
                        .or_insert_with(|| ModelValue::Int(lo.to_string()));
                }
            }
        }
        PinnedFacts {
            terms: terms.iter().map(|t| (t.clone(), vars_of(t))).collect(),
            pinned,
        }
    }

    /// Whether some constraint, all of whose variables are in `fixed` (at these values) or
    /// pinned, is false there: then the query with `fixed` has no model.
    pub(crate) fn refutes(&self, fixed: &[(VarId, i128)]) -> bool {
        let value = |v: &VarId| -> Option<ModelValue> {
            match fixed.iter().find(|(u, _)| u == v) {
                Some((_, x)) => Some(ModelValue::Int(x.to_string())),
                None => self.pinned.get(v).cloned(),
            }
        };
        self.terms.iter().any(|(t, vars)| {
            if vars.is_empty() || !vars.iter().any(|v| fixed.iter().any(|(u, _)| u == v)) {
                // Nothing fixed in it: the model satisfies it as the path query did.
                return false;
            }
            let Some(values) = vars
                .iter()
                .map(|v| Some((*v, value(v)?)))
                .collect::<Option<BTreeMap<VarId, ModelValue>>>()
            else {
                return false;
            };
            super::guess::truth(t, &values) == Some(false)
        })
    }
}

/// The variables of `t`, each shared node visited once.
fn vars_of(t: &Term) -> Vec<VarId> {
    let mut seen: HashSet<*const TermNode> = HashSet::new();
    let mut out = Vec::new();
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if !seen.insert(std::rc::Rc::as_ptr(t)) {
            continue;
        }
        match &**t {
            TermNode::Var(v, _) => {
                if let Err(i) = out.binary_search(v) {
                    out.insert(i, *v);
                }
            }
            TermNode::App(_, args) => stack.extend(args.iter()),
            _ => {}
        }
    }
    out
}

/// Records what the constraint `t` pins: a boolean variable or its negation, a variable
/// equal to a constant, constant bounds of an integer variable; inside conjunctions.
fn pins(
    t: &Term,
    pinned: &mut BTreeMap<VarId, ModelValue>,
    bounds: &mut BTreeMap<VarId, (Option<i128>, Option<i128>)>,
) {
    let constant = |t: &Term| -> Option<ModelValue> {
        match &**t {
            TermNode::Bool(b) => Some(ModelValue::Bool(*b)),
            TermNode::Int(s) => Some(ModelValue::Int(s.clone())),
            TermNode::Real(n, d) => Some(ModelValue::Real(n.clone(), d.clone())),
            _ => None,
        }
    };
    match &**t {
        TermNode::Var(v, Kind::Bool) => {
            pinned.entry(*v).or_insert(ModelValue::Bool(true));
        }
        TermNode::App(Op::Not, args) if args.len() == 1 => {
            if let TermNode::Var(v, Kind::Bool) = &*args[0] {
                pinned.entry(*v).or_insert(ModelValue::Bool(false));
            }
        }
        TermNode::App(Op::And, args) => args.iter().for_each(|a| pins(a, pinned, bounds)),
        TermNode::App(Op::Eq, args) if args.len() == 2 => {
            let (a, b) = (&args[0], &args[1]);
            let found = match (&**a, &**b) {
                (TermNode::Var(v, _), _) => constant(b).map(|c| (*v, c)),
                (_, TermNode::Var(v, _)) => constant(a).map(|c| (*v, c)),
                _ => None,
            };
            if let Some((v, c)) = found {
                pinned.entry(v).or_insert(c);
            }
        }
        TermNode::App(op @ (Op::Le | Op::Lt | Op::Ge | Op::Gt), args) if args.len() == 2 => {
            let int = |t: &Term| match &**t {
                TermNode::Int(s) => s.parse::<i128>().ok(),
                _ => None,
            };
            // v op c, or c op v read as v op' c.
            let (v, op, c) = match (&*args[0], &*args[1]) {
                (TermNode::Var(v, Kind::Int), _) => match int(&args[1]) {
                    Some(c) => (*v, *op, c),
                    None => return,
                },
                (_, TermNode::Var(v, Kind::Int)) => match int(&args[0]) {
                    Some(c) => (
                        *v,
                        match op {
                            Op::Le => Op::Ge,
                            Op::Lt => Op::Gt,
                            Op::Ge => Op::Le,
                            _ => Op::Lt,
                        },
                        c,
                    ),
                    None => return,
                },
                _ => return,
            };
            let entry = bounds.entry(v).or_insert((None, None));
            let (lo, hi) = match op {
                Op::Ge => (Some(c), None),
                Op::Gt => (c.checked_add(1), None),
                Op::Le => (None, Some(c)),
                _ => (None, c.checked_sub(1)),
            };
            if let Some(lo) = lo {
                entry.0 = Some(entry.0.map_or(lo, |x| x.max(lo)));
            }
            if let Some(hi) = hi {
                entry.1 = Some(entry.1.map_or(hi, |x| x.min(hi)));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, not, var};

    fn int(v: u32) -> Term {
        var(VarId(v), Kind::Int)
    }

    #[test]
    fn a_false_constraint_over_fixed_and_pinned_variables_refutes() {
        // v1 = 3, 0 ≤ v2 ≤ 0, b3 and v0 · v1 + v2 ≤ 1,000,000: with v0 fixed at 400,000 the
        // product is 1,200,000 > 1,000,000 whatever else a model chooses; at 300,000 it holds.
        let terms = vec![
            app(Op::Eq, vec![int(1), int_const("3")]),
            app(Op::Ge, vec![int(2), int_const("0")]),
            app(Op::Le, vec![int(2), int_const("0")]),
            var(VarId(3), Kind::Bool),
            app(
                Op::Le,
                vec![
                    app(Op::Add, vec![app(Op::Mul, vec![int(0), int(1)]), int(2)]),
                    int_const("1000000"),
                ],
            ),
        ];
        let facts = PinnedFacts::of(&terms);
        assert!(facts.refutes(&[(VarId(0), 400_000)]));
        assert!(!facts.refutes(&[(VarId(0), 300_000)]));
    }

    #[test]
    fn a_free_variable_in_the_false_constraint_leaves_the_question_to_z3() {
        // v0 = v4 + 1 with v4 free: v0 = 10,000 is possible with v4 = 9,999.
        let terms = vec![
            app(
                Op::Eq,
                vec![int(0), app(Op::Add, vec![int(4), int_const("1")])],
            ),
            app(Op::Ge, vec![int(4), int_const("5")]),
            not(&var(VarId(5), Kind::Bool)),
        ];
        let facts = PinnedFacts::of(&terms);
        assert!(!facts.refutes(&[(VarId(0), 10_000)]));
        // With v4 pinned by two bounds it is refuted.
        let mut pinned = terms.clone();
        pinned.push(app(Op::Le, vec![int(4), int_const("5")]));
        assert!(PinnedFacts::of(&pinned).refutes(&[(VarId(0), 10_000)]));
        assert!(!PinnedFacts::of(&pinned).refutes(&[(VarId(0), 6)]));
    }
}
