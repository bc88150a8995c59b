//! The replay check: a test found by the concolic run is run again by the plain interpreter,
//! which must give the same outcome.

use crate::results::Outcome;
use catala_eval::eval::Interpreter;
use catala_eval::runtime::json::value_to_json;
use catala_eval::runtime::Value;
use catala_eval::RuntimeErrorKind;
use catala_ir::dcalc::{Program, ScopeId};

/// Re-runs a test on the plain interpreter; `Some(explanation)` when the outcome differs.
pub(crate) fn replay(
    program: &Program,
    scope: ScopeId,
    inputs: &[Option<Value>],
    outcome: &Outcome,
    lazy_defaults: bool,
) -> Option<String> {
    if let Outcome::Assertion(a) = outcome {
        let Ok(mut interp) = Interpreter::<()>::new(program, ()) else {
            return Some("the plain run fails before the scope".to_string());
        };
        let args = inputs.iter().map(|v| v.clone().map(|v| (v, ()))).collect();
        let first = match interp.run(scope, args) {
            Ok((_, failures)) => failures.into_iter().next(),
            Err(_) => interp.take_failures().into_iter().next(),
        };
        return match first {
            Some(b) if b.span == a.span => None,
            _ => Some("the plain run does not fail the same assertion".to_string()),
        };
    }
    let plain = catala_eval::run_scope(program, scope, inputs.to_vec());
    if let Ok(r) = &plain {
        if !r.assertion_failures.is_empty() {
            return Some("the plain run fails an assertion".to_string());
        }
    }
    match (plain, outcome) {
        (Ok(r), Outcome::Ok(outs)) => {
            let a: Vec<_> = r
                .outputs
                .iter()
                .map(|(n, v)| (n, value_to_json(program, v)))
                .collect();
            let b: Vec<_> = outs
                .iter()
                .map(|(n, v)| (n, value_to_json(program, v)))
                .collect();
            (a != b).then(|| format!("outputs differ: {a:?} vs {b:?}"))
        }
        (Err(e), Outcome::Error(f)) => {
            // A lazy conflict names the first two applicable rules, the plain run all of them.
            let same_rules = if lazy_defaults && f.kind == RuntimeErrorKind::Conflict {
                f.labels.len() == 2.min(e.labels.len())
                    && f.labels
                        .iter()
                        .all(|l| e.labels.iter().any(|m| m.span == l.span))
            } else {
                e.labels.len() == f.labels.len()
            };
            (e.kind != f.kind || !same_rules)
                .then(|| format!("errors differ: {} vs {}", e.kind.as_str(), f.kind.as_str()))
        }
        (_, Outcome::Assertion(_)) => None,
        (Ok(_), Outcome::Error(f)) => Some(format!(
            "plain run succeeds, concolic run: {}",
            f.kind.as_str()
        )),
        (Err(e), Outcome::Ok(_)) => Some(format!("plain run fails with {}", e.kind.as_str())),
    }
}
