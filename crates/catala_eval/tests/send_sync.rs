//! A compiled program can be shared by the threads of `--jobs`: the default-calculus program,
//! the loaded program with its sources, and the registry of external implementations are
//! `Send + Sync` (checked at compile time: this file stops compiling if one of them stops being
//! so), and one program compiled once runs in several threads at once with the results of a
//! single-threaded run.

use catala_eval::externals::Externals;
use catala_eval::loader::LoadedProgram;
use catala_eval::{run_scope, Value};
use catala_ir::dcalc::Program;
use catala_syntax::ast::Language;
use std::sync::Arc;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_compiled_program_is_shared_between_threads() {
    assert_send_sync::<Program>();
    assert_send_sync::<LoadedProgram>();
    assert_send_sync::<Externals>();
}

/// A scope calling a top-level function (a closure in the compiled program).
const TAX: &str = "
```catala
declaration rate content decimal
  depends on income content money
  equals if income > $10,000 then 20% else 0%

declaration scope Tax:
  input income content money
  output tax content money

scope Tax:
  definition tax equals income * rate of income
```
";

#[test]
fn one_compiled_program_runs_in_two_threads_at_once() {
    let (sources, ast) = catala_syntax::parse_str("tax.catala_en", TAX, Language::En)
        .unwrap_or_else(|d| panic!("{}", d.message));
    let program =
        catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| panic!("{}", ds[0].message));
    let program = Arc::new(program);
    let scope = program.scope_by_name("Tax").expect("scope Tax");
    // Incomes in cents and the tax by hand: 20 % above $10,000, rounded to the cent
    // ($12,345.67 × 20 % = $2,469.134 → $2,469.13).
    let cases: [(i64, &str); 3] = [
        (2_000_000, "400000¢"),
        (500_000, "0¢"),
        (1_234_567, "246913¢"),
    ];
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let program = Arc::clone(&program);
            std::thread::spawn(move || {
                let mut taxes = Vec::new();
                for _ in 0..50 {
                    for (income, _) in cases {
                        let result =
                            run_scope(&program, scope, vec![Some(Value::money_cents(income))])
                                .unwrap_or_else(|e| panic!("{e:?}"));
                        taxes.push(format!("{:?}", result.outputs[0].1));
                    }
                }
                taxes
            })
        })
        .collect();
    for thread in threads {
        let taxes = thread.join().expect("the thread ran to its end");
        assert_eq!(taxes.len(), 150);
        for (i, tax) in taxes.iter().enumerate() {
            assert_eq!(tax, cases[i % 3].1, "run {i}");
        }
    }
}
