//! SARIF logs written by `reports::sarif` are valid against the official SARIF 2.1.0 JSON schema
//! (OASIS, final "rtm.5" text, shipped as test data in `tests/fixtures/reports/`), and the check
//! itself rejects logs that break the schema.

use reports::sarif::{to_sarif, Finding, Level, Location, Rule, Tool};
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
    let tool = Tool {
        name: "lexprobe".into(),
        version: "0.1.0".into(),
        information_uri: None,
    };
    to_sarif(&tool, &rules, &findings)
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
