//! Snapshots of what `lexprobe run` and `lexprobe test` print, on the fixtures of
//! `tests/fixtures/`: the result box and the JSON outputs of a scope, an error box with its
//! two positions, and the test runner's lines, summary and JSON report. Each snapshot was read
//! against the programs: the amounts are those of the rules, the counts those of the files.
//! `UPDATE_EXPECT=1 cargo test -p lexprobe --test snapshots_catala` rewrites them; read the
//! difference before keeping it.

mod snapshot_support;

use expect_test::expect;
use snapshot_support::lexprobe;

const INCOME_TAX: &str = "tests/fixtures/examples/income_tax.catala_en";
const FIG5: &str = "tests/fixtures/concolic/fig5_default.catala_en";

#[test]
fn run_prints_the_result_box_of_the_example_household() {
    // $43,210.50 at 15% (three children: a large family) is $6,481.575, rounded to the cent.
    let run = lexprobe(&["run", INCOME_TAX, "--scope", "Example"]);
    expect![[r#"
        exit code 0
        --- stdout
        ┌─[RESULT]─ Example ─
        │ tax = $6,481.58
        │ family_is_large = true
        └─
        --- stderr
    "#]]
    .assert_eq(&run.text());
}

#[test]
fn run_json_gives_the_outputs_of_the_inputs_given() {
    // Two children: the base rate of 20% applies, $30,000 × 20% = $6,000.
    let input = r#"{"household": {"income": 30000, "children": 2, "birth_date": "1980-01-01"}}"#;
    let run = lexprobe(&[
        "run",
        INCOME_TAX,
        "--scope",
        "IncomeTax",
        "--input",
        input,
        "--format",
        "json",
    ]);
    expect![[r#"
        exit code 0
        --- stdout
        {
          "tax": "6000.00",
          "large_family": false
        }
        --- stderr
    "#]]
    .assert_eq(&run.json());
}

#[test]
fn run_reports_a_conflict_with_the_two_rules_that_apply() {
    // b and x = 0: both exceptions of Fig. 5 apply.
    let run = lexprobe(&[
        "run",
        FIG5,
        "--scope",
        "Fig5",
        "--input",
        r#"{"b": true, "x": 0}"#,
    ]);
    expect![[r#"
        exit code 123
        --- stdout
        --- stderr
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
    "#]]
    .assert_eq(&run.text());
}

#[test]
fn run_json_reports_a_missing_case_as_an_error_object() {
    // Neither b nor x = 0, and x > 0 fails: no rule defines y.
    let run = lexprobe(&[
        "run",
        FIG5,
        "--scope",
        "Fig5",
        "--input",
        r#"{"b": false, "x": -1}"#,
        "--format",
        "json",
    ]);
    expect![[r#"
        exit code 123
        --- stdout
        {
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
        }
        --- stderr
    "#]].assert_eq(&run.json());
}

#[test]
fn test_prints_a_line_per_case_the_mismatches_and_the_summary() {
    let run = lexprobe(&[
        "test",
        "tests/fixtures/runner/good",
        "tests/fixtures/runner/mismatch",
    ]);
    expect![[r#"
        exit code 123
        --- stdout
        Partage: passed
        tests/fixtures/runner/good/nested/partage.catala_fr:17: catala test-scope Partage: passed
        TwoWinners: passed
        tests/fixtures/runner/good/shares.catala_en:39: catala test-scope TwoWinners: passed
        tests/fixtures/runner/good/shares.catala_en:51: catala test-scope NoWinner --disable-warnings: passed
        tests/fixtures/runner/good/shares.catala_en:66: catala Interpret -s NoWinner --message-format=gnu: passed
        tests/fixtures/runner/good/shares.catala_en:72: catala test-scope Share --input {"prize":10,"winners":4} -F json: passed
        tests/fixtures/runner/good/shares.catala_en:77: catala Typecheck --check-invariants: passed
        tests/fixtures/runner/good/shares.catala_en:89: catala ocaml: skipped (backend `ocaml`)
        tests/fixtures/runner/good/shares.catala_en:94: catala interpret -s TwoWinners --trace: skipped (tracing or debugging flag --trace)
        Failing: failed
        tests/fixtures/runner/mismatch/wrong.catala_en:25: catala test-scope Count: failed (results differ: expected `│ total = 5`, got `│ total = 4`)
        tests/fixtures/runner/mismatch/wrong.catala_en:34: catala test-scope Count: failed (expected exit code 123, got exit code 0)
        tests/fixtures/runner/mismatch/wrong.catala_en:44: catala test-scope Failing: failed (assertion error at tests/fixtures/runner/mismatch/wrong.catala_en:19.3-22, expected at tests/fixtures/runner/mismatch/wrong.catala_en:18.3-22)
        8 passed, 4 failed, 2 skipped
        --- stderr
        ┌─[ERROR]─
        │
        │  Assertion failed: 1 ≠ 2
        │
        ├─➤ tests/fixtures/runner/mismatch/wrong.catala_en:19.3-22:
        │    │
        │ 19 │   assertion total = 2
        │    │   ‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾
        └─ Outputs that do not match
        ── tests/fixtures/runner/mismatch/wrong.catala_en:25: catala test-scope Count
        ── expected:
        ┌─[RESULT]─ Count ─
        │ total = 5
        └─
        ── got:
        ┌─[RESULT]─ Count ─
        │ total = 4
        └─

        ── tests/fixtures/runner/mismatch/wrong.catala_en:34: catala test-scope Count
        ── expected:
        ┌─[RESULT]─ Count ─
        │ total = 4
        └─
        #return code 123#
        ── got:
        ┌─[RESULT]─ Count ─
        │ total = 4
        └─

        ── tests/fixtures/runner/mismatch/wrong.catala_en:44: catala test-scope Failing
        ── expected:
        ┌─[ERROR]─
        │
        │  Assertion failed: 1 ≠ 2
        │
        ├─➤ tests/fixtures/runner/mismatch/wrong.catala_en:18.3-22:
        └─
        #return code 123#
        ── got:
        ┌─[ERROR]─
        │
        │  Assertion failed: 1 ≠ 2
        │
        ├─➤ tests/fixtures/runner/mismatch/wrong.catala_en:19.3-22:
        │    │
        │ 19 │   assertion total = 2
        │    │   ‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾‾
        └─ Outputs that do not match
        #return code 123#

    "#]].assert_eq(&run.text());
}

#[test]
fn test_json_reports_each_file_and_case() {
    let run = lexprobe(&["test", "tests/fixtures/runner/good", "--format", "json"]);
    expect![[r#"
        exit code 0
        --- stdout
        {
          "passed": 8,
          "failed": 0,
          "skipped": 2,
          "files": [
            {
              "file": "tests/fixtures/runner/good/nested/partage.catala_fr",
              "compiled": true,
              "passed": 2,
              "failed": 0,
              "skipped": 0,
              "seconds": "<time>",
              "tests": [
                {
                  "name": "Partage",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "test_scope"
                },
                {
                  "name": "line 17: catala test-scope Partage",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 17,
                  "command": "catala test-scope Partage",
                  "exit_code": 0
                }
              ]
            },
            {
              "file": "tests/fixtures/runner/good/shares.catala_en",
              "compiled": true,
              "passed": 6,
              "failed": 0,
              "skipped": 2,
              "seconds": "<time>",
              "tests": [
                {
                  "name": "TwoWinners",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "test_scope"
                },
                {
                  "name": "line 39: catala test-scope TwoWinners",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 39,
                  "command": "catala test-scope TwoWinners",
                  "exit_code": 0
                },
                {
                  "name": "line 51: catala test-scope NoWinner --disable-warnings",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 51,
                  "command": "catala test-scope NoWinner --disable-warnings",
                  "exit_code": 123
                },
                {
                  "name": "line 66: catala Interpret -s NoWinner --message-format=gnu",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 66,
                  "command": "catala Interpret -s NoWinner --message-format=gnu",
                  "exit_code": 123
                },
                {
                  "name": "line 72: catala test-scope Share --input {\"prize\":10,\"winners\":4} -F json",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 72,
                  "command": "catala test-scope Share --input {\"prize\":10,\"winners\":4} -F json",
                  "exit_code": 0
                },
                {
                  "name": "line 77: catala Typecheck --check-invariants",
                  "status": "passed",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 77,
                  "command": "catala Typecheck --check-invariants",
                  "exit_code": 0
                },
                {
                  "name": "line 89: catala ocaml",
                  "status": "skipped",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 89,
                  "command": "catala ocaml",
                  "reason": "backend `ocaml`"
                },
                {
                  "name": "line 94: catala interpret -s TwoWinners --trace",
                  "status": "skipped",
                  "seconds": "<time>",
                  "kind": "cli_block",
                  "line": 94,
                  "command": "catala interpret -s TwoWinners --trace",
                  "reason": "tracing or debugging flag --trace"
                }
              ]
            }
          ]
        }
        --- stderr
    "#]].assert_eq(&run.json());
}
