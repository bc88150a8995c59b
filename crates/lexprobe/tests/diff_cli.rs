//! `lexprobe diff` on the five pairs of versions in `tests/fixtures/diff`, whose differences
//! are derived by hand from the rules in that directory's README (the derivations are
//! repeated beside each test), and on variants of them with changed interfaces.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pair(name: &str) -> (String, String) {
    let dir = workspace().join("tests/fixtures/diff").join(name);
    let f = |v: &str| dir.join(format!("{v}.catala_en")).display().to_string();
    (f("old"), f("new"))
}

/// An empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-diff-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

fn lexprobe_in(dir: &Path, args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .current_dir(dir)
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    }
}

fn lexprobe(args: &[&str]) -> Output {
    lexprobe_in(&workspace(), args)
}

/// `lexprobe diff OLD NEW -s SCOPE EXTRA…`: exit code and standard output.
fn diff(name: &str, scope: &str, extra: &[&str]) -> (i32, String) {
    let (old, new) = pair(name);
    let mut args = vec!["diff", old.as_str(), new.as_str(), "-s", scope];
    args.extend(extra);
    let out = lexprobe(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn diff_json(name: &str, scope: &str) -> (i32, Json) {
    let (old, new) = pair(name);
    let out = lexprobe(&["diff", &old, &new, "-s", scope, "--format", "json"]);
    let j = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), j)
}

fn conditions(j: &Json) -> Vec<String> {
    j["regions"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|g| g["condition"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_moved_threshold_differs_between_the_two_ceilings_by_300_dollars() {
    // OLD pays $300 up to $20,000 of income, NEW up to $22,000, $0 above: they differ exactly
    // for $20,000 < income <= $22,000, where OLD gives $0 and NEW $300 (+$300, constant).
    let (code, text) = diff("moved_threshold", "Cheque", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("Verdict: differs — 1 region"), "{text}");
    assert!(
        text.contains("Condition (1 path): $20,000.00 < income <= $22,000.00"),
        "{text}"
    );
    assert!(text.contains("OLD: amount = $0.00"), "{text}");
    assert!(text.contains("NEW: amount = $300.00"), "{text}");
    assert!(
        text.contains("amount: +$300.00 everywhere in the region"),
        "{text}"
    );
    let (code, j) = diff_json("moved_threshold", "Cheque");
    assert_eq!(code, 1);
    assert_eq!(j["verdict"], "differs");
    assert_eq!(j["complete"], true);
    assert_eq!(conditions(&j), ["$20,000.00 < income <= $22,000.00"]);
    assert_eq!(j["regions"][0]["differences"][0]["constant"], "30000");
    // The example is inside the region.
    let income: f64 = j["regions"][0]["example"]["old_inputs"]["income"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    assert!(income > 20_000.0 && income <= 22_000.0, "{income}");
}

#[test]
fn an_added_exception_differs_for_large_families_without_a_disabled_member() {
    // NEW's Article 3 gives $200 when children >= 3 and not disabled; elsewhere both versions
    // give $100 (or $150 with a disabled member): one region, $100 → $200 (+$100).
    let (code, text) = diff("added_exception", "Allowance", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("Condition (1 path): not disabled and children >= 3"),
        "{text}"
    );
    assert!(text.contains("OLD: amount = $100.00"), "{text}");
    assert!(text.contains("NEW: amount = $200.00"), "{text}");
    assert!(text.contains("amount: +$100.00 everywhere"), "{text}");
    let (_, j) = diff_json("added_exception", "Allowance");
    assert_eq!(conditions(&j), ["not disabled and children >= 3"]);
}

#[test]
fn a_new_conflict_is_a_region_of_its_own() {
    // NEW's Article 3 ($200 when children >= 3) is a second exception to the base rule: with
    // no disabled member it changes $100 into $200; with one, Articles 2 and 3 both apply and
    // NEW ends in a conflict where OLD gives $150.
    let (code, j) = diff_json("new_conflict", "Allowance");
    assert_eq!(code, 1);
    assert_eq!(j["regions"].as_array().map(Vec::len), Some(2), "{j:#}");
    let mut c = conditions(&j);
    c.sort();
    assert_eq!(
        c,
        [
            "disabled and children >= 3",
            "not disabled and children >= 3"
        ]
    );
    let Some(regions) = j["regions"].as_array() else {
        panic!("{j:#}")
    };
    let conflict = regions
        .iter()
        .find(|r| r["condition"] == "disabled and children >= 3")
        .unwrap_or_else(|| panic!("{j:#}"));
    assert_eq!(conflict["example"]["new"]["outcome"], "conflict");
    assert_eq!(conflict["example"]["old"]["outputs"]["amount"], "150.00");
    let money = regions
        .iter()
        .find(|r| r["condition"] == "not disabled and children >= 3")
        .unwrap_or_else(|| panic!("{j:#}"));
    assert_eq!(money["differences"][0]["constant"], "10000");
}

#[test]
fn a_refactoring_is_proved_equivalent() {
    // One expression (300 up to $20,000, 150 up to $30,000, else 0) against the same scale
    // written as a rule and two exceptions: the same amount for every income.
    let (code, text) = diff("refactoring", "Supplement", &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Verdict: equivalent"), "{text}");
    let (code, j) = diff_json("refactoring", "Supplement");
    assert_eq!(code, 0);
    assert_eq!(j["verdict"], "equivalent");
    assert_eq!(j["complete"], true);
    assert_eq!(j["regions"].as_array().map(Vec::len), Some(0));
}

#[test]
fn an_amendment_only_changes_claims_from_its_start_date() {
    // From 1 July 2025 NEW gives $120 instead of $100 below $25,000 of income; at or above
    // $25,000 both give $0; before that date both give the original amounts.
    let (code, text) = diff("amendment_date", "HeatingAid", &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("Condition (1 path): claim_date >= |2025-07-01| and income < $25,000.00"),
        "{text}"
    );
    assert!(text.contains("amount: +$20.00 everywhere"), "{text}");
}

/// NEW of `moved_threshold` with its text changed by `edit`, in a scratch directory.
fn edited_new(test: &str, edit: impl Fn(&str) -> String) -> String {
    let (_, new) = pair("moved_threshold");
    let text = std::fs::read_to_string(&new).unwrap_or_else(|e| panic!("{new}: {e}"));
    let path = scratch(test).join("new.catala_en");
    if let Err(e) = std::fs::write(&path, edit(&text)) {
        panic!("{e}");
    }
    path.display().to_string()
}

#[test]
fn a_renamed_input_is_matched_with_rename_and_is_an_error_without() {
    let new = edited_new("rename", |t| t.replace("income", "household_income"));
    let (old, _) = pair("moved_threshold");
    let out = lexprobe(&["diff", &old, &new, "-s", "Cheque"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("input `household_income` of NEW has no counterpart in OLD"),
        "{err}"
    );
    assert!(err.contains("--default household_income=VALUE"), "{err}");
    // Renamed, the answer is that of the fixture: the region is written with OLD's names.
    let out = lexprobe(&[
        "diff",
        &old,
        &new,
        "-s",
        "Cheque",
        "--rename",
        "income=household_income",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Condition (1 path): $20,000.00 < income <= $22,000.00"),
        "{text}"
    );
}

#[test]
fn an_input_only_in_new_takes_the_default_given() {
    // NEW also pays the cheque to households of more than 2 children. With children = 0 the
    // only difference is the ceiling's; with children = 3 NEW pays everyone above $20,000
    // (OLD pays nobody there): the region is income > $20,000.
    let new = edited_new("default", |t| {
        t.replace(
            "  input income content money\n",
            "  input income content money\n  input children content integer\n",
        )
        .replace(
            "if income <= $22,000",
            "if income <= $22,000 or children > 2",
        )
    });
    let (old, _) = pair("moved_threshold");
    let out = lexprobe(&["diff", &old, &new, "-s", "Cheque"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--default children=VALUE"));
    let out = lexprobe(&[
        "diff",
        &old,
        &new,
        "-s",
        "Cheque",
        "--default",
        "children=0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Condition (1 path): $20,000.00 < income <= $22,000.00"),
        "{text}"
    );
    assert!(
        text.contains("input `children` only in NEW, set to the default given"),
        "{text}"
    );
    let out = lexprobe(&[
        "diff",
        &old,
        &new,
        "-s",
        "Cheque",
        "--default",
        "children=3",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("income > $20,000.00"), "{text}");
}

#[test]
fn an_output_only_in_one_version_is_reported_and_none_in_common_is_an_error() {
    let new = edited_new("outputs", |t| t.replace("amount", "cheque"));
    let (old, _) = pair("moved_threshold");
    let out = lexprobe(&["diff", &old, &new, "-s", "Cheque"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no output in common"), "{err}");
    let out = lexprobe(&[
        "diff",
        &old,
        &new,
        "-s",
        "Cheque",
        "--rename",
        "amount=cheque",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("amount (NEW: cheque) differs"), "{text}");
}

#[test]
fn catala_errors_in_either_version_exit_123() {
    let new = edited_new("broken", |t| {
        t.replace("definition amount equals", "definition amount equal")
    });
    let (old, _) = pair("moved_threshold");
    let out = lexprobe(&["diff", &old, &new, "-s", "Cheque"]);
    assert_eq!(out.status.code(), Some(123));
    let out = lexprobe(&["diff", &new, &old, "-s", "Cheque"]);
    assert_eq!(out.status.code(), Some(123));
}

#[test]
fn sarif_and_junit_have_one_entry_per_region() {
    let dir = scratch("files");
    let (sarif, junit) = (dir.join("d.sarif"), dir.join("d.xml"));
    let (s, j) = (sarif.display().to_string(), junit.display().to_string());
    let (code, _) = diff("new_conflict", "Allowance", &["--sarif", &s, "--junit", &j]);
    assert_eq!(code, 1);
    let log: Json = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap_or_default())
        .unwrap_or(Json::Null);
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(results.len(), 2, "{log:#}");
    for r in &results {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or("");
        assert!(uri.ends_with("new_conflict/new.catala_en"), "{uri}");
    }
    // The conflict is located at NEW's Article 2 and 3 (lines 23 and 34 of new.catala_en),
    // and every result points at NEW's added Article 3 (lines 24 to 35 are new).
    let conflict = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .is_some_and(|m| m.contains("conflict"))
        })
        .unwrap_or_else(|| panic!("{log:#}"));
    let lines: Vec<i64> = conflict["locations"]
        .as_array()
        .map(|l| {
            l.iter()
                .filter_map(|x| x["physicalLocation"]["region"]["startLine"].as_i64())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        lines.contains(&23) && lines.contains(&34) && lines.contains(&24),
        "{lines:?}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    assert!(xml.contains("tests=\"2\" failures=\"2\""), "{xml}");
    assert!(xml.contains("when disabled and children &gt;= 3"), "{xml}");
    // Equivalent: one passing test case.
    let (code, _) = diff("refactoring", "Supplement", &["--junit", &j]);
    assert_eq!(code, 0);
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    assert!(
        xml.contains("tests=\"1\" failures=\"0\" errors=\"0\""),
        "{xml}"
    );
}

#[test]
fn a_version_can_be_read_from_git() {
    // The fixtures are committed: OLD read at HEAD gives the same answer as the file.
    let root = workspace();
    let inside = Command::new("git")
        .current_dir(&root)
        .args([
            "cat-file",
            "-e",
            "HEAD:tests/fixtures/diff/moved_threshold/old.catala_en",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !inside {
        println!("skipped: not in a git checkout with the fixtures committed");
        return;
    }
    let out = lexprobe_in(
        &root,
        &[
            "diff",
            "HEAD:tests/fixtures/diff/moved_threshold/old.catala_en",
            "tests/fixtures/diff/moved_threshold/new.catala_en",
            "-s",
            "Cheque",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("OLD HEAD:tests/fixtures/diff/moved_threshold/old.catala_en"),
        "{text}"
    );
    assert!(text.contains("$20,000.00 < income <= $22,000.00"), "{text}");
}
