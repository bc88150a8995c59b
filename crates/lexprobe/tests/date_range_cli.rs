//! `lexprobe concolic --date-range`: the dates test inputs are preferred within, on the benefit
//! of `tests/fixtures/realistic` (date literals from 2023 to 2025; the large amount, $300, is
//! paid from 1 June 2024 on to households with two children or more).

use serde_json::Value as Json;
use std::path::PathBuf;
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realistic/benefit.catala_en")
}

fn concolic(extra: &[&str]) -> (i32, Json, String) {
    let file = fixture();
    let o = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args([
            "concolic",
            file.to_str().unwrap_or_default(),
            "--scope",
            "Benefit",
        ])
        .args(["--format", "json", "--exit-zero"])
        .args(extra)
        .output()
        .expect("lexprobe starts");
    let doc = serde_json::from_slice(&o.stdout).unwrap_or(Json::Null);
    (
        o.status.code().unwrap_or(-1),
        doc,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The claim dates of the tests paid the large amount (claim_date >= 2024-06-01: any date from
/// then on is allowed, so the preferred range decides).
fn large_amount_claim_dates(doc: &Json) -> Vec<String> {
    let tests = doc["tests"].as_array().cloned().unwrap_or_default();
    tests
        .iter()
        .filter(|t| t["outputs"]["amount"] == "300.00")
        .filter_map(|t| {
            let text = t["inputs"]["claim_date"].to_string();
            Some(text.trim_matches('"').to_string()).filter(|s| s.len() == 10)
        })
        .collect()
}

#[test]
fn dates_are_preferred_within_the_given_range_and_a_bad_range_is_refused() {
    // Default: the program's years, 2023 to 2025.
    let (code, doc, err) = concolic(&[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        doc["bounds"]["preferred_dates"],
        serde_json::json!(["2023-01-01", "2025-12-31"])
    );
    let dates = large_amount_claim_dates(&doc);
    assert!(!dates.is_empty(), "{doc}");
    assert!(
        dates
            .iter()
            .all(|d| d.as_str() >= "2024-06-01" && d.as_str() <= "2025-12-31"),
        "{dates:?}"
    );
    // Given as years: from 1 January 2030 to 31 December 2031; the large amount's path allows it.
    let (code, doc, err) = concolic(&["--date-range", "2030..2031"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        doc["bounds"]["preferred_dates"],
        serde_json::json!(["2030-01-01", "2031-12-31"])
    );
    let dates = large_amount_claim_dates(&doc);
    assert!(!dates.is_empty(), "{doc}");
    assert!(
        dates
            .iter()
            .all(|d| d.starts_with("2030-") || d.starts_with("2031-")),
        "{dates:?}"
    );
    // The same number of tests: a preference, not a bound.
    let (_, default_doc, _) = concolic(&[]);
    assert_eq!(doc["stats"]["tests"], default_doc["stats"]["tests"]);
    // Bad ranges are usage errors that say what is expected.
    for bad in ["2031..2030", "2030", "2030-02-30..2031", "1800..1900"] {
        let (code, _, err) = concolic(&["--date-range", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--date-range"), "{bad}: {err}");
    }
}
