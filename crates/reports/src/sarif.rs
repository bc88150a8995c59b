//! SARIF 2.1.0 logs (OASIS Static Analysis Results Interchange Format), the format code-review
//! views of CI servers show next to the source: one run of one tool, its rules (one per kind of
//! problem), and one result per distinct problem with every position it points at, its message
//! and, in `properties`, the inputs that show it. Columns count Unicode code points, as Catala's
//! do (`columnKind: unicodeCodePoints`).
//!
//! With a [`UriBase`] (e.g. `SRCROOT`, the checkout's top directory), the log names it in
//! `run.originalUriBaseIds` and every file under it as a URI relative to it with `uriBaseId`, as
//! GitHub code scanning expects: the results then point at the same lines wherever the
//! repository was checked out.

use crate::uri::path_to_uri;
use serde_json::{json, Map, Value as Json};

/// The schema a log names in `$schema`.
pub(crate) const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// How serious a result is (SARIF's `level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// A kind of problem (a SARIF `reportingDescriptor`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// A stable identifier, e.g. `conflict`.
    pub id: String,
    /// One sentence saying what the kind of problem is.
    pub description: String,
}

/// A region of a file; lines and columns start at 1, the end column is exclusive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub start_line: usize,
    pub start_col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// One distinct problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule_id: String,
    pub level: Level,
    pub message: String,
    /// The first is the primary location; all are listed.
    pub locations: Vec<Location>,
    /// Extra data (the inputs that show the problem, counts), as SARIF `properties`.
    pub properties: Map<String, Json>,
}

/// The tool that produced the log.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub information_uri: Option<String>,
}

/// A base directory of the artifacts (a SARIF `originalUriBaseIds` entry): relative file paths
/// of the locations are resolved against it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriBase {
    /// The base id, e.g. `SRCROOT`.
    pub id: String,
    /// The directory, as an absolute path (`/`-separated); may be empty when it is not known,
    /// and the log then names the base without saying where it is.
    pub dir: String,
}

/// An absolute `/`-separated path as a `file://` URI (`/` appended when `dir` asks for it).
fn file_uri(path: &str, dir: bool) -> String {
    let mut uri = format!("file://{}", path_to_uri(path));
    if dir && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// The `artifactLocation` of `file`: relative to the base when there is one and the path is
/// relative, a `file://` URI when the path is absolute, else the path as a relative URI.
fn artifact_json(file: &str, base: Option<&UriBase>) -> Json {
    if file.starts_with('/') {
        return json!({ "uri": file_uri(file, false) });
    }
    match base {
        Some(b) => json!({ "uri": path_to_uri(file), "uriBaseId": b.id }),
        None => json!({ "uri": path_to_uri(file) }),
    }
}

fn location_json(l: &Location, base: Option<&UriBase>) -> Json {
    // SARIF requires positive lines and columns; a zero would be a caller's mistake, so it is
    // lifted to 1 rather than making the whole log invalid.
    let start_line = l.start_line.max(1);
    let start_col = l.start_col.max(1);
    let end_line = l.end_line.max(start_line);
    let end_col = if end_line == start_line {
        l.end_col.max(start_col)
    } else {
        l.end_col.max(1)
    };
    json!({
        "physicalLocation": {
            "artifactLocation": artifact_json(&l.file, base),
            "region": {
                "startLine": start_line,
                "startColumn": start_col,
                "endLine": end_line,
                "endColumn": end_col,
            }
        }
    })
}

/// The whole log: one run with `rules` (those no finding uses are kept, so a reader sees what
/// was looked for) and `findings`, in the given order; file paths as relative URIs.
pub fn to_sarif(tool: &Tool, rules: &[Rule], findings: &[Finding]) -> Json {
    to_sarif_with_base(tool, rules, findings, None)
}

/// The whole log, as [`to_sarif`]; with `base`, the run names it in `originalUriBaseIds` and
/// the relative file paths of the locations are relative to it (`uriBaseId`).
pub fn to_sarif_with_base(
    tool: &Tool,
    rules: &[Rule],
    findings: &[Finding],
    base: Option<&UriBase>,
) -> Json {
    let rules_json: Vec<Json> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.description },
            })
        })
        .collect();
    let results: Vec<Json> = findings
        .iter()
        .map(|f| {
            let mut result = json!({
                "ruleId": f.rule_id,
                "level": f.level.as_str(),
                "message": { "text": f.message },
                "locations": f
                    .locations
                    .iter()
                    .map(|l| location_json(l, base))
                    .collect::<Vec<_>>(),
            });
            if let Some(i) = rules.iter().position(|r| r.id == f.rule_id) {
                result["ruleIndex"] = json!(i);
            }
            if !f.properties.is_empty() {
                result["properties"] = Json::Object(f.properties.clone());
            }
            result
        })
        .collect();
    let mut driver = json!({
        "name": tool.name,
        "version": tool.version,
        "rules": rules_json,
    });
    if let Some(uri) = &tool.information_uri {
        driver["informationUri"] = json!(uri);
    }
    let mut run = json!({
        "tool": { "driver": driver },
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if let Some(b) = base {
        let mut entry = json!({
            "description": { "text": "The root of the sources the relative paths start from" },
        });
        if !b.dir.is_empty() {
            entry["uri"] = json!(file_uri(&b.dir, true));
        }
        run["originalUriBaseIds"] = json!({ b.id.clone(): entry });
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run],
    })
}
