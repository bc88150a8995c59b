//! Law coverage of Catala runs (`--coverage`, `--coverage-json`): the program is read again for
//! its items (rules, definitions, exceptions, assertions with their spans), each run goes
//! through the one evaluator with the coverage companion (`catala_eval::eval::coverage`), and
//! what each run reached is attributed to the item whose span holds it. The result is the plain
//! model of `reports::coverage`, written as HTML and JSON.

use crate::catala::Loaded;
use catala_eval::eval::coverage::{run_covered, Coverage, CoverageLog, CoveredOutcome};
use catala_eval::eval::{ErrorSignature, Interpreter, RuntimeError};
use catala_eval::runtime::Value;
use catala_ir::dcalc::ScopeId;
use catala_syntax::ast::{ExceptionTo, Item, ItemKind as AstKind, ScopeUseItem};
use catala_syntax::{SourceMap, Span};
use reports::coverage::{
    CoverageReport, Item as CovItem, ItemKind, Place, Problem, SourceText, Status, TestRef,
};
use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

struct Acc {
    runs_applied: u64,
    runs_reached: u64,
    runs_failed: u64,
    example_test: Option<usize>,
}

struct ProblemAcc {
    problem: Problem,
}

/// Collects the coverage of runs of one program.
pub(crate) struct CoverageBuilder<'p> {
    loaded: &'p Loaded,
    interp: Interpreter<'p, Coverage>,
    /// Items, sorted by (file, start).
    items: Vec<(Span, ItemKind, String)>,
    acc: Vec<Acc>,
    span_item: HashMap<Span, Option<usize>>,
    problems: HashMap<ErrorSignature, ProblemAcc>,
    problem_order: Vec<ErrorSignature>,
    tests: HashMap<usize, TestRef>,
    total: usize,
    /// Counts of the top-level definitions, evaluated once before the first run.
    startup: CoverageLog,
    /// Whether runs that fail an assertion count (they do for test scopes, whose assertions
    /// are the checks; not for an exploration, whose assertions bound the input space).
    pub count_outside_inputs: bool,
    excluded: usize,
}

fn items_of(items: &[Item], out: &mut Vec<(Span, ItemKind, String)>) {
    for item in items {
        let AstKind::ScopeUse(su) = &item.kind else {
            continue;
        };
        for it in &su.items {
            match it {
                ScopeUseItem::Definition(d) => {
                    let kind = if d.exception != ExceptionTo::None {
                        ItemKind::Exception
                    } else if d.is_rule {
                        ItemKind::Rule
                    } else {
                        ItemKind::Definition
                    };
                    let label = d
                        .target
                        .path
                        .iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(".");
                    out.push((d.span, kind, label));
                }
                ScopeUseItem::Assertion(a) => {
                    out.push((a.span, ItemKind::Assertion, String::new()))
                }
                ScopeUseItem::DateRounding(..) => {}
            }
        }
    }
}

impl<'p> CoverageBuilder<'p> {
    /// Reads `path` again for its items; the spans must match those of `loaded` (same files in
    /// the same order).
    pub(crate) fn new(
        loaded: &'p Loaded,
        path: &Path,
        include_dirs: &[PathBuf],
    ) -> Result<CoverageBuilder<'p>, String> {
        let options = catala_syntax::LoadOptions::for_file(path, include_dirs)
            .map_err(|d| d.message.clone())?;
        let (sources, parsed) = catala_syntax::parse_file_with_options(path, &options);
        let ast = parsed.map_err(|d| d.message.clone())?;
        let same = sources.files.len() == loaded.sources.files.len()
            && sources
                .files
                .iter()
                .zip(&loaded.sources.files)
                .all(|(a, b)| a.display_name == b.display_name && a.text == b.text);
        if !same {
            return Err(format!(
                "{} read differently the second time: no coverage",
                path.display()
            ));
        }
        let mut items = Vec::new();
        items_of(&ast.items, &mut items);
        for m in &ast.modules {
            if !m.stdlib {
                items_of(&m.items, &mut items);
            }
        }
        items.sort_by_key(|(s, _, _)| (s.file.0, s.start));
        let acc = items
            .iter()
            .map(|_| Acc {
                runs_applied: 0,
                runs_reached: 0,
                runs_failed: 0,
                example_test: None,
            })
            .collect();
        let mut interp = Interpreter::<Coverage>::new(&loaded.program, CoverageLog::default())
            .map_err(|e| e.message.clone())?;
        let startup = std::mem::take(&mut interp.session);
        Ok(CoverageBuilder {
            loaded,
            interp,
            items,
            acc,
            span_item: HashMap::new(),
            problems: HashMap::new(),
            problem_order: Vec::new(),
            tests: HashMap::new(),
            total: 0,
            startup,
            count_outside_inputs: true,
            excluded: 0,
        })
    }

    fn item_of(&mut self, span: Span) -> Option<usize> {
        if let Some(i) = self.span_item.get(&span) {
            return *i;
        }
        let key = (span.file.0, span.start);
        let n = self
            .items
            .partition_point(|(s, _, _)| (s.file.0, s.start) <= key);
        let found = n.checked_sub(1).filter(|&i| {
            let s = self.items[i].0;
            s.file == span.file && s.end >= span.end
        });
        self.span_item.insert(span, found);
        found
    }

    /// Counts a test left out (outside the input space) without running it.
    pub(crate) fn exclude(&mut self) {
        self.total += 1;
        self.excluded += 1;
    }

    /// Runs `scope` on `inputs` as test number `number` (1-based), named `name`, with
    /// `inputs_json` kept for the page when the test is linked.
    pub(crate) fn run(
        &mut self,
        number: usize,
        name: &str,
        scope: ScopeId,
        inputs: Vec<Option<Value>>,
        inputs_json: &Json,
    ) {
        let (outcome, mut log) = run_covered(&mut self.interp, scope, inputs);
        if self.total == 0 {
            log.merge(&std::mem::take(&mut self.startup));
        }
        self.total += 1;
        let outside = match &outcome {
            CoveredOutcome::Ran(f) => !f.is_empty(),
            CoveredOutcome::OutsideInputs(_) => true,
            CoveredOutcome::Error(_) => false,
        };
        if outside && !self.count_outside_inputs {
            self.excluded += 1;
            return;
        }
        let outcome_name = match &outcome {
            CoveredOutcome::Ran(f) if f.is_empty() => "ok".to_string(),
            CoveredOutcome::Ran(_) | CoveredOutcome::OutsideInputs(_) => "assertion".to_string(),
            CoveredOutcome::Error(e) => e.kind.as_str().to_string(),
        };
        let mut linked = self.count_items(&log, number);
        if let CoveredOutcome::Error(e) = &outcome {
            linked |= self.count_problem(e, number);
        }
        if linked {
            self.tests.insert(
                number,
                TestRef {
                    number,
                    name: name.to_string(),
                    outcome: outcome_name,
                    inputs: inputs_json.clone(),
                },
            );
        }
    }

    /// The items (rules, definitions, assertions) a run of `scope` on `inputs` applied, by
    /// their numbers, sorted; the run is not counted in the report.
    pub(crate) fn applied_items(&mut self, scope: ScopeId, inputs: Vec<Option<Value>>) -> Vec<u32> {
        let (_, log) = run_covered(&mut self.interp, scope, inputs);
        let spans: Vec<Span> = log
            .consequences
            .keys()
            .chain(log.assertions.keys())
            .copied()
            .collect();
        let mut items: Vec<u32> = spans
            .into_iter()
            .filter_map(|s| self.item_of(s))
            .map(|i| i as u32)
            .collect();
        items.sort_unstable();
        items.dedup();
        items
    }

    /// Counts the items a run applied, reached and failed (from its coverage log), for test
    /// number `number`; whether the test became the example of an item.
    fn count_items(&mut self, log: &CoverageLog, number: usize) -> bool {
        let mut applied: HashSet<usize> = HashSet::new();
        let mut reached: HashSet<usize> = HashSet::new();
        let mut failed: HashSet<usize> = HashSet::new();
        for span in log.consequences.keys() {
            if let Some(i) = self.item_of(*span) {
                applied.insert(i);
            }
        }
        for span in log.defaults.keys().chain(log.justifications.keys()) {
            if let Some(i) = self.item_of(*span) {
                reached.insert(i);
            }
        }
        for (span, (_, fails)) in &log.assertions {
            if let Some(i) = self.item_of(*span) {
                applied.insert(i);
                if *fails > 0 {
                    failed.insert(i);
                }
            }
        }
        let mut linked = false;
        for &i in &applied {
            let a = &mut self.acc[i];
            a.runs_applied += 1;
            if a.example_test.is_none() {
                a.example_test = Some(number);
                linked = true;
            }
        }
        for &i in reached.union(&applied) {
            self.acc[i].runs_reached += 1;
        }
        for &i in &failed {
            self.acc[i].runs_failed += 1;
        }
        linked
    }

    /// Counts the runtime error of test number `number` among the distinct problems; whether
    /// the test became the example of a new problem.
    fn count_problem(&mut self, e: &RuntimeError, number: usize) -> bool {
        let signature = e.signature();
        if let Some(p) = self.problems.get_mut(&signature) {
            p.problem.tests += 1;
            return false;
        }
        let places = e
            .labels
            .iter()
            .filter(|l| (l.span.file.0 as usize) < self.loaded.sources.files.len())
            .map(|l| place(&self.loaded.sources, l.span))
            .collect();
        self.problems.insert(
            signature.clone(),
            ProblemAcc {
                problem: Problem {
                    kind: e.kind.as_str().to_string(),
                    message: e.message.clone(),
                    places,
                    tests: 1,
                    example_test: number,
                },
            },
        );
        self.problem_order.push(signature);
        true
    }

    /// The report. Files are those holding items (and the main file), in reading order.
    pub(crate) fn finish(self, title: &str) -> CoverageReport {
        let sources = &self.loaded.sources;
        let mut shown: Vec<usize> = vec![0];
        for (s, _, _) in &self.items {
            let f = s.file.0 as usize;
            if !shown.contains(&f) {
                shown.push(f);
            }
        }
        shown.sort_unstable();
        shown.retain(|&f| f < sources.files.len());
        let index: HashMap<usize, usize> = shown.iter().enumerate().map(|(i, &f)| (f, i)).collect();
        let items = self
            .items
            .iter()
            .zip(&self.acc)
            .map(|((span, kind, label), a)| {
                let p = sources.position(*span);
                CovItem {
                    kind: *kind,
                    label: label.clone(),
                    file: index.get(&(span.file.0 as usize)).copied().unwrap_or(0),
                    start_line: p.start_line,
                    end_line: p.end_line,
                    status: if a.runs_applied > 0 {
                        Status::Applied
                    } else if a.runs_reached > 0 {
                        Status::Considered
                    } else {
                        Status::NotReached
                    },
                    runs_applied: a.runs_applied,
                    runs_reached: a.runs_reached,
                    runs_failed: a.runs_failed,
                    example_test: a.example_test,
                }
            })
            .collect();
        let mut problems: Vec<Problem> = Vec::new();
        let mut by_signature = self.problems;
        for s in &self.problem_order {
            if let Some(mut p) = by_signature.remove(s) {
                for pl in &mut p.problem.places {
                    pl.file = index.get(&pl.file).copied().unwrap_or(usize::MAX);
                }
                problems.push(p.problem);
            }
        }
        let mut tests: Vec<TestRef> = self.tests.into_values().collect();
        tests.sort_by_key(|t| t.number);
        CoverageReport {
            title: title.to_string(),
            sources: shown
                .iter()
                .map(|&f| SourceText {
                    name: sources.files[f].display_name.clone(),
                    text: sources.files[f].text.clone(),
                })
                .collect(),
            items,
            problems,
            tests,
            total_tests: self.total,
            excluded_tests: self.excluded,
        }
    }
}

/// A span as a place; `file` is the file id, renumbered by [`CoverageBuilder::finish`].
fn place(sources: &SourceMap, span: Span) -> Place {
    let p = sources.position(span);
    Place {
        file: span.file.0 as usize,
        start_line: p.start_line,
        start_col: p.start_col,
        end_line: p.end_line,
        end_col: p.end_col,
    }
}

/// Several files' reports as one page: sources, items and problems one after the other (test
/// numbers are already distinct).
pub(crate) fn merge(title: &str, parts: Vec<CoverageReport>) -> CoverageReport {
    let mut out = CoverageReport {
        title: title.to_string(),
        ..CoverageReport::default()
    };
    for part in parts {
        let offset = out.sources.len();
        out.sources.extend(part.sources);
        out.items.extend(part.items.into_iter().map(|mut i| {
            i.file += offset;
            i
        }));
        out.problems.extend(part.problems.into_iter().map(|mut p| {
            for pl in &mut p.places {
                pl.file = pl.file.saturating_add(offset);
            }
            p
        }));
        out.tests.extend(part.tests);
        out.total_tests += part.total_tests;
        out.excluded_tests += part.excluded_tests;
    }
    out
}

/// The coverage of the `#[test]` scopes of `files` (each run with no inputs), numbered in
/// order across the files. Files that do not compile are left out, named in the error list.
pub(crate) fn of_test_scopes(
    files: &[PathBuf],
    include_dirs: &[PathBuf],
) -> (CoverageReport, Vec<String>) {
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    let mut number = 0;
    for path in files {
        let loaded = match crate::catala::load(path, include_dirs) {
            Ok(l) => l,
            Err(_) => {
                errors.push(format!("{} does not compile", path.display()));
                continue;
            }
        };
        let mut builder = match CoverageBuilder::new(&loaded, path, include_dirs) {
            Ok(b) => b,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for scope in loaded.program.test_scopes() {
            number += 1;
            let decl = loaded.program.scope(scope);
            let name = format!("scope {}", decl.name);
            builder.run(
                number,
                &name,
                scope,
                vec![None; decl.inputs.len()],
                &Json::Object(serde_json::Map::new()),
            );
        }
        parts.push(builder.finish(""));
    }
    (merge("tests", parts), errors)
}
