//! Snapshots of what the engines' subcommands print, on small fixtures of `tests/fixtures/`
//! with fixed seeds and counts: `lexprobe concolic` (the five paths of Fig. 5, the two of the
//! income tax), `lexprobe mutate` (every mutant of Fig. 5), `lexprobe falsify` (a falsified
//! method and one whose bounded search ends without a violation) and `lexprobe metamorphic`
//! (the relations of a small benefit, one of which fails, a relations file with a syntax
//! error, and a relation naming a field the domain lacks). Each snapshot was read against the
//! programs; times are masked. `UPDATE_EXPECT=1 cargo test -p lexprobe --test
//! snapshots_engines` rewrites them; read the difference before keeping it.

mod snapshot_support;

use expect_test::expect;
use snapshot_support::lexprobe;

const INCOME_TAX: &str = "tests/fixtures/examples/income_tax.catala_en";
const FIG5: &str = "tests/fixtures/concolic/fig5_default.catala_en";
const HATCH_SET: &str = "tests/fixtures/hatch/ri/UniqueSet_KVStore";
const BENEFIT: &str = "catala:tests/fixtures/prove/benefit.catala_en#Benefit";
const BENEFIT_DOMAIN: &str = "tests/fixtures/prove/benefit.toml";
const BENEFIT_RELATIONS: &str = "tests/fixtures/prove/benefit.mr";

#[test]
fn concolic_prints_the_five_paths_of_fig5_and_its_two_problems() {
    let run = lexprobe(&["concolic", FIG5, "--scope", "Fig5"]);
    expect![[r#"
        exit code 1
        --- stdout
        Test 1 (ok):
          input │ b = false
          input │ x = 0
          output │ y = 2
        Test 2 (ok):
          input │ b = false
          input │ x = 1
          output │ y = 3
        Test 3 (no_value):
          input │ b = false
          input │ x = -1
        ┌─[ERROR]─
        │
        │  During evaluation: no applicable rule to define this variable in this
        │  situation.
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:9.10-11:
        │   │
        │ 9 │   output y content integer
        │   │          ‾
        └─ The default term of Fig. 5
        Test 4 (conflict):
          input │ b = true
          input │ x = 0
        ┌─[ERROR]─
        │
        │  During evaluation: conflict between multiple valid consequences for
        │  assigning the same variable.
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:23.63-64:
        │    │
        │ 23 │   exception definition y under condition b consequence equals 1
        │    │                                                               ‾
        ├─ The default term of Fig. 5
        │  └─ First exception
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:30.67-68:
        │    │
        │ 30 │   exception definition y under condition x = 0 consequence equals 2
        │    │                                                                   ‾
        └─ The default term of Fig. 5
           └─ Second exception
        Test 5 (ok):
          input │ b = true
          input │ x = 1
          output │ y = 1
        Findings: 2 distinct problems.
        Problem 1 (no_value): in 1 test, first in test 3:
          Condition (1 path): not b and x < 0
          Example (test 3): b = false; x = -1
        ┌─[ERROR]─
        │
        │  During evaluation: no applicable rule to define this variable in this
        │  situation.
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:9.10-11:
        │   │
        │ 9 │   output y content integer
        │   │          ‾
        └─ The default term of Fig. 5
        Problem 2 (conflict): in 1 test, first in test 4:
          Condition (1 path): b and x = 0
          Example (test 4): b = true; x = 0
        ┌─[ERROR]─
        │
        │  During evaluation: conflict between multiple valid consequences for
        │  assigning the same variable.
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:23.63-64:
        │    │
        │ 23 │   exception definition y under condition b consequence equals 1
        │    │                                                               ‾
        ├─ The default term of Fig. 5
        │  └─ First exception
        │
        ├─➤ tests/fixtures/concolic/fig5_default.catala_en:30.67-68:
        │    │
        │ 30 │   exception definition y under condition x = 0 consequence equals 2
        │    │                                                                   ‾
        └─ The default term of Fig. 5
           └─ Second exception
        Exploration complete within the bounds: lists of at most 3 elements, dates from 1900-01-01 to 2199-12-31, durations within ±300 years, ±3600 months, ±109572 days
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn concolic_json_gives_the_tests_stats_and_findings_of_fig5() {
    let run = lexprobe(&["concolic", FIG5, "--scope", "Fig5", "--format", "json"]);
    expect![[r#"
        exit code 1
        --- stdout
        {
          "tests": [
            {
              "path": "01",
              "inputs": {
                "b": false,
                "x": "0"
              },
              "outcome": "ok",
              "outputs": {
                "y": "2"
              }
            },
            {
              "path": "001",
              "inputs": {
                "b": false,
                "x": "1"
              },
              "outcome": "ok",
              "outputs": {
                "y": "3"
              }
            },
            {
              "path": "000",
              "inputs": {
                "b": false,
                "x": "-1"
              },
              "outcome": "no_value",
              "error": {
                "kind": "no_value",
                "message": "During evaluation: no applicable rule to define this variable in this situation.",
                "positions": [
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 9,
                    "col": 10,
                    "end_line": 9,
                    "end_col": 11
                  }
                ]
              }
            },
            {
              "path": "11",
              "inputs": {
                "b": true,
                "x": "0"
              },
              "outcome": "conflict",
              "error": {
                "kind": "conflict",
                "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                "positions": [
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 23,
                    "col": 63,
                    "end_line": 23,
                    "end_col": 64
                  },
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 30,
                    "col": 67,
                    "end_line": 30,
                    "end_col": 68
                  }
                ]
              }
            },
            {
              "path": "10",
              "inputs": {
                "b": true,
                "x": "1"
              },
              "outcome": "ok",
              "outputs": {
                "y": "1"
              }
            }
          ],
          "stats": {
            "tests": 5,
            "solver_calls": 4,
            "soft_solver_calls": 0,
            "queries_without_z3": 4,
            "guessed_queries": 0,
            "fresh_queries": 0,
            "time_s": "<time>",
            "solver_time_s": "<time>",
            "complete": true,
            "bounds": {
              "max_list_length": 3,
              "dates": [
                "1900-01-01",
                "2199-12-31"
              ],
              "durations": {
                "years": [
                  -300,
                  300
                ],
                "months": [
                  -3600,
                  3600
                ],
                "days": [
                  -109572,
                  109572
                ]
              }
            },
            "by_outcome": {
              "conflict": 1,
              "no_value": 1,
              "ok": 3
            },
            "by_roundness": {
              "Hundreds": 5
            },
            "divergences": 0,
            "early_lemmas": 0,
            "dropped_lemmas": 0,
            "unknown_queries": 0
          },
          "incomplete": [],
          "bounds": {
            "max_list_length": 3,
            "dates": [
              "1900-01-01",
              "2199-12-31"
            ],
            "durations": {
              "years": [
                -300,
                300
              ],
              "months": [
                -3600,
                3600
              ],
              "days": [
                -109572,
                109572
              ]
            }
          },
          "findings": [
            {
              "kind": "no_value",
              "tests": 1,
              "first_test": 3,
              "example": {
                "test": 3,
                "inputs": {
                  "b": false,
                  "x": "-1"
                }
              },
              "condition": {
                "paths": 1,
                "cases": [
                  {
                    "text": "not b and x < 0",
                    "constraints": [
                      {
                        "input": "b",
                        "equals": false,
                        "text": "not b"
                      },
                      {
                        "input": "x",
                        "unit": "integer",
                        "ranges": [
                          {
                            "min": null,
                            "max": {
                              "value": "-1",
                              "inclusive": true
                            }
                          }
                        ],
                        "text": "x < 0"
                      }
                    ]
                  }
                ]
              },
              "error": {
                "kind": "no_value",
                "message": "During evaluation: no applicable rule to define this variable in this situation.",
                "positions": [
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 9,
                    "col": 10,
                    "end_line": 9,
                    "end_col": 11
                  }
                ]
              }
            },
            {
              "kind": "conflict",
              "tests": 1,
              "first_test": 4,
              "example": {
                "test": 4,
                "inputs": {
                  "b": true,
                  "x": "0"
                }
              },
              "condition": {
                "paths": 1,
                "cases": [
                  {
                    "text": "b and x = 0",
                    "constraints": [
                      {
                        "input": "b",
                        "equals": true,
                        "text": "b"
                      },
                      {
                        "input": "x",
                        "unit": "integer",
                        "ranges": [
                          {
                            "min": {
                              "value": "0",
                              "inclusive": true
                            },
                            "max": {
                              "value": "0",
                              "inclusive": true
                            }
                          }
                        ],
                        "text": "x = 0"
                      }
                    ]
                  }
                ]
              },
              "error": {
                "kind": "conflict",
                "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                "positions": [
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 23,
                    "col": 63,
                    "end_line": 23,
                    "end_col": 64
                  },
                  {
                    "file": "tests/fixtures/concolic/fig5_default.catala_en",
                    "line": 30,
                    "col": 67,
                    "end_line": 30,
                    "end_col": 68
                  }
                ]
              }
            }
          ],
          "coverage": {
            "plan": null,
            "shard": null,
            "plan_subtrees": 1,
            "subtrees": [
              ""
            ],
            "complete": [
              ""
            ]
          }
        }
        --- stderr
    "#]].assert_eq(&run.json());
}

#[test]
fn concolic_stats_of_the_income_tax_two_paths() {
    let run = lexprobe(&["concolic", INCOME_TAX, "--scope", "IncomeTax", "--stats"]);
    expect![[r#"
        exit code 0
        --- stdout
        Test 1 (ok):
          input │ household =
          input │   Household {
          input │     -- income: $0.00
          input │     -- children: 0
          input │     -- birth_date: |1970-01-01|
          input │   }
          output │ tax = $0.00
          output │ large_family = false
        Test 2 (ok):
          input │ household =
          input │   Household {
          input │     -- income: $0.00
          input │     -- children: 3
          input │     -- birth_date: |1970-01-01|
          input │   }
          output │ tax = $0.00
          output │ large_family = true
        Findings: no conflict, missing case or runtime error on any path.
        Exploration complete within the bounds: lists of at most 3 elements, dates from 1900-01-01 to 2199-12-31, durations within ±300 years, ±3600 months, ±109572 days
        Stats: 2 tests, 1 solver calls (+0 for round amounts), <time> s total, <time> s in the solver, complete
          queries answered without Z3: 1 (0 by a model guessed near the last inputs)
          ok: 2
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn mutate_reports_every_mutant_of_fig5() {
    // 13 mutants: every candidate of the six default terms of y, depth-first (one thread).
    let run = lexprobe(&[
        "mutate",
        FIG5,
        "--scope",
        "Fig5",
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
        mutant 1: NegateJustification  tests/fixtures/concolic/fig5_default.catala_en:23:42  (The default term of Fig. 5 > First exception)
            before: exception definition y under condition b consequence equals 1
            after:  exception definition y under condition not (b) consequence equals 1
            detected after 1 test (<time> s): b = false, x = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/concolic/fig5_default.catala_en:23:63, tests/fixtures/concolic/fig5_default.catala_en:30:67); the original gives no error
        mutant 2: DuplicateException  tests/fixtures/concolic/fig5_default.catala_en:23:63  (The default term of Fig. 5 > First exception)
            before: exception definition y under condition b consequence equals 1 (and 1 more rule: line 30)
            after:  exception definition y under condition b consequence equals 1 (and 1 more rule: line 30), written twice (both copies apply wherever it applies)
            detected after 1 test (<time> s): b = false, x = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/concolic/fig5_default.catala_en:30:67, tests/fixtures/concolic/fig5_default.catala_en:30:67); the original gives no error
        mutant 3: NegateJustification  tests/fixtures/concolic/fig5_default.catala_en:23:63  (The default term of Fig. 5 > First exception)
            before: the group of rules beginning with: exception definition y under condition b consequence equals 1 (the group's own condition: false, under which nothing follows)
            after:  the group's own condition: true (under which nothing follows either)
            not detected (5 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 4: DuplicateException  tests/fixtures/concolic/fig5_default.catala_en:30:67  (The default term of Fig. 5 > Second exception)
            before: exception definition y under condition x = 0 consequence equals 2
            after:  exception definition y under condition x = 0 consequence equals 2, written twice (both copies apply wherever it applies)
            detected after 1 test (<time> s): b = false, x = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/concolic/fig5_default.catala_en:30:67, tests/fixtures/concolic/fig5_default.catala_en:30:67); the original gives no error
        mutant 5: DuplicateException  tests/fixtures/concolic/fig5_default.catala_en:23:63  (The default term of Fig. 5 > First exception)
            before: exception definition y under condition b consequence equals 1
            after:  exception definition y under condition b consequence equals 1, written twice (both copies apply wherever it applies)
            detected after 3 tests (<time> s): b = true, x = 0
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/concolic/fig5_default.catala_en:23:63, tests/fixtures/concolic/fig5_default.catala_en:23:63, tests/fixtures/concolic/fig5_default.catala_en:30:67); the original fails otherwise: conflict (tests/fixtures/concolic/fig5_default.catala_en:23:63, tests/fixtures/concolic/fig5_default.catala_en:30:67)
        mutant 6: NegateJustification  tests/fixtures/concolic/fig5_default.catala_en:16:57  (The default term of Fig. 5 > Base case)
            before: the group of rules beginning with: definition y under condition x > 0 consequence equals 3 (the group's own condition: false, under which nothing follows)
            after:  the group's own condition: true (under which nothing follows either)
            not detected (5 tests, <time> s): every path explored, none fails in a new way: equivalent mutant suspected
        mutant 7: RemoveException  tests/fixtures/concolic/fig5_default.catala_en:30:67  (The default term of Fig. 5 > Second exception)
            before: exception definition y under condition x = 0 consequence equals 2
            after:  (removed)
            detected after 1 test (<time> s): b = false, x = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        mutant 8: RemoveException  tests/fixtures/concolic/fig5_default.catala_en:23:63  (The default term of Fig. 5 > First exception)
            before: exception definition y under condition b consequence equals 1 (and 1 more rule: line 30)
            after:  (removed)
            detected after 1 test (<time> s): b = false, x = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        mutant 9: DuplicateException  tests/fixtures/concolic/fig5_default.catala_en:16:57  (The default term of Fig. 5 > Base case)
            before: definition y under condition x > 0 consequence equals 3
            after:  definition y under condition x > 0 consequence equals 3, written twice (both copies apply wherever it applies)
            detected after 2 tests (<time> s): b = false, x = 1
              → conflict between multiple valid consequences for assigning the same variable (tests/fixtures/concolic/fig5_default.catala_en:16:57, tests/fixtures/concolic/fig5_default.catala_en:16:57); the original gives no error
        mutant 10: NegateJustification  tests/fixtures/concolic/fig5_default.catala_en:16:32  (The default term of Fig. 5 > Base case)
            before: definition y under condition x > 0 consequence equals 3
            after:  definition y under condition not (x > 0) consequence equals 3
            detected after 2 tests (<time> s): b = false, x = 1
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        mutant 11: NegateJustification  tests/fixtures/concolic/fig5_default.catala_en:30:42  (The default term of Fig. 5 > Second exception)
            before: exception definition y under condition x = 0 consequence equals 2
            after:  exception definition y under condition not (x = 0) consequence equals 2
            detected after 1 test (<time> s): b = false, x = 0
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        mutant 12: RemoveException  tests/fixtures/concolic/fig5_default.catala_en:23:63  (The default term of Fig. 5 > First exception)
            before: exception definition y under condition b consequence equals 1
            after:  (removed)
            detected after 3 tests (<time> s): b = true, x = -1
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        mutant 13: RemoveException  tests/fixtures/concolic/fig5_default.catala_en:16:57  (The default term of Fig. 5 > Base case)
            before: definition y under condition x > 0 consequence equals 3
            after:  (removed)
            detected after 2 tests (<time> s): b = false, x = 1
              → no applicable rule to define this variable in this situation (tests/fixtures/concolic/fig5_default.catala_en:9:10); the original gives no error
        score by law heading:
          The default term of Fig. 5 > Base case: 3/4 detected
          The default term of Fig. 5 > First exception: 5/6 detected
          The default term of Fig. 5 > Second exception: 3/3 detected
        11/13 mutants detected, mean time to detection <time> s
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn mutate_json_of_three_mutants() {
    let run = lexprobe(&[
        "mutate",
        FIG5,
        "--scope",
        "Fig5",
        "--seed",
        "1",
        "--count",
        "3",
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
              "mutation": "NegateJustification",
              "site": 2,
              "exception": 0,
              "detected": true,
              "time_to_detection_s": "<time>",
              "tests": 1,
              "time_s": "<time>",
              "position": {
                "file": "tests/fixtures/concolic/fig5_default.catala_en",
                "line": 23,
                "column": 42
              },
              "headings": [
                "The default term of Fig. 5",
                "First exception"
              ],
              "before": "exception definition y under condition b consequence equals 1",
              "after": "exception definition y under condition not (b) consequence equals 1",
              "killing_test": {
                "test": 1,
                "inputs": {
                  "b": false,
                  "x": "0"
                },
                "error": {
                  "kind": "conflict",
                  "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                  "positions": [
                    {
                      "file": "tests/fixtures/concolic/fig5_default.catala_en",
                      "line": 23,
                      "col": 63,
                      "end_line": 23,
                      "end_col": 64
                    },
                    {
                      "file": "tests/fixtures/concolic/fig5_default.catala_en",
                      "line": 30,
                      "col": 67,
                      "end_line": 30,
                      "end_col": 68
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
              "tests": 1,
              "time_s": "<time>",
              "position": {
                "file": "tests/fixtures/concolic/fig5_default.catala_en",
                "line": 23,
                "column": 63
              },
              "headings": [
                "The default term of Fig. 5",
                "First exception"
              ],
              "before": "exception definition y under condition b consequence equals 1 (and 1 more rule: line 30)",
              "after": "exception definition y under condition b consequence equals 1 (and 1 more rule: line 30), written twice (both copies apply wherever it applies)",
              "killing_test": {
                "test": 1,
                "inputs": {
                  "b": false,
                  "x": "0"
                },
                "error": {
                  "kind": "conflict",
                  "message": "During evaluation: conflict between multiple valid consequences for assigning the same variable.",
                  "positions": [
                    {
                      "file": "tests/fixtures/concolic/fig5_default.catala_en",
                      "line": 30,
                      "col": 67,
                      "end_line": 30,
                      "end_col": 68
                    },
                    {
                      "file": "tests/fixtures/concolic/fig5_default.catala_en",
                      "line": 30,
                      "col": 67,
                      "end_line": 30,
                      "end_col": 68
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
              "mutation": "NegateJustification",
              "site": 1,
              "exception": 0,
              "detected": false,
              "time_to_detection_s": null,
              "tests": 5,
              "time_s": "<time>",
              "position": {
                "file": "tests/fixtures/concolic/fig5_default.catala_en",
                "line": 23,
                "column": 63
              },
              "headings": [
                "The default term of Fig. 5",
                "First exception"
              ],
              "before": "the group of rules beginning with: exception definition y under condition b consequence equals 1 (the group's own condition: false, under which nothing follows)",
              "after": "the group's own condition: true (under which nothing follows either)",
              "killing_test": null,
              "survivor_reason": {
                "reason": "equivalent_suspected",
                "explanation": "every path explored, none fails in a new way: equivalent mutant suspected"
              },
              "start_witness": null,
              "start_witnesses": 0,
              "start_search_s": "<time>"
            }
          ],
          "detected": 2,
          "mean_time_to_detection_s": "<time>",
          "drawn": 3,
          "unconfirmed": 0,
          "set_aside": [],
          "score_by_heading": [
            {
              "heading": "The default term of Fig. 5 > First exception",
              "detected": 2,
              "total": 3
            }
          ]
        }
        --- stderr
    "#]]
    .assert_eq(&run.json());
}

// The counts of states and paths are those of the search; the Z3 queries are fewer since the
// feasibility checks of the states an `admit` or `append` changes are deferred to their next
// branch or end (hatch's `deferred_checks`, same states and paths here, 24 → 22 and 108 → 77),
// and fewer again since event questions equal up to the names of their variables are one query
// and feasibility queries leave out the conjuncts their own variables always satisfy (22 → 15
// and 77 → 70, same states, paths and witness).
#[test]
fn falsify_finds_the_element_put_twice() {
    let run = lexprobe(&["falsify", &format!("{HATCH_SET}/add_twice.ml")]);
    expect![[r#"
        exit code 1
        --- stdout
        Falsified (Preemptive)
        Phi    = x_2 == y_3
        Trace  = ⟨put x_0 = vret | (x_0 == x_2) ∧ (x_0 == m_1)⟩; ⟨put x_0 = vret | (x_0 == y_3) ∧ (x_0 == m_1)⟩
        R_cont = ∅
        Model  = m_1 = Elem.t!val!0, x_2 = Elem.t!val!0, y_3 = Elem.t!val!0
        exec time <time>(s), 48 states, 0 paths, 15 solver queries
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn falsify_json_of_a_search_that_exhausts_its_bounds() {
    let run = lexprobe(&[
        "falsify",
        &format!("{HATCH_SET}/add.ml"),
        "--format",
        "json",
    ]);
    expect![[r#"
        exit code 0
        --- stdout
        {
          "falsified": false,
          "timed_out": false,
          "time_s": "<time>",
          "mode": "derivative",
          "kind": null,
          "phi": [],
          "trace": [],
          "r_cont": null,
          "r_curr": null,
          "model": {},
          "states": 678,
          "paths": 27,
          "solver_queries": 70,
          "bounds": {
            "exec_bound": 20,
            "append_bound": 5,
            "exhausted": true,
            "completed": {
              "calls": 20,
              "prestate_length": 5
            },
            "interrupted": null
          }
        }
        --- stderr
    "#]]
    .assert_eq(&run.json());
}

#[test]
fn metamorphic_table_and_the_tree_of_the_failed_relation() {
    let run = lexprobe(&[
        "metamorphic",
        "--system",
        BENEFIT,
        "--domain",
        BENEFIT_DOMAIN,
        "--relations",
        BENEFIT_RELATIONS,
        "--seed",
        "1",
        "--max-tests",
        "200",
        "--jobs",
        "1",
    ]);
    expect![[r#"
        exit code 1
        --- stdout
        relation                    verdict         tests   passed   failed   1st fail      max dev   errors
        more_income_never_raises    passed            200      200        0          -         0.00        0
        more_children_never_lower   passed            200      200        0          -         0.00        0
        never_negative              passed            200      200        0          -         0.00        0
        child_supplement_is_uniform failed            200      108       92      <time>s       100.00        0

        == child_supplement_is_uniform ==
        lexicographic decision tree, 100.0% accuracy on 91 tests, 5 leaves:
        if x.income <= 3050.5:
          if x'.income <= 2989:
            => passed (0 failed, 35 passed)
          else:
            if x.income <= 2967:
              => FAILED (18 failed, 0 passed)
            else:
              => passed (0 failed, 1 passed)
        else:
          if x'.income <= 2931.5:
            => FAILED (24 failed, 0 passed)
          else:
            => passed (0 failed, 13 passed)
        most deviating failure (deviation 100.00):
          x: children=3 income=3411  F = 0
          x': children=3 income=2968  F = 308
          y: children=4 income=3411  F = 0
          y': children=4 income=2968  F = 408
        --- stderr
    "#]].assert_eq(&run.text());
}

#[test]
fn metamorphic_json_of_two_relations() {
    let run = lexprobe(&[
        "metamorphic",
        "--system",
        BENEFIT,
        "--domain",
        BENEFIT_DOMAIN,
        "--relations",
        BENEFIT_RELATIONS,
        "--only",
        "never_negative,child_supplement_is_uniform",
        "--seed",
        "1",
        "--max-tests",
        "50",
        "--jobs",
        "1",
        "--format",
        "json",
    ]);
    expect![[r#"
        exit code 1
        --- stdout
        {
          "system": "catala:tests/fixtures/prove/benefit.catala_en#Benefit",
          "relations": [
            {
              "name": "never_negative",
              "verdict": "passed",
              "tests": 50,
              "passed": 50,
              "failed": 0,
              "first_failure_s": null,
              "max_deviation": 0.0,
              "explanation": "no failure in 50 tests (0 bases accepted after 90 consecutive passes, 49 bases with all their distinct follow-ups passed)",
              "run_errors": 0,
              "generation_failures": 0,
              "accepted_bases": 0,
              "exhausted_bases": 49,
              "runs": 50,
              "inconclusive_reason": null,
              "elapsed_s": "<time>",
              "tests_per_second": "<time>"
            },
            {
              "name": "child_supplement_is_uniform",
              "verdict": "failed",
              "tests": 50,
              "passed": 30,
              "failed": 20,
              "first_failure_s": "<time>",
              "max_deviation": 100.0,
              "explanation": "lexicographic decision tree, 100.0% accuracy on 50 tests, 5 leaves:\nif x.income <= 3334.5:\n  if x'.income <= 2989:\n    => passed (0 failed, 22 passed)\n  else:\n    if x.income <= 1917.5:\n      => FAILED (6 failed, 0 passed)\n    else:\n      => passed (0 failed, 2 passed)\nelse:\n  if x'.income <= 2992:\n    => FAILED (14 failed, 0 passed)\n  else:\n    => passed (0 failed, 6 passed)\n",
              "run_errors": 0,
              "generation_failures": 15,
              "accepted_bases": 0,
              "exhausted_bases": 30,
              "runs": 200,
              "inconclusive_reason": null,
              "elapsed_s": "<time>",
              "tests_per_second": "<time>",
              "tree": {
                "training_tests": 50,
                "lexicographic_accuracy": 1.0,
                "lexicographic_leaves": 5,
                "failure_paths": [
                  [
                    "x.income <= 3334.5",
                    "not (x'.income <= 2989)",
                    "x.income <= 1917.5"
                  ],
                  [
                    "not (x.income <= 3334.5)",
                    "x'.income <= 2992"
                  ]
                ],
                "cart_accuracy": 1.0,
                "cart_leaves": 5
              }
            }
          ]
        }
        --- stderr
    "#]].assert_eq(&run.json());
}

#[test]
fn metamorphic_syntax_error_in_a_relations_file_is_a_box_at_its_position() {
    // Line 4 of the fixture, `=>` where the right operand of `<=` should be: columns 25-26.
    let run = lexprobe(&[
        "metamorphic",
        "--system",
        BENEFIT,
        "--domain",
        BENEFIT_DOMAIN,
        "--relations",
        "tests/fixtures/metamorphic/premise_syntax_error.mr",
    ]);
    expect![[r#"
        exit code 2
        --- stdout
        --- stderr
        ┌─[ERROR]─
        │
        │  expected an expression, found `=>`
        │
        ├─➤ tests/fixtures/metamorphic/premise_syntax_error.mr:4.25-27:
        │   │
        │ 4 │   forall x. x.income <= => F(x) >= 0
        │   │                         ‾‾
        └─
    "#]]
    .assert_eq(&run.text());
}

#[test]
fn metamorphic_field_missing_from_the_domain_is_a_box_on_the_field_name() {
    // Line 5 of the fixture, `kids` in `x ==[kids] y`: columns 21-24 (after the 20
    // characters of `  forall x, y. x ==[`).
    let run = lexprobe(&[
        "metamorphic",
        "--system",
        BENEFIT,
        "--domain",
        BENEFIT_DOMAIN,
        "--relations",
        "tests/fixtures/metamorphic/missing_field.mr",
    ]);
    expect![[r#"
        exit code 2
        --- stdout
        --- stderr
        ┌─[ERROR]─
        │
        │  relation `more_kids_never_lower` uses `kids`, which is not a field of the
        │  domain
        │
        ├─➤ tests/fixtures/metamorphic/missing_field.mr:5.21-25:
        │   │
        │ 5 │   forall x, y. x ==[kids] y and y.children > x.children =>
        │   │                     ‾‾‾‾
        └─
    "#]]
    .assert_eq(&run.text());
}
