//! From a solver model back to the relation's world: the model's values of the case
//! variables as input records (money in units, enumeration and date choices by name), and the
//! replay of those records on the plain interpreter, judged by the same evaluator as the
//! random search ([`crate::relation::eval::judge`]). A refutation is only reported when the
//! replay fails the relation too.

use super::encode::{Encoding, FieldEncoding};
use crate::domain::{Domain, FieldKind};
use crate::relation::eval::{judge, CaseEnvironment, Judgement};
use crate::relation::Relation;
use crate::search::MAIN_OUTPUT_KEY;
use crate::system::SystemUnderTest;
use crate::value::{Record, Value};
use concolic::relational::Assignment;
use smt::catala::ModelValue;

fn int_of(v: Option<&Option<ModelValue>>) -> i64 {
    match v {
        Some(Some(ModelValue::Int(s))) => s.parse().unwrap_or(0),
        _ => 0,
    }
}

/// The input record of each case under the model `a`.
pub fn records_of(enc: &Encoding, domain: &Domain, a: &Assignment) -> Vec<Record> {
    let mut out = Vec::with_capacity(enc.cases.len());
    for row in &enc.vars {
        let mut record = Record::new();
        for (f, v) in enc.fields.iter().zip(row) {
            let slot = a.get(v.0 as usize);
            let choices = match domain.field(&f.name).map(|s| &s.kind) {
                Some(FieldKind::Enum { choices }) => choices.clone(),
                _ => Vec::new(),
            };
            let value = match &f.encoding {
                FieldEncoding::Bool => {
                    Value::Bool(matches!(slot, Some(Some(ModelValue::Bool(true)))))
                }
                FieldEncoding::Integer => Value::Integer(int_of(slot)),
                FieldEncoding::Money => Value::Number(int_of(slot) as f64 / 100.0),
                FieldEncoding::Decimal => Value::Number(match slot {
                    Some(Some(ModelValue::Real(n, d))) => {
                        let (n, d) = (
                            n.parse::<f64>().unwrap_or(0.0),
                            d.parse::<f64>().unwrap_or(1.0),
                        );
                        if d == 0.0 {
                            0.0
                        } else {
                            n / d
                        }
                    }
                    Some(Some(ModelValue::Int(n))) => n.parse().unwrap_or(0.0),
                    _ => 0.0,
                }),
                FieldEncoding::Enum { case_of, .. } => {
                    let case = int_of(slot);
                    let i = case_of
                        .iter()
                        .position(|c| i64::from(*c) == case)
                        .unwrap_or(0);
                    Value::Enum(choices.get(i).cloned().unwrap_or_default())
                }
                FieldEncoding::Date { days } => {
                    let day = int_of(slot);
                    let i = days.iter().position(|d| *d == day).unwrap_or(0);
                    Value::Enum(choices.get(i).cloned().unwrap_or_default())
                }
            };
            record.insert(f.name.clone(), value);
        }
        out.push(record);
    }
    out
}

/// The replay of a candidate counterexample.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The outputs of each case, with `F` under [`MAIN_OUTPUT_KEY`].
    pub outputs: Vec<Record>,
    pub judgement: Judgement,
    /// The conclusion fails by more than the tolerance.
    pub failed: bool,
}

/// Runs every case on `system` and judges the relation's conclusion.
pub fn replay(
    system: &dyn SystemUnderTest,
    relation: &Relation,
    domain: &Domain,
    cases: &[Record],
    tolerance: f64,
) -> Result<Replayed, String> {
    let mut outputs = Vec::with_capacity(cases.len());
    for case in cases {
        let mut o = system.run(case).map_err(|e| e.to_string())?;
        let f = domain
            .main_output_value(&o)
            .map_err(|e| format!("cannot compute F: {e}"))?;
        let f = match f {
            Value::Bool(b) => Value::Number(f64::from(u8::from(b))),
            other => other,
        };
        o.insert(MAIN_OUTPUT_KEY.to_string(), f);
        outputs.push(o);
    }
    let vars = relation.all_vars();
    let env = CaseEnvironment {
        vars: &vars,
        inputs: cases,
        outputs: Some(&outputs),
        main_output: MAIN_OUTPUT_KEY,
    };
    let judgement =
        judge(&relation.conclusion, &env, false).map_err(|e| relation.locate(e).to_string())?;
    Ok(Replayed {
        outputs,
        judgement,
        failed: !judgement.holds && judgement.deviation > tolerance,
    })
}
