//! One state for the refinements of the trace that share a continuation
//! (`Options::disjunctive_states`): an `admit` that refines the trace in several ways, and the
//! sampled prestates that leave the property at the same derivative, give one state whose path
//! condition says the trace is one of them. Fewer states, the same executions, the same verdicts.
//! Checked on the UniqueSet_KVStore fixture (no element is put twice) with a method written
//! here, `probe x = mem x` under `pre = rI m`, `post = rI m`.
//!
//! Hand derivation for one call and prestates of 0, 1 and 2 events. `rI m` has two derivatives
//! along a trace: R₀ (no `put m` yet) and A (one `put m`, no other may follow); its next events
//! are `put m` (written P) and every other event (¬P). The prestates are the traces of `rI m`:
//! - length 0: the empty trace, continuation R₀;
//! - length 1: (P) → A, (¬P) → R₀;
//! - length 2: (P, ¬P) → A, (¬P, P) → A, (¬P, ¬P) → R₀.
//!
//! `mem x` has two cases: `true` admits `stored x` (some `put x` in the trace: the first one is
//! at one of the positions, one refinement per position), `false` admits `not (stored x)` (one
//! refinement: no event is `put x`). Each case is one finished path when feasible.
//! - Without the reduction, one path per prestate and refinement: length 0: `false` only (1);
//!   length 1: each prestate `true` (its event is `put x`) and `false` (4); length 2: each of
//!   the three prestates, `true` with the first `put x` at position 0 or 1 (both satisfiable:
//!   x = m or x ≠ m as the prestate asks) and `false` (3 × 3 = 9). **14 paths.**
//! - With it: the prestates of length 2 with continuation A are one state, (P, ¬P) or (¬P, P);
//!   the two positions of `put x` are one state: length 0: 1; length 1: 2 prestates × 2 cases
//!   (4); length 2: 2 groups × 2 cases (4). **9 paths.**
//!
//! The buggy version puts x when it is stored already: with x = m after a prestate that put m,
//! `rI m` is violated; it is falsified with and without the reduction.

mod support;

use hatch::{falsify_file, Mode, Options, Report};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::fixture;

const SPEC: &str = "let[@assertRty] probe ((m : Elem.t) [@ghost]) ?l:(x = (true : [%v: Elem.t])) =
  { pre = rI m; res = (true : [%v: bool]); post = rI m }
";

const CORRECT: &str = "let probe (x : Elem.t) : bool = mem x";
const BUGGY: &str = "let probe (x : Elem.t) : bool = if mem x then (put x; true) else false";

fn method_file(tag: &str, body: &str) -> (PathBuf, PathBuf) {
    support::unique_set_method(
        "hatch-disjunctive",
        tag,
        "probe",
        &format!("{body}\n\n{SPEC}"),
    )
}

fn run(file: &Path, append_bound: usize, disjunctive: bool) -> Report {
    let opts = Options {
        mode: Mode::Derivative,
        exec_bound: 1,
        append_bound,
        timeout: Duration::from_secs(3600),
        disjunctive_states: disjunctive,
        ..Options::default()
    };
    falsify_file(file, &opts).expect("runs")
}

#[test]
fn the_refinements_of_one_continuation_are_one_state() {
    let (dir, file) = method_file("correct", CORRECT);
    let split = run(&file, 2, false);
    let joined = run(&file, 2, true);
    for r in [&split, &joined] {
        assert!(!r.falsified && r.progress.exhausted);
    }
    assert_eq!(split.paths, 14, "1 + 4 + 3 × 3");
    assert_eq!(joined.paths, 9, "1 + 4 + 2 × 2");
    assert!(joined.states < split.states);
    // up to one event the prestates do not group and the admits do not split: the same paths
    let split = run(&file, 1, false);
    let joined = run(&file, 1, true);
    assert_eq!((split.paths, joined.paths), (5, 5));
    assert_eq!(split.states, joined.states);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_buggy_method_is_falsified_with_and_without_the_reduction() {
    let (dir, file) = method_file("buggy", BUGGY);
    for disjunctive in [false, true] {
        for len in [1, 2] {
            let r = run(&file, len, disjunctive);
            assert!(
                r.falsified,
                "disjunctive_states = {disjunctive}, prestates ≤ {len}"
            );
            // the witness puts m twice: in the prestate, then `put x` with x = m; its trace is
            // one refinement (a `put` and no union with other events)
            let v = r.violation.expect("a violation");
            assert!(v.trace.len() >= 2);
            let puts = v
                .trace
                .iter()
                .filter(|e| {
                    e.possible_ops()
                        .is_some_and(|ops| ops.len() == 1 && &*ops[0] == "put")
                })
                .count();
            assert!(puts >= 2, "{:?}", v.trace);
        }
    }
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
