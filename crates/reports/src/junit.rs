//! JUnit XML, the test-report format CI servers (Jenkins, GitLab, GitHub test reporters) read:
//! `<testsuites>` of `<testsuite>`s of `<testcase>`s, each passed, failed (`<failure>` with a
//! message and a body), in error (`<error>`), or skipped (`<skipped>` with the reason as its text). The layout follows the
//! Jenkins JUnit schema (junit-4.xsd): suite attributes `name`, `tests`, `failures`, `errors`,
//! `skipped`, `time`; `<properties>` first in a suite when there are any.

use std::fmt::Write;

/// How a test case ended.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseOutcome {
    Passed,
    /// The property under test does not hold: a message and the details.
    Failed {
        message: String,
        body: String,
    },
    /// The test could not run to a verdict (a crash, an unreadable input).
    Error {
        message: String,
        body: String,
    },
    Skipped {
        message: String,
    },
}

/// One test case.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    pub name: String,
    pub classname: String,
    pub seconds: f64,
    pub outcome: CaseOutcome,
    /// Printed under `<system-out>` (a summary of what the test did).
    pub output: Option<String>,
}

/// A suite of test cases.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TestSuite {
    pub name: String,
    pub cases: Vec<TestCase>,
    /// `<property name value>` pairs (the options of the run).
    pub properties: Vec<(String, String)>,
}

struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
}

fn counts<'a>(cases: impl IntoIterator<Item = &'a TestCase>) -> Counts {
    let mut c = Counts {
        tests: 0,
        failures: 0,
        errors: 0,
        skipped: 0,
        seconds: 0.0,
    };
    for case in cases {
        c.tests += 1;
        c.seconds += case.seconds;
        match case.outcome {
            CaseOutcome::Passed => {}
            CaseOutcome::Failed { .. } => c.failures += 1,
            CaseOutcome::Error { .. } => c.errors += 1,
            CaseOutcome::Skipped { .. } => c.skipped += 1,
        }
    }
    c
}

/// The XML document of `suites`, under one `<testsuites name>`.
pub fn to_junit(name: &str, suites: &[TestSuite]) -> String {
    let all = counts(suites.iter().flat_map(|s| &s.cases));
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        escape(name),
        all.tests,
        all.failures,
        all.errors,
        all.seconds
    );
    for suite in suites {
        let c = counts(&suite.cases);
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            escape(&suite.name),
            c.tests,
            c.failures,
            c.errors,
            c.skipped,
            c.seconds
        );
        if !suite.properties.is_empty() {
            xml.push_str("    <properties>\n");
            for (k, v) in &suite.properties {
                let _ = writeln!(
                    xml,
                    "      <property name=\"{}\" value=\"{}\"/>",
                    escape(k),
                    escape(v)
                );
            }
            xml.push_str("    </properties>\n");
        }
        for case in &suite.cases {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&case.name),
                escape(&case.classname),
                case.seconds
            );
            let inner = match &case.outcome {
                CaseOutcome::Passed => String::new(),
                CaseOutcome::Failed { message, body } => format!(
                    "      <failure message=\"{}\" type=\"failure\">{}</failure>\n",
                    escape(message),
                    escape(body)
                ),
                CaseOutcome::Error { message, body } => format!(
                    "      <error message=\"{}\" type=\"error\">{}</error>\n",
                    escape(message),
                    escape(body)
                ),
                // junit-4.xsd gives `<skipped>` text content and no attributes.
                CaseOutcome::Skipped { message } => {
                    format!("      <skipped>{}</skipped>\n", escape(message))
                }
            };
            let output = case
                .output
                .as_deref()
                .map(|o| format!("      <system-out>{}</system-out>\n", escape(o)))
                .unwrap_or_default();
            if inner.is_empty() && output.is_empty() {
                xml.push_str("/>\n");
            } else {
                let _ = write!(xml, ">\n{inner}{output}    </testcase>\n");
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Text made safe inside XML attributes and elements; characters XML 1.0 forbids (most control
/// characters) are dropped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            '\u{FFFE}' | '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_outcomes() {
        let case = |name: &str, outcome| TestCase {
            name: name.into(),
            classname: "c".into(),
            seconds: 0.5,
            outcome,
            output: None,
        };
        let suite = TestSuite {
            name: "s".into(),
            cases: vec![
                case("a", CaseOutcome::Passed),
                case(
                    "b",
                    CaseOutcome::Failed {
                        message: "x < y".into(),
                        body: "pair".into(),
                    },
                ),
                case(
                    "c",
                    CaseOutcome::Skipped {
                        message: "why".into(),
                    },
                ),
            ],
            properties: vec![],
        };
        let xml = to_junit("run", &[suite]);
        assert!(xml.contains(
            "<testsuite name=\"s\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"1.500\">"
        ));
        assert!(xml.contains("<failure message=\"x &lt; y\" type=\"failure\">pair</failure>"));
        assert!(xml.contains("<testcase name=\"a\" classname=\"c\" time=\"0.500\"/>"));
    }
}
