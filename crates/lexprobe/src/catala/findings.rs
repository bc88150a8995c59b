//! The distinct problems an exploration found: runtime errors (conflicts, missing cases,
//! divisions by zero, ...) grouped by kind and by the rules involved, each with the number of
//! tests that show it and the first of them. A long exploration prints thousands of tests; this
//! is the part a reader looks at first. Failed assertions are not problems of the program but
//! inputs outside its input space, so they are only counted; so is a run whose inputs fail an
//! assertion of the scope on its inputs, whatever error it ends in.
//!
//! Each problem is shown with an example: its most typical test (the fewest inputs outside
//! their realistic ranges, then the dates nearest the middle of the program's years, then the
//! first found; see `concolic::inputs::realism`), whose inputs are printed.
//!
//! Each problem comes with its condition: the disjunction of the path conditions of its tests,
//! simplified exactly over the inputs' names (`explain`). When the exploration is complete,
//! the problem occurs exactly when that condition holds (within the exploration's bounds).

use super::condition_format::CatalaFormat;
use super::problem_groups::{ErrorTest, Group, ProblemGroups};
use super::{ErrorReport, Loaded};
use catala_ir::dcalc::ScopeId;
use catala_syntax::ast::Language;
use concolic::inputs::realism::Realism;
use concolic::{Outcome, TestCase};
use serde_json::{json, Value as Json};

/// What the printed findings keep of a problem.
struct Finding {
    kind: String,
    /// The error as JSON and as a Catala box, made at its first occurrence (plain data, so
    /// that workers in other threads can record findings too).
    json: Json,
    text: String,
    /// The inputs of its most typical test, as JSON and as `name = value`.
    inputs: Json,
    readable: Vec<String>,
}

/// Test `test`'s inputs as JSON and as `name = value` (inputs left free are left out).
fn example_inputs(loaded: &Loaded, scope: ScopeId, test: &TestCase) -> (Json, Vec<String>) {
    let decl = loaded.program.scope(scope);
    let printer = catala_eval::ValuePrinter {
        language: decl.language,
        names: &loaded.program,
    };
    let mut inputs = serde_json::Map::new();
    let mut readable = Vec::new();
    for (input, v) in decl.inputs.iter().zip(&test.inputs) {
        if let Some(v) = v {
            inputs.insert(
                input.name.clone(),
                catala_eval::runtime::json::value_to_json(&loaded.program, v),
            );
            readable.push(format!("{} = {}", input.name, printer.flat(v)));
        }
    }
    (Json::Object(inputs), readable)
}

/// The most cases of a condition printed in the text report (JSON has them all).
const CASES_SHOWN: usize = 8;

#[derive(Default)]
pub(crate) struct Findings {
    groups: ProblemGroups<Finding>,
    /// The language of the scope under test (how conditions write money and dates).
    language: Option<Language>,
    /// The realistic ranges of the scope's inputs, which rank the tests of a problem.
    realism: Option<Realism>,
}

impl Findings {
    /// Records test number `index` (0-based) if it ends in a runtime error.
    pub(crate) fn record(
        &mut self,
        loaded: &Loaded,
        scope: ScopeId,
        index: usize,
        test: &TestCase,
    ) {
        let Outcome::Error(e) = &test.outcome else {
            return;
        };
        // Inputs outside the input space the scope's assertions state are not cases of it.
        if test.outside_input_space {
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
            condition: test.condition.as_ref(),
        };
        self.groups.record(
            error_test,
            || {
                let report = ErrorReport::from_runtime(e);
                let (inputs, readable) = example_inputs(loaded, scope, test);
                Finding {
                    kind: e.kind.as_str().to_string(),
                    json: report.to_json(&loaded.sources),
                    text: report.render(&loaded.sources, None),
                    inputs,
                    readable,
                }
            },
            |f| (f.inputs, f.readable) = example_inputs(loaded, scope, test),
        );
    }

    fn format(&self) -> CatalaFormat {
        CatalaFormat(self.language.unwrap_or(Language::En))
    }

    /// `[{"kind", "tests", "first_test" (1-based), "example", "condition", "error"}]`, in
    /// order of first appearance; `example` (`{"test", "inputs"}`) is the most typical test;
    /// `condition` (`{"paths", "cases": [{"text", "constraints"}]}`) when the tests carried
    /// their path conditions.
    pub(crate) fn to_json(&self) -> Json {
        let format = self.format();
        Json::Array(
            self.groups
                .sorted()
                .into_iter()
                .map(|g| {
                    let mut j = json!({
                        "kind": g.data.kind,
                        "tests": g.tests,
                        "first_test": g.first_test + 1,
                        "example": {
                            "test": g.example.1 + 1,
                            "inputs": g.data.inputs,
                        },
                    });
                    if g.condition.paths() > 0 {
                        j["condition"] = g.condition.condition().to_json(&format);
                    }
                    j["error"] = g.data.json.clone();
                    j
                })
                .collect(),
        )
    }

    /// The condition of a problem for the text report: one line, or one line per case.
    fn condition_text(&self, g: &Group<Finding>) -> String {
        if g.condition.paths() == 0 {
            return String::new();
        }
        let c = g.condition.condition();
        let lines = c.lines(&self.format());
        let head = format!(
            "  Condition ({} path{}):",
            c.paths,
            if c.paths == 1 { "" } else { "s" }
        );
        if let [one] = lines.as_slice() {
            return format!("{head} {one}\n");
        }
        let mut out = format!("{head}\n");
        for l in lines.iter().take(CASES_SHOWN) {
            out.push_str(&format!("    {l}\n"));
        }
        if lines.len() > CASES_SHOWN {
            out.push_str(&format!(
                "    … and {} more cases (all of them with --format json)\n",
                lines.len() - CASES_SHOWN
            ));
        }
        out
    }

    /// The human summary: one block per distinct problem.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        let found = self.groups.len();
        if found == 0 {
            out.push_str("Findings: no conflict, missing case or runtime error on any path.\n");
            return out;
        }
        out.push_str(&format!(
            "Findings: {found} distinct problem{}.\n",
            if found == 1 { "" } else { "s" }
        ));
        for (n, g) in self.groups.sorted().into_iter().enumerate() {
            out.push_str(&format!(
                "Problem {} ({}): in {} test{}, first in test {}:\n",
                n + 1,
                g.data.kind,
                g.tests,
                if g.tests == 1 { "" } else { "s" },
                g.first_test + 1
            ));
            out.push_str(&self.condition_text(g));
            out.push_str(&example_text(g));
            out.push_str(&g.data.text);
        }
        out
    }
}

/// The example line of a problem: its most typical test and that test's inputs.
fn example_text(g: &Group<Finding>) -> String {
    let inputs = if g.data.readable.is_empty() {
        "no input".to_string()
    } else {
        g.data.readable.join("; ")
    };
    format!("  Example (test {}): {inputs}\n", g.example.1 + 1)
}
