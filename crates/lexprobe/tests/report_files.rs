//! The result files for CI servers, end to end: `lexprobe concolic --sarif` and
//! `lexprobe metamorphic --sarif` are valid SARIF 2.1.0 (official schema, shipped as test data)
//! with the positions and inputs the semantics give; `lexprobe test`, `metamorphic` and
//! `falsify --junit` are accepted by the Jenkins JUnit schema (checked with `xmllint` when it is
//! installed; skipped with a notice otherwise) and count what happened.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-reports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn lexprobe(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("lexprobe starts")
}

fn sarif_errors(log: &Json) -> Vec<String> {
    let text =
        std::fs::read_to_string(workspace().join("tests/fixtures/reports/sarif-schema-2.1.0.json"))
            .expect("schema");
    let schema: Json = serde_json::from_str(&text).expect("schema JSON");
    let validator = jsonschema::draft4::new(&schema).expect("schema compiles");
    validator.iter_errors(log).map(|e| e.to_string()).collect()
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

#[test]
fn concolic_sarif_has_one_result_per_problem_with_positions_and_inputs() {
    let sarif = scratch("fig5.sarif");
    let out = lexprobe(&[
        "concolic",
        "tests/fixtures/concolic/fig5_default.catala_en",
        "--scope",
        "Fig5",
        "--format",
        "json",
        "--sarif",
        sarif.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(1), "Fig. 5's problems fail the run");
    // The JSON output is untouched by the file.
    let doc: Json = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    assert_eq!(doc["stats"]["tests"], 5);
    let log: Json =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF written")).unwrap();
    assert_eq!(sarif_errors(&log), Vec::<String>::new());
    let results = log["runs"][0]["results"].as_array().expect("results");
    // Fig. 5 has two problems: the two exceptions in conflict (b and x = 0) and no rule
    // applying (not b, x < 0).
    assert_eq!(results.len(), 2);
    let conflict = results
        .iter()
        .find(|r| r["ruleId"] == "conflict")
        .expect("the conflict");
    let lines: Vec<u64> = conflict["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    // The first exception is on line 23, the second on line 30 of the fixture.
    assert!(
        lines.contains(&23) && lines.contains(&30),
        "conflict positions {lines:?}"
    );
    assert_eq!(conflict["properties"]["inputs"]["b"], true);
    // Integers are written as strings in lexprobe's JSON (arbitrary precision).
    assert_eq!(conflict["properties"]["inputs"]["x"], "0");
    assert!(conflict["message"]["text"]
        .as_str()
        .unwrap()
        .contains("conflict"));
    let empty = results
        .iter()
        .find(|r| r["ruleId"] == "no_value")
        .expect("the empty default");
    assert_eq!(empty["properties"]["inputs"]["b"], false);
    let x: i64 = empty["properties"]["inputs"]["x"]
        .as_str()
        .and_then(|x| x.parse().ok())
        .expect("x is an integer");
    assert!(x < 0);
    let rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules.len(), 2);
    assert!(rules.contains(&"conflict") && rules.contains(&"no_value"));
}

#[test]
fn metamorphic_sarif_and_junit_report_the_failed_relation_at_its_position() {
    let sarif = scratch("mr.sarif");
    let junit = scratch("mr.xml");
    let html = scratch("mr.html");
    let relations = "examples/metamorphic/form1040.mr";
    let out = lexprobe(&[
        "metamorphic",
        "--system",
        "catala:examples/metamorphic/form1040_bug_eitc_mfs.catala_en#Form1040",
        "--domain",
        "examples/metamorphic/form1040.toml",
        "--relations",
        relations,
        "--only",
        "r3_eitc_mfs,r9_etc_mfs",
        "--max-tests",
        "300",
        "--seed",
        "1",
        "--budget",
        "3600s",
        "--format",
        "json",
        "--sarif",
        sarif.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--report",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "the injected EITC bug fails r3");
    // The HTML report: trees as SVG beside their text form, the failing pair side by side
    // with the differing cells marked (the bug is in the EITC, line 27 of the form).
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<div class=\"tree\"><svg"));
    assert!(page.contains("</svg>\n<pre>if "));
    assert!(page.contains("<table class=\"pair\">"));
    assert!(page.contains("<td class=\"diff\">l27</td>"));
    browser_check(&html, "metamorphic");
    let log: Json = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(sarif_errors(&log), Vec::<String>::new());
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "only r3 fails: {results:?}");
    let r3 = &results[0];
    assert_eq!(r3["ruleId"], "relation-failed");
    assert_eq!(r3["properties"]["relation"], "r3_eitc_mfs");
    let text = std::fs::read_to_string(workspace().join(relations)).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("relation r3_eitc_mfs"))
        .unwrap()
        + 1;
    let region = &r3["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], line as u64);
    assert_eq!(region["startColumn"], 1);
    // The failing pair: a base and a follow-up, each with inputs and outputs.
    let cases = r3["properties"]["failing_pair"]["cases"]
        .as_object()
        .unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases.values() {
        assert!(case["inputs"].is_object() && case["outputs"].is_object());
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 2);
    assert_eq!(xml.matches("<failure ").count(), 1);
    assert!(xml.contains("<testcase name=\"r3_eitc_mfs\""));
    if let Some(errors) = junit_schema_errors(&junit) {
        assert_eq!(errors, "", "JUnit schema errors");
    }
}

#[test]
fn falsify_junit_has_one_case_failed_when_falsified() {
    let dir = "tests/fixtures/hatch/ri/UniqueSet_KVStore";
    for (method, falsified) in [("add_twice.ml", true), ("add.ml", false)] {
        let junit = scratch(&format!("falsify-{method}.xml"));
        let out = lexprobe(&[
            "falsify",
            &format!("{dir}/{method}"),
            // A safety net: the search's bounds decide the verdict.
            "--timeout",
            "3600",
            "--junit",
            junit.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(if falsified { 1 } else { 0 }));
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert_eq!(xml.matches("<testcase ").count(), 1);
        assert_eq!(xml.matches("<failure ").count(), usize::from(falsified));
        let stem = method.trim_end_matches(".ml");
        assert!(xml.contains(&format!("<testcase name=\"{stem}\"")), "{xml}");
        if let Some(errors) = junit_schema_errors(&junit) {
            assert_eq!(errors, "", "JUnit schema errors");
        }
    }
}

#[test]
fn test_junit_is_accepted_by_the_jenkins_schema() {
    let junit = scratch("test.xml");
    let out = lexprobe(&[
        "test",
        "tests/fixtures/runner/good",
        "tests/fixtures/runner/mismatch",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(123));
    if let Some(errors) = junit_schema_errors(&junit) {
        assert_eq!(errors, "", "JUnit schema errors");
    }
    // The schema check is not vacuous: an attribute junit-4.xsd does not allow is refused.
    let broken = scratch("broken.xml");
    let xml = std::fs::read_to_string(&junit).unwrap();
    std::fs::write(
        &broken,
        xml.replacen("<testsuites ", "<testsuites skipped=\"2\" ", 1),
    )
    .unwrap();
    if let Some(errors) = junit_schema_errors(&broken) {
        assert!(errors.contains("skipped"), "{errors}");
    }
}

/// Opens `page` in headless Chromium with `bench/browser/check.sh` (no console error, no
/// network request); skipped with a notice without node or chromium.
fn browser_check(page: &Path, kind: &str) {
    let present = |cmd: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {cmd}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(present("node") && present("chromium")) {
        eprintln!("notice: node or chromium is not installed: the browser check is skipped");
        return;
    }
    let check = Command::new(workspace().join("bench/browser/check.sh"))
        .arg(kind)
        .arg(page)
        .output()
        .expect("the check script runs");
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{report}");
    assert!(report.contains("\"problems\":[]"), "{report}");
}
