//! The gates of the changed code of one version: the conditions (an `if`, a rule's
//! justification, a `match`) one of whose ways leads to an expression that changed, and which
//! ways do. An expression changed when its source overlaps a changed range and none of its
//! parts does (the literal of a new amount, the operator of a new comparison), or when it
//! calls a scope or reads a top-level definition that contains a changed expression; a
//! condition that itself contains a change is a gate both of whose ways count. Found by one
//! walk of the program's default terms (after the scopes and top-level definitions that
//! contain a change are known), for [`super::directed`] to negate first the branches that lead
//! to what changed.

use catala_ir::dcalc::{Expr, ExprKind, Program, Stmt};
use catala_syntax::Span;
use std::collections::HashMap;

/// Which ways of a gate lead to changed code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Gate {
    /// The condition itself contains a change: both ways.
    pub(crate) itself: bool,
    /// The way where the condition holds (`if`'s then, a justification's consequence).
    pub(crate) holds: bool,
    /// The way where it does not (`if`'s else).
    pub(crate) fails: bool,
    /// For a `match`: the cases whose arm contains a change.
    pub(crate) arms: Vec<u32>,
}

impl Gate {
    /// Whether going `way` at this gate (as a path constraint's `way`: 1 holds, 0 fails; for
    /// a match `2i + 1` is case `i`, `2i` is not) may lead to changed code.
    pub(crate) fn enters(&self, way: u32) -> bool {
        if self.itself {
            return true;
        }
        if !self.arms.is_empty() {
            let i = way / 2;
            return if way % 2 == 1 {
                self.arms.contains(&i)
            } else {
                // Not case i: on towards a later case with a change.
                !self.arms.contains(&i) && self.arms.iter().any(|a| *a > i)
            };
        }
        if way == 1 {
            self.holds
        } else {
            self.fails
        }
    }
}

/// The changed ranges of one version and the gates of its program.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeMarks {
    /// Changed byte ranges, sorted by file and start.
    changed: Vec<Span>,
    /// The gates, by the position of their condition.
    pub(crate) gates: HashMap<Span, Gate>,
}

impl ChangeMarks {
    /// The marks of `program` whose changed ranges are `changed`.
    pub(crate) fn of(program: &Program, changed: &[Span]) -> ChangeMarks {
        let mut sorted = changed.to_vec();
        sorted.sort();
        let mut walker = Walker {
            changed: &sorted,
            scopes: vec![false; program.scopes.len()],
            topdefs: vec![false; program.topdefs.len()],
            gates: None,
        };
        // Which scopes and top-level definitions contain a change, through the calls and
        // reads of others: until nothing more is found (at most one round per scope).
        for _ in 0..=program.scopes.len() + program.topdefs.len() {
            let mut more = false;
            for (k, d) in program.topdefs.iter().enumerate() {
                if !walker.topdefs[k] && walker.walk(&d.body) {
                    walker.topdefs[k] = true;
                    more = true;
                }
            }
            for (k, s) in program.scopes.iter().enumerate() {
                if !walker.scopes[k] && walker.body(&s.body) {
                    walker.scopes[k] = true;
                    more = true;
                }
            }
            if !more {
                break;
            }
        }
        walker.gates = Some(HashMap::new());
        for d in &program.topdefs {
            walker.walk(&d.body);
        }
        for s in &program.scopes {
            walker.body(&s.body);
        }
        let gates = walker.gates.take().unwrap_or_default();
        ChangeMarks {
            changed: sorted,
            gates,
        }
    }

    /// Whether `span` overlaps a changed range.
    pub(crate) fn overlaps(&self, span: Span) -> bool {
        overlaps(&self.changed, span)
    }
}

fn overlaps(sorted: &[Span], s: Span) -> bool {
    // The first range of the file ending after the span's start.
    let k = sorted.partition_point(|r| (r.file, r.end) <= (s.file, s.start));
    sorted
        .get(k)
        .is_some_and(|r| r.file == s.file && r.start < s.end.max(s.start + 1))
}

struct Walker<'c> {
    changed: &'c [Span],
    /// The scopes and top-level definitions known to contain a change.
    scopes: Vec<bool>,
    topdefs: Vec<bool>,
    /// Where the gates go (none: only whether there is a change).
    gates: Option<HashMap<Span, Gate>>,
}

impl Walker<'_> {
    fn body(&mut self, body: &[Stmt]) -> bool {
        let mut any = false;
        for s in body {
            any |= match s {
                Stmt::Define { expr, .. } | Stmt::Assert { expr, .. } => self.walk(expr),
                Stmt::CallSubScope { scope, args, .. } => {
                    let mut a = self.scopes.get(scope.0 as usize) == Some(&true);
                    for e in args.iter().flatten() {
                        a |= self.walk(e);
                    }
                    a
                }
            };
        }
        any
    }

    fn gate(&mut self, at: Span, gate: Gate) {
        if let Some(g) = &mut self.gates {
            let entry = g.entry(at).or_default();
            entry.itself |= gate.itself;
            entry.holds |= gate.holds;
            entry.fails |= gate.fails;
            for a in gate.arms {
                if !entry.arms.contains(&a) {
                    entry.arms.push(a);
                }
            }
        }
    }

    /// Whether `e` contains a change; records the gates inside it.
    fn walk(&mut self, e: &Expr) -> bool {
        let inside = match &e.kind {
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let (c, t, f) = (
                    self.walk(cond),
                    self.walk(then_branch),
                    self.walk(else_branch),
                );
                if c || t || f {
                    let gate = Gate {
                        itself: c,
                        holds: t,
                        fails: f,
                        arms: Vec::new(),
                    };
                    self.gate(cond.span, gate);
                }
                c || t || f
            }
            ExprKind::Default {
                exceptions,
                justification,
                consequence,
            } => {
                let mut x = false;
                for ex in exceptions {
                    x |= self.walk(ex);
                }
                let (j, k) = (self.walk(justification), self.walk(consequence));
                if j || k {
                    let gate = Gate {
                        itself: j,
                        holds: k,
                        ..Gate::default()
                    };
                    self.gate(justification.span, gate);
                }
                x || j || k
            }
            ExprKind::Match { expr, arms, .. } => {
                let s = self.walk(expr);
                let mut changed_arms = Vec::new();
                for (i, a) in arms.iter().enumerate() {
                    if self.walk(&a.body) {
                        changed_arms.push(i as u32);
                    }
                }
                let any = s || !changed_arms.is_empty();
                if any {
                    let gate = Gate {
                        itself: s,
                        arms: changed_arms,
                        ..Gate::default()
                    };
                    self.gate(expr.span, gate);
                }
                any
            }
            ExprKind::ScopeCall { scope, args } => {
                let mut a = self.scopes.get(scope.0 as usize) == Some(&true);
                for x in args.iter().flatten() {
                    a |= self.walk(x);
                }
                a
            }
            ExprKind::TopDef(id) => self.topdefs.get(id.0 as usize) == Some(&true),
            _ => {
                let mut a = false;
                for c in parts(e) {
                    a |= self.walk(c);
                }
                a
            }
        };
        inside || overlaps(self.changed, e.span)
    }
}

/// The sub-expressions of the expressions without a condition of their own (defaults,
/// conditionals and matches are walked by their own cases; a scope call's arguments are not
/// entered).
fn parts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Default { .. }
        | ExprKind::If { .. }
        | ExprKind::Match { .. }
        | ExprKind::ScopeCall { .. } => Vec::new(),
        _ => e.children(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_gate_enters_the_changed_arms_and_the_ways_towards_them() {
        // Arm 2 of a match changed: "case 2" (way 5) enters; "not case 0" (way 0) and "not
        // case 1" (way 2) head on towards it; "case 0" (way 1) and "not case 2" (way 4) leave.
        let g = Gate {
            arms: vec![2],
            ..Gate::default()
        };
        assert!(g.enters(5) && g.enters(0) && g.enters(2));
        assert!(!g.enters(1) && !g.enters(4));
        let cond = Gate {
            holds: true,
            ..Gate::default()
        };
        assert!(cond.enters(1) && !cond.enters(0));
    }

    #[test]
    fn ranges_overlap_by_file_and_bytes() {
        let s = |f: u32, a: u32, b: u32| Span {
            file: catala_syntax::FileId(f),
            start: a,
            end: b,
        };
        let changed = vec![s(0, 10, 20), s(1, 5, 6)];
        assert!(overlaps(&changed, s(0, 15, 30)));
        assert!(overlaps(&changed, s(0, 0, 11)));
        assert!(!overlaps(&changed, s(0, 20, 25)));
        assert!(!overlaps(&changed, s(0, 0, 10)));
        assert!(overlaps(&changed, s(1, 5, 5)));
        assert!(!overlaps(&changed, s(2, 5, 6)));
    }
}
