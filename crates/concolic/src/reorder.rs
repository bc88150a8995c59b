//! Evaluation order of the statements of a scope. Catala's semantics leave the order of
//! independent definitions open, but it decides which of several failing definitions stops a
//! run, hence the set of paths a concolic exploration finds. [`cutecat_order`] reproduces the
//! order of the Catala compiler CUTECat was built on (the paper's version), where the IR follows
//! the later compiler's stable order (see `catala_ir`'s `order` module). [`pack_exceptions`]
//! reorders the exceptions of default terms by free variables (the `reorder` optimization).

use catala_ir::dcalc::{Expr, ExprKind, Program, Scope, Stmt};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

fn slot_defined(stmt: &Stmt) -> Option<u32> {
    match stmt {
        Stmt::Define { slot, .. } | Stmt::CallSubScope { slot, .. } => Some(slot.0),
        Stmt::Assert { .. } => None,
    }
}

/// Slots of the scope's frame read by `e`: the `Local` reads outside closures and the captures
/// of the closures it creates (a closure body reads its own frame).
fn frame_reads(e: &mut Expr, out: &mut BTreeSet<u32>) {
    match &e.kind {
        ExprKind::Local(s) => {
            out.insert(s.0);
            return;
        }
        ExprKind::Lambda(l) => {
            out.extend(l.captures.iter().map(|s| s.0));
            return;
        }
        _ => {}
    }
    for c in crate::fold::children(e) {
        frame_reads(c, out);
    }
}

fn stmt_reads(stmt: &mut Stmt) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    match stmt {
        Stmt::Define { expr, .. } | Stmt::Assert { expr, .. } => frame_reads(expr, &mut out),
        Stmt::CallSubScope { args, .. } => {
            for a in args.iter_mut().flatten() {
                frame_reads(a, &mut out);
            }
        }
    }
    out
}

/// A copy of `program` whose scopes evaluate their statements in the order of the Catala
/// compiler CUTECat was built on (the paper's version): a breadth-first topological sort of the
/// dependency graph. Its vertices are the variables (one per state), the sub-scopes and the
/// assertions, compared by declaration (variables and sub-scopes in the order of the scope
/// declaration, states in their order, then assertions in source order). The sources, in that
/// order, start a FIFO queue; taking a vertex releases its users, visited from the greatest
/// to the least, each queued once its last dependency is taken.
///
/// The order decides which of several undefined or failing definitions stops a run first,
/// hence the set of paths: e.g. an output defined only for some years fails before the
/// branches of the variables computed after it.
pub(crate) fn cutecat_order(p: &mut Program) {
    for s in &mut p.scopes {
        order_in(s);
    }
}

/// Comparison key of a statement's vertex: (assertion?, file, position, state index).
type VertexKey = (bool, u32, u32, usize);

fn vertex_key(s: &Scope, stmt: &Stmt, assertion_rank: usize) -> VertexKey {
    match stmt {
        Stmt::Define { var, .. } => {
            let v = *var as usize;
            s.vars.get(v).map_or((false, u32::MAX, u32::MAX, v), |d| {
                (false, d.span.file.0, d.span.start, v)
            })
        }
        Stmt::CallSubScope { subscope, span, .. } => {
            let at = s
                .subscopes
                .get(*subscope as usize)
                .map_or(*span, |d| d.span);
            (false, at.file.0, at.start, 0)
        }
        Stmt::Assert { .. } => (true, 0, 0, assertion_rank),
    }
}

fn order_in(s: &mut Scope) {
    let mut body = std::mem::take(&mut s.body);
    let n = body.len();
    let mut rank = 0;
    let keys: Vec<VertexKey> = body
        .iter()
        .map(|st| {
            let k = vertex_key(s, st, rank);
            if matches!(st, Stmt::Assert { .. }) {
                rank += 1;
            }
            k
        })
        .collect();
    let definer: BTreeMap<u32, usize> = body
        .iter()
        .enumerate()
        .filter_map(|(i, st)| slot_defined(st).map(|sl| (sl, i)))
        .collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pending = vec![0usize; n];
    for (i, st) in body.iter_mut().enumerate() {
        let deps: BTreeSet<usize> = stmt_reads(st)
            .into_iter()
            .filter_map(|sl| definer.get(&sl).copied())
            .filter(|&d| d != i)
            .collect();
        pending[i] = deps.len();
        for d in deps {
            users[d].push(i);
        }
    }
    for u in &mut users {
        u.sort_by(|a, b| keys[*b].cmp(&keys[*a]));
    }
    let mut sources: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    sources.sort_by_key(|&i| keys[i]);
    let mut queue: VecDeque<usize> = sources.into_iter().collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = queue.pop_front() {
        order.push(v);
        for &u in &users[v] {
            pending[u] -= 1;
            if pending[u] == 0 {
                queue.push_back(u);
            }
        }
    }
    if order.len() != n {
        // Not a dependency order (cannot happen for a lowered scope): keep the IR's.
        s.body = body;
        return;
    }
    let mut slots: Vec<Option<Stmt>> = body.drain(..).map(Some).collect();
    s.body = order.into_iter().filter_map(|i| slots[i].take()).collect();
}

/// Packs the exceptions of a default term by free variables (Section 4.1 of the paper): when a
/// default term has more than two exceptions, the exceptions reading the same set of frame
/// slots are put next to each other, each group at the place of its first member, members in
/// their original order. The value of a default term does not depend on the order of its
/// exceptions (Theorem 1 of the paper), but with the lazy evaluation of Fig. 9 the exceptions
/// evaluated before a conflict is certain, hence the constraints of the path, do.
fn pack_here(e: &mut Expr) {
    let ExprKind::Default { exceptions, .. } = &mut e.kind else {
        return;
    };
    if exceptions.len() <= 2 {
        return;
    }
    let mut groups: Vec<(BTreeSet<u32>, Vec<Expr>)> = Vec::new();
    for mut ex in std::mem::take(exceptions) {
        let mut reads = BTreeSet::new();
        frame_reads(&mut ex, &mut reads);
        match groups.iter_mut().find(|(set, _)| *set == reads) {
            Some((_, members)) => members.push(ex),
            None => groups.push((reads, vec![ex])),
        }
    }
    *exceptions = groups
        .into_iter()
        .flat_map(|(_, members)| members)
        .collect();
}

fn pack_expr(e: &mut Expr) {
    for c in crate::fold::children(e) {
        pack_expr(c);
    }
    pack_here(e);
}

/// Packs the exceptions of every default term of `p` by free variables.
pub(crate) fn pack_exceptions(p: &mut Program) {
    for scope in &mut p.scopes {
        for stmt in &mut scope.body {
            match stmt {
                Stmt::Define { expr, .. } | Stmt::Assert { expr, .. } => pack_expr(expr),
                Stmt::CallSubScope { args, .. } => args.iter_mut().flatten().for_each(pack_expr),
            }
        }
    }
    for def in &mut p.topdefs {
        pack_expr(&mut def.body);
    }
}
