//! Where a mutation acts, read from the program: the default term changed, the rules of the
//! exception removed or duplicated (their consequences' positions) or the justification
//! negated, and the law headings in force there — what a report needs to show the mutant as
//! the Catala it changes.

use crate::mutation::{for_each_default, Mutation, MutationKind};
use catala_ir::dcalc::{Expr, ExprKind, Literal, Program, ScopeId};
use catala_syntax::ast::LawHeading;
use catala_syntax::Span;
use std::sync::Arc;

/// The place of a mutation in the program.
#[derive(Clone, Debug)]
pub struct MutationSite {
    /// The default term mutated.
    pub default_span: Span,
    /// The rules the mutation removes or duplicates (each rule's consequence, in program
    /// order; several when the exception is a group of rules); for a negated justification,
    /// the rule whose justification it is (empty when the term is not one rule's).
    pub rules: Vec<Span>,
    /// The justification negated (for [`MutationKind::NegateJustification`]).
    pub justification: Option<Span>,
    /// The justification when it is a constant (`false` for the default term of a group of
    /// rules, which applies only through its rules): no source text of its own.
    pub constant_justification: Option<bool>,
    /// The law headings in force at [`MutationSite::position`].
    pub headings: Arc<[LawHeading]>,
}

impl MutationSite {
    /// Where to point a reader: the first rule concerned, or else the default term.
    pub fn position(&self) -> Span {
        match (self.rules.first(), self.justification) {
            (_, Some(j)) if self.constant_justification.is_none() => j,
            (Some(r), _) => *r,
            _ => self.default_span,
        }
    }
}

/// The site of `m` in `program` (explored from `root`), `None` when `m` names no default term.
pub fn describe(program: &Program, root: ScopeId, m: Mutation) -> Option<MutationSite> {
    let mut copy = program.clone();
    let mut found = None;
    for_each_default(&mut copy, root, &mut |site, e| {
        if site != m.site || found.is_some() {
            return;
        }
        let ExprKind::Default {
            exceptions,
            justification,
            ..
        } = &e.kind
        else {
            return;
        };
        let mut rules = Vec::new();
        let (justification, constant) = match m.kind {
            MutationKind::RemoveException | MutationKind::DuplicateException => {
                if let Some(ex) = exceptions.get(m.exception) {
                    rule_spans(ex, &mut rules);
                    if rules.is_empty() {
                        rules.push(ex.span);
                    }
                }
                (None, None)
            }
            MutationKind::NegateJustification => {
                let constant = match &justification.kind {
                    ExprKind::Literal(Literal::Bool(b)) => Some(*b),
                    _ => None,
                };
                if exceptions.is_empty() {
                    rules.push(e.span);
                }
                (Some(justification.span), constant)
            }
        };
        found = Some((e.span, rules, justification, constant));
    });
    let (default_span, rules, justification, constant_justification) = found?;
    let mut site = MutationSite {
        default_span,
        rules,
        justification,
        constant_justification,
        headings: Arc::from(Vec::new()),
    };
    site.headings = program.headings_at(site.position());
    Some(site)
}

/// The consequences of the rules of a default term (its defaults without exceptions whose
/// consequence is a value), in program order.
fn rule_spans(e: &Expr, out: &mut Vec<Span>) {
    if let ExprKind::Default {
        exceptions,
        consequence,
        ..
    } = &e.kind
    {
        if exceptions.is_empty() && matches!(consequence.kind, ExprKind::PureDefault(_)) {
            out.push(e.span);
            return;
        }
        for ex in exceptions {
            rule_spans(ex, out);
        }
        rule_spans(consequence, out);
    }
}
