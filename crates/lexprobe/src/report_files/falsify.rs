//! The result file of `lexprobe falsify`: JUnit XML, one test case for the method.

use reports::junit::{CaseOutcome, TestSuite};
use std::path::Path;

/// JUnit XML of `lexprobe falsify`: one test case for the method, failed when the property
/// was falsified (with the violating trace), passed otherwise (with how far the search got).
pub(crate) fn falsify_junit(method: &Path, naive: bool, report: &hatch::Report) -> String {
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
