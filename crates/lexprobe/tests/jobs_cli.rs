//! `lexprobe concolic --jobs 2` with the options that once needed one worker: emitted tests,
//! checkpoints and resumption, shards. Each run is compared with `--jobs 1` on the same
//! program by its path identifiers, which do not depend on the inputs the solver chose: the
//! emitted file holds one test per path of the one-worker run and passes `lexprobe test`; a
//! two-worker run stopped at a test limit and resumed from its checkpoint, merged, has every
//! path once; the shards of a plan explored with two workers merge to the paths of one run.

mod cli_support;

use cli_support::{closing_line, lexprobe, s, to_file_ok as to_file, workspace};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    cli_support::scratch("jobs", name)
}

/// The path identifiers of the tests of a JSON Lines output, sorted.
fn ids(file: &Path) -> Vec<String> {
    cli_support::ids_sorted(file)
}

fn discount() -> PathBuf {
    workspace().join("tests/fixtures/concolic/discount.catala_en")
}

/// 17 paths.
fn late_branch() -> PathBuf {
    workspace().join("tests/fixtures/concolic/late_branch.catala_en")
}

/// The paths of a one-worker run, sorted (and checked distinct).
fn one_worker(file: &Path, scope: &str, dir: &Path) -> Vec<String> {
    let out = dir.join("one.jsonl");
    to_file(&["concolic", s(file), "--scope", scope, "--jsonl"], &out);
    let v = ids(&out);
    let mut distinct = v.clone();
    distinct.dedup();
    assert_eq!(distinct, v);
    // At least two paths to share (the discount: a taxable excess or none).
    assert!(v.len() >= 2, "{} paths", v.len());
    v
}

/// The `# path …` lines of an emitted test file, sorted.
fn emitted_paths(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# path "))
        // `# path 01` or `# path 01 (assertion)`: the identifier is the first word.
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect();
    // Paths ending in an error are listed with their identifier in backquotes.
    v.extend(text.lines().filter_map(|l| {
        let (_, rest) = l.split_once("(path identifier `")?;
        Some(rest.split('`').next()?.to_string())
    }));
    v.sort();
    v
}

#[test]
fn two_workers_emit_one_test_per_path_of_one_worker() {
    let dir = scratch("emit");
    let file = discount();
    let expected = one_worker(&file, "Discount", &dir);
    let mut by_jobs = Vec::new();
    for jobs in ["1", "2"] {
        let emit = dir.join(format!("emit{jobs}"));
        to_file(
            &[
                "concolic",
                s(&file),
                "--scope",
                "Discount",
                "--jobs",
                jobs,
                "--emit-tests",
                s(&emit),
            ],
            &dir.join(format!("out{jobs}.txt")),
        );
        let written = emit.join("Discount_concolic.catala_en");
        assert_eq!(emitted_paths(&written), expected, "--jobs {jobs}");
        let replay = lexprobe(&["test", s(&written)]);
        assert!(
            replay.status.success(),
            "--jobs {jobs}: {}",
            String::from_utf8_lossy(&replay.stdout)
        );
        by_jobs.push(String::from_utf8_lossy(&replay.stdout).into_owned());
    }
    // The same number of test scopes pass either way.
    let passed = |s: &str| {
        s.lines()
            .rev()
            .find(|l| l.contains("passed"))
            .map(str::to_string)
    };
    assert_eq!(passed(&by_jobs[0]), passed(&by_jobs[1]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_workers_stopped_and_resumed_from_their_checkpoint_find_every_path_once() {
    let dir = scratch("resume");
    let file = late_branch();
    let expected = one_worker(&file, "Late", &dir);
    let checkpoint = dir.join("run.ckpt");
    let common = [
        "concolic",
        s(&file),
        "--scope",
        "Late",
        "--jsonl",
        "--jobs",
        "2",
    ];
    let first = dir.join("part1.jsonl");
    let mut args = common.to_vec();
    args.extend(["--max-tests", "3", "--checkpoint", s(&checkpoint)]);
    to_file(&args, &first);
    assert!(ids(&first).len() >= 3);
    assert!(ids(&first).len() < expected.len());
    let second = dir.join("part2.jsonl");
    {
        assert!(checkpoint.is_file(), "no checkpoint written at the limit");
        let mut args = common.to_vec();
        args.extend(["--resume", s(&checkpoint)]);
        to_file(&args, &second);
        assert_eq!(closing_line(&second)["stats"]["complete"], true);
        // The resumed run counts on from the first part's tests.
        assert_eq!(
            closing_line(&second)["stats"]["tests"].as_u64(),
            Some(
                (ids(&second).len()
                    + serde_json::from_str::<Json>(
                        &std::fs::read_to_string(&checkpoint).unwrap_or_default()
                    )
                    .unwrap_or_default()["state"]["tests"]
                        .as_u64()
                        .unwrap_or(0) as usize) as u64
            )
        );
    }
    let merged = dir.join("merged.jsonl");
    let parts: Vec<&str> = [&first, &second]
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| s(p))
        .collect();
    let mut args = vec!["merge"];
    args.extend(parts);
    to_file(&args, &merged);
    assert_eq!(ids(&merged), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_explored_by_two_workers_merge_to_the_paths_of_one_run() {
    let dir = scratch("shards");
    let file = late_branch();
    let expected = one_worker(&file, "Late", &dir);
    let plan = dir.join("plan.json");
    to_file(
        &[
            "concolic",
            s(&file),
            "--scope",
            "Late",
            "--plan",
            "2",
            "--plan-subtrees",
            "4",
        ],
        &plan,
    );
    let mut outs = Vec::new();
    for i in 0..2 {
        let out = dir.join(format!("shard{i}.jsonl"));
        let spec = format!("{i}/2");
        to_file(
            &[
                "concolic",
                s(&file),
                "--scope",
                "Late",
                "--plan-file",
                s(&plan),
                "--shard",
                &spec,
                "--jsonl",
                "--jobs",
                "2",
            ],
            &out,
        );
        // Every subtree of the shard explored entirely.
        let coverage = &closing_line(&out)["coverage"];
        assert_eq!(coverage["complete"], coverage["subtrees"], "{coverage}");
        assert!(coverage["subtrees"]
            .as_array()
            .is_some_and(|a| !a.is_empty()));
        outs.push(out);
    }
    let total: usize = outs.iter().map(|o| ids(o).len()).sum();
    assert_eq!(total, expected.len());
    let merged = dir.join("merged.jsonl");
    let mut args = vec!["merge"];
    args.extend(outs.iter().map(|o| s(o)));
    to_file(&args, &merged);
    assert_eq!(ids(&merged), expected);
    assert_eq!(closing_line(&merged)["stats"]["complete"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `lexprobe metamorphic --prove` on the small benefit of `tests/fixtures/prove`, as JSON.
fn prove(model: &str, jobs: &str) -> (i32, Json) {
    let dir = workspace().join("tests/fixtures/prove");
    let system = format!("catala:{}#Benefit", dir.join(model).display());
    let o = lexprobe(&[
        "metamorphic",
        "--system",
        &system,
        "--domain",
        s(&dir.join("benefit.toml")),
        "--relations",
        s(&dir.join("benefit.mr")),
        "--prove",
        "--budget",
        "600s",
        "--tree-budget",
        "0s",
        "--format",
        "json",
        "--quiet",
        "--jobs",
        jobs,
    ]);
    let doc = serde_json::from_slice(&o.stdout).unwrap_or_default();
    (o.status.code().unwrap_or(-1), doc)
}

/// Each relation's name, verdict and, when proved, its path pairs, in report order.
fn verdicts(doc: &Json) -> Vec<(String, String, Option<u64>)> {
    let relations = doc["relations"].as_array().cloned().unwrap_or_default();
    relations
        .iter()
        .map(|r| {
            let verdict = r["verdict"].as_str().unwrap_or("?").to_string();
            let pairs = (verdict == "proved")
                .then(|| r["path_pairs"].as_u64())
                .flatten();
            (
                r["name"].as_str().unwrap_or("?").to_string(),
                verdict,
                pairs,
            )
        })
        .collect()
}

#[test]
fn relations_proved_by_two_threads_get_the_verdicts_of_one() {
    for model in ["benefit.catala_en", "benefit_step.catala_en"] {
        let (code1, one) = prove(model, "1");
        let (code2, two) = prove(model, "2");
        let v1 = verdicts(&one);
        assert_eq!(v1.len(), 4, "{model}: {one}");
        // The monotone benefit proves three relations and refutes the four-case one; the
        // planted step refutes monotonicity in the income.
        let refuted: Vec<&str> = v1
            .iter()
            .filter(|(_, v, _)| v == "refuted")
            .map(|(n, _, _)| n.as_str())
            .collect();
        match model {
            "benefit.catala_en" => assert_eq!(refuted, ["child_supplement_is_uniform"]),
            _ => assert!(refuted.contains(&"more_income_never_raises"), "{refuted:?}"),
        }
        assert_eq!(verdicts(&two), v1, "{model}");
        assert_eq!(code1, code2, "{model}");
    }
}
