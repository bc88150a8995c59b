//! The Z3 layer: a [`Solver`] owns one Z3 context for its whole life, encodes [`Term`]s,
//! answers satisfiability and validity queries (with a result cache and a per-query timeout),
//! supports incremental scopes with `push`/`pop`, and extracts models as readable values.
//! Background axioms (quantified facts about uninterpreted functions) are registered once and
//! added to exactly those queries that mention one of their functions.

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

/// A solver owning a Z3 context, with caching and axioms.
pub struct Solver {
    ctx: &'static z3::Context,
    solver: z3::Solver<'static>,
    sorts: HashMap<String, z3::Sort<'static>>,
    axioms: Vec<(BTreeSet<Rc<str>>, Term)>,
    cache: HashMap<Vec<Term>, SatOutcome>,
    scopes: Vec<Vec<Term>>,
    stats: SolverStats,
}

impl Solver {
    /// A fresh solver whose queries give up after `timeout_ms` milliseconds.
    pub fn new(timeout_ms: u32) -> Solver {
        let cfg = z3::Config::new();
        // One context per solver for the whole life of the program: the engine creates a handful.
        let ctx: &'static z3::Context = Box::leak(Box::new(z3::Context::new(&cfg)));
        let solver = z3::Solver::new(ctx);
        let mut params = z3::Params::new(ctx);
        params.set_u32("timeout", timeout_ms);
        solver.set_params(&params);
        Solver {
            ctx,
            solver,
            sorts: HashMap::new(),
            axioms: Vec::new(),
            cache: HashMap::new(),
            scopes: vec![Vec::new()],
            stats: SolverStats::default(),
        }
    }

    pub fn stats(&self) -> SolverStats {
        self.stats
    }

    /// Registers a background axiom; it joins every query mentioning one of its functions.
    pub fn add_axiom(&mut self, axiom: Term) {
        let mut fs = BTreeSet::new();
        axiom.functions(&mut fs);
        self.axioms.push((fs, axiom));
        self.cache.clear();
    }

    fn sort(&mut self, s: &Sort) -> z3::Sort<'static> {
        match s {
            Sort::Bool => z3::Sort::bool(self.ctx),
            Sort::Int => z3::Sort::int(self.ctx),
            Sort::Unit => self.named_sort("unit"),
            Sort::Named(n) => self.named_sort(n),
        }
    }

    fn named_sort(&mut self, n: &str) -> z3::Sort<'static> {
        if let Some(s) = self.sorts.get(n) {
            return s.clone();
        }
        let s = z3::Sort::uninterpreted(self.ctx, z3::Symbol::String(n.to_string()));
        self.sorts.insert(n.to_string(), s.clone());
        s
    }

    fn encode(
        &mut self,
        t: &Term,
        bound: &HashMap<Rc<str>, Dynamic<'static>>,
    ) -> Result<Dynamic<'static>, SmtError> {
        let ctx = self.ctx;
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
        if !want_model {
            if let Some(r) = self.cache.get(&all) {
                self.stats.cache_hits += 1;
                return Ok((r.clone(), None));
            }
        }
        self.stats.queries += 1;
        let mut with_axioms = all.clone();
        with_axioms.extend(self.relevant_axioms(&all));
        self.solver.push();
        let empty = HashMap::new();
        for f in &with_axioms {
            let b = match self.encode_bool(f, &empty) {
                Ok(b) => b,
                Err(e) => {
                    self.solver.pop(1);
                    return Err(e);
                }
            };
            self.solver.assert(&b);
        }
        let outcome = match self.solver.check() {
            z3::SatResult::Sat => SatOutcome::Sat,
            z3::SatResult::Unsat => SatOutcome::Unsat,
            z3::SatResult::Unknown => SatOutcome::Unknown,
        };
        let mut model = None;
        if want_model && outcome == SatOutcome::Sat {
            if let Some(m) = self.solver.get_model() {
                let mut vars = BTreeMap::new();
                for f in &all {
                    vars.extend(f.free_vars());
                }
                let mut out = Model::new();
                for (name, sort) in vars {
                    let c = self.encode(&Term::Var(name.clone(), sort), &empty)?;
                    if let Some(v) = m.eval(&c, true) {
                        out.insert(name.to_string(), v.to_string());
                    }
                }
                model = Some(out);
            }
        }
        self.solver.pop(1);
        self.cache.insert(all, outcome.clone());
        Ok((outcome, model))
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

    /// Validity of `formula` under the open scopes: its negation is unsatisfiable.
    pub fn is_valid(&mut self, formula: &Term) -> Result<bool, SmtError> {
        Ok(self.check(&[Term::negation(formula.clone())])? == SatOutcome::Unsat)
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

    /// Simplifies a formula with Z3 and prints the result.
    pub fn simplify_to_string(&mut self, formula: &Term) -> Result<String, SmtError> {
        let b = self.encode(formula, &HashMap::new())?;
        Ok(b.simplify().to_string())
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
