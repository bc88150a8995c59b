//! The text of emitted test files, as the reference Catala (`clerk test`, CatalaLang/catala
//! fdf4ccd5) accepts it. The youth allowance suite below is the one `clerk test` passed (3 of
//! 3: two `#[test]` scopes and the test block of an empty default, with its error as Catala
//! prints it and `#return code 123#`), emitted beside its program. A path with an input a test
//! file cannot write (a function input, which the exploration fixes to a placeholder) is listed
//! as text, not written as a test: `definition run.rate equals ()` is a syntax error for Catala.

use catala_eval::runtime::{Integer, Value};
use catala_ir::dcalc::{Program, ScopeId};
use concolic::emit::{Suite, TestNames};
use concolic::{explore, ExploreOptions, Outcome, PathId, TestCase};
use std::path::{Path, PathBuf};

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(dir)
        .join(name)
}

fn load(path: &Path, scope: &str) -> (Program, ScopeId) {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: parse error {}", path.display(), d.message),
    };
    let program = match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {:?}", path.display(), ds.first().map(|d| &d.message)),
    };
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    (program, id)
}

/// A test on `inputs`, its outcome from a concrete run.
fn test_case(program: &Program, scope: ScopeId, inputs: Vec<Value>, path: &str) -> TestCase {
    let inputs: Vec<Option<Value>> = inputs.into_iter().map(Some).collect();
    let outcome = match catala_eval::run_scope(program, scope, inputs.clone()) {
        Err(e) => Outcome::Error(e),
        Ok(r) => Outcome::Ok(r.outputs),
    };
    let path = PathId::parse(path).expect("path identifier");
    concolic::suite::replayed_test(inputs, outcome, path)
}

/// The error of the empty default, as the reference prints it for the suite beside its program.
const NO_VALUE: &str = "\
┌─[ERROR]─
│
│  During evaluation: no applicable rule to define this variable in this
│  situation.
│
├─➤ allowance.catala_en:12.10-19:
│    │
│ 12 │   output allowance content money
│    │          ‾‾‾‾‾‾‾‾‾
└─ Youth allowance (a program without modules whose tests are emitted as a suite)
   └─ Article 1
";

/// The suite the reference `clerk test` passed, test for test.
const ACCEPTED: &str = "\
# Tests of Allowance

> Include: allowance.catala_en

```catala
# path 10 (ok)
#[test]
declaration scope Test_Allowance_1:
  output run scope Allowance

scope Test_Allowance_1:
  definition run.age equals 0
  definition run.income equals $0.00
  assertion (run.allowance) = $50.00
```

```catala
# path 01 (ok)
#[test]
declaration scope Test_Allowance_2:
  output run scope Allowance

scope Test_Allowance_2:
  definition run.age equals 18
  definition run.income equals $0.00
  assertion (run.allowance) = $30.00
```

```catala
# path 00 (no_value)
declaration scope Test_Allowance_3:
  output run scope Allowance

scope Test_Allowance_3:
  definition run.age equals 18
  definition run.income equals $1000.00
```

```catala-test-cli
$ catala test-scope Test_Allowance_3 --disable-warnings
┌─[ERROR]─
│
│  During evaluation: no applicable rule to define this variable in this
│  situation.
│
├─➤ allowance.catala_en:12.10-19:
│    │
│ 12 │   output allowance content money
│    │          ‾‾‾‾‾‾‾‾‾
└─ Youth allowance (a program without modules whose tests are emitted as a suite)
   └─ Article 1
#return code 123#
```

";

#[test]
fn the_allowance_suite_is_the_text_the_reference_accepts() {
    let (program, scope) = load(&fixture("suites", "allowance.catala_en"), "Allowance");
    let int = |n: i64| Value::Integer(Integer::from(n));
    let money = |cents: i64| Value::Money(Integer::from(cents));
    let tests = [
        test_case(&program, scope, vec![int(0), money(0)], "10"),
        test_case(&program, scope, vec![int(18), money(0)], "01"),
        test_case(&program, scope, vec![int(18), money(100_000)], "00"),
    ];
    assert!(matches!(tests[2].outcome, Outcome::Error(_)));
    let names = TestNames::plain(&program);
    let suite = Suite {
        program: &program,
        scope,
        names: &names,
    };
    let mut text = suite.header(Path::new("allowance.catala_en"));
    for (i, t) in tests.iter().enumerate() {
        let expected = matches!(t.outcome, Outcome::Error(_)).then_some(NO_VALUE);
        text.push_str(&suite.test_text(i, t, expected));
    }
    assert_eq!(text, ACCEPTED);
}

#[test]
fn a_path_with_a_function_input_is_listed_not_written_as_a_test() {
    let (program, scope) = load(
        &fixture("concolic_inputs", "fixed.catala_en"),
        "WithFunction",
    );
    let options = ExploreOptions {
        check: true,
        max_list_length: 3,
        ..ExploreOptions::default()
    };
    let e = explore(&program, scope, &options).expect("exploration");
    assert_eq!(e.incomplete, vec!["rate: function, fixed".to_string()]);
    assert!(!e.tests.is_empty());
    let names = TestNames::plain(&program);
    let suite = Suite {
        program: &program,
        scope,
        names: &names,
    };
    for (i, t) in e.tests.iter().enumerate() {
        // The function input has no Catala literal: no test of this scope is writable.
        assert!(!suite.is_writable(t), "test {i}");
        // Even given the error `lexprobe run` prints, no scope and no test block is written.
        let text = suite.test_text(i, t, Some("┌─[ERROR]─\n"));
        assert!(!text.contains("equals ()"), "{text}");
        assert!(!text.contains("```catala"), "{text}");
        // The function is the scope's only input.
        assert!(text.ends_with("It has no other input.\n\n"), "{text}");
        assert!(
            text.starts_with(&format!(
                "Path {} ends with `{}` (path identifier `{}`); it is not written as a test: a \
                 test file has no literal for its input `rate`",
                i + 1,
                t.outcome.kind(),
                t.path
            )),
            "{text}"
        );
    }
}
