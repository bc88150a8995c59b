//! A search directed at a mutation: the exploration of a mutant negates first the branches of
//! the mutated default term (its justification, its exceptions' conditions, the conditions
//! inside them), then those of the rest of the definition holding it (the sibling rules whose
//! conflict or absence makes the mutant fail), and only then any other branch, in the order
//! of the searcher it falls back to. A mutant fails only where it differs from the original,
//! and it differs only on runs through the mutated term; the branches there are the ones whose
//! other sides may show the change. Every open branch is still negated exactly once, so the
//! paths are those of any other order (the shallower branch picked, the open ones below it are
//! set aside as subtrees and explored later, as with new branches first).
//!
//! The branches deciding whether the mutated variable is read (the conditions, in the other
//! definitions of its scope, one of whose ways reads it and the other not) come with them: a
//! variable left without a value, or with conflicting ones, makes the run fail only where it
//! is read. Such a reader's branch deeper
//! on the path than the nearest branch of the term or its definition is negated first (picking
//! the shallower one would set it aside); one above them, after them.
//!
//! For a removed exception, the search also aims at the exception's condition and at the rules
//! left where it held ([`crate::mutation_goal`]): those rules' decisions are negated first,
//! and each path's inputs are chosen inside the condition when the path allows.
//!
//! Where a branch is: the position of the branch point of each constraint of a run's path,
//! and of the places where the run met the same condition again (a repeat is left out of the
//! path, Section 4.4 of the paper, so its first constraint stands for it: negating that changes
//! the way the run goes at the repeat too), compared with the positions of the sub-terms of the
//! mutated default, of its definition and of the definitions reading it, in the mutant.

use crate::explore::explore_searching;
use crate::mutation::{for_each_definition, DefinedAt, Mutation};
use crate::mutation_goal::Goal;
use crate::options::ExploreOptions;
use crate::results::{Control, Exploration, TestCase};
use crate::searcher::{deepest_open, Coverage, Node, Pick, Searcher};
use crate::ConcolicError;
use catala_ir::dcalc::{Expr, ExprKind, Program, ScopeId, Slot};
use catala_syntax::Span;
use smt::catala::term::Term;
use std::collections::HashSet;
use std::sync::Arc;

/// The positions a directed search aims at, nearest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MutationTarget {
    /// The positions of the mutated default term and of every term inside it.
    pub site: HashSet<Span>,
    /// The positions of the terms of the definition holding it (the site's included).
    pub definition: HashSet<Span>,
    /// The positions of the conditions, in the other definitions of the same scope, one of
    /// whose ways reads the variable so defined and the other not: a mutant that leaves it
    /// without a value, or with a conflict, fails only where it is read, and these conditions
    /// decide whether it is.
    pub readers: HashSet<Span>,
    /// The positions of the justifications of the rules left in the mutated term.
    pub justifications: HashSet<Span>,
}

impl MutationTarget {
    /// The target of `m` in `mutant` (the program with `m` applied, explored from `root`);
    /// `None` when `m` names no default term.
    pub fn of(mutant: &Program, root: ScopeId, m: Mutation) -> Option<MutationTarget> {
        let mut copy = mutant.clone();
        let mut found: Option<(DefinedAt, MutationTarget)> = None;
        for_each_definition(&mut copy, root, &mut |at, sites, expr| {
            if found.is_some() || !sites.contains(&m.site) {
                return;
            }
            let mut definition = HashSet::new();
            positions(expr, &mut definition);
            let mut site = HashSet::new();
            let mut justifications = HashSet::new();
            crate::mutation::for_each_default_in(expr, sites.start, &mut |k, e| {
                if k == m.site {
                    positions(e, &mut site);
                    crate::mutation_goal::justifications(e, &mut justifications);
                }
            });
            let target = MutationTarget {
                site,
                definition,
                readers: HashSet::new(),
                justifications,
            };
            found = Some((at, target));
        });
        let (defined, mut target) = found?;
        for_each_definition(&mut copy, root, &mut |at, _, expr| {
            if at.scope == defined.scope && at != defined {
                gates(expr, defined.slot, &mut target.readers);
            }
        });
        Some(target)
    }

    /// How near the branch point `at` is: 0 in the mutated term, 1 in its definition,
    /// [`READER`] in a definition reading the variable.
    fn tier(&self, at: &Span) -> Option<usize> {
        if self.site.contains(at) {
            Some(0)
        } else if self.definition.contains(at) {
            Some(1)
        } else if self.readers.contains(at) {
            Some(READER)
        } else {
            None
        }
    }

    /// How near the negation of `n` leads: the nearest of its branch point and of the places
    /// where the run met its condition again (repeats are not on the path: the first
    /// constraint stands for them).
    fn tier_of(&self, n: &Node) -> Option<usize> {
        let (at, _) = n.other_way?;
        std::iter::once(&at)
            .chain(n.repeated_at.iter().map(|(s, _)| s))
            .filter_map(|s| self.tier(s))
            .min()
    }
}

impl MutationTarget {
    /// Whether `n` is the justification of a rule of the mutated term that held (there, or
    /// where its condition came again).
    pub(crate) fn held_rule(&self, n: &Node) -> bool {
        let taken = n.other_way.map(|(at, other)| (at, other ^ 1));
        taken
            .iter()
            .chain(&n.repeated_at)
            .any(|(at, way)| *way == 1 && self.justifications.contains(at))
    }
}

/// The tier of the branches in the definitions reading the mutated variable.
const READER: usize = 2;

/// The positions of `e` and of every term inside it.
fn positions(e: &mut Expr, out: &mut HashSet<Span>) {
    out.insert(e.span);
    for c in crate::fold::children(e) {
        positions(c, out);
    }
}

/// The positions of the conditions in `e` one of whose ways reads `slot` of its frame and the
/// other not (an `if` and its condition, a rule and its justification): the branches deciding
/// whether the value is read.
fn gates(e: &mut Expr, slot: Slot, out: &mut HashSet<Span>) {
    let span = e.span;
    let condition = match &mut e.kind {
        ExprKind::Lambda(l) => {
            if let Some(i) = l.captures.iter().position(|c| *c == slot) {
                gates(&mut Arc::make_mut(l).body, Slot(i as u32), out);
            }
            return;
        }
        ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => (reads(then_branch, slot) != reads(else_branch, slot)).then_some(cond),
        ExprKind::Default {
            justification,
            consequence,
            ..
        } => reads(consequence, slot).then_some(justification),
        _ => None,
    };
    if let Some(c) = condition {
        out.insert(span);
        positions(c, out);
    }
    for c in crate::fold::children(e) {
        gates(c, slot, out);
    }
}

/// Whether `e` reads `slot` of its frame (inside a function, through the function's copy of
/// it).
fn reads(e: &mut Expr, slot: Slot) -> bool {
    match &mut e.kind {
        ExprKind::Local(s) => *s == slot,
        ExprKind::Lambda(l) => match l.captures.iter().position(|c| *c == slot) {
            Some(i) => reads(&mut Arc::make_mut(l).body, Slot(i as u32)),
            None => false,
        },
        _ => crate::fold::children(e).into_iter().any(|c| reads(c, slot)),
    }
}

/// Negates the deepest open branch of the mutated term first, then of its definition (a
/// reader's branch below them before them, see the module documentation), then of the
/// definitions reading it, then as `fallback` would.
pub(crate) struct TowardsMutation {
    pub(crate) target: MutationTarget,
    pub(crate) fallback: Box<dyn Searcher>,
    /// The condition under which the mutant can differ, when known (see
    /// [`crate::mutation_goal`]): each path's inputs satisfy it when the path allows.
    pub(crate) goal: Option<Goal>,
    /// The conditions the next inputs are preferably chosen to satisfy (from the goal and the
    /// last path).
    pub(crate) preferred: Vec<Term>,
}

impl Searcher for TowardsMutation {
    fn pick(&mut self, stack: &[Node], coverage: &Coverage, lemmas_pending: bool) -> Option<Pick> {
        let deepest = deepest_open(stack)?;
        if let Some(goal) = &mut self.goal {
            self.preferred = goal.preferred(&self.target, stack);
        }
        if let (Some(goal), false) = (&mut self.goal, lemmas_pending) {
            if let Some(negate) = goal.next_rule_decision(&self.target, stack) {
                return Some(Pick {
                    negate,
                    set_aside_below: negate < deepest,
                });
            }
        }
        if !lemmas_pending {
            let tiers = stack
                .iter()
                .enumerate()
                .filter(|(_, n)| !n.done)
                .filter_map(|(i, n)| Some((self.target.tier_of(n)?, i)));
            // The nearest tier's deepest node, unless a reader's branch lies below it: picking
            // the shallower node would set the reader's aside.
            let (mut near, mut reader): (Option<(usize, usize)>, Option<usize>) = (None, None);
            for (tier, i) in tiers {
                if tier == READER {
                    reader = Some(i);
                } else if near.is_none_or(|(t, _)| tier <= t) {
                    near = Some((tier, i));
                }
            }
            let aimed = match (near, reader) {
                (Some((_, i)), Some(r)) if r < i => Some(i),
                (_, Some(r)) => Some(r),
                (near, None) => near.map(|(_, i)| i),
            };
            if let Some(negate) = aimed {
                return Some(Pick {
                    negate,
                    set_aside_below: negate < deepest,
                });
            }
        }
        self.fallback.pick(stack, coverage, lemmas_pending)
    }

    fn preferred(&self) -> &[Term] {
        &self.preferred
    }
}

/// Explores every path of `scope` in `program` (a mutant) as [`crate::explore`] does, with the
/// search directed at `target` before the order of `options.strategy`, and each path's inputs
/// chosen to satisfy `goal` when it allows. Sequential; the mutants' options ask for no
/// checkpoint.
pub(crate) fn explore_towards(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    target: MutationTarget,
    goal: Option<Term>,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
) -> Result<Exploration, ConcolicError> {
    let searcher = Box::new(TowardsMutation {
        target,
        fallback: options.strategy.searcher(),
        goal: goal.map(Goal::new),
        preferred: Vec::new(),
    });
    explore_searching(
        program,
        scope,
        options,
        Some(searcher),
        on_test,
        &mut |_| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::searcher::tests::{point, stack};
    use crate::searcher::DepthFirst;

    fn target(site: &[usize], definition: &[usize]) -> MutationTarget {
        MutationTarget {
            site: site.iter().map(|&i| point(i)).collect(),
            definition: definition.iter().map(|&i| point(i)).collect(),
            readers: HashSet::new(),
            justifications: HashSet::new(),
        }
    }

    #[test]
    fn a_reader_branch_counts_through_its_repeats_and_goes_first_when_deeper() {
        // Seven open nodes over the branch points 0..7: 2 in the mutated term, 10 and 11 in a
        // definition reading it (not on the path: 10 is where the condition of node 1 came
        // again, 11 where that of node 5 did).
        let mut s = stack(7, 0);
        s[1].repeated_at = vec![(point(10), 0)];
        s[5].repeated_at = vec![(point(11), 1)];
        let mut searcher = TowardsMutation {
            target: MutationTarget {
                readers: [point(10), point(11)].into_iter().collect(),
                ..target(&[2], &[2])
            },
            fallback: Box::new(DepthFirst),
            goal: None,
            preferred: Vec::new(),
        };
        let c = Coverage::default();
        // Node 5 stands for a reader's branch below the term's (2): first, the nodes below it
        // set aside.
        assert_eq!(
            searcher.pick(&s, &c, false),
            Some(Pick {
                negate: 5,
                set_aside_below: true
            })
        );
        s[5].done = true;
        // Then the term's branch, above the remaining reader's branch (1).
        assert_eq!(searcher.pick(&s, &c, false).map(|p| p.negate), Some(2));
        s[2].done = true;
        assert_eq!(searcher.pick(&s, &c, false).map(|p| p.negate), Some(1));
        s[1].done = true;
        // Without its repeat, node 1 would not have been aimed at: depth-first from here.
        assert_eq!(searcher.pick(&s, &c, false).map(|p| p.negate), Some(6));
        let mut plain = stack(7, 0);
        plain[5].repeated_at = Vec::new();
        assert_eq!(
            searcher.pick(&plain, &c, false).map(|p| p.negate),
            Some(2),
            "no repeat at a reader: the term's branch first"
        );
    }

    #[test]
    fn the_mutated_term_goes_first_then_its_definition_then_the_fallback() {
        // Six open nodes over the branch points 0..6: 1 and 2 in the mutated term, 0, 1, 2
        // and 4 in its definition.
        let mut s = stack(6, 0);
        let mut searcher = TowardsMutation {
            target: target(&[1, 2], &[0, 1, 2, 4]),
            fallback: Box::new(DepthFirst),
            goal: None,
            preferred: Vec::new(),
        };
        let c = Coverage::default();
        let pick = |searcher: &mut TowardsMutation, s: &[Node]| searcher.pick(s, &c, false);
        // The deepest of the mutated term (2), the nodes below it set aside.
        assert_eq!(
            pick(&mut searcher, &s),
            Some(Pick {
                negate: 2,
                set_aside_below: true
            })
        );
        s[2].done = true;
        assert_eq!(pick(&mut searcher, &s).map(|p| p.negate), Some(1));
        s[1].done = true;
        // None left in the term: the deepest of the definition (4, then 0).
        assert_eq!(pick(&mut searcher, &s).map(|p| p.negate), Some(4));
        s[4].done = true;
        assert_eq!(pick(&mut searcher, &s).map(|p| p.negate), Some(0));
        s[0].done = true;
        // Only 3 and 5 left, outside: depth-first, the deepest.
        assert_eq!(
            pick(&mut searcher, &s),
            Some(Pick {
                negate: 5,
                set_aside_below: false
            })
        );
        // With early-conflict lemmas pending nothing is set aside: the fallback's pick.
        let fresh = stack(6, 0);
        assert_eq!(
            searcher.pick(&fresh, &c, true),
            Some(Pick {
                negate: 5,
                set_aside_below: false
            })
        );
    }
}
