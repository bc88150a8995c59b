//! Catala's rounding as integer constraints, for the queries of the relational exploration.
//! A relational query compares the outputs of two runs, e.g. `round(a / 4) ≥ round(b / 4)`
//! with `a ≤ b`: Z3 answers such mixed integer/real problems with `to_int` slowly or not at
//! all. When the argument of a rounding is a linear combination of integer terms with rational
//! coefficients, the rounding becomes a fresh integer `k` defined by integer inequalities
//! (`round(N / L)` with `N`, `L` integers and `N ≥ 0`: `2L·k ≤ 2N + L < 2L·k + 2L`), and a
//! comparison of such combinations becomes an integer comparison after scaling by the common
//! denominator. The definitions are exact (each `k` is a function of its argument), so they
//! are added as globals of the exploration.

use num_bigint::BigInt;
use smt::catala::term::{app, int_const, var, Kind, Op, Term, TermNode, VarId};
use std::collections::HashMap;

/// An exact rational `n / d` with `d > 0`.
#[derive(Clone, Debug, PartialEq)]
struct Q {
    n: BigInt,
    d: BigInt,
}

fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    let (mut a, mut b) = (a.magnitude().clone(), b.magnitude().clone());
    while b != num_bigint::BigUint::from(0u8) {
        let r = &a % &b;
        a = b;
        b = r;
    }
    BigInt::from(a)
}

impl Q {
    fn new(n: BigInt, d: BigInt) -> Option<Q> {
        if d == BigInt::from(0) {
            return None;
        }
        let (n, d) = if d < BigInt::from(0) {
            (-n, -d)
        } else {
            (n, d)
        };
        let g = gcd(&n, &d);
        if g == BigInt::from(0) {
            return Some(Q {
                n,
                d: BigInt::from(1),
            });
        }
        Some(Q {
            n: n / &g,
            d: d / &g,
        })
    }
    fn int(n: BigInt) -> Q {
        Q {
            n,
            d: BigInt::from(1),
        }
    }
    fn zero() -> Q {
        Q::int(BigInt::from(0))
    }
    fn is_zero(&self) -> bool {
        self.n == BigInt::from(0)
    }
    fn mul(&self, o: &Q) -> Q {
        Q::new(&self.n * &o.n, &self.d * &o.d).unwrap_or_else(Q::zero)
    }
    fn add(&self, o: &Q) -> Q {
        Q::new(&self.n * &o.d + &o.n * &self.d, &self.d * &o.d).unwrap_or_else(Q::zero)
    }
}

/// `Σ c·atom + constant` over integer-sorted atoms.
#[derive(Clone, Debug)]
struct Lin {
    atoms: Vec<(Term, Q)>,
    constant: Q,
}

impl Lin {
    fn constant(q: Q) -> Lin {
        Lin {
            atoms: Vec::new(),
            constant: q,
        }
    }
    fn scale(mut self, f: &Q) -> Lin {
        for (_, c) in &mut self.atoms {
            *c = c.mul(f);
        }
        self.constant = self.constant.mul(f);
        self
    }
    fn plus(mut self, o: Lin) -> Lin {
        for (t, c) in o.atoms {
            match self.atoms.iter_mut().find(|(u, _)| *u == t) {
                Some((_, d)) => *d = d.add(&c),
                None => self.atoms.push((t, c)),
            }
        }
        self.atoms.retain(|(_, c)| !c.is_zero());
        self.constant = self.constant.add(&o.constant);
        self
    }
    /// `(L, N)` with `N = L·self` an integer term, `L > 0`.
    fn integer(&self) -> (BigInt, Term) {
        let mut l = self.constant.d.clone();
        for (_, c) in &self.atoms {
            let g = gcd(&l, &c.d);
            l = &l * &c.d / g;
        }
        let scale = |q: &Q| &q.n * (&l / &q.d);
        let mut parts: Vec<Term> = self
            .atoms
            .iter()
            .map(|(t, c)| app(Op::Mul, vec![int_const(scale(c).to_string()), t.clone()]))
            .collect();
        parts.push(int_const(scale(&self.constant).to_string()));
        (l, app(Op::Add, parts))
    }
}

fn parse(text: &str) -> Option<BigInt> {
    text.parse().ok()
}

/// The linear form of `t` over integer atoms (`None`: a real variable, a product of
/// non-constants, a division by a non-constant).
fn linear(t: &Term) -> Option<Lin> {
    match &**t {
        TermNode::Int(s) => Some(Lin::constant(Q::int(parse(s)?))),
        TermNode::Real(n, d) => Some(Lin::constant(Q::new(parse(n)?, parse(d)?)?)),
        TermNode::Var(_, Kind::Int) => Some(Lin {
            atoms: vec![(t.clone(), Q::int(BigInt::from(1)))],
            constant: Q::zero(),
        }),
        TermNode::App(op, args) => match op {
            Op::ToReal => linear(args.first()?),
            Op::Neg => Some(linear(args.first()?)?.scale(&Q::int(BigInt::from(-1)))),
            Op::Add => args.iter().try_fold(Lin::constant(Q::zero()), |acc, a| {
                Some(acc.plus(linear(a)?))
            }),
            Op::Sub => {
                let mut acc = linear(args.first()?)?;
                for a in &args[1..] {
                    acc = acc.plus(linear(a)?.scale(&Q::int(BigInt::from(-1))));
                }
                Some(acc)
            }
            Op::Mul => {
                let mut acc = Lin::constant(Q::int(BigInt::from(1)));
                for a in args {
                    let f = linear(a)?;
                    if f.atoms.is_empty() {
                        acc = acc.scale(&f.constant);
                    } else if acc.atoms.is_empty() {
                        let k = acc.constant.clone();
                        acc = f.scale(&k);
                    } else {
                        return None;
                    }
                }
                Some(acc)
            }
            Op::Div => {
                let a = linear(args.first()?)?;
                let b = linear(args.get(1)?)?;
                if !b.atoms.is_empty() || b.constant.is_zero() {
                    return None;
                }
                let inv = Q::new(b.constant.d.clone(), b.constant.n.clone())?;
                Some(a.scale(&inv))
            }
            _ if t.kind() == Kind::Int => Some(Lin {
                atoms: vec![(t.clone(), Q::int(BigInt::from(1)))],
                constant: Q::zero(),
            }),
            _ => None,
        },
        _ => None,
    }
}

fn mul_int(c: BigInt, t: Term) -> Term {
    app(Op::Mul, vec![int_const(c.to_string()), t])
}

/// Rewrites terms, remembering the integer variable of each rounding.
pub(crate) struct IntRounding {
    next: u32,
    done: smt::fast_hash::FastMap<Term, Term>,
    /// Definitions not yet handed out by [`IntRounding::take_definitions`].
    fresh: Vec<Term>,
    /// The definition of each variable introduced.
    defined: HashMap<VarId, Term>,
}

impl IntRounding {
    /// Auxiliary variables are numbered from `first_var`.
    pub(crate) fn new(first_var: u32) -> IntRounding {
        IntRounding {
            next: first_var,
            done: Default::default(),
            fresh: Vec::new(),
            defined: HashMap::new(),
        }
    }

    /// The definitions of the variables `terms` use, and of those their definitions use.
    pub(crate) fn definitions_for(&self, terms: &[Term]) -> Vec<Term> {
        let mut pending = Vec::new();
        for t in terms {
            t.collect_vars(&mut pending);
        }
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        while let Some(v) = pending.pop() {
            if !seen.insert(v) {
                continue;
            }
            if let Some(d) = self.defined.get(&v) {
                d.collect_vars(&mut pending);
                out.push(d.clone());
            }
        }
        out
    }

    /// The definitions of the variables introduced since the last call.
    pub(crate) fn take_definitions(&mut self) -> Vec<Term> {
        std::mem::take(&mut self.fresh)
    }

    pub(crate) fn rewrite(&mut self, t: &Term) -> Term {
        if let Some(r) = self.done.get(t) {
            return r.clone();
        }
        let result = match &**t {
            TermNode::App(op, args) => {
                let args: Vec<Term> = args.iter().map(|a| self.rewrite(a)).collect();
                match op {
                    Op::Round | Op::Truncate if args.len() == 1 => match linear(&args[0]) {
                        Some(l) => self.define(*op, &l),
                        None => app(*op, args),
                    },
                    Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq
                        if args.len() == 2 && args.iter().any(|a| a.kind() == Kind::Real) =>
                    {
                        match (linear(&args[0]), linear(&args[1])) {
                            (Some(a), Some(b)) => {
                                let diff = a.plus(b.scale(&Q::int(BigInt::from(-1))));
                                let (_, n) = diff.integer();
                                app(*op, vec![n, int_const("0")])
                            }
                            _ => app(*op, args),
                        }
                    }
                    _ => app(*op, args),
                }
            }
            _ => t.clone(),
        };
        self.done.insert(t.clone(), result.clone());
        result
    }

    /// A fresh integer `k` equal to the rounding (`op`) of `l`, with its definition.
    fn define(&mut self, op: Op, l: &Lin) -> Term {
        let k = var(VarId(self.next), Kind::Int);
        self.next += 1;
        let (l, n) = l.integer();
        let zero = int_const("0");
        let nonneg = app(Op::Ge, vec![n.clone(), zero.clone()]);
        let negative = app(Op::Lt, vec![n.clone(), zero]);
        let lk = mul_int(l.clone(), k.clone());
        let (a, b) = if op == Op::Round {
            // q ≥ 0: k ≤ q + ½ < k + 1, i.e. 2Lk ≤ 2N + L < 2Lk + 2L;
            // q < 0: −k ≤ −q + ½ < −k + 1, i.e. −2Lk ≤ −2N + L < −2Lk + 2L.
            let two_l = BigInt::from(2) * &l;
            let twice_n_plus_l = app(
                Op::Add,
                vec![
                    mul_int(BigInt::from(2), n.clone()),
                    int_const(l.to_string()),
                ],
            );
            let minus_twice_n_plus_l = app(
                Op::Add,
                vec![
                    mul_int(BigInt::from(-2), n.clone()),
                    int_const(l.to_string()),
                ],
            );
            let two_lk = mul_int(two_l.clone(), k.clone());
            let minus_two_lk = mul_int(-two_l.clone(), k.clone());
            let a = app(
                Op::And,
                vec![
                    app(Op::Le, vec![two_lk.clone(), twice_n_plus_l.clone()]),
                    app(
                        Op::Lt,
                        vec![
                            twice_n_plus_l,
                            app(Op::Add, vec![two_lk, int_const(two_l.to_string())]),
                        ],
                    ),
                ],
            );
            let b = app(
                Op::And,
                vec![
                    app(
                        Op::Le,
                        vec![minus_two_lk.clone(), minus_twice_n_plus_l.clone()],
                    ),
                    app(
                        Op::Lt,
                        vec![
                            minus_twice_n_plus_l,
                            app(Op::Add, vec![minus_two_lk, int_const(two_l.to_string())]),
                        ],
                    ),
                ],
            );
            (a, b)
        } else {
            // Toward zero: q ≥ 0: Lk ≤ N < Lk + L; q < 0: Lk − L < N ≤ Lk.
            let a = app(
                Op::And,
                vec![
                    app(Op::Le, vec![lk.clone(), n.clone()]),
                    app(
                        Op::Lt,
                        vec![
                            n.clone(),
                            app(Op::Add, vec![lk.clone(), int_const(l.to_string())]),
                        ],
                    ),
                ],
            );
            let b = app(
                Op::And,
                vec![
                    app(
                        Op::Lt,
                        vec![
                            app(Op::Sub, vec![lk.clone(), int_const(l.to_string())]),
                            n.clone(),
                        ],
                    ),
                    app(Op::Le, vec![n, lk]),
                ],
            );
            (a, b)
        };
        let definition = app(
            Op::And,
            vec![app(Op::Or, vec![negative, a]), app(Op::Or, vec![nonneg, b])],
        );
        self.defined
            .insert(VarId(self.next - 1), definition.clone());
        self.fresh.push(definition);
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::catala::term::real_const;
    use smt::catala::{CatalaSession, QueryOutcome};

    /// round(x / 4) for x = 10 (2.5 → 3) and x = −10 (−2.5 → −3), truncate(−10 / 4) = −2.
    #[test]
    fn definitions_round_half_away_from_zero() {
        let x = var(VarId(0), Kind::Int);
        let q = app(
            Op::Div,
            vec![app(Op::ToReal, vec![x.clone()]), real_const("4", "1")],
        );
        for (value, op, expected) in [
            ("10", Op::Round, "3"),
            ("-10", Op::Round, "-3"),
            ("9", Op::Round, "2"),
            ("-10", Op::Truncate, "-2"),
            ("11", Op::Truncate, "2"),
        ] {
            let mut r = IntRounding::new(10);
            let k = r.rewrite(&app(op, vec![q.clone()]));
            let mut s = CatalaSession::new(None, false);
            for d in r.take_definitions() {
                s.add_global(&d).unwrap();
            }
            let fixed = app(Op::Eq, vec![x.clone(), int_const(value)]);
            let other = app(
                Op::Not,
                vec![app(Op::Eq, vec![k.clone(), int_const(expected)])],
            );
            assert_eq!(
                s.check_path(&[fixed.clone(), other]).unwrap(),
                QueryOutcome::Unsat,
                "{value} {op:?}"
            );
            let same = app(Op::Eq, vec![k, int_const(expected)]);
            assert_eq!(s.check_path(&[fixed, same]).unwrap(), QueryOutcome::Sat);
        }
    }
}
