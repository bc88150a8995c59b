//! Deferred feasibility checks (`Options::deferred_checks`): the states an `admit` or an
//! `append` changes are kept unchecked until their next branch or their end. An infeasible state
//! may then take a few more steps, but a feasible one is never dropped and every path counted
//! is checked: the verdicts and the paths are those of checking every such state at once, the
//! states at least as many, and the Z3 queries fewer where the checks would all have succeeded.

use hatch::{falsify_file, Options, Report};
use std::path::PathBuf;
use std::time::Duration;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hatch")
}

fn run(method: &str, deferred: bool) -> Report {
    let opts = Options {
        exec_bound: 4,
        append_bound: 3,
        timeout: Duration::from_secs(3600),
        deferred_checks: deferred,
        ..Options::default()
    };
    falsify_file(&fixture().join("ri/UniqueSet_KVStore").join(method), &opts).expect("runs")
}

#[test]
fn deferring_the_checks_keeps_the_paths_and_the_verdicts() {
    for method in ["add.ml", "add_buggy.ml", "add_twice.ml"] {
        let now = run(method, false);
        let later = run(method, true);
        assert_eq!(later.falsified, now.falsified, "{method}");
        assert_eq!(later.progress.exhausted, now.progress.exhausted, "{method}");
        assert!(!later.timed_out && !now.timed_out, "{method}");
        if !now.falsified {
            // a search that ends explores every path either way
            assert_eq!(later.paths, now.paths, "{method}");
            assert!(later.states >= now.states, "{method}");
        }
    }
    // the correct method and the buggy one are told apart either way
    assert!(!run("add.ml", true).falsified);
    assert!(run("add_buggy.ml", true).falsified);
}

#[test]
fn the_checks_that_would_succeed_are_not_asked() {
    // every state an `admit` or `append` of `add` makes is feasible: the same states, and the
    // checks of those states left to the branches and ends that follow
    let now = run("add.ml", false);
    let later = run("add.ml", true);
    assert_eq!(later.states, now.states);
    assert!(
        later.solver.queries < now.solver.queries,
        "{} then {}",
        now.solver.queries,
        later.solver.queries
    );
}
