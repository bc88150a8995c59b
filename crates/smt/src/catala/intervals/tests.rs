//! Tests of the interval refuter: hand-derived refutations and non-refutations (signs of
//! products, roundings, strict comparisons, divisions by what may be 0, sign splits), and random
//! queries checked against every assignment of a small box: nothing with a model is refuted.

use super::{refutes, refutes_splitting};
use crate::catala::guess::truth;
use crate::catala::query::ModelValue;
use crate::catala::term::{app, int_const, not, real_const, var, Kind, Op, Term, VarId};
use std::collections::BTreeMap;

fn int(i: u32) -> Term {
    var(VarId(i), Kind::Int)
}

fn k(n: i64) -> Term {
    int_const(n.to_string())
}

fn op(o: Op, args: &[Term]) -> Term {
    app(o, args.to_vec())
}

fn refuted(terms: &[Term]) -> bool {
    let refs: Vec<&Term> = terms.iter().collect();
    refutes(&refs)
}

/// round((rent − 750,100) × (3,150 + round(9 × (rate − 4,500) / 200)) / 100,000), the shape
/// of a housing formula: an amount past a threshold times a coefficient that grows with a
/// rate.
fn formula(rent: &Term, rate: &Term) -> Term {
    let coefficient = op(
        Op::Round,
        &[op(
            Op::Div,
            &[
                op(
                    Op::ToReal,
                    &[op(Op::Mul, &[k(9), op(Op::Sub, &[rate.clone(), k(4_500)])])],
                ),
                real_const("200", "1"),
            ],
        )],
    );
    let product = op(
        Op::Mul,
        &[
            op(Op::Sub, &[rent.clone(), k(750_100)]),
            op(Op::Add, &[k(3_150), coefficient]),
        ],
    );
    op(
        Op::Round,
        &[op(
            Op::Div,
            &[op(Op::ToReal, &[product]), real_const("100000", "1")],
        )],
    )
}

#[test]
fn a_product_of_factors_of_known_signs_refutes_its_sign() {
    // rate ≥ 4,500 makes the coefficient at least 0, so the second factor is at least 3,150;
    // a negative rent makes the first factor at most −750,101: the product is negative and
    // its rounding at most −23,628 (−750,101 × 3,150 / 100,000 = −23,628.18…), never ≥ 0.
    let (rent, rate) = (int(1), int(0));
    let needs = |extra: Term| {
        vec![
            op(Op::Ge, &[op(Op::Mul, &[k(20), rate.clone()]), k(90_000)]),
            op(Op::Ge, &[formula(&rent, &rate), k(0)]),
            extra,
        ]
    };
    assert!(refuted(&needs(not(&op(Op::Ge, &[rent.clone(), k(0)])))));
    // A rent past the threshold makes it satisfiable (rent = 750,100, any rate ≥ 4,500).
    assert!(!refuted(&needs(op(Op::Ge, &[rent.clone(), k(750_100)]))));
    // With the rounding bound one below what the negative rent allows (≤ −23,628), still
    // refuted; at −23,628 itself not (rent = −1, rate = 4,500 gives exactly −23,628).
    let at_most = |bound: i64| {
        vec![
            op(Op::Ge, &[op(Op::Mul, &[k(20), rate.clone()]), k(90_000)]),
            op(Op::Lt, &[rent.clone(), k(0)]),
            op(Op::Ge, &[formula(&rent, &rate), k(bound)]),
        ]
    };
    assert!(refuted(&at_most(-23_627)));
    assert!(!refuted(&at_most(-23_628)));
}

#[test]
fn roundings_are_half_away_from_zero_on_both_sides() {
    // x = 1: round(x / 2) = round(½) = 1; x = −1: round(−½) = −1.
    let half = |x: &Term| {
        op(
            Op::Round,
            &[op(
                Op::Div,
                &[
                    op(Op::ToReal, std::slice::from_ref(x)),
                    real_const("2", "1"),
                ],
            )],
        )
    };
    let x = int(0);
    for (value, rounded) in [(1, 1), (-1, -1)] {
        let at = op(Op::Eq, &[x.clone(), k(value)]);
        assert!(!refuted(&[at.clone(), op(Op::Eq, &[half(&x), k(rounded)])]));
        assert!(refuted(&[at.clone(), op(Op::Eq, &[half(&x), k(0)])]));
        assert!(refuted(&[at, op(Op::Eq, &[half(&x), k(-rounded)])]));
    }
}

#[test]
fn a_rounding_narrows_its_argument_to_within_half_a_unit() {
    // round(x / 2) = 1 and x < 2 over −10 ≤ x ≤ 10: x = 1 (round(½) = 1) is the one model, at
    // half a unit exactly from the rounded value; with x < 1 there is none.
    let x = int(0);
    let half = op(
        Op::Round,
        &[op(
            Op::Div,
            &[
                op(Op::ToReal, std::slice::from_ref(&x)),
                real_const("2", "1"),
            ],
        )],
    );
    let query = |bound: i64| {
        vec![
            op(Op::Ge, &[x.clone(), k(-10)]),
            op(Op::Le, &[x.clone(), k(10)]),
            op(Op::Eq, &[half.clone(), k(1)]),
            op(Op::Lt, &[x.clone(), k(bound)]),
        ]
    };
    assert!(!refuted(&query(2)));
    assert!(refuted(&query(1)));
}

#[test]
fn products_with_unbounded_factors_keep_their_signs() {
    // x ≤ −1 and y ≥ 1, unbounded on the other side: x·y ≤ −1, so x·y ≥ 0 has no model and
    // x·y ≤ −5 has (x = −5, y = 1).
    let (x, y) = (int(0), int(1));
    let query = |last: Term| {
        vec![
            op(Op::Le, &[x.clone(), k(-1)]),
            op(Op::Ge, &[y.clone(), k(1)]),
            last,
        ]
    };
    let xy = op(Op::Mul, &[x.clone(), y.clone()]);
    assert!(refuted(&query(op(Op::Ge, &[xy.clone(), k(0)]))));
    assert!(!refuted(&query(op(Op::Le, &[xy, k(-5)]))));
}

#[test]
fn a_factor_of_either_sign_is_split_on() {
    // x + y = 0 with x, y in [−5, 5]: x·y = −x² ≤ 0, so x·y ≥ 1 has no model. On intervals
    // alone x·y lies in [−25, 25] and nothing narrows (each factor may be 0); split on the sign
    // of x, each case gives the other factor the opposite sign and the product ≤ 0. A square
    // likewise: y·y ≤ −1 is refuted, y·y ≤ 0 is not (y = 0).
    let (x, y) = (int(0), int(1));
    let query = |least: i64| {
        vec![
            op(Op::Ge, &[x.clone(), k(-5)]),
            op(Op::Le, &[x.clone(), k(5)]),
            op(Op::Ge, &[y.clone(), k(-5)]),
            op(Op::Le, &[y.clone(), k(5)]),
            op(Op::Eq, &[op(Op::Add, &[x.clone(), y.clone()]), k(0)]),
            op(Op::Ge, &[op(Op::Mul, &[x.clone(), y.clone()]), k(least)]),
        ]
    };
    let unsat = query(1);
    let refs: Vec<&Term> = unsat.iter().collect();
    assert!(!refutes_splitting(&refs, 0));
    assert!(refutes_splitting(&refs, 1));
    assert!(refuted(&unsat));
    assert!(!refuted(&query(0)));
    let square = |most: i64| vec![op(Op::Le, &[op(Op::Mul, &[y.clone(), y.clone()]), k(most)])];
    assert!(refuted(&square(-1)));
    assert!(!refuted(&square(0)));
}

#[test]
fn a_disjunction_asserts_its_last_possible_operand() {
    let x = int(0);
    let outside = op(
        Op::Or,
        &[
            op(Op::Lt, &[x.clone(), k(0)]),
            op(Op::Gt, &[x.clone(), k(100)]),
        ],
    );
    let within = |hi: i64| {
        vec![
            op(Op::Ge, &[x.clone(), k(0)]),
            op(Op::Le, &[x.clone(), k(hi)]),
            outside.clone(),
        ]
    };
    assert!(refuted(&within(100)));
    assert!(!refuted(&within(101)));
}

#[test]
fn strict_comparisons_of_integers_and_of_decimals() {
    // Integers: 0 ≤ x < 1 and x ≠ 0 is empty; x + 1 ≤ y ≤ 1 with x ≥ 0 only allows y = 1.
    let (x, y) = (int(0), int(1));
    assert!(refuted(&[
        op(Op::Ge, &[x.clone(), k(0)]),
        op(Op::Lt, &[x.clone(), k(1)]),
        not(&op(Op::Eq, &[x.clone(), k(0)])),
    ]));
    assert!(refuted(&[
        op(Op::Ge, &[x.clone(), k(0)]),
        op(Op::Lt, &[x.clone(), y.clone()]),
        op(Op::Lt, &[y.clone(), k(1)]),
    ]));
    // Decimals: 0 < d < 1/100 has models (1/200); d > 1 and d ≤ 1 has none.
    let d = var(VarId(2), Kind::Real);
    assert!(!refuted(&[
        op(Op::Gt, &[d.clone(), real_const("0", "1")]),
        op(Op::Lt, &[d.clone(), real_const("1", "100")]),
    ]));
    assert!(refuted(&[
        op(Op::Gt, &[d.clone(), real_const("1", "1")]),
        op(Op::Le, &[d, real_const("1", "1")]),
    ]));
}

#[test]
fn a_division_by_what_may_be_zero_gives_no_bound() {
    // 10 / d < 0 with 0 ≤ d ≤ 1: Z3 leaves 10 / 0 unspecified (it may be negative), so this
    // is satisfiable for Z3 and must not be refuted; with 1 ≤ d ≤ 2 it is refuted.
    let d = var(VarId(0), Kind::Real);
    let negative = op(
        Op::Lt,
        &[
            op(Op::Div, &[real_const("10", "1"), d.clone()]),
            real_const("0", "1"),
        ],
    );
    let between = |lo: &str, hi: &str| {
        vec![
            op(Op::Ge, &[d.clone(), real_const(lo, "1")]),
            op(Op::Le, &[d.clone(), real_const(hi, "1")]),
            negative.clone(),
        ]
    };
    assert!(!refuted(&between("0", "1")));
    assert!(refuted(&between("1", "2")));
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn random_number(r: &mut Rng, depth: u32) -> Term {
    let leaf = depth == 0 || r.next(3) == 0;
    if leaf {
        return if r.next(2) == 0 {
            int(r.next(3) as u32)
        } else {
            k(r.next(9) as i64 - 4)
        };
    }
    let a = random_number(r, depth - 1);
    let b = random_number(r, depth - 1);
    match r.next(8) {
        0 => op(Op::Add, &[a, b]),
        1 => op(Op::Sub, &[a, b]),
        2 | 3 => op(Op::Mul, &[a, b]),
        4 => op(Op::Neg, &[a]),
        5 => {
            let den = ["2", "3", "5"][r.next(3) as usize];
            let rounding = if r.next(2) == 0 {
                Op::Round
            } else {
                Op::Truncate
            };
            op(
                rounding,
                &[op(Op::Div, &[op(Op::ToReal, &[a]), real_const(den, "1")])],
            )
        }
        6 => op(Op::IntDiv, &[a, k(1 + r.next(3) as i64)]),
        _ => {
            let c = random_condition(r, 0);
            op(Op::Ite, &[c, a, b])
        }
    }
}

fn random_condition(r: &mut Rng, depth: u32) -> Term {
    if depth > 0 && r.next(3) == 0 {
        let a = random_condition(r, depth - 1);
        let b = random_condition(r, depth - 1);
        return match r.next(3) {
            0 => op(Op::And, &[a, b]),
            1 => op(Op::Or, &[a, b]),
            _ => not(&a),
        };
    }
    let a = random_number(r, 2);
    let b = random_number(r, 1);
    let cmp = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq][r.next(5) as usize];
    let atom = op(cmp, &[a, b]);
    if r.next(3) == 0 {
        not(&atom)
    } else {
        atom
    }
}

#[test]
fn nothing_satisfiable_is_ever_refuted() {
    // Random queries over three integers in [−4, 4]: every assignment is tried with the exact
    // evaluator; a query with a model must not be refuted. Enough unsatisfiable ones are
    // refuted for the check to mean something.
    let mut r = Rng(0x5eed_1234_abcd_0001);
    let (mut refuted_unsat, mut unsat) = (0, 0);
    for _ in 0..1_500 {
        // Each variable bounded on both sides, or on one side only (a model found within
        // [−4, 4] is a model all the same).
        let mut terms: Vec<Term> = Vec::new();
        for i in 0..3 {
            let sides = r.next(3);
            if sides != 1 {
                terms.push(op(Op::Ge, &[int(i), k(-4)]));
            }
            if sides != 2 {
                terms.push(op(Op::Le, &[int(i), k(4)]));
            }
        }
        for _ in 0..1 + r.next(3) {
            terms.push(random_condition(&mut r, 2));
        }
        let mut satisfiable = false;
        'search: for a in -4..=4 {
            for b in -4..=4 {
                for c in -4..=4 {
                    let values: BTreeMap<VarId, ModelValue> = [(0, a), (1, b), (2, c)]
                        .into_iter()
                        .map(|(v, x): (u32, i32)| (VarId(v), ModelValue::Int(x.to_string())))
                        .collect();
                    if terms.iter().all(|t| truth(t, &values) == Some(true)) {
                        satisfiable = true;
                        break 'search;
                    }
                }
            }
        }
        let refuted = refuted(&terms);
        assert!(
            !(satisfiable && refuted),
            "a satisfiable query was refuted: {}",
            terms
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" ∧ ")
        );
        if !satisfiable {
            unsat += 1;
            refuted_unsat += usize::from(refuted);
        }
    }
    assert!(unsat > 200, "{unsat} unsatisfiable queries");
    assert!(
        refuted_unsat * 4 > unsat,
        "{refuted_unsat} of {unsat} refuted"
    );
}
