//! Checks the diagnostic renderer against the Catala compiler's own expected outputs: every
//! `┌─[ERROR]─` / `┌─[WARNING]─` box in the ```catala-test-cli blocks of the compiler's test
//! suite (`../shared/corpus/catala-tests`) is decomposed into its message, notes, positions and
//! heading trails; the positions are turned back into spans of the test file, and the box is
//! rendered again and compared line for line. Boxes using features the renderer does not have
//! ("Maybe you wanted to write" suggestions) are counted apart. Skipped when the corpus is
//! absent.

use catala_syntax::ast::LawHeading;
use catala_syntax::{render_error, render_warning, FileId, Label, SourceFile, SourceMap, Span};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn corpus_tests() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/catala-tests");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("notice: corpus not found at {}, skipping", dir.display());
        None
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "catala_en" || x == "catala_fr")
        {
            out.push(p);
        }
    }
}

/// The boxes (lines) of the expected outputs of a test file.
fn boxes(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut in_cli = false;
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        if line.starts_with("```catala-test-cli") {
            in_cli = true;
            continue;
        }
        if !in_cli {
            continue;
        }
        if line.starts_with("```") {
            in_cli = false;
            if let Some(b) = current.take() {
                out.push(b);
            }
            continue;
        }
        if line.starts_with("┌─[ERROR]─") || line.starts_with("┌─[WARNING]─") {
            if let Some(b) = current.take() {
                out.push(b);
            }
            current = Some(vec![line.to_string()]);
            continue;
        }
        if let Some(b) = current.as_mut() {
            let closed = b
                .last()
                .is_some_and(|l| l.starts_with("└─") || l.starts_with(' '));
            if closed && !(line.starts_with(' ') && line.contains('└')) {
                if let Some(b) = current.take() {
                    out.push(b);
                }
                continue;
            }
            b.push(line.to_string());
        }
    }
    if let Some(b) = current {
        out.push(b);
    }
    out
}

/// `file:l.c-c` or `file:l1.c1-l2.c2` → (file, l1, c1, l2, c2).
fn parse_position(pos: &str) -> Option<(String, usize, usize, usize, usize)> {
    let (file, range) = pos.rsplit_once(':')?;
    let (start, end) = range.split_once('-')?;
    let (l1, c1) = start.split_once('.')?;
    let (l1, c1): (usize, usize) = (l1.parse().ok()?, c1.parse().ok()?);
    let (l2, c2) = match end.split_once('.') {
        Some((l2, c2)) => (l2.parse().ok()?, c2.parse().ok()?),
        None => (l1, end.parse().ok()?),
    };
    Some((file.to_string(), l1, c1, l2, c2))
}

/// Byte offset of 1-based (line, column in code points).
fn offset(text: &str, line: usize, col: usize) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let line_text = &text[start..];
    let mut chars = line_text.char_indices();
    let mut idx = 0;
    for _ in 1..col {
        let (_, c) = chars.next()?;
        idx += c.len_utf8();
    }
    Some(start + idx)
}

struct Decomposed {
    warning: bool,
    suffix: Option<String>,
    /// The message rejoined where lines look wrapped.
    message: String,
    /// The message with every line break kept.
    message_lines: String,
    labels: Vec<Label>,
}

/// Reads a box back into a message and labels; `None` when it uses something the renderer
/// does not produce.
fn decompose(lines: &[String], corpus: &Path, sources: &mut SourceMap) -> Option<Decomposed> {
    let title = lines.first()?;
    let warning = title.starts_with("┌─[WARNING]");
    let suffix = title
        .split_once("]─ ")
        .map(|(_, s)| s.trim_end_matches(" ─").to_string());
    if lines.get(1)? != "│" {
        return None;
    }
    let mut i = 2;
    let mut msg_lines = Vec::new();
    while i < lines.len() && lines[i] != "│" {
        msg_lines.push(lines[i].strip_prefix("│  ")?.to_string());
        i += 1;
    }
    // Rejoin the wrapped message: a line indented more than the first continues a structure
    // (kept on its own line), otherwise it is the wrapped continuation of the previous one.
    let mut message = String::new();
    for (k, l) in msg_lines.iter().enumerate() {
        if k > 0 {
            let prev_indented = msg_lines[k - 1].starts_with(' ');
            message.push(
                if l.starts_with(' ') && !(prev_indented && l.starts_with("    ")) {
                    '\n'
                } else {
                    ' '
                },
            );
        }
        message.push_str(if k > 0 && !l.starts_with(' ') {
            l.trim_start()
        } else {
            l
        });
    }
    let mut labels = Vec::new();
    while i < lines.len() {
        if lines[i] == "└─" {
            break;
        }
        if lines[i] != "│" {
            return None;
        }
        i += 1;
        let mut note = Vec::new();
        while i < lines.len() && !lines[i].starts_with("├─➤ ") {
            note.push(lines[i].strip_prefix("│ ")?.to_string());
            i += 1;
        }
        let pos = lines.get(i)?.strip_prefix("├─➤ ")?.strip_suffix(':')?;
        let (file, l1, c1, l2, c2) = parse_position(pos)?;
        i += 1;
        // Context lines: header plus two lines per source line.
        i += 1 + 2 * (l2 - l1 + 1);
        let mut headings = Vec::new();
        if let Some(h) = lines
            .get(i)
            .and_then(|l| l.strip_prefix("├─ ").or(l.strip_prefix("└─ ")))
        {
            headings.push(h.to_string());
            i += 1;
            while let Some(l) = lines.get(i) {
                let t = l.trim_start_matches(['│', ' ']);
                match t.strip_prefix("└┬ ").or(t.strip_prefix("└─ ")) {
                    Some(h) => headings.push(h.to_string()),
                    None => break,
                }
                i += 1;
            }
        }
        let id = match sources.files.iter().position(|f| f.display_name == file) {
            Some(k) => FileId(k as u32),
            None => {
                let rel = file.strip_prefix("tests/")?;
                let text = std::fs::read_to_string(corpus.join(rel)).ok()?;
                sources.add(SourceFile::new(file.clone(), corpus.join(rel), text))
            }
        };
        let text = &sources.file(id).text;
        let span = Span::new(id, offset(text, l1, c1)?, offset(text, l2, c2)?);
        let trail: Vec<LawHeading> = headings
            .into_iter()
            .enumerate()
            .map(|(k, title)| LawHeading {
                title,
                level: k as u8 + 1,
                span: Span::default(),
            })
            .collect();
        labels.push(Label {
            span,
            note: (!note.is_empty()).then(|| note.join("\n")),
            headings: Arc::from(trail),
        });
    }
    Some(Decomposed {
        warning,
        suffix,
        message,
        message_lines: msg_lines
            .iter()
            .map(|l| {
                let body = l.trim_start();
                let lead = &l[..l.len() - body.len()];
                format!("{lead}{}", body.replace(' ', "\u{a0}"))
            })
            .collect::<Vec<_>>()
            .join("\n"),
        labels,
    })
}

#[test]
fn boxes_of_the_compiler_test_suite_render_identically() {
    let Some(corpus) = corpus_tests() else { return };
    let mut all = Vec::new();
    files(&corpus, &mut all);
    all.sort();
    let (mut total, mut comparable, mut identical, mut rewrapped) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for f in &all {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for b in boxes(&text) {
            total += 1;
            let mut sources = SourceMap::default();
            let Some(d) = decompose(&b, &corpus, &mut sources) else {
                continue;
            };
            comparable += 1;
            let render = if d.warning {
                render_warning
            } else {
                render_error
            };
            let expected = b.join("\n") + "\n";
            let wrapped = render(&sources, d.suffix.as_deref(), &d.message, &d.labels);
            let kept = render(&sources, d.suffix.as_deref(), &d.message_lines, &d.labels);
            if wrapped == expected {
                rewrapped += 1;
            }
            if wrapped == expected || kept == expected {
                identical += 1;
            } else {
                mismatches.push(format!("{}:\n{expected}---\n{kept}", f.display()));
            }
        }
    }
    println!(
        "render conformance: {identical}/{comparable} identical ({rewrapped} of them from the \
         unwrapped message; {total} boxes in all)"
    );
    for m in mismatches.iter().take(5) {
        println!("MISMATCH {m}");
    }
    assert!(comparable > 100, "only {comparable} comparable boxes");
    assert!(
        identical * 100 >= comparable * 95,
        "{identical}/{comparable} identical"
    );
    assert!(
        rewrapped * 100 >= comparable * 60,
        "{rewrapped}/{comparable} rewrapped"
    );
}
