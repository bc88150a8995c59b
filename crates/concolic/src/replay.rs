//! A test's outcome as `lexprobe run` gives it: the plain interpreter run on the test's inputs,
//! on the program as compiled (Catala's evaluation order, no optimization), and its comparison
//! with the outcome of the test's path as explored (the replay check).
//!
//! The outcome of a run is its error when it fails (whatever assertions failed before), else
//! its first failed assertion, else its outputs. Two outcomes are the same when they have the
//! same kind and the same positions (every label of an error, as a set; an assertion's span) or
//! the same outputs.

use crate::results::Outcome;
use catala_eval::eval::Interpreter;
use catala_eval::runtime::json::value_to_json;
use catala_eval::runtime::Value;
use catala_eval::{RuntimeError, RuntimeErrorKind};
use catala_ir::dcalc::{Program, ScopeId};

/// The plain interpreter of the program as compiled, prepared once for many runs.
pub(crate) struct PlainRuns<'p> {
    program: &'p Program,
    scope: ScopeId,
    /// `Err`: the program's top-level definitions fail (every run then fails with it).
    interp: Result<Interpreter<'p, ()>, RuntimeError>,
}

impl<'p> PlainRuns<'p> {
    pub(crate) fn new(program: &'p Program, scope: ScopeId) -> PlainRuns<'p> {
        PlainRuns {
            program,
            scope,
            interp: Interpreter::<()>::new(program, ()),
        }
    }

    /// The program as given.
    pub(crate) fn program(&self) -> &'p Program {
        self.program
    }

    /// The outcome of the plain run on `inputs` (aligned with the scope's inputs).
    pub(crate) fn outcome(&mut self, inputs: &[Option<Value>]) -> Outcome {
        let interp = match &mut self.interp {
            Ok(i) => i,
            Err(e) => return Outcome::Error(e.clone()),
        };
        let args = inputs.iter().map(|v| v.clone().map(|v| (v, ()))).collect();
        match interp.run(self.scope, args) {
            Ok((out, failures)) => match (failures.into_iter().next(), out) {
                (Some(a), _) => Outcome::Assertion(a),
                (None, (Value::Struct(s), _)) => Outcome::Ok(
                    self.program
                        .scope(self.scope)
                        .outputs
                        .iter()
                        .map(|o| o.name.clone())
                        .zip(s.fields.iter().cloned())
                        .collect(),
                ),
                (None, _) => Outcome::Ok(Vec::new()),
            },
            Err(e) => {
                // The assertions that failed before the error: `run` reports the error.
                interp.take_failures();
                Outcome::Error(e)
            }
        }
    }
}

/// How the outcome of a test's path compares with the plain run's on its inputs.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Agreement {
    Same,
    /// The path ends on a failed assertion and the plain run goes on to fail after it: the
    /// path decides this (every input of the path fails the same way), only the report
    /// differs.
    ErrorAfterAssertion,
    /// A lazy conflict (Fig. 9) naming two of the plain run's applicable rules: the rules
    /// after the second were not evaluated on the path, so other inputs of the path may make
    /// other rules applicable.
    LazyConflict,
    /// Anything else, explained.
    Differ(String),
}

fn sorted_spans(e: &RuntimeError) -> Vec<catala_syntax::Span> {
    let mut v: Vec<_> = e.labels.iter().map(|l| l.span).collect();
    v.sort();
    v.dedup();
    v
}

/// Compares the outcome of a path (`explored`) with the plain run's (`plain`).
pub(crate) fn compare(
    program: &Program,
    explored: &Outcome,
    plain: &Outcome,
    lazy_defaults: bool,
) -> Agreement {
    match (explored, plain) {
        (Outcome::Ok(a), Outcome::Ok(b)) => {
            let json = |outs: &[(String, Value)]| -> Vec<_> {
                outs.iter()
                    .map(|(n, v)| (n.clone(), value_to_json(program, v)))
                    .collect()
            };
            let (a, b) = (json(a), json(b));
            if a == b {
                Agreement::Same
            } else {
                Agreement::Differ(format!("outputs differ: {a:?} vs {b:?}"))
            }
        }
        (Outcome::Error(f), Outcome::Error(e)) => {
            let (fs, es) = (sorted_spans(f), sorted_spans(e));
            if f.kind == e.kind && fs == es {
                Agreement::Same
            } else if lazy_defaults
                && f.kind == RuntimeErrorKind::Conflict
                && e.kind == RuntimeErrorKind::Conflict
                && fs.len() == 2
                && fs.iter().all(|s| es.contains(s))
            {
                Agreement::LazyConflict
            } else if f.kind == e.kind {
                Agreement::Differ(format!(
                    "{} at other positions: {} vs {}",
                    e.kind.as_str(),
                    positions(&fs),
                    positions(&es)
                ))
            } else {
                Agreement::Differ(format!(
                    "{} at {} on the path, {} at {} in the plain run",
                    f.kind.as_str(),
                    positions(&fs),
                    e.kind.as_str(),
                    positions(&es)
                ))
            }
        }
        (Outcome::Assertion(a), Outcome::Assertion(b)) => {
            if a.span == b.span {
                Agreement::Same
            } else {
                Agreement::Differ("the plain run fails another assertion first".to_string())
            }
        }
        (Outcome::Assertion(_), Outcome::Error(_)) => Agreement::ErrorAfterAssertion,
        (f, e) => Agreement::Differ(format!(
            "{} on the path, {} in the plain run",
            f.kind(),
            e.kind()
        )),
    }
}

/// Positions as file numbers and byte offsets (the caller has the source map).
fn positions(spans: &[catala_syntax::Span]) -> String {
    let v: Vec<String> = spans
        .iter()
        .map(|s| format!("file {} byte {}", s.file.0, s.start))
        .collect();
    format!("[{}]", v.join(", "))
}
