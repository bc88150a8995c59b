//! The bounded sample of tests that explanations learn from: at most `limit` failed and
//! `limit` passed tests, each a uniform random sample of all the tests of its label seen so
//! far (reservoir sampling, Algorithm R, drawn from a random stream of its own so that
//! sampling never changes the tests the search draws). A sampled test keeps its inputs and
//! the value of `F` only, so memory stays bounded however long the search runs.

use crate::rng::SeededRng;
use crate::search::{TestRecord, MAIN_OUTPUT_KEY};

/// A reservoir of tests per label, in the order they entered it.
pub(crate) struct TestSample {
    limit: usize,
    tests: Vec<TestRecord>,
    /// Positions in `tests` of the sampled failed and passed tests.
    failed_slots: Vec<usize>,
    passed_slots: Vec<usize>,
    failed_seen: usize,
    passed_seen: usize,
    rng: SeededRng,
}

impl TestSample {
    /// An empty sample keeping at most `limit` tests of each label.
    pub(crate) fn new(limit: usize, rng: SeededRng) -> TestSample {
        TestSample {
            limit,
            tests: Vec::new(),
            failed_slots: Vec::new(),
            passed_slots: Vec::new(),
            failed_seen: 0,
            passed_seen: 0,
            rng,
        }
    }

    /// Offers one completed test: it enters the sample with probability limit / (tests of
    /// its label seen so far), replacing a uniformly chosen one when the sample is full.
    pub(crate) fn offer(&mut self, mut record: TestRecord) {
        let (slots, seen) = if record.failed {
            (&mut self.failed_slots, &mut self.failed_seen)
        } else {
            (&mut self.passed_slots, &mut self.passed_seen)
        };
        *seen += 1;
        let position = if slots.len() < self.limit {
            slots.push(self.tests.len());
            None
        } else {
            let slot = self.rng.below(*seen);
            if slot >= self.limit {
                return;
            }
            Some(slots[slot])
        };
        for outputs in &mut record.outputs {
            outputs.retain(|name, _| name == MAIN_OUTPUT_KEY);
        }
        match position {
            Some(at) => self.tests[at] = record,
            None => self.tests.push(record),
        }
    }

    /// The sampled tests.
    pub(crate) fn into_tests(self) -> Vec<TestRecord> {
        self.tests
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Record, Value};

    fn test(i: usize, failed: bool) -> TestRecord {
        let case: Record = [("i".to_string(), Value::Integer(i as i64))]
            .into_iter()
            .collect();
        let outputs: Record = [
            (MAIN_OUTPUT_KEY.to_string(), Value::Integer(1)),
            ("other".to_string(), Value::Integer(2)),
        ]
        .into_iter()
        .collect();
        TestRecord {
            cases: vec![case],
            outputs: vec![outputs],
            failed,
            deviation: 0.0,
            at_s: 0.0,
            fresh_base: true,
        }
    }

    #[test]
    fn bounded_per_label_uniform_and_slim() {
        // 10 of 1000 passed tests are kept; over 400 samples each test should be kept
        // 400 * 10 / 1000 = 4 times on average: the first and the last hundred must both
        // be kept about as often as the others (a first-come sample would keep only 0..9).
        let mut first_hundred = 0;
        let mut last_hundred = 0;
        for seed in 0..400 {
            let mut sample = TestSample::new(10, SeededRng::new(seed));
            for i in 0..1000 {
                sample.offer(test(i, false));
            }
            sample.offer(test(5000, true));
            let kept = sample.into_tests();
            assert_eq!(kept.iter().filter(|t| !t.failed).count(), 10);
            assert_eq!(kept.iter().filter(|t| t.failed).count(), 1);
            for t in &kept {
                assert_eq!(t.outputs[0].len(), 1, "only F is kept");
                let i = t.cases[0]["i"].as_f64().unwrap();
                first_hundred += usize::from(i < 100.0);
                last_hundred += usize::from((900.0..1000.0).contains(&i));
            }
        }
        // Expected 400 each (400 samples x 10 kept x 100/1000).
        assert!((320..480).contains(&first_hundred), "{first_hundred}");
        assert!((320..480).contains(&last_hundred), "{last_hundred}");
    }
}
