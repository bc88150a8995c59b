//! What the command-line tests of `--jobs` and of shards share: the `lexprobe` binary run
//! with arguments, a scratch directory per test, standard output written to a file, and the
//! path identifiers and closing line of a JSON Lines output.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An empty directory for one test (`prefix` names the test file, `name` the test).
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

/// Runs `lexprobe ARGS`.
pub fn lexprobe(args: &[&str]) -> Output {
    // These tests compare paths, not verdicts: problems found do not fail `concolic` or
    // `merge` (a test of the exit code runs the binary itself).
    let verdict = matches!(args.first(), Some(&"concolic") | Some(&"merge"));
    let exit_zero: &[&str] = if verdict && !args.contains(&"--exit-zero") {
        &["--exit-zero"]
    } else {
        &[]
    };
    match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .args(exit_zero)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    }
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// Runs lexprobe, writes its standard output to `out`, returns the exit code and the error
/// stream.
pub fn to_file(args: &[&str], out: &Path) -> (i32, String) {
    let o = lexprobe(args);
    if let Err(e) = std::fs::write(out, &o.stdout) {
        panic!("{}: {e}", out.display());
    }
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// [`to_file`] for a run that must exit 0.
pub fn to_file_ok(args: &[&str], out: &Path) {
    let (code, err) = to_file(args, out);
    assert_eq!(code, 0, "{args:?}: {err}");
}

/// The path identifiers of the tests of a JSON Lines output, in file order.
pub fn ids_in_order(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|v| v.get("outcome").is_some())
        .map(|v| v["path"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// The path identifiers of the tests of a JSON Lines output, sorted.
pub fn ids_sorted(file: &Path) -> Vec<String> {
    let mut v = ids_in_order(file);
    v.sort();
    v
}

/// The last line of a JSON Lines output (its statistics and coverage).
pub fn closing_line(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    serde_json::from_str(text.lines().last().unwrap_or("")).unwrap_or_default()
}
