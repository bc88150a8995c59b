//! The constraint of a trace event at its position, for the solver, with the function the event
//! is a call of made explicit: position `i` has an integer variable `e{i}:op` whose value is the
//! code of that function ([`op_code`]), and the locals of function `f` at position `i` are
//! `e{i}:f#k` (arguments) and `e{i}:f#r` (result).
//!
//! With one description per position this is equisatisfiable with the plain disjunction of the
//! qualifiers (`sre::event_formula`): a model of one gives a model of the other by choosing the
//! code of the disjunct that holds (an unlisted function takes a code no listed one has). The
//! code matters when a position has two descriptions, as when an `admit` keeps its refinements
//! as one disjunction of the path condition ([`crate::derivative`]): a refinement that makes
//! the event an `f` call and another description that makes it a `g` call cannot both hold,
//! exactly as no concrete call is both, whereas the plain disjunctions (on disjoint locals)
//! would be satisfiable together.

use smt::{Sort, Term};
use sre::Event;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

thread_local! {
    static CODES: RefCell<HashMap<Rc<str>, i64>> = RefCell::new(HashMap::new());
}

/// The code of a function: distinct functions have distinct codes (for the whole thread, so
/// every query of a run agrees).
pub(crate) fn op_code(op: &Rc<str>) -> i64 {
    CODES.with(|codes| {
        let mut codes = codes.borrow_mut();
        let next = codes.len() as i64 + 1;
        *codes.entry(op.clone()).or_insert(next)
    })
}

/// The variable holding the code of the function called at position `i`.
fn op_var(i: usize) -> Term {
    Term::var(&format!("e{i}:op"), Sort::Int)
}

/// The constraint of `e` as the event at position `i` of a trace.
pub(crate) fn event_at(e: &Event, i: usize) -> Term {
    let tag = format!("e{i}:");
    let op = op_var(i);
    let listed = e.ops.iter().map(|(f, q)| {
        let q = q.rename(&|n: &str| {
            if n.starts_with('#') {
                Some(format!("{tag}{f}{n}"))
            } else {
                None
            }
        });
        Term::and([Term::eq(op.clone(), Term::Int(op_code(f))), q])
    });
    let others = if e.others.is_false() {
        Term::ff()
    } else {
        Term::and(
            e.ops
                .keys()
                .map(|f| Term::negation(Term::eq(op.clone(), Term::Int(op_code(f)))))
                .chain(std::iter::once(e.others.clone())),
        )
    };
    Term::or(listed.chain(std::iter::once(others)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::{SatOutcome, Solver};

    fn key(n: &str) -> Term {
        Term::var(n, Sort::Int)
    }

    #[test]
    fn two_descriptions_of_one_position_must_agree_on_the_function() {
        // position 0 is a `put` with key k (first description) or a `get` with key k (second):
        // no call is both
        let put = Event::atom("put", Term::eq(key("#0"), key("k")));
        let get = Event::atom("get", Term::eq(key("#0"), key("k")));
        let either = put.or(&get);
        let mut solver = Solver::new(5000);
        let only_put = Term::and([event_at(&either, 0), event_at(&put, 0)]);
        assert_eq!(solver.check(&[only_put]).ok(), Some(SatOutcome::Sat));
        let both = Term::and([event_at(&put, 0), event_at(&get, 0)]);
        assert_eq!(solver.check(&[both]).ok(), Some(SatOutcome::Unsat));
        // the plain disjunctions name the locals of each function apart: satisfiable together
        let plain = Term::and([
            sre::event_formula(&put, "e0:"),
            sre::event_formula(&get, "e0:"),
        ]);
        assert_eq!(solver.check(&[plain]).ok(), Some(SatOutcome::Sat));
    }

    #[test]
    fn the_other_functions_exclude_the_listed_ones() {
        // ~put(k): a put with another key, or any call but a put
        let put = Event::atom("put", Term::eq(key("#0"), key("k")));
        let not_put = put.negate();
        let mut solver = Solver::new(5000);
        let q = Term::and([event_at(&put, 3), event_at(&not_put, 3)]);
        assert_eq!(solver.check(&[q]).ok(), Some(SatOutcome::Unsat));
        // a call of some function other than `put` is possible
        let get = Event::atom("get", Term::tt());
        let q = Term::and([event_at(&get, 3), event_at(&not_put, 3)]);
        assert_eq!(solver.check(&[q]).ok(), Some(SatOutcome::Sat));
        // and every event is satisfiable on its own exactly when its plain form is
        for e in [&put, &not_put, &get, &Event::top()] {
            let coded = solver.check(&[event_at(e, 0)]).ok();
            let plain = solver.check(&[sre::event_formula(e, "e0:")]).ok();
            assert_eq!(coded, plain, "{e}");
        }
        assert_eq!(
            solver.check(&[event_at(&Event::bottom(), 0)]).ok(),
            Some(SatOutcome::Unsat)
        );
    }
}
