//! The core language of Fig. 4 (monadic normal form) and the translation of a method and its
//! specifications into it. Values are `smt` terms over program variables; computations bind
//! them with `let`. Symbolic constructs: `?τ` ([`Comp::Fresh`]), `assume`, `admit R`,
//! `append R`, nondeterministic choice, and `if` (sugar for a choice between two `assume`s).
//! Library calls are translated as in Example 4.5: for each alternative of the callee's
//! specification, fresh ghosts and result, `assume` of the result refinement, `admit` of the
//! required context and `append` of the effect. [`Harness`] is Example 4.4: fresh arguments and
//! ghosts, the required context, the call, and the property affirmed at the end.

use crate::front::{sort_of_ty, FrontError, FunSpec, Library, Method, ParamKind, Scope};
use crate::input::InputFile;
use crate::syntax::{Expr, ExprKind, Param, Ty};
use diagnostics::Span;
use smt::{Sort, Term};
use sre::Sre;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A computation in monadic normal form.
#[derive(Clone, Debug)]
pub enum Comp {
    Ret(Term),
    Let(Rc<str>, Rc<Comp>, Rc<Comp>),
    /// Application of a function bound to a program variable.
    Call(Rc<str>, Vec<Term>),
    If(Term, Rc<Comp>, Rc<Comp>),
    Choice(Vec<Rc<Comp>>),
    Fresh(Sort),
    Assume(Term),
    Admit(Sre),
    Append(Sre),
    /// Appends the required context of the method under test (the first `append` of the
    /// harness); the derivative executor may start the continuation effect after it.
    AppendContext(Sre),
    /// A (recursive) function definition in scope of the rest.
    LetFun(Rc<FunDef>, Rc<Comp>),
}

/// A user function.
#[derive(Clone, Debug)]
pub struct FunDef {
    pub name: Rc<str>,
    pub params: Vec<Rc<str>>,
    pub body: Rc<Comp>,
}

fn show(c: &Comp, f: &mut fmt::Formatter<'_>, indent: usize) -> fmt::Result {
    let pad = " ".repeat(indent);
    match c {
        Comp::Ret(t) => write!(f, "{t}"),
        Comp::Let(x, a, b) => {
            write!(f, "let {x} = ")?;
            show(a, f, indent + 2)?;
            write!(f, " in\n{pad}")?;
            show(b, f, indent)
        }
        Comp::Call(g, args) => {
            write!(f, "{g}")?;
            for a in args {
                write!(f, " ({a})")?;
            }
            Ok(())
        }
        Comp::If(cnd, a, b) => {
            write!(f, "if {cnd} then (\n{pad}  ")?;
            show(a, f, indent + 2)?;
            write!(f, ")\n{pad}else (\n{pad}  ")?;
            show(b, f, indent + 2)?;
            write!(f, ")")
        }
        Comp::Choice(xs) => {
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    write!(f, "\n{pad}⊗ ")?;
                }
                write!(f, "(")?;
                show(x, f, indent + 2)?;
                write!(f, ")")?;
            }
            Ok(())
        }
        Comp::Fresh(s) => write!(f, "?{s}"),
        Comp::Assume(t) => write!(f, "assume {t}"),
        Comp::Admit(r) => write!(f, "admit {r}"),
        Comp::Append(r) | Comp::AppendContext(r) => write!(f, "append {r}"),
        Comp::LetFun(d, rest) => {
            write!(f, "let rec {} {} =\n{pad}  ", d.name, d.params.join(" "))?;
            show(&d.body, f, indent + 2)?;
            write!(f, " in\n{pad}")?;
            show(rest, f, indent)
        }
    }
}

impl fmt::Display for Comp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(self, f, 0)
    }
}

/// Sorts and kinds of program variables during translation.
#[derive(Clone, Debug)]
enum VarKind {
    Value(Sort),
    /// A user function with its result sort.
    Function(Sort),
    /// A function argument specified by a HAT.
    Specified(Rc<FunSpec>),
}

/// The harness of Example 4.4, ready for execution.
#[derive(Clone, Debug)]
pub struct Harness {
    /// Binds arguments and ghosts, assumes argument refinements, then calls the method.
    pub setup: Vec<(Rc<str>, Comp)>,
    /// The required context (`pre`) of the method, over program variables of `setup`.
    pub pre: Sre,
    /// The property affirmed at the end (`post`), describing the whole trace.
    pub post: Sre,
    /// `post` as `pre; rest` when written so: the continuation effect then starts at `rest`.
    pub post_after_pre: Option<Sre>,
    /// The result refinement (over [`RESULT_VAR`]).
    pub result: Term,
    /// The call of the method.
    pub body: Comp,
    /// The user functions to bind before `body`.
    pub functions: Vec<Rc<FunDef>>,
    /// Library specifications used to check that a sampled prestate is constructible.
    pub replay: HashMap<String, Vec<ReplayAlt>>,
}

/// One alternative of a library specification, over its parameter and ghost names, for
/// replaying a prestate: the events before a call must be in `pre`, the call in `effect`.
#[derive(Clone, Debug)]
pub struct ReplayAlt {
    pub params: Vec<(String, Sort)>,
    pub ghosts: Vec<(String, Sort)>,
    pub pre: Sre,
    pub effect: sre::Event,
}

/// The replay table of a library: effectful functions whose specifications append one event.
pub(crate) fn replay_table(lib: &Library) -> Result<HashMap<String, Vec<ReplayAlt>>, FrontError> {
    let mut out = HashMap::new();
    for (name, spec) in &lib.lib_specs {
        if !lib.ops.contains_key(name) {
            continue;
        }
        let mut scope = Scope::default();
        let mut params = Vec::new();
        for p in &spec.params {
            if let ParamKind::Value { sort, .. } = &p.kind {
                scope = scope.with(&p.name, Term::var(&p.name, sort.clone()));
                params.push((p.name.clone(), sort.clone()));
            }
        }
        let ghosts = spec.ghosts.clone();
        for (g, sort) in &ghosts {
            scope = scope.with(g, Term::var(g, sort.clone()));
        }
        let mut alts = Vec::new();
        for t in &spec.alternatives {
            if !t.newadding {
                continue;
            }
            let eff = lib.sre(&spec.file, &t.post, &scope)?;
            let sre::Node::Lit(effect) = eff.node() else {
                continue;
            };
            let pre = lib.sre(&spec.file, &t.pre, &scope)?;
            alts.push(ReplayAlt {
                params: params.clone(),
                ghosts: ghosts.clone(),
                pre,
                effect: effect.clone(),
            });
        }
        out.insert(name.clone(), alts);
    }
    Ok(out)
}

impl Harness {
    /// The whole harness as one computation: set-up, `append pre`, the call.
    pub fn program(&self) -> Comp {
        let mut c = Comp::Let(
            Rc::from("_ctx"),
            Rc::new(Comp::AppendContext(self.pre.clone())),
            Rc::new(self.body.clone()),
        );
        for (x, s) in self.setup.iter().rev() {
            c = Comp::Let(x.clone(), Rc::new(s.clone()), Rc::new(c));
        }
        for d in self.functions.iter().rev() {
            c = Comp::LetFun(d.clone(), Rc::new(c));
        }
        c
    }
}

/// The program variable that holds the method's result in [`Harness::result`].
pub(crate) const RESULT_VAR: &str = "result";

struct Translator<'a> {
    lib: &'a Library,
    method: &'a Method,
    file: InputFile,
    vars: HashMap<String, VarKind>,
    counter: usize,
    /// The harness's ghosts and arguments, visible in specifications of function arguments.
    outer: Scope,
}

impl<'a> Translator<'a> {
    fn err(&self, pos: Span, m: impl Into<String>) -> FrontError {
        self.file.error(pos, m)
    }

    fn fresh(&mut self, base: &str) -> Rc<str> {
        self.counter += 1;
        Rc::from(format!("{base}#{}", self.counter))
    }

    /// Translates `e` to an atom, pushing the bindings it needs.
    fn atom(&mut self, e: &Expr, binds: &mut Vec<(Rc<str>, Comp)>) -> Result<Term, FrontError> {
        match &e.kind {
            ExprKind::Var(x) => match self.vars.get(x) {
                Some(VarKind::Value(s)) => Ok(Term::var(x, s.clone())),
                Some(_) => Err(self.err(e.pos, format!("function `{x}` used as a value"))),
                None if self.lib.pure_specs.contains_key(x)
                    || self.lib.lib_specs.contains_key(x) =>
                {
                    // a constant-like built-in applied to nothing
                    self.call(e.pos, x, &[], binds)
                }
                None => Err(self.err(e.pos, format!("unbound variable `{x}`"))),
            },
            ExprKind::Constr(c, None) if c == "true" => Ok(Term::tt()),
            ExprKind::Constr(c, None) if c == "false" => Ok(Term::ff()),
            ExprKind::Int(n) => Ok(Term::Int(*n)),
            ExprKind::Unit => Ok(Term::Unit),
            ExprKind::Constraint(inner, _) => self.atom(inner, binds),
            _ => {
                let c = self.comp(e)?;
                let sort = self.sort_of(&c);
                let x = self.fresh("x");
                binds.push((x.clone(), c));
                self.vars
                    .insert(x.to_string(), VarKind::Value(sort.clone()));
                Ok(Term::var(&x, sort))
            }
        }
    }

    fn sort_of(&self, c: &Comp) -> Sort {
        match c {
            Comp::Ret(t) => t.sort(),
            Comp::Let(_, _, b) => self.sort_of(b),
            Comp::LetFun(_, b) => self.sort_of(b),
            Comp::Call(f, _) => match self.vars.get(&**f) {
                Some(VarKind::Function(s)) => s.clone(),
                Some(VarKind::Specified(spec)) => spec
                    .alternatives
                    .first()
                    .map(|t| t.res_sort.clone())
                    .unwrap_or(Sort::Unit),
                _ => Sort::Unit,
            },
            Comp::If(_, a, _) => self.sort_of(a),
            Comp::Choice(xs) => xs.first().map(|x| self.sort_of(x)).unwrap_or(Sort::Unit),
            Comp::Fresh(s) => s.clone(),
            Comp::Assume(_) | Comp::Admit(_) | Comp::Append(_) | Comp::AppendContext(_) => {
                Sort::Unit
            }
        }
    }

    fn wrap(binds: Vec<(Rc<str>, Comp)>, last: Comp) -> Comp {
        binds
            .into_iter()
            .rev()
            .fold(last, |acc, (x, c)| Comp::Let(x, Rc::new(c), Rc::new(acc)))
    }

    fn comp(&mut self, e: &Expr) -> Result<Comp, FrontError> {
        let mut binds = Vec::new();
        let last = match &e.kind {
            ExprKind::App(f, args) => {
                let ExprKind::Var(name) = &f.kind else {
                    return Err(self.err(e.pos, "only named functions can be applied"));
                };
                let mut ts = Vec::new();
                for a in args {
                    ts.push(self.atom(a, &mut binds)?);
                }
                let t = self.call(e.pos, name, &ts, &mut binds)?;
                Comp::Ret(t)
            }
            ExprKind::Infix(op, a, b) => {
                let x = self.atom(a, &mut binds)?;
                let y = self.atom(b, &mut binds)?;
                Comp::Ret(self.call(e.pos, op, &[x, y], &mut binds)?)
            }
            ExprKind::Neg(a) => {
                let x = self.atom(a, &mut binds)?;
                Comp::Ret(Term::arith(smt::ArithOp::Sub, Term::Int(0), x))
            }
            ExprKind::If(c, t, f) => {
                let cnd = self.atom(c, &mut binds)?;
                let saved = self.vars.clone();
                let tc = self.comp(t)?;
                self.vars = saved.clone();
                let fc = match f {
                    Some(f) => self.comp(f)?,
                    None => Comp::Ret(Term::Unit),
                };
                self.vars = saved;
                Comp::If(cnd, Rc::new(tc), Rc::new(fc))
            }
            ExprKind::Seq(a, b) => {
                let ca = self.comp(a)?;
                let x = self.fresh("_");
                binds.push((x, ca));
                self.comp(b)?
            }
            ExprKind::Let {
                is_rec,
                name,
                params,
                ret,
                rhs,
                body,
            } => {
                if !params.is_empty() || matches!(rhs.kind, ExprKind::Fun(..)) {
                    let def = self.function(e.pos, *is_rec, name, params, ret.as_ref(), rhs)?;
                    let rest = self.comp(body)?;
                    return Ok(Self::wrap(binds, Comp::LetFun(def, Rc::new(rest))));
                }
                let c = self.comp(rhs)?;
                let sort = match name.ty.as_ref().and_then(sort_of_ty) {
                    Some(s) => s,
                    None => self.sort_of(&c),
                };
                let x: Rc<str> = Rc::from(name.name.as_str());
                binds.push((x.clone(), c));
                self.vars.insert(name.name.clone(), VarKind::Value(sort));
                self.comp(body)?
            }
            ExprKind::Constraint(inner, _) => self.comp(inner)?,
            ExprKind::Var(_) | ExprKind::Constr(_, None) | ExprKind::Int(_) | ExprKind::Unit => {
                Comp::Ret(self.atom(e, &mut binds)?)
            }
            _ => return Err(self.err(e.pos, "unsupported expression in a method body")),
        };
        Ok(Self::wrap(binds, last))
    }

    fn function(
        &mut self,
        pos: Span,
        _is_rec: bool,
        name: &Param,
        params: &[Param],
        ret: Option<&Ty>,
        rhs: &Expr,
    ) -> Result<Rc<FunDef>, FrontError> {
        let (params, body, ret) = match &rhs.kind {
            ExprKind::Fun(ps, b) if params.is_empty() => {
                let ret = match name.ty.as_ref().or(ret) {
                    Some(Ty::Arrow(_, r)) => Some(result_of_arrow(r)),
                    _ => None,
                };
                (ps.clone(), (**b).clone(), ret)
            }
            _ => (params.to_vec(), rhs.clone(), ret.cloned()),
        };
        let ret_sort = ret
            .as_ref()
            .and_then(sort_of_ty)
            .ok_or_else(|| self.err(pos, "a local function needs a result type"))?;
        self.vars
            .insert(name.name.clone(), VarKind::Function(ret_sort));
        let saved = self.vars.clone();
        let mut names = Vec::new();
        for p in &params {
            let sort =
                p.ty.as_ref()
                    .and_then(sort_of_ty)
                    .ok_or_else(|| self.err(p.pos, "a parameter needs a base type"))?;
            self.vars.insert(p.name.clone(), VarKind::Value(sort));
            names.push(Rc::from(p.name.as_str()));
        }
        let body = self.comp(&body)?;
        self.vars = saved;
        Ok(Rc::new(FunDef {
            name: Rc::from(name.name.as_str()),
            params: names,
            body: Rc::new(body),
        }))
    }

    /// A call `name args`: user function, specified function, or pure built-in.
    fn call(
        &mut self,
        pos: Span,
        name: &str,
        args: &[Term],
        binds: &mut Vec<(Rc<str>, Comp)>,
    ) -> Result<Term, FrontError> {
        let args: Vec<Term> = args
            .iter()
            .filter(|a| !matches!(a, Term::Unit))
            .cloned()
            .collect();
        match self.vars.get(name).cloned() {
            Some(VarKind::Function(sort)) => {
                let x = self.fresh("r");
                binds.push((x.clone(), Comp::Call(Rc::from(name), args)));
                self.vars
                    .insert(x.to_string(), VarKind::Value(sort.clone()));
                return Ok(Term::var(&x, sort));
            }
            Some(VarKind::Specified(spec)) => {
                let outer = self.outer.clone();
                return self.spec_call(pos, &spec, &args, binds, outer);
            }
            Some(VarKind::Value(_)) => {
                return Err(self.err(pos, format!("`{name}` is not a function")))
            }
            None => {}
        }
        if let Some(spec) = self
            .method
            .local_specs
            .get(name)
            .or_else(|| self.lib.lib_specs.get(name))
        {
            let spec = spec.clone();
            return self.spec_call(pos, &spec, &args, binds, Scope::default());
        }
        if let Some(p) = self.lib.pure_specs.get(name) {
            let params: Vec<_> = p
                .params
                .iter()
                .filter(|(_, s, _)| *s != Sort::Unit)
                .collect();
            if params.len() != args.len() {
                return Err(self.err(pos, format!("`{name}` expects {} arguments", params.len())));
            }
            let mut scope = Scope::default();
            for ((pn, _, _), a) in params.iter().zip(&args) {
                scope = scope.with(pn, a.clone());
            }
            let x = self.fresh("x");
            let v = Term::var(&x, p.ret.clone());
            let phi = self
                .lib
                .term(&p.file, &p.qualifier, &scope.with("v", v.clone()))?;
            // `iff v φ` and `v == e` define the result directly
            if let Some(def) = definition_of(&phi, &v) {
                return Ok(def);
            }
            binds.push((x.clone(), Comp::Fresh(p.ret.clone())));
            binds.push((self.fresh("_"), Comp::Assume(phi)));
            self.vars
                .insert(x.to_string(), VarKind::Value(p.ret.clone()));
            return Ok(v);
        }
        Err(self.err(pos, format!("unknown function `{name}`")))
    }

    /// Example 4.5: a specified call becomes a choice over its alternatives of
    /// `?ghosts; ?result; assume res; admit pre; append effect`.
    fn spec_call(
        &mut self,
        pos: Span,
        spec: &FunSpec,
        args: &[Term],
        binds: &mut Vec<(Rc<str>, Comp)>,
        base: Scope,
    ) -> Result<Term, FrontError> {
        let value_params: Vec<_> = spec
            .params
            .iter()
            .filter(|p| {
                !matches!(
                    &p.kind,
                    ParamKind::Value {
                        sort: Sort::Unit,
                        ..
                    }
                )
            })
            .collect();
        if value_params.len() != args.len() {
            return Err(self.err(
                pos,
                format!(
                    "expected {} arguments, found {}",
                    value_params.len(),
                    args.len()
                ),
            ));
        }
        let mut scope = base;
        let mut pre_binds: Vec<(Rc<str>, Comp)> = Vec::new();
        for (p, a) in value_params.iter().zip(args) {
            scope = scope.with(&p.name, a.clone());
        }
        for (g, sort) in &spec.ghosts {
            let x = self.fresh(g);
            pre_binds.push((x.clone(), Comp::Fresh(sort.clone())));
            scope = scope.with(g, Term::var(&x, sort.clone()));
        }
        let res_sort = spec
            .alternatives
            .first()
            .map(|t| t.res_sort.clone())
            .unwrap_or(Sort::Unit);
        let result = self.fresh("r");
        let v = Term::var(&result, res_sort.clone());
        // argument refinements are assumed (calls are made under their preconditions)
        for (p, a) in value_params.iter().zip(args) {
            if let ParamKind::Value { refinement, .. } = &p.kind {
                let phi = self
                    .lib
                    .term(&spec.file, refinement, &scope.with("v", a.clone()))?;
                if !phi.is_true() {
                    pre_binds.push((self.fresh("_"), Comp::Assume(phi)));
                }
            }
        }
        let mut alternatives = Vec::new();
        for t in &spec.alternatives {
            let scope_v = scope.with("v", v.clone());
            let res = self.lib.term(&spec.file, &t.res, &scope_v)?;
            let pre = self.lib.sre(&spec.file, &t.pre, &scope)?;
            let effect = if t.newadding {
                Some(self.lib.sre(&spec.file, &t.post, &scope)?)
            } else {
                match &t.post.kind {
                    ExprKind::Seq(p, eff) if self.lib.sre(&spec.file, p, &scope)? == pre => {
                        Some(self.lib.sre(&spec.file, eff, &scope)?)
                    }
                    // a whole-trace `post` that does not extend `pre`: the call is taken to append
                    // nothing (sound for falsification when `pre` entails `post`, as in the suite)
                    _ => None,
                }
            };
            let mut steps = vec![
                (self.fresh("_"), Comp::Assume(res)),
                (self.fresh("_"), Comp::Admit(pre)),
            ];
            if let Some(eff) = effect {
                steps.push((self.fresh("_"), Comp::Append(eff)));
            }
            alternatives.push(Rc::new(Self::wrap(steps, Comp::Ret(v.clone()))));
        }
        let body = if alternatives.len() == 1 {
            (*alternatives[0]).clone()
        } else {
            Comp::Choice(alternatives)
        };
        binds.extend(pre_binds);
        // bind the fresh result first, then run the chosen alternative
        binds.push((result.clone(), Comp::Fresh(res_sort.clone())));
        binds.push((self.fresh("_"), body));
        self.vars
            .insert(result.to_string(), VarKind::Value(res_sort.clone()));
        Ok(v)
    }
}

fn result_of_arrow(t: &Ty) -> Ty {
    match t {
        Ty::Arrow(_, r) => result_of_arrow(r),
        other => other.clone(),
    }
}

/// When `phi` is `v ⇔ e` or `v == e` with `v` not in `e`, gives `e`.
fn definition_of(phi: &Term, v: &Term) -> Option<Term> {
    let Term::Var(vn, _) = v else { return None };
    let (a, b) = match phi {
        Term::Iff(a, b) | Term::Eq(a, b) => (a, b),
        t if t == v => return Some(Term::tt()),
        Term::Not(inner) if &**inner == v => return Some(Term::ff()),
        _ => return None,
    };
    if &**a == v && !b.free_vars().contains_key(vn) {
        Some((**b).clone())
    } else if &**b == v && !a.free_vars().contains_key(vn) {
        Some((**a).clone())
    } else {
        None
    }
}

/// Builds the harness of a method (Example 4.4).
pub(crate) fn harness(lib: &Library, method: &Method) -> Result<Harness, FrontError> {
    let mut tr = Translator {
        lib,
        method,
        file: method.file.clone(),
        vars: HashMap::new(),
        counter: 0,
        outer: Scope::default(),
    };
    let spec = &method.spec;
    let Some(triple) = spec.alternatives.first() else {
        return Err(tr.err(spec.pos, "empty specification"));
    };
    if spec.alternatives.len() > 1 {
        return Err(tr.err(spec.pos, "a method specification has one alternative"));
    }
    let mut setup = Vec::new();
    let mut scope = Scope::default();
    for (g, sort) in &spec.ghosts {
        setup.push((Rc::from(g.as_str()), Comp::Fresh(sort.clone())));
        tr.vars.insert(g.clone(), VarKind::Value(sort.clone()));
        scope = scope.with(g, Term::var(g, sort.clone()));
    }
    let mut call_args = Vec::new();
    let mut refinements = Vec::new();
    for p in &spec.params {
        match &p.kind {
            ParamKind::Value { sort, refinement } => {
                setup.push((Rc::from(p.name.as_str()), Comp::Fresh(sort.clone())));
                tr.vars.insert(p.name.clone(), VarKind::Value(sort.clone()));
                let x = Term::var(&p.name, sort.clone());
                scope = scope.with(&p.name, x.clone());
                refinements.push((refinement.clone(), x.clone()));
                if *sort != Sort::Unit {
                    call_args.push(x);
                }
            }
            ParamKind::Function(inner) => {
                tr.vars.insert(
                    p.name.clone(),
                    VarKind::Specified(Rc::new((**inner).clone())),
                );
            }
        }
    }
    for (r, x) in refinements {
        let phi = lib.term(&method.file, &r, &scope.with("v", x))?;
        if !phi.is_true() {
            setup.push((tr.fresh("_"), Comp::Assume(phi)));
        }
    }
    tr.outer = scope.clone();
    let pre = lib.sre(&method.file, &triple.pre, &scope)?;
    let post = lib.sre(&method.file, &triple.post, &scope)?;
    let post_after_pre = match &triple.post.kind {
        ExprKind::Seq(p, rest) if lib.sre(&method.file, p, &scope)? == pre => {
            Some(lib.sre(&method.file, rest, &scope)?)
        }
        _ => None,
    };
    let result = lib.term(
        &method.file,
        &triple.res,
        &scope.with("v", Term::var(RESULT_VAR, triple.res_sort.clone())),
    )?;
    // the method itself
    let ret_sort = triple.res_sort.clone();
    tr.vars
        .insert(method.name.clone(), VarKind::Function(ret_sort));
    let mut names = Vec::new();
    let saved = tr.vars.clone();
    for (i, p) in method.params.iter().enumerate() {
        match p.ty.as_ref() {
            Some(Ty::Arrow(..)) => {
                // a function argument: specified in the assertion under the same position
                let spec_param = spec
                    .params
                    .get(i)
                    .filter(|sp| matches!(sp.kind, ParamKind::Function(_)));
                let Some(sp) = spec_param else {
                    return Err(tr.err(p.pos, "a function argument needs a specification"));
                };
                if let ParamKind::Function(inner) = &sp.kind {
                    tr.vars.insert(
                        p.name.clone(),
                        VarKind::Specified(Rc::new((**inner).clone())),
                    );
                }
            }
            Some(t) => {
                let sort =
                    sort_of_ty(t).ok_or_else(|| tr.err(p.pos, "unsupported parameter type"))?;
                tr.vars.insert(p.name.clone(), VarKind::Value(sort.clone()));
                if sort != Sort::Unit {
                    names.push(Rc::from(p.name.as_str()));
                }
            }
            None => return Err(tr.err(p.pos, "method parameters need types")),
        }
    }
    let body = tr.comp(&method.body)?;
    tr.vars = saved;
    let def = Rc::new(FunDef {
        name: Rc::from(method.name.as_str()),
        params: names,
        body: Rc::new(body),
    });
    Ok(Harness {
        setup,
        pre,
        post,
        post_after_pre,
        result,
        body: Comp::Call(Rc::from(method.name.as_str()), call_args),
        functions: vec![def],
        replay: replay_table(lib)?,
    })
}
