//! Choosing a small test suite among an exploration's tests (`--suite minimal`): the fewest
//! tests that still apply every rule the whole exploration applied and show every distinct
//! problem (one test per problem signature). This is set cover, solved greedily: take the
//! test adding most rules and problems not yet covered (the earliest on a tie), until none
//! adds anything. Greedy set cover is within a logarithmic factor of the fewest; for the
//! suites here it is the usual choice (the exact problem is NP-hard).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::Hash;

/// One test as the selection sees it.
#[derive(Clone, Debug)]
pub struct Candidate<K> {
    /// The test's number in the exploration (0-based).
    pub index: usize,
    /// The rules (law-coverage items) the test applied, by their numbers.
    pub rules: Vec<u32>,
    /// The problem the test shows (its error's signature), if any.
    pub problem: Option<K>,
}

/// The tests kept and what they cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The numbers of the tests kept, in exploration order.
    pub kept: Vec<usize>,
    /// The number of tests chosen from.
    pub total: usize,
    /// Distinct rules applied by all the tests (and so by the kept ones).
    pub rules: usize,
    /// Distinct problems shown by all the tests (and so by the kept ones).
    pub problems: usize,
}

/// The greedy choice among `tests` (see the module documentation).
pub fn minimal<K: Hash + Eq + Clone>(tests: &[Candidate<K>]) -> Selection {
    // Tests covering the same rules and problem are one candidate (the earliest).
    let mut seen: HashSet<(Vec<u32>, Option<&K>)> = HashSet::new();
    let mut distinct: Vec<&Candidate<K>> = Vec::new();
    for t in tests {
        let mut rules = t.rules.clone();
        rules.sort_unstable();
        rules.dedup();
        if seen.insert((rules, t.problem.as_ref())) {
            distinct.push(t);
        }
    }
    let mut rules_left: HashSet<u32> = tests.iter().flat_map(|t| t.rules.iter().copied()).collect();
    let mut problems_left: HashMap<&K, ()> = tests
        .iter()
        .filter_map(|t| t.problem.as_ref().map(|p| (p, ())))
        .collect();
    let (rules, problems) = (rules_left.len(), problems_left.len());
    let gain = |c: &Candidate<K>, rules_left: &HashSet<u32>, problems_left: &HashMap<&K, ()>| {
        let mut g = c.rules.iter().filter(|r| rules_left.contains(r)).count();
        if c.problem
            .as_ref()
            .is_some_and(|p| problems_left.contains_key(p))
        {
            g += 1;
        }
        g
    };
    // Lazy greedy: a candidate's gain only shrinks as others are taken, so a stale gain on top
    // of the heap is recomputed and pushed back until the top one is current.
    let mut heap: BinaryHeap<(usize, Reverse<usize>)> = distinct
        .iter()
        .enumerate()
        .map(|(k, c)| (gain(c, &rules_left, &problems_left), Reverse(k)))
        .collect();
    let mut kept = Vec::new();
    while let Some((stale, Reverse(k))) = heap.pop() {
        if stale == 0 {
            break;
        }
        let c = distinct[k];
        let now = gain(c, &rules_left, &problems_left);
        if now < stale {
            heap.push((now, Reverse(k)));
            continue;
        }
        kept.push(c.index);
        for r in &c.rules {
            rules_left.remove(r);
        }
        if let Some(p) = &c.problem {
            problems_left.remove(p);
        }
    }
    kept.sort_unstable();
    Selection {
        kept,
        total: tests.len(),
        rules,
        problems,
    }
}

/// A test rebuilt from its inputs, the outcome of a plain run on them and its path (tests found
/// by several workers are handed over as inputs and paths, and replayed for a suite).
pub fn replayed_test(
    inputs: Vec<Option<catala_eval::runtime::Value>>,
    outcome: crate::Outcome,
    path: crate::PathId,
) -> crate::TestCase {
    crate::TestCase {
        inputs,
        outcome,
        constraints: Vec::new(),
        condition: None,
        roundness: smt::catala::RoundnessLevel::Cents,
        path,
        found_at: std::time::Duration::ZERO,
        queries: 0,
        outside_input_space: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(index: usize, rules: &[u32], problem: Option<&'static str>) -> Candidate<&'static str> {
        Candidate {
            index,
            rules: rules.to_vec(),
            problem,
        }
    }

    #[test]
    fn the_fewest_tests_covering_rules_and_problems() {
        // Rules 1..4: test 2 covers {1,2,3}, test 3 covers {4}; tests 0 and 1 are subsets of
        // test 2. Problem `conflict` is shown by tests 4 and 5 (the same signature): one of
        // them is needed, the earliest (4) is taken. So 3 of 6 tests: {2, 3, 4}.
        let tests = [
            c(0, &[1], None),
            c(1, &[1, 2], None),
            c(2, &[1, 2, 3], None),
            c(3, &[4], None),
            c(4, &[1], Some("conflict")),
            c(5, &[2], Some("conflict")),
        ];
        let s = minimal(&tests);
        assert_eq!(s.kept, vec![2, 3, 4]);
        assert_eq!((s.total, s.rules, s.problems), (6, 4, 1));
    }

    #[test]
    fn a_test_covering_a_problem_and_new_rules_is_preferred() {
        // Test 1 shows the problem and applies rule 2, which test 0 also applies: test 1 alone
        // covers rules {2} and the problem; test 0 adds nothing after it.
        let tests = [c(0, &[2], None), c(1, &[2], Some("division"))];
        assert_eq!(minimal(&tests).kept, vec![1]);
    }

    #[test]
    fn no_tests_no_suite() {
        let s = minimal::<&str>(&[]);
        assert!(s.kept.is_empty());
        assert_eq!((s.rules, s.problems), (0, 0));
    }
}
