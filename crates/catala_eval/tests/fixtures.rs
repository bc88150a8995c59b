//! Runs the Catala fixtures of `tests/fixtures/eval` (written for this project, English and
//! French) through the whole pipeline (parse, compile, interpret) and checks values, printed
//! results and runtime errors against results worked out by hand from Catala's semantics.

use catala_eval::{run_scope, RuntimeError, RuntimeErrorKind, ScopeResult, ValuePrinter};
use catala_ir::dcalc::Program;
use catala_syntax::SourceMap;
use std::path::PathBuf;

fn fixture(name: &str) -> (SourceMap, Program) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/eval")
        .join(name);
    let (sources, ast) = catala_syntax::parse_file(&path)
        .unwrap_or_else(|d| panic!("{name} does not parse: {}", d.message));
    let program = catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| {
        panic!(
            "{name} does not compile: {:?}",
            ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    (sources, program)
}

fn run(program: &Program, scope: &str) -> Result<ScopeResult, RuntimeError> {
    let id = program
        .scope_by_name(scope)
        .unwrap_or_else(|| panic!("no scope {scope}"));
    let n = program.scope(id).inputs.len();
    run_scope(program, id, vec![None; n])
}

/// The `│ x = v` lines `catala interpret` prints for a successful run.
fn printed(program: &Program, result: &ScopeResult) -> Vec<String> {
    let printer = ValuePrinter {
        language: program.scope(result.scope).language,
        names: program,
    };
    result
        .outputs
        .iter()
        .flat_map(|(name, v)| printer.result_lines(name, v))
        .collect()
}

fn printed_scope(program: &Program, scope: &str) -> Vec<String> {
    match run(program, scope) {
        Ok(r) => printed(program, &r),
        Err(e) => panic!("{scope} failed: {e}"),
    }
}

/// `line.col-col` of each label of an error.
fn positions(sources: &SourceMap, e: &RuntimeError) -> Vec<String> {
    e.labels
        .iter()
        .map(|l| {
            let p = sources.position(l.span);
            format!("{}.{}-{}", p.start_line, p.start_col, p.end_col)
        })
        .collect()
}

fn expect_error(program: &Program, scope: &str) -> RuntimeError {
    match run(program, scope) {
        Ok(r) => panic!("{scope} succeeded: {:?}", r.outputs),
        Err(e) => e,
    }
}

#[test]
fn exceptions_labels_and_context() {
    let (_, p) = fixture("defaults.catala_en");
    // $20,000 < $30,000: eligible, $20,000 × 10% = $2,000.00.
    assert_eq!(printed_scope(&p, "LowIncome"), vec!["│ amount = $2,000.00"]);
    // Not eligible, no family exception: the base rule, $0.00.
    assert_eq!(printed_scope(&p, "HighIncome"), vec!["│ amount = $0.00"]);
    // The family rule is an exception of the low-income rule and is evaluated before that
    // rule's (false) justification: $500.00.
    assert_eq!(printed_scope(&p, "LargeFamily"), vec!["│ amount = $500.00"]);
    // The caller's definition of the context variable overrides the scope's: $10,000 × 5%.
    assert_eq!(
        printed_scope(&p, "ContextOverride"),
        vec!["│ amount = $500.00"]
    );
    // Two applicable sibling rules with syntactically equal consequences do not conflict.
    assert_eq!(printed_scope(&p, "SameConsequence"), vec!["│ y = 5"]);
}

#[test]
fn runtime_errors_and_their_positions() {
    let (sources, p) = fixture("errors.catala_en");
    let e = expect_error(&p, "Conflict");
    assert_eq!(e.kind, RuntimeErrorKind::Conflict);
    // The consequences `1` (line 8) and `2` (line 9), both after "consequence equals ".
    assert_eq!(positions(&sources, &e), vec!["8.56-57", "9.57-58"]);

    let e = expect_error(&p, "NoRule");
    assert_eq!(e.kind, RuntimeErrorKind::NoValue);
    assert_eq!(
        e.message,
        "no applicable rule to define this variable in this situation."
    );
    // The declaration `output z content integer` (line 12), at the variable name.
    assert_eq!(positions(&sources, &e), vec!["12.10-11"]);

    let e = expect_error(&p, "DivisionByZero");
    assert_eq!(e.kind, RuntimeErrorKind::DivisionByZero);
    // The denominator `zero` on line 23.
    assert_eq!(positions(&sources, &e), vec!["23.34-38"]);

    let e = expect_error(&p, "AmbiguousDate");
    assert_eq!(e.kind, RuntimeErrorKind::AmbiguousDate);
    assert_eq!(
        e.message,
        "ambiguous date computation with no rounding mode specified."
    );

    let e = expect_error(&p, "MixedDurations");
    assert_eq!(e.kind, RuntimeErrorKind::DurationUnits);

    // An input variable that the caller does not give: no applicable rule at its declaration.
    let e = expect_error(&p, "MissingInput");
    assert_eq!(e.kind, RuntimeErrorKind::NoValue);
    assert_eq!(positions(&sources, &e), vec!["38.9-10"]);
}

#[test]
fn exact_arithmetic_and_rounding() {
    let (_, p) = fixture("arithmetic.catala_en");
    let r = run(&p, "Rounding").unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed(), "$0.10 × 3 = $0.30 exactly");
    assert_eq!(
        printed(&p, &r),
        vec![
            // tests/arithmetic/good/rounding.catala_en: 0.005 × $1 = $0.01 (half away from 0).
            "│ half_cent = $0.01",
            "│ minus_half_cent = -$0.01",
            // integer of $23.65 rounds: 24; integer of -42.443 truncates: -42.
            "│ integer_of_money = 24",
            "│ integer_of_decimal = -42",
            // $10 ÷ 3 = 333.33… cents, rounded once: $3.33.
            "│ third_of_ten = $3.33",
            // $1 ÷ $3 = 1/3 exactly, printed truncated to 6 digits.
            "│ money_ratio = 0.333,333…",
            // round of $2.50 = $3.00 (half away from zero).
            "│ rounded_money = $3.00",
            "│ integer_ratio = 0.333,333…",
            // money of 1.005 = 100.5 cents → $1.01.
            "│ money_of_decimal = $1.01",
            "│ rounded_decimal = -3.0",
            // 123456789³ = 1881676371789154860897069 (beyond 64 bits).
            "│ big = 1,881,676,371,789,154,860,897,069",
        ]
    );
}

#[test]
fn dates_and_rounding_modes() {
    let (_, p) = fixture("dates.catala_en");
    assert_eq!(
        printed_scope(&p, "Dates"),
        vec![
            "│ next_month = |2019-02-15|",
            // 2020 is a leap year: 366 days from 2019-03-01 to 2020-03-01.
            "│ days_between = [366 days]",
            "│ added = |2020-01-04|",
            "│ period = [1 year, 2 months]",
        ]
    );
    // Jan 31 + 1 month: Feb 31 does not exist; down = Feb 28, up = Mar 1.
    assert_eq!(printed_scope(&p, "RoundDown"), vec!["│ d = |2019-02-28|"]);
    assert_eq!(printed_scope(&p, "RoundUp"), vec!["│ d = |2019-03-01|"]);
}

#[test]
fn failed_assertions_are_numbered_with_partial_evaluation() {
    let (sources, p) = fixture("assertions.catala_en");
    let r = run(&p, "Bounds").unwrap_or_else(|e| panic!("{e}"));
    let messages: Vec<&str> = r
        .assertion_failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    // As tests/assertions/bad/simple.catala_en: w = 6, so `w < 6` and `w > 6` fail.
    assert_eq!(
        messages,
        vec![
            "Assertion failed: Upper bound for w: 6 ≮ 6",
            "Assertion failed: 6 ≯ 6"
        ]
    );
    let line = |span| sources.position(span).start_line;
    assert_eq!(line(r.assertion_failures[0].span), 11);
    assert_eq!(line(r.assertion_failures[1].span), 13);
}

#[test]
fn french_values_print_as_catala_does() {
    let (_, p) = fixture("montants.catala_fr");
    assert_eq!(
        printed_scope(&p, "Affichage"),
        vec![
            // Married with 3 children: 2 + 3/2 = 3.5 shares.
            "│ foyer = Foyer {",
            "│           -- revenu: 1 234,56 €",
            "│           -- parts: 3,5",
            "│         }",
            "│ statut = Marié contenu 2",
            "│ grand = 1 000 000",
            "│ tiers = 0,333 333…",
            // Single: 1 share, 1 234,56 € × 10% = 123,456 € → 123,46 €.
            "│ impôt = 123,46 €",
            "│ durée_totale = [1 an, 2 mois]",
            "│ vrai_ou_faux = vrai",
        ]
    );
}

#[test]
fn french_runtime_errors() {
    let (sources, p) = fixture("erreurs.catala_fr");
    let e = expect_error(&p, "Conflit");
    assert_eq!(e.kind, RuntimeErrorKind::Conflict);
    assert_eq!(positions(&sources, &e).len(), 2);
    // 2020-02-29 + 1 year: 2021-02-29 does not exist.
    assert_eq!(
        expect_error(&p, "DateAmbiguë").kind,
        RuntimeErrorKind::AmbiguousDate
    );
    // A context variable without definition nor caller value, read in `montant * 2`: as it is
    // not an output, Catala reports the error where it is read.
    let e = expect_error(&p, "AucuneRègle");
    assert_eq!(e.kind, RuntimeErrorKind::NoValue);
    assert_eq!(positions(&sources, &e), vec!["22.28-35"]);
}

#[test]
fn french_assertion_messages_print_french_values() {
    let (_, p) = fixture("erreurs.catala_fr");
    let r = run(&p, "Plafond").unwrap_or_else(|e| panic!("{e}"));
    let messages: Vec<&str> = r
        .assertion_failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    // Messages are in English, values in the program's language.
    assert_eq!(messages, vec!["Assertion failed: 1 500,00 € ≰ 1 000,00 €"]);
}

#[test]
fn json_inputs_and_outputs() {
    use catala_eval::{outputs_to_json, run_scope_json, RunError};
    use serde_json::json;
    let (_, p) = fixture("defaults.catala_en");
    let benefit = p
        .scope_by_name("Benefit")
        .unwrap_or_else(|| panic!("no Benefit"));
    // Money as a JSON integer (units); the context variable left to the scope: 10%.
    let r = run_scope_json(&p, benefit, &json!({"income": 20000, "children": 0}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outputs_to_json(&p, &r), json!({"amount": "2000.00"}));
    // The caller's value for the context variable overrides it: $20,000 × 0.05.
    let r = run_scope_json(
        &p,
        benefit,
        &json!({"income": "20000", "children": "0", "rate": "0.05"}),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outputs_to_json(&p, &r), json!({"amount": "1000.00"}));
    // A missing input variable and a badly typed one are input errors naming the field.
    match run_scope_json(&p, benefit, &json!({"income": 1})) {
        Err(RunError::Input(e)) => assert_eq!(e.path, "/children"),
        other => panic!("expected an input error, got {other:?}"),
    }
    match run_scope_json(&p, benefit, &json!({"income": true, "children": 1})) {
        Err(RunError::Input(e)) => assert_eq!(e.path, "/income"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn test_scopes_run_in_program_order() {
    let (_, p) = fixture("defaults.catala_en");
    let names: Vec<(String, bool)> = catala_eval::run_test_scopes(&p)
        .into_iter()
        .map(|(s, r)| (p.scope(s).name.clone(), r.is_ok_and(|r| r.passed())))
        .collect();
    assert_eq!(
        names,
        vec![
            ("LowIncome".to_string(), true),
            ("HighIncome".to_string(), true),
            ("LargeFamily".to_string(), true),
            ("ContextOverride".to_string(), true),
        ]
    );
}

#[test]
fn empty_context_variables_fail_where_read() {
    let (sources, p) = fixture("context.catala_en");
    // `rate` has no applicable rule (y = 3) but is never read: no error.
    assert_eq!(printed_scope(&p, "UnusedContext"), vec!["│ y = 3"]);
    // `bonus` is read in `bonus + 1` (line 21): the error points at the read, not at the
    // declaration (ErrorOnEmpty at the use sites of variables allowed to be empty).
    let e = expect_error(&p, "ReadContext");
    assert_eq!(e.kind, RuntimeErrorKind::NoValue);
    assert_eq!(positions(&sources, &e), vec!["21.23-28"]);
    // Given by the caller: 41 + 1.
    assert_eq!(printed_scope(&p, "GivenContext"), vec!["│ y = 42"]);
}

#[test]
fn caller_context_functions_fall_back_to_the_callee_rules() {
    let (_, p) = fixture("context.catala_en");
    // f of 1 = 100 (caller's rule), f of 2 = 2 × 10 (no caller rule applies: callee's rule).
    assert_eq!(printed_scope(&p, "Caller"), vec!["│ r = 120"]);
    // The caller's unconditional rule: f of 1 + f of 2 = 1 + 2.
    assert_eq!(printed_scope(&p, "CallerAllCases"), vec!["│ r = 3"]);
    // No caller definition: 10 + 20.
    assert_eq!(printed_scope(&p, "DirectCall"), vec!["│ r = 30"]);
}

#[test]
fn inline_assertions_are_recorded_and_evaluation_goes_on() {
    let (sources, p) = fixture("context.catala_en");
    let r = run(&p, "Inline").unwrap_or_else(|e| panic!("{e}"));
    // a = 3: `a < 0` fails (negated: 3 ≮ 0), `a = 3` holds; w = 6 is still computed.
    let messages: Vec<&str> = r
        .assertion_failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(messages, vec!["Assertion failed: a is small: 3 ≮ 0"]);
    // The position runs from `assertion` to the end of the condition (line 75).
    let pos = sources.position(r.assertion_failures[0].span);
    assert_eq!((pos.start_line, pos.start_col, pos.end_col), (75, 5, 20));
    assert_eq!(printed(&p, &r), vec!["│ w = 6"]);
}

#[test]
fn comparisons_are_polymorphic_and_functions_uncomparable() {
    let (sources, p) = fixture("comparisons.catala_en");
    // catala-tests/introspection/bad/functions: `f = f` type-checks; comparing the functions
    // is the runtime error, at the operator `=` (line 21).
    let e = expect_error(&p, "CompareFunctions");
    assert_eq!(e.kind, RuntimeErrorKind::Uncomparable);
    assert_eq!(positions(&sources, &e), vec!["21.25-26"]);
    // Enumerations compare structurally; different cases are different without looking at
    // the payload (which holds a function).
    assert_eq!(
        printed_scope(&p, "CompareEnums"),
        vec!["│ same = true", "│ different = false"]
    );
    // Same case: the payloads are compared, and their function field is uncomparable; the
    // error is at the operator `<` (line 39).
    let e = expect_error(&p, "ComparePayloads");
    assert_eq!(e.kind, RuntimeErrorKind::Uncomparable);
    assert_eq!(positions(&sources, &e), vec!["39.5-6"]);
}

#[test]
fn lists_traversed_together() {
    let (sources, p) = fixture("comparisons.catala_en");
    // [1 + 10; 2 + 20].
    let r = run(&p, "Zip").unwrap_or_else(|e| panic!("{e}"));
    let sums = r.outputs.first().map(|(_, v)| format!("{v:?}"));
    assert_eq!(sums.as_deref(), Some("[11, 22]"));
    // catala-tests/array/bad/map2: lists of different lengths, at the tuple of lists.
    let e = expect_error(&p, "ZipMismatch");
    assert_eq!(e.kind, RuntimeErrorKind::NotSameLength);
    assert_eq!(e.message, "traversing multiple lists of different lengths.");
    assert_eq!(positions(&sources, &e), vec!["51.48-63"]);
}

#[test]
fn conflicts_name_the_rules_that_produced_the_values() {
    let (sources, p) = fixture("comparisons.catala_en");
    // catala-tests/exception/bad/multi_same_result: with case = 2, the rules `case = 2` (30%)
    // and `case > 1` (40%) apply. The `case = 1` rule has the same consequence and is merged
    // with the `case = 2` one, yet the position is that of the rule that applied (line 64).
    let e = expect_error(&p, "ConflictPositions");
    assert_eq!(e.kind, RuntimeErrorKind::Conflict);
    assert_eq!(positions(&sources, &e), vec!["64.63-66", "65.63-66"]);
}

#[test]
fn list_operations() {
    let (_, p) = fixture("lists.catala_en");
    // values = [3; 12; 7; 25].
    assert_eq!(
        printed_scope(&p, "Lists"),
        vec![
            "│ count = 4",
            // 25 > 20.
            "│ any_large = true",
            "│ all_positive = true",
            // The elements ≥ 7, in order, in Catala's layout of lists (one element a line,
            // as in catala-tests/array/good/fold.catala_en).
            "│ large = [",
            "│           12;",
            "│           7;",
            "│           25;",
            "│         ]",
            "│ largest = 25",
            // No element above 100: the default.
            "│ smallest_or_zero = 0",
            "│ has_three = true",
            // 3 + 12 + 7 + 25.
            "│ total = 47",
            // The element whose key (itself) is minimum.
            "│ smallest = 3",
        ]
    );
}
