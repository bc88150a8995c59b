//! Field values and records: the JSON-like currency between the search, the relation
//! evaluator and the systems under test. A [`Record`] maps field names to [`Value`]s; inputs
//! and outputs of a system are both records. Conversion to and from JSON objects lives here
//! (nested JSON objects are flattened into dotted names on the way in).

use std::collections::BTreeMap;
use std::fmt;

/// One field value. Money and decimals are both carried as `Number`: the relation language
/// compares and computes on them as reals, in binary floating point, and so do the external
/// programs it tests (their float outputs are floats). Integers keep their exactness. A
/// `Number` sent to a Catala program is written as the shortest decimal text of its float
/// (`0.1`, `1234.57`), which Catala's JSON reader takes exactly: the value sent is the
/// decimal the float stands for, not its binary approximation.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Integer(i64),
    Number(f64),
    /// An enumeration constructor, e.g. a filing status `MFJ`.
    Enum(String),
}

/// A named-field record: the inputs or the outputs of one run.
pub type Record = BTreeMap<String, Value>;

impl Value {
    /// The numeric view of a value, if it has one (booleans count as 0 and 1).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Integer(i) => Some(*i as f64),
            Value::Number(n) => Some(*n),
            Value::Enum(_) => None,
        }
    }

    /// Converts to a JSON value (integers stay integers, numbers become JSON floats).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Integer(i) => serde_json::Value::from(*i),
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 9.0e15 {
                    serde_json::Value::from(*n as i64)
                } else {
                    serde_json::Number::from_f64(*n)
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null)
                }
            }
            Value::Enum(s) => serde_json::Value::String(s.clone()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Number(n) => {
                if n.fract() == 0.0 {
                    write!(f, "{n:.0}")
                } else {
                    write!(f, "{n:.2}")
                }
            }
            Value::Enum(s) => write!(f, "{s}"),
        }
    }
}

/// Converts a record to a JSON object, in field-name order.
pub fn record_to_json(record: &Record) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (name, value) in record {
        map.insert(name.clone(), value.to_json());
    }
    serde_json::Value::Object(map)
}

/// Converts a JSON object to a record: numbers become `Number` (or `Integer` when written
/// without a fraction), strings become `Enum`, nested objects are flattened as `a.b`.
/// Arrays and nulls are skipped; a string holding a number (as some tools print money, and as
/// Catala writes money and integers) is read as a number, and so is a fraction `"n/d"` (as
/// Catala writes decimals).
pub fn record_from_json(object: &serde_json::Map<String, serde_json::Value>) -> Record {
    let mut record = Record::new();
    flatten_into(&mut record, "", object);
    record
}

fn flatten_into(
    record: &mut Record,
    prefix: &str,
    object: &serde_json::Map<String, serde_json::Value>,
) {
    for (key, value) in object {
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            serde_json::Value::Bool(b) => {
                record.insert(name, Value::Bool(*b));
            }
            serde_json::Value::Number(n) => {
                let converted = match n.as_i64() {
                    Some(i) => Value::Integer(i),
                    None => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
                };
                record.insert(name, converted);
            }
            serde_json::Value::String(s) => {
                let converted = match numeric_text(s) {
                    Some(n) => Value::Number(n),
                    None => Value::Enum(s.clone()),
                };
                record.insert(name, converted);
            }
            serde_json::Value::Object(inner) => flatten_into(record, &name, inner),
            serde_json::Value::Array(_) | serde_json::Value::Null => {}
        }
    }
}

/// The number a string stands for: `"1200.50"`, `"$1,200.50"`, or a fraction `"-7/3"`.
fn numeric_text(s: &str) -> Option<f64> {
    let plain = s.trim().trim_start_matches('$').replace(',', "");
    if let Some((n, d)) = plain.split_once('/') {
        let is_integer = |t: &str| {
            let digits = t.strip_prefix('-').unwrap_or(t);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        let (n, d) = (n.trim(), d.trim());
        if !is_integer(n) || !is_integer(d) {
            return None;
        }
        let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
        return (d != 0.0).then(|| n / d);
    }
    plain.parse().ok()
}

/// A 64-bit fingerprint of a record's fields and values (to recognise records already
/// tried without keeping or printing them).
pub(crate) fn record_fingerprint(record: &Record, hasher: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    for (name, value) in record {
        name.hash(hasher);
        match value {
            Value::Bool(b) => (0u8, *b).hash(hasher),
            Value::Integer(i) => (1u8, *i as f64).to_bits_hash(hasher),
            Value::Number(n) => (1u8, *n).to_bits_hash(hasher),
            Value::Enum(e) => (2u8, e).hash(hasher),
        }
    }
}

/// Hashing a tag and a number by the number's bits (integers and equal numbers alike).
trait BitsHash {
    fn to_bits_hash(&self, hasher: &mut impl std::hash::Hasher);
}

impl BitsHash for (u8, f64) {
    fn to_bits_hash(&self, hasher: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        self.0.hash(hasher);
        // +0.0 and -0.0 are the same amount.
        let n = if self.1 == 0.0 { 0.0 } else { self.1 };
        n.to_bits().hash(hasher);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(record: &Record) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        record_fingerprint(record, &mut hasher);
        std::hash::Hasher::finish(&hasher)
    }

    #[test]
    fn fingerprints_identify_equal_records() {
        let a: Record = [
            ("n".to_string(), Value::Integer(3)),
            ("s".to_string(), Value::Enum("MFJ".into())),
        ]
        .into_iter()
        .collect();
        let mut b = a.clone();
        b.insert("n".into(), Value::Number(3.0));
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.insert("n".into(), Value::Number(3.5));
        assert_ne!(fingerprint(&a), fingerprint(&b));
        let mut c = a.clone();
        c.insert("s".into(), Value::Enum("MFS".into()));
        assert_ne!(fingerprint(&a), fingerprint(&c));
    }

    #[test]
    fn json_round_trip_keeps_kinds_and_flattens_objects() {
        let json: serde_json::Value = serde_json::from_str(
            r#"{"a": 3, "b": 2.5, "c": true, "d": "MFJ", "e": {"f": 1}, "g": "$1,200.50"}"#,
        )
        .unwrap();
        let record = record_from_json(json.as_object().unwrap());
        assert_eq!(record["a"], Value::Integer(3));
        assert_eq!(record["b"], Value::Number(2.5));
        assert_eq!(record["c"], Value::Bool(true));
        assert_eq!(record["d"], Value::Enum("MFJ".into()));
        assert_eq!(record["e.f"], Value::Integer(1));
        assert_eq!(record["g"], Value::Number(1200.5));
        let back = record_to_json(&record);
        assert_eq!(back["b"], serde_json::json!(2.5));
        assert_eq!(back["d"], serde_json::json!("MFJ"));
    }

    #[test]
    fn catala_decimal_outputs_are_numbers() {
        // Catala writes decimals as "n" or "n/d", money as "units.cents".
        let json: serde_json::Value =
            serde_json::from_str(r#"{"rate": "1/4", "neg": "-7/2", "m": "1000.01", "s": "a/b"}"#)
                .unwrap();
        let record = record_from_json(json.as_object().unwrap());
        assert_eq!(record["rate"], Value::Number(0.25));
        assert_eq!(record["neg"], Value::Number(-3.5));
        assert_eq!(record["m"], Value::Number(1000.01));
        assert_eq!(record["s"], Value::Enum("a/b".into()));
    }

    #[test]
    fn numbers_are_sent_as_their_shortest_decimal_text() {
        // 0.1 is sent as the text 0.1, which Catala reads as exactly 1/10.
        assert_eq!(Value::Number(0.1).to_json().to_string(), "0.1");
        assert_eq!(Value::Number(1234.57).to_json().to_string(), "1234.57");
        assert_eq!(
            Value::Number(0.1 + 0.2).to_json().to_string(),
            "0.30000000000000004"
        );
    }
}
