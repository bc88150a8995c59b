//! Exception trees: arranges the rules defining one variable into a default term, following
//! Catala's semantics. Rules are grouped by label (explicit labels; all unlabeled base rules form
//! one group; unlabeled exceptions form one group per target), each group points to the group it
//! is an exception to, and the resulting forest becomes nested defaults:
//! a group is `⟨ rules of the group | false :- ∅ ⟩`, wrapped as
//! `⟨ exception groups | true :- that ⟩` when other groups are exceptions to it; sibling groups
//! come last-written first, rules within a group in their written order. Sibling rules
//! with syntactically equal consequences are chained instead of conflicting
//! (`collapse_similar_outcomes`).

use crate::dcalc::{Expr, ExprKind};
use crate::diag::{name_error, name_error_at};
use crate::expr::{bool_lit, R};
use catala_syntax::Span;
use std::collections::HashMap;

/// What a rule is an exception to, as written.
#[derive(Clone, Debug)]
pub(crate) enum ExceptionTarget {
    None,
    /// `exception` without a label (span of the keyword).
    Unlabeled(Span),
    /// `exception lbl`.
    Label(String, Span),
}

/// One rule (a `definition` or `rule`) of a variable, already translated.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub label: Option<(String, Span)>,
    pub exception: ExceptionTarget,
    /// `None` when the rule has no condition (always applies).
    pub justification: Option<Expr>,
    /// A value position.
    pub consequence: Expr,
    /// Span of the consequence as written (reported in conflicts).
    pub cons_span: Span,
    /// Span of the defined name in the rule (`definition x ...`).
    pub name_span: Span,
    /// Span of the whole rule.
    pub def_span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum GroupKey {
    Label(String),
    Base,
    ExceptionToBase,
    ExceptionToLabel(String),
}

struct Group {
    key: GroupKey,
    rules: Vec<usize>,
    /// Index of the group this one is an exception to, and the span stating it.
    parent: Option<(usize, Span)>,
}

/// Builds the default tree (a default position) of a variable from its rules. `var_name` is used
/// in messages (`x` or `x@state`).
pub(crate) fn build_tree(rules: Vec<Rule>, var_name: &str, fallback_span: Span) -> R<Expr> {
    if rules.is_empty() {
        return Ok(Expr::new(ExprKind::Empty, fallback_span));
    }
    // The unique unlabeled base rule an unlabeled exception refers to.
    let bases: Vec<usize> = (0..rules.len())
        .filter(|&i| matches!(rules[i].exception, ExceptionTarget::None))
        .collect();
    let labels: Vec<&str> = rules
        .iter()
        .filter_map(|r| r.label.as_ref().map(|(l, _)| l.as_str()))
        .collect();
    // Group of each rule.
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<GroupKey, usize> = HashMap::new();
    let mut rule_group = Vec::with_capacity(rules.len());
    for (i, r) in rules.iter().enumerate() {
        let key = match (&r.label, &r.exception) {
            (Some((l, _)), _) => GroupKey::Label(l.clone()),
            (None, ExceptionTarget::None) => GroupKey::Base,
            (None, ExceptionTarget::Unlabeled(_)) => GroupKey::ExceptionToBase,
            (None, ExceptionTarget::Label(l, _)) => GroupKey::ExceptionToLabel(l.clone()),
        };
        let g = *index.entry(key.clone()).or_insert_with(|| {
            groups.push(Group {
                key,
                rules: Vec::new(),
                parent: None,
            });
            groups.len() - 1
        });
        groups[g].rules.push(i);
        rule_group.push(g);
    }
    // Exception edges.
    for (i, r) in rules.iter().enumerate() {
        let from = rule_group[i];
        let target = match &r.exception {
            ExceptionTarget::None => None,
            ExceptionTarget::Unlabeled(span) => match bases.as_slice() {
                [] => {
                    return Err(name_error(
                        "This exception does not have a corresponding definition.",
                        r.def_span,
                    ))
                }
                [b] if rules[*b].label.is_none() => Some((rule_group[*b], *span)),
                _ => {
                    let mut spans = vec![r.def_span];
                    spans.extend(bases.iter().rev().map(|&b| rules[b].name_span));
                    return Err(name_error_at(
                        "This exception can refer to several definitions. Try using labels to \
                         disambiguate.",
                        &spans,
                    ));
                }
            },
            ExceptionTarget::Label(l, span) => {
                if !labels.contains(&l.as_str()) {
                    return Err(name_error(
                        format!("Unknown label for the scope variable {var_name}: \"{l}\"."),
                        *span,
                    ));
                }
                index.get(&GroupKey::Label(l.clone())).map(|&g| (g, *span))
            }
        };
        let Some((to, span)) = target else { continue };
        if to == from {
            return Err(name_error(
                "Cannot define rule as an exception to itself",
                span,
            ));
        }
        match groups[from].parent {
            Some((p, _)) if p != to => {
                return Err(name_error(
                    format!(
                        "The definition of exceptions are inconsistent for variable {var_name}."
                    ),
                    span,
                ))
            }
            _ => groups[from].parent = Some((to, span)),
        }
    }
    // Cycles among groups.
    for start in 0..groups.len() {
        let mut seen = vec![start];
        let mut cur = start;
        while let Some((p, _)) = groups[cur].parent {
            if p == start {
                let spans: Vec<Span> = seen
                    .iter()
                    .filter_map(|&g| groups[g].rules.first())
                    .map(|&r| Span {
                        end: rules[r].name_span.end,
                        ..rules[r].def_span
                    })
                    .collect();
                return Err(name_error_at(
                    format!(
                        "Exception cycle detected when defining {var_name}: each of these {} \
                         exceptions applies over the previous one, and the first applies over \
                         the last.",
                        seen.len()
                    ),
                    &spans,
                ));
            }
            if seen.contains(&p) {
                break;
            }
            seen.push(p);
            cur = p;
        }
    }
    // Sibling groups are tried last-written first, as Catala orders them (its groups compare by
    // their rules' order of appearance, and are listed in decreasing order): this is the order
    // in which a conflict's positions are reported, and which error of several comes first.
    let roots: Vec<usize> = (0..groups.len())
        .rev()
        .filter(|&g| groups[g].parent.is_none())
        .collect();
    let mut rules: Vec<Option<Rule>> = rules.into_iter().map(Some).collect();
    let mut trees: Vec<Expr> = Vec::new();
    for r in roots {
        trees.push(group_expr(r, &groups, &mut rules, fallback_span));
    }
    match trees.len() {
        1 => Ok(trees
            .pop()
            .unwrap_or_else(|| Expr::new(ExprKind::Empty, fallback_span))),
        _ => Ok(Expr::new(
            ExprKind::Default {
                exceptions: trees,
                justification: Box::new(bool_lit(false, fallback_span)),
                consequence: Box::new(Expr::new(ExprKind::Empty, fallback_span)),
            },
            fallback_span,
        )),
    }
}

/// The default of one rule: `⟨ | just :- cons ⟩`, spanned at its consequence.
fn rule_default(rule: Rule) -> Expr {
    let span = rule.cons_span;
    let just = rule.justification.unwrap_or_else(|| bool_lit(true, span));
    Expr::new(
        ExprKind::Default {
            exceptions: Vec::new(),
            justification: Box::new(just),
            consequence: Box::new(Expr::new(
                ExprKind::PureDefault(Box::new(rule.consequence)),
                span,
            )),
        },
        span,
    )
}

fn group_expr(g: usize, groups: &[Group], rules: &mut [Option<Rule>], fallback: Span) -> Expr {
    let mut base_exceptions = Vec::new();
    let mut span = fallback;
    for (n, &ri) in groups[g].rules.iter().enumerate() {
        if let Some(rule) = rules[ri].take() {
            let is_false = matches!(
                rule.justification.as_ref().map(|j| &j.kind),
                Some(ExprKind::Literal(crate::dcalc::Literal::Bool(false)))
            );
            if n == 0 {
                span = rule.cons_span;
            }
            if !is_false {
                base_exceptions.push(rule_default(rule));
            }
        }
    }
    let _ = &groups[g].key;
    let base = Expr::new(
        ExprKind::Default {
            exceptions: collapse_similar_outcomes(base_exceptions),
            justification: Box::new(bool_lit(false, span)),
            consequence: Box::new(Expr::new(ExprKind::Empty, span)),
        },
        span,
    );
    let children: Vec<usize> = (0..groups.len())
        .rev()
        .filter(|&c| groups[c].parent.map(|(p, _)| p) == Some(g))
        .collect();
    if children.is_empty() {
        return base;
    }
    let exceptions = children
        .into_iter()
        .map(|c| group_expr(c, groups, rules, fallback))
        .collect();
    Expr::new(
        ExprKind::Default {
            exceptions,
            justification: Box::new(bool_lit(true, span)),
            consequence: Box::new(base),
        },
        span,
    )
}

/// Chains sibling rule defaults whose consequences are syntactically equal, so that they do not
/// conflict: the chain takes the place of the last of them, the first one outermost.
pub(crate) fn collapse_similar_outcomes(exceptions: Vec<Expr>) -> Vec<Expr> {
    // A chain needs two rule defaults without exceptions; rendering a key costs a debug print.
    let plain =
        |e: &Expr| matches!(&e.kind, ExprKind::Default { exceptions, .. } if exceptions.is_empty());
    if exceptions.iter().filter(|e| plain(e)).nth(1).is_none() {
        return exceptions;
    }
    // The rendering is asked only for rule defaults whose consequence has the shape of another's
    // (kinds of the nodes, in order): a chain of one is the rule default itself.
    let shapes: Vec<Option<u64>> = exceptions.iter().map(outcome_shape).collect();
    let keys: Vec<Option<String>> = exceptions
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let shape = shapes[i]?;
            let shared = shapes
                .iter()
                .enumerate()
                .any(|(j, s)| j != i && *s == Some(shape));
            if shared {
                outcome_key(e)
            } else {
                None
            }
        })
        .collect();
    let mut out = Vec::with_capacity(exceptions.len());
    let mut slots: Vec<Option<Expr>> = exceptions.into_iter().map(Some).collect();
    for i in 0..slots.len() {
        let Some(key) = &keys[i] else {
            if let Some(e) = slots[i].take() {
                out.push(e);
            }
            continue;
        };
        // Emit the chain at the last occurrence of this outcome.
        if keys[i + 1..].iter().any(|k| k.as_ref() == Some(key)) {
            continue;
        }
        let members: Vec<usize> = (0..=i).filter(|&j| keys[j].as_ref() == Some(key)).collect();
        let mut chain: Option<Expr> = None;
        for &j in members.iter().rev() {
            let Some(mut e) = slots[j].take() else {
                continue;
            };
            if let (ExprKind::Default { exceptions, .. }, Some(inner)) = (&mut e.kind, chain.take())
            {
                exceptions.push(inner);
            }
            chain = Some(e);
        }
        if let Some(c) = chain {
            out.push(c);
        }
    }
    out
}

/// For a rule default without exceptions, a hash of the kinds of its consequence's nodes (equal
/// renderings by [`outcome_key`] have equal shapes).
fn outcome_shape(e: &Expr) -> Option<u64> {
    fn walk(e: &Expr, h: &mut std::collections::hash_map::DefaultHasher) {
        use std::hash::Hash;
        std::mem::discriminant(&e.kind).hash(h);
        let children = e.children();
        children.len().hash(h);
        for c in children {
            walk(c, h);
        }
    }
    match &e.kind {
        ExprKind::Default {
            exceptions,
            consequence,
            ..
        } if exceptions.is_empty() => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            walk(consequence, &mut h);
            Some(std::hash::Hasher::finish(&h))
        }
        _ => None,
    }
}

/// For a rule default without exceptions, a span-free rendering of its consequence.
fn outcome_key(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Default {
            exceptions,
            consequence,
            ..
        } if exceptions.is_empty() => Some(scrub_spans(&format!("{:?}", consequence.kind))),
        _ => None,
    }
}

/// Removes every `Span { .. }` from a debug rendering.
fn scrub_spans(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("Span {") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        match after.find('}') {
            Some(j) => rest = &after[j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcalc::Literal;
    use num_bigint::BigInt;

    fn sp(n: u32) -> Span {
        Span {
            file: Default::default(),
            start: n,
            end: n + 1,
        }
    }

    fn int(v: i64, at: u32) -> Expr {
        Expr::new(ExprKind::Literal(Literal::Integer(BigInt::from(v))), sp(at))
    }

    fn rule(label: Option<&str>, exc: ExceptionTarget, v: i64, at: u32) -> Rule {
        Rule {
            label: label.map(|l| (l.to_string(), sp(at))),
            exception: exc,
            justification: Some(bool_lit(true, sp(at))),
            consequence: int(v, at),
            cons_span: sp(at),
            name_span: sp(at),
            def_span: sp(at),
        }
    }

    fn exceptions_of(e: &Expr) -> &[Expr] {
        match &e.kind {
            ExprKind::Default { exceptions, .. } => exceptions,
            _ => &[],
        }
    }

    #[test]
    fn unlabeled_exception_nests_over_the_base_group() {
        let rules = vec![
            rule(None, ExceptionTarget::None, 1, 10),
            rule(None, ExceptionTarget::Unlabeled(sp(20)), 2, 20),
        ];
        let t = build_tree(rules, "x", sp(0)).unwrap();
        // ⟨ ⟨exception group⟩ | true :- ⟨base rule | false :- ∅⟩ ⟩
        let ExprKind::Default {
            exceptions,
            justification,
            consequence,
        } = &t.kind
        else {
            panic!("not a default")
        };
        assert_eq!(exceptions.len(), 1);
        assert!(matches!(
            justification.kind,
            ExprKind::Literal(Literal::Bool(true))
        ));
        assert_eq!(exceptions_of(consequence).len(), 1);
        assert_eq!(exceptions_of(consequence)[0].span, sp(10));
        assert_eq!(exceptions_of(&exceptions[0])[0].span, sp(20));
    }

    #[test]
    fn unlabeled_exception_without_base_is_an_error() {
        let rules = vec![rule(None, ExceptionTarget::Unlabeled(sp(5)), 2, 5)];
        let err = build_tree(rules, "x", sp(0)).unwrap_err();
        assert_eq!(
            err.message,
            "This exception does not have a corresponding definition."
        );
    }

    #[test]
    fn unlabeled_exception_with_two_bases_is_ambiguous() {
        let rules = vec![
            rule(None, ExceptionTarget::None, 1, 1),
            rule(None, ExceptionTarget::None, 3, 2),
            rule(None, ExceptionTarget::Unlabeled(sp(3)), 2, 3),
        ];
        let err = build_tree(rules, "x", sp(0)).unwrap_err();
        assert!(err
            .message
            .starts_with("This exception can refer to several"));
    }

    #[test]
    fn unknown_label_is_reported_with_the_variable() {
        let rules = vec![
            rule(Some("base"), ExceptionTarget::None, 1, 1),
            rule(None, ExceptionTarget::Label("base_y".into(), sp(2)), 2, 2),
        ];
        let err = build_tree(rules, "x", sp(0)).unwrap_err();
        assert_eq!(
            err.message,
            "Unknown label for the scope variable x: \"base_y\"."
        );
    }

    #[test]
    fn exception_cycles_are_detected() {
        let rules = vec![
            rule(Some("a"), ExceptionTarget::Label("b".into(), sp(1)), 1, 1),
            rule(Some("b"), ExceptionTarget::Label("a".into(), sp(2)), 2, 2),
        ];
        let err = build_tree(rules, "x", sp(0)).unwrap_err();
        assert!(err
            .message
            .starts_with("Exception cycle detected when defining x"));
    }

    #[test]
    fn equal_consequences_are_chained_not_siblings() {
        let rules = vec![
            rule(None, ExceptionTarget::None, 7, 1),
            rule(None, ExceptionTarget::None, 8, 2),
            rule(None, ExceptionTarget::None, 7, 3),
        ];
        let t = build_tree(rules, "x", sp(0)).unwrap();
        let top = exceptions_of(&t);
        // Two siblings: the `8` rule and the chain of the two `7` rules (placed last).
        assert_eq!(top.len(), 2);
        assert_eq!(top[0].span, sp(2));
        assert_eq!(top[1].span, sp(1));
        assert_eq!(exceptions_of(&top[1]).len(), 1);
        assert_eq!(exceptions_of(&top[1])[0].span, sp(3));
    }
}
