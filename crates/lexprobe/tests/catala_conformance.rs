//! Conformance against the Catala compiler's own test suite (`catala-tests/` in the shared
//! corpus). Every ```catala-test-cli block whose command is `test-scope X`, `interpret -s X` or
//! `typecheck` is replayed with `lexprobe`, and our answer is compared with the expected output
//! written in the block:
//! - results: the `┌─[RESULT]─` boxes must be identical line for line (warning boxes, which
//!   lexprobe does not print, are ignored);
//! - errors: same kind (conflict, no applicable rule, division by zero, ambiguous date, assertion,
//!   or compile-time) and same first position (`line.col-col`);
//! - `typecheck`: same success or failure.
//!
//! Files using constructs of the second part of the Catala implementation (modules, most list
//! operations, tuples, optionals, polymorphism, the standard library, external code) are counted
//! as skipped. The test fails if fewer blocks match than the floor recorded below, so a
//! regression is caught; the counts are printed for the README.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The number of matched blocks at the last measurement; raise it as conformance improves.
const MATCHED_FLOOR: usize = 273;

fn corpus_dir(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name);
    dir.is_dir().then_some(dir)
}

#[derive(Debug)]
struct CliBlock {
    command: String,
    expected: Vec<String>,
}

fn cli_blocks(text: &str) -> Vec<CliBlock> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() != "```catala-test-cli" {
            continue;
        }
        let mut command = String::new();
        let mut expected = Vec::new();
        for l in lines.by_ref() {
            if l.trim_end() == "```" {
                break;
            }
            if command.is_empty() && l.starts_with("$ catala ") {
                command = l["$ catala ".len()..].to_string();
            } else {
                expected.push(l.to_string());
            }
        }
        blocks.push(CliBlock { command, expected });
    }
    blocks
}

/// Constructs that belong to part 2 of the Catala implementation.
const PART2_MARKERS: &[&str] = &[
    "> Module",
    "> Using",
    "> Usage",
    " sort ",
    "optional",
    "Present",
    "Absent",
    "anything of type",
    "++",
    "Stdlib",
    "List.",
    "Date.",
    "Money.",
    "Decimal.",
    "Integer.",
    "Duration.",
    "Period.",
    "#[debug",
    "#[implicit",
    "external",
    "impossible",
];

fn uses_part2(text: &str) -> bool {
    let code = text
        .split("```catala")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let directive = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("> Module") || l.starts_with("> Using") || l.starts_with("> Usage")
    });
    directive || PART2_MARKERS.iter().any(|m| code.contains(m))
}

fn result_boxes(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in lines {
        if l.starts_with("┌─[RESULT]─") {
            inside = true;
        }
        if inside {
            out.push(l.clone());
            if l.starts_with("└─") {
                inside = false;
            }
        }
    }
    out
}

fn error_signature(lines: &[String]) -> Option<(String, String)> {
    let start = lines.iter().position(|l| l.starts_with("┌─[ERROR]─"))?;
    let rest = &lines[start..];
    let text: String = rest
        .iter()
        .take_while(|l| !l.starts_with("├─➤"))
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let kind = if text.contains("conflict between multiple valid consequences") {
        "conflict"
    } else if text.contains("no applicable rule") {
        "no_value"
    } else if text.contains("denominator") {
        "division_by_zero"
    } else if text.contains("ambiguous date") {
        "ambiguous_date"
    } else if text.contains("Assertion failed") {
        "assertion"
    } else if text.contains("During evaluation") {
        "runtime"
    } else {
        "compile"
    };
    let pos = rest
        .iter()
        .find_map(|l| l.strip_prefix("├─➤ "))
        .map(|p| {
            let p = p.trim_end_matches(':');
            p.rsplit(':').next().unwrap_or(p).to_string()
        })
        .unwrap_or_default();
    Some((kind.to_string(), pos))
}

enum Verdict {
    Matched,
    Mismatched(String),
    NotAttempted,
}

fn run_block(bin: &Path, file: &Path, block: &CliBlock) -> Verdict {
    let words: Vec<&str> = block.command.split_whitespace().collect();
    let Some(&cmd) = words.first() else {
        return Verdict::NotAttempted;
    };
    let mut args: Vec<String> = Vec::new();
    let mut scope = None;
    let mut i = 1;
    let mut typecheck = false;
    match cmd.to_lowercase().as_str() {
        "test-scope" => {
            scope = words.get(1).map(|s| s.to_string());
            i = 2;
        }
        "interpret" => {}
        "typecheck" => typecheck = true,
        _ => return Verdict::NotAttempted,
    }
    while i < words.len() {
        let w = words[i];
        if w == "-s" || w == "--scope" {
            scope = words.get(i + 1).map(|s| s.to_string());
            i += 2;
        } else if let Some(s) = w.strip_prefix("--scope=") {
            scope = Some(s.to_string());
            i += 1;
        } else if w == "--input" {
            args.push("--input".into());
            args.push(words.get(i + 1).unwrap_or(&"").to_string());
            i += 2;
        } else if w == "-F" {
            args.push("--format".into());
            args.push(words.get(i + 1).unwrap_or(&"").to_string());
            i += 2;
        } else if w == "--check-invariants" || w == "--disable-warnings" || w == "-O" {
            i += 1;
        } else {
            // Tracing, backends and other flags are outside what lexprobe reproduces.
            return Verdict::NotAttempted;
        }
    }
    let mut command = Command::new(bin);
    if typecheck {
        command.arg("typecheck").arg(file);
    } else {
        let Some(scope) = scope else {
            return Verdict::NotAttempted;
        };
        command.arg("run").arg(file).arg("--scope").arg(scope);
        command.args(&args);
    }
    let output = match command.output() {
        Ok(o) => o,
        Err(e) => return Verdict::Mismatched(format!("could not start lexprobe: {e}")),
    };
    let ours: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .chain(String::from_utf8_lossy(&output.stderr).lines())
        .map(str::to_string)
        .collect();
    let expected_failure = block.expected.iter().any(|l| l.starts_with("#return code"));
    let we_failed = !output.status.success();
    if typecheck {
        return if expected_failure == we_failed {
            Verdict::Matched
        } else {
            Verdict::Mismatched(format!(
                "typecheck: expected {}, lexprobe {}",
                if expected_failure {
                    "failure"
                } else {
                    "success"
                },
                if we_failed { "failed" } else { "succeeded" }
            ))
        };
    }
    if expected_failure != we_failed {
        return Verdict::Mismatched(format!(
            "expected {}, lexprobe {}:\n{}",
            if expected_failure {
                "an error"
            } else {
                "success"
            },
            if we_failed { "failed" } else { "succeeded" },
            ours.join("\n")
        ));
    }
    if expected_failure {
        let exp = error_signature(&block.expected);
        let got = error_signature(&ours);
        return if exp.is_some() && exp == got {
            Verdict::Matched
        } else {
            Verdict::Mismatched(format!("error: expected {exp:?}, got {got:?}"))
        };
    }
    let is_json = args.iter().any(|a| a == "json");
    if is_json {
        let exp: Option<serde_json::Value> = serde_json::from_str(&block.expected.join("\n")).ok();
        let got: Option<serde_json::Value> =
            serde_json::from_slice::<serde_json::Value>(&output.stdout).ok();
        return if exp.is_some() && exp == got {
            Verdict::Matched
        } else {
            Verdict::Mismatched(format!("json: expected {exp:?}, got {got:?}"))
        };
    }
    let exp = result_boxes(&block.expected);
    let got = result_boxes(&ours);
    if exp == got {
        Verdict::Matched
    } else {
        Verdict::Mismatched(format!(
            "expected:\n{}\ngot:\n{}",
            exp.join("\n"),
            got.join("\n")
        ))
    }
}

fn catala_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            catala_files(&p, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.starts_with("catala_"))
        {
            out.push(p);
        }
    }
}

/// Counts of one conformance run.
#[derive(Default)]
struct Tally {
    matched: usize,
    attempted: usize,
    skipped_part2: usize,
    not_attempted: usize,
    failures: Vec<String>,
}

fn replay_blocks(dir: &Path) -> Tally {
    let bin = Path::new(env!("CARGO_BIN_EXE_lexprobe"));
    let mut files = Vec::new();
    catala_files(dir, &mut files);
    let mut t = Tally::default();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let blocks = cli_blocks(&text);
        if blocks.is_empty() {
            continue;
        }
        // Tuples are a part-2 construct that no keyword gives away.
        let part2 = uses_part2(&text) || file.components().any(|c| c.as_os_str() == "tuples");
        for block in &blocks {
            if part2 {
                t.skipped_part2 += 1;
                continue;
            }
            match run_block(bin, file, block) {
                Verdict::Matched => {
                    t.matched += 1;
                    t.attempted += 1;
                }
                Verdict::Mismatched(why) => {
                    t.attempted += 1;
                    t.failures.push(format!(
                        "{} `{}`: {why}",
                        file.strip_prefix(dir).unwrap_or(file).display(),
                        block.command
                    ));
                }
                Verdict::NotAttempted => t.not_attempted += 1,
            }
        }
    }
    for f in &t.failures {
        println!("MISMATCH {f}\n");
    }
    t
}

#[test]
fn catala_test_suite_blocks() {
    let Some(dir) = corpus_dir("catala-tests") else {
        println!("notice: ../shared/corpus/catala-tests is absent; conformance suite skipped");
        return;
    };
    let t = replay_blocks(&dir);
    println!(
        "catala-tests: {} matched / {} attempted; {} skipped as part 2; {} other commands not attempted",
        t.matched, t.attempted, t.skipped_part2, t.not_attempted
    );
    assert!(
        t.matched >= MATCHED_FLOOR,
        "conformance regressed: {} < {MATCHED_FLOOR}",
        t.matched
    );
}

/// The expected outputs written in the real programs of catala-examples (those that use no
/// modules): every attempted block must match.
#[test]
fn catala_examples_blocks() {
    let Some(dir) = corpus_dir("catala-examples") else {
        println!("notice: ../shared/corpus/catala-examples is absent; suite skipped");
        return;
    };
    let t = replay_blocks(&dir);
    println!(
        "catala-examples: {} matched / {} attempted; {} skipped as part 2; {} other commands not attempted",
        t.matched, t.attempted, t.skipped_part2, t.not_attempted
    );
    assert!(t.attempted > 0, "no block attempted");
    assert!(t.failures.is_empty(), "{} mismatches", t.failures.len());
}

/// The 25 `#[test]` scopes of the NSW community gaming example pass under `lexprobe test`.
#[test]
fn nsw_community_gaming_tests_pass() {
    let Some(dir) = corpus_dir("catala-examples/NSW_community_gaming/tests") else {
        println!("notice: ../shared/corpus/catala-examples is absent; suite skipped");
        return;
    };
    let mut files = Vec::new();
    catala_files(&dir, &mut files);
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("test")
        .args(&files)
        .output()
        .expect("lexprobe starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().last(), Some("25 passed, 0 failed"));
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": passed")).count(),
        25
    );
}

/// Every program of the Catala test suite's `bad` folders is rejected with exit code 123 and an
/// error box that names a position: at type-checking, or when running the scope its test names.
#[test]
fn bad_programs_give_positioned_errors() {
    let Some(dir) = corpus_dir("catala-tests") else {
        println!("notice: ../shared/corpus/catala-tests is absent; suite skipped");
        return;
    };
    let bin = Path::new(env!("CARGO_BIN_EXE_lexprobe"));
    let mut files = Vec::new();
    catala_files(&dir, &mut files);
    // Files of `bad` folders whose tests expect a failure (the others only expect warnings, or
    // are included by other tests).
    files.retain(|f| {
        f.components().any(|c| c.as_os_str() == "bad")
            && std::fs::read_to_string(f).is_ok_and(|t| t.contains("#return code"))
    });
    let mut accepted = Vec::new();
    for file in &files {
        let typecheck = Command::new(bin)
            .arg("typecheck")
            .arg(file)
            .output()
            .expect("lexprobe starts");
        let mut outcomes = vec![typecheck];
        if outcomes[0].status.success() {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for block in cli_blocks(&text) {
                let words: Vec<&str> = block.command.split_whitespace().collect();
                let scope = match words.as_slice() {
                    ["test-scope", s, ..] => s.to_string(),
                    [w, "-s", s, ..] if w.eq_ignore_ascii_case("interpret") => s.to_string(),
                    _ => continue,
                };
                let mut cmd = Command::new(bin);
                cmd.arg("run").arg(file).arg("--scope").arg(&scope);
                if let Some(i) = words.iter().position(|w| *w == "--input") {
                    cmd.arg("--input").arg(words.get(i + 1).unwrap_or(&"{}"));
                }
                outcomes.push(cmd.output().expect("lexprobe starts"));
            }
        }
        let rejected = outcomes.iter().any(|o| {
            let err = String::from_utf8_lossy(&o.stderr);
            // JSON input errors have no source position, in Catala as here.
            o.status.code() == Some(123)
                && err.contains("┌─[ERROR]─")
                && (err.contains("├─➤ ") || err.contains("Invalid input"))
        });
        let panicked = outcomes
            .iter()
            .any(|o| String::from_utf8_lossy(&o.stderr).contains("panicked"));
        assert!(!panicked, "{} made lexprobe panic", file.display());
        if !rejected {
            accepted.push(
                file.strip_prefix(&dir)
                    .unwrap_or(file)
                    .display()
                    .to_string(),
            );
        }
    }
    println!(
        "catala-tests bad programs: {} of {} rejected with a positioned error",
        files.len() - accepted.len(),
        files.len()
    );
    for a in &accepted {
        println!("NOT REJECTED {a}");
    }
    assert!(
        accepted.is_empty(),
        "{} bad programs not rejected",
        accepted.len()
    );
}
