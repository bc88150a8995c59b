//! Literals: from the surface spelling (digit strings, date parts) to exact values (big integers,
//! rationals, money in cents), with Catala's checks on dates.

use crate::dcalc::{Literal, Ty};
use crate::diag::name_error;
use catala_syntax::ast::{self, DurationUnit};
use catala_syntax::{Diagnostic, Span};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

fn parse_int(digits: &str, span: Span) -> Result<BigInt, Diagnostic> {
    let clean: String = digits.chars().filter(|c| c.is_ascii_digit()).collect();
    if clean.is_empty() {
        return Ok(BigInt::zero());
    }
    clean
        .parse::<BigInt>()
        .map_err(|_| name_error(format!("Invalid number \"{digits}\""), span))
}

/// `int_part.frac_part` as an exact rational.
pub(crate) fn decimal_value(
    int_part: &str,
    frac_part: &str,
    span: Span,
) -> Result<BigRational, Diagnostic> {
    let frac: String = frac_part.chars().filter(|c| c.is_ascii_digit()).collect();
    let int = parse_int(int_part, span)?;
    let mut den = BigInt::one();
    for _ in 0..frac.len() {
        den *= 10;
    }
    let num = int * &den + parse_int(&frac, span)?;
    Ok(BigRational::new(num, den))
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            if leap {
                29
            } else {
                28
            }
        }
    }
}

/// Translates a literal, giving its value and type.
pub(crate) fn translate_literal(l: &ast::Literal, span: Span) -> Result<(Literal, Ty), Diagnostic> {
    Ok(match l {
        ast::Literal::Bool(b) => (Literal::Bool(*b), Ty::Bool),
        ast::Literal::Integer(s) => (Literal::Integer(parse_int(s, span)?), Ty::Integer),
        ast::Literal::Decimal {
            int_part,
            frac_part,
        } => (
            Literal::Decimal(decimal_value(int_part, frac_part, span)?),
            Ty::Decimal,
        ),
        ast::Literal::Percent {
            int_part,
            frac_part,
        } => {
            let v = decimal_value(int_part, frac_part, span)?
                / BigRational::from_integer(BigInt::from(100));
            (Literal::Decimal(v), Ty::Decimal)
        }
        ast::Literal::Money { units, cents } => {
            let mut c: String = cents.chars().filter(|c| c.is_ascii_digit()).collect();
            while c.len() < 2 {
                c.push('0');
            }
            let v = parse_int(units, span)? * 100 + parse_int(&c, span)?;
            (Literal::Money(v), Ty::Money)
        }
        ast::Literal::Date { year, month, day } => {
            if *month == 0 || *month > 12 {
                return Err(name_error(
                    "There is an error in this date: the month number is bigger than 12.",
                    span,
                ));
            }
            if *day == 0 || *day > 31 {
                return Err(name_error(
                    "There is an error in this date: the day number is bigger than 31.",
                    span,
                ));
            }
            if *day > days_in_month(*year, *month) {
                return Err(name_error(
                    "There is an error in this date, it does not correspond to a correct \
                     calendar day.",
                    span,
                ));
            }
            (
                Literal::Date {
                    year: *year,
                    month: *month,
                    day: *day,
                },
                Ty::Date,
            )
        }
        ast::Literal::Duration { amount, unit } => {
            let n: i64 = amount
                .chars()
                .filter(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .map_err(|_| name_error(format!("Invalid duration \"{amount}\""), span))?;
            let (years, months, days) = match unit {
                DurationUnit::Year => (n, 0, 0),
                DurationUnit::Month => (0, n, 0),
                DurationUnit::Day => (0, 0, n),
            };
            (
                Literal::Duration {
                    years,
                    months,
                    days,
                },
                Ty::Duration,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp() -> Span {
        Span::default()
    }

    #[test]
    fn money_cents_are_padded() {
        let (l, _) = translate_literal(
            &ast::Literal::Money {
                units: "1234".into(),
                cents: "5".into(),
            },
            sp(),
        )
        .unwrap();
        assert_eq!(l, Literal::Money(BigInt::from(123450)));
    }

    #[test]
    fn percent_is_hundredths() {
        let (l, t) = translate_literal(
            &ast::Literal::Percent {
                int_part: "2".into(),
                frac_part: "5".into(),
            },
            sp(),
        )
        .unwrap();
        assert_eq!(t, Ty::Decimal);
        assert_eq!(
            l,
            Literal::Decimal(BigRational::new(BigInt::from(1), BigInt::from(40)))
        );
    }

    #[test]
    fn invalid_calendar_days_are_rejected() {
        let bad = ast::Literal::Date {
            year: 2023,
            month: 2,
            day: 29,
        };
        assert!(translate_literal(&bad, sp()).is_err());
        let leap = ast::Literal::Date {
            year: 2024,
            month: 2,
            day: 29,
        };
        assert!(translate_literal(&leap, sp()).is_ok());
    }
}
