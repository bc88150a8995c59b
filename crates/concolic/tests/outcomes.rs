//! Each test's outcome is the one the plain interpreter (`lexprobe run`) gives on its inputs,
//! in Catala's evaluation order; an exploration in the paper's order says where its paths end
//! otherwise. Expected outcomes are derived by hand from the evaluation orders (see the
//! fixture `order_errors.catala_en`).

use catala_eval::runtime::json::value_to_json;
use catala_ir::dcalc::Program;
use concolic::{explore, EvaluationOrder, Exploration, ExploreOptions, Outcome};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic")
        .join(name)
}

fn load(path: &Path) -> (String, Program) {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: parse error {}", path.display(), d.message),
    };
    let program = match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {:?}", path.display(), ds.first().map(|d| &d.message)),
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    (text, program)
}

fn explore_in(program: &Program, scope: &str, order: EvaluationOrder) -> Exploration {
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    let options = ExploreOptions {
        order,
        check: true,
        ..ExploreOptions::default()
    };
    match explore(program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    }
}

/// The test's input `x`, as a JSON number.
fn x_of(program: &Program, t: &concolic::TestCase) -> i64 {
    t.inputs
        .first()
        .cloned()
        .flatten()
        .map(|v| value_to_json(program, &v))
        .and_then(|j| {
            j.as_i64()
                .or_else(|| j.as_str().and_then(|s| s.parse().ok()))
        })
        .unwrap_or_else(|| panic!("no integer x in {:?}", t.inputs))
}

/// Kind and sorted label spans of an outcome (the span of a failed assertion).
fn signature(o: &Outcome) -> (String, Vec<(u32, u32)>) {
    let mut spans: Vec<(u32, u32)> = match o {
        Outcome::Ok(_) => Vec::new(),
        Outcome::Error(e) => e
            .labels
            .iter()
            .map(|l| (l.span.start, l.span.end))
            .collect(),
        Outcome::Assertion(a) => vec![(a.span.start, a.span.end)],
    };
    spans.sort();
    (o.kind().to_string(), spans)
}

/// The plain interpreter's outcome on the test's inputs, as `lexprobe run` reports it.
fn plain(program: &Program, scope: &str, t: &concolic::TestCase) -> (String, Vec<(u32, u32)>) {
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    match catala_eval::run_scope(program, id, t.inputs.clone()) {
        Err(e) => signature(&Outcome::Error(e)),
        Ok(r) => match r.assertion_failures.first() {
            Some(a) => signature(&Outcome::Assertion(a.clone())),
            None => ("ok".to_string(), Vec::new()),
        },
    }
}

#[test]
fn catala_order_gives_the_division_by_zero_of_d2_as_run_does() {
    let (text, program) = load(&fixture("order_errors.catala_en"));
    let e = explore_in(&program, "OrderErrors", EvaluationOrder::Catala);
    // Three paths: x = 0 divides by zero in d2 (evaluated before e); x > 0 and x < 0 succeed.
    let mut got: Vec<(String, i64)> = e
        .tests
        .iter()
        .map(|t| (t.outcome.kind().to_string(), x_of(&program, t).signum()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("division_by_zero".to_string(), 0),
            ("ok".to_string(), -1),
            ("ok".to_string(), 1)
        ]
    );
    for t in &e.tests {
        assert_eq!(signature(&t.outcome), plain(&program, "OrderErrors", t));
        if let Outcome::Error(err) = &t.outcome {
            // Positions within d2's definition (the division and its divisor).
            for l in &err.labels {
                let start = l.span.start as usize;
                let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
                let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
                let line = &text[line_start..line_end];
                assert_eq!(line.trim(), "definition d2 equals 10 / (d1 - 1)");
            }
        }
    }
    assert!(e.stats.complete);
    assert!(e.incomplete.is_empty(), "{:?}", e.incomplete);
    assert!(e.replay_mismatches.is_empty(), "{:?}", e.replay_mismatches);
}

#[test]
fn paper_order_reports_the_runs_outcome_and_says_its_path_ended_otherwise() {
    let (_, program) = load(&fixture("order_errors.catala_en"));
    let e = explore_in(&program, "OrderErrors", EvaluationOrder::Paper);
    // The paper's order evaluates e before d2: at x = 0 the path ends with no rule for e.
    // The test's outcome is still the run's (division by zero in d2), the difference is a
    // replay mismatch, and the exploration is not complete (other inputs of that path could
    // end otherwise in Catala's order).
    assert_eq!(e.tests.len(), 3);
    let zero: Vec<usize> = (0..e.tests.len())
        .filter(|&i| x_of(&program, &e.tests[i]) == 0)
        .collect();
    assert_eq!(zero.len(), 1);
    let t = &e.tests[zero[0]];
    assert_eq!(t.outcome.kind(), "division_by_zero");
    assert_eq!(signature(&t.outcome), plain(&program, "OrderErrors", t));
    assert_eq!(e.replay_mismatches.len(), 1, "{:?}", e.replay_mismatches);
    let (index, why) = &e.replay_mismatches[0];
    assert_eq!(*index, zero[0]);
    assert!(
        why.contains("no_value") && why.contains("division_by_zero"),
        "{why}"
    );
    assert_eq!(e.stats.relabelled, 1);
    assert!(!e.stats.complete);
    assert!(
        e.incomplete
            .iter()
            .any(|i| i.starts_with("1 test ended differently")),
        "{:?}",
        e.incomplete
    );
}

#[test]
fn a_lazy_conflict_carries_every_rule_the_run_names() {
    // b1, b2 and x > 0 apply together when the inputs say so: the lazy evaluation stops at
    // the second rule, the run names all three.
    let (_, program) = load(&fixture("lazy_conflict.catala_en"));
    let e = explore_in(&program, "LazyConflict", EvaluationOrder::Catala);
    assert!(e.replay_mismatches.is_empty(), "{:?}", e.replay_mismatches);
    let mut widened = 0;
    for t in &e.tests {
        let sig = plain(&program, "LazyConflict", t);
        assert_eq!(signature(&t.outcome), sig);
        if sig.0 == "conflict" && sig.1.len() == 3 {
            widened += 1;
        }
    }
    // A lazy path naming two rules where the run names three is a gap in the exploration.
    assert_eq!(e.stats.relabelled, widened);
    assert_eq!(e.stats.complete, widened == 0);
}
