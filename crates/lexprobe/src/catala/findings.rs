//! The distinct problems an exploration found: runtime errors (conflicts, missing cases,
//! divisions by zero, ...) grouped by kind and by the rules involved, each with the number of
//! tests that show it and the first of them. A long exploration prints thousands of tests; this
//! is the part a reader looks at first. Failed assertions are not problems of the program but
//! inputs outside its input space, so they are only counted.
//!
//! Each problem is shown with an example: its most typical test (the fewest inputs outside
//! their realistic ranges, then the dates nearest the middle of the program's years, then the
//! first found; see `concolic::inputs::realism`), whose inputs are printed.
//!
//! Each problem comes with its condition: the disjunction of the path conditions of its tests,
//! simplified exactly over the inputs' names (`explain`). When the exploration is complete,
//! the problem occurs exactly when that condition holds (within the exploration's bounds).

use super::condition_format::CatalaFormat;
use super::{ErrorReport, Loaded};
use catala_eval::eval::ErrorSignature;
use catala_ir::dcalc::ScopeId;
use catala_syntax::ast::Language;
use concolic::inputs::realism::{Realism, Typicality};
use concolic::{Outcome, TestCase};
use explain::Collector;
use serde_json::{json, Value as Json};
use std::collections::HashMap;

struct Finding {
    kind: String,
    tests: usize,
    first_test: usize,
    /// The error as JSON and as a Catala box, made at its first occurrence (plain data, so
    /// that workers in other threads can record findings too).
    json: Json,
    text: String,
    /// The path conditions of its tests.
    condition: Collector,
    /// Its most typical test: rank, index, inputs as JSON and as `name = value`.
    example: Example,
}

/// The test shown for a problem.
struct Example {
    rank: (Typicality, usize),
    inputs: Json,
    readable: Vec<String>,
}

impl Example {
    fn of(
        loaded: &Loaded,
        scope: ScopeId,
        realism: &Realism,
        index: usize,
        test: &TestCase,
    ) -> Example {
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
        Example {
            rank: (realism.typicality(&test.inputs), index),
            inputs: Json::Object(inputs),
            readable,
        }
    }
}

/// The most cases of a condition printed in the text report (JSON has them all).
const CASES_SHOWN: usize = 8;

#[derive(Default)]
pub(crate) struct Findings {
    by_signature: HashMap<ErrorSignature, usize>,
    found: Vec<Finding>,
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
        self.language = Some(loaded.program.scope(scope).language);
        let realism = self
            .realism
            .get_or_insert_with(|| Realism::of(&loaded.program, scope, None));
        let signature = e.signature();
        if let Some(&i) = self.by_signature.get(&signature) {
            let f = &mut self.found[i];
            f.tests += 1;
            f.first_test = f.first_test.min(index);
            if let Some(c) = &test.condition {
                f.condition.add(c.clone());
            }
            if (realism.typicality(&test.inputs), index) < f.example.rank {
                f.example = Example::of(loaded, scope, realism, index, test);
            }
            return;
        }
        let example = Example::of(loaded, scope, realism, index, test);
        let mut condition = Collector::default();
        if let Some(c) = &test.condition {
            condition.add(c.clone());
        }
        let report = ErrorReport::from_runtime(e);
        self.by_signature.insert(signature, self.found.len());
        self.found.push(Finding {
            kind: e.kind.as_str().to_string(),
            tests: 1,
            first_test: index,
            json: report.to_json(&loaded.sources),
            text: report.render(&loaded.sources, None),
            condition,
            example,
        });
    }

    fn sorted(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.found.iter().collect();
        v.sort_by_key(|f| f.first_test);
        v
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
            self.sorted()
                .into_iter()
                .map(|f| {
                    let mut j = json!({
                        "kind": f.kind,
                        "tests": f.tests,
                        "first_test": f.first_test + 1,
                        "example": {
                            "test": f.example.rank.1 + 1,
                            "inputs": f.example.inputs,
                        },
                    });
                    if f.condition.paths() > 0 {
                        j["condition"] = f.condition.condition().to_json(&format);
                    }
                    j["error"] = f.json.clone();
                    j
                })
                .collect(),
        )
    }

    /// The condition of a problem for the text report: one line, or one line per case.
    fn condition_text(&self, f: &Finding) -> String {
        if f.condition.paths() == 0 {
            return String::new();
        }
        let c = f.condition.condition();
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
        if self.found.is_empty() {
            out.push_str("Findings: no conflict, missing case or runtime error on any path.\n");
            return out;
        }
        out.push_str(&format!(
            "Findings: {} distinct problem{}.\n",
            self.found.len(),
            if self.found.len() == 1 { "" } else { "s" }
        ));
        for (n, f) in self.sorted().into_iter().enumerate() {
            out.push_str(&format!(
                "Problem {} ({}): in {} test{}, first in test {}:\n",
                n + 1,
                f.kind,
                f.tests,
                if f.tests == 1 { "" } else { "s" },
                f.first_test + 1
            ));
            out.push_str(&self.condition_text(f));
            out.push_str(&example_text(f));
            out.push_str(&f.text);
        }
        out
    }
}

/// The example line of a problem: its most typical test and that test's inputs.
fn example_text(f: &Finding) -> String {
    let inputs = if f.example.readable.is_empty() {
        "no input".to_string()
    } else {
        f.example.readable.join("; ")
    };
    format!("  Example (test {}): {inputs}\n", f.example.rank.1 + 1)
}
