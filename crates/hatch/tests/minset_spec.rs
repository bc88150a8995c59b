//! The MinSet_Set benchmark under the representation invariant its `ri.ml` states:
//!
//! ```text
//! rI m = _G ((Write (m [@d], v, true) && _X (_G (not (Write (x_0, v, true))))) #==> minP m)
//!        && implies (_G (not (Write …))) (_G (not (Insert …)))
//! ```
//!
//! `#==>` is an OCaml `#`-operator, which binds tighter than application, so it sits inside `_G`:
//! on the suffix that starts at the last `Write m`, `minP m` must hold, and `minP m` begins with
//! `memP m = _F (Insert m)`. The element recorded as the minimum must therefore be inserted *after*
//! it is written. The reference implementation reads the file the same way (hash operator inside
//! `_G`, `#==>` as `¬a ∨ b`, `_F a` as `•*; a`, `_X a` as `•; a`), and its history shows the
//! consequence: the commit that introduced this invariant ("fix minset spec") also reordered
//! `minset_insert` to `write x; insert x`, but left `minset_singleton` as `insert x; write x`.
//! Hence the non-`_buggy` `minset_singleton` violates the invariant for `m = x`, while the same
//! method with the two calls swapped does not. (EXPECTED.md's verifier column times the verifier
//! on the `_buggy` files, so it does not say that the correct file verifies.)
//!
//! The swapped variant is built in a temporary folder from the suite's files at run time.

use hatch::{falsify_file, Mode, Options};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn suite_root() -> Option<PathBuf> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/hatch-benchmarks");
    if p.join("ri/MinSet_Set").is_dir() {
        Some(p)
    } else {
        println!("HATch suite not found at {}: skipping", p.display());
        None
    }
}

/// Small bounds: enough for the witness (an empty prefix before the method), and small enough
/// that the swapped variant's bounded search space is exhausted quickly in a debug build.
fn opts() -> Options {
    Options {
        mode: Mode::Derivative,
        append_bound: 1,
        // A safety net: the bounds decide the verdicts, never the machine's speed.
        timeout: Duration::from_secs(3600),
        ..Options::default()
    }
}

const INSERT_THEN_WRITE: &str = "    insert x;\n    write x;\n";
const WRITE_THEN_INSERT: &str = "    write x;\n    insert x;\n";

fn op_of(line: &str) -> Option<&str> {
    line.strip_prefix('⟨')?.split_whitespace().next()
}

#[test]
fn the_given_minset_singleton_inserts_the_minimum_before_writing_it_and_is_falsified() {
    let Some(root) = suite_root() else { return };
    let file = root.join("ri/MinSet_Set/minset_singleton.ml");
    let text = std::fs::read_to_string(&file).expect("readable");
    assert!(
        text.contains(INSERT_THEN_WRITE),
        "the suite's method is expected to insert before it writes"
    );
    let r = falsify_file(&file, &opts()).expect("runs");
    assert!(
        r.falsified,
        "insert m; write m leaves minP m false after the last write"
    );
    let ops: Vec<String> = r
        .trace_lines()
        .iter()
        .filter_map(|l| op_of(l).map(str::to_string))
        .collect();
    let ins = ops.iter().rposition(|o| o == "insert");
    let wr = ops.iter().rposition(|o| o == "write");
    assert!(
        matches!((ins, wr), (Some(i), Some(w)) if i < w),
        "the witness inserts, then writes last: {ops:?}"
    );
    // the violation needs the written element to be the ghost minimum m
    let v = r.violation.expect("a violation");
    let ghost = v.model.iter().find(|(k, _)| k.starts_with("m_"));
    let arg = v.model.iter().find(|(k, _)| k.starts_with("x_"));
    assert!(
        matches!((ghost, arg), (Some((_, a)), Some((_, b))) if a == b),
        "m = x in the model: {:?}",
        v.model
    );
}

#[test]
fn the_buggy_minset_singleton_is_falsified() {
    let Some(root) = suite_root() else { return };
    let r = falsify_file(
        &root.join("ri/MinSet_Set/minset_singleton_buggy.ml"),
        &opts(),
    )
    .expect("runs");
    assert!(r.falsified, "writing without inserting violates minP m");
}

/// Copies the benchmark folder and the predefined files into `dir`, with `minset_singleton.ml`
/// rewritten to write before it inserts.
fn swapped_copy(root: &Path, dir: &Path) -> PathBuf {
    let pre = dir.join("predefined");
    let bench = dir.join("ri/MinSet_Set");
    std::fs::create_dir_all(&pre).expect("temp dir");
    std::fs::create_dir_all(&bench).expect("temp dir");
    for e in std::fs::read_dir(root.join("predefined")).expect("predefined") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), pre.join(e.file_name())).expect("copy");
    }
    for f in ["automata_preds.ml", "lib_nty.ml", "lib_rty.ml", "ri.ml"] {
        std::fs::copy(root.join("ri/MinSet_Set").join(f), bench.join(f)).expect("copy");
    }
    let text =
        std::fs::read_to_string(root.join("ri/MinSet_Set/minset_singleton.ml")).expect("readable");
    let swapped = text.replace(INSERT_THEN_WRITE, WRITE_THEN_INSERT);
    assert_ne!(swapped, text, "the calls were swapped");
    let file = bench.join("minset_singleton.ml");
    std::fs::write(&file, swapped).expect("write");
    file
}

#[test]
fn writing_the_minimum_before_inserting_it_is_not_falsified() {
    let Some(root) = suite_root() else { return };
    let dir = std::env::temp_dir().join(format!("hatch-minset-{}", std::process::id()));
    let file = swapped_copy(&root, &dir);
    let r = falsify_file(&file, &opts());
    let _ = std::fs::remove_dir_all(&dir);
    let r = r.expect("runs");
    assert!(!r.falsified, "{:?}", r.trace_lines());
    assert!(!r.timed_out, "the bounded search space is exhausted");
}
