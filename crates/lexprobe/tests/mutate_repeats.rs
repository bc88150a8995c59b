//! A mutant whose only failing runs need a condition that the path records once, at its first
//! place, and leaves out as a repeat where the mutated variable is read
//! (`tests/fixtures/mutate/dependants.catala_en`). In Catala's order a run evaluates `ceiling`
//! (`dependants = 0`: constraint c0), `supplement` (its one rule, `period >= 2022`: c1),
//! `reduction` (`dependants = 0` again: a repeat, left out of the path; `supplement` is read
//! only when it does not hold), then `amount` (`lodging`, `transport`, `meals`: c2, c3, c4).
//!
//! The mutant negates the condition of `supplement`: it has no value from 2022, and fails where
//! `reduction` reads it, with dependants. The original has no `supplement` before 2022 and
//! fails where it is read then; from 2022 it never fails. So the only runs on which the mutant
//! fails in a way the original does not are `period >= 2022 ∧ dependants ≠ 0`: both c0 and c1
//! must be negated from the first run (every input 0 or false).
//!
//! - Depth-first, undirected: the eight runs of the extras (c4 fastest) first, with
//!   `dependants = 0` and `period < 2022`; then c1 (run 9, from 2022) and its eight runs of the
//!   extras; then c0 (run 17): it kills if the solver's period is from 2022, else runs 17–24 are
//!   its extras and run 25 (c1 negated again) kills. Test 17 or 25.
//! - Directed at the mutated term without the repeats' places: c1 (the term's) first (run 2,
//!   from 2022, no dependants: `supplement` is empty but not read), then depth-first: the
//!   extras (runs 2–9), then c0 (run 10, kills if the year is from 2022, else run 11 does).
//! - Directed, with c0 standing for its repeat in `reduction`, a definition reading the mutated
//!   variable: on run 1 the reader's branch c0 is above the term's c1, so c1 first (run 2, as
//!   above); on run 2 c0 is the only aimed branch left, before the extras: run 3 has
//!   dependants, and kills if the solver's period is from 2022; else c1 of run 3 (the term's)
//!   gives run 4, which kills. Test 3 or 4.

use concolic::mutation::{candidate_mutations, detect_mutant, MutationKind};
use concolic::mutation_site::describe;
use concolic::{ExploreOptions, Strategy};

mod mutate_support;
use mutate_support::{load_fixture, span_text};

#[test]
fn a_repeated_condition_at_the_read_is_negated_before_the_other_branches() {
    let (loaded, scope) = load_fixture("dependants.catala_en", "Benefit");
    let p = &loaded.program;
    let text = |s: catala_syntax::Span| span_text(&loaded, s);
    // The negated justification whose position (that of its operator) is the `>=` of
    // `period >= 2022`, the only one.
    let negations: Vec<_> = candidate_mutations(p, scope)
        .into_iter()
        .filter(|m| m.kind == MutationKind::NegateJustification)
        .filter(|m| {
            describe(p, scope, *m)
                .and_then(|site| site.justification)
                .is_some_and(|j| text(j) == ">=")
        })
        .collect();
    assert_eq!(negations.len(), 1, "{negations:?}");
    let m = negations[0];
    let options = ExploreOptions {
        strategy: Strategy::DepthFirst,
        check: false,
        ..ExploreOptions::default()
    };
    let report = |directed| match detect_mutant(p, scope, m, &options, directed) {
        Ok(r) => r,
        Err(e) => panic!("{m:?}: {e}"),
    };
    let plain = report(false);
    let directed = report(true);
    let test = |r: &concolic::mutation::MutantReport| r.kill.as_ref().map(|k| k.test);
    assert!(
        matches!(test(&plain), Some(17 | 25)),
        "depth-first: {:?}",
        test(&plain)
    );
    assert!(
        matches!(test(&directed), Some(3 | 4)),
        "directed: {:?}",
        test(&directed)
    );
    // The killing inputs: dependants, from 2022.
    let Some(kill) = &directed.kill else {
        panic!("not detected")
    };
    let int = |v: &Option<catala_eval::Value>| match v {
        Some(catala_eval::Value::Integer(i)) => i.to_string().parse::<i64>().ok(),
        _ => None,
    };
    let (dependants, period) = (int(&kill.inputs[0]), int(&kill.inputs[1]));
    assert!(dependants.is_some_and(|d| d != 0), "{:?}", kill.inputs);
    assert!(period.is_some_and(|y| y >= 2022), "{:?}", kill.inputs);
}
