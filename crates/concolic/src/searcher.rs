//! The searcher: which open branch of the path tree an exploration negates next. After each
//! run the explorer holds the run's path as a stack of `Node`s (a constraint, whether its
//! other side is explored, and where that other side leads); a `Searcher` picks the node to
//! negate and may ask for the open nodes below it to be set aside as subtrees in the
//! `WorkPool` (solved for now, explored later or by another worker). Every open node is
//! negated exactly once whatever the searcher, so all searchers find the same set of paths, in
//! different orders. The pool is the searcher's second level (`crate::work_pool`): it hands
//! out subtrees, to this worker later or to other threads (`crate::parallel`).
//!
//! Searchers: [`DepthFirst`] (the paper's), [`NewBranchesFirst`], and
//! [`crate::coverage_guided::CoverageGuided`]. A new strategy is one new type implementing
//! `Searcher`, plus its variant of [`crate::Strategy`].

use crate::worker::Worker;
use crate::ConcolicError;
use catala_syntax::Span;
use smt::catala::term::Term;
use smt::catala::QueryOutcome;
use std::collections::HashMap;

/// One constraint of the current path.
pub(crate) struct Node {
    pub(crate) term: Term,
    /// Its other side has been (or is being) explored, or belongs to another worker.
    pub(crate) done: bool,
    /// Where the negation of this node leads: the branch point and the way not taken there.
    pub(crate) other_way: Option<(Span, u32)>,
    /// The other branch points where the run met the same condition (left out of the path as
    /// repeats), with the way it went there: the negation changes the way there too.
    pub(crate) repeated_at: Vec<(Span, u32)>,
}

/// How often the runs so far went each way at each branch point.
#[derive(Default)]
pub struct Coverage {
    taken: HashMap<(Span, u32), u32>,
}

impl Coverage {
    /// A run went `way` at the branch point `at`.
    pub fn record(&mut self, at: Span, way: u32) {
        *self.taken.entry((at, way)).or_default() += 1;
    }

    /// Some run went this way.
    pub(crate) fn is_covered(&self, way: &(Span, u32)) -> bool {
        self.taken.contains_key(way)
    }

    /// How many times runs went this way.
    pub fn times(&self, way: &(Span, u32)) -> u32 {
        self.taken.get(way).copied().unwrap_or(0)
    }
}

/// The searcher's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pick {
    /// The position in the stack of the node to negate.
    pub negate: usize,
    /// Set the open nodes below it aside as subtrees first.
    pub set_aside_below: bool,
}

/// Decides which open node of the current path is negated next.
pub(crate) trait Searcher {
    /// The node to negate next, or `None` when every node is done. `lemmas_pending`: early-
    /// conflict lemmas hold for the nodes below their position, and a subtree set aside would
    /// not carry them, so a searcher must not set nodes aside then.
    fn pick(&mut self, stack: &[Node], coverage: &Coverage, lemmas_pending: bool) -> Option<Pick>;

    /// Conditions the inputs of the next paths are preferably chosen to satisfy, the most
    /// wanted first: the first one a path allows is added to its query (a choice between the
    /// inputs of one path, never a constraint: the paths are the same). None by default.
    fn preferred(&self) -> &[Term] {
        &[]
    }
}

impl Worker<'_> {
    /// Asks the solver chain for `query`, first with each of the searcher's preferred
    /// conditions in turn: the query whose model gives the inputs (with the first preferred
    /// condition that was satisfiable with it) and the outcome of `query` itself.
    pub(crate) fn check_preferring(
        &mut self,
        query: Vec<Term>,
    ) -> Result<(Vec<Term>, QueryOutcome), ConcolicError> {
        for condition in self.searcher.preferred().to_vec() {
            let mut preferring = query.clone();
            preferring.push(condition);
            let o = self.session.check_path(&preferring)?;
            if o == QueryOutcome::Sat {
                return Ok((preferring, QueryOutcome::Sat));
            }
        }
        let outcome = self.session.check_path(&query)?;
        Ok((query, outcome))
    }
}

/// The deepest open node in the stack.
pub(crate) fn deepest_open(stack: &[Node]) -> Option<usize> {
    stack.iter().rposition(|n| !n.done)
}

/// Negates the deepest open node (Section 3 of the paper).
pub struct DepthFirst;

impl Searcher for DepthFirst {
    fn pick(&mut self, stack: &[Node], _: &Coverage, _: bool) -> Option<Pick> {
        Some(Pick {
            negate: deepest_open(stack)?,
            set_aside_below: false,
        })
    }
}

/// Negates the deepest open node whose negation leads a way no run has gone yet (a
/// condition's other outcome, another case of a match); the open nodes below it are set aside.
/// Depth-first when there is none, or with lemmas pending.
pub struct NewBranchesFirst;

impl Searcher for NewBranchesFirst {
    fn pick(&mut self, stack: &[Node], coverage: &Coverage, lemmas_pending: bool) -> Option<Pick> {
        let deepest = deepest_open(stack)?;
        if !lemmas_pending {
            let new = stack
                .iter()
                .rposition(|n| !n.done && n.other_way.is_some_and(|w| !coverage.is_covered(&w)));
            if let Some(k) = new {
                if k < deepest {
                    return Some(Pick {
                        negate: k,
                        set_aside_below: true,
                    });
                }
            }
        }
        Some(Pick {
            negate: deepest,
            set_aside_below: false,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A stack of `n` nodes over the branch points `1..=n` (the way not taken is 1), the first
    /// `done` of them done.
    pub(crate) fn stack(n: usize, done: usize) -> Vec<Node> {
        (0..n)
            .map(|i| Node {
                term: smt::catala::term::bool_const(true),
                done: i < done,
                other_way: Some((point(i), 1)),
                repeated_at: Vec::new(),
            })
            .collect()
    }

    pub(crate) fn point(i: usize) -> Span {
        Span::new(catala_syntax::FileId(0), i + 1, i + 2)
    }

    #[test]
    fn depth_first_negates_the_deepest_open_node() {
        let s = stack(4, 1);
        let pick = DepthFirst.pick(&s, &Coverage::default(), false);
        assert_eq!(
            pick.map(|p| (p.negate, p.set_aside_below)),
            Some((3, false))
        );
        assert_eq!(
            DepthFirst.pick(&stack(3, 3), &Coverage::default(), false),
            None
        );
    }

    #[test]
    fn new_branches_first_skips_ways_already_taken_unless_lemmas_are_pending() {
        let s = stack(4, 0);
        let mut c = Coverage::default();
        c.record(point(3), 1);
        c.record(point(2), 1);
        let pick = NewBranchesFirst.pick(&s, &c, false);
        assert_eq!(
            pick,
            Some(Pick {
                negate: 1,
                set_aside_below: true
            })
        );
        let pick = NewBranchesFirst.pick(&s, &c, true);
        assert_eq!(
            pick,
            Some(Pick {
                negate: 3,
                set_aside_below: false
            })
        );
    }
}
