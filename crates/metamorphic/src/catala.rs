//! The Catala adapter: a scope of a Catala program as a system under test
//! (`catala:FILE#Scope`). Inputs are the scope's input variables, given as a JSON object in
//! Catala's input format (enumerations by constructor name, money as numbers); outputs are
//! the scope's output variables (structures flattened into dotted names). A runtime error
//! (conflict, empty default, failed assertion) is the system's own error for that test.
//!
//! The interpreter's programs are single-threaded values, so the adapter keeps a pool of
//! worker threads, each with its own compiled copy of the program, and hands every run to
//! one of them.

use crate::system::{RunFailure, RunResult, SystemUnderTest};
use crate::value::{record_from_json, record_to_json, Record};
use catala_eval::{outputs_to_json, run_scope_json, RunError};
use catala_ir::dcalc::{Program, ScopeId};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
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

/// Parses and compiles a Catala file; errors are rendered like the Catala compiler's.
fn compile(file: &Path, scope: &str) -> Result<(Program, ScopeId), CatalaSystemError> {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(file);
    let ast = parsed.map_err(|d| {
        CatalaSystemError::Program(catala_syntax::render_gnu(&sources, None, &d.message, &d.labels))
    })?;
    let program = catala_ir::compile(&sources, &ast).map_err(|diagnostics| {
        CatalaSystemError::Program(
            diagnostics
                .iter()
                .map(|d| catala_syntax::render_gnu(&sources, None, &d.message, &d.labels))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })?;
    let id = program
        .scope_by_name(scope)
        .ok_or_else(|| CatalaSystemError::UnknownScope {
            file: file.display().to_string(),
            scope: scope.to_string(),
        })?;
    Ok((program, id))
}

/// Runs one input on a compiled scope.
fn run_once(program: &Program, scope: ScopeId, input: &Record) -> RunResult {
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
            message: error.message,
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
    workers: Vec<Sender<Request>>,
    next: AtomicUsize,
}

impl CatalaScope {
    /// Compiles `file` and starts `workers` interpreter threads for `scope`.
    pub fn load(file: &Path, scope: &str, workers: usize) -> Result<CatalaScope, CatalaSystemError> {
        // Compile once here to report errors before any thread starts.
        compile(file, scope)?;
        let mut senders = Vec::new();
        for _ in 0..workers.max(1) {
            let (sender, receiver) = channel::<Request>();
            let file: PathBuf = file.to_path_buf();
            let scope = scope.to_string();
            std::thread::spawn(move || {
                let compiled = compile(&file, &scope);
                for (input, reply) in receiver {
                    let result = match &compiled {
                        Ok((program, id)) => std::panic::catch_unwind(
                            std::panic::AssertUnwindSafe(|| run_once(program, *id, &input)),
                        )
                        .unwrap_or_else(|_| {
                            Err(RunFailure::Crashed {
                                detail: "the interpreter panicked on this input".to_string(),
                            })
                        }),
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
            workers: senders,
            next: AtomicUsize::new(0),
        })
    }

    /// Builds the system for `FILE#Scope` (the part after `catala:`).
    pub fn from_target(target: &str, workers: usize) -> Result<CatalaScope, CatalaSystemError> {
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

    fn run(&self, input: &Record) -> RunResult {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.workers.len();
        let (reply, answer) = channel();
        let lost = || RunFailure::Crashed {
            detail: "the interpreter thread stopped".to_string(),
        };
        self.workers[index]
            .send((input.clone(), reply))
            .map_err(|_| lost())?;
        answer.recv().map_err(|_| lost())?
    }
}
