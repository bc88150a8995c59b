//! Writing a range of values as a reader expects it: `income > $20,000.00` rather than
//! `income >= $20,000.01`, `claim_date < 2025-07-01` rather than `<= 2025-06-30`, bounds that
//! are only the exploration's limits left out, a single value as `=`, all but one as `!=`.

use crate::inputs::Unit;
use crate::numset::{Bound, Interval, NumSet};
use crate::term_text::exact;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// How values are written (money and dates differ between languages).
pub trait Format {
    fn value(&self, unit: &Unit, v: &BigRational) -> String;
}

/// Money as `$1,234.56`, dates as `2025-07-01`, other numbers exactly.
pub struct PlainFormat;

impl Format for PlainFormat {
    fn value(&self, unit: &Unit, v: &BigRational) -> String {
        match unit {
            Unit::Money if v.is_integer() => dollars(&v.to_integer()),
            Unit::Date if v.is_integer() => match v.to_integer().to_i64() {
                Some(n) => {
                    let (y, m, d) = civil_from_days(n);
                    format!("{y:04}-{m:02}-{d:02}")
                }
                None => exact(v),
            },
            _ => exact(v),
        }
    }
}

/// `$1,234.56` from cents.
pub fn dollars(cents: &BigInt) -> String {
    let sign = if cents.is_negative() { "-" } else { "" };
    let abs = cents.abs();
    let hundred = BigInt::from(100);
    let units = (&abs / &hundred).to_string();
    let rest = (&abs % &hundred).to_string();
    let mut grouped = String::new();
    for (i, ch) in units.chars().enumerate() {
        if i > 0 && matches!((units.len() - i) % 3, 0) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{sign}${grouped}.{rest:0>2}")
}

/// Year, month, day of a day number (days since 1970-01-01), proleptic Gregorian.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// How round a value reads: dates on the first of a month (of January best), numbers by their
/// trailing zeros.
fn roundness(unit: &Unit, v: &BigRational) -> u32 {
    if !v.is_integer() {
        return 0;
    }
    let n = v.to_integer();
    if *unit == Unit::Date {
        return match n.to_i64().map(civil_from_days) {
            Some((_, 1, 1)) => 3,
            Some((_, _, 1)) => 2,
            _ => 0,
        };
    }
    if n.is_zero() {
        return 20;
    }
    let mut n = n.abs();
    let mut zeros = 0;
    let ten = BigInt::from(10);
    while (&n % &ten).is_zero() {
        n /= &ten;
        zeros += 1;
    }
    zeros
}

/// The better way to write an integral bound: `(value, strict)`, the rounder value, the
/// closed form on a tie. `lower` bounds read
/// `x >= v` or `x > v − 1`, upper ones `x <= v` or `x < v + 1`.
fn bound_form(unit: &Unit, b: &Bound, lower: bool, integral: bool) -> (BigRational, bool) {
    if !integral || !b.inclusive {
        return (b.value.clone(), !b.inclusive);
    }
    let one = BigRational::one();
    let other = if lower {
        &b.value - &one
    } else {
        &b.value + &one
    };
    if roundness(unit, &other) > roundness(unit, &b.value) {
        (other, true)
    } else {
        (b.value.clone(), false)
    }
}

fn interval_text(
    name: &str,
    unit: &Unit,
    i: &Interval,
    domain: &NumSet,
    integral: bool,
    format: &dyn Format,
) -> String {
    let dom_lo = domain.parts.first().and_then(|p| p.lo.clone());
    let dom_hi = domain.parts.last().and_then(|p| p.hi.clone());
    let lo = i.lo.clone().filter(|b| Some(b) != dom_lo.as_ref());
    let hi = i.hi.clone().filter(|b| Some(b) != dom_hi.as_ref());
    let lo = lo.map(|b| bound_form(unit, &b, true, integral));
    let hi = hi.map(|b| bound_form(unit, &b, false, integral));
    let show = |v: &BigRational| format.value(unit, v);
    match (lo, hi) {
        (Some((l, ls)), Some((h, hs))) => format!(
            "{} {} {name} {} {}",
            show(&l),
            if ls { "<" } else { "<=" },
            if hs { "<" } else { "<=" },
            show(&h)
        ),
        (Some((l, ls)), None) => format!("{name} {} {}", if ls { ">" } else { ">=" }, show(&l)),
        (None, Some((h, hs))) => format!("{name} {} {}", if hs { "<" } else { "<=" }, show(&h)),
        (None, None) => format!("{name} is any value"),
    }
}

/// `name` ranging over `set` within `domain`, as text.
pub(crate) fn range_text(
    name: &str,
    unit: &Unit,
    set: &NumSet,
    domain: &NumSet,
    format: &dyn Format,
) -> String {
    if let Some(v) = set.single() {
        return format!("{name} = {}", format.value(unit, v));
    }
    // All but one value of the domain.
    if set.parts.len() == 2 {
        if let (Some(h), Some(l)) = (&set.parts[0].hi, &set.parts[1].lo) {
            let gap = NumSet::of(
                set.integral,
                vec![Interval {
                    lo: Some(Bound {
                        value: h.value.clone(),
                        inclusive: !h.inclusive,
                    }),
                    hi: Some(Bound {
                        value: l.value.clone(),
                        inclusive: !l.inclusive,
                    }),
                }],
            );
            if let Some(v) = gap.single() {
                if set.union(&gap) == *domain {
                    return format!("{name} != {}", format.value(unit, v));
                }
            }
        }
    }
    let parts: Vec<String> = set
        .parts
        .iter()
        .map(|i| interval_text(name, unit, i, domain, set.integral, format))
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", parts.join(" or ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_and_cents_print_as_dates_and_dollars() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_270), (2025, 7, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(dollars(&BigInt::from(2_000_000)), "$20,000.00");
        assert_eq!(dollars(&BigInt::from(-5)), "-$0.05");
        assert_eq!(dollars(&BigInt::from(123_456_789)), "$1,234,567.89");
    }
}
