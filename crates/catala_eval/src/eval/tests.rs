//! Interpreter tests on small dcalc programs built by hand (independent of the front end):
//! default-term semantics, runtime errors and their positions, assertion messages, and the
//! companion hooks.

use super::*;
use crate::runtime::{Decimal, Integer};
use catala_ir::dcalc::{
    BinaryOp, CmpType, EnumCaseDef, EnumDef, EnumId, Expr, ExprKind, FieldDef, Literal, MatchArm,
    Scope, ScopeInput, ScopeOutput, Slot, Stmt, StructDef, StructId, Ty,
};
use catala_syntax::ast::Language;
use catala_syntax::{FileId, Span};
use num_bigint::BigInt;
use std::sync::Arc;

fn sp(start: usize) -> Span {
    Span::new(FileId(0), start, start + 1)
}

fn e(kind: ExprKind, at: usize) -> Expr {
    Expr::new(kind, sp(at))
}

fn int(n: i64, at: usize) -> Expr {
    e(ExprKind::Literal(Literal::Integer(BigInt::from(n))), at)
}

fn boolean(b: bool, at: usize) -> Expr {
    e(ExprKind::Literal(Literal::Bool(b)), at)
}

fn local(slot: u32, at: usize) -> Expr {
    e(ExprKind::Local(Slot(slot)), at)
}

fn bin(op: BinaryOp, l: Expr, r: Expr, at: usize) -> Expr {
    e(
        ExprKind::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
            whole: sp(at),
        },
        at,
    )
}

fn pure(x: Expr) -> Expr {
    let at = x.span.start as usize;
    e(ExprKind::PureDefault(Box::new(x)), at)
}

/// `⟨exceptions | just :- cons⟩`, the consequence a pure value.
fn default(exceptions: Vec<Expr>, just: Expr, cons: Expr, at: usize) -> Expr {
    e(
        ExprKind::Default {
            exceptions,
            justification: Box::new(just),
            consequence: Box::new(pure(cons)),
        },
        at,
    )
}

fn error_on_empty(x: Expr, decl: usize) -> Expr {
    let at = x.span.start as usize;
    e(
        ExprKind::ErrorOnEmpty {
            expr: Box::new(x),
            decl: sp(decl),
        },
        at,
    )
}

/// A program with one scope `S` (inputs `x: integer` as context at slot 0), whose body is
/// `body`, with the given outputs (name, slot).
fn program(body: Vec<Stmt>, outputs: Vec<(&str, u32)>, frame_size: u32) -> Program {
    let out_struct = StructDef {
        name: "S".into(),
        fields: outputs
            .iter()
            .map(|(n, _)| FieldDef {
                name: n.to_string(),
                ty: Ty::Integer,
            })
            .collect(),
        span: sp(0),
    };
    let scope = Scope {
        name: "S".into(),
        module: None,
        language: Language::En,
        inputs: vec![ScopeInput {
            name: "x".into(),
            ty: Ty::Integer,
            kind: catala_ir::dcalc::InputKind::Context,
            var: 0,
            span: sp(900),
        }],
        vars: Vec::new(),
        outputs: outputs
            .iter()
            .map(|(n, s)| ScopeOutput {
                name: n.to_string(),
                ty: Ty::Integer,
                slot: Slot(*s),
            })
            .collect(),
        output_struct: StructId(1),
        subscopes: Vec::new(),
        date_rounding: catala_ir::dcalc::DateRounding::Abort,
        is_test: true,
        span: sp(0),
        headings: Arc::from(Vec::new()),
        frame_size,
        body,
    };
    Program {
        option_enum: None,
        stdlib_files: Vec::new(),
        module_files: Vec::new(),
        warnings: Vec::new(),
        structs: vec![
            StructDef {
                name: "Unused".into(),
                fields: Vec::new(),
                span: sp(0),
            },
            out_struct,
        ],
        enums: vec![EnumDef {
            name: "E".into(),
            cases: vec![
                EnumCaseDef {
                    name: "A".into(),
                    payload: Some(Ty::Integer),
                },
                EnumCaseDef {
                    name: "B".into(),
                    payload: None,
                },
            ],
            span: sp(0),
        }],
        topdefs: Vec::new(),
        topdef_order: Vec::new(),
        scopes: vec![scope],
        heading_ranges: Vec::new(),
    }
}

fn define(slot: u32, expr: Expr) -> Stmt {
    Stmt::Define {
        var: slot,
        slot: Slot(slot),
        expr,
    }
}

fn int_output(r: &ScopeResult, i: usize) -> i64 {
    match &r.outputs[i].1 {
        Value::Integer(Integer::Small(n)) => *n,
        other => panic!("not a small integer: {other:?}"),
    }
}

const S: ScopeId = ScopeId(0);

#[test]
fn exception_overrides_base_rule() {
    // y = ⟨⟨true :- 2⟩ | true :- 1⟩ = 2
    let y = default(
        vec![default(vec![], boolean(true, 20), int(2, 21), 22)],
        boolean(true, 10),
        int(1, 11),
        12,
    );
    let p = program(vec![define(0, error_on_empty(y, 100))], vec![("y", 0)], 1);
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 2);
}

#[test]
fn two_applicable_exceptions_conflict_at_both_rules() {
    let y = default(
        vec![
            default(vec![], boolean(true, 20), int(2, 21), 22),
            default(vec![], boolean(false, 30), int(3, 31), 32),
            default(vec![], boolean(true, 40), int(2, 41), 42),
        ],
        boolean(true, 10),
        int(1, 11),
        12,
    );
    let p = program(vec![define(0, error_on_empty(y, 100))], vec![("y", 0)], 1);
    let err = run_scope(&p, S, vec![None])
        .err()
        .unwrap_or_else(|| panic!("no conflict"));
    assert_eq!(err.kind, RuntimeErrorKind::Conflict);
    assert_eq!(
        err.message,
        "conflict between multiple valid consequences for assigning the same variable."
    );
    // The conflict names the consequences (the `PureDefault`s) of the two applicable rules.
    let spans: Vec<Span> = err.labels.iter().map(|l| l.span).collect();
    assert_eq!(spans, vec![sp(21), sp(41)]);
}

#[test]
fn no_applicable_rule_points_at_declaration() {
    let y = default(vec![], boolean(false, 10), int(1, 11), 12);
    let p = program(vec![define(0, error_on_empty(y, 100))], vec![("y", 0)], 1);
    let err = run_scope(&p, S, vec![None])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert_eq!(err.kind, RuntimeErrorKind::NoValue);
    assert_eq!(err.labels[0].span, sp(100));
}

#[test]
fn context_argument_overrides_the_scope_definition() {
    // x = ⟨ScopeArg 0 | true :- 5⟩; y = x * 2.
    let x = e(
        ExprKind::Default {
            exceptions: vec![e(ExprKind::ScopeArg(0), 5)],
            justification: Box::new(boolean(true, 6)),
            consequence: Box::new(pure(int(5, 7))),
        },
        8,
    );
    let y = bin(BinaryOp::MultIntInt, local(0, 20), int(2, 21), 22);
    let p = program(
        vec![define(0, error_on_empty(x, 100)), define(1, y)],
        vec![("x", 0), ("y", 1)],
        2,
    );
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((int_output(&r, 0), int_output(&r, 1)), (5, 10));
    let r = run_scope(&p, S, vec![Some(Value::integer(7))]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((int_output(&r, 0), int_output(&r, 1)), (7, 14));
}

#[test]
fn division_by_zero_points_at_the_denominator() {
    let d = bin(BinaryOp::DivIntInt, int(1, 10), int(0, 11), 12);
    let p = program(vec![define(0, d)], vec![("y", 0)], 1);
    let err = run_scope(&p, S, vec![None])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert_eq!(err.kind, RuntimeErrorKind::DivisionByZero);
    assert_eq!(err.labels[0].span, sp(11));
}

#[test]
fn failed_assertions_are_collected_and_evaluation_continues() {
    // w = 6; assert w < 6; assert w = 6; assert w > 6  →  "6 ≮ 6", "6 ≯ 6"
    let w = bin(
        BinaryOp::AddIntInt,
        bin(BinaryOp::AddIntInt, int(1, 1), int(2, 2), 3),
        int(3, 4),
        5,
    );
    let assert = |op, at, message: Option<&str>| Stmt::Assert {
        expr: bin(op, local(0, at), int(6, at + 1), at + 2),
        span: sp(at),
        headings: Arc::from(Vec::new()),
        message: message.map(str::to_string),
    };
    let p = program(
        vec![
            define(0, w),
            assert(
                BinaryOp::Lt(CmpType::Integer),
                10,
                Some("Upper bound for w"),
            ),
            assert(BinaryOp::Eq, 20, None),
            assert(BinaryOp::Gt(CmpType::Integer), 30, None),
        ],
        vec![("w", 0)],
        1,
    );
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!r.passed());
    let messages: Vec<&str> = r
        .assertion_failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        messages,
        vec![
            "Assertion failed: Upper bound for w: 6 ≮ 6",
            "Assertion failed: 6 ≯ 6"
        ]
    );
    assert_eq!(r.assertion_failures[1].span, sp(30));
    assert_eq!(int_output(&r, 0), 6);
}

#[test]
fn conjunction_message_skips_true_conjuncts() {
    // assert (1 < 2) and (3 ≥ 4)  →  "3 ≱ 4"
    let a = bin(BinaryOp::Lt(CmpType::Integer), int(1, 1), int(2, 2), 3);
    let b = bin(BinaryOp::Ge(CmpType::Integer), int(3, 4), int(4, 5), 6);
    let p = program(
        vec![Stmt::Assert {
            expr: bin(BinaryOp::And, a, b, 7),
            span: sp(7),
            headings: Arc::from(Vec::new()),
            message: None,
        }],
        vec![],
        1,
    );
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.assertion_failures[0].message, "Assertion failed: 3 ≱ 4");
}

#[test]
fn match_binds_the_payload() {
    // match A content 41 with A x -> x + 1 | B -> 0
    let scrutinee = e(
        ExprKind::EnumInject {
            id: EnumId(0),
            case: 0,
            payload: Some(Box::new(int(41, 1))),
        },
        2,
    );
    let m = e(
        ExprKind::Match {
            expr: Box::new(scrutinee),
            id: EnumId(0),
            arms: vec![
                MatchArm {
                    binder: Some(Slot(1)),
                    body: bin(BinaryOp::AddIntInt, local(1, 3), int(1, 4), 5),
                },
                MatchArm {
                    binder: None,
                    body: int(0, 6),
                },
            ],
        },
        7,
    );
    let p = program(vec![define(0, m)], vec![("y", 0)], 2);
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 42);
}

#[test]
fn closures_capture_and_apply() {
    // let k = 10 in (fun z -> z * k) 4  = 40
    let lambda = catala_ir::dcalc::Lambda {
        captures: vec![Slot(1)],
        params: vec![("z".into(), Ty::Integer)],
        frame_size: 2,
        body: bin(BinaryOp::MultIntInt, local(1, 1), local(0, 2), 3),
    };
    let apply = e(
        ExprKind::Apply {
            func: Box::new(e(ExprKind::Lambda(Arc::new(lambda)), 4)),
            args: vec![int(4, 5)],
        },
        6,
    );
    let body = e(
        ExprKind::Let {
            slot: Slot(1),
            value: Box::new(int(10, 7)),
            body: Box::new(apply),
        },
        8,
    );
    let p = program(vec![define(0, body)], vec![("y", 0)], 2);
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 40);
}

/// A companion that counts the branch decisions it observes.
#[derive(Clone)]
struct Counting;

#[derive(Default, Debug, PartialEq)]
struct BranchCounts {
    justifications_true: usize,
    justifications_false: usize,
    exception_sets: usize,
    ifs: usize,
    divisions: usize,
    assertions: usize,
    /// `(span start, length)` of each `ListLength` event.
    list_lengths: Vec<(u32, usize)>,
}

impl Companion for Counting {
    type Session = BranchCounts;
    fn constant(_: &mut BranchCounts, _: &Value) -> Self {
        Counting
    }
    fn unary(_: &mut BranchCounts, _: UnaryOp, _: (&Value, &Self), _: &Value) -> Self {
        Counting
    }
    fn binary(
        _: &mut BranchCounts,
        _: BinaryOp,
        _: (&Value, &Self),
        _: (&Value, &Self),
        _: &Value,
    ) -> Self {
        Counting
    }
    fn compose(_: &mut BranchCounts, _: Composite, _: Vec<Self>, _: &Value) -> Self {
        Counting
    }
    fn project(_: &mut BranchCounts, _: Projection, _: (&Value, &Self), _: &Value) -> Self {
        Counting
    }
    fn branch(s: &mut BranchCounts, event: BranchEvent<'_, Self>) {
        match event {
            BranchEvent::Justification { taken: true, .. } => s.justifications_true += 1,
            BranchEvent::Justification { taken: false, .. } => s.justifications_false += 1,
            BranchEvent::Exceptions { .. } => s.exception_sets += 1,
            BranchEvent::If { .. } => s.ifs += 1,
            BranchEvent::DivisionByZero { .. } => s.divisions += 1,
            BranchEvent::Assertion { .. } => s.assertions += 1,
            BranchEvent::ListLength { span, length, .. } => {
                s.list_lengths.push((span.start, length))
            }
            _ => {}
        }
    }
}

use catala_ir::dcalc::UnaryOp;

#[test]
fn companion_hooks_see_every_branch() {
    // y = ⟨⟨false :- 2⟩ | true :- if x > 0 then 10 / x else 0⟩ with x = 5 ; assert y = 2.
    let cond = bin(BinaryOp::Gt(CmpType::Integer), int(5, 1), int(0, 2), 3);
    let ite = e(
        ExprKind::If {
            cond: Box::new(cond),
            then_branch: Box::new(bin(BinaryOp::DivIntInt, int(10, 4), int(5, 5), 6)),
            else_branch: Box::new(e(
                ExprKind::Literal(Literal::Decimal(num_rational::BigRational::from_integer(
                    BigInt::from(0),
                ))),
                7,
            )),
        },
        8,
    );
    let y = default(
        vec![default(vec![], boolean(false, 20), int(2, 21), 22)],
        boolean(true, 10),
        ite,
        12,
    );
    let p = program(
        vec![
            define(0, error_on_empty(y, 100)),
            Stmt::Assert {
                expr: boolean(true, 50),
                span: sp(50),
                headings: Arc::from(Vec::new()),
                message: None,
            },
        ],
        vec![("y", 0)],
        1,
    );
    let mut interp =
        Interpreter::<Counting>::new(&p, BranchCounts::default()).unwrap_or_else(|e| panic!("{e}"));
    let ((out, _), failures) = interp.run(S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert!(failures.is_empty());
    assert_eq!(
        interp.session,
        BranchCounts {
            justifications_true: 1,
            justifications_false: 1,
            exception_sets: 2,
            ifs: 1,
            divisions: 1,
            assertions: 1,
            list_lengths: Vec::new(),
        }
    );
    match out {
        Value::Struct(s) => match &s.fields[0] {
            Value::Decimal(d) => assert_eq!(*d, Decimal::from(2)),
            other => panic!("unexpected {other:?}"),
        },
        other => panic!("unexpected {other:?}"),
    }
}

fn list(items: Vec<Expr>, at: usize) -> Expr {
    e(ExprKind::List(items), at)
}

#[test]
fn arg_maximum_keeps_the_last_of_equal_keys() {
    // content of x among [1; 2; 3] such that (if x = 3 then 0 else 5) is maximum → 2
    // (1 and 2 tie on key 5: Catala's left-to-right reduce keeps the last one).
    let key = e(
        ExprKind::If {
            cond: Box::new(bin(BinaryOp::Eq, local(1, 1), int(3, 2), 3)),
            then_branch: Box::new(int(0, 4)),
            else_branch: Box::new(int(5, 5)),
        },
        6,
    );
    let arg = e(
        ExprKind::ListArgExtremum {
            maximum: true,
            key_type: CmpType::Integer,
            binder: Slot(1),
            list: Box::new(list(vec![int(1, 10), int(2, 11), int(3, 12)], 13)),
            key: Box::new(key),
            default: None,
        },
        14,
    );
    let p = program(vec![define(0, arg)], vec![("y", 0)], 2);
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 2);
}

#[test]
fn aggregates_filters_and_empty_lists() {
    use catala_ir::dcalc::{AggregateOp, SumType};
    // sum of [x * 2 for x among [1; 2; 3] if x > 1] = 10
    let filtered = e(
        ExprKind::ListFilter {
            binder: Slot(1),
            list: Box::new(list(vec![int(1, 1), int(2, 2), int(3, 3)], 4)),
            cond: Box::new(bin(
                BinaryOp::Gt(CmpType::Integer),
                local(1, 5),
                int(1, 6),
                7,
            )),
        },
        8,
    );
    let mapped = e(
        ExprKind::ListMap {
            binder: Slot(1),
            list: Box::new(filtered),
            body: Box::new(bin(BinaryOp::MultIntInt, local(1, 9), int(2, 10), 11)),
        },
        12,
    );
    let sum = e(
        ExprKind::ListAggregate {
            op: AggregateOp::Sum(SumType::Integer),
            list: Box::new(mapped),
            default: None,
        },
        13,
    );
    // maximum of [] without default: "the list was empty", at the list.
    let empty_max = e(
        ExprKind::ListAggregate {
            op: AggregateOp::Maximum(CmpType::Integer),
            list: Box::new(list(vec![], 20)),
            default: None,
        },
        21,
    );
    let p = program(vec![define(0, sum)], vec![("y", 0)], 2);
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 10);
    let p = program(vec![define(0, empty_max)], vec![("y", 0)], 2);
    let err = run_scope(&p, S, vec![None])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert_eq!(err.kind, RuntimeErrorKind::ListEmpty);
    assert_eq!(err.labels[0].span, sp(20));
}

#[test]
fn list_operations_report_the_length_they_go_through() {
    use catala_ir::dcalc::{AggregateOp, SumType};
    // sum of (map x among (filter x among [1; 2; 3] such that x > 1) to x): the filter goes
    // through the 3 elements of the literal (at 4), the sum through the 2 kept (at 8).
    let filtered = e(
        ExprKind::ListFilter {
            binder: Slot(1),
            list: Box::new(list(vec![int(1, 1), int(2, 2), int(3, 3)], 4)),
            cond: Box::new(bin(
                BinaryOp::Gt(CmpType::Integer),
                local(1, 5),
                int(1, 6),
                7,
            )),
        },
        8,
    );
    let sum = e(
        ExprKind::ListAggregate {
            op: AggregateOp::Sum(SumType::Integer),
            list: Box::new(filtered),
            default: None,
        },
        13,
    );
    let p = program(vec![define(0, sum)], vec![("y", 0)], 2);
    let mut interp =
        Interpreter::<Counting>::new(&p, BranchCounts::default()).unwrap_or_else(|e| panic!("{e}"));
    let _ = interp.run(S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(interp.session.list_lengths, vec![(4, 3), (8, 2)]);
}

#[test]
fn sub_scope_calls_receive_context_arguments() {
    // Scope 0 calls scope 1 (whose x is a context variable with default 5 and y = x + 1)
    // twice: once without an argument, once with x := 7.
    let mut p = program(Vec::new(), vec![("a", 0), ("b", 1)], 2);
    let callee_x = e(
        ExprKind::Default {
            exceptions: vec![e(ExprKind::ScopeArg(0), 30)],
            justification: Box::new(boolean(true, 31)),
            consequence: Box::new(pure(int(5, 32))),
        },
        33,
    );
    let mut callee = p.scopes[0].clone();
    callee.name = "Callee".into();
    callee.is_test = false;
    callee.output_struct = StructId(2);
    callee.outputs = vec![ScopeOutput {
        name: "y".into(),
        ty: Ty::Integer,
        slot: Slot(1),
    }];
    callee.frame_size = 2;
    callee.body = vec![
        define(0, error_on_empty(callee_x, 300)),
        define(1, bin(BinaryOp::AddIntInt, local(0, 34), int(1, 35), 36)),
    ];
    p.structs.push(StructDef {
        name: "Callee".into(),
        fields: vec![FieldDef {
            name: "y".into(),
            ty: Ty::Integer,
        }],
        span: sp(0),
    });
    p.scopes.push(callee);
    let call = |slot: u32, arg: Option<Expr>| Stmt::CallSubScope {
        subscope: slot,
        slot: Slot(slot + 2),
        scope: ScopeId(1),
        args: vec![arg],
        span: sp(40),
    };
    let field = |slot: u32| {
        e(
            ExprKind::StructField {
                expr: Box::new(local(slot, 41)),
                id: StructId(2),
                field: 0,
            },
            42,
        )
    };
    p.scopes[0].frame_size = 4;
    p.scopes[0].body = vec![
        call(0, None),
        call(1, Some(pure(int(7, 43)))),
        define(0, field(2)),
        define(1, field(3)),
    ];
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((int_output(&r, 0), int_output(&r, 1)), (6, 8));
}

#[test]
fn top_level_definitions_are_evaluated_once_before_scopes() {
    use catala_ir::dcalc::{TopDef, TopDefId};
    let mut p = program(Vec::new(), vec![("y", 0)], 1);
    p.topdefs.push(TopDef {
        name: "base".into(),
        ty: Ty::Integer,
        body: bin(BinaryOp::MultIntInt, int(6, 1), int(7, 2), 3),
        frame_size: 0,
        span: sp(0),
    });
    p.topdef_order.push(TopDefId(0));
    p.scopes[0].body = vec![define(
        0,
        bin(
            BinaryOp::AddIntInt,
            e(ExprKind::TopDef(TopDefId(0)), 4),
            int(1, 5),
            6,
        ),
    )];
    let r = run_scope(&p, S, vec![None]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(int_output(&r, 0), 43);
}
