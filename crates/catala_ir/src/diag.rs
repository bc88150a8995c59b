//! Constructors for the compile-time diagnostics of this crate (name resolution and typing), and
//! the pass that attaches law-heading trails to their labels once the heading index is known.

use crate::dcalc::HeadingRange;
use catala_syntax::{Diagnostic, DiagnosticKind, Label, Span};
use std::sync::Arc;

/// A name-resolution error pointing at `span`.
pub(crate) fn name_error(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::new(DiagnosticKind::NameResolution, message).at(span)
}

/// A name-resolution error pointing at several places.
pub(crate) fn name_error_at(message: impl Into<String>, spans: &[Span]) -> Diagnostic {
    let mut d = Diagnostic::new(DiagnosticKind::NameResolution, message);
    for s in spans {
        d = d.at(*s);
    }
    d
}

/// A typing error pointing at `span`.
pub(crate) fn type_error(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::new(DiagnosticKind::Typing, message).at(span)
}

/// Catala's "Incompatible types" error: `got` at `got_span`, `expected` coming from
/// `expected_span`.
pub(crate) fn incompatible_types(
    got: &str,
    got_span: Span,
    expected: &str,
    expected_span: Span,
) -> Diagnostic {
    let message = format!("Incompatible types:\n  got      {got},\n  expected {expected}");
    let mut got_label = Label::new(got_span);
    got_label.note = Some(format!("This expression has type {got}:"));
    let mut expected_label = Label::new(expected_span);
    expected_label.note = Some(format!("Expected type {expected} coming from expression:"));
    Diagnostic::new(DiagnosticKind::Typing, message)
        .with_label(got_label)
        .with_label(expected_label)
}

/// Looks up the heading trail of the innermost item containing `span`.
pub(crate) fn headings_for(
    ranges: &[HeadingRange],
    span: Span,
) -> Arc<[catala_syntax::ast::LawHeading]> {
    ranges
        .iter()
        .filter(|r| {
            r.span.file == span.file && r.span.start <= span.start && span.end <= r.span.end
        })
        .min_by_key(|r| r.span.end - r.span.start)
        .map_or_else(|| Arc::from(Vec::new()), |r| r.headings.clone())
}

/// Fills the heading trail of every label that has none.
pub(crate) fn attach_headings(diagnostics: &mut [Diagnostic], ranges: &[HeadingRange]) {
    for d in diagnostics {
        for label in &mut d.labels {
            if label.headings.is_empty() {
                label.headings = headings_for(ranges, label.span);
            }
        }
    }
}

/// "Incompatible types" found while typing the expression at `at`: `got` and `expected`, each
/// with the position its type comes from.
pub(crate) fn incompatible_at(
    at: Span,
    (got, got_span): (&str, Span),
    (expected, expected_span): (&str, Span),
) -> Diagnostic {
    let message = format!("Incompatible types:\n  got      {got},\n  expected {expected}");
    let mut whole = Label::new(at);
    whole.note = Some("While typechecking the following expression:".to_string());
    let mut got_label = Label::new(got_span);
    got_label.note = Some(format!("Type {got} is coming from:"));
    let mut expected_label = Label::new(expected_span);
    expected_label.note = Some(format!("Type {expected} is coming from:"));
    Diagnostic::new(DiagnosticKind::Typing, message)
        .with_label(whole)
        .with_label(got_label)
        .with_label(expected_label)
}

/// "Incompatible types" between the operands of a polymorphic operator: the left operand sets
/// the expected type, the right one does not match it.
pub(crate) fn incompatible_operands(
    got: &str,
    got_span: Span,
    expected: &str,
    expected_span: Span,
) -> Diagnostic {
    incompatible_at(expected_span, (got, got_span), (expected, expected_span))
}
