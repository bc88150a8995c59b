//! The Catala adapter: a scope of a Catala program as a system under test
//! (`catala:FILE#Scope`). Inputs are the scope's input variables, given as a JSON object in
//! Catala's input format (enumerations by constructor name, money as numbers); outputs are
//! the scope's output variables (structures flattened into dotted names). A runtime error
//! (conflict, empty default, failed assertion) is the system's own error for that test.
//!
//! The interpreter's programs are single-threaded values, so the adapter keeps a pool of
//! worker threads, each with its own compiled copy of the program, and hands every run to
//! one of them.

use crate::system::{DeclaredInputs, RunFailure, RunResult, SystemUnderTest};
use crate::value::{record_from_json, record_to_json, Record};
use catala_eval::{outputs_to_json, run_scope_json, RunError};
use catala_ir::dcalc::{InputKind, Program, ScopeId};
use catala_syntax::SourceMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::time::Instant;
use thiserror::Error;

/// Why a Catala scope could not be set up.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum CatalaSystemError {
    #[error("expected catala:FILE#Scope, found `{0}`")]
    BadTarget(String),
    #[error("{0}")]
    Program(String),
    #[error("{file} has no scope named `{scope}`")]
    UnknownScope { file: String, scope: String },
}

/// A compiled scope with the sources its error positions refer to.
struct CompiledScope {
    sources: SourceMap,
    program: Program,
    scope: ScopeId,
}

/// Parses and compiles a Catala file; errors are rendered like the Catala compiler's.
fn compile(file: &Path, scope: &str) -> Result<CompiledScope, CatalaSystemError> {
    let loaded = catala_eval::loader::load_program(file, &[]).map_err(|f| {
        CatalaSystemError::Program(
            f.diagnostics
                .iter()
                .map(|d| catala_syntax::render_gnu(&f.sources, None, &d.message, &d.labels))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })?;
    let (sources, program) = (loaded.sources, loaded.program);
    let id = program
        .scope_by_name(scope)
        .ok_or_else(|| CatalaSystemError::UnknownScope {
            file: file.display().to_string(),
            scope: scope.to_string(),
        })?;
    Ok(CompiledScope {
        sources,
        program,
        scope: id,
    })
}

/// Runs one input on a compiled scope.
fn run_once(compiled: &CompiledScope, input: &Record) -> RunResult {
    let (program, scope) = (&compiled.program, compiled.scope);
    let json = record_to_json(input);
    match run_scope_json(program, scope, &json) {
        Ok(result) => {
            if let Some(failure) = result.assertion_failures.first() {
                return Err(RunFailure::Reported {
                    message: failure.message.clone(),
                });
            }
            match outputs_to_json(program, &result) {
                serde_json::Value::Object(outputs) => Ok(record_from_json(&outputs)),
                other => Err(RunFailure::Malformed {
                    reply: other.to_string(),
                }),
            }
        }
        Err(RunError::Runtime(error)) => Err(RunFailure::Reported {
            message: catala_syntax::render_gnu(
                &compiled.sources,
                None,
                &error.message,
                &error.labels,
            ),
        }),
        Err(other) => Err(RunFailure::Reported {
            message: other.to_string(),
        }),
    }
}

type Request = (Record, Sender<RunResult>);

/// A Catala scope served by a pool of interpreter threads.
pub struct CatalaScope {
    description: String,
    inputs: DeclaredInputs,
    outputs: Vec<String>,
    workers: Vec<Sender<Request>>,
    next: AtomicUsize,
}

impl CatalaScope {
    /// Compiles `file` and starts `workers` interpreter threads for `scope`.
    pub fn load(
        file: &Path,
        scope: &str,
        workers: usize,
    ) -> Result<CatalaScope, CatalaSystemError> {
        // Compile once here to report errors before any thread starts.
        let compiled = compile(file, scope)?;
        let mut inputs = DeclaredInputs::default();
        for input in &compiled.program.scope(compiled.scope).inputs {
            match input.kind {
                InputKind::Input => inputs.required.push(input.name.clone()),
                _ => inputs.optional.push(input.name.clone()),
            }
        }
        let outputs = compiled
            .program
            .scope(compiled.scope)
            .outputs
            .iter()
            .map(|o| o.name.clone())
            .collect();
        let mut senders = Vec::new();
        for _ in 0..workers.max(1) {
            let (sender, receiver) = channel::<Request>();
            let file: PathBuf = file.to_path_buf();
            let scope = scope.to_string();
            std::thread::spawn(move || {
                let compiled = compile(&file, &scope);
                for (input, reply) in receiver {
                    let result = match &compiled {
                        Ok(compiled) => {
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                run_once(compiled, &input)
                            }))
                            .unwrap_or_else(|_| {
                                Err(RunFailure::Crashed {
                                    detail: "the interpreter panicked on this input".to_string(),
                                })
                            })
                        }
                        Err(e) => Err(RunFailure::Crashed {
                            detail: e.to_string(),
                        }),
                    };
                    let _ = reply.send(result);
                }
            });
            senders.push(sender);
        }
        Ok(CatalaScope {
            description: format!("catala:{}#{scope}", file.display()),
            inputs,
            outputs,
            workers: senders,
            next: AtomicUsize::new(0),
        })
    }

    /// Builds the system for `FILE#Scope` (the part after `catala:`).
    pub(crate) fn from_target(
        target: &str,
        workers: usize,
    ) -> Result<CatalaScope, CatalaSystemError> {
        let Some((file, scope)) = target.split_once('#') else {
            return Err(CatalaSystemError::BadTarget(target.to_string()));
        };
        if file.is_empty() || scope.is_empty() {
            return Err(CatalaSystemError::BadTarget(target.to_string()));
        }
        CatalaScope::load(Path::new(file), scope, workers)
    }
}

impl SystemUnderTest for CatalaScope {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn declared_inputs(&self) -> Option<DeclaredInputs> {
        Some(self.inputs.clone())
    }

    fn declared_outputs(&self) -> Option<Vec<String>> {
        Some(self.outputs.clone())
    }

    fn run(&self, input: &Record) -> RunResult {
        self.run_until(input, None)
    }

    /// At `deadline` the run is abandoned (its interpreter thread finishes it and the result
    /// is dropped).
    fn run_until(&self, input: &Record, deadline: Option<Instant>) -> RunResult {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.workers.len();
        let (reply, answer) = channel();
        let lost = || RunFailure::Crashed {
            detail: "the interpreter thread stopped".to_string(),
        };
        self.workers[index]
            .send((input.clone(), reply))
            .map_err(|_| lost())?;
        match deadline {
            None => answer.recv().map_err(|_| lost())?,
            Some(d) => match answer.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(result) => result,
                Err(RecvTimeoutError::Timeout) => Err(RunFailure::NotRun),
                Err(RecvTimeoutError::Disconnected) => Err(lost()),
            },
        }
    }
}

/// Serves a Catala scope over JSON Lines: one JSON object of inputs per line of `input`,
/// one line per answer on `output` — the outputs object, or `{"error": "..."}` when the line
/// is not an object or the run fails; a request's `request_id` is echoed in its answer. This is the protocol of the external-program adapter,
/// so a scope served this way can be tested like any external program. Returns the number
/// of lines answered.
pub fn serve_json_lines(
    file: &Path,
    scope: &str,
    input: impl std::io::BufRead,
    mut output: impl std::io::Write,
) -> Result<usize, CatalaSystemError> {
    let compiled = compile(file, scope)?;
    let mut answered = 0;
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(serde_json::Value::Object(mut object)) => {
                let id = object.remove(crate::external::reply::REQUEST_ID_KEY);
                let mut answer = match run_once(&compiled, &record_from_json(&object)) {
                    Ok(outputs) => record_to_json(&outputs),
                    Err(failure) => serde_json::json!({ "error": failure.to_string() }),
                };
                if let (Some(id), serde_json::Value::Object(fields)) = (id, &mut answer) {
                    fields.insert(crate::external::reply::REQUEST_ID_KEY.to_string(), id);
                }
                answer
            }
            _ => serde_json::json!({ "error": "expected one JSON object of inputs per line" }),
        };

        if writeln!(output, "{reply}")
            .and_then(|_| output.flush())
            .is_err()
        {
            break;
        }
        answered += 1;
    }
    Ok(answered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/metamorphic/form1040.catala_en")
    }

    #[test]
    fn scope_runs_from_records_and_reports_errors() {
        let system = CatalaScope::load(&model(), "Form1040", 1).unwrap();
        // The worked example of form1040.catala_en: a return of $3,383.
        let input: serde_json::Value = serde_json::json!({
            "sts": "MFJ", "age": 70, "blind": false, "s_age": 40, "s_blind": true,
            "agi": 50000, "l19": 300, "l27": 500, "l29": 400, "qc": 2, "od": 1,
            "mde": 10000, "iz": true, "l12": 30000
        });
        let record = record_from_json(input.as_object().unwrap());
        let outputs = system.run(&record).unwrap();
        assert_eq!(outputs["refund"].as_f64(), Some(3383.0));
        assert_eq!(outputs["deduction"].as_f64(), Some(27400.0));
        let mut missing = record.clone();
        missing.remove("agi");
        assert!(matches!(
            system.run(&missing),
            Err(RunFailure::Reported { .. })
        ));
        let declared = system.declared_inputs().unwrap();
        assert_eq!(declared.required.len(), 14);
        assert!(declared.required.contains(&"agi".to_string()));
        assert!(declared.optional.is_empty());
        assert!(matches!(
            CatalaScope::load(&model(), "NoSuchScope", 1),
            Err(CatalaSystemError::UnknownScope { .. })
        ));
    }

    #[test]
    fn json_lines_server_answers_every_line() {
        let input = "{\"sts\": \"Single\", \"age\": 30, \"blind\": false, \"s_age\": 30, \"s_blind\": false, \"agi\": 20000, \"l19\": 0, \"l27\": 0, \"l29\": 0, \"qc\": 0, \"od\": 0, \"mde\": 0, \"iz\": false, \"l12\": 0}\nnot json\n{\"sts\": \"Single\"}\n";
        let mut output = Vec::new();
        let answered =
            serve_json_lines(&model(), "Form1040", input.as_bytes(), &mut output).unwrap();
        assert_eq!(answered, 3);
        let lines: Vec<serde_json::Value> = String::from_utf8(output)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // Single, $20,000 of wages: taxable $7,600 at 10% = $760 owed.
        assert_eq!(lines[0]["refund"], serde_json::json!(-760));
        assert!(lines[1]["error"].is_string());
        assert!(
            lines[2]["error"].as_str().unwrap().contains("age"),
            "{}",
            lines[2]
        );
    }
}
