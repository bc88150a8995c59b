//! Values to and from JSON in the Catala compiler's formats (`catala interpret --input` and
//! `-F json`).
//!
//! Output: integers as numeric strings (`"2"`), money as a string with two decimals
//! (`"1000.01"`), decimals as `"n"` or `"n/d"`, dates as `"YYYY-MM-DD"`, durations as
//! `{"years","months","days"}`, enums as `"Ctor"` or `{"Ctor": payload}`, structs as objects,
//! lists and tuples as arrays, functions as `"<function>"`.
//!
//! Input: integers as JSON integers or numeric strings; money as integers (units), numbers
//! (units, truncated to the cent as Catala does) or numeric strings; decimals as numbers (the
//! exact value of the binary float), integers or strings (`"1.5"`, `"1/3"`); dates as
//! `"YYYY-MM-DD"` or `{"year","month","day"}`; durations as objects whose fields default to 0;
//! enums and structs as on output. Errors name the JSON path of the offending field.

use super::date::{Date, Duration};
use super::number::{Decimal, Integer};
use super::value::Value;
use catala_ir::dcalc::{Program, Ty};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::FromPrimitive;
use serde_json::{Map, Value as Json};

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
pub fn money_to_string(cents: &Integer) -> String {
    let (units, rest) = cents.abs().div_rem(&Integer::from(100));
    let sign = if cents.signum() < 0 { "-" } else { "" };
    format!("{sign}{units}.{:02}", rest.to_i64().unwrap_or(0))
}

/// Largest integer a JSON number may carry exactly (2^53), as Catala's `int53`.
const MAX_SAFE_FLOAT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// An integer given as a JSON number: an integer literal, or a float with an integral value.
fn number_as_integer(n: &serde_json::Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() <= MAX_SAFE_FLOAT_INTEGER).then_some(f as i64)
}

fn json_integer(path: &str, j: &Json) -> Result<Integer, InputError> {
    match j {
        Json::Number(n) => number_as_integer(n)
            .map(Integer::from)
            .ok_or_else(|| err(path, "unexpected float instead of integer")),
        Json::String(s) => s
            .trim()
            .parse::<BigInt>()
            .map(Integer::from_bigint)
            .map_err(|_| err(path, "unexpected string instead of numeric string")),
        _ => Err(unexpected(path, j, "integer")),
    }
}

fn float_to_decimal(path: &str, f: f64) -> Result<Decimal, InputError> {
    BigRational::from_f64(f)
        .map(Decimal::from_bigrational)
        .ok_or_else(|| err(path, "unexpected non-finite number"))
}

fn json_decimal(path: &str, j: &Json) -> Result<Decimal, InputError> {
    match j {
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(Decimal::from(i))
            } else {
                float_to_decimal(path, n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Decimal::parse(s)
            .ok_or_else(|| err(path, "unexpected string instead of numeric string")),
        _ => Err(unexpected(path, j, "number")),
    }
}

fn json_money(path: &str, j: &Json) -> Result<Integer, InputError> {
    let hundred = Decimal::from(100);
    match j {
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(Integer::from(i).mul(&Integer::from(100)))
            } else {
                // Catala converts `units × 100.` (a float) to cents, truncating.
                let cents = n.as_f64().unwrap_or(f64::NAN) * 100.0;
                Ok(float_to_decimal(path, cents)?.truncate())
            }
        }
        Json::String(s) => Decimal::parse(s)
            .map(|d| d.mul(&hundred).truncate())
            .ok_or_else(|| err(path, "unexpected string instead of numeric string")),
        _ => Err(unexpected(path, j, "number")),
    }
}

fn json_small_int(path: &str, j: &Json) -> Result<i64, InputError> {
    match j {
        Json::Number(n) => number_as_integer(n),
        _ => None,
    }
    .ok_or_else(|| unexpected(path, j, "integer"))
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
        Ty::Arrow(..) => return Err(err(path, "cannot convert functional values from JSON")),
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
        // Money given as a float is truncated to the cent; as a string, parsed exactly.
        assert!(matches!(
            value_from_json(&p, &Ty::Money, &json!(12.345), ""),
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
}
