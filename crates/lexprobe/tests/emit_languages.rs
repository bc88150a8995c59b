//! Test scopes written by `lexprobe concolic --emit-tests` are Catala of the explored file's
//! language, written by the one printer: for an English, a French and a Polish scope (written
//! for this test), the emitted file passes `lexprobe test` with every test passing: the
//! `#[test]` scopes of the paths ending normally and the ```catala-test-cli blocks of the paths
//! ending in an error.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic_emit")
        .join(name)
}

/// `exit_code`: 1 when the exploration finds a problem, 0 otherwise.
fn emit_and_replay(file: &str, scope: &str, ext: &str, expected_tests: usize, exit_code: i32) {
    let dir = std::env::temp_dir().join(format!("lexprobe-emit-{}-{}", std::process::id(), ext));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = env!("CARGO_BIN_EXE_lexprobe");
    let explore = Command::new(bin)
        .arg("concolic")
        .arg(fixture(file))
        .args(["--scope", scope, "--emit-tests"])
        .arg(&dir)
        .output()
        .expect("lexprobe concolic runs");
    assert_eq!(
        explore.status.code(),
        Some(exit_code),
        "{}",
        String::from_utf8_lossy(&explore.stderr)
    );
    let emitted = dir.join(format!("{scope}_concolic.{ext}"));
    let replay = Command::new(bin)
        .arg("test")
        .arg(&emitted)
        .output()
        .expect("lexprobe test runs");
    let stdout = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success(),
        "{}: {stdout}{}",
        emitted.display(),
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(
        stdout.contains(&format!("{expected_tests} passed, 0 failed")),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn emitted_tests_replay_in_english() {
    // income above or below $1,000: two paths, both computing their outputs; the date
    // computation is ambiguous on two more paths (a problem: exit code 1), each a test block.
    emit_and_replay("tax.catala_en", "Tax", "catala_en", 4, 1);
}

#[test]
fn emitted_tests_replay_in_french() {
    // Three paths: zero parts (division by zero, a test block), and the two brackets (one
    // with a structure and a case with a decimal content).
    emit_and_replay("impot.catala_fr", "Impôt", "catala_fr", 3, 1);
}

#[test]
fn emitted_tests_replay_in_polish() {
    // More than two children or not.
    emit_and_replay("podatek.catala_pl", "Podatek", "catala_pl", 2, 0);
}
