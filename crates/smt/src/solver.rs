//! The derivative-guided engine's solver: a [`Solver`] is a chain of layers (see
//! [`crate::layer`]): a bounded cache of answers, then a [`Z3Layer`] on the thread's Z3
//! context that encodes [`Term`]s, answers satisfiability and validity queries with a
//! per-query timeout, and extracts models as readable values. Incremental scopes
//! (`push`/`pop`) are kept as terms and joined to each query.
//! Background axioms (quantified facts about uninterpreted functions) are registered once and
//! added to exactly those queries that mention one of their functions.

use crate::context::ContextHandle;
use crate::layer::{Chain, QueryCache, SolverLayer, Verdict};
use crate::term::{ArithOp, CmpOp, Sort, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic, Int};

/// Errors raised while encoding a term.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum SmtError {
    #[error("ill-sorted term: {0}")]
    IllSorted(String),
}

/// The answer to a satisfiability query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SatOutcome {
    Sat,
    Unsat,
    Unknown,
}

/// Values of the free variables of a satisfiable query, printed by Z3.
pub type Model = BTreeMap<String, String>;

/// Counters, for reports.
#[derive(Debug, Default, Clone, Copy)]
pub struct SolverStats {
    pub queries: u64,
    pub cache_hits: u64,
}

/// Bounds of the query cache: two generations of this many queries (a 60-second run asks
/// about 400,000; an entry is a fingerprint and an answer, about 40 bytes).
const CACHE_GENERATION: usize = 500_000;
/// Z3 checks between two renewals of the Z3 solver, whose state grows across push/pop.
const SOLVER_RENEWAL: u64 = 20_000;

/// The derivative-guided engine's solver chain: constant queries are decided on the spot, then
/// a `QueryCache` of answers, then a `Z3Layer` on the thread's Z3 context. Background
/// axioms and incremental scopes are kept here, as terms, and joined to each query.
pub struct Solver {
    scopes: Vec<Vec<Term>>,
    chain: Chain<QueryCache<SmtError>, Z3Layer>,
}

/// The last layer: one Z3 solver with a per-query timeout, each query asserted inside a
/// push/pop scope.
pub(crate) struct Z3Layer {
    solver: z3::Solver<'static>,
    timeout_ms: u32,
    sorts: HashMap<String, z3::Sort<'static>>,
    checks: u64,
    /// Background axioms, each with the functions it speaks about.
    axioms: Vec<(BTreeSet<Rc<str>>, Term)>,
    /// Keeps the context alive; declared last so the Z3 objects above go first.
    context: ContextHandle,
}

impl Solver {
    /// A fresh solver whose queries give up after `timeout_ms` milliseconds.
    pub fn new(timeout_ms: u32) -> Solver {
        Solver {
            scopes: vec![Vec::new()],
            chain: Chain {
                first: QueryCache::new(CACHE_GENERATION),
                then: Z3Layer::new(timeout_ms),
            },
        }
    }

    pub fn stats(&self) -> SolverStats {
        SolverStats {
            queries: self.chain.then.checks,
            cache_hits: self.chain.first.hits,
        }
    }

    /// Registers a background axiom; it joins every query mentioning one of its functions.
    pub fn add_axiom(&mut self, axiom: Term) {
        let mut fs = BTreeSet::new();
        axiom.functions(&mut fs);
        self.chain.then.axioms.push((fs, axiom));
        self.chain.first.clear();
    }

    fn run(
        &mut self,
        formulas: &[Term],
        want_model: bool,
    ) -> Result<(SatOutcome, Option<Model>), SmtError> {
        let mut all: Vec<Term> = self.scopes.iter().flatten().cloned().collect();
        all.extend(formulas.iter().cloned());
        if all.iter().any(Term::is_false) {
            return Ok((SatOutcome::Unsat, None));
        }
        all.retain(|t| !t.is_true());
        if want_model {
            let (verdict, model) = self.chain.then.check_with_model(&all)?;
            self.chain.first.learn(&all, &verdict);
            return Ok((SatOutcome::from(&verdict), model));
        }
        let verdict = self.chain.decide(&all)?.unwrap_or(Verdict::Unknown);
        Ok((SatOutcome::from(&verdict), None))
    }

    /// Satisfiability of the conjunction of `formulas` (and of the assertions of the open scopes).
    pub fn check(&mut self, formulas: &[Term]) -> Result<SatOutcome, SmtError> {
        Ok(self.run(formulas, false)?.0)
    }

    /// Satisfiability with a model of the free variables when satisfiable.
    pub fn check_with_model(
        &mut self,
        formulas: &[Term],
    ) -> Result<(SatOutcome, Option<Model>), SmtError> {
        self.run(formulas, true)
    }

    /// True when the conjunction is certainly satisfiable or the solver could not decide
    /// (callers that prune use this, so an unknown answer keeps a path alive).
    pub fn maybe_sat(&mut self, formulas: &[Term]) -> Result<bool, SmtError> {
        Ok(self.check(formulas)? != SatOutcome::Unsat)
    }

    /// Opens an incremental scope.
    pub fn push(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Adds an assertion to the innermost scope.
    pub fn assert(&mut self, formula: Term) {
        if let Some(s) = self.scopes.last_mut() {
            s.push(formula);
        }
    }

    /// Closes the innermost scope (the outermost one is never closed).
    pub fn pop(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }
}

impl From<&Verdict<()>> for SatOutcome {
    fn from(v: &Verdict<()>) -> SatOutcome {
        match v {
            Verdict::Sat(()) => SatOutcome::Sat,
            Verdict::Unsat => SatOutcome::Unsat,
            Verdict::Unknown => SatOutcome::Unknown,
        }
    }
}

impl Z3Layer {
    fn new(timeout_ms: u32) -> Z3Layer {
        let context = ContextHandle::of_thread();
        Z3Layer {
            solver: Self::fresh_solver(&context, timeout_ms),
            timeout_ms,
            sorts: HashMap::new(),
            checks: 0,
            axioms: Vec::new(),
            context,
        }
    }

    fn relevant_axioms(&self, formulas: &[Term]) -> Vec<Term> {
        if self.axioms.is_empty() {
            return Vec::new();
        }
        let mut fs = BTreeSet::new();
        for f in formulas {
            f.functions(&mut fs);
        }
        self.axioms
            .iter()
            .filter(|(afs, _)| afs.iter().any(|f| fs.contains(f)))
            .map(|(_, a)| a.clone())
            .collect()
    }

    fn fresh_solver(context: &ContextHandle, timeout_ms: u32) -> z3::Solver<'static> {
        let solver = z3::Solver::new(context.get());
        let mut params = z3::Params::new(context.get());
        params.set_u32("timeout", timeout_ms);
        // Ctrl-C is the binary's to handle, not Z3's (see `catala::z3_base`).
        params.set_bool("ctrl_c", false);
        solver.set_params(&params);
        solver
    }

    /// Checks the conjunction of `all` and the axioms set for it; with a model of the free
    /// variables of `all` when satisfiable.
    fn check_with_model(&mut self, all: &[Term]) -> Result<(Verdict<()>, Option<Model>), SmtError> {
        self.check(all, true)
    }

    fn check(
        &mut self,
        all: &[Term],
        want_model: bool,
    ) -> Result<(Verdict<()>, Option<Model>), SmtError> {
        self.checks += 1;
        if self.checks.is_multiple_of(SOLVER_RENEWAL) {
            // every query is asserted in its own scope, so a fresh solver answers the same
            self.solver = Self::fresh_solver(&self.context, self.timeout_ms);
        }
        self.solver.push();
        let empty = HashMap::new();
        let axioms = self.relevant_axioms(all);
        for f in all.iter().chain(&axioms) {
            let b = match self.encode_bool(f, &empty) {
                Ok(b) => b,
                Err(e) => {
                    self.solver.pop(1);
                    return Err(e);
                }
            };
            self.solver.assert(&b);
        }
        let verdict = match self.solver.check() {
            z3::SatResult::Sat => Verdict::Sat(()),
            z3::SatResult::Unsat => Verdict::Unsat,
            z3::SatResult::Unknown => Verdict::Unknown,
        };
        let mut model = None;
        if want_model && verdict == Verdict::Sat(()) {
            if let Some(m) = self.solver.get_model() {
                let mut vars = BTreeMap::new();
                for f in all {
                    vars.extend(f.free_vars());
                }
                let mut out = Model::new();
                for (name, sort) in vars {
                    let c = match self.encode(&Term::Var(name.clone(), sort), &empty) {
                        Ok(c) => c,
                        Err(e) => {
                            self.solver.pop(1);
                            return Err(e);
                        }
                    };
                    if let Some(v) = m.eval(&c, true) {
                        out.insert(name.to_string(), v.to_string());
                    }
                }
                model = Some(out);
            }
        }
        self.solver.pop(1);
        Ok((verdict, model))
    }

    fn sort(&mut self, s: &Sort) -> z3::Sort<'static> {
        match s {
            Sort::Bool => z3::Sort::bool(self.context.get()),
            Sort::Int => z3::Sort::int(self.context.get()),
            Sort::Unit => self.named_sort("unit"),
            Sort::Named(n) => self.named_sort(n),
        }
    }

    fn named_sort(&mut self, n: &str) -> z3::Sort<'static> {
        if let Some(s) = self.sorts.get(n) {
            return s.clone();
        }
        let s = z3::Sort::uninterpreted(self.context.get(), z3::Symbol::String(n.to_string()));
        self.sorts.insert(n.to_string(), s.clone());
        s
    }

    fn encode(
        &mut self,
        t: &Term,
        bound: &HashMap<Rc<str>, Dynamic<'static>>,
    ) -> Result<Dynamic<'static>, SmtError> {
        let ctx = self.context.get();
        Ok(match t {
            Term::Var(n, s) => {
                if let Some(b) = bound.get(n) {
                    return Ok(b.clone());
                }
                let sort = self.sort(s);
                z3::FuncDecl::new(ctx, n.to_string(), &[], &sort).apply(&[])
            }
            Term::Bool(b) => Dynamic::from_ast(&Bool::from_bool(ctx, *b)),
            Term::Int(i) => Dynamic::from_ast(&Int::from_i64(ctx, *i)),
            Term::Unit => {
                let sort = self.sort(&Sort::Unit);
                z3::FuncDecl::new(ctx, "unit_value", &[], &sort).apply(&[])
            }
            Term::Not(a) => Dynamic::from_ast(&self.encode_bool(a, bound)?.not()),
            Term::And(xs) => {
                let parts = xs
                    .iter()
                    .map(|x| self.encode_bool(x, bound))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&Bool> = parts.iter().collect();
                Dynamic::from_ast(&Bool::and(ctx, &refs))
            }
            Term::Or(xs) => {
                let parts = xs
                    .iter()
                    .map(|x| self.encode_bool(x, bound))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&Bool> = parts.iter().collect();
                Dynamic::from_ast(&Bool::or(ctx, &refs))
            }
            Term::Implies(a, b) => {
                let a = self.encode_bool(a, bound)?;
                let b = self.encode_bool(b, bound)?;
                Dynamic::from_ast(&a.implies(&b))
            }
            Term::Iff(a, b) => {
                let a = self.encode_bool(a, bound)?;
                let b = self.encode_bool(b, bound)?;
                Dynamic::from_ast(&a.iff(&b))
            }
            Term::Eq(a, b) => {
                let a = self.encode(a, bound)?;
                let b = self.encode(b, bound)?;
                if a.get_sort() != b.get_sort() {
                    return Err(SmtError::IllSorted(t.to_string()));
                }
                Dynamic::from_ast(&a._eq(&b))
            }
            Term::Cmp(op, a, b) => {
                let a = self.encode_int(a, bound)?;
                let b = self.encode_int(b, bound)?;
                let r = match op {
                    CmpOp::Lt => a.lt(&b),
                    CmpOp::Le => a.le(&b),
                    CmpOp::Gt => a.gt(&b),
                    CmpOp::Ge => a.ge(&b),
                };
                Dynamic::from_ast(&r)
            }
            Term::Arith(op, a, b) => {
                let a = self.encode_int(a, bound)?;
                let b = self.encode_int(b, bound)?;
                let r = match op {
                    ArithOp::Add => Int::add(ctx, &[&a, &b]),
                    ArithOp::Sub => Int::sub(ctx, &[&a, &b]),
                    ArithOp::Mul => Int::mul(ctx, &[&a, &b]),
                    ArithOp::Div => a.div(&b),
                    ArithOp::Mod => a.modulo(&b),
                };
                Dynamic::from_ast(&r)
            }
            Term::App(f, xs, s) => {
                let args = xs
                    .iter()
                    .map(|x| self.encode(x, bound))
                    .collect::<Result<Vec<_>, _>>()?;
                let arg_sorts: Vec<z3::Sort> = args.iter().map(|a| a.get_sort()).collect();
                let arg_sort_refs: Vec<&z3::Sort> = arg_sorts.iter().collect();
                let ret = self.sort(s);
                let decl = z3::FuncDecl::new(ctx, f.to_string(), &arg_sort_refs, &ret);
                let refs: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
                decl.apply(&refs)
            }
            Term::Forall(vs, body) => {
                let mut inner = bound.clone();
                let mut consts = Vec::new();
                for (v, s) in vs.iter() {
                    let sort = self.sort(s);
                    let c = z3::FuncDecl::new(ctx, format!("{v}!q"), &[], &sort).apply(&[]);
                    inner.insert(v.clone(), c.clone());
                    consts.push(c);
                }
                let body = self.encode_bool(body, &inner)?;
                let refs: Vec<&dyn Ast> = consts.iter().map(|a| a as &dyn Ast).collect();
                Dynamic::from_ast(&z3::ast::forall_const(ctx, &refs, &[], &body))
            }
        })
    }

    fn encode_bool(
        &mut self,
        t: &Term,
        bound: &HashMap<Rc<str>, Dynamic<'static>>,
    ) -> Result<Bool<'static>, SmtError> {
        self.encode(t, bound)?
            .as_bool()
            .ok_or_else(|| SmtError::IllSorted(t.to_string()))
    }

    fn encode_int(
        &mut self,
        t: &Term,
        bound: &HashMap<Rc<str>, Dynamic<'static>>,
    ) -> Result<Int<'static>, SmtError> {
        self.encode(t, bound)?
            .as_int()
            .ok_or_else(|| SmtError::IllSorted(t.to_string()))
    }
}

impl SolverLayer<Vec<Term>> for Z3Layer {
    type Model = ();
    type Error = SmtError;

    fn decide(&mut self, query: &Vec<Term>) -> Result<Option<Verdict<()>>, SmtError> {
        Ok(Some(self.check(query, false)?.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elem(n: &str) -> Term {
        Term::var(n, Sort::Named("Elem.t".into()))
    }

    #[test]
    fn decides_equalities_over_uninterpreted_sorts() {
        let mut s = Solver::new(2000);
        let a = elem("a");
        let b = elem("b");
        let c = elem("c");
        let f = [
            Term::eq(a.clone(), b.clone()),
            Term::eq(b.clone(), c.clone()),
            Term::negation(Term::eq(a.clone(), c.clone())),
        ];
        assert_eq!(s.check(&f).unwrap(), SatOutcome::Unsat);
        assert_eq!(s.check(&f[..2]).unwrap(), SatOutcome::Sat);
    }

    #[test]
    fn axioms_join_queries_that_mention_their_functions() {
        let mut s = Solver::new(2000);
        let lt = |x: Term, y: Term| Term::app("elem_lt", vec![x, y], Sort::Bool);
        let a = elem("a");
        let irreflexive = Term::Forall(
            vec![(Rc::from("x"), Sort::Named("Elem.t".into()))].into(),
            Rc::new(Term::negation(lt(elem("x"), elem("x")))),
        );
        assert_eq!(
            s.check(&[lt(a.clone(), a.clone())]).unwrap(),
            SatOutcome::Sat
        );
        s.add_axiom(irreflexive);
        assert_eq!(
            s.check(&[lt(a.clone(), a.clone())]).unwrap(),
            SatOutcome::Unsat
        );
    }

    #[test]
    fn models_give_values_to_free_variables() {
        let mut s = Solver::new(2000);
        let x = Term::var("x", Sort::Int);
        let (r, m) = s
            .check_with_model(&[Term::eq(x.clone(), Term::Int(3))])
            .unwrap();
        assert_eq!(r, SatOutcome::Sat);
        assert_eq!(m.unwrap().get("x").map(String::as_str), Some("3"));
    }

    #[test]
    fn sessions_push_and_pop_assertions() {
        let mut s = Solver::new(2000);
        let x = Term::var("x", Sort::Int);
        s.push();
        s.assert(Term::cmp(CmpOp::Gt, x.clone(), Term::Int(5)));
        assert_eq!(
            s.check(&[Term::cmp(CmpOp::Lt, x.clone(), Term::Int(2))])
                .unwrap(),
            SatOutcome::Unsat
        );
        s.pop();
        assert_eq!(
            s.check(&[Term::cmp(CmpOp::Lt, x.clone(), Term::Int(2))])
                .unwrap(),
            SatOutcome::Sat
        );
    }
}
