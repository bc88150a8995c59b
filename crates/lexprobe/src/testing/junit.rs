//! A test run as JUnit XML, the format CI servers (GitLab, Jenkins, GitHub test reporters)
//! read: one `<testsuite>` per file, one `<testcase>` per `#[test]` scope or test block, a
//! `<failure>` with the expected and actual outputs, a `<skipped>` with the reason. Written by
//! the `reports` crate's JUnit writer, in the layout of the Jenkins JUnit schema.

use super::{RunReport, Status};
use reports::junit::{CaseOutcome, TestCase, TestSuite};

/// The XML document of a run.
pub(crate) fn to_junit(report: &RunReport) -> String {
    let suites: Vec<TestSuite> = report
        .files
        .iter()
        .map(|file| {
            let name = file.path.display().to_string();
            let cases = file
                .cases
                .iter()
                .map(|case| {
                    let reason = case.reason.clone().unwrap_or_default();
                    let outcome = match case.status {
                        Status::Passed => CaseOutcome::Passed,
                        Status::Skipped => CaseOutcome::Skipped { message: reason },
                        Status::Failed => {
                            let mut body = String::new();
                            if let Some(e) = &case.expected {
                                body.push_str(&format!("expected:\n{e}\n"));
                            }
                            if let Some(a) = &case.actual {
                                body.push_str(&format!("actual:\n{a}\n"));
                            }
                            CaseOutcome::Failed {
                                message: reason,
                                body,
                            }
                        }
                    };
                    TestCase {
                        name: case.name.clone(),
                        classname: name.clone(),
                        seconds: case.seconds,
                        outcome,
                        output: None,
                    }
                })
                .collect();
            TestSuite {
                name,
                cases,
                properties: Vec::new(),
            }
        })
        .collect();
    reports::junit::to_junit("lexprobe test", &suites)
}

#[cfg(test)]
mod tests {
    use reports::junit::escape;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            escape("a<b & \"c\"\u{1b}[0m"),
            "a&lt;b &amp; &quot;c&quot;[0m"
        );
    }
}
