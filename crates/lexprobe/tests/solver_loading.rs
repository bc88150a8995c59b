//! libz3 is loaded only when a query reaches Z3: an exploration whose every query is answered
//! before Z3 runs even where the library cannot be loaded (here: `LEXPROBE_LIBZ3` names a
//! missing file), and one that needs Z3 stops with a message saying what to install.
//! On x86-64 GNU/Linux builds (elsewhere, or built with `LEXPROBE_EAGER_Z3`, libz3 is
//! linked at start and these tests have nothing to check).

use std::path::Path;
use std::process::{Command, Output};

fn lazy_build() -> bool {
    let eager = option_env!("LEXPROBE_EAGER_Z3").is_some_and(|v| !v.is_empty() && v != "0");
    cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) && !eager
}

fn concolic_without_libz3(fixture: &str, scope: &str) -> Output {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic")
        .join(fixture);
    let run = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .arg(&file)
        .args(["--scope", scope, "--format", "json"])
        .env("LEXPROBE_LIBZ3", "/nonexistent/libz3.so")
        .output();
    match run {
        Ok(o) => o,
        Err(e) => panic!("cannot run lexprobe: {e}"),
    }
}

#[test]
fn an_exploration_answered_before_z3_runs_without_the_library() {
    if !lazy_build() {
        return;
    }
    // Fig. 5 of the CUTECat paper: booleans and comparisons with constants, all decided by
    // the exact layer; the paper's five tests.
    let out = concolic_without_libz3("fig5_default.catala_en", "Fig5");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("needs the Z3 solver"), "{stderr}");
    let report: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("no JSON report ({e}); stderr: {stderr}"),
    };
    assert_eq!(report["stats"]["tests"], 5, "{}", report["stats"]);
    assert_eq!(report["stats"]["complete"], true, "{}", report["stats"]);
}

#[test]
fn an_exploration_that_needs_z3_says_what_to_install() {
    if !lazy_build() {
        return;
    }
    // A branch without inputs on two amounts: the layers before Z3 find models near the last
    // inputs but cannot prove that there is none (claim > allowance and allowance > claim: no
    // bound on either amount alone refutes it).
    let out = concolic_without_libz3("contradictory_thresholds.catala_en", "Bonus");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs the Z3 solver"), "{stderr}");
    assert!(stderr.contains("/nonexistent/libz3.so"), "{stderr}");
    assert!(stderr.contains("apt install libz3-4"), "{stderr}");
}
