//! The whole-program pass: declarations, top-level definitions (typed, ordered by dependency),
//! every scope lowered, cycle checks between scopes, and the heading index used for messages.

use crate::dcalc::{self, HeadingRange, ScopeId, TopDefId};
use crate::diag::{attach_headings, name_error, name_error_at};
use crate::env::{self, Env, ModuleId};
use crate::expr::{Dep, ExprCtx, R};
use crate::order::DepGraph;
use crate::scopes::{lower_scope, ScopeBlock};
use catala_syntax::ast::{self, ItemKind};
use catala_syntax::{Diagnostic, Label, SourceMap, Span};

/// Compiles a parsed program to the default calculus. Every position the program needs is in
/// its syntax tree; `_sources` (the files of `program`) is part of the signature for callers
/// that render the diagnostics.
pub fn compile(
    _sources: &SourceMap,
    program: &ast::Program,
) -> Result<dcalc::Program, Vec<Diagnostic>> {
    let heading_ranges: Vec<HeadingRange> = env::units(program)
        .iter()
        .flat_map(|u| u.items.iter())
        .map(|it| HeadingRange {
            span: it.span,
            headings: it.headings.clone(),
        })
        .collect();
    let result = compile_inner(program, heading_ranges.clone());
    match result {
        Ok(p) => Ok(p),
        Err(mut ds) => {
            attach_headings(&mut ds, &heading_ranges);
            Err(ds)
        }
    }
}

fn compile_inner(
    program: &ast::Program,
    heading_ranges: Vec<HeadingRange>,
) -> Result<dcalc::Program, Vec<Diagnostic>> {
    let env = env::collect(program)?;
    let mut errors = Vec::new();

    // Top-level definitions (indexed by id: a declaration and its definition share one).
    let mut topdefs: Vec<Option<dcalc::TopDef>> = vec![None; env.topdefs.len()];
    let mut topdef_deps: Vec<Vec<usize>> = vec![Vec::new(); env.topdefs.len()];
    let units = env::units(program);
    for unit in &units {
        for item in unit.items {
            if let ItemKind::TopDef(t) = &item.kind {
                let Some(&(id, _)) = env.ns(unit.module).topdefs.get(&t.name.name) else {
                    continue;
                };
                let sig = &env.topdefs[id.0 as usize];
                if t.external && !sig.external {
                    // The declaration of a definition given elsewhere in the module.
                    continue;
                }
                if t.external && !env.ns(unit.module).external {
                    errors.push(name_error(
                        format!(
                            "The top-level definition {} is declared but never defined (only \
                             the declarations of an external module may have no definition).",
                            t.name.name
                        ),
                        t.name.span,
                    ));
                    continue;
                }
                match lower_topdef(&env, unit.module, t) {
                    Ok((d, deps)) => {
                        topdefs[id.0 as usize] = Some(d);
                        topdef_deps[id.0 as usize] = deps;
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    let topdefs: Vec<dcalc::TopDef> = topdefs.into_iter().flatten().collect();
    let mut topdef_order = Vec::new();
    if errors.is_empty() {
        let graph = DepGraph {
            deps: topdef_deps.clone(),
            keys: (0..topdefs.len()).map(|i| (0, i)).collect(),
            cycle_keys: None,
        };
        match graph.order() {
            Ok(o) => topdef_order = o.into_iter().map(|i| TopDefId(i as u32)).collect(),
            Err(cycle) => {
                let names: Vec<&str> = cycle
                    .iter()
                    .map(|&i| env.topdefs[i].name.as_str())
                    .collect();
                let spans: Vec<Span> = cycle.iter().map(|&i| env.topdefs[i].span).collect();
                errors.push(name_error_at(
                    format!(
                        "Cyclic dependency detected between the following top-level \
                         definitions: {}",
                        names.join(" → ")
                    ),
                    &spans,
                ));
            }
        }
    }

    // Scopes.
    let mut blocks: Vec<Vec<ScopeBlock<'_>>> = vec![Vec::new(); env.scopes.len()];
    for unit in &units {
        for item in unit.items {
            if let ItemKind::ScopeUse(u) = &item.kind {
                let local = u.scope.path.is_empty();
                match env.ns(unit.module).scopes.get(&u.scope.name.name) {
                    Some((id, _)) if local => blocks[id.0 as usize].push((u, item)),
                    _ => errors.push(name_error(
                        format!(
                            "\"{}\": this scope has not been declared anywhere, is it a typo?",
                            u.scope.name.name
                        ),
                        u.scope.name.span,
                    )),
                }
            }
        }
    }
    let mut scopes = Vec::new();
    let mut calls: Vec<Vec<(ScopeId, Span)>> = Vec::new();
    for (i, bs) in blocks.iter().enumerate() {
        match lower_scope(&env, ScopeId(i as u32), bs) {
            Ok(l) => {
                scopes.push(l.scope);
                calls.push(l.callees);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    check_scope_cycles(&env, &calls).map_err(|e| vec![e])?;

    Ok(dcalc::Program {
        structs: env.structs.clone(),
        enums: env.enums.clone(),
        option_enum: Some(env.option_enum),
        warnings: env.warnings.take(),
        stdlib_files: {
            let mut files: Vec<catala_syntax::FileId> = program
                .modules
                .iter()
                .filter(|m| m.stdlib)
                .flat_map(|m| m.items.iter().map(|i| i.span.file))
                .collect();
            files.sort_unstable();
            files.dedup();
            files
        },
        module_files: {
            let mut files: Vec<catala_syntax::FileId> = program
                .modules
                .iter()
                .filter(|m| !m.stdlib)
                .flat_map(|m| m.items.iter().map(|i| i.span.file))
                .collect();
            files.sort_unstable();
            files.dedup();
            files
        },
        topdefs,
        topdef_order,
        scopes,
        heading_ranges,
    })
}

fn lower_topdef(env: &Env, module: ModuleId, t: &ast::TopDef) -> R<(dcalc::TopDef, Vec<usize>)> {
    let Some(&(id, _)) = env.ns(module).topdefs.get(&t.name.name) else {
        return Err(name_error("Unknown top-level definition", t.name.span));
    };
    let sig = &env.topdefs[id.0 as usize];
    let mut ctx = ExprCtx::for_topdef(env, module);
    if t.external {
        return Ok((external_topdef(env, module, sig, &mut ctx), Vec::new()));
    }
    let body = if sig.params.is_empty() {
        ctx.check(&t.body, &sig.ty, sig.ty_span)?
    } else {
        let slots = ctx.frames.open_closure(sig.params.len());
        for ((name, ty, _), slot) in sig.params.iter().zip(&slots) {
            ctx.bind_slot(name, *slot, ty.clone());
        }
        let body = ctx.check(&t.body, &sig.ty, sig.ty_span);
        ctx.unbind(sig.params.len());
        let body = body?;
        let params = sig
            .params
            .iter()
            .map(|(n, t, _)| (n.clone(), t.clone()))
            .collect();
        let lambda = ctx.frames.close_closure(params, body);
        ExprCtx::lambda_expr(lambda, t.body.span)
    };
    let mut deps = Vec::new();
    for (d, span) in &ctx.deps {
        if let Dep::TopDef(other) = d {
            if *other == id {
                return Err(name_error(
                    format!(
                        "The variable {} is used in one of its definitions (Catala doesn't \
                         support recursion).",
                        sig.name
                    ),
                    *span,
                ));
            }
            deps.push(other.0 as usize);
        }
    }
    Ok((
        dcalc::TopDef {
            name: sig.name.clone(),
            ty: sig.value_ty(),
            body,
            frame_size: ctx.frames.base_size(),
            span: sig.span,
        },
        deps,
    ))
}

/// A declaration of an external module: its value comes from the implementation registered
/// for `module.name` with the interpreter (a function of the parameters, or a constant).
fn external_topdef(
    env: &Env,
    module: ModuleId,
    sig: &env::TopDefSig,
    ctx: &mut ExprCtx<'_>,
) -> dcalc::TopDef {
    let span = sig.span;
    let module_name = env.ns(module).name.clone();
    let body = if sig.params.is_empty() {
        dcalc::Expr::new(
            dcalc::ExprKind::External {
                module: module_name,
                name: sig.name.clone(),
                args: Vec::new(),
            },
            span,
        )
    } else {
        let slots = ctx.frames.open_closure(sig.params.len());
        let args = slots
            .iter()
            .map(|s| dcalc::Expr::new(dcalc::ExprKind::Local(*s), span))
            .collect();
        let call = dcalc::Expr::new(
            dcalc::ExprKind::External {
                module: module_name,
                name: sig.name.clone(),
                args,
            },
            span,
        );
        let params = sig
            .params
            .iter()
            .map(|(n, t, _)| (n.clone(), t.clone()))
            .collect();
        let lambda = ctx.frames.close_closure(params, call);
        ExprCtx::lambda_expr(lambda, span)
    };
    dcalc::TopDef {
        name: sig.name.clone(),
        ty: sig.value_ty(),
        body,
        frame_size: ctx.frames.base_size(),
        span,
    }
}

fn check_scope_cycles(env: &Env, calls: &[Vec<(ScopeId, Span)>]) -> R<()> {
    let deps: Vec<Vec<usize>> = calls
        .iter()
        .map(|cs| cs.iter().map(|(s, _)| s.0 as usize).collect())
        .collect();
    let graph = DepGraph {
        keys: (0..deps.len()).map(|i| (0, i)).collect(),
        cycle_keys: None,
        deps,
    };
    let Err(cycle) = graph.order() else {
        return Ok(());
    };
    // `cycle` lists each scope before the one calling it, as Catala prints it.
    let mut names: Vec<&str> = cycle.iter().map(|&i| env.scopes[i].name.as_str()).collect();
    if let Some(first) = names.first().copied() {
        names.push(first);
    }
    let mut d = Diagnostic::new(
        catala_syntax::DiagnosticKind::NameResolution,
        format!(
            "Cyclic dependency detected between the following scopes: {}",
            names.join(" → ")
        ),
    );
    for w in 0..cycle.len() {
        let (callee, caller) = (cycle[w], cycle[(w + 1) % cycle.len()]);
        if let Some((_, span)) = calls[caller].iter().find(|(s, _)| s.0 as usize == callee) {
            let mut l = Label::new(*span);
            l.note = Some(format!(
                "{} is used here in the definition of {}:",
                env.scopes[callee].name, env.scopes[caller].name
            ));
            d.labels.push(l);
        }
    }
    Err(d)
}
