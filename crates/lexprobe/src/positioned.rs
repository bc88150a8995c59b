//! Errors about the inputs that are not Catala programs (HATch benchmark files, metamorphic
//! domains and relations) come from their libraries as `FILE:LINE:COL: message`; this renders
//! them like Catala's errors, in a `┌─[ERROR]─` box with the source line and a marker under the
//! position, so that every input error of lexprobe looks the same.

use catala_syntax::{Label, SourceFile, SourceMap, Span};

/// The box for an error of the form `FILE:LINE:COL: message` whose file can be read; `None`
/// for any other text (the caller prints it as it is).
pub(crate) fn render(text: &str) -> Option<String> {
    let (file, line, col, message) = split(text)?;
    let content = std::fs::read_to_string(file).ok()?;
    let offset = offset_of(&content, line, col)?;
    let end = content[offset..]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map_or(content.len(), |(i, _)| offset + i)
        .max(offset + content[offset..].chars().next().map_or(0, char::len_utf8));
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new(file, file, content));
    let label = Label::new(Span::new(id, offset, end));
    Some(catala_syntax::render_error(
        &sources,
        None,
        message,
        &[label],
    ))
}

/// `(file, line, column, message)` of `FILE:LINE:COL: message` (1-based line and column).
fn split(text: &str) -> Option<(&str, usize, usize, &str)> {
    let mut search = 0;
    while let Some(i) = text[search..].find(": ").map(|i| search + i) {
        let head = &text[..i];
        let mut parts = head.rsplitn(3, ':');
        let (col, line, file) = (parts.next()?, parts.next(), parts.next());
        if let (Some(line), Some(file)) = (line, file) {
            if let (Ok(l), Ok(c)) = (line.parse::<usize>(), col.parse::<usize>()) {
                if !file.is_empty() && l > 0 && c > 0 {
                    return Some((file, l, c, &text[i + 2..]));
                }
            }
        }
        search = i + 2;
    }
    None
}

/// Byte offset of a 1-based line and column (in characters).
fn offset_of(content: &str, line: usize, col: usize) -> Option<usize> {
    let start: usize = content
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let text = content.get(start..)?;
    let within = text
        .char_indices()
        .nth(col - 1)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    (start + within < content.len()).then_some(start + within)
}

#[cfg(test)]
mod tests {
    use super::{render, split};

    #[test]
    fn positioned_errors_are_recognized() {
        assert_eq!(
            split("a/b.toml:3:7: unknown field `x`"),
            Some(("a/b.toml", 3, 7, "unknown field `x`"))
        );
        assert_eq!(split("no position here: at all"), None);
        assert_eq!(split("--output:1:1: bad"), Some(("--output", 1, 1, "bad")));
    }

    #[test]
    fn the_box_shows_the_source_line() {
        let path =
            std::env::temp_dir().join(format!("lexprobe-positioned-{}.toml", std::process::id()));
        std::fs::write(&path, "output = \"x\"\nfoo = bar\n").expect("write");
        let text = format!("{}:2:7: unknown value `bar`", path.display());
        let boxed = render(&text).expect("rendered");
        assert!(boxed.starts_with("┌─[ERROR]─"), "{boxed}");
        assert!(boxed.contains("unknown value `bar`"));
        assert!(boxed.contains("│ 2 │ foo = bar"), "{boxed}");
        assert!(boxed.contains(":2.7-10"), "{boxed}");
        let _ = std::fs::remove_file(&path);
        // A file that cannot be read: printed as it is by the caller.
        assert_eq!(render("/nonexistent/x.ml:1:1: oops"), None);
    }
}
