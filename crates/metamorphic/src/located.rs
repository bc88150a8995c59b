//! Errors of relations and domain files shown at their place: a typed error (whose `Display`
//! is its message and which knows its span, [`Positioned`]) joined to the sources its span is
//! in. [`Located`] displays as `file:line:column: message` and renders in the box layout of the
//! `diagnostics` crate, with the source line and the offending token underlined.

use diagnostics::{SourceError, SourceMap, Span};
use std::fmt;
use std::sync::Arc;

/// An error that may point at a span of a relations or domain file.
pub trait Positioned: fmt::Display {
    /// Where the error is; `None` for an error about a whole file.
    fn span(&self) -> Option<Span>;
}

/// A positioned error with the sources its span refers to.
#[derive(Debug, Clone)]
pub struct Located<E> {
    pub error: E,
    pub sources: Arc<SourceMap>,
}

impl<E> Located<E> {
    pub fn new(error: E, sources: Arc<SourceMap>) -> Located<E> {
        Located { error, sources }
    }
}

impl<E: Positioned> Located<E> {
    /// The error as a [`SourceError`]; an error without a span gets one outside the sources,
    /// so that it shows as its message alone.
    pub fn source_error(&self) -> SourceError {
        let span = self.error.span().unwrap_or(NOWHERE);
        SourceError::new(self.error.to_string(), span, self.sources.clone())
    }

    /// 1-based line and column (in code points) of the error's span, when it has one.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.sources.line_col(self.error.span()?)
    }

    /// The error in the box layout, with the source line and its span underlined.
    pub fn render(&self) -> String {
        self.source_error().render()
    }
}

/// A span in no file: renderers show no position for it.
pub(crate) const NOWHERE: Span = Span {
    file: diagnostics::FileId(u32::MAX),
    start: 0,
    end: 0,
};

impl<E: Positioned> fmt::Display for Located<E> {
    /// `file:line:column: message` (`line:column: message` for a text without a name; the
    /// message alone without a span).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source_error().fmt(f)
    }
}

impl<E: Positioned + fmt::Debug> std::error::Error for Located<E> {}

impl<E: PartialEq> PartialEq for Located<E> {
    /// The same error (spans included) in sources of the same file names.
    fn eq(&self, other: &Located<E>) -> bool {
        let names = |l: &Located<E>| {
            l.sources
                .files
                .iter()
                .map(|f| f.display_name.clone())
                .collect::<Vec<_>>()
        };
        self.error == other.error && names(self) == names(other)
    }
}
