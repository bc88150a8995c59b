//! Which assertions of a scope restrict its inputs (`eval::input_assertions`): those reading
//! only `input` variables through operators that cannot fail. Each assertion of the program
//! below is marked by hand `yes` or `no` with the reason.

use catala_eval::eval::input_assertions::InputAssertions;
use catala_syntax::ast::Language;

const PROGRAM: &str = "
```catala
declaration enumeration Zone:
  -- North
  -- South

declaration scope Claim:
  input income content money
  input children content integer
  input start content date
  input wait content duration
  input zone content Zone
  context bonus content money
  internal share content money
  output total content money

scope Claim:
  definition bonus equals $10
  definition share equals income / 2
  definition total equals share + bonus
  # yes: inputs, comparisons and connectives
  assertion income >= $0 and children <= 10
  # yes: arithmetic that cannot fail, a date comparison
  assertion income * 2 + $5 > $0 or start >= |2020-01-01|
  # yes: a case of an enumeration input
  assertion zone = North or zone = South
  # no: reads an internal variable
  assertion share >= $0
  # no: reads a context variable (the scope may define it)
  assertion bonus >= $0
  # no: a division may fail
  assertion income / children >= $0
  # no: date arithmetic may be ambiguous
  assertion start + 1 month >= |2020-02-01|
  # no: comparing durations may fail
  assertion wait >= 1 day
```
";

#[test]
fn only_error_free_assertions_on_input_variables_count() {
    let (sources, ast) = catala_syntax::parse_str("claim.catala_en", PROGRAM, Language::En)
        .unwrap_or_else(|d| panic!("{}", d.message));
    let program =
        catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| panic!("{}", ds[0].message));
    let id = program.scope_by_name("Claim").expect("scope Claim");
    let scope = program.scope(id);
    let found = InputAssertions::of(&program, scope);
    let lines: Vec<usize> = found
        .spans(scope)
        .into_iter()
        .map(|s| PROGRAM[..s.start as usize].lines().count())
        .collect();
    let line_of = |text: &str| {
        PROGRAM
            .lines()
            .position(|l| l.trim() == text)
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("no line {text}"))
    };
    assert_eq!(
        lines,
        [
            line_of("assertion income >= $0 and children <= 10"),
            line_of("assertion income * 2 + $5 > $0 or start >= |2020-01-01|"),
            line_of("assertion zone = North or zone = South"),
        ]
    );
    // The five inputs given as they are (not the context variable).
    assert_eq!(found.defines.len(), 5);
}
