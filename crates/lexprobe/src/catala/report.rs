//! Errors as the user sees them: Catala's `┌─[ERROR]─` boxes on a terminal, or
//! `{"error": {"kind", "message", "positions"}}` for machines.

use catala_eval::{AssertionFailure, RuntimeError};
use catala_syntax::{Diagnostic, Label, SourceMap};
use serde_json::{json, Value as Json};
use std::io::Write;

/// One error: a machine-readable kind, Catala's English message and the places it points at.
#[derive(Clone, Debug)]
pub struct ErrorReport {
    pub kind: String,
    pub message: String,
    pub labels: Vec<Label>,
}

impl ErrorReport {
    pub(crate) fn plain(kind: &str, message: impl Into<String>) -> ErrorReport {
        ErrorReport {
            kind: kind.to_string(),
            message: message.into(),
            labels: Vec::new(),
        }
    }

    pub(crate) fn from_diagnostic(d: &Diagnostic) -> ErrorReport {
        ErrorReport {
            kind: d.kind.as_str().to_string(),
            message: d.message.clone(),
            labels: d.labels.clone(),
        }
    }

    pub(crate) fn from_runtime(e: &RuntimeError) -> ErrorReport {
        ErrorReport {
            kind: e.kind.as_str().to_string(),
            message: format!("During evaluation: {}", e.message),
            labels: e.labels.clone(),
        }
    }

    pub(crate) fn from_assertion(a: &AssertionFailure) -> ErrorReport {
        let mut label = Label::new(a.span);
        label.headings = a.headings.clone();
        ErrorReport {
            kind: "assertion".to_string(),
            message: a.message.clone(),
            labels: vec![label],
        }
    }

    /// Catala's box; `numbering` is `Some((i, n))` for the `i/n` title of collected errors.
    pub(crate) fn render(&self, sources: &SourceMap, numbering: Option<(usize, usize)>) -> String {
        let suffix = numbering.map(|(i, n)| format!("{i}/{n}"));
        catala_syntax::render_error(sources, suffix.as_deref(), &self.message, &self.labels)
    }

    pub(crate) fn to_json(&self, sources: &SourceMap) -> Json {
        let positions: Vec<Json> = self
            .labels
            .iter()
            .filter(|l| (l.span.file.0 as usize) < sources.files.len())
            .map(|l| {
                let p = sources.position(l.span);
                json!({
                    "file": p.file,
                    "line": p.start_line,
                    "col": p.start_col,
                    "end_line": p.end_line,
                    "end_col": p.end_col,
                })
            })
            .collect();
        json!({
            "kind": self.kind,
            "message": self.message,
            "positions": positions,
        })
    }
}

/// How errors are written: Catala's boxes, its one-line GNU layout, or JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorStyle {
    /// `┌─[ERROR]─` boxes, on the error stream.
    Boxes,
    /// `file:line.col-col: [ERROR] message` lines (`--message-format=gnu`), on the error stream.
    Gnu,
    /// One `{"error": ...}` object, on the output stream.
    Json,
}

impl ErrorStyle {
    /// Boxes, or JSON when `json` is set.
    pub(crate) fn boxes_or_json(json: bool) -> ErrorStyle {
        if json {
            ErrorStyle::Json
        } else {
            ErrorStyle::Boxes
        }
    }
}

/// Prints errors in the chosen format (boxes on stderr, or one JSON object on stdout).
pub(crate) fn print_errors(sources: &SourceMap, errors: &[ErrorReport], json: bool) {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    write_errors(
        sources,
        errors,
        ErrorStyle::boxes_or_json(json),
        &mut out,
        &mut err,
    );
}

/// Writes errors in `style`: JSON to `out`, boxes and GNU lines to `err`. Write failures (a
/// closed pipe) are ignored, as `print!` would not ignore them but the process ends anyway.
pub(crate) fn write_errors(
    sources: &SourceMap,
    errors: &[ErrorReport],
    style: ErrorStyle,
    out: &mut dyn Write,
    err: &mut dyn Write,
) {
    let n = errors.len();
    let numbering = |i: usize| (n > 1).then_some((i + 1, n));
    let _ = match style {
        ErrorStyle::Json => {
            let first = errors
                .first()
                .map(|e| e.to_json(sources))
                .unwrap_or(Json::Null);
            let mut obj = json!({ "error": first });
            if n > 1 {
                obj["errors"] = Json::Array(errors.iter().map(|e| e.to_json(sources)).collect());
            }
            writeln!(out, "{obj}")
        }
        ErrorStyle::Boxes => errors.iter().enumerate().try_for_each(|(i, e)| {
            write!(err, "{}", ensure_newline(e.render(sources, numbering(i))))
        }),
        ErrorStyle::Gnu => errors.iter().enumerate().try_for_each(|(i, e)| {
            let suffix = numbering(i).map(|(i, n)| format!("{i}/{n}"));
            let line = catala_syntax::render_gnu(sources, suffix.as_deref(), &e.message, &e.labels);
            write!(err, "{}", ensure_newline(line))
        }),
    };
}

fn ensure_newline(mut s: String) -> String {
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}
