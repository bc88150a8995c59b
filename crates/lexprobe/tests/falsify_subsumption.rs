//! `lexprobe falsify --no-subsumption` on a retry loop of the HATch suite (skipped without the
//! shared corpus): `Stack_KVStore/cons` calls itself again with the same arguments after events
//! no specification looks at, so with the rule the entries it comes back to are dropped and the
//! search explores fewer states, with the same verdict (bounds exhausted, nothing falsified).

use std::path::Path;
use std::process::Command;

fn falsify(method: &Path, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("falsify")
        .arg(method)
        .args([
            "--exec-bound",
            "6",
            "--append-bound",
            "2",
            "--timeout",
            "600",
            "--format",
            "json",
            "--quiet",
        ])
        .args(extra)
        .output()
        .expect("lexprobe runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn entries_subsumed_are_not_explored_again_unless_asked() {
    let method = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/hatch-benchmarks/ri/Stack_KVStore/cons.ml");
    if !method.is_file() {
        eprintln!("{} not found: test skipped", method.display());
        return;
    }
    let with = falsify(&method, &[]);
    let without = falsify(&method, &["--no-subsumption"]);
    for run in [&with, &without] {
        assert_eq!(run["falsified"], false, "{run}");
        assert_eq!(run["timed_out"], false, "{run}");
    }
    let states = |r: &serde_json::Value| r["states"].as_u64().expect("states");
    assert!(
        states(&with) < states(&without),
        "{} states with the rule, {} without",
        states(&with),
        states(&without)
    );
}
