//! Why FileSystem_KVStore's `delete_buggy` cannot be falsified: the predefined typing of the pure
//! function `delChild` gives its result the refinement `is_dir v && is_del v`, which the axiom
//! `bytes2` (`not (is_dir c && is_del c)`) forbids, so every path of `delete`/`delete_buggy` that
//! reaches `put parent_path (delChild bytes' path)` has an unsatisfiable path condition. (The
//! reference does not report the FileSystem benchmarks either.)

use hatch::front::{Library, Scope};
use smt::{SatOutcome, Solver, Term};
use std::path::PathBuf;

fn suite() -> Option<PathBuf> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/hatch-benchmarks");
    if p.join("ri/FileSystem_KVStore").is_dir() {
        Some(p)
    } else {
        println!("HATch suite not found at {}: skipping", p.display());
        None
    }
}

/// Satisfiability of the result refinement of the pure function `name`, with or without the
/// predefined axioms.
fn result_refinement(lib: &Library, name: &str, with_axioms: bool) -> SatOutcome {
    let spec = lib
        .pure_specs
        .get(name)
        .expect("a predefined pure function");
    let mut scope = Scope::default();
    for (p, sort, _) in &spec.params {
        scope = scope.with(p, Term::var(p, sort.clone()));
    }
    scope = scope.with("v", Term::var("v", spec.ret.clone()));
    let q = lib
        .term(&spec.file, &spec.qualifier, &scope)
        .expect("a qualifier");
    let mut solver = Solver::new(5_000);
    if with_axioms {
        for a in &lib.axioms {
            solver.add_axiom(a.clone());
        }
    }
    solver.check(&[q]).expect("decided")
}

#[test]
fn del_child_has_no_possible_result_under_the_axioms() {
    let Some(root) = suite() else { return };
    let lib = Library::load(
        &root.join("predefined"),
        &root.join("ri/FileSystem_KVStore"),
    )
    .expect("loads");
    assert_eq!(result_refinement(&lib, "delChild", true), SatOutcome::Unsat);
    // the contradiction comes from the axioms, not from the refinement alone
    assert_eq!(result_refinement(&lib, "delChild", false), SatOutcome::Sat);
    // and the axioms leave other results possible (`setDeleted`: `is_del v`)
    assert_eq!(result_refinement(&lib, "setDeleted", true), SatOutcome::Sat);
}
