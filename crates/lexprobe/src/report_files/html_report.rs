//! `lexprobe concolic --report FILE`: one self-contained HTML page for an exploration (inline
//! CSS, no script, nothing fetched), for a reader who was not at the terminal: the distinct
//! problems with the condition under which each occurs (the `condition` of the findings) and
//! the inputs of an example test, the law coverage of the tests (every rule applied,
//! considered or never reached, from `law_coverage`), and the tests with their inputs and
//! outputs (the first [`TESTS_SHOWN`], with a note when there are more). All program text is
//! escaped.

use crate::catala::report::{write_errors, ErrorReport, ErrorStyle};
use crate::catala::Loaded;
use crate::law_coverage::CoverageBuilder;
use catala_eval::ValuePrinter;
use catala_ir::dcalc::ScopeId;
use concolic::{Outcome, TestCase};
use reports::coverage::{CoverageReport, Status};
use serde_json::Value as Json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most tests listed on the page.
pub(crate) const TESTS_SHOWN: usize = 500;

/// What the page is made of.
pub(crate) struct ReportInput<'a> {
    pub loaded: &'a Loaded,
    pub scope: ScopeId,
    /// The program's file and its module directories (the coverage reads the source again).
    pub file: &'a Path,
    pub include_dirs: &'a [PathBuf],
    /// The tests, in exploration order.
    pub tests: &'a [TestCase],
    /// The distinct problems, as `Findings::to_json` gives them.
    pub findings: &'a Json,
    /// Whether the exploration covered every feasible path, and what is left if not.
    pub complete: bool,
    pub incomplete: &'a [String],
}

/// Writes the page to `path`.
pub(crate) fn write_report(input: &ReportInput, path: &Path) -> Result<(), String> {
    let coverage = coverage_of(input)?;
    super::write_file(path, &to_html(input, &coverage))
}

/// `s` with the five HTML special characters escaped.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The law coverage of the tests (those outside the input space left out, as
/// `--coverage` does).
fn coverage_of(input: &ReportInput) -> Result<CoverageReport, String> {
    let mut builder = CoverageBuilder::new(input.loaded, input.file, input.include_dirs)?;
    builder.count_outside_inputs = false;
    for (i, t) in input.tests.iter().enumerate() {
        if matches!(t.outcome, Outcome::Assertion(_)) {
            builder.exclude();
            continue;
        }
        let inputs = super::test_inputs_json(input.loaded, input.scope, t);
        builder.run(
            i + 1,
            &format!("test {}", i + 1),
            input.scope,
            t.inputs.clone(),
            &inputs,
        );
    }
    Ok(builder.finish(""))
}

pub(crate) const STYLE: &str =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;\
color:#1b1b1b;line-height:1.4}h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;\
margin-top:2em}table{border-collapse:collapse;width:100%;font-size:.92em}td,th{border:1px \
solid #ddd;padding:.3em .5em;vertical-align:top;text-align:left}th{background:#f3f3f3}\
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.88em}code{font-size:.95em}\
.problem{border:1px solid #e0b4b4;background:#fff8f8;border-radius:4px;padding:.5em 1em;\
margin:1em 0}.kind{font-weight:bold;color:#9f3a38}.condition{font-family:monospace;\
background:#fff;border-left:3px solid #9f3a38;padding:.3em .6em;margin:.3em 0}\
.applied{background:#e5f5e0}.considered{background:#fff7d6}.not_reached{background:#fde0dd}\
.ok{color:#2c662d}.err{color:#9f3a38}.note{color:#555;font-style:italic}\
.figures span{display:inline-block;margin-right:2em}";

/// The page.
pub(crate) fn to_html(input: &ReportInput, coverage: &CoverageReport) -> String {
    let decl = input.loaded.program.scope(input.scope);
    let title = format!(
        "lexprobe concolic: {} (scope {})",
        input.file.display(),
        decl.name
    );
    let problems = input.findings.as_array().map_or(&[][..], Vec::as_slice);
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(&title)
    );
    let applied = coverage
        .items
        .iter()
        .filter(|i| i.status == Status::Applied)
        .count();
    let _ = writeln!(
        h,
        "<p class=\"figures\"><span>{} tests</span><span>{} distinct problem{}</span>\
         <span>{applied} of {} rules applied</span><span>exploration {}</span></p>",
        input.tests.len(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        coverage.items.len(),
        if input.complete {
            "complete within its bounds"
        } else {
            "not complete"
        }
    );
    if !input.incomplete.is_empty() {
        h.push_str("<ul class=\"note\">\n");
        for entry in input.incomplete {
            let _ = writeln!(h, "<li>{}</li>", escape(entry));
        }
        h.push_str("</ul>\n");
    }
    problems_section(&mut h, input, problems);
    coverage_section(&mut h, coverage);
    tests_section(&mut h, input);
    h.push_str("</body>\n</html>\n");
    h
}

/// The inputs of a test as `name = value` (values as `lexprobe run` prints them).
fn inputs_of(input: &ReportInput, t: &TestCase) -> Vec<(String, String)> {
    let decl = input.loaded.program.scope(input.scope);
    let printer = ValuePrinter {
        language: decl.language,
        names: &input.loaded.program,
    };
    decl.inputs
        .iter()
        .zip(&t.inputs)
        .filter_map(|(i, v)| v.as_ref().map(|v| (i.name.clone(), printer.flat(v))))
        .collect()
}

fn name_values(h: &mut String, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        h.push_str("<span class=\"note\">none</span>");
        return;
    }
    for (k, (n, v)) in pairs.iter().enumerate() {
        if k > 0 {
            h.push_str("<br>");
        }
        let _ = write!(h, "<code>{} = {}</code>", escape(n), escape(v));
    }
}

fn problems_section(h: &mut String, input: &ReportInput, problems: &[Json]) {
    h.push_str("<h2 id=\"problems\">Problems</h2>\n");
    if problems.is_empty() {
        h.push_str("<p>No conflict, missing case or runtime error on any explored path.</p>\n");
        return;
    }
    for (n, p) in problems.iter().enumerate() {
        let kind = p["kind"].as_str().unwrap_or("problem");
        let tests = p["tests"].as_u64().unwrap_or(0);
        let first = p["first_test"].as_u64().unwrap_or(0) as usize;
        let _ = write!(
            h,
            "<div class=\"problem\" id=\"problem-{k}\">\n<p><span class=\"kind\">Problem {k}: \
             {kind}</span> in {tests} test{s}, first in <a href=\"#test-{first}\">test \
             {first}</a></p>\n",
            k = n + 1,
            kind = escape(kind),
            s = if tests == 1 { "" } else { "s" },
        );
        if let Some(message) = p["error"]["message"].as_str() {
            let _ = writeln!(h, "<p>{}</p>", escape(message));
        }
        let cases: Vec<&str> = p["condition"]["cases"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c["text"].as_str()).collect())
            .unwrap_or_default();
        if !cases.is_empty() {
            let paths = p["condition"]["paths"].as_u64().unwrap_or(0);
            let _ = writeln!(
                h,
                "<p>It occurs when ({paths} path{}):</p>",
                if paths == 1 { "" } else { "s" }
            );
            for c in cases {
                let _ = writeln!(h, "<div class=\"condition\">{}</div>", escape(c));
            }
        }
        // The problem's most typical test (its realistic example), else its first.
        let example = p["example"]["test"].as_u64().map_or(first, |t| t as usize);
        if let Some(t) = example.checked_sub(1).and_then(|i| input.tests.get(i)) {
            let _ = write!(
                h,
                "<p>Example (the inputs of <a href=\"#test-{example}\">test {example}</a>, its \
                 most typical test):<br>"
            );
            name_values(h, &inputs_of(input, t));
            h.push_str("</p>\n");
            if let Some(text) = error_text(input, t) {
                let _ = writeln!(h, "<pre>{}</pre>", escape(&text));
            }
        }
        h.push_str("</div>\n");
    }
}

/// The error of a test as Catala prints it, if it ends in one.
fn error_text(input: &ReportInput, t: &TestCase) -> Option<String> {
    let report = match &t.outcome {
        Outcome::Ok(_) => return None,
        Outcome::Error(e) => ErrorReport::from_runtime(e),
        Outcome::Assertion(a) => ErrorReport::from_assertion(a),
    };
    let mut text = Vec::new();
    write_errors(
        &input.loaded.sources,
        &[report],
        ErrorStyle::Boxes,
        &mut Vec::new(),
        &mut text,
    );
    Some(String::from_utf8_lossy(&text).into_owned())
}

fn coverage_section(h: &mut String, coverage: &CoverageReport) {
    h.push_str("<h2 id=\"coverage\">Law coverage</h2>\n");
    let _ = writeln!(
        h,
        "<p>The rules, definitions, exceptions and assertions of the program, as the {} tests \
         inside the input space applied them ({} outside it left out).</p>",
        coverage.total_tests - coverage.excluded_tests,
        coverage.excluded_tests
    );
    h.push_str(
        "<table>\n<tr><th>place</th><th>kind</th><th>defines</th><th>status</th>\
         <th>tests applying it</th><th>example</th></tr>\n",
    );
    for item in &coverage.items {
        let file = coverage
            .sources
            .get(item.file)
            .map_or("?", |s| s.name.as_str());
        let example = item
            .example_test
            .map(|n| format!("<a href=\"#test-{n}\">test {n}</a>"))
            .unwrap_or_default();
        let _ = writeln!(
            h,
            "<tr class=\"{status}\"><td>{file}:{start}-{end}</td><td>{kind}</td>\
             <td><code>{label}</code></td><td>{shown}</td><td>{runs}</td><td>{example}</td></tr>",
            status = item.status.as_str(),
            file = escape(file),
            start = item.start_line,
            end = item.end_line,
            kind = item.kind.as_str(),
            label = escape(&item.label),
            shown = item.status.as_str().replace('_', " "),
            runs = item.runs_applied,
        );
    }
    h.push_str("</table>\n");
}

fn tests_section(h: &mut String, input: &ReportInput) {
    h.push_str("<h2 id=\"tests\">Tests</h2>\n");
    if input.tests.len() > TESTS_SHOWN {
        let _ = writeln!(
            h,
            "<p class=\"note\">The first {TESTS_SHOWN} of {} tests are listed (all of them \
             with <code>--format json</code> or <code>--jsonl</code>).</p>",
            input.tests.len()
        );
    }
    h.push_str(
        "<table>\n<tr><th>test</th><th>outcome</th><th>inputs</th><th>outputs or error</th></tr>\n",
    );
    let decl = input.loaded.program.scope(input.scope);
    let printer = ValuePrinter {
        language: decl.language,
        names: &input.loaded.program,
    };
    for (i, t) in input.tests.iter().take(TESTS_SHOWN).enumerate() {
        let kind = t.outcome.kind();
        let class = if kind == "ok" { "ok" } else { "err" };
        let _ = write!(
            h,
            "<tr id=\"test-{n}\"><td>{n}</td><td class=\"{class}\">{kind}</td><td>",
            n = i + 1
        );
        name_values(h, &inputs_of(input, t));
        h.push_str("</td><td>");
        match &t.outcome {
            Outcome::Ok(outs) => {
                let pairs: Vec<(String, String)> = outs
                    .iter()
                    .map(|(n, v)| (n.clone(), printer.flat(v)))
                    .collect();
                name_values(h, &pairs);
            }
            Outcome::Error(e) => {
                let _ = write!(h, "{}", escape(&e.message));
            }
            Outcome::Assertion(_) => {
                h.push_str("a failed assertion of the scope (inputs outside its input space)")
            }
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn the_five_special_characters_are_escaped() {
        assert_eq!(
            escape(r#"a < b && c > "d" 'e'"#),
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;"
        );
        assert_eq!(escape("</pre><script>"), "&lt;/pre&gt;&lt;script&gt;");
    }
}
