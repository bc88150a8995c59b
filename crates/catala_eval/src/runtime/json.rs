//! Values to and from JSON in the Catala compiler's formats (`catala interpret --input` and
//! `-F json`).
//!
//! Output: integers as numeric strings (`"2"`), money as a string with two decimals
//! (`"1000.01"`), decimals as `"n"` or `"n/d"`, dates as `"YYYY-MM-DD"`, durations as
//! `{"years","months","days"}`, enums as `"Ctor"` or `{"Ctor": payload}`, structs as objects,
//! lists and tuples as arrays, functions as `"<function>"`.
//!
//! Input: every JSON number is read exactly from its text, never through a binary float
//! (`0.1` is 1/10; exponents as in `1e-3` or `2.5E2`; integers of any size). Integers as
//! numbers with an integral value (`3`, `3.0`, `1e30`) or numeric strings; money in units as
//! numbers or numeric strings (`12`, `12.5`, `"12.34"`), exactly: an amount with digits below
//! the cent is an error naming the field, where Catala's reader truncates a float; decimals as
//! numbers or strings (`"1.5"`, `"1/3"`, `"1e-3"`); dates as `"YYYY-MM-DD"` or
//! `{"year","month","day"}`; durations as objects whose fields default to 0; enums and structs
//! as on output. Errors name the JSON path of the offending field.

use super::date::{Date, Duration};
use super::number::{Decimal, Integer};
use super::value::Value;
use catala_ir::dcalc::{Program, Ty};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use serde_json::{Map, Value as Json};

/// The message for a value of a function type, which no JSON can give (Catala's wording).
pub const FUNCTIONAL_INPUT: &str = "Cannot convert functional values from JSON";

/// A JSON input that does not fit the expected type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("At {path}: {message}")]
pub struct InputError {
    /// JSON pointer of the offending value, e.g. `/s/a/x` (`/` for the root).
    pub path: String,
    pub message: String,
}

fn err(path: &str, message: impl Into<String>) -> InputError {
    InputError {
        path: if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        },
        message: message.into(),
    }
}

fn describe(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn unexpected(path: &str, j: &Json, expected: &str) -> InputError {
    err(
        path,
        format!("unexpected {} instead of {expected}", describe(j)),
    )
}

/// Renders a value in Catala's JSON output format.
pub fn value_to_json(program: &Program, v: &Value) -> Json {
    match v {
        Value::Unit => Json::Object(Map::new()),
        Value::Bool(b) => Json::Bool(*b),
        Value::Integer(i) => Json::String(i.to_string()),
        Value::Money(m) => Json::String(money_to_string(m)),
        Value::Decimal(d) => {
            let (n, den) = d.numer_denom();
            if den == Integer::from(1) {
                Json::String(n.to_string())
            } else {
                Json::String(format!("{n}/{den}"))
            }
        }
        Value::Date(d) => Json::String(d.to_string()),
        Value::Duration(d) => {
            let mut m = Map::new();
            m.insert("years".into(), d.years.into());
            m.insert("months".into(), d.months.into());
            m.insert("days".into(), d.days.into());
            Json::Object(m)
        }
        Value::Enum(e) => {
            let def = program.enumeration(catala_ir::dcalc::EnumId(e.enum_id));
            let case = def.cases.get(e.case as usize);
            let name = case.map_or("?", |c| c.name.as_str()).to_string();
            if case.is_some_and(|c| c.payload.is_some()) {
                let mut m = Map::new();
                m.insert(name, value_to_json(program, &e.payload));
                Json::Object(m)
            } else {
                Json::String(name)
            }
        }
        Value::Struct(s) => {
            let def = program.structure(catala_ir::dcalc::StructId(s.struct_id));
            let mut m = Map::new();
            for (f, v) in def.fields.iter().zip(s.fields.iter()) {
                m.insert(f.name.clone(), value_to_json(program, v));
            }
            Json::Object(m)
        }
        Value::List(items) | Value::Tuple(items) => {
            Json::Array(items.iter().map(|v| value_to_json(program, v)).collect())
        }
        Value::Closure(_) => Json::String("<function>".into()),
    }
}

/// Money in units with two decimals, as `%.2f` prints it (`"-0.01"`, `"1000.00"`).
pub(crate) fn money_to_string(cents: &Integer) -> String {
    let (units, rest) = cents.abs().div_rem(&Integer::from(100));
    let sign = if cents.signum() < 0 { "-" } else { "" };
    format!("{sign}{units}.{:02}", rest.to_i64().unwrap_or(0))
}

/// Largest power of ten a number's exponent may give (`1e5000` is refused rather than built).
const MAX_EXPONENT: u32 = 4096;

/// The exact value of a number written in decimal notation, with an optional sign, fraction and
/// exponent (`12`, `-0.1`, `1e-3`, `2.5E2`, `+7`): `0.1` is 1/10, not the nearest binary float.
/// `None` when the text is not such a number or its exponent exceeds [`MAX_EXPONENT`].
pub(crate) fn exact_number(text: &str) -> Option<BigRational> {
    let text = text.trim();
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !all_digits(int_part)
        || !all_digits(frac_part)
    {
        return None;
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) {
                return None;
            }
            // An exponent too long for an i64 is out of range as well.
            e.parse().ok()?
        }
    };
    if exponent.unsigned_abs() > u64::from(MAX_EXPONENT) {
        return None;
    }
    let scale = exponent - frac_part.len() as i64;
    let digits = format!("{int_part}{frac_part}");
    let mut numer: BigInt = digits.parse().ok()?;
    if negative {
        numer = -numer;
    }
    let power = num_traits::pow(BigInt::from(10), scale.unsigned_abs() as usize);
    Some(if scale >= 0 {
        BigRational::from_integer(numer * power)
    } else {
        BigRational::new(numer, power)
    })
}

/// The exact value of a JSON number, read from its text (the workspace enables serde_json's
/// `arbitrary_precision`, so the text is the one written in the input).
fn json_number(path: &str, n: &serde_json::Number) -> Result<BigRational, InputError> {
    let text = n.to_string();
    exact_number(&text)
        .ok_or_else(|| err(path, format!("unreadable or out-of-range number {text}")))
}

/// A numeric string (`"1.5"`, `"1/3"`, `"-2e3"`) read exactly.
fn numeric_string(path: &str, s: &str) -> Result<BigRational, InputError> {
    Decimal::parse(s)
        .map(|d| d.to_bigrational())
        .or_else(|| exact_number(s))
        .ok_or_else(|| err(path, "unexpected string instead of numeric string"))
}

fn json_integer(path: &str, j: &Json) -> Result<Integer, InputError> {
    match j {
        Json::Number(n) => {
            let r = json_number(path, n)?;
            if r.is_integer() {
                Ok(Integer::from_bigint(r.to_integer()))
            } else {
                Err(err(
                    path,
                    format!("unexpected non-integral number {n} instead of integer"),
                ))
            }
        }
        Json::String(s) => s
            .trim()
            .parse::<BigInt>()
            .map(Integer::from_bigint)
            .map_err(|_| err(path, "unexpected string instead of numeric string")),
        _ => Err(unexpected(path, j, "integer")),
    }
}

fn json_decimal(path: &str, j: &Json) -> Result<Decimal, InputError> {
    match j {
        Json::Number(n) => json_number(path, n).map(Decimal::from_bigrational),
        Json::String(s) => numeric_string(path, s).map(Decimal::from_bigrational),
        _ => Err(unexpected(path, j, "number")),
    }
}

/// Money in units (`12`, `12.5`, `"12.34"`), read exactly; an amount with digits below the cent
/// is refused, naming the field, rather than truncated (Catala's reader truncates the float
/// `units × 100.`, so `1.999` would silently become $1.99).
fn json_money(path: &str, j: &Json) -> Result<Integer, InputError> {
    let (units, text) = match j {
        Json::Number(n) => (json_number(path, n)?, n.to_string()),
        Json::String(s) => (numeric_string(path, s)?, format!("{s:?}")),
        _ => return Err(unexpected(path, j, "number")),
    };
    let cents = units * BigRational::from_integer(BigInt::from(100));
    if cents.is_integer() {
        Ok(Integer::from_bigint(cents.to_integer()))
    } else {
        Err(err(
            path,
            format!("the amount of money {text} has digits below the cent"),
        ))
    }
}

fn json_small_int(path: &str, j: &Json) -> Result<i64, InputError> {
    let Json::Number(n) = j else {
        return Err(unexpected(path, j, "integer"));
    };
    let r = json_number(path, n)?;
    if !r.is_integer() {
        return Err(err(path, format!("unexpected non-integral number {n}")));
    }
    r.to_integer()
        .to_i64()
        .ok_or_else(|| err(path, format!("number {n} out of range")))
}

fn json_date(path: &str, j: &Json) -> Result<Date, InputError> {
    match j {
        Json::String(s) => {
            Date::parse(s).ok_or_else(|| err(path, format!("invalid date {s:?} (YYYY-MM-DD)")))
        }
        Json::Object(m) => {
            let field = |name: &str| {
                let p = format!("{path}/{name}");
                m.get(name)
                    .ok_or_else(|| err(&p, "missing field"))
                    .and_then(|v| json_small_int(&p, v))
            };
            let (y, mo, d) = (field("year")?, field("month")?, field("day")?);
            Date::new(y, mo, d).ok_or_else(|| err(path, format!("invalid date {y}-{mo}-{d}")))
        }
        _ => Err(unexpected(path, j, "date")),
    }
}

fn json_duration(path: &str, j: &Json) -> Result<Duration, InputError> {
    let Json::Object(m) = j else {
        return Err(unexpected(path, j, "object"));
    };
    for key in m.keys() {
        if !matches!(key.as_str(), "years" | "months" | "days") {
            return Err(err(&format!("{path}/{key}"), "unexpected field"));
        }
    }
    let field = |name: &str| match m.get(name) {
        None => Ok(0),
        Some(v) => json_small_int(&format!("{path}/{name}"), v),
    };
    Ok(Duration::new(
        field("years")?,
        field("months")?,
        field("days")?,
    ))
}

/// Reads a JSON value of type `ty`; `path` is the JSON pointer of `j` for error messages.
pub fn value_from_json(
    program: &Program,
    ty: &Ty,
    j: &Json,
    path: &str,
) -> Result<Value, InputError> {
    Ok(match ty {
        Ty::Bool => Value::Bool(j.as_bool().ok_or_else(|| unexpected(path, j, "boolean"))?),
        Ty::Integer => Value::Integer(json_integer(path, j)?),
        Ty::Decimal => Value::Decimal(json_decimal(path, j)?),
        Ty::Money => Value::Money(json_money(path, j)?),
        Ty::Date => Value::Date(json_date(path, j)?),
        Ty::Duration => Value::Duration(json_duration(path, j)?),
        Ty::Struct(id) => {
            let def = program.structure(*id);
            let Json::Object(m) = j else {
                return Err(unexpected(path, j, "object"));
            };
            for key in m.keys() {
                if !def.fields.iter().any(|f| &f.name == key) {
                    return Err(err(&format!("{path}/{key}"), "unexpected field"));
                }
            }
            let mut fields = Vec::with_capacity(def.fields.len());
            for f in &def.fields {
                let p = format!("{path}/{}", f.name);
                let v = m.get(&f.name).ok_or_else(|| err(&p, "missing field"))?;
                fields.push(value_from_json(program, &f.ty, v, &p)?);
            }
            Value::new_struct(id.0, fields)
        }
        Ty::Enum(id) => {
            let def = program.enumeration(*id);
            let (name, payload) = match j {
                Json::String(s) => (s.as_str(), None),
                Json::Object(m) if m.len() == 1 => match m.iter().next() {
                    Some((k, v)) => (k.as_str(), Some(v)),
                    None => return Err(unexpected(path, j, "enumeration case")),
                },
                _ => return Err(unexpected(path, j, "enumeration case")),
            };
            let Some(case) = def.cases.iter().position(|c| c.name == name) else {
                return Err(err(
                    path,
                    format!("unknown case {name:?} of enumeration {}", def.name),
                ));
            };
            let payload = match (&def.cases[case].payload, payload) {
                (None, None) => Value::Unit,
                (Some(t), Some(v)) => value_from_json(program, t, v, &format!("{path}/{name}"))?,
                (None, Some(_)) => {
                    return Err(err(path, format!("case {name} has no content")));
                }
                (Some(_), None) => {
                    return Err(err(path, format!("case {name} needs a content")));
                }
            };
            Value::new_enum(id.0, case as u32, payload)
        }
        Ty::List(elem) => {
            let Json::Array(items) = j else {
                return Err(unexpected(path, j, "array"));
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(value_from_json(
                    program,
                    elem,
                    item,
                    &format!("{path}/{i}"),
                )?);
            }
            Value::List(out.into())
        }
        Ty::Tuple(tys) => {
            let Json::Array(items) = j else {
                return Err(unexpected(path, j, "array"));
            };
            if items.len() != tys.len() {
                return Err(err(
                    path,
                    format!("expected a tuple of {} elements", tys.len()),
                ));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, (t, item)) in tys.iter().zip(items.iter()).enumerate() {
                out.push(value_from_json(program, t, item, &format!("{path}/{i}"))?);
            }
            Value::Tuple(out.into())
        }
        Ty::Option(inner) => {
            let Some(option) = program.option_enum else {
                return Err(err(path, "this program has no optional type"));
            };
            // `null` or "Absent"; {"Present": v} or the content itself.
            match j {
                Json::Null => Value::new_enum(option.0, 0, Value::Unit),
                Json::String(s) if s == "Absent" => Value::new_enum(option.0, 0, Value::Unit),
                Json::Object(m)
                    if m.len() == 1 && (m.contains_key("Present") || m.contains_key("Présent")) =>
                {
                    let (key, content) = match m.iter().next() {
                        Some(kv) => kv,
                        None => return Err(unexpected(path, j, "optional value")),
                    };
                    let p = format!("{path}/{key}");
                    let v = value_from_json(program, inner, content, &p)?;
                    Value::new_enum(option.0, 1, v)
                }
                _ => {
                    let v = value_from_json(program, inner, j, path)?;
                    Value::new_enum(option.0, 1, v)
                }
            }
        }
        Ty::Var(_) | Ty::Unknown => {
            return Err(err(path, "cannot read a value of unknown type from JSON"))
        }
        Ty::Arrow(..) => return Err(err(path, FUNCTIONAL_INPUT)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use catala_ir::dcalc::{EnumCaseDef, EnumDef, EnumId, FieldDef, StructDef, StructId};
    use serde_json::json;

    fn program() -> Program {
        Program {
            option_enum: None,
            stdlib_files: Vec::new(),
            module_files: Vec::new(),
            warnings: Vec::new(),
            structs: vec![StructDef {
                name: "S".into(),
                fields: vec![
                    FieldDef {
                        name: "x".into(),
                        ty: Ty::Integer,
                    },
                    FieldDef {
                        name: "m".into(),
                        ty: Ty::Money,
                    },
                    FieldDef {
                        name: "e".into(),
                        ty: Ty::Enum(EnumId(0)),
                    },
                ],
                span: Default::default(),
            }],
            enums: vec![EnumDef {
                name: "F".into(),
                cases: vec![
                    EnumCaseDef {
                        name: "A".into(),
                        payload: Some(Ty::Integer),
                    },
                    EnumCaseDef {
                        name: "B".into(),
                        payload: None,
                    },
                ],
                span: Default::default(),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn output_formats_match_catala() {
        let p = program();
        let v = Value::new_struct(
            0,
            vec![
                Value::integer(2),
                Value::money_cents(100_001),
                Value::new_enum(0, 0, Value::integer(-1_000_000)),
            ],
        );
        assert_eq!(
            value_to_json(&p, &v),
            json!({"x": "2", "m": "1000.01", "e": {"A": "-1000000"}})
        );
        assert_eq!(
            value_to_json(&p, &Value::new_enum(0, 1, Value::Unit)),
            json!("B")
        );
        let third = Decimal::parse("-1/10000000").unwrap_or(Decimal::ZERO);
        assert_eq!(
            value_to_json(&p, &Value::Decimal(third)),
            json!("-1/10000000")
        );
        assert_eq!(
            value_to_json(&p, &Value::Decimal(Decimal::from(0))),
            json!("0")
        );
        assert_eq!(
            value_to_json(&p, &Value::Duration(Duration::new(1, 0, 0))),
            json!({"years": 1, "months": 0, "days": 0})
        );
        assert_eq!(money_to_string(&Integer::from(-999)), "-9.99");
        assert_eq!(money_to_string(&Integer::from(0)), "0.00");
    }

    #[test]
    fn input_formats_match_catala() {
        let p = program();
        let s = value_from_json(
            &p,
            &Ty::Struct(StructId(0)),
            &json!({"x": "12", "m": 300, "e": {"A": 0}}),
            "",
        );
        let Ok(Value::Struct(s)) = s else {
            panic!("not a struct: {s:?}");
        };
        assert!(matches!(&s.fields[0], Value::Integer(i) if *i == Integer::from(12)));
        assert!(matches!(&s.fields[1], Value::Money(m) if *m == Integer::from(30_000)));
        assert!(matches!(&s.fields[2], Value::Enum(e) if e.case == 0));
        // Money with a fraction of whole cents, as a number or a string.
        assert!(matches!(
            value_from_json(&p, &Ty::Money, &json!(12.34), ""),
            Ok(Value::Money(m)) if m == Integer::from(1234)
        ));
        assert!(matches!(
            value_from_json(&p, &Ty::Money, &json!("12.34"), ""),
            Ok(Value::Money(m)) if m == Integer::from(1234)
        ));
        assert!(matches!(
            value_from_json(&p, &Ty::Date, &json!({"year": 2025, "month": 1, "day": 31}), ""),
            Ok(Value::Date(d)) if d == Date::new(2025, 1, 31).unwrap_or(d)
        ));
        assert!(matches!(
            value_from_json(&p, &Ty::Duration, &json!({"years": 1}), ""),
            Ok(Value::Duration(d)) if d == Duration::new(1, 0, 0)
        ));
        assert!(matches!(
            value_from_json(&p, &Ty::Decimal, &json!("1/3"), ""),
            Ok(Value::Decimal(d)) if d == Decimal::from_ratio(&1.into(), &3.into())
        ));
        assert!(matches!(
            value_from_json(&p, &Ty::Decimal, &json!(0.5), ""),
            Ok(Value::Decimal(d)) if d == Decimal::from_ratio(&1.into(), &2.into())
        ));
    }

    #[test]
    fn input_errors_name_the_path() {
        let p = program();
        let e = value_from_json(
            &p,
            &Ty::Struct(StructId(0)),
            &json!({"x": "bla", "m": 1, "e": "B"}),
            "",
        );
        assert_eq!(
            e.err().map(|e| e.path),
            Some("/x".to_string()),
            "a non-numeric string for an integer"
        );
        let e = value_from_json(
            &p,
            &Ty::Struct(StructId(0)),
            &json!({"x": 1, "e": "B"}),
            "/s",
        );
        assert_eq!(e.err().map(|e| e.path), Some("/s/m".to_string()));
        let e = value_from_json(&p, &Ty::Enum(EnumId(0)), &json!("C"), "/e");
        assert!(e.is_err());
        let e = value_from_json(&p, &Ty::Enum(EnumId(0)), &json!("A"), "/e");
        assert!(e.is_err(), "case A needs a payload");
        let e = value_from_json(&p, &Ty::Date, &json!("2019-02-29"), "/d");
        assert!(e.is_err());
    }
    /// Parses `text` as JSON (so that a number keeps the text it was written with).
    fn parsed(text: &str) -> Json {
        serde_json::from_str(text).unwrap_or(Json::Null)
    }

    fn read(ty: &Ty, text: &str) -> Result<Value, InputError> {
        value_from_json(&program(), ty, &parsed(text), "/f")
    }

    fn decimal(n: i64, d: i64) -> Decimal {
        Decimal::from_ratio(&n.into(), &d.into())
    }

    #[test]
    fn decimals_are_read_exactly_from_the_text() {
        assert!(matches!(read(&Ty::Decimal, "0.1"), Ok(Value::Decimal(d)) if d == decimal(1, 10)));
        assert!(
            matches!(read(&Ty::Decimal, "1e-3"), Ok(Value::Decimal(d)) if d == decimal(1, 1000))
        );
        assert!(
            matches!(read(&Ty::Decimal, "2.5E2"), Ok(Value::Decimal(d)) if d == decimal(250, 1))
        );
        assert!(
            matches!(read(&Ty::Decimal, "-0.125e+1"), Ok(Value::Decimal(d)) if d == decimal(-5, 4))
        );
        assert!(
            matches!(read(&Ty::Decimal, "\"1e-3\""), Ok(Value::Decimal(d)) if d == decimal(1, 1000))
        );
        // 0.1 + 0.2 = 0.3 exactly, as in Catala's own decimal arithmetic.
        let (Ok(Value::Decimal(a)), Ok(Value::Decimal(b)), Ok(Value::Decimal(c))) = (
            read(&Ty::Decimal, "0.1"),
            read(&Ty::Decimal, "0.2"),
            read(&Ty::Decimal, "0.3"),
        ) else {
            panic!("unreadable decimals");
        };
        assert_eq!(a.add(&b), c);
        // A number built by the json! macro (from an f64) is read from its shortest text.
        assert!(matches!(
            value_from_json(&program(), &Ty::Decimal, &json!(0.1), ""),
            Ok(Value::Decimal(d)) if d == decimal(1, 10)
        ));
    }

    #[test]
    fn integers_of_any_size() {
        let big = "123456789012345678901234567890";
        let expected = Integer::from_bigint(big.parse().unwrap_or_default());
        assert!(matches!(read(&Ty::Integer, big), Ok(Value::Integer(i)) if i == expected));
        assert!(
            matches!(read(&Ty::Integer, &format!("-{big}")), Ok(Value::Integer(i)) if i == expected.neg())
        );
        assert!(matches!(read(&Ty::Integer, "1e30"), Ok(Value::Integer(i))
            if i == Integer::from_bigint(num_traits::pow(BigInt::from(10), 30))));
        // An integral value written with a fraction, as Catala's int53 reader accepts `0.0`.
        assert!(
            matches!(read(&Ty::Integer, "0.0"), Ok(Value::Integer(i)) if i == Integer::from(0))
        );
        assert!(
            matches!(read(&Ty::Integer, "9007199254740993"), Ok(Value::Integer(i))
            if i == Integer::from(9_007_199_254_740_993))
        );
        let e = read(&Ty::Integer, "1.5");
        assert_eq!(e.err().map(|e| e.path), Some("/f".to_string()));
        assert!(
            read(&Ty::Integer, "1e99999").is_err(),
            "exponent out of range"
        );
    }

    #[test]
    fn money_is_read_exactly_or_refused() {
        let big = Integer::from_bigint("1234567890123456789".parse().unwrap_or_default());
        assert!(
            matches!(read(&Ty::Money, "12345678901234567.89"), Ok(Value::Money(m)) if m == big)
        );
        assert!(
            matches!(read(&Ty::Money, "\"12345678901234567.89\""), Ok(Value::Money(m)) if m == big)
        );
        assert!(matches!(read(&Ty::Money, "1.1"), Ok(Value::Money(m)) if m == Integer::from(110)));
        assert!(matches!(read(&Ty::Money, "0.29"), Ok(Value::Money(m)) if m == Integer::from(29)));
        assert!(
            matches!(read(&Ty::Money, "1e2"), Ok(Value::Money(m)) if m == Integer::from(10_000))
        );
        assert!(matches!(read(&Ty::Money, "-0.01"), Ok(Value::Money(m)) if m == Integer::from(-1)));
        for sub_cent in ["1.999", "\"1.999\"", "0.001", "1e-3"] {
            let e = read(&Ty::Money, sub_cent);
            assert!(
                matches!(&e, Err(e) if e.path == "/f" && e.message.contains("below the cent")),
                "{sub_cent}: {e:?}"
            );
        }
        // The field is named in a struct.
        let e = value_from_json(
            &program(),
            &Ty::Struct(StructId(0)),
            &parsed(r#"{"x": 1, "m": 1.999, "e": "B"}"#),
            "",
        );
        assert_eq!(e.err().map(|e| e.path), Some("/m".to_string()));
    }

    #[test]
    fn the_number_reader_follows_the_json_grammar() {
        let r = |n: i64, d: i64| Some(BigRational::new(n.into(), d.into()));
        assert_eq!(exact_number("12"), r(12, 1));
        assert_eq!(exact_number("-0.5"), r(-1, 2));
        assert_eq!(exact_number("5e0"), r(5, 1));
        assert_eq!(exact_number("5E-0"), r(5, 1));
        assert_eq!(exact_number("25e-1"), r(5, 2));
        for bad in [
            "", "-", "e3", "1e", "1e+", "1.2.3", "0x10", "1_000", "NaN", "inf", "1e4097",
        ] {
            assert_eq!(exact_number(bad), None, "{bad:?}");
        }
    }
}
