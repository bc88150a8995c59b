//! `lexprobe concolic --max-list-length`: list inputs are explored at every length up to the
//! bound, and the bounds `complete` holds within are printed beside it (JSON, JSON Lines and
//! text); inputs kept fixed are named in `incomplete`; a hint longer than the bound raises its
//! list's bound; a shard refuses a plan made for another bound.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic_inputs")
        .join(name)
}

/// Runs `lexprobe` and returns its exit code and stdout.
fn lexprobe(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .output()
        .expect("lexprobe starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn json_of(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or(Json::Null)
}

fn bonus() -> String {
    fixture("list_of_integers.catala_en")
        .to_string_lossy()
        .into_owned()
}

/// The lengths of the `amounts` lists of the tests, and their `bonus` outputs.
fn lengths_and_bonuses(doc: &Json) -> (Vec<usize>, Vec<String>) {
    let tests = doc["tests"].as_array().cloned().unwrap_or_default();
    let mut lengths: Vec<usize> = tests
        .iter()
        .map(|t| {
            t["inputs"]["amounts"]
                .as_array()
                .map_or(usize::MAX, Vec::len)
        })
        .collect();
    lengths.sort();
    lengths.dedup();
    let mut bonuses: Vec<String> = tests
        .iter()
        .map(|t| t["outputs"]["bonus"].as_str().unwrap_or("?").to_string())
        .collect();
    bonuses.sort();
    bonuses.dedup();
    (lengths, bonuses)
}

#[test]
fn json_states_the_bounds_and_the_list_bound_is_the_flag() {
    let file = bonus();
    let (code, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Bonus",
        "--format",
        "json",
        "--max-list-length",
        "2",
    ]);
    assert_eq!(code, 0);
    let doc = json_of(&out);
    assert_eq!(doc["stats"]["complete"], true);
    assert_eq!(doc["incomplete"], serde_json::json!([]));
    for bounds in [&doc["bounds"], &doc["stats"]["bounds"]] {
        assert_eq!(bounds["max_list_length"], 2);
        assert_eq!(
            bounds["dates"],
            serde_json::json!(["1900-01-01", "2199-12-31"])
        );
    }
    // Lengths 0, 1 and 2; the bonus of 7 needs two amounts over 100 in all.
    let (lengths, bonuses) = lengths_and_bonuses(&doc);
    assert_eq!(lengths, vec![0, 1, 2]);
    assert_eq!(bonuses, vec!["0", "1", "7"]);
    // The default bound is 3.
    let (code, out) = lexprobe(&["concolic", &file, "--scope", "Bonus", "--format", "json"]);
    assert_eq!(code, 0);
    let doc = json_of(&out);
    assert_eq!(doc["bounds"]["max_list_length"], 3);
    assert_eq!(lengths_and_bonuses(&doc).0, vec![0, 1, 2, 3]);
    // Within a bound of 1 the bonus of 7 is out of reach, and that is complete.
    let (_, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Bonus",
        "--format",
        "json",
        "--max-list-length",
        "1",
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["stats"]["complete"], true);
    assert_eq!(
        lengths_and_bonuses(&doc),
        (vec![0, 1], vec!["0".to_string()])
    );
}

#[test]
fn jsonl_and_text_state_the_bounds_beside_the_verdict() {
    let file = bonus();
    let (code, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Bonus",
        "--jsonl",
        "--max-list-length",
        "2",
    ]);
    assert_eq!(code, 0);
    let last = out.lines().last().map(json_of).unwrap_or(Json::Null);
    assert_eq!(last["stats"]["complete"], true);
    assert_eq!(last["bounds"]["max_list_length"], 2);
    let (code, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Bonus",
        "--max-list-length",
        "2",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "Exploration complete within the bounds: lists of at most 2 elements, dates from 1900-01-01 to 2199-12-31"
        ),
        "{out}"
    );
}

#[test]
fn a_fixed_input_is_named_and_the_run_is_not_complete() {
    let file = fixture("fixed.catala_en");
    let file = file.to_string_lossy();
    let (_, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "WithFunction",
        "--format",
        "json",
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["stats"]["complete"], false);
    assert_eq!(
        doc["incomplete"],
        serde_json::json!(["rate: function, fixed"])
    );
    let (_, out) = lexprobe(&["concolic", &file, "--scope", "WithFunction"]);
    assert!(out.contains("rate: function, fixed"), "{out}");
    assert!(
        out.contains("Exploration not complete within the bounds"),
        "{out}"
    );
}

#[test]
fn a_longer_hint_raises_its_lists_bound() {
    let file = bonus();
    let (code, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Bonus",
        "--format",
        "json",
        "--max-list-length",
        "1",
        "--hints",
        r#"{"amounts": [50, 60]}"#,
    ]);
    assert_eq!(code, 0);
    let doc = json_of(&out);
    assert_eq!(doc["stats"]["complete"], true);
    assert_eq!(doc["bounds"]["max_list_length"], 1);
    assert_eq!(
        doc["bounds"]["raised_list_lengths"],
        serde_json::json!({"amounts": 2})
    );
    // The hint is the first test; two amounts now reach the bonus of 7.
    assert_eq!(
        doc["tests"][0]["inputs"]["amounts"],
        serde_json::json!(["50", "60"])
    );
    let (lengths, bonuses) = lengths_and_bonuses(&doc);
    assert_eq!(lengths, vec![0, 1, 2]);
    assert_eq!(bonuses, vec!["0", "1", "7"]);
}

#[test]
fn a_shard_explores_the_plans_bound_and_refuses_another() {
    let file = fixture("list_of_structures.catala_en");
    let file = file.to_string_lossy();
    let dir = std::env::temp_dir().join(format!("lexprobe-bounds-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let plan = dir.join("plan.json");
    let (code, out) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Allowance",
        "--plan",
        "1",
        "--max-list-length",
        "2",
    ]);
    assert_eq!(code, 0);
    assert!(std::fs::write(&plan, out).is_ok());
    let plan = plan.to_string_lossy();
    let shard = |bound: &str| {
        lexprobe(&[
            "concolic",
            &file,
            "--scope",
            "Allowance",
            "--plan-file",
            &plan,
            "--shard",
            "0/1",
            "--format",
            "json",
            "--max-list-length",
            bound,
        ])
    };
    let (code, out) = shard("2");
    assert_eq!(code, 0);
    let doc = json_of(&out);
    assert_eq!(doc["stats"]["complete"], true);
    assert_eq!(doc["bounds"]["max_list_length"], 2);
    let (whole_code, whole) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "Allowance",
        "--format",
        "json",
        "--max-list-length",
        "2",
    ]);
    assert_eq!(whole_code, 0);
    assert_eq!(doc["stats"]["tests"], json_of(&whole)["stats"]["tests"]);
    let (code, _) = shard("3");
    assert_ne!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}
