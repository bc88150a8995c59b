//! `lexprobe test` over the fixtures of `tests/fixtures/runner`: blocks that must match
//! (results, errors in boxes and GNU lines, JSON results, typecheck), blocks that must not
//! (a wrong value, a wrong exit code, an error at another position), skipped commands, a
//! directory walk that passes over files without tests, clerk.toml targets, and the JSON and
//! JUnit reports checked for their structure.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `lexprobe test ARGS` from the workspace root.
fn lexprobe_test(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .current_dir(workspace())
        .arg("test")
        .args(args)
        .output()
        .expect("lexprobe starts")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_directory_walk_runs_test_scopes_and_blocks_that_match() {
    let out = lexprobe_test(&["tests/fixtures/runner/good"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    for expected in [
        "TwoWinners: passed",
        "Partage: passed",
        "tests/fixtures/runner/good/shares.catala_en:39: catala test-scope TwoWinners: passed",
        "tests/fixtures/runner/good/shares.catala_en:51: catala test-scope NoWinner --disable-warnings: passed",
        "tests/fixtures/runner/good/shares.catala_en:66: catala Interpret -s NoWinner --message-format=gnu: passed",
        "tests/fixtures/runner/good/shares.catala_en:72: catala test-scope Share --input {\"prize\":10,\"winners\":4} -F json: passed",
        "tests/fixtures/runner/good/shares.catala_en:77: catala Typecheck --check-invariants: passed",
        "tests/fixtures/runner/good/shares.catala_en:89: catala ocaml: skipped (backend `ocaml`)",
        "tests/fixtures/runner/good/shares.catala_en:94: catala interpret -s TwoWinners --trace: skipped (tracing or debugging flag --trace)",
        "tests/fixtures/runner/good/nested/partage.catala_fr:17: catala test-scope Partage: passed",
    ] {
        assert!(lines.contains(&expected), "missing `{expected}` in:\n{text}");
    }
    // A file found by the walk that holds no test is passed over, even though it does not
    // compile.
    assert!(!text.contains("library.catala_en"), "{text}");
    assert_eq!(lines.last(), Some(&"8 passed, 0 failed, 2 skipped"));
}

/// The expected outputs in this fixture are the reference Catala's (fdf4ccd5), run on the
/// same program: divisions by zero reported where the divisor's value was computed (a
/// parenthesised expression, a variable in parentheses, the taken branch, a function's body,
/// a `let`'s body, a `match` arm), conflicts listing sibling exception groups last-written
/// first, and a variable's intermediate state without a value, an error only where it is
/// read (none when it is not).
#[test]
fn error_positions_are_those_the_reference_reports() {
    let out = lexprobe_test(&["tests/fixtures/eval/reference_positions.catala_en"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("10 passed, 0 failed"), "{text}");
}

/// A module a test file uses runs compiled under Catala, and its compiled code reports a
/// division by zero at the division (in a branch, in a function), or at the variable's
/// declaration when the division is the whole of its only rule. The expected outputs are the
/// reference Catala's (`clerk test --reset`, fdf4ccd5).
#[test]
fn divisions_in_a_used_module_are_reported_as_compiled_code_reports_them() {
    let out = lexprobe_test(&["tests/fixtures/eval/compiled_module/tests"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("3 passed, 0 failed"), "{text}");
}

/// A used module's constructor named without its enumeration (`Mc.Metro` for
/// `Mc.Coll.Metro`) is refused, as the reference Catala refuses it ("No enum named Mc found").
#[test]
fn a_module_constructor_without_its_enumeration_is_refused() {
    let out = lexprobe_test(&["tests/fixtures/eval/module_constructor/tests"]);
    let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    // Catala's exit code for a program it cannot compile.
    assert_eq!(out.status.code(), Some(123), "{text}");
    assert!(text.contains("No enum named Mc found"), "{text}");
    assert!(
        text.contains("short_constructor.catala_en: failed (does not compile)"),
        "{text}"
    );
}

#[test]
fn blocks_that_differ_fail_with_the_reason() {
    let out = lexprobe_test(&["tests/fixtures/runner/mismatch"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(123), "{text}");
    let failure = |line: usize| {
        let prefix = format!("tests/fixtures/runner/mismatch/wrong.catala_en:{line}: ");
        text.lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line {line} in:\n{text}"))
            .to_string()
    };
    assert!(
        failure(25).ends_with("failed (results differ: expected `│ total = 5`, got `│ total = 4`)")
    );
    assert!(failure(34).ends_with("failed (expected exit code 123, got exit code 0)"));
    assert!(failure(44).contains("failed (assertion error at "));
    assert!(
        failure(44).contains("expected at tests/fixtures/runner/mismatch/wrong.catala_en:18.3-22")
    );
    assert!(text.contains("Failing: failed"));
    assert_eq!(text.lines().last(), Some("0 passed, 4 failed"));
    // The expected and actual outputs of failed blocks go to the error stream.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("── expected:") && err.contains("── got:"),
        "{err}"
    );
}

#[test]
fn a_file_given_explicitly_is_compiled_even_without_tests() {
    let out = lexprobe_test(&["tests/fixtures/runner/good/nested/library.catala_en"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(123), "{text}");
    assert!(
        text.contains("library.catala_en: failed (does not compile)"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("0 passed, 1 failed"));
}

#[test]
fn clerk_targets_choose_the_test_folders() {
    let whole = lexprobe_test(&["tests/fixtures/runner/project"]);
    assert_eq!(whole.status.code(), Some(123));
    assert_eq!(stdout(&whole).lines().last(), Some("1 passed, 1 failed"));
    let target = lexprobe_test(&["tests/fixtures/runner/project", "--target", "checked"]);
    assert_eq!(target.status.code(), Some(0));
    assert_eq!(stdout(&target), "Checked: passed\n1 passed, 0 failed\n");
    let unknown = lexprobe_test(&["tests/fixtures/runner/project", "--target", "missing"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no [[target]] named missing"));
}

#[test]
fn the_json_report_has_every_test_with_its_status() {
    let out = lexprobe_test(&[
        "tests/fixtures/runner/good",
        "tests/fixtures/runner/mismatch",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(123));
    let report: Json = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(report["passed"], 8);
    assert_eq!(report["failed"], 4);
    assert_eq!(report["skipped"], 2);
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 3);
    let mut statuses = Vec::new();
    for file in files {
        assert!(file["file"]
            .as_str()
            .is_some_and(|f| f.ends_with(".catala_en") || f.ends_with(".catala_fr")));
        for test in file["tests"].as_array().expect("tests") {
            let kind = test["kind"].as_str().expect("kind");
            let status = test["status"].as_str().expect("status");
            assert!(test["name"].is_string() && test["seconds"].is_number());
            if kind == "cli_block" {
                assert!(
                    test["line"].is_u64() && test["command"].is_string(),
                    "{test}"
                );
                if status != "skipped" {
                    assert!(test["exit_code"].is_i64(), "{test}");
                }
            } else {
                assert_eq!(kind, "test_scope");
            }
            match status {
                "failed" => assert!(test["reason"].is_string() && test["actual"].is_string()),
                "skipped" => assert!(test["reason"].is_string()),
                _ => assert_eq!(status, "passed"),
            }
            statuses.push(status.to_string());
        }
    }
    assert_eq!(statuses.len(), 14);
}

/// An XML element: its name, its attributes and the text directly inside it.
type Element = (String, Vec<(String, String)>, String);

/// The elements of an XML document, as (name, attributes, text inside), checking that every
/// element is closed in order.
fn xml_elements(xml: &str) -> Vec<Element> {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("XML declaration");
    let mut open: Vec<usize> = Vec::new();
    let mut elements: Vec<Element> = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        if let Some(&i) = open.last() {
            elements[i].2.push_str(text);
        } else {
            assert!(text.trim().is_empty(), "text outside the root: {text:?}");
        }
        let end = rest[start..].find('>').expect("tag closed") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let i = open.pop().expect("a closing tag closes an open element");
            assert_eq!(elements[i].0, name, "elements closed in order");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().expect("tag name").to_string();
        let mut attributes = Vec::new();
        let mut attrs = &tag[name.len()..];
        while let Some(eq) = attrs.find("=\"") {
            let key = attrs[..eq].trim().to_string();
            let value_end = attrs[eq + 2..].find('"').expect("attribute closed") + eq + 2;
            attributes.push((key, attrs[eq + 2..value_end].to_string()));
            attrs = &attrs[value_end + 1..];
        }
        elements.push((name, attributes, String::new()));
        if !self_closing {
            open.push(elements.len() - 1);
        }
    }
    assert!(open.is_empty(), "unclosed elements");
    elements
}

fn attribute<'a>(attrs: &'a [(String, String)], key: &str) -> &'a str {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no attribute {key}"))
}

#[test]
fn the_junit_report_has_a_suite_per_file_and_a_case_per_test() {
    let junit = std::env::temp_dir().join(format!("lexprobe-junit-{}.xml", std::process::id()));
    let junit_arg = junit.to_string_lossy().into_owned();
    let out = lexprobe_test(&[
        "tests/fixtures/runner/good",
        "tests/fixtures/runner/mismatch",
        "--junit",
        &junit_arg,
    ]);
    assert_eq!(out.status.code(), Some(123));
    let xml = std::fs::read_to_string(&junit).expect("JUnit file written");
    let _ = std::fs::remove_file(&junit);
    let elements = xml_elements(&xml);
    let named = |name: &str| -> Vec<&Element> { elements.iter().filter(|e| e.0 == name).collect() };
    let root = &elements[0];
    assert_eq!(root.0, "testsuites");
    assert_eq!(attribute(&root.1, "tests"), "14");
    assert_eq!(attribute(&root.1, "failures"), "4");
    // junit-4.xsd has no `skipped` on <testsuites>: the suites count their own.
    let suites = named("testsuite");
    let skipped_in_suites: usize = suites
        .iter()
        .map(|s| attribute(&s.1, "skipped").parse::<usize>().unwrap())
        .sum();
    assert_eq!(skipped_in_suites, 2);
    assert_eq!(suites.len(), 3);
    let wrong = suites
        .iter()
        .find(|s| attribute(&s.1, "name").ends_with("mismatch/wrong.catala_en"))
        .expect("a suite for wrong.catala_en");
    assert_eq!(attribute(&wrong.1, "failures"), "4");
    assert_eq!(named("testcase").len(), 14);
    let failures = named("failure");
    assert_eq!(failures.len(), 4);
    let value = failures
        .iter()
        .find(|f| attribute(&f.1, "message").starts_with("results differ"))
        .expect("the wrong value's failure");
    assert!(value
        .2
        .contains("expected:\n┌─[RESULT]─ Count ─\n│ total = 5"));
    assert!(value
        .2
        .contains("actual:\n┌─[RESULT]─ Count ─\n│ total = 4"));
    let skipped = named("skipped");
    assert_eq!(skipped.len(), 2);
    assert!(skipped.iter().any(|s| s.2 == "backend `ocaml`"));
    // The human report is still printed.
    assert_eq!(
        stdout(&out).lines().last(),
        Some("8 passed, 4 failed, 2 skipped")
    );
}
