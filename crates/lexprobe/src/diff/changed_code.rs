//! The code that changed between two versions, as positions in their loaded sources, for an
//! exploration directed at it (`concolic::difference::ChangedCode`). A version is its main
//! file and the module files it uses: the main files are compared with each other, and each
//! other file with the file of the same name in the other version (the first of a name with
//! the first, and so on); a file without a partner changed entirely. For each pair: the lines of each
//! side that the other does not have ([`changed_lines`], both ways), and the lines they share,
//! which place OLD's positions in NEW.

use super::changed_lines::{aligned_rows, changed_lines, RowKind};
use catala_syntax::{FileId, SourceFile, SourceMap, Span};
use concolic::difference::{ChangedCode, SameLine};
use std::collections::HashMap;

/// The byte offset of the start of each line of `text` (1-based line `l` at index `l - 1`),
/// and the text's length last.
fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = vec![0u32];
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            starts.push(i as u32 + 1);
        }
    }
    starts.push(text.len() as u32);
    starts
}

/// The bytes of 1-based lines `first..=last` of a file, their newline included.
fn lines_span(file: FileId, starts: &[u32], (first, last): (usize, usize)) -> Span {
    let at = |l: usize| starts[l.min(starts.len() - 1)];
    Span {
        file,
        start: at(first.saturating_sub(1)),
        end: at(last).max(at(first.saturating_sub(1))),
    }
}

/// Each file of `new` with its partner in `old`: the main files (the first ones) together,
/// the others by file name, the `k`-th file of a name in NEW with the `k`-th of that name in
/// OLD (the versions load their modules in the same order when they use the same ones).
fn partners(old: &SourceMap, new: &SourceMap) -> Vec<(Option<usize>, usize)> {
    let name = |f: &SourceFile| f.path.file_name().map(|n| n.to_os_string());
    let mut old_by_name: HashMap<_, std::collections::VecDeque<usize>> = HashMap::new();
    for (i, f) in old.files.iter().enumerate().skip(1) {
        old_by_name.entry(name(f)).or_default().push_back(i);
    }
    (0..new.files.len())
        .map(|j| {
            if j == 0 {
                return ((!old.files.is_empty()).then_some(0), 0);
            }
            let partner = old_by_name
                .get_mut(&name(&new.files[j]))
                .and_then(|v| v.pop_front());
            (partner, j)
        })
        .collect()
}

/// What changed between the sources of OLD and those of NEW.
pub(crate) fn changed_code(old: &SourceMap, new: &SourceMap) -> ChangedCode {
    let mut out = ChangedCode::default();
    let pairs = partners(old, new);
    let mut paired_old = vec![false; old.files.len()];
    for (i, j) in pairs {
        let fj = &new.files[j];
        let new_starts = line_starts(&fj.text);
        let new_id = FileId(j as u32);
        let Some(i) = i else {
            let whole = (1, new_starts.len().saturating_sub(1));
            out.new.push(lines_span(new_id, &new_starts, whole));
            continue;
        };
        paired_old[i] = true;
        let fi = &old.files[i];
        let old_starts = line_starts(&fi.text);
        let old_id = FileId(i as u32);
        for r in changed_lines(&fi.text, &fj.text) {
            out.new.push(lines_span(new_id, &new_starts, r));
        }
        for r in changed_lines(&fj.text, &fi.text) {
            out.old.push(lines_span(old_id, &old_starts, r));
        }
        for row in aligned_rows(&fi.text, &fj.text) {
            if let (RowKind::Same, Some(a), Some(b)) = (row.kind, row.old, row.new) {
                out.same_lines.push(SameLine {
                    old: lines_span(old_id, &old_starts, (a, a)),
                    new: lines_span(new_id, &new_starts, (b, b)),
                });
            }
        }
    }
    for (i, f) in old.files.iter().enumerate() {
        if !paired_old[i] {
            let starts = line_starts(&f.text);
            let whole = (1, starts.len().saturating_sub(1));
            out.old.push(lines_span(FileId(i as u32), &starts, whole));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(files: &[(&str, &str)]) -> SourceMap {
        let mut m = SourceMap::default();
        for (path, text) in files {
            m.add(SourceFile::new(*path, *path, text.to_string()));
        }
        m
    }

    #[test]
    fn a_changed_line_of_a_module_is_found_in_both_versions() {
        let old = map(&[
            ("old/main.catala_en", "main\n"),
            ("old/m/scales.catala_en", "a\nceiling 329\nb\n"),
        ]);
        let new = map(&[
            ("new/main.catala_en", "main\n"),
            ("new/m/scales.catala_en", "a\nceiling 339\nb\n"),
        ]);
        let c = changed_code(&old, &new);
        // Line 2 of the module file (bytes 2..14 with its newline) on both sides; the main
        // files are the same.
        let span = |start, end| Span {
            file: FileId(1),
            start,
            end,
        };
        assert_eq!(c.new, vec![span(2, 14)]);
        assert_eq!(c.old, vec![span(2, 14)]);
        // Shared: the main line, lines 1 and 3 of the module.
        assert_eq!(c.same_lines.len(), 3);
        assert!(c
            .same_lines
            .iter()
            .any(|l| l.old == span(14, 16) && l.new == span(14, 16)));
    }

    #[test]
    fn a_module_only_new_has_changed_entirely() {
        let old = map(&[("old/main.catala_en", "main\n")]);
        let new = map(&[
            ("new/main.catala_en", "main\n"),
            ("new/extra.catala_en", "x\ny\n"),
        ]);
        let c = changed_code(&old, &new);
        assert!(c.old.is_empty());
        assert_eq!(
            c.new,
            vec![Span {
                file: FileId(1),
                start: 0,
                end: 4
            }]
        );
    }
}
