//! Command-line mistakes get a clear message and the documented exit code (2: bad usage; 123:
//! a Catala error): a directory given where a Catala file is expected, an empty file, `lexprobe
//! test` on paths that hold no test or do not exist, and an unwritable `--checkpoint` path for
//! `lexprobe concolic` (refused before the exploration starts).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lexprobe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("lexprobe starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch folder of this test binary, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-usage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

#[test]
fn a_directory_is_not_a_catala_file() {
    let dir = "tests/fixtures/json_input";
    for args in [
        vec!["run", dir, "--scope", "Exact"],
        vec!["typecheck", dir],
        vec!["concolic", dir, "--scope", "Exact"],
        vec!["mutate", dir, "--scope", "Exact"],
    ] {
        let out = lexprobe(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{dir} is a directory")),
            "{args:?}: {err}"
        );
        assert!(err.contains("lexprobe test"), "{args:?}: {err}");
    }
}

#[test]
fn an_empty_file_has_no_scope() {
    let dir = scratch("empty");
    let file = dir.join("empty.catala_en");
    std::fs::write(&file, "\n  \n").expect("write");
    let path = file.to_str().expect("utf-8 path");
    let out = lexprobe(&["run", path, "--scope", "A"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(123), "{err}");
    assert!(err.contains("empty.catala_en is empty"), "{err}");
    let out = lexprobe(&["concolic", path, "--scope", "A"]);
    assert_eq!(out.status.code(), Some(123), "{}", stderr(&out));
    // An empty file type-checks, as with Catala.
    let out = lexprobe(&["typecheck", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn test_without_any_test_is_bad_usage() {
    let dir = scratch("notest");
    let prose = dir.join("prose.catala_en");
    std::fs::write(&prose, "# A heading\n\nOnly prose, no test.\n").expect("write");
    // A file named on the command line without a test.
    let out = lexprobe(&["test", prose.to_str().expect("utf-8 path")]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("prose.catala_en: no test"), "{err}");
    assert!(err.contains("no test found in"), "{err}");
    // A directory without a test.
    let out = lexprobe(&["test", dir.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no test found in"));
    // A path that does not exist.
    let missing = dir.join("missing.catala_en");
    let out = lexprobe(&["test", missing.to_str().expect("utf-8 path")]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("missing.catala_en: no such file or directory"),
        "{err}"
    );
    // With a test beside it, the file without one is only reported.
    let out = lexprobe(&[
        "test",
        prose.to_str().expect("utf-8 path"),
        "tests/fixtures/eval/assertions.catala_en",
    ]);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("prose.catala_en: no test"), "{err}");
}

#[test]
fn an_unwritable_checkpoint_is_refused_before_the_run() {
    let dir = scratch("checkpoint");
    let file = "tests/fixtures/json_input/exact.catala_en";
    // In a folder that does not exist.
    let nowhere = dir.join("no/such/folder/run.ckpt");
    let out = lexprobe(&[
        "concolic",
        file,
        "--scope",
        "Exact",
        "--checkpoint",
        nowhere.to_str().expect("utf-8 path"),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--checkpoint"), "{err}");
    assert!(err.contains("cannot write there"), "{err}");
    // Refused before the run: no test was printed.
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A directory.
    let out = lexprobe(&[
        "concolic",
        file,
        "--scope",
        "Exact",
        "--checkpoint",
        dir.to_str().expect("utf-8 path"),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is a directory"), "{err}");
    assert!(out.stdout.is_empty());
    // A writable path: accepted, and the check leaves no temporary file behind.
    let good = dir.join("run.ckpt");
    let out = lexprobe(&[
        "concolic",
        file,
        "--scope",
        "Exact",
        "--max-tests",
        "1",
        "--checkpoint",
        good.to_str().expect("utf-8 path"),
    ]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("run.tmp").exists());
}
