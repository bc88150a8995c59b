//! Runtime errors and failed assertions, with the positions (and law headings) Catala reports:
//! a conflict names every applicable rule, an empty default names the variable's declaration,
//! a division by zero names the denominator.

use crate::runtime::json::InputError;
use crate::runtime::{DateError, ValueError};
use catala_ir::dcalc::Program;
use catala_syntax::ast::LawHeading;
use catala_syntax::{Label, Span};
use std::sync::Arc;

/// What went wrong during an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuntimeErrorKind {
    /// Several exceptions (or rules) applied at once.
    Conflict,
    /// No rule applied where a value is required.
    NoValue,
    DivisionByZero,
    /// Date + duration landed on a day that does not exist, with no rounding mode.
    AmbiguousDate,
    /// Comparing durations that mix months and days, or dividing durations not in days.
    DurationUnits,
    /// A date outside the supported range.
    DateOutOfRange,
    /// Maximum or minimum of an empty list without a default.
    ListEmpty,
    /// Comparing functions.
    Uncomparable,
    /// `impossible` was reached.
    Impossible,
    /// Lists traversed together (`map each (x, y) among (l1, l2)`) have different lengths.
    NotSameLength,
    /// An external module's implementation reported an error (its own message).
    External,
    /// An ill-typed operation or an ill-formed program (a bug in an earlier stage).
    Internal,
}

impl RuntimeErrorKind {
    /// The machine-readable kind, as in `lexprobe --format json` errors.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeErrorKind::Conflict => "conflict",
            RuntimeErrorKind::NoValue => "no_value",
            RuntimeErrorKind::DivisionByZero => "division_by_zero",
            RuntimeErrorKind::AmbiguousDate => "ambiguous_date",
            RuntimeErrorKind::DurationUnits => "duration_units",
            RuntimeErrorKind::DateOutOfRange => "date_out_of_range",
            RuntimeErrorKind::ListEmpty => "list_empty",
            RuntimeErrorKind::Uncomparable => "uncomparable",
            RuntimeErrorKind::Impossible => "impossible",
            RuntimeErrorKind::NotSameLength => "not_same_length",
            RuntimeErrorKind::External => "external",
            RuntimeErrorKind::Internal => "internal",
        }
    }

    /// Catala's English message (`Catala_runtime.error_message`), with its final period.
    pub fn message(self) -> &'static str {
        match self {
            RuntimeErrorKind::Conflict => {
                "conflict between multiple valid consequences for assigning the same variable."
            }
            RuntimeErrorKind::NoValue => {
                "no applicable rule to define this variable in this situation."
            }
            RuntimeErrorKind::DivisionByZero => {
                "a value is being used as denominator in a division and it computed to zero."
            }
            RuntimeErrorKind::AmbiguousDate => {
                "ambiguous date computation with no rounding mode specified."
            }
            RuntimeErrorKind::DurationUnits => {
                "ambiguous comparison between durations in different units (e.g. months vs. days)."
            }
            RuntimeErrorKind::DateOutOfRange => "date computation out of the supported range.",
            RuntimeErrorKind::ListEmpty => "the list was empty.",
            RuntimeErrorKind::Uncomparable => {
                "attempting to compare values with uncomparable types."
            }
            RuntimeErrorKind::Impossible => "\"impossible\" computation reached.",
            RuntimeErrorKind::NotSameLength => "traversing multiple lists of different lengths.",
            RuntimeErrorKind::External => "an external function failed.",
            RuntimeErrorKind::Internal => "internal error: ill-formed program or operation.",
        }
    }
}

/// A runtime error: its kind, Catala's message and the positions to show.
#[derive(Clone, Debug, thiserror::Error)]
#[error("During evaluation: {message}")]
pub struct RuntimeError {
    pub kind: RuntimeErrorKind,
    /// Catala's English text, e.g. "no applicable rule to define this variable in this
    /// situation." (print it after "During evaluation: ").
    pub message: String,
    /// The positions, with the law headings in force at each.
    pub labels: Vec<Label>,
}

/// What identifies a runtime error across runs: its kind and its positions (in order of the
/// source), whatever the inputs. Two tests failing with the same signature hit the same problem
/// (the same conflict between the same rules, the same empty variable, …).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorSignature {
    pub kind: RuntimeErrorKind,
    pub spans: Vec<Span>,
}

impl RuntimeError {
    /// The error's [`ErrorSignature`].
    pub fn signature(&self) -> ErrorSignature {
        let mut spans: Vec<Span> = self.labels.iter().map(|l| l.span).collect();
        spans.sort();
        ErrorSignature {
            kind: self.kind,
            spans,
        }
    }

    /// An error at the given spans (headings looked up in the program).
    pub fn new(program: &Program, kind: RuntimeErrorKind, spans: &[Span]) -> RuntimeError {
        RuntimeError {
            kind,
            message: kind.message().to_string(),
            labels: spans
                .iter()
                .map(|&span| Label {
                    span,
                    note: None,
                    headings: program.headings_at(span),
                })
                .collect(),
        }
    }

    /// The error an operation on values produced, at `span`.
    pub fn from_value_error(program: &Program, e: ValueError, span: Span) -> RuntimeError {
        let kind = match e {
            ValueError::DivisionByZero => RuntimeErrorKind::DivisionByZero,
            ValueError::Uncomparable => RuntimeErrorKind::Uncomparable,
            ValueError::IllTyped => RuntimeErrorKind::Internal,
            ValueError::Date(DateError::AmbiguousDate) => RuntimeErrorKind::AmbiguousDate,
            ValueError::Date(DateError::OutOfRange) => RuntimeErrorKind::DateOutOfRange,
            ValueError::Date(DateError::MixedDurationComparison | DateError::DurationNotInDays) => {
                RuntimeErrorKind::DurationUnits
            }
        };
        let mut err = RuntimeError::new(program, kind, &[span]);
        if let ValueError::Date(d) = e {
            err.message = format!("{d}.");
        }
        err
    }
}

/// A failed assertion: evaluation goes on, the failures are reported at the end, numbered.
#[derive(Clone, Debug)]
pub struct AssertionFailure {
    /// Catala's message, e.g. "Assertion failed: 6 ≮ 6" or
    /// "Assertion failed: Upper bound for w: 6 ≮ 6".
    pub message: String,
    /// The assertion's position.
    pub span: Span,
    /// The law headings in force at the assertion.
    pub headings: Arc<[LawHeading]>,
}

/// Anything that can stop a run started from JSON inputs.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("no scope named {0}")]
    UnknownScope(String),
}
