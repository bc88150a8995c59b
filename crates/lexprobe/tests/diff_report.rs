//! `lexprobe diff --report FILE`, the HTML page of a comparison, on the pairs of
//! `tests/fixtures/diff` (their answers derived by hand in that directory's README) and on a
//! long generated pair: the verdict and what it covers, the regions with their conditions and
//! examples, the lines NEW changed (found by reading the fixture files side by side) marked
//! and linked, and the program text escaped.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "lexprobe-diff-report-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

/// Runs `lexprobe diff OLD NEW -s SCOPE --report PAGE EXTRA…`: the exit code and the page.
fn page_of(old: &Path, new: &Path, scope: &str, extra: &[&str], test: &str) -> (i32, String) {
    let page = scratch(test).join("diff.html");
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .current_dir(workspace())
        .arg("diff")
        .arg(old)
        .arg(new)
        .args(["-s", scope, "--report"])
        .arg(&page)
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("lexprobe does not start: {e}"));
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\n{}",
            page.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), html)
}

fn fixture_page(name: &str, scope: &str, extra: &[&str]) -> (i32, String) {
    let dir = workspace().join("tests/fixtures/diff").join(name);
    page_of(
        &dir.join("old.catala_en"),
        &dir.join("new.catala_en"),
        scope,
        extra,
        name,
    )
}

/// The class attribute of the line with anchor `id` in the law text (`None`: no such line).
fn row_class(html: &str, id: &str) -> Option<String> {
    let at = html.find(&format!("id=\"{id}\""))?;
    let start = html[..at].rfind("<div class=\"")? + "<div class=\"".len();
    let end = start + html[start..].find('"')?;
    Some(html[start..end].to_string())
}

/// The mark shown before the line with anchor `id`.
fn row_mark(html: &str, id: &str) -> Option<String> {
    let at = html.find(&format!("id=\"{id}\""))?;
    let start = at + html[at..].find("<span class=\"m\">")? + "<span class=\"m\">".len();
    let end = start + html[start..].find("</span>")?;
    Some(html[start..end].to_string())
}

/// Whether the line `id` is marked as `kind` (`chg`, `add`, `del`) with its mark.
fn marked(html: &str, id: &str, kind: &str, mark: &str) -> bool {
    row_class(html, id).is_some_and(|c| c.split(' ').any(|k| k == kind))
        && row_mark(html, id).as_deref() == Some(mark)
}

/// Whether the line `id` is shown unchanged.
fn unchanged(html: &str, id: &str) -> bool {
    row_class(html, id)
        .is_some_and(|c| !c.contains("chg") && !c.contains("add") && !c.contains("del"))
}

/// The regions' parts of the page (each `<div class="problem region" …>…</div>`).
fn regions(html: &str) -> Vec<&str> {
    html.split("<div class=\"problem region\"")
        .skip(1)
        .map(|r| r.split("\n</div>\n").next().unwrap_or(r))
        .collect()
}

/// Every `href="#…"` of `part` leads to an element of `html`.
fn links_lead_somewhere(html: &str, part: &str) -> Vec<String> {
    part.split("href=\"#")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|id| !html.contains(&format!("id=\"{id}\"")))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_moved_threshold_shows_its_region_and_the_three_lines_new_changed() {
    // README: the versions differ for $20,000.00 < income <= $22,000.00, OLD $0.00, NEW
    // $300.00, +$300.00 everywhere. Reading the files: NEW changes line 1 (title), line 3
    // (the text) and line 12 (the threshold), each in place of OLD's line of the same number.
    let (code, html) = fixture_page("moved_threshold", "Cheque", &[]);
    assert_eq!(code, 1);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains("<p class=\"verdict differs\">Verdict: differs — 1 region "),
        "{html}"
    );
    let r = regions(&html);
    assert_eq!(r.len(), 1, "{html}");
    assert!(r[0].contains("<div class=\"condition\">$20,000.00 &lt; income &lt;= $22,000.00</div>"));
    assert!(r[0].contains("— 1 path pair<"));
    assert!(
        r[0].contains("<th>OLD</th><td><code>amount = $0.00</code>"),
        "{}",
        r[0]
    );
    assert!(
        r[0].contains("<th>NEW</th><td><code>amount = $300.00</code>"),
        "{}",
        r[0]
    );
    assert!(r[0].contains("amount: +$300.00 everywhere in the region"));
    for line in [1, 3, 12] {
        assert!(
            marked(&html, &format!("new-L{line}"), "chg", "~"),
            "new {line}"
        );
        assert!(
            marked(&html, &format!("old-L{line}"), "chg", "~"),
            "old {line}"
        );
        assert!(
            r[0].contains(&format!("href=\"#new-L{line}\"")),
            "link to {line}"
        );
    }
    for line in [2, 4, 5, 11, 13] {
        assert!(unchanged(&html, &format!("new-L{line}")), "new {line}");
    }
    assert!(links_lead_somewhere(&html, &html).is_empty());
    // Nothing of the programs unescaped: the condition and line 12 both hold `<=`.
    assert!(!html.contains("income <="));
    assert!(html.contains("if income &lt;= $22,000 then $300 else $0"));
    // All three changed lines are under the title, line 12 in Catala code.
    assert!(html.contains(
        "href=\"#new-L1\">NEW line 1</a>: <code># Energy cheque, 2025 rules</code> — 3 lines \
         changed or added, 1 in Catala code"
    ));
}

#[test]
fn a_new_conflict_links_to_the_rules_in_conflict_and_to_the_added_article() {
    // README: not disabled and children >= 3: $100.00 → $200.00; disabled and children >= 3:
    // $150.00 → a conflict between Article 2 (line 23) and Article 3 (its consequence on line
    // 34). Reading the files: NEW changes line 1 and adds lines 24 to 34 (the end of Article
    // 2's code block and Article 3); OLD's last line (24) is NEW's 35.
    let (code, html) = fixture_page("new_conflict", "Allowance", &[]);
    assert_eq!(code, 1);
    assert!(html.contains("Verdict: differs — 2 regions"));
    let r = regions(&html);
    assert_eq!(r.len(), 2, "{html}");
    let money = r
        .iter()
        .find(|r| r.contains("<div class=\"condition\">not disabled and children &gt;= 3</div>"))
        .unwrap_or_else(|| panic!("{html}"));
    assert!(money.contains("amount = $100.00") && money.contains("amount = $200.00"));
    let conflict = r
        .iter()
        .find(|r| r.contains("<div class=\"condition\">disabled and children &gt;= 3</div>"))
        .unwrap_or_else(|| panic!("{html}"));
    assert!(conflict.contains("outcome outputs → conflict"));
    assert!(conflict.contains("<th>OLD</th><td><code>amount = $150.00</code>"));
    assert!(conflict.contains("<span class=\"err\">conflict</span>"));
    assert!(conflict.contains("href=\"#new-L23\"") && conflict.contains("href=\"#new-L34\""));
    for region in &r {
        assert!(region.contains("<a class=\"changed\" href=\"#new-L24\">24–34</a>"));
        assert!(region.contains("href=\"#new-L1\""));
        assert!(links_lead_somewhere(&html, region).is_empty());
    }
    assert!(marked(&html, "new-L1", "chg", "~") && marked(&html, "old-L1", "chg", "~"));
    for line in 24..=34 {
        assert!(marked(&html, &format!("new-L{line}"), "add", "+"), "{line}");
    }
    assert!(unchanged(&html, "new-L35") && unchanged(&html, "old-L24"));
    // Line 23 is unchanged but named by the conflict.
    assert!(unchanged(&html, "new-L23"));
    assert_eq!(row_mark(&html, "new-L23").as_deref(), Some("!"));
    assert_eq!(row_mark(&html, "new-L22").as_deref(), Some(" "));
    // OLD's side has fillers where NEW's lines are added: both sides have 35 rows.
    let sides: Vec<&str> = html.split("<div class=\"side ").skip(1).collect();
    assert_eq!(sides.len(), 2);
    for side in sides {
        assert_eq!(
            (side.matches("<div class=\"r ").count() + side.matches("<div class=\"r\"").count()),
            35
        );
    }
    assert!(html.contains("href=\"#new-L26\">NEW line 26</a>: <code>## Article 3</code>"));
}

#[test]
fn an_equivalent_pair_shows_no_region_and_what_the_proof_covers() {
    // README: equivalent. Reading the files: OLD's line 1 becomes NEW's lines 1–5 (title
    // changed, Article 1 added; which of NEW's blank lines 2, 4 and 6 is OLD's blank line 2 is
    // a choice among equally short diffs), OLD's lines 9–12 (one expression) become NEW's
    // 13–33.
    let (code, html) = fixture_page("refactoring", "Supplement", &["--max-list-length", "2"]);
    assert_eq!(code, 0);
    assert!(html.contains("<p class=\"verdict equivalent\">Verdict: equivalent"));
    assert!(regions(&html).is_empty());
    assert!(html.contains("No region: no input makes the versions differ."));
    assert!(
        html.contains("Proved for every path pair within the bounds: lists of at most 2 elements")
    );
    assert!(marked(&html, "new-L1", "chg", "~"));
    for line in [3, 5] {
        assert!(marked(&html, &format!("new-L{line}"), "add", "+"), "{line}");
    }
    for line in 7..=12 {
        assert!(unchanged(&html, &format!("new-L{line}")), "{line}");
    }
    for (old, new) in [(9, 13), (12, 16)] {
        assert!(marked(&html, &format!("old-L{old}"), "chg", "~"));
        assert!(marked(&html, &format!("new-L{new}"), "chg", "~"));
    }
    assert!(marked(&html, "new-L33", "add", "+"));
    assert!(unchanged(&html, "new-L34") && unchanged(&html, "old-L13"));
}

#[test]
fn an_unfinished_comparison_says_what_it_left_out() {
    // One path pair of the three: no difference found, but not complete.
    let (code, html) = fixture_page("refactoring", "Supplement", &["--max-pairs", "1"]);
    assert_eq!(code, 3);
    assert!(html.contains("<p class=\"verdict unknown\">Verdict: unknown"));
    assert!(html.contains("The exploration is not complete"));
    assert!(html.contains("limit of 1 path pairs reached"));
    assert!(regions(&html).is_empty());
}

#[test]
fn a_long_file_shows_only_the_changed_piece_and_counts_the_lines_left_out() {
    // 400 lines of law text, then a scope whose threshold NEW moves: the page shows the
    // changed line with three lines around it and says how many lines it leaves out.
    let dir = scratch("long");
    let text = |ceiling: &str| {
        let mut t = String::from("# A long law\n\n");
        for k in 1..=400 {
            t.push_str(&format!("Paragraph {k} of the law <{k}>.\n"));
        }
        t.push_str(&format!(
            "\n```catala\ndeclaration scope Cheque:\n  input income content money\n  output \
             amount content money\n\nscope Cheque:\n  definition amount equals\n    if income \
             <= {ceiling} then $300 else $0\n```\n"
        ));
        t
    };
    let (old, new) = (dir.join("old.catala_en"), dir.join("new.catala_en"));
    for (path, ceiling) in [(&old, "$20,000"), (&new, "$22,000")] {
        if let Err(e) = std::fs::write(path, text(ceiling)) {
            panic!("{e}");
        }
    }
    // Lines: 1 title, 2 blank, 3–402 paragraphs, 403 blank, 404 fence, 405–407 declaration,
    // 408 blank, 409 scope, 410 definition, 411 the threshold, 412 fence.
    let (code, html) = page_of(&old, &new, "Cheque", &[], "long-run");
    assert_eq!(code, 1);
    assert!(marked(&html, "new-L411", "chg", "~"));
    assert!(unchanged(&html, "new-L408") && unchanged(&html, "new-L412"));
    assert!(row_class(&html, "new-L407").is_none() && row_class(&html, "new-L200").is_none());
    // Lines 2–407 are left out; the title (the heading of the changed line) is shown.
    assert!(
        html.contains("⋯ 403 unchanged lines omitted (OLD 5–407, NEW 5–407)"),
        "{html}"
    );
    assert!(unchanged(&html, "new-L1") && unchanged(&html, "new-L4"));
    assert!(html.contains("Paragraph 2 of the law &lt;2&gt;."));
    assert!(!html.contains("<2>"));
    assert!(links_lead_somewhere(&html, &html).is_empty());
}

#[test]
fn an_included_file_that_differs_is_aligned_under_its_name() {
    // Both versions include `ceiling.catala_en` from their own directory (`old`, `new`: the
    // files are matched by name, and listed by OLD's directory and name); NEW's copy moves
    // the ceiling on its line 4, and `same.catala_en` is the same in both.
    let dir = scratch("included");
    let main = "> Include: ceiling.catala_en\n\n> Include: same.catala_en\n\n```catala\n\
                declaration scope Cheque:\n  input income content money\n  output amount \
                content money\n\nscope Cheque:\n  definition amount equals\n    if income <= \
                ceiling then $300 else $0\n```\n";
    let ceiling = |v: &str| {
        format!("# Ceiling\n\n```catala\ndeclaration ceiling content money equals {v}\n```\n")
    };
    let same = "# Nothing\n\nNo rule here.\n";
    for (side, v) in [("old", "$20,000"), ("new", "$22,000")] {
        let d = dir.join(side);
        let write = |name: &str, text: &str| {
            if let Err(e) =
                std::fs::create_dir_all(&d).and_then(|_| std::fs::write(d.join(name), text))
            {
                panic!("{e}");
            }
        };
        write("main.catala_en", main);
        write("ceiling.catala_en", &ceiling(v));
        write("same.catala_en", same);
    }
    let (code, html) = page_of(
        &dir.join("old/main.catala_en"),
        &dir.join("new/main.catala_en"),
        "Cheque",
        &[],
        "included-run",
    );
    assert_eq!(code, 1, "{html}");
    assert!(html.contains("<div class=\"condition\">$20,000.00 &lt; income &lt;= $22,000.00</div>"));
    // The main files are the same: no changed row among their 13 lines.
    let main_part =
        &html[html.find("id=\"law\"").unwrap_or(0)..html.find("id=\"other-files\"").unwrap_or(0)];
    assert!(main_part.contains("0 rows differ"), "{main_part}");
    assert!(html.contains("<li>Different in the two versions: old/ceiling.catala_en</li>"));
    assert!(html.contains("<li>The same in both: old/same.catala_en</li>"));
    assert!(marked(&html, "f1-new-L4", "chg", "~") && marked(&html, "f1-old-L4", "chg", "~"));
    assert!(unchanged(&html, "f1-new-L3") && unchanged(&html, "f1-new-L5"));
    assert!(html.contains("href=\"#f1-new-L1\">NEW line 1</a>: <code># Ceiling</code>"));
    assert!(links_lead_somewhere(&html, &html).is_empty());
}
