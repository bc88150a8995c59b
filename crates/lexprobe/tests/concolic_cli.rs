//! `lexprobe concolic` end to end: JSON Lines streaming with the closing statistics and the
//! distinct problems found, the same figures with two workers, and checkpoints that a second
//! run resumes.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fig5() -> PathBuf {
    workspace().join("tests/fixtures/concolic/fig5_default.catala_en")
}

/// Runs `lexprobe concolic` and returns its exit code and stdout lines parsed as JSON.
fn concolic(args: &[&str]) -> (i32, Vec<Json>) {
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .args(args)
        .output()
        .expect("lexprobe starts");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Json::Null))
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn jsonl_streams_the_five_paths_of_fig5_then_stats_and_findings() {
    let file = fig5();
    let file = file.to_string_lossy();
    for jobs in ["1", "2"] {
        let (code, lines) = concolic(&[
            &file, "--scope", "Fig5", "--jsonl", "--check", "--jobs", jobs,
        ]);
        // Fig. 5 has a conflict and an empty default: problems found, exit code 1.
        assert_eq!(code, 1);
        // Five tests (Fig. 5: outcomes 1, conflict, 3, no applicable rule, 2), then the stats.
        assert_eq!(lines.len(), 6, "jobs {jobs}");
        let mut outcomes: Vec<&str> = lines[..5]
            .iter()
            .map(|t| t["outcome"].as_str().unwrap_or("?"))
            .collect();
        outcomes.sort();
        assert_eq!(outcomes, ["conflict", "no_value", "ok", "ok", "ok"]);
        let last = &lines[5];
        assert_eq!(last["stats"]["tests"], 5);
        assert_eq!(last["stats"]["complete"], true);
        // Two distinct problems, each seen once: the conflict of the two exceptions (both
        // rules named) and the empty default.
        let findings = last["findings"].as_array().cloned().unwrap_or_default();
        let mut kinds: Vec<(String, u64, usize)> = findings
            .iter()
            .map(|f| {
                (
                    f["kind"].as_str().unwrap_or("?").to_string(),
                    f["tests"].as_u64().unwrap_or(0),
                    f["error"]["positions"].as_array().map_or(0, Vec::len),
                )
            })
            .collect();
        kinds.sort();
        assert_eq!(
            kinds,
            [
                ("conflict".to_string(), 1, 2),
                ("no_value".to_string(), 1, 1)
            ]
        );
    }
}

#[test]
fn a_checkpointed_run_cut_short_is_finished_by_resume() {
    let dir = std::env::temp_dir().join(format!("lexprobe-ckpt-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ckpt = dir.join("fig5.ckpt");
    let ckpt = ckpt.to_string_lossy();
    let file = fig5();
    let file = file.to_string_lossy();
    let (code, first) = concolic(&[
        &file,
        "--scope",
        "Fig5",
        "--jsonl",
        "--max-tests",
        "2",
        "--checkpoint",
        &ckpt,
    ]);
    // Outcomes 2, then 3 (x = 0, then x = 1: realistic inputs try the non-negative side
    // first): no problem in this part.
    assert_eq!(code, 0);
    assert_eq!(first.len(), 3);
    assert_eq!(first[2]["stats"]["complete"], false);
    let (code, second) = concolic(&[&file, "--scope", "Fig5", "--jsonl", "--resume", &ckpt]);
    // No applicable rule, the conflict, 1: problems found in this part.
    assert_eq!(code, 1);
    // The three remaining paths, and figures covering both parts.
    assert_eq!(second.len(), 4);
    assert_eq!(second[3]["stats"]["tests"], 5);
    assert_eq!(second[3]["stats"]["complete"], true);
    let mut all: Vec<String> = first[..2]
        .iter()
        .chain(&second[..3])
        .map(|t| format!("{} {}", t["outcome"], t["inputs"]))
        .collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 5, "{all:?}");
    // A checkpoint written with other optimizations is refused.
    let (code, _) = concolic(&[
        &file, "--scope", "Fig5", "--resume", &ckpt, "--optim", "none",
    ]);
    assert_eq!(code, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn new_branches_streams_the_same_tests_and_refuses_checkpoints() {
    let late = workspace().join("tests/fixtures/concolic/late_branch.catala_en");
    let late = late.to_string_lossy();
    let kinds = |lines: &[Json]| -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| l.get("outcome").and_then(Json::as_str))
            .map(str::to_string)
            .collect()
    };
    // The fixture's missing rule is a problem: exit code 1 in either order.
    let (code, dfs) = concolic(&[&late, "--scope", "Late", "--jsonl"]);
    assert_eq!(code, 1);
    let (code, nbf) = concolic(&[
        &late,
        "--scope",
        "Late",
        "--jsonl",
        "--strategy",
        "new-branches",
    ]);
    assert_eq!(code, 1);
    // 17 paths either way; the missing rule (with `exempt`) is the 17th depth-first and the
    // 6th with new branches first (see the fixture).
    let (dfs, nbf) = (kinds(&dfs), kinds(&nbf));
    assert_eq!((dfs.len(), nbf.len()), (17, 17));
    assert_eq!(dfs.iter().position(|k| k == "no_value"), Some(16));
    assert_eq!(nbf.iter().position(|k| k == "no_value"), Some(5));
    let ckpt = std::env::temp_dir().join(format!("lexprobe-nb-{}.ckpt", std::process::id()));
    let ckpt = ckpt.to_string_lossy();
    let (code, _) = concolic(&[
        &late,
        "--scope",
        "Late",
        "--strategy",
        "new-branches",
        "--checkpoint",
        &ckpt,
    ]);
    assert_eq!(code, 2, "--checkpoint with new-branches is a usage error");
}

#[test]
fn dump_unknown_creates_its_directory_and_refuses_one_it_cannot_create() {
    let file = fig5();
    let file = file.to_string_lossy();
    let dir =
        std::env::temp_dir().join(format!("lexprobe-dump-cli-{}/queries", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy();
    // Fig. 5's queries are all answered: the directory is made and stays empty.
    let (code, lines) = concolic(&[
        &file,
        "--scope",
        "Fig5",
        "--jsonl",
        "--dump-unknown",
        &d,
        "--exit-zero",
    ]);
    assert_eq!(code, 0);
    assert_eq!(lines.iter().filter(|l| l.get("path").is_some()).count(), 5);
    let entries = std::fs::read_dir(&dir).map(|d| d.count()).ok();
    assert_eq!(entries, Some(0));
    // Below a regular file no directory can be made: a usage error before exploring.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").expect("a file in the temporary directory");
    let below = blocker.join("queries");
    let (code, lines) = concolic(&[
        &file,
        "--scope",
        "Fig5",
        "--jsonl",
        "--dump-unknown",
        &below.to_string_lossy(),
    ]);
    assert_eq!(code, 2);
    assert!(lines.is_empty());
    let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
}
