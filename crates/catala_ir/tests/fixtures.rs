//! The project's own Catala fixtures (`tests/fixtures/ir`, English and French): each construct
//! compiles and the lowered program behaves as Catala's semantics says (checked with the small
//! reference evaluator of `support`), and each compile-time error kind is reported with Catala's
//! message at the expected position. Expected values are worked out by hand from the semantics.

mod support;

use catala_ir::dcalc::{self, Stmt};
use catala_syntax::{DiagnosticKind, SourceMap};
use std::path::{Path, PathBuf};
use support::{EvalError, Evaluator, Value};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/ir")
        .join(name)
}

fn compile(name: &str) -> (SourceMap, dcalc::Program) {
    let (sources, program) =
        catala_syntax::parse_file(&fixture(name)).unwrap_or_else(|d| panic!("parse: {d:?}"));
    match catala_ir::compile(&sources, &program) {
        Ok(p) => (sources, p),
        Err(ds) => panic!("{name}: {:?}", ds[0].message),
    }
}

fn int(v: i64) -> Value {
    Value::int(v)
}

fn output(outs: &[(String, Value)], name: &str) -> Value {
    outs.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no output {name}"))
}

fn text(sources: &SourceMap, span: catala_syntax::Span) -> String {
    sources.file(span.file).text[span.start as usize..span.end as usize].to_string()
}

#[test]
fn labelled_exceptions_pick_the_applicable_rule() {
    let (_, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let run = |income, children| {
        ev.run_named(
            "Rates",
            &[("income", int(income)), ("children", int(children))],
        )
    };
    let low = run(5000, 0).unwrap();
    assert_eq!(output(&low, "rate"), int(10));
    assert_eq!(output(&low, "capped"), int(10));
    assert_eq!(output(&low, "bonus"), int(1));
    assert_eq!(output(&low, "has_children"), Value::Bool(false));
    let family = run(50000, 4).unwrap();
    assert_eq!(output(&family, "rate"), int(15));
    assert_eq!(output(&family, "capped"), int(12));
    assert_eq!(output(&family, "has_children"), Value::Bool(true));
    assert_eq!(output(&run(50000, 0).unwrap(), "rate"), int(20));
}

#[test]
fn two_applicable_exceptions_conflict_naming_both_rules() {
    let (sources, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let err = ev
        .run_named("Rates", &[("income", int(5000)), ("children", int(4))])
        .unwrap_err();
    let EvalError::Conflict(spans) = err else {
        panic!("expected a conflict, got {err:?}")
    };
    let texts: Vec<String> = spans.iter().map(|s| text(&sources, *s)).collect();
    assert_eq!(texts, vec!["10", "15"]);
}

#[test]
fn context_variables_take_the_callers_value() {
    let (_, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let out = ev
        .run_named(
            "Rates",
            &[("income", int(1)), ("children", int(0)), ("bonus", int(7))],
        )
        .unwrap();
    assert_eq!(output(&out, "bonus"), int(7));
}

#[test]
fn equal_consequences_do_not_conflict() {
    let (_, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let run = |a, b| {
        ev.run_named("Same", &[("a", Value::Bool(a)), ("b", Value::Bool(b))])
            .map(|o| output(&o, "x"))
    };
    assert_eq!(run(true, true), Ok(int(7)));
    assert_eq!(run(true, false), Ok(int(7)));
    assert_eq!(run(false, false), Ok(int(0)));
}

#[test]
fn unlabelled_exception_overrides_the_base_definition() {
    let (_, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let run = |flag| {
        ev.run_named("Unlabelled", &[("flag", Value::Bool(flag))])
            .map(|o| output(&o, "y"))
    };
    assert_eq!(run(true), Ok(int(2)));
    assert_eq!(run(false), Ok(int(1)));
}

#[test]
fn scope_level_conditions_guard_every_rule_of_their_block() {
    let (_, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let adult = ev.run_named("Category", &[("age", int(20))]).unwrap();
    assert_eq!(output(&adult, "adult"), Value::Bool(true));
    assert_eq!(output(&adult, "category"), int(2));
    let child = ev.run_named("Category", &[("age", int(10))]).unwrap();
    assert_eq!(output(&child, "adult"), Value::Bool(false));
    assert_eq!(output(&child, "category"), int(1));
}

#[test]
fn no_applicable_rule_points_at_the_declaration() {
    let (sources, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let err = ev.run_named("Partial", &[("n", int(0))]).unwrap_err();
    let EvalError::NoValue(span) = err else {
        panic!("expected no value, got {err:?}")
    };
    assert_eq!(text(&sources, span), "p");
    assert_eq!(sources.position(span).start_line, 90);
}

#[test]
fn sub_scopes_states_and_context_overrides_in_french() {
    let (_, p) = compile("sous_champs.catala_fr");
    let ev = Evaluator::new(&p).unwrap();
    let out = ev.run_named("Parent", &[]).unwrap();
    // e: y = 3 + 1, z initial = 8, z final = 9; f: y overridden to 100, z = 201.
    assert_eq!(output(&out, "a"), int(9));
    assert_eq!(output(&out, "b"), int(201));
    assert_eq!(output(&out, "c"), int(100));
}

#[test]
fn french_labels_and_scope_conditions() {
    let (_, p) = compile("sous_champs.catala_fr");
    let ev = Evaluator::new(&p).unwrap();
    let run = |r| {
        ev.run_named("Taux", &[("revenu", int(r))])
            .map(|o| output(&o, "taux"))
    };
    assert_eq!(run(50), Ok(int(5)));
    assert_eq!(run(500), Ok(int(20)));
    assert_eq!(run(5000), Ok(int(30)));
}

#[test]
fn functions_top_level_definitions_and_scope_calls() {
    let (_, p) = compile("functions.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let out = ev.run_named("Fun", &[("n", int(1))]).unwrap();
    // ten = double of 5 = 10; f of 10 = 11; Callee(k = 11, step = 1) = 10; with step 5: 6.
    assert_eq!(output(&out, "r"), int(11));
    assert_eq!(output(&out, "s"), int(10));
    assert_eq!(output(&out, "t"), int(6));
}

#[test]
fn enumerations_patterns_and_structures_in_french() {
    let (_, p) = compile("enumerations.catala_fr");
    let ev = Evaluator::new(&p).unwrap();
    let square = Value::Enum(0, Some(Box::new(int(3))));
    let out = ev.run_named("Formes", &[("f", square)]).unwrap();
    assert_eq!(output(&out, "aire"), int(9));
    assert_eq!(
        output(&out, "boîte"),
        Value::Struct(vec![int(9), Value::Bool(true)])
    );
    assert_eq!(output(&out, "grand_carré"), Value::Bool(true));
    assert_eq!(
        output(&out, "agrandie"),
        Value::Struct(vec![int(1), int(9)])
    );
    let rect = Value::Enum(1, Some(Box::new(Value::Struct(vec![int(2), int(5)]))));
    let out = ev.run_named("Formes", &[("f", rect)]).unwrap();
    assert_eq!(output(&out, "aire"), int(10));
    assert_eq!(output(&out, "grand_carré"), Value::Bool(false));
    let out = ev
        .run_named("Formes", &[("f", Value::Enum(2, None))])
        .unwrap();
    assert_eq!(output(&out, "aire"), int(0));
    assert_eq!(
        output(&out, "boîte"),
        Value::Struct(vec![int(0), Value::Bool(false)])
    );
}

#[test]
fn statements_follow_the_stable_topological_order() {
    let (_, p) = compile("order.catala_en");
    let id = p.scope_by_name("Outer").unwrap();
    let scope = p.scope(id);
    let names: Vec<String> = scope
        .body
        .iter()
        .map(|s| match s {
            Stmt::Define { var, .. } => scope.vars[*var as usize].name.clone(),
            Stmt::CallSubScope { subscope, .. } => scope.subscopes[*subscope as usize].name.clone(),
            Stmt::Assert { .. } => "assertion".to_string(),
        })
        .collect();
    assert_eq!(names, vec!["a", "b", "sub", "c", "assertion"]);
    let out = Evaluator::new(&p).unwrap().run_named("Outer", &[]).unwrap();
    assert_eq!(output(&out, "c"), int(4));
    // Outputs in declaration order.
    let outs: Vec<&str> = scope.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(outs, vec!["c", "b", "a"]);
}

/// Compiles an error fixture; returns (kind, message, first position as `line.col`).
fn first_error(name: &str) -> (DiagnosticKind, String, String) {
    let (sources, program) = catala_syntax::parse_file(&fixture(&format!("errors/{name}")))
        .unwrap_or_else(|d| panic!("parse {name}: {d:?}"));
    let ds = match catala_ir::compile(&sources, &program) {
        Ok(_) => panic!("{name} compiled"),
        Err(ds) => ds,
    };
    let d = &ds[0];
    let pos = d
        .labels
        .first()
        .map(|l| {
            let p = sources.position(l.span);
            format!("{}.{}-{}", p.start_line, p.start_col, p.end_col)
        })
        .unwrap_or_default();
    (d.kind, d.message.clone(), pos)
}

#[track_caller]
fn assert_error(name: &str, kind: DiagnosticKind, message: &str, pos: &str) {
    let (k, m, p) = first_error(name);
    assert_eq!(k, kind, "{name}: kind");
    assert_eq!(m, message, "{name}: message");
    assert!(
        p.starts_with(pos),
        "{name}: position {p} does not start with {pos}"
    );
}

#[test]
fn name_resolution_errors() {
    use DiagnosticKind::NameResolution as N;
    assert_error(
        "unknown_variable.catala_en",
        N,
        "\"y\": unknown identifier for a local, scope-wide or global variable",
        "6.23-24",
    );
    assert_error(
        "unknown_type.catala_en",
        N,
        "Unknown type \"Amount\": no declaration for a structure, enumeration, scope or external type by this name was found.",
        "3.20-26",
    );
    assert_error(
        "unknown_constructor.catala_fr",
        N,
        "The name of this constructor has not been defined before\n(it's probably a \
         typographical error).",
        "10.23-28",
    );
    assert_error(
        "unknown_field.catala_en",
        N,
        "Field \"height\" does not belong to structure \"Person\".",
        "10.23-31",
    );
    assert_error(
        "unknown_scope.catala_en",
        N,
        "\"B\": this scope has not been declared anywhere, is it a typo?",
        "5.7-8",
    );
    assert_error(
        "duplicate_declaration.catala_en",
        N,
        "struct name \"S\" already defined",
        "2.23-24",
    );
    assert_error(
        "ambiguous_exception.catala_en",
        N,
        "This exception can refer to several definitions. Try using labels to disambiguate.",
        "9.3-",
    );
    assert_error(
        "missing_base.catala_en",
        N,
        "This exception does not have a corresponding definition.",
        "6.3-",
    );
    assert_error(
        "unknown_label.catala_fr",
        N,
        "Unknown label for the scope variable x: \"basse\".",
        "7.13-18",
    );
    assert_error(
        "input_defined.catala_en",
        N,
        "There cannot be a definition for a scope variable tagged as input.",
        "3.9-10",
    );
    assert_error(
        "cycle.catala_en",
        N,
        "Cyclic dependency detected between the following variables of scope A:\ny → x → y",
        "7.23-24",
    );
    assert_error(
        "missing_input.catala_en",
        N,
        "Definition of input variable 'b' missing in this scope call",
        "14.23-",
    );
    assert_error(
        "self_exception.catala_en",
        N,
        "Cannot define rule as an exception to itself",
        "6.21-22",
    );
    assert_error(
        "state_missing.catala_en",
        N,
        "This definition does not indicate which state has to be considered for variable x.",
        "8.14-15",
    );
    assert_error(
        "subscope_input_missing.catala_en",
        N,
        "This subscope variable is a mandatory input but no definition was provided.",
        "10.3-6",
    );
}

#[test]
fn typing_errors() {
    use DiagnosticKind::Typing as T;
    assert_error(
        "incompatible.catala_en",
        T,
        "Incompatible types:\n  got      decimal,\n  expected integer",
        "6.23-26",
    );
    let (sources, program) =
        catala_syntax::parse_file(&fixture("errors/incompatible.catala_en")).unwrap();
    let ds = catala_ir::compile(&sources, &program).unwrap_err();
    let expected = &ds[0].labels[1];
    assert_eq!(text(&sources, expected.span), "integer");
    assert_eq!(
        expected.note.as_deref(),
        Some("Expected type integer coming from expression:")
    );
    assert_error(
        "operator.catala_fr",
        T,
        "I don't know how to apply operator * on types money and money",
        "7.23-28",
    );
}

#[test]
fn empty_internal_variables_fail_only_where_read() {
    let (sources, p) = compile("defaults.catala_en");
    let ev = Evaluator::new(&p).unwrap();
    let run = |scope: &str, n| {
        ev.run_named(scope, &[("n", int(n))])
            .map(|o| output(&o, "result"))
    };
    // `never` has no rule and `half` none that applies: neither is read, no error.
    assert_eq!(run("Optional", 3), Ok(int(0)));
    assert_eq!(run("Optional", 15), Ok(int(5)));
    assert_eq!(run("OptionalRead", 15), Ok(int(6)));
    // Read while empty: "no applicable rule" at the read.
    let Err(EvalError::NoValue(span)) = run("OptionalRead", 3) else {
        panic!("expected no value")
    };
    assert_eq!(text(&sources, span), "half");
    let line = sources.position(span).start_line;
    let read_line = sources
        .file(span.file)
        .text
        .lines()
        .position(|l| l.contains("definition result equals half + 1"))
        .map(|i| i + 1);
    assert_eq!(Some(line), read_line);
}

/// Every binary operator of an expression tree.
fn binary_ops(e: &dcalc::Expr, out: &mut Vec<dcalc::BinaryOp>) {
    use dcalc::ExprKind as K;
    match &e.kind {
        K::Binary { op, lhs, rhs, .. } => {
            out.push(*op);
            binary_ops(lhs, out);
            binary_ops(rhs, out);
        }
        K::ErrorOnEmpty { expr, .. } | K::PureDefault(expr) => binary_ops(expr, out),
        K::Default {
            exceptions,
            justification,
            consequence,
        } => {
            exceptions.iter().for_each(|x| binary_ops(x, out));
            binary_ops(justification, out);
            binary_ops(consequence, out);
        }
        K::Lambda(l) => binary_ops(&l.body, out),
        K::Apply { func, args } => {
            binary_ops(func, out);
            args.iter().for_each(|x| binary_ops(x, out));
        }
        _ => {}
    }
}

#[test]
fn date_rounding_is_per_scope_and_top_level_definitions_abort() {
    use dcalc::{BinaryOp, DateRounding};
    let (sources, p) = compile("dates.catala_en");
    let ops_of = |scope: &str| {
        let s = p.scope(p.scope_by_name(scope).unwrap());
        let mut ops = Vec::new();
        for st in &s.body {
            if let Stmt::Define { expr, .. } = st {
                binary_ops(expr, &mut ops);
            }
        }
        (s.date_rounding, ops)
    };
    let (mode, ops) = ops_of("Rounded");
    assert_eq!(mode, DateRounding::Up);
    assert_eq!(ops, vec![BinaryOp::AddDatDur(DateRounding::Up)]);
    let (mode, ops) = ops_of("Plain");
    assert_eq!(mode, DateRounding::Abort);
    assert_eq!(ops, vec![BinaryOp::SubDatDur(DateRounding::Abort)]);
    let mut top = Vec::new();
    // The program's own definition comes after the standard library's.
    let own = p
        .topdefs
        .iter()
        .find(|d| !p.is_stdlib_span(d.span))
        .expect("the fixture's top-level definition");
    binary_ops(&own.body, &mut top);
    assert_eq!(top, vec![BinaryOp::AddDatDur(DateRounding::Abort)]);
    // The operator node is spanned at the operator token (where Catala reports an ambiguous date).
    let s = p.scope(p.scope_by_name("Plain").unwrap());
    let Some(Stmt::Define { expr, .. }) = s
        .body
        .iter()
        .find(|st| matches!(st, Stmt::Define { var: 1, .. }))
    else {
        panic!("no definition of later")
    };
    let mut spans = Vec::new();
    fn op_spans(e: &dcalc::Expr, out: &mut Vec<catala_syntax::Span>) {
        use dcalc::ExprKind as K;
        match &e.kind {
            K::Binary { .. } => out.push(e.span),
            K::ErrorOnEmpty { expr, .. } | K::PureDefault(expr) => op_spans(expr, out),
            K::Default {
                exceptions,
                consequence,
                ..
            } => {
                exceptions.iter().for_each(|x| op_spans(x, out));
                op_spans(consequence, out);
            }
            _ => {}
        }
    }
    op_spans(expr, &mut spans);
    assert_eq!(spans.len(), 1);
    assert_eq!(text(&sources, spans[0]), "-");
}

#[test]
fn deeply_nested_expressions_are_rejected_without_overflowing() {
    use catala_syntax::ast::{DefBody, Expr, ExprKind, ItemKind, ScopeUseItem, UnOp};
    let text = "```catala\ndeclaration scope A:\n  output x content integer\n\nscope A:\n  definition x equals 1\n```\n";
    let (sources, mut program) =
        catala_syntax::parse_str("deep.catala_en", text, catala_syntax::ast::Language::En).unwrap();
    let depth = |n: usize| {
        let mut e = Expr {
            kind: ExprKind::Literal(catala_syntax::ast::Literal::Integer("1".into())),
            span: Default::default(),
        };
        for _ in 0..n {
            e = Expr {
                kind: ExprKind::Unop(UnOp::Minus, Box::new(e)),
                span: Default::default(),
            };
        }
        e
    };
    let set_body = |program: &mut catala_syntax::ast::Program, body: Expr| {
        let mut body = Some(body);
        for item in &mut program.items {
            if let ItemKind::ScopeUse(u) = &mut item.kind {
                if let Some(ScopeUseItem::Definition(d)) = u.items.first_mut() {
                    if let Some(b) = body.take() {
                        d.body = DefBody::Expr(b);
                    }
                }
            }
        }
    };
    // Moderate nesting compiles.
    set_body(&mut program, depth(499));
    assert!(catala_ir::compile(&sources, &program).is_ok());
    // Extreme nesting is an error, not a crash.
    set_body(&mut program, depth(1000));
    let errs = catala_ir::compile(&sources, &program).unwrap_err();
    assert_eq!(
        errs[0].message,
        "This expression is nested too deeply to be compiled"
    );
}
