//! Pattern-matching case folding (Section 4.3 of the paper). A `match` whose cases without
//! payload binder share the same arm is rewritten so that those cases form one branch:
//! `if e with pattern A or e with pattern B then arm else match e with ...`. The exploration
//! then tries one path for the group instead of one per case. Arms are compared by structure,
//! source positions aside; the rewrite keeps the original `match` as the fallback branch.

use catala_ir::dcalc::{BinaryOp, Expr, ExprKind, Program, Stmt};
use std::sync::Arc;

/// The printed structure of an expression without its source positions.
fn shape_key(e: &Expr) -> String {
    let text = format!("{e:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("Span {") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match rest.find('}') {
            Some(j) => rest = &rest[j + 1..],
            None => break,
        }
    }
    out.push_str(rest);
    out
}

pub(crate) fn children(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::TopDef(_)
        | ExprKind::ScopeArg(_)
        | ExprKind::Empty
        | ExprKind::Impossible => Vec::new(),
        ExprKind::ErrorOnEmpty { expr, .. }
        | ExprKind::PureDefault(expr)
        | ExprKind::StructField { expr, .. }
        | ExprKind::IsCase { expr, .. }
        | ExprKind::TupleGet { expr, .. }
        | ExprKind::Unary { arg: expr, .. } => vec![expr.as_mut()],
        ExprKind::Default {
            exceptions,
            justification,
            consequence,
        } => {
            let mut v: Vec<&mut Expr> = exceptions.iter_mut().collect();
            v.push(justification.as_mut());
            v.push(consequence.as_mut());
            v
        }
        ExprKind::Let { value, body, .. } => vec![value.as_mut(), body.as_mut()],
        ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => vec![cond.as_mut(), then_branch.as_mut(), else_branch.as_mut()],
        ExprKind::Lambda(l) => vec![&mut Arc::make_mut(l).body],
        ExprKind::Apply { func, args } => {
            let mut v = vec![func.as_mut()];
            v.extend(args.iter_mut());
            v
        }
        ExprKind::StructNew { fields, .. } => fields.iter_mut().collect(),
        ExprKind::EnumInject { payload, .. } => payload.iter_mut().map(|p| p.as_mut()).collect(),
        ExprKind::Match { expr, arms, .. } => {
            let mut v = vec![expr.as_mut()];
            v.extend(arms.iter_mut().map(|a| &mut a.body));
            v
        }
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::ListZip(items) => {
            items.iter_mut().collect()
        }
        ExprKind::ListMap {
            list, body: other, ..
        }
        | ExprKind::ListFilter {
            list, cond: other, ..
        }
        | ExprKind::ListExists {
            list, cond: other, ..
        }
        | ExprKind::ListForAll {
            list, cond: other, ..
        }
        | ExprKind::ListContains { list, elem: other } => vec![list.as_mut(), other.as_mut()],
        ExprKind::ListFold {
            list, init, step, ..
        } => vec![list.as_mut(), init.as_mut(), step.as_mut()],
        ExprKind::ListAggregate { list, default, .. } => {
            let mut v = vec![list.as_mut()];
            v.extend(default.iter_mut().map(|d| d.as_mut()));
            v
        }
        ExprKind::ListArgExtremum {
            list, key, default, ..
        } => {
            let mut v = vec![list.as_mut(), key.as_mut()];
            v.extend(default.iter_mut().map(|d| d.as_mut()));
            v
        }
        ExprKind::ScopeCall { args, .. } => args.iter_mut().flatten().collect(),
        ExprKind::Binary { lhs, rhs, .. } => vec![lhs.as_mut(), rhs.as_mut()],
        // Constructs added to the IR later are left as they are (nothing folded inside).
        #[allow(unreachable_patterns)]
        _ => Vec::new(),
    }
}

/// Rewrites one `match` node if some cases share their arm; returns whether it did.
fn fold_here(e: &mut Expr) -> bool {
    let ExprKind::Match { expr, id, arms } = &e.kind else {
        return false;
    };
    let keys: Vec<Option<String>> = arms
        .iter()
        .map(|a| a.binder.is_none().then(|| shape_key(&a.body)))
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let Some(k) = k else { continue };
        if groups.iter().any(|g| g.contains(&i)) {
            continue;
        }
        let g: Vec<usize> = (i..keys.len())
            .filter(|j| keys[*j].as_ref() == Some(k))
            .collect();
        if g.len() >= 2 {
            groups.push(g);
        }
    }
    if groups.is_empty() {
        return false;
    }
    let span = e.span;
    let fallback = e.clone();
    let mut result = fallback;
    for g in groups.iter().rev() {
        let mut cond: Option<Expr> = None;
        for &c in g {
            let test = Expr::new(
                ExprKind::IsCase {
                    expr: expr.clone(),
                    id: *id,
                    case: c as u32,
                },
                span,
            );
            cond = Some(match cond {
                None => test,
                Some(prev) => Expr::new(
                    ExprKind::Binary {
                        op: BinaryOp::Or,
                        lhs: Box::new(prev),
                        rhs: Box::new(test),
                        whole: span,
                    },
                    span,
                ),
            });
        }
        let (Some(cond), Some(arm)) = (cond, arms.get(g[0])) else {
            continue;
        };
        result = Expr::new(
            ExprKind::If {
                cond: Box::new(cond),
                then_branch: Box::new(arm.body.clone()),
                else_branch: Box::new(result),
            },
            span,
        );
    }
    *e = result;
    true
}

fn fold_expr(e: &mut Expr) {
    for c in children(e) {
        fold_expr(c);
    }
    fold_here(e);
}

/// Rewrites every foldable `match` of `p`.
pub(crate) fn fold_matches(p: &mut Program) {
    for scope in &mut p.scopes {
        for stmt in &mut scope.body {
            match stmt {
                Stmt::Define { expr, .. } | Stmt::Assert { expr, .. } => fold_expr(expr),
                Stmt::CallSubScope { args, .. } => args.iter_mut().flatten().for_each(fold_expr),
            }
        }
    }
    for def in &mut p.topdefs {
        fold_expr(&mut def.body);
    }
}
