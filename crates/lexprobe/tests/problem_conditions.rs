//! Each problem of a concolic run is printed with its condition over the scope's inputs.
//! The fixtures in `tests/fixtures/conditions/` were written for this; the expected
//! conditions are derived by hand from their rules:
//! - `allowance_conflict`: Articles 2 (`disabled`) and 3 (`children >= 3`) are both
//!   exceptions to Article 1 with no priority: a conflict exactly when both hold.
//! - `share_division`: the grant is divided by `decimal of members`; the bonus branch is
//!   taken both ways on the way, so it is not part of the condition: `members = 0`.
//! - `mountain_aid`: Article 2 (mountain zone) and Article 3 (claims from 1 July 2025 with an
//!   income below $30,000) conflict when all three hold.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conditions")
        .join(name)
}

fn concolic(file: &str, scope: &str, json: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lexprobe"));
    cmd.arg("concolic")
        .arg(fixture(file))
        .args(["--scope", scope]);
    if json {
        cmd.args(["--format", "json"]);
    }
    let out = cmd.output().expect("lexprobe runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_conflict_between_two_exceptions_is_explained_by_both_conditions() {
    let text = concolic("allowance_conflict.catala_en", "Allowance", false);
    assert!(
        text.contains("Problem 1 (conflict): in 1 test")
            && text.contains("  Condition (1 path): disabled and children >= 3\n"),
        "{text}"
    );
}

#[test]
fn a_branch_taken_both_ways_is_not_part_of_the_condition() {
    let text = concolic("share_division.catala_en", "Share", false);
    assert!(
        text.contains("Problem 1 (division_by_zero): in 2 tests")
            && text.contains("  Condition (2 paths): members = 0\n"),
        "{text}"
    );
}

#[test]
fn enumeration_date_and_money_conditions_read_as_catala() {
    let text = concolic("mountain_aid.catala_en", "HeatingAid", false);
    assert!(
        text.contains(
            "  Condition (1 path): zone = Mountain and claim_date >= |2025-07-01| and income < $30,000.00\n"
        ),
        "{text}"
    );
    let doc: Value = serde_json::from_str(&concolic("mountain_aid.catala_en", "HeatingAid", true))
        .expect("JSON output");
    let condition = &doc["findings"][0]["condition"];
    assert_eq!(condition["paths"], 1);
    let constraints = condition["cases"][0]["constraints"]
        .as_array()
        .expect("constraints");
    assert_eq!(constraints.len(), 3);
    assert_eq!(constraints[0]["input"], "zone");
    assert_eq!(constraints[0]["one_of"], serde_json::json!(["Mountain"]));
    // The date bound: from 1 July 2025, inclusive, no upper bound beyond the explored range.
    assert_eq!(constraints[1]["unit"], "date");
    assert_eq!(
        constraints[1]["ranges"][0]["min"],
        serde_json::json!({"value": "2025-07-01", "inclusive": true})
    );
    // Income below $30,000: at most $29,999.99, unbounded below.
    assert_eq!(constraints[2]["unit"], "money");
    assert_eq!(constraints[2]["ranges"][0]["min"], Value::Null);
    assert_eq!(
        constraints[2]["ranges"][0]["max"],
        serde_json::json!({"value": "29999.99", "inclusive": true})
    );
}

#[test]
fn sarif_and_junit_messages_carry_the_condition() {
    let dir = std::env::temp_dir().join(format!("lexprobe-conditions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (sarif, junit) = (dir.join("p.sarif"), dir.join("p.xml"));
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .arg(fixture("allowance_conflict.catala_en"))
        .args(["--scope", "Allowance", "--sarif"])
        .arg(&sarif)
        .arg("--junit")
        .arg(&junit)
        .output()
        .expect("lexprobe runs");
    assert_eq!(out.status.code(), Some(1), "a problem was found");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF written"))
        .expect("SARIF is JSON");
    let result = &log["runs"][0]["results"][0];
    let message = result["message"]["text"].as_str().expect("message");
    assert!(
        message.contains(" When: disabled and children >= 3. Inputs of test"),
        "{message}"
    );
    assert_eq!(
        result["properties"]["condition"]["cases"][0]["text"],
        "disabled and children >= 3"
    );
    let xml = std::fs::read_to_string(&junit).expect("JUnit written");
    assert!(
        xml.contains("When: disabled and children &gt;= 3. Inputs:"),
        "{xml}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
