//! `lexprobe diff --report FILE`: one self-contained HTML page (inline CSS, no script, nothing
//! fetched) for a reader who was not at the terminal. At the top, the verdict and what it
//! covers (the bounds of an equivalence, or what the exploration left out), both versions'
//! labels, the scope and the figures; then each region where the versions differ — what
//! differs, its condition over the named inputs, its number of path pairs, an example with
//! both versions' outputs or errors, the range of each numeric difference — linked to the
//! lines NEW changed and to the positions of the versions' errors; then the law text of both
//! versions aligned line by line ([`law_text`]). Everything taken from the programs is
//! escaped.

mod law_text;

use super::diff::DiffSummary;
use super::html_report::{escape, STYLE};
use crate::catala::Loaded;
use crate::diff::report::Versions;
use catala_eval::Value;
use catala_syntax::SourceFile;
use concolic::difference::{DifferenceResult, OutputRange, Region, Verdict, VersionOutcome};
use law_text::{LawText, MarkedLines};
use std::fmt::Write as _;
use std::path::Path;

/// The condition cases a region shows at once; the next ones up to [`CASES_LISTED`] are
/// folded (all of them with `--format json`).
const CASES_SHOWN: usize = 8;
const CASES_LISTED: usize = 200;

/// The most links to changed lines a region shows.
const CHANGED_LINKS_SHOWN: usize = 40;

/// The most rows shown of each file other than the main ones.
const OTHER_FILE_ROWS: usize = 2000;

/// The page's own style, after the concolic report's.
const DIFF_STYLE: &str = "body{max-width:min(110em,96%)}\
.verdict{font-size:1.25em;font-weight:bold;padding:.4em .8em;border-radius:4px;display:inline-block}\
.verdict.differs{background:#fde0dd;color:#9f3a38}.verdict.equivalent{background:#e5f5e0;\
color:#2c662d}.verdict.unknown{background:#fff7d6;color:#7a5b00}\
table.example{width:auto}table.example th{width:4em}table.versions{width:auto}\
.sides{display:flex;gap:1em;align-items:flex-start}\
.side{flex:1 1 0;min-width:0;border:1px solid #ddd;font-family:monospace;font-size:.85em}\
.side .title{background:#f3f3f3;padding:.3em .5em;font-family:system-ui,sans-serif;\
font-weight:bold;border-bottom:1px solid #ddd;white-space:nowrap;overflow:hidden;\
text-overflow:ellipsis}.side .lines{overflow-x:auto}.side .rows{width:max-content;\
min-width:100%}\
.r{height:1.4em;line-height:1.4em;white-space:pre;display:flex}\
.r .n{display:inline-block;min-width:4.5em;text-align:right;padding-right:.6em;color:#888;\
user-select:none;flex:none}.r .m{display:inline-block;width:1.4em;text-align:center;\
font-weight:bold;flex:none}.r .t{flex:none;padding-right:1em}\
.r.chg{background:#fff3c4}.r.del{background:#fde0dd}.r.add{background:#e5f5e0}\
.r.fill{background:repeating-linear-gradient(45deg,#fafafa,#fafafa 4px,#f0f0f0 4px,\
#f0f0f0 8px)}.r.gap{background:#eef2f7;color:#445;font-family:system-ui,sans-serif;\
font-style:italic;padding-left:1em}.r.h .t{font-weight:bold}\
.r.at .n,.legend .errpos{background:#9f3a38;color:#fff}.r.hc{box-shadow:inset 4px 0 0 #3b6fb6}.r:target{outline:2px solid #e6a700;outline-offset:-2px}\
details summary{cursor:pointer;color:#9f3a38;margin:.3em 0}.legend span{display:inline-block;padding:0 .5em;margin-right:1em;font-family:monospace}\
h1,table.versions code,table.example td{overflow-wrap:anywhere}\
@media (max-width:60em){.sides{flex-direction:column;align-items:stretch}.side{flex:none;\
width:auto}.r.fill{display:none}}";

/// Writes the page of a comparison to `path`.
pub(crate) fn write_diff_report(
    path: &Path,
    summary: &DiffSummary<'_>,
    versions: &Versions<'_>,
    result: &DifferenceResult,
) -> Result<(), String> {
    super::write_file(path, &to_html(summary, versions, result))
}

/// The text of a version's main file.
fn main_text(loaded: &Loaded) -> &str {
    loaded.sources.files.first().map_or("", |f| f.text.as_str())
}

/// The page.
pub(crate) fn to_html(
    summary: &DiffSummary<'_>,
    versions: &Versions<'_>,
    result: &DifferenceResult,
) -> String {
    let title = format!(
        "lexprobe diff: scope {} of {} and {}",
        summary.scope, summary.old_label, summary.new_label
    );
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>{STYLE}{DIFF_STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(&title)
    );
    header(&mut h, summary, result);
    let page = RegionPage { versions };
    // The lines the regions' errors name stay visible in the law text.
    let mut marked = MarkedLines::default();
    for r in &result.regions {
        marked.old.extend(page.error_lines(false, &r.example.old));
        marked.new.extend(page.error_lines(true, &r.example.new));
    }
    h.push_str("<h2 id=\"regions\">Regions where the versions differ</h2>\n");
    if result.regions.is_empty() {
        let _ = writeln!(
            h,
            "<p>No region: {}</p>",
            match result.verdict {
                Verdict::Equivalent => "no input makes the versions differ.",
                _ => "no difference found on the path pairs explored.",
            }
        );
    }
    for (k, region) in result.regions.iter().enumerate() {
        let cases = summary
            .regions
            .get(k)
            .map_or(&[][..], |s| s.condition_cases.as_slice());
        page.region(&mut h, k + 1, region, cases, summary.changed);
    }
    let law = LawText::new(
        main_text(versions.old),
        main_text(versions.new),
        (&versions.old_label, &versions.new_label),
    );
    law.write(
        &mut h,
        &marked,
        "<h2 id=\"law\">Law text</h2>\n<p>The main files of both versions.</p>\n",
    );
    other_files(&mut h, versions);
    h.push_str("</body>\n</html>\n");
    h
}

/// The verdict, what it covers, the versions and the figures.
fn header(h: &mut String, s: &DiffSummary<'_>, result: &DifferenceResult) {
    let n = result.regions.len();
    let verdict = match result.verdict {
        Verdict::Differs => format!(
            "differs — {n} region{} where some output or the outcome differs",
            if n == 1 { "" } else { "s" }
        ),
        Verdict::Equivalent => "equivalent — no input makes the versions differ".into(),
        Verdict::Unknown => {
            "unknown — no difference found, but the exploration is not complete".into()
        }
    };
    let _ = writeln!(
        h,
        "<p class=\"verdict {}\">Verdict: {}</p>",
        result.verdict.as_str(),
        escape(&verdict)
    );
    if result.complete {
        let covers = if result.verdict == Verdict::Differs {
            "Every region is found: every path pair within the bounds was explored"
        } else {
            "Proved for every path pair within the bounds"
        };
        let _ = writeln!(
            h,
            "<p class=\"covers\">{covers}: {}.</p>",
            escape(&result.bounds.describe())
        );
    } else {
        let _ = writeln!(
            h,
            "<p class=\"covers\">The exploration is not complete{}:</p>\n<ul class=\"note\">",
            if n > 0 {
                " (other regions may exist)"
            } else {
                ""
            }
        );
        for why in &result.incomplete {
            let _ = writeln!(h, "<li>{}</li>", escape(why));
        }
        h.push_str("</ul>\n");
    }
    let _ = writeln!(
        h,
        "<table class=\"versions\"><tr><th>OLD</th><td><code>{}</code></td></tr>\
         <tr><th>NEW</th><td><code>{}</code></td></tr><tr><th>scope</th><td><code>{}</code>\
         </td></tr></table>",
        escape(s.old_label),
        escape(s.new_label),
        escape(s.scope)
    );
    let st = &result.stats;
    let differing: usize = result.regions.iter().map(|r| r.paths.len()).sum();
    let _ = writeln!(
        h,
        "<p class=\"figures\"><span>{} path pair{} explored</span><span>{} compared, {differing} \
         differing</span><span>{:.2} s</span></p>",
        st.path_pairs,
        if st.path_pairs == 1 { "" } else { "s" },
        st.judged_pairs + differing,
        s.elapsed_s
    );
    if !result.notes.is_empty() {
        h.push_str("<ul class=\"note\">\n");
        for note in &result.notes {
            let _ = writeln!(h, "<li>Note: {}</li>", escape(note));
        }
        h.push_str("</ul>\n");
    }
}

/// Writes the regions, with the versions' programs to print values.
struct RegionPage<'a> {
    versions: &'a Versions<'a>,
}

impl RegionPage<'_> {
    fn loaded(&self, new: bool) -> &Loaded {
        if new {
            self.versions.new
        } else {
            self.versions.old
        }
    }

    fn print(&self, new: bool, v: &Value) -> String {
        self.versions.print(new, v)
    }

    /// The lines of the version's main file its error names.
    fn error_lines(&self, new: bool, o: &VersionOutcome) -> Vec<usize> {
        match o {
            VersionOutcome::Failed(f) => f
                .spans
                .iter()
                .filter(|s| s.file.0 == 0)
                .filter_map(|s| self.loaded(new).sources.line_col(*s))
                .map(|(line, _)| line)
                .collect(),
            VersionOutcome::Outputs(_) => Vec::new(),
        }
    }

    fn region(
        &self,
        h: &mut String,
        k: usize,
        region: &Region,
        cases: &[String],
        changed: &[(usize, usize)],
    ) {
        let paths = region.paths.len();
        let _ = writeln!(
            h,
            "<div class=\"problem region\" id=\"region-{k}\">\n<p><span class=\"kind\">Region \
             {k}: {}</span> — {paths} path pair{}</p>",
            escape(&crate::diff::report::changes_text(&region.changes)),
            if paths == 1 { "" } else { "s" }
        );
        h.push_str("<p>The versions differ when:</p>\n");
        for c in cases.iter().take(CASES_SHOWN) {
            let _ = writeln!(h, "<div class=\"condition\">{}</div>", escape(c));
        }
        if cases.len() > CASES_SHOWN {
            let _ = writeln!(
                h,
                "<details><summary>{} more cases</summary>",
                cases.len().min(CASES_LISTED) - CASES_SHOWN
            );
            for c in cases.iter().take(CASES_LISTED).skip(CASES_SHOWN) {
                let _ = writeln!(h, "<div class=\"condition\">{}</div>", escape(c));
            }
            h.push_str("</details>\n");
        }
        if cases.len() > CASES_LISTED {
            let _ = writeln!(
                h,
                "<p class=\"note\">… and {} more cases (all of them with <code>--format \
                 json</code>).</p>",
                cases.len() - CASES_LISTED
            );
        }
        self.example(h, region);
        for r in &region.ranges {
            let _ = writeln!(
                h,
                "<p class=\"range\">Difference NEW − OLD: {}</p>",
                escape(&self.range_text(r))
            );
        }
        changed_links(h, changed);
        h.push_str("</div>\n");
    }

    fn example(&self, h: &mut String, region: &Region) {
        let e = &region.example;
        let inputs = |new: bool, inputs: &[(String, Option<Value>)]| {
            inputs
                .iter()
                .map(|(n, v)| match v {
                    Some(v) => format!(
                        "<code>{} = {}</code>",
                        escape(n),
                        escape(&self.print(new, v))
                    ),
                    None => format!("<code>{}</code> not given", escape(n)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (old_in, new_in) = (inputs(false, &e.old_inputs), inputs(true, &e.new_inputs));
        let _ = writeln!(h, "<p>Example: {old_in}</p>");
        if new_in != old_in {
            let _ = writeln!(h, "<p>NEW's inputs: {new_in}</p>");
        }
        let _ = writeln!(
            h,
            "<table class=\"example\"><tr><th>OLD</th><td>{}</td></tr><tr><th>NEW</th>\
             <td>{}</td></tr></table>",
            self.outcome(false, &e.old),
            self.outcome(true, &e.new)
        );
    }

    /// A version's outputs, or its error with links to the positions it names.
    fn outcome(&self, new: bool, o: &VersionOutcome) -> String {
        match o {
            VersionOutcome::Outputs(outs) => outs
                .iter()
                .map(|(n, v)| {
                    format!(
                        "<code>{} = {}</code>",
                        escape(n),
                        escape(&self.print(new, v))
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
            VersionOutcome::Failed(f) => {
                let loaded = self.loaded(new);
                let side = if new { "new" } else { "old" };
                let at: Vec<String> = f
                    .spans
                    .iter()
                    .filter_map(|s| {
                        let (line, col) = loaded.sources.line_col(*s)?;
                        let file = &loaded.sources.file(s.file).display_name;
                        let text = escape(&format!("{file}:{line}:{col}"));
                        Some(if s.file.0 == 0 {
                            format!("<a class=\"at\" href=\"#{side}-L{line}\">{text}</a>")
                        } else {
                            text
                        })
                    })
                    .collect();
                format!(
                    "<span class=\"err\">{}</span>: {}{}",
                    escape(&f.kind),
                    escape(f.message.trim_end_matches('.')),
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" (at {})", at.join(", "))
                    }
                )
            }
        }
    }

    /// `amount: +$300.00 everywhere in the region` or `amount: from +$10.00 to +$300.00`, as
    /// the text output writes it.
    fn range_text(&self, r: &OutputRange) -> String {
        self.versions.range_text(r)
    }
}

/// The files other than the main ones (included or used modules), matched by file name: those
/// that differ aligned as the main files are, the others listed.
fn other_files(h: &mut String, versions: &Versions<'_>) {
    // A file's directory and name (`aides_logement/prologue.catala_fr`).
    let name = |f: &&SourceFile| {
        let path = lexically_normal(&f.path);
        let part = |p: Option<&std::ffi::OsStr>| p.map(|n| n.to_string_lossy().into_owned());
        match (
            part(path.parent().and_then(Path::file_name)),
            part(path.file_name()),
        ) {
            (Some(dir), Some(file)) => format!("{dir}/{file}"),
            (None, Some(file)) => file,
            _ => f.display_name.clone(),
        }
    };
    // Matched by directory and name, else by name, ignoring case (a module's file is
    // capitalised where an included file was not).
    let key = |f: &&SourceFile, with_dir: bool| {
        let n = name(f).to_lowercase();
        if with_dir {
            n
        } else {
            n.rsplit('/').next().unwrap_or("").to_string()
        }
    };
    let mut new_files: Vec<&SourceFile> = versions.new.sources.files.iter().skip(1).collect();
    let mut old_files: Vec<&SourceFile> = versions.old.sources.files.iter().skip(1).collect();
    let mut pairs = Vec::new();
    for with_dir in [true, false] {
        old_files.retain(|o| {
            match new_files
                .iter()
                .position(|n| key(n, with_dir) == key(o, with_dir))
            {
                Some(k) => {
                    pairs.push((*o, new_files.remove(k)));
                    false
                }
                None => true,
            }
        });
    }
    pairs.sort_by_key(|(o, _)| o.path.clone());
    let (mut differing, mut same) = (Vec::new(), Vec::new());
    let only_old: Vec<String> = old_files.iter().map(name).collect();
    for (o, n) in pairs {
        if n.text == o.text {
            same.push(name(&o));
        } else {
            differing.push((o, n));
        }
    }
    let only_new: Vec<String> = new_files.iter().map(name).collect();
    if differing.is_empty() && same.is_empty() && only_old.is_empty() && only_new.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"other-files\">Other source files</h2>\n<p>The files the main files include or use, matched by directory and file name, else by file name alone.</p>\n<ul>\n");
    for (what, names) in [
        (
            "Different in the two versions",
            differing.iter().map(|(o, _)| name(o)).collect(),
        ),
        ("The same in both", same),
        ("Only in OLD", only_old),
        ("Only in NEW", only_new),
    ] {
        if !names.is_empty() {
            let _ = writeln!(h, "<li>{what}: {}</li>", escape(&names.join(", ")));
        }
    }
    h.push_str("</ul>\n");
    for (k, (o, n)) in differing.iter().enumerate() {
        let law = LawText::new(&o.text, &n.text, (&o.display_name, &n.display_name))
            .anchored(&format!("f{}-", k + 1), OTHER_FILE_ROWS);
        let heading = format!("<h3 id=\"f{}\">{}</h3>\n", k + 1, escape(&name(o)));
        law.write(h, &MarkedLines::default(), &heading);
    }
}

/// `path` without its `.` and `dir/..` parts (`a/b/../c` is `a/c`).
fn lexically_normal(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Links to the lines NEW changed (ranges of NEW's main file).
fn changed_links(h: &mut String, changed: &[(usize, usize)]) {
    if changed.is_empty() {
        return;
    }
    let links: Vec<String> = changed
        .iter()
        .take(CHANGED_LINKS_SHOWN)
        .map(|&(a, b)| {
            let text = if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            };
            format!("<a class=\"changed\" href=\"#new-L{a}\">{text}</a>")
        })
        .collect();
    let more = if changed.len() > CHANGED_LINKS_SHOWN {
        format!(" and {} more", changed.len() - CHANGED_LINKS_SHOWN)
    } else {
        String::new()
    };
    let _ = writeln!(
        h,
        "<p>Lines NEW changed (in its main file; <a href=\"#law\">the law text</a>): {}{more}</p>",
        links.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::lexically_normal;
    use std::path::Path;

    #[test]
    fn dot_dot_parts_are_resolved_in_the_name_of_a_file() {
        assert_eq!(
            lexically_normal(Path::new("/c/al/tests/concolic/../../al.catala_fr")),
            Path::new("/c/al/al.catala_fr")
        );
        assert_eq!(
            lexically_normal(Path::new("../x/./y.catala_fr")),
            Path::new("../x/y.catala_fr")
        );
    }
}
