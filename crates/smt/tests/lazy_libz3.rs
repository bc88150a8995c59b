//! libz3 is mapped into the process only when a query reaches Z3 (see `build.rs`). This file
//! is its own test binary, so no other test has loaded the library before it looks.

use smt::{CmpOp, SatOutcome, Solver, Sort, Term};

/// True when a file whose name starts with `libz3` is mapped into this process.
fn libz3_mapped() -> bool {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines().any(|l| {
        l.rsplit('/')
            .next()
            .is_some_and(|file| file.starts_with("libz3"))
    })
}

#[cfg(lazy_libz3)]
#[test]
fn libz3_is_loaded_by_the_first_query_and_answers_it() {
    assert!(!libz3_mapped(), "libz3 is mapped before any query");
    let x = Term::var("x", Sort::Int);
    let between = [
        Term::cmp(CmpOp::Gt, x.clone(), Term::Int(3)),
        Term::cmp(CmpOp::Lt, x.clone(), Term::Int(5)),
    ];
    assert!(!libz3_mapped(), "building terms loaded libz3");
    let mut solver = Solver::new(10_000);
    let (outcome, model) = solver.check_with_model(&between).expect("Z3 answers");
    assert_eq!(outcome, SatOutcome::Sat);
    assert!(
        libz3_mapped(),
        "a query was answered but libz3 is not mapped"
    );
    assert!(
        format!("{model:?}").contains('4'),
        "the only model is x = 4: {model:?}"
    );
    let none = [
        Term::cmp(CmpOp::Gt, x.clone(), Term::Int(3)),
        Term::cmp(CmpOp::Lt, x, Term::Int(4)),
    ];
    assert_eq!(solver.check(&none).expect("Z3 answers"), SatOutcome::Unsat);
}

#[cfg(not(lazy_libz3))]
#[test]
fn libz3_is_linked_at_start_where_it_cannot_be_loaded_lazily() {
    // Other targets, or LEXPROBE_EAGER_Z3 at build time: the dynamic loader maps it first.
    let mut solver = Solver::new(10_000);
    let x = Term::var("x", Sort::Int);
    let gt = Term::cmp(CmpOp::Gt, x, Term::Int(3));
    assert_eq!(solver.check(&[gt]).expect("Z3 answers"), SatOutcome::Sat);
    assert!(libz3_mapped() || !cfg!(target_os = "linux"));
}
