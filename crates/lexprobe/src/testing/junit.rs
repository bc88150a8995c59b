//! A test run as JUnit XML, the format CI servers (GitLab, Jenkins, GitHub test reporters)
//! read: one `<testsuite>` per file, one `<testcase>` per `#[test]` scope or test block, a
//! `<failure>` with the expected and actual outputs, a `<skipped>` with the reason.

use super::{Counts, RunReport, Status};
use std::fmt::Write;

/// The XML document of a run.
pub fn to_junit(report: &RunReport) -> String {
    let total = report.counts();
    let seconds: f64 = report.files.iter().map(|f| f.seconds).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"lexprobe test\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
        total.passed + total.failed + total.skipped,
        total.failed,
        total.skipped
    );
    for file in &report.files {
        let c = Counts::of(&file.cases);
        let name = escape(&file.path.display().to_string());
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
            file.cases.len(),
            c.failed,
            c.skipped,
            file.seconds
        );
        for case in &file.cases {
            let _ = write!(
                xml,
                "    <testcase classname=\"{name}\" name=\"{}\" time=\"{:.3}\"",
                escape(&case.name),
                case.seconds
            );
            let reason = escape(case.reason.as_deref().unwrap_or(""));
            match case.status {
                Status::Passed => xml.push_str("/>\n"),
                Status::Skipped => {
                    let _ = writeln!(
                        xml,
                        ">\n      <skipped message=\"{reason}\"/>\n    </testcase>"
                    );
                }
                Status::Failed => {
                    let mut body = String::new();
                    if let Some(e) = &case.expected {
                        let _ = writeln!(body, "expected:\n{e}");
                    }
                    if let Some(a) = &case.actual {
                        let _ = writeln!(body, "actual:\n{a}");
                    }
                    let _ = writeln!(
                        xml,
                        ">\n      <failure message=\"{reason}\" type=\"mismatch\">{}</failure>\n    </testcase>",
                        escape(&body)
                    );
                }
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
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            escape("a<b & \"c\"\u{1b}[0m"),
            "a&lt;b &amp; &quot;c&quot;[0m"
        );
    }
}
