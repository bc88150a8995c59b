//! Values that may be absent, as Catala's defaults make them: a variable allowed to stay empty
//! (an internal variable, or a context variable that is not an output, see
//! [`ScopeVar::may_be_empty`](crate::dcalc::ScopeVar::may_be_empty)) is stored as a list of zero
//! or one value; and a caller's definition of a context *function* is a closure returning such a
//! list, so that on each call where the caller's rules give no value the callee's own rules
//! apply (Catala's merging of the caller's and the callee's defaults for reentrant functions).

use crate::dcalc::{CmpType, Expr, ExprKind, Literal, Slot};
use crate::env::VarDecl;
use crate::expr::{bool_lit, ExprCtx};
use catala_syntax::Span;

fn pure(value: Expr) -> Expr {
    let span = value.span;
    Expr::new(ExprKind::PureDefault(Box::new(value)), span)
}

/// `⟨ | ScopeArgGiven(input) :- consequence ⟩`. Its span is the empty span at the start of
/// `span` (the variable's declaration): companions that follow the default term of a context
/// input by its declaration span (the concolic engine) must see only that term's decision.
fn if_given(input: u32, consequence: Expr, span: Span) -> Expr {
    let inner = Span {
        end: span.start,
        ..span
    };
    Expr::new(
        ExprKind::Default {
            exceptions: Vec::new(),
            justification: Box::new(Expr::new(ExprKind::ScopeArgGiven(input), inner)),
            consequence: Box::new(consequence),
        },
        inner,
    )
}

/// `⟨ tree as a one-element list | true :- [] ⟩`: a default position that is never empty.
pub(crate) fn as_optional_list(tree: Expr, has_rules: bool, span: Span) -> Expr {
    let exceptions = if has_rules {
        vec![singleton_leaves(tree)]
    } else {
        Vec::new()
    };
    Expr::new(
        ExprKind::Default {
            exceptions,
            justification: Box::new(bool_lit(true, span)),
            consequence: Box::new(pure(Expr::new(ExprKind::List(Vec::new()), span))),
        },
        span,
    )
}

/// The only element of the zero-or-one-element list `list`, or `otherwise` (a value position
/// evaluated only when the list is empty). `binder` is a fresh slot of the current frame.
pub(crate) fn element_or(list: Expr, otherwise: Expr, binder: Slot, span: Span) -> Expr {
    Expr::new(
        ExprKind::ListArgExtremum {
            maximum: true,
            key_type: CmpType::Integer,
            binder,
            list: Box::new(list),
            key: Box::new(Expr::new(
                ExprKind::Literal(Literal::Integer(num_bigint::BigInt::from(0))),
                span,
            )),
            default: Some(Box::new(otherwise)),
        },
        span,
    )
}

/// The default tree of a context function variable whose own closure is `own` (the default
/// position `PureDefault(closure)` built from the scope's rules): when the caller gave a
/// function (argument `input`, a closure returning a list of zero or one value), the variable
/// is `fun params -> element of caller(params), or else own(params)`.
pub(crate) fn merged_function(
    ctx: &mut ExprCtx<'_>,
    input: u32,
    own: Expr,
    decl: &VarDecl,
) -> Expr {
    let span = decl.span;
    let given_value = || {
        Expr::new(
            ExprKind::ErrorOnEmpty {
                expr: Box::new(Expr::new(ExprKind::ScopeArg(input), span)),
                decl: span,
            },
            span,
        )
    };
    let (ExprKind::PureDefault(own_closure), Some(params)) = (&own.kind, &decl.params) else {
        // The scope's own rules did not compile: keep the plain override.
        return Expr::new(
            ExprKind::Default {
                exceptions: vec![Expr::new(ExprKind::ScopeArg(input), span)],
                justification: Box::new(bool_lit(true, span)),
                consequence: Box::new(own),
            },
            span,
        );
    };
    let own_closure = (**own_closure).clone();
    let depth = ctx.frames.depth();
    let own_slot = ctx.frames.alloc();
    let param_slots = ctx.frames.open_closure(params.len());
    let own_inner = ctx.frames.access(depth, own_slot);
    let args = |slots: &[Slot]| -> Vec<Expr> {
        slots
            .iter()
            .map(|s| Expr::new(ExprKind::Local(*s), span))
            .collect()
    };
    let from_caller = Expr::new(
        ExprKind::Apply {
            func: Box::new(given_value()),
            args: args(&param_slots),
        },
        span,
    );
    let from_own = Expr::new(
        ExprKind::Apply {
            func: Box::new(Expr::new(ExprKind::Local(own_inner), span)),
            args: args(&param_slots),
        },
        span,
    );
    let binder = ctx.frames.alloc();
    let body = element_or(from_caller, from_own, binder, span);
    let names = params
        .iter()
        .map(|(n, t, _)| (n.clone(), t.clone()))
        .collect();
    let merged = ExprCtx::lambda_expr(ctx.frames.close_closure(names, body), span);
    let with_caller = Expr::new(
        ExprKind::Let {
            slot: own_slot,
            value: Box::new(own_closure),
            body: Box::new(merged),
        },
        span,
    );
    Expr::new(
        ExprKind::Default {
            exceptions: vec![if_given(input, pure(with_caller), span)],
            justification: Box::new(bool_lit(true, span)),
            consequence: Box::new(own),
        },
        span,
    )
}

/// `fun params -> [f(params)]`: a function given in `output of S with { -- f: … }` for a context
/// function of `S`, in the zero-or-one-element-list convention of [`merged_function`].
pub(crate) fn list_returning(ctx: &mut ExprCtx<'_>, f: Expr, decl: &VarDecl) -> Expr {
    let span = f.span;
    let Some(params) = &decl.params else {
        return f;
    };
    let depth = ctx.frames.depth();
    let f_slot = ctx.frames.alloc();
    let param_slots = ctx.frames.open_closure(params.len());
    let f_inner = ctx.frames.access(depth, f_slot);
    let call = Expr::new(
        ExprKind::Apply {
            func: Box::new(Expr::new(ExprKind::Local(f_inner), span)),
            args: param_slots
                .iter()
                .map(|s| Expr::new(ExprKind::Local(*s), span))
                .collect(),
        },
        span,
    );
    let body = Expr::new(ExprKind::List(vec![call]), span);
    let names = params
        .iter()
        .map(|(n, t, _)| (n.clone(), t.clone()))
        .collect();
    let wrapped = ExprCtx::lambda_expr(ctx.frames.close_closure(names, body), span);
    Expr::new(
        ExprKind::Let {
            slot: f_slot,
            value: Box::new(f),
            body: Box::new(wrapped),
        },
        span,
    )
}

/// Wraps every rule value of a default tree into a one-element list.
pub(crate) fn singleton_leaves(mut e: Expr) -> Expr {
    match &mut e.kind {
        ExprKind::Default {
            exceptions,
            consequence,
            ..
        } => {
            let excs = std::mem::take(exceptions);
            *exceptions = excs.into_iter().map(singleton_leaves).collect();
            let cons = std::mem::replace(&mut **consequence, Expr::new(ExprKind::Empty, e.span));
            **consequence = singleton_leaves(cons);
            e
        }
        ExprKind::ScopeArg(i) => {
            // The caller's value, if any, as a one-element list.
            let (i, span) = (*i, e.span);
            let value = Expr::new(
                ExprKind::ErrorOnEmpty {
                    expr: Box::new(Expr::new(ExprKind::ScopeArg(i), span)),
                    decl: span,
                },
                span,
            );
            if_given(i, pure(Expr::new(ExprKind::List(vec![value]), span)), span)
        }
        ExprKind::PureDefault(v) => {
            let span = v.span;
            let inner = std::mem::replace(&mut **v, Expr::new(ExprKind::Empty, span));
            **v = Expr::new(ExprKind::List(vec![inner]), span);
            e
        }
        _ => e,
    }
}
