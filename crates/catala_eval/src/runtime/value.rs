//! Runtime values of Catala and the arithmetic of its operators. A [`Value`] is cheap to clone:
//! scalars are inline (machine-word fast paths in [`Integer`] and [`Decimal`]), aggregates are
//! reference-counted. Struct and enum values carry the dense ids of their declarations; the
//! names needed to print them come from a [`TypeNames`] table (the compiled program).
//!
//! The arithmetic follows Catala's runtime exactly: money is an integer number of cents;
//! `money × decimal`, `money × integer`, `money ÷ decimal` and `money ÷ integer` compute the
//! exact rational result and round once to the cent (half away from zero); `money ÷ money` and
//! `integer ÷ integer` give exact decimals; conversions round or truncate as Catala does.

use super::date::{Date, Duration};
use super::number::{Decimal, Integer};
use std::any::Any;
use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

/// A Catala runtime value.
#[derive(Clone)]
pub enum Value {
    Unit,
    Bool(bool),
    Integer(Integer),
    Decimal(Decimal),
    /// An integer number of cents.
    Money(Integer),
    Date(Date),
    Duration(Duration),
    Struct(Rc<StructValue>),
    Enum(Rc<EnumValue>),
    Tuple(Rc<[Value]>),
    List(Rc<[Value]>),
    /// A function value; the evaluator that built it knows its concrete type.
    Closure(Rc<dyn Any>),
}

/// A struct value: its declaration and its fields in declaration order.
#[derive(Clone, Debug)]
pub struct StructValue {
    pub struct_id: u32,
    pub fields: Box<[Value]>,
}

/// An enum value: its declaration, the index of its case, and the payload (`Unit` for cases
/// without content).
#[derive(Clone, Debug)]
pub struct EnumValue {
    pub enum_id: u32,
    pub case: u32,
    pub payload: Value,
}

/// Names of the user-declared types, for printing and JSON.
pub trait TypeNames {
    fn struct_name(&self, struct_id: u32) -> &str;
    fn field_name(&self, struct_id: u32, field: usize) -> &str;
    fn enum_name(&self, enum_id: u32) -> &str;
    fn case_name(&self, enum_id: u32, case: usize) -> &str;
    /// Whether the case carries a payload (cases without one print as just their name).
    fn case_has_payload(&self, enum_id: u32, case: usize) -> bool;
}

/// Why an operation on values failed (without position; the evaluator adds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("a value is being used as denominator in a division and it computed to zero")]
    DivisionByZero,
    #[error(transparent)]
    Date(#[from] super::date::DateError),
    #[error("attempting to compare values with uncomparable types")]
    Uncomparable,
    /// An operator applied to values of types it does not accept (a compiler bug).
    #[error("operator applied to values of unexpected types")]
    IllTyped,
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => write!(f, "()"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Decimal(d) => {
                let (n, den) = d.numer_denom();
                write!(f, "{n}/{den}")
            }
            Value::Money(c) => write!(f, "{c}¢"),
            Value::Date(d) => write!(f, "|{d}|"),
            Value::Duration(d) => write!(f, "[{}y {}m {}d]", d.years, d.months, d.days),
            Value::Struct(s) => f
                .debug_tuple(&format!("struct#{}", s.struct_id))
                .field(&s.fields)
                .finish(),
            Value::Enum(e) => write!(f, "enum#{}.{}({:?})", e.enum_id, e.case, e.payload),
            Value::Tuple(t) => f.debug_tuple("").field(t).finish(),
            Value::List(l) => f.debug_list().entries(l.iter()).finish(),
            Value::Closure(_) => write!(f, "<function>"),
        }
    }
}

impl Value {
    pub fn integer(v: i64) -> Value {
        Value::Integer(Integer::from(v))
    }

    pub fn money_cents(cents: i64) -> Value {
        Value::Money(Integer::from(cents))
    }

    pub fn new_struct(struct_id: u32, fields: Vec<Value>) -> Value {
        Value::Struct(Rc::new(StructValue {
            struct_id,
            fields: fields.into_boxed_slice(),
        }))
    }

    pub fn new_enum(enum_id: u32, case: u32, payload: Value) -> Value {
        Value::Enum(Rc::new(EnumValue {
            enum_id,
            case,
            payload,
        }))
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Structural equality with Catala's rules (durations compare by [`Duration::equals`],
    /// functions cannot be compared).
    pub fn equals(&self, other: &Value) -> Result<bool, ValueError> {
        Ok(match (self, other) {
            (Value::Unit, Value::Unit) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Integer(a), Value::Integer(b)) | (Value::Money(a), Value::Money(b)) => a == b,
            (Value::Decimal(a), Value::Decimal(b)) => a == b,
            (Value::Date(a), Value::Date(b)) => a == b,
            (Value::Duration(a), Value::Duration(b)) => a.equals(*b)?,
            (Value::Struct(a), Value::Struct(b)) => {
                if a.struct_id != b.struct_id || a.fields.len() != b.fields.len() {
                    return Ok(false);
                }
                for (x, y) in a.fields.iter().zip(b.fields.iter()) {
                    if !x.equals(y)? {
                        return Ok(false);
                    }
                }
                true
            }
            (Value::Enum(a), Value::Enum(b)) => {
                a.enum_id == b.enum_id && a.case == b.case && a.payload.equals(&b.payload)?
            }
            (Value::Tuple(a), Value::Tuple(b)) | (Value::List(a), Value::List(b)) => {
                if a.len() != b.len() {
                    return Ok(false);
                }
                for (x, y) in a.iter().zip(b.iter()) {
                    if !x.equals(y)? {
                        return Ok(false);
                    }
                }
                true
            }
            (Value::Closure(_), Value::Closure(_)) => return Err(ValueError::Uncomparable),
            _ => false,
        })
    }

    /// Catala's total order on comparable values of the same type.
    pub fn compare(&self, other: &Value) -> Result<Ordering, ValueError> {
        Ok(match (self, other) {
            (Value::Unit, Value::Unit) => Ordering::Equal,
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Integer(a), Value::Integer(b)) | (Value::Money(a), Value::Money(b)) => a.cmp(b),
            (Value::Decimal(a), Value::Decimal(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::Duration(a), Value::Duration(b)) => a.compare(*b)?,
            (Value::Struct(a), Value::Struct(b)) => {
                compare_sequences(&a.fields, &b.fields)?.then(a.struct_id.cmp(&b.struct_id))
            }
            (Value::Enum(a), Value::Enum(b)) => match a.case.cmp(&b.case) {
                Ordering::Equal => a.payload.compare(&b.payload)?,
                o => o,
            },
            (Value::Tuple(a), Value::Tuple(b)) | (Value::List(a), Value::List(b)) => {
                compare_sequences(a, b)?
            }
            _ => return Err(ValueError::Uncomparable),
        })
    }
}

fn compare_sequences(a: &[Value], b: &[Value]) -> Result<Ordering, ValueError> {
    for (x, y) in a.iter().zip(b.iter()) {
        match x.compare(y)? {
            Ordering::Equal => {}
            o => return Ok(o),
        }
    }
    Ok(a.len().cmp(&b.len()))
}

const CENTS_PER_UNIT: i64 = 100;

/// Exact `cents × factor`, rounded once to the cent.
pub(crate) fn money_mul_decimal(cents: &Integer, factor: &Decimal) -> Integer {
    Decimal::from_integer(cents).mul(factor).round()
}

pub(crate) fn money_mul_integer(cents: &Integer, factor: &Integer) -> Integer {
    cents.mul(factor)
}

/// Exact `cents ÷ divisor`, rounded once to the cent.
pub(crate) fn money_div_decimal(cents: &Integer, divisor: &Decimal) -> Result<Integer, ValueError> {
    Decimal::from_integer(cents)
        .checked_div(divisor)
        .map(|q| q.round())
        .ok_or(ValueError::DivisionByZero)
}

pub(crate) fn money_div_integer(cents: &Integer, divisor: &Integer) -> Result<Integer, ValueError> {
    if divisor.is_zero() {
        return Err(ValueError::DivisionByZero);
    }
    Ok(Decimal::from_ratio(cents, divisor).round())
}

/// `money ÷ money`: an exact decimal.
pub(crate) fn money_div_money(a: &Integer, b: &Integer) -> Result<Decimal, ValueError> {
    if b.is_zero() {
        return Err(ValueError::DivisionByZero);
    }
    Ok(Decimal::from_ratio(a, b))
}

/// `integer ÷ integer`: an exact decimal.
pub(crate) fn integer_div_integer(a: &Integer, b: &Integer) -> Result<Decimal, ValueError> {
    if b.is_zero() {
        return Err(ValueError::DivisionByZero);
    }
    Ok(Decimal::from_ratio(a, b))
}

pub(crate) fn decimal_div_decimal(a: &Decimal, b: &Decimal) -> Result<Decimal, ValueError> {
    a.checked_div(b).ok_or(ValueError::DivisionByZero)
}

/// `duration ÷ duration`: both must be pure numbers of days.
pub(crate) fn duration_div_duration(a: Duration, b: Duration) -> Result<Decimal, ValueError> {
    let (x, y) = (a.to_days()?, b.to_days()?);
    integer_div_integer(&Integer::from(x), &Integer::from(y))
}

/// `money of decimal`: rounded to the cent.
pub fn money_of_decimal(d: &Decimal) -> Integer {
    d.mul(&Decimal::from(CENTS_PER_UNIT)).round()
}

pub(crate) fn money_of_integer(i: &Integer) -> Integer {
    i.mul(&Integer::from(CENTS_PER_UNIT))
}

pub(crate) fn decimal_of_money(cents: &Integer) -> Decimal {
    Decimal::from_ratio(cents, &Integer::from(CENTS_PER_UNIT))
}

/// `integer of money`: rounded (half away from zero) to the unit.
pub fn integer_of_money(cents: &Integer) -> Integer {
    decimal_of_money(cents).round()
}

/// `round of money`: to the unit, still in cents.
pub fn round_money(cents: &Integer) -> Integer {
    integer_of_money(cents).mul(&Integer::from(CENTS_PER_UNIT))
}

/// `round of decimal`: an integer-valued decimal.
pub(crate) fn round_decimal(d: &Decimal) -> Decimal {
    Decimal::from_integer(&d.round())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::parse(s).unwrap_or_else(|| panic!("bad literal {s}"))
    }

    #[test]
    fn rounding_facts_of_catala_tests() {
        // tests/arithmetic/good/rounding.catala_en: 0.005 × $1 = $0.01, -0.005 × $1 = -$0.01.
        assert_eq!(
            money_mul_decimal(&Integer::from(100), &dec("0.005")),
            Integer::from(1)
        );
        assert_eq!(
            money_mul_decimal(&Integer::from(100), &dec("-0.005")),
            Integer::from(-1)
        );
        // integer of $23.65 = 24; integer of -42.443 = -42.
        assert_eq!(integer_of_money(&Integer::from(2365)), Integer::from(24));
        assert_eq!(dec("-42.443").truncate(), Integer::from(-42));
    }

    #[test]
    fn money_operations_round_once() {
        // $10 ÷ 3 = $3.333… → $3.33; $0.05 × 0.5 = 2.5 cents → 3 cents.
        assert_eq!(
            money_div_integer(&Integer::from(1000), &Integer::from(3)),
            Ok(Integer::from(333))
        );
        assert_eq!(
            money_mul_decimal(&Integer::from(5), &dec("0.5")),
            Integer::from(3)
        );
        // Rounding once: $1 × (1/3) × 3 is not the same as $1 × ((1/3) × 3) — here we only
        // check the single rounding of the exact product $0.01 × 0.49 = 0.49 cent → 0.
        assert_eq!(
            money_mul_decimal(&Integer::from(1), &dec("0.49")),
            Integer::from(0)
        );
        assert_eq!(
            money_div_decimal(&Integer::from(100), &Decimal::ZERO),
            Err(ValueError::DivisionByZero)
        );
        assert_eq!(
            money_div_money(&Integer::from(100), &Integer::from(300)),
            Ok(Decimal::from_ratio(&1.into(), &3.into()))
        );
        assert_eq!(money_of_decimal(&dec("1.005")), Integer::from(101));
        assert_eq!(money_of_decimal(&dec("-1.005")), Integer::from(-101));
        assert_eq!(round_money(&Integer::from(150)), Integer::from(200));
        assert_eq!(round_money(&Integer::from(-150)), Integer::from(-200));
        assert_eq!(round_money(&Integer::from(149)), Integer::from(100));
        assert_eq!(round_decimal(&dec("-0.5")), Decimal::from(-1));
    }

    #[test]
    fn integer_division_is_exact() {
        assert_eq!(
            integer_div_integer(&Integer::from(1), &Integer::from(4)),
            Ok(dec("0.25"))
        );
        assert_eq!(
            integer_div_integer(&Integer::from(1), &Integer::from(0)),
            Err(ValueError::DivisionByZero)
        );
        assert_eq!(
            duration_div_duration(Duration::new(0, 0, 10), Duration::new(0, 0, 4)),
            Ok(dec("2.5"))
        );
        assert!(duration_div_duration(Duration::new(0, 1, 0), Duration::new(0, 0, 4)).is_err());
    }

    #[test]
    fn structural_comparisons() {
        let a = Value::new_struct(0, vec![Value::integer(1), Value::Bool(true)]);
        let b = Value::new_struct(0, vec![Value::integer(1), Value::Bool(true)]);
        let c = Value::new_struct(0, vec![Value::integer(2), Value::Bool(true)]);
        assert_eq!(a.equals(&b), Ok(true));
        assert_eq!(a.equals(&c), Ok(false));
        assert_eq!(a.compare(&c), Ok(Ordering::Less));
        let d1 = Value::Duration(Duration::new(0, 1, 0));
        let d2 = Value::Duration(Duration::new(0, 0, 30));
        assert!(d1.equals(&d2).is_err());
        let e1 = Value::new_enum(0, 1, Value::Unit);
        let e2 = Value::new_enum(0, 1, Value::Unit);
        assert_eq!(e1.equals(&e2), Ok(true));
    }
}
