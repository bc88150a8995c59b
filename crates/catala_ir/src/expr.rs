//! Translation of surface expressions into typed dcalc expressions: name resolution of variables
//! (locals, scope variables and their states, sub-scope outputs, top-level definitions), bottom-up
//! type checking with operator overload resolution (an expected type flows down only to type
//! literals such as `[]`), and the record of which scope variables, sub-scopes, top-level
//! definitions and scopes each expression depends on (for evaluation order and cycle checks).

use crate::dcalc::{DateRounding, Expr, ExprKind, Literal, ScopeId, Slot, TopDefId, Ty};
use crate::diag::{incompatible_types, name_error, name_error_at, type_error};
use crate::env::{Env, ModuleId, ScopeSig};
use crate::frame::Frames;
use crate::literals::translate_literal;
use crate::ops;
use catala_syntax::ast::{self, ExprKind as S};
use catala_syntax::{Diagnostic, Span};
use std::sync::Arc;

/// Something an expression reads, for dependency ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Dep {
    /// A scope variable state (index in [`ScopeSig::vars`]).
    Var(usize),
    /// A sub-scope's outputs (index in [`ScopeSig::subscopes`]).
    Sub(usize),
    TopDef(TopDefId),
    /// A direct scope call.
    Scope(ScopeId),
}

#[derive(Debug)]
pub(crate) struct Local {
    pub(crate) name: String,
    slot: Slot,
    ty: Ty,
    depth: usize,
}

pub(crate) type R<T> = Result<T, Diagnostic>;

/// The translation context of one scope or one top-level definition.
pub(crate) struct ExprCtx<'a> {
    pub env: &'a Env,
    /// The module whose names are in scope.
    pub module: ModuleId,
    /// The enclosing scope, if any.
    pub scope: Option<(ScopeId, &'a ScopeSig)>,
    pub rounding: DateRounding,
    /// The declaration and state index being defined (for state references and recursion).
    pub defining: Option<(usize, usize)>,
    pub(crate) locals: Vec<Local>,
    pub frames: Frames,
    pub deps: Vec<(Dep, Span)>,
    /// Per scope variable state: whether it may be empty (read through its singleton list).
    pub may_be_empty: Vec<bool>,
    /// Current nesting depth of [`ExprCtx::translate`] (bounded to stay clear of stack overflows).
    depth: u32,
}

/// True if the type mentions a type variable or a part not determined yet.
fn has_open_type(t: &Ty) -> bool {
    match t {
        Ty::Var(_) | Ty::Unknown => true,
        Ty::List(t) | Ty::Option(t) => has_open_type(t),
        Ty::Tuple(ts) => ts.iter().any(has_open_type),
        Ty::Arrow(ps, r) => ps.iter().any(has_open_type) || has_open_type(r),
        _ => false,
    }
}

/// True if the type mentions a type variable.
pub(crate) fn has_type_var(t: &Ty) -> bool {
    match t {
        Ty::Var(_) => true,
        Ty::List(t) | Ty::Option(t) => has_type_var(t),
        Ty::Tuple(ts) => ts.iter().any(has_type_var),
        Ty::Arrow(ps, r) => ps.iter().any(has_type_var) || has_type_var(r),
        _ => false,
    }
}

/// Matches a signature type against an argument's type, extending the substitution of type
/// variables; false if they do not fit.
pub(crate) fn match_type(pattern: &Ty, t: &Ty, subst: &mut Vec<Option<Ty>>) -> bool {
    match (pattern, t) {
        // `[]` or `Absent`: nothing to learn, and nothing contradicts.
        (_, Ty::Unknown) => true,
        (Ty::Var(v), _) => {
            let v = *v as usize;
            if subst.len() <= v {
                subst.resize(v + 1, None);
            }
            match &subst[v] {
                Some(bound) if bound.compatible(t) => {
                    subst[v] = Some(bound.meet(t));
                    true
                }
                Some(_) => false,
                None => {
                    subst[v] = Some(t.clone());
                    true
                }
            }
        }
        (Ty::List(p), Ty::List(a)) | (Ty::Option(p), Ty::Option(a)) => match_type(p, a, subst),
        (Ty::Tuple(ps), Ty::Tuple(ts)) => {
            ps.len() == ts.len() && ps.iter().zip(ts).all(|(p, a)| match_type(p, a, subst))
        }
        (Ty::Arrow(ps, pr), Ty::Arrow(ts, tr)) => {
            ps.len() == ts.len()
                && ps.iter().zip(ts).all(|(p, a)| match_type(p, a, subst))
                && match_type(pr, tr, subst)
        }
        _ => pattern == t,
    }
}

/// The type with the bound variables replaced, and those no argument determined (`f of []`)
/// left open ([`Ty::Unknown`]).
pub(crate) fn instantiate(t: &Ty, subst: &[Option<Ty>]) -> Ty {
    match t {
        Ty::Var(v) => match subst.get(*v as usize) {
            Some(Some(b)) => b.clone(),
            _ => Ty::Unknown,
        },
        Ty::List(i) => Ty::List(Box::new(instantiate(i, subst))),
        Ty::Option(i) => Ty::Option(Box::new(instantiate(i, subst))),
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|x| instantiate(x, subst)).collect()),
        Ty::Arrow(ps, r) => Ty::Arrow(
            ps.iter().map(|x| instantiate(x, subst)).collect(),
            Box::new(instantiate(r, subst)),
        ),
        _ => t.clone(),
    }
}

/// True for expressions whose type comes only from their context (`Absent`, `[]`).
fn needs_type_hint(e: &ast::Expr) -> bool {
    match &e.kind {
        S::Constructor {
            name,
            payload: None,
        } => name.path.is_empty() && name.name.name == "Absent",
        S::List(items) => items.is_empty() || items.iter().all(needs_type_hint),
        S::Tuple(items) => items.iter().any(needs_type_hint),
        _ => false,
    }
}

/// Deepest expression nesting accepted.
const MAX_DEPTH: u32 = 500;

impl<'a> ExprCtx<'a> {
    pub(crate) fn for_scope(env: &'a Env, id: ScopeId, rounding: DateRounding) -> ExprCtx<'a> {
        let sig = env.scope(id);
        ExprCtx {
            env,
            module: sig.module,
            scope: Some((id, sig)),
            rounding,
            defining: None,
            locals: Vec::new(),
            frames: Frames::new(sig.first_local),
            deps: Vec::new(),
            may_be_empty: Vec::new(),
            depth: 0,
        }
    }

    pub(crate) fn for_topdef(env: &'a Env, module: ModuleId) -> ExprCtx<'a> {
        ExprCtx {
            env,
            module,
            scope: None,
            rounding: DateRounding::Abort,
            defining: None,
            locals: Vec::new(),
            frames: Frames::new(0),
            deps: Vec::new(),
            may_be_empty: Vec::new(),
            depth: 0,
        }
    }

    /// Binds `name` to a fresh slot of the current frame.
    pub fn bind(&mut self, name: &str, ty: Ty) -> Slot {
        let slot = self.frames.alloc();
        self.bind_slot(name, slot, ty);
        slot
    }

    /// Binds `name` to an existing slot of the current frame.
    pub(crate) fn bind_slot(&mut self, name: &str, slot: Slot, ty: Ty) {
        self.locals.push(Local {
            name: name.to_string(),
            slot,
            ty,
            depth: self.frames.depth(),
        });
    }

    /// Removes the `n` most recent bindings.
    pub(crate) fn unbind(&mut self, n: usize) {
        let len = self.locals.len().saturating_sub(n);
        self.locals.truncate(len);
    }

    pub(crate) fn dep(&mut self, d: Dep, span: Span) {
        if !self.deps.iter().any(|(x, _)| *x == d) {
            self.deps.push((d, span));
        }
    }

    pub(crate) fn tyname(&self, t: &Ty) -> String {
        self.env.type_name(t)
    }

    /// Translates `e` and checks it has type `expected` (whose annotation is at `origin`).
    pub fn check(&mut self, e: &ast::Expr, expected: &Ty, origin: Span) -> R<Expr> {
        let (x, t) = self.translate(e, Some(expected))?;
        self.unify(&t, e.span, expected, origin)?;
        Ok(x)
    }

    fn unify(&self, got: &Ty, got_span: Span, expected: &Ty, origin: Span) -> R<()> {
        if got.compatible(expected) {
            Ok(())
        } else {
            Err(incompatible_types(
                &self.tyname(got),
                got_span,
                &self.tyname(expected),
                origin,
            ))
        }
    }

    /// Translates `e`; `expect` is a hint used only to type empty lists and `impossible`.
    pub(crate) fn translate(&mut self, e: &ast::Expr, expect: Option<&Ty>) -> R<(Expr, Ty)> {
        if self.depth >= MAX_DEPTH {
            return Err(name_error(
                "This expression is nested too deeply to be compiled",
                e.span,
            ));
        }
        self.depth += 1;
        // Deep (but accepted) nesting runs on a grown stack rather than overflowing.
        let r = catala_syntax::stack::maybe_grow(64 * 1024, 4 * 1024 * 1024, || {
            self.translate_node(e, expect)
        });
        self.depth -= 1;
        r
    }

    fn translate_node(&mut self, e: &ast::Expr, expect: Option<&Ty>) -> R<(Expr, Ty)> {
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        match &e.kind {
            S::Literal(l) => {
                let (lit, ty) = translate_literal(l, span)?;
                Ok((mk(ExprKind::Literal(lit)), ty))
            }
            S::Var(id) => {
                // A variable in parentheses is read at the parenthesised span, as Catala
                // reports it (e.g. the divisor `(x)` of a division by zero).
                let (mut x, ty) = self.variable(id)?;
                if matches!(x.kind, ExprKind::Local(_)) {
                    x.span = span;
                }
                Ok((x, ty))
            }
            S::QualVar(q) => self.qualified_variable(q),
            S::StateAccess(id, state) => self.state_access(id, state, span),
            S::Constructor { name, payload } => {
                self.constructor(name, payload.as_deref(), expect, span)
            }
            S::Field(inner, qualifier, field) => self.field(inner, qualifier.as_ref(), field, span),
            S::TupleIndex(inner, n) => {
                let (x, t) = self.translate(inner, None)?;
                let Ty::Tuple(ts) = &t else {
                    return Err(type_error(
                        format!("This expression has type {}, not a tuple", self.tyname(&t)),
                        inner.span,
                    ));
                };
                let index = n.checked_sub(1).filter(|&i| (i as usize) < ts.len());
                let Some(index) = index else {
                    return Err(type_error(
                        format!("Tuple index {n} out of range (the tuple has {})", ts.len()),
                        span,
                    ));
                };
                let ty = ts[index as usize].clone();
                Ok((
                    mk(ExprKind::TupleGet {
                        expr: Box::new(x),
                        index,
                    }),
                    ty,
                ))
            }
            S::Binop(op, op_span, a, b) => self.binop(*op, *op_span, a, b, span),
            S::Unop(op, a) => {
                let (x, t) = self.translate(a, None)?;
                let Some((op2, ty)) = ops::resolve_unary(*op, &t) else {
                    let sym = match op {
                        ast::UnOp::Not => "not",
                        ast::UnOp::Minus => "-",
                    };
                    return Err(type_error(
                        format!(
                            "I don't know how to apply operator {sym} on type {}",
                            self.tyname(&t)
                        ),
                        span,
                    ));
                };
                Ok((
                    mk(ExprKind::Unary {
                        op: op2,
                        arg: Box::new(x),
                    }),
                    ty,
                ))
            }
            S::If(c, t, f) => {
                let c = self.check(c, &Ty::Bool, c.span)?;
                // `if c then Absent else Present content 1`: the else branch gives the type
                // when the then branch alone cannot.
                let (tx, tt, fx) = match self.translate(t, expect) {
                    Ok((tx, tt)) => {
                        let hint = expect.map_or(tt.clone(), |e| e.meet(&tt));
                        let (fx, ft) = self.translate(f, Some(&hint))?;
                        self.unify(&ft, f.span, &tt, t.span)?;
                        (tx, tt.meet(&ft), fx)
                    }
                    Err(first) if expect.is_none() && needs_type_hint(t) => {
                        let Ok((fx, ft)) = self.translate(f, None) else {
                            return Err(first);
                        };
                        let tx = self.check(t, &ft, f.span)?;
                        (tx, ft, fx)
                    }
                    Err(e) => return Err(e),
                };
                Ok((
                    mk(ExprKind::If {
                        cond: Box::new(c),
                        then_branch: Box::new(tx),
                        else_branch: Box::new(fx),
                    }),
                    tt,
                ))
            }
            S::Let(x, v, body) => {
                let (vx, vt) = self.translate(v, None)?;
                let slot = self.bind(&x.name, vt);
                let r = self.translate(body, expect);
                self.unbind(1);
                let (bx, bt) = r?;
                Ok((
                    mk(ExprKind::Let {
                        slot,
                        value: Box::new(vx),
                        body: Box::new(bx),
                    }),
                    bt,
                ))
            }
            S::LetTuple(names, v, body) => self.let_tuple(names, v, body, expect, span),
            // `assertion check in next`: a failed check is recorded, `next` goes on.
            S::Assert(check, next, message) => {
                let cx = self.check(check, &Ty::Bool, check.span)?;
                let (nx, nt) = self.translate(next, expect)?;
                let clause = Span {
                    end: check.span.end,
                    ..span
                };
                Ok((
                    Expr::new(
                        ExprKind::Assert {
                            check: Box::new(cx),
                            next: Box::new(nx),
                            message: message.clone(),
                        },
                        clause,
                    ),
                    nt,
                ))
            }
            S::Match(scrutinee, arms) => self.matching(scrutinee, arms, expect, span),
            S::TestCtor {
                expr,
                ctor,
                binding,
                and_cond,
            } => self.test_ctor(expr, ctor, binding.as_ref(), and_cond.as_deref(), span),
            S::StructLit(name, fields) => self.struct_lit(name, fields, span),
            S::StructReplace(base, fields) => self.struct_replace(base, fields, span),
            S::ScopeCall(name, args) => self.scope_call(name, args, span),
            S::Call(f, args) => {
                let (fx, ft) = self.translate(f, None)?;
                let Ty::Arrow(params, ret) = ft else {
                    return Err(type_error(
                        format!(
                            "This expression has type {}, it is not a function",
                            self.tyname(&ft)
                        ),
                        f.span,
                    ));
                };
                // `f of (a, b)` calls a function of two parameters.
                let spread;
                let args: &[ast::Expr] = match args.as_slice() {
                    [ast::Expr {
                        kind: S::Tuple(items),
                        ..
                    }] if params.len() > 1 && items.len() == params.len() => {
                        spread = items.clone();
                        &spread
                    }
                    _ => args,
                };
                // `f of t` with a tuple value `t` calls a function of several parameters with
                // its components.
                if params.len() > 1 && args.len() == 1 {
                    let (tx, tt) = self.translate(&args[0], None)?;
                    if let Ty::Tuple(ts) = &tt {
                        if ts.len() == params.len()
                            && ts.iter().zip(params.iter()).all(|(t, p)| t.compatible(p))
                        {
                            let slot = self.frames.alloc();
                            let aspan = args[0].span;
                            let xs = (0..ts.len())
                                .map(|i| {
                                    Expr::new(
                                        ExprKind::TupleGet {
                                            expr: Box::new(Expr::new(ExprKind::Local(slot), aspan)),
                                            index: i as u32,
                                        },
                                        aspan,
                                    )
                                })
                                .collect();
                            let call = mk(ExprKind::Apply {
                                func: Box::new(fx),
                                args: xs,
                            });
                            return Ok((
                                mk(ExprKind::Let {
                                    slot,
                                    value: Box::new(tx),
                                    body: Box::new(call),
                                }),
                                *ret,
                            ));
                        }
                    }
                }
                if params.len() != args.len() {
                    return Err(type_error(
                        format!(
                            "This function expects {} argument(s), but {} were given",
                            params.len(),
                            args.len()
                        ),
                        span,
                    ));
                }
                if !params.iter().any(has_type_var) && !has_type_var(&ret) {
                    let mut xs = Vec::new();
                    for (a, p) in args.iter().zip(params.iter()) {
                        xs.push(self.check(a, p, f.span)?);
                    }
                    return Ok((
                        mk(ExprKind::Apply {
                            func: Box::new(fx),
                            args: xs,
                        }),
                        *ret,
                    ));
                }
                // A polymorphic declaration: its type variables are instantiated by the
                // arguments' types.
                let mut subst: Vec<Option<Ty>> = Vec::new();
                let mut xs = Vec::new();
                for (a, p) in args.iter().zip(params.iter()) {
                    let hint = instantiate(p, &subst);
                    let hint = (hint != Ty::Unknown).then_some(hint);
                    let (x, t) = self.translate(a, hint.as_ref())?;
                    if !match_type(p, &t, &mut subst) {
                        let expected = self.tyname(&instantiate(p, &subst));
                        return Err(crate::diag::incompatible_types(
                            &self.tyname(&t),
                            a.span,
                            &expected,
                            f.span,
                        ));
                    }
                    xs.push(x);
                }
                // A variable no argument determined (`f of []`) is left open.
                let ret = instantiate(&ret, &subst);
                Ok((
                    mk(ExprKind::Apply {
                        func: Box::new(fx),
                        args: xs,
                    }),
                    ret,
                ))
            }
            S::Builtin(b, a) => {
                let (x, t) = self.translate(a, None)?;
                let Some((op, ty)) = ops::resolve_builtin(*b, &t) else {
                    return Err(type_error(
                        format!(
                            "I don't know how to apply operator {} on type {}",
                            ops::builtin_name(*b),
                            self.tyname(&t)
                        ),
                        span,
                    ));
                };
                Ok((
                    mk(ExprKind::Unary {
                        op,
                        arg: Box::new(x),
                    }),
                    ty,
                ))
            }
            S::Tuple(es) => {
                let hints: Vec<Option<&Ty>> = match expect {
                    Some(Ty::Tuple(ts)) if ts.len() == es.len() => ts.iter().map(Some).collect(),
                    _ => vec![None; es.len()],
                };
                let mut xs = Vec::new();
                let mut ts = Vec::new();
                for (e, h) in es.iter().zip(hints) {
                    let (x, t) = self.translate(e, h)?;
                    xs.push(x);
                    ts.push(t);
                }
                Ok((mk(ExprKind::Tuple(xs)), Ty::Tuple(ts)))
            }
            S::ImpossibleMessage(m) => match expect {
                Some(t) => Ok((mk(ExprKind::ImpossibleMessage(m.clone())), t.clone())),
                None => Err(type_error(
                    "The type of this \"impossible\" cannot be inferred here",
                    span,
                )),
            },
            S::DebugPrint(label, inner) => {
                let (x, t) = self.translate(inner, expect)?;
                Ok((
                    mk(ExprKind::DebugPrint {
                        label: label.clone(),
                        expr: Box::new(x),
                    }),
                    t,
                ))
            }
            S::Impossible => match expect {
                Some(t) => Ok((mk(ExprKind::Impossible), t.clone())),
                None => Err(type_error(
                    "The type of this \"impossible\" cannot be inferred here",
                    span,
                )),
            },
            _ => self.translate_list_expr(e, expect),
        }
    }

    fn variable(&mut self, id: &ast::Ident) -> R<(Expr, Ty)> {
        let span = id.span;
        if let Some(l) = self.locals.iter().rev().find(|l| l.name == id.name) {
            let (depth, slot, ty) = (l.depth, l.slot, l.ty.clone());
            let s = self.frames.access(depth, slot);
            return Ok((Expr::new(ExprKind::Local(s), span), ty));
        }
        if let Some((_, sig)) = self.scope {
            if let Some(&di) = sig.decl_by_name.get(&id.name) {
                let decl = &sig.decls[di];
                let state = match self.defining {
                    Some((d, k)) if d == di => {
                        if decl.states.is_empty() {
                            return Err(name_error(
                                format!(
                                    "The variable {} is used in one of its definitions (Catala \
                                     doesn't support recursion).",
                                    id.name
                                ),
                                span,
                            ));
                        }
                        if k == 0 {
                            return Err(name_error(
                                "The definition of the initial state of this variable refers \
                                 to itself.",
                                span,
                            ));
                        }
                        k - 1
                    }
                    _ => decl.states.len().max(1) - 1,
                };
                return Ok(self.scope_var(sig, di, state, span));
            }
            if sig.sub_by_name.contains_key(&id.name) {
                return Err(name_error(
                    format!(
                        "The sub-scope {} can only be used to access its output variables \
                         (`{}.x`)",
                        id.name, id.name
                    ),
                    span,
                ));
            }
        }
        if let Some(tid) = self.env.lookup_topdef(self.module, &[], id)? {
            self.dep(Dep::TopDef(tid), span);
            let ty = self.env.topdefs[tid.0 as usize].value_ty();
            return Ok((Expr::new(ExprKind::TopDef(tid), span), ty));
        }
        Err(name_error(
            format!(
                "\"{}\": unknown identifier for a local, scope-wide or global variable",
                id.name
            ),
            span,
        ))
    }

    /// An enumeration constructor, or `Present`/`Absent` of an optional.
    fn constructor(
        &mut self,
        name: &ast::QualName,
        payload: Option<&ast::Expr>,
        expect: Option<&Ty>,
        span: Span,
    ) -> R<(Expr, Ty)> {
        let mk = |kind| Expr::new(kind, span);
        let (eid, case) = self.env.resolve_ctor(self.module, name)?;
        if eid == self.env.option_enum {
            return match (case, payload) {
                (1, Some(p)) => {
                    let hint = match expect {
                        Some(Ty::Option(t)) => Some((**t).clone()),
                        _ => None,
                    };
                    let (px, pt) = self.translate(p, hint.as_ref())?;
                    Ok((
                        mk(ExprKind::EnumInject {
                            id: eid,
                            case,
                            payload: Some(Box::new(px)),
                        }),
                        Ty::Option(Box::new(pt)),
                    ))
                }
                (0, None) => match expect {
                    Some(t @ Ty::Option(_)) => Ok((
                        mk(ExprKind::EnumInject {
                            id: eid,
                            case,
                            payload: None,
                        }),
                        t.clone(),
                    )),
                    _ => Ok((
                        mk(ExprKind::EnumInject {
                            id: eid,
                            case,
                            payload: None,
                        }),
                        Ty::Option(Box::new(Ty::Unknown)),
                    )),
                },
                (1, None) => Err(type_error(
                    format!("The constructor {} expects a content", name.name.name),
                    name.span(),
                )),
                _ => Err(type_error(
                    format!("The constructor {} has no content", name.name.name),
                    span,
                )),
            };
        }
        let payload_ty = self.env.enums[eid.0 as usize].cases[case as usize]
            .payload
            .clone();
        let payload = match (payload, payload_ty) {
            (Some(p), Some(t)) => {
                let origin = self.env.enums[eid.0 as usize].span;
                Some(Box::new(self.check(p, &t, origin)?))
            }
            (None, None) => None,
            (Some(p), None) => {
                return Err(type_error(
                    format!("The constructor {} has no content", name.name.name),
                    p.span,
                ))
            }
            (None, Some(t)) => {
                return Err(type_error(
                    format!(
                        "The constructor {} expects a content of type {}",
                        name.name.name,
                        self.tyname(&t)
                    ),
                    name.span(),
                ))
            }
        };
        Ok((
            mk(ExprKind::EnumInject {
                id: eid,
                case,
                payload,
            }),
            Ty::Enum(eid),
        ))
    }

    /// `M.x`: a top-level definition of a used module.
    fn qualified_variable(&mut self, q: &ast::QualName) -> R<(Expr, Ty)> {
        match self.env.lookup_topdef(self.module, &q.path, &q.name)? {
            Some(tid) => {
                self.dep(Dep::TopDef(tid), q.span());
                let ty = self.env.topdefs[tid.0 as usize].value_ty();
                Ok((Expr::new(ExprKind::TopDef(tid), q.span()), ty))
            }
            None => Err(name_error(
                format!(
                    "\"{}\": unknown identifier for a local, scope-wide or global variable",
                    q.name.name
                ),
                q.name.span,
            )),
        }
    }

    fn scope_var(&mut self, sig: &ScopeSig, decl: usize, state: usize, span: Span) -> (Expr, Ty) {
        let v = sig.decls[decl].first_var + state;
        self.dep(Dep::Var(v), span);
        let var = &sig.vars[v];
        let s = self.frames.access(0, var.slot);
        let read = Expr::new(ExprKind::Local(s), span);
        if !self.may_be_empty.get(v).copied().unwrap_or(false) {
            return (read, var.ty.clone());
        }
        // The singleton list's element, or "no applicable rule" here when it is empty.
        let binder = self.frames.alloc();
        let zero = Expr::new(
            ExprKind::Literal(Literal::Integer(num_bigint::BigInt::from(0))),
            span,
        );
        let no_value = Expr::new(
            ExprKind::ErrorOnEmpty {
                expr: Box::new(Expr::new(ExprKind::Empty, span)),
                decl: span,
            },
            span,
        );
        let first = Expr::new(
            ExprKind::ListArgExtremum {
                maximum: true,
                key_type: crate::dcalc::CmpType::Integer,
                binder,
                list: Box::new(read),
                key: Box::new(zero),
                default: Some(Box::new(no_value)),
            },
            span,
        );
        (first, var.ty.clone())
    }

    fn state_access(&mut self, id: &ast::Ident, state: &ast::Ident, span: Span) -> R<(Expr, Ty)> {
        let Some((_, sig)) = self.scope else {
            return Err(name_error(
                format!("\"{}\": not a scope variable", id.name),
                id.span,
            ));
        };
        let Some(&di) = sig.decl_by_name.get(&id.name) else {
            return Err(name_error(
                format!(
                    "\"{}\": unknown identifier for a local, scope-wide or global variable",
                    id.name
                ),
                id.span,
            ));
        };
        let decl = &sig.decls[di];
        if decl.states.is_empty() {
            return Err(name_error(
                format!("Variable {} does not define states.", id.name),
                state.span,
            ));
        }
        let Some(k) = decl.states.iter().position(|s| s == &state.name) else {
            return Err(name_error(
                format!(
                    "This identifier is not a state declared for variable {}.",
                    id.name
                ),
                state.span,
            ));
        };
        if let Some((d, cur)) = self.defining {
            if d == di && k >= cur {
                return Err(name_error(
                    format!(
                        "The variable {} is used in one of its definitions (Catala doesn't \
                         support recursion).",
                        id.name
                    ),
                    span,
                ));
            }
        }
        Ok(self.scope_var(sig, di, k, span))
    }

    fn binop(
        &mut self,
        op: ast::BinOp,
        op_span: Span,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
    ) -> R<(Expr, Ty)> {
        // Each operand's type types an empty list or `Absent` on the other side (`l = []`,
        // `Absent = x`).
        let (ax, at, bx, bt) = if needs_type_hint(a) && !needs_type_hint(b) {
            let (bx, bt) = self.translate(b, None)?;
            let (ax, at) = self.translate(a, Some(&bt))?;
            (ax, at, bx, bt)
        } else {
            let (ax, at) = self.translate(a, None)?;
            let (bx, bt) = self.translate(b, Some(&at))?;
            (ax, at, bx, bt)
        };
        let ordering = matches!(
            op,
            ast::BinOp::Lt | ast::BinOp::Le | ast::BinOp::Gt | ast::BinOp::Ge
        );
        let equality = matches!(op, ast::BinOp::Eq | ast::BinOp::Neq);
        if (ordering && (has_open_type(&at) || has_open_type(&bt)))
            || (equality && (has_type_var(&at) || has_type_var(&bt)))
        {
            return Err(type_error(
                "Comparison cannot be resolved at this point: the type of the operands is not \
                 fully known.",
                span,
            ));
        }
        let arithmetic = matches!(
            op,
            ast::BinOp::Add | ast::BinOp::Sub | ast::BinOp::Mul | ast::BinOp::Div
        );
        if arithmetic {
            if let Some(unknown) = [a, b].into_iter().find(|x| matches!(x.kind, S::Impossible)) {
                let mut d = type_error(
                    format!(
                        "In this application of operator {}, the type of an operand is unknown",
                        op.symbol()
                    ),
                    span,
                );
                let mut label = catala_syntax::Label::new(op_span);
                label.note = Some("Undetermined type <any type> coming from expression:".into());
                d.labels.push(label);
                let _ = unknown;
                return Err(d);
            }
        }
        let Some(r) = ops::resolve_binary(op, &at, &bt, self.rounding) else {
            let logical = matches!(op, ast::BinOp::And | ast::BinOp::Or | ast::BinOp::Xor);
            if logical {
                if at != Ty::Bool {
                    return Err(incompatible_types(&self.tyname(&at), a.span, "bool", span));
                }
                return Err(incompatible_types(&self.tyname(&bt), b.span, "bool", span));
            }
            let comparison = matches!(
                op,
                ast::BinOp::Eq
                    | ast::BinOp::Neq
                    | ast::BinOp::Lt
                    | ast::BinOp::Le
                    | ast::BinOp::Gt
                    | ast::BinOp::Ge
            );
            if at != bt && comparison {
                return Err(crate::diag::incompatible_operands(
                    &self.tyname(&bt),
                    b.span,
                    &self.tyname(&at),
                    a.span,
                ));
            }
            if op == ast::BinOp::Concat {
                let any_list = "list of <any type>".to_string();
                return Err(match (&at, &bt) {
                    (Ty::List(_), Ty::List(_)) => {
                        incompatible_types(&self.tyname(&bt), b.span, &self.tyname(&at), a.span)
                    }
                    (Ty::List(_), _) => {
                        incompatible_types(&self.tyname(&bt), b.span, &any_list, span)
                    }
                    (_, Ty::List(_)) => {
                        incompatible_types(&self.tyname(&at), a.span, &self.tyname(&bt), b.span)
                    }
                    _ => incompatible_types(&self.tyname(&at), a.span, &any_list, span),
                });
            }
            return Err(name_error_at(
                format!(
                    "I don't know how to apply operator {} on types {} and {}",
                    op.symbol(),
                    self.tyname(&at),
                    self.tyname(&bt)
                ),
                &[span, a.span, b.span],
            )
            .with_kind_typing());
        };
        let (lhs, rhs) = if r.swap { (bx, ax) } else { (ax, bx) };
        // Runtime errors of an operator (ambiguous date, incomparable durations) point at the
        // operator token, as Catala does.
        Ok((
            Expr::new(
                ExprKind::Binary {
                    op: r.op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                    whole: span,
                },
                op_span,
            ),
            r.result,
        ))
    }

    /// Makes an expression capture-free by wrapping: used for the `Arc` of lambdas.
    pub(crate) fn lambda_expr(lambda: crate::dcalc::Lambda, span: Span) -> Expr {
        Expr::new(ExprKind::Lambda(Arc::new(lambda)), span)
    }
}

/// Small extension to retag a diagnostic built with a name-resolution constructor.
pub(crate) trait WithKind {
    fn with_kind_typing(self) -> Self;
}

impl WithKind for Diagnostic {
    fn with_kind_typing(mut self) -> Self {
        self.kind = catala_syntax::DiagnosticKind::Typing;
        self
    }
}

/// A boolean literal node (used by the list, pattern and scope modules).
pub(crate) fn bool_lit(b: bool, span: Span) -> Expr {
    Expr::new(ExprKind::Literal(Literal::Bool(b)), span)
}
