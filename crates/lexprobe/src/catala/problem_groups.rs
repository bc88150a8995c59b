//! Tests ending in a runtime error, grouped into distinct problems by their error signature
//! (kind and positions): for each, how many tests show it, the first of them, the path
//! conditions of its tests (the condition under which it happens), and its most typical test
//! (the lowest rank: the fewest inputs outside their realistic ranges, then the dates nearest
//! the middle of the program's years, then the first found; see `concolic::inputs::realism`).
//! The printed findings and the result files (SARIF, JUnit) both group this way, each keeping
//! its own data per problem.

use catala_eval::eval::ErrorSignature;
use concolic::inputs::realism::Typicality;
use std::collections::HashMap;

/// The rank of a test as a problem's example: lower is more typical.
pub(crate) type ExampleRank = (Typicality, usize);

/// One distinct problem and the data its report keeps.
pub(crate) struct Group<T> {
    pub tests: usize,
    pub first_test: usize,
    /// The rank of the example kept in `data`.
    pub example: ExampleRank,
    /// The path conditions of its tests (when collected).
    pub condition: explain::Collector,
    pub data: T,
}

/// The distinct problems recorded so far, in the order they were first met.
pub(crate) struct ProblemGroups<T> {
    by_signature: HashMap<ErrorSignature, usize>,
    groups: Vec<Group<T>>,
}

impl<T> Default for ProblemGroups<T> {
    fn default() -> Self {
        ProblemGroups {
            by_signature: HashMap::new(),
            groups: Vec::new(),
        }
    }
}

/// A test ending in an error, as [`ProblemGroups::record`] takes it.
pub(crate) struct ErrorTest<'a> {
    pub signature: ErrorSignature,
    /// 0-based index of the test in the exploration.
    pub index: usize,
    pub rank: ExampleRank,
    /// Its path condition, when it is to be collected.
    pub condition: Option<&'a explain::PathCase>,
}

impl<T> ProblemGroups<T> {
    /// Adds a test to its problem: `new` makes the data of a problem met for the first time,
    /// `example` replaces the data's example when this test is more typical.
    pub(crate) fn record(
        &mut self,
        test: ErrorTest<'_>,
        new: impl FnOnce() -> T,
        example: impl FnOnce(&mut T),
    ) {
        if let Some(&i) = self.by_signature.get(&test.signature) {
            let g = &mut self.groups[i];
            g.tests += 1;
            g.first_test = g.first_test.min(test.index);
            if let Some(c) = test.condition {
                g.condition.add(c.clone());
            }
            if test.rank < g.example {
                g.example = test.rank;
                example(&mut g.data);
            }
            return;
        }
        let mut condition = explain::Collector::default();
        if let Some(c) = test.condition {
            condition.add(c.clone());
        }
        self.by_signature.insert(test.signature, self.groups.len());
        self.groups.push(Group {
            tests: 1,
            first_test: test.index,
            example: test.rank,
            condition,
            data: new(),
        });
    }

    /// The number of distinct problems.
    pub(crate) fn len(&self) -> usize {
        self.groups.len()
    }

    /// The problems in the order of their first test.
    pub(crate) fn sorted(&self) -> Vec<&Group<T>> {
        let mut v: Vec<&Group<T>> = self.groups.iter().collect();
        v.sort_by_key(|g| g.first_test);
        v
    }
}
