//! Rendering of diagnostics in the Catala compiler's layout: a box opened by `┌─[ERROR]─`, the
//! message wrapped at 78 columns (as OCaml's `Format` does with its default margin), then for
//! each label its note, its position `file:line.col-col`, the source lines with the span
//! underlined by `‾`, and the law-heading trail; the box closes with `└─` (or with the last
//! trail line). Also the one-line GNU layout `file:pos: [ERROR] message`.

use crate::diagnostic::Label;
use crate::source::{SourceMap, Span};

/// Column at which OCaml's `Format` wraps text by default.
const MARGIN: usize = 78;

/// The `┌─[ERROR]─` box. `title_suffix` numbers errors (`Some("1/2")` gives `┌─[ERROR]─ 1/2 ─`).
pub fn render_error(
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    render_box("ERROR", sources, title_suffix, message, labels)
}

/// The `┌─[WARNING]─` variant of [`render_error`].
pub fn render_warning(
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    render_box("WARNING", sources, title_suffix, message, labels)
}

/// The GNU layout: `file:line.col-col: [ERROR] message` on one line (the message's line
/// breaks and runs of spaces become single spaces), at the first label's position; with a
/// suffix, `[ERROR] 1/2: message`.
pub fn render_gnu(
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    render_gnu_line("ERROR", sources, title_suffix, message, labels)
}

/// The `[WARNING]` variant of [`render_gnu`].
pub fn render_gnu_warning(
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    render_gnu_line("WARNING", sources, title_suffix, message, labels)
}

fn render_gnu_line(
    kind: &str,
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    let mut out = String::new();
    if let Some(label) = labels.first() {
        if let Some(pos) = position(sources, label.span) {
            out.push_str(&pos);
            out.push_str(": ");
        }
    }
    out.push_str(&format!("[{kind}]"));
    if let Some(h) = title_suffix {
        out.push(' ');
        out.push_str(h);
        out.push(':');
    }
    let flat: Vec<&str> = message.split_whitespace().collect();
    if !flat.is_empty() {
        out.push(' ');
        out.push_str(&flat.join(" "));
    }
    out.push('\n');
    out
}

fn position(sources: &SourceMap, span: Span) -> Option<String> {
    if (span.file.0 as usize) < sources.files.len() {
        Some(sources.position(span).to_string())
    } else {
        None
    }
}

fn render_box(
    kind: &str,
    sources: &SourceMap,
    title_suffix: Option<&str>,
    message: &str,
    labels: &[Label],
) -> String {
    let mut out = format!("┌─[{kind}]─");
    if let Some(h) = title_suffix {
        out.push_str(&format!(" {h} ─"));
    }
    out.push('\n');
    out.push_str("│\n");
    for line in wrap_message(message, 3) {
        out.push_str("│  ");
        out.push_str(&line);
        out.push('\n');
    }
    if labels.is_empty() {
        out.push_str("│\n└─\n");
        return out;
    }
    let mut closed = false;
    for (i, label) in labels.iter().enumerate() {
        let last = i + 1 == labels.len();
        out.push_str("│\n");
        if let Some(note) = &label.note {
            for line in wrap_message(note, 2) {
                out.push_str("│ ");
                out.push_str(&line);
                out.push('\n');
            }
        }
        let Some(pos) = position(sources, label.span) else {
            continue;
        };
        out.push_str(&format!("├─➤ {pos}:\n"));
        excerpt(&mut out, sources, label.span);
        if !label.headings.is_empty() {
            let titles: Vec<String> = label
                .headings
                .iter()
                .map(|h| h.title.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
            let (first_lead, lead) = if last {
                ("└─ ", "   ")
            } else {
                ("├─ ", "│  ")
            };
            out.push_str(first_lead);
            out.push_str(&titles[0]);
            out.push('\n');
            let rest = &titles[1..];
            for (depth, title) in rest.iter().enumerate() {
                let branch = if depth + 1 == rest.len() {
                    "└─"
                } else {
                    "└┬"
                };
                out.push_str(lead);
                out.push_str(&" ".repeat(depth));
                out.push_str(branch);
                out.push(' ');
                out.push_str(title);
                out.push('\n');
            }
            closed = last;
        }
    }
    if !closed {
        out.push_str("└─\n");
    }
    out
}

/// The source lines of `span` with line numbers, the span underlined.
fn excerpt(out: &mut String, sources: &SourceMap, span: Span) {
    let file = sources.file(span.file);
    let pos = sources.position(span);
    let width = pos.end_line.to_string().len();
    out.push_str(&format!("│ {} │\n", " ".repeat(width)));
    for line_no in pos.start_line..=pos.end_line {
        let raw = file.line_text(line_no);
        let line = raw.trim_end_matches('\r');
        let chars: Vec<char> = line.chars().collect();
        let indent = chars
            .iter()
            .take_while(|c| **c == ' ' || **c == '\t')
            .count();
        let from = if line_no == pos.start_line {
            pos.start_col.saturating_sub(1)
        } else {
            indent
        };
        let to = if line_no == pos.end_line {
            pos.end_col.saturating_sub(1)
        } else {
            chars.len()
        };
        let (from, to) = (from.min(chars.len()), to.min(chars.len()));
        let shown = line.replace('\t', "        ");
        out.push_str(&format!("│ {line_no:>width$} │ {shown}\n"));
        out.push_str(&format!(
            "│ {} │ {}{}\n",
            " ".repeat(width),
            " ".repeat(display_width(&chars[..from])),
            "‾".repeat(display_width(&chars[from..to.max(from)]))
        ));
    }
}

/// Display width of source characters, a tab counting for the eight spaces it is shown as.
fn display_width(chars: &[char]) -> usize {
    chars.iter().map(|c| if *c == '\t' { 8 } else { 1 }).sum()
}

/// Wraps each line of the message like `Format`'s boxes do: words are separated by single
/// spaces, and a word that would end past the margin starts a new line, indented like the
/// line it continues (two more columns after a leading `» `). `start_col` is the column where
/// message lines start (after `│  `). A no-break space (U+00A0) never breaks; it is printed
/// as a plain space.
fn wrap_message(message: &str, start_col: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for raw in message.lines() {
        let leading = raw.len() - raw.trim_start_matches(' ').len();
        let body = raw.trim_start_matches(' ');
        let cont_indent =
            if body.starts_with("» ") || body.starts_with("Maybe you wanted to write:") {
                leading + 2
            } else {
                leading
            };
        let mut current = " ".repeat(leading);
        let mut col = start_col + leading;
        let mut first_word = true;
        for (sep, word) in words_with_separators(body) {
            let len = word.chars().count();
            if first_word {
                current.push_str(word);
                col += len;
                first_word = false;
            } else if col + sep.len() + len > MARGIN {
                lines.push(std::mem::take(&mut current).replace('\u{a0}', " "));
                current = " ".repeat(cont_indent);
                current.push_str(word);
                col = start_col + cont_indent + len;
            } else {
                current.push_str(sep);
                current.push_str(word);
                col += sep.len() + len;
            }
        }
        lines.push(current.replace('\u{a0}', " "));
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

/// The words of a line, each with the run of spaces before it (kept when no break happens).
fn words_with_separators(body: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let sep_len = rest.len() - rest.trim_start_matches(' ').len();
        let (sep, after) = rest.split_at(sep_len);
        let word_len = after.find(' ').unwrap_or(after.len());
        let (word, next) = after.split_at(word_len);
        if !word.is_empty() {
            out.push((sep, word));
        }
        rest = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::LawHeading;
    use crate::source::{FileId, SourceFile};
    use std::sync::Arc;

    fn sources(text: &str) -> SourceMap {
        let mut s = SourceMap::default();
        s.add(SourceFile::new("tests/x.catala_en", "x", text.to_string()));
        s
    }

    fn heading(title: &str, level: u8) -> LawHeading {
        LawHeading {
            title: title.into(),
            level,
            span: Span::default(),
        }
    }

    /// The layout of the Catala compiler's `tests/exception/bad/two_exceptions.catala_en`
    /// expected output (a message wrapped at 78 columns, two labels under heading `Test`).
    #[test]
    fn two_labels_with_headings() {
        let mut text = String::new();
        for i in 1..=15 {
            text.push_str(match i {
                12 => "  definition x equals 1\n",
                15 => "  definition x equals 2\n",
                _ => "\n",
            });
        }
        let src = sources(&text);
        let offset = |line: usize, col: usize| -> usize {
            text.split('\n')
                .take(line - 1)
                .map(|l| l.len() + 1)
                .sum::<usize>()
                + col
                - 1
        };
        let trail: Arc<[LawHeading]> = Arc::from(vec![heading("Test", 2)]);
        let label = |line| Label {
            span: Span::new(FileId(0), offset(line, 23), offset(line, 24)),
            note: None,
            headings: trail.clone(),
        };
        let out = render_error(
            &src,
            None,
            "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
            &[label(12), label(15)],
        );
        let expected = "┌─[ERROR]─
│
│  During evaluation: conflict between multiple valid consequences for
│  assigning the same variable.
│
├─➤ tests/x.catala_en:12.23-24:
│    │
│ 12 │   definition x equals 1
│    │                       ‾
├─ Test
│
├─➤ tests/x.catala_en:15.23-24:
│    │
│ 15 │   definition x equals 2
│    │                       ‾
└─ Test
";
        assert_eq!(out, expected);
    }

    /// Notes before positions and the closing `└─` when the last label has no headings, as in
    /// the expected output of `tests/typing/bad/err1.catala_en`.
    #[test]
    fn notes_and_numbered_title() {
        let text = "a\nb\nc\nd\ne\nf\n    Structure { -- i: 4.1 -- e: y };\n";
        let src = sources(text);
        let start = text.find("4.1").unwrap_or(0);
        let label = Label {
            span: Span::new(FileId(0), start, start + 3),
            note: Some("This expression has type decimal:".into()),
            headings: Arc::from(Vec::new()),
        };
        let out = render_error(
            &src,
            Some("1/2"),
            "Incompatible types:\n  got      decimal,\n  expected integer",
            &[label],
        );
        let expected = "┌─[ERROR]─ 1/2 ─
│
│  Incompatible types:
│    got      decimal,
│    expected integer
│
│ This expression has type decimal:
├─➤ tests/x.catala_en:7.23-26:
│   │
│ 7 │     Structure { -- i: 4.1 -- e: y };
│   │                       ‾‾‾
└─
";
        assert_eq!(out, expected);
    }

    #[test]
    fn no_label_and_warning() {
        let out = render_warning(&SourceMap::default(), None, "Something.", &[]);
        assert_eq!(out, "┌─[WARNING]─\n│\n│  Something.\n│\n└─\n");
    }

    #[test]
    fn multi_line_spans_and_nested_headings() {
        let text = "scope A:\n  definition x equals\n    1 +\n    2\n";
        let src = sources(text);
        let start = text.find("1 +").unwrap_or(0);
        let end = text.rfind('2').unwrap_or(0) + 1;
        let label = Label {
            span: Span::new(FileId(0), start, end),
            note: None,
            headings: Arc::from(vec![
                heading("Outer", 1),
                heading("Mid", 2),
                heading("Inner", 3),
            ]),
        };
        let out = render_error(&src, None, "m", &[label.clone(), label]);
        let expected = "┌─[ERROR]─
│
│  m
│
├─➤ tests/x.catala_en:3.5-4.6:
│   │
│ 3 │     1 +
│   │     ‾‾‾
│ 4 │     2
│   │     ‾
├─ Outer
│  └┬ Mid
│   └─ Inner
│
├─➤ tests/x.catala_en:3.5-4.6:
│   │
│ 3 │     1 +
│   │     ‾‾‾
│ 4 │     2
│   │     ‾
└─ Outer
   └┬ Mid
    └─ Inner
";
        assert_eq!(out, expected);
    }

    /// The layout of `catala Interpret --message-format=gnu` in the Catala compiler's
    /// `tests/default/bad/conflict.catala_en`.
    #[test]
    fn gnu_layout() {
        let src = sources("ab\n");
        let label = Label::new(Span::new(FileId(0), 1, 2));
        let out = render_gnu(
            &src,
            None,
            "During evaluation: conflict between multiple valid consequences for\nassigning the \
             same variable.",
            std::slice::from_ref(&label),
        );
        assert_eq!(
            out,
            "tests/x.catala_en:1.2-3: [ERROR] During evaluation: conflict between multiple \
             valid consequences for assigning the same variable.\n"
        );
        let warning = render_gnu_warning(&src, Some("1/2"), "Multiple   definitions", &[label]);
        assert_eq!(
            warning,
            "tests/x.catala_en:1.2-3: [WARNING] 1/2: Multiple definitions\n"
        );
    }
}
