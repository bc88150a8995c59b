//! The result files of `lexprobe metamorphic`: SARIF (a failed relation as an error at its
//! position in the relations file, relative to the source root, with its failing pair) and
//! JUnit XML (one test case per relation); and the lines of its live status.

use super::tool;
use metamorphic::check::RelationReport;
use metamorphic::search::Verdict;
use reports::junit::{CaseOutcome, TestSuite};
use reports::sarif::{Finding, Level, Location, Rule};
use serde_json::{json, Map, Value as Json};

/// The failing pair of a relation: each case's inputs and outputs, by the relation's variable.
fn failing_pair(r: &RelationReport) -> Option<Json> {
    let worst = r.outcome.worst_failures.first()?;
    let mut pair = Map::new();
    for (var, (case, outputs)) in r
        .relation
        .all_vars()
        .iter()
        .zip(worst.cases.iter().zip(&worst.outputs))
    {
        pair.insert(
            var.clone(),
            json!({
                "inputs": metamorphic::value::record_to_json(case),
                "outputs": metamorphic::value::record_to_json(outputs),
            }),
        );
    }
    Some(json!({ "deviation": worst.deviation, "cases": pair }))
}

/// The SARIF log of a metamorphic check: a failed relation is an error at the relation's
/// position in the relations file, with its failing pair; an inconclusive one a note there.
pub(crate) fn metamorphic_sarif(
    reports: &[RelationReport],
    relations_file: &str,
    system: &str,
) -> Json {
    let rules = vec![
        Rule {
            id: "relation-failed".into(),
            description: "A metamorphic relation does not hold: a pair of inputs breaks it".into(),
        },
        Rule {
            id: "relation-inconclusive".into(),
            description: "No test of a metamorphic relation could be completed".into(),
        },
    ];
    // The relations file relative to the top of its git work tree (or the current directory).
    let root = super::source_root::SourceRoot::new(None, std::path::Path::new(relations_file));
    let findings: Vec<Finding> = reports
        .iter()
        .filter(|r| r.outcome.verdict != Verdict::Passed)
        .map(|r| {
            let o = &r.outcome;
            let failed = o.verdict == Verdict::Failed;
            let mut properties = Map::new();
            properties.insert("relation".into(), json!(r.relation.name));
            properties.insert("system".into(), json!(system));
            properties.insert("tests".into(), json!(o.tests));
            properties.insert("failed".into(), json!(o.failed));
            if let Some(pair) = failing_pair(r) {
                properties.insert("failing_pair".into(), pair);
            }
            let message = if failed {
                format!(
                    "relation `{}` fails: {} of {} tests (largest deviation {:.2})",
                    r.relation.name, o.failed, o.tests, o.max_deviation
                )
            } else {
                format!(
                    "relation `{}` is inconclusive: {}",
                    r.relation.name,
                    o.stop_reason.as_deref().unwrap_or("no test completed")
                )
            };
            // The `relation` keyword that opens it.
            let relation = &r.relation;
            let (start_line, start_col) =
                relation.sources.line_col(relation.span).unwrap_or((1, 1));
            let (end_line, end_col) = relation
                .sources
                .line_col(metamorphic::relation::end_of(relation.span))
                .unwrap_or((start_line, start_col));
            Finding {
                rule_id: if failed {
                    "relation-failed"
                } else {
                    "relation-inconclusive"
                }
                .into(),
                level: if failed { Level::Error } else { Level::Note },
                message,
                locations: vec![Location {
                    file: root.relative(std::path::Path::new(relations_file)),
                    start_line,
                    start_col,
                    end_line,
                    end_col,
                }],
                properties,
            }
        })
        .collect();
    let base = root.uri_base();
    reports::sarif::to_sarif_with_base(&tool(), &rules, &findings, Some(&base))
}

/// JUnit XML of a metamorphic check: one test case per relation (failed: the failing pair;
/// inconclusive: an error with the reason).
pub(crate) fn metamorphic_junit(
    reports: &[RelationReport],
    relations_file: &str,
    system: &str,
) -> String {
    let cases = reports
        .iter()
        .map(|r| {
            let o = &r.outcome;
            let summary = format!(
                "{} tests, {} passed, {} failed, {} run errors, {} accepted bases",
                o.tests, o.passed, o.failed, o.run_errors, o.accepted_bases
            );
            let outcome = match o.verdict {
                Verdict::Passed => CaseOutcome::Passed,
                Verdict::Failed => CaseOutcome::Failed {
                    message: format!("{} of {} tests fail", o.failed, o.tests),
                    body: failing_pair(r)
                        .and_then(|p| serde_json::to_string_pretty(&p).ok())
                        .unwrap_or_default(),
                },
                Verdict::Inconclusive => CaseOutcome::Error {
                    message: "inconclusive".into(),
                    body: o.stop_reason.clone().unwrap_or_default(),
                },
            };
            reports::junit::TestCase {
                name: r.relation.name.clone(),
                classname: relations_file.to_string(),
                seconds: o.elapsed_s,
                outcome,
                output: Some(summary),
            }
        })
        .collect();
    let suite = TestSuite {
        name: format!("metamorphic {relations_file}"),
        cases,
        properties: vec![("system".into(), system.to_string())],
    };
    reports::junit::to_junit("lexprobe metamorphic", &[suite])
}

/// The status message while relation number `n` (1-based) of `total` is searched: its
/// tests so far and the state of the Bayes-factor stopping test (bases that accepted H0, and
/// the longest run of consecutive passes of a base still under test against the K needed).
pub(crate) fn relation_running(
    n: usize,
    total: usize,
    name: &str,
    config: &metamorphic::search::SearchConfig,
    live: &metamorphic::search::LiveSearch,
) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    format!(
        "relation {n}/{total} `{name}`: {} tests, {} failed; H0 accepted for {} bases; longest run {}/{} passes (Bayes factor {}, θ {})",
        live.tests.load(Relaxed),
        live.failed.load(Relaxed),
        live.accepted_bases.load(Relaxed),
        live.longest_run.load(Relaxed),
        metamorphic::search::consecutive_passes_needed(config.bayes_factor, config.theta),
        config.bayes_factor,
        config.theta
    )
}

/// The line printed when a relation is done: verdict, tests, and the Bayes-factor state.
pub(crate) fn relation_done_line(done: usize, total: usize, report: &RelationReport) -> String {
    let o = &report.outcome;
    format!(
        "[{done}/{total}] {}: {} ({} tests, {} failed, {:.1} tests/s; {} bases accepted after {} passes in a row, {} exhausted)",
        report.relation.name,
        o.verdict.as_str(),
        o.tests,
        o.failed,
        o.throughput(),
        o.accepted_bases,
        o.consecutive_passes_needed,
        o.exhausted_bases
    )
}
