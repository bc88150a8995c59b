//! Diagnostics shared by every pass of the Catala front end: a kind, an English message and the
//! source spans it points at (each with an optional note and the law-heading trail there).

use crate::ast::LawHeading;
use crate::source::Span;
use std::rc::Rc;

/// What went wrong, as the machine-readable `kind` of `lexprobe`'s JSON errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagnosticKind {
    Parse,
    NameResolution,
    Typing,
    /// Reading a file or include failed.
    Io,
}

impl DiagnosticKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::Parse => "parse",
            DiagnosticKind::NameResolution => "name_resolution",
            DiagnosticKind::Typing => "typing",
            DiagnosticKind::Io => "io",
        }
    }
}

/// One place a diagnostic points at.
#[derive(Clone, Debug)]
pub struct Label {
    pub span: Span,
    /// A line printed before the position, e.g. "This expression has type decimal:".
    pub note: Option<String>,
    /// Law headings in force at `span` (printed after the snippet, innermost last).
    pub headings: Rc<[LawHeading]>,
}

impl Label {
    pub fn new(span: Span) -> Label {
        Label {
            span,
            note: None,
            headings: Rc::from(Vec::new()),
        }
    }
}

#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub labels: Vec<Label>,
}

impl Diagnostic {
    pub fn new(kind: DiagnosticKind, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            message: message.into(),
            labels: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: Label) -> Diagnostic {
        self.labels.push(label);
        self
    }

    pub fn at(mut self, span: Span) -> Diagnostic {
        self.labels.push(Label::new(span));
        self
    }
}
