//! A coverage-guided search order ([`Strategy::CoverageGuided`](crate::Strategy)): the open
//! node negated next is the one whose other side the runs so far took least often: a way no
//! run has gone (a rule's justification never true or never false, a case never matched)
//! first, then the least exercised one; the deepest among equals. The open nodes below it are
//! set aside as subtrees, as with new branches first. Where new branches first falls back to
//! the depth-first order once every way at hand has been taken, this order keeps steering the
//! runs towards the rules the tests have exercised least. Every open node is still negated
//! exactly once, so the paths are the depth-first ones.

use crate::searcher::{deepest_open, Coverage, Node, Pick, Searcher};
use std::cmp::Reverse;

/// Least-taken way first (see the module documentation).
pub struct CoverageGuided;

impl Searcher for CoverageGuided {
    fn pick(&mut self, stack: &[Node], coverage: &Coverage, lemmas_pending: bool) -> Option<Pick> {
        let deepest = deepest_open(stack)?;
        if lemmas_pending {
            // a subtree set aside would not carry the lemmas
            return Some(Pick {
                negate: deepest,
                set_aside_below: false,
            });
        }
        let (negate, _) = stack
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.done)
            .min_by_key(|(i, n)| {
                let times = n.other_way.map_or(u32::MAX, |w| coverage.times(&w));
                (times, Reverse(*i))
            })?;
        Some(Pick {
            negate,
            set_aside_below: negate < deepest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::searcher::tests::{point, stack};

    #[test]
    fn the_least_taken_way_goes_first_and_the_deepest_among_equals() {
        let s = stack(4, 0);
        let mut c = Coverage::default();
        for (i, times) in [(0, 2), (1, 1), (2, 3), (3, 2)] {
            for _ in 0..times {
                c.record(point(i), 1);
            }
        }
        // node 1's other way was taken once, the others more often
        let pick = CoverageGuided.pick(&s, &c, false);
        assert_eq!(
            pick,
            Some(Pick {
                negate: 1,
                set_aside_below: true
            })
        );
        // equal counts: the deepest, as depth-first
        c.record(point(0), 1);
        c.record(point(3), 1);
        c.record(point(1), 1);
        c.record(point(1), 1);
        let pick = CoverageGuided.pick(&s, &c, false);
        assert_eq!(
            pick,
            Some(Pick {
                negate: 3,
                set_aside_below: false
            })
        );
        // with lemmas pending, nothing is set aside
        let mut fresh = Coverage::default();
        fresh.record(point(3), 1);
        let pick = CoverageGuided.pick(&s, &fresh, true);
        assert_eq!(pick.map(|p| p.set_aside_below), Some(false));
    }
}
