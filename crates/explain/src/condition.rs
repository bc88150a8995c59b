//! The result: a condition over named inputs, as a list of cases (any one of them suffices),
//! each a list of constraints (all of them needed), in plain data that crosses threads and
//! prints as text or JSON.

use crate::case::{Allowed, Key, Work};
use crate::inputs::{Inputs, Unit};
use crate::numset::NumSet;
use crate::render::{range_text, Format};
use serde_json::{json, Value as Json};

/// One requirement of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// A boolean input is true (or false).
    Flag { input: String, value: bool },
    /// An enumeration input is one of `cases` (out of `of` cases).
    Choice {
        input: String,
        cases: Vec<String>,
        excluded: Vec<String>,
    },
    /// A numeric input lies in `set`; `domain` is the range the exploration gave it (bounds
    /// equal to the domain's are not printed).
    Range {
        input: String,
        unit: Unit,
        set: NumSet,
        domain: NumSet,
    },
    /// A constraint over several inputs, or one without a simpler form.
    Other { text: String },
}

/// All of its constraints hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Case {
    pub constraints: Vec<Constraint>,
}

/// Any of its cases holds. No case: never; one case without constraints: always.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Condition {
    pub cases: Vec<Case>,
    /// The number of path conditions it was made from.
    pub paths: usize,
}

impl Constraint {
    /// The constraint as text, values written by `format`.
    pub fn text(&self, format: &dyn Format) -> String {
        match self {
            Constraint::Flag { input, value } => {
                if *value {
                    input.clone()
                } else {
                    format!("not {input}")
                }
            }
            Constraint::Choice {
                input,
                cases,
                excluded,
            } => match (cases.as_slice(), excluded.as_slice()) {
                ([one], _) => format!("{input} = {one}"),
                (_, [one]) => format!("{input} != {one}"),
                _ => format!("{input} in {{{}}}", cases.join(", ")),
            },
            Constraint::Range {
                input,
                unit,
                set,
                domain,
            } => range_text(input, unit, set, domain, format),
            Constraint::Other { text } => text.clone(),
        }
    }
}

impl Case {
    /// The constraints joined by `and` (`always` when there is none).
    pub fn text(&self, format: &dyn Format) -> String {
        if self.constraints.is_empty() {
            return "always".into();
        }
        let parts: Vec<String> = self.constraints.iter().map(|c| c.text(format)).collect();
        parts.join(" and ")
    }
}

impl Condition {
    /// True when the condition holds for every input of the exploration.
    pub fn is_always(&self) -> bool {
        self.cases.iter().any(|c| c.constraints.is_empty())
    }

    /// One line per case; a single case on its own, several as `either …` / `or …` lines.
    pub fn lines(&self, format: &dyn Format) -> Vec<String> {
        match self.cases.as_slice() {
            [] => vec!["never".into()],
            [one] => vec![one.text(format)],
            many => many
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let lead = if i == 0 { "either" } else { "or" };
                    format!("{lead} {}", c.text(format))
                })
                .collect(),
        }
    }

    /// `{"paths": n, "cases": [{"text": "...", "constraints": [...]}, ...]}`.
    pub fn to_json(&self, format: &dyn Format) -> Json {
        let cases: Vec<Json> = self
            .cases
            .iter()
            .map(|c| {
                let constraints: Vec<Json> = c
                    .constraints
                    .iter()
                    .map(|k| constraint_json(k, format))
                    .collect();
                json!({"text": c.text(format), "constraints": constraints})
            })
            .collect();
        json!({"paths": self.paths, "cases": cases})
    }
}

fn constraint_json(c: &Constraint, format: &dyn Format) -> Json {
    let text = c.text(format);
    match c {
        Constraint::Flag { input, value } => json!({"input": input, "equals": value, "text": text}),
        Constraint::Choice { input, cases, .. } => {
            json!({"input": input, "one_of": cases, "text": text})
        }
        Constraint::Range {
            input, unit, set, ..
        } => {
            let end = |b: &Option<crate::numset::Bound>| match b {
                Some(b) => {
                    json!({"value": machine_value(unit, &b.value), "inclusive": b.inclusive})
                }
                None => Json::Null,
            };
            let ranges: Vec<Json> = set
                .parts
                .iter()
                .map(|i| json!({"min": end(&i.lo), "max": end(&i.hi)}))
                .collect();
            json!({"input": input, "unit": unit_name(unit), "ranges": ranges, "text": text})
        }
        Constraint::Other { .. } => json!({"text": text}),
    }
}

/// The most characters of a constraint shown (a long chain of roundings is cut).
const LONGEST_CONSTRAINT: usize = 400;

fn shortened(text: &str) -> String {
    if text.chars().count() <= LONGEST_CONSTRAINT {
        return text.to_string();
    }
    let cut: String = text.chars().take(LONGEST_CONSTRAINT).collect();
    format!("{cut}…")
}

/// A value for programs: money in units (`29999.99`), dates as `2025-07-01`, numbers exactly.
fn machine_value(unit: &Unit, v: &num_rational::BigRational) -> String {
    match unit {
        Unit::Money => {
            crate::term_text::exact(&(v / num_rational::BigRational::from_integer(100.into())))
        }
        _ => crate::render::PlainFormat.value(unit, v),
    }
}

fn unit_name(unit: &Unit) -> &'static str {
    match unit {
        Unit::Bool => "boolean",
        Unit::Integer => "integer",
        Unit::Decimal => "decimal",
        Unit::Money => "money",
        Unit::Date => "date",
        Unit::Count => "count",
        Unit::Choice(_) => "enumeration",
    }
}

/// The readable form of one simplified case.
pub(crate) fn case_of(work: &Work, inputs: &Inputs) -> Case {
    let constraints = work
        .iter()
        .map(|(key, allowed)| match (key, allowed) {
            (Key::Literal(l), Allowed::Truth(t)) => Constraint::Other {
                text: shortened(if *t { &l.text } else { &l.negated }),
            },
            (Key::Input(v), Allowed::Truth(t)) => Constraint::Flag {
                input: inputs.info(*v).name,
                value: *t,
            },
            (Key::Input(v), Allowed::Cases(set)) => {
                let info = inputs.info(*v);
                let names = match info.unit {
                    Unit::Choice(n) => n,
                    _ => Vec::new(),
                };
                let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| i.to_string());
                Constraint::Choice {
                    input: info.name,
                    cases: set.iter().map(|i| name(*i as usize)).collect(),
                    excluded: (0..names.len())
                        .filter(|i| !set.contains(&(*i as u32)))
                        .map(name)
                        .collect(),
                }
            }
            (Key::Input(v), Allowed::Numbers(set)) => {
                let info = inputs.info(*v);
                Constraint::Range {
                    input: info.name,
                    unit: info.unit,
                    set: set.clone(),
                    domain: inputs.domain(*v),
                }
            }
            (Key::Literal(l), other) => Constraint::Other {
                text: format!("{} ({other:?})", l.text),
            },
        })
        .collect();
    Case { constraints }
}
