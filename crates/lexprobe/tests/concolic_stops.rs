//! `lexprobe concolic` tells the truth about each test and about where it stopped: a test's
//! outcome is the one `lexprobe run` gives on its inputs, `--check` fails naming a test whose
//! path ended otherwise, and every limit hit (time, tests, Ctrl-C) and every solver query
//! left unknown is listed in `incomplete` with what it leaves unexplored. Verdicts do not
//! depend on the machine's speed: the slow scope (`hard_cubes.catala_en`) holds a query Z3 does
//! not decide in minutes, so its exploration cannot end by itself within the limits used.

use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic")
        .join(name);
    p.to_string_lossy().into_owned()
}

/// Runs `lexprobe ARGS`: exit code, stdout lines as JSON, stderr, wall time.
fn lexprobe(args: &[&str]) -> (i32, Vec<Json>, String, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .output()
        .expect("lexprobe starts");
    let took = start.elapsed();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Json::Null))
        .collect();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), lines, err, took)
}

fn strings(v: &Json) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `lexprobe run --jsonl` on one inputs object: its reply line.
fn run_on(file: &str, scope: &str, inputs: &Json) -> Json {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["run", file, "--scope", scope, "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("lexprobe starts");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{inputs}");
    }
    let out = child.wait_with_output().expect("lexprobe ends");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().next().unwrap_or("null")).unwrap_or(Json::Null)
}

#[test]
fn each_test_ends_as_run_does_and_check_fails_when_a_path_ends_otherwise() {
    let file = fixture("order_errors.catala_en");
    let (code, lines, _, _) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "OrderErrors",
        "--jsonl",
        "--check",
        "--exit-zero",
    ]);
    assert_eq!(
        code, 0,
        "--check passes; the division by zero is left to --exit-zero"
    );
    let tests: Vec<&Json> = lines.iter().filter(|l| l.get("path").is_some()).collect();
    // x = 0 divides by zero in d2 (evaluated before e in Catala's order); x > 0, x < 0 succeed.
    let mut kinds: Vec<&str> = tests.iter().filter_map(|t| t["outcome"].as_str()).collect();
    kinds.sort();
    assert_eq!(kinds, ["division_by_zero", "ok", "ok"]);
    for t in &tests {
        let reply = run_on(&file, "OrderErrors", &t["inputs"]);
        match t.get("error") {
            Some(e) => {
                assert_eq!(reply["error"]["kind"], e["kind"]);
                assert_eq!(reply["error"]["positions"], e["positions"]);
            }
            None => assert_eq!(&reply, &t["outputs"]),
        }
    }
    let closing = lines.last().cloned().unwrap_or(Json::Null);
    assert_eq!(closing["stats"]["complete"], true);
    assert_eq!(closing["incomplete"], Json::Array(Vec::new()));
    // The paper's order evaluates e first: at x = 0 the path ends without a rule for e, not
    // as the run does. The test still carries the run's outcome; --check names it and fails.
    let (code, lines, err, _) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "OrderErrors",
        "--jsonl",
        "--check",
        "--order",
        "paper",
    ]);
    assert_eq!(code, 123, "{err}");
    let zero = lines
        .iter()
        .position(|l| l["inputs"]["x"] == 0 || l["inputs"]["x"] == "0");
    let Some(zero) = zero else {
        panic!("no test with x = 0: {lines:?}")
    };
    assert_eq!(lines[zero]["outcome"], "division_by_zero");
    assert!(
        err.contains(&format!("replay check failed for test {}:", zero + 1)),
        "{err}"
    );
    // The positions are given as file:line:column: the plain run's division is on line 23
    // (`definition d2 equals 10 / (d1 - 1)`).
    assert!(
        err.contains("order_errors.catala_en:23:") && !err.contains(" byte "),
        "{err}"
    );
    let closing = lines.last().cloned().unwrap_or(Json::Null);
    assert_eq!(closing["stats"]["complete"], false);
    assert!(
        strings(&closing["incomplete"])
            .iter()
            .any(|i| i.starts_with("1 test ended differently")),
        "{closing}"
    );
}

#[test]
fn a_one_second_timeout_ends_the_run_within_bounds_and_is_listed() {
    let file = fixture("hard_cubes.catala_en");
    for jobs in ["1", "2"] {
        let (code, lines, err, took) = lexprobe(&[
            "concolic",
            &file,
            "--scope",
            "HardCubes",
            "--jsonl",
            "--timeout",
            "1",
            "--jobs",
            jobs,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(took < Duration::from_secs(6), "jobs {jobs}: {took:?}");
        let closing = lines.last().cloned().unwrap_or(Json::Null);
        assert_eq!(closing["stats"]["complete"], false);
        assert_eq!(closing["stats"]["unknown_queries"], 0, "jobs {jobs}");
        let tests = closing["stats"]["tests"].as_u64().unwrap_or(0);
        assert_eq!(
            strings(&closing["incomplete"]),
            [format!(
                "time limit (--timeout 1): the paths after test {tests} are unexplored"
            )],
            "jobs {jobs}"
        );
    }
    // The text summary names the limit hit.
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["concolic", &file, "--scope", "HardCubes", "--timeout", "1"])
        .args(["--stats", "--quiet"])
        .output()
        .expect("lexprobe starts");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("stopped at the time limit (--timeout 1)"),
        "{text}"
    );
    assert!(
        text.contains("time limit (--timeout 1): the paths after test"),
        "{text}"
    );
}

#[test]
fn unknown_queries_are_listed_with_two_workers() {
    let file = fixture("hard_cubes.catala_en");
    let (code, lines, err, _) = lexprobe(&[
        "concolic",
        &file,
        "--scope",
        "HardCubes",
        "--jsonl",
        "--jobs",
        "2",
        "--query-timeout",
        "0.3",
    ]);
    assert_eq!(code, 0, "{err}");
    let closing = lines.last().cloned().unwrap_or(Json::Null);
    let unknown = closing["stats"]["unknown_queries"].as_u64().unwrap_or(0);
    assert!(unknown >= 1, "{closing}");
    assert_eq!(closing["stats"]["complete"], false);
    let expected = if unknown == 1 {
        "1 solver query unknown: its subtree is unexplored".to_string()
    } else {
        format!("{unknown} solver queries unknown: their subtrees are unexplored")
    };
    assert_eq!(strings(&closing["incomplete"]), [expected]);
    // And the summary says incomplete, not a limit that was not hit.
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args([
            "concolic",
            &file,
            "--scope",
            "HardCubes",
            "--query-timeout",
            "0.3",
        ])
        .args(["--stats", "--quiet"])
        .output()
        .expect("lexprobe starts");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("stopped at"), "{text}");
    assert!(
        !text.contains("time limit") && !text.contains("test limit"),
        "{text}"
    );
    assert!(text.contains("solver quer"), "{text}");
    assert!(text.contains("incomplete (see above)"), "{text}");
}

#[test]
fn max_tests_of_a_resumed_run_counts_its_new_tests() {
    // Fig. 5 has five paths: 2 tests, then 2 more, then the last one.
    let dir = std::env::temp_dir().join(format!("lexprobe-more-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ckpt = dir.join("fig5.ckpt");
    let ckpt = ckpt.to_string_lossy();
    let file = fixture("fig5_default.catala_en");
    let base = [
        "concolic",
        &file,
        "--scope",
        "Fig5",
        "--jsonl",
        "--checkpoint",
        &ckpt,
    ];
    // Each part exits as its own tests say (the order of the snapshot in snapshots_engines.rs):
    // 2 then 3 (0); the empty default then the conflict (1); 1 (0).
    let (code, first, _, _) = lexprobe(&[&base[..], &["--max-tests", "2"]].concat());
    assert_eq!(code, 0);
    assert_eq!(first.len(), 3);
    let (code, second, _, _) =
        lexprobe(&[&base[..], &["--resume", &ckpt, "--max-tests", "2"]].concat());
    assert_eq!(code, 1);
    assert_eq!(second.len(), 3, "two new tests and the closing line");
    let closing = &second[2];
    assert_eq!(closing["stats"]["tests"], 4);
    assert_eq!(
        strings(&closing["incomplete"]),
        ["test limit (--max-tests 2): the paths after test 4 are unexplored"]
    );
    let (code, third, _, _) = lexprobe(&[&base[..], &["--resume", &ckpt]].concat());
    assert_eq!(code, 0, "the last path has no problem");
    assert_eq!(third.len(), 2);
    assert_eq!(third[1]["stats"]["tests"], 5);
    assert_eq!(third[1]["stats"]["complete"], true);
    let help = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["concolic", "--help"])
        .output()
        .expect("lexprobe starts");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("this many more tests"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_checkpoint_and_the_closing_line() {
    ctrl_c_stops("1");
}

/// With two workers, both in Z3 checks when Ctrl-C comes: the solver must not have taken the
/// signal over (Z3 swaps its own SIGINT handler in around each check, and two threads doing so
/// left it installed, so the run went on to its end).
#[cfg(unix)]
#[test]
fn ctrl_c_stops_two_workers_in_solver_checks() {
    ctrl_c_stops("2");
}

#[cfg(unix)]
fn ctrl_c_stops(jobs: &str) {
    let dir = std::env::temp_dir().join(format!("lexprobe-int-{}-{jobs}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ckpt = dir.join("cubes.ckpt");
    let _ = std::fs::remove_file(&ckpt);
    let file = fixture("hard_cubes.catala_en");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args([
            "concolic",
            &file,
            "--scope",
            "HardCubes",
            "--jsonl",
            "--jobs",
            jobs,
            "--checkpoint",
        ])
        .arg(&ckpt)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lexprobe starts");
    let Some(stdout) = child.stdout.take() else {
        panic!("no stdout")
    };
    let mut reader = BufReader::new(stdout);
    // The first test is printed once the handler is installed and the exploration runs.
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    assert!(first.contains("\"path\""), "{first}");
    let sent = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(kill.is_ok_and(|s| s.success()));
    let mut rest = String::new();
    for line in reader.lines().map_while(Result::ok) {
        rest = line;
    }
    let status = child.wait().expect("lexprobe ends");
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(0));
    let closing: Json = serde_json::from_str(&rest).unwrap_or(Json::Null);
    let incomplete = strings(&closing["incomplete"]);
    assert!(
        incomplete
            .iter()
            .any(|i| i.starts_with("interrupted (Ctrl-C): the paths after test")),
        "{closing}"
    );
    let saved = std::fs::read_to_string(&ckpt).unwrap_or_default();
    let saved: Json = serde_json::from_str(&saved).unwrap_or(Json::Null);
    assert!(saved.get("state").is_some(), "{saved}");
    let _ = std::fs::remove_dir_all(&dir);
}
