//! Catala test scopes from explored paths. Each test that computes its outputs becomes a
//! `#[test]` scope calling the explored scope on the test's inputs and asserting every output;
//! tests ending in an error are listed in the file's text with their inputs. The file includes
//! the explored source (`> Include:`), so `lexprobe test` and the Catala compiler can replay it.
//! Values are written as exact Catala literals (negative numbers as differences, non-decimal
//! fractions as quotients). The scopes are built as syntax trees and written by the one Catala
//! printer (`catala_syntax::printer`), in the language of the explored file.

use crate::{Exploration, Outcome, TestCase};
use catala_eval::runtime::{Decimal, Integer, Value};
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::ast::{self, BinOp, ExprKind as E, Ident, Language, QualName};
use catala_syntax::printer::Printer;
use catala_syntax::Span;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn node(kind: E) -> ast::Expr {
    ast::Expr {
        kind,
        span: Span::default(),
    }
}

fn lit(l: ast::Literal) -> ast::Expr {
    node(E::Literal(l))
}

/// `zero - x`: how a negative amount is written (a literal has no sign).
fn negated(zero: ast::Expr, x: ast::Expr) -> ast::Expr {
    node(E::Binop(
        BinOp::Sub,
        Span::default(),
        Box::new(zero),
        Box::new(x),
    ))
}

fn int_lit(digits: String) -> ast::Expr {
    lit(ast::Literal::Integer(digits))
}

fn dec_lit(int_part: String, frac_part: String) -> ast::Expr {
    lit(ast::Literal::Decimal {
        int_part,
        frac_part,
    })
}

/// The syntax tree of a Catala literal for a value (the inverse of evaluation for the values a
/// test takes or gives).
pub(crate) fn value_expr(program: &Program, v: &Value) -> ast::Expr {
    match v {
        Value::Unit | Value::Closure(_) => node(E::Tuple(Vec::new())),
        Value::Bool(b) => lit(ast::Literal::Bool(*b)),
        Value::Integer(i) => {
            let abs = int_lit(i.abs().to_string());
            if i.signum() < 0 {
                negated(int_lit("0".into()), abs)
            } else {
                abs
            }
        }
        Value::Decimal(d) => decimal_expr(d),
        Value::Money(c) => {
            let abs = c.abs();
            let (units, rest) = abs.div_rem(&Integer::from(100));
            let m = lit(ast::Literal::Money {
                units: units.to_string(),
                cents: format!("{:02}", rest.to_i64().unwrap_or(0)),
            });
            if c.signum() < 0 {
                let zero = lit(ast::Literal::Money {
                    units: "0".into(),
                    cents: "00".into(),
                });
                negated(zero, m)
            } else {
                m
            }
        }
        Value::Date(d) => lit(ast::Literal::Date {
            year: d.year,
            month: u32::from(d.month),
            day: u32::from(d.day),
        }),
        Value::Duration(d) => {
            let part = |amount: i64, unit| {
                let l = |a: i64| {
                    lit(ast::Literal::Duration {
                        amount: a.to_string(),
                        unit,
                    })
                };
                if amount < 0 {
                    negated(l(0), l(-amount))
                } else {
                    l(amount)
                }
            };
            let add = |a, b| {
                node(E::Binop(
                    BinOp::Add,
                    Span::default(),
                    Box::new(a),
                    Box::new(b),
                ))
            };
            add(
                add(
                    part(d.years, ast::DurationUnit::Year),
                    part(d.months, ast::DurationUnit::Month),
                ),
                part(d.days, ast::DurationUnit::Day),
            )
        }
        Value::Struct(st) => {
            let def = program.structs.get(st.struct_id as usize);
            let name = def.map_or("?", |d| d.name.as_str());
            let fields = st
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let fname = def
                        .and_then(|d| d.fields.get(i))
                        .map_or("?", |f| f.name.as_str());
                    (ident(fname), value_expr(program, f))
                })
                .collect();
            node(E::StructLit(
                QualName {
                    path: Vec::new(),
                    name: ident(name),
                },
                fields,
            ))
        }
        Value::Enum(e) => {
            let def = program.enums.get(e.enum_id as usize);
            let case = def.and_then(|d| d.cases.get(e.case as usize));
            let optional = program.option_enum.map(|o| o.0) == Some(e.enum_id);
            // `Enum.Case` names the case without ambiguity (but `Present`/`Absent` stand alone).
            let path = match def {
                Some(d) if !optional => vec![ident(&d.name)],
                _ => Vec::new(),
            };
            let payload = case
                .is_some_and(|c| c.payload.is_some())
                .then(|| Box::new(value_expr(program, &e.payload)));
            node(E::Constructor {
                name: QualName {
                    path,
                    name: ident(case.map_or("?", |c| c.name.as_str())),
                },
                payload,
            })
        }
        Value::Tuple(items) => node(E::Tuple(
            items.iter().map(|i| value_expr(program, i)).collect(),
        )),
        Value::List(items) => node(E::List(
            items.iter().map(|i| value_expr(program, i)).collect(),
        )),
    }
}

/// Exact decimal: finite expansions as digits, others as a quotient.
fn decimal_expr(d: &Decimal) -> ast::Expr {
    let (num, den) = d.numer_denom();
    let expr = match (num.abs().to_i64(), den.to_i64()) {
        (Some(n), Some(q)) => match finite_expansion(n, q) {
            Some((int_part, frac_part)) => dec_lit(int_part, frac_part),
            None => node(E::Binop(
                BinOp::Div,
                Span::default(),
                Box::new(dec_lit(n.to_string(), "0".into())),
                Box::new(dec_lit(q.to_string(), "0".into())),
            )),
        },
        _ => node(E::Binop(
            BinOp::Div,
            Span::default(),
            Box::new(dec_lit(num.abs().to_string(), "0".into())),
            Box::new(dec_lit(den.to_string(), "0".into())),
        )),
    };
    if d.signum() < 0 {
        negated(dec_lit("0".into(), "0".into()), expr)
    } else {
        expr
    }
}

/// `n / q` as integer and fractional digits when its decimal expansion is finite.
fn finite_expansion(n: i64, den: i64) -> Option<(String, String)> {
    let mut q = den;
    let mut digits = 0u32;
    while q % 10 == 0 && q > 1 {
        q /= 10;
        digits += 1;
    }
    let (mut twos, mut fives) = (0u32, 0u32);
    while q % 2 == 0 {
        q /= 2;
        twos += 1;
    }
    while q % 5 == 0 {
        q /= 5;
        fives += 1;
    }
    if q != 1 {
        return None;
    }
    let scale = digits + twos.max(fives);
    let scaled = i128::from(n).checked_mul(10i128.checked_pow(scale)?)? / i128::from(den);
    let p = 10i128.pow(scale);
    let frac = if scale == 0 {
        "0".to_string()
    } else {
        format!("{:0width$}", scaled % p, width = scale as usize)
    };
    Some(((scaled / p).to_string(), frac))
}

/// A Catala literal for a value, as the printer writes it in `lang`.
pub fn literal(program: &Program, v: &Value, lang: Language) -> String {
    Printer::new(lang).expr(&value_expr(program, v))
}

/// `to` relative to the directory `from` (both made absolute).
fn relative_path(to: &Path, from: &Path) -> PathBuf {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let (to, from) = (abs(to), abs(from));
    let a: Vec<Component> = to.components().collect();
    let b: Vec<Component> = from.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// The title of the test file and its inclusion of the explored source.
pub(crate) fn test_file_header(program: &Program, scope: ScopeId, include: &Path) -> String {
    let decl = program.scope(scope);
    let (title, include_word) = match decl.language {
        Language::En => ("Tests of", "Include"),
        Language::Fr => ("Tests de", "Inclusion"),
        Language::Pl => ("Testy", "Include"),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {title} {}\n\n> {include_word}: {}\n",
        decl.name,
        include.display()
    );
    out
}

/// The text of test `i` (0-based) of the file: a test scope, or for a path ending in an
/// error, its inputs.
pub fn test_text(program: &Program, scope: ScopeId, i: usize, t: &TestCase) -> String {
    let decl = program.scope(scope);
    let printer = Printer::new(decl.language);
    let mut out = String::new();
    let run = ident("run");
    {
        let test_name = ident(&format!("Test_{}_{}", decl.name, i + 1));
        let mut items: Vec<ast::ScopeUseItem> = Vec::new();
        for (input, v) in decl.inputs.iter().zip(&t.inputs) {
            if let Some(v) = v {
                items.push(ast::ScopeUseItem::Definition(ast::Definition {
                    label: None,
                    exception: ast::ExceptionTo::None,
                    target: ast::DefTarget {
                        path: vec![run.clone(), ident(&input.name)],
                        state: None,
                        span: Span::default(),
                    },
                    params: Vec::new(),
                    condition: None,
                    body: ast::DefBody::Expr(value_expr(program, v)),
                    is_rule: false,
                    span: Span::default(),
                    attributes: Vec::new(),
                }));
            }
        }
        let Outcome::Ok(outs) = &t.outcome else {
            // A path ending in an error: its inputs, for a reader to replay.
            let mut defs = String::new();
            for item in &items {
                let text = printer.item(
                    &ast::ItemKind::ScopeUse(ast::ScopeUse {
                        scope: QualName {
                            path: Vec::new(),
                            name: test_name.clone(),
                        },
                        condition: None,
                        items: vec![item.clone()],
                    }),
                    &[],
                );
                defs.extend(text.lines().skip(1).map(|l| format!("{l}\n")));
            }
            let _ = writeln!(
                out,
                "Path {} ends with `{}` on these inputs (path identifier `{}`):\n\n```\n{defs}```\n",
                i + 1,
                t.outcome.kind(),
                t.path
            );
            return out;
        };
        for (name, v) in outs {
            let field = node(E::Field(
                Box::new(node(E::Var(run.clone()))),
                None,
                ident(name),
            ));
            let check = node(E::Binop(
                BinOp::Eq,
                Span::default(),
                Box::new(field),
                Box::new(value_expr(program, v)),
            ));
            items.push(ast::ScopeUseItem::Assertion(ast::Assertion {
                expr: check,
                span: Span::default(),
                attributes: Vec::new(),
            }));
        }
        let declaration = ast::ItemKind::ScopeDecl(ast::ScopeDecl {
            name: test_name.clone(),
            items: vec![ast::ScopeDeclItem::SubScope(ast::SubScopeDecl {
                name: run.clone(),
                scope: QualName {
                    path: Vec::new(),
                    name: ident(&decl.name),
                },
                output: true,
                span: Span::default(),
            })],
        });
        let body = ast::ItemKind::ScopeUse(ast::ScopeUse {
            scope: QualName {
                path: Vec::new(),
                name: test_name,
            },
            condition: None,
            items,
        });
        let test_attribute = ast::Attribute {
            path: vec!["test".into()],
            value: None,
            span: Span::default(),
        };
        out.push_str("```catala\n");
        let _ = writeln!(out, "# path {}", t.path);
        out.push_str(&printer.item(&declaration, &[test_attribute]));
        out.push('\n');
        out.push_str(&printer.item(&body, &[]));
        out.push_str("```\n\n");
    }
    out
}

/// Writes the tests of `exploration` as Catala test scopes into `dir`; returns the file path.
pub fn write_test_file(
    program: &Program,
    scope: ScopeId,
    exploration: &Exploration,
    source: &Path,
    dir: &Path,
) -> std::io::Result<PathBuf> {
    let tests: Vec<String> = exploration
        .tests
        .iter()
        .enumerate()
        .map(|(i, t)| test_text(program, scope, i, t))
        .collect();
    write_test_texts(program, scope, &tests, source, dir)
}

/// Writes tests already written out by [`test_text`], in order, as [`write_test_file`] does.
pub fn write_test_texts(
    program: &Program,
    scope: ScopeId,
    tests: &[String],
    source: &Path,
    dir: &Path,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let decl = program.scope(scope);
    let ext = source
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("catala_en");
    let path = dir.join(format!("{}_concolic.{ext}", decl.name));
    let include = relative_path(source, dir);
    let mut text = test_file_header(program, scope, &include);
    for t in tests {
        text.push_str(t);
    }
    std::fs::write(&path, text)?;
    Ok(path)
}
