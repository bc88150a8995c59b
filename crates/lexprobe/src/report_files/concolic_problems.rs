//! The distinct problems of a concolic exploration (runtime errors grouped by kind and
//! positions, as the printed findings group them), each with the inputs of its most typical
//! test (the fewest inputs outside their realistic ranges, then the dates nearest the middle of
//! the program's years, then the first found; see `concolic::inputs::realism`), and
//! the two result files made of them: SARIF (one result per problem, paths relative to the
//! source root) and JUnit XML (one failed test case per problem, one passed case for the paths
//! without a problem). They also give the exit code: a problem found fails the run.

use super::source_root::SourceRoot;
use super::{test_inputs_json, tool};
use crate::catala::problem_groups::{ErrorTest, Group, ProblemGroups};
use crate::catala::report::ErrorReport;
use crate::catala::Loaded;
use catala_eval::ValuePrinter;
use concolic::inputs::realism::Realism;
use concolic::{Outcome, TestCase};
use reports::junit::{CaseOutcome, TestSuite};
use reports::sarif::{Finding, Level, Location, Rule};
use serde_json::{json, Map, Value as Json};
use std::path::PathBuf;

/// The longest list of inputs a SARIF message or a JUnit message carries (in characters);
/// every input is in the result's `properties.inputs` and in the JUnit body.
const SHORT_INPUTS: usize = 300;

/// What the result files keep of a distinct problem (grouped by [`ProblemGroups`]).
struct Problem {
    rule_id: String,
    description: String,
    message: String,
    /// Each position with the path of its file on disk.
    locations: Vec<(PathBuf, Location)>,
    /// The error as Catala prints it (the message and the rules it points at).
    text: String,
    /// The inputs of the most typical test.
    inputs: Json,
    /// The inputs of the most typical test as `name = value`, as `lexprobe run` prints values.
    readable_inputs: Vec<String>,
}

/// What the exploration as a whole did, for the JUnit case of the paths without a problem.
pub(crate) struct ExplorationSummary {
    pub tests: usize,
    /// Tests that ended with outputs.
    pub ok: usize,
    /// Tests outside the input space (a failed assertion of the scope).
    pub outside: usize,
    pub complete: bool,
    /// What is left unexplored or was followed concretely (the `incomplete` entries).
    pub incomplete: Vec<String>,
    pub seconds: f64,
}

/// The distinct problems recorded so far.
#[derive(Default)]
pub(crate) struct Problems {
    groups: ProblemGroups<Problem>,
    /// The language of the scope (how conditions write money and dates).
    language: Option<catala_syntax::ast::Language>,
    /// The realistic ranges of the scope's inputs, which rank the tests of a problem.
    realism: Option<Realism>,
    /// Whether the path conditions of the problems' tests are collected (only the result
    /// files print them; the printed output has its own, in the findings).
    conditions: bool,
    /// Without result files, the problems' signatures alone (the exit code counts them).
    signatures: Option<std::collections::HashSet<catala_eval::eval::ErrorSignature>>,
}

/// The positions of an error, each with the path of its file on disk.
fn locations(loaded: &Loaded, e: &catala_eval::eval::RuntimeError) -> Vec<(PathBuf, Location)> {
    e.labels
        .iter()
        .filter_map(|l| {
            let file = loaded.sources.files.get(l.span.file.0 as usize)?;
            let p = loaded.sources.position(l.span);
            let location = Location {
                file: p.file,
                start_line: p.start_line,
                start_col: p.start_col,
                end_line: p.end_line,
                end_col: p.end_col,
            };
            Some((file.path.clone(), location))
        })
        .collect()
}

/// Test `test`'s inputs as `name = value` lines (inputs left free by the path are left out).
fn readable_inputs(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    test: &TestCase,
) -> Vec<String> {
    let decl = loaded.program.scope(scope);
    let printer = ValuePrinter {
        language: decl.language,
        names: &loaded.program,
    };
    decl.inputs
        .iter()
        .zip(&test.inputs)
        .filter_map(|(input, v)| {
            v.as_ref()
                .map(|v| format!("{} = {}", input.name, printer.flat(v)))
        })
        .collect()
}

/// `items` joined with `; `, cut after about `limit` characters with an ellipsis.
fn short_list(items: &[String], limit: usize) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    let all = items.join("; ");
    if all.chars().count() <= limit {
        return all;
    }
    let cut: String = all.chars().take(limit).collect();
    format!("{cut}… (all {} inputs in properties.inputs)", items.len())
}

impl Problems {
    /// No problem yet; `files`: whether result files will print the problems (else only
    /// their number is kept: rendering, locating and ranking each costs time).
    pub(crate) fn new(files: bool) -> Problems {
        Problems {
            conditions: files,
            signatures: (!files).then(Default::default),
            ..Problems::default()
        }
    }

    /// Records test number `index` (0-based) if it ends in a runtime error.
    pub(crate) fn record(
        &mut self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        index: usize,
        test: &TestCase,
    ) {
        let Outcome::Error(e) = &test.outcome else {
            return;
        };
        // Inputs outside the scope's input space are not cases of it.
        if test.outside_input_space {
            return;
        }
        if let Some(signatures) = &mut self.signatures {
            signatures.insert(e.signature());
            return;
        }
        self.language = Some(loaded.program.scope(scope).language);
        let realism = self
            .realism
            .get_or_insert_with(|| Realism::of(&loaded.program, scope, None));
        let error_test = ErrorTest {
            signature: e.signature(),
            index,
            rank: (realism.typicality(&test.inputs), index),
            condition: test.condition.as_ref().filter(|_| self.conditions),
        };
        self.groups.record(
            error_test,
            || Problem {
                rule_id: e.kind.as_str().to_string(),
                description: capitalized(e.kind.message()),
                message: format!("During evaluation: {}", e.message),
                locations: locations(loaded, e),
                text: ErrorReport::from_runtime(e).render(&loaded.sources, None),
                inputs: test_inputs_json(loaded, scope, test),
                readable_inputs: readable_inputs(loaded, scope, test),
            },
            |p| {
                p.inputs = test_inputs_json(loaded, scope, test);
                p.readable_inputs = readable_inputs(loaded, scope, test);
            },
        );
    }

    /// The number of distinct problems.
    pub(crate) fn len(&self) -> usize {
        self.signatures
            .as_ref()
            .map_or_else(|| self.groups.len(), |s| s.len())
    }

    /// A problem's condition on one line (` When: …` cut after [`SHORT_INPUTS`] characters;
    /// empty when its tests carried no path condition), and as JSON.
    fn condition(&self, p: &Group<Problem>) -> (String, Json) {
        if p.condition.paths() == 0 {
            return (String::new(), Json::Null);
        }
        let format = crate::catala::condition_format::CatalaFormat(
            self.language.unwrap_or(catala_syntax::ast::Language::En),
        );
        let c = p.condition.condition();
        let mut line = c.lines(&format).join(" ");
        if line.chars().count() > SHORT_INPUTS {
            let cut: String = line.chars().take(SHORT_INPUTS).collect();
            line = format!("{cut}… (all of it in properties.condition)");
        }
        (format!(" When: {line}."), c.to_json(&format))
    }

    /// The problems in the order of their first test.
    fn sorted(&self) -> Vec<&Group<Problem>> {
        self.groups.sorted()
    }

    /// The SARIF log: one rule per kind of error found, one result per distinct problem, its
    /// files relative to `root` and the inputs of its most typical test in the message.
    pub(crate) fn to_sarif(&self, scope: &str, root: &SourceRoot) -> Json {
        let problems = self.sorted();
        let mut rules: Vec<Rule> = Vec::new();
        for p in &problems {
            if !rules.iter().any(|r| r.id == p.data.rule_id) {
                rules.push(Rule {
                    id: p.data.rule_id.clone(),
                    description: p.data.description.clone(),
                });
            }
        }
        let findings: Vec<Finding> = problems
            .iter()
            .map(|p| {
                let mut properties = Map::new();
                properties.insert("scope".into(), json!(scope));
                properties.insert("inputs".into(), p.data.inputs.clone());
                properties.insert("tests".into(), json!(p.tests));
                properties.insert("first_test".into(), json!(p.first_test + 1));
                properties.insert("example_test".into(), json!(p.example.1 + 1));
                let (when, condition) = self.condition(p);
                if !condition.is_null() {
                    properties.insert("condition".into(), condition);
                }
                let locations = p
                    .data
                    .locations
                    .iter()
                    .map(|(path, l)| Location {
                        file: root.relative(path),
                        ..l.clone()
                    })
                    .collect();
                Finding {
                    rule_id: p.data.rule_id.clone(),
                    level: Level::Error,
                    message: format!(
                        "{}{when} Inputs of test {} (scope {scope}): {}.",
                        p.data.message,
                        p.example.1 + 1,
                        short_list(&p.data.readable_inputs, SHORT_INPUTS)
                    ),
                    locations,
                    properties,
                }
            })
            .collect();
        let base = root.uri_base();
        reports::sarif::to_sarif_with_base(&tool(), &rules, &findings, Some(&base))
    }

    /// JUnit XML: one suite for the scope, one failed case per distinct problem (named by its
    /// kind and first position, so that a CI server follows it from run to run), and one passed
    /// case for the paths that end without a problem.
    pub(crate) fn to_junit(&self, program: &str, scope: &str, run: &ExplorationSummary) -> String {
        let classname = format!("{program}#{scope}");
        let mut cases: Vec<reports::junit::TestCase> = self
            .sorted()
            .into_iter()
            .map(|p| problem_case(p, &self.condition(p).0, &classname))
            .collect();
        let mut output = format!(
            "{} tests: {} with outputs, {} outside the input space (a failed assertion), {} with a problem; exploration {}",
            run.tests,
            run.ok,
            run.outside,
            run.tests.saturating_sub(run.ok + run.outside),
            if run.complete { "complete" } else { "not complete" }
        );
        for entry in &run.incomplete {
            output.push_str(&format!("\nincomplete: {entry}"));
        }
        cases.push(reports::junit::TestCase {
            name: "paths without a problem".into(),
            classname: classname.clone(),
            seconds: run.seconds,
            outcome: CaseOutcome::Passed,
            output: Some(output),
        });
        let suite = TestSuite {
            name: format!("concolic {classname}"),
            cases,
            properties: vec![("scope".into(), scope.to_string())],
        };
        reports::junit::to_junit("lexprobe concolic", &[suite])
    }
}

/// The failed JUnit case of one problem.
fn problem_case(p: &Group<Problem>, when: &str, classname: &str) -> reports::junit::TestCase {
    let place = p
        .data
        .locations
        .first()
        .map(|(_, l)| format!(" at {}:{}:{}", l.file, l.start_line, l.start_col))
        .unwrap_or_default();
    let mut body = format!(
        "{}\nIn {} test{}, first in test {}; the inputs of test {}, the most typical:\n",
        p.data.text.trim_end(),
        p.tests,
        if p.tests == 1 { "" } else { "s" },
        p.first_test + 1,
        p.example.1 + 1
    );
    for line in &p.data.readable_inputs {
        body.push_str(&format!("  {line}\n"));
    }
    body.push_str("Positions:\n");
    for (_, l) in &p.data.locations {
        body.push_str(&format!("  {}:{}:{}\n", l.file, l.start_line, l.start_col));
    }
    reports::junit::TestCase {
        name: format!("{}{place}", p.data.rule_id),
        classname: classname.to_string(),
        seconds: 0.0,
        outcome: CaseOutcome::Failed {
            message: format!(
                "{}{when} Inputs: {}",
                p.data.message,
                short_list(&p.data.readable_inputs, SHORT_INPUTS)
            ),
            body,
        },
        output: None,
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_lists_are_cut_with_a_pointer_to_all() {
        let items: Vec<String> = (0..100).map(|i| format!("x{i} = {i}")).collect();
        let s = short_list(&items, 50);
        assert!(s.starts_with("x0 = 0; x1 = 1; "), "{s}");
        assert!(
            s.ends_with("… (all 100 inputs in properties.inputs)"),
            "{s}"
        );
        assert_eq!(
            short_list(&["a = 1".into(), "b = 2".into()], 50),
            "a = 1; b = 2"
        );
        assert_eq!(short_list(&[], 50), "none");
    }
}
