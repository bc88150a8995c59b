//! The LTLf translation and symbolic derivatives on the examples of the paper (Section 4–5):
//! R_{a→b} (Example 4.3, "a links to b and stays so"), its prefixes (Example 5.9), and the
//! weak-until property R_{a↛b} of Example 5.7 with its three derivatives.

use smt::{Solver, Sort, Term};
use sre::{arg_var, Deriver, Event, Ltlf, SmtOracle, Sre};

fn node(n: &str) -> Term {
    Term::var(n, Sort::Named("Node".into()))
}
fn key() -> Term {
    node(&arg_var(0))
}
fn val() -> Term {
    node(&arg_var(1))
}
fn eq(a: Term, b: Term) -> Term {
    Term::eq(a, b)
}
fn neq(a: Term, b: Term) -> Term {
    Term::negation(Term::eq(a, b))
}
fn put(q: Term) -> Event {
    Event::atom("put", q)
}
fn ev(e: Event) -> Box<Ltlf> {
    Box::new(Ltlf::Event(e))
}

/// R_{a→b} = F(⟨put a b⟩ ∧ X G ¬⟨put a _⟩), the `stored` predicate of Section 2.
fn stored() -> Sre {
    let put_ab = put(Term::and([eq(key(), node("a")), eq(val(), node("b"))]));
    let put_a = put(eq(key(), node("a")));
    let g = Ltlf::Globally(Box::new(Ltlf::Not(ev(put_a))));
    Ltlf::Finally(Box::new(Ltlf::And(
        ev(put_ab),
        Box::new(Ltlf::Next(Box::new(g))),
    )))
    .to_sre()
}

/// Derivatives of `r` along `trace`, for every way of relating it to next events.
fn derivatives(r: &Sre, trace: &[Event]) -> Vec<Sre> {
    let mut solver = Solver::new(2000);
    let mut oracle = SmtOracle::new(&mut solver);
    let mut d = Deriver::new();
    d.match_trace(&mut oracle, trace, r, false, false, 0, 1000)
        .into_iter()
        .map(|(_, x)| x)
        .collect()
}

#[test]
fn example_5_9_prefixes_of_the_required_context_are_included_in_it() {
    let r = stored();
    let put_ab = put(Term::and([eq(key(), node("a")), eq(val(), node("b"))]));
    let other = put(neq(key(), node("a")));
    for n in 0..3 {
        let mut trace = vec![put_ab.clone()];
        trace.extend(std::iter::repeat_n(other.clone(), n));
        let ds = derivatives(&r, &trace);
        assert!(!ds.is_empty());
        assert!(
            ds.iter().all(Sre::nullable),
            "⟨put a b⟩·(~⟨put a _⟩)^{n} ⊑ R_a→b"
        );
    }
    // relinking a elsewhere leaves the context (Corollary 5.8: Π ⊑ ¬R)
    let unlink = put(Term::and([eq(key(), node("a")), neq(val(), node("b"))]));
    let ds = derivatives(&r, &[put_ab, unlink]);
    assert!(!ds.is_empty() && ds.iter().all(|d| !d.nullable()));
    // no event at all: not yet linked
    assert!(!r.nullable());
}

#[test]
fn example_5_7_derivatives_of_the_weak_until_property() {
    // R_{a↛b} = ~⟨put ā b⟩ W ⟨put a b̄⟩
    let other_to_b = put(Term::and([neq(key(), node("a")), eq(val(), node("b"))]));
    let a_elsewhere = put(Term::and([eq(key(), node("a")), neq(val(), node("b"))]));
    let r = Ltlf::WeakUntil(
        Box::new(Ltlf::Not(ev(other_to_b.clone()))),
        ev(a_elsewhere.clone()),
    )
    .to_sre();
    assert!(r.nullable());
    // (1) unlinking b from a: anything may follow
    let ds = derivatives(&r, &[a_elsewhere]);
    assert!(!ds.is_empty() && ds.iter().all(Sre::is_all), "{ds:?}");
    // (2) linking another node to b first: dead
    let ds = derivatives(&r, &[other_to_b]);
    assert!(!ds.is_empty() && ds.iter().all(Sre::is_empty), "{ds:?}");
    // (3) relinking a to b, or a `get`: back to R itself
    let relink = put(Term::and([eq(key(), node("a")), eq(val(), node("b"))]));
    let get = Event::atom("get", Term::tt());
    for e in [relink, get] {
        let ds = derivatives(&r, &[e]);
        assert!(!ds.is_empty() && ds.iter().all(|d| *d == r), "{ds:?}");
    }
}

#[test]
fn example_4_3_globally_and_last_translate_to_the_expected_expressions() {
    let put_a = put(eq(key(), node("a")));
    // G ¬ℓ over single events is (~ℓ)*
    let g = Ltlf::Globally(Box::new(Ltlf::Not(ev(put_a.clone())))).to_sre();
    assert_eq!(g, Sre::star(Sre::lit(put_a.negate())));
    // `lastL && ℓ` is exactly one event ℓ
    let one = Ltlf::And(Box::new(Ltlf::Last), ev(put_a.clone())).to_sre();
    assert_eq!(one, Sre::lit(put_a.clone()));
    // F ℓ = •*·ℓ·•*
    let f = Ltlf::Finally(ev(put_a.clone())).to_sre();
    assert_eq!(
        f,
        Sre::concat(Sre::all(), Sre::concat(Sre::lit(put_a), Sre::all()))
    );
}
