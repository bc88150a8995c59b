//! The outline of a literate program: the markdown headings outside code blocks, in reading
//! order, and for each rule the heading (article) it sits under, with counts of applied,
//! considered and unreached items per heading, alone and with its subheadings.

use super::{CoverageReport, Tally};

/// A markdown heading of a source file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Heading {
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// Number of `#`.
    pub level: usize,
    pub title: String,
    /// The titles of the enclosing headings, outermost first, ending with this one.
    pub trail: Vec<String>,
    /// Items directly under this heading (before the next heading).
    pub own: Tally,
    /// Items under it and its subheadings.
    pub cumulative: Tally,
}

/// Headings of every file and the heading of each item.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Outline {
    pub headings: Vec<Heading>,
    /// Per item of the report, the index of its heading.
    pub item_heading: Vec<Option<usize>>,
}

/// Whether `line` opens or closes a fenced block (three backquotes or tildes).
pub(crate) fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// `Some((level, title))` for a markdown ATX heading line.
pub(crate) fn heading_of(line: &str) -> Option<(usize, String)> {
    let t = line.trim_start();
    let level = t.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &t[level..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim().to_string()))
}

/// The headings of one text, outside fenced blocks: (line, level, title).
pub(crate) fn headings_of(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if is_fence(line) {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            if let Some((level, title)) = heading_of(line) {
                out.push((i + 1, level, title));
            }
        }
    }
    out
}

/// The outline of `report`: headings of each source in order, items attributed to the last
/// heading before them in their file, counts rolled up to enclosing headings.
pub(crate) fn outline(report: &CoverageReport) -> Outline {
    let mut headings: Vec<Heading> = Vec::new();
    let mut first_of_file: Vec<usize> = Vec::new();
    for (f, source) in report.sources.iter().enumerate() {
        first_of_file.push(headings.len());
        let mut stack: Vec<(usize, String)> = Vec::new();
        for (line, level, title) in headings_of(&source.text) {
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, title.clone()));
            headings.push(Heading {
                file: f,
                line,
                level,
                title,
                trail: stack.iter().map(|(_, t)| t.clone()).collect(),
                own: Tally::default(),
                cumulative: Tally::default(),
            });
        }
    }
    first_of_file.push(headings.len());
    let mut item_heading = Vec::with_capacity(report.items.len());
    for item in &report.items {
        let range = first_of_file
            .get(item.file)
            .copied()
            .unwrap_or(headings.len())
            ..first_of_file
                .get(item.file + 1)
                .copied()
                .unwrap_or(headings.len());
        let h = range.rev().find(|&h| headings[h].line <= item.start_line);
        if let Some(h) = h {
            headings[h].own.add(item.status);
        }
        item_heading.push(h);
    }
    // Roll up: a heading's cumulative counts are its own and those of the headings after it
    // (in its file) of a deeper level, up to the next heading of its level or shallower.
    for h in 0..headings.len() {
        let mut c = headings[h].own;
        for k in h + 1..headings.len() {
            if headings[k].file != headings[h].file || headings[k].level <= headings[h].level {
                break;
            }
            let own = headings[k].own;
            c.add_tally(&own);
        }
        headings[h].cumulative = c;
    }
    Outline {
        headings,
        item_heading,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_outside_code_blocks_only() {
        let text = "# A\ntext\n```catala\n# not a heading\n```\n## B ##\n#hashtag\n";
        assert_eq!(
            headings_of(text),
            vec![(1, 1, "A".to_string()), (6, 2, "B".to_string())]
        );
    }
}
