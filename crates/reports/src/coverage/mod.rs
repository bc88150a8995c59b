//! Law coverage of a literate Catala program: for every rule, definition, exception and
//! assertion, whether the runs applied it (its justification held and its consequence gave
//! the value), only considered it (reached, never applicable or overridden by an exception),
//! or never reached it; the conflicts, empty defaults and runtime errors at their positions;
//! a test that shows each. The model is plain data ([`CoverageReport`]), filled by the caller;
//! [`headings`] attributes items to the markdown heading (article) they sit under, [`html`]
//! renders the page and [`to_json`] the same data for machines.

pub(crate) mod headings;
pub mod html;

use serde_json::{json, Value as Json};

/// A source file of the program, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceText {
    /// The name shown (the path as given).
    pub name: String,
    pub text: String,
}

/// What an item of the program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Definition,
    Rule,
    Exception,
    Assertion,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Definition => "definition",
            ItemKind::Rule => "rule",
            ItemKind::Exception => "exception",
            ItemKind::Assertion => "assertion",
        }
    }
}

/// Whether the runs applied an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// A run used its consequence (an assertion: it was checked).
    Applied,
    /// Reached, but its justification never held (or an exception overrode it).
    Considered,
    /// No run reached it.
    NotReached,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::Considered => "considered",
            Status::NotReached => "not_reached",
        }
    }
}

/// One rule, definition, exception or assertion.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    /// What it defines (`montant`, `sub.x`), or the assertion's first words.
    pub label: String,
    /// Index into [`CoverageReport::sources`].
    pub file: usize,
    /// Lines (1-based, inclusive).
    pub start_line: usize,
    pub end_line: usize,
    pub status: Status,
    /// Runs that applied it (assertions: runs that checked it).
    pub runs_applied: u64,
    /// Runs that reached it.
    pub runs_reached: u64,
    /// Runs in which an assertion failed.
    pub runs_failed: u64,
    /// A test (1-based number) that applied it.
    pub example_test: Option<usize>,
}

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: usize,
    pub start_line: usize,
    pub start_col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// A distinct runtime problem (conflict, empty default, division by zero, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub kind: String,
    pub message: String,
    pub places: Vec<Place>,
    pub tests: usize,
    /// The first test (1-based) that shows it.
    pub example_test: usize,
}

/// A test referenced by the report.
#[derive(Clone, Debug, PartialEq)]
pub struct TestRef {
    /// 1-based, as the run numbered it.
    pub number: usize,
    /// What it is (`scope Test`, `concolic test 12`).
    pub name: String,
    /// `ok`, `assertion`, or the kind of error.
    pub outcome: String,
    pub inputs: Json,
}

/// The whole coverage of a set of runs over a program.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CoverageReport {
    pub title: String,
    pub sources: Vec<SourceText>,
    pub items: Vec<Item>,
    pub problems: Vec<Problem>,
    /// The tests named by items and problems (not every test of the run).
    pub tests: Vec<TestRef>,
    pub total_tests: usize,
    /// Of `total_tests`, runs left out because they failed an assertion of the explored scope
    /// (inputs outside its input space).
    pub excluded_tests: usize,
}

/// Counts of items by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub applied: usize,
    pub considered: usize,
    pub not_reached: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, s: Status) {
        match s {
            Status::Applied => self.applied += 1,
            Status::Considered => self.considered += 1,
            Status::NotReached => self.not_reached += 1,
        }
    }
    pub(crate) fn total(&self) -> usize {
        self.applied + self.considered + self.not_reached
    }
    pub(crate) fn add_tally(&mut self, o: &Tally) {
        self.applied += o.applied;
        self.considered += o.considered;
        self.not_reached += o.not_reached;
    }
}

impl CoverageReport {
    /// Counts over every item.
    pub(crate) fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for i in &self.items {
            t.add(i.status);
        }
        t
    }
}

fn tally_json(t: &Tally) -> Json {
    json!({
        "applied": t.applied,
        "considered": t.considered,
        "not_reached": t.not_reached,
        "total": t.total(),
    })
}

/// The report as JSON: summary, per-heading table, items, problems, the tests they name.
pub fn to_json(report: &CoverageReport) -> Json {
    let outline = headings::outline(report);
    let headings_json: Vec<Json> = outline
        .headings
        .iter()
        .map(|h| {
            json!({
                "file": report.sources.get(h.file).map(|s| s.name.as_str()),
                "line": h.line,
                "level": h.level,
                "title": h.title,
                "trail": h.trail,
                "items": tally_json(&h.own),
                "with_subheadings": tally_json(&h.cumulative),
            })
        })
        .collect();
    let items: Vec<Json> = report
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            json!({
                "kind": it.kind.as_str(),
                "label": it.label,
                "file": report.sources.get(it.file).map(|s| s.name.as_str()),
                "start_line": it.start_line,
                "end_line": it.end_line,
                "status": it.status.as_str(),
                "runs_applied": it.runs_applied,
                "runs_reached": it.runs_reached,
                "runs_failed": it.runs_failed,
                "example_test": it.example_test,
                "heading": outline.item_heading[i].and_then(|h| outline.headings.get(h)).map(|h| h.trail.clone()),
            })
        })
        .collect();
    let problems: Vec<Json> = report
        .problems
        .iter()
        .map(|p| {
            json!({
                "kind": p.kind,
                "message": p.message,
                "tests": p.tests,
                "example_test": p.example_test,
                "positions": p.places.iter().map(|pl| json!({
                    "file": report.sources.get(pl.file).map(|s| s.name.as_str()),
                    "line": pl.start_line,
                    "col": pl.start_col,
                    "end_line": pl.end_line,
                    "end_col": pl.end_col,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let tests: Vec<Json> = report
        .tests
        .iter()
        .map(|t| json!({"number": t.number, "name": t.name, "outcome": t.outcome, "inputs": t.inputs}))
        .collect();
    json!({
        "title": report.title,
        "total_tests": report.total_tests,
        "excluded_tests": report.excluded_tests,
        "summary": tally_json(&report.tally()),
        "files": report.sources.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        "headings": headings_json,
        "items": items,
        "problems": problems,
        "tests": tests,
    })
}
