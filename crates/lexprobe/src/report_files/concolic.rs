//! The result files of `lexprobe concolic`: the distinct problems of an exploration as
//! SARIF, and the law coverage of its tests (each test replayed with the coverage companion).
//! Tests are recorded as the workers stream them; the files are written at the end.

use super::{tool, write_file, CoverageFiles};
use crate::catala::Loaded;
use crate::law_coverage::CoverageBuilder;
use catala_eval::eval::ErrorSignature;
use catala_eval::runtime::json::value_to_json;
use concolic::{Outcome, TestCase};
use reports::sarif::{Finding, Level, Location, Rule};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The result files of an exploration, besides its printed output.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConcolicFiles {
    /// The distinct problems found, as SARIF 2.1.0.
    pub sarif: Option<PathBuf>,
    /// The law coverage of the tests.
    pub coverage: CoverageFiles,
}

/// What a concolic exploration records besides its printed output, per streamed test: the
/// live status line, the problems for `--sarif`.
pub(crate) struct ConcolicRecorders {
    pub status: crate::progress::Status,
    files: ConcolicFiles,
    /// The scope's name, as the SARIF log gives it.
    scope_name: String,
    sarif: Option<Mutex<ConcolicSarif>>,
    /// Each test's number (0-based), inputs, and whether the exploration found it outside
    /// the input space (a failed assertion), replayed with coverage at the end.
    coverage: Option<Mutex<Vec<(usize, Json, bool)>>>,
}

impl ConcolicRecorders {
    /// Recorders for the files asked for; the status line is drawn unless `quiet`.
    pub(crate) fn new(files: ConcolicFiles, quiet: bool, scope: &str) -> ConcolicRecorders {
        ConcolicRecorders {
            status: crate::progress::Status::new(
                crate::progress::wanted(quiet),
                &format!("concolic {scope}"),
            ),
            sarif: files
                .sarif
                .as_ref()
                .map(|_| Mutex::new(ConcolicSarif::default())),
            coverage: files.coverage.wanted().then(|| Mutex::new(Vec::new())),
            files,
            scope_name: scope.to_string(),
        }
    }

    /// Records test number `index` (0-based); called from any worker thread.
    pub(crate) fn record(
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

    /// Writes the files asked for; `file` is the program's source file and `include_dirs` the
    /// directories its modules were looked up in (the coverage reads the sources again).
    pub(crate) fn write(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        file: &Path,
        include_dirs: &[PathBuf],
    ) -> Result<(), String> {
        if let (Some(path), Some(s)) = (&self.files.sarif, &self.sarif) {
            let log = s
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .to_sarif(&self.scope_name);
            write_file(path, &format!("{log:#}\n"))?;
        }
        if let Some(c) = &self.coverage {
            let mut tests = std::mem::take(&mut *c.lock().unwrap_or_else(|p| p.into_inner()));
            tests.sort_by_key(|(i, _, _)| *i);
            let mut builder = CoverageBuilder::new(loaded, file, include_dirs)?;
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
                "{} (scope {}, concolic exploration)",
                file.display(),
                self.scope_name
            ));
            self.files.coverage.write(&report)?;
        }
        Ok(())
    }
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
struct ConcolicSarif {
    by_signature: HashMap<ErrorSignature, usize>,
    problems: Vec<Problem>,
}

/// The inputs of a test as a JSON object (inputs left free by the path are left out).
pub(crate) fn test_inputs_json(
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
    fn record(
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
    fn to_sarif(&self, scope: &str) -> Json {
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
