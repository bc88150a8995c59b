//! Diagnostics: a kind, an English message and the source spans it points at (each with an
//! optional note and, in literate Catala files, the law-heading trail there); and the
//! suggestions offered for a misspelt name.

use crate::source::Span;
use std::sync::Arc;

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

/// A markdown heading above a code block (`## Article 3`), outermost first in a trail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LawHeading {
    pub title: String,
    /// Heading depth: number of `#`.
    pub level: u8,
    pub span: Span,
}

/// One place a diagnostic points at.
#[derive(Clone, Debug)]
pub struct Label {
    pub span: Span,
    /// A line printed before the position, e.g. "This expression has type decimal:".
    pub note: Option<String>,
    /// Law headings in force at `span` (printed after the snippet, innermost last).
    pub headings: Arc<[LawHeading]>,
}

impl Label {
    pub fn new(span: Span) -> Label {
        Label {
            span,
            note: None,
            headings: Arc::from(Vec::new()),
        }
    }

    /// A paragraph without position, printed after the positions (such as Catala's "Maybe you
    /// wanted to write: …?"); renderers skip its (absent) position.
    pub fn note_only(note: impl Into<String>) -> Label {
        Label {
            span: Span {
                file: crate::source::FileId(u32::MAX),
                start: 0,
                end: 0,
            },
            note: Some(note.into()),
            headings: Arc::from(Vec::new()),
        }
    }
}

/// Catala's suggestions for a misspelt name: the candidates closest to `word` by edit distance
/// (all those at the smallest distance, or with `sorted` up to five, closest first), as the
/// paragraph `Maybe you wanted to write: "a", "b" or "c"?`; `None` without candidates.
pub fn suggestion<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    sorted: bool,
) -> Option<String> {
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for c in candidates {
        if !scored.iter().any(|(_, x)| *x == c) {
            scored.push((edit_distance(word, c), c));
        }
    }
    if scored.is_empty() {
        return None;
    }
    let best = scored.iter().map(|(d, _)| *d).min().unwrap_or(0);
    let chosen: Vec<&str> = if sorted {
        let mut by_distance = scored.clone();
        by_distance.sort_by_key(|(d, _)| *d);
        by_distance.iter().take(5).map(|(_, c)| *c).collect()
    } else {
        scored
            .iter()
            .filter(|(d, _)| *d == best)
            .map(|(_, c)| *c)
            .collect()
    };
    suggestion_of(&chosen)
}

/// The paragraph `Maybe you wanted to write: "a", "b" or "c"?` for these names, in this order;
/// `None` without names.
pub fn suggestion_of(names: &[&str]) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|c| format!("\"{c}\"")).collect();
    let list = match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => return None,
    };
    Some(format!("Maybe you wanted to write: {list}?"))
}

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod suggestion_tests {
    use super::suggestion;

    #[test]
    fn closest_names_are_suggested() {
        assert_eq!(
            suggestion("Case2", ["Case1", "Other"], false).as_deref(),
            Some("Maybe you wanted to write: \"Case1\"?")
        );
        // All the names at the smallest distance, in their order.
        assert_eq!(
            suggestion("baa", ["foo", "bar", "baz"], false).as_deref(),
            Some("Maybe you wanted to write: \"bar\" or \"baz\"?")
        );
        // Sorted: the five closest, closest first (distances 1, 1, 1, 2, 2).
        assert_eq!(
            suggestion(
                "field20",
                ["field0", "field1", "field2", "field3", "field10"],
                true
            )
            .as_deref(),
            Some(
                "Maybe you wanted to write: \"field0\", \"field2\", \"field10\", \"field1\" or \"field3\"?"
            )
        );
        assert_eq!(suggestion("x", [], false), None);
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
