//! The one test runner behind `lexprobe test`, also used by the conformance suites over the
//! Catala compiler's test suite. For each file it runs, as Catala's `clerk test` does:
//! - the `#[test]` scopes (a scope passes when it raises no error and no assertion fails);
//! - the ```catala-test-cli blocks: the block's `catala` command is run in-process and its
//!   output compared with the expected output written in the block ([`compare`]); commands
//!   lexprobe does not reproduce (backends, tracing: [`command`]) are skipped with the reason.
//!
//! The result is a [`RunReport`], printed for people, as JSON or as JUnit XML ([`report`]).

pub mod blocks;
pub mod command;
pub(crate) mod compare;
pub(crate) mod discover;
pub mod execute;
pub(crate) mod junit;
pub mod output;
pub(crate) mod report;

use crate::catala::{self, LoadResult};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a test run covers and how programs are loaded.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `--include` directories for used modules (the nearest clerk.toml adds its own).
    pub include_dirs: Vec<PathBuf>,
    /// clerk.toml targets whose `tests` a project directory stands for (empty: the whole
    /// directory).
    pub targets: Vec<String>,
}

/// Whether a test passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }
}

/// What a test case is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseKind {
    /// A `#[test]` scope (or, named after the file, the failure to compile a file whose test
    /// scopes were to run).
    TestScope,
    /// A ```catala-test-cli block.
    CliBlock {
        /// The line of its command.
        line: usize,
        /// The command, e.g. `catala test-scope A`.
        command: String,
    },
}

/// One test and its outcome.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub kind: CaseKind,
    pub status: Status,
    /// Why it failed (briefly) or was skipped.
    pub reason: Option<String>,
    /// The expected output of a block.
    pub expected: Option<String>,
    /// What lexprobe wrote (the error boxes of a failed test scope; a block's output).
    pub actual: Option<String>,
    /// A block's exit code.
    pub exit_code: Option<i32>,
    pub seconds: f64,
}

/// The tests of one file.
#[derive(Clone, Debug)]
pub struct FileReport {
    pub path: PathBuf,
    /// Whether the file compiled (`None` when no test needed it compiled).
    pub compiled: Option<bool>,
    pub cases: Vec<Case>,
    pub seconds: f64,
}

/// Counts of passed, failed and skipped tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Counts {
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Skipped => self.skipped += 1,
        }
    }

    pub fn of<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Counts {
        let mut c = Counts::default();
        for case in cases {
            c.add(case.status);
        }
        c
    }
}

/// The tests of every file of a run.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub files: Vec<FileReport>,
}

impl RunReport {
    pub fn counts(&self) -> Counts {
        Counts::of(self.files.iter().flat_map(|f| &f.cases))
    }
}

/// Runs the tests of `paths` (files, or directories walked recursively), calling `on_file`
/// as each file is done. Fails only when the files to test cannot be determined (a bad
/// `--target`).
pub fn run(
    paths: &[PathBuf],
    options: &RunOptions,
    mut on_file: impl FnMut(&FileReport),
) -> Result<RunReport, String> {
    let files = discover::find_files(paths, &options.targets)?;
    let mut report = RunReport::default();
    for file in files {
        if let Some(done) = run_file(&file.path, file.explicit, options) {
            on_file(&done);
            report.files.push(done);
        }
    }
    Ok(report)
}

/// Runs the tests of one file; `None` for a file found by a walk that holds no test.
pub(crate) fn run_file(path: &Path, explicit: bool, options: &RunOptions) -> Option<FileReport> {
    let started = Instant::now();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let cli = blocks::cli_blocks(&text);
    let has_test_scopes = blocks::has_test_scopes(&text);
    if !explicit && cli.is_empty() && !has_test_scopes {
        return None;
    }
    let commands: Vec<command::Command> = cli.iter().map(|b| command::parse(&b.command)).collect();
    let needs_program = has_test_scopes
        || cli.is_empty()
        || commands
            .iter()
            .any(|c| matches!(c, command::Command::InScope(_)));
    let loaded: Option<LoadResult> =
        needs_program.then(|| catala::load(path, &options.include_dirs));
    let mut cases = Vec::new();
    if let Some(loaded) = &loaded {
        if has_test_scopes || cli.is_empty() {
            test_scope_cases(path, loaded, &mut cases);
        }
    }
    for (block, command) in cli.iter().zip(&commands) {
        cases.push(block_case(path, block, command, loaded.as_ref()));
    }
    Some(FileReport {
        path: path.to_path_buf(),
        compiled: loaded.as_ref().map(|l| l.is_ok()),
        cases,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn test_scope_cases(path: &Path, loaded: &LoadResult, cases: &mut Vec<Case>) {
    let started = Instant::now();
    let loaded = match loaded {
        Ok(l) => l,
        Err((sources, errors)) => {
            let mut text = Vec::new();
            crate::catala::report::write_errors(
                sources,
                errors,
                crate::catala::report::ErrorStyle::Boxes,
                &mut Vec::new(),
                &mut text,
            );
            cases.push(Case {
                name: path.display().to_string(),
                kind: CaseKind::TestScope,
                status: Status::Failed,
                reason: Some(match errors.first() {
                    Some(e) => format!("does not compile: {}", output::normalise(&e.message)),
                    None => "does not compile".to_string(),
                }),
                expected: None,
                actual: Some(String::from_utf8_lossy(&text).into_owned()),
                exit_code: None,
                seconds: started.elapsed().as_secs_f64(),
            });
            return;
        }
    };
    let outcomes = execute::run_test_scopes(loaded);
    // The scopes run together; their time is shared out evenly.
    let each = started.elapsed().as_secs_f64() / outcomes.len().max(1) as f64;
    for outcome in outcomes {
        let failed = outcome.failure.is_some();
        cases.push(Case {
            name: outcome.name,
            kind: CaseKind::TestScope,
            status: if failed {
                Status::Failed
            } else {
                Status::Passed
            },
            reason: failed.then(|| "raised an error".to_string()),
            expected: None,
            actual: outcome.failure,
            exit_code: None,
            seconds: each,
        });
    }
}

fn block_case(
    path: &Path,
    block: &blocks::CliBlock,
    command: &command::Command,
    loaded: Option<&LoadResult>,
) -> Case {
    let started = Instant::now();
    let mut case = Case {
        name: format!("line {}: {}", block.line, block.command),
        kind: CaseKind::CliBlock {
            line: block.line,
            command: block.command.clone(),
        },
        status: Status::Skipped,
        reason: None,
        expected: Some(block.expected.join("\n")),
        actual: None,
        exit_code: None,
        seconds: 0.0,
    };
    let (invocation, loaded) = match (command, loaded) {
        (command::Command::InScope(i), Some(l)) => (i, l),
        (command::Command::OutOfScope(why), _) => {
            case.reason = Some(why.clone());
            return case;
        }
        (command::Command::InScope(_), None) => {
            case.reason = Some("program not loaded".to_string());
            return case;
        }
    };
    let captured = execute::execute(invocation, path, loaded);
    let compared = match invocation {
        command::Invocation::Typecheck => compare::Compared::Outcome,
        command::Invocation::Interpret(o) if o.json => compare::Compared::ResultsAndJson,
        command::Invocation::Interpret(_) => compare::Compared::Results,
    };
    let expected = output::parse(&block.expected, 0);
    let actual = output::parse(&captured.lines(), captured.code);
    let verdict = if captured.code == execute::PANIC {
        Err("lexprobe panicked".to_string())
    } else {
        compare::compare(&expected, &actual, compared)
    };
    case.status = if verdict.is_ok() {
        Status::Passed
    } else {
        Status::Failed
    };
    case.reason = verdict.err();
    let mut shown = captured.lines().join("\n");
    if captured.code != 0 {
        shown.push_str(&format!("\n#return code {}#", captured.code));
    }
    case.actual = Some(shown);
    case.exit_code = Some(captured.code);
    case.seconds = started.elapsed().as_secs_f64();
    case
}
