//! The operators of dcalc applied to runtime values (already resolved by operand type), and the
//! conversion of dcalc literals to values. Division-by-zero checks happen here too, but the
//! interpreter checks divisors first so that its companion sees the decision.

use crate::runtime::value::{self as v, Value, ValueError};
use crate::runtime::{Date, DateRounding, Decimal, Duration, Integer};
use catala_ir::dcalc::{self, BinaryOp, CmpType, Literal, UnaryOp};
use num_traits::ToPrimitive;
use std::cmp::Ordering;

/// The value of a literal.
pub(crate) fn literal_value(lit: &Literal) -> Result<Value, ValueError> {
    Ok(match lit {
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Integer(i) => Value::Integer(integer_of_big(i)),
        Literal::Decimal(d) => Value::Decimal(match (d.numer().to_i64(), d.denom().to_i64()) {
            (Some(num), Some(den)) if den != 0 => {
                Decimal::from_i128_ratio(num as i128, den as i128)
            }
            _ => Decimal::from_bigrational(d.clone()),
        }),
        Literal::Money(c) => Value::Money(integer_of_big(c)),
        Literal::Date { year, month, day } => Value::Date(
            Date::new(*year, *month as i64, *day as i64)
                .ok_or(ValueError::Date(crate::runtime::DateError::OutOfRange))?,
        ),
        Literal::Duration {
            years,
            months,
            days,
        } => Value::Duration(Duration::new(*years, *months, *days)),
    })
}

/// An integer literal without copying the big integer when it fits a machine word.
fn integer_of_big(i: &num_bigint::BigInt) -> Integer {
    match i.to_i64() {
        Some(small) => Integer::Small(small),
        None => Integer::from_bigint(i.clone()),
    }
}

pub fn rounding(r: dcalc::DateRounding) -> DateRounding {
    match r {
        dcalc::DateRounding::Abort => DateRounding::Abort,
        dcalc::DateRounding::Up => DateRounding::Up,
        dcalc::DateRounding::Down => DateRounding::Down,
    }
}

pub fn apply_unary(op: UnaryOp, arg: &Value) -> Result<Value, ValueError> {
    use UnaryOp as U;
    Ok(match (op, arg) {
        (U::Not, Value::Bool(b)) => Value::Bool(!b),
        (U::MinusInt, Value::Integer(i)) => Value::Integer(i.neg()),
        (U::MinusDec, Value::Decimal(d)) => Value::Decimal(d.neg()),
        (U::MinusMon, Value::Money(m)) => Value::Money(m.neg()),
        (U::MinusDur, Value::Duration(d)) => Value::Duration(-*d),
        (U::ToDecInt, Value::Integer(i)) => Value::Decimal(Decimal::from_integer(i)),
        (U::ToDecMon, Value::Money(m)) => Value::Decimal(v::decimal_of_money(m)),
        (U::ToIntDec, Value::Decimal(d)) => Value::Integer(d.truncate()),
        (U::ToIntMon, Value::Money(m)) => Value::Integer(v::integer_of_money(m)),
        (U::ToMonDec, Value::Decimal(d)) => Value::Money(v::money_of_decimal(d)),
        (U::ToMonInt, Value::Integer(i)) => Value::Money(v::money_of_integer(i)),
        (U::RoundMon, Value::Money(m)) => Value::Money(v::round_money(m)),
        (U::RoundDec, Value::Decimal(d)) => Value::Decimal(v::round_decimal(d)),
        (U::GetDay, Value::Date(d)) => Value::integer(d.day as i64),
        (U::GetMonth, Value::Date(d)) => Value::integer(d.month as i64),
        (U::GetYear, Value::Date(d)) => Value::integer(d.year),
        (U::FirstDayOfMonth, Value::Date(d)) => Value::Date(d.first_day_of_month()),
        (U::LastDayOfMonth, Value::Date(d)) => Value::Date(d.last_day_of_month()),
        (U::Length, Value::List(l)) => Value::integer(l.len() as i64),
        _ => return Err(ValueError::IllTyped),
    })
}

/// Whether `op` divides by `divisor` and `divisor` is zero.
pub(crate) fn divides_by_zero(op: BinaryOp, divisor: &Value) -> bool {
    if !op.is_division() {
        return false;
    }
    match divisor {
        Value::Integer(i) | Value::Money(i) => i.is_zero(),
        Value::Decimal(d) => d.is_zero(),
        Value::Duration(d) => d.years == 0 && d.months == 0 && d.days == 0,
        _ => false,
    }
}

fn compare(t: CmpType, l: &Value, r: &Value) -> Result<Ordering, ValueError> {
    match (t, l, r) {
        (CmpType::Integer, Value::Integer(a), Value::Integer(b))
        | (CmpType::Money, Value::Money(a), Value::Money(b)) => Ok(a.cmp(b)),
        (CmpType::Decimal, Value::Decimal(a), Value::Decimal(b)) => Ok(a.cmp(b)),
        (CmpType::Date, Value::Date(a), Value::Date(b)) => Ok(a.cmp(b)),
        (CmpType::Duration, Value::Duration(a), Value::Duration(b)) => Ok(a.compare(*b)?),
        _ => l.compare(r),
    }
}

pub fn apply_binary(op: BinaryOp, l: &Value, r: &Value) -> Result<Value, ValueError> {
    use BinaryOp as B;
    Ok(match (op, l, r) {
        (B::And, Value::Bool(a), Value::Bool(b)) => Value::Bool(*a && *b),
        (B::Or, Value::Bool(a), Value::Bool(b)) => Value::Bool(*a || *b),
        (B::Xor, Value::Bool(a), Value::Bool(b)) => Value::Bool(a != b),
        (B::AddIntInt, Value::Integer(a), Value::Integer(b)) => Value::Integer(a.add(b)),
        (B::AddDecDec, Value::Decimal(a), Value::Decimal(b)) => Value::Decimal(a.add(b)),
        (B::AddMonMon, Value::Money(a), Value::Money(b)) => Value::Money(a.add(b)),
        (B::AddDurDur, Value::Duration(a), Value::Duration(b)) => Value::Duration(*a + *b),
        (B::AddDatDur(rd), Value::Date(a), Value::Duration(b)) => {
            Value::Date(a.add_duration(*b, rounding(rd))?)
        }
        (B::SubIntInt, Value::Integer(a), Value::Integer(b)) => Value::Integer(a.sub(b)),
        (B::SubDecDec, Value::Decimal(a), Value::Decimal(b)) => Value::Decimal(a.sub(b)),
        (B::SubMonMon, Value::Money(a), Value::Money(b)) => Value::Money(a.sub(b)),
        (B::SubDurDur, Value::Duration(a), Value::Duration(b)) => Value::Duration(*a - *b),
        (B::SubDatDat, Value::Date(a), Value::Date(b)) => Value::Duration(a.sub_date(*b)),
        (B::SubDatDur(rd), Value::Date(a), Value::Duration(b)) => {
            Value::Date(a.add_duration(-*b, rounding(rd))?)
        }
        (B::MultIntInt, Value::Integer(a), Value::Integer(b)) => Value::Integer(a.mul(b)),
        (B::MultDecDec, Value::Decimal(a), Value::Decimal(b)) => Value::Decimal(a.mul(b)),
        (B::MultMonInt, Value::Money(a), Value::Integer(b)) => {
            Value::Money(v::money_mul_integer(a, b))
        }
        (B::MultMonDec, Value::Money(a), Value::Decimal(b)) => {
            Value::Money(v::money_mul_decimal(a, b))
        }
        (B::MultDurInt, Value::Duration(a), Value::Integer(b)) => {
            let factor = b
                .to_i64()
                .ok_or(ValueError::Date(crate::runtime::DateError::OutOfRange))?;
            Value::Duration(*a * factor)
        }
        (B::DivIntInt, Value::Integer(a), Value::Integer(b)) => {
            Value::Decimal(v::integer_div_integer(a, b)?)
        }
        (B::DivDecDec, Value::Decimal(a), Value::Decimal(b)) => {
            Value::Decimal(v::decimal_div_decimal(a, b)?)
        }
        (B::DivMonMon, Value::Money(a), Value::Money(b)) => {
            Value::Decimal(v::money_div_money(a, b)?)
        }
        (B::DivMonInt, Value::Money(a), Value::Integer(b)) => {
            Value::Money(v::money_div_integer(a, b)?)
        }
        (B::DivMonDec, Value::Money(a), Value::Decimal(b)) => {
            Value::Money(v::money_div_decimal(a, b)?)
        }
        (B::DivDurDur, Value::Duration(a), Value::Duration(b)) => {
            Value::Decimal(v::duration_div_duration(*a, *b)?)
        }
        (B::Lt(t), _, _) => Value::Bool(compare(t, l, r)? == Ordering::Less),
        (B::Le(t), _, _) => Value::Bool(compare(t, l, r)? != Ordering::Greater),
        (B::Gt(t), _, _) => Value::Bool(compare(t, l, r)? == Ordering::Greater),
        (B::Ge(t), _, _) => Value::Bool(compare(t, l, r)? != Ordering::Less),
        (B::Eq, _, _) => Value::Bool(l.equals(r)?),
        (B::Neq, _, _) => Value::Bool(!l.equals(r)?),
        (B::Concat, Value::List(a), Value::List(b)) => {
            Value::List(a.iter().chain(b.iter()).cloned().collect())
        }
        _ => return Err(ValueError::IllTyped),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).unwrap_or_else(|| panic!("bad literal {s}")))
    }

    #[test]
    fn typed_operators() {
        let r = apply_binary(
            BinaryOp::MultMonDec,
            &Value::money_cents(100),
            &dec("-0.005"),
        );
        assert!(matches!(r, Ok(Value::Money(m)) if m == Integer::from(-1)));
        let r = apply_binary(BinaryOp::DivIntInt, &Value::integer(1), &Value::integer(3));
        assert!(
            matches!(r, Ok(Value::Decimal(d)) if d == Decimal::from_ratio(&1.into(), &3.into()))
        );
        let r = apply_binary(
            BinaryOp::DivMonInt,
            &Value::money_cents(100),
            &Value::integer(0),
        );
        assert!(matches!(r, Err(ValueError::DivisionByZero)));
        assert!(divides_by_zero(BinaryOp::DivMonInt, &Value::integer(0)));
        assert!(!divides_by_zero(BinaryOp::MultMonInt, &Value::integer(0)));
        let r = apply_unary(UnaryOp::ToIntMon, &Value::money_cents(2365));
        assert!(matches!(r, Ok(Value::Integer(i)) if i == Integer::from(24)));
        let r = apply_unary(UnaryOp::ToIntDec, &dec("-42.443"));
        assert!(matches!(r, Ok(Value::Integer(i)) if i == Integer::from(-42)));
        let r = apply_binary(
            BinaryOp::Lt(CmpType::Duration),
            &Value::Duration(Duration::new(0, 1, 0)),
            &Value::Duration(Duration::new(0, 0, 1)),
        );
        assert!(r.is_err());
    }
}
