//! An error at one span of a source file, carrying the sources it refers to so that it can be
//! shown on its own: as `file:line:column: message` (`Display`, columns in code points) or in
//! the box layout of [`render_error`](crate::render::render_error) with the source line.

use crate::diagnostic::Label;
use crate::render::render_error;
use crate::source::{SourceMap, Span};
use std::fmt;
use std::sync::Arc;

/// An error at `span` of one of `sources`' files.
#[derive(Clone, Debug)]
pub struct SourceError {
    pub message: String,
    pub span: Span,
    pub sources: Arc<SourceMap>,
}

impl SourceError {
    pub fn new(message: impl Into<String>, span: Span, sources: Arc<SourceMap>) -> SourceError {
        SourceError {
            message: message.into(),
            span,
            sources,
        }
    }

    /// 1-based line and column (in code points) of the start of the span; `None` when the span
    /// is not in `sources`.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.sources.line_col(self.span)
    }

    /// The error in the box layout, with the source line and the span underlined.
    pub fn render(&self) -> String {
        render_error(&self.sources, None, &self.message, &[Label::new(self.span)])
    }
}

impl fmt::Display for SourceError {
    /// `file:line:column: message`; without a file name (a text parsed on its own),
    /// `line:column: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((line, col)) = self.line_col() else {
            return f.write_str(&self.message);
        };
        let name = &self.sources.file(self.span.file).display_name;
        if name.is_empty() {
            write!(f, "{line}:{col}: {}", self.message)
        } else {
            write!(f, "{name}:{line}:{col}: {}", self.message)
        }
    }
}

impl std::error::Error for SourceError {}

#[cfg(test)]
mod tests {
    use super::SourceError;
    use crate::source::{SourceFile, SourceMap, Span};
    use std::sync::Arc;

    fn one_file(name: &str, text: &str) -> (Arc<SourceMap>, crate::source::FileId) {
        let mut sources = SourceMap::default();
        let id = sources.add(SourceFile::new(name, name, text.to_string()));
        (Arc::new(sources), id)
    }

    #[test]
    fn positions_count_code_points_and_the_box_shows_the_line() {
        // `é` is two bytes: the `x` after `é = ` is byte 8 of line 2 but its fifth code point.
        let (sources, id) = one_file("spec.ml", "let a = 1\né = x\n");
        let start = "let a = 1\né = ".len();
        let error = SourceError::new(
            "unbound variable `x`",
            Span::new(id, start, start + 1),
            sources,
        );
        assert_eq!(error.line_col(), Some((2, 5)));
        assert_eq!(error.to_string(), "spec.ml:2:5: unbound variable `x`");
        let boxed = error.render();
        assert!(boxed.starts_with("┌─[ERROR]─\n"), "{boxed}");
        assert!(boxed.contains("│  unbound variable `x`\n"), "{boxed}");
        assert!(boxed.contains("├─➤ spec.ml:2.5-6:\n"), "{boxed}");
        assert!(boxed.contains("│ 2 │ é = x\n"), "{boxed}");
    }

    #[test]
    fn a_text_without_a_name_gives_line_and_column_only() {
        let (sources, id) = one_file("", "a +\n  * b");
        let error = SourceError::new("expected an operand", Span::new(id, 6, 7), sources);
        assert_eq!(error.to_string(), "2:3: expected an operand");
    }
}
