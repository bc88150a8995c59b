//! The result files of `lexprobe diff`: SARIF (one result per region where the versions
//! differ, at the lines NEW changed — or at the positions of NEW's error when the region is
//! an error NEW brings — with the region's condition and example in the message) and JUnit
//! (one failing test case per region, or one passing test case when the versions are proved
//! equivalent, an error when the answer is unknown).

use super::tool;
use reports::junit::{CaseOutcome, TestCase, TestSuite};
use reports::sarif::{Finding, Level, Location, Rule};
use serde_json::{json, Map, Value as Json};
use std::path::Path;

/// One region as the result files show it.
pub(crate) struct RegionSummary {
    /// What differs, e.g. `amount differs`.
    pub title: String,
    /// The condition over the named inputs, on one line.
    pub condition: String,
    /// The same condition as its cases, one per line (as the text output prints them).
    pub condition_cases: Vec<String>,
    pub paths: usize,
    /// The example with both versions' outcomes, as text.
    pub example: String,
    /// Where NEW's error of this region is (line, column), when NEW fails there.
    pub new_error_at: Vec<(usize, usize)>,
}

/// What the diff answered, as the result files need it.
pub(crate) struct DiffSummary<'a> {
    pub verdict: &'a str,
    pub scope: &'a str,
    pub old_label: &'a str,
    pub new_label: &'a str,
    /// NEW's file on disk.
    pub new_file: &'a Path,
    /// 1-based inclusive line ranges NEW changed.
    pub changed: &'a [(usize, usize)],
    pub regions: Vec<RegionSummary>,
    /// Why the answer is unknown, or what an equivalence covers.
    pub note: String,
    pub elapsed_s: f64,
}

/// The SARIF log of a diff.
pub(crate) fn diff_sarif(s: &DiffSummary<'_>) -> Json {
    let rules = vec![Rule {
        id: "version-difference".into(),
        description: "Two versions of a scope give another output or outcome on these inputs"
            .into(),
    }];
    let root = super::source_root::SourceRoot::new(None, s.new_file);
    let file = root.relative(s.new_file);
    let findings = s
        .regions
        .iter()
        .map(|r| {
            let mut locations: Vec<Location> = r
                .new_error_at
                .iter()
                .map(|&(line, col)| Location {
                    file: file.clone(),
                    start_line: line,
                    start_col: col,
                    end_line: line,
                    end_col: col + 1,
                })
                .collect();
            locations.extend(s.changed.iter().map(|&(start, end)| Location {
                file: file.clone(),
                start_line: start,
                start_col: 1,
                end_line: end + 1,
                end_col: 1,
            }));
            let mut properties = Map::new();
            properties.insert("scope".into(), json!(s.scope));
            properties.insert("old".into(), json!(s.old_label));
            properties.insert("new".into(), json!(s.new_label));
            properties.insert("condition".into(), json!(r.condition));
            properties.insert("paths".into(), json!(r.paths));
            Finding {
                rule_id: "version-difference".into(),
                level: Level::Warning,
                message: format!(
                    "{}: the versions differ when {} ({} path pair{}). {}",
                    r.title,
                    r.condition,
                    r.paths,
                    if r.paths == 1 { "" } else { "s" },
                    r.example
                ),
                locations,
                properties,
            }
        })
        .collect::<Vec<_>>();
    let base = root.uri_base();
    reports::sarif::to_sarif_with_base(&tool(), &rules, &findings, Some(&base))
}

/// The JUnit XML of a diff.
pub(crate) fn diff_junit(s: &DiffSummary<'_>) -> String {
    let classname = format!("diff {} {} {}", s.scope, s.old_label, s.new_label);
    let cases: Vec<TestCase> = match s.verdict {
        "differs" => s
            .regions
            .iter()
            .map(|r| TestCase {
                name: format!("{} when {}", r.title, r.condition),
                classname: classname.clone(),
                seconds: 0.0,
                outcome: CaseOutcome::Failed {
                    message: format!("the versions differ: {}", r.title),
                    body: format!(
                        "Condition ({} paths): {}\n{}",
                        r.paths, r.condition, r.example
                    ),
                },
                output: None,
            })
            .collect(),
        "equivalent" => vec![TestCase {
            name: "equivalent".into(),
            classname: classname.clone(),
            seconds: s.elapsed_s,
            outcome: CaseOutcome::Passed,
            output: Some(s.note.clone()),
        }],
        _ => vec![TestCase {
            name: "unknown".into(),
            classname: classname.clone(),
            seconds: s.elapsed_s,
            outcome: CaseOutcome::Error {
                message: "the comparison is not complete".into(),
                body: s.note.clone(),
            },
            output: None,
        }],
    };
    let suite = TestSuite {
        name: classname,
        cases,
        properties: Vec::new(),
    };
    reports::junit::to_junit("lexprobe diff", &[suite])
}
