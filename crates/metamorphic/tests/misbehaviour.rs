//! The misbehaviour suite: a small program written for it (`tests/fixtures/metamorphic/
//! unruly.py`, y = a + 2b with a planted dip of 1000 once b > 500) misbehaves on request —
//! stray lines, crashes on a fraction of the inputs, hangs, early exits, wrong JSON types,
//! huge replies, bytes that are not UTF-8 — and every search must still give the verdicts of
//! the clean program, attribute every reply to its own input (each kept test's F is checked
//! against y computed here from the test's inputs), and report the misbehaviour as run
//! errors of the affected tests.

use metamorphic::check::{check_relations, RelationReport};
use metamorphic::domain::Domain;
use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::names::{known_outputs, ProbeError};
use metamorphic::relation::{parse_relations, Relation};
use metamorphic::search::{SearchConfig, Verdict, MAIN_OUTPUT_KEY};
use metamorphic::system::SystemUnderTest;
use metamorphic::tree::TreeOptions;
use metamorphic::value::{Record, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/metamorphic")
}

/// The Python interpreter itself (a version-manager shim would add a start-up cost to every
/// restart), or `None` when there is none.
fn python() -> Option<String> {
    let output = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let path = String::from_utf8(output.stdout).ok()?.trim().to_string();
    if path.is_empty() {
        None
    } else {
        Some(path)
    }
}

fn program(options: &str, timeout: Duration) -> Option<ExternalProgram> {
    let request_ids = options.contains("--echo");
    let Some(python) = python() else {
        eprintln!("python3 not found: skipping the misbehaviour suite");
        return None;
    };
    let script = fixtures().join("unruly.py");
    let command = format!("{python} {} {options}", script.display());
    Some(ExternalProgram::new(&command, CallMode::JsonLines, timeout).with_request_ids(request_ids))
}

fn domain() -> Domain {
    Domain::from_toml(&std::fs::read_to_string(fixtures().join("unruly.toml")).unwrap()).unwrap()
}

fn relations() -> Vec<Relation> {
    parse_relations(&std::fs::read_to_string(fixtures().join("unruly.mr")).unwrap()).unwrap()
}

/// y of the clean program, from the inputs.
fn expected_y(case: &Record) -> f64 {
    let a = case["a"].as_f64().unwrap();
    let b = case["b"].as_f64().unwrap();
    a + 2.0 * b - if b > 500.0 { 1000.0 } else { 0.0 }
}

fn check(system: &dyn SystemUnderTest, max_tests: usize, jobs: usize) -> Vec<RelationReport> {
    let config = SearchConfig {
        seed: 3,
        budget: Duration::from_secs(3600),
        max_tests: Some(max_tests),
        jobs,
        ..SearchConfig::default()
    };
    check_relations(
        &relations(),
        &domain(),
        system,
        &config,
        &TreeOptions::default(),
        &mut |_| {},
    )
}

/// Every reply kept (the sampled tests and the most deviating failures) is that of its own
/// input, and each test's label is the clean program's.
fn assert_replies_belong_to_their_inputs(report: &RelationReport) {
    let tests = report
        .outcome
        .kept
        .iter()
        .chain(&report.outcome.worst_failures);
    let mut seen = 0;
    for test in tests {
        for (case, outputs) in test.cases.iter().zip(&test.outputs) {
            assert_eq!(
                outputs.get(MAIN_OUTPUT_KEY).and_then(Value::as_f64),
                Some(expected_y(case)),
                "{}: F of {case:?} is {outputs:?}",
                report.relation.name
            );
        }
        let (x, y) = (&test.cases[0], &test.cases[1]);
        assert_eq!(test.failed, expected_y(x) >= expected_y(y), "{test:?}");
        seen += 1;
    }
    assert!(seen > 0, "{}: no test kept", report.relation.name);
}

/// The clean program's verdicts: `grows_with_a` holds, `grows_with_b` fails exactly where b
/// crosses 500 by less than 500.
fn assert_clean_verdicts(reports: &[RelationReport]) {
    assert_eq!(reports[0].relation.name, "grows_with_a");
    assert_eq!(reports[0].outcome.verdict, Verdict::Passed);
    assert_eq!(reports[0].outcome.failed, 0);
    assert_eq!(reports[1].relation.name, "grows_with_b");
    assert_eq!(reports[1].outcome.verdict, Verdict::Failed);
    for test in reports[1].outcome.kept.iter().filter(|t| t.failed) {
        let (xb, yb) = (test.cases[0]["b"].as_f64(), test.cases[1]["b"].as_f64());
        let (xb, yb) = (xb.unwrap(), yb.unwrap());
        assert!(xb <= 500.0 && yb > 500.0 && yb - xb <= 500.0, "{test:?}");
    }
    for report in reports {
        assert_replies_belong_to_their_inputs(report);
    }
}

fn error_examples(reports: &[RelationReport]) -> String {
    reports
        .iter()
        .flat_map(|r| r.outcome.run_error_examples.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn run_errors(reports: &[RelationReport]) -> usize {
    reports.iter().map(|r| r.outcome.run_errors).sum()
}

#[test]
fn clean_program() {
    let Some(system) = program("", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 600, 2);
    assert_clean_verdicts(&reports);
    assert_eq!(run_errors(&reports), 0);
    assert_eq!(system.restarts(), 0);
    for report in &reports {
        assert_eq!(report.outcome.tests, 600);
    }
}

#[test]
fn stray_lines_at_random_never_shift_replies() {
    let Some(system) = program("--stray 0.1", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 600, 2);
    assert_clean_verdicts(&reports);
    // Stray lines cost the affected tests, and the instances that printed them.
    assert!(run_errors(&reports) > 0);
    assert!(system.restarts() > 0);
    assert!(
        error_examples(&reports).contains("malformed reply: debug:"),
        "{}",
        error_examples(&reports)
    );
}

#[test]
fn stray_json_objects_are_caught_by_request_ids() {
    // A stray line that is a JSON object looks like a reply: only the echoed request_id
    // tells it apart (it says y = -1, which would break `grows_with_a` if it were believed).
    let Some(system) = program("--stray-json 0.1 --echo", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 600, 2);
    assert_clean_verdicts(&reports);
    assert!(
        error_examples(&reports).contains("reply to the wrong request"),
        "{}",
        error_examples(&reports)
    );
}

#[test]
fn crashes_on_a_fraction_of_inputs() {
    let Some(system) = program("--crash 0.05", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 300, 2);
    assert_clean_verdicts(&reports);
    let errors = error_examples(&reports);
    assert!(errors.contains("fatal: cannot handle"), "{errors}");
    assert!(errors.contains("exit status: 3"), "{errors}");
    assert!(errors.contains("unruly.py"), "{errors}");
}

#[test]
fn hangs_time_out_and_the_instance_is_replaced() {
    let Some(system) = program("--hang 0.01", Duration::from_millis(300)) else {
        return;
    };
    let reports = check(&system, 300, 2);
    assert_clean_verdicts(&reports);
    assert!(error_examples(&reports).contains("timeout after 0.3s"));
}

#[test]
fn early_exits_are_run_errors_of_the_next_test() {
    let Some(system) = program("--exit-after 9", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 300, 1);
    assert_clean_verdicts(&reports);
    let errors = error_examples(&reports);
    assert!(
        errors.contains("ended without answering (exit status: 0")
            || errors.contains("closed its input"),
        "{errors}"
    );
}

#[test]
fn wrong_json_types_are_run_errors() {
    let Some(system) = program("--wrong-types 0.1", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 400, 2);
    assert_clean_verdicts(&reports);
    let errors = error_examples(&reports);
    assert!(run_errors(&reports) > 0);
    // A string, a null, a list or an object where y should be a number: F cannot be
    // computed, or cannot be compared; a JSON list as the whole reply: malformed.
    assert!(
        errors.contains("`y` is neither")
            || errors.contains("is not a number")
            || errors.contains("cannot compare")
            || errors.contains("needs numbers")
            || errors.contains("malformed reply: ["),
        "{errors}"
    );
}

#[test]
fn huge_replies_are_refused_without_being_kept() {
    let Some(system) = program("--huge 0.05", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 300, 2);
    assert_clean_verdicts(&reports);
    let errors = error_examples(&reports);
    assert!(
        errors.contains("bytes or more (the limit is 1048576)"),
        "{errors}"
    );
}

#[test]
fn replies_that_are_not_utf8_are_run_errors() {
    let Some(system) = program("--non-utf8 0.05", Duration::from_secs(5)) else {
        return;
    };
    let reports = check(&system, 300, 2);
    assert_clean_verdicts(&reports);
    let errors = error_examples(&reports);
    assert!(errors.contains("not UTF-8"), "{errors}");
}

#[test]
fn the_budget_stops_runs_in_flight() {
    // Every input hangs; the per-run timeout (30 s) is far beyond the budget (1 s).
    let Some(system) = program("--hang 1", Duration::from_secs(30)) else {
        return;
    };
    let config = SearchConfig {
        seed: 1,
        budget: Duration::from_secs(1),
        jobs: 2,
        ..SearchConfig::default()
    };
    let started = Instant::now();
    let outcome =
        metamorphic::search::search_relation(&relations()[0], &domain(), &system, &config);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(1900), "{elapsed:?}");
    assert_eq!(outcome.verdict, Verdict::Inconclusive);
    assert_eq!(outcome.tests, 0);
    assert!(outcome.stop_reason.is_some());
}

#[test]
fn test_caps_are_exact() {
    let Some(system) = program("--crash 0.1", Duration::from_secs(5)) else {
        return;
    };
    for cap in [1, 7, 64] {
        let config = SearchConfig {
            seed: 2,
            max_tests: Some(cap),
            jobs: 2,
            ..SearchConfig::default()
        };
        for relation in &relations() {
            let outcome =
                metamorphic::search::search_relation(relation, &domain(), &system, &config);
            // Tests whose runs crashed are run errors, not tests: exactly `cap` completed.
            assert_eq!(outcome.tests, cap, "{}", relation.name);
            assert_eq!(outcome.passed + outcome.failed, cap);
        }
    }
}

#[test]
fn a_program_that_never_answers_is_named_with_its_stderr() {
    let system = ExternalProgram::new(
        "echo 'cannot open tax tables' >&2; exit 4",
        CallMode::JsonLines,
        Duration::from_secs(5),
    );
    match known_outputs(&system, &domain(), 0) {
        Err(ProbeError::NoAnswer {
            failure,
            never_answered,
            ..
        }) => {
            assert!(never_answered);
            assert!(
                failure.contains("`echo 'cannot open tax tables' >&2; exit 4`"),
                "{failure}"
            );
            assert!(failure.contains("cannot open tax tables"), "{failure}");
            assert!(failure.contains("exit status: 4"), "{failure}");
        }
        other => panic!("{other:?}"),
    }
    // A program that answers: its outputs are learnt from the probe.
    if let Some(system) = program("", Duration::from_secs(5)) {
        assert_eq!(
            known_outputs(&system, &domain(), 0),
            Ok(vec!["y".to_string()])
        );
    }
}
