//! Modules end to end: the fixtures of `tests/fixtures/modules` (written for this project) are
//! loaded with their used modules (beside the file or in an include directory), compiled and
//! run; the values are worked out by hand from the module's rules. The error fixtures check
//! that a missing module, a cycle of modules, a private type and an external declaration
//! without implementation are positioned errors.

use catala_eval::externals::{ExternalError, Externals};
use catala_eval::{run_scope, Value, ValuePrinter};
use catala_ir::dcalc::Program;
use catala_syntax::{Diagnostic, LoadOptions, SourceMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/modules")
}

fn load(path: &Path, includes: &[PathBuf]) -> Result<(SourceMap, Program), Diagnostic> {
    let options = LoadOptions::for_file(path, includes)?;
    let (sources, parsed) = catala_syntax::parse_file_with_options(path, &options);
    let ast = parsed?;
    let program = catala_ir::compile(&sources, &ast).map_err(|mut ds| ds.remove(0))?;
    Ok((sources, program))
}

fn outputs(program: &Program, scope: &str) -> Vec<String> {
    let id = program.scope_by_name(scope).expect("scope exists");
    let n = program.scope(id).inputs.len();
    let result = run_scope(program, id, vec![None; n]).expect("the scope runs");
    let printer = ValuePrinter {
        language: program.scope(id).language,
        names: program,
    };
    result
        .outputs
        .iter()
        .map(|(name, v)| format!("{name} = {}", printer.flat(v)))
        .collect()
}

#[test]
fn qualified_names_through_an_alias() {
    let (_, program) = load(&fixtures().join("use_household.catala_en"), &[]).expect("loads");
    // Single: base amount $100 for 12 months. Couple with 3 children: doubled base ($200) plus
    // $10 per child = $230 a month, $2,760 a year. The sub-scope gets Single: doubled $100.
    assert_eq!(
        outputs(&program, "Check"),
        vec![
            "single = Allowance {  -- monthly: $100.00  -- months: 12}",
            "couple_total = $2,760.00",
            "same_type = Couple content 1",
            "kind = Couple content 2",
            "through_sub = $200.00",
        ]
    );
    // Only the main file's test scopes are the program's tests.
    let tests: Vec<&str> = program
        .test_scopes()
        .iter()
        .map(|s| program.scope(*s).name.as_str())
        .collect();
    assert_eq!(tests, vec!["Check"]);
}

#[test]
fn a_module_used_under_its_name_exposes_its_type() {
    let (_, program) = load(&fixtures().join("use_unaliased.catala_en"), &[]).expect("loads");
    assert_eq!(
        outputs(&program, "Check"),
        vec!["kind = Single", "base = $100.00"]
    );
}

#[test]
fn modules_are_found_in_include_directories() {
    let file = fixtures().join("use_include.catala_en");
    let Err(d) = load(&file, &[]) else {
        panic!("Tax_scale is only in lib/");
    };
    assert_eq!(d.message, "Required module not found: Tax_scale");
    let (_, program) = load(&file, &[fixtures().join("lib")]).expect("loads with -I lib");
    // 12% of $1,000.
    assert_eq!(outputs(&program, "Check"), vec!["tax = $120.00"]);
}

#[test]
fn clerk_toml_include_dirs_are_honoured() {
    let dir = std::env::temp_dir().join(format!("lexprobe-clerk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rules")).expect("temp dir");
    std::fs::write(
        dir.join("clerk.toml"),
        "[project]\ninclude_dirs = [\"rules\"]\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("rules/levy.catala_en"),
        "> Module Levy\n\n```catala-metadata\ndeclaration amount content money equals $7\n```\n",
    )
    .expect("write");
    std::fs::create_dir_all(dir.join("tests")).expect("temp dir");
    let main = dir.join("tests/check.catala_en");
    std::fs::write(
        &main,
        "> Using Levy\n\n```catala\n#[test]\ndeclaration scope T:\n  output x content money\n\nscope T:\n  definition x equals Levy.amount * 3\n```\n",
    )
    .expect("write");
    let (_, program) = load(&main, &[]).expect("clerk.toml's include_dirs are searched");
    assert_eq!(outputs(&program, "T"), vec!["x = $21.00"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loading_errors_are_positioned() {
    let errors = fixtures().join("errors");
    let (sources, parsed) =
        catala_syntax::parse_file_with_sources(&errors.join("missing.catala_en"));
    let d = parsed.expect_err("missing module");
    assert_eq!(d.message, "Required module not found: Nowhere_to_be_found");
    let pos = sources.position(d.labels[0].span);
    assert_eq!((pos.start_line, pos.start_col), (3, 9));

    let (sources, parsed) =
        catala_syntax::parse_file_with_sources(&errors.join("use_cycle.catala_en"));
    let d = parsed.expect_err("cycle");
    assert_eq!(d.message, "Circular module dependency");
    // First the `Using` that closes the cycle, then the chain that led there.
    let files: Vec<String> = d
        .labels
        .iter()
        .map(|l| sources.position(l.span).file)
        .collect();
    assert!(files[0].ends_with("cycle_b.catala_en"), "{files:?}");
    assert!(files
        .last()
        .is_some_and(|f| f.ends_with("use_cycle.catala_en")));

    let d = load(&errors.join("private_type.catala_en"), &[fixtures()]).expect_err("private");
    assert_eq!(
        d.message,
        "Type Household_rules.Internal_note is private and cannot be used here."
    );
    assert_eq!(d.labels.len(), 2, "the use, then the private declaration");
}

#[test]
fn external_modules_need_an_implementation() {
    let (_, program) =
        load(&fixtures().join("errors/use_external.catala_en"), &[]).expect("compiles");
    let missing = Externals::standard()
        .check(&program)
        .expect_err("no implementation");
    assert!(missing.1.contains("Unknown_external"), "{}", missing.1);

    // Registered through the API (beside the standard ones), the implementation is called
    // with the argument values.
    let mut externals = (*Externals::standard()).clone();
    externals.register("Unknown_external", "lookup", |args, _| match args {
        [Value::Integer(code)] => Ok(Value::integer(
            code.to_string().parse::<i64>().unwrap_or(0) * 10,
        )),
        _ => Err(ExternalError::message("lookup expects an integer")),
    });
    assert!(externals.check(&program).is_ok());
    let externals = Arc::new(externals);
    let mut interp =
        catala_eval::Interpreter::<()>::with_externals(&program, (), externals).expect("ready");
    let id = program.scope_by_name("S").expect("scope");
    let result = catala_eval::run_with(&mut interp, id, vec![]).expect("runs");
    assert_eq!(format!("{:?}", result.outputs[0].1), "30");
}
