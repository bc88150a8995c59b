//! Subsumption of a function entry by an earlier entry of the same path: a recursive call that
//! comes back to a situation the path was already in (same function, same pending frames up to
//! frames that return nothing of their own, same continuation effect, a trace longer only by
//! events no specification can see, arguments equal to the earlier ones) has no execution that
//! the earlier entry does not have with fewer calls, and is not explored again.
//!
//! **Neutral functions.** A function `o` of the library is *neutral* when, for every expression
//! `R` the search may ask a trace to belong to (the required context of every `admit` of the
//! program and the property, `post` and `post_after_pre`), inserting or removing a call of `o`
//! anywhere in a trace does not change its membership: `u·e·v ∈ L(R) ⟺ u·v ∈ L(R)` for every
//! event `e` of `o` and every valuation of the free variables of `R`. [`neutral_functions`] shows
//! it from the derivatives: every residual `u⁻¹R` is, up to language, a derivative reached through
//! the successors of `R` (they partition the events), and `o` is neutral when the derivative of
//! every such residual by the whole event set `o(…)` (every call of `o`, any arguments and result)
//! is defined and is that residual itself (`D_o R' = R'`, then `e⁻¹(u⁻¹R) = u⁻¹R` for every event
//! `e` of `o`). Free variables stay free in the oracle's questions, so what is shown holds for
//! every value of them, in particular for the arguments an `admit` is instantiated with. With the
//! events of `HasLeft`, `GetLeft`, … (the tree methods' queries) the properties `_F (AddLeft …)`
//! and `_G (¬AddLeft … ∧ ¬AddRight …)` are in this case; a function that a property names, or that
//! `_X`/`lastL` count, is not.
//!
//! **The rule.** A path records each entry into a user function (`Call`): the function body, the
//! environment of its parameters, the pending frames and the trace part ([`Entry`]). At a new
//! entry `S` of the same body, an earlier entry `E` of the same path *applies* when
//! 1. the frames pending at `E` are, one for one, still pending at `S` (the same frames), and the
//!    frames pushed since are `let x = [] in t` with `t` a value (they add no event, make no call,
//!    cannot fail) above a frame of `E` that ignores the value it receives (`let x = [] in t`, `x`
//!    not in `t`): returning from `S` leads, through them, to what returning from `E` leads to;
//! 2. the continuation effects are the same and the events appended since `E` are all calls of
//!    neutral functions ([`crate::exec::EffectSemantics::covers`]): the trace of `S` is the trace
//!    of `E`, refined (an `admit` only conjoins its events), followed by neutral events;
//! 3. the parameters hold the same functions, and their first-order values `a_i` at `S` and `b_i`
//!    at `E` are compared by the equation `eq = ⋀ a_i = b_i` (nothing when they are the same
//!    terms).
//!
//! Then the concrete states of `S` that satisfy `eq` are covered by `E`: Φ only grows along a
//! path, so a model of `Φ_S ∧ eq` is a model of `Φ_E` that gives `E`'s parameters the values of
//! `S`'s, its trace is one of `E`'s with neutral events inserted, and the pending frames return
//! alike. From such a concrete state `s`, the state `s'` of `E` without those events has the same
//! futures: each library call's `admit` and the property ask membership questions that the
//! neutral events do not change, every other step ignores the trace, and the futures of `s`
//! have at most as many calls as `s'` has left (`E` made fewer calls). So `S` goes on with
//! `¬eq` added to Φ for every earlier entry that applies (an exact split of its concrete
//! states), and is dropped when `eq` is true.
//!
//! **Why nothing is lost.** Suppose some reachable concrete state has a violating future of `n`
//! calls within the bounds; take one with the least `n`, and among those the least calls made so
//! far. It is not in a dropped part (that part has the same future from a state of an earlier
//! entry, with fewer calls made), so the search follows its future from its symbolic state: the
//! violation is reported, unless the future enters a dropped part, which it does after at least
//! one call, with a violating future of fewer calls: contradicting the choice. The rounds of
//! growing call bounds do not change this: an entry is always explored in the round that drops a
//! later one, and the states it stops at a call bound are resumed, with the entries of their
//! path, by the next round.
//!
//! For the recursive methods over cyclic structures (a tree whose left children form a cycle)
//! this bounds the recursion: once an iteration comes back to a node the path visited, its state
//! is covered; a walk along distinct nodes is as long as the prestate has `AddLeft`/`AddRight`
//! events at most, after which its Φ is unsatisfiable.

use crate::core::Comp;
use crate::exec::{EffectSemantics, Env, Frame, State, Value};
use smt::Term;
use sre::{Deriver, Event, EventOracle, Sre};
use std::collections::BTreeSet;
use std::rc::Rc;

/// One entry into a user function along a path (newest first through `before`).
#[derive(Clone, Debug)]
pub struct Entry<T: Clone> {
    /// The body of the function entered.
    pub body: Rc<Comp>,
    /// Its parameters (and the closure it was defined in).
    pub env: Env,
    /// The frames pending at the entry.
    pub stack: Vec<Frame>,
    /// The trace part at the entry.
    pub effects: T,
    pub before: Option<Rc<Entry<T>>>,
}

/// The frames pending at `earlier` are still pending in `later`, and the frames pushed since
/// give back the value they receive, or are value frames above frames of `earlier` that
/// discard the value they are returned.
fn stack_covers(earlier: &[Frame], later: &[Frame]) -> bool {
    if later.len() < earlier.len() {
        return false;
    }
    let same = earlier
        .iter()
        .zip(later)
        .all(|(a, b)| a.var == b.var && Rc::ptr_eq(&a.body, &b.body) && Rc::ptr_eq(&a.env, &b.env));
    if !same {
        return false;
    }
    let pushed = &later[earlier.len()..];
    if pushed.is_empty() {
        return true;
    }
    pushed.iter().all(is_identity_frame)
        || (pushed.iter().all(is_value_frame) && discards_its_value(earlier))
}

/// `let x = [] in x`: gives back the value it receives.
fn is_identity_frame(f: &Frame) -> bool {
    matches!(&*f.body, Comp::Ret(smt::Term::Var(x, _)) if *x == f.var)
}

/// `let x = [] in t` with `t` a value: no event, no call, no failure.
fn is_value_frame(f: &Frame) -> bool {
    matches!(&*f.body, Comp::Ret(_))
}

/// The value returned to the top of `stack` is lost: the frames above some frame that ignores
/// the value it receives (`let x = [] in t`, `x` not in `t`) are value frames, so whatever is
/// returned, the state after that frame is the same. (An empty stack would make the value the
/// method's result.)
fn discards_its_value(stack: &[Frame]) -> bool {
    for f in stack.iter().rev() {
        match &*f.body {
            Comp::Ret(t) if !t.free_vars().contains_key(&f.var) => return true,
            Comp::Ret(_) => {}
            _ => return false,
        }
    }
    false
}

/// The equations that make the parameters of `later` those of `earlier` (`None` when they hold
/// different functions or names).
fn parameter_equations(earlier: &Env, later: &Env) -> Option<Vec<Term>> {
    if earlier.len() != later.len() {
        return None;
    }
    let mut eqs = Vec::new();
    for (k, a) in later.iter() {
        match (a, earlier.get(k)?) {
            (Value::Term(a), Value::Term(b)) => {
                if a != b {
                    eqs.push(Term::eq(a.clone(), b.clone()));
                }
            }
            (Value::Fun(d1, c1), Value::Fun(d2, c2)) => {
                if !Rc::ptr_eq(d1, d2) || !Rc::ptr_eq(c1, c2) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(eqs)
}

/// `st` enters `body` with parameters `env`: adds to Φ the negated equation of every earlier
/// entry of the path that applies (see the module's documentation) and records the entry.
/// Gives `false` when an earlier entry covers the whole state (its equation is true): the
/// state is then dropped.
pub(crate) fn enter<S: EffectSemantics>(
    sem: &S,
    st: &mut State<S::Effects>,
    body: &Rc<Comp>,
    env: &Env,
) -> bool {
    let mut excluded = Vec::new();
    let mut cur = st.entries.as_deref();
    while let Some(e) = cur {
        cur = e.before.as_deref();
        if !Rc::ptr_eq(&e.body, body)
            || !stack_covers(&e.stack, &st.stack)
            || !sem.covers(&e.effects, &st.effects)
        {
            continue;
        }
        let Some(eqs) = parameter_equations(&e.env, env) else {
            continue;
        };
        let eq = Term::and(eqs);
        if eq.is_true() {
            return false;
        }
        excluded.push(Term::negation(eq));
    }
    if !excluded.is_empty() {
        for t in excluded {
            st.phi.push(t);
        }
        // Φ grew: checked at the next branch, as after an `admit` (see `State::unchecked`)
        st.unchecked = true;
    }
    st.entries = Some(Rc::new(Entry {
        body: body.clone(),
        env: env.clone(),
        stack: st.stack.clone(),
        effects: st.effects.clone(),
        before: st.entries.take(),
    }));
    true
}

/// Most derivatives explored per run of [`neutral_functions`]; past it no function is neutral.
const RESIDUAL_LIMIT: usize = 4_000;

/// The functions among `ops` that no expression of `exprs` can see (see the module's
/// documentation): for every derivative `R'` reachable from one of `exprs`, the derivative of
/// `R'` by every call of the function is `R'` itself. Nothing is neutral when the derivatives
/// are too many to list.
pub(crate) fn neutral_functions(
    deriver: &mut Deriver,
    oracle: &mut dyn EventOracle,
    ops: &[Rc<str>],
    exprs: &[Sre],
) -> BTreeSet<Rc<str>> {
    // a list: `Sre` keeps its hash in a cell, which clippy refuses as a set's key
    let mut residuals: Vec<Sre> = Vec::new();
    let mut todo: Vec<Sre> = exprs.to_vec();
    todo.push(Sre::empty());
    while let Some(r) = todo.pop() {
        if residuals.contains(&r) {
            continue;
        }
        residuals.push(r.clone());
        if residuals.len() > RESIDUAL_LIMIT {
            return BTreeSet::new();
        }
        // the next events with their derivatives, and the dual event with ∅: a partition
        for e in deriver.next(oracle, &r) {
            let Some(d) = deriver.derivative(oracle, &e, &r) else {
                // a residual this list would miss
                return BTreeSet::new();
            };
            if !residuals.contains(&d) {
                todo.push(d);
            }
        }
    }
    ops.iter()
        .filter(|op| {
            let every_call = Event::atom(op, Term::tt());
            residuals
                .iter()
                .all(|r| deriver.derivative(oracle, &every_call, r).as_ref() == Some(r))
        })
        .cloned()
        .collect()
}

/// The expressions of every `admit` in `c` and in the functions it defines.
pub(crate) fn admitted(c: &Comp, out: &mut Vec<Sre>) {
    match c {
        Comp::Admit(r) => out.push(r.clone()),
        Comp::Let(_, a, b) | Comp::If(_, a, b) => {
            admitted(a, out);
            admitted(b, out);
        }
        Comp::Choice(xs) => xs.iter().for_each(|x| admitted(x, out)),
        Comp::LetFun(def, rest) => {
            admitted(&def.body, out);
            admitted(rest, out);
        }
        Comp::Ret(_)
        | Comp::Call(..)
        | Comp::Fresh(_)
        | Comp::Assume(_)
        | Comp::Append(_)
        | Comp::AppendContext(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::{Solver, Sort};
    use std::collections::HashMap;

    fn elem(name: &str) -> Term {
        Term::var(name, Sort::Named("Elem.t".into()))
    }

    /// `put x` (the first argument is `x`).
    fn put(x: &str) -> Sre {
        Sre::lit(Event::atom(
            "put",
            Term::eq(elem(&sre::arg_var(0)), elem(x)),
        ))
    }

    fn neutral(exprs: &[Sre]) -> Vec<String> {
        let mut solver = Solver::new(5000);
        let mut oracle = sre::SmtOracle::new(&mut solver);
        let ops: Vec<Rc<str>> = ["get", "put"].into_iter().map(Rc::from).collect();
        neutral_functions(&mut Deriver::new(), &mut oracle, &ops, exprs)
            .into_iter()
            .map(|o| o.to_string())
            .collect()
    }

    #[test]
    fn a_function_no_expression_names_is_neutral_unless_events_are_counted() {
        // _F (put x): a `get` anywhere changes nothing
        let eventually = Sre::seq([Sre::all(), put("x"), Sre::all()]);
        assert_eq!(neutral(std::slice::from_ref(&eventually)), ["get"]);
        // _G ¬(put x): neither does it here
        let never = Sre::complement(eventually.clone());
        assert_eq!(neutral(&[never]), ["get"]);
        // but "at least one event" counts the `get`s
        let some = Sre::seq([Sre::any(), Sre::all()]);
        assert!(neutral(&[eventually.clone(), some]).is_empty());
        // and so does "the event after a `put x` is a `put x`"
        let next = Sre::seq([Sre::all(), put("x"), put("x"), Sre::all()]);
        assert!(neutral(&[next]).is_empty());
        // an `admit` of a free variable's `put`: neutral for every value of the variable
        assert_eq!(
            neutral(&[eventually, Sre::seq([Sre::all(), put("y"), Sre::all()])]),
            ["get"]
        );
    }

    fn frame(var: &str, body: Term, env: &Env) -> Frame {
        Frame {
            var: Rc::from(var),
            body: Rc::new(Comp::Ret(body)),
            env: env.clone(),
        }
    }

    fn covers(earlier: Vec<Frame>, later: Vec<Frame>) -> bool {
        stack_covers(&earlier, &later)
    }

    #[test]
    fn frames_pushed_since_must_give_back_their_value_or_be_discarded() {
        let env: Env = Rc::new(HashMap::new());
        let unit = Term::Unit;
        let ignores = frame("_", unit.clone(), &env);
        let identity = frame("r", elem("r"), &env);
        let uses = frame("r", Term::eq(elem("r"), elem("z")), &env);
        let call = Frame {
            var: Rc::from("v"),
            body: Rc::new(Comp::Call(Rc::from("f"), vec![elem("v")])),
            env: env.clone(),
        };
        // nothing pushed
        assert!(covers(vec![], vec![]));
        assert!(covers(vec![call.clone()], vec![call.clone()]));
        // identities above anything, even the method's result
        assert!(covers(vec![], vec![identity.clone(), identity.clone()]));
        // value frames above a frame that discards the value (through an identity)
        let earlier = [ignores.clone(), identity.clone()];
        let later = [
            ignores.clone(),
            identity.clone(),
            ignores.clone(),
            identity.clone(),
        ];
        assert!(covers(earlier.to_vec(), later.to_vec()));
        assert!(covers(
            vec![ignores.clone()],
            vec![ignores.clone(), uses.clone()]
        ));
        // the value would be the result, or would be used
        assert!(!covers(vec![], vec![ignores.clone()]));
        assert!(!covers(
            vec![identity.clone()],
            vec![identity.clone(), uses.clone()]
        ));
        assert!(!covers(
            vec![call.clone()],
            vec![call.clone(), ignores.clone()]
        ));
        // a frame that calls is not a value frame
        assert!(!covers(
            vec![ignores.clone()],
            vec![ignores.clone(), call.clone()]
        ));
        // the earlier frames must still be pending, the same ones
        let other_env: Env = Rc::new(HashMap::new());
        let moved = frame("_", unit, &other_env);
        assert!(!covers(vec![ignores.clone()], vec![moved]));
        assert!(!covers(vec![ignores.clone(), identity], vec![ignores]));
    }

    #[test]
    fn different_arguments_give_equations_and_different_functions_none() {
        let a: Env = Rc::new(HashMap::from([
            (Rc::from("x"), Value::Term(elem("x_1"))),
            (Rc::from("y"), Value::Term(elem("y"))),
        ]));
        let b: Env = Rc::new(HashMap::from([
            (Rc::from("x"), Value::Term(elem("x_2"))),
            (Rc::from("y"), Value::Term(elem("y"))),
        ]));
        assert_eq!(
            parameter_equations(&a, &b),
            Some(vec![Term::eq(elem("x_2"), elem("x_1"))])
        );
        assert_eq!(parameter_equations(&a, &a), Some(Vec::new()));
        let c: Env = Rc::new(HashMap::from([(Rc::from("x"), Value::Term(elem("x_1")))]));
        assert_eq!(parameter_equations(&a, &c), None);
    }

    /// Effects that add nothing, whose trace parts always cover each other (or never).
    struct Covering(bool);

    impl EffectSemantics for Covering {
        type Effects = ();
        fn admit(
            &mut self,
            _: &mut Solver,
            st: State<()>,
            _: Sre,
        ) -> Result<crate::exec::Step<()>, crate::exec::ExecError> {
            Ok(crate::exec::Step::Continue(vec![st]))
        }
        fn append(
            &mut self,
            _: &mut Solver,
            st: State<()>,
            _: Sre,
            _: Option<&std::collections::BTreeMap<Rc<str>, Term>>,
        ) -> Result<crate::exec::Step<()>, crate::exec::ExecError> {
            Ok(crate::exec::Step::Continue(vec![st]))
        }
        fn constraints(&self, _: &()) -> Vec<Term> {
            Vec::new()
        }
        fn subsumes_entries(&self) -> bool {
            true
        }
        fn covers(&self, _: &(), _: &()) -> bool {
            self.0
        }
        fn finish(
            &mut self,
            _: &mut Solver,
            _: &State<()>,
            _: &Term,
        ) -> Result<Option<crate::exec::Violation>, crate::exec::ExecError> {
            Ok(None)
        }
    }

    fn args(x: &str) -> Env {
        Rc::new(HashMap::from([(Rc::from("x"), Value::Term(elem(x)))]))
    }

    #[test]
    fn an_entry_goes_on_where_its_arguments_differ_and_is_dropped_where_they_are_the_same() {
        let body = Rc::new(Comp::Ret(Term::Unit));
        let other_body = Rc::new(Comp::Ret(Term::Unit));
        let mut st: State<()> = State {
            phi: crate::path_condition::PathCondition::new(),
            effects: (),
            control: crate::exec::Control::Return(Value::Term(Term::Unit)),
            stack: Vec::new(),
            calls: 0,
            unchecked: false,
            entries: None,
        };
        let sem = Covering(true);
        // the first entry: nothing earlier, recorded
        assert!(enter(&sem, &mut st, &body, &args("x_1")));
        assert_eq!(st.phi.len(), 0);
        // another function: not compared
        assert!(enter(&sem, &mut st, &other_body, &args("x_1")));
        assert_eq!(st.phi.len(), 0);
        // the same function with another argument: goes on where it differs
        assert!(enter(&sem, &mut st, &body, &args("x_2")));
        assert_eq!(
            st.phi.to_vec(),
            [Term::negation(Term::eq(elem("x_2"), elem("x_1")))]
        );
        assert!(st.unchecked);
        // a third: unequal to both earlier entries
        assert!(enter(&sem, &mut st, &body, &args("x_3")));
        assert_eq!(st.phi.len(), 3);
        // the first argument again: covered, dropped
        assert!(!enter(&sem, &mut st.clone(), &body, &args("x_1")));
        // unless the trace parts do not cover each other
        let mut st2 = st.clone();
        assert!(enter(&Covering(false), &mut st2, &body, &args("x_1")));
        assert_eq!(st2.phi.len(), 3);
    }
}
