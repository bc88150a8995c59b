//! The calendar operators of [`super::calendar`] as Z3 integer terms: the same formulas, step by
//! step, with Z3's `div` and `mod` (floor division and a non-negative remainder for the positive
//! constant divisors used here), so that a model Z3 returns satisfies exactly what the exact
//! evaluation of [`super::calendar::apply`] computes.

use super::calendar::{EPOCH_SHIFT, ERA_DAYS};
use z3::ast::{Ast, Bool, Int};
use z3::Context;

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

/// Year, month and day of a day number.
pub fn civil(
    ctx: &'static Context,
    z: &Int<'static>,
) -> (Int<'static>, Int<'static>, Int<'static>) {
    let z = sum(ctx, &[z, &k(ctx, EPOCH_SHIFT)]);
    let era = z.div(&k(ctx, ERA_DAYS));
    let doe = Int::sub(ctx, &[&z, &times(ctx, ERA_DAYS, &era)]);
    let yoe_days = Int::sub(
        ctx,
        &[
            &sum(
                ctx,
                &[
                    &Int::sub(ctx, &[&doe, &doe.div(&k(ctx, 1460))]),
                    &doe.div(&k(ctx, 36_524)),
                ],
            ),
            &doe.div(&k(ctx, 146_096)),
        ],
    );
    let yoe = yoe_days.div(&k(ctx, 365));
    let year_start = Int::sub(
        ctx,
        &[
            &sum(ctx, &[&times(ctx, 365, &yoe), &yoe.div(&k(ctx, 4))]),
            &yoe.div(&k(ctx, 100)),
        ],
    );
    let doy = Int::sub(ctx, &[&doe, &year_start]);
    let mp = sum(ctx, &[&times(ctx, 5, &doy), &k(ctx, 2)]).div(&k(ctx, 153));
    let month_start = sum(ctx, &[&times(ctx, 153, &mp), &k(ctx, 2)]).div(&k(ctx, 5));
    let d = sum(ctx, &[&Int::sub(ctx, &[&doy, &month_start]), &k(ctx, 1)]);
    let m = mp.lt(&k(ctx, 10)).ite(
        &sum(ctx, &[&mp, &k(ctx, 3)]),
        &Int::sub(ctx, &[&mp, &k(ctx, 9)]),
    );
    let jan_feb = m.le(&k(ctx, 2)).ite(&k(ctx, 1), &k(ctx, 0));
    let y = sum(ctx, &[&yoe, &times(ctx, 400, &era), &jan_feb]);
    (y, m, d)
}

/// The day number of `(y, m, d)`.
pub fn day_number(
    ctx: &'static Context,
    y: &Int<'static>,
    m: &Int<'static>,
    d: &Int<'static>,
) -> Int<'static> {
    let jan_feb = m.le(&k(ctx, 2)).ite(&k(ctx, 1), &k(ctx, 0));
    let y = Int::sub(ctx, &[y, &jan_feb]);
    let era = y.div(&k(ctx, 400));
    let yoe = Int::sub(ctx, &[&y, &times(ctx, 400, &era)]);
    let mp = sum(ctx, &[m, &k(ctx, 9)]).modulo(&k(ctx, 12));
    let month_start = sum(ctx, &[&times(ctx, 153, &mp), &k(ctx, 2)]).div(&k(ctx, 5));
    let doy = Int::sub(ctx, &[&sum(ctx, &[&month_start, d]), &k(ctx, 1)]);
    let doe = Int::sub(
        ctx,
        &[
            &sum(ctx, &[&times(ctx, 365, &yoe), &yoe.div(&k(ctx, 4)), &doy]),
            &yoe.div(&k(ctx, 100)),
        ],
    );
    Int::sub(
        ctx,
        &[
            &sum(ctx, &[&times(ctx, ERA_DAYS, &era), &doe]),
            &k(ctx, EPOCH_SHIFT),
        ],
    )
}

fn divisible(ctx: &'static Context, y: &Int<'static>, n: i128) -> Bool<'static> {
    y.modulo(&k(ctx, n))._eq(&k(ctx, 0))
}

/// Days in month `m` of year `y`.
pub fn days_in_month(ctx: &'static Context, y: &Int<'static>, m: &Int<'static>) -> Int<'static> {
    let leap = Bool::or(
        ctx,
        &[
            &divisible(ctx, y, 400),
            &Bool::and(ctx, &[&divisible(ctx, y, 4), &divisible(ctx, y, 100).not()]),
        ],
    );
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
