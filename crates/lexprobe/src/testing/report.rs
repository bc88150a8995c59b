//! A test run for people and for machines: one line per test as each file is done (error
//! boxes and expected-versus-actual outputs of failures on the error stream) and a closing
//! `N passed, N failed` line; or the whole run as one JSON object.

use super::{Case, CaseKind, Counts, FileReport, RunReport, Status};
use serde_json::{json, Value as Json};
use std::io::Write;

/// Writes the lines of one file's tests: `Scope: passed`, `Scope: failed`,
/// `FILE:LINE: catala COMMAND: passed` / `failed (why)` / `skipped (why)`.
pub(crate) fn write_file_lines(file: &FileReport, out: &mut dyn Write, err: &mut dyn Write) {
    let _ = write_file_lines_inner(file, out, err);
}

fn write_file_lines_inner(
    file: &FileReport,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    for case in &file.cases {
        match &case.kind {
            CaseKind::TestScope => {
                if let Some(boxes) = case
                    .actual
                    .as_deref()
                    .filter(|_| case.status == Status::Failed)
                {
                    write!(err, "{}", with_newline(boxes))?;
                }
                match case.reason.as_deref() {
                    Some(r) if r.starts_with("does not compile") => {
                        writeln!(out, "{}: failed (does not compile)", file.path.display())?
                    }
                    _ => writeln!(out, "{}: {}", case.name, case.status.as_str())?,
                }
            }
            CaseKind::CliBlock { line, command } => {
                let place = format!("{}:{line}: {command}", file.path.display());
                match (case.status, &case.reason) {
                    (Status::Failed, reason) => {
                        let reason = reason.as_deref().unwrap_or("");
                        writeln!(
                            err,
                            "── {place}\n── expected:\n{}── got:\n{}",
                            with_newline(case.expected.as_deref().unwrap_or("")),
                            with_newline(case.actual.as_deref().unwrap_or(""))
                        )?;
                        writeln!(out, "{place}: failed ({reason})")?
                    }
                    (status, Some(reason)) => {
                        writeln!(out, "{place}: {} ({reason})", status.as_str())?
                    }
                    (status, None) => writeln!(out, "{place}: {}", status.as_str())?,
                }
            }
        }
    }
    Ok(())
}

/// The closing line: `N passed, N failed`, and `, N skipped` when some were.
pub(crate) fn summary_line(counts: Counts) -> String {
    let mut line = format!("{} passed, {} failed", counts.passed, counts.failed);
    if counts.skipped > 0 {
        line.push_str(&format!(", {} skipped", counts.skipped));
    }
    line
}

/// The whole run as one JSON object: the counts and, per file, every test.
pub(crate) fn to_json(report: &RunReport) -> Json {
    let counts = report.counts();
    let files: Vec<Json> = report
        .files
        .iter()
        .map(|f| {
            let c = Counts::of(&f.cases);
            json!({
                "file": f.path.display().to_string(),
                "compiled": f.compiled,
                "passed": c.passed,
                "failed": c.failed,
                "skipped": c.skipped,
                "seconds": f.seconds,
                "tests": f.cases.iter().map(case_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "passed": counts.passed,
        "failed": counts.failed,
        "skipped": counts.skipped,
        "files": files,
    })
}

fn case_json(case: &Case) -> Json {
    let mut obj = json!({
        "name": case.name,
        "status": case.status.as_str(),
        "seconds": case.seconds,
    });
    match &case.kind {
        CaseKind::TestScope => obj["kind"] = json!("test_scope"),
        CaseKind::CliBlock { line, command } => {
            obj["kind"] = json!("cli_block");
            obj["line"] = json!(line);
            obj["command"] = json!(command);
        }
    }
    if let Some(r) = &case.reason {
        obj["reason"] = json!(r);
    }
    if case.status == Status::Failed {
        obj["expected"] = json!(case.expected);
        obj["actual"] = json!(case.actual);
    }
    if let Some(c) = case.exit_code {
        obj["exit_code"] = json!(c);
    }
    obj
}

fn with_newline(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}
