//! The calendar operators of [`super::calendar`] in Z3, without Z3's `div` and `mod` (on which
//! its integer arithmetic gets lost as soon as one date is computed from another). Each
//! operator's result is a fresh constant tied to its arguments by a defining constraint. For
//! the years 1700–2500 the first day of the year and leap years come from tables (Z3 then only
//! chooses among a few years, which the bounds tying the year to the day number narrow down);
//! elsewhere the constraint uses bounded "digits": a year `y` is written `400·a + 100·b + 4·c + e` with
//! `0 ≤ b ≤ 3`, `0 ≤ c ≤ 24`, `0 ≤ e ≤ 3`, so that the leap-day count `97·a + 24·b + c` and
//! the leap-year test (`e = 0` and `c ≠ 0` or `b = 0`) are linear, and the days before a month
//! come from a table. Each definition has exactly one solution for any value of the
//! arguments, the one [`super::calendar::apply`] computes, so the encoding is exact; the
//! session asserts a definition with every assertion that uses its constants.

use super::calendar::{EPOCH_SHIFT, ERA_DAYS};
use z3::ast::{Ast, Bool, Int};
use z3::Context;

/// How far January 1st may stray from the mean Gregorian year, in ten-thousandths of a day
/// (checked over a whole 400-year cycle by the tests of [`super::calendar`]).
pub(crate) const YEAR_SLACK: i128 = 30_000;

/// Fresh constants and the constraint that defines them.
pub(crate) struct Defined {
    pub(crate) values: Vec<Int<'static>>,
    pub(crate) definition: Bool<'static>,
}

fn k(ctx: &'static Context, n: i128) -> Int<'static> {
    // The constants of the formulas are small.
    Int::from_i64(ctx, i64::try_from(n).unwrap_or(0))
}

fn sum(ctx: &'static Context, parts: &[&Int<'static>]) -> Int<'static> {
    Int::add(ctx, parts)
}

fn times(ctx: &'static Context, n: i128, x: &Int<'static>) -> Int<'static> {
    Int::mul(ctx, &[&k(ctx, n), x])
}

fn between(ctx: &'static Context, x: &Int<'static>, lo: i128, hi: i128) -> Bool<'static> {
    Bool::and(ctx, &[&x.ge(&k(ctx, lo)), &x.le(&k(ctx, hi))])
}

/// The digits `[a, b, c, e]` of a year and their constraints.
fn digits(ctx: &'static Context, y: &Int<'static>) -> ([Int<'static>; 4], Vec<Bool<'static>>) {
    let a = Int::fresh_const(ctx, "era");
    let b = Int::fresh_const(ctx, "century");
    let c = Int::fresh_const(ctx, "olympiad");
    let e = Int::fresh_const(ctx, "year_in_four");
    let value = sum(
        ctx,
        &[
            &times(ctx, 400, &a),
            &times(ctx, 100, &b),
            &times(ctx, 4, &c),
            &e,
        ],
    );
    let constraints = vec![
        y._eq(&value),
        between(ctx, &b, 0, 3),
        between(ctx, &c, 0, 24),
        between(ctx, &e, 0, 3),
    ];
    ([a, b, c, e], constraints)
}

/// Days from March 1st to the first day of the month, January and February counting in the
/// year before, for months 1–12.
const BEFORE_MONTH: [(i128, i128); 12] = [
    (1, 306),
    (2, 337),
    (3, 0),
    (4, 31),
    (5, 61),
    (6, 92),
    (7, 122),
    (8, 153),
    (9, 184),
    (10, 214),
    (11, 245),
    (12, 275),
];

/// `table[x]` for `x` in the table's keys (0 elsewhere).
fn lookup(ctx: &'static Context, x: &Int<'static>, table: &[(i128, i128)]) -> Int<'static> {
    let mut out = k(ctx, 0);
    for (key, value) in table {
        out = x._eq(&k(ctx, *key)).ite(&k(ctx, *value), &out);
    }
    out
}

fn month_length(ctx: &'static Context, m: &Int<'static>, leap: &Bool<'static>) -> Int<'static> {
    let short = Bool::or(
        ctx,
        &[
            &m._eq(&k(ctx, 4)),
            &m._eq(&k(ctx, 6)),
            &m._eq(&k(ctx, 9)),
            &m._eq(&k(ctx, 11)),
        ],
    );
    m._eq(&k(ctx, 2)).ite(
        &leap.ite(&k(ctx, 29), &k(ctx, 28)),
        &short.ite(&k(ctx, 30), &k(ctx, 31)),
    )
}

/// The day number of the March-based year with digits `[a, b, c, e]`, `before` days into it,
/// day `d` of the month.
fn day_count(
    ctx: &'static Context,
    [a, b, c, e]: &[Int<'static>; 4],
    before: &Int<'static>,
    d: &Int<'static>,
) -> Int<'static> {
    Int::sub(
        ctx,
        &[
            &sum(
                ctx,
                &[
                    &times(ctx, ERA_DAYS, a),
                    &times(ctx, 36_524, b),
                    &times(ctx, 1461, c),
                    &times(ctx, 365, e),
                    before,
                    d,
                ],
            ),
            &k(ctx, EPOCH_SHIFT + 1),
        ],
    )
}

fn jan_feb(ctx: &'static Context, m: &Int<'static>) -> Int<'static> {
    m.le(&k(ctx, 2)).ite(&k(ctx, 1), &k(ctx, 0))
}

/// Years whose first day and leap-ness come from a table: the years of the explored inputs
/// (1900–2199) and far around them. Outside, the digit formulas apply.
const FIRST_TABLE_YEAR: i128 = 1700;
const LAST_TABLE_YEAR: i128 = 2500;

/// Days from January 1st to the first day of each month of a common year.
const BEFORE_MONTH_FROM_JANUARY: [(i128, i128); 12] = [
    (1, 0),
    (2, 31),
    (3, 59),
    (4, 90),
    (5, 120),
    (6, 151),
    (7, 181),
    (8, 212),
    (9, 243),
    (10, 273),
    (11, 304),
    (12, 334),
];

/// For a year `y` of the table's range: the day number of its January 1st and whether it is
/// a leap year (tables over the range, as balanced trees of `if y < k`, so that bounds on `y`
/// select the entry quickly).
fn year_table(
    ctx: &'static Context,
    y: &Int<'static>,
) -> (Bool<'static>, Int<'static>, Bool<'static>) {
    fn tree(
        ctx: &'static Context,
        y: &Int<'static>,
        lo: i128,
        hi: i128,
    ) -> (Int<'static>, Bool<'static>) {
        if lo == hi {
            let start = super::calendar::day_number(lo, 1, 1).unwrap_or(0);
            return (
                k(ctx, start),
                Bool::from_bool(ctx, super::calendar::is_leap(lo)),
            );
        }
        let mid = (lo + hi + 1) / 2;
        let (ls, ll) = tree(ctx, y, lo, mid - 1);
        let (rs, rl) = tree(ctx, y, mid, hi);
        let below = y.lt(&k(ctx, mid));
        (below.ite(&ls, &rs), below.ite(&ll, &rl))
    }
    let in_table = between(ctx, y, FIRST_TABLE_YEAR, LAST_TABLE_YEAR);
    let (start, leap) = tree(ctx, y, FIRST_TABLE_YEAR, LAST_TABLE_YEAR);
    (in_table, start, leap)
}

/// The day number of `(y, m, d)` for a year of the table and `m` in 1–12.
fn table_day_number(
    ctx: &'static Context,
    start: &Int<'static>,
    leap: &Bool<'static>,
    m: &Int<'static>,
    d: &Int<'static>,
) -> Int<'static> {
    let before = lookup(ctx, m, &BEFORE_MONTH_FROM_JANUARY);
    let leap_day = Bool::and(ctx, &[leap, &m.gt(&k(ctx, 2))]).ite(&k(ctx, 1), &k(ctx, 0));
    Int::sub(
        ctx,
        &[&sum(ctx, &[start, &before, &leap_day, d]), &k(ctx, 1)],
    )
}

fn all(ctx: &'static Context, parts: &[Bool<'static>]) -> Bool<'static> {
    let refs: Vec<&Bool<'static>> = parts.iter().collect();
    Bool::and(ctx, &refs)
}

/// `[y, m, d]`: the year, month and day of the day number `z`.
pub(crate) fn civil(ctx: &'static Context, z: &Int<'static>) -> Defined {
    let y = Int::fresh_const(ctx, "year");
    let m = Int::fresh_const(ctx, "month");
    let d = Int::fresh_const(ctx, "day");
    // In the table's years: the first day of the year plus the days before the month.
    let (in_table, start, table_leap) = year_table(ctx, &y);
    let by_table = all(
        ctx,
        &[
            d.le(&month_length(ctx, &m, &table_leap)),
            z._eq(&table_day_number(ctx, &start, &table_leap, &m, &d)),
        ],
    );
    // Elsewhere: the digits of the March-based year y − [m ≤ 2]; for January and February
    // the year `y` itself is the next one, leap when e = 3 and (c ≠ 24 or b = 3).
    let (dg, mut general) = digits(ctx, &Int::sub(ctx, &[&y, &jan_feb(ctx, &m)]));
    let [_, b, c, e] = &dg;
    let leap = Bool::and(
        ctx,
        &[
            &e._eq(&k(ctx, 3)),
            &Bool::or(ctx, &[&c._eq(&k(ctx, 24)).not(), &b._eq(&k(ctx, 3))]),
        ],
    );
    let before = lookup(ctx, &m, &BEFORE_MONTH);
    general.extend([
        d.le(&month_length(ctx, &m, &leap)),
        z._eq(&day_count(ctx, &dg, &before, &d)),
    ]);
    // Redundant bounds tying the year to the day number (January 1st is within 2 days of
    // 1970 + z / 365.2425), so that the year need not be searched for.
    let mean = times(ctx, 3_652_425, &Int::sub(ctx, &[&y, &k(ctx, 1970)]));
    let scaled = times(ctx, 10_000, z);
    let definition = all(
        ctx,
        &[
            scaled.ge(&Int::sub(ctx, &[&mean, &k(ctx, YEAR_SLACK)])),
            scaled.le(&sum(ctx, &[&mean, &k(ctx, 3_660_000 + YEAR_SLACK)])),
            between(ctx, &m, 1, 12),
            d.ge(&k(ctx, 1)),
            in_table.implies(&by_table),
            in_table.not().implies(&all(ctx, &general)),
        ],
    );
    Defined {
        values: vec![y, m, d],
        definition,
    }
}

/// `[n]`: the number of days of month `m` of year `y`.
pub(crate) fn days_in_month(ctx: &'static Context, y: &Int<'static>, m: &Int<'static>) -> Defined {
    let n = Int::fresh_const(ctx, "month_length");
    let (in_table, _, table_leap) = year_table(ctx, y);
    let (dg, mut general) = digits(ctx, y);
    let [_, b, c, e] = &dg;
    let leap = Bool::and(
        ctx,
        &[
            &e._eq(&k(ctx, 0)),
            &Bool::or(ctx, &[&c._eq(&k(ctx, 0)).not(), &b._eq(&k(ctx, 0))]),
        ],
    );
    general.push(n._eq(&month_length(ctx, m, &leap)));
    let definition = all(
        ctx,
        &[
            in_table.implies(&n._eq(&month_length(ctx, m, &table_leap))),
            in_table.not().implies(&all(ctx, &general)),
        ],
    );
    Defined {
        values: vec![n],
        definition,
    }
}

/// `[q, r]`: `a = k·q + r` with `0 ≤ r < k` (`k` a positive constant).
pub(crate) fn floor_div(
    ctx: &'static Context,
    a: &Int<'static>,
    divisor: &Int<'static>,
) -> Defined {
    let q = Int::fresh_const(ctx, "quotient");
    let r = Int::fresh_const(ctx, "remainder");
    let definition = Bool::and(
        ctx,
        &[
            &a._eq(&sum(ctx, &[&Int::mul(ctx, &[divisor, &q]), &r])),
            &r.ge(&k(ctx, 0)),
            &r.lt(divisor),
        ],
    );
    Defined {
        values: vec![q, r],
        definition,
    }
}

/// `[n]`: the day number of `(y, m, d)` (any `m`: the month offset is read through
/// `(m + 9) mod 12` as in [`super::calendar::day_number`]).
pub(crate) fn day_number(
    ctx: &'static Context,
    y: &Int<'static>,
    m: &Int<'static>,
    d: &Int<'static>,
) -> Defined {
    let n = Int::fresh_const(ctx, "day_number");
    let (in_table, start, table_leap) = year_table(ctx, y);
    let usual = Bool::and(ctx, &[&in_table, &between(ctx, m, 1, 12)]);
    let shifted_month = Int::fresh_const(ctx, "month_from_march");
    let turns = Int::fresh_const(ctx, "month_turns");
    let (dg, mut general) = digits(ctx, &Int::sub(ctx, &[y, &jan_feb(ctx, m)]));
    // mp = (m + 9) mod 12; the days before month mp of a March-based year: ⌊(153·mp + 2) / 5⌋.
    let from_march: Vec<(i128, i128)> = (0..12).map(|mp| (mp, (153 * mp + 2) / 5)).collect();
    let before = lookup(ctx, &shifted_month, &from_march);
    general.extend([
        sum(ctx, &[m, &k(ctx, 9)])._eq(&sum(ctx, &[&times(ctx, 12, &turns), &shifted_month])),
        between(ctx, &shifted_month, 0, 11),
        n._eq(&day_count(ctx, &dg, &before, d)),
    ]);
    let definition = all(
        ctx,
        &[
            usual.implies(&n._eq(&table_day_number(ctx, &start, &table_leap, m, d))),
            usual.not().implies(&all(ctx, &general)),
        ],
    );
    Defined {
        values: vec![n],
        definition,
    }
}
