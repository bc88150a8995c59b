//! `lexprobe concolic --report FILE` writes one self-contained HTML page: the problems with
//! their conditions and an example, the law coverage, the tests. Checked on the household
//! fixture (written for these tests): the page is well formed, names the conflict's condition
//! and its example's inputs, escapes program text, fetches nothing; and, when Chromium and
//! node are installed, loads in headless Chromium without error (`bench/browser/check.sh`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Explores the household fixture and writes the page; its text and path.
fn report(tag: &str) -> (String, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lexprobe-report-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let page = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .arg(repo().join("tests/fixtures/suites/household_benefit.catala_en"))
        // The runs outside the assertion's input space explored too (negative numbers of
        // children): the tests numbered below are those of that exploration.
        .args([
            "--scope",
            "Benefit",
            "--optim",
            "all,-input-space",
            "--report",
        ])
        .arg(&page)
        .output()
        .expect("lexprobe runs");
    // Problems found: exit code 1.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (std::fs::read_to_string(&page).expect("page written"), page)
}

/// Every element opened is closed, in order (void elements aside).
fn assert_well_formed(html: &str) {
    const VOID: [&str; 4] = ["meta", "br", "!doctype", "hr"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("a tag is closed by >");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect::<String>()
            .to_lowercase();
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "unbalanced </{name}>"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "left open: {stack:?}");
}

#[test]
fn the_page_shows_problems_conditions_examples_coverage_and_tests() {
    let (html, _) = report("structure");
    assert_well_formed(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Self-contained: inline style, no script, nothing fetched.
    assert!(html.contains("<style>"));
    for fetched in ["<script", "<link", "src=", "http://", "https://"] {
        assert!(!html.contains(fetched), "{fetched}");
    }
    // Articles 2 ($200 from two children) and 3 ($250 for a single parent in the mountains)
    // are exceptions to the same base: both apply exactly when the household has at least two
    // children, a single parent and lives in the mountains. The condition is escaped (`>=`).
    assert!(
        html.contains(
            "<div class=\"condition\">household.children &gt;= 2 and household.single_parent and zone = Mountain</div>"
        ),
        "{html}"
    );
    // No children: the division of Article 1 fails, exactly when children = 0.
    assert!(html.contains("<div class=\"condition\">household.children = 0</div>"));
    // The conflict's example: a single parent of two children in the mountains.
    let conflict = html
        .split("<div class=\"problem\"")
        .find(|p| p.contains("conflict</span>"))
        .expect("the conflict's block");
    let example = &conflict[conflict.find("Example").expect("an example")..];
    for input in ["children: 2 ", "single_parent: true", "zone = Mountain"] {
        assert!(example.contains(input), "{input}: {example}");
    }
    // Two problems, each linked to the test row of its first test.
    assert_eq!(html.matches("<div class=\"problem\"").count(), 2);
    assert!(html.contains("<a href=\"#test-8\">test 8</a>"));
    assert!(html.contains("<tr id=\"test-8\">"));
    // The law coverage lists the five items (the assertion, the two definitions and the
    // two exceptions), all applied by some test.
    assert_eq!(html.matches("<tr class=\"applied\">").count(), 5, "{html}");
    // Raw program text never appears unescaped: the error boxes' `>=`-free text aside, the
    // `<` of the source never reaches the page as markup.
    assert!(!html.contains("children >= 2"));
}

#[test]
fn the_page_loads_in_chromium() {
    let have = |cmd: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {cmd}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("node") && have("chromium")) {
        eprintln!("skipped: node or chromium is not installed (apt-get install -y chromium)");
        return;
    }
    let (_, page) = report("browser");
    let out = Command::new("sh")
        .arg(repo().join("bench/browser/check.sh"))
        .arg("concolic")
        .arg(&page)
        .output()
        .expect("the browser check runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The check reports what it found on the page: the two problems and their conditions.
    assert!(said.contains("\"problems\":2,\"conditions\":2"), "{said}");
    assert!(said.contains("\"problems\":[]"), "{said}");
    let _ = std::fs::remove_dir_all(page.parent().unwrap_or(Path::new("/nonexistent")));
}
