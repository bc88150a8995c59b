//! The whole-program pass: declarations, top-level definitions (typed, ordered by dependency),
//! every scope lowered, cycle checks between scopes, and the heading index used for messages.

use crate::dcalc::{self, HeadingRange, ScopeId, TopDefId};
use crate::diag::{attach_headings, name_error, name_error_at};
use crate::env::{self, Env};
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
    let heading_ranges: Vec<HeadingRange> = program
        .items
        .iter()
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

    // Top-level definitions.
    let mut topdefs = Vec::new();
    let mut topdef_deps = Vec::new();
    for item in &program.items {
        if let ItemKind::TopDef(t) = &item.kind {
            match lower_topdef(&env, t) {
                Ok((d, deps)) => {
                    topdefs.push(d);
                    topdef_deps.push(deps);
                }
                Err(e) => errors.push(e),
            }
        }
    }
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
    for item in &program.items {
        if let ItemKind::ScopeUse(u) = &item.kind {
            match env.scope_by_name.get(&u.scope.name.name) {
                Some(id) => blocks[id.0 as usize].push((u, item)),
                None => errors.push(name_error(
                    format!(
                        "\"{}\": this scope has not been declared anywhere, is it a typo?",
                        u.scope.name.name
                    ),
                    u.scope.name.span,
                )),
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
        topdefs,
        topdef_order,
        scopes,
        heading_ranges,
    })
}

fn lower_topdef(env: &Env, t: &ast::TopDef) -> R<(dcalc::TopDef, Vec<usize>)> {
    let Some(&id) = env.topdef_by_name.get(&t.name.name) else {
        return Err(name_error("Unknown top-level definition", t.name.span));
    };
    let sig = &env.topdefs[id.0 as usize];
    let mut ctx = ExprCtx::for_topdef(env);
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
