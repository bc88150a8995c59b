//! The exploration of a mutant directed at its mutated term, on
//! `tests/fixtures/mutate/supplements.catala_en`: `base` is $100, with one exception ($0 from
//! an income of $1,000), and `amount` adds three supplements, each behind its own condition
//! (`lodging`, `transport`, `meals`). `base` is evaluated before `amount`, so a run's path is
//! `income >= $1,000`, then the three conditions, in that order.
//!
//! Duplicating the exception makes the mutant fail (a conflict of the rule with its copy)
//! exactly where the exception applies: from $1,000. The first run (income $0, every condition
//! false) does not fail.
//!
//! - Depth-first, the deepest open branch is negated first: the eight runs of the three
//!   supplements (binary counting, `meals` fastest) all keep the income under $1,000, and the
//!   income's branch is negated only then. The mutant fails at test 9.
//! - Directed, the branch of the mutated term (the exception's condition, the shallowest) is
//!   negated first: the second run has an income of $1,000 or more and fails. Test 2.

use concolic::mutation::{candidate_mutations, detect_mutant, MutationKind};
use concolic::{ExploreOptions, Strategy};
use std::path::{Path, PathBuf};

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mutate/supplements.catala_en")
}

fn program() -> catala_ir::dcalc::Program {
    match catala_eval::loader::load_program(&fixture_path(), &[]) {
        Ok(l) => l.program,
        Err(_) => panic!("the fixture compiles"),
    }
}

#[test]
fn the_directed_order_detects_a_duplicated_exception_at_its_second_test() {
    let p = program();
    let Some(scope) = p.scope_by_name("Allowance") else {
        panic!("no scope Allowance")
    };
    let options = ExploreOptions {
        strategy: Strategy::DepthFirst,
        check: false,
        ..ExploreOptions::default()
    };
    // The exception of `base` duplicated: as a group (site 0) or as the rule itself (the
    // group's one exception, site 1). No other duplication needs the income's branch.
    let duplications: Vec<_> = candidate_mutations(&p, scope)
        .into_iter()
        .filter(|m| m.kind == MutationKind::DuplicateException && m.site <= 1)
        .collect();
    assert_eq!(duplications.len(), 2, "{duplications:?}");
    for m in duplications {
        let report = |directed| match detect_mutant(&p, scope, m, &options, directed) {
            Ok(r) => r,
            Err(e) => panic!("{m:?}: {e}"),
        };
        let plain = report(false);
        let directed = report(true);
        assert_eq!(plain.kill.as_ref().map(|k| k.test), Some(9), "{m:?}");
        assert_eq!(directed.kill.as_ref().map(|k| k.test), Some(2), "{m:?}");
        assert_eq!(directed.tests, 2);
        // The killing inputs: an income of at least $1,000 (the first input, in cents).
        let income = directed.kill.as_ref().and_then(|k| k.inputs[0].clone());
        let Some(catala_eval::Value::Money(cents)) = income else {
            panic!("{m:?}: no income in {:?}", directed.kill)
        };
        let cents: i64 = cents.to_string().parse().unwrap_or(-1);
        assert!(cents >= 100_000, "{m:?}: {cents}");
    }
}
