//! The executor: symbolic states and the reduction rules of the core language shared by both
//! semantics (Fig. 5): `let`, calls, `if`/choice, `?τ`, `assume`. How `admit` and `append`
//! act on the trace part of a state is the business of an [`EffectSemantics`]: the naive
//! semantics of Fig. 5 (`naive`) or the derivative-based one of Fig. 6 (`derivative`). The order
//! in which states are explored is the business of the searcher (`engine`), and satisfiability
//! of the business of the solver layer (`smt`): executor, searcher and solver stay apart.

use crate::core::{Comp, FunDef};
use crate::path_condition::PathCondition;
use smt::{Solver, Sort, Term};
use sre::Sre;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    Term(Term),
    Fun(Rc<FunDef>, Env),
}

/// An environment of program variables.
pub type Env = Rc<HashMap<Rc<str>, Value>>;

/// A pending `let x = [] in body`.
#[derive(Clone, Debug)]
pub struct Frame {
    pub var: Rc<str>,
    pub body: Rc<Comp>,
    pub env: Env,
}

/// What the state does next.
#[derive(Clone, Debug)]
pub enum Control {
    Eval(Rc<Comp>, Env),
    Return(Value),
}

/// A symbolic state (Φ, trace part, e) with the continuation stack of `e`.
#[derive(Clone, Debug)]
pub struct State<T: Clone> {
    pub phi: PathCondition,
    pub effects: T,
    pub control: Control,
    pub stack: Vec<Frame>,
    /// Function calls made on this path (bounded by the execution bound).
    pub calls: usize,
    /// Φ or the trace grew since the last feasibility check, which was deferred: the state may
    /// be infeasible. It is checked at its next branch (`if`, or an `assume` that constrains)
    /// and when it returns, so an infeasible state goes at most to its next branch, and every
    /// path counted and every violation found is feasible; a feasible state is never dropped.
    pub unchecked: bool,
    /// The entries into user functions along this path, newest first
    /// ([`crate::subsume`]; recorded only when the semantics subsumes entries).
    pub entries: Option<Rc<crate::subsume::Entry<T>>>,
}

/// Errors during execution.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("unbound program variable `{0}`")]
    Unbound(String),
    #[error("`{0}` is not a function")]
    NotAFunction(String),
    #[error("solver: {0}")]
    Solver(#[from] smt::SmtError),
    #[error("the refinements of `admit {0}` computed again differ from the first ones")]
    Recomputed(String),
}

/// A falsification found by a semantics.
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    pub phi: Vec<Term>,
    /// The symbolic trace (derivative semantics) or current context (naive semantics).
    pub trace: Vec<sre::Event>,
    pub context: Option<Sre>,
    pub cont: Option<Sre>,
    pub model: BTreeMap<String, String>,
}

/// How a violation was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// R_cont became ∅ before the method returned.
    Preemptive,
    /// The method returned with a non-nullable R_cont (or a violating context).
    Terminated,
    /// The result refinement fails.
    Result,
}

/// The outcome of one `admit`/`append` or of a finished path.
pub enum Step<T: Clone> {
    Continue(Vec<State<T>>),
    Falsified(Violation),
    /// The state is about to make a call the execution bound does not allow: it is given back
    /// unchanged (still before the call), so that a search with a larger bound can resume it.
    Bounded(State<T>),
}

/// The effect part of a semantics.
pub trait EffectSemantics {
    type Effects: Clone;
    fn admit(
        &mut self,
        solver: &mut Solver,
        st: State<Self::Effects>,
        r: Sre,
    ) -> Result<Step<Self::Effects>, ExecError>;
    /// `context` carries the harness's variables when this is the required context of the method.
    fn append(
        &mut self,
        solver: &mut Solver,
        st: State<Self::Effects>,
        r: Sre,
        context: Option<&BTreeMap<Rc<str>, Term>>,
    ) -> Result<Step<Self::Effects>, ExecError>;
    /// The constraints the effects add to the path condition (for pruning `assume`).
    fn constraints(&self, effects: &Self::Effects) -> Vec<Term>;
    /// The events of the symbolic trace the effects hold (what a kept state's memory grows
    /// with, [`crate::engine::frontier_size`]).
    fn trace_len(&self, _effects: &Self::Effects) -> usize {
        0
    }
    /// Whether entries into user functions are recorded and subsumed ([`crate::subsume`]).
    fn subsumes_entries(&self) -> bool {
        false
    }
    /// The trace part `later`, of a state descending from one whose trace part was `earlier`,
    /// has the same continuation as `earlier` and a trace that differs from it only by events
    /// no specification can see ([`crate::subsume`]): the two have the same futures.
    fn covers(&self, _earlier: &Self::Effects, _later: &Self::Effects) -> bool {
        false
    }
    /// Checks a finished path; `result` is the result refinement instantiated with the value.
    fn finish(
        &mut self,
        solver: &mut Solver,
        st: &State<Self::Effects>,
        result: &Term,
    ) -> Result<Option<Violation>, ExecError>;
}

/// Fresh symbolic variable names.
#[derive(Default)]
pub struct NameSupply {
    counter: usize,
}

impl NameSupply {
    pub fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        let base = base.split('#').next().unwrap_or("x");
        let base = if base.is_empty() || base == "_" {
            "x"
        } else {
            base
        };
        format!("{base}_{}", self.counter)
    }
}

fn lookup_term(env: &Env, t: &Term) -> Result<Term, ExecError> {
    Ok(t.subst(&|n: &str| match env.get(n) {
        Some(Value::Term(v)) => Some(v.clone()),
        _ => None,
    }))
}

/// The first-order part of an environment as a substitution.
pub(crate) fn env_map(env: &Env) -> BTreeMap<Rc<str>, Term> {
    let mut map = BTreeMap::new();
    for (k, v) in env.iter() {
        if let Value::Term(t) = v {
            map.insert(k.clone(), t.clone());
        }
    }
    map
}

fn subst_sre(env: &Env, r: &Sre) -> Sre {
    r.subst(&env_map(env))
}

fn extend(env: &Env, x: Rc<str>, v: Value) -> Env {
    let mut m = (**env).clone();
    m.insert(x, v);
    Rc::new(m)
}

/// One reduction step of a state (all successors), or a violation.
pub fn step<S: EffectSemantics>(
    sem: &mut S,
    solver: &mut Solver,
    names: &mut NameSupply,
    exec_bound: usize,
    mut st: State<S::Effects>,
) -> Result<Step<S::Effects>, ExecError> {
    let control = std::mem::replace(&mut st.control, Control::Return(Value::Term(Term::Unit)));
    match control {
        Control::Return(v) => {
            let Some(frame) = st.stack.pop() else {
                st.control = Control::Return(v);
                return Ok(Step::Continue(vec![st]));
            };
            let env = extend(&frame.env, frame.var, v);
            st.control = Control::Eval(frame.body, env);
            Ok(Step::Continue(vec![st]))
        }
        Control::Eval(comp, env) => match &*comp {
            Comp::Ret(t) => {
                st.control = Control::Return(Value::Term(lookup_term(&env, t)?));
                Ok(Step::Continue(vec![st]))
            }
            Comp::Let(x, a, b) => {
                st.stack.push(Frame {
                    var: x.clone(),
                    body: b.clone(),
                    env: env.clone(),
                });
                st.control = Control::Eval(a.clone(), env);
                Ok(Step::Continue(vec![st]))
            }
            Comp::LetFun(def, rest) => {
                let env2 = extend(&env, def.name.clone(), Value::Fun(def.clone(), env.clone()));
                st.control = Control::Eval(rest.clone(), env2);
                Ok(Step::Continue(vec![st]))
            }
            Comp::Call(f, args) => {
                let Some(v) = env.get(&**f) else {
                    return Err(ExecError::Unbound(f.to_string()));
                };
                let Value::Fun(def, cenv) = v else {
                    return Err(ExecError::NotAFunction(f.to_string()));
                };
                if st.calls >= exec_bound {
                    st.control = Control::Eval(comp.clone(), env.clone());
                    return Ok(Step::Bounded(st));
                }
                st.calls += 1;
                let mut m = (**cenv).clone();
                m.insert(def.name.clone(), Value::Fun(def.clone(), cenv.clone()));
                for (p, a) in def.params.iter().zip(args) {
                    m.insert(p.clone(), Value::Term(lookup_term(&env, a)?));
                }
                let env2 = Rc::new(m);
                if sem.subsumes_entries() && !crate::subsume::enter(sem, &mut st, &def.body, &env2)
                {
                    // an earlier entry of the path has every execution of this one
                    return Ok(Step::Continue(Vec::new()));
                }
                st.control = Control::Eval(def.body.clone(), env2);
                Ok(Step::Continue(vec![st]))
            }
            Comp::If(c, a, b) => {
                let c = lookup_term(&env, c)?;
                let mut out = Vec::new();
                // A state not `unchecked` is feasible: when the solver finds the first guard
                // contradicting Φ, Φ implies the second, which then needs no query.
                let mut first_refuted = false;
                for (guard, branch) in [(c.clone(), a), (Term::negation(c), b)] {
                    if guard.is_false() {
                        continue;
                    }
                    let known = decided_by(st.phi.iter_recent_first(), &guard);
                    if known == Some(false) {
                        continue;
                    }
                    let mut s2 = st.clone();
                    if !guard.is_true() {
                        s2.phi.push(guard);
                        // a guard Φ already states leaves Φ as feasible as it was
                        let implied = first_refuted && !st.unchecked;
                        if known.is_none() && !implied {
                            if !feasible(sem, solver, &s2)? {
                                first_refuted = true;
                                continue;
                            }
                            s2.unchecked = false;
                        }
                    }
                    s2.control = Control::Eval(branch.clone(), env.clone());
                    out.push(s2);
                }
                Ok(Step::Continue(out))
            }
            Comp::Choice(xs) => Ok(Step::Continue(
                xs.iter()
                    .map(|x| {
                        let mut s2 = st.clone();
                        s2.control = Control::Eval(x.clone(), env.clone());
                        s2
                    })
                    .collect(),
            )),
            Comp::Fresh(sort) => {
                let base = st
                    .stack
                    .last()
                    .map(|f| f.var.to_string())
                    .unwrap_or_else(|| "x".into());
                let name = names.fresh(&base);
                let t = if *sort == Sort::Unit {
                    Term::Unit
                } else {
                    Term::var(&name, sort.clone())
                };
                st.control = Control::Return(Value::Term(t));
                Ok(Step::Continue(vec![st]))
            }
            Comp::Assume(phi) => {
                let phi = lookup_term(&env, phi)?;
                if phi.is_false() {
                    return Ok(Step::Continue(Vec::new()));
                }
                if !phi.is_true() {
                    let known = decided_by(st.phi.iter_recent_first(), &phi);
                    if known == Some(false) {
                        return Ok(Step::Continue(Vec::new()));
                    }
                    // Φ already states it, or it only defines a variable nothing else mentions:
                    // Φ stays as feasible as it was
                    let unchanged = known == Some(true) || {
                        let mut context = st.phi.to_vec();
                        context.extend(sem.constraints(&st.effects));
                        defines_fresh(&phi, &context)
                    };
                    st.phi.push(phi);
                    if !unchanged {
                        if !feasible(sem, solver, &st)? {
                            return Ok(Step::Continue(Vec::new()));
                        }
                        st.unchecked = false;
                    }
                }
                st.control = Control::Return(Value::Term(Term::Unit));
                Ok(Step::Continue(vec![st]))
            }
            Comp::Admit(r) => {
                let r = subst_sre(&env, r);
                st.control = Control::Return(Value::Term(Term::Unit));
                sem.admit(solver, st, r)
            }
            Comp::Append(r) | Comp::AppendContext(r) => {
                let r = subst_sre(&env, r);
                st.control = Control::Return(Value::Term(Term::Unit));
                if matches!(&*comp, Comp::AppendContext(_)) {
                    let map = env_map(&env);
                    sem.append(solver, st, r, Some(&map))
                } else {
                    sem.append(solver, st, r, None)
                }
            }
        },
    }
}

/// Whether Φ decides `guard` syntactically: `Some(true)` when `guard` is one of its
/// conjuncts, `Some(false)` when the negation of `guard` is, `None` otherwise (the solver must
/// be asked).
pub(crate) fn decided_by<'a>(
    phi: impl IntoIterator<Item = &'a Term>,
    guard: &Term,
) -> Option<bool> {
    let negated = Term::negation(guard.clone());
    for p in phi {
        if p == guard {
            return Some(true);
        }
        if *p == negated {
            return Some(false);
        }
    }
    None
}

/// `a` is `x`, `¬x`, `x = t` or `t = x` for a variable `x` that occurs neither in `t` nor in
/// `context`: any model of `context` extends to one of `a` (every sort has a value), so adding
/// `a` cannot make a satisfiable context unsatisfiable.
pub(crate) fn defines_fresh(a: &Term, context: &[Term]) -> bool {
    let unmentioned = |x: &Rc<str>| !context.iter().any(|t| t.free_vars().contains_key(x));
    match a {
        Term::Var(x, Sort::Bool) => unmentioned(x),
        Term::Not(inner) => matches!(&**inner, Term::Var(x, Sort::Bool) if unmentioned(x)),
        Term::Eq(l, r) => [(l, r), (r, l)].into_iter().any(|(side, other)| {
            matches!(&**side, Term::Var(x, _)
                if !other.free_vars().contains_key(x) && unmentioned(x))
        }),
        _ => false,
    }
}

/// Φ together with the constraints of the effects is not known to be unsatisfiable.
pub fn feasible<S: EffectSemantics>(
    sem: &S,
    solver: &mut Solver,
    st: &State<S::Effects>,
) -> Result<bool, ExecError> {
    let mut all = st.phi.to_vec();
    all.extend(sem.constraints(&st.effects));
    // the conjuncts their own variables always satisfy (the events appended by library calls
    // that no `admit` refined) change no answer and are left out of the query
    let all = crate::own_variables::without_self_satisfied(all);
    Ok(solver.maybe_sat(&all)?)
}

/// The state finished: its value and an empty stack.
pub fn finished<T: Clone>(st: &State<T>) -> Option<&Value> {
    match (&st.control, st.stack.is_empty()) {
        (Control::Return(v), true) => Some(v),
        _ => None,
    }
}

/// Conjunction of the constraints of a symbolic trace (Section 6), locals renamed per position.
pub(crate) fn trace_constraint(trace: &[sre::Event]) -> Vec<Term> {
    trace
        .iter()
        .enumerate()
        .map(|(i, e)| sre::event_formula(e, &format!("e{i}:")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::CmpOp;

    #[test]
    fn a_guard_among_the_conjuncts_of_phi_is_decided_without_the_solver() {
        let v = Term::var("v_3", Sort::Bool);
        let w = Term::var("w_4", Sort::Bool);
        let phi = vec![w.clone(), Term::negation(v.clone())];
        // ¬v_3 is a conjunct: the guard ¬v_3 holds, the guard v_3 cannot
        assert_eq!(decided_by(&phi, &Term::negation(v.clone())), Some(true));
        assert_eq!(decided_by(&phi, &v), Some(false));
        assert_eq!(decided_by(&phi, &w), Some(true));
        assert_eq!(decided_by(&phi, &Term::negation(w.clone())), Some(false));
        // anything else goes to the solver, even when Φ implies it
        let x = Term::var("x_1", Sort::Int);
        let phi = vec![Term::eq(x.clone(), Term::Int(1))];
        assert_eq!(decided_by(&phi, &Term::eq(x, Term::Int(2))), None);
        assert_eq!(decided_by(&[], &v), None);
    }

    /// Effects that add nothing: the path condition alone decides feasibility.
    struct NoEffects;

    impl EffectSemantics for NoEffects {
        type Effects = ();
        fn admit(&mut self, _: &mut Solver, st: State<()>, _: Sre) -> Result<Step<()>, ExecError> {
            Ok(Step::Continue(vec![st]))
        }
        fn append(
            &mut self,
            _: &mut Solver,
            st: State<()>,
            _: Sre,
            _: Option<&BTreeMap<Rc<str>, Term>>,
        ) -> Result<Step<()>, ExecError> {
            Ok(Step::Continue(vec![st]))
        }
        fn constraints(&self, _: &()) -> Vec<Term> {
            Vec::new()
        }
        fn finish(
            &mut self,
            _: &mut Solver,
            _: &State<()>,
            _: &Term,
        ) -> Result<Option<Violation>, ExecError> {
            Ok(None)
        }
    }

    /// The branches an `if c then 1 else 2` leaves a state with Φ = `phi` in: the results of
    /// the states, and the Z3 checks it took.
    fn branches(phi: &[Term], c: Term) -> (Vec<i64>, u64) {
        branches_of(phi, c, false)
    }

    /// [`branches`] of a state checked or not.
    fn branches_of(phi: &[Term], c: Term, unchecked: bool) -> (Vec<i64>, u64) {
        let mut path = PathCondition::new();
        for t in phi {
            path.push(t.clone());
        }
        let st = State {
            phi: path,
            effects: (),
            control: Control::Eval(
                Rc::new(Comp::If(
                    c,
                    Rc::new(Comp::Ret(Term::Int(1))),
                    Rc::new(Comp::Ret(Term::Int(2))),
                )),
                Rc::new(HashMap::new()),
            ),
            stack: Vec::new(),
            calls: 0,
            unchecked,
            entries: None,
        };
        let mut solver = Solver::new(5000);
        let Ok(Step::Continue(next)) = step(
            &mut NoEffects,
            &mut solver,
            &mut NameSupply::default(),
            20,
            st,
        ) else {
            panic!("an `if` continues");
        };
        let results = next
            .into_iter()
            .map(|mut s| {
                let Ok(Step::Continue(mut done)) = step(
                    &mut NoEffects,
                    &mut solver,
                    &mut NameSupply::default(),
                    20,
                    s.clone(),
                ) else {
                    panic!("a branch returns");
                };
                s = done.remove(0);
                match s.control {
                    Control::Return(Value::Term(Term::Int(i))) => i,
                    other => panic!("not a result: {other:?}"),
                }
            })
            .collect();
        (results, solver.stats().queries)
    }

    #[test]
    fn a_guard_refuted_by_the_solver_leaves_the_other_branch_without_a_query() {
        let x = Term::var("x_1", Sort::Int);
        let x_is = |i: i64| Term::eq(x.clone(), Term::Int(i));
        // Φ says x = 1: the guard x = 2 contradicts it (one check), so Φ implies x ≠ 2
        assert_eq!(branches(&[x_is(1)], x_is(2)), (vec![2], 1));
        // the guard x ≥ 0 holds under Φ: the else branch still needs its own check
        let nonnegative = Term::Cmp(CmpOp::Ge, x.clone().into(), Term::Int(0).into());
        assert_eq!(branches(&[x_is(1)], nonnegative), (vec![1], 2));
        // neither decided: both branches, two checks
        assert_eq!(branches(&[], x_is(2)), (vec![1, 2], 2));
        // a state whose check was deferred may be infeasible (here x = 1 ∧ x = 2): the first
        // guard refuted says nothing of the second, which is checked too, and refuted
        assert_eq!(branches_of(&[x_is(1), x_is(2)], x_is(3), true), (vec![], 2));
        assert_eq!(branches_of(&[x_is(1)], x_is(2), true), (vec![2], 2));
    }

    #[test]
    fn a_conjunct_its_own_variables_satisfy_is_left_out_of_the_feasibility_query() {
        let e = |n: &str| Term::var(n, Sort::Named("Elem.t".into()));
        let state = |phi: &[Term]| {
            let mut path = PathCondition::new();
            for t in phi {
                path.push(t.clone());
            }
            State {
                phi: path,
                effects: (),
                control: Control::Return(Value::Term(Term::Unit)),
                stack: Vec::new(),
                calls: 0,
                unchecked: true,
                entries: None,
            }
        };
        let apart = Term::negation(Term::eq(e("x_1"), e("c_2")));
        let mut solver = Solver::new(5000);
        assert!(feasible(
            &NoEffects,
            &mut solver,
            &state(std::slice::from_ref(&apart))
        )
        .unwrap());
        // y_3 = x_1 only defines y_3, which nothing else mentions: the same query, answered by
        // the solver's cache
        let defined = [apart.clone(), Term::eq(e("y_3"), e("x_1"))];
        assert!(feasible(&NoEffects, &mut solver, &state(&defined)).unwrap());
        assert_eq!(solver.stats().queries, 1);
        // once y_3 is compared with c_2 as well, the definition matters: a new query, unsatisfiable
        let contradicting = [
            apart,
            Term::eq(e("y_3"), e("x_1")),
            Term::eq(e("y_3"), e("c_2")),
        ];
        assert!(!feasible(&NoEffects, &mut solver, &state(&contradicting)).unwrap());
        assert_eq!(solver.stats().queries, 2);
    }

    #[test]
    fn only_a_definition_of_an_unmentioned_variable_is_taken_as_feasible() {
        let e = |n: &str| Term::var(n, Sort::Named("Elem.t".into()));
        let b = |n: &str| Term::var(n, Sort::Bool);
        let context = vec![Term::eq(e("x_1"), e("y_2")), b("w_3")];
        assert!(defines_fresh(&Term::eq(e("v_4"), e("x_1")), &context));
        assert!(defines_fresh(&Term::eq(e("x_1"), e("v_4")), &context));
        assert!(defines_fresh(&b("v_4"), &context));
        assert!(defines_fresh(&Term::negation(b("v_4")), &context));
        // the variable is constrained already: ¬w_3 contradicts the context
        assert!(!defines_fresh(&Term::negation(b("w_3")), &context));
        // both sides are mentioned: x_1 = v_4 may contradict x_1 ≠ y_2 ∧ v_4 = y_2
        assert!(!defines_fresh(
            &Term::eq(e("x_1"), e("v_4")),
            &[
                Term::negation(Term::eq(e("x_1"), e("y_2"))),
                Term::eq(e("v_4"), e("y_2"))
            ]
        ));
        // x = x is no definition of x; nor is an equation between two terms
        assert!(!defines_fresh(&Term::eq(e("v_4"), e("v_4")), &[]));
        let f = |t: Term| Term::app("f", vec![t], Sort::Named("Elem.t".into()));
        assert!(!defines_fresh(&Term::eq(f(e("v_4")), f(e("x_1"))), &[]));
        // but a variable equal to a term without it is defined by the equation
        assert!(defines_fresh(&Term::eq(f(e("v_4")), e("x_1")), &[]));
    }
}
