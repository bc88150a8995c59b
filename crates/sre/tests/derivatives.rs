//! Property tests of the SRE algebra against a brute-force matcher over concrete traces.
//! The alphabet: calls `a n` and `b n` with n ∈ {0, 1, 2}; qualifiers compare the argument with
//! constants. For random expressions, every symbolic derivative D_ℓ R over a next event ℓ must
//! agree with the definition: π ∈ D_ℓ R iff α·π ∈ R for every concrete α ∈ ℓ (checked for all
//! traces π up to length 2), and the next events with their dual must partition the alphabet.

use proptest::prelude::*;
use smt::{Solver, Sort, Term};
use sre::{Deriver, Event, Node, SmtOracle, Sre};

type Concrete = (&'static str, i64);

const OPS: [&str; 2] = ["a", "b"];

fn alphabet() -> Vec<Concrete> {
    let mut out = Vec::new();
    for op in OPS {
        for n in 0..3 {
            out.push((op, n));
        }
    }
    out
}

fn eval(t: &Term, n: i64) -> Option<i64> {
    match t {
        Term::Int(i) => Some(*i),
        Term::Var(name, _) if &**name == "#0" => Some(n),
        _ => None,
    }
}

fn holds(t: &Term, n: i64) -> bool {
    match t {
        Term::Bool(b) => *b,
        Term::Not(a) => !holds(a, n),
        Term::And(xs) => xs.iter().all(|x| holds(x, n)),
        Term::Or(xs) => xs.iter().any(|x| holds(x, n)),
        Term::Eq(a, b) => eval(a, n) == eval(b, n),
        Term::Iff(a, b) => holds(a, n) == holds(b, n),
        Term::Implies(a, b) => !holds(a, n) || holds(b, n),
        other => panic!("unexpected qualifier {other}"),
    }
}

fn member(e: &Event, c: Concrete) -> bool {
    holds(&e.qualifier(c.0), c.1)
}

/// Classical derivative with a concrete event.
fn concrete_deriv(r: &Sre, c: Concrete) -> Sre {
    match r.node() {
        Node::Empty | Node::Eps => Sre::empty(),
        Node::Lit(e) => {
            if member(e, c) {
                Sre::eps()
            } else {
                Sre::empty()
            }
        }
        Node::Star(x) => Sre::concat(concrete_deriv(x, c), r.clone()),
        Node::Concat(a, b) => {
            let first = Sre::concat(concrete_deriv(a, c), b.clone());
            if a.nullable() {
                Sre::or([first, concrete_deriv(b, c)])
            } else {
                first
            }
        }
        Node::Not(x) => Sre::complement(concrete_deriv(x, c)),
        Node::And(xs) => Sre::and(xs.iter().map(|x| concrete_deriv(x, c))),
        Node::Or(xs) => Sre::or(xs.iter().map(|x| concrete_deriv(x, c))),
    }
}

fn matches(r: &Sre, trace: &[Concrete]) -> bool {
    trace
        .iter()
        .fold(r.clone(), |acc, c| concrete_deriv(&acc, *c))
        .nullable()
}

fn traces_up_to(len: usize) -> Vec<Vec<Concrete>> {
    let mut out = vec![Vec::new()];
    let mut frontier = vec![Vec::new()];
    for _ in 0..len {
        let mut next = Vec::new();
        for t in &frontier {
            for c in alphabet() {
                let mut t2: Vec<Concrete> = t.clone();
                t2.push(c);
                next.push(t2);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

fn literal() -> impl Strategy<Value = Sre> {
    (0usize..2, prop::option::of(0i64..3), any::<bool>()).prop_map(|(op, k, neg)| {
        let q = match k {
            Some(k) => Term::eq(Term::var("#0", Sort::Int), Term::Int(k)),
            None => Term::tt(),
        };
        let e = Event::atom(OPS[op], q);
        Sre::lit(if neg { e.negate() } else { e })
    })
}

fn sre_strategy() -> impl Strategy<Value = Sre> {
    let leaf = prop_oneof![
        Just(Sre::eps()),
        Just(Sre::empty()),
        Just(Sre::any()),
        literal()
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(Sre::star),
            inner.clone().prop_map(Sre::complement),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Sre::concat(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Sre::and([a, b])),
            (inner.clone(), inner).prop_map(|(a, b)| Sre::or([a, b])),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn merged_successors_partition_the_alphabet_with_their_derivatives(r in sre_strategy()) {
        // every concrete event is in exactly one successor, and the successor's derivative is
        // the concrete derivative of each of its members (on every trace of up to 2 events):
        // merging next events whose derivatives differ would break this
        let mut solver = Solver::new(2000);
        let mut oracle = SmtOracle::new(&mut solver);
        let mut d = Deriver::new();
        prop_assert!(d.merge_successors);
        let succ = d.successors(&mut oracle, &r, true);
        for c in alphabet() {
            let count = succ.iter().filter(|(e, _)| member(e, c)).count();
            prop_assert_eq!(count, 1, "{:?} in {} successors of {}", c, count, r);
        }
        let suffixes = traces_up_to(2);
        for (e, der) in &succ {
            for c in alphabet().into_iter().filter(|c| member(e, *c)) {
                for pi in &suffixes {
                    let mut full = vec![c];
                    full.extend(pi.iter().copied());
                    prop_assert_eq!(matches(der, pi), matches(&r, &full), "{} after {:?} in {}", r, full, e);
                }
            }
        }
        // successors with equal derivatives are merged
        for (i, (_, a)) in succ.iter().enumerate() {
            prop_assert!(succ[i + 1..].iter().all(|(_, b)| b != a));
        }
    }

    #[test]
    fn symbolic_derivatives_agree_with_concrete_ones(r in sre_strategy()) {
        let mut solver = Solver::new(2000);
        let mut oracle = SmtOracle::new(&mut solver);
        let mut d = Deriver::new();
        let events = d.next_with_dual(&mut oracle, &r);
        // partition: each concrete event is in exactly one next event
        for c in alphabet() {
            let count = events.iter().filter(|e| member(e, c)).count();
            prop_assert_eq!(count, 1, "{:?} in {} next events of {}", c, count, r);
        }
        let suffixes = traces_up_to(2);
        for e in &events {
            let Some(der) = d.derivative(&mut oracle, e, &r) else {
                prop_assert!(false, "undecided derivative of {} by {}", r, e);
                continue;
            };
            for c in alphabet().into_iter().filter(|c| member(e, *c)) {
                for pi in &suffixes {
                    let mut full = vec![c];
                    full.extend(pi.iter().copied());
                    prop_assert_eq!(matches(&der, pi), matches(&r, &full), "D_{} {} on {:?}", e, r, full);
                }
            }
        }
    }

    #[test]
    fn nullable_matches_the_empty_trace(r in sre_strategy()) {
        prop_assert_eq!(r.nullable(), matches(&r, &[]));
    }
}

#[test]
fn next_events_with_one_derivative_are_one_successor() {
    // R = ((a · c) ∨ (b · c))*: the next events a and b both lead to c · R
    let lit = |op: &str| Sre::lit(Event::atom(op, Term::tt()));
    let r = Sre::star(Sre::or([
        Sre::concat(lit("a"), lit("c")),
        Sre::concat(lit("b"), lit("c")),
    ]));
    let mut solver = Solver::new(2000);
    let mut oracle = SmtOracle::new(&mut solver);
    let mut merged = Deriver::new();
    let mut plain = Deriver::new();
    plain.merge_successors = false;
    assert_eq!(plain.successors(&mut oracle, &r, false).len(), 2);
    let succ = merged.successors(&mut oracle, &r, false);
    assert_eq!(succ.len(), 1, "a ⊔ b");
    let (e, d) = &succ[0];
    assert!(member(e, ("a", 0)) && member(e, ("b", 2)) && !member(e, ("c", 0)));
    assert_eq!(*d, Sre::concat(lit("c"), r.clone()));
    // accepted prefixes of at most 4 events: ε, x·c, x·c·y·c with x, y ∈ {a, b}:
    // 1 + 2 + 4 = 7 traces, or 1 + 1 + 1 with the union
    assert_eq!(plain.prefixes(&mut oracle, &r, 4, true).len(), 7);
    let pfx = merged.prefixes(&mut oracle, &r, 4, true);
    let lens: Vec<usize> = pfx.iter().map(|(p, _)| p.len()).collect();
    assert_eq!(lens, vec![0, 2, 4]);
    // matching four unconstrained events: 4 refined traces, or the one with the unions
    let any = vec![Event::top(); 4];
    assert_eq!(
        plain
            .match_trace(&mut oracle, &any, &r, true, false, 0, 64)
            .len(),
        4
    );
    let m = merged.match_trace(&mut oracle, &any, &r, true, false, 0, 64);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].0[0], *e);
    assert_eq!(m[0].0[2], *e);
}

#[test]
fn prefix_enumeration_yields_accepted_traces_by_increasing_length() {
    // R = a* · b
    let a = Sre::lit(Event::atom("a", Term::tt()));
    let b = Sre::lit(Event::atom("b", Term::tt()));
    let r = Sre::concat(Sre::star(a), b);
    let mut solver = Solver::new(2000);
    let mut oracle = SmtOracle::new(&mut solver);
    let mut d = Deriver::new();
    let pfx = d.prefixes(&mut oracle, &r, 3, true);
    let lens: Vec<usize> = pfx.iter().map(|(p, _)| p.len()).collect();
    assert_eq!(lens, vec![1, 2, 3], "b, a·b, a·a·b");
    assert!(pfx.iter().all(|(_, der)| der.nullable()));
}

#[test]
fn dist_to_dead_counts_events_to_the_dead_state() {
    let a = Sre::lit(Event::atom("a", Term::tt()));
    let mut solver = Solver::new(2000);
    let mut oracle = SmtOracle::new(&mut solver);
    let mut d = Deriver::new();
    // a*: any non-`a` event kills it
    assert_eq!(d.dist_to_dead(&mut oracle, &Sre::star(a.clone()), 4), 1);
    // •*: no dead state
    assert_eq!(d.dist_to_dead(&mut oracle, &Sre::all(), 4), 5);
    assert_eq!(d.dist_to_dead(&mut oracle, &Sre::empty(), 4), 0);
}
