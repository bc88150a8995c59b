//! Linear forms of terms: `Σ cᵢ·xᵢ + k` with exact rational coefficients, for the comparisons
//! of a path condition. Rounding, integer division, calendar functions, products of inputs and
//! conditionals have no linear form; their comparisons stay as they are.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use smt::catala::{Op, Term, TermNode, VarId};
use std::collections::BTreeMap;

/// `Σ coefficient·variable + constant`, without zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    pub coefficients: BTreeMap<VarId, BigRational>,
    pub constant: BigRational,
}

/// The rational value of a constant written in decimal (`-12`) or as a fraction.
pub fn rational(numerator: &str, denominator: &str) -> Option<BigRational> {
    let n: BigInt = numerator.parse().ok()?;
    let d: BigInt = denominator.parse().ok()?;
    (!d.is_zero()).then(|| BigRational::new(n, d))
}

impl Linear {
    fn constant(k: BigRational) -> Linear {
        Linear {
            coefficients: BTreeMap::new(),
            constant: k,
        }
    }

    /// The constant value when no variable is left.
    pub fn as_constant(&self) -> Option<&BigRational> {
        self.coefficients.is_empty().then_some(&self.constant)
    }

    fn plus(mut self, other: Linear, sign: &BigRational) -> Linear {
        for (v, c) in other.coefficients {
            let e = self.coefficients.entry(v).or_insert_with(BigRational::zero);
            *e += c * sign;
        }
        self.constant += other.constant * sign;
        self.coefficients.retain(|_, c| !c.is_zero());
        self
    }

    fn times(self, f: &BigRational) -> Linear {
        if f.is_zero() {
            return Linear::constant(BigRational::zero());
        }
        Linear {
            coefficients: self
                .coefficients
                .into_iter()
                .map(|(v, c)| (v, c * f))
                .collect(),
            constant: self.constant * f,
        }
    }

    /// The linear form of `t`, if it has one.
    pub fn of(t: &Term) -> Option<Linear> {
        match &**t {
            TermNode::Var(v, _) => Some(Linear {
                coefficients: [(*v, BigRational::one())].into_iter().collect(),
                constant: BigRational::zero(),
            }),
            TermNode::Int(s) => Some(Linear::constant(rational(s, "1")?)),
            TermNode::Real(n, d) => Some(Linear::constant(rational(n, d)?)),
            TermNode::Bool(_) => None,
            TermNode::App(op, args) => {
                let one = BigRational::one();
                match (op, args.as_slice()) {
                    (Op::ToReal, [a]) => Linear::of(a),
                    (Op::Neg, [a]) => Some(Linear::of(a)?.times(&-one)),
                    (Op::Add, _) => args
                        .iter()
                        .try_fold(Linear::constant(BigRational::zero()), |acc, a| {
                            Some(acc.plus(Linear::of(a)?, &one))
                        }),
                    (Op::Sub, [first, rest @ ..]) => {
                        rest.iter().try_fold(Linear::of(first)?, |acc, a| {
                            Some(acc.plus(Linear::of(a)?, &-one.clone()))
                        })
                    }
                    (Op::Mul, [a, b]) => {
                        let (la, lb) = (Linear::of(a)?, Linear::of(b)?);
                        match (la.as_constant(), lb.as_constant()) {
                            (Some(k), _) => Some(lb.times(k)),
                            (_, Some(k)) => Some(la.times(k)),
                            _ => None,
                        }
                    }
                    (Op::Div, [a, b]) => {
                        let k = Linear::of(b)?.as_constant()?.clone();
                        if k.is_zero() {
                            return None;
                        }
                        Some(Linear::of(a)?.times(&(one / k)))
                    }
                    _ => None,
                }
            }
        }
    }

    /// `self − other`.
    pub fn minus(self, other: Linear) -> Linear {
        self.plus(other, &-BigRational::one())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::catala::term::{app, int_const, real_const, var};
    use smt::catala::Kind;

    #[test]
    fn sums_differences_and_constant_factors_are_linear() {
        let x = var(VarId(0), Kind::Int);
        let y = var(VarId(1), Kind::Int);
        // 2·(x − y) + 7 − x  =  x − 2y + 7
        let t = app(
            Op::Sub,
            vec![
                app(
                    Op::Add,
                    vec![
                        app(
                            Op::Mul,
                            vec![int_const("2"), app(Op::Sub, vec![x.clone(), y.clone()])],
                        ),
                        int_const("7"),
                    ],
                ),
                x.clone(),
            ],
        );
        let l = Linear::of(&t).unwrap();
        assert_eq!(
            l.coefficients.get(&VarId(0)),
            Some(&rational("1", "1").unwrap())
        );
        assert_eq!(
            l.coefficients.get(&VarId(1)),
            Some(&rational("-2", "1").unwrap())
        );
        assert_eq!(l.constant, rational("7", "1").unwrap());
        // x / 4 is linear, x·y and round(x) are not.
        let quarter = app(
            Op::Div,
            vec![app(Op::ToReal, vec![x.clone()]), real_const("4", "1")],
        );
        assert_eq!(
            Linear::of(&quarter).unwrap().coefficients.get(&VarId(0)),
            Some(&rational("1", "4").unwrap())
        );
        assert!(Linear::of(&app(Op::Mul, vec![x.clone(), y])).is_none());
        assert!(Linear::of(&app(Op::Round, vec![quarter])).is_none());
    }
}
