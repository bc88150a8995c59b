//! Evaluation order of assertions. Catala evaluates a scope's assertions as soon as the
//! variables they read are defined (an assertion on inputs only comes first), so that inputs
//! outside the asserted space stop the run before any other branch. The IR places assertions
//! after the variables when the dependency order leaves the choice; [`hoist_assertions`] moves
//! each assertion right after the last statement defining a slot it reads.

use catala_ir::dcalc::{Program, ScopeId, Stmt};
use std::collections::BTreeSet;

/// Slots read by a statement's expressions (from the expression's structure as printed).
fn slots_read(stmt: &Stmt) -> BTreeSet<u32> {
    let text = format!("{stmt:?}");
    let mut out = BTreeSet::new();
    let pattern = "Local(Slot(";
    let mut rest = text.as_str();
    while let Some(i) = rest.find(pattern) {
        rest = &rest[i + pattern.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse() {
            out.insert(n);
        }
    }
    out
}

fn slot_defined(stmt: &Stmt) -> Option<u32> {
    match stmt {
        Stmt::Define { slot, .. } | Stmt::CallSubScope { slot, .. } => Some(slot.0),
        Stmt::Assert { .. } => None,
    }
}

/// A copy of `program` where the assertions of every scope come as early as their reads
/// allow (`_scope`, the explored scope, is kept for finer policies).
pub fn hoist_assertions(program: &Program, _scope: ScopeId) -> Program {
    let mut p = program.clone();
    for s in &mut p.scopes {
        hoist_in(s);
    }
    p
}

fn hoist_in(s: &mut catala_ir::dcalc::Scope) {
    let body = std::mem::take(&mut s.body);
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let mut asserts: Vec<(usize, Stmt)> = Vec::new();
    for stmt in body {
        if matches!(stmt, Stmt::Assert { .. }) {
            let reads = slots_read(&stmt);
            // Position after the last definition of a slot it reads.
            let at = out
                .iter()
                .rposition(|d| slot_defined(d).is_some_and(|sl| reads.contains(&sl)))
                .map_or(0, |i| i + 1);
            asserts.push((at, stmt));
        } else {
            out.push(stmt);
        }
    }
    // Insert from the back so that earlier positions stay valid; keep source order on ties.
    asserts.sort_by_key(|(at, _)| *at);
    for (at, stmt) in asserts.into_iter().rev() {
        let at = at.min(out.len());
        out.insert(at, stmt);
    }
    s.body = out;
}
