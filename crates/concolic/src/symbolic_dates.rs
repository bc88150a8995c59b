//! The symbolic companion's dates and durations, exact for Catala's semantics (the `dates_calc`
//! library, as `catala_eval::runtime::date` implements it). A date is a day number term; its
//! year, month and day are the calendar operators of `smt::catala::calendar` applied to it. A
//! duration is its three parts (years, months, days) as terms, [`Sym::Scalar`] when years and
//! months are known to be 0 (durations in days, e.g. inputs and date differences) and
//! [`Sym::Duration`] otherwise. Adding years and months shifts the month index
//! `12·year + month − 1`, then the day: kept when it exists in the new month, else an error
//! (the default), the last day of the month (`date round down`) or the first of the next
//! (`date round up`); the days come last. Comparing durations compares total months when both
//! have no days, days when both have no years or months, and is an error otherwise. The two
//! errors are branches of the path (the interpreter reports them through
//! `Companion::checked_operation`): the run records that the operation succeeded, or that it
//! failed, so the other way is explored as any other branch.

use crate::symbolic::{constant_term, ConstraintOrigin, PathState, Sym};
use catala_eval::runtime::{Date, DateRounding as RuntimeRounding, Duration, Value};
use catala_ir::dcalc::{BinaryOp, CmpType, DateRounding, UnaryOp};
use catala_syntax::Span;
use smt::catala::calendar::{self as cal, int, is_int};
use smt::catala::term::{self, app, bool_const, Op, Term, TermNode};
use std::rc::Rc;

/// The parts of a duration.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    years: Term,
    months: Term,
    days: Term,
}

impl Parts {
    /// Years and months are the constant 0: a duration in days.
    fn in_days(&self) -> bool {
        is_int(&self.years, 0) && is_int(&self.months, 0)
    }

    fn total_months(&self) -> Term {
        cal::add(&cal::mul(&int(12), &self.years), &self.months)
    }

    fn map(&self, f: impl Fn(&Term) -> Term) -> Parts {
        Parts {
            years: f(&self.years),
            months: f(&self.months),
            days: f(&self.days),
        }
    }

    fn zip(&self, o: &Parts, f: impl Fn(&Term, &Term) -> Term) -> Parts {
        Parts {
            years: f(&self.years, &o.years),
            months: f(&self.months, &o.months),
            days: f(&self.days, &o.days),
        }
    }

    fn into_sym(self) -> Sym {
        let all_constant = [&self.years, &self.months, &self.days]
            .iter()
            .all(|t| t.is_ground());
        if all_constant {
            Sym::Concrete
        } else if self.in_days() {
            Sym::Scalar(self.days)
        } else {
            Sym::Duration(Rc::new([self.years, self.months, self.days]))
        }
    }
}

/// The parts of a duration value and its companion.
pub(crate) fn parts(v: &Value, s: &Sym) -> Option<Parts> {
    let Value::Duration(d) = v else {
        return None;
    };
    match s {
        Sym::Concrete => Some(Parts {
            years: int(i128::from(d.years)),
            months: int(i128::from(d.months)),
            days: int(i128::from(d.days)),
        }),
        Sym::Scalar(t) => Some(Parts {
            years: int(0),
            months: int(0),
            days: t.clone(),
        }),
        Sym::Duration(p) => {
            let [years, months, days] = &**p;
            Some(Parts {
                years: years.clone(),
                months: months.clone(),
                days: days.clone(),
            })
        }
        _ => None,
    }
}

/// The day number term of a date value and its companion.
fn date_term(v: &Value, s: &Sym) -> Option<Term> {
    match (v, s) {
        (Value::Date(_), Sym::Scalar(t)) => Some(t.clone()),
        (Value::Date(_), Sym::Date(p)) => Some(p[0].clone()),
        (Value::Date(_), Sym::Concrete) => constant_term(v),
        _ => None,
    }
}

/// A date as its day number and its parts.
#[derive(Clone, Debug)]
struct DateParts {
    number: Term,
    year: Term,
    month: Term,
    day: Term,
}

impl DateParts {
    fn of_number(z: &Term) -> DateParts {
        DateParts {
            number: z.clone(),
            year: cal::year_of(z),
            month: cal::month_of(z),
            day: cal::day_of(z),
        }
    }

    fn into_sym(self) -> Sym {
        if self.number.is_ground() {
            Sym::Concrete
        } else {
            Sym::Date(Rc::new([self.number, self.year, self.month, self.day]))
        }
    }

    fn month_length(&self) -> Term {
        cal::days_in_month_of(&self.year, &self.month)
    }

    /// The next day, its parts computed from these (no new decomposition of a day number).
    fn next_day(&self) -> DateParts {
        let end = eq(&self.day, &self.month_length());
        let december = eq(&self.month, &int(12));
        DateParts {
            number: cal::add(&self.number, &int(1)),
            year: ite(
                &conj(vec![end.clone(), december.clone()]),
                &cal::add(&self.year, &int(1)),
                &self.year,
            ),
            month: ite(
                &end,
                &ite(&december, &int(1), &cal::add(&self.month, &int(1))),
                &self.month,
            ),
            day: ite(&end, &int(1), &cal::add(&self.day, &int(1))),
        }
    }

    /// The day before.
    fn previous_day(&self) -> DateParts {
        let start = eq(&self.day, &int(1));
        let january = eq(&self.month, &int(1));
        let year = ite(
            &conj(vec![start.clone(), january.clone()]),
            &cal::sub(&self.year, &int(1)),
            &self.year,
        );
        let month = ite(
            &start,
            &ite(&january, &int(12), &cal::sub(&self.month, &int(1))),
            &self.month,
        );
        let day = ite(
            &start,
            &cal::days_in_month_of(&year, &month),
            &cal::sub(&self.day, &int(1)),
        );
        DateParts {
            number: cal::sub(&self.number, &int(1)),
            year,
            month,
            day,
        }
    }

    /// `self + n days` for a constant or symbolic `n`: the parts follow for one day either
    /// way; otherwise the new day number is decomposed when its parts are asked for.
    fn plus_days(&self, n: &Term) -> Sym {
        if is_int(n, 0) {
            self.clone().into_sym()
        } else if is_int(n, 1) {
            self.next_day().into_sym()
        } else if is_int(n, -1) {
            self.previous_day().into_sym()
        } else {
            Sym::Scalar(cal::add(&self.number, n))
        }
    }
}

/// The parts of a date value and its companion.
fn date_parts(v: &Value, s: &Sym) -> Option<DateParts> {
    match (v, s) {
        (Value::Date(_), Sym::Date(p)) => {
            let [number, year, month, day] = &**p;
            Some(DateParts {
                number: number.clone(),
                year: year.clone(),
                month: month.clone(),
                day: day.clone(),
            })
        }
        _ => date_term(v, s).map(|z| DateParts::of_number(&z)),
    }
}

/// An integer operand (a duration's factor).
fn int_term(v: &Value, s: &Sym) -> Option<Term> {
    match (v, s) {
        (Value::Integer(_), Sym::Scalar(t)) => Some(t.clone()),
        (Value::Integer(_), Sym::Concrete) => constant_term(v),
        _ => None,
    }
}

fn const_bool(t: &Term) -> Option<bool> {
    match &**t {
        TermNode::Bool(b) => Some(*b),
        _ => None,
    }
}

/// `a = b` on integers, folding constants.
fn eq(a: &Term, b: &Term) -> Term {
    match (&**a, &**b) {
        (TermNode::Int(x), TermNode::Int(y)) => bool_const(x == y),
        _ => app(Op::Eq, vec![a.clone(), b.clone()]),
    }
}

fn conj(parts: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for p in parts {
        match const_bool(&p) {
            Some(true) => {}
            Some(false) => return bool_const(false),
            None => kept.push(p),
        }
    }
    match kept.len() {
        0 => bool_const(true),
        1 => kept.swap_remove(0),
        _ => app(Op::And, kept),
    }
}

fn disj(parts: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for p in parts {
        match const_bool(&p) {
            Some(false) => {}
            Some(true) => return bool_const(true),
            None => kept.push(p),
        }
    }
    match kept.len() {
        0 => bool_const(false),
        1 => kept.swap_remove(0),
        _ => app(Op::Or, kept),
    }
}

fn ite(c: &Term, a: &Term, b: &Term) -> Term {
    match const_bool(c) {
        Some(true) => a.clone(),
        Some(false) => b.clone(),
        None => app(Op::Ite, vec![c.clone(), a.clone(), b.clone()]),
    }
}

fn compare(op: Op, a: &Term, b: &Term) -> Term {
    match (&**a, &**b) {
        (TermNode::Int(x), TermNode::Int(y)) => match (x.parse::<i128>(), y.parse::<i128>()) {
            (Ok(x), Ok(y)) => bool_const(match op {
                Op::Lt => x < y,
                Op::Le => x <= y,
                Op::Gt => x > y,
                Op::Ge => x >= y,
                _ => x == y,
            }),
            _ => app(op, vec![a.clone(), b.clone()]),
        },
        _ => app(op, vec![a.clone(), b.clone()]),
    }
}

/// `date + p` with Catala's rule; with [`DateRounding::Abort`], also the condition under
/// which the day exists (the result is meaningful only then).
fn shifted(date: &DateParts, p: &Parts, rounding: DateRounding) -> (Sym, Option<Term>) {
    if p.in_days() {
        return (date.plus_days(&p.days), None);
    }
    let (y, m, d) = (&date.year, &date.month, &date.day);
    let (y2, m2) = if is_int(&p.months, 0) {
        (cal::add(y, &p.years), m.clone())
    } else {
        let index = cal::add(
            &cal::add(
                &cal::mul(&int(12), &cal::add(y, &p.years)),
                &cal::sub(m, &int(1)),
            ),
            &p.months,
        );
        (
            cal::div(&index, 12),
            cal::add(&cal::modulo(&index, 12), &int(1)),
        )
    };
    let last = cal::days_in_month_of(&y2, &m2);
    let first = cal::day_number_of(&y2, &m2, &int(1));
    let exists = compare(Op::Le, d, &last);
    let moved = DateParts {
        number: cal::add(&first, &cal::sub(d, &int(1))),
        year: y2.clone(),
        month: m2.clone(),
        day: d.clone(),
    };
    let rounded = match rounding {
        DateRounding::Abort => moved,
        DateRounding::Down => {
            let day = ite(&exists, d, &last);
            DateParts {
                number: cal::add(&first, &cal::sub(&day, &int(1))),
                day,
                ..moved
            }
        }
        DateRounding::Up => {
            // The day after the month's last day: the first of the next month.
            let end = DateParts {
                number: cal::add(&first, &cal::sub(&last, &int(1))),
                day: last.clone(),
                ..moved.clone()
            }
            .next_day();
            DateParts {
                number: ite(&exists, &moved.number, &end.number),
                year: ite(&exists, &moved.year, &end.year),
                month: ite(&exists, &moved.month, &end.month),
                day: ite(&exists, &moved.day, &end.day),
            }
        }
    };
    let condition = (rounding == DateRounding::Abort).then_some(exists);
    (rounded.plus_days(&p.days), condition)
}

/// Catala's comparison of two durations: the result term and the condition under which the
/// comparison is defined (`op` is `Lt`, `Le`, `Gt`, `Ge` or `Eq`).
fn duration_comparison(op: Op, a: &Parts, b: &Parts) -> (Term, Term) {
    let by_months = conj(vec![eq(&a.days, &int(0)), eq(&b.days, &int(0))]);
    let by_days = conj(vec![
        eq(&a.years, &int(0)),
        eq(&a.months, &int(0)),
        eq(&b.years, &int(0)),
        eq(&b.months, &int(0)),
    ]);
    let months = compare(op, &a.total_months(), &b.total_months());
    let days = compare(op, &a.days, &b.days);
    let (result, defined) = match (const_bool(&by_months), const_bool(&by_days)) {
        (_, Some(true)) => (days, bool_const(true)),
        (Some(true), _) => (months, bool_const(true)),
        _ => (
            ite(&by_months, &months, &days),
            disj(vec![by_months.clone(), by_days.clone()]),
        ),
    };
    if op != Op::Eq {
        return (result, defined);
    }
    // Equality: durations written alike are equal without comparing.
    let same = conj(vec![
        eq(&a.years, &b.years),
        eq(&a.months, &b.months),
        eq(&a.days, &b.days),
    ]);
    if const_bool(&defined) == Some(true) {
        return (result, defined);
    }
    (disj(vec![same.clone(), result]), disj(vec![same, defined]))
}

/// The equality of two durations inside structures, enumerations or lists, when it is defined
/// whatever the variables' values (`None` otherwise: the caller evaluates it concretely).
pub(crate) fn defined_equality((lv, ls): (&Value, &Sym), (rv, rs): (&Value, &Sym)) -> Option<Term> {
    let (t, defined) = duration_comparison(Op::Eq, &parts(lv, ls)?, &parts(rv, rs)?);
    (const_bool(&defined) == Some(true)).then_some(t)
}

fn comparison_op(op: BinaryOp) -> Option<Op> {
    Some(match op {
        BinaryOp::Lt(CmpType::Duration) => Op::Lt,
        BinaryOp::Le(CmpType::Duration) => Op::Le,
        BinaryOp::Gt(CmpType::Duration) => Op::Gt,
        BinaryOp::Ge(CmpType::Duration) => Op::Ge,
        BinaryOp::Eq | BinaryOp::Neq => Op::Eq,
        _ => return None,
    })
}

/// The symbolic result of a date or duration unary operator; `None` for other operators.
pub(crate) fn unary(op: UnaryOp, v: &Value, s: &Sym) -> Option<Sym> {
    if op == UnaryOp::MinusDur {
        return Some(parts(v, s)?.map(cal::neg).into_sym());
    }
    let p = date_parts(v, s)?;
    Some(match op {
        UnaryOp::GetDay => Sym::Scalar(p.day),
        UnaryOp::GetMonth => Sym::Scalar(p.month),
        UnaryOp::GetYear => Sym::Scalar(p.year),
        UnaryOp::FirstDayOfMonth => DateParts {
            number: cal::add(&cal::sub(&p.number, &p.day), &int(1)),
            day: int(1),
            ..p
        }
        .into_sym(),
        UnaryOp::LastDayOfMonth => {
            let last = p.month_length();
            DateParts {
                number: cal::add(&cal::sub(&p.number, &p.day), &last),
                day: last,
                ..p
            }
            .into_sym()
        }
        _ => return None,
    })
}

/// What a binary operator on dates or durations gives: `None` when the operator is not one of
/// them (the caller's general rules apply).
pub(crate) enum Handled {
    Result(Sym),
    /// A date or duration operation this encoding does not follow.
    Lost,
}

/// The symbolic result of a binary operator on dates or durations.
pub(crate) fn binary(
    op: BinaryOp,
    (lv, ls): (&Value, &Sym),
    (rv, rs): (&Value, &Sym),
) -> Option<Handled> {
    let found = |s: Option<Sym>| Some(s.map_or(Handled::Lost, Handled::Result));
    match op {
        BinaryOp::AddDatDur(r) | BinaryOp::SubDatDur(r) => found((|| {
            let date = date_parts(lv, ls)?;
            let mut p = parts(rv, rs)?;
            if matches!(op, BinaryOp::SubDatDur(_)) {
                p = p.map(cal::neg);
            }
            Some(shifted(&date, &p, r).0)
        })()),
        BinaryOp::SubDatDat => found((|| {
            Some(Sym::Scalar(cal::sub(
                &date_term(lv, ls)?,
                &date_term(rv, rs)?,
            )))
        })()),
        BinaryOp::AddDurDur | BinaryOp::SubDurDur => found((|| {
            let (a, b) = (parts(lv, ls)?, parts(rv, rs)?);
            let f = if op == BinaryOp::AddDurDur {
                cal::add
            } else {
                cal::sub
            };
            Some(a.zip(&b, f).into_sym())
        })()),
        BinaryOp::MultDurInt => found((|| {
            let (a, k) = (parts(lv, ls)?, int_term(rv, rs)?);
            Some(a.map(|t| cal::mul(t, &k)).into_sym())
        })()),
        BinaryOp::Lt(CmpType::Duration)
        | BinaryOp::Le(CmpType::Duration)
        | BinaryOp::Gt(CmpType::Duration)
        | BinaryOp::Ge(CmpType::Duration)
        | BinaryOp::Eq
        | BinaryOp::Neq => {
            if !matches!(lv, Value::Duration(_)) {
                return None;
            }
            let cmp = comparison_op(op)?;
            found((|| {
                let (t, _) = duration_comparison(cmp, &parts(lv, ls)?, &parts(rv, rs)?);
                Some(Sym::Scalar(if op == BinaryOp::Neq {
                    term::not(&t)
                } else {
                    t
                }))
            })())
        }
        BinaryOp::DivDurDur => {
            let in_days = |v: &Value, s: &Sym| parts(v, s).is_some_and(|p| p.in_days());
            if in_days(lv, ls) && in_days(rv, rs) {
                None
            } else {
                Some(Handled::Lost)
            }
        }
        _ => None,
    }
}

/// The condition under which a date or duration operator succeeds on symbolic operands, if it
/// can fail on values alone.
pub(crate) fn success_condition(
    op: BinaryOp,
    (lv, ls): (&Value, &Sym),
    (rv, rs): (&Value, &Sym),
) -> Option<Term> {
    match op {
        BinaryOp::AddDatDur(DateRounding::Abort) | BinaryOp::SubDatDur(DateRounding::Abort) => {
            let date = date_parts(lv, ls)?;
            let mut p = parts(rv, rs)?;
            if matches!(op, BinaryOp::SubDatDur(_)) {
                p = p.map(cal::neg);
            }
            shifted(&date, &p, DateRounding::Abort).1
        }
        _ => {
            let cmp = comparison_op(op)?;
            if !matches!(lv, Value::Duration(_)) {
                return None;
            }
            Some(duration_comparison(cmp, &parts(lv, ls)?, &parts(rv, rs)?).1)
        }
    }
}

/// Whether the failure of a date shift on these values is the non-existent day (and not a date
/// out of the supported range).
fn day_does_not_exist(op: BinaryOp, lv: &Value, rv: &Value) -> bool {
    let (Value::Date(a), Value::Duration(d)) = (lv, rv) else {
        return true;
    };
    let d: Duration = if matches!(op, BinaryOp::SubDatDur(_)) {
        -*d
    } else {
        *d
    };
    let a: Date = *a;
    a.add_duration(d, RuntimeRounding::Up).is_ok()
}

/// Records, for an operator that can fail on its operands' values, which way the run went.
pub(crate) fn checked_operation(
    st: &mut PathState,
    op: BinaryOp,
    span: Span,
    lhs: (&Value, &Sym),
    rhs: (&Value, &Sym),
    succeeded: bool,
) {
    if lhs.1.is_concrete() && rhs.1.is_concrete() {
        return;
    }
    let Some(ok) = success_condition(op, lhs, rhs) else {
        return;
    };
    if !succeeded && !day_does_not_exist(op, lhs.0, rhs.0) {
        st.lost("date out of the supported range");
        return;
    }
    if ok.is_ground() {
        return;
    }
    let t = if succeeded { ok } else { term::not(&ok) };
    st.record(
        t,
        false,
        ConstraintOrigin::DateComputation,
        span,
        u32::from(succeeded),
    );
}
