//! Derived features for explanations. Failure regions of legal software are often not boxes
//! in the raw input fields: "itemized deductions just above the standard deduction" is a
//! band around a quantity the program computes from several fields. Decision trees only cut
//! along one feature at a time, so besides the raw fields they are offered
//!
//! * the domain's declared features (a `[features]` table of named expressions over the
//!   input fields, e.g. `itemized_over_standard = "itemized - standard"`), computed for
//!   every case variable (`x.itemized_over_standard`, `y.itemized_over_standard`); a
//!   feature may use features declared before or after it, as long as there is no cycle;
//! * the differences the relation's premise compares: for every comparison `a op b` whose
//!   sides are not both a plain field or a constant, the feature `a - b` (e.g.
//!   `x.mde - x.agi * 0.075` for the medical floor, `x.l29 - y.l29` for a larger claim),
//!   and, when neither side is a constant, the ratio `a / b` (`x.l29 / y.l29`).
//!
//! A derived feature belongs to the base group when it only reads base cases, so the
//! lexicographic tree still splits on base features before follow-up features.

use crate::domain::Domain;
use crate::relation::eval::{value, CaseEnvironment, RecordEnvironment};
use crate::relation::{parse_expression_at, ArithOp, Expr, ParseError, Relation};
use crate::search::TestRecord;
use crate::toml_spans::TomlSpans;
use crate::tree::{Dataset, Feature, FeatureKind};
use crate::value::{Record, Value};
use crate::Positioned;
use diagnostics::{SourceMap, Span};
use std::sync::Arc;
use thiserror::Error;

/// A named expression over the input fields of one case, declared in the domain file.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredFeature {
    pub name: String,
    /// The expression's source text.
    pub text: String,
    pub expr: Expr,
    /// The domain's enumeration choices (the bare names that are constants).
    pub constants: Vec<String>,
}

/// An error in the domain's `[features]` table, at the feature's name or at the offending
/// part of its expression.
#[derive(Debug, Clone, Error)]
pub enum FeatureError {
    #[error("feature `{name}` must be a string holding an expression")]
    NotAString { name: String, span: Option<Span> },
    #[error("feature `{name}` = `{text}`: {}", error.located.message)]
    Parse {
        name: String,
        text: String,
        error: ParseError,
    },
    #[error("feature `{name}` has the name of an input field")]
    ShadowsField { name: String, span: Option<Span> },
    #[error("feature `{name}` uses `{used}`, which is neither an input field, a feature nor a choice of an enum field")]
    UnknownName {
        name: String,
        used: String,
        /// The feature's expression.
        text: String,
        /// `used` in the domain file.
        span: Span,
    },
    #[error("the features {names} are defined in terms of each other")]
    Cycle { names: String, span: Option<Span> },
}

impl Positioned for FeatureError {
    fn span(&self) -> Option<Span> {
        match self {
            FeatureError::NotAString { span, .. }
            | FeatureError::ShadowsField { span, .. }
            | FeatureError::Cycle { span, .. } => *span,
            FeatureError::Parse { error, .. } => Some(error.located.span),
            FeatureError::UnknownName { span, .. } => Some(*span),
        }
    }
}

/// The domain file a `[features]` table is read from: its text, the spans of its keys and
/// values, and the sources the expressions' spans are in.
pub(crate) struct FeatureSource<'a> {
    pub text: &'a str,
    pub spans: &'a TomlSpans,
    pub sources: &'a Arc<SourceMap>,
}

/// Bare names read by an expression, each with its first span.
fn names_with_spans(expr: &Expr) -> Vec<(String, Span)> {
    let mut names: Vec<(String, Span)> = Vec::new();
    expr.walk(&mut |e| {
        if let Expr::Name(n, span) = e {
            if !names.iter().any(|(m, _)| m == n) {
                names.push((n.clone(), *span));
            }
        }
    });
    names
}

/// Bare names read by an expression.
fn names_used(expr: &Expr) -> Vec<String> {
    let mut names = Vec::new();
    expr.walk(&mut |e| {
        if let Expr::Name(n, _) = e {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    });
    names
}

/// Reads the `[features]` table of a domain and orders the features so that each comes
/// after the features it uses. `fields` and `choices` are the domain's input field names
/// and enumeration constructors.
pub(crate) fn parse_feature_table(
    table: &toml::Table,
    fields: &[String],
    choices: &[String],
    file: &FeatureSource,
) -> Result<Vec<DeclaredFeature>, FeatureError> {
    let key = |name: &str| file.spans.key(&["features", name]);
    let mut pending = Vec::new();
    for (name, text) in table {
        let at = file.spans.value(&["features", name]);
        let text = text.as_str().ok_or_else(|| FeatureError::NotAString {
            name: name.clone(),
            span: at,
        })?;
        if fields.contains(name) {
            return Err(FeatureError::ShadowsField {
                name: name.clone(),
                span: key(name),
            });
        }
        let parsed = match at {
            Some(at) => {
                let place = TomlSpans::string_place(file.text, at, text);
                parse_expression_at(text, &[], file.sources.clone(), &place)
            }
            None => crate::relation::parse_expression(text, &[]),
        };
        let expr = parsed.map_err(|error| FeatureError::Parse {
            name: name.clone(),
            text: text.to_string(),
            error,
        })?;
        pending.push(DeclaredFeature {
            name: name.clone(),
            text: text.to_string(),
            expr,
            constants: choices.to_vec(),
        });
    }
    for feature in &pending {
        for (used, span) in names_with_spans(&feature.expr) {
            let known = fields.contains(&used)
                || choices.contains(&used)
                || pending.iter().any(|f| f.name == used);
            if !known {
                return Err(FeatureError::UnknownName {
                    name: feature.name.clone(),
                    used,
                    text: feature.text.clone(),
                    span,
                });
            }
        }
    }
    // Topological order: repeatedly take the features whose dependencies are placed.
    let mut ordered: Vec<DeclaredFeature> = Vec::new();
    while !pending.is_empty() {
        let ready = pending.iter().position(|f| {
            names_used(&f.expr).iter().all(|n| {
                !pending.iter().any(|p| &p.name == n) || ordered.iter().any(|o| &o.name == n)
            })
        });
        match ready {
            Some(i) => ordered.push(pending.remove(i)),
            None => {
                let names: Vec<String> = pending.iter().map(|f| format!("`{}`", f.name)).collect();
                return Err(FeatureError::Cycle {
                    names: names.join(", "),
                    span: pending.first().and_then(|f| key(&f.name)),
                });
            }
        }
    }
    Ok(ordered)
}

/// The input record of one case extended with the values of the declared features (a
/// feature that cannot be computed, e.g. by a division by zero, is left out).
pub fn with_declared_features(features: &[DeclaredFeature], case: &Record) -> Record {
    let mut extended = case.clone();
    for feature in features {
        let env = RecordEnvironment {
            record: &extended,
            constants: &feature.constants,
        };
        if let Ok(v) = value(&feature.expr, &env) {
            extended.insert(feature.name.clone(), v);
        }
    }
    extended
}

/// A feature computed from the cases of a test by an expression of the relation language:
/// the difference (or ratio) of the two sides of a comparison in the premise.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparedDifference {
    /// How the feature is shown, e.g. `x.mde - (x.agi * 0.075)`.
    pub name: String,
    pub expr: Expr,
    /// 0 when it reads base cases only, 1 otherwise.
    pub group: usize,
}

fn is_plain(e: &Expr) -> bool {
    matches!(e, Expr::Field { .. } | Expr::Number(_) | Expr::Bool(_))
}

fn is_constant(e: &Expr) -> bool {
    e.variables().is_empty()
}

/// The differences `a - b` of the comparisons in a relation's premise that are not a plain
/// field against a constant (those add nothing to the field itself), and the ratios `a / b`
/// of those between two non-constant sides, in order of appearance.
pub(crate) fn compared_differences(relation: &Relation) -> Vec<ComparedDifference> {
    let mut found: Vec<ComparedDifference> = Vec::new();
    let mut visit = |e: &Expr| {
        let Expr::Compare { operands, .. } = e else {
            return;
        };
        for pair in operands.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.mentions_outputs() || b.mentions_outputs() {
                continue;
            }
            if (is_constant(a) && is_constant(b))
                || (is_plain(a) && is_plain(b) && (is_constant(a) || is_constant(b)))
                || matches!(a, Expr::Name(..))
                || matches!(b, Expr::Name(..))
            {
                continue;
            }
            let mut derived = vec![(ArithOp::Sub, format!("{a} - {b}"))];
            if !is_constant(a) && !is_constant(b) {
                // Two computed sides: their ratio too (e.g. a smaller claim as a share of
                // the larger one).
                derived.push((ArithOp::Div, format!("{a} / {b}")));
            }
            for (op, name) in derived {
                if found.iter().any(|d| d.name == name) {
                    continue;
                }
                let expr = Expr::Arith(op, Box::new(a.clone()), Box::new(b.clone()));
                let group = usize::from(
                    expr.variables()
                        .iter()
                        .any(|v| !relation.base_vars.contains(v)),
                );
                found.push(ComparedDifference { name, expr, group });
            }
        }
    };
    relation.base_premise.walk(&mut visit);
    relation.follow_premise.walk(&mut visit);
    found
}

/// Values of the compared differences for one test's cases (NaN when not a number).
pub(crate) fn difference_values(
    differences: &[ComparedDifference],
    vars: &[String],
    cases: &[Record],
) -> Vec<f64> {
    let env = CaseEnvironment {
        vars,
        inputs: cases,
        outputs: None,
        main_output: "",
    };
    differences
        .iter()
        .map(|d| match value(&d.expr, &env) {
            Ok(v) => v.as_f64().unwrap_or(f64::NAN),
            Err(_) => f64::NAN,
        })
        .collect()
}

/// The data set explaining a relation's tests: the raw input fields of every case, then the
/// domain's declared features of every case, then the premise's compared differences.
pub(crate) fn explanation_dataset(
    relation: &Relation,
    domain: &Domain,
    tests: &[TestRecord],
) -> Dataset {
    let vars = relation.all_vars();
    let base_count = relation.base_vars.len();
    let mut data = Dataset::from_tests(&vars, base_count, tests);
    if tests.is_empty() {
        return data;
    }
    // Declared features, per case variable: numeric or boolean ones.
    let extended: Vec<Vec<Record>> = tests
        .iter()
        .map(|t| {
            t.cases
                .iter()
                .map(|c| with_declared_features(&domain.features, c))
                .collect()
        })
        .collect();
    for (v, var) in vars.iter().enumerate() {
        for feature in &domain.features {
            let column: Vec<f64> = extended
                .iter()
                .map(|cases| {
                    cases
                        .get(v)
                        .and_then(|c| c.get(&feature.name))
                        .and_then(Value::as_f64)
                        .unwrap_or(f64::NAN)
                })
                .collect();
            if column.iter().all(|x| x.is_nan()) {
                continue;
            }
            data.features.push(Feature {
                name: format!("{var}.{}", feature.name),
                group: usize::from(v >= base_count),
                kind: FeatureKind::Numeric,
            });
            for (row, x) in data.rows.iter_mut().zip(column) {
                row.push(x);
            }
        }
    }
    let differences = compared_differences(relation);
    let columns: Vec<Vec<f64>> = tests
        .iter()
        .map(|t| difference_values(&differences, &vars, &t.cases))
        .collect();
    for (d, difference) in differences.iter().enumerate() {
        if columns.iter().all(|c| c[d].is_nan()) {
            continue;
        }
        data.features.push(Feature {
            name: difference.name.clone(),
            group: difference.group,
            kind: FeatureKind::Numeric,
        });
        for (row, c) in data.rows.iter_mut().zip(&columns) {
            row.push(c[d]);
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::parse_relations;

    /// The features of a domain file whose `[features]` table is `text`.
    fn read(
        text: &str,
        fields: &[String],
        choices: &[String],
    ) -> Result<Vec<DeclaredFeature>, crate::Located<FeatureError>> {
        let text = format!("[features]\n{text}");
        let mut map = SourceMap::default();
        let file = map.add(diagnostics::SourceFile::new(
            "d.toml",
            "d.toml",
            text.clone(),
        ));
        let sources = Arc::new(map);
        let spans = TomlSpans::new(&text, file);
        let table: toml::Table = text.parse().unwrap();
        let features = table["features"].as_table().unwrap();
        let source = FeatureSource {
            text: &text,
            spans: &spans,
            sources: &sources,
        };
        parse_feature_table(features, fields, choices, &source)
            .map_err(|e| crate::Located::new(e, sources.clone()))
    }

    #[test]
    fn declared_features_are_ordered_by_use_and_computed() {
        let fields = vec!["agi".to_string(), "mde".to_string(), "sts".to_string()];
        let choices = vec!["MFJ".to_string(), "Single".to_string()];
        // `allowed` uses `floor`, declared after it in alphabetical (TOML) order.
        let features = read(
            "allowed = \"max(0, mde - floor)\"\nfloor = \"agi * 7.5%\"\n\
             joint = \"(sts = MFJ) * 2\"",
            &fields,
            &choices,
        )
        .unwrap();
        let names: Vec<&str> = features.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["floor", "allowed", "joint"]);
        let case: Record = [
            ("agi".to_string(), Value::Number(10_000.0)),
            ("mde".to_string(), Value::Number(1_000.0)),
            ("sts".to_string(), Value::Enum("MFJ".into())),
        ]
        .into_iter()
        .collect();
        let extended = with_declared_features(&features, &case);
        // 7.5% of 10,000 is 750; 1,000 - 750 = 250 is deductible.
        assert_eq!(extended["floor"].as_f64(), Some(750.0));
        assert_eq!(extended["allowed"].as_f64(), Some(250.0));
        assert_eq!(extended["joint"].as_f64(), Some(2.0));
    }

    #[test]
    fn feature_table_errors() {
        let fields = vec!["agi".to_string()];
        let err = read("a = \"b + 1\"\nb = \"a\"", &fields, &[]).unwrap_err();
        assert!(matches!(err.error, FeatureError::Cycle { .. }), "{err:?}");
        // Line 2 of the file is `a = "agi + income"`: `income` starts at column 12.
        let err = read("a = \"agi + income\"", &fields, &[]).unwrap_err();
        assert!(
            matches!(&err.error, FeatureError::UnknownName { used, .. } if used == "income"),
            "{err:?}"
        );
        assert_eq!(err.line_col(), Some((2, 12)));
        assert!(
            err.render().contains("├─➤ d.toml:2.12-18:\n"),
            "{}",
            err.render()
        );
        // The name of a feature that shadows a field is marked: line 2, column 1.
        let err = read("agi = \"1\"", &fields, &[]).unwrap_err();
        assert!(matches!(err.error, FeatureError::ShadowsField { .. }));
        assert_eq!(
            err.to_string(),
            "d.toml:2:1: feature `agi` has the name of an input field"
        );
        // The end of `agi +`: column 11 of `a = "agi +"`, before the closing quote.
        let err = read("a = \"agi +\"", &fields, &[]).unwrap_err();
        assert_eq!(err.line_col(), Some((2, 11)), "{err}");
    }

    #[test]
    fn premise_comparisons_become_differences() {
        let relation = &parse_relations(
            "relation r forall x. x.mde <= x.agi * 7.5% and x.sts = MFJ =>\n\
             forall y. x ==[l29] y and x.l29 >= y.l29 and y.l29 > 0 => F(x) >= F(y)",
        )
        .unwrap()[0];
        let differences = compared_differences(relation);
        let names: Vec<&str> = differences.iter().map(|d| d.name.as_str()).collect();
        // `x.sts = MFJ` (an enum) and `y.l29 > 0` (a field against a constant) add nothing.
        assert_eq!(
            names,
            [
                "x.mde - (x.agi * 0.075)",
                "x.mde / (x.agi * 0.075)",
                "x.l29 - y.l29",
                "x.l29 / y.l29"
            ]
        );
        assert_eq!(differences[0].group, 0);
        assert_eq!(differences[1].group, 0);
        assert_eq!(differences[2].group, 1);
        let vars = relation.all_vars();
        let x: Record = [
            ("mde".to_string(), Value::Number(800.0)),
            ("agi".to_string(), Value::Number(10_000.0)),
            ("l29".to_string(), Value::Number(500.0)),
        ]
        .into_iter()
        .collect();
        let mut y = x.clone();
        y.insert("l29".into(), Value::Number(200.0));
        let values = difference_values(&differences, &vars, &[x, y]);
        assert_eq!(values.len(), 4);
        // 800 - 750, 800 / 750, 500 - 200, 500 / 200.
        assert!((values[0] - 50.0).abs() < 1e-9);
        assert!((values[1] - 800.0 / 750.0).abs() < 1e-9);
        assert!((values[2] - 300.0).abs() < 1e-9);
        assert!((values[3] - 2.5).abs() < 1e-9);
    }
}
