//! Test suites written by `lexprobe concolic --emit-tests DIR [--suite minimal]` in Catala's
//! test model pass `lexprobe test DIR`: a module program (written for this test) is used by
//! its test file with qualified names, paths ending normally are `#[test]` scopes and paths
//! ending in an error are ```catala-test-cli blocks with the error and exit code 123; a program
//! without modules is included. The fixtures are copied into a temporary project laid out as
//! `prog/` (the program) and `tests/` (the emitted suite), as a project keeps them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(dir)
        .join(name)
}

/// A fresh project directory with `prog/FILE` copied from the suites fixtures.
fn project(tag: &str, file: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lexprobe-suites-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("prog")).expect("temporary directory");
    std::fs::copy(fixture("suites", file), root.join("prog").join(file)).expect("fixture copied");
    root
}

fn lexprobe(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("lexprobe runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `lexprobe test DIR` passes every test of the suite; the number of tests it ran.
fn replay_passes(root: &Path, dir: &str) -> usize {
    let replay = lexprobe(root, &["test", dir]);
    let out = text(&replay);
    assert!(replay.status.success(), "{out}");
    let last = out
        .lines()
        .find(|l| l.contains(" passed, 0 failed"))
        .unwrap_or_else(|| panic!("no closing line: {out}"));
    last.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count: {last}"))
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// A suite emitted into `tests/` of a Catala project (a `clerk.toml` at its root listing
/// `prog`) is run from the root by `clerk test tests`: no manifest of its own (it would make
/// `tests/` the root, where the module cannot be built), the module's files named from the
/// root, and the positions of Catala's compiled code for a module (the reference `clerk test`
/// passed such a suite: BENCHMARKS.md, "Test suites in Catala's test model").
#[test]
fn a_module_suite_inside_a_project_uses_the_project_manifest() {
    let root = project("in-project", "household_benefit.catala_en");
    std::fs::write(
        root.join("clerk.toml"),
        "[project]\ninclude_dirs = [\"prog\"]\n",
    )
    .expect("manifest");
    // The runs outside the assertion's input space are explored too: a test ending in the
    // failed assertion is part of what this suite shows.
    let explore = lexprobe(
        &root,
        &[
            "concolic",
            "prog/household_benefit.catala_en",
            "--scope",
            "Benefit",
            "--emit-tests",
            "tests",
            "--suite",
            "all",
            "--optim",
            "all,-input-space",
        ],
    );
    assert_eq!(explore.status.code(), Some(1), "{}", text(&explore));
    assert!(!root.join("tests/clerk.toml").exists());
    let file = std::fs::read_to_string(root.join("tests/Benefit_concolic.catala_en"))
        .expect("test file written");
    // The conflict of Articles 2 and 3, named from the root.
    assert!(
        file.contains("├─➤ prog/household_benefit.catala_en:42.24-28:"),
        "{file}"
    );
    // `definition per_child equals amount / household.children` is the variable's only rule:
    // compiled, the division by zero is reported at its declaration (`output per_child`,
    // line 20), under the file's title alone.
    let division = file
        .split("```catala-test-cli\n")
        .find(|b| b.contains("used as denominator in a division"))
        .expect("a test block for the division");
    assert!(
        division.contains("├─➤ prog/household_benefit.catala_en:20.10-19:"),
        "{division}"
    );
    assert!(!division.contains("Article 1"), "{division}");
    // A negative number of children fails the module's assertion (single parent or not: two
    // paths): listed, not a block.
    assert!(file.contains("ends with `assertion`"), "{file}");
    assert!(
        text(&explore).contains("as test blocks; 2 listed as text only)"),
        "{}",
        text(&explore)
    );
    assert!(!file.contains("Assertion failed"), "{file}");
    let scopes = count(&file, "#[test]");
    let blocks = count(&file, "```catala-test-cli");
    assert_eq!(replay_passes(&root, "tests"), scopes + blocks);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_module_program_is_used_and_its_error_paths_are_test_blocks() {
    let root = project("module", "household_benefit.catala_en");
    let explore = lexprobe(
        &root,
        &[
            "concolic",
            "prog/household_benefit.catala_en",
            "--scope",
            "Benefit",
            "--emit-tests",
            "tests",
        ],
    );
    // A conflict and a division by zero are problems: exit code 1.
    assert_eq!(explore.status.code(), Some(1), "{}", text(&explore));
    let file = std::fs::read_to_string(root.join("tests/Benefit_concolic.catala_en"))
        .expect("test file written");
    // Catala refuses `> Include` of a file declaring a module: the test file uses it and
    // names its scope, structure and enumeration cases through it.
    assert!(file.contains("> Using Household_benefit\n"), "{file}");
    assert!(!file.contains("> Include"), "{file}");
    assert!(
        file.contains("run scope Household_benefit.Benefit"),
        "{file}"
    );
    assert!(file.contains("Household_benefit.Household {"), "{file}");
    assert!(file.contains("Household_benefit.Zone.Mountain"), "{file}");
    // The module is found through the clerk.toml written beside the tests (`../prog`).
    let manifest = std::fs::read_to_string(root.join("tests/clerk.toml")).expect("clerk.toml");
    assert!(manifest.contains("\"../prog\""), "{manifest}");
    // Articles 2 and 3 both apply to a single parent of two children in the mountains: one
    // conflict path, written as a test block naming both rules, with Catala's exit code.
    let conflict = file
        .split("```catala-test-cli\n")
        .find(|b| b.contains("conflict between multiple valid consequences"))
        .expect("a test block for the conflict");
    assert!(
        conflict.contains("household_benefit.catala_en:42.24-28"),
        "{conflict}"
    );
    assert!(
        conflict.contains("household_benefit.catala_en:54.24-28"),
        "{conflict}"
    );
    assert!(conflict.contains("#return code 123#"), "{conflict}");
    // No children: `amount / household.children` divides by zero (a block too).
    assert!(
        count(&file, "used as denominator in a division") >= 1,
        "{file}"
    );
    // Every path is a test: the #[test] scopes (paths ending normally) and the blocks (paths
    // ending in an error) together, and all pass.
    let scopes = count(&file, "#[test]");
    let blocks = count(&file, "```catala-test-cli");
    assert!(scopes >= 3 && blocks >= 3, "{file}");
    assert_eq!(replay_passes(&root, "tests"), scopes + blocks);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_minimal_suite_keeps_every_rule_and_problem() {
    let root = project("minimal", "household_benefit.catala_en");
    let explore = lexprobe(
        &root,
        &[
            "concolic",
            "prog/household_benefit.catala_en",
            "--scope",
            "Benefit",
            "--emit-tests",
            "tests",
            "--suite",
            "minimal",
            "--format",
            "json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&explore.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&explore)));
    let suite = &doc["suite"];
    // The items the tests apply: the assertion, the base definition of `amount`, the
    // definition of `per_child` and the exceptions of Articles 2 and 3 — 5 rules. The two
    // problems (division, conflict) need two tests. The scope's assertion is checked once
    // its definitions are computed, so a run ending in an error never applies it: a third
    // test, one ending normally, is needed. 3 tests, and the greedy choice finds 3.
    assert_eq!(suite["rules_applied"], 5, "{suite}");
    assert_eq!(suite["problems"], 2, "{suite}");
    assert_eq!(suite["kept"], 3, "{suite}");
    assert_eq!(suite["total"], doc["tests"].as_array().map_or(0, Vec::len));
    let file = std::fs::read_to_string(root.join("tests/Benefit_concolic.catala_en"))
        .expect("test file written");
    assert_eq!(count(&file, "#[test]"), 1, "{file}");
    assert_eq!(count(&file, "```catala-test-cli"), 2, "{file}");
    assert_eq!(replay_passes(&root, "tests"), 3);
    // The text output says what the suite keeps: of 6 tests (the 8 paths but the two of a
    // negative number of children, single parent or not, outside the assertion's input space).
    let human = lexprobe(
        &root,
        &[
            "concolic",
            "prog/household_benefit.catala_en",
            "--scope",
            "Benefit",
            "--emit-tests",
            "tests-text",
            "--suite",
            "minimal",
        ],
    );
    assert!(
        text(&human)
            .contains("3 of 6 tests kept; 5 rules applied, as by all tests; 2 problems shown"),
        "{}",
        text(&human)
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_program_without_modules_is_included() {
    let root = project("plain", "allowance.catala_en");
    let explore = lexprobe(
        &root,
        &[
            "concolic",
            "prog/allowance.catala_en",
            "--scope",
            "Allowance",
            "--emit-tests",
            "tests",
        ],
    );
    assert_eq!(explore.status.code(), Some(1), "{}", text(&explore));
    let file = std::fs::read_to_string(root.join("tests/Allowance_concolic.catala_en"))
        .expect("test file written");
    assert!(
        file.contains("> Include: ../prog/allowance.catala_en"),
        "{file}"
    );
    assert!(!root.join("tests/clerk.toml").exists());
    // Three paths: a minor ($50), an adult under $1,000 ($30), and an adult with $1,000 or
    // more, whom no rule covers (no applicable rule: a test block).
    assert_eq!(count(&file, "#[test]"), 2, "{file}");
    assert_eq!(count(&file, "```catala-test-cli"), 1, "{file}");
    assert!(
        file.contains("no applicable rule to define this variable"),
        "{file}"
    );
    assert_eq!(replay_passes(&root, "tests"), 3);
    let _ = std::fs::remove_dir_all(&root);
}

/// The restricted housing fixture calls the current housing module of the corpus (through the
/// clerk.toml beside it): its suite passes too, types of the used modules named through the
/// fixture's own module names (`AL.ZoneDHabitation.Zone1`). The whole exploration has 287,029
/// paths, so the first 40 (a few seconds in a debug build).
#[test]
fn the_housing_module_fixture_suite_passes() {
    let program = fixture("concolic_modules", "aides_logement_restricte.catala_fr");
    if !Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/catala-examples")
        .is_dir()
    {
        eprintln!("skipped: ../shared/corpus is absent");
        return;
    }
    let root = std::env::temp_dir().join(format!("lexprobe-suites-{}-housing", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("tests");
    let explore = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("concolic")
        .arg(&program)
        .args(["--scope", "Test", "--max-tests", "40", "--emit-tests"])
        .arg(&dir)
        .output()
        .expect("lexprobe concolic runs");
    assert!(
        matches!(explore.status.code(), Some(0 | 1)),
        "{}",
        text(&explore)
    );
    let file = std::fs::read_to_string(dir.join("Test_concolic.catala_fr")).expect("written");
    assert!(file.contains("AL.ZoneDHabitation."), "{file}");
    // The fixture's own module uses are repeated before it is included: `clerk test` builds
    // only the modules the test file names itself.
    assert!(
        file.contains(
            "> Usage de Aides_logement en tant que AL\n> Usage de France\n\n> Inclusion:"
        ),
        "{file}"
    );
    let tests = count(&file, "#[test]") + count(&file, "```catala-test-cli");
    assert_eq!(tests, 40, "{file}");
    assert_eq!(replay_passes(&root, "tests"), 40);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_path_listed_as_text_is_not_counted_as_a_test_block() {
    // `WithFunction` has one input, a function the exploration fixes: its one path ends in an
    // error, but a test file has no literal for the function, so the path is listed as text
    // and the suite holds no test block.
    let root = std::env::temp_dir().join(format!("lexprobe-suites-{}-listed", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("temporary directory");
    std::fs::copy(
        fixture("concolic_inputs", "fixed.catala_en"),
        root.join("fixed.catala_en"),
    )
    .expect("fixture copied");
    let out = lexprobe(
        &root,
        &[
            "concolic",
            "fixed.catala_en",
            "--scope",
            "WithFunction",
            "--emit-tests",
            "tests",
            "--exit-zero",
        ],
    );
    let printed = text(&out);
    assert!(out.status.success(), "{printed}");
    assert!(
        printed.contains(
            "Suite: 1 test (0 ending in an error, as test blocks; 1 listed as text only)"
        ),
        "{printed}"
    );
    let file = std::fs::read_to_string(root.join("tests/WithFunction_concolic.catala_en"))
        .expect("suite written");
    assert_eq!(count(&file, "```catala-test-cli"), 0, "{file}");
    let _ = std::fs::remove_dir_all(&root);
}
