//! Concolic exploration and external functions: a branch that depends on an external
//! implementation's result (here the standard library's native `List.sequence`) cannot be
//! followed symbolically, so the exploration must call itself incomplete; the same branch on
//! the input itself gives both paths and a complete exploration.

use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;

fn explore(scope: &str) -> Json {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic_modules/external_sequence.catala_en");
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .arg(&fixture)
        .args(["--scope", scope, "--stats", "--format", "json"])
        .output()
        .expect("lexprobe runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

#[test]
fn a_branch_on_an_external_result_makes_the_exploration_incomplete() {
    let sequence = explore("Sequence");
    assert_eq!(sequence["stats"]["complete"], Json::Bool(false));
    assert_eq!(sequence["stats"]["tests"], Json::from(1));
    let reasons = sequence["incomplete"].to_string();
    assert!(reasons.contains("external"), "{reasons}");

    let plain = explore("Plain");
    assert_eq!(plain["stats"]["complete"], Json::Bool(true));
    // `n > 3` and its negation.
    assert_eq!(plain["stats"]["tests"], Json::from(2));
}
