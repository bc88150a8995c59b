//! The input space a scope states with assertions on its inputs (the `input-space`
//! optimization): the explored scope's assertions bound every query, a called scope's are
//! checked on entry, and a run outside them is one test, marked, that ends its path. The
//! expected cases come from the fixture `input_space.catala_en`, worked out by hand: within the
//! space (income ≥ $0, children from 0 to 5) three classes of children (0, 1–2, 3–5) times two
//! of income (≤ $1,000 or more); outside, a negative number of children fails `Allowance`'s
//! assertion.

use catala_eval::runtime::json::value_to_json;
use catala_ir::dcalc::Program;
use concolic::{explore, Exploration, ExploreOptions, Optimizations, Outcome, TestCase};
use std::collections::BTreeSet;
use std::path::Path;

fn program() -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic/input_space.catala_en");
    let (sources, parsed) = catala_syntax::parse_file_with_sources(&path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("parse error {}", d.message),
    };
    match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{:?}", ds.first().map(|d| &d.message)),
    }
}

fn run(program: &Program, optimizations: Optimizations, hints: Option<&str>) -> Exploration {
    let Some(id) = program.scope_by_name("Household") else {
        panic!("no scope Household")
    };
    let options = ExploreOptions {
        optimizations,
        check: true,
        hints: hints.map(|h| serde_json::from_str(h).expect("hints")),
        ..ExploreOptions::default()
    };
    match explore(program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    }
}

/// The test's (income in cents, children).
fn inputs(program: &Program, t: &TestCase) -> (i64, i64) {
    let number = |i: usize| -> i64 {
        let j = t.inputs[i]
            .as_ref()
            .map(|v| value_to_json(program, v))
            .unwrap_or_else(|| panic!("input {i} missing"));
        let text = match &j {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match text.split_once('.') {
            Some((units, cents)) => {
                let u: i64 = units.parse().expect("units");
                let c: i64 = cents.parse().expect("cents");
                u * 100 + if text.starts_with('-') { -c } else { c }
            }
            None => text.parse().expect("integer"),
        }
    };
    (number(0), number(1))
}

/// The case of an input within the space: (children class, income above $1,000).
fn case(income: i64, children: i64) -> (u8, bool) {
    let class = match children {
        0 => 0,
        1..=2 => 1,
        _ => 2,
    };
    (class, income > 100_000)
}

fn every_case() -> BTreeSet<(u8, bool)> {
    (0..3).flat_map(|c| [(c, false), (c, true)]).collect()
}

#[test]
fn only_the_inputs_the_assertions_admit_are_explored() {
    let program = program();
    let e = run(&program, Optimizations::ALL, None);
    assert!(e.stats.complete, "{:?}", e.incomplete);
    assert!(e.replay_mismatches.is_empty(), "{:?}", e.replay_mismatches);
    let mut cases = BTreeSet::new();
    let mut outside = Vec::new();
    for t in &e.tests {
        let (income, children) = inputs(&program, t);
        // The explored scope's assertions bound every query: no test breaks them.
        assert!(income >= 0 && children <= 5, "{income} {children}");
        if t.outside_input_space {
            outside.push(children);
            // The run's outcome is the plain run's: Allowance's assertion fails.
            assert!(
                matches!(t.outcome, Outcome::Assertion(_)),
                "{:?}",
                t.outcome
            );
        } else {
            assert!(children >= 0);
            assert!(matches!(t.outcome, Outcome::Ok(_)), "{:?}", t.outcome);
            assert!(cases.insert(case(income, children)), "case twice");
        }
    }
    assert_eq!(cases, every_case());
    // One run with a negative number of children, ended at Allowance's assertion.
    assert_eq!(outside.len(), 1);
    assert!(outside[0] < 0);
    assert_eq!(e.tests.len(), 7);
}

#[test]
fn without_it_the_runs_outside_the_assertions_are_explored_too() {
    let program = program();
    let off = Optimizations {
        input_space: false,
        ..Optimizations::ALL
    };
    let e = run(&program, off, None);
    assert!(e.stats.complete, "{:?}", e.incomplete);
    assert!(e.tests.iter().all(|t| !t.outside_input_space));
    let broken = e
        .tests
        .iter()
        .filter(|t| {
            let (income, children) = inputs(&program, t);
            income < 0 || children > 5
        })
        .count();
    assert!(broken > 0, "no test outside Household's assertions");
    assert!(e.tests.len() > 7, "{} tests", e.tests.len());
}

#[test]
fn a_start_outside_the_space_is_one_test_and_the_search_enters_it() {
    let program = program();
    let e = run(
        &program,
        Optimizations::ALL,
        Some(r#"{"income": "-5.00", "children": 1}"#),
    );
    assert!(e.stats.complete, "{:?}", e.incomplete);
    let first = &e.tests[0];
    assert_eq!(inputs(&program, first), (-500, 1));
    assert!(first.outside_input_space);
    // Its plain outcome: Household's assertion on the income fails, at the end of the run.
    assert!(matches!(first.outcome, Outcome::Assertion(_)));
    let within: BTreeSet<_> = e
        .tests
        .iter()
        .filter(|t| !t.outside_input_space)
        .map(|t| {
            let (income, children) = inputs(&program, t);
            assert!(income >= 0 && (0..=5).contains(&children));
            case(income, children)
        })
        .collect();
    assert_eq!(within, every_case());
    assert_eq!(e.tests.iter().filter(|t| t.outside_input_space).count(), 2);
}

#[test]
fn a_plan_started_outside_the_space_starts_within_it() {
    let program = program();
    let Some(id) = program.scope_by_name("Household") else {
        panic!("no scope Household")
    };
    let options = ExploreOptions {
        hints: Some(serde_json::json!({"income": "-5.00", "children": 1})),
        ..ExploreOptions::default()
    };
    let plan = match concolic::plan::make_plan(&program, id, &options, 2, 4) {
        Ok(p) => p,
        Err(e) => panic!("plan: {e}"),
    };
    // Its pieces follow the paths they were solved for: no divergence.
    assert_eq!(plan.divergences, 0);
    assert_eq!(plan.unknown_queries, 0);
    let mut cases = BTreeSet::new();
    let mut outside = 0;
    for shard in 0..2 {
        let mine: Vec<_> = plan
            .shard(shard)
            .into_iter()
            .map(|s| (s.prefix.clone(), s.assignment.clone()))
            .collect();
        let mut found = Vec::new();
        let done = concolic::shard::explore_shard(
            &program,
            id,
            &options,
            &mine,
            &mut |_, t| {
                found.push(t.clone());
                concolic::Control::Continue
            },
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("shard {shard}: {e}"));
        assert!(done.complete.iter().all(|c| *c), "shard {shard}");
        for t in &found {
            let (income, children) = inputs(&program, t);
            assert!(income >= 0 && children <= 5);
            if t.outside_input_space {
                outside += 1;
            } else {
                assert!(cases.insert(case(income, children)), "case twice");
            }
        }
    }
    assert_eq!(cases, every_case());
    // Only the run with a negative number of children.
    assert_eq!(outside, 1);
}
