//! `lexprobe audit`: every scope of a file with inputs is explored and audited, one row each
//! (JSON and text); a complete exploration has no missing path (exit 0); a scope with a
//! function input is named as not audited; bad options are usage errors (exit 2).

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(dir: &str, name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(dir)
        .join(name);
    p.to_string_lossy().into_owned()
}

/// Runs `lexprobe` and returns its exit code, stdout and stderr.
fn lexprobe(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .output()
        .expect("lexprobe starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_scope_with_inputs_is_audited_and_complete_ones_miss_nothing() {
    let file = fixture("concolic", "branching.catala_en");
    let (code, out, err) = lexprobe(&["audit", &file, "--runs", "300", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Json = serde_json::from_str(&out).unwrap_or(Json::Null);
    let rows = doc["scopes"].as_array().cloned().unwrap_or_default();
    // The fixture declares nine scopes, each with inputs.
    assert_eq!(rows.len(), 9, "{out}");
    for r in &rows {
        assert_eq!(r["complete"], Json::Bool(true), "{r}");
        assert_eq!(r["missing_paths"], Json::from(0), "{r}");
        assert_eq!(r["random_runs"], Json::from(300), "{r}");
    }
    assert_eq!(doc["seed"], Json::from(1));
}

#[test]
fn a_list_input_is_audited_within_the_length_bound() {
    let file = fixture("concolic_inputs", "list_of_integers.catala_en");
    let (code, out, err) = lexprobe(&["audit", &file, "--runs", "500", "--seed", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("complete"), "{out}");
    assert!(
        out.contains("500 random runs") && out.contains("0 runs on 0 paths missing"),
        "{out}"
    );
}

#[test]
fn a_function_input_is_named_as_not_audited() {
    let file = fixture("concolic_inputs", "fixed.catala_en");
    let (code, out, err) = lexprobe(&["audit", &file, "--scope", "WithFunction"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("not complete (rate: function, fixed)"),
        "{out}"
    );
    assert!(
        out.contains("not audited: no value can be drawn at random for rate"),
        "{out}"
    );
}

#[test]
fn bad_options_are_usage_errors() {
    let file = fixture("concolic", "discount.catala_en");
    for args in [
        vec!["audit", file.as_str(), "--runs", "0"],
        vec!["audit", file.as_str(), "--timeout", "-1"],
        vec!["audit", file.as_str(), "--optim", "magic"],
    ] {
        let (code, _, err) = lexprobe(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("lexprobe audit"), "{err}");
    }
}
