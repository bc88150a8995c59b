//! Runs a block's command in-process, through the same code as `lexprobe run` and `lexprobe
//! typecheck`, with the output captured instead of printed; and runs a file's `#[test]`
//! scopes. A panic is caught and reported as the block's (or the test's) failure, so one bug
//! does not stop a whole run.

use super::command::{InterpretOptions, Invocation};
use crate::catala::report::{write_errors, ErrorReport, ErrorStyle};
use crate::catala::LoadResult;
use crate::commands::{run, typecheck};
use crate::exit::{CATALA_ERROR, SUCCESS};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// What a command wrote and how it exited.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Captured {
    /// Standard output then standard error, line by line.
    pub(crate) fn lines(&self) -> Vec<&str> {
        self.stdout.lines().chain(self.stderr.lines()).collect()
    }
}

/// The exit code reported for a panic.
pub const PANIC: i32 = 101;

/// Runs `invocation` on `file`, already loaded.
pub fn execute(invocation: &Invocation, file: &Path, loaded: &LoadResult) -> Captured {
    let (mut out, mut err) = (Vec::<u8>::new(), Vec::<u8>::new());
    let ran = catch_unwind(AssertUnwindSafe(|| match invocation {
        Invocation::Typecheck => {
            typecheck::report(file, loaded, ErrorStyle::Boxes, &mut out, &mut err)
        }
        Invocation::Interpret(options) => interpret(options, loaded, &mut out, &mut err),
    }));
    let code = ran.unwrap_or_else(|panic| {
        err.extend_from_slice(format!("lexprobe panicked: {}\n", panic_message(&panic)).as_bytes());
        PANIC
    });
    Captured {
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        code,
    }
}

fn interpret(
    options: &InterpretOptions,
    loaded: &LoadResult,
    out: &mut Vec<u8>,
    err: &mut Vec<u8>,
) -> i32 {
    // As in Catala, `-F json` is the format of the results; errors stay messages.
    let style = if options.gnu {
        ErrorStyle::Gnu
    } else {
        ErrorStyle::Boxes
    };
    let loaded = match loaded {
        Ok(l) => l,
        Err((sources, errors)) => {
            write_errors(sources, errors, style, out, err);
            return CATALA_ERROR;
        }
    };
    let input = match options.input.as_deref().map(serde_json::from_str) {
        None => None,
        Some(Ok(json)) => Some(json),
        Some(Err(e)) => {
            let report = ErrorReport::plain("input", format!("Invalid input: not JSON: {e}"));
            write_errors(&loaded.sources, &[report], style, out, err);
            return CATALA_ERROR;
        }
    };
    // Without a scope, `catala interpret` runs the program's `#[test]` scopes.
    let scopes: Vec<String> = match &options.scope {
        Some(s) => vec![s.clone()],
        None => loaded
            .program
            .test_scopes()
            .into_iter()
            .map(|s| loaded.program.scope(s).name.clone())
            .collect(),
    };
    if scopes.is_empty() {
        let report = ErrorReport::plain(
            "usage",
            "Invalid scope for execution or testing: no scope was given and the program has no #[test] scope",
        );
        write_errors(&loaded.sources, &[report], style, out, err);
        return CATALA_ERROR;
    }
    for scope in &scopes {
        let request = run::RunRequest {
            debug: false,
            scope,
            input: input.as_ref(),
            json: options.json,
            style,
            fail_on_assert: !options.no_fail_on_assert,
        };
        let code = run::evaluate(loaded, &request, out, err);
        if code != SUCCESS {
            return code;
        }
    }
    SUCCESS
}

/// The outcome of one `#[test]` scope: its name and, when it failed, the error boxes.
pub(crate) struct TestScopeOutcome {
    pub name: String,
    pub failure: Option<String>,
}

/// Runs every `#[test]` scope of a compiled program; a scope passes when it raises no error
/// and no assertion fails.
pub(crate) fn run_test_scopes(loaded: &crate::catala::Loaded) -> Vec<TestScopeOutcome> {
    let ran = catch_unwind(AssertUnwindSafe(|| {
        catala_eval::run_test_scopes(&loaded.program)
            .into_iter()
            .map(|(scope, outcome)| {
                let errors: Vec<ErrorReport> = match &outcome {
                    Err(e) => vec![ErrorReport::from_runtime(e)],
                    Ok(r) => r
                        .assertion_failures
                        .iter()
                        .map(ErrorReport::from_assertion)
                        .collect(),
                };
                let failure = (!errors.is_empty()).then(|| {
                    let mut text = Vec::new();
                    write_errors(
                        &loaded.sources,
                        &errors,
                        ErrorStyle::Boxes,
                        &mut Vec::new(),
                        &mut text,
                    );
                    String::from_utf8_lossy(&text).into_owned()
                });
                TestScopeOutcome {
                    name: loaded.program.scope(scope).name.clone(),
                    failure,
                }
            })
            .collect()
    }));
    ran.unwrap_or_else(|panic| {
        vec![TestScopeOutcome {
            name: "#[test] scopes".to_string(),
            failure: Some(format!("lexprobe panicked: {}\n", panic_message(&panic))),
        }]
    })
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string())
}
