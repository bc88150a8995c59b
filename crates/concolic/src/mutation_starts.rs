//! Starting points of a mutant's exploration, chosen on the original program alone: for each
//! way a run of the original can go through the mutated default term — the term reached, a
//! justification in it found true, one found false, a rule's consequence giving the value —
//! the first known input (witness) whose run goes that way. A mutant differs from the original
//! only on runs through its mutated term, and a removed or duplicated exception or a negated
//! justification shows on runs where that rule, or that outcome of its condition, is taken:
//! these inputs are the ones that cover the change, one per outcome, the way a test suite
//! selects the tests covering a changed line. What the mutant does on them plays no part in the
//! choice.
//!
//! The index is made once per campaign, by one run of the original with the coverage
//! companion on each witness; each mutant then looks up the positions of its term.

use crate::ConcolicError;
use catala_eval::eval::coverage::{run_covered, Coverage, CoverageLog};
use catala_eval::eval::Interpreter;
use catala_eval::Value;
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::Span;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A way a run goes at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Way {
    /// The default term there was evaluated.
    Reached,
    /// The justification there held.
    Held,
    /// The justification there did not hold.
    Failed,
    /// The rule consequence there gave its default term's value.
    Applied,
}

/// For each (position, way), the first witness whose run of the original goes that way.
#[derive(Clone, Debug, Default)]
pub(crate) struct FirstWitnesses {
    first: HashMap<(Span, Way), usize>,
}

impl FirstWitnesses {
    /// Runs the original `program` on every witness (in order) with the coverage companion.
    pub(crate) fn of(
        program: &Program,
        scope: ScopeId,
        witnesses: &[Vec<Option<Value>>],
    ) -> Result<FirstWitnesses, ConcolicError> {
        let mut interp = Interpreter::<Coverage>::new(program, CoverageLog::default())
            .map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
        let mut index = FirstWitnesses::default();
        for (k, w) in witnesses.iter().enumerate() {
            let (_, log) = run_covered(&mut interp, scope, w.clone());
            index.add(k, &log);
        }
        Ok(index)
    }

    /// Records the ways of witness `k`'s run not seen on an earlier one.
    fn add(&mut self, k: usize, log: &CoverageLog) {
        let mut note = |span: Span, way: Way| {
            self.first.entry((span, way)).or_insert(k);
        };
        for s in log.defaults.keys() {
            note(*s, Way::Reached);
        }
        for (s, (held, failed)) in &log.justifications {
            if *held > 0 {
                note(*s, Way::Held);
            }
            if *failed > 0 {
                note(*s, Way::Failed);
            }
        }
        for s in log.consequences.keys() {
            note(*s, Way::Applied);
        }
    }

    /// The witnesses that first go each way at one of `positions`, in witness order (the
    /// first is the first witness whose run reaches one of them).
    pub(crate) fn starts(&self, positions: &HashSet<Span>) -> Vec<usize> {
        let ways = [Way::Reached, Way::Held, Way::Failed, Way::Applied];
        let found: BTreeSet<usize> = positions
            .iter()
            .flat_map(|s| {
                ways.iter()
                    .filter_map(|w| self.first.get(&(*s, *w)).copied())
            })
            .collect();
        found.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(i: usize) -> Span {
        Span::new(catala_syntax::FileId(0), i, i + 1)
    }

    #[test]
    fn each_way_at_the_positions_gives_its_first_witness_once() {
        let mut index = FirstWitnesses::default();
        // witness 0: reaches 1, its justification 2 fails
        let mut log = CoverageLog::default();
        log.defaults.insert(at(1), 1);
        log.justifications.insert(at(2), (0, 1));
        index.add(0, &log);
        // witness 1: the same ways again (not a new start)
        index.add(1, &log);
        // witness 2: justification 2 holds, consequence 3 applied; 9 is elsewhere
        let mut log = CoverageLog::default();
        log.defaults.insert(at(1), 1);
        log.justifications.insert(at(2), (1, 0));
        log.consequences.insert(at(3), 1);
        log.defaults.insert(at(9), 1);
        index.add(2, &log);
        // witness 3: only elsewhere
        let mut log = CoverageLog::default();
        log.justifications.insert(at(9), (1, 1));
        index.add(3, &log);
        let positions: HashSet<Span> = [at(1), at(2), at(3)].into_iter().collect();
        assert_eq!(index.starts(&positions), vec![0, 2]);
        let elsewhere: HashSet<Span> = [at(9)].into_iter().collect();
        assert_eq!(index.starts(&elsewhere), vec![2, 3]);
        assert!(index.starts(&HashSet::new()).is_empty());
    }
}
