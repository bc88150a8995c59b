//! `lexprobe concolic` in continuous integration: the exit code (1 when a problem is found on
//! some path, 0 with `--exit-zero` or when every path is clean, errors unchanged), `--junit`
//! (one failed case per distinct problem, one passed case for the clean paths; checked against
//! the Jenkins JUnit schema with `xmllint` when it is installed), SARIF paths relative to the
//! source root (`originalUriBaseIds`) with the inputs in the message, and the recipes of
//! `examples/ci/` (valid YAML, checked with Python's `yaml` when it is installed, and their
//! lexprobe command run as written on the fixtures).
//!
//! The fixtures, derived by hand: `fig5_default.catala_en` is the default term
//! ⟨⟨b :- 1⟩, ⟨x = 0 :- 2⟩ | x > 0 :- 3⟩, so 5 paths: b ∧ x = 0 is a conflict, ¬b ∧ x < 0
//! leaves y without a value, and the 3 others give y. `discount.catala_en` has no problem: the
//! taxable excess is a choice between two formulas, and its assertion (customer price ≥
//! employee price), checked after the definitions in Catala's order, bounds the input space on
//! each: 2 paths with outputs, 2 outside the input space.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIG5: &str = "tests/fixtures/concolic/fig5_default.catala_en";
const DISCOUNT: &str = "tests/fixtures/concolic/discount.catala_en";

fn workspace() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-ci-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn lexprobe_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("lexprobe starts")
}

fn lexprobe(args: &[&str]) -> Output {
    lexprobe_in(&workspace(), args)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `Some(errors)` from xmllint against the Jenkins JUnit schema, `None` without xmllint.
fn junit_schema_errors(xml_file: &Path) -> Option<String> {
    let xsd = workspace().join("tests/fixtures/reports/junit-jenkins.xsd");
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&xsd)
        .arg(xml_file)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(String::new()),
        Ok(o) => Some(String::from_utf8_lossy(&o.stderr).into_owned()),
        Err(_) => {
            eprintln!("notice: xmllint (Debian package libxml2-utils) is not installed: the JUnit schema check is skipped");
            None
        }
    }
}

fn sarif_errors(log: &Json) -> Vec<String> {
    let text =
        std::fs::read_to_string(workspace().join("tests/fixtures/reports/sarif-schema-2.1.0.json"))
            .expect("schema");
    let schema: Json = serde_json::from_str(&text).expect("schema JSON");
    let validator = jsonschema::draft4::new(&schema).expect("schema compiles");
    validator.iter_errors(log).map(|e| e.to_string()).collect()
}

#[test]
fn a_problem_found_exits_1_and_exit_zero_gives_0() {
    let human = lexprobe(&["concolic", FIG5, "--scope", "Fig5", "--quiet"]);
    assert_eq!(human.status.code(), Some(1));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("Findings: 2 distinct problems."), "{text}");
    for format in [&["--format", "json"][..], &["--jsonl"][..]] {
        let mut args = vec!["concolic", FIG5, "--scope", "Fig5", "--quiet"];
        args.extend_from_slice(format);
        assert_eq!(lexprobe(&args).status.code(), Some(1), "{format:?}");
        args.push("--exit-zero");
        let out = lexprobe(&args);
        assert_eq!(out.status.code(), Some(0), "{format:?}");
        // The problems are still reported.
        let last = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .map(str::to_string)
            .unwrap_or_default();
        let doc: Json = serde_json::from_str(&last).expect("JSON (last line)");
        assert_eq!(doc["findings"].as_array().map(Vec::len), Some(2));
    }
    let opted_out = lexprobe(&["concolic", FIG5, "--scope", "Fig5", "--exit-zero"]);
    assert_eq!(opted_out.status.code(), Some(0));
    assert_eq!(
        opted_out.stdout, human.stdout,
        "--exit-zero changes only the code"
    );
}

#[test]
fn a_clean_exploration_exits_0() {
    let out = lexprobe(&["concolic", DISCOUNT, "--scope", "Discount", "--quiet"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Findings: no conflict"), "{text}");
}

#[test]
fn errors_keep_their_codes_with_exit_zero() {
    let usage = lexprobe(&[
        "concolic",
        FIG5,
        "--scope",
        "Fig5",
        "--optim",
        "nonsense",
        "--exit-zero",
    ]);
    assert_eq!(usage.status.code(), Some(2));
    let missing_scope = lexprobe(&["concolic", FIG5, "--scope", "NoSuchScope", "--exit-zero"]);
    assert_eq!(missing_scope.status.code(), Some(123));
}

#[test]
fn a_test_limit_exits_as_the_paths_explored_say() {
    // One path of Fig. 5's five: whether it shows a problem or not, the code says what it found.
    let first = lexprobe(&[
        "concolic",
        FIG5,
        "--scope",
        "Fig5",
        "--max-tests",
        "1",
        "--format",
        "json",
    ]);
    let doc: Json = serde_json::from_slice(&first.stdout).expect("JSON");
    let found = doc["findings"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(doc["stats"]["tests"], 1);
    assert_eq!(
        first.status.code(),
        Some(if found > 0 { 1 } else { 0 }),
        "exit code follows the findings of the paths explored: {doc}"
    );
}

#[test]
fn junit_has_a_failed_case_per_problem_and_a_passed_case_for_the_clean_paths() {
    let junit = scratch("fig5.xml");
    let out = lexprobe(&[
        "concolic",
        FIG5,
        "--scope",
        "Fig5",
        "--quiet",
        "--junit",
        path_str(&junit),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).expect("JUnit written");
    if let Some(errors) = junit_schema_errors(&junit) {
        assert_eq!(errors, "", "JUnit schema errors");
    }
    assert_eq!(xml.matches("<testcase ").count(), 3, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 2, "{xml}");
    assert!(xml.contains("tests=\"3\" failures=\"2\" errors=\"0\" skipped=\"0\""));
    // The conflict: named by its kind and first position (the first exception, line 23),
    // with the inputs of the path b ∧ x = 0 in the message and both rules in the body.
    let conflict = xml
        .split("<testcase ")
        .find(|c| c.starts_with(&format!("name=\"conflict at {FIG5}:23:")))
        .expect("the conflict's test case");
    assert!(conflict.contains("Inputs: b = true; x = 0\""), "{conflict}");
    assert!(conflict.contains(&format!("{FIG5}:30:")), "{conflict}");
    let empty = xml
        .split("<testcase ")
        .find(|c| c.starts_with("name=\"no_value at "))
        .expect("the empty default's test case");
    assert!(empty.contains("Inputs: b = false; x = -"), "{empty}");
    let clean = xml
        .split("<testcase ")
        .find(|c| c.starts_with("name=\"paths without a problem\""))
        .expect("the clean paths' case");
    assert!(!clean.contains("<failure"));
    assert!(
        clean.contains("5 tests: 3 with outputs, 0 outside the input space (a failed assertion), 2 with a problem; exploration complete"),
        "{clean}"
    );
}

#[test]
fn junit_of_a_clean_exploration_has_one_passed_case() {
    let junit = scratch("discount.xml");
    let out = lexprobe(&[
        "concolic",
        DISCOUNT,
        "--scope",
        "Discount",
        "--quiet",
        "--junit",
        path_str(&junit),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let xml = std::fs::read_to_string(&junit).expect("JUnit written");
    if let Some(errors) = junit_schema_errors(&junit) {
        assert_eq!(errors, "", "JUnit schema errors");
    }
    assert_eq!(xml.matches("<testcase ").count(), 1, "{xml}");
    assert!(!xml.contains("<failure"));
    // The assertion on the inputs (the customer price at least the employee's) bounds every
    // query: two paths, a taxable excess or none, and no run outside it.
    assert!(
        xml.contains("2 tests: 2 with outputs, 0 outside the input space"),
        "{xml}"
    );
}

/// The `artifactLocation`s of every result of a SARIF log.
fn artifact_locations(log: &Json) -> Vec<Json> {
    log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .flat_map(|r| r["locations"].as_array().cloned().unwrap_or_default())
        .map(|l| l["physicalLocation"]["artifactLocation"].clone())
        .collect()
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).expect("file written")).expect("JSON")
}

#[test]
fn sarif_paths_are_relative_to_the_source_root_and_messages_give_the_inputs() {
    let sarif = scratch("fig5-root.sarif");
    let out = lexprobe(&[
        "concolic",
        FIG5,
        "--scope",
        "Fig5",
        "--quiet",
        "--sarif",
        path_str(&sarif),
        "--source-root",
        "tests/fixtures",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let log = read_json(&sarif);
    assert_eq!(sarif_errors(&log), Vec::<String>::new());
    let base = &log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"];
    let expected = format!("file://{}/tests/fixtures/", workspace().display());
    assert_eq!(base.as_str(), Some(expected.as_str()));
    let locations = artifact_locations(&log);
    // The conflict's two rules and the empty default's variable.
    assert_eq!(locations.len(), 3);
    for l in &locations {
        assert_eq!(l["uri"], "concolic/fig5_default.catala_en");
        assert_eq!(l["uriBaseId"], "SRCROOT");
    }
    let results = log["runs"][0]["results"].as_array().expect("results");
    let conflict = results
        .iter()
        .find(|r| r["ruleId"] == "conflict")
        .expect("the conflict");
    let message = conflict["message"]["text"].as_str().unwrap_or("");
    assert!(
        message.starts_with("During evaluation: conflict"),
        "{message}"
    );
    assert!(
        message.ends_with("(scope Fig5): b = true; x = 0."),
        "{message}"
    );
}

#[test]
fn the_default_source_root_is_the_git_work_tree_of_the_program() {
    let in_git = workspace().ancestors().any(|d| d.join(".git").exists());
    let sarif = scratch("fig5-default.sarif");
    // Run from a subdirectory: the paths stay relative to the top of the work tree.
    let sub = workspace().join("tests/fixtures");
    let out = lexprobe_in(
        &sub,
        &[
            "concolic",
            "concolic/fig5_default.catala_en",
            "--scope",
            "Fig5",
            "--quiet",
            "--sarif",
            path_str(&sarif),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let log = read_json(&sarif);
    assert_eq!(sarif_errors(&log), Vec::<String>::new());
    let expected = if in_git {
        FIG5
    } else {
        eprintln!("notice: the checkout is not a git work tree: the default root is the current directory");
        "concolic/fig5_default.catala_en"
    };
    for l in artifact_locations(&log) {
        assert_eq!(l["uri"], expected);
        assert_eq!(l["uriBaseId"], "SRCROOT");
    }
}

#[test]
fn metamorphic_sarif_is_relative_to_the_source_root_too() {
    let sarif = scratch("mr.sarif");
    let out = lexprobe(&[
        "metamorphic",
        "--system",
        "catala:examples/metamorphic/form1040_bug_eitc_mfs.catala_en#Form1040",
        "--domain",
        "examples/metamorphic/form1040.toml",
        "--relations",
        "examples/metamorphic/form1040.mr",
        "--only",
        "r3_eitc_mfs",
        "--max-tests",
        "300",
        "--seed",
        "1",
        "--budget",
        "3600s",
        "--format",
        "json",
        "--sarif",
        path_str(&sarif),
    ]);
    assert_eq!(out.status.code(), Some(1), "the injected EITC bug fails r3");
    let log = read_json(&sarif);
    assert_eq!(sarif_errors(&log), Vec::<String>::new());
    let locations = artifact_locations(&log);
    assert_eq!(locations.len(), 1);
    assert_eq!(locations[0]["uriBaseId"], "SRCROOT");
    let uri = locations[0]["uri"].as_str().unwrap_or("");
    assert!(uri.ends_with("examples/metamorphic/form1040.mr"), "{uri}");
}

/// The shell lines of a recipe that run lexprobe: from `status=0` to `exit "$status"`,
/// unindented.
fn recipe_command(recipe: &str) -> String {
    let text = std::fs::read_to_string(workspace().join("examples/ci").join(recipe))
        .expect("recipe in the repository");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == "mkdir -p lexprobe-out")
        .expect("the recipe makes its output directory");
    let end = lines[start..]
        .iter()
        .position(|l| l.trim() == "exit \"$status\"")
        .expect("the recipe exits with lexprobe's status")
        + start;
    lines[start..=end]
        .iter()
        .map(|l| l.trim_start())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs a recipe's command on `file`'s `scope` in a fresh directory; the exit code and the
/// output directory.
fn run_recipe(recipe: &str, file: &str, scope: &str) -> (Option<i32>, PathBuf) {
    let dir = scratch(&format!("{recipe}-{scope}"));
    std::fs::create_dir_all(&dir).expect("dir");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_lexprobe"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new("bash")
        .arg("-c")
        .arg(recipe_command(recipe))
        .current_dir(&dir)
        .env("PATH", path)
        .env("FILE", workspace().join(file))
        .env("SCOPE", scope)
        .env("LEXPROBE_TIMEOUT", "600")
        .output()
        .expect("bash starts")
        .status;
    (status.code(), dir.join("lexprobe-out"))
}

#[test]
fn the_ci_recipes_run_lexprobe_as_written() {
    for recipe in ["github-actions.yml", "gitlab-ci.yml"] {
        let (code, out) = run_recipe(recipe, FIG5, "Fig5");
        assert_eq!(code, Some(1), "{recipe}: a problem fails the job");
        for name in ["Fig5.sarif", "Fig5.xml", "Fig5.html", "Fig5.txt"] {
            assert!(out.join(name).is_file(), "{recipe}: {name} written");
        }
        let log = read_json(&out.join("Fig5.sarif"));
        assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(2));
        let (code, out) = run_recipe(recipe, DISCOUNT, "Discount");
        assert_eq!(code, Some(0), "{recipe}: a clean scope passes");
        assert!(out.join("Discount.xml").is_file());
    }
    assert_eq!(
        recipe_command("github-actions.yml"),
        recipe_command("gitlab-ci.yml"),
        "both recipes run the same command"
    );
}

/// A recipe parsed by Python's `yaml` module, as JSON; `None` (with a notice) without it.
fn yaml_as_json(recipe: &str) -> Option<Json> {
    let script =
        "import json, sys, yaml\nprint(json.dumps(yaml.safe_load(open(sys.argv[1])), default=str))";
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(workspace().join("examples/ci").join(recipe))
        .output();
    match out {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).expect("JSON")),
        _ => {
            eprintln!("notice: python3 with the yaml module is not available: the YAML check of {recipe} is skipped");
            None
        }
    }
}

#[test]
fn the_ci_recipes_are_yaml_with_the_uploads() {
    if let Some(github) = yaml_as_json("github-actions.yml") {
        let steps = github["jobs"]["concolic"]["steps"]
            .as_array()
            .expect("the concolic job's steps");
        let uses: Vec<&str> = steps.iter().filter_map(|s| s["uses"].as_str()).collect();
        assert!(
            uses.contains(&"github/codeql-action/upload-sarif@v3"),
            "{uses:?}"
        );
        assert!(uses.contains(&"actions/upload-artifact@v4"), "{uses:?}");
        let sarif = steps
            .iter()
            .find(|s| s["uses"] == "github/codeql-action/upload-sarif@v3")
            .expect("upload-sarif");
        // Uploaded even though the exploration step failed.
        assert!(sarif["if"].as_str().unwrap_or("").contains("!cancelled()"));
        assert_eq!(
            github["jobs"]["concolic"]["permissions"]["security-events"],
            "write"
        );
    }
    if let Some(gitlab) = yaml_as_json("gitlab-ci.yml") {
        let job = &gitlab["lexprobe-concolic"];
        assert_eq!(job["artifacts"]["when"], "always");
        assert_eq!(job["artifacts"]["reports"]["junit"], "lexprobe-out/*.xml");
        assert!(job["script"].as_array().is_some_and(|s| !s.is_empty()));
    }
}
