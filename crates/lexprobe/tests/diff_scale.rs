//! `lexprobe diff` at scale on the pairs of versions in `tests/fixtures/diff`: several threads
//! (`--jobs`), and shards of a plan merged (`--plan`, `--shard`, `lexprobe merge`), give the
//! answers derived by hand in that directory's README, the same as one thread.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pair(name: &str) -> (String, String) {
    let dir = workspace().join("tests/fixtures/diff").join(name);
    let f = |v: &str| dir.join(format!("{v}.catala_en")).display().to_string();
    (f("old"), f("new"))
}

/// An empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("lexprobe-diff-scale-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

fn lexprobe(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .current_dir(workspace())
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    }
}

fn json_of(out: &Output) -> Json {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `lexprobe diff OLD NEW -s SCOPE --format json EXTRA…`: exit code and JSON.
fn diff_json(name: &str, scope: &str, extra: &[&str]) -> (i32, Json) {
    let (old, new) = pair(name);
    let mut args = vec![
        "diff",
        old.as_str(),
        new.as_str(),
        "-s",
        scope,
        "--format",
        "json",
    ];
    args.extend(extra);
    let out = lexprobe(&args);
    (out.status.code().unwrap_or(-1), json_of(&out))
}

/// What the answer says: verdict, completeness, each region's condition with its number of
/// path pairs (sorted), the pairs explored.
#[derive(Debug, PartialEq)]
struct Answer {
    verdict: String,
    complete: bool,
    regions: Vec<(String, u64)>,
    path_pairs: u64,
}

fn answer(j: &Json) -> Answer {
    let mut regions: Vec<(String, u64)> = j["regions"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|g| {
                    (
                        g["condition"].as_str().unwrap_or("").to_string(),
                        g["paths"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    regions.sort();
    Answer {
        verdict: j["verdict"].as_str().unwrap_or("").to_string(),
        complete: j["complete"].as_bool().unwrap_or(false),
        regions,
        path_pairs: j["stats"]["path_pairs"].as_u64().unwrap_or(0),
    }
}

/// The README's answers: (pair, scope, exit code, verdict, regions (condition, path pairs)).
/// Each region is one pair of paths: the versions' conditions select it exactly.
fn expected() -> Vec<(
    &'static str,
    &'static str,
    i32,
    &'static str,
    Vec<&'static str>,
)> {
    vec![
        (
            "moved_threshold",
            "Cheque",
            1,
            "differs",
            vec!["$20,000.00 < income <= $22,000.00"],
        ),
        (
            "added_exception",
            "Allowance",
            1,
            "differs",
            vec!["not disabled and children >= 3"],
        ),
        (
            "new_conflict",
            "Allowance",
            1,
            "differs",
            vec![
                "disabled and children >= 3",
                "not disabled and children >= 3",
            ],
        ),
        ("refactoring", "Supplement", 0, "equivalent", vec![]),
        (
            "amendment_date",
            "HeatingAid",
            1,
            "differs",
            vec!["claim_date >= |2025-07-01| and income < $25,000.00"],
        ),
    ]
}

#[test]
fn two_threads_find_the_regions_of_the_readme_as_one_does() {
    for (name, scope, code, verdict, conditions) in expected() {
        let (c1, one) = diff_json(name, scope, &["--jobs", "1"]);
        let (c2, two) = diff_json(name, scope, &["--jobs", "2"]);
        assert_eq!((c1, c2), (code, code), "{name}: {one:#} {two:#}");
        let a = answer(&two);
        assert_eq!(a.verdict, verdict, "{name}: {two:#}");
        assert!(a.complete, "{name}: {two:#}");
        let want: Vec<(String, u64)> = conditions.iter().map(|c| (c.to_string(), 1)).collect();
        assert_eq!(a.regions, want, "{name}: {two:#}");
        assert_eq!(answer(&one), a, "{name}: {one:#} against {two:#}");
        // The differing pairs, counted apart, are the regions' paths.
        assert_eq!(
            two["stats"]["differing_pairs"].as_u64(),
            Some(conditions.len() as u64),
            "{name}"
        );
    }
    // The path pairs of two pairs derived by hand. moved_threshold: OLD asks income <=
    // $20,000, NEW income <= $22,000; three of the four combinations are possible.
    // new_conflict: OLD asks `disabled`, NEW both of its exceptions' conditions (a conflict
    // needs both): the four combinations of disabled and children >= 3.
    let (_, j) = diff_json("moved_threshold", "Cheque", &["--jobs", "2"]);
    assert_eq!(answer(&j).path_pairs, 3, "{j:#}");
    let (_, j) = diff_json("new_conflict", "Allowance", &["--jobs", "2"]);
    assert_eq!(answer(&j).path_pairs, 4, "{j:#}");
}

/// Explores `name` as the shards of a plan for `shards`, each written to a file of `dir`;
/// returns the files.
fn shard_outputs(name: &str, scope: &str, dir: &Path, shards: usize) -> Vec<String> {
    let (old, new) = pair(name);
    let plan = dir.join("plan.json").display().to_string();
    let out = lexprobe(&[
        "diff",
        &old,
        &new,
        "-s",
        scope,
        "--plan",
        &shards.to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    if let Err(e) = std::fs::write(&plan, &out.stdout) {
        panic!("{plan}: {e}");
    }
    let plan_json = json_of(&out);
    assert_eq!(plan_json["format"], "lexprobe-diff-plan");
    (0..shards)
        .map(|i| {
            let spec = format!("{i}/{shards}");
            let out = lexprobe(&[
                "diff",
                &old,
                &new,
                "-s",
                scope,
                "--plan-file",
                &plan,
                "--shard",
                &spec,
            ]);
            let j = json_of(&out);
            assert_eq!(j["diff_shard"]["index"], i, "{j:#}");
            // A shard exits 1 when it found differing pairs, 0 when none and complete.
            let found = j["part"]["found"].as_array().map_or(0, Vec::len);
            assert_eq!(
                out.status.code(),
                Some(if found > 0 { 1 } else { 0 }),
                "{j:#}"
            );
            let file = dir.join(format!("shard-{i}.json")).display().to_string();
            if let Err(e) = std::fs::write(&file, &out.stdout) {
                panic!("{file}: {e}");
            }
            file
        })
        .collect()
}

fn merge(files: &[String]) -> (i32, Json) {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    let out = lexprobe(&args);
    (out.status.code().unwrap_or(-1), json_of(&out))
}

#[test]
fn three_shards_merged_give_the_regions_of_the_readme() {
    for (name, scope, code, verdict, conditions) in expected() {
        let dir = scratch(name);
        let files = shard_outputs(name, scope, &dir, 3);
        let (c, merged) = merge(&files);
        assert_eq!(c, code, "{name}: {merged:#}");
        let a = answer(&merged);
        assert_eq!(a.verdict, verdict, "{name}: {merged:#}");
        assert!(a.complete, "{name}: {merged:#}");
        let want: Vec<(String, u64)> = conditions.iter().map(|c| (c.to_string(), 1)).collect();
        assert_eq!(a.regions, want, "{name}: {merged:#}");
        // The same pairs as one exploration: every pair in exactly one shard.
        let (_, whole) = diff_json(name, scope, &[]);
        assert_eq!(a.path_pairs, answer(&whole).path_pairs, "{name}");
    }
    // new_conflict's four path pairs (OLD asks `disabled`, NEW both exceptions' conditions),
    // over the shards: the plan gives each pair a subtree of its own.
    let dir = scratch("new_conflict_pairs");
    let files = shard_outputs("new_conflict", "Allowance", &dir, 3);
    let (_, merged) = merge(&files);
    assert_eq!(answer(&merged).path_pairs, 4, "{merged:#}");
}

#[test]
fn a_merge_without_every_shard_is_never_equivalent() {
    // refactoring is equivalent (README), but a merge missing a shard has not seen every
    // path pair: unknown (exit 3), and the missing shard is named.
    let dir = scratch("refactoring_missing");
    let files = shard_outputs("refactoring", "Supplement", &dir, 3);
    let (c, merged) = merge(&files[..2]);
    assert_eq!(c, 3, "{merged:#}");
    assert_eq!(merged["verdict"], "unknown", "{merged:#}");
    assert_eq!(merged["complete"], false);
    let notes = merged["incomplete"].to_string();
    assert!(
        notes.contains("shards missing from the merge: 2"),
        "{notes}"
    );
    // new_conflict without one shard still differs where the others found it, but is not
    // complete: the regions are those of the shards given.
    let dir = scratch("new_conflict_missing");
    let files = shard_outputs("new_conflict", "Allowance", &dir, 3);
    let (c, merged) = merge(&files[1..]);
    assert_eq!(merged["complete"], false, "{merged:#}");
    assert_eq!(
        c,
        if answer(&merged).regions.is_empty() {
            3
        } else {
            1
        }
    );
}

#[test]
fn a_run_stopped_by_the_pair_limit_resumes_to_the_uninterrupted_answer() {
    // new_conflict has 4 path pairs and 2 regions (README). Stopped after 2 pairs, then after
    // 1 more, then resumed to the end: the answer of one uninterrupted run.
    let dir = scratch("checkpoints");
    let ck = |n: usize| dir.join(format!("run-{n}.ckpt")).display().to_string();
    let (code, first) = diff_json(
        "new_conflict",
        "Allowance",
        &["--max-pairs", "2", "--checkpoint", &ck(1)],
    );
    let a = answer(&first);
    assert_eq!(a.path_pairs, 2, "{first:#}");
    assert!(!a.complete, "{first:#}");
    assert!(first["incomplete"]
        .to_string()
        .contains("limit of 2 path pairs reached"));
    // At most one region found in 2 of the 4 pairs; exit 1 if it is there, else 3.
    assert_eq!(code, if a.regions.is_empty() { 3 } else { 1 });
    let (_, second) = diff_json(
        "new_conflict",
        "Allowance",
        &[
            "--max-pairs",
            "1",
            "--resume",
            &ck(1),
            "--checkpoint",
            &ck(2),
        ],
    );
    assert_eq!(answer(&second).path_pairs, 3, "{second:#}");
    assert!(!answer(&second).complete);
    let (code, last) = diff_json(
        "new_conflict",
        "Allowance",
        &["--resume", &ck(2), "--checkpoint", &ck(3)],
    );
    assert_eq!(code, 1, "{last:#}");
    let a = answer(&last);
    assert_eq!(a.verdict, "differs");
    assert!(a.complete, "{last:#}");
    assert_eq!(a.path_pairs, 4);
    assert_eq!(
        a.regions,
        [
            ("disabled and children >= 3".to_string(), 1),
            ("not disabled and children >= 3".to_string(), 1)
        ]
    );
    // The last checkpoint has nothing left: resuming it gives the same answer at once.
    let (_, again) = diff_json("new_conflict", "Allowance", &["--resume", &ck(3)]);
    assert_eq!(answer(&again), a, "{again:#}");
    // A checkpoint of another scope is refused.
    let (code, refused) = diff_json("refactoring", "Supplement", &["--resume", &ck(3)]);
    assert_eq!(code, 2, "{refused:#}");
}

#[test]
fn an_equivalence_stopped_and_resumed_is_proved_only_at_the_end() {
    // refactoring is equivalent (README): stopped after 1 pair it is unknown (exit 3), the
    // resumption proves it (exit 0) over its 3 path pairs.
    let dir = scratch("equivalent_checkpoint");
    let ck = dir.join("run.ckpt").display().to_string();
    let (code, first) = diff_json(
        "refactoring",
        "Supplement",
        &["--max-pairs", "1", "--checkpoint", &ck],
    );
    assert_eq!((code, first["verdict"].as_str()), (3, Some("unknown")));
    let (code, last) = diff_json("refactoring", "Supplement", &["--resume", &ck]);
    assert_eq!(code, 0, "{last:#}");
    let a = answer(&last);
    assert_eq!((a.verdict.as_str(), a.complete), ("equivalent", true));
    let (_, whole) = diff_json("refactoring", "Supplement", &[]);
    assert_eq!(a.path_pairs, answer(&whole).path_pairs);
}
