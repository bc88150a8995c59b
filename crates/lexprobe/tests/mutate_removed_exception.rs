//! A removed exception whose condition the mutant never reads
//! (`tests/fixtures/mutate/room.catala_en`): `ceiling` is $300 without dependants, $400 with one
//! or more, and $250 for a room (an exception to both); `amount` adds two extras behind their
//! own conditions (`lodging`, `transport`). Inputs in order: `dependants` (v0), `room` (v1),
//! `lodging` (v2), `transport` (v3).
//!
//! The mutant removes the room's exception. It has no `ceiling` for a negative number of
//! dependants, whatever the room; the original has none there only without a room. So the only
//! killing inputs are `dependants < 0 ∧ room`. The mutant never reads `room`: no branch of its
//! paths is on it, and the solver's models leave it false.
//!
//! The mutant's paths, in Catala's order: `dependants = 0` (c0), `dependants >= 1` (c1), then
//! `lodging` (c2) and `transport` (c3) when `ceiling` has a value: four paths without
//! dependants, four with, and one (c0, c1 false) failing at `ceiling`. Nine in all.
//!
//! - Depth-first, undirected, and directed at the mutated term only: the nine paths in some
//!   order, each once, with `room` false (no constraint mentions it): the failing one fails on
//!   the original too. Not detected, 9 tests, every path explored.
//! - Directed with the removed exception's condition: one run of the original on the start
//!   (every input 0 or false) meets the room's justification, false: the condition is `room`,
//!   and the exploration starts from the start with `room` true (test 1: no dependants, $300 on
//!   the mutant, $250 on the original, no error). The rule that held there is the one without
//!   dependants (c0), nothing above it fixes `dependants = 0`: c0 is negated first, and the
//!   inputs are asked to keep `room` with neither rule met so far applying
//!   (`¬(dependants = 0) ∧ ¬(dependants >= 1) ∧ room`): test 2 has negative dependants and a
//!   room, and kills.

use concolic::mutation::{
    apply, candidate_mutations, detect_mutant, detect_mutant_aimed, Aim, MutantReport,
    MutationKind, Survival,
};
use concolic::mutation_directed::MutationTarget;
use concolic::mutation_site::describe;
use concolic::{ExploreOptions, Strategy};

mod mutate_support;
use mutate_support::{load_fixture, span_text};

#[test]
fn a_removed_exception_read_nowhere_else_is_killed_inside_its_condition() {
    let (loaded, scope) = load_fixture("room.catala_en", "Rent");
    let p = &loaded.program;
    let text = |s: catala_syntax::Span| span_text(&loaded, s);
    // The room's rule is removed at three levels of the nesting of `ceiling`'s default terms:
    // with the whole term (the mutant fails on every input: not studied here), from the term
    // that also holds the two rules left (`whole`), and from its own group (`group`).
    let removals: Vec<_> = candidate_mutations(p, scope)
        .into_iter()
        .filter(|m| m.kind == MutationKind::RemoveException)
        .filter(|m| {
            describe(p, scope, *m)
                .is_some_and(|site| site.rules.iter().any(|r| text(*r).contains("$250")))
        })
        .collect();
    assert_eq!(removals.len(), 3, "{removals:?}");
    // The justifications left in each mutated term, by their operators' text.
    let left = |m| {
        let mut ops: Vec<String> = MutationTarget::of(&apply(p, scope, m), scope, m)
            .map(|t| t.justifications.iter().map(|s| text(*s)).collect())
            .unwrap_or_default();
        ops.sort();
        ops
    };
    let whole: Vec<_> = removals
        .iter()
        .copied()
        .filter(|m| left(*m).contains(&">=".to_string()))
        .collect();
    assert_eq!(whole.len(), 1, "{removals:?}");
    let m = whole[0];
    let Some(group) = removals.iter().copied().find(|g| g.site > m.site) else {
        panic!("no inner group in {removals:?}")
    };
    let options = ExploreOptions {
        strategy: Strategy::DepthFirst,
        check: false,
        ..ExploreOptions::default()
    };
    let report = |how| match detect_mutant_aimed(p, scope, m, &options, how) {
        Ok(r) => r,
        Err(e) => panic!("{m:?}: {e}"),
    };
    let survives = |r: &MutantReport, what: &str| {
        assert!(!r.detected, "{what}: {:?}", r.kill);
        assert_eq!(r.tests, 9, "{what}");
        assert_eq!(r.survival, Some(Survival::Exhausted), "{what}");
    };
    survives(&report(Aim::Nowhere), "depth-first");
    survives(&report(Aim::Term), "directed at the term only");
    let aimed = report(Aim::TermAndCondition);
    assert_eq!(aimed.kill.as_ref().map(|k| k.test), Some(2), "{aimed:?}");
    assert_eq!(aimed.tests, 2);
    // From the group of the room's rule alone, no rule is left in the mutated term: the goal
    // only. Test 1 as above; directed at the definition, `dependants >= 1` (false, the deepest)
    // first: no inputs without dependants; then `dependants = 0`: test 2 has one dependant (the
    // plain value of a count), and the room; then `dependants >= 1`, true there, negated: test
    // 3 has negative dependants, and the room, and kills. Without the goal, it survives.
    let group_report = |how| match detect_mutant_aimed(p, scope, group, &options, how) {
        Ok(r) => r,
        Err(e) => panic!("{group:?}: {e}"),
    };
    survives(
        &group_report(Aim::Term),
        "the group, directed at the term only",
    );
    let aimed_group = group_report(Aim::TermAndCondition);
    assert_eq!(
        aimed_group.kill.as_ref().map(|k| k.test),
        Some(3),
        "{aimed_group:?}"
    );
    // Campaigns and `detect_mutant` aim at the condition too.
    let directed = match detect_mutant(p, scope, m, &options, true) {
        Ok(r) => r,
        Err(e) => panic!("{m:?}: {e}"),
    };
    assert_eq!(directed.kill.as_ref().map(|k| k.test), Some(2));
    // The killing inputs: negative dependants, a room.
    let Some(kill) = &aimed.kill else {
        panic!("not detected")
    };
    let dependants = match &kill.inputs[0] {
        Some(catala_eval::Value::Integer(i)) => i.to_string().parse::<i64>().ok(),
        _ => None,
    };
    assert!(dependants.is_some_and(|d| d < 0), "{:?}", kill.inputs);
    assert!(
        matches!(kill.inputs[1], Some(catala_eval::Value::Bool(true))),
        "{:?}",
        kill.inputs
    );
    assert!(
        kill.original.is_none(),
        "the original computes its outputs there"
    );
}
