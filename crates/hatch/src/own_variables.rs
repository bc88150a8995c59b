//! Conjuncts of a query that its own variables can always satisfy. A conjunct `C` of a query
//! `Q` whose variables `P` occur in no other conjunct, and such that for every value of its
//! other variables some values of `P` make `C` true, can be left out: a model of the other
//! conjuncts (and of the solver's axioms) becomes one of `Q` by changing only `P`, which
//! nothing else mentions. So `Q` and `Q` without `C` are satisfiable together, and dropping such
//! conjuncts (again, as their removal leaves other variables to one conjunct) changes no answer.
//!
//! The trace events a library call appends and no later `admit` refines are such conjuncts:
//! their constraint (`e{i}:op` equal to the function's code, the locals `e{i}:f#k` equal to the
//! arguments and the result) only names the position's own variables and program variables
//! whose values it does not restrict.
//!
//! Whether the own variables can satisfy a conjunct is decided syntactically, by
//! [`satisfiable_by`]; what it cannot show is kept (and left to the solver).

use smt::{Sort, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

/// `conjuncts` without those that their own variables can always satisfy (see the module), in
/// their order.
pub(crate) fn without_self_satisfied(conjuncts: Vec<Term>) -> Vec<Term> {
    let vars: Vec<BTreeSet<Rc<str>>> = conjuncts
        .iter()
        .map(|c| c.free_vars().into_keys().collect())
        .collect();
    let mut occurrences: HashMap<&Rc<str>, usize> = HashMap::new();
    for vs in &vars {
        for v in vs {
            *occurrences.entry(v).or_default() += 1;
        }
    }
    let mut kept = vec![true; conjuncts.len()];
    // dropping a conjunct may leave variables of another to it alone: again until nothing drops
    loop {
        let mut dropped = false;
        for i in (0..conjuncts.len()).rev() {
            if !kept[i] {
                continue;
            }
            let own: BTreeSet<Rc<str>> = vars[i]
                .iter()
                .filter(|v| occurrences.get(v) == Some(&1))
                .cloned()
                .collect();
            if own.is_empty() && !conjuncts[i].is_true() {
                continue;
            }
            if satisfiable_by(&conjuncts[i], &own) {
                kept[i] = false;
                dropped = true;
                for v in &vars[i] {
                    if let Some(n) = occurrences.get_mut(v) {
                        *n -= 1;
                    }
                }
            }
        }
        if !dropped {
            break;
        }
    }
    conjuncts
        .into_iter()
        .zip(kept)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// For every value of the other variables, some value of the variables `own` makes `t` true
/// (whatever the interpretation of the functions). Sufficient conditions only:
/// - `true`; `x` or `¬x` for a boolean `x` of `own`; `x = u` or `u = x` (or `⇔`) for an `x` of
///   `own` that does not occur in `u`;
/// - a disjunction with such a disjunct;
/// - a conjunction whose conjuncts each are such for the variables of `own` that occur in it and
///   in no other of its conjuncts (they are apart, so each can be satisfied on its own).
pub(crate) fn satisfiable_by(t: &Term, own: &BTreeSet<Rc<str>>) -> bool {
    match t {
        Term::Bool(b) => *b,
        Term::Var(x, Sort::Bool) => own.contains(x),
        Term::Not(inner) => matches!(&**inner, Term::Var(x, Sort::Bool) if own.contains(x)),
        Term::Eq(a, b) | Term::Iff(a, b) => [(a, b), (b, a)].into_iter().any(|(side, other)| {
            matches!(&**side, Term::Var(x, _)
                if own.contains(x) && !other.free_vars().contains_key(x))
        }),
        Term::Or(xs) => xs.iter().any(|x| satisfiable_by(x, own)),
        Term::And(xs) => {
            let vars: Vec<BTreeMap<Rc<str>, Sort>> = xs.iter().map(Term::free_vars).collect();
            xs.iter().enumerate().all(|(i, x)| {
                let apart: BTreeSet<Rc<str>> = vars[i]
                    .keys()
                    .filter(|v| {
                        own.contains(*v)
                            && vars
                                .iter()
                                .enumerate()
                                .all(|(j, vs)| j == i || !vs.contains_key(*v))
                    })
                    .cloned()
                    .collect();
                satisfiable_by(x, &apart)
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::{CmpOp, SatOutcome, Solver};

    fn elem(n: &str) -> Term {
        Term::var(n, Sort::Named("Elem.t".into()))
    }

    fn lt(a: Term, b: Term) -> Term {
        Term::app("elem_lt", vec![a, b], Sort::Bool)
    }

    fn own(names: &[&str]) -> BTreeSet<Rc<str>> {
        names.iter().map(|n| Rc::from(*n)).collect()
    }

    /// The constraint of an appended `hasLeft cur` event returning `r`, at position 5.
    fn has_left_event() -> Term {
        Term::and([
            Term::eq(Term::var("e5:op", Sort::Int), Term::Int(4)),
            Term::eq(elem("e5:hasLeft#0"), elem("cur_1")),
            Term::iff(
                Term::var("e5:hasLeft#r", Sort::Bool),
                Term::var("r_7", Sort::Bool),
            ),
        ])
    }

    #[test]
    fn definitions_of_own_variables_are_satisfiable_by_them() {
        let own5 = own(&["e5:op", "e5:hasLeft#0", "e5:hasLeft#r"]);
        assert!(satisfiable_by(&has_left_event(), &own5));
        // with neither its result nor r_7 among its own variables, `e5:hasLeft#r ⇔ r_7` is a
        // condition on both, which the rule does not take as satisfiable
        assert!(!satisfiable_by(
            &has_left_event(),
            &own(&["e5:op", "e5:hasLeft#0"])
        ));
        // a variable defined twice is not free to satisfy both: x = a ∧ x = b
        let twice = Term::and([
            Term::eq(elem("x"), elem("a")),
            Term::eq(elem("x"), elem("b")),
        ]);
        assert!(!satisfiable_by(&twice, &own(&["x"])));
        // x = y ∧ ¬(y = c) over own x, y: y is in both conjuncts, so the second has no variable
        // of its own and is not shown satisfiable (it is, but the rule takes only what it shows)
        let chained = Term::and([
            Term::eq(elem("x"), elem("y")),
            Term::negation(Term::eq(elem("y"), elem("c"))),
        ]);
        assert!(!satisfiable_by(&chained, &own(&["x", "y"])));
        // a comparison restricts the other variables: x < 3 is no definition of anything
        let cmp = Term::cmp(CmpOp::Lt, Term::var("n", Sort::Int), Term::Int(3));
        assert!(!satisfiable_by(&cmp, &own(&["n"])));
        // elem_lt x y over own x, y can be false for every interpretation of elem_lt
        assert!(!satisfiable_by(
            &lt(elem("x"), elem("y")),
            &own(&["x", "y"])
        ));
        // a disjunction needs one disjunct it can satisfy
        let either = Term::or([lt(elem("x"), elem("c")), Term::eq(elem("x"), elem("c"))]);
        assert!(satisfiable_by(&either, &own(&["x"])));
        // x = f(x) is no definition
        let cyclic = Term::eq(
            elem("x"),
            Term::app("parent", vec![elem("x")], Sort::Named("Elem.t".into())),
        );
        assert!(!satisfiable_by(&cyclic, &own(&["x"])));
    }

    #[test]
    fn only_conjuncts_left_to_their_own_variables_are_dropped() {
        let guard = Term::negation(lt(elem("x_2"), elem("cur_1")));
        let q = vec![guard.clone(), has_left_event()];
        // e5's locals and r_7 occur nowhere else: the event goes; the guard, which restricts
        // x_2 and cur_1, stays
        assert_eq!(without_self_satisfied(q), vec![guard.clone()]);
        // when Φ speaks of the event's argument (a refinement of position 5), it stays
        let refined = Term::negation(Term::eq(elem("e5:hasLeft#0"), elem("x_2")));
        let q = vec![guard.clone(), refined.clone(), has_left_event()];
        assert_eq!(
            without_self_satisfied(q),
            vec![guard.clone(), refined.clone(), has_left_event()]
        );
        // the result r_7 as a guard of its own: `r_7` and the event share r_7, so neither is
        // dropped at first; `¬(e5:hasLeft#0 = x_2)` is kept (x_2 is the guard's too), which
        // keeps the event, which keeps `r_7`
        let r7 = Term::var("r_7", Sort::Bool);
        let q = vec![guard.clone(), r7.clone(), refined.clone(), has_left_event()];
        assert_eq!(without_self_satisfied(q.clone()), q);
        // without the refinement: the event goes first (its locals are its own, r_7 is not,
        // but `e5:hasLeft#r ⇔ r_7` defines the result), then `r_7` is left alone and goes too
        let q = vec![guard.clone(), r7, has_left_event()];
        assert_eq!(without_self_satisfied(q), vec![guard]);
    }

    #[test]
    fn dropping_keeps_the_answer_of_the_solver() {
        // x = c ∧ ¬(x = c) is unsatisfiable; with `y = x` beside it (y its own variable) too, and
        // `y = x` is what goes
        let contradiction = vec![
            Term::eq(elem("x"), elem("c")),
            Term::negation(Term::eq(elem("x"), elem("c"))),
            Term::eq(elem("y"), elem("x")),
        ];
        let kept = without_self_satisfied(contradiction.clone());
        assert_eq!(kept.len(), 2);
        let mut solver = Solver::new(10_000);
        assert_eq!(solver.check(&contradiction).ok(), Some(SatOutcome::Unsat));
        assert_eq!(solver.check(&kept).ok(), Some(SatOutcome::Unsat));
        // a conjunct whose variable is shared is not dropped, even when it defines it
        let shared = vec![
            Term::eq(elem("y"), elem("x")),
            lt(elem("y"), elem("x")),
            Term::Forall(
                vec![(Rc::<str>::from("a"), Sort::Named("Elem.t".into()))].into(),
                Rc::new(Term::negation(lt(elem("a"), elem("a")))),
            ),
        ];
        let kept = without_self_satisfied(shared.clone());
        assert_eq!(kept, shared);
        assert_eq!(solver.check(&kept).ok(), Some(SatOutcome::Unsat));
    }
}
