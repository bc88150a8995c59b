//! Lowering of one scope: gathers the rules, definitions and assertions of every `scope S:` block
//! (pushing a block's `under condition` into each of its rules), resolves what each definition
//! defines (a variable state or a sub-scope's input), builds every variable's default tree (with
//! the bottom `false` of conditions, the caller's override of context variables, closures for
//! function variables), the arguments of sub-scope calls, and orders it all into statements.

use crate::context;
use crate::dcalc::{
    self, DateRounding, Expr, ExprKind, InputKind, ScopeId, ScopeInput, ScopeOutput, Slot, Stmt,
    SubScope, Ty,
};
use crate::diag::{name_error, name_error_at, type_error};
use crate::env::{Env, ScopeSig, VarDecl};
use crate::expr::{bool_lit, Dep, ExprCtx, R};
use crate::order::DepGraph;
use crate::rules::{build_tree, ExceptionTarget, Rule};
use catala_syntax::ast::{self, DefBody, ScopeUseItem};
use catala_syntax::{Diagnostic, Label, Span};
use std::collections::HashMap;

/// A `scope S:` block with the item carrying it.
pub(crate) type ScopeBlock<'p> = (&'p ast::ScopeUse, &'p ast::Item);

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    /// A state of a variable of the scope (index in [`ScopeSig::vars`]).
    Var(usize),
    /// Input `input` (index in the callee's inputs) of sub-scope `sub`.
    SubInput { sub: usize, input: usize },
}

type Pending<'p> = (&'p ast::Definition, Option<&'p ast::Expr>);

/// The result of lowering a scope: the scope and the scopes it calls.
pub(crate) struct LoweredScope {
    pub scope: dcalc::Scope,
    /// Callees with the span of one call, for the scope cycle check.
    pub callees: Vec<(ScopeId, Span)>,
}

fn date_rounding(blocks: &[ScopeBlock<'_>]) -> R<DateRounding> {
    let mut found: Option<(DateRounding, Span)> = None;
    for (u, _) in blocks {
        for it in &u.items {
            if let ScopeUseItem::DateRounding(r, span) = it {
                if let Some((_, prev)) = found {
                    return Err(name_error_at(
                        "You cannot set multiple date rounding modes.",
                        &[prev, *span],
                    ));
                }
                let mode = match r {
                    ast::DateRounding::Up => DateRounding::Up,
                    ast::DateRounding::Down => DateRounding::Down,
                };
                found = Some((mode, *span));
            }
        }
    }
    Ok(found.map_or(DateRounding::Abort, |(m, _)| m))
}

fn resolve_target(env: &Env, sig: &ScopeSig, t: &ast::DefTarget) -> R<Target> {
    match t.path.as_slice() {
        [x] => {
            let Some(&di) = sig.decl_by_name.get(&x.name) else {
                return Err(name_error(
                    format!(
                        "\"{}\": unknown identifier for a scope variable of scope {}",
                        x.name, sig.name
                    ),
                    x.span,
                ));
            };
            let decl = &sig.decls[di];
            let k = match (&t.state, decl.states.is_empty()) {
                (None, true) => 0,
                (None, false) => {
                    return Err(name_error_at(
                        format!(
                            "This definition does not indicate which state has to be \
                             considered for variable {}.",
                            x.name
                        ),
                        &[t.span, decl.span],
                    ))
                }
                (Some(st), true) => {
                    return Err(name_error(
                        format!("Variable {} does not define states.", x.name),
                        st.span,
                    ))
                }
                (Some(st), false) => match decl.states.iter().position(|s| s == &st.name) {
                    Some(k) => k,
                    None => {
                        return Err(name_error(
                            format!(
                                "This identifier is not a state declared for variable {}.",
                                x.name
                            ),
                            st.span,
                        ))
                    }
                },
            };
            // The first state of an input variable is the caller's value.
            if decl.kind == InputKind::Input && k == 0 {
                return Err(name_error_at(
                    "There cannot be a definition for a scope variable tagged as input.",
                    &[decl.span, t.span],
                ));
            }
            Ok(Target::Var(decl.first_var + k))
        }
        [sub, x] => {
            let Some(&si) = sig.sub_by_name.get(&sub.name) else {
                return Err(name_error(
                    format!("Invalid definition, {} is not a subscope", sub.name),
                    sub.span,
                ));
            };
            let callee = env.scope(sig.subscopes[si].scope);
            let Some(&di) = callee.decl_by_name.get(&x.name) else {
                return Err(name_error(
                    format!(
                        "\"{}\": unknown identifier for a scope variable of scope {}",
                        x.name, callee.name
                    ),
                    x.span,
                ));
            };
            match callee.input_index(di) {
                Some(input) => Ok(Target::SubInput { sub: si, input }),
                None => Err(name_error_at(
                    "Invalid assignment to a subscope variable that is not tagged as input or \
                     context.",
                    &[sig.subscopes[si].span, callee.decls[di].span, t.span],
                )),
            }
        }
        _ => Err(name_error("Invalid definition target", t.span)),
    }
}

/// Translates the rules of one target into [`Rule`]s (inside the current frame of `ctx`).
fn translate_rules(
    ctx: &mut ExprCtx<'_>,
    defs: &[Pending<'_>],
    decl: &VarDecl,
    param_slots: &[Slot],
) -> R<Vec<Rule>> {
    let mut rules = Vec::with_capacity(defs.len());
    for (def, scope_cond) in defs {
        let mut bound = 0;
        if let Some(params) = &decl.params {
            if def.params.len() != params.len() {
                return Err(name_error_at(
                    format!(
                        "This definition has {} argument(s) but {} takes {}.",
                        def.params.len(),
                        decl.name,
                        params.len()
                    ),
                    &[def.target.span, decl.span],
                ));
            }
            for ((p, slot), (pname, pty, pspan)) in def.params.iter().zip(param_slots).zip(params) {
                if &p.name != pname {
                    let mut d = name_error(
                        format!(
                            "Function argument name mismatch between declaration ('{pname}') \
                             and definition ('{}').",
                            p.name
                        ),
                        *pspan,
                    );
                    d.labels.push(Label::new(p.span));
                    ctx.unbind(bound);
                    return Err(d);
                }
                ctx.bind_slot(&p.name, *slot, pty.clone());
                bound += 1;
            }
        } else if let Some(p) = def.params.first() {
            return Err(name_error_at(
                format!("{} is not a function: it takes no argument.", decl.name),
                &[p.span, decl.span],
            ));
        }
        let r = translate_rule(ctx, def, *scope_cond, decl);
        ctx.unbind(bound);
        rules.push(r?);
    }
    Ok(rules)
}

fn translate_rule(
    ctx: &mut ExprCtx<'_>,
    def: &ast::Definition,
    scope_cond: Option<&ast::Expr>,
    decl: &VarDecl,
) -> R<Rule> {
    let mut just: Option<Expr> = None;
    for c in [scope_cond, def.condition.as_ref()].into_iter().flatten() {
        let x = ctx.check(c, &Ty::Bool, c.span)?;
        just = Some(match just {
            None => x,
            Some(prev) => {
                let span = prev.span;
                Expr::new(
                    ExprKind::Binary {
                        op: dcalc::BinaryOp::And,
                        lhs: Box::new(prev),
                        rhs: Box::new(x),
                        whole: span,
                    },
                    span,
                )
            }
        });
    }
    let consequence = match &def.body {
        DefBody::Expr(e) => ctx.check(e, &decl.ty, decl.ty_span)?,
        DefBody::Fulfilled(b, span) => {
            if decl.ty != Ty::Bool {
                return Err(type_error(
                    format!(
                        "A rule can only define a condition or boolean variable; {} is not one.",
                        decl.name
                    ),
                    *span,
                ));
            }
            bool_lit(*b, *span)
        }
    };
    let exception = match &def.exception {
        ast::ExceptionTo::None => ExceptionTarget::None,
        ast::ExceptionTo::Unlabeled(s) => ExceptionTarget::Unlabeled(*s),
        ast::ExceptionTo::Label(l) => ExceptionTarget::Label(l.name.clone(), l.span),
    };
    let cons_span = match &def.body {
        DefBody::Expr(e) => e.span,
        DefBody::Fulfilled(_, span) => *span,
    };
    Ok(Rule {
        label: def.label.as_ref().map(|l| (l.name.clone(), l.span)),
        exception,
        justification: just,
        consequence,
        cons_span,
        name_span: def.target.span,
        def_span: def.span,
    })
}

/// Builds a target's default tree (a default position), as a closure body when `decl` is a
/// function; `bottom_false` adds the `false` default of conditions. With `list_result` (a
/// caller's definition of a context function), the closure returns its value as a list of zero
/// or one element, so that the callee can fall back to its own rules (see [`context`]).
fn target_tree(
    ctx: &mut ExprCtx<'_>,
    defs: &[Pending<'_>],
    decl: &VarDecl,
    var_name: &str,
    bottom_false: bool,
    list_result: bool,
) -> R<Expr> {
    let build = |ctx: &mut ExprCtx<'_>, slots: &[Slot]| -> R<Expr> {
        let mut rules = translate_rules(ctx, defs, decl, slots)?;
        if decl.params.is_none() {
            mark_sole_division(&mut rules, decl.span);
        }
        let has_rules = !rules.is_empty();
        let tree = build_tree(rules, var_name, decl.span)?;
        if list_result {
            return Ok(context::as_optional_list(tree, has_rules, decl.span));
        }
        if !bottom_false {
            return Ok(tree);
        }
        let span = decl.span;
        let exceptions = if has_rules { vec![tree] } else { Vec::new() };
        Ok(Expr::new(
            ExprKind::Default {
                exceptions,
                justification: Box::new(bool_lit(true, span)),
                consequence: Box::new(Expr::new(
                    ExprKind::PureDefault(Box::new(bool_lit(false, span))),
                    span,
                )),
            },
            span,
        ))
    };
    match &decl.params {
        None => build(ctx, &[]),
        Some(params) => {
            let slots = ctx.frames.open_closure(params.len());
            let body = build(ctx, &slots);
            let body = match body {
                Ok(b) => b,
                Err(e) => {
                    ctx.frames
                        .close_closure(Vec::new(), bool_lit(false, decl.span));
                    return Err(e);
                }
            };
            let body = Expr::new(
                ExprKind::ErrorOnEmpty {
                    expr: Box::new(body),
                    decl: decl.span,
                },
                decl.span,
            );
            let ps = params
                .iter()
                .map(|(n, t, _)| (n.clone(), t.clone()))
                .collect();
            let lambda = ctx.frames.close_closure(ps, body);
            Ok(Expr::new(
                ExprKind::PureDefault(Box::new(ExprCtx::lambda_expr(lambda, decl.span))),
                decl.span,
            ))
        }
    }
}

/// Lowers scope `id` from its `scope S:` blocks.
pub(crate) fn lower_scope(env: &Env, id: ScopeId, blocks: &[ScopeBlock<'_>]) -> R<LoweredScope> {
    let sig = env.scope(id);
    let rounding = date_rounding(blocks)?;
    let mut by_target: HashMap<Target, Vec<Pending<'_>>> = HashMap::new();
    let mut assertions: Vec<(&ast::Assertion, Option<&ast::Expr>, &ast::Item)> = Vec::new();
    for (u, item) in blocks {
        for it in &u.items {
            match it {
                ScopeUseItem::Definition(def) => {
                    let t = resolve_target(env, sig, &def.target)?;
                    by_target
                        .entry(t)
                        .or_default()
                        .push((def, u.condition.as_ref()));
                }
                ScopeUseItem::Assertion(a) => assertions.push((a, u.condition.as_ref(), item)),
                ScopeUseItem::DateRounding(..) => {}
            }
        }
    }
    let mut ctx = ExprCtx::for_scope(env, id, rounding);
    ctx.may_be_empty = (0..sig.vars.len())
        .map(|v| {
            let decl = &sig.decls[sig.var_decl[v]];
            // Catala: internal variables and states, and non-output context variables, that
            // are not functions (`allow_empty` in scopelang/from_desugared.ml). Of a variable
            // with states, the first state is an input as the variable is, the last an output
            // as the variable is, and the states between are internal: an empty state that is
            // never read is no error.
            let state = v - decl.first_var;
            let last = decl.states.len().max(1) - 1;
            let input = state == 0 && decl.kind == InputKind::Input;
            let output = state == last && decl.output;
            !input
                && !output
                && decl.params.is_none()
                && !decl.is_condition
                && !always_defined(by_target.get(&Target::Var(v)).map_or(&[], Vec::as_slice))
        })
        .collect();
    let nv = sig.vars.len();
    let ns = sig.subscopes.len();
    let mut vertex_deps: Vec<Vec<(Dep, Span)>> = Vec::new();
    let mut stmts: Vec<Stmt> = Vec::new();

    // Variables. A variable whose rules fail to type still records the dependencies read so far:
    // Catala reports a dependency cycle before typing errors.
    let mut first_error: Option<Diagnostic> = None;
    for (v, var) in sig.vars.iter().enumerate() {
        let di = sig.var_decl[v];
        let decl = &sig.decls[di];
        let k = v - decl.first_var;
        let defs = by_target.remove(&Target::Var(v)).unwrap_or_default();
        ctx.deps.clear();
        ctx.defining = Some((di, k));
        let input = sig.input_index(di).filter(|_| k == 0);
        let span = decl.span;
        let arg = |i: usize| Expr::new(ExprKind::ScopeArg(i as u32), span);
        let tree = match (decl.kind, input) {
            (InputKind::Input, Some(i)) => arg(i),
            (kind, input) => {
                let name = match &var.state {
                    Some(s) => format!("{}@{}", decl.name, s),
                    None => decl.name.clone(),
                };
                let bottom = decl.is_condition;
                let tree = match target_tree(&mut ctx, &defs, decl, &name, bottom, false) {
                    Ok(t) => t,
                    Err(e) => {
                        ctx.unbind(usize::MAX);
                        first_error.get_or_insert(e);
                        Expr::new(ExprKind::Empty, span)
                    }
                };
                match (kind, input) {
                    (InputKind::Context, Some(i)) if decl.params.is_some() => {
                        context::merged_function(&mut ctx, i as u32, tree, decl)
                    }
                    (InputKind::Context, Some(i)) => Expr::new(
                        ExprKind::Default {
                            exceptions: vec![arg(i)],
                            justification: Box::new(bool_lit(true, span)),
                            consequence: Box::new(tree),
                        },
                        span,
                    ),
                    _ => tree,
                }
            }
        };
        ctx.defining = None;
        let tree = if ctx.may_be_empty[v] {
            // A list of zero or one value: never empty itself.
            Expr::new(
                ExprKind::Default {
                    exceptions: vec![context::singleton_leaves(tree)],
                    justification: Box::new(bool_lit(true, span)),
                    consequence: Box::new(Expr::new(
                        ExprKind::PureDefault(Box::new(Expr::new(
                            ExprKind::List(Vec::new()),
                            span,
                        ))),
                        span,
                    )),
                },
                span,
            )
        } else {
            tree
        };
        let expr = Expr::new(
            ExprKind::ErrorOnEmpty {
                expr: Box::new(tree),
                decl: span,
            },
            span,
        );
        stmts.push(Stmt::Define {
            var: v as u32,
            slot: var.slot,
            expr,
        });
        vertex_deps.push(std::mem::take(&mut ctx.deps));
    }

    // Sub-scope calls.
    for (si, sub) in sig.subscopes.iter().enumerate() {
        let callee = env.scope(sub.scope);
        ctx.deps.clear();
        let mut args = Vec::with_capacity(callee.inputs.len());
        for (i, &cdi) in callee.inputs.iter().enumerate() {
            let cdecl = &callee.decls[cdi];
            let defs = by_target
                .remove(&Target::SubInput { sub: si, input: i })
                .unwrap_or_default();
            let bottom = cdecl.is_condition && cdecl.kind == InputKind::Input;
            if defs.is_empty() && !bottom {
                if cdecl.kind == InputKind::Input {
                    return Err(name_error_at(
                        "This subscope variable is a mandatory input but no definition was \
                         provided.",
                        &[sub.span, cdecl.span],
                    ));
                }
                args.push(None);
                continue;
            }
            let name = format!("{}.{}", sub.name, cdecl.name);
            let first_use = ctx.deps.len();
            let list_result = cdecl.kind == InputKind::Context && cdecl.params.is_some();
            let tree = target_tree(&mut ctx, &defs, cdecl, &name, bottom, list_result)?;
            if let Some((_, span)) = ctx.deps[first_use..]
                .iter()
                .find(|(d, _)| *d == Dep::Sub(si))
            {
                return Err(name_error(
                    format!(
                        "The subscope {} is used in the definition of its own input {}.{} \
                         (Catala doesn't support recursion).",
                        sub.name, sub.name, cdecl.name
                    ),
                    *span,
                ));
            }
            args.push(Some(tree));
        }
        stmts.push(Stmt::CallSubScope {
            subscope: si as u32,
            slot: sub.slot,
            scope: sub.scope,
            args,
            span: sub.span,
        });
        vertex_deps.push(std::mem::take(&mut ctx.deps));
    }

    // Assertions.
    for (a, cond, item) in &assertions {
        ctx.deps.clear();
        let mut expr = ctx.check(&a.expr, &Ty::Bool, a.expr.span)?;
        if let Some(c) = cond {
            let cx = ctx.check(c, &Ty::Bool, c.span)?;
            let span = expr.span;
            expr = Expr::new(
                ExprKind::If {
                    cond: Box::new(cx),
                    then_branch: Box::new(expr),
                    else_branch: Box::new(bool_lit(true, span)),
                },
                span,
            );
        }
        let message = a
            .attributes
            .iter()
            .find(|at| at.path == ["error", "message"])
            .and_then(|at| at.value.clone());
        stmts.push(Stmt::Assert {
            expr,
            span: a.span,
            headings: item.headings.clone(),
            message,
        });
        vertex_deps.push(std::mem::take(&mut ctx.deps));
    }

    // Evaluation order.
    let mut callees: Vec<(ScopeId, Span)> =
        sig.subscopes.iter().map(|s| (s.scope, s.span)).collect();
    let mut deps = Vec::with_capacity(vertex_deps.len());
    for ds in &vertex_deps {
        let mut out = Vec::new();
        for (d, span) in ds {
            match d {
                Dep::Var(v) => out.push(*v),
                Dep::Sub(s) => out.push(nv + s),
                Dep::Scope(s) => callees.push((*s, *span)),
                Dep::TopDef(_) => {}
            }
        }
        deps.push(out);
    }
    let mut keys: Vec<(u8, usize)> = Vec::with_capacity(deps.len());
    for (v, _) in sig.vars.iter().enumerate() {
        let decl = &sig.decls[sig.var_decl[v]];
        keys.push((0, decl.position * 1024 + (v - decl.first_var)));
    }
    for s in &sig.subscopes {
        keys.push((0, s.position * 1024));
    }
    for j in 0..assertions.len() {
        keys.push((1, j));
    }
    // In the search for a cycle, Catala meets the states of a variable from the last one to
    // the first (its state_cycle test starts the cycle at the first state of the greatest
    // variable).
    let mut cycle_keys = keys.clone();
    for (v, key) in cycle_keys.iter_mut().enumerate().take(nv) {
        let decl = &sig.decls[sig.var_decl[v]];
        key.1 = decl.position * 1024 + 1023 - (v - decl.first_var);
    }
    let graph = DepGraph {
        deps,
        keys,
        cycle_keys: Some(cycle_keys),
    };
    let order = match graph.order() {
        Ok(o) => o,
        Err(cycle) => return Err(cycle_error(sig, &cycle, &vertex_deps, nv, ns)),
    };
    if let Some(e) = first_error {
        return Err(e);
    }
    let mut slots: Vec<Option<Stmt>> = stmts.into_iter().map(Some).collect();
    let body: Vec<Stmt> = order.into_iter().filter_map(|v| slots[v].take()).collect();

    let inputs = sig
        .inputs
        .iter()
        .map(|&d| {
            let decl = &sig.decls[d];
            ScopeInput {
                name: decl.name.clone(),
                ty: decl.value_ty(),
                kind: decl.kind,
                var: decl.first_var as u32,
                span: decl.span,
            }
        })
        .collect();
    let mut outputs: Vec<(usize, ScopeOutput)> = sig
        .decls
        .iter()
        .filter(|d| d.output)
        .map(|d| {
            let out = ScopeOutput {
                name: d.name.clone(),
                ty: d.value_ty(),
                slot: sig.vars[d.last_var()].slot,
            };
            (d.position, out)
        })
        .collect();
    outputs.extend(sig.subscopes.iter().filter(|s| s.output).map(|s| {
        let out = ScopeOutput {
            name: s.name.clone(),
            ty: Ty::Struct(env.scope(s.scope).output_struct),
            slot: s.slot,
        };
        (s.position, out)
    }));
    outputs.sort_by_key(|(p, _)| *p);
    let outputs: Vec<ScopeOutput> = outputs.into_iter().map(|(_, o)| o).collect();
    let main = env.main_module();
    let scope = dcalc::Scope {
        name: sig.name.clone(),
        module: (sig.module != main).then(|| env.ns(sig.module).name.clone()),
        language: sig.language,
        inputs,
        vars: sig
            .vars
            .iter()
            .zip(&ctx.may_be_empty)
            .map(|(v, e)| dcalc::ScopeVar {
                may_be_empty: *e,
                ..v.clone()
            })
            .collect(),
        outputs,
        output_struct: sig.output_struct,
        subscopes: sig
            .subscopes
            .iter()
            .map(|s| SubScope {
                name: s.name.clone(),
                scope: s.scope,
                slot: s.slot,
                span: s.span,
            })
            .collect(),
        date_rounding: rounding,
        is_test: sig.is_test,
        span: sig.span,
        headings: sig.headings.clone(),
        frame_size: ctx.frames.base_size(),
        body,
    };
    Ok(LoweredScope { scope, callees })
}

/// True when some rule of a variable has no condition at all (none of its own, not in a
/// conditional block): its group is then never empty, hence neither is every group above it up to
/// the root of the exception tree, so the variable always has a value (or a conflict).
fn always_defined(defs: &[Pending<'_>]) -> bool {
    defs.iter()
        .any(|(def, block_cond)| block_cond.is_none() && def.condition.is_none())
}

fn vertex_name(sig: &ScopeSig, v: usize, nv: usize) -> String {
    if v < nv {
        let var = &sig.vars[v];
        match &var.state {
            Some(s) => format!("{}@{}", var.name, s),
            None => var.name.clone(),
        }
    } else if v < nv + sig.subscopes.len() {
        sig.subscopes[v - nv].name.clone()
    } else {
        "assertion".to_string()
    }
}

fn cycle_error(
    sig: &ScopeSig,
    cycle: &[usize],
    vertex_deps: &[Vec<(Dep, Span)>],
    nv: usize,
    ns: usize,
) -> Diagnostic {
    let as_dep = |v: usize| {
        if v < nv {
            Some(Dep::Var(v))
        } else if v < nv + ns {
            Some(Dep::Sub(v - nv))
        } else {
            None
        }
    };
    let mut names: Vec<String> = cycle.iter().map(|&v| vertex_name(sig, v, nv)).collect();
    if let Some(first) = names.first().cloned() {
        names.push(first);
    }
    let mut d = Diagnostic::new(
        catala_syntax::DiagnosticKind::NameResolution,
        format!(
            "Cyclic dependency detected between the following variables of scope {}:\n{}",
            sig.name,
            names.join(" → ")
        ),
    );
    for i in 0..cycle.len() {
        let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
        let used = as_dep(a).and_then(|da| {
            vertex_deps
                .get(b)
                .and_then(|ds| ds.iter().find(|(x, _)| *x == da).map(|(_, s)| *s))
        });
        if let Some(span) = used {
            let mut l = Label::new(span);
            l.note = Some(format!(
                "{} is used here in the definition of {}:",
                vertex_name(sig, a, nv),
                vertex_name(sig, b, nv)
            ));
            d.labels.push(l);
        }
    }
    d
}

/// A division that is the whole consequence of a variable's only rule, unconditional: Catala's
/// compiled code reports its division by zero at the variable's declaration (see
/// [`ExprKind::Binary`]).
fn mark_sole_division(rules: &mut [crate::rules::Rule], decl: Span) {
    let [rule] = rules else { return };
    if rule.justification.is_some() || rule.label.is_some() {
        return;
    }
    if let ExprKind::Binary { op, whole, .. } = &mut rule.consequence.kind {
        if op.is_division() {
            *whole = decl;
        }
    }
}
