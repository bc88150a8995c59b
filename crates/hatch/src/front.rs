//! The benchmark-language front end: reads `predefined/*.ml`, a benchmark folder's
//! `automata_preds.ml`, `lib_nty.ml`, `lib_rty.ml`, `ri.ml` and a method file, and gives a
//! [`Library`] (function signatures, `[@pred]` definitions, `[@libRty]` trace specifications with
//! their alternatives, pure built-ins, `[@axiom]`s) and a [`Method`] (code plus `[@assertRty]`).
//! Qualifiers become `smt` terms and `[@pred]`/LTLf formulas become `sre` expressions, under a
//! [`Scope`] that maps names to terms. Errors carry their span in the file read (`input`).

pub use crate::input::FrontError;
use crate::input::InputFile;
use crate::syntax::{Expr, ExprKind, Item, Param, Ty};
use diagnostics::Span;
use smt::{ArithOp, CmpOp, Sort, Term};
use sre::{arg_var, Event, Ltlf, OpSig, Sre, RET_VAR};
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

/// A `[@pred]` definition.
#[derive(Clone, Debug)]
pub struct PredDef {
    pub params: Vec<(String, Sort)>,
    pub body: Expr,
    pub file: InputFile,
}

/// One alternative `{pre; res; newadding}` or `{pre; res; post}` of a specification.
#[derive(Clone, Debug)]
pub struct Triple {
    pub pre: Expr,
    /// The result refinement (over `v`) and the result sort.
    pub res: Expr,
    pub res_sort: Sort,
    pub post: Expr,
    /// `newadding`: `post` is the appended effect; otherwise `post` describes the whole trace.
    pub newadding: bool,
}

/// The parameter of a specified function.
#[derive(Clone, Debug)]
pub enum ParamKind {
    /// A first-order argument with a refinement over `v`.
    Value { sort: Sort, refinement: Expr },
    /// A function argument with its own specification.
    Function(Box<FunSpec>),
}

/// A parameter with its name.
#[derive(Clone, Debug)]
pub struct SpecParam {
    pub name: String,
    pub kind: ParamKind,
}

/// A trace specification (`[@libRty]`, `[@assertRty]`).
#[derive(Clone, Debug)]
pub struct FunSpec {
    pub ghosts: Vec<(String, Sort)>,
    pub params: Vec<SpecParam>,
    pub alternatives: Vec<Triple>,
    pub file: InputFile,
    pub pos: Span,
}

/// A pure built-in operator: `[@libRty] f ?l:(a = …) : [%v: T] = φ`.
#[derive(Clone, Debug)]
pub struct PureSpec {
    pub params: Vec<(String, Sort, Expr)>,
    pub ret: Sort,
    pub qualifier: Expr,
    pub file: InputFile,
}

/// Everything a benchmark folder and the predefined files declare.
#[derive(Clone, Debug, Default)]
pub struct Library {
    /// Effectful functions of the representation type.
    pub ops: HashMap<String, OpSig>,
    /// Uninterpreted functions usable in qualifiers.
    pub functions: HashMap<String, (Vec<Sort>, Sort)>,
    pub preds: HashMap<String, PredDef>,
    pub lib_specs: HashMap<String, FunSpec>,
    pub pure_specs: HashMap<String, PureSpec>,
    pub axioms: Vec<Term>,
}

/// A method under test.
#[derive(Clone, Debug)]
pub struct Method {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Expr,
    pub spec: FunSpec,
    /// Functions specified in the method file itself (called but not defined there).
    pub local_specs: HashMap<String, FunSpec>,
    pub file: InputFile,
}

/// Maps names to terms while converting qualifiers.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub vars: HashMap<String, Term>,
}

impl Scope {
    pub fn with(&self, name: &str, t: Term) -> Scope {
        let mut s = self.clone();
        s.vars.insert(name.to_string(), t);
        s
    }
}

/// The sort a type names.
pub(crate) fn sort_of_ty(ty: &Ty) -> Option<Sort> {
    match ty {
        Ty::Name(n) => Some(match n.as_str() {
            "int" => Sort::Int,
            "bool" => Sort::Bool,
            "unit" => Sort::Unit,
            other => Sort::Named(
                other
                    .strip_prefix("%v:")
                    .map(sort_name)
                    .unwrap_or_else(|| other.to_string()),
            ),
        })
        .map(|s| match s {
            Sort::Named(n) if n == "int" => Sort::Int,
            Sort::Named(n) if n == "bool" => Sort::Bool,
            Sort::Named(n) if n == "unit" => Sort::Unit,
            other => other,
        }),
        Ty::Arrow(..) => None,
    }
}

fn sort_name(s: &str) -> String {
    s.to_string()
}

/// Lowercases the first letter: the event `SetNext` is a call of `setNext`.
pub(crate) fn op_of_constructor(c: &str) -> String {
    let mut cs = c.chars();
    match cs.next() {
        Some(f) => f.to_lowercase().collect::<String>() + cs.as_str(),
        None => String::new(),
    }
}

impl Library {
    /// Loads the predefined files and a benchmark folder.
    pub fn load(predefined: &Path, bench: &Path) -> Result<Library, FrontError> {
        let mut lib = Library::default();
        let read = |p: &Path| -> Result<(InputFile, Vec<Item>), FrontError> {
            let file = InputFile::read(p)?;
            let items = file.parse()?;
            Ok((file, items))
        };
        let (f, items) = read(&predefined.join("builtin_normal_typing.ml"))?;
        for it in items {
            if let Item::Val { name, ty, pos } = it {
                let (args, ret) =
                    flatten_arrow(&ty).ok_or_else(|| f.error(pos, "unsupported type"))?;
                lib.functions.insert(name, (args, ret));
            }
        }
        for file in ["builtin_pure_typing.ml", "builtin_libfunc_typing.ml"] {
            let (f, items) = read(&predefined.join(file))?;
            for it in items {
                lib.add_pure(&f, it)?;
            }
        }
        let (f, items) = read(&bench.join("lib_nty.ml"))?;
        for it in items {
            match it {
                Item::Val { name, ty, pos } => {
                    let (args, ret) =
                        flatten_arrow(&ty).ok_or_else(|| f.error(pos, "unsupported type"))?;
                    lib.ops.insert(name, OpSig { args, ret });
                }
                Item::Let { pos, .. } => {
                    return Err(f.error(pos, "only `val` declarations are allowed here"))
                }
            }
        }
        for file in ["automata_preds.ml", "ri.ml"] {
            let (f, items) = read(&bench.join(file))?;
            for it in items {
                lib.add_pred(&f, it)?;
            }
        }
        let (f, items) = read(&bench.join("lib_rty.ml"))?;
        for it in items {
            match it {
                Item::Let {
                    attr: Some(a),
                    name,
                    params,
                    body,
                    pos,
                    ..
                } if a == "libRty" => {
                    let spec = fun_spec(&f, &params, &body, pos)?;
                    lib.lib_specs.insert(name, spec);
                }
                Item::Let { pos, .. } | Item::Val { pos, .. } => {
                    return Err(f.error(pos, "expected a `let[@libRty]` specification"))
                }
            }
        }
        // axioms last: they mention built-in functions
        let (f, items) = read(&predefined.join("builtin_axioms.ml"))?;
        for it in items {
            lib.add_axiom(&f, it)?;
        }
        Ok(lib)
    }

    fn add_pure(&mut self, f: &InputFile, it: Item) -> Result<(), FrontError> {
        let Item::Let {
            attr: Some(a),
            name,
            params,
            ret,
            body,
            pos,
            ..
        } = it
        else {
            return Err(f.error_at_start("expected `let[@libRty]`"));
        };
        if a != "libRty" {
            return Err(f.error(pos, format!("unexpected attribute [@{a}]")));
        }
        let ret = ret
            .as_ref()
            .and_then(sort_of_ty)
            .ok_or_else(|| f.error(pos, "missing `: [%v: T]`"))?;
        let mut ps = Vec::new();
        for p in &params {
            let r = p
                .refinement
                .as_deref()
                .ok_or_else(|| f.error(p.pos, "expected `?l:(x = …)`"))?;
            let (sort, phi) = refinement_parts(f, r)?;
            ps.push((p.name.clone(), sort, phi));
        }
        self.pure_specs.insert(
            name,
            PureSpec {
                params: ps,
                ret,
                qualifier: body,
                file: f.clone(),
            },
        );
        Ok(())
    }

    fn add_pred(&mut self, f: &InputFile, it: Item) -> Result<(), FrontError> {
        match it {
            Item::Let {
                attr: Some(a),
                name,
                params,
                body,
                pos,
                ..
            } if a == "pred" => {
                let mut ps = Vec::new();
                for p in params {
                    let sort =
                        p.ty.as_ref().and_then(sort_of_ty).ok_or_else(|| {
                            f.error(p.pos, "a predicate parameter needs a base type")
                        })?;
                    ps.push((p.name, sort));
                }
                let _ = pos;
                self.preds.insert(
                    name,
                    PredDef {
                        params: ps,
                        body,
                        file: f.clone(),
                    },
                );
                Ok(())
            }
            Item::Let { pos, .. } | Item::Val { pos, .. } => {
                Err(f.error(pos, "expected a `let[@pred]` definition"))
            }
        }
    }

    fn add_axiom(&mut self, f: &InputFile, it: Item) -> Result<(), FrontError> {
        let Item::Let {
            attr: Some(a),
            params,
            body,
            pos,
            ..
        } = it
        else {
            return Err(f.error_at_start("expected `let[@axiom]`"));
        };
        if a != "axiom" {
            return Err(f.error(pos, format!("unexpected attribute [@{a}]")));
        }
        let mut bound = Vec::new();
        let mut scope = Scope::default();
        for p in &params {
            if !p.attrs.iter().any(|a| a == "forall") {
                return Err(f.error(p.pos, "axiom parameters must be [@forall]"));
            }
            let sort =
                p.ty.as_ref()
                    .and_then(sort_of_ty)
                    .ok_or_else(|| f.error(p.pos, "missing type"))?;
            scope = scope.with(&p.name, Term::var(&p.name, sort.clone()));
            bound.push((Rc::from(p.name.as_str()), sort));
        }
        let phi = self.term(f, &body, &scope)?;
        self.axioms.push(Term::Forall(bound.into(), Rc::new(phi)));
        Ok(())
    }

    /// Converts a qualifier.
    pub fn term(&self, f: &InputFile, e: &Expr, scope: &Scope) -> Result<Term, FrontError> {
        let err = |m: String| f.error(e.pos, m);
        Ok(match &e.kind {
            ExprKind::Var(x) => scope
                .vars
                .get(x)
                .cloned()
                .ok_or_else(|| err(format!("unbound variable `{x}`")))?,
            ExprKind::Constr(c, None) if c == "true" => Term::tt(),
            ExprKind::Constr(c, None) if c == "false" => Term::ff(),
            ExprKind::Int(n) => Term::Int(*n),
            ExprKind::Unit => Term::Unit,
            ExprKind::Neg(a) => Term::arith(ArithOp::Sub, Term::Int(0), self.term(f, a, scope)?),
            ExprKind::Constraint(a, _) | ExprKind::Attr(a, _) => self.term(f, a, scope)?,
            ExprKind::Infix(op, a, b) => {
                let x = self.term(f, a, scope)?;
                let y = self.term(f, b, scope)?;
                binop(op, x, y)
                    .ok_or_else(|| err(format!("unsupported operator `{op}` in a qualifier")))?
            }
            ExprKind::App(func, args) => {
                let ExprKind::Var(name) = &func.kind else {
                    return Err(err("unsupported application in a qualifier".into()));
                };
                let ts = args
                    .iter()
                    .map(|a| self.term(f, a, scope))
                    .collect::<Result<Vec<_>, _>>()?;
                match (name.as_str(), ts.as_slice()) {
                    ("not", [a]) => Term::negation(a.clone()),
                    ("implies", [a, b]) => Term::implies(a.clone(), b.clone()),
                    ("iff", [a, b]) => Term::iff(a.clone(), b.clone()),
                    (n, [a, b]) if n.ends_with("_eq") => Term::eq(a.clone(), b.clone()),
                    (n, _) => {
                        let (ps, ret) = self
                            .functions
                            .get(n)
                            .ok_or_else(|| err(format!("unknown function `{n}`")))?;
                        if ps.len() != ts.len() {
                            return Err(err(format!("`{n}` expects {} arguments", ps.len())));
                        }
                        Term::app(n, ts, ret.clone())
                    }
                }
            }
            ExprKind::Tuple(_) => return Err(err("tuples are not allowed in qualifiers".into())),
            _ => return Err(err("unsupported qualifier form".into())),
        })
    }

    /// Converts an LTLf/SRE specification expression.
    pub fn ltlf(&self, f: &InputFile, e: &Expr, scope: &Scope) -> Result<Ltlf, FrontError> {
        let err = |m: String| f.error(e.pos, m);
        let bx = Box::new;
        Ok(match &e.kind {
            ExprKind::Var(x) if x == "lastL" => Ltlf::Last,
            ExprKind::Var(x) => self.apply_pred(f, e.pos, x, &[], scope)?,
            ExprKind::Constr(c, Some(arg)) => Ltlf::Event(self.event(f, c, arg, scope)?),
            ExprKind::Seq(a, b) => {
                Ltlf::Seq(bx(self.ltlf(f, a, scope)?), bx(self.ltlf(f, b, scope)?))
            }
            ExprKind::Infix(op, a, b) => {
                let x = self.ltlf(f, a, scope)?;
                let y = self.ltlf(f, b, scope)?;
                match op.as_str() {
                    "&&" => Ltlf::And(bx(x), bx(y)),
                    "||" => Ltlf::Or(bx(x), bx(y)),
                    "#==>" => Ltlf::Or(bx(Ltlf::Not(bx(x))), bx(y)),
                    _ => {
                        return Err(err(format!(
                            "unsupported operator `{op}` in a trace specification"
                        )))
                    }
                }
            }
            ExprKind::App(func, args) => {
                let ExprKind::Var(name) = &func.kind else {
                    return Err(err("unsupported application".into()));
                };
                let sub = |i: usize| self.ltlf(f, &args[i], scope);
                match (name.as_str(), args.len()) {
                    ("_F", 1) => Ltlf::Finally(bx(sub(0)?)),
                    ("_G", 1) => Ltlf::Globally(bx(sub(0)?)),
                    ("_X", 1) => Ltlf::Next(bx(sub(0)?)),
                    ("_U", 2) => Ltlf::Until(bx(sub(0)?), bx(sub(1)?)),
                    ("_W", 2) => Ltlf::WeakUntil(bx(sub(0)?), bx(sub(1)?)),
                    ("not", 1) => Ltlf::Not(bx(sub(0)?)),
                    ("implies", 2) => Ltlf::Or(bx(Ltlf::Not(bx(sub(0)?))), bx(sub(1)?)),
                    ("iff", 2) => {
                        let (a, b) = (sub(0)?, sub(1)?);
                        Ltlf::And(
                            bx(Ltlf::Or(bx(Ltlf::Not(bx(a.clone()))), bx(b.clone()))),
                            bx(Ltlf::Or(bx(Ltlf::Not(bx(b))), bx(a))),
                        )
                    }
                    (p, _) => self.apply_pred(f, e.pos, p, args, scope)?,
                }
            }
            _ => return Err(err("unsupported trace specification form".into())),
        })
    }

    fn apply_pred(
        &self,
        f: &InputFile,
        pos: Span,
        name: &str,
        args: &[Expr],
        scope: &Scope,
    ) -> Result<Ltlf, FrontError> {
        let def = self
            .preds
            .get(name)
            .ok_or_else(|| f.error(pos, format!("unknown predicate `{name}`")))?;
        if def.params.len() != args.len() {
            return Err(f.error(
                pos,
                format!("`{name}` expects {} arguments", def.params.len()),
            ));
        }
        // predicates expand like macros: names they do not bind resolve where they are used
        let mut inner = scope.clone();
        for ((p, _), a) in def.params.iter().zip(args) {
            inner = inner.with(p, self.term(f, a, scope)?);
        }
        self.ltlf(&def.file, &def.body, &inner)
    }

    /// An event literal `Op (args…, ret, φ)` or `Any φ`.
    pub fn event(
        &self,
        f: &InputFile,
        constr: &str,
        arg: &Expr,
        scope: &Scope,
    ) -> Result<Event, FrontError> {
        let err = |m: String| f.error(arg.pos, m);
        if constr == "Any" {
            return Ok(Event::guard(self.term(f, arg, scope)?));
        }
        let op = op_of_constructor(constr);
        let sig = self
            .ops
            .get(&op)
            .ok_or_else(|| err(format!("unknown effectful function `{op}`")))?;
        let ExprKind::Tuple(parts) = &arg.kind else {
            return Err(err("an event is `Op (args…, ret, qualifier)`".into()));
        };
        if parts.len() != sig.args.len() + 2 {
            return Err(err(format!(
                "`{constr}` takes {} arguments, a result and a qualifier",
                sig.args.len()
            )));
        }
        let mut inner = scope.clone();
        let mut pinned = Vec::new();
        for (i, p) in parts[..sig.args.len()].iter().enumerate() {
            let local = Term::var(&arg_var(i), sig.args[i].clone());
            match &p.kind {
                ExprKind::Var(x) => inner = inner.with(x, local),
                ExprKind::Attr(a, d) if d == "d" => {
                    pinned.push(Term::eq(local, self.term(f, a, scope)?))
                }
                _ => return Err(f.error(p.pos, "an event argument is a name or `(x [@d])`")),
            }
        }
        match &parts[sig.args.len()].kind {
            ExprKind::Var(v) => inner = inner.with(v, Term::var(RET_VAR, sig.ret.clone())),
            _ => return Err(f.error(parts[sig.args.len()].pos, "the event result is a name")),
        }
        let phi = self.term(f, &parts[sig.args.len() + 1], &inner)?;
        pinned.push(phi);
        Ok(Event::atom(&op, Term::and(pinned)))
    }

    /// An SRE from an LTLf expression.
    pub fn sre(&self, f: &InputFile, e: &Expr, scope: &Scope) -> Result<Sre, FrontError> {
        let l = self.ltlf(f, e, scope)?;
        l.check_supported().map_err(|m| f.error(e.pos, m))?;
        Ok(l.to_sre())
    }
}

fn binop(op: &str, x: Term, y: Term) -> Option<Term> {
    Some(match op {
        "&&" => Term::and([x, y]),
        "||" => Term::or([x, y]),
        "#==>" => Term::implies(x, y),
        "==" | "=" => Term::eq(x, y),
        "!=" | "<>" => Term::negation(Term::eq(x, y)),
        "<" => Term::cmp(CmpOp::Lt, x, y),
        "<=" => Term::cmp(CmpOp::Le, x, y),
        ">" => Term::cmp(CmpOp::Gt, x, y),
        ">=" => Term::cmp(CmpOp::Ge, x, y),
        "+" => Term::arith(ArithOp::Add, x, y),
        "-" => Term::arith(ArithOp::Sub, x, y),
        "*" => Term::arith(ArithOp::Mul, x, y),
        "/" => Term::arith(ArithOp::Div, x, y),
        "mod" => Term::arith(ArithOp::Mod, x, y),
        _ => return None,
    })
}

/// `A -> B -> C` as argument sorts and a result sort.
pub(crate) fn flatten_arrow(ty: &Ty) -> Option<(Vec<Sort>, Sort)> {
    match ty {
        Ty::Arrow(a, b) => {
            let a = sort_of_ty(a)?;
            let (mut rest, ret) = flatten_arrow(b)?;
            rest.insert(0, a);
            Some((rest, ret))
        }
        other => Some((Vec::new(), sort_of_ty(other)?)),
    }
}

/// Splits `(φ : [%v: T])` into the sort and the qualifier.
pub(crate) fn refinement_parts(f: &InputFile, e: &Expr) -> Result<(Sort, Expr), FrontError> {
    match &e.kind {
        ExprKind::Attr(inner, _) => refinement_parts(f, inner),
        ExprKind::Constraint(phi, ty @ Ty::Name(n)) if n.starts_with("%v:") => {
            Ok((sort_of_ty(ty).unwrap_or(Sort::Unit), (**phi).clone()))
        }
        _ => Err(f.error(e.pos, "expected a refinement `(φ : [%v: T])`")),
    }
}

fn triple(f: &InputFile, e: &Expr) -> Result<Triple, FrontError> {
    let ExprKind::Record(fields) = &e.kind else {
        return Err(f.error(
            e.pos,
            "expected `{pre = …; res = …; post = …}` or `{…; newadding = …}`",
        ));
    };
    let get = |n: &str| fields.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    let (Some(pre), Some(res)) = (get("pre"), get("res")) else {
        return Err(f.error(e.pos, "a specification needs `pre` and `res`"));
    };
    let (post, newadding) = match (get("post"), get("newadding")) {
        (Some(p), None) => (p, false),
        (None, Some(p)) => (p, true),
        _ => {
            return Err(f.error(
                e.pos,
                format!("expected exactly one of `post`, `newadding` (found {names:?})"),
            ))
        }
    };
    let (res_sort, res_phi) = refinement_parts(f, &res)?;
    Ok(Triple {
        pre,
        res: res_phi,
        res_sort,
        post,
        newadding,
    })
}

/// Reads a specification body (a record, or an array of alternatives) with its parameters.
pub(crate) fn fun_spec(
    f: &InputFile,
    params: &[Param],
    body: &Expr,
    pos: Span,
) -> Result<FunSpec, FrontError> {
    let mut ghosts = Vec::new();
    let mut ps = Vec::new();
    for p in params {
        if p.attrs.iter().any(|a| a == "ghost") {
            let sort =
                p.ty.as_ref()
                    .and_then(sort_of_ty)
                    .ok_or_else(|| f.error(p.pos, "a ghost needs a base type"))?;
            ghosts.push((p.name.clone(), sort));
            continue;
        }
        if let Some(a) = p.attrs.first() {
            return Err(f.error(p.pos, format!("unexpected attribute [@{a}] on a parameter")));
        }
        let r = p
            .refinement
            .as_deref()
            .ok_or_else(|| f.error(p.pos, "expected `?l:(x = (φ : [%v: T]))`"))?;
        let kind = match &r.kind {
            ExprKind::Fun(inner_params, inner_body) => {
                ParamKind::Function(Box::new(fun_spec(f, inner_params, inner_body, r.pos)?))
            }
            _ => {
                let (sort, refinement) = refinement_parts(f, r)?;
                ParamKind::Value { sort, refinement }
            }
        };
        ps.push(SpecParam {
            name: p.name.clone(),
            kind,
        });
    }
    let alternatives = match &body.kind {
        ExprKind::Array(xs) => xs
            .iter()
            .map(|x| triple(f, x))
            .collect::<Result<Vec<_>, _>>()?,
        _ => vec![triple(f, body)?],
    };
    Ok(FunSpec {
        ghosts,
        params: ps,
        alternatives,
        file: f.clone(),
        pos,
    })
}

/// Reads a method file: its code, its `[@assertRty]` and its local `[@libRty]` specifications.
pub fn load_method(path: &Path) -> Result<Method, FrontError> {
    let file = InputFile::read(path)?;
    let items = file.parse()?;
    let mut code = None;
    let mut spec = None;
    let mut local_specs = HashMap::new();
    for it in items {
        match it {
            Item::Let {
                attr: None,
                name,
                params,
                body,
                pos,
                ..
            } => {
                // a later definition of the same name shadows the earlier one, as in OCaml
                if let Some((prev, _, _)) = &code {
                    if *prev != name {
                        return Err(file.error(pos, "a method file defines one function"));
                    }
                }
                code = Some((name, params, body));
            }
            Item::Let {
                attr: Some(a),
                name,
                params,
                body,
                pos,
                ..
            } if a == "assertRty" => {
                spec = Some((name, fun_spec(&file, &params, &body, pos)?));
            }
            Item::Let {
                attr: Some(a),
                name,
                params,
                body,
                pos,
                ..
            } if a == "libRty" => {
                local_specs.insert(name, fun_spec(&file, &params, &body, pos)?);
            }
            Item::Let {
                attr: Some(a), pos, ..
            } => return Err(file.error(pos, format!("unexpected attribute [@{a}]"))),
            Item::Val { pos, .. } => {
                return Err(file.error(pos, "unexpected `val` in a method file"))
            }
        }
    }
    let (name, params, body) = code.ok_or_else(|| file.error_at_start("no method definition"))?;
    let (spec_name, spec) =
        spec.ok_or_else(|| file.error_at_start("no `[@assertRty]` specification"))?;
    if spec_name != name {
        return Err(file.error(
            spec.pos,
            format!("the specification is for `{spec_name}`, the method is `{name}`"),
        ));
    }
    Ok(Method {
        name,
        params,
        body,
        spec,
        local_specs,
        file,
    })
}
