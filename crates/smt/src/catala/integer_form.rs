//! Decimal terms over integers, in Z3 without reals. Catala's money formulas multiply amounts
//! (integers: cents) by decimal rates and round the products to the cent; encoded as they are
//! written, each rounding is `to_int` of a real, and Z3 has to reason on a mixed problem of
//! reals and integers, where its integer arithmetic is weakest. But such a decimal term is a
//! fraction `n / d` of an integer term `n` (a polynomial of the integer terms it reads, with
//! integer coefficients) by a positive constant `d` (the common denominator of its constants)
//! whenever it only adds, subtracts, multiplies and divides by constants. Then:
//!
//! - rounding half away from zero is a fresh integer `r` defined by
//!   `n ≥ 0 → 2d·r ≤ 2n + d < 2d·r + 2d` and `n < 0 → 2d·r ≥ 2n − d > 2d·r − 2d`
//!   (that is `r = ⌊(2n + d) / 2d⌋ = ⌊n/d + ½⌋` for `n ≥ 0`, and `r = −⌊−n/d + ½⌋` below);
//!   truncation likewise with `d·r ≤ n < d·r + d` and `d·r ≥ n > d·r − d`; when `d = 1` the
//!   rounding is `n` itself (an amount times a whole number);
//! - a comparison of two such terms `n₁ / d₁ ⋈ n₂ / d₂` is `n₁·d₂ ⋈ n₂·d₁` (`d₁, d₂ > 0`).
//!
//! Each definition has exactly one solution `r` for every value of `n`, the one the rounding
//! gives, so the encoding is exact; like the calendar's, the definitions go with every
//! assertion that uses them. A term with a division by a non-constant, a decimal input, or a
//! decimal `if` has no such form and keeps the real encoding.

use super::encoder::Encoder;
use super::query::EncodeError;
use super::rational::{gcd, parse_q, Q};
use super::term::{Kind, Op, Term, TermNode};
use z3::ast::{Ast, Bool, Int};
use z3::Context;

/// A decimal term as an integer fraction.
#[derive(Clone)]
pub(crate) enum Fraction {
    /// A constant.
    Const(Q),
    /// `n / d`, `d > 0`.
    Ratio(Int<'static>, i128),
}

fn constant(ctx: &'static Context, n: i128) -> Int<'static> {
    Int::from_str(ctx, &n.to_string()).unwrap_or_else(|| Int::from_i64(ctx, 0))
}

/// `k·x` (`x` itself when `k = 1`).
fn scaled(ctx: &'static Context, k: i128, x: &Int<'static>) -> Int<'static> {
    if k == 1 {
        x.clone()
    } else {
        Int::mul(ctx, &[&constant(ctx, k), x])
    }
}

fn lcm(a: i128, b: i128) -> Option<i128> {
    (a / gcd(a, b).max(1)).checked_mul(b)
}

impl Fraction {
    /// `(numerator, denominator)` with the numerator in Z3.
    fn parts(&self, ctx: &'static Context) -> (Int<'static>, i128) {
        match self {
            Fraction::Const(q) => (constant(ctx, q.n), q.d),
            Fraction::Ratio(n, d) => (n.clone(), *d),
        }
    }

    fn add(self, other: Fraction, ctx: &'static Context) -> Option<Fraction> {
        if let (Fraction::Const(a), Fraction::Const(b)) = (&self, &other) {
            return a.add(*b).map(Fraction::Const);
        }
        let ((n1, d1), (n2, d2)) = (self.parts(ctx), other.parts(ctx));
        let d = lcm(d1, d2)?;
        let n = Int::add(ctx, &[&scaled(ctx, d / d1, &n1), &scaled(ctx, d / d2, &n2)]);
        Some(Fraction::Ratio(n, d))
    }

    fn neg(self) -> Option<Fraction> {
        Some(match self {
            Fraction::Const(q) => Fraction::Const(q.neg()?),
            Fraction::Ratio(n, d) => Fraction::Ratio(n.unary_minus(), d),
        })
    }

    fn mul(self, other: Fraction, ctx: &'static Context) -> Option<Fraction> {
        Some(match (self, other) {
            (Fraction::Const(a), Fraction::Const(b)) => Fraction::Const(a.mul(b)?),
            (Fraction::Const(q), Fraction::Ratio(n, d))
            | (Fraction::Ratio(n, d), Fraction::Const(q)) => {
                // n·q.n / (d·q.d), reduced by what q.n and d·q.d share.
                let den = d.checked_mul(q.d)?;
                let g = gcd(q.n, den).max(1);
                Fraction::Ratio(scaled(ctx, q.n / g, &n), den / g)
            }
            (Fraction::Ratio(n1, d1), Fraction::Ratio(n2, d2)) => {
                Fraction::Ratio(Int::mul(ctx, &[&n1, &n2]), d1.checked_mul(d2)?)
            }
        })
    }

    fn div_by(self, q: Q, ctx: &'static Context) -> Option<Fraction> {
        if q.n == 0 {
            return None;
        }
        self.mul(Fraction::Const(Q::new(q.d, q.n)?), ctx)
    }
}

impl Encoder {
    /// The integer fraction of a decimal (or integer) term, `None` when it has none.
    pub(crate) fn fraction(&mut self, t: &Term) -> Result<Option<Fraction>, EncodeError> {
        let ctx = self.ctx();
        if t.kind() == Kind::Int {
            return Ok(Some(match &**t {
                TermNode::Int(s) => match s.parse::<i128>() {
                    Ok(n) => Fraction::Const(Q::int(n)),
                    Err(_) => return Ok(None),
                },
                _ => Fraction::Ratio(self.encode_int(t)?, 1),
            }));
        }
        let TermNode::App(op, args) = &**t else {
            return Ok(match &**t {
                TermNode::Real(n, d) => parse_q(n, d).map(Fraction::Const),
                _ => None,
            });
        };
        let mut parts = Vec::with_capacity(args.len());
        for a in args {
            match self.fraction(a)? {
                Some(f) => parts.push(f),
                None => return Ok(None),
            }
        }
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else {
            return Ok(None);
        };
        Ok(match op {
            Op::ToReal => Some(first),
            Op::Neg => first.neg(),
            Op::Add => parts.try_fold(first, |acc, p| acc.add(p, ctx)),
            Op::Sub => parts.try_fold(first, |acc, p| acc.add(p.neg()?, ctx)),
            Op::Mul => parts.try_fold(first, |acc, p| acc.mul(p, ctx)),
            Op::Div => match parts.next() {
                Some(Fraction::Const(q)) => first.div_by(q, ctx),
                _ => None,
            },
            _ => None,
        })
    }

    /// `Round` or `Truncate` of `f` as an integer, its definition noted for the assertion.
    pub(crate) fn rounded(&mut self, op: Op, f: Fraction) -> Int<'static> {
        let ctx = self.ctx();
        let (n, d) = match f {
            Fraction::Const(q) => {
                let r = if op == Op::Round {
                    q.round()
                } else {
                    q.truncate()
                };
                return constant(ctx, r.n);
            }
            Fraction::Ratio(n, 1) => return n,
            Fraction::Ratio(n, d) => (n, d),
        };
        let r = Int::fresh_const(ctx, "rounded");
        // Round: 2d·r ≤ 2n + d < 2d·r + 2d (n ≥ 0); Truncate: d·r ≤ n < d·r + d.
        let (scale, num, half) = match op {
            Op::Round => (2, scaled(ctx, 2, &n), d),
            _ => (1, n.clone(), 0),
        };
        let width = scale * d;
        let low = scaled(ctx, width, &r);
        let up = Int::add(ctx, &[&low, &constant(ctx, width)]);
        let down = Int::sub(ctx, &[&low, &constant(ctx, width)]);
        let above = Int::add(ctx, &[&num, &constant(ctx, half)]);
        let below = Int::sub(ctx, &[&num, &constant(ctx, half)]);
        let zero = Int::from_i64(ctx, 0);
        let positive = n.ge(&zero);
        let definition = Bool::and(
            ctx,
            &[
                &positive.implies(&Bool::and(ctx, &[&low.le(&above), &above.lt(&up)])),
                &positive
                    .not()
                    .implies(&Bool::and(ctx, &[&low.ge(&below), &below.gt(&down)])),
            ],
        );
        self.note_definition(definition);
        r
    }

    /// `a ⋈ b` over integer fractions, `None` when either has none.
    pub(crate) fn compared(
        &mut self,
        op: Op,
        a: &Term,
        b: &Term,
    ) -> Result<Option<Bool<'static>>, EncodeError> {
        let (Some(fa), Some(fb)) = (self.fraction(a)?, self.fraction(b)?) else {
            return Ok(None);
        };
        let ctx = self.ctx();
        let ((n1, d1), (n2, d2)) = (fa.parts(ctx), fb.parts(ctx));
        let (x, y) = (scaled(ctx, d2, &n1), scaled(ctx, d1, &n2));
        Ok(Some(match op {
            Op::Lt => x.lt(&y),
            Op::Le => x.le(&y),
            Op::Gt => x.gt(&y),
            Op::Ge => x.ge(&y),
            _ => x._eq(&y),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, real_const, var, VarId};
    use z3::SatResult;

    fn amount() -> Term {
        var(VarId(0), Kind::Int)
    }

    /// `op(amount × n/d)` as Catala builds it: the integer amount made a decimal.
    fn rounding(op: Op, n: &str, d: &str) -> Term {
        app(
            op,
            vec![app(
                Op::Mul,
                vec![app(Op::ToReal, vec![amount()]), real_const(n, d)],
            )],
        )
    }

    /// Whether the conjunction of `terms` is satisfiable, as the encoder asserts it.
    fn satisfiable(e: &mut Encoder, terms: &[Term]) -> SatResult {
        let refs: Vec<&Term> = terms.iter().collect();
        let solver = z3::Solver::new(e.ctx());
        for b in e.assertions(&refs).unwrap_or_else(|e| panic!("{e:?}")) {
            solver.assert(&b);
        }
        solver.check()
    }

    /// `t` has the value `expected` when the amount is `x`, and no other.
    fn only_value(t: &Term, x: i64, expected: i64) {
        let mut e = Encoder::new();
        let at = app(Op::Eq, vec![amount(), int_const(x.to_string())]);
        let is = app(Op::Eq, vec![t.clone(), int_const(expected.to_string())]);
        let not = app(Op::Not, vec![is.clone()]);
        assert_eq!(
            satisfiable(&mut e, &[at.clone(), is]),
            SatResult::Sat,
            "{t} at {x}"
        );
        assert_eq!(
            satisfiable(&mut e, &[at, not]),
            SatResult::Unsat,
            "{t} at {x}"
        );
    }

    #[test]
    fn roundings_of_an_amount_times_a_rate_are_exact_and_unique() {
        // Half away from zero: 2/3 → 1 (0.67), −2/3 → −1, 3 × 2/3 = 2; 1/2 → 1, −1/2 → −1,
        // 1.5 → 2, −1.5 → −2; 7/5 = 1.4 → 1, −1.4 → −1, 8/5 = 1.6 → 2.
        let two_thirds = rounding(Op::Round, "2", "3");
        let half = rounding(Op::Round, "1", "2");
        let fifth = rounding(Op::Round, "1", "5");
        for (t, x, expected) in [
            (&two_thirds, 1, 1),
            (&two_thirds, -1, -1),
            (&two_thirds, 3, 2),
            (&two_thirds, 0, 0),
            (&half, 1, 1),
            (&half, -1, -1),
            (&half, 3, 2),
            (&half, -3, -2),
            (&fifth, 7, 1),
            (&fifth, -7, -1),
            (&fifth, 8, 2),
        ] {
            only_value(t, x, expected);
        }
        // Toward zero: 5/2 → 2, −5/2 → −2, −2/3 → 0, 10/3 → 3.
        let trunc_half = rounding(Op::Truncate, "1", "2");
        let trunc_thirds = rounding(Op::Truncate, "2", "3");
        for (t, x, expected) in [
            (&trunc_half, 5, 2),
            (&trunc_half, -5, -2),
            (&trunc_thirds, -1, 0),
            (&trunc_thirds, 5, 3),
        ] {
            only_value(t, x, expected);
        }
    }

    #[test]
    fn roundings_and_comparisons_of_fractions_reach_z3_without_reals() {
        // A rate times an amount rounded, compared with a decimal: no real in the script.
        let t = app(
            Op::Gt,
            vec![
                app(Op::ToReal, vec![rounding(Op::Round, "17", "200")]),
                real_const("1", "2"),
            ],
        );
        let mut e = Encoder::new();
        let script = e.smt_lib(&[&t]).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(
            !script.contains("to_int") && !script.contains("Real"),
            "{script}"
        );
        // 47.23 € × (n − 1), as the housing benefits' formulas write it: a whole number of
        // cents, so its rounding is the product itself (no rounding constant).
        let n = var(VarId(1), Kind::Int);
        let whole = app(
            Op::Round,
            vec![app(
                Op::Mul,
                vec![
                    app(Op::ToReal, vec![int_const("4723")]),
                    app(Op::ToReal, vec![app(Op::Sub, vec![n, int_const("1")])]),
                ],
            )],
        );
        let ge = app(Op::Ge, vec![whole, int_const("0")]);
        let script = e.smt_lib(&[&ge]).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!script.contains("rounded"), "{script}");
        // amount × 1/3 > 1/2 holds from 2 on.
        let third = app(
            Op::Mul,
            vec![app(Op::ToReal, vec![amount()]), real_const("1", "3")],
        );
        let above = app(Op::Gt, vec![third, real_const("1", "2")]);
        for (x, holds) in [(1, false), (2, true), (-5, false)] {
            let at = app(Op::Eq, vec![amount(), int_const(x.to_string())]);
            let expected = if holds {
                SatResult::Sat
            } else {
                SatResult::Unsat
            };
            assert_eq!(
                satisfiable(&mut e, &[at, above.clone()]),
                expected,
                "amount = {x}"
            );
        }
    }

    #[test]
    fn divisions_by_variables_and_decimal_inputs_have_no_integer_form() {
        let mut e = Encoder::new();
        let ratio = app(
            Op::Div,
            vec![
                app(Op::ToReal, vec![amount()]),
                app(Op::ToReal, vec![amount()]),
            ],
        );
        assert!(matches!(e.fraction(&ratio), Ok(None)));
        assert!(matches!(e.fraction(&var(VarId(2), Kind::Real)), Ok(None)));
        // They keep the real encoding, and are still encoded.
        let t = app(Op::Gt, vec![ratio, real_const("1", "2")]);
        assert!(e.smt_lib(&[&t]).is_ok_and(|s| s.contains("/")));
    }
}
