//! A command's output read back into the parts a test block compares: the lines of its
//! `┌─[RESULT]─` boxes, its errors (kind, message, positions; from `┌─[ERROR]─` boxes or GNU
//! `[ERROR]` lines), the other lines (JSON results) and the exit code. Expected outputs and
//! lexprobe's own output are read by the same code, so the comparison is symmetric. Warning,
//! debug and log output is set aside: lexprobe does not print Catala's warnings.

/// One error as the comparison sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorOutput {
    /// `conflict`, `no_value`, `division_by_zero`, `ambiguous_date`, `assertion`, `runtime`
    /// (another evaluation error) or `compile`.
    pub kind: &'static str,
    /// The message with its line breaks and runs of spaces made single spaces; empty when not
    /// shown.
    pub message: String,
    /// Every position pointed at, as `file:line.col-col`, in order.
    pub positions: Vec<String>,
}

/// The comparable parts of a command's output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedOutput {
    /// The lines of every RESULT box, frames included, trailing spaces removed.
    pub results: Vec<String>,
    pub errors: Vec<ErrorOutput>,
    /// Lines outside any box other than GNU messages and the return code (e.g. JSON results).
    pub other: Vec<String>,
    /// The `#return code N#` of an expected output, or the exit code of a run.
    pub code: i32,
}

/// Reads an output; `code` is the exit code when it is not written in the text.
pub fn parse<S: AsRef<str>>(lines: &[S], code: i32) -> ParsedOutput {
    let mut parsed = ParsedOutput {
        code,
        ..ParsedOutput::default()
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].as_ref().trim_end();
        i += 1;
        if let Some(n) = line
            .strip_prefix("#return code ")
            .and_then(|r| r.strip_suffix('#'))
        {
            parsed.code = n.trim().parse().unwrap_or(-1);
        } else if let Some(title) = line.strip_prefix("┌─[") {
            let mut body = vec![line.to_string()];
            while i < lines.len() {
                let l = lines[i].as_ref().trim_end();
                i += 1;
                body.push(l.to_string());
                if l.starts_with("└─") {
                    break;
                }
            }
            if title.starts_with("RESULT]") {
                parsed.results.extend(body);
            } else if title.starts_with("ERROR]") {
                parsed.errors.push(error_of_box(&body));
            }
        } else if let Some(error) = gnu_error(line) {
            parsed.errors.extend(error);
        } else if !line.is_empty() {
            parsed.other.push(line.to_string());
        }
    }
    parsed
}

/// Whitespace runs become single spaces.
pub(crate) fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The kind of an error, told by its message.
pub(crate) fn kind_of(message: &str) -> &'static str {
    let table = [
        ("conflict between multiple valid consequences", "conflict"),
        ("no applicable rule", "no_value"),
        ("used as denominator in a division", "division_by_zero"),
        ("ambiguous date computation", "ambiguous_date"),
        ("Assertion failed", "assertion"),
        ("During evaluation", "runtime"),
    ];
    table
        .iter()
        .find(|(needle, _)| message.contains(needle))
        .map_or("compile", |(_, kind)| kind)
}

/// An `┌─[ERROR]─` box: the message is the indented text before the first position, the
/// positions are every `├─➤ file:pos:` line.
fn error_of_box(body: &[String]) -> ErrorOutput {
    let mut message = Vec::new();
    let mut positions = Vec::new();
    let mut in_message = true;
    for l in body.iter().skip(1) {
        if let Some(p) = l.strip_prefix("├─➤ ") {
            positions.push(p.trim_end_matches(':').to_string());
            in_message = false;
        } else if let Some(text) = l.strip_prefix("│  ").filter(|_| in_message) {
            // The message is indented by two spaces; notes introducing a position ("This
            // expression has type decimal:") by one.
            message.push(text.trim());
        }
    }
    let message = normalise(&message.join(" "));
    ErrorOutput {
        kind: kind_of(&message),
        message,
        positions,
    }
}

/// `file:pos: [ERROR] message` or `[ERROR] message` (`--message-format=gnu`); warnings and
/// other levels give an empty list; other lines give `None`.
fn gnu_error(line: &str) -> Option<Vec<ErrorOutput>> {
    let (before, after) = line.split_once("[ERROR]").or_else(|| {
        line.split_once("[WARNING]")
            .or_else(|| line.split_once("[DEBUG]"))
            .or_else(|| line.split_once("[LOG]"))
            .map(|_| ("", ""))
    })?;
    if after.is_empty() {
        return Some(Vec::new());
    }
    let before = before.trim_end().trim_end_matches(':');
    if !(before.is_empty() || before.contains(':')) {
        return None;
    }
    // `[ERROR] 1/2: message` numbers collected errors.
    let after = after.trim_start();
    let after = match after.split_once(": ") {
        Some((n, rest)) if n.contains('/') && n.chars().all(|c| c.is_ascii_digit() || c == '/') => {
            rest
        }
        _ => after,
    };
    let message = normalise(after);
    Some(vec![ErrorOutput {
        kind: kind_of(&message),
        message,
        positions: (!before.is_empty())
            .then(|| before.to_string())
            .into_iter()
            .collect(),
    }])
}

/// Whether two positions `file:line.col-col` name the same place: the same line and columns,
/// and file paths of which one ends with the other (outputs name files relative to the
/// directory the command ran in, and Catala's expected outputs relative to its project root).
pub(crate) fn same_position(expected: &str, actual: &str) -> bool {
    let split = |p: &str| -> (String, String) {
        match p.rsplit_once(':') {
            Some((file, pos)) => (file.to_string(), pos.to_string()),
            None => (String::new(), p.to_string()),
        }
    };
    let ((ef, ep), (af, ap)) = (split(expected), split(actual));
    if ep != ap {
        return false;
    }
    // Catala joins directories and include paths as written (`tests/a/../../x.catala_en`):
    // each `DIR/..` pair is dropped first.
    let (ef, af) = (lexically_resolved(&ef), lexically_resolved(&af));
    let (ef, af) = (ef.as_path(), af.as_path());
    // Catala's paths start at the project root (`tests/...`); drop that first component.
    let mut shorter = ef.components();
    if ef.components().count() > 1 {
        shorter.next();
    }
    if af.ends_with(ef) || ef.ends_with(af) || af.ends_with(shorter.as_path()) {
        return true;
    }
    // A path relative to another directory (`../../housing/rules.catala_en`) names the same
    // file as one ending with what follows its leading `..` components.
    let climbed = |p: &std::path::Path| -> std::path::PathBuf {
        p.components()
            .skip_while(|c| {
                matches!(
                    c,
                    std::path::Component::ParentDir | std::path::Component::CurDir
                )
            })
            .collect()
    };
    let (ec, ac) = (climbed(ef), climbed(af));
    let named = |p: &std::path::Path| p.components().count() > 0;
    named(&ec) && named(&ac) && (ac.ends_with(&ec) || ec.ends_with(&ac))
}

/// `path` with each `NAME/..` pair removed (leading `..` kept): the same file when no
/// symbolic link is crossed, as Catala's joined paths assume.
fn lexically_resolved(path: &str) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in std::path::Path::new(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_joined_with_climbs_name_the_file_they_resolve_to() {
        // Tests two levels below the project root name the program `a/b/../../x`.
        assert!(same_position(
            "a/b/../../allowance.catala_en:12.10-19",
            "/tmp/p/allowance.catala_en:12.10-19"
        ));
        assert!(same_position(
            "tests/../prog/x.catala_en:1.2-3",
            "../prog/x.catala_en:1.2-3"
        ));
        assert!(!same_position(
            "a/b/../../allowance.catala_en:12.10-19",
            "/tmp/p/b/other.catala_en:12.10-19"
        ));
        assert_eq!(
            lexically_resolved("a/b/../../x.catala_en"),
            std::path::PathBuf::from("x.catala_en")
        );
        assert_eq!(
            lexically_resolved("../a/./../x"),
            std::path::PathBuf::from("../x")
        );
    }

    #[test]
    fn positions_relative_to_other_directories_match_by_what_follows_the_climb() {
        assert!(same_position(
            "../../housing/rules.catala_en:3.5-6",
            "/home/u/project/housing/rules.catala_en:3.5-6"
        ));
        assert!(same_position(
            "../housing/rules.catala_en:3.5-6",
            "../../housing/rules.catala_en:3.5-6"
        ));
        // Another file, or another place in it, does not match.
        assert!(!same_position(
            "../../housing/rules.catala_en:3.5-6",
            "/home/u/project/housing/other.catala_en:3.5-6"
        ));
        assert!(!same_position(
            "../../housing/rules.catala_en:3.5-6",
            "/home/u/project/housing/rules.catala_en:4.5-6"
        ));
        // A bare climb names no file.
        assert!(!same_position("..:3.5-6", "/a/b.catala_en:3.5-6"));
    }

    #[test]
    fn results_errors_and_code() {
        let text = "┌─[WARNING]─\n│  Unused\n└─\n┌─[RESULT]─ A ─\n│ x = 1\n└─\n\
                    ┌─[ERROR]─\n│\n│  During evaluation: conflict between multiple valid\n\
                    │  consequences for assigning the same variable.\n│\n\
                    ├─➤ tests/a.catala_en:3.5-6:\n│ 3 │ x\n├─ Title\n│\n\
                    ├─➤ tests/a.catala_en:4.5-6:\n└─ Title\n#return code 123#";
        let lines: Vec<&str> = text.lines().collect();
        let p = parse(&lines, 0);
        assert_eq!(p.results, vec!["┌─[RESULT]─ A ─", "│ x = 1", "└─"]);
        assert_eq!(p.code, 123);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].kind, "conflict");
        assert_eq!(
            p.errors[0].message,
            "During evaluation: conflict between multiple valid consequences for assigning the same variable."
        );
        assert_eq!(
            p.errors[0].positions,
            vec!["tests/a.catala_en:3.5-6", "tests/a.catala_en:4.5-6"]
        );
        assert!(p.other.is_empty());
    }

    #[test]
    fn notes_before_positions_are_not_the_message() {
        let lines = [
            "┌─[ERROR]─",
            "│",
            "│  Incompatible types:",
            "│    got      decimal,",
            "│",
            "│ This expression has type decimal:",
            "├─➤ f.catala_en:7.23-26:",
            "└─",
        ];
        let p = parse(&lines, 0);
        assert_eq!(p.errors[0].message, "Incompatible types: got decimal,");
        assert_eq!(p.errors[0].kind, "compile");
    }

    #[test]
    fn gnu_lines() {
        let lines = [
            "t/a.catala_en:8.3-4: [WARNING] Unused",
            "t/a.catala_en:8.56-57: [ERROR] During evaluation: no applicable rule to define",
            "{\"x\":1}",
        ];
        let p = parse(&lines, 123);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].kind, "no_value");
        assert_eq!(p.errors[0].positions, vec!["t/a.catala_en:8.56-57"]);
        assert_eq!(p.other, vec!["{\"x\":1}"]);
        assert_eq!(p.code, 123);
    }

    #[test]
    fn positions_compare_by_path_suffix() {
        assert!(same_position(
            "tests/default/bad/c.catala_en:8.56-57",
            "/x/catala-tests/default/bad/c.catala_en:8.56-57"
        ));
        assert!(same_position(
            "tests/c.catala_en:1.1-2",
            "c.catala_en:1.1-2"
        ));
        assert!(!same_position(
            "tests/c.catala_en:1.1-2",
            "tests/c.catala_en:1.1-3"
        ));
        assert!(!same_position(
            "tests/c.catala_en:1.1-2",
            "d.catala_en:1.1-2"
        ));
    }
}
