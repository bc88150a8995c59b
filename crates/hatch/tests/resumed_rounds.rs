//! The rounds of growing call bounds resume the states the previous round stopped at its bound
//! instead of exploring again from the harness. Checked on the UniqueSet_KVStore fixture (no
//! element is put twice) with methods written here: a method that makes no recursive call is
//! explored once whatever the call bound, a violation that needs two calls is found by the
//! round that resumes the stopped states and by no round of one call, and a recursive method
//! whose recursion is cut by the bound still ends "bounds exhausted". All verdicts are decided by
//! the bounds (the time limit is a safety net an hour away).

mod support;

use hatch::{falsify_file, Mode, Options, Report};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::fixture;

fn opts(exec_bound: usize, append_bound: usize) -> Options {
    Options {
        mode: Mode::Derivative,
        exec_bound,
        append_bound,
        timeout: Duration::from_secs(3600),
        ..Options::default()
    }
}

/// Writes `method` as `name.ml` beside the fixture's specifications.
fn method_file(tag: &str, name: &str, method: &str) -> (PathBuf, PathBuf) {
    support::unique_set_method("hatch-rounds", tag, name, method)
}

fn run(file: &Path, exec_bound: usize, append_bound: usize) -> Report {
    falsify_file(file, &opts(exec_bound, append_bound)).expect("runs")
}

#[test]
fn a_method_without_recursion_is_explored_once_whatever_the_call_bound() {
    // `add` calls no function of its own: every path makes exactly one call (the method), so the
    // first round (one call) stops nothing and the rounds of 2, 4, 8, 16 and 20 calls have no
    // state to explore. Starting each round afresh explored the same states six times.
    let file = fixture().join("ri/UniqueSet_KVStore/add.ml");
    let one = run(&file, 1, 2);
    let twenty = run(&file, 20, 2);
    assert!(!one.falsified && !twenty.falsified);
    assert!(one.progress.exhausted && twenty.progress.exhausted);
    assert!(one.states > 0);
    assert_eq!(twenty.states, one.states, "rounds 2 to 20 explore nothing");
    assert_eq!(twenty.paths, one.paths);
}

const PUT_TWICE_ON_SECOND_CALL: &str = "\
let rec put_again (x : Elem.t) (first : bool) : unit =
  if first then (if mem x then () else (put x; put_again x false))
  else put x

let[@assertRty] put_again ((m : Elem.t) [@ghost]) ?l:(x = (true : [%v: Elem.t]))
    ?l:(first = (v : [%v: bool])) =
  { pre = rI m; res = (true : [%v: unit]); post = rI m }
";

#[test]
fn a_violation_that_needs_two_calls_is_found_from_the_resumed_states() {
    // With `first` true the method puts x only when x is not stored, then calls itself once more,
    // which puts x again: x is put twice, but only on a path of two calls.
    let (dir, file) = method_file("two-calls", "put_again", PUT_TWICE_ON_SECOND_CALL);
    let one = run(&file, 1, 1);
    let two = run(&file, 2, 1);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!one.falsified, "{:?}", one.trace_lines());
    assert!(one.progress.exhausted, "every path of one call explored");
    assert!(two.falsified, "the second call puts x again");
    let puts = two
        .trace_lines()
        .iter()
        .filter(|l| l.starts_with("⟨put"))
        .count();
    assert!(
        puts >= 2,
        "two puts in the witness: {:?}",
        two.trace_lines()
    );
}

const PUT_ONCE_THEN_CHECK: &str = "\
let rec put_once (x : Elem.t) : unit =
  if mem x then () else (put x; put_once x)

let[@assertRty] put_once ((m : Elem.t) [@ghost]) ?l:(x = (true : [%v: Elem.t])) =
  { pre = rI m; res = (true : [%v: unit]); post = rI m }
";

#[test]
fn a_correct_recursive_method_ends_with_its_bounds_exhausted() {
    // Puts x when it is not stored and calls itself: the second call finds x stored and stops,
    // so every path makes at most two calls and no element is put twice.
    let (dir, file) = method_file("recursive", "put_once", PUT_ONCE_THEN_CHECK);
    let small = run(&file, 2, 2);
    let large = run(&file, 20, 2);
    let _ = std::fs::remove_dir_all(&dir);
    for r in [&small, &large] {
        assert!(!r.falsified, "{:?}", r.trace_lines());
        assert!(r.progress.exhausted && !r.timed_out);
    }
    assert_eq!(
        large
            .progress
            .completed
            .map(|b| (b.calls, b.prestate_length)),
        Some((20, 2))
    );
    // every path ends within two calls: the rounds beyond two calls resume no state
    assert_eq!(large.states, small.states);
    assert_eq!(large.paths, small.paths);
}

#[test]
fn a_frontier_over_its_budget_makes_the_next_round_start_afresh() {
    // With no room for kept states, the frontier of the round of one call is dropped and the
    // round of two calls explores from the harness again: every state and path within one call
    // is explored (and counted) twice, once per round, and nothing else changes. The round of
    // two calls stops nothing (every path ends within two calls), so its empty frontier fits
    // the budget and the later rounds have nothing to explore, as with the default budget.
    let (dir, file) = method_file("budget", "put_once", PUT_ONCE_THEN_CHECK);
    let one = run(&file, 1, 2);
    let kept = run(&file, 20, 2);
    let dropped = falsify_file(
        &file,
        &Options {
            frontier_budget: 0,
            ..opts(20, 2)
        },
    )
    .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    for r in [&one, &kept, &dropped] {
        assert!(!r.falsified, "{:?}", r.trace_lines());
        assert!(r.progress.exhausted && !r.timed_out);
    }
    assert!(one.states > 0 && one.paths > 0);
    assert_eq!(dropped.states, one.states + kept.states);
    assert_eq!(dropped.paths, one.paths + kept.paths);
}
