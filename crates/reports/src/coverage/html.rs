//! The coverage page: one self-contained HTML file (inline style, no script, no network) with
//! the outline of the law's headings in a side bar, a table of rules applied per heading, the
//! problems found, then the law text itself with every code line of a rule, definition,
//! exception or assertion coloured by its status (applied green, considered amber, not reached
//! red), a badge on the item's first line linking to a test that applied it, problem marks at
//! their positions, and at the end the inputs of the tests the page links to.

use super::headings::{heading_of, is_fence, outline, Outline};
use super::{CoverageReport, Status, Tally};
use std::collections::HashMap;
use std::fmt::Write;

const STYLE: &str = "
body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#1d1d1f;background:#fff}
nav{position:fixed;top:0;left:0;bottom:0;width:300px;overflow:auto;background:#f4f4f6;border-right:1px solid #ddd;padding:8px 10px;box-sizing:border-box;font-size:12.5px}
nav h2{font-size:15px;margin:4px 0 8px}
nav ul{list-style:none;margin:0;padding:0}
nav li{margin:1px 0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
nav a{color:#1d3d7a;text-decoration:none}
nav .k{display:inline-block;min-width:44px;font-variant-numeric:tabular-nums;color:#333}
main{margin-left:300px;padding:12px 24px;max-width:1100px}
h1{font-size:22px;margin:6px 0}
.legend span{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:3px}
.a{background:#dff3e0}.c{background:#fff0c7}.u{background:#fbd9d9}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:9px;background:#3b9b48;vertical-align:middle}
.bar.r{background:#d9534f}
.src{border-top:3px solid #888;margin-top:22px}
.law p{margin:6px 0;max-width:80ch}
pre.code{margin:6px 0;padding:4px 0;background:#fafafa;border:1px solid #e2e2e2;font:12.5px/1.4 ui-monospace,monospace;overflow-x:auto}
.l{white-space:pre;padding-right:8px}
.l .n{display:inline-block;width:52px;color:#999;text-align:right;margin-right:10px;user-select:none}
.b{font:11px system-ui,sans-serif;margin-left:12px;padding:0 6px;border-radius:8px;border:1px solid #999;background:#fff}
.p{font:11px system-ui,sans-serif;margin-left:8px;padding:0 6px;border-radius:8px;background:#b00020;color:#fff;text-decoration:none}
.prob{border-left:4px solid #b00020;padding:2px 8px;margin:6px 0;background:#fff5f5}
.t{border:1px solid #ddd;margin:8px 0;padding:4px 10px}
.t pre{font-size:12px;white-space:pre-wrap;margin:4px 0}
:target{outline:2px solid #1d3d7a}
";

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

fn class(s: Status) -> &'static str {
    match s {
        Status::Applied => "a",
        Status::Considered => "c",
        Status::NotReached => "u",
    }
}

fn runs(n: u64) -> String {
    if n == 1 {
        "1 run".to_string()
    } else {
        format!("{n} runs")
    }
}

fn percent(t: &Tally) -> f64 {
    if t.total() == 0 {
        0.0
    } else {
        100.0 * t.applied as f64 / t.total() as f64
    }
}

/// Where links point: all on one page, or split into an index page (summary, tables,
/// problems, tests) and one page per source file.
struct Links {
    /// File name of the index page ("" on a single page).
    index: String,
    /// `Some(stem)`: source `f` is on page `{stem}-{f}.html`.
    split: Option<String>,
}

impl Links {
    fn single() -> Links {
        Links {
            index: String::new(),
            split: None,
        }
    }
    fn source(&self, f: usize) -> String {
        match &self.split {
            Some(stem) => format!("{stem}-{f}.html"),
            None => String::new(),
        }
    }
}

/// Pages larger than this are split: an index page and one page per source file.
pub(crate) const MAX_PAGE_BYTES: usize = 10 * 1024 * 1024;

/// The page.
pub(crate) fn to_html(report: &CoverageReport) -> String {
    page(report, &Links::single(), None)
}

/// The coverage as `(file name, HTML)` pages: one page `index` (a file name such as
/// `law.html`) when it stays under [`MAX_PAGE_BYTES`], otherwise that index (outline, tables,
/// problems, tests) and one page `{stem}-{k}.html` per source file (`stem`: `index` without
/// its extension), linking to each other.
pub fn to_pages(report: &CoverageReport, index: &str) -> Vec<(String, String)> {
    let one = to_html(report);
    if one.len() <= MAX_PAGE_BYTES {
        return vec![(index.to_string(), one)];
    }
    let stem = index.rsplit_once('.').map_or(index, |(s, _)| s);
    let links = Links {
        index: index.to_string(),
        split: Some(stem.to_string()),
    };
    let mut pages = vec![(links.index.clone(), page(report, &links, None))];
    for f in 0..report.sources.len() {
        pages.push((links.source(f), page(report, &links, Some(f))));
    }
    pages
}

/// An index page (`only_source` `None`; every source too when not split) or one source's page.
fn page(report: &CoverageReport, links: &Links, only_source: Option<usize>) -> String {
    let outline = outline(report);
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Law coverage: {}</title><style>{STYLE}</style></head><body>\n",
        esc(&report.title)
    );
    write_nav(&mut h, &outline, links);
    h.push_str("<main>\n");
    match only_source {
        Some(f) => {
            let _ = writeln!(
                h,
                "<p><a href=\"{}\">Summary, problems and tests</a></p>",
                links.index
            );
            write_source(&mut h, report, &outline, f, links);
        }
        None => {
            write_summary(&mut h, report);
            write_table(&mut h, report, &outline, links);
            write_problems(&mut h, report, links);
            if links.split.is_none() {
                for f in 0..report.sources.len() {
                    write_source(&mut h, report, &outline, f, links);
                }
            } else {
                h.push_str("<section id=\"sources\"><h2>Sources (one page each)</h2><ul>");
                for (f, src) in report.sources.iter().enumerate() {
                    let _ = write!(
                        h,
                        "<li><a href=\"{}\">{}</a></li>",
                        links.source(f),
                        esc(&src.name)
                    );
                }
                h.push_str("</ul></section>\n");
            }
            write_tests(&mut h, report);
        }
    }
    h.push_str("</main></body></html>\n");
    h
}

fn write_nav(h: &mut String, outline: &Outline, links: &Links) {
    h.push_str("<nav id=\"outline\"><h2>Outline</h2><ul>\n");
    for (k, hd) in outline.headings.iter().enumerate() {
        let t = &hd.cumulative;
        let counts = if t.total() > 0 {
            format!(
                "<span class=\"k {}\" title=\"rules applied / rules\">{}/{}</span> ",
                if t.applied == t.total() {
                    "a"
                } else if t.applied == 0 {
                    "u"
                } else {
                    "c"
                },
                t.applied,
                t.total()
            )
        } else {
            "<span class=\"k\"></span> ".to_string()
        };
        let _ = writeln!(
            h,
            "<li style=\"padding-left:{}px\">{counts}<a href=\"{}#h{k}\">{}</a></li>",
            (hd.level.saturating_sub(1)) * 10,
            links.source(hd.file),
            esc(&hd.title)
        );
    }
    h.push_str("</ul></nav>\n");
}

fn write_summary(h: &mut String, report: &CoverageReport) {
    let t = report.tally();
    let _ = write!(
        h,
        "<h1>Law coverage: {}</h1>\n<p id=\"summary\">{} tests{}. Of {} rules, definitions, exceptions and assertions: <b>{} applied</b> ({:.1}%), {} considered but never applicable, {} never reached. {} distinct problem{}.</p>\n",
        esc(&report.title),
        report.total_tests,
        if report.excluded_tests > 0 {
            format!(
                " ({} left out: they fail an assertion of the scope, outside its input space)",
                report.excluded_tests
            )
        } else {
            String::new()
        },
        t.total(),
        t.applied,
        percent(&t),
        t.considered,
        t.not_reached,
        report.problems.len(),
        if report.problems.len() == 1 { "" } else { "s" }
    );
    h.push_str("<p class=\"legend\"><span class=\"a\">applied: a run used it</span><span class=\"c\">considered: reached, never applicable (or overridden)</span><span class=\"u\">never reached</span> Badges link to a test that applied the rule; red marks to a problem.</p>\n");
}

fn write_table(h: &mut String, report: &CoverageReport, outline: &Outline, links: &Links) {
    h.push_str("<section id=\"table\"><h2>Rules applied per heading</h2><table><tr><th>heading</th><th>file</th><th>applied / total</th><th>considered</th><th>never reached</th><th></th></tr>\n");
    for (k, hd) in outline.headings.iter().enumerate() {
        let t = &hd.own;
        if t.total() == 0 {
            continue;
        }
        let file = report
            .sources
            .get(hd.file)
            .map(|s| s.name.as_str())
            .unwrap_or("");
        let _ = writeln!(
            h,
            "<tr><td><a href=\"{}#h{k}\">{}</a></td><td>{}:{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td><span class=\"bar\" style=\"width:{}px\"></span><span class=\"bar r\" style=\"width:{}px\"></span></td></tr>",
            links.source(hd.file),
            esc(&hd.trail.join(" › ")),
            esc(file),
            hd.line,
            t.applied,
            t.total(),
            t.considered,
            t.not_reached,
            (t.applied * 80).div_ceil(t.total()),
            (t.not_reached * 80) / t.total()
        );
    }
    h.push_str("</table></section>\n");
}

fn write_problems(h: &mut String, report: &CoverageReport, links: &Links) {
    let _ = writeln!(
        h,
        "<section id=\"problems\"><h2>Problems ({})</h2>",
        report.problems.len()
    );
    if report.problems.is_empty() {
        h.push_str("<p>No conflict, empty default or runtime error in any run.</p>\n");
    }
    for (k, p) in report.problems.iter().enumerate() {
        let places: Vec<String> = p
            .places
            .iter()
            .map(|pl| {
                let name = report
                    .sources
                    .get(pl.file)
                    .map(|s| s.name.as_str())
                    .unwrap_or("?");
                format!(
                    "<a href=\"{}#f{}-{}\">{}:{}.{}</a>",
                    links.source(pl.file),
                    pl.file,
                    pl.start_line,
                    esc(name),
                    pl.start_line,
                    pl.start_col
                )
            })
            .collect();
        let _ = writeln!(
            h,
            "<div class=\"prob\" id=\"p{k}\"><b>{}</b>: {} At {}. In {} test{}, e.g. <a href=\"#t{}\">test {}</a>.</div>",
            esc(&p.kind),
            esc(&p.message),
            places.join(", "),
            p.tests,
            if p.tests == 1 { "" } else { "s" },
            p.example_test,
            p.example_test
        );
    }
    h.push_str("</section>\n");
}

/// Line of source `f` → the item covering it (the innermost: the one starting last).
fn line_items(report: &CoverageReport, f: usize) -> HashMap<usize, usize> {
    let mut line_item: HashMap<usize, usize> = HashMap::new();
    for (i, it) in report.items.iter().enumerate() {
        if it.file != f {
            continue;
        }
        for l in it.start_line..=it.end_line.max(it.start_line) {
            let replace = match line_item.get(&l) {
                Some(&j) => report.items[j].start_line <= it.start_line,
                None => true,
            };
            if replace {
                line_item.insert(l, i);
            }
        }
    }
    line_item
}

/// Line of source `f` → the problems (by index) with a place starting on it.
fn problem_marks(report: &CoverageReport, f: usize) -> HashMap<usize, Vec<usize>> {
    let mut marks: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, p) in report.problems.iter().enumerate() {
        for pl in &p.places {
            if pl.file == f {
                let v = marks.entry(pl.start_line).or_default();
                if !v.contains(&k) {
                    v.push(k);
                }
            }
        }
    }
    marks
}

/// What the runs did with an item, as its badge says it.
fn item_status_text(it: &super::Item) -> String {
    match (it.status, it.kind) {
        (Status::Applied, super::ItemKind::Assertion) if it.runs_failed > 0 => {
            format!("checked, failed in {}", runs(it.runs_failed))
        }
        (Status::Applied, super::ItemKind::Assertion) => {
            format!("checked in {}", runs(it.runs_applied))
        }
        (Status::Applied, _) => format!("applied in {}", runs(it.runs_applied)),
        (Status::Considered, _) => {
            format!("considered in {}, never applied", runs(it.runs_reached))
        }
        (Status::NotReached, _) => "never reached".to_string(),
    }
}

fn write_source(
    h: &mut String,
    report: &CoverageReport,
    outline: &Outline,
    f: usize,
    links: &Links,
) {
    let source = &report.sources[f];
    let _ = writeln!(
        h,
        "<section class=\"src\"><h2>{}</h2><div class=\"law\">",
        esc(&source.name)
    );
    let line_item = line_items(report, f);
    let marks = problem_marks(report, f);
    let mut heading_ids: HashMap<usize, usize> = HashMap::new();
    for (k, hd) in outline.headings.iter().enumerate() {
        if hd.file == f {
            heading_ids.insert(hd.line, k);
        }
    }
    let mut in_code = false;
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |h: &mut String, p: &mut Vec<&str>| {
        if !p.is_empty() {
            let _ = writeln!(h, "<p>{}</p>", esc(&p.join("\n")));
            p.clear();
        }
    };
    for (i, line) in source.text.lines().enumerate() {
        let n = i + 1;
        if is_fence(line) {
            if in_code {
                h.push_str("</pre>\n");
            } else {
                flush(h, &mut paragraph);
                h.push_str("<pre class=\"code\">");
            }
            in_code = !in_code;
            continue;
        }
        if in_code {
            let item = line_item.get(&n).map(|&i| &report.items[i]);
            let cls = item.map(|it| class(it.status)).unwrap_or("");
            let _ = write!(
                h,
                "<div class=\"l {cls}\" id=\"f{f}-{n}\"><span class=\"n\">{n}</span>{}",
                esc(line)
            );
            if let Some(it) = item.filter(|it| it.start_line == n) {
                let what = item_status_text(it);
                let link = it
                    .example_test
                    .map(|t| format!(" · <a href=\"{}#t{t}\">test {t}</a>", links.index))
                    .unwrap_or_default();
                let _ = write!(
                    h,
                    "<span class=\"b {cls}\">{} {}{link}</span>",
                    it.kind.as_str(),
                    what
                );
            }
            for k in marks.get(&n).into_iter().flatten() {
                let _ = write!(
                    h,
                    "<a class=\"p\" href=\"{}#p{k}\">⚠ {}</a>",
                    links.index,
                    esc(&report.problems[*k].kind)
                );
            }
            h.push_str("</div>");
            continue;
        }
        if let Some((level, title)) = heading_of(line) {
            flush(h, &mut paragraph);
            let lvl = (level + 1).min(6);
            let id = heading_ids
                .get(&n)
                .map(|k| format!(" id=\"h{k}\""))
                .unwrap_or_default();
            let _ = writeln!(h, "<h{lvl}{id}>{}</h{lvl}>", esc(&title));
        } else if line.trim().is_empty() {
            flush(h, &mut paragraph);
        } else {
            paragraph.push(line);
        }
    }
    flush(h, &mut paragraph);
    if in_code {
        h.push_str("</pre>\n");
    }
    h.push_str("</div></section>\n");
}

fn write_tests(h: &mut String, report: &CoverageReport) {
    let _ = writeln!(
        h,
        "<section id=\"tests\"><h2>Tests linked from this page ({} of {})</h2>",
        report.tests.len(),
        report.total_tests
    );
    for t in &report.tests {
        let inputs = serde_json::to_string_pretty(&t.inputs).unwrap_or_default();
        let _ = writeln!(
            h,
            "<div class=\"t\" id=\"t{}\"><b>{}</b> ({})<pre>{}</pre></div>",
            t.number,
            esc(&t.name),
            esc(&t.outcome),
            esc(&inputs)
        );
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn lines_are_coloured_by_status_and_link_their_test() {
        let report = CoverageReport {
            title: "t".into(),
            sources: vec![SourceText {
                name: "f.catala_en".into(),
                text:
                    "# Art. 1\n\nLaw <text>.\n\n```catala\nscope S:\n  definition x equals 1\n```\n"
                        .into(),
            }],
            items: vec![Item {
                kind: ItemKind::Definition,
                label: "x".into(),
                file: 0,
                start_line: 7,
                end_line: 7,
                status: Status::Applied,
                runs_applied: 2,
                runs_reached: 2,
                runs_failed: 0,
                example_test: Some(1),
            }],
            problems: vec![],
            tests: vec![TestRef {
                number: 1,
                name: "scope S".into(),
                outcome: "ok".into(),
                inputs: serde_json::json!({}),
            }],
            total_tests: 2,
            excluded_tests: 0,
        };
        let page = to_html(&report);
        assert!(page.contains("<p>Law &lt;text&gt;.</p>"));
        assert!(page.contains("<h2 id=\"h0\">Art. 1</h2>"));
        assert!(page.contains("<div class=\"l a\" id=\"f0-7\">"));
        assert!(page.contains("href=\"#t1\">test 1</a>"));
        assert!(page.contains("id=\"t1\""));
        assert!(page.contains("<a href=\"#h0\">Art. 1</a>"));
        // The scope line belongs to no item.
        assert!(page.contains("<div class=\"l \" id=\"f0-6\">"));
        // Small: one page, the same.
        let pages = to_pages(&report, "cov.html");
        assert_eq!(pages, vec![("cov.html".to_string(), page)]);
    }

    #[test]
    fn a_page_over_the_limit_is_split_per_source() {
        let long_law = "Law text line.\n".repeat(MAX_PAGE_BYTES / 15 + 10);
        let report = CoverageReport {
            title: "big".into(),
            sources: vec![
                SourceText {
                    name: "a.catala_en".into(),
                    text: format!(
                        "# A\n\n{long_law}\n```catala\nscope S:\n  definition x equals 1\n```\n"
                    ),
                },
                SourceText {
                    name: "b.catala_en".into(),
                    text: "# B\n\nShort.\n".into(),
                },
            ],
            items: vec![Item {
                kind: ItemKind::Definition,
                label: "x".into(),
                file: 0,
                start_line: long_law.lines().count() + 6,
                end_line: long_law.lines().count() + 6,
                status: Status::Applied,
                runs_applied: 1,
                runs_reached: 1,
                runs_failed: 0,
                example_test: Some(1),
            }],
            problems: vec![],
            tests: vec![TestRef {
                number: 1,
                name: "t".into(),
                outcome: "ok".into(),
                inputs: serde_json::json!({"x": 1}),
            }],
            total_tests: 1,
            excluded_tests: 0,
        };
        let pages = to_pages(&report, "cov.html");
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["cov.html", "cov-0.html", "cov-1.html"]);
        let (index, first, second) = (&pages[0].1, &pages[1].1, &pages[2].1);
        assert!(index.len() < 100_000);
        assert!(index.contains("id=\"t1\""));
        assert!(index.contains("<a href=\"cov-0.html#h0\">A</a>"));
        assert!(index.contains("<a href=\"cov-1.html\">b.catala_en</a>"));
        // The badge on the source page leads back to the test on the index page.
        assert!(first.contains("href=\"cov.html#t1\">test 1</a>"));
        assert!(second.contains("<h2 id=\"h1\">B</h2>"));
        assert!(!second.contains("Law text line."));
    }
}
