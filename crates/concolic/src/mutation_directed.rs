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
//! Where a branch is: the position of the branch point of each constraint of a run's path,
//! compared with the positions of the sub-terms of the mutated default and of its definition
//! in the mutant.

use crate::checkpoint::Checkpoint;
use crate::explore::conclude;
use crate::mutation::{for_each_definition, Mutation};
use crate::observers::{Checkpoints, Observers};
use crate::options::ExploreOptions;
use crate::results::{Control, Exploration, ExploreStats, TestCase};
use crate::searcher::{deepest_open, Coverage, Node, Pick, Searcher};
use crate::work_pool::{Solo, Task};
use crate::worker::{transform, Worker};
use crate::ConcolicError;
use catala_ir::dcalc::{Expr, Program, ScopeId};
use catala_syntax::Span;
use std::collections::HashSet;
use std::time::Instant;

/// The positions a directed search aims at, nearest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MutationTarget {
    /// The positions of the mutated default term and of every term inside it.
    pub site: HashSet<Span>,
    /// The positions of the terms of the definition holding it (the site's included).
    pub definition: HashSet<Span>,
}

impl MutationTarget {
    /// The target of `m` in `mutant` (the program with `m` applied, explored from `root`);
    /// `None` when `m` names no default term.
    pub fn of(mutant: &Program, root: ScopeId, m: Mutation) -> Option<MutationTarget> {
        let mut copy = mutant.clone();
        let mut found = None;
        for_each_definition(&mut copy, root, &mut |sites, expr| {
            if found.is_some() || !sites.contains(&m.site) {
                return;
            }
            let mut definition = HashSet::new();
            positions(expr, &mut definition);
            let mut site = HashSet::new();
            crate::mutation::for_each_default_in(expr, sites.start, &mut |k, e| {
                if k == m.site {
                    positions(e, &mut site);
                }
            });
            found = Some(MutationTarget { site, definition });
        });
        found
    }

    /// How near the branch point `at` is: 0 in the mutated term, 1 in its definition.
    fn tier(&self, at: &Span) -> Option<usize> {
        if self.site.contains(at) {
            Some(0)
        } else if self.definition.contains(at) {
            Some(1)
        } else {
            None
        }
    }
}

/// The positions of `e` and of every term inside it.
fn positions(e: &mut Expr, out: &mut HashSet<Span>) {
    out.insert(e.span);
    for c in crate::fold::children(e) {
        positions(c, out);
    }
}

/// Negates the deepest open branch of the mutated term first, then of its definition, then
/// as `fallback` would (see the module documentation).
pub(crate) struct TowardsMutation {
    pub(crate) target: MutationTarget,
    pub(crate) fallback: Box<dyn Searcher>,
}

impl Searcher for TowardsMutation {
    fn pick(&mut self, stack: &[Node], coverage: &Coverage, lemmas_pending: bool) -> Option<Pick> {
        let deepest = deepest_open(stack)?;
        if !lemmas_pending {
            let aimed = stack
                .iter()
                .enumerate()
                .filter(|(_, n)| !n.done)
                .filter_map(|(i, n)| Some((self.target.tier(&n.other_way?.0)?, i)))
                .min_by_key(|&(tier, i)| (tier, std::cmp::Reverse(i)));
            if let Some((_, negate)) = aimed {
                return Some(Pick {
                    negate,
                    set_aside_below: negate < deepest,
                });
            }
        }
        self.fallback.pick(stack, coverage, lemmas_pending)
    }
}

/// Explores every path of `scope` in `program` (a mutant) as [`crate::explore`] does, with the
/// search directed at `target` before the order of `options.strategy`. Sequential, without
/// checkpoints.
pub(crate) fn explore_towards(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    target: MutationTarget,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
) -> Result<Exploration, ConcolicError> {
    let start = Instant::now();
    let transformed = transform(program, options);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    worker.searcher = Box::new(TowardsMutation {
        target,
        fallback: options.strategy.searcher(),
    });
    let mut no_checkpoints = |_: &Checkpoint| {};
    let mut checkpoints = Checkpoints::new(None, &mut no_checkpoints);
    let mut stats = ExploreStats::default();
    let pool = Solo::default();
    let first = Task::new(worker.initial_assignment()?, 0);
    let mut obs = Observers {
        tests: on_test,
        checkpoints: &mut checkpoints,
        stats: &mut stats,
    };
    worker.run(Some(first), &pool, &mut obs)?;
    let mut e = worker.finish(stats, pool.stopped.get(), &checkpoints);
    conclude(&mut e);
    Ok(e)
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
        }
    }

    #[test]
    fn the_mutated_term_goes_first_then_its_definition_then_the_fallback() {
        // Six open nodes over the branch points 0..6: 1 and 2 in the mutated term, 0, 1, 2
        // and 4 in its definition.
        let mut s = stack(6, 0);
        let mut searcher = TowardsMutation {
            target: target(&[1, 2], &[0, 1, 2, 4]),
            fallback: Box::new(DepthFirst),
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
