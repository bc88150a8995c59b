//! The law text of both versions on the diff page: the main files of OLD and NEW side by side
//! (one after the other on a narrow screen), aligned row by row by the line diff
//! ([`aligned_rows`]), each line with its number and an anchor (`old-L45`, `new-L123`), changed,
//! removed and added lines coloured and marked (`~`, `−`, `+`). A long file shows only the
//! changed pieces with a few lines around them, and says how many lines it leaves out. Above,
//! the law headings (the `#` lines of the text, outside code) under which lines changed.

use super::escape;
use crate::diff::changed_lines::{aligned_rows, Row, RowKind};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Files of at most this many rows are shown whole.
const WHOLE_FILE_ROWS: usize = 300;

/// Unchanged lines shown around each change of a longer file.
const CONTEXT: usize = 3;

/// Longer lists of changed law headings are folded.
const HEADINGS_SHOWN: usize = 12;

/// Runs of unchanged lines shorter than this are shown rather than left out.
const MIN_GAP: usize = 4;

/// The most rows shown; a note says how many more there are.
const MAX_ROWS: usize = 6000;

/// Lines of each version's main file that errors name: marked, and always shown.
#[derive(Default)]
pub(crate) struct MarkedLines {
    pub old: BTreeSet<usize>,
    pub new: BTreeSet<usize>,
}

/// The two main files and their alignment.
pub(crate) struct LawText<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    labels: (&'a str, &'a str),
    rows: Vec<Row>,
    /// What the anchors of each side start with (`old`, `new`, or `f2-old`, … for files other
    /// than the main ones).
    ids: [String; 2],
    max_rows: usize,
}

/// A law heading under which lines changed.
struct ChangedHeading {
    new_side: bool,
    line: usize,
    /// Lines changed under it, and how many of them are in Catala code.
    lines: usize,
    in_code: usize,
}

/// Per line (0-based): the 1-based number of the nearest heading above it or on it (a line
/// starting with `#` outside code blocks), and whether the line is inside a code block.
fn headings(lines: &[&str]) -> Vec<(Option<usize>, bool)> {
    let mut out = Vec::with_capacity(lines.len());
    let (mut heading, mut code) = (None, false);
    for (i, l) in lines.iter().enumerate() {
        let fence = l.trim_start().starts_with("```");
        if !code && !fence && l.starts_with('#') {
            heading = Some(i + 1);
        }
        out.push((heading, code && !fence));
        if fence {
            code = !code;
        }
    }
    out
}

impl<'a> LawText<'a> {
    pub(crate) fn new(old: &'a str, new: &'a str, labels: (&'a str, &'a str)) -> Self {
        LawText {
            old: old.lines().collect(),
            new: new.lines().collect(),
            labels,
            rows: aligned_rows(old, new),
            ids: ["old".into(), "new".into()],
            max_rows: MAX_ROWS,
        }
    }

    /// The same with anchors starting with `prefix` (`f2-` gives `f2-old-L45`) and at most
    /// `max_rows` rows shown.
    pub(crate) fn anchored(mut self, prefix: &str, max_rows: usize) -> Self {
        self.ids = [format!("{prefix}old"), format!("{prefix}new")];
        self.max_rows = max_rows;
        self
    }

    /// The headings above changed lines: NEW's for changed and added lines, OLD's for
    /// removed ones.
    fn changed_headings(&self) -> Vec<ChangedHeading> {
        let (old_h, new_h) = (headings(&self.old), headings(&self.new));
        let mut out: Vec<ChangedHeading> = Vec::new();
        for row in &self.rows {
            let (new_side, line, table) = match (row.kind, row.old, row.new) {
                (RowKind::Changed | RowKind::Added, _, Some(n)) => (true, n, &new_h),
                (RowKind::Removed, Some(o), _) => (false, o, &old_h),
                _ => continue,
            };
            let Some(&(Some(heading), in_code)) = table.get(line - 1) else {
                continue;
            };
            match out
                .iter_mut()
                .find(|c| c.new_side == new_side && c.line == heading)
            {
                Some(c) => {
                    c.lines += 1;
                    c.in_code += usize::from(in_code);
                }
                None => out.push(ChangedHeading {
                    new_side,
                    line: heading,
                    lines: 1,
                    in_code: usize::from(in_code),
                }),
            }
        }
        out
    }

    /// Which rows are shown: all of a short file; of a longer one, the changed rows, the
    /// marked lines and the headings listed, with [`CONTEXT`] rows around each.
    fn shown(&self, marked: &MarkedLines, heads: &[ChangedHeading]) -> Vec<bool> {
        let n = self.rows.len();
        if n <= WHOLE_FILE_ROWS {
            return vec![true; n];
        }
        let mut show = vec![false; n];
        for (k, row) in self.rows.iter().enumerate() {
            let wanted = row.kind != RowKind::Same
                || row.old.is_some_and(|o| marked.old.contains(&o))
                || row.new.is_some_and(|l| marked.new.contains(&l))
                || heads
                    .iter()
                    .any(|c| (if c.new_side { row.new } else { row.old }) == Some(c.line));
            if wanted {
                for s in show
                    .iter_mut()
                    .take((k + CONTEXT + 1).min(n))
                    .skip(k.saturating_sub(CONTEXT))
                {
                    *s = true;
                }
            }
        }
        // Leaving out fewer lines than a note takes saves nothing.
        let mut k = 0;
        while k < n {
            let end = (k..n).find(|&e| show[e]).unwrap_or(n);
            if end - k < MIN_GAP {
                show[k..end].iter_mut().for_each(|s| *s = true);
            }
            k = end + 1;
        }
        show
    }

    /// Writes the section after its heading (HTML).
    pub(crate) fn write(&self, h: &mut String, marked: &MarkedLines, heading: &str) {
        h.push_str(heading);
        let changed = self.rows.iter().filter(|r| r.kind != RowKind::Same).count();
        let _ = writeln!(
            h,
            "<p>OLD ({} lines) and NEW ({} lines), aligned line by line: \
             {changed} row{} differ. <span class=\"legend\"><span class=\"r chg\">~ changed</span>\
             <span class=\"r del\">− only in OLD</span><span class=\"r add\">+ only in NEW</span>\
             <span class=\"errpos\">! named by an error</span></span></p>",
            self.old.len(),
            self.new.len(),
            if changed == 1 { "" } else { "s" }
        );
        let heads = self.changed_headings();
        self.write_headings(h, &heads);
        let show = self.shown(marked, &heads);
        let mut old_side = String::new();
        let mut new_side = String::new();
        let mut k = 0;
        let mut rows_out = 0;
        while k < self.rows.len() {
            if rows_out >= self.max_rows {
                let note = format!(
                    "<div class=\"r gap\">⋯ the last {} rows are not shown</div>\n",
                    self.rows.len() - k
                );
                old_side.push_str(&note);
                new_side.push_str(&note);
                break;
            }
            if !show[k] {
                let end = (k..self.rows.len())
                    .find(|&e| show[e])
                    .unwrap_or(self.rows.len());
                let note = self.gap_note(k, end);
                old_side.push_str(&note);
                new_side.push_str(&note);
                k = end;
                continue;
            }
            let row = self.rows[k];
            let look = |new: bool, line: Option<usize>| Look {
                kind: row.kind,
                changed_heading: heads
                    .iter()
                    .any(|c| c.new_side == new && Some(c.line) == line),
                error: line
                    .is_some_and(|l| if new { &marked.new } else { &marked.old }.contains(&l)),
            };
            line_div(
                &mut old_side,
                &self.ids[0],
                row.old,
                &self.old,
                look(false, row.old),
            );
            line_div(
                &mut new_side,
                &self.ids[1],
                row.new,
                &self.new,
                look(true, row.new),
            );
            rows_out += 1;
            k += 1;
        }
        let _ = writeln!(
            h,
            "<div class=\"sides\">\n<div class=\"side old\"><div class=\"title\" title=\"{old}\">\
             OLD: {old}</div><div class=\"lines\"><div class=\"rows\">\n{old_side}</div></div>\
             </div>\n<div class=\"side new\"><div class=\"title\" title=\"{new}\">NEW: {new}\
             </div><div class=\"lines\"><div class=\"rows\">\n{new_side}</div></div></div>\n\
             </div>",
            old = escape(self.labels.0),
            new = escape(self.labels.1)
        );
    }

    /// `⋯ 120 unchanged lines omitted (OLD 13–132, NEW 15–134)` for rows `from..to`.
    fn gap_note(&self, from: usize, to: usize) -> String {
        let span = |f: fn(&Row) -> Option<usize>| {
            let lines: Vec<usize> = self.rows[from..to].iter().filter_map(f).collect();
            match (lines.first(), lines.last()) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => "none".into(),
            }
        };
        format!(
            "<div class=\"r gap\">⋯ {} unchanged line{} omitted (OLD {}, NEW {})</div>\n",
            to - from,
            if to - from == 1 { "" } else { "s" },
            span(|r| r.old),
            span(|r| r.new)
        )
    }

    fn write_headings(&self, h: &mut String, heads: &[ChangedHeading]) {
        if heads.is_empty() {
            return;
        }
        let _ = writeln!(
            h,
            "<h3 id=\"{}changed-headings\">Changed law headings</h3>",
            self.ids[0].trim_end_matches("old")
        );
        // A long list is folded.
        let folded = heads.len() > HEADINGS_SHOWN;
        if folded {
            let _ = write!(h, "<details><summary>{} headings</summary>", heads.len());
        }
        h.push_str("<ul>\n");
        for c in heads {
            let (side, upper, lines) = if c.new_side {
                (&self.ids[1], "NEW", &self.new)
            } else {
                (&self.ids[0], "OLD", &self.old)
            };
            let text = lines.get(c.line - 1).copied().unwrap_or("");
            let _ = writeln!(
                h,
                "<li><a href=\"#{side}-L{line}\">{upper} line {line}</a>: <code>{}</code> — {} \
                 line{} {}{}</li>",
                escape(text.trim()),
                c.lines,
                if c.lines == 1 { "" } else { "s" },
                if c.new_side {
                    "changed or added"
                } else {
                    "removed"
                },
                if c.in_code > 0 {
                    format!(", {} in Catala code", c.in_code)
                } else {
                    String::new()
                },
                line = c.line,
            );
        }
        h.push_str(if folded {
            "</ul></details>\n"
        } else {
            "</ul>\n"
        });
    }
}

/// One side of a row: the line with its number, anchor and mark (`!` on an unchanged line
/// an error names), or a filler where this side has no line.
fn line_div(out: &mut String, side: &str, line: Option<usize>, lines: &[&str], look: Look) {
    let Some(n) = line else {
        out.push_str("<div class=\"r fill\"></div>\n");
        return;
    };
    let text = lines.get(n - 1).copied().unwrap_or("");
    let (class, mark) = match look.kind {
        RowKind::Same if look.error => ("", "!"),
        RowKind::Same => ("", " "),
        RowKind::Changed => (" chg", "~"),
        RowKind::Removed => (" del", "−"),
        RowKind::Added => (" add", "+"),
    };
    let _ = writeln!(
        out,
        "<div class=\"r{class}{}{}{}\" id=\"{side}-L{n}\"><span class=\"n\">{n}</span>\
         <span class=\"m\">{mark}</span><span class=\"t\">{}</span></div>",
        if text.starts_with('#') { " h" } else { "" },
        if look.changed_heading { " hc" } else { "" },
        if look.error { " at" } else { "" },
        escape(text)
    );
}

/// How one side of a row looks.
#[derive(Clone, Copy)]
struct Look {
    kind: RowKind,
    /// A heading in the list of changed law headings.
    changed_heading: bool,
    /// A line an error of a region names.
    error: bool,
}

#[cfg(test)]
mod tests {
    use super::{headings, LawText, MarkedLines};

    #[test]
    fn headings_are_the_hash_lines_outside_code() {
        let text = [
            "# Title",
            "text",
            "```catala",
            "# a comment",
            "x",
            "```",
            "## Art 2",
        ];
        let h = headings(&text);
        assert_eq!(h[1], (Some(1), false));
        // The comment inside code is not a heading; the code lines are in code.
        assert_eq!(h[3], (Some(1), true));
        assert_eq!(h[4], (Some(1), true));
        assert_eq!(h[5], (Some(1), false));
        assert_eq!(h[6], (Some(7), false));
    }

    #[test]
    fn a_long_file_shows_the_changes_with_context_and_counts_what_it_omits() {
        // 1,000 lines, line 500 changed: rows 497–503 shown, 496 and 497 lines omitted.
        let old: Vec<String> = (1..=1000).map(|i| format!("line {i}")).collect();
        let mut new = old.clone();
        new[499] = "line <500>".into();
        let (old, new) = (old.join("\n"), new.join("\n"));
        let law = LawText::new(&old, &new, ("a", "b"));
        let mut h = String::new();
        law.write(&mut h, &MarkedLines::default(), "");
        assert!(
            h.contains("⋯ 496 unchanged lines omitted (OLD 1–496, NEW 1–496)"),
            "{h}"
        );
        assert!(h.contains("⋯ 497 unchanged lines omitted (OLD 504–1000, NEW 504–1000)"));
        assert!(h.contains("id=\"new-L500\"><span class=\"n\">500</span><span class=\"m\">~</span><span class=\"t\">line &lt;500&gt;</span>"));
        assert!(h.contains("id=\"new-L497\"") && !h.contains("id=\"new-L496\""));
        // A marked line far from the change stays visible.
        let mut marked = MarkedLines::default();
        marked.new.insert(100);
        let mut h = String::new();
        law.write(&mut h, &marked, "");
        assert!(h.contains("id=\"new-L100\"") && h.contains("id=\"old-L103\""));
    }
}
