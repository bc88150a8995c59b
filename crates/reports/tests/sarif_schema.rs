//! SARIF logs written by `reports::sarif` are valid against the official SARIF 2.1.0 JSON schema
//! (OASIS, final "rtm.5" text, shipped as test data in `tests/fixtures/reports/`), and the check
//! itself rejects logs that break the schema; with a source root, paths are relative to it
//! (`originalUriBaseIds`, `uriBaseId`), as GitHub code scanning expects.

use reports::sarif::{to_sarif, to_sarif_with_base, Finding, Level, Location, Rule, Tool, UriBase};
use serde_json::{json, Map, Value as Json};

fn schema() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/reports/sarif-schema-2.1.0.json"
    );
    let text = std::fs::read_to_string(path).expect("the schema file is in the repository");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn errors(log: &Json) -> Vec<String> {
    let schema = schema();
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    validator.iter_errors(log).map(|e| e.to_string()).collect()
}

fn sample_tool() -> Tool {
    Tool {
        name: "lexprobe".into(),
        version: "0.1.0".into(),
        information_uri: None,
    }
}

fn sample_log() -> Json {
    let mut properties = Map::new();
    properties.insert("inputs".into(), json!({"income": 1200, "children": 2}));
    properties.insert("tests".into(), json!(3));
    let findings = vec![
        Finding {
            rule_id: "conflict".into(),
            level: Level::Error,
            message: "During evaluation: two rules apply".into(),
            locations: vec![
                Location {
                    file: "tests/fixtures/é x.catala_en".into(),
                    start_line: 10,
                    start_col: 3,
                    end_line: 10,
                    end_col: 20,
                },
                Location {
                    file: "tests/fixtures/é x.catala_en".into(),
                    start_line: 14,
                    start_col: 3,
                    end_line: 15,
                    end_col: 1,
                },
            ],
            properties,
        },
        Finding {
            rule_id: "relation-inconclusive".into(),
            level: Level::Note,
            message: "no test completed".into(),
            locations: vec![],
            properties: Map::new(),
        },
    ];
    let rules = vec![
        Rule {
            id: "conflict".into(),
            description: "Two rules apply at once".into(),
        },
        Rule {
            id: "relation-inconclusive".into(),
            description: "No test of the relation completed".into(),
        },
    ];
    to_sarif(&sample_tool(), &rules, &findings)
}

#[test]
fn a_log_with_findings_is_valid_sarif_2_1_0() {
    let log = sample_log();
    assert_eq!(errors(&log), Vec::<String>::new());
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "conflict");
    assert_eq!(result["ruleIndex"], 0);
    assert_eq!(result["locations"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "tests/fixtures/%C3%A9%20x.catala_en"
    );
    assert_eq!(result["properties"]["inputs"]["children"], 2);
}

#[test]
fn the_schema_check_rejects_broken_logs() {
    // Without it, the test above would pass on any JSON.
    let mut wrong_version = sample_log();
    wrong_version["version"] = json!("2.0.0");
    assert!(!errors(&wrong_version).is_empty());
    let mut zero_line = sample_log();
    zero_line["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    assert!(!errors(&zero_line).is_empty());
    let mut bad_level = sample_log();
    bad_level["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!errors(&bad_level).is_empty());
}

#[test]
fn zero_positions_are_lifted_to_one() {
    let tool = Tool {
        name: "t".into(),
        version: "1".into(),
        information_uri: None,
    };
    let finding = Finding {
        rule_id: "r".into(),
        level: Level::Warning,
        message: "m".into(),
        locations: vec![Location {
            file: "f".into(),
            start_line: 0,
            start_col: 0,
            end_line: 0,
            end_col: 0,
        }],
        properties: Map::new(),
    };
    let log = to_sarif(&tool, &[], &[finding]);
    assert_eq!(errors(&log), Vec::<String>::new());
}

fn location(file: &str) -> Location {
    Location {
        file: file.into(),
        start_line: 3,
        start_col: 1,
        end_line: 3,
        end_col: 9,
    }
}

fn rooted_log(dir: &str) -> Json {
    let finding = Finding {
        rule_id: "conflict".into(),
        level: Level::Error,
        message: "During evaluation: two rules apply. Inputs of test 4: b = true; x = 0.".into(),
        locations: vec![
            location("law/é x.catala_en"),
            location("/opt/lib/other.catala_en"),
        ],
        properties: Map::new(),
    };
    let base = UriBase {
        id: "SRCROOT".into(),
        dir: dir.into(),
    };
    to_sarif_with_base(&sample_tool(), &[], &[finding], Some(&base))
}

#[test]
fn with_a_source_root_paths_are_relative_to_its_base_id() {
    let log = rooted_log("/home/runner/work/law project");
    assert_eq!(errors(&log), Vec::<String>::new());
    let run = &log["runs"][0];
    // The base is an absolute directory URI, with its final slash.
    assert_eq!(
        run["originalUriBaseIds"]["SRCROOT"]["uri"],
        "file:///home/runner/work/law%20project/"
    );
    let artifact =
        |i: usize| &run["results"][0]["locations"][i]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact(0)["uri"], "law/%C3%A9%20x.catala_en");
    assert_eq!(artifact(0)["uriBaseId"], "SRCROOT");
    // A file outside the root keeps its absolute path, without the base.
    assert_eq!(artifact(1)["uri"], "file:///opt/lib/other.catala_en");
    assert!(artifact(1).get("uriBaseId").is_none());
}

#[test]
fn a_base_without_a_known_directory_is_named_without_a_uri() {
    let log = rooted_log("");
    assert_eq!(errors(&log), Vec::<String>::new());
    let base = &log["runs"][0]["originalUriBaseIds"]["SRCROOT"];
    assert!(base.is_object() && base.get("uri").is_none(), "{base}");
    // Without a base, there is no originalUriBaseIds and no uriBaseId.
    let plain = sample_log();
    assert!(plain["runs"][0].get("originalUriBaseIds").is_none());
    let artifact =
        &plain["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert!(artifact.get("uriBaseId").is_none());
}

#[test]
fn the_schema_check_rejects_a_malformed_base() {
    let mut log = rooted_log("/src");
    log["runs"][0]["originalUriBaseIds"]["SRCROOT"] = json!("file:///src/");
    assert!(
        !errors(&log).is_empty(),
        "a base must be an artifactLocation object"
    );
}
