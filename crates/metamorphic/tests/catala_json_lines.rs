//! The Catala scope served over JSON Lines gives the same verdicts as the in-process Catala
//! adapter: every run goes through `catala::serve_json_lines` (inputs encoded as one JSON
//! line, outputs decoded from the reply line), and with the same seed and test cap the two
//! searches see the same tests, the same failures and the same deviations.

use metamorphic::catala::{serve_json_lines, CatalaScope};
use metamorphic::domain::Domain;
use metamorphic::relation::parse_relations;
use metamorphic::search::{search_relation, SearchConfig};
use metamorphic::system::{FunctionSystem, RunFailure, RunResult};
use metamorphic::value::{record_from_json, record_to_json, Record};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/metamorphic")
}

/// One run through the JSON Lines server.
fn served(file: &Path, input: &Record) -> RunResult {
    let line = format!("{}\n", record_to_json(input));
    let mut reply = Vec::new();
    serve_json_lines(file, "Form1040", line.as_bytes(), &mut reply).map_err(|e| {
        RunFailure::Crashed {
            detail: e.to_string(),
        }
    })?;
    let text = String::from_utf8_lossy(&reply).to_string();
    match serde_json::from_str::<serde_json::Value>(text.trim()) {
        Ok(serde_json::Value::Object(o)) if !o.contains_key("error") => Ok(record_from_json(&o)),
        _ => Err(RunFailure::Malformed { reply: text }),
    }
}

#[test]
fn served_scope_gives_the_same_verdicts() {
    let domain =
        Domain::from_toml(&std::fs::read_to_string(examples().join("form1040.toml")).unwrap())
            .unwrap();
    let relations =
        parse_relations(&std::fs::read_to_string(examples().join("form1040.mr")).unwrap()).unwrap();
    let config = SearchConfig {
        seed: 7,
        max_tests: Some(400),
        budget: Duration::from_secs(3600),
        jobs: 1,
        ..SearchConfig::default()
    };
    for (variant, relation) in [
        ("form1040_bug_eitc_mfs.catala_en", "r3_eitc_mfs"),
        ("form1040_bug_medical_floor.catala_en", "r13_medical_floor"),
        ("form1040.catala_en", "r1_disability_filer"),
    ] {
        let file = examples().join(variant);
        let relation = relations.iter().find(|r| r.name == relation).unwrap();
        let in_process = CatalaScope::load(&file, "Form1040", 1).unwrap();
        let over_json_lines = FunctionSystem {
            name: "served".into(),
            function: |input: &Record| served(&file, input),
        };
        let a = search_relation(relation, &domain, &in_process, &config);
        let b = search_relation(relation, &domain, &over_json_lines, &config);
        assert_eq!(a.verdict, b.verdict, "{variant}");
        assert_eq!(
            (a.tests, a.failed, a.run_errors),
            (b.tests, b.failed, b.run_errors)
        );
        assert_eq!(a.max_deviation, b.max_deviation, "{variant}");
        let firsts = |o: &metamorphic::search::SearchOutcome| {
            o.kept
                .iter()
                .take(20)
                .map(|t| t.cases.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(firsts(&a), firsts(&b), "{variant}");
        if variant.contains("bug") {
            assert!(a.failed > 0, "{variant}: the planted bug was not found");
        } else {
            assert_eq!(a.failed, 0);
        }
    }
}
