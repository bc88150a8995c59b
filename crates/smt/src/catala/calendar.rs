//! The calendar operators of the term language ([`Op::YearOf`], [`Op::MonthOf`], [`Op::DayOf`],
//! [`Op::DaysInMonth`], [`Op::DayNumber`], with [`Op::IntDiv`] and [`Op::Mod`]): their exact
//! meaning on integers, and constructors that fold constants. Dates are day numbers (days since
//! 1970-01-01) of the proleptic Gregorian calendar; the conversions are the usual era-based
//! ones (400-year eras of 146,097 days, years starting on March 1st), written only with
//! additions, multiplications by constants and floor divisions by positive constants, so that
//! Z3 handles them as linear integer arithmetic (the encoder of `z3_calendar` expands them the same
//! way). Every operator is total: `DayNumber(y, m, d)` counts on past the end of the month
//! when `d` exceeds it, and `m` outside 1–12 is read through the same formula, so the exact
//! evaluation here and the Z3 expansion agree on every integer.

use super::term::{app, int_const, Op, Term, TermNode};

/// Day numbers beyond this (about 2.7 · 10^12 years) are not evaluated (overflow guard).
const LIMIT: i128 = 1_000_000_000_000_000;

/// Days between 0000-03-01 and 1970-01-01.
pub(crate) const EPOCH_SHIFT: i128 = 719_468;
/// Days in a 400-year era.
pub(crate) const ERA_DAYS: i128 = 146_097;

fn within(x: i128) -> Option<i128> {
    (x.abs() <= LIMIT).then_some(x)
}

/// Year, month (1–12) and day (1–31) of a day number. Computed on 64-bit integers: within
/// [`LIMIT`] no intermediate value exceeds 2^63 (the largest, `era * ERA_DAYS`, is below
/// 10^16), and 64-bit divisions are single instructions where 128-bit ones are calls.
pub(crate) fn civil(z: i128) -> Option<(i128, i128, i128)> {
    let z = i64::try_from(within(z)? + EPOCH_SHIFT).ok()?;
    let era_days = ERA_DAYS as i64;
    let era = z.div_euclid(era_days);
    let doe = z - era * era_days;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    Some((i128::from(y), i128::from(m), i128::from(d)))
}

/// The day number of `(y, m, d)` (see the module documentation for days past the month's end).
/// On 64-bit integers, as [`civil`]: every argument is within [`LIMIT`].
pub(crate) fn day_number(y: i128, m: i128, d: i128) -> Option<i128> {
    let narrow = |x: i128| i64::try_from(within(x)?).ok();
    let (y, m, d) = (narrow(y)?, narrow(m)?, narrow(d)?);
    let y = y - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9).rem_euclid(12);
    let doy = (153 * mp + 2).div_euclid(5) + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(i128::from(era) * ERA_DAYS + i128::from(doe) - EPOCH_SHIFT)
}

pub(crate) fn is_leap(y: i128) -> bool {
    y.rem_euclid(400) == 0 || (y.rem_euclid(4) == 0 && y.rem_euclid(100) != 0)
}

/// Days in month `m` of year `y`: 29 or 28 for `m = 2`, 30 for 4, 6, 9, 11, else 31.
pub(crate) fn days_in_month(y: i128, m: i128) -> i128 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The exact value of a calendar operator (or of `IntDiv`/`Mod`) on integer arguments; `None`
/// for another operator, a wrong arity, a divisor that is not positive or an argument beyond
/// the overflow guard.
pub(crate) fn apply(op: Op, args: &[i128]) -> Option<i128> {
    match (op, args) {
        (Op::IntDiv, [a, b]) if *b > 0 => Some(a.div_euclid(*b)),
        (Op::Mod, [a, b]) if *b > 0 => Some(a.rem_euclid(*b)),
        (Op::YearOf, [z]) => civil(*z).map(|c| c.0),
        (Op::MonthOf, [z]) => civil(*z).map(|c| c.1),
        (Op::DayOf, [z]) => civil(*z).map(|c| c.2),
        (Op::DaysInMonth, [y, m]) => Some(days_in_month(within(*y)?, *m)),
        (Op::DayNumber, [y, m, d]) => day_number(*y, *m, *d),
        _ => None,
    }
}

fn constant(t: &Term) -> Option<i128> {
    match &**t {
        TermNode::Int(s) => s.parse().ok(),
        _ => None,
    }
}

pub fn int(n: i128) -> Term {
    int_const(n.to_string())
}

/// `op(args)`, computed when every argument is a constant.
fn fold(op: Op, args: Vec<Term>) -> Term {
    let values: Option<Vec<i128>> = args.iter().map(constant).collect();
    match values.and_then(|v| apply(op, &v)) {
        Some(n) => int(n),
        None => app(op, args),
    }
}

pub fn year_of(z: &Term) -> Term {
    fold(Op::YearOf, vec![z.clone()])
}

pub fn month_of(z: &Term) -> Term {
    fold(Op::MonthOf, vec![z.clone()])
}

pub fn day_of(z: &Term) -> Term {
    fold(Op::DayOf, vec![z.clone()])
}

pub fn days_in_month_of(y: &Term, m: &Term) -> Term {
    fold(Op::DaysInMonth, vec![y.clone(), m.clone()])
}

pub fn day_number_of(y: &Term, m: &Term, d: &Term) -> Term {
    fold(Op::DayNumber, vec![y.clone(), m.clone(), d.clone()])
}

/// `⌊a / k⌋` for a positive constant `k`.
pub fn div(a: &Term, k: i128) -> Term {
    fold(Op::IntDiv, vec![a.clone(), int(k)])
}

/// `a mod k` (from 0 to `k − 1`) for a positive constant `k`.
pub fn modulo(a: &Term, k: i128) -> Term {
    fold(Op::Mod, vec![a.clone(), int(k)])
}

/// `a + b`, folding constants and zeros.
pub fn add(a: &Term, b: &Term) -> Term {
    match (constant(a), constant(b)) {
        (Some(x), Some(y)) => x.checked_add(y).map_or_else(|| plain(Op::Add, a, b), int),
        (_, Some(0)) => a.clone(),
        (Some(0), _) => b.clone(),
        _ => plain(Op::Add, a, b),
    }
}

/// `a − b`, folding constants and zeros.
pub fn sub(a: &Term, b: &Term) -> Term {
    match (constant(a), constant(b)) {
        (Some(x), Some(y)) => x.checked_sub(y).map_or_else(|| plain(Op::Sub, a, b), int),
        (_, Some(0)) => a.clone(),
        _ => plain(Op::Sub, a, b),
    }
}

/// `a · b`, folding constants, zeros and ones.
pub fn mul(a: &Term, b: &Term) -> Term {
    match (constant(a), constant(b)) {
        (Some(x), Some(y)) => x.checked_mul(y).map_or_else(|| plain(Op::Mul, a, b), int),
        (Some(0), _) | (_, Some(0)) => int(0),
        (Some(1), _) => b.clone(),
        (_, Some(1)) => a.clone(),
        _ => plain(Op::Mul, a, b),
    }
}

/// `−a`, folding constants.
pub fn neg(a: &Term) -> Term {
    match constant(a).and_then(|x| x.checked_neg()) {
        Some(n) => int(n),
        None => app(Op::Neg, vec![a.clone()]),
    }
}

fn plain(op: Op, a: &Term, b: &Term) -> Term {
    app(op, vec![a.clone(), b.clone()])
}

/// How round a date is, for the human-friendly dates the solver layers prefer (as they
/// prefer whole hundreds of money).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum DateRoundness {
    /// January 1st.
    YearStart,
    /// The first day of another month.
    MonthStart,
    Other,
}

/// The roundness of the date of day number `z`.
pub(crate) fn roundness(z: i128) -> DateRoundness {
    match civil(z) {
        Some((_, 1, 1)) => DateRoundness::YearStart,
        Some((_, _, 1)) => DateRoundness::MonthStart,
        _ => DateRoundness::Other,
    }
}

/// Round dates near day number `z`, most preferred first: January 1st of its year and of the
/// next, then the first day of its month and of the next.
pub(crate) fn round_dates_near(z: i128) -> Vec<i128> {
    let Some((y, m, _)) = civil(z) else {
        return Vec::new();
    };
    let next_month = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    [(y, 1), (y + 1, 1), (y, m), next_month]
        .into_iter()
        .filter_map(|(y, m)| day_number(y, m, 1))
        .collect()
}

/// True when `t` is the integer constant `n`.
pub fn is_int(t: &Term, n: i128) -> bool {
    constant(t) == Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip_over_five_centuries() {
        // Every day from 1800-01-01 to 2300-12-31, with the day count of each month checked.
        let first = day_number(1800, 1, 1).unwrap_or(0);
        let last = day_number(2300, 12, 31).unwrap_or(0);
        assert_eq!(day_number(1970, 1, 1), Some(0));
        assert_eq!(day_number(2024, 2, 29), Some(19_782));
        let mut expected = (1800, 1, 1);
        for z in first..=last {
            assert_eq!(civil(z), Some(expected), "day {z}");
            let (y, m, d) = expected;
            assert_eq!(day_number(y, m, d), Some(z));
            expected = if d < days_in_month(y, m) {
                (y, m, d + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
        }
        // Past the end of the month the count goes on: 2023-02-29 is 2023-03-01.
        assert_eq!(day_number(2023, 2, 29), day_number(2023, 3, 1));
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(apply(Op::IntDiv, &[-1, 12]), Some(-1));
        assert_eq!(apply(Op::Mod, &[-1, 12]), Some(11));
        assert_eq!(apply(Op::Mod, &[5, 0]), None);
    }

    #[test]
    fn constructors_fold_constants() {
        let z = int(19_782);
        assert!(is_int(&year_of(&z), 2024));
        assert!(is_int(&month_of(&z), 2));
        assert!(is_int(&day_of(&z), 29));
        assert!(is_int(&days_in_month_of(&int(2023), &int(2)), 28));
        let v = super::super::term::var(super::super::term::VarId(0), super::super::Kind::Int);
        assert!(std::rc::Rc::ptr_eq(&add(&v, &int(0)), &v));
        assert!(is_int(&mul(&v, &int(0)), 0));
    }
}
