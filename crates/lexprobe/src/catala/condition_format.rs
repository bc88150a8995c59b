//! Values in problem conditions written as the program's language writes them: `$20,000.00` or
//! `20 000,00 €`, dates as Catala prints them, numbers exactly.

use catala_eval::runtime::{Date, Integer, TypeNames, Value, ValuePrinter};
use catala_syntax::ast::Language;
use explain::{Format, PlainFormat, Unit};
use num_rational::BigRational;
use num_traits::ToPrimitive;

/// Scalars need no type names.
struct NoTypes;

impl TypeNames for NoTypes {
    fn struct_name(&self, _: u32) -> &str {
        ""
    }
    fn field_name(&self, _: u32, _: usize) -> &str {
        ""
    }
    fn enum_name(&self, _: u32) -> &str {
        ""
    }
    fn case_name(&self, _: u32, _: usize) -> &str {
        ""
    }
    fn case_has_payload(&self, _: u32, _: usize) -> bool {
        false
    }
}

/// The language's way of writing money and dates.
pub(crate) struct CatalaFormat(pub Language);

impl Format for CatalaFormat {
    fn value(&self, unit: &Unit, v: &BigRational) -> String {
        let printer = ValuePrinter {
            language: self.0,
            names: &NoTypes,
        };
        let value = match unit {
            Unit::Money if v.is_integer() => Value::Money(Integer::from_bigint(v.to_integer())),
            Unit::Date if v.is_integer() => {
                match v.to_integer().to_i64().and_then(Date::from_day_number) {
                    Some(d) => Value::Date(d),
                    None => return PlainFormat.value(unit, v),
                }
            }
            _ => return PlainFormat.value(unit, v),
        };
        printer.flat(&value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    #[test]
    fn money_and_dates_follow_the_language() {
        let cents = BigRational::from_integer(BigInt::from(2_000_000));
        assert_eq!(
            CatalaFormat(Language::En).value(&Unit::Money, &cents),
            "$20,000.00"
        );
        assert_eq!(
            CatalaFormat(Language::Fr).value(&Unit::Money, &cents),
            "20 000,00 €"
        );
        // Day 20,270 is 1 July 2025; Catala prints dates between bars.
        let day = BigRational::from_integer(BigInt::from(20_270));
        assert_eq!(
            CatalaFormat(Language::En).value(&Unit::Date, &day),
            "|2025-07-01|"
        );
    }
}
