//! Case splits for the queries Z3 gives up on. Money formulas multiply amounts by factors
//! that depend on a count (the number of dependants in a housing benefit, say) and round the
//! products: for Z3 that is nonlinear integer arithmetic, where one query can run for minutes.
//! When such a count has only a few values left under the query's own bounds (`0 ≤ n ≤ 10`,
//! `n ≠ 3`, …), fixing it makes every product linear, and the query splits into one easy query
//! per value: satisfiable when one of them is, unsatisfiable when all are.
//!
//! The bounds come from the conjuncts that compare one integer variable with a constant, as
//! asserted (the globals' input domains and the path's branch conditions); the variable split
//! on is the one with the fewest values among those that occur in a product of two
//! non-constant factors (or, failing that, among all variables of the query).

use super::term::{Kind, Op, Term, TermNode, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// The most values a variable may have left to be split on.
pub(crate) const MAX_CASES: usize = 32;

/// What the conjuncts say about one integer variable.
#[derive(Clone, Debug)]
struct Bounds {
    low: Option<i128>,
    high: Option<i128>,
    excluded: BTreeSet<i128>,
}

impl Bounds {
    fn values(&self) -> Option<Vec<i128>> {
        let (low, high) = (self.low?, self.high?);
        if high < low || high - low >= 4 * MAX_CASES as i128 {
            return None;
        }
        let values: Vec<i128> = (low..=high)
            .filter(|v| !self.excluded.contains(v))
            .collect();
        (values.len() <= MAX_CASES).then_some(values)
    }
}

/// The variable to split `terms` (a conjunction) on and its remaining values, in increasing
/// order: `None` when no variable of the query has between 2 and [`MAX_CASES`] values left.
pub(crate) fn split_variable(terms: &[&Term]) -> Option<(VarId, Vec<i128>)> {
    let mut bounds: BTreeMap<VarId, Bounds> = BTreeMap::new();
    let mut occurring = BTreeSet::new();
    let mut nonlinear = BTreeSet::new();
    for t in terms {
        conjunct_bounds(t, true, &mut bounds);
        collect(t, &mut occurring, &mut nonlinear);
    }
    let candidates = |among: &BTreeSet<VarId>| {
        among
            .iter()
            .filter_map(|v| Some((*v, bounds.get(v)?.values()?)))
            .filter(|(_, values)| values.len() >= 2)
            .min_by_key(|(v, values)| (values.len(), *v))
    };
    candidates(&nonlinear).or_else(|| candidates(&occurring))
}

/// Narrows `bounds` with `t` when `t` (negated when `positive` is false) is a conjunct that
/// compares an integer variable with a constant, or a conjunction of such.
fn conjunct_bounds(t: &Term, positive: bool, bounds: &mut BTreeMap<VarId, Bounds>) {
    let TermNode::App(op, args) = &**t else {
        return;
    };
    match (op, positive) {
        (Op::Not, _) if args.len() == 1 => conjunct_bounds(&args[0], !positive, bounds),
        (Op::And, true) => {
            for a in args {
                conjunct_bounds(a, true, bounds);
            }
        }
        (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq, _) if args.len() == 2 => {
            let (v, c, op) = match (&*args[0], &*args[1]) {
                (TermNode::Var(v, Kind::Int), TermNode::Int(c)) => (*v, c, *op),
                (TermNode::Int(c), TermNode::Var(v, Kind::Int)) => (*v, c, mirror(*op)),
                _ => return,
            };
            let Ok(c) = c.parse::<i128>() else {
                return;
            };
            let b = bounds.entry(v).or_insert(Bounds {
                low: None,
                high: None,
                excluded: BTreeSet::new(),
            });
            let raise = |b: &mut Bounds, l: i128| b.low = Some(b.low.map_or(l, |x| x.max(l)));
            let lower = |b: &mut Bounds, h: i128| b.high = Some(b.high.map_or(h, |x| x.min(h)));
            match (op, positive) {
                (Op::Ge, true) | (Op::Lt, false) => raise(b, c),
                (Op::Gt, true) | (Op::Le, false) => raise(b, c.saturating_add(1)),
                (Op::Le, true) | (Op::Gt, false) => lower(b, c),
                (Op::Lt, true) | (Op::Ge, false) => lower(b, c.saturating_sub(1)),
                (Op::Eq, true) => {
                    raise(b, c);
                    lower(b, c);
                }
                (Op::Eq, false) => {
                    b.excluded.insert(c);
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// `c op v` as `v op' c`.
fn mirror(op: Op) -> Op {
    match op {
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        other => other,
    }
}

/// Adds the integer variables of `t` to `occurring`, and to `nonlinear` those occurring in a
/// product of two factors that both hold a variable.
fn collect(t: &Term, occurring: &mut BTreeSet<VarId>, nonlinear: &mut BTreeSet<VarId>) {
    match &**t {
        TermNode::Var(v, Kind::Int) => {
            occurring.insert(*v);
        }
        TermNode::App(op, args) => {
            if *op == Op::Mul && args.iter().filter(|a| !a.is_ground()).count() >= 2 {
                let mut vars = Vec::new();
                t.collect_vars(&mut vars);
                nonlinear.extend(vars);
            }
            for a in args {
                collect(a, occurring, nonlinear);
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

    fn cmp(op: Op, v: u32, c: &str) -> Term {
        app(op, vec![int(v), int_const(c)])
    }

    #[test]
    fn bounds_and_exclusions_leave_the_values_to_try() {
        // 0 ≤ n ≤ 10, n ≠ 0 … n ≠ 6 (as the housing paths state it): 7, 8, 9, 10 are left.
        let mut terms = vec![cmp(Op::Ge, 0, "0"), cmp(Op::Le, 0, "10")];
        for k in 0..=6 {
            terms.push(not(&cmp(Op::Eq, 0, &k.to_string())));
        }
        // A product of n with an amount makes n the variable to split on.
        terms.push(app(
            Op::Le,
            vec![app(Op::Mul, vec![int(0), int(1)]), int_const("30473")],
        ));
        let refs: Vec<&Term> = terms.iter().collect();
        assert_eq!(split_variable(&refs), Some((VarId(0), vec![7, 8, 9, 10])));
    }

    #[test]
    fn negated_and_mirrored_comparisons_bound_too() {
        // ¬(n ≥ 4) and 1 < n: n ∈ {2, 3}.
        let terms = [
            not(&cmp(Op::Ge, 2, "4")),
            app(Op::Lt, vec![int_const("1"), int(2)]),
        ];
        let refs: Vec<&Term> = terms.iter().collect();
        assert_eq!(split_variable(&refs), Some((VarId(2), vec![2, 3])));
    }

    #[test]
    fn unbounded_single_valued_or_wide_variables_are_not_split() {
        let unbounded = [cmp(Op::Ge, 0, "0")];
        let single = [cmp(Op::Ge, 0, "3"), cmp(Op::Le, 0, "3")];
        let wide = [cmp(Op::Ge, 0, "0"), cmp(Op::Le, 0, "1000")];
        for terms in [&unbounded[..], &single[..], &wide[..]] {
            let refs: Vec<&Term> = terms.iter().collect();
            assert_eq!(split_variable(&refs), None, "{terms:?}");
        }
    }

    #[test]
    fn a_variable_in_a_product_goes_before_a_smaller_domain() {
        // b ∈ {0, 1} occurs only linearly; n ∈ {0…5} multiplies an amount: n is chosen.
        let terms = [
            cmp(Op::Ge, 0, "0"),
            cmp(Op::Le, 0, "5"),
            cmp(Op::Ge, 1, "0"),
            cmp(Op::Le, 1, "1"),
            app(
                Op::Eq,
                vec![
                    app(Op::Add, vec![app(Op::Mul, vec![int(0), int(2)]), int(1)]),
                    int_const("7"),
                ],
            ),
        ];
        let refs: Vec<&Term> = terms.iter().collect();
        assert_eq!(
            split_variable(&refs).map(|(v, vs)| (v, vs.len())),
            Some((VarId(0), 6))
        );
    }
}
