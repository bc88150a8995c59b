//! Law coverage end to end on `tests/fixtures/reports/benefit.catala_en`, whose expected
//! coverage follows from the rules by hand: the base rule (Article 1) applies to incomes of
//! 1000 and more, the exception of Article 2 to incomes under 1000, the exception of Article 3
//! (income > 5 and < 3) never applies but is considered whenever the amount is computed, and
//! the scope of Article 4 is never run.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-coverage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

const FIXTURE: &str = "tests/fixtures/reports/benefit.catala_en";

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("lexprobe starts")
}

fn item(doc: &Json, line: u64) -> &Json {
    doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["start_line"] == line)
        .unwrap_or_else(|| panic!("an item on line {line}"))
}

fn test_inputs(doc: &Json, number: &Json) -> Json {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| &t["number"] == number)
        .map(|t| t["inputs"].clone())
        .expect("the linked test is on the page")
}

#[test]
fn concolic_coverage_marks_applied_considered_and_unreached_rules() {
    let html = scratch("concolic.html");
    let json = scratch("concolic.json");
    let out = run(&[
        "concolic",
        FIXTURE,
        "--scope",
        "Benefit",
        "--format",
        "json",
        "--coverage",
        html.to_str().unwrap(),
        "--coverage-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Two paths: income < 1000 and income >= 1000.
    assert_eq!(doc["total_tests"], 2);
    let base = item(&doc, 16);
    assert_eq!(base["status"], "applied");
    assert_eq!(base["runs_applied"], 1);
    let low = item(&doc, 25);
    assert_eq!(low["kind"], "exception");
    assert_eq!(low["status"], "applied");
    // The test linked from Article 2 has an income under 1000, the base rule's one not.
    let income = |t: Json| -> i64 { t["income"].as_str().unwrap().parse().unwrap() };
    assert!(income(test_inputs(&doc, &low["example_test"])) < 1000);
    assert!(income(test_inputs(&doc, &base["example_test"])) >= 1000);
    assert_eq!(item(&doc, 34)["status"], "considered");
    assert_eq!(item(&doc, 34)["example_test"], Json::Null);
    assert_eq!(item(&doc, 46)["status"], "not_reached");
    // The test scopes are not run by an exploration of Benefit.
    assert_eq!(item(&doc, 60)["status"], "not_reached");
    // Per article.
    let article = |title: &str| -> Json {
        doc["headings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["title"] == title)
            .map(|h| h["items"].clone())
            .unwrap()
    };
    assert_eq!(article("Article 2")["applied"], 1);
    assert_eq!(article("Article 3")["considered"], 1);
    assert_eq!(article("Article 4")["not_reached"], 1);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Self-contained: nothing is loaded from elsewhere.
    assert!(!page.contains("src="));
    assert!(!page.contains("href=\"http"));
    assert!(!page.contains("<link"));
    // Line 25 (Article 2's exception) is coloured applied and links to its test.
    let line = page
        .split("<div class=\"l a\" id=\"f0-25\">")
        .nth(1)
        .expect("line 25 marked applied");
    let line = &line[..line.find("</div>").unwrap()];
    assert!(line.contains(&format!("href=\"#t{}\"", low["example_test"])));
    assert!(page.contains("<div class=\"l c\" id=\"f0-34\">"));
    assert!(page.contains("<div class=\"l u\" id=\"f0-46\">"));
}

#[test]
fn test_coverage_runs_the_test_scopes() {
    let json = scratch("test.json");
    let out = run(&["test", FIXTURE, "--coverage-json", json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["total_tests"], 2);
    // TestLow (income 500) applies Article 2, TestHigh (5000) the base rule.
    let names: Vec<(u64, String)> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["number"].as_u64().unwrap(),
                t["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let number_of = |name: &str| names.iter().find(|(_, n)| n == name).map(|(i, _)| *i);
    assert_eq!(
        item(&doc, 25)["example_test"].as_u64(),
        number_of("scope TestLow")
    );
    assert_eq!(
        item(&doc, 16)["example_test"].as_u64(),
        number_of("scope TestHigh")
    );
    assert_eq!(item(&doc, 34)["status"], "considered");
    assert_eq!(item(&doc, 46)["status"], "not_reached");
    assert_eq!(item(&doc, 60)["status"], "applied");
    assert_eq!(item(&doc, 60)["kind"], "assertion");
    assert_eq!(doc["summary"]["applied"], 8);
    assert_eq!(doc["summary"]["total"], 10);
}

#[test]
fn coverage_shows_problems_at_their_positions() {
    // Fig. 5: the two exceptions conflict when b holds and x = 0 (lines 23 and 30); no rule
    // applies when b does not hold and x < 0 (the declaration, line 9).
    let json = scratch("fig5.json");
    let out = run(&[
        "concolic",
        "tests/fixtures/concolic/fig5_default.catala_en",
        "--scope",
        "Fig5",
        "--quiet",
        "--coverage-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "problems found");
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2);
    let conflict = problems.iter().find(|p| p["kind"] == "conflict").unwrap();
    let lines: Vec<u64> = conflict["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [23, 30]);
    let inputs = test_inputs(&doc, &conflict["example_test"]);
    assert_eq!(inputs["b"], true);
    assert_eq!(inputs["x"], "0");
    let empty = problems.iter().find(|p| p["kind"] == "no_value").unwrap();
    assert_eq!(empty["positions"][0]["line"], 9);
}

#[test]
fn the_page_opens_in_a_browser_without_errors() {
    let html = scratch("browser.html");
    let out = run(&[
        "concolic",
        FIXTURE,
        "--scope",
        "Benefit",
        "--quiet",
        "--coverage",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let present = |cmd: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {cmd}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(present("node") && present("chromium")) {
        eprintln!("notice: node or chromium is not installed: the browser check is skipped");
        return;
    }
    let check = Command::new(workspace().join("bench/browser/check.sh"))
        .arg(&html)
        .output()
        .expect("the check script runs");
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{report}");
    assert!(report.contains("\"problems\":[]"), "{report}");
    assert!(report.contains("\"badgeLeadsToTest\":true"), "{report}");
    assert!(html.with_extension("png").is_file());
}

#[test]
fn test_coverage_of_several_files_is_one_page() {
    // Fig. 5 has no test scope: given explicitly, it is compiled and shown, nothing reached.
    let json = scratch("two.json");
    let out = run(&[
        "test",
        FIXTURE,
        "tests/fixtures/concolic/fig5_default.catala_en",
        "--coverage-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[1].ends_with("fig5_default.catala_en"));
    let fig5_items: Vec<&Json> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["file"] == files[1])
        .collect();
    // Its three rules, none run.
    assert_eq!(fig5_items.len(), 3);
    assert!(fig5_items.iter().all(|i| i["status"] == "not_reached"));
    assert_eq!(doc["summary"]["applied"], 8);
    assert_eq!(doc["summary"]["total"], 13);
}
