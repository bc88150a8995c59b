//! Whether a term can turn true while one integer variable moves within a range, every other
//! variable fixed: one evaluation of the term on spans (intervals with rational or infinite
//! bounds) and three-valued truths. The guesses probe a violated term along a variable by
//! doubling distances, up to 48 evaluations per direction; a direction on which the term is
//! false throughout (a bound pushed the wrong way, a comparison of the moving variable with a
//! fixed one it has already passed) is skipped at the cost of about one evaluation.
//!
//! Soundness: the span of a node contains every value the node takes at every point of the
//! range (operations without a cheap bound, such as a division by a non-constant or a calendar
//! operator, give the whole line, and so does an overflow), so a term false on the spans is
//! false, or cannot be evaluated, at every point. Nothing is ever concluded from "true".

use super::rational::{parse_q, Q};
use super::term::{Op, Term, TermNode, VarId};

/// Term nodes evaluated at most (the caller then probes as if nothing were known).
const NODE_LIMIT: usize = 2_000;

/// A fixed value of a variable other than the moving one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Point {
    Bool(bool),
    Num(Q),
}

/// An interval of rationals; `None` bounds are infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    lo: Option<Q>,
    hi: Option<Q>,
}

const LINE: Span = Span { lo: None, hi: None };

#[derive(Clone, Copy, Debug)]
enum A {
    /// A truth, `None` when it may be either.
    B(Option<bool>),
    N(Span),
}

fn cmp(a: Q, b: Q) -> Option<std::cmp::Ordering> {
    Some(a.n.checked_mul(b.d)?.cmp(&b.n.checked_mul(a.d)?))
}

fn min(a: Q, b: Q) -> Option<Q> {
    Some(if cmp(a, b)?.is_le() { a } else { b })
}

fn max(a: Q, b: Q) -> Option<Q> {
    Some(if cmp(a, b)?.is_ge() { a } else { b })
}

impl Span {
    fn point(q: Q) -> Span {
        Span {
            lo: Some(q),
            hi: Some(q),
        }
    }

    fn as_point(&self) -> Option<Q> {
        match (self.lo, self.hi) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    fn add(self, o: Span) -> Span {
        let bound = |a: Option<Q>, b: Option<Q>| a?.add(b?);
        Span {
            lo: bound(self.lo, o.lo),
            hi: bound(self.hi, o.hi),
        }
    }

    fn neg(self) -> Span {
        Span {
            lo: self.hi.and_then(Q::neg),
            hi: self.lo.and_then(Q::neg),
        }
    }

    /// `self × c` for a constant `c`.
    fn scale(self, c: Q) -> Span {
        let times = |b: Option<Q>| b?.mul(c);
        match c.n.signum() {
            0 => Span::point(Q::int(0)),
            1 => Span {
                lo: times(self.lo),
                hi: times(self.hi),
            },
            _ => Span {
                lo: times(self.hi),
                hi: times(self.lo),
            },
        }
    }

    fn mul(self, o: Span) -> Span {
        if let Some(c) = o.as_point() {
            return self.scale(c);
        }
        if let Some(c) = self.as_point() {
            return o.scale(c);
        }
        // Both bounded: the hull of the four corner products.
        let corners = || -> Option<Span> {
            let (a, b, c, d) = (self.lo?, self.hi?, o.lo?, o.hi?);
            let ps = [a.mul(c)?, a.mul(d)?, b.mul(c)?, b.mul(d)?];
            let mut lo = ps[0];
            let mut hi = ps[0];
            for p in &ps[1..] {
                lo = min(lo, *p)?;
                hi = max(hi, *p)?;
            }
            Some(Span {
                lo: Some(lo),
                hi: Some(hi),
            })
        };
        corners().unwrap_or(LINE)
    }

    /// `f` increasing: the span of its values.
    fn monotone(self, f: impl Fn(Q) -> Q) -> Span {
        Span {
            lo: self.lo.map(&f),
            hi: self.hi.map(&f),
        }
    }

    fn hull(self, o: Span) -> Span {
        let pick = |a: Option<Q>, b: Option<Q>, low: bool| {
            let (a, b) = (a?, b?);
            if low {
                min(a, b)
            } else {
                max(a, b)
            }
        };
        Span {
            lo: pick(self.lo, o.lo, true),
            hi: pick(self.hi, o.hi, false),
        }
    }

    /// Whether every value of `self` is below every value of `o` (`strict`: `<`, else `≤`).
    fn below(&self, o: &Span, strict: bool) -> bool {
        match (self.hi, o.lo) {
            (Some(a), Some(b)) => {
                cmp(a, b).is_some_and(|c| if strict { c.is_lt() } else { c.is_le() })
            }
            _ => false,
        }
    }
}

struct Spans<'a, F> {
    var: VarId,
    range: Span,
    fixed: &'a F,
    budget: usize,
}

impl<F: Fn(VarId) -> Option<Point>> Spans<'_, F> {
    fn eval(&mut self, t: &Term) -> A {
        let Some(b) = self.budget.checked_sub(1) else {
            return A::N(LINE);
        };
        self.budget = b;
        match &**t {
            TermNode::Var(v, _) if *v == self.var => A::N(self.range),
            TermNode::Var(v, _) => match (self.fixed)(*v) {
                Some(Point::Bool(b)) => A::B(Some(b)),
                Some(Point::Num(q)) => A::N(Span::point(q)),
                None => A::N(LINE),
            },
            TermNode::Bool(b) => A::B(Some(*b)),
            TermNode::Int(s) => A::N(s.parse().map_or(LINE, |n| Span::point(Q::int(n)))),
            TermNode::Real(n, d) => A::N(parse_q(n, d).map_or(LINE, Span::point)),
            TermNode::App(op, args) => self.app(*op, args),
        }
    }

    fn truth(&mut self, t: &Term) -> Option<bool> {
        match self.eval(t) {
            A::B(b) => b,
            A::N(_) => None,
        }
    }

    fn span(&mut self, t: &Term) -> Span {
        match self.eval(t) {
            A::N(s) => s,
            A::B(_) => LINE,
        }
    }

    fn app(&mut self, op: Op, args: &[Term]) -> A {
        let Some(first) = args.first() else {
            return A::B(None);
        };
        let second = args.get(1);
        match op {
            Op::Not => A::B(self.truth(first).map(|b| !b)),
            Op::And | Op::Or => {
                let absorbing = op == Op::Or;
                let mut all_known = true;
                for a in args {
                    match self.truth(a) {
                        Some(b) if b == absorbing => return A::B(Some(absorbing)),
                        Some(_) => {}
                        None => all_known = false,
                    }
                }
                A::B(all_known.then_some(!absorbing))
            }
            Op::Xor => {
                let a = self.truth(first);
                let b = second.and_then(|s| self.truth(s));
                A::B(a.zip(b).map(|(a, b)| a != b))
            }
            Op::Eq | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let Some(second) = second else {
                    return A::B(None);
                };
                match (self.eval(first), self.eval(second)) {
                    (A::N(a), A::N(b)) => A::B(compare(op, &a, &b)),
                    (A::B(Some(a)), A::B(Some(b))) if op == Op::Eq => A::B(Some(a == b)),
                    _ => A::B(None),
                }
            }
            Op::Add | Op::Sub | Op::Mul => {
                let mut acc = self.span(first);
                for a in &args[1..] {
                    let x = self.span(a);
                    acc = match op {
                        Op::Add => acc.add(x),
                        Op::Sub => acc.add(x.neg()),
                        _ => acc.mul(x),
                    };
                }
                A::N(acc)
            }
            Op::Neg => A::N(self.span(first).neg()),
            Op::ToReal => A::N(self.span(first)),
            Op::Div => {
                let a = self.span(first);
                let b = second.map_or(LINE, |s| self.span(s));
                A::N(match b.as_point() {
                    Some(c) if c.n != 0 => Q::int(1).div(c).map_or(LINE, |inv| a.scale(inv)),
                    _ => LINE,
                })
            }
            Op::Round => A::N(self.span(first).monotone(Q::round)),
            Op::Truncate => A::N(self.span(first).monotone(Q::truncate)),
            Op::Ite => match self.truth(first) {
                Some(true) => second.map_or(A::B(None), |s| self.eval(s)),
                Some(false) => args.get(2).map_or(A::B(None), |s| self.eval(s)),
                None => match (
                    second.map(|s| self.eval(s)),
                    args.get(2).map(|s| self.eval(s)),
                ) {
                    (Some(A::N(a)), Some(A::N(b))) => A::N(a.hull(b)),
                    (Some(A::B(Some(a))), Some(A::B(Some(b)))) if a == b => A::B(Some(a)),
                    (Some(A::B(_)), _) => A::B(None),
                    _ => A::N(LINE),
                },
            },
            Op::IntDiv
            | Op::Mod
            | Op::YearOf
            | Op::MonthOf
            | Op::DayOf
            | Op::DaysInMonth
            | Op::DayNumber => A::N(LINE),
        }
    }
}

/// The truth of `a op b` for every pair of values of the two spans, when it is one.
fn compare(op: Op, a: &Span, b: &Span) -> Option<bool> {
    match op {
        Op::Lt if a.below(b, true) => Some(true),
        Op::Lt if b.below(a, false) => Some(false),
        Op::Le if a.below(b, false) => Some(true),
        Op::Le if b.below(a, true) => Some(false),
        Op::Gt => compare(Op::Lt, b, a),
        Op::Ge => compare(Op::Le, b, a),
        Op::Eq if a.below(b, true) || b.below(a, true) => Some(false),
        Op::Eq => match (a.as_point(), b.as_point()) {
            (Some(x), Some(y)) if x == y => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `t` is false (or cannot be evaluated) at every value of the integer variable `var`
/// from `lo` to `hi`, every other variable at its value given by `fixed`; `false` says nothing.
pub(crate) fn false_along(
    t: &Term,
    var: VarId,
    (lo, hi): (i128, i128),
    fixed: &impl Fn(VarId) -> Option<Point>,
) -> bool {
    let mut spans = Spans {
        var,
        range: Span {
            lo: Some(Q::int(lo)),
            hi: Some(Q::int(hi)),
        },
        fixed,
        budget: NODE_LIMIT,
    };
    spans.truth(t) == Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, not, var, Kind};

    fn x() -> Term {
        var(VarId(0), Kind::Int)
    }

    fn y() -> Term {
        var(VarId(1), Kind::Int)
    }

    fn y_at(n: i128) -> impl Fn(VarId) -> Option<Point> {
        move |v| (v == VarId(1)).then_some(Point::Num(Q::int(n)))
    }

    #[test]
    fn a_comparison_already_passed_is_false_along_the_whole_direction() {
        // x < y with y = 100: false for x in [100, 10^6], open below.
        let t = app(Op::Lt, vec![x(), y()]);
        assert!(false_along(&t, VarId(0), (100, 1_000_000), &y_at(100)));
        assert!(!false_along(&t, VarId(0), (99, 1_000_000), &y_at(100)));
        assert!(!false_along(&t, VarId(0), (-1_000_000, 0), &y_at(100)));
    }

    #[test]
    fn sums_scaled_by_constants_and_roundings_keep_their_bounds() {
        // not (x - y > round(x × 1/5)), y = 0: x - round(x/5) > 0 for every x ≥ 1, so the
        // negation is false there; at x = 0 it is true.
        let fifth = crate::catala::term::real_const("1", "5");
        let scaled = app(
            Op::Round,
            vec![app(Op::Mul, vec![app(Op::ToReal, vec![x()]), fifth])],
        );
        let diff = app(Op::ToReal, vec![app(Op::Sub, vec![x(), y()])]);
        let t = not(&app(Op::Gt, vec![diff, app(Op::ToReal, vec![scaled])]));
        // Spans lose the correlation between x and round(x/5): nothing is concluded.
        assert!(!false_along(&t, VarId(0), (1, 1 << 40), &y_at(0)));
        // Along y, with x fixed at 10000: x - y > 2000 for y < 8000.
        let x_at = |v: VarId| (v == VarId(0)).then_some(Point::Num(Q::int(10_000)));
        assert!(false_along(&t, VarId(1), (-(1 << 40), 7_999), &x_at));
        assert!(!false_along(&t, VarId(1), (-(1 << 40), 8_000), &x_at));
    }

    #[test]
    fn a_negative_factor_reverses_the_bounds() {
        // -2x over x in [1, 4] is [-8, -2]: never above 0, sometimes above -5.
        let doubled = app(Op::Mul, vec![x(), int_const("-2")]);
        let above = |c: &str| app(Op::Gt, vec![doubled.clone(), int_const(c)]);
        assert!(false_along(&above("0"), VarId(0), (1, 4), &y_at(0)));
        assert!(!false_along(&not(&above("-5")), VarId(0), (1, 4), &y_at(0)));
        assert!(false_along(&not(&above("-9")), VarId(0), (1, 4), &y_at(0)));
    }

    #[test]
    fn an_equality_is_false_only_off_its_point_and_unknown_variables_decide_nothing() {
        let t = app(Op::Eq, vec![x(), int_const("0")]);
        assert!(false_along(&t, VarId(0), (1, 1 << 47), &y_at(0)));
        assert!(!false_along(&t, VarId(0), (0, 1 << 47), &y_at(0)));
        // x < y with y unknown: nothing.
        let t = app(Op::Lt, vec![x(), y()]);
        assert!(!false_along(&t, VarId(0), (100, 200), &|_| None));
    }

    #[test]
    fn a_division_by_the_moving_variable_gives_no_bound() {
        let t = app(
            Op::Gt,
            vec![
                app(
                    Op::Div,
                    vec![app(Op::ToReal, vec![y()]), app(Op::ToReal, vec![x()])],
                ),
                crate::catala::term::real_const("1000000", "1"),
            ],
        );
        assert!(!false_along(&t, VarId(0), (1, 1 << 40), &y_at(5)));
    }
}
