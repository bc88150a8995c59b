//! The input domain of a system under test, read from TOML: one entry per input field with
//! its type and range or choices, constraints every input must satisfy, and the definition
//! of the main output `F` over the system's named outputs. One domain is shared by all
//! relations checked on one system.
//!
//! ```toml
//! output = "refund"            # F: an expression over output names
//! constraints = ["MDE <= AGI"] # over bare input field names
//!
//! [fields.sts]
//! type = "enum"
//! choices = ["single", "MFJ", "MFS", "HOH"]
//!
//! [fields.AGI]
//! type = "money"    # boolean | integer | money | decimal | enum
//! min = 0
//! max = 500000
//! step = 1          # money defaults to cents
//!
//! [features]         # optional: named expressions over the fields, for explanations
//! deductible_medical = "max(0, MDE - AGI * 7.5%)"
//! ```

use crate::features::{parse_feature_table, DeclaredFeature};
use crate::relation::eval::{holds, value, EvalError, RecordEnvironment};
use crate::relation::{parse_expression_at, Expr, ParseError};
use crate::rng::SeededRng;
use crate::toml_spans::TomlSpans;
use crate::value::{Record, Value};
use crate::{Located, Positioned};
use diagnostics::{SourceFile, SourceMap, Span};
use std::sync::Arc;
use thiserror::Error;

/// An error in a domain file (`Display`: the message; [`Located`] shows it at its span).
#[derive(Debug, Clone, Error)]
pub enum DomainError {
    #[error("domain file is not valid TOML: {message}")]
    Toml { message: String, span: Option<Span> },
    #[error("field `{field}`: {message}")]
    Field {
        field: String,
        message: String,
        span: Option<Span>,
    },
    #[error("constraint `{text}`: {}", error.located.message)]
    Constraint { text: String, error: ParseError },
    #[error("output definition `{text}`: {}", error.located.message)]
    Output { text: String, error: ParseError },
    #[error(transparent)]
    Feature(#[from] crate::features::FeatureError),
    #[error("{message}")]
    Other { message: String, span: Option<Span> },
}

impl Positioned for DomainError {
    fn span(&self) -> Option<Span> {
        match self {
            DomainError::Toml { span, .. }
            | DomainError::Field { span, .. }
            | DomainError::Other { span, .. } => *span,
            DomainError::Constraint { error, .. } | DomainError::Output { error, .. } => {
                Some(error.located.span)
            }
            DomainError::Feature(e) => e.span(),
        }
    }
}

/// The type and range of one input field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Boolean,
    Integer {
        min: i64,
        max: i64,
    },
    /// Money and decimals: multiples of `step` in [min, max] (step 0 = continuous).
    Number {
        min: f64,
        max: f64,
        step: f64,
    },
    Enum {
        choices: Vec<String>,
    },
}

/// One input field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    pub name: String,
    pub kind: FieldKind,
    /// Its name in the domain file (`AGI` of `[fields.AGI]`).
    pub span: Span,
}

/// A numeric interval with optional strict ends, used to sample under premise bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Interval {
    pub lo: f64,
    pub lo_strict: bool,
    pub hi: f64,
    pub hi_strict: bool,
}

impl Interval {
    pub fn unbounded() -> Interval {
        Interval {
            lo: f64::NEG_INFINITY,
            lo_strict: false,
            hi: f64::INFINITY,
            hi_strict: false,
        }
    }

    /// Narrows the lower end to `lo` (strict when `strict`).
    pub(crate) fn raise_lo(&mut self, lo: f64, strict: bool) {
        if lo > self.lo || (lo == self.lo && strict) {
            self.lo = lo;
            self.lo_strict = strict;
        }
    }

    /// Narrows the upper end to `hi` (strict when `strict`).
    pub(crate) fn lower_hi(&mut self, hi: f64, strict: bool) {
        if hi < self.hi || (hi == self.hi && strict) {
            self.hi = hi;
            self.hi_strict = strict;
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_strict {
            x > self.lo
        } else {
            x >= self.lo
        };
        let below = if self.hi_strict {
            x < self.hi
        } else {
            x <= self.hi
        };
        above && below
    }
}

impl FieldSpec {
    /// A uniform draw from the whole range of the field.
    pub fn sample(&self, rng: &mut SeededRng) -> Value {
        self.sample_within(&Interval::unbounded(), rng)
            .unwrap_or(Value::Bool(false))
    }

    /// A uniform draw from the field's range intersected with `bounds`; `None` when empty.
    pub(crate) fn sample_within(&self, bounds: &Interval, rng: &mut SeededRng) -> Option<Value> {
        match &self.kind {
            FieldKind::Boolean => {
                let options: Vec<bool> = [false, true]
                    .into_iter()
                    .filter(|b| bounds.contains(if *b { 1.0 } else { 0.0 }))
                    .collect();
                (!options.is_empty()).then(|| Value::Bool(options[rng.below(options.len())]))
            }
            FieldKind::Integer { min, max } => {
                let mut lo = (*min as f64).max(bounds.lo.ceil());
                if bounds.lo_strict && lo <= bounds.lo {
                    lo = bounds.lo.floor() + 1.0;
                }
                let mut hi = (*max as f64).min(bounds.hi.floor());
                if bounds.hi_strict && hi >= bounds.hi {
                    hi = bounds.hi.ceil() - 1.0;
                }
                (lo <= hi).then(|| Value::Integer(rng.int_in(lo as i64, hi as i64)))
            }
            FieldKind::Number { min, max, step } => {
                let lo = min.max(bounds.lo);
                let hi = max.min(bounds.hi);
                if *step > 0.0 {
                    let mut k_lo = (lo / step).ceil();
                    if bounds.lo_strict && k_lo * step <= bounds.lo {
                        k_lo = (bounds.lo / step).floor() + 1.0;
                    }
                    let mut k_hi = (hi / step).floor();
                    if bounds.hi_strict && k_hi * step >= bounds.hi {
                        k_hi = (bounds.hi / step).ceil() - 1.0;
                    }
                    if k_lo > k_hi || !k_lo.is_finite() || !k_hi.is_finite() {
                        return None;
                    }
                    let k = rng.int_in(k_lo as i64, k_hi as i64);
                    Some(Value::Number(round_to_step(k as f64 * step, *step)))
                } else {
                    if lo > hi || !lo.is_finite() || !hi.is_finite() {
                        return None;
                    }
                    let x = lo + rng.unit() * (hi - lo);
                    bounds.contains(x).then_some(Value::Number(x))
                }
            }
            FieldKind::Enum { choices } => (!choices.is_empty())
                .then(|| Value::Enum(choices[rng.below(choices.len())].clone())),
        }
    }

    /// Whether `value` has this field's type and lies in its range.
    pub(crate) fn admits(&self, value: &Value) -> bool {
        match (&self.kind, value) {
            (FieldKind::Boolean, Value::Bool(_)) => true,
            (FieldKind::Integer { min, max }, Value::Integer(i)) => (*min..=*max).contains(i),
            (FieldKind::Number { min, max, .. }, v) => {
                v.as_f64().is_some_and(|x| *min <= x && x <= *max) && !matches!(v, Value::Bool(_))
            }
            (FieldKind::Enum { choices }, Value::Enum(s)) => choices.contains(s),
            _ => false,
        }
    }
}

/// The number of decimals that write `step` (`0.25`: 2, `0.1`: 1, `5`: 0), at most 9.
fn step_decimals(step: f64) -> i32 {
    (0..9)
        .find(|d| {
            let scaled = step * 10f64.powi(*d);
            (scaled - scaled.round()).abs() <= 1e-9 * scaled.abs().max(1.0)
        })
        .unwrap_or(9)
}

/// Rounds away binary noise so that a multiple of `step` prints and compares as written (a
/// multiple of 0.25 keeps its two decimals; of 0.01, whole cents).
fn round_to_step(x: f64, step: f64) -> f64 {
    let scale = 10f64.powi(step_decimals(step));
    (x * scale).round() / scale
}

/// The input domain of one system.
#[derive(Debug, Clone)]
pub struct Domain {
    pub fields: Vec<FieldSpec>,
    /// Constraints with their source text.
    pub constraints: Vec<(String, Expr)>,
    /// The definition of `F` over output names, with its source text.
    pub main_output: (String, Expr),
    /// Named expressions over the input fields (the `[features]` table) offered to the
    /// explanation trees besides the raw fields, each after the features it uses.
    pub features: Vec<DeclaredFeature>,
    /// Every enumeration choice of every enum field (the only bare names that are constants).
    pub choices: Vec<String>,
    /// The domain file (and the text of an `--output` option), where the spans of its
    /// expressions and fields are.
    pub sources: Arc<SourceMap>,
}

impl Domain {
    /// Reads a domain from TOML text.
    pub fn from_toml(text: &str) -> Result<Domain, Located<DomainError>> {
        Domain::from_toml_file("", text)
    }

    /// Reads the domain file `name` (its errors name it and point into it).
    pub fn from_toml_file(name: &str, text: &str) -> Result<Domain, Located<DomainError>> {
        let mut map = SourceMap::default();
        let file = map.add(SourceFile::new(name, name, text.to_string()));
        let sources = Arc::new(map);
        read_domain(text, file, &sources).map_err(|e| Located::new(e, sources.clone()))
    }

    /// Replaces the definition of `F` by `text`, given by `origin` (such as `--output`, the
    /// name its errors show).
    pub fn set_output(&mut self, origin: &str, text: &str) -> Result<(), ParseError> {
        let sources = Arc::make_mut(&mut self.sources);
        let file = sources.add(SourceFile::new(origin, origin, text.to_string()));
        let expr = parse_expression_at(text, &[], self.sources.clone(), &|s| Span { file, ..s })?;
        self.main_output = (text.to_string(), expr);
        Ok(())
    }

    /// An error at a span of this domain's file, with the file to show it.
    pub(crate) fn locate<E>(&self, error: E) -> Located<E> {
        Located::new(error, self.sources.clone())
    }

    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A uniform draw of every field (constraints not enforced).
    pub fn sample(&self, rng: &mut SeededRng) -> Record {
        self.fields
            .iter()
            .map(|f| (f.name.clone(), f.sample(rng)))
            .collect()
    }

    /// Whether a record has every field in range and meets every constraint.
    pub(crate) fn admits(&self, record: &Record) -> Result<bool, EvalError> {
        for field in &self.fields {
            match record.get(&field.name) {
                Some(v) if field.admits(v) => {}
                _ => return Ok(false),
            }
        }
        for (_, constraint) in &self.constraints {
            let env = RecordEnvironment {
                record,
                constants: &self.choices,
            };
            if !holds(constraint, &env)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The value of `F` for an output record (an error at its place in the definition).
    pub(crate) fn main_output_value(&self, outputs: &Record) -> Result<Value, Located<EvalError>> {
        let env = RecordEnvironment {
            record: outputs,
            constants: &self.choices,
        };
        value(&self.main_output.1, &env).map_err(|e| self.locate(e))
    }
}

/// An expression written in the string at `path` of the domain file.
fn expression_at(
    text: &str,
    value: &str,
    at: Option<Span>,
    sources: &Arc<SourceMap>,
) -> Result<Expr, ParseError> {
    match at {
        Some(at) => {
            let place = TomlSpans::string_place(text, at, value);
            parse_expression_at(value, &[], sources.clone(), &place)
        }
        None => crate::relation::parse_expression(value, &[]),
    }
}

/// The domain of the TOML `text`, file `file` of `sources`.
fn read_domain(
    text: &str,
    file: diagnostics::FileId,
    sources: &Arc<SourceMap>,
) -> Result<Domain, DomainError> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| DomainError::Toml {
            message: e.message().to_string(),
            span: e.span().map(|r| Span::new(file, r.start, r.end)),
        })?;
    let spans = TomlSpans::new(text, file);
    let other = |message: &str, span: Option<Span>| DomainError::Other {
        message: message.to_string(),
        span,
    };
    let output_text = match table.get("output") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => return Err(other("`output` must be a string", spans.value(&["output"]))),
        None => "F".to_string(),
    };
    let output_expr = if table.contains_key("output") {
        expression_at(text, &output_text, spans.value(&["output"]), sources)
    } else {
        crate::relation::parse_expression(&output_text, &[])
    }
    .map_err(|error| DomainError::Output {
        text: output_text.clone(),
        error,
    })?;
    let mut constraints = Vec::new();
    if let Some(list) = table.get("constraints") {
        let items = list.as_array().ok_or_else(|| {
            other(
                "`constraints` must be a list",
                spans.value(&["constraints"]),
            )
        })?;
        for (i, item) in items.iter().enumerate() {
            let at = spans.item(&["constraints"], i);
            let text_of = item
                .as_str()
                .ok_or_else(|| other("constraints must be strings", at))?;
            let expr = expression_at(text, text_of, at, sources).map_err(|error| {
                DomainError::Constraint {
                    text: text_of.to_string(),
                    error,
                }
            })?;
            constraints.push((text_of.to_string(), expr));
        }
    }
    let field_table = table
        .get("fields")
        .and_then(|f| f.as_table())
        .ok_or_else(|| other("missing `[fields.NAME]` tables", spans.key(&["fields"])))?;
    let mut fields = Vec::new();
    for (name, spec) in field_table {
        fields.push(parse_field(name, spec, &spans)?);
    }
    let choices: Vec<String> = fields
        .iter()
        .filter_map(|f| match &f.kind {
            FieldKind::Enum { choices } => Some(choices.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let features = match table.get("features") {
        None => Vec::new(),
        Some(toml::Value::Table(features)) => {
            let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
            let read = crate::features::FeatureSource {
                text,
                spans: &spans,
                sources,
            };
            parse_feature_table(features, &names, &choices, &read)?
        }
        Some(_) => {
            return Err(other(
                "`features` must be a table",
                spans.value(&["features"]),
            ))
        }
    };
    Ok(Domain {
        fields,
        constraints,
        main_output: (output_text, output_expr),
        features,
        choices,
        sources: sources.clone(),
    })
}

fn parse_field(
    name: &str,
    spec: &toml::Value,
    spans: &TomlSpans,
) -> Result<FieldSpec, DomainError> {
    let key = spans.key(&["fields", name]);
    let at = |entry: &str| spans.value(&["fields", name, entry]).or(key);
    let error_at = |message: &str, span: Option<Span>| DomainError::Field {
        field: name.to_string(),
        message: message.to_string(),
        span,
    };
    let error = |message: &str| error_at(message, key);
    let table = spec
        .as_table()
        .ok_or_else(|| error_at("must be a table", spans.value(&["fields", name])))?;
    let kind_name = table
        .get("type")
        .and_then(|t| t.as_str())
        .ok_or_else(|| error("missing `type`"))?;
    let number = |key: &str| -> Result<Option<f64>, DomainError> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(toml::Value::Float(x)) => Ok(Some(*x)),
            Some(_) => Err(error_at(&format!("`{key}` must be a number"), at(key))),
        }
    };
    let kind = match kind_name {
        "boolean" | "bool" => FieldKind::Boolean,
        "integer" | "int" => {
            let min = number("min")?.ok_or_else(|| error("integer fields need `min`"))?;
            let max = number("max")?.ok_or_else(|| error("integer fields need `max`"))?;
            if min > max {
                return Err(error_at("`min` exceeds `max`", at("min")));
            }
            FieldKind::Integer {
                min: min as i64,
                max: max as i64,
            }
        }
        "money" | "decimal" => {
            let min = number("min")?.ok_or_else(|| error("numeric fields need `min`"))?;
            let max = number("max")?.ok_or_else(|| error("numeric fields need `max`"))?;
            let default_step = if kind_name == "money" { 0.01 } else { 0.0 };
            let step = number("step")?.unwrap_or(default_step);
            if min > max || step < 0.0 {
                return Err(error("needs min <= max and step >= 0"));
            }
            // Catala reads money exactly and refuses digits below the cent: every value drawn
            // must be a whole number of cents.
            if kind_name == "money" && (step <= 0.0 || step_decimals(step) > 2) {
                return Err(error_at(
                    "money fields need a `step` of whole cents (0.01, 0.05, 1, ...; default 0.01)",
                    at("step"),
                ));
            }
            FieldKind::Number { min, max, step }
        }
        "enum" => {
            let choices: Vec<String> = table
                .get("choices")
                .and_then(|c| c.as_array())
                .ok_or_else(|| error("enum fields need `choices`"))?
                .iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect();
            if choices.is_empty() {
                return Err(error_at(
                    "`choices` must be a non-empty list of strings",
                    at("choices"),
                ));
            }
            FieldKind::Enum { choices }
        }
        other => return Err(error_at(&format!("unknown type `{other}`"), at("type"))),
    };
    Ok(FieldSpec {
        name: name.to_string(),
        kind,
        span: key.unwrap_or(crate::located::NOWHERE),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOMAIN: &str = r#"
output = "refund - owed"
constraints = ["MDE <= AGI"]
[fields.sts]
type = "enum"
choices = ["single", "MFJ"]
[fields.AGI]
type = "money"
min = 0
max = 1000
step = 1
[fields.MDE]
type = "money"
min = 0
max = 1000
[fields.kids]
type = "integer"
min = 0
max = 3
[fields.blind]
type = "boolean"
"#;

    #[test]
    fn reads_fields_constraints_and_output() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        assert_eq!(domain.fields.len(), 5);
        assert_eq!(
            domain.field("AGI").unwrap().kind,
            FieldKind::Number {
                min: 0.0,
                max: 1000.0,
                step: 1.0
            }
        );
        let mut rng = SeededRng::new(1);
        let mut admitted = 0;
        for _ in 0..200 {
            let r = domain.sample(&mut rng);
            let agi = r["AGI"].as_f64().unwrap();
            assert_eq!(agi.fract(), 0.0);
            if domain.admits(&r).unwrap() {
                admitted += 1;
                assert!(r["MDE"].as_f64().unwrap() <= agi);
            }
        }
        assert!(admitted > 50 && admitted < 150, "{admitted}");
        let outputs: Record = [
            ("refund".to_string(), Value::Number(10.0)),
            ("owed".to_string(), Value::Number(4.0)),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            domain.main_output_value(&outputs).unwrap(),
            Value::Number(6.0)
        );
        // Without an `owed` output, F cannot be computed: the error is at `owed` in the file
        // (line 2 is `output = "refund - owed"`, `owed` from column 20).
        let named = Domain::from_toml_file("d.toml", DOMAIN).unwrap();
        let only_refund: Record = [("refund".to_string(), Value::Number(10.0))]
            .into_iter()
            .collect();
        assert_eq!(
            named
                .main_output_value(&only_refund)
                .unwrap_err()
                .to_string(),
            "d.toml:2:20: `owed` is neither a name known here nor a choice of an enum field"
        );
    }

    #[test]
    fn bounded_sampling_respects_strict_ends() {
        let money = FieldSpec {
            name: "m".into(),
            kind: FieldKind::Number {
                min: 0.0,
                max: 100.0,
                step: 1.0,
            },
            span: Span::default(),
        };
        let mut bounds = Interval::unbounded();
        bounds.raise_lo(98.0, true);
        let mut rng = SeededRng::new(3);
        for _ in 0..50 {
            let v = money.sample_within(&bounds, &mut rng).unwrap();
            assert!(matches!(v, Value::Number(x) if x == 99.0 || x == 100.0));
        }
        bounds.raise_lo(100.0, true);
        assert_eq!(money.sample_within(&bounds, &mut rng), None);
        let int = FieldSpec {
            name: "i".into(),
            kind: FieldKind::Integer { min: 18, max: 90 },
            span: Span::default(),
        };
        let mut under = Interval::unbounded();
        under.lower_hi(65.0, true);
        for _ in 0..50 {
            let v = int.sample_within(&under, &mut rng).unwrap();
            assert!(matches!(v, Value::Integer(i) if (18..65).contains(&i)));
        }
    }

    #[test]
    fn errors_name_the_field() {
        let err = Domain::from_toml("[fields.a]\ntype = \"integer\"\nmin = 1").unwrap_err();
        assert!(err.to_string().contains("field `a`"), "{err}");
        // The end of the constraint `a >=`, written from column 17 of line 1: column 21.
        let err = Domain::from_toml("constraints = [\"a >=\"]\n[fields.a]\ntype = \"boolean\"")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "1:21: constraint `a >=`: expected an expression, found end of input"
        );
    }

    #[test]
    fn money_is_drawn_in_whole_cents() {
        let money = |step: &str| {
            Domain::from_toml(&format!(
                "output = \"m\"\n[fields.m]\ntype = \"money\"\nmin = 0\nmax = 10\n{step}"
            ))
        };
        for bad in ["step = 0", "step = 0.001", "step = 0.125"] {
            let err = money(bad).unwrap_err();
            assert!(err.to_string().contains("whole cents"), "{bad}: {err}");
        }
        let mut rng = SeededRng::new(7);
        for step in ["", "step = 0.25", "step = 0.05"] {
            let domain = money(step).unwrap();
            for _ in 0..200 {
                let Value::Number(x) = domain.sample(&mut rng)["m"] else {
                    panic!("money is a number");
                };
                // Sent to Catala as its shortest decimal text: at most two decimals.
                let text = Value::Number(x).to_json().to_string();
                let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
                assert!(decimals <= 2, "{step}: {text}");
            }
        }
        // A quarter step keeps its second decimal (0.25, not 0.3).
        assert_eq!(round_to_step(0.25, 0.25), 0.25);
        assert_eq!(round_to_step(3.0 * 0.1, 0.1), 0.3);
        assert_eq!(step_decimals(0.01), 2);
        assert_eq!(step_decimals(5.0), 0);
    }
}
