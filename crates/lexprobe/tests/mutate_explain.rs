//! `lexprobe mutate` explains each mutant, on `tests/fixtures/mutate/benefit.catala_en`: two
//! base rules of label `base` (Article 2: $100 under $20,000 of income, $0 from $20,000) and
//! one exception to them (Article 3: $300 from three children). Its default terms, in the
//! order mutants are numbered (derived from how rules become default terms):
//!
//! - site 0: ⟨ group of Article 3 | true :- group of Article 2 ⟩ — remove, duplicate;
//! - site 1: the group of Article 3, ⟨ rule $300 | false :- ∅ ⟩ — remove, duplicate, negate;
//! - site 2: the rule $300, ⟨ children >= 3 :- $300 ⟩ — negate;
//! - site 3: the group of Article 2, ⟨ rule $100, rule $0 | false :- ∅ ⟩ — remove and
//!   duplicate each, negate;
//! - sites 4 and 5: the rules $100 and $0 — negate.
//!
//! The original never fails. Failing mutants (detected): a duplicated rule conflicts with
//! itself wherever it applies (sites 0, 1, 3); a removed base rule leaves its incomes without
//! a rule (site 3); a negated base condition makes both base rules apply on one side of
//! $20,000 and none on the other (sites 4, 5). Never failing (survivors, every path explored):
//! the removed exception (site 0 or 1: the base rules cover every case), the negated
//! condition of a group (sites 1, 3: nothing follows from it either way), the negated
//! exception condition (site 2: the base rules still cover the other case).

mod snapshot_support;

use catala_eval::Value;
use concolic::mutation::{apply, candidate_mutations, Mutation, MutationKind};
use expect_test::expect;
use serde_json::Value as Json;
use snapshot_support::lexprobe;
use std::path::{Path, PathBuf};

const FIXTURE: &str = "tests/fixtures/mutate/benefit.catala_en";

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(FIXTURE)
}

fn program() -> catala_ir::dcalc::Program {
    match catala_eval::loader::load_program(&fixture_path(), &[]) {
        Ok(l) => l.program,
        Err(_) => panic!("the fixture compiles"),
    }
}

fn kind(name: &str) -> MutationKind {
    match name {
        "RemoveException" => MutationKind::RemoveException,
        "DuplicateException" => MutationKind::DuplicateException,
        "NegateJustification" => MutationKind::NegateJustification,
        other => panic!("unknown mutation {other}"),
    }
}

fn mutation_of(m: &Json) -> Mutation {
    Mutation {
        kind: kind(m["mutation"].as_str().unwrap_or("")),
        site: m["site"].as_u64().unwrap_or(99) as usize,
        exception: m["exception"].as_u64().unwrap_or(99) as usize,
    }
}

/// Line and column (1-based) where `needle` starts in the line of the fixture holding `line`.
fn place(line: &str, needle: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(fixture_path()).unwrap_or_default();
    for (i, l) in text.lines().enumerate() {
        if l.contains(line) {
            let col = l.find(needle).map_or(0, |c| l[..c].chars().count() + 1);
            return ((i + 1) as u64, col as u64);
        }
    }
    panic!("no line with {line}")
}

const RULE_100: &str =
    "label base definition amount under condition income < $20,000 consequence equals $100";
const RULE_0: &str =
    "label base definition amount under condition income >= $20,000 consequence equals $0";
const RULE_300: &str =
    "exception base definition amount under condition children >= 3 consequence equals $300";

fn run_json(extra: &[&str]) -> Json {
    let mut args = vec![
        "mutate", FIXTURE, "--scope", "Benefit", "--seed", "1", "--count", "100", "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let run = lexprobe(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or(Json::Null)
}

#[test]
fn the_candidates_are_the_thirteen_derived_by_hand() {
    let p = program();
    let Some(id) = p.scope_by_name("Benefit") else {
        panic!("no scope Benefit")
    };
    use MutationKind::*;
    let m = |kind, site, exception| Mutation {
        kind,
        site,
        exception,
    };
    let expected = vec![
        m(RemoveException, 0, 0),
        m(DuplicateException, 0, 0),
        m(RemoveException, 1, 0),
        m(DuplicateException, 1, 0),
        m(NegateJustification, 1, 0),
        m(NegateJustification, 2, 0),
        m(RemoveException, 3, 0),
        m(DuplicateException, 3, 0),
        m(RemoveException, 3, 1),
        m(DuplicateException, 3, 1),
        m(NegateJustification, 3, 0),
        m(NegateJustification, 4, 0),
        m(NegateJustification, 5, 0),
    ];
    assert_eq!(candidate_mutations(&p, id), expected);
}

#[test]
fn each_mutant_has_its_position_rule_texts_and_verdict() {
    let doc = run_json(&["--strategy", "depth-first"]);
    let Some(mutants) = doc["mutants"].as_array() else {
        panic!("no mutants: {doc}")
    };
    assert_eq!(mutants.len(), 13);
    let (l100, c100) = place("consequence equals $100", "$100");
    let (l0, c0) = place("consequence equals $0", "$0");
    let (l300, c300) = place("consequence equals $300", "$300");
    let (_, cond100) = place("consequence equals $100", "income <");
    let (_, cond0) = place("consequence equals $0", "income >=");
    let (_, cond300) = place("consequence equals $300", "children >=");
    for m in mutants {
        let mu = mutation_of(m);
        use MutationKind::*;
        // (line, column, before, after, detected, heading) derived from the fixture.
        let twice = |r: &str| format!("{r}, written twice (both copies apply wherever it applies)");
        let (line, col, before, after, detected, article): (u64, u64, String, String, bool, &str) =
            match (mu.kind, mu.site, mu.exception) {
                (RemoveException, 0 | 1, 0) => (
                    l300,
                    c300,
                    RULE_300.into(),
                    "(removed)".into(),
                    false,
                    "Article 3",
                ),
                (DuplicateException, 0 | 1, 0) => (
                    l300,
                    c300,
                    RULE_300.into(),
                    twice(RULE_300),
                    true,
                    "Article 3",
                ),
                (NegateJustification, 1, _) | (NegateJustification, 3, _) => {
                    let (l, c, r, a) = if mu.site == 1 {
                        (l300, c300, RULE_300, "Article 3")
                    } else {
                        (l100, c100, RULE_100, "Article 2")
                    };
                    (
                        l,
                        c,
                        format!("the group of rules beginning with: {r} (the group's own condition: false, under which nothing follows)"),
                        "the group's own condition: true (under which nothing follows either)".into(),
                        false,
                        a,
                    )
                }
                (NegateJustification, 2, _) => (
                    l300,
                    cond300,
                    RULE_300.into(),
                    RULE_300.replace("children >= 3", "not (children >= 3)"),
                    false,
                    "Article 3",
                ),
                (NegateJustification, 4, _) => (
                    l100,
                    cond100,
                    RULE_100.into(),
                    RULE_100.replace("income < $20,000", "not (income < $20,000)"),
                    true,
                    "Article 2",
                ),
                (NegateJustification, 5, _) => (
                    l0,
                    cond0,
                    RULE_0.into(),
                    RULE_0.replace("income >= $20,000", "not (income >= $20,000)"),
                    true,
                    "Article 2",
                ),
                (RemoveException, 3, e) => {
                    let (l, c, r) = if e == 0 {
                        (l100, c100, RULE_100)
                    } else {
                        (l0, c0, RULE_0)
                    };
                    (l, c, r.into(), "(removed)".into(), true, "Article 2")
                }
                (DuplicateException, 3, e) => {
                    let (l, c, r) = if e == 0 {
                        (l100, c100, RULE_100)
                    } else {
                        (l0, c0, RULE_0)
                    };
                    (l, c, r.into(), twice(r), true, "Article 2")
                }
                other => panic!("unexpected mutant {other:?}"),
            };
        let what = format!("{mu:?}");
        assert_eq!(m["position"]["file"], FIXTURE, "{what}");
        assert_eq!(m["position"]["line"], line, "{what}");
        assert_eq!(m["position"]["column"], col, "{what}");
        assert_eq!(m["before"], before.as_str(), "{what}");
        assert_eq!(m["after"], after.as_str(), "{what}");
        assert_eq!(m["detected"], detected, "{what}");
        assert_eq!(
            m["headings"],
            serde_json::json!(["Benefit law", article]),
            "{what}"
        );
        if detected {
            assert!(m["survivor_reason"].is_null(), "{what}");
        } else {
            // Every path explored without a new failure: the honest reason is a suspected
            // equivalent mutant (these never fail).
            assert_eq!(
                m["survivor_reason"]["reason"], "equivalent_suspected",
                "{what}"
            );
            assert!(m["killing_test"].is_null(), "{what}");
        }
    }
    assert_eq!(doc["detected"], 8);
    assert_eq!(
        doc["score_by_heading"],
        serde_json::json!([
            {"heading": "Benefit law > Article 2", "detected": 6, "total": 7},
            {"heading": "Benefit law > Article 3", "detected": 2, "total": 6},
        ])
    );
}

/// Runs `program` on `inputs` (JSON keyed by input name): the error kind, or `ok`.
fn outcome(program: &catala_ir::dcalc::Program, inputs: &Json) -> String {
    let Some(id) = program.scope_by_name("Benefit") else {
        panic!("no scope Benefit")
    };
    let values: Vec<Option<Value>> = match catala_eval::inputs_from_json(program, id, inputs) {
        Ok(v) => v,
        Err(e) => panic!("inputs {inputs}: {e}"),
    };
    match catala_eval::run_scope(program, id, values) {
        Ok(_) => "ok".into(),
        Err(e) => e.kind.as_str().into(),
    }
}

#[test]
fn the_killing_inputs_replay_the_stated_outcome() {
    let p = program();
    let Some(id) = p.scope_by_name("Benefit") else {
        panic!("no scope Benefit")
    };
    for strategy in ["depth-first", "both"] {
        let doc = run_json(&["--strategy", strategy]);
        let mutants = doc["mutants"].as_array().cloned().unwrap_or_default();
        let killed: Vec<&Json> = mutants.iter().filter(|m| m["detected"] == true).collect();
        assert_eq!(killed.len(), 8, "{strategy}");
        for m in killed {
            let mu = mutation_of(m);
            let kill = &m["killing_test"];
            let inputs = &kill["inputs"];
            let mutant = apply(&p, id, mu);
            assert_eq!(outcome(&mutant, inputs), kill["error"]["kind"], "{mu:?}");
            // The original computes its outputs on them.
            assert_eq!(outcome(&p, inputs), "ok", "{mu:?}");
            assert!(kill["original_error"].is_null());
            let income: f64 = inputs["income"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(-1.0);
            let children: i64 = inputs["children"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(-1);
            // Each failure is where the hand derivation puts it.
            let expected = match (mu.kind, mu.site, mu.exception) {
                (MutationKind::DuplicateException, 0 | 1, _) => children >= 3,
                (MutationKind::RemoveException, 3, 0)
                | (MutationKind::DuplicateException, 3, 0) => children < 3 && income < 20_000.0,
                (MutationKind::RemoveException, 3, 1)
                | (MutationKind::DuplicateException, 3, 1) => children < 3 && income >= 20_000.0,
                (MutationKind::NegateJustification, 4 | 5, _) => children < 3,
                _ => false,
            };
            assert!(expected, "{mu:?} killed by {inputs}");
        }
    }
}

#[test]
fn with_witnesses_explorations_start_from_a_run_through_the_mutated_default() {
    let dir = std::env::temp_dir().join(format!("lexprobe-mutate-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let witnesses = dir.join("original.jsonl");
    let run = lexprobe(&["concolic", FIXTURE, "--scope", "Benefit", "--jsonl"]);
    assert_eq!(run.code, 0);
    let _ = std::fs::write(&witnesses, &run.stdout);
    let inputs: Vec<Json> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter_map(|j| j.get("inputs").cloned())
        .collect();
    let w = witnesses.to_string_lossy().into_owned();
    let doc = run_json(&["--witnesses", &w]);
    let _ = std::fs::remove_dir_all(&dir);
    // The eight failing mutants are kept, the five that never fail set aside.
    assert_eq!(doc["detected"], 8);
    assert_eq!(doc["unconfirmed"], 5);
    assert_eq!(doc["set_aside"].as_array().map(Vec::len), Some(5));
    for s in doc["set_aside"].as_array().into_iter().flatten() {
        assert_eq!(s["reason"], "no_witness");
    }
    let children = |k: usize| -> i64 {
        inputs[k]["children"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(-1)
    };
    let first_below_three = (0..inputs.len()).find(|&k| children(k) < 3);
    for m in doc["mutants"].as_array().into_iter().flatten() {
        let mu = mutation_of(m);
        let start = m["start_witness"].as_u64().map(|k| k as usize);
        // Every run evaluates sites 0 and 1 (the exceptions); the group of Article 2 and its
        // rules (sites 3 to 5) only when Article 3 does not apply, i.e. below three children.
        let expected = if mu.site <= 1 {
            Some(0)
        } else {
            first_below_three
        };
        assert_eq!(start, expected, "{mu:?}");
        assert_eq!(m["detected"], true, "{mu:?}");
    }
}

#[test]
fn text_report_of_every_mutant() {
    let run = lexprobe(&[
        "mutate",
        FIXTURE,
        "--scope",
        "Benefit",
        "--seed",
        "1",
        "--count",
        "100",
        "--strategy",
        "depth-first",
    ]);
    expect![[r#"
        exit code 0
        --- stdout
        mutant 1: DuplicateException  tests/fixtures/mutate/benefit.catala_en:17:84  (Benefit law > Article 2)
            before: label base definition amount under condition income < $20,000 consequence equals $100
            after:  label base definition amount under condition income < $20,000 consequence equals $100, written twice (both copies apply wherever it applies)
            detected after 1 test (<time> s): income = $0.00, children = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/mutate/benefit.catala_en:17:84, tests/fixtures/mutate/benefit.catala_en:17:84); the original gives no error
        mutant 2: DuplicateException  tests/fixtures/mutate/benefit.catala_en:25:85  (Benefit law > Article 3)
            before: exception base definition amount under condition children >= 3 consequence equals $300
            after:  exception base definition amount under condition children >= 3 consequence equals $300, written twice (both copies apply wherever it applies)
            detected after 3 tests (<time> s): income = $0.00, children = 3
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/mutate/benefit.catala_en:25:85, tests/fixtures/mutate/benefit.catala_en:25:85); the original gives no error
        mutant 3: RemoveException  tests/fixtures/mutate/benefit.catala_en:17:84  (Benefit law > Article 2)
            before: label base definition amount under condition income < $20,000 consequence equals $100
            after:  (removed)
            detected after 1 test (<time> s): income = $0.00, children = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/mutate/benefit.catala_en:10:10); the original gives no error
        mutant 4: NegateJustification  tests/fixtures/mutate/benefit.catala_en:25:52  (Benefit law > Article 3)
            before: exception base definition amount under condition children >= 3 consequence equals $300
            after:  exception base definition amount under condition not (children >= 3) consequence equals $300
            not detected (3 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 5: DuplicateException  tests/fixtures/mutate/benefit.catala_en:25:85  (Benefit law > Article 3)
            before: exception base definition amount under condition children >= 3 consequence equals $300
            after:  exception base definition amount under condition children >= 3 consequence equals $300, written twice (both copies apply wherever it applies)
            detected after 2 tests (<time> s): income = $0.00, children = 3
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/mutate/benefit.catala_en:25:85, tests/fixtures/mutate/benefit.catala_en:25:85); the original gives no error
        mutant 6: NegateJustification  tests/fixtures/mutate/benefit.catala_en:17:48  (Benefit law > Article 2)
            before: label base definition amount under condition income < $20,000 consequence equals $100
            after:  label base definition amount under condition not (income < $20,000) consequence equals $100
            detected after 1 test (<time> s): income = $0.00, children = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/mutate/benefit.catala_en:10:10); the original gives no error
        mutant 7: NegateJustification  tests/fixtures/mutate/benefit.catala_en:25:85  (Benefit law > Article 3)
            before: the group of rules beginning with: exception base definition amount under condition children >= 3 consequence equals $300 (the group's own condition: false, under which nothing follows)
            after:  the group's own condition: true (under which nothing follows either)
            not detected (3 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 8: RemoveException  tests/fixtures/mutate/benefit.catala_en:25:85  (Benefit law > Article 3)
            before: exception base definition amount under condition children >= 3 consequence equals $300
            after:  (removed)
            not detected (2 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 9: NegateJustification  tests/fixtures/mutate/benefit.catala_en:17:84  (Benefit law > Article 2)
            before: the group of rules beginning with: label base definition amount under condition income < $20,000 consequence equals $100 (the group's own condition: false, under which nothing follows)
            after:  the group's own condition: true (under which nothing follows either)
            not detected (3 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 10: NegateJustification  tests/fixtures/mutate/benefit.catala_en:18:48  (Benefit law > Article 2)
            before: label base definition amount under condition income >= $20,000 consequence equals $0
            after:  label base definition amount under condition not (income >= $20,000) consequence equals $0
            detected after 1 test (<time> s): income = $0.00, children = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/mutate/benefit.catala_en:17:84, tests/fixtures/mutate/benefit.catala_en:18:85); the original gives no error
        mutant 11: RemoveException  tests/fixtures/mutate/benefit.catala_en:18:85  (Benefit law > Article 2)
            before: label base definition amount under condition income >= $20,000 consequence equals $0
            after:  (removed)
            detected after 1 test (<time> s): income = $20,000.00, children = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/mutate/benefit.catala_en:10:10); the original gives no error
        mutant 12: RemoveException  tests/fixtures/mutate/benefit.catala_en:25:85  (Benefit law > Article 3)
            before: exception base definition amount under condition children >= 3 consequence equals $300
            after:  (removed)
            not detected (2 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 13: DuplicateException  tests/fixtures/mutate/benefit.catala_en:18:85  (Benefit law > Article 2)
            before: label base definition amount under condition income >= $20,000 consequence equals $0
            after:  label base definition amount under condition income >= $20,000 consequence equals $0, written twice (both copies apply wherever it applies)
            detected after 2 tests (<time> s): income = $20,000.00, children = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/mutate/benefit.catala_en:18:85, tests/fixtures/mutate/benefit.catala_en:18:85); the original gives no error
        score by law heading:
          Benefit law > Article 2: 6/7 detected
          Benefit law > Article 3: 2/6 detected
        8/13 mutants detected, mean time to detection <time> s
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn json_report_of_two_mutants() {
    let run = lexprobe(&[
        "mutate",
        FIXTURE,
        "--scope",
        "Benefit",
        "--seed",
        "1",
        "--count",
        "2",
        "--strategy",
        "depth-first",
        "--format",
        "json",
    ]);
    expect![[r#"
        exit code 0
        --- stdout
        {
          "mutants": [
            {
              "mutation": "DuplicateException",
              "site": 3,
              "exception": 0,
              "detected": true,
              "time_to_detection_s": "<time>",
              "tests": 1,
              "time_s": "<time>",
              "position": {
                "file": "tests/fixtures/mutate/benefit.catala_en",
                "line": 17,
                "column": 84
              },
              "headings": [
                "Benefit law",
                "Article 2"
              ],
              "before": "label base definition amount under condition income < $20,000 consequence equals $100",
              "after": "label base definition amount under condition income < $20,000 consequence equals $100, written twice (both copies apply wherever it applies)",
              "killing_test": {
                "test": 1,
                "inputs": {
                  "income": "0.00",
                  "children": "0"
                },
                "error": {
                  "kind": "conflict",
                  "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                  "positions": [
                    {
                      "file": "tests/fixtures/mutate/benefit.catala_en",
                      "line": 17,
                      "col": 84,
                      "end_line": 17,
                      "end_col": 88
                    },
                    {
                      "file": "tests/fixtures/mutate/benefit.catala_en",
                      "line": 17,
                      "col": 84,
                      "end_line": 17,
                      "end_col": 88
                    }
                  ]
                },
                "original_error": null
              },
              "survivor_reason": null,
              "start_witness": null,
              "start_witnesses": 0,
              "start_search_s": "<time>"
            },
            {
              "mutation": "DuplicateException",
              "site": 0,
              "exception": 0,
              "detected": true,
              "time_to_detection_s": "<time>",
              "tests": 3,
              "time_s": "<time>",
              "position": {
                "file": "tests/fixtures/mutate/benefit.catala_en",
                "line": 25,
                "column": 85
              },
              "headings": [
                "Benefit law",
                "Article 3"
              ],
              "before": "exception base definition amount under condition children >= 3 consequence equals $300",
              "after": "exception base definition amount under condition children >= 3 consequence equals $300, written twice (both copies apply wherever it applies)",
              "killing_test": {
                "test": 3,
                "inputs": {
                  "income": "0.00",
                  "children": "3"
                },
                "error": {
                  "kind": "conflict",
                  "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                  "positions": [
                    {
                      "file": "tests/fixtures/mutate/benefit.catala_en",
                      "line": 25,
                      "col": 85,
                      "end_line": 25,
                      "end_col": 89
                    },
                    {
                      "file": "tests/fixtures/mutate/benefit.catala_en",
                      "line": 25,
                      "col": 85,
                      "end_line": 25,
                      "end_col": 89
                    }
                  ]
                },
                "original_error": null
              },
              "survivor_reason": null,
              "start_witness": null,
              "start_witnesses": 0,
              "start_search_s": "<time>"
            }
          ],
          "detected": 2,
          "mean_time_to_detection_s": "<time>",
          "drawn": 2,
          "unconfirmed": 0,
          "set_aside": [],
          "score_by_heading": [
            {
              "heading": "Benefit law > Article 2",
              "detected": 1,
              "total": 1
            },
            {
              "heading": "Benefit law > Article 3",
              "detected": 1,
              "total": 1
            }
          ]
        }
        --- stderr
    "#]].assert_eq(&run.json());
}
