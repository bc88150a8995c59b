//! The interpreter over dcalc and its entry points: run a scope on values or on a JSON inputs
//! object, run every `#[test]` scope. The evaluator is generic over a [`Companion`] (see
//! [`companion`]); these entry points use the concrete, zero-sized one.

pub mod assertion;
pub mod companion;
pub mod coverage;
pub mod error;
pub mod input_assertions;
pub mod interpreter;
mod lists;
pub mod ops;
#[cfg(test)]
mod tests;

pub use companion::{BranchEvent, Companion, Composite, Projection};
pub use error::{AssertionFailure, ErrorSignature, RunError, RuntimeError, RuntimeErrorKind};
pub use interpreter::{Interpreter, ScopeArgs, Tracked};

use crate::runtime::json::{value_from_json, value_to_json, InputError};
use crate::runtime::Value;
use catala_ir::dcalc::{InputKind, Program, ScopeId};
use serde_json::{Map, Value as Json};

/// The outcome of a scope run that raised no runtime error.
#[derive(Clone, Debug)]
pub struct ScopeResult {
    pub scope: ScopeId,
    /// The output variables and their values, in declaration order.
    pub outputs: Vec<(String, Value)>,
    /// The output structure (the same values, as a struct value of the scope's output struct).
    pub output: Value,
    /// Failed assertions, in evaluation order (Catala numbers them `1/n`, `2/n`, ...).
    pub assertion_failures: Vec<AssertionFailure>,
}

impl ScopeResult {
    /// A test scope passes when it raises no error and no assertion fails.
    pub fn passed(&self) -> bool {
        self.assertion_failures.is_empty()
    }
}

impl<C: Companion> Interpreter<'_, C> {
    /// Runs `scope` on `inputs` (aligned with the scope's `inputs`; `None` is empty: an `input`
    /// variable left empty is the "no applicable rule" error at its declaration). Returns the
    /// output structure and the assertions that failed during the run.
    pub fn run(
        &mut self,
        scope: ScopeId,
        inputs: Vec<Option<Tracked<C>>>,
    ) -> Result<(Tracked<C>, Vec<AssertionFailure>), RuntimeError> {
        self.take_failures();
        match self.run_top_scope(scope, inputs.into()) {
            Ok(o) => Ok((o, self.take_failures())),
            // The assertions that failed before the error stay for `take_failures`.
            Err(e) => Err(*e),
        }
    }
}

/// Runs `scope` concretely. `inputs` is aligned with the scope's `inputs` (`None`: not given).
pub fn run_scope(
    program: &Program,
    scope: ScopeId,
    inputs: Vec<Option<Value>>,
) -> Result<ScopeResult, RuntimeError> {
    let mut interp = Interpreter::<()>::new(program, ())?;
    run_with(&mut interp, scope, inputs)
}

/// Runs `scope` with an interpreter prepared once (to run many times without re-evaluating the
/// top-level definitions).
pub fn run_with(
    interp: &mut Interpreter<'_, ()>,
    scope: ScopeId,
    inputs: Vec<Option<Value>>,
) -> Result<ScopeResult, RuntimeError> {
    let program = interp.program();
    let args = inputs.into_iter().map(|v| v.map(|v| (v, ()))).collect();
    let ((output, ()), failures) = interp.run(scope, args)?;
    let names = program
        .scopes
        .get(scope.0 as usize)
        .into_iter()
        .flat_map(|s| s.outputs.iter().map(|o| o.name.clone()));
    let outputs = match &output {
        Value::Struct(s) => names.zip(s.fields.iter().cloned()).collect(),
        _ => Vec::new(),
    };
    Ok(ScopeResult {
        scope,
        outputs,
        output,
        assertion_failures: failures,
    })
}

/// Reads a scope's inputs from a JSON object keyed by input variable name. `input` variables
/// are required, `context` variables optional; unknown keys are errors.
pub fn inputs_from_json(
    program: &Program,
    scope: ScopeId,
    json: &Json,
) -> Result<Vec<Option<Value>>, InputError> {
    let Some(s) = program.scopes.get(scope.0 as usize) else {
        return Err(InputError {
            path: "/".into(),
            message: format!("no scope #{}", scope.0),
        });
    };
    if let Some(f) = s
        .inputs
        .iter()
        .find(|i| matches!(i.ty, catala_ir::dcalc::Ty::Arrow(..)))
    {
        return Err(InputError {
            path: format!("/{}", f.name),
            message: crate::runtime::json::FUNCTIONAL_INPUT.into(),
        });
    }
    let empty = Map::new();
    let obj = match json {
        Json::Object(m) => m,
        Json::Null => &empty,
        other => {
            return Err(InputError {
                path: "/".into(),
                message: format!(
                    "unexpected {} instead of object",
                    match other {
                        Json::Array(_) => "array",
                        Json::String(_) => "string",
                        Json::Number(_) => "number",
                        _ => "boolean",
                    }
                ),
            })
        }
    };
    for key in obj.keys() {
        if !s.inputs.iter().any(|i| &i.name == key) {
            return Err(InputError {
                path: format!("/{key}"),
                message: format!("unexpected field: scope {} has no input {key}", s.name),
            });
        }
    }
    let mut out = Vec::with_capacity(s.inputs.len());
    for input in &s.inputs {
        let path = format!("/{}", input.name);
        match obj.get(&input.name) {
            Some(j) => out.push(Some(value_from_json(program, &input.ty, j, &path)?)),
            None if input.kind == InputKind::Input => {
                return Err(InputError {
                    path,
                    message: "missing field (an input variable must be given)".into(),
                })
            }
            None => out.push(None),
        }
    }
    Ok(out)
}

/// Runs `scope` on a JSON inputs object.
pub fn run_scope_json(
    program: &Program,
    scope: ScopeId,
    inputs: &Json,
) -> Result<ScopeResult, RunError> {
    let values = inputs_from_json(program, scope, inputs)?;
    Ok(run_scope(program, scope, values)?)
}

/// The outputs object of Catala's `-F json` output.
pub fn outputs_to_json(program: &Program, result: &ScopeResult) -> Json {
    let mut m = Map::new();
    for (name, v) in &result.outputs {
        m.insert(name.clone(), value_to_json(program, v));
    }
    Json::Object(m)
}

/// Runs every `#[test]` scope in program order (each with no inputs).
pub fn run_test_scopes(program: &Program) -> Vec<(ScopeId, Result<ScopeResult, RuntimeError>)> {
    let mut interp = match Interpreter::<()>::new(program, ()) {
        Ok(i) => i,
        Err(e) => {
            return program
                .test_scopes()
                .into_iter()
                .map(|s| (s, Err(e.clone())))
                .collect()
        }
    };
    program
        .test_scopes()
        .into_iter()
        .map(|s| {
            let n = program
                .scopes
                .get(s.0 as usize)
                .map_or(0, |s| s.inputs.len());
            (s, run_with(&mut interp, s, vec![None; n]))
        })
        .collect()
}
