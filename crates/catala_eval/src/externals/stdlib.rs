//! The standard library's native part: the `*_internal` external modules its Catala sources
//! use (`Date_internal`, `Decimal_internal`, `List_internal`, `Period_internal`; their
//! declarations are in `crates/catala_syntax/stdlib/*_internal.catala_en`).
//!
//! Each implementation checks the shape of its arguments and reports a wrong one as an error
//! (a program that type-checks never hits those); values out of range (a date that does not
//! exist, a month number above 12, a number of digits too large to compute) are Catala runtime
//! errors at the call, never panics.

use super::{ExternalError, Externals};
use crate::eval::RuntimeErrorKind;
use crate::runtime::{Date, DateError, DateRounding, Decimal, Duration, Integer, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::rc::Rc;

/// Registers the standard library's internal implementations.
pub(crate) fn register(e: &mut Externals) {
    e.register("Date_internal", "of_ymd", |args, _| match args {
        [Value::Integer(y), Value::Integer(m), Value::Integer(d)] => date_of_ymd(y, m, d),
        _ => Err(shape("Date_internal.of_ymd", "three integers")),
    });
    e.register("Date_internal", "to_ymd", |args, _| {
        let d = one_date(args, "Date_internal.to_ymd")?;
        Ok(Value::Tuple(Rc::from(vec![
            Value::integer(d.year),
            Value::integer(d.month.into()),
            Value::integer(d.day.into()),
        ])))
    });
    e.register("Date_internal", "last_day_of_month", |args, _| {
        let d = one_date(args, "Date_internal.last_day_of_month")?;
        Ok(Value::Date(d.last_day_of_month()))
    });
    e.register("Date_internal", "add_rounded_down", |args, _| {
        add_rounded(args, DateRounding::Down, "Date_internal.add_rounded_down")
    });
    e.register("Date_internal", "add_rounded_up", |args, _| {
        add_rounded(args, DateRounding::Up, "Date_internal.add_rounded_up")
    });
    e.register("Date_internal", "checked_month", |args, _| match args {
        [Value::Integer(n)] => match n.to_i64() {
            Some(m @ 1..=12) => Ok(Value::integer(m)),
            _ => Err(ExternalError::message(format!(
                "{n} is not a valid month number (it should be between 1 and 12)."
            ))),
        },
        _ => Err(shape("Date_internal.checked_month", "an integer")),
    });
    e.register("Date_internal", "weekday", |args, _| {
        let d = one_date(args, "Date_internal.weekday")?;
        Ok(Value::integer(d.weekday().into()))
    });

    e.register(
        "Decimal_internal",
        "round_to_decimal",
        |args, _| match args {
            [Value::Decimal(d), Value::Integer(n)] => Ok(Value::Decimal(round_to_digits(d, n)?)),
            _ => Err(shape(
                "Decimal_internal.round_to_decimal",
                "a decimal and an integer",
            )),
        },
    );

    e.register("List_internal", "sequence", |args, _| match args {
        [Value::Integer(first), Value::Integer(stop)] => sequence(first, stop),
        _ => Err(shape("List_internal.sequence", "two integers")),
    });
    e.register("List_internal", "nth_element", |args, ctx| match args {
        [Value::List(l), Value::Integer(i)] => match position(l, i) {
            Some(k) => ctx.present(l[k].clone()),
            None => ctx.absent(),
        },
        _ => Err(shape("List_internal.nth_element", "a list and an integer")),
    });
    e.register(
        "List_internal",
        "remove_nth_element",
        |args, _| match args {
            [Value::List(l), Value::Integer(i)] => match position(l, i) {
                Some(k) => {
                    let kept: Vec<Value> = l
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .map(|(_, v)| v.clone())
                        .collect();
                    Ok(Value::List(Rc::from(kept)))
                }
                None => Ok(Value::List(l.clone())),
            },
            _ => Err(shape(
                "List_internal.remove_nth_element",
                "a list and an integer",
            )),
        },
    );
    e.register("List_internal", "reverse", |args, _| match args {
        [Value::List(l)] => Ok(Value::List(l.iter().rev().cloned().collect())),
        _ => Err(shape("List_internal.reverse", "a list")),
    });

    e.register("Period_internal", "sort_by_date", |args, _| match args {
        [Value::List(l)] => sort_by_date(l),
        _ => Err(shape("Period_internal.sort_by_date", "a list")),
    });
    e.register("Period_internal", "split_by_month", |args, _| match args {
        [Value::Date(first), Value::Date(last)] => split(
            *first,
            *last,
            |d| d.first_day_of_month(),
            Duration::new(0, 1, 0),
        ),
        _ => Err(shape("Period_internal.split_by_month", "two dates")),
    });
    e.register("Period_internal", "split_by_year", |args, _| match args {
        [Value::Integer(m), Value::Date(first), Value::Date(last)] => {
            let start_month = match m.to_i64() {
                Some(m @ 1..=12) => m as u8,
                _ => {
                    return Err(ExternalError::message(format!(
                        "{m} is not a valid month number (it should be between 1 and 12)."
                    )))
                }
            };
            split(
                *first,
                *last,
                |d| start_of_year_from(d, start_month),
                Duration::new(1, 0, 0),
            )
        }
        _ => Err(shape(
            "Period_internal.split_by_year",
            "an integer and two dates",
        )),
    });
}

/// The error for arguments of the wrong shape (a program that type-checks never gets it).
fn shape(function: &str, expected: &str) -> ExternalError {
    ExternalError::message(format!("{function} expects {expected}"))
}

fn date_error(e: DateError) -> ExternalError {
    ExternalError::Runtime(match e {
        DateError::AmbiguousDate => RuntimeErrorKind::AmbiguousDate,
        DateError::OutOfRange => RuntimeErrorKind::DateOutOfRange,
        DateError::MixedDurationComparison | DateError::DurationNotInDays => {
            RuntimeErrorKind::DurationUnits
        }
    })
}

fn one_date(args: &[Value], function: &str) -> Result<Date, ExternalError> {
    match args {
        [Value::Date(d)] => Ok(*d),
        _ => Err(shape(function, "a date")),
    }
}

/// The date `y-m-d`, or Catala's error naming the non-existent date as written
/// (`|0031-02-2023| is not a valid date`).
fn date_of_ymd(y: &Integer, m: &Integer, d: &Integer) -> Result<Value, ExternalError> {
    let date = match (y.to_i64(), m.to_i64(), d.to_i64()) {
        (Some(y), Some(m), Some(d)) => Date::new(y, m, d),
        _ => None,
    };
    date.map(Value::Date).ok_or_else(|| {
        let pad = |n: &Integer, width: usize| match n.to_i64() {
            Some(v) => format!("{v:0width$}"),
            None => n.to_string(),
        };
        ExternalError::message(format!(
            "|{}-{}-{}| is not a valid date.",
            pad(y, 4),
            pad(m, 2),
            pad(d, 2)
        ))
    })
}

fn add_rounded(
    args: &[Value],
    rounding: DateRounding,
    function: &str,
) -> Result<Value, ExternalError> {
    match args {
        [Value::Date(d), Value::Duration(dur)] => d
            .add_duration(*dur, rounding)
            .map(Value::Date)
            .map_err(date_error),
        _ => Err(shape(function, "a date and a duration")),
    }
}

/// The largest number of digits `round_to_decimal` computes with (ten to that power is
/// already a number of a few kilobytes).
const MAX_DIGITS: u32 = 10_000;

/// `d` rounded half away from zero to a multiple of `10^-digits`.
fn round_to_digits(d: &Decimal, digits: &Integer) -> Result<Decimal, ExternalError> {
    let n = digits
        .to_i64()
        .filter(|n| n.unsigned_abs() <= MAX_DIGITS as u64)
        .ok_or_else(|| {
            ExternalError::message(format!(
                "cannot round to {digits} decimal places (the supported range is -{MAX_DIGITS} \
                 to {MAX_DIGITS})."
            ))
        })?;
    let scale =
        BigRational::from_integer(num_traits::pow(BigInt::from(10), n.unsigned_abs() as usize));
    let value = d.to_bigrational();
    let scaled = if n >= 0 {
        &value * &scale
    } else {
        &value / &scale
    };
    let rounded = BigRational::from_integer(Decimal::from_bigrational(scaled).round().to_bigint());
    let back = if n >= 0 {
        rounded / scale
    } else {
        rounded * scale
    };
    Ok(Decimal::from_bigrational(back))
}

/// The longest list `sequence` builds.
const MAX_SEQUENCE: i64 = 10_000_000;

fn sequence(first: &Integer, stop: &Integer) -> Result<Value, ExternalError> {
    let len = stop.sub(first);
    if len.signum() <= 0 {
        return Ok(Value::List(Rc::from(Vec::new())));
    }
    let len = len.to_i64().filter(|l| *l <= MAX_SEQUENCE).ok_or_else(|| {
        ExternalError::message(format!(
            "the sequence from {first} to {stop} is too long (at most {MAX_SEQUENCE} elements)."
        ))
    })?;
    let items: Vec<Value> = (0..len)
        .map(|k| Value::Integer(first.add(&Integer::from(k))))
        .collect();
    Ok(Value::List(Rc::from(items)))
}

/// The 0-based position of the element at Catala position `index` (counted from 1), if any.
fn position(l: &[Value], index: &Integer) -> Option<usize> {
    let k = index.to_i64()?.checked_sub(1)?;
    let k = usize::try_from(k).ok()?;
    (k < l.len()).then_some(k)
}

/// Stable sort of `(date, x)` pairs by their date.
fn sort_by_date(l: &[Value]) -> Result<Value, ExternalError> {
    let mut keyed: Vec<(Date, Value)> = Vec::with_capacity(l.len());
    for v in l {
        match v {
            Value::Tuple(pair) => match pair.first() {
                Some(Value::Date(d)) => keyed.push((*d, v.clone())),
                _ => return Err(shape("Period_internal.sort_by_date", "(date, _) pairs")),
            },
            _ => return Err(shape("Period_internal.sort_by_date", "(date, _) pairs")),
        }
    }
    keyed.sort_by_key(|(d, _)| *d);
    Ok(Value::List(keyed.into_iter().map(|(_, v)| v).collect()))
}

/// The first day of the year counted from `start_month` that contains `d`.
fn start_of_year_from(d: Date, start_month: u8) -> Date {
    let year = if d.month < start_month {
        d.year - 1
    } else {
        d.year
    };
    Date {
        year,
        month: start_month,
        day: 1,
    }
}

/// Cuts the period `first..=last` at the starts of the units (months, years) that follow
/// `unit_start(first)`: each part ends the day before the next unit starts, except the last.
/// As in Catala, the final part runs to `last` only when it starts strictly before `last`, and
/// a cut happens only when the next unit starts strictly before `last`.
fn split(
    first: Date,
    last: Date,
    unit_start: impl Fn(Date) -> Date,
    unit: Duration,
) -> Result<Value, ExternalError> {
    let one_day_back = Duration::new(0, 0, -1);
    let mut parts = Vec::new();
    let mut start = first;
    loop {
        let next = unit_start(start)
            .add_duration(unit, DateRounding::Abort)
            .map_err(date_error)?;
        if next < last {
            let end = next
                .add_duration(one_day_back, DateRounding::Abort)
                .map_err(date_error)?;
            parts.push(bounds(start, end));
            start = next;
        } else {
            if start < last {
                parts.push(bounds(start, last));
            }
            break;
        }
    }
    Ok(Value::List(Rc::from(parts)))
}

fn bounds(first: Date, last: Date) -> Value {
    Value::Tuple(Rc::from(vec![Value::Date(first), Value::Date(last)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i64, m: i64, d: i64) -> Date {
        Date::new(y, m, d).unwrap_or_else(|| panic!("invalid test date"))
    }

    fn decimal(text: &str) -> Decimal {
        Decimal::parse(text).unwrap_or_else(|| panic!("invalid test decimal"))
    }

    #[test]
    fn rounds_to_digits_both_ways() {
        let r = |d: &str, n: i64| round_to_digits(&decimal(d), &Integer::from(n));
        assert_eq!(r("2.345", 2), Ok(decimal("2.35")));
        assert_eq!(r("-2.345", 2), Ok(decimal("-2.35")));
        assert_eq!(r("1250", -2), Ok(decimal("1300")));
        assert_eq!(r("1249.99", -2), Ok(decimal("1200")));
        assert_eq!(r("0.5", 0), Ok(decimal("1")));
        assert!(r("1", 1_000_000).is_err());
    }

    #[test]
    fn month_split_keeps_a_last_day_on_the_first_of_a_month() {
        let parts = split(
            date(2024, 1, 20),
            date(2024, 3, 1),
            |d| d.first_day_of_month(),
            Duration::new(0, 1, 0),
        );
        let expected = Value::List(Rc::from(vec![
            bounds(date(2024, 1, 20), date(2024, 1, 31)),
            bounds(date(2024, 2, 1), date(2024, 3, 1)),
        ]));
        assert_eq!(
            format!("{parts:?}"),
            format!("{:?}", Ok::<_, ExternalError>(expected))
        );
    }

    #[test]
    fn invalid_dates_are_named_as_written() {
        let e = date_of_ymd(&Integer::from(31), &Integer::from(2), &Integer::from(2023));
        assert_eq!(
            e.err(),
            Some(ExternalError::message(
                "|0031-02-2023| is not a valid date."
            ))
        );
    }
}
