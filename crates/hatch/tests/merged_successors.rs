//! The next events of an expression that have the same derivative are taken as one event, their
//! union (`Options::merge_states`): fewer states, the same verdicts. Checked on the
//! UniqueSet_KVStore fixture (no element is put twice) with a method written here whose required
//! context also asks the first event to be a `put` or a `mem`:
//! `pre = rI m && (Put (x_0, v, true) || Mem (x_0, v, true))`.
//!
//! Hand derivation for prestates of one event and one call. The first event of the context is
//! one of `put` with argument m (after which `rI m` forbids another `put m`), `put` with another
//! argument, or `mem`; the last two leave both `rI m` and the disjunction at the same derivative,
//! so merging gives two samples instead of three. Then `add x = if mem x then () else put x`:
//! - after `put m`: `mem x` true (x = m), or false and `put x` with x ≠ m (x = m contradicts
//!   the first event): 2 paths;
//! - after `put y` (y ≠ m): `mem x` true, or false and then `put x` with x = m or x ≠ m (the
//!   property's derivative differs): 3 paths;
//! - after `mem`: `mem x` true is impossible (no `put` before), false and `put x` with x = m or
//!   x ≠ m: 2 paths;
//! - after the union `put y ⊔ mem` (merged): `mem x` true (the event is then the `put` of x),
//!   or false and `put x` with x = m or x ≠ m: 3 paths.
//!
//! So 2 + 3 + 2 = 7 paths without merging, 2 + 3 = 5 with it. The buggy version (`put x` in both
//! branches) is falsified either way. All verdicts are decided by the bounds.

mod support;

use hatch::{falsify_file, Mode, Options, Report};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::fixture;

const SPEC: &str = "let[@assertRty] add ((m : Elem.t) [@ghost]) ?l:(x = (true : [%v: Elem.t])) =
  {
    pre = rI m && (Put (x_0, v, true) || Mem (x_0, v, true));
    res = (true : [%v: unit]);
    post = rI m;
  }
";

/// Writes the method with the body `body` and [`SPEC`] beside the fixture's specifications.
fn method_file(tag: &str, body: &str) -> (PathBuf, PathBuf) {
    support::unique_set_method("hatch-merge", tag, tag, &format!("{body}\n\n{SPEC}"))
}

fn run(file: &Path, append_bound: usize, merge: bool) -> Report {
    let opts = Options {
        mode: Mode::Derivative,
        exec_bound: 1,
        append_bound,
        timeout: Duration::from_secs(3600),
        merge_states: merge,
        // the counts are those of one state per refinement (the disjunctive states would join
        // the samples of one continuation whether merged or not)
        disjunctive_states: false,
        ..Options::default()
    };
    falsify_file(file, &opts).expect("runs")
}

const CORRECT: &str = "let add (x : Elem.t) : unit = if mem x then () else put x";
const BUGGY: &str = "let add (x : Elem.t) : unit = if mem x then put x else put x";

#[test]
fn merging_the_context_events_with_one_derivative_leaves_five_paths_of_seven() {
    let (dir, file) = method_file("first", CORRECT);
    let plain = run(&file, 1, false);
    let merged = run(&file, 1, true);
    assert!(!plain.falsified && plain.progress.exhausted);
    assert!(!merged.falsified && merged.progress.exhausted);
    assert_eq!(plain.paths, 7, "put m: 2, put y: 3, mem: 2");
    assert_eq!(merged.paths, 5, "put m: 2, put y ⊔ mem: 3");
    assert!(merged.states < plain.states);
    // longer prestates: still no violation, still fewer states
    let plain = run(&file, 2, false);
    let merged = run(&file, 2, true);
    assert!(!plain.falsified && plain.progress.exhausted);
    assert!(!merged.falsified && merged.progress.exhausted);
    assert!(merged.paths < plain.paths && merged.states < plain.states);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_buggy_method_is_still_falsified() {
    let (dir, file) = method_file("first_buggy", BUGGY);
    for merge in [false, true] {
        let r = run(&file, 1, merge);
        assert!(r.falsified, "merge_states = {merge}");
        // the witness puts m twice: a `put` in the context or the method, then `put x` with x = m
        let v = r.violation.expect("a violation");
        assert!(v.trace.len() >= 2);
    }
    // and the fixture's own buggy method, with its own context
    let r = falsify_file(
        &fixture().join("ri/UniqueSet_KVStore/add_buggy.ml"),
        &Options {
            timeout: Duration::from_secs(3600),
            ..Options::default()
        },
    )
    .expect("runs");
    assert!(r.falsified);
    let _ = std::fs::remove_dir_all(dir);
}
