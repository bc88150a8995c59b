//! Checking a set of relations on one system: runs the search on each relation and explains
//! each outcome. A relation whose tests all fail (or all pass) needs no tree: the premise is
//! the explanation. Otherwise a lexicographic tree and a plain CART tree are trained on the
//! kept tests, over the raw input fields and the derived features of [`crate::features`].

use crate::domain::Domain;
use crate::features::explanation_dataset;
use crate::relation::Relation;
use crate::search::{search_relation, SearchConfig, SearchOutcome, TestRecord};
use crate::system::SystemUnderTest;
use crate::tree::{DecisionTree, TreeOptions};

/// How the failures of a relation are explained.
#[derive(Debug, Clone)]
pub enum Explanation {
    /// No test completed.
    NoTests,
    /// No test failed.
    NoFailure,
    /// Every test failed: the premise itself describes the failures.
    AllFailed,
    /// Trees separating failed from passed tests.
    Trees {
        /// Tests the trees were trained on.
        training_tests: usize,
        lexicographic: Box<DecisionTree>,
        lexicographic_accuracy: f64,
        cart: Box<DecisionTree>,
        cart_accuracy: f64,
    },
}

impl Explanation {
    /// A one-paragraph text form (used in JSON and the terminal).
    pub fn to_text(&self, outcome: &SearchOutcome) -> String {
        match self {
            Explanation::NoTests => {
                let mut text = format!(
                    "inconclusive: {}",
                    outcome
                        .stop_reason
                        .as_deref()
                        .unwrap_or("no test completed")
                );
                if let Some(example) = outcome.run_error_examples.first() {
                    text.push_str(&format!("; first run error: {example}"));
                }
                text
            }
            Explanation::NoFailure => format!(
                "no failure in {} tests ({} bases accepted after {} consecutive passes, {} bases with all their distinct follow-ups passed)",
                outcome.tests,
                outcome.accepted_bases,
                outcome.consecutive_passes_needed,
                outcome.exhausted_bases
            ),
            Explanation::AllFailed => format!(
                "all {} tests failed: the premise itself characterizes the failures",
                outcome.tests
            ),
            Explanation::Trees {
                lexicographic,
                lexicographic_accuracy,
                training_tests,
                ..
            } => format!(
                "lexicographic decision tree, {:.1}% accuracy on {} tests, {} leaves:\n{}",
                lexicographic_accuracy * 100.0,
                training_tests,
                lexicographic.leaves(),
                lexicographic.to_text()
            ),
        }
    }
}

/// The outcome and explanation of one relation.
#[derive(Debug, Clone)]
pub struct RelationReport {
    pub relation: Relation,
    pub outcome: SearchOutcome,
    pub explanation: Explanation,
}

/// Failed and passed tests from fresh bases needed to train on them alone.
const MIN_FRESH_LABELS: usize = 20;

/// Explains a search outcome.
pub(crate) fn explain(
    relation: &Relation,
    domain: &Domain,
    outcome: &SearchOutcome,
    options: &TreeOptions,
) -> Explanation {
    if outcome.tests == 0 {
        return Explanation::NoTests;
    }
    if outcome.failed == 0 {
        return Explanation::NoFailure;
    }
    let kept_failed = outcome.kept.iter().filter(|t| t.failed).count();
    if outcome.passed == 0 || kept_failed == outcome.kept.len() {
        return Explanation::AllFailed;
    }
    // Tests from fresh bases sample the premise without the search's bias towards the
    // most deviating base; explain with them when they hold enough of both labels.
    let fresh: Vec<TestRecord> = outcome
        .kept
        .iter()
        .filter(|t| t.fresh_base)
        .cloned()
        .collect();
    let fresh_failed = fresh.iter().filter(|t| t.failed).count();
    let training =
        if fresh_failed >= MIN_FRESH_LABELS && fresh.len() - fresh_failed >= MIN_FRESH_LABELS {
            &fresh
        } else {
            &outcome.kept
        };
    let data = explanation_dataset(relation, domain, training);
    let lexicographic = DecisionTree::train(
        &data,
        &TreeOptions {
            lexicographic: true,
            ..*options
        },
    );
    let cart = DecisionTree::train(
        &data,
        &TreeOptions {
            lexicographic: false,
            ..*options
        },
    );
    Explanation::Trees {
        training_tests: data.rows.len(),
        lexicographic_accuracy: lexicographic.accuracy(&data),
        cart_accuracy: cart.accuracy(&data),
        lexicographic: Box::new(lexicographic),
        cart: Box::new(cart),
    }
}

impl RelationReport {
    /// Drops the sample of tests the explanation was trained on (the statistics, the
    /// explanation and the most deviating failures stay): what a report needs once the
    /// relation is explained.
    pub fn release_sample(&mut self) {
        self.outcome.kept = Vec::new();
    }
}

/// Searches and explains every relation in turn, handing each report to `on_report` as soon
/// as it is explained, so that the caller keeps only what it needs (see
/// [`RelationReport::release_sample`]): memory then stays that of one relation's search.
pub fn check_each_relation(
    relations: &[Relation],
    domain: &Domain,
    system: &dyn SystemUnderTest,
    config: &SearchConfig,
    tree_options: &TreeOptions,
    on_report: &mut dyn FnMut(RelationReport),
) {
    for relation in relations {
        let outcome = search_relation(relation, domain, system, config);
        let explanation = explain(relation, domain, &outcome, tree_options);
        on_report(RelationReport {
            relation: relation.clone(),
            outcome,
            explanation,
        });
    }
}

/// Searches and explains every relation, calling `progress` after each; the reports keep
/// their samples of tests.
pub fn check_relations(
    relations: &[Relation],
    domain: &Domain,
    system: &dyn SystemUnderTest,
    config: &SearchConfig,
    tree_options: &TreeOptions,
    progress: &mut dyn FnMut(&RelationReport),
) -> Vec<RelationReport> {
    let mut reports = Vec::new();
    check_each_relation(
        relations,
        domain,
        system,
        config,
        tree_options,
        &mut |report| {
            progress(&report);
            reports.push(report);
        },
    );
    reports
}
