//! The result files the subcommands write for CI servers: `--sarif` (SARIF 2.1.0) of
//! `lexprobe concolic` and `lexprobe metamorphic`, and `--junit` (JUnit XML) of
//! `lexprobe metamorphic` and `lexprobe falsify`. The formats themselves are in the `reports`
//! crate; this module turns each engine's results into their plain data.

use crate::catala::Loaded;
use catala_eval::eval::ErrorSignature;
use catala_eval::runtime::json::value_to_json;
use concolic::{Outcome, TestCase};
use metamorphic::check::RelationReport;
use metamorphic::search::Verdict;
use reports::junit::{CaseOutcome, TestSuite};
use reports::sarif::{Finding, Level, Location, Rule, Tool};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use crate::commands::concolic::ConcolicOutputArgs;

/// What a concolic exploration records besides its printed output, per streamed test: the
/// live status line, the problems for `--sarif`.
pub struct ConcolicRecorders {
    pub status: crate::progress::Status,
    sarif: Option<Mutex<ConcolicSarif>>,
    /// Each test's number (0-based), inputs, and whether the exploration found it outside
    /// the input space (a failed assertion), replayed with coverage at the end.
    coverage: Option<Mutex<Vec<(usize, Json, bool)>>>,
}

impl ConcolicRecorders {
    pub fn new(outputs: &ConcolicOutputArgs, scope: &str) -> ConcolicRecorders {
        ConcolicRecorders {
            status: crate::progress::Status::new(
                crate::progress::wanted(outputs.quiet),
                &format!("concolic {scope}"),
            ),
            sarif: outputs
                .sarif
                .as_ref()
                .map(|_| Mutex::new(ConcolicSarif::default())),
            coverage: outputs.coverage.wanted().then(|| Mutex::new(Vec::new())),
        }
    }

    /// Records test number `index` (0-based); called from any worker thread.
    pub fn record(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        index: usize,
        test: &TestCase,
    ) {
        self.status.test(test.outcome.kind(), test.queries);
        if let Some(s) = &self.sarif {
            s.lock()
                .unwrap_or_else(|p| p.into_inner())
                .record(loaded, scope, index, test);
        }
        if let Some(c) = &self.coverage {
            let inputs = test_inputs_json(loaded, scope, test);
            let outside = matches!(test.outcome, Outcome::Assertion(_));
            c.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((index, inputs, outside));
        }
    }

    /// Writes the files asked for.
    pub fn write(
        &self,
        outputs: &ConcolicOutputArgs,
        scope_name: &str,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        args: &crate::commands::concolic::ConcolicArgs,
    ) -> Result<(), String> {
        if let (Some(path), Some(s)) = (&outputs.sarif, &self.sarif) {
            let log = s
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .to_sarif(scope_name);
            write_file(path, &format!("{log:#}\n"))?;
        }
        if let Some(c) = &self.coverage {
            let mut tests = std::mem::take(&mut *c.lock().unwrap_or_else(|p| p.into_inner()));
            tests.sort_by_key(|(i, _, _)| *i);
            let mut builder = crate::law_coverage::CoverageBuilder::new(
                loaded,
                &args.file,
                &args.includes.include,
            )?;
            builder.count_outside_inputs = false;
            for (i, inputs, outside) in &tests {
                // The exploration checks the scope's assertions first (they bound the input
                // space); the plain order may meet an error before them.
                if *outside {
                    builder.exclude();
                    continue;
                }
                let values = catala_eval::eval::inputs_from_json(&loaded.program, scope, inputs)
                    .map_err(|e| format!("test {}: inputs not read back: {e}", i + 1))?;
                builder.run(
                    i + 1,
                    &format!("concolic test {}", i + 1),
                    scope,
                    values,
                    inputs,
                );
            }
            let report = builder.finish(&format!(
                "{} (scope {scope_name}, concolic exploration)",
                args.file.display()
            ));
            outputs.coverage.write(&report)?;
        }
        Ok(())
    }
}

/// This program, as SARIF's `tool.driver`.
pub fn tool() -> Tool {
    Tool {
        name: "lexprobe".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        information_uri: None,
    }
}

/// Writes `text` to `path`, saying which file could not be written.
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

struct Problem {
    rule_id: String,
    description: String,
    message: String,
    locations: Vec<Location>,
    tests: usize,
    first_test: usize,
    inputs: Json,
}

/// The distinct runtime errors of a concolic exploration (same grouping as the findings
/// summary: kind and positions), each with the inputs of its first test.
#[derive(Default)]
pub struct ConcolicSarif {
    by_signature: HashMap<ErrorSignature, usize>,
    problems: Vec<Problem>,
}

/// The inputs of a test as a JSON object (inputs left free by the path are left out).
pub fn test_inputs_json(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    test: &TestCase,
) -> Json {
    let decl = loaded.program.scope(scope);
    let mut m = Map::new();
    for (input, v) in decl.inputs.iter().zip(&test.inputs) {
        if let Some(v) = v {
            m.insert(input.name.clone(), value_to_json(&loaded.program, v));
        }
    }
    Json::Object(m)
}

impl ConcolicSarif {
    /// Records test number `index` (0-based) if it ends in a runtime error.
    pub fn record(
        &mut self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        index: usize,
        test: &TestCase,
    ) {
        let Outcome::Error(e) = &test.outcome else {
            return;
        };
        let signature = e.signature();
        if let Some(&i) = self.by_signature.get(&signature) {
            let p = &mut self.problems[i];
            p.tests += 1;
            if index < p.first_test {
                p.first_test = index;
                p.inputs = test_inputs_json(loaded, scope, test);
            }
            return;
        }
        let locations = e
            .labels
            .iter()
            .filter(|l| (l.span.file.0 as usize) < loaded.sources.files.len())
            .map(|l| {
                let p = loaded.sources.position(l.span);
                Location {
                    file: p.file,
                    start_line: p.start_line,
                    start_col: p.start_col,
                    end_line: p.end_line,
                    end_col: p.end_col,
                }
            })
            .collect();
        self.by_signature.insert(signature, self.problems.len());
        self.problems.push(Problem {
            rule_id: e.kind.as_str().to_string(),
            description: capitalized(e.kind.message()),
            message: format!("During evaluation: {}", e.message),
            locations,
            tests: 1,
            first_test: index,
            inputs: test_inputs_json(loaded, scope, test),
        });
    }

    /// The SARIF log: one rule per kind of error found, one result per distinct problem.
    pub fn to_sarif(&self, scope: &str) -> Json {
        let mut problems: Vec<&Problem> = self.problems.iter().collect();
        problems.sort_by_key(|p| p.first_test);
        let mut rules: Vec<Rule> = Vec::new();
        for p in &problems {
            if !rules.iter().any(|r| r.id == p.rule_id) {
                rules.push(Rule {
                    id: p.rule_id.clone(),
                    description: p.description.clone(),
                });
            }
        }
        let findings: Vec<Finding> = problems
            .iter()
            .map(|p| {
                let mut properties = Map::new();
                properties.insert("scope".into(), json!(scope));
                properties.insert("inputs".into(), p.inputs.clone());
                properties.insert("tests".into(), json!(p.tests));
                properties.insert("first_test".into(), json!(p.first_test + 1));
                Finding {
                    rule_id: p.rule_id.clone(),
                    level: Level::Error,
                    message: p.message.clone(),
                    locations: p.locations.clone(),
                    properties,
                }
            })
            .collect();
        reports::sarif::to_sarif(&tool(), &rules, &findings)
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

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
pub fn metamorphic_sarif(reports: &[RelationReport], relations_file: &str, system: &str) -> Json {
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
            let pos = &r.relation.pos;
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
                    file: relations_file.to_string(),
                    start_line: pos.line,
                    start_col: pos.col,
                    end_line: pos.line,
                    end_col: pos.col + "relation".len(),
                }],
                properties,
            }
        })
        .collect();
    reports::sarif::to_sarif(&tool(), &rules, &findings)
}

/// JUnit XML of a metamorphic check: one test case per relation (failed: the failing pair;
/// inconclusive: an error with the reason).
pub fn metamorphic_junit(reports: &[RelationReport], relations_file: &str, system: &str) -> String {
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

/// JUnit XML of `lexprobe falsify`: one test case for the method, failed when the property
/// was falsified (with the violating trace), passed otherwise (with how far the search got).
pub fn falsify_junit(method: &Path, naive: bool, report: &hatch::Report) -> String {
    let name = method
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| method.display().to_string());
    let classname = method
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let outcome = match &report.violation {
        Some(v) => CaseOutcome::Failed {
            message: format!("falsified ({:?})", v.kind),
            body: format!("trace: {}", report.trace_lines().join("; ")),
        },
        None => CaseOutcome::Passed,
    };
    let output = format!(
        "{} states, {} paths, {} solver queries; {}",
        report.states,
        report.paths,
        report.solver.queries,
        report.progress.describe()
    );
    let suite = TestSuite {
        name: method.display().to_string(),
        cases: vec![reports::junit::TestCase {
            name,
            classname,
            seconds: report.elapsed.as_secs_f64(),
            outcome,
            output: Some(output),
        }],
        properties: vec![(
            "mode".into(),
            if naive { "naive" } else { "derivative" }.into(),
        )],
    };
    reports::junit::to_junit("lexprobe falsify", &[suite])
}

/// The status message while relation number `n` (1-based) of `total` is searched: its
/// tests so far and the state of the Bayes-factor stopping test (bases that accepted H0, and
/// the longest run of consecutive passes of a base still under test against the K needed).
pub fn relation_running(
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
pub fn relation_done_line(done: usize, total: usize, report: &RelationReport) -> String {
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
