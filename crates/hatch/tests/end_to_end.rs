//! End-to-end runs of the falsifier: on a small set ADT written for these tests
//! (tests/fixtures/hatch: a set kept in a store, whose invariant is that no element is put twice)
//! and on a few benchmarks of the HATch suite when it is present.

use hatch::{falsify_file, Mode, Options};
use std::path::PathBuf;
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hatch/ri/UniqueSet_KVStore")
        .join(name)
}

/// A time limit no bounded search of these tests reaches: their verdicts are decided by the
/// bounds (calls, prestate length), never by the machine's speed.
const SAFETY_NET_S: u64 = 3600;

fn opts(mode: Mode, secs: u64) -> Options {
    Options {
        mode,
        timeout: Duration::from_secs(secs),
        ..Options::default()
    }
}

#[test]
fn a_method_putting_an_element_twice_is_falsified_in_both_modes() {
    for mode in [Mode::Derivative, Mode::Naive] {
        let r = falsify_file(&fixture("add_buggy.ml"), &opts(mode, SAFETY_NET_S)).expect("runs");
        assert!(r.falsified, "{mode:?}");
        let v = r.violation.expect("a violation");
        // the witness ends with a second `put` of the same element
        let puts = v
            .trace
            .iter()
            .filter(|e| e.ops.contains_key("put") && e.possible_ops().is_some())
            .count();
        assert!(puts >= 1 || mode == Mode::Naive);
    }
}

#[test]
fn the_derivative_witness_is_a_trace_ending_in_the_dead_state() {
    let r = falsify_file(
        &fixture("add_twice.ml"),
        &opts(Mode::Derivative, SAFETY_NET_S),
    )
    .expect("runs");
    let v = r.violation.clone().expect("x = y puts the element twice");
    assert!(v
        .cont
        .as_ref()
        .is_some_and(|c| c.is_empty() || !c.nullable()));
    let lines = r.trace_lines();
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("⟨put x_0 = vret")),
        "{lines:?}"
    );
    assert!(!v.model.is_empty());
}

#[test]
fn the_correct_method_is_not_falsified() {
    for mode in [Mode::Derivative, Mode::Naive] {
        let r = falsify_file(&fixture("add.ml"), &opts(mode, SAFETY_NET_S)).expect("runs");
        assert!(!r.falsified, "{mode:?}: {:?}", r.trace_lines());
        assert!(
            !r.timed_out,
            "{mode:?}: the bounded search space is exhausted"
        );
        assert!(r.progress.exhausted, "{mode:?}");
        assert_eq!(r.progress.completed, Some(r.progress.limit), "{mode:?}");
        assert_eq!(r.progress.interrupted, None, "{mode:?}");
        assert!(r.progress.describe().starts_with("bounds exhausted"));
    }
}

#[test]
fn a_search_stopped_by_the_time_limit_says_which_round_was_running() {
    let Some(dir) = suite("Stack_KVStore") else {
        return;
    };
    let options = Options {
        timeout: Duration::from_millis(1500),
        ..Options::default()
    };
    let r = falsify_file(&dir.join("concat_aux.ml"), &options).expect("runs");
    assert!(!r.falsified && r.timed_out);
    let p = r.progress;
    assert!(!p.exhausted);
    let running = p.interrupted.expect("the round running at the time limit");
    assert!(running.calls <= p.limit.calls && running.prestate_length <= p.limit.prestate_length);
    // the rounds before the interrupted one ended
    if let Some(done) = p.completed {
        assert!((done.calls, done.prestate_length) < (running.calls, running.prestate_length));
    }
    assert!(
        p.describe().starts_with("time limit reached"),
        "{}",
        p.describe()
    );
}

#[test]
fn unsupported_syntax_is_reported_with_its_position() {
    let err = falsify_file(&fixture("unsupported.ml"), &opts(Mode::Derivative, 5))
        .expect_err("`match` is outside the subset");
    let msg = err.to_string();
    assert!(msg.contains("unsupported.ml:2:"), "{msg}");
}

fn suite(bench: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/hatch-benchmarks/ri")
        .join(bench);
    if p.exists() {
        Some(p)
    } else {
        println!("HATch suite not found at {}: skipping", p.display());
        None
    }
}

#[test]
fn buggy_suite_methods_are_falsified_and_their_fixes_are_not() {
    for (bench, buggy, correct) in [
        ("Stack_LinkedList", "cons_buggy.ml", Some("cons.ml")),
        (
            "DFA_KVStore",
            "add_transition_buggy.ml",
            Some("add_transition.ml"),
        ),
        ("Set_KVStore", "insert_buggy.ml", None),
    ] {
        let Some(dir) = suite(bench) else { return };
        let r =
            falsify_file(&dir.join(buggy), &opts(Mode::Derivative, SAFETY_NET_S)).expect("runs");
        assert!(r.falsified, "{bench}/{buggy}");
        if let Some(c) = correct {
            let r =
                falsify_file(&dir.join(c), &opts(Mode::Derivative, SAFETY_NET_S)).expect("runs");
            assert!(!r.falsified, "{bench}/{c}: {:?}", r.trace_lines());
        }
    }
}
