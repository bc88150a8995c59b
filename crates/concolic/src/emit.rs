//! Catala test files from explored paths, in Catala's test model. Each test that computes its
//! outputs becomes a `#[test]` scope calling the explored scope on the test's inputs and
//! asserting every output. A test ending in an error becomes a plain scope with the same call
//! and a ```catala-test-cli block: the command that runs it (`catala test-scope T`), the error
//! it prints and `#return code 123#`. A program declaring a module is used (`> Using M`) and
//! its names qualified ([`names`]); any other program is included (`> Include:`). Values are
//! written as exact Catala literals (negative numbers as differences, non-decimal fractions as
//! quotients); a path with an input that has none (a function input, fixed by the exploration)
//! is listed as text, not written as a test. The scopes are built as syntax trees and written by the one Catala printer
//! (`catala_syntax::printer`), in the language of the explored file.

pub mod names;

use crate::{Exploration, Outcome, TestCase};
use catala_eval::runtime::{Decimal, Integer, Value};
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::ast::{self, BinOp, ExprKind as E, Ident, Language, QualName};
use catala_syntax::printer::Printer;
use catala_syntax::Span;
pub use names::{ProgramLink, TestNames};
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

/// `Q.name`, or `name` without a qualifier.
fn qualified(qualifier: Option<&str>, mut path: Vec<Ident>, name: &str) -> QualName {
    if let Some(q) = qualifier {
        path.insert(0, ident(q));
    }
    QualName {
        path,
        name: ident(name),
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
pub(crate) fn value_expr(program: &Program, names: &TestNames, v: &Value) -> ast::Expr {
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
                    (ident(fname), value_expr(program, names, f))
                })
                .collect();
            let qualifier = names.structure(st.struct_id as usize);
            node(E::StructLit(qualified(qualifier, Vec::new(), name), fields))
        }
        Value::Enum(e) => {
            let def = program.enums.get(e.enum_id as usize);
            let case = def.and_then(|d| d.cases.get(e.case as usize));
            let optional = program.option_enum.map(|o| o.0) == Some(e.enum_id);
            // `Enum.Case` names the case without ambiguity (but `Present`/`Absent` stand alone).
            // (`M.Enum.Case` for an enumeration of module `M`).
            let path = match def {
                Some(d) if !optional => vec![ident(&d.name)],
                _ => Vec::new(),
            };
            let payload = case
                .is_some_and(|c| c.payload.is_some())
                .then(|| Box::new(value_expr(program, names, &e.payload)));
            let qualifier = names.enumeration(e.enum_id as usize);
            let case_name = case.map_or("?", |c| c.name.as_str());
            node(E::Constructor {
                name: qualified(qualifier.filter(|_| !optional), path, case_name),
                payload,
            })
        }
        Value::Tuple(items) => node(E::Tuple(
            items
                .iter()
                .map(|i| value_expr(program, names, i))
                .collect(),
        )),
        Value::List(items) => node(E::List(
            items
                .iter()
                .map(|i| value_expr(program, names, i))
                .collect(),
        )),
    }
}

/// Whether a value has a Catala literal: not the placeholder an input without a symbolic model
/// is fixed to (a function's), nor a closure, at any depth.
fn writable(program: &Program, v: &Value) -> bool {
    match v {
        Value::Unit | Value::Closure(_) => false,
        Value::Struct(st) => st.fields.iter().all(|f| writable(program, f)),
        Value::Enum(e) => {
            let has_payload = program
                .enums
                .get(e.enum_id as usize)
                .and_then(|d| d.cases.get(e.case as usize))
                .is_some_and(|c| c.payload.is_some());
            !has_payload || writable(program, &e.payload)
        }
        Value::Tuple(items) | Value::List(items) => items.iter().all(|i| writable(program, i)),
        _ => true,
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
    Printer::new(lang).expr(&value_expr(program, &TestNames::plain(program), v))
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

/// `to` relative to the directory `from` (both made absolute).
pub fn path_from(to: &Path, from: &Path) -> PathBuf {
    relative_path(to, from)
}

/// The exit code of a Catala command ending in an error, as a test block writes it.
pub const ERROR_EXIT_CODE: i32 = 123;

/// The explored scope and the names its test file gives to the program.
pub struct Suite<'a> {
    pub program: &'a Program,
    pub scope: ScopeId,
    pub names: &'a TestNames,
}

/// A definition `run.INPUT equals VALUE` of a test scope.
fn input_definition(run: &Ident, input: &str, value: ast::Expr) -> ast::ScopeUseItem {
    ast::ScopeUseItem::Definition(ast::Definition {
        label: None,
        exception: ast::ExceptionTo::None,
        target: ast::DefTarget {
            path: vec![run.clone(), ident(input)],
            state: None,
            span: Span::default(),
        },
        params: Vec::new(),
        condition: None,
        body: ast::DefBody::Expr(value),
        is_rule: false,
        span: Span::default(),
        attributes: Vec::new(),
    })
}

impl Suite<'_> {
    /// The name of the scope of test `i` (0-based).
    pub fn test_scope_name(&self, i: usize) -> String {
        format!("Test_{}_{}", self.program.scope(self.scope).name, i + 1)
    }

    /// The title of the test file and how it brings in the explored source (`include`: the
    /// source's path relative to the test file's directory).
    pub fn header(&self, include: &Path) -> String {
        let decl = self.program.scope(self.scope);
        let printer = Printer::new(decl.language);
        let (title, include_word) = match decl.language {
            Language::En => ("Tests of", "Include"),
            Language::Fr => ("Tests de", "Inclusion"),
            Language::Pl => ("Testy", "Include"),
        };
        let mut out = format!("# {title} {}\n\n", decl.name);
        let use_line = |module: &str, alias: Option<&str>| {
            printer.item(
                &ast::ItemKind::ModuleUse {
                    name: ident(module),
                    alias: alias.map(ident),
                },
                &[],
            )
        };
        if let ProgramLink::Module(m) = &self.names.link {
            out.push_str(&use_line(m, None));
        }
        for (module, alias) in &self.names.uses {
            out.push_str(&use_line(module, alias.as_deref()));
        }
        if let ProgramLink::Include = &self.names.link {
            if !self.names.uses.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "> {include_word}: {}", include.display());
        }
        out.push('\n');
        out
    }

    /// Whether test `t` can be written as a test: every input it gives has a Catala literal
    /// (a function input fixed by the exploration has none; such a path is listed as text).
    pub fn is_writable(&self, t: &TestCase) -> bool {
        t.inputs.iter().flatten().all(|v| writable(self.program, v))
    }

    /// The text of test `i` (0-based): a `#[test]` scope asserting its outputs, or, for a path
    /// ending in an error, a scope and the ```catala-test-cli block running it with
    /// `expected_error` (the error as `catala test-scope` prints it) and the exit code. Without
    /// `expected_error`, an error path is listed with its inputs only.
    pub fn test_text(&self, i: usize, t: &TestCase, expected_error: Option<&str>) -> String {
        let (program, names) = (self.program, self.names);
        let decl = program.scope(self.scope);
        let printer = Printer::new(decl.language);
        let run = ident("run");
        let test_name = ident(&self.test_scope_name(i));
        let mut unwritable = Vec::new();
        let mut items: Vec<ast::ScopeUseItem> = decl
            .inputs
            .iter()
            .zip(&t.inputs)
            .filter_map(|(input, v)| {
                let v = v.as_ref()?;
                if !writable(program, v) {
                    unwritable.push(input.name.as_str());
                    return None;
                }
                Some(input_definition(
                    &run,
                    &input.name,
                    value_expr(program, names, v),
                ))
            })
            .collect();
        if !unwritable.is_empty() {
            // A test file cannot give such an input (Catala has no literal for it): the path is
            // listed, not written as a test.
            return self.listed_path(i, t, &test_name, &items, Some(&unwritable));
        }
        let outputs = match (&t.outcome, expected_error) {
            (Outcome::Ok(outs), _) => Some(outs),
            (_, Some(_)) => None,
            (_, None) => return self.listed_path(i, t, &test_name, &items, None),
        };
        for (name, v) in outputs.into_iter().flatten() {
            let field = node(E::Field(
                Box::new(node(E::Var(run.clone()))),
                None,
                ident(name),
            ));
            let check = node(E::Binop(
                BinOp::Eq,
                Span::default(),
                Box::new(field),
                Box::new(value_expr(program, names, v)),
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
                scope: qualified(
                    names.scope(program, self.scope).as_deref(),
                    Vec::new(),
                    &decl.name,
                ),
                output: true,
                span: Span::default(),
            })],
        });
        let body = ast::ItemKind::ScopeUse(ast::ScopeUse {
            scope: QualName {
                path: Vec::new(),
                name: test_name.clone(),
            },
            condition: None,
            items,
        });
        let attributes = match outputs {
            Some(_) => vec![ast::Attribute {
                path: vec!["test".into()],
                value: None,
                span: Span::default(),
            }],
            None => Vec::new(),
        };
        let mut out = String::from("```catala\n");
        let _ = writeln!(out, "# path {} ({})", t.path, t.outcome.kind());
        out.push_str(&printer.item(&declaration, &attributes));
        out.push('\n');
        out.push_str(&printer.item(&body, &[]));
        out.push_str("```\n\n");
        if let (None, Some(expected)) = (outputs, expected_error) {
            let _ = writeln!(
                out,
                "```catala-test-cli\n$ catala test-scope {} --disable-warnings",
                test_name.name
            );
            for line in expected.lines() {
                let _ = writeln!(out, "{}", line.trim_end());
            }
            let _ = writeln!(out, "#return code {ERROR_EXIT_CODE}#\n```\n");
        }
        out
    }

    /// A path as text, for a reader to replay: one ending in an error (without its error), or
    /// one with `unwritable` inputs (named; the others are listed).
    fn listed_path(
        &self,
        i: usize,
        t: &TestCase,
        test_name: &Ident,
        items: &[ast::ScopeUseItem],
        unwritable: Option<&[&str]>,
    ) -> String {
        let printer = Printer::new(self.program.scope(self.scope).language);
        let mut defs = String::new();
        for item in items {
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
        match unwritable {
            None => format!(
                "Path {} ends with `{}` on these inputs (path identifier `{}`):\n\n```\n{defs}```\n\n",
                i + 1,
                t.outcome.kind(),
                t.path
            ),
            Some(names) => format!(
                "Path {} ends with `{}` (path identifier `{}`); it is not written as a test: a test \
                 file has no literal for its input{} {} (a function, or a value without a symbolic \
                 model, which the exploration fixed). {}\n\n",
                i + 1,
                t.outcome.kind(),
                t.path,
                if names.len() == 1 { "" } else { "s" },
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if defs.is_empty() {
                    "It has no other input.".to_string()
                } else {
                    format!("Its other inputs:\n\n```\n{defs}```")
                }
            ),
        }
    }

    /// The path of the test file written into `dir` for the explored `source`.
    pub fn file_path(&self, source: &Path, dir: &Path) -> PathBuf {
        let ext = source
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("catala_en");
        dir.join(format!(
            "{}_concolic.{ext}",
            self.program.scope(self.scope).name
        ))
    }

    /// Writes the header and `tests` (texts of [`Suite::test_text`], in order) as the test
    /// file of `source` in `dir`; returns its path.
    pub fn write(&self, tests: &[String], source: &Path, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = self.file_path(source, dir);
        let mut text = self.header(&relative_path(source, dir));
        for t in tests {
            text.push_str(t);
        }
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// The text of test `i` (0-based) of the file of a program without modules: a test scope,
/// or for a path ending in an error, its inputs.
pub fn test_text(program: &Program, scope: ScopeId, i: usize, t: &TestCase) -> String {
    let names = TestNames::plain(program);
    Suite {
        program,
        scope,
        names: &names,
    }
    .test_text(i, t, None)
}

/// Writes the tests of `exploration` as Catala test scopes into `dir` (the program
/// included, error paths listed); returns the file path.
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
    let names = TestNames::plain(program);
    Suite {
        program,
        scope,
        names: &names,
    }
    .write(tests, source, dir)
}
