//! `lexprobe diff --order directed|blind` on `tests/fixtures/diff/hidden_change`: a one-value
//! change (region 1's rent supplement above $500, $50 → $60) evaluated before eight
//! independent circumstances. The derivation of the path pairs each order needs is in the
//! fixtures' README and repeated beside each test.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pair() -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/diff/hidden_change");
    let f = |v: &str| -> String {
        let p: PathBuf = dir.join(format!("{v}.catala_en"));
        p.display().to_string()
    };
    (f("old"), f("new"))
}

/// `lexprobe diff OLD NEW -s HouseholdGrant --format json EXTRA…`: exit code and JSON.
fn diff(extra: &[&str]) -> (i32, Json) {
    let (old, new) = pair();
    let mut args = vec![
        "diff",
        old.as_str(),
        new.as_str(),
        "-s",
        "HouseholdGrant",
        "--format",
        "json",
    ];
    args.extend(extra);
    let out = match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(&args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    };
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
fn the_directed_order_finds_the_hidden_change_within_five_pairs() {
    // Pair 1 (every input 0 or false): region ≠ 1, then the eight circumstances. `region = 1`
    // is a gate (its then-branch holds the changed amount): negated first. Pair 2: region 1,
    // rent ≤ $500; `rent > $500` is a gate too: negated. Pair 3: region 1, rent above $500,
    // where OLD gives $50 and NEW $60: the versions differ there.
    let (code, j) = diff(&["--max-pairs", "5"]);
    assert_eq!(code, 1, "{j:#}");
    assert_eq!(j["verdict"], "differs");
    let c = conditions(&j);
    assert!(
        !c.is_empty()
            && c.iter()
                .all(|c| c.contains("region = 1 and rent > $500.00")),
        "{c:?}"
    );
    let example = &j["regions"][0]["example"];
    assert_eq!(example["old"]["outputs"]["amount"], "50.00", "{j:#}");
    assert_eq!(example["new"]["outputs"]["amount"], "60.00", "{j:#}");
}

#[test]
fn the_blind_order_does_not_reach_it_within_five_pairs() {
    // The blind order negates first the branches whose other way no pair has taken, the
    // deepest first: after pair 1, the eight circumstances (each on the prefix `region ≠ 1`,
    // so pairs 2 to 9 stay out of region 1) come before `region = 1`, which pair 10 at the
    // earliest takes. Within five pairs the versions agree everywhere explored: unknown.
    let (code, j) = diff(&["--max-pairs", "5", "--order", "blind"]);
    assert_eq!(code, 3, "{j:#}");
    assert_eq!(j["verdict"], "unknown");
    assert!(conditions(&j).is_empty(), "{j:#}");
}

#[test]
fn both_orders_explore_the_same_pairs_to_the_same_answer() {
    // Complete, the order does not matter: 3 ways for region and rent (region ≠ 1; region 1
    // with rent ≤ $500; above) times 2^8 circumstances = 768 path pairs, and one region,
    // region 1 with rent above $500 (+$10.00).
    for order in ["directed", "blind"] {
        let (code, j) = diff(&["--order", order]);
        assert_eq!(code, 1, "{order}: {j:#}");
        assert_eq!(j["complete"], true, "{order}");
        assert_eq!(j["stats"]["path_pairs"], 768, "{order}");
        assert_eq!(conditions(&j), ["region = 1 and rent > $500.00"], "{order}");
        assert_eq!(
            j["regions"][0]["differences"][0]["constant"], "1000",
            "{order}"
        );
    }
}
