//! Sharded exploration through the command line: `lexprobe concolic --plan`, shards as
//! separate processes, `lexprobe merge`. For 1, 3 and 8 shards the merged tests carry exactly
//! the path identifiers of one whole exploration, in depth-first order; a missing shard is
//! named; a plan refuses another program. A run and a shard killed with SIGKILL mid-way and
//! resumed from their checkpoints give, with what they had written before the kill, the whole
//! set again: no path lost, none twice after the merge.

mod cli_support;

use cli_support::{closing_line, ids_sorted, lexprobe, s, to_file, to_file_ok, workspace};
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    cli_support::scratch("shards", name)
}

/// The path identifiers of the tests of a JSON Lines output, in file order.
fn ids(file: &Path) -> Vec<String> {
    cli_support::ids_in_order(file)
}

/// A whole exploration's identifiers, sorted (and checked distinct).
fn whole(file: &Path, scope: &str, dir: &Path) -> Vec<String> {
    let out = dir.join("whole.jsonl");
    let (code, err) = to_file(&["concolic", s(file), "--scope", scope, "--jsonl"], &out);
    assert_eq!(code, 0, "{err}");
    let mut v = ids(&out);
    let n = v.len();
    v.sort();
    v.dedup();
    assert_eq!(v.len(), n, "a whole exploration reports a path twice");
    v
}

/// Makes a plan for `n` shards and runs them; returns the shard output files.
fn shards(file: &Path, scope: &str, n: usize, dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let plan = dir.join(format!("plan{n}.json"));
    let shards = n.to_string();
    let (code, err) = to_file(
        &["concolic", s(file), "--scope", scope, "--plan", &shards],
        &plan,
    );
    assert_eq!(code, 0, "{err}");
    let outs = (0..n)
        .map(|i| {
            let out = dir.join(format!("shard{n}-{i}.jsonl"));
            let spec = format!("{i}/{n}");
            let (code, err) = to_file(
                &[
                    "concolic",
                    s(file),
                    "--scope",
                    scope,
                    "--plan-file",
                    s(&plan),
                    "--shard",
                    &spec,
                    "--jsonl",
                ],
                &out,
            );
            assert_eq!(code, 0, "shard {i}: {err}");
            out
        })
        .collect();
    (plan, outs)
}

fn merge(files: &[PathBuf], out: &Path) -> (i32, String) {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| s(f)));
    to_file(&args, out)
}

/// The path identifiers of the tests of one JSON output, in its order.
fn test_paths(doc: &Json) -> Vec<String> {
    doc["tests"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["path"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn check_merged_shards(file: &Path, scope: &str, dir: &Path) {
    let expected = whole(file, scope, dir);
    // One and eight shards: the merge gives the whole exploration's paths too.
    for n in [1, 8] {
        let (_, outs) = shards(file, scope, n, dir);
        let merged = dir.join(format!("merged{n}.jsonl"));
        let (code, err) = merge(&outs, &merged);
        assert_eq!(code, 0, "{n} shards: {err}");
        assert_eq!(ids(&merged), expected, "{n} shards");
    }
    let (plan, outs) = shards(file, scope, 3, dir);
    let merged = dir.join("merged.jsonl");
    let (code, err) = merge(&outs, &merged);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("complete"), "{err}");
    // The same paths, each once, numbered in depth-first order (sorted identifiers).
    assert_eq!(ids(&merged), expected);
    // Shards hold disjoint subtrees: nothing to drop.
    let total: usize = outs.iter().map(|o| ids(o).len()).sum();
    assert_eq!(total, expected.len());
    // Each shard says what each of its subtrees cost; the tests add up to what it printed.
    for out in &outs {
        let coverage = &closing_line(out)["coverage"];
        let costs = coverage["costs"].as_array().cloned().unwrap_or_default();
        let subtrees = coverage["subtrees"].as_array().map_or(0, Vec::len);
        assert_eq!(costs.len(), subtrees, "{}", out.display());
        let tests: u64 = costs.iter().filter_map(|c| c[0].as_u64()).sum();
        assert_eq!(tests as usize, ids(out).len(), "{}", out.display());
        assert!(costs
            .iter()
            .all(|c| c[2].as_f64().is_some_and(|t| t >= 0.0)));
    }
    // The closing line sums the figures and counts the merged tests.
    let last = closing_line(&merged);
    assert_eq!(last["stats"]["tests"], expected.len());
    assert_eq!(last["stats"]["complete"], true);
    // One JSON object, from JSON Lines and one JSON object as inputs alike.
    let mut args = vec!["merge", "--format", "json"];
    args.extend(outs.iter().map(|f| s(f)));
    let o = lexprobe(&args);
    assert_eq!(o.status.code(), Some(0));
    let doc: Json = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let paths: Vec<String> = test_paths(&doc);
    assert_eq!(paths, expected);
    let as_object = dir.join("merged.json");
    let _ = std::fs::write(&as_object, &o.stdout);
    let (code, err) = merge(&[as_object], &dir.join("again.jsonl"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids(&dir.join("again.jsonl")), expected);
    // A shard left out is named, and the merge says incomplete.
    let (code, err) = merge(
        &[outs[0].clone(), outs[2].clone()],
        &dir.join("partial.jsonl"),
    );
    assert_eq!(code, 1);
    assert!(err.contains("incomplete: shard 1/3 missing"), "{err}");
    // … and its JSON lists the missing shard in `incomplete`.
    let partial = closing_line(&dir.join("partial.jsonl"));
    assert_eq!(partial["stats"]["complete"], false);
    let listed: Vec<&str> = partial["incomplete"]
        .as_array()
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    assert!(
        listed.contains(&"shard 1/3 missing: its subtrees are unexplored"),
        "{listed:?}"
    );
    // `--shard auto` reads a Slurm array task's index and count.
    let auto = dir.join("auto.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args([
            "concolic",
            s(file),
            "--scope",
            scope,
            "--plan-file",
            s(&plan),
        ])
        .args(["--shard", "auto", "--jsonl", "--exit-zero"])
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output();
    let o = match o {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(o.status.code(), Some(0));
    let _ = std::fs::write(&auto, &o.stdout);
    assert_eq!(ids(&auto), ids(&outs[1]));
}

#[test]
fn three_shards_merged_give_the_paths_of_one_run_on_a_fixture() {
    let dir = scratch("fixture");
    let file = workspace().join("tests/fixtures/concolic/discount.catala_en");
    check_merged_shards(&file, "Discount", &dir);
    // The same identifiers in one JSON object and, as comments, in the emitted test scopes.
    let o = lexprobe(&[
        "concolic",
        s(&file),
        "--scope",
        "Discount",
        "--format",
        "json",
        "--emit-tests",
        s(&dir),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let doc: Json = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let mut from_json: Vec<String> = test_paths(&doc);
    from_json.sort();
    assert_eq!(from_json, whole(&file, "Discount", &dir));
    let emitted =
        std::fs::read_to_string(dir.join("Discount_concolic.catala_en")).unwrap_or_default();
    // Every test is written once, `# path ID (OUTCOME)` atop its scope: a `#[test]` scope for
    // the paths that end normally, a test block for the others.
    let mut commented: Vec<String> = emitted
        .lines()
        .filter_map(|l| l.strip_prefix("# path "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect();
    commented.sort();
    assert!(!commented.is_empty());
    assert_eq!(commented, from_json);
    // A plan names its program: a shard of another program refuses it.
    let plan = dir.join("plan3.json");
    let other = workspace().join("tests/fixtures/concolic/fig5_default.catala_en");
    let o = lexprobe(&[
        "concolic",
        s(&other),
        "--scope",
        "Discount",
        "--plan-file",
        s(&plan),
        "--shard",
        "0/3",
    ]);
    assert_ne!(o.status.code(), Some(0));
    let o = lexprobe(&[
        "concolic",
        s(&workspace().join("tests/fixtures/concolic/branching.catala_en")),
        "--scope",
        "LabelScope",
        "--plan-file",
        s(&plan),
        "--shard",
        "0/3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("another program"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn family_quotient() -> Option<PathBuf> {
    let f = workspace()
        .join("../shared/corpus/cutecat-benchmarks/impot_revenu/nombre_de_parts.catala_fr");
    if f.is_file() {
        Some(f)
    } else {
        eprintln!("corpus not found: test skipped");
        None
    }
}

/// The family quotient in Catala's order (the paper's 381 paths are those of its order, checked
/// in the concolic crate's tests): the merged shards give the whole exploration's paths.
#[test]
fn three_shards_merged_give_the_paths_of_the_family_quotient() {
    let Some(file) = family_quotient() else {
        return;
    };
    let dir = scratch("quotient");
    check_merged_shards(&file, "Test", &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts `lexprobe concolic … --jsonl --checkpoint CK`, reads its output until it has
/// written `lines` tests and a checkpoint, then stops reading: the process blocks once the
/// pipe is full, and is killed with SIGKILL there. Writes what it had written to `out`.
fn kill_mid_way(args: &[&str], checkpoint: &Path, lines: usize, out: &Path) {
    let child = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .args([
            "--jsonl",
            "--checkpoint",
            s(checkpoint),
            "--checkpoint-every",
            "0.001",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let Some(stdout) = child.stdout.take() else {
        panic!("no pipe")
    };
    let mut reader = BufReader::new(stdout);
    let mut written = String::new();
    let mut read = 0;
    let start = Instant::now();
    while read < lines || !checkpoint.exists() {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => panic!("the exploration ended before it could be killed"),
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
        written.push_str(&line);
        read += 1;
        assert!(start.elapsed() < Duration::from_secs(120));
    }
    // Let it run into the full pipe.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        matches!(child.try_wait(), Ok(None)),
        "the exploration ended before it could be killed"
    );
    if let Err(e) = child.kill() {
        panic!("{e}");
    }
    let status = match child.wait() {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(status.signal(), Some(9), "not killed by SIGKILL");
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    written.push_str(&rest);
    if let Err(e) = std::fs::write(out, written) {
        panic!("{e}");
    }
}

#[test]
fn runs_and_shards_killed_mid_way_and_resumed_lose_and_double_no_path() {
    let Some(file) = family_quotient() else {
        return;
    };
    let dir = scratch("kill");
    let expected = whole(&file, "Test", &dir);
    // A whole exploration.
    let ck = dir.join("run.ckpt");
    let part1 = dir.join("part1.jsonl");
    kill_mid_way(&["concolic", s(&file), "--scope", "Test"], &ck, 40, &part1);
    let before = ids(&part1).len();
    assert!(
        before >= 40 && before < expected.len(),
        "{before} tests before the kill"
    );
    let part2 = dir.join("part2.jsonl");
    let (code, err) = to_file(
        &[
            "concolic",
            s(&file),
            "--scope",
            "Test",
            "--jsonl",
            "--resume",
            s(&ck),
            "--checkpoint",
            s(&ck),
        ],
        &part2,
    );
    assert_eq!(code, 0, "{err}");
    // Without the merge, the two parts may hold paths twice (those after the checkpoint);
    // with it, exactly the whole exploration's.
    assert!(before + ids(&part2).len() >= expected.len());
    let merged = dir.join("merged-run.jsonl");
    let (code, err) = merge(&[part1.clone(), part2.clone()], &merged);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids(&merged), expected);
    // The resumed run appended to the killed one's file (as `>>` or Slurm's
    // `--open-mode=append` do): its first line may follow the cut one on the same line.
    let appended = dir.join("appended.jsonl");
    let text = std::fs::read_to_string(&part1).unwrap_or_default()
        + &std::fs::read_to_string(&part2).unwrap_or_default();
    let _ = std::fs::write(&appended, text);
    let (code, err) = merge(&[appended], &dir.join("merged-appended.jsonl"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids(&dir.join("merged-appended.jsonl")), expected);
    // The first part alone is not complete, and says so.
    let (code, err) = merge(&[part1], &dir.join("alone.jsonl"));
    assert_eq!(code, 1, "{err}");

    // A shard: the largest of a plan for 3, killed and resumed, merged with the others.
    let (plan, mut outs) = shards(&file, "Test", 3, &dir);
    let Some(big) = (0..3).max_by_key(|i| ids(&outs[*i]).len()) else {
        panic!("no shard")
    };
    let spec = format!("{big}/3");
    let shard_args = [
        "concolic",
        s(&file),
        "--scope",
        "Test",
        "--plan-file",
        s(&plan),
        "--shard",
        &spec,
    ];
    let ck = dir.join("shard.ckpt");
    let cut = dir.join("shard-cut.jsonl");
    kill_mid_way(&shard_args, &ck, 30, &cut);
    assert!(ids(&cut).len() < ids(&outs[big]).len());
    // Merged without its resumption, the killed shard is named.
    outs[big] = cut.clone();
    let (code, err) = merge(&outs, &dir.join("cut.jsonl"));
    assert_eq!(code, 1);
    assert!(err.contains(&format!("shard {big}/3 cut short")), "{err}");
    let resumed = dir.join("shard-resumed.jsonl");
    let mut args = shard_args.to_vec();
    args.extend(["--jsonl", "--resume", s(&ck)]);
    let (code, err) = to_file(&args, &resumed);
    assert_eq!(code, 0, "{err}");
    outs.push(resumed);
    let merged = dir.join("merged-shards.jsonl");
    let (code, err) = merge(&outs, &merged);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids(&merged), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether the checkpoint file lists the shard's subtrees left (written by several threads).
fn lists_subtrees(checkpoint: &Path) -> bool {
    let text = std::fs::read_to_string(checkpoint).unwrap_or_default();
    let doc: Json = serde_json::from_str(&text).unwrap_or_default();
    doc["state"]["subtrees_listed"] == true
}

/// Shards explored by two threads with checkpoints: each stopped at a test limit, resumed by
/// two threads and stopped again, then resumed by one; the parts merged hold every path of
/// one whole exploration once, and the merge is complete.
#[test]
fn shards_of_two_threads_stopped_and_resumed_from_their_checkpoints_find_every_path_once() {
    let dir = scratch("jobs-resume");
    // 17 paths.
    let file = workspace().join("tests/fixtures/concolic/late_branch.catala_en");
    let expected = whole(&file, "Late", &dir);
    let plan = dir.join("plan.json");
    to_file_ok(
        &[
            "concolic",
            s(&file),
            "--scope",
            "Late",
            "--plan",
            "2",
            "--plan-subtrees",
            "6",
        ],
        &plan,
    );
    let mut parts = Vec::new();
    for i in 0..2 {
        let spec = format!("{i}/2");
        let ck = dir.join(format!("shard{i}.ckpt"));
        let shard = [
            "concolic",
            s(&file),
            "--scope",
            "Late",
            "--plan-file",
            s(&plan),
            "--shard",
            &spec,
            "--jsonl",
            "--checkpoint",
            s(&ck),
        ];
        let steps: [(&str, Option<&str>); 3] = [("2", Some("2")), ("2", Some("2")), ("1", None)];
        for (step, (jobs, max_tests)) in steps.into_iter().enumerate() {
            let out = dir.join(format!("shard{i}-part{step}.jsonl"));
            let mut args = shard.to_vec();
            args.extend(["--jobs", jobs]);
            if let Some(m) = max_tests {
                args.extend(["--max-tests", m]);
            }
            if step > 0 {
                args.extend(["--resume", s(&ck)]);
            }
            to_file_ok(&args, &out);
            let found = ids_sorted(&out).len();
            if let Some(m) = max_tests {
                // Two threads may each find a test when the limit is met.
                assert!(
                    (2..=3).contains(&found),
                    "shard {i}, part {step}: {found} tests"
                );
                // Stopped: the checkpoint of both threads lists the subtrees left.
                assert_eq!(closing_line(&out)["stats"]["complete"], false, "{m}");
                assert!(lists_subtrees(&ck), "shard {i}, part {step}");
            } else {
                assert_eq!(closing_line(&out)["stats"]["complete"], true);
            }
            parts.push(out);
        }
    }
    let merged = dir.join("merged.jsonl");
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    let (code, err) = to_file(&args, &merged);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids_sorted(&merged), expected);
    assert_eq!(closing_line(&merged)["stats"]["complete"], true);
    assert_eq!(closing_line(&merged)["stats"]["tests"], expected.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `merge` exits as `concolic` does on the merged exploration: 1 when its findings hold a
/// problem, 0 with `--exit-zero` (the findings still written). The fixture's Articles 2 and 3
/// both apply to a disabled household with three children or more: one conflict.
#[test]
fn a_merge_whose_findings_hold_a_problem_exits_1_unless_exit_zero() {
    let dir = scratch("merge-problems");
    let file = workspace().join("tests/fixtures/conditions/allowance_conflict.catala_en");
    let run = dir.join("run.jsonl");
    let (code, err) = to_file(
        &[
            "concolic",
            s(&file),
            "--scope",
            "Allowance",
            "--jsonl",
            "--exit-zero",
        ],
        &run,
    );
    assert_eq!(code, 0, "{err}");
    let merged = dir.join("merged.jsonl");
    // The binary itself: the shared helper runs `merge` with `--exit-zero`.
    let o = match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["merge", s(&run)])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    };
    let _ = std::fs::write(&merged, &o.stdout);
    let (code, err) = (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("1 distinct problem in the merged findings"),
        "{err}"
    );
    let findings = closing_line(&merged)["findings"].clone();
    assert_eq!(findings.as_array().map(Vec::len), Some(1), "{findings}");
    assert_eq!(findings[0]["kind"], "conflict", "{findings}");
    let (code, err) = to_file(&["merge", "--exit-zero", s(&run)], &merged);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
