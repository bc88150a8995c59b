//! The distinct problems an exploration found: runtime errors (conflicts, missing cases,
//! divisions by zero, ...) grouped by kind and by the rules involved, each with the number of
//! tests that show it and the first of them. A long exploration prints thousands of tests; this
//! is the part a reader looks at first. Failed assertions are not problems of the program but
//! inputs outside its input space, so they are only counted.

use super::{ErrorReport, Loaded};
use catala_eval::eval::ErrorSignature;
use concolic::{Outcome, TestCase};
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
}

#[derive(Default)]
pub(crate) struct Findings {
    by_signature: HashMap<ErrorSignature, usize>,
    found: Vec<Finding>,
}

impl Findings {
    /// Records test number `index` (0-based) if it ends in a runtime error.
    pub(crate) fn record(&mut self, loaded: &Loaded, index: usize, test: &TestCase) {
        let Outcome::Error(e) = &test.outcome else {
            return;
        };
        let signature = e.signature();
        if let Some(&i) = self.by_signature.get(&signature) {
            let f = &mut self.found[i];
            f.tests += 1;
            f.first_test = f.first_test.min(index);
            return;
        }
        let report = ErrorReport::from_runtime(e);
        self.by_signature.insert(signature, self.found.len());
        self.found.push(Finding {
            kind: e.kind.as_str().to_string(),
            tests: 1,
            first_test: index,
            json: report.to_json(&loaded.sources),
            text: report.render(&loaded.sources, None),
        });
    }

    fn sorted(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.found.iter().collect();
        v.sort_by_key(|f| f.first_test);
        v
    }

    /// `[{"kind", "tests", "first_test" (1-based), "error"}]`, in order of first appearance.
    pub(crate) fn to_json(&self) -> Json {
        Json::Array(
            self.sorted()
                .into_iter()
                .map(|f| {
                    json!({
                        "kind": f.kind,
                        "tests": f.tests,
                        "first_test": f.first_test + 1,
                        "error": f.json,
                    })
                })
                .collect(),
        )
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
            out.push_str(&f.text);
        }
        out
    }
}
