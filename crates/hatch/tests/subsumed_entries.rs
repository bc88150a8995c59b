//! An entry into a user function that an earlier entry of its path covers is not explored
//! again (`Options::subsume_entries`, `hatch::subsume`). Checked on the UniqueSet_KVStore
//! fixture (no element is put twice; `mem` is the only other function, and neither `rI m` nor
//! `stored a` names it, so its calls are neutral) with recursive methods written here:
//! - `spin x` calls itself with the same argument while `mem x` holds: its second entry has the
//!   same argument, pending frames (a call in tail position pushes none) and continuation, and a
//!   trace longer by one `Mem` event; it is covered and dropped, so the search ends by itself:
//!   the same states whatever the call bound (without subsumption, one more iteration per call
//!   allowed);
//! - `walk x y` calls `walk y x`: the second entry is covered where `x = y` and goes on with
//!   `x ≠ y`, the third has the first one's arguments and is dropped;
//! - a loop that `put`s before calling itself is never covered (a `Put` is seen by `rI m`), and
//!   its violation (a second `put x`) is found.
//!
//! And on the HATch suite when it is present (`../shared/corpus/hatch-benchmarks`): the tree
//! `insert_aux` and the retry loop of Stack_KVStore/cons end by themselves (the same states with
//! 4 and 8 calls), and their `_buggy` versions are falsified.

mod support;

use hatch::{falsify_file, Options, Report};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn method_file(tag: &str, contents: &str) -> (PathBuf, PathBuf) {
    support::unique_set_method("hatch-subsume", tag, tag, contents)
}

fn spec(name: &str, params: &str) -> String {
    format!(
        "let[@assertRty] {name} ((m : Elem.t) [@ghost]) {params} =
  {{ pre = rI m; res = (true : [%v: unit]); post = rI m }}
"
    )
}

const X: &str = "?l:(x = (true : [%v: Elem.t]))";
const XY: &str = "?l:(x = (true : [%v: Elem.t])) ?l:(y = (true : [%v: Elem.t]))";

fn run(file: &Path, exec_bound: usize, subsume: bool) -> Report {
    let opts = Options {
        exec_bound,
        append_bound: 2,
        timeout: Duration::from_secs(3600),
        subsume_entries: subsume,
        ..Options::default()
    };
    falsify_file(file, &opts).expect("runs")
}

#[test]
fn a_loop_back_to_the_same_argument_ends_by_itself() {
    let src = format!(
        "let rec spin (x : Elem.t) : unit = if mem x then spin x else put x\n\n{}",
        spec("spin", X)
    );
    let (dir, file) = method_file("spin", &src);
    let short = run(&file, 4, true);
    let long = run(&file, 16, true);
    assert!(!short.falsified && short.progress.exhausted);
    assert!(!long.falsified && long.progress.exhausted);
    assert_eq!(short.states, long.states, "the second entry is dropped");
    assert_eq!(short.paths, long.paths);
    let short_plain = run(&file, 4, false);
    let long_plain = run(&file, 16, false);
    assert!(!short_plain.falsified && short_plain.progress.exhausted);
    assert!(!long_plain.falsified && long_plain.progress.exhausted);
    assert!(
        long_plain.states > short_plain.states,
        "one iteration more per call allowed"
    );
    assert!(short.states < short_plain.states);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn swapped_arguments_are_covered_where_they_are_equal_and_after_two_swaps() {
    let src = format!(
        "let rec walk (x : Elem.t) (y : Elem.t) : unit = if mem x then walk y x else put x\n\n{}",
        spec("walk", XY)
    );
    let (dir, file) = method_file("walk", &src);
    let short = run(&file, 4, true);
    let long = run(&file, 16, true);
    assert!(!short.falsified && short.progress.exhausted);
    assert!(!long.falsified && long.progress.exhausted);
    assert_eq!(short.states, long.states, "the third entry is dropped");
    let plain = run(&file, 16, false);
    assert!(!plain.falsified && plain.progress.exhausted);
    assert!(long.states < plain.states);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_loop_that_puts_is_not_covered_and_its_violation_is_found() {
    // `put x` again once `x` is stored: a violation when m = x
    let src = format!(
        "let rec again (x : Elem.t) : unit = if mem x then (put x; again x) else put x\n\n{}",
        spec("again", X)
    );
    let (dir, file) = method_file("again", &src);
    assert!(run(&file, 4, true).falsified);
    assert!(run(&file, 4, false).falsified);
    // and a `walk` that puts `y`, which may be stored already
    let src = format!(
        "let rec walk (x : Elem.t) (y : Elem.t) : unit = if mem x then walk y x else put y\n\n{}",
        spec("walk", XY)
    );
    let (dir2, file) = method_file("walk_buggy", &src);
    assert!(run(&file, 4, true).falsified);
    assert!(run(&file, 16, true).falsified);
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(dir2);
}

fn suite_root() -> Option<PathBuf> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/hatch-benchmarks");
    if p.join("ri/Set_Tree").is_dir() {
        Some(p)
    } else {
        println!("HATch suite not found at {}: skipping", p.display());
        None
    }
}

#[test]
fn the_suite_s_recursions_over_cycles_and_retries_end_by_themselves() {
    let Some(root) = suite_root() else {
        return;
    };
    for (method, append_bound) in [("Set_Tree/insert_aux", 2), ("Stack_KVStore/cons", 1)] {
        let file = root.join(format!("ri/{method}.ml"));
        let run = |exec_bound: usize, subsume: bool| {
            let opts = Options {
                exec_bound,
                append_bound,
                timeout: Duration::from_secs(3600),
                subsume_entries: subsume,
                ..Options::default()
            };
            falsify_file(&file, &opts).expect("runs")
        };
        let (short, long) = (run(4, true), run(8, true));
        assert!(!short.falsified && short.progress.exhausted, "{method}");
        assert!(!long.falsified && long.progress.exhausted, "{method}");
        assert_eq!(short.states, long.states, "{method}");
        let (short_plain, long_plain) = (run(4, false), run(8, false));
        assert!(long_plain.states > short_plain.states, "{method}");
        assert!(!long_plain.falsified, "{method}");
        let buggy = root.join(format!("ri/{method}_buggy.ml"));
        let opts = Options {
            timeout: Duration::from_secs(3600),
            ..Options::default()
        };
        assert!(
            falsify_file(&buggy, &opts).expect("runs").falsified,
            "{method}"
        );
    }
}
