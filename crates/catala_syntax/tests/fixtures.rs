//! Parses the fixtures of `tests/fixtures/syntax` (written for this crate, in English, French
//! and Polish) and checks the AST: item kinds, heading trails, attributes, literals, and the
//! shape of expressions, which shows Catala's operator precedences and associativities
//! (`compiler/surface/parser.mly`). Expressions are compared through a compact
//! S-expression form.

use catala_syntax::ast::*;
use catala_syntax::{parse_file, parse_str, DiagnosticKind, SourceMap};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/syntax")
        .join(name)
}

fn parse_fixture(name: &str) -> (SourceMap, Program) {
    match parse_file(&fixture(name)) {
        Ok(r) => r,
        Err(d) => panic!("{name}: {d:?}"),
    }
}

fn q(n: &QualName) -> String {
    let mut parts: Vec<&str> = n.path.iter().map(|p| p.name.as_str()).collect();
    parts.push(&n.name.name);
    parts.join(".")
}

fn lit(l: &Literal) -> String {
    match l {
        Literal::Bool(b) => b.to_string(),
        Literal::Integer(i) => i.clone(),
        Literal::Decimal {
            int_part,
            frac_part,
        } => format!("{int_part}.{frac_part}"),
        Literal::Percent {
            int_part,
            frac_part,
        } => format!("{int_part}.{frac_part}%"),
        Literal::Money { units, cents } => format!("${units}.{cents}"),
        Literal::Date { year, month, day } => format!("|{year}-{month}-{day}|"),
        Literal::Duration { amount, unit } => format!("{amount}{unit:?}"),
    }
}

fn fields(fs: &[(Ident, Expr)]) -> String {
    fs.iter()
        .map(|(f, e)| format!("{}={}", f.name, sx(e)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A compact S-expression of an expression.
fn sx(e: &Expr) -> String {
    use ExprKind as E;
    match &e.kind {
        E::Literal(l) => lit(l),
        E::Var(v) => v.name.clone(),
        E::QualVar(n) => q(n),
        E::Constructor { name, payload } => match payload {
            Some(p) => format!("({} {})", q(name), sx(p)),
            None => q(name),
        },
        E::Field(e, None, f) => format!("{}.{}", sx(e), f.name),
        E::Field(e, Some(q), f) => format!("{}.{}.{}", sx(e), q.name.name, f.name),
        E::TupleIndex(e, i) => format!("{}.{i}", sx(e)),
        E::StateAccess(v, s) => format!("{}@{}", v.name, s.name),
        E::Binop(op, _, a, b) => format!("({op:?} {} {})", sx(a), sx(b)),
        E::Unop(op, a) => format!("({op:?} {})", sx(a)),
        E::If(c, t, f) => format!("(if {} {} {})", sx(c), sx(t), sx(f)),
        E::Let(v, a, b) => format!("(let {} {} {})", v.name, sx(a), sx(b)),
        E::LetTuple(vs, a, b) => {
            let names: Vec<&str> = vs.iter().map(|v| v.name.as_str()).collect();
            format!("(let [{}] {} {})", names.join(" "), sx(a), sx(b))
        }
        E::Match(s, arms) => {
            let arms: Vec<String> = arms
                .iter()
                .map(|a| {
                    let p = match &a.pattern {
                        Pattern::Ctor { ctor, binding } => match binding {
                            Some(b) => format!("{} {}", q(ctor), b.name),
                            None => q(ctor),
                        },
                        Pattern::Wildcard(_) => "_".into(),
                    };
                    format!("[{p}: {}]", sx(&a.body))
                })
                .collect();
            format!("(match {} {})", sx(s), arms.join(" "))
        }
        E::TestCtor {
            expr,
            ctor,
            binding,
            and_cond,
        } => match (binding, and_cond) {
            (Some(b), Some(c)) => format!("(is {} {} {} and {})", sx(expr), q(ctor), b.name, sx(c)),
            (Some(b), None) => format!("(is {} {} {})", sx(expr), q(ctor), b.name),
            (None, _) => format!("(is {} {})", sx(expr), q(ctor)),
        },
        E::StructLit(n, fs) => format!("({} {{{}}})", q(n), fields(fs)),
        E::StructReplace(e, fs) => format!("(replace {} {{{}}})", sx(e), fields(fs)),
        E::ScopeCall(n, fs) => format!("(call {} {{{}}})", q(n), fields(fs)),
        E::Call(f, args) => {
            let args: Vec<String> = args.iter().map(sx).collect();
            format!("({} {})", sx(f), args.join(" "))
        }
        E::Builtin(b, a) => format!("({b:?} {})", sx(a)),
        E::Tuple(es) => format!(
            "(tuple {})",
            es.iter().map(sx).collect::<Vec<_>>().join(" ")
        ),
        E::List(es) => format!("[{}]", es.iter().map(sx).collect::<Vec<_>>().join(" ")),
        E::ListZip(l) => format!("(zip {})", sx(l)),
        E::ListMap { var, list, body } => {
            format!("(map {} {} {})", var.name, sx(list), sx(body))
        }
        E::ListFilter { var, list, cond } => {
            format!("(filter {} {} {})", var.name, sx(list), sx(cond))
        }
        E::ListExists { var, list, cond } => {
            format!("(exists {} {} {})", var.name, sx(list), sx(cond))
        }
        E::ListForAll { var, list, cond } => {
            format!("(forall {} {} {})", var.name, sx(list), sx(cond))
        }
        E::ListAggregate { op, list, default } => {
            let op = match op {
                Aggregate::Sum(t) => format!("sum:{:?}", t.kind),
                other => format!("{other:?}").to_lowercase(),
            };
            match default {
                Some(d) => format!("({op} {} {})", sx(list), sx(d)),
                None => format!("({op} {})", sx(list)),
            }
        }
        E::ListArgExtremum {
            maximum,
            var,
            list,
            key,
            default,
        } => format!(
            "({} {} {} {}{})",
            if *maximum { "argmax" } else { "argmin" },
            var.name,
            sx(list),
            sx(key),
            default
                .as_ref()
                .map_or(String::new(), |d| format!(" {}", sx(d)))
        ),
        E::ListFold {
            var,
            list,
            acc,
            init,
            step,
        } => format!(
            "(fold {} {} {} {} {})",
            var.name,
            sx(list),
            acc.name,
            sx(init),
            sx(step)
        ),
        E::ListContains(l, e) => format!("(contains {} {})", sx(l), sx(e)),
        E::ListFind { var, list, cond } => {
            format!("(find {} {} {})", var.name, sx(list), sx(cond))
        }
        E::ListSort {
            var,
            list,
            keys,
            descending,
        } => format!(
            "(sort{} {} {}{})",
            if *descending { "-desc" } else { "" },
            var.as_ref().map_or("_", |v| v.name.as_str()),
            sx(list),
            keys.iter()
                .map(|k| format!(" {}", sx(k)))
                .collect::<String>()
        ),
        E::Assert(c, n, _) => format!("(assert {} {})", sx(c), sx(n)),
        E::Impossible => "impossible".into(),
        E::ImpossibleMessage(m) => format!("(impossible {m:?})"),
        E::DebugPrint(label, e) => format!("(debug {label:?} {})", sx(e)),
    }
}

fn topdef<'a>(p: &'a Program, name: &str) -> &'a TopDef {
    p.items
        .iter()
        .find_map(|i| match &i.kind {
            ItemKind::TopDef(t) if t.name.name == name => Some(t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no top-level definition {name}"))
}

/// The let-bound values of a chain of `let`s, by name, and the final body.
fn lets(e: &Expr) -> (Vec<(String, String)>, String) {
    let mut out = Vec::new();
    let mut cur = e;
    while let ExprKind::Let(v, value, body) = &cur.kind {
        out.push((v.name.clone(), sx(value)));
        cur = body;
    }
    (out, sx(cur))
}

fn bound<'a>(lets: &'a [(String, String)], name: &str) -> &'a str {
    lets.iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

fn one_expr(text: &str, lang: Language) -> String {
    let src = match lang {
        Language::En => format!("```catala\ndeclaration x content integer equals {text}\n```\n"),
        Language::Fr => format!("```catala\ndéclaration x contenu entier égal à {text}\n```\n"),
        Language::Pl => format!("```catala\ndeklaracja x typu całkowita wynosi {text}\n```\n"),
    };
    match parse_str("expr.catala", &src, lang) {
        Ok((_, p)) => sx(&topdef(&p, "x").body),
        Err(d) => format!("error: {}", d.message),
    }
}

#[test]
fn english_fixture_items_headings_and_attributes() {
    let (sources, p) = parse_fixture("all_constructs.catala_en");
    let kinds: Vec<String> = p
        .items
        .iter()
        .map(|i| match &i.kind {
            ItemKind::StructDecl(s) => format!("struct {}", s.name.name),
            ItemKind::EnumDecl(e) => format!("enum {}", e.name.name),
            ItemKind::ScopeDecl(s) => format!("scope {}", s.name.name),
            ItemKind::ScopeUse(s) => format!("use {}", q(&s.scope)),
            ItemKind::TopDef(t) => format!("def {}", t.name.name),
            ItemKind::ModuleDef { name, .. } => format!("module {}", name.name),
            ItemKind::ModuleUse { name, .. } => format!("using {}", name.name),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "enum Territory",
            "struct Person",
            "enum Residence",
            "scope Benefit",
            "scope Supplement",
            "def half",
            "use Benefit",
            "use Supplement",
            "def precedence",
            "def lists",
            "def structures",
            "def calls"
        ]
    );
    // The included file has its own heading trail; the main file's trail pops by level.
    let trail = |i: usize| -> Vec<String> {
        p.items[i]
            .headings
            .iter()
            .map(|h| h.title.clone())
            .collect()
    };
    assert_eq!(trail(0), ["Included file"]);
    assert!(sources
        .file(p.items[0].span.file)
        .display_name
        .ends_with("included_types.catala_en"));
    assert_eq!(trail(1), ["Household benefits", "Declarations"]);
    assert_eq!(trail(6), ["Household benefits", "Article 1", "Paragraph a"]);
    assert_eq!(trail(7), ["Household benefits", "Article 1", "Paragraph b"]);
    assert_eq!(trail(8), ["Household benefits", "Expressions"]);
    assert!(p.items[1].metadata && !p.items[6].metadata);
    assert_eq!(p.items[3].attributes[0].path, ["test"]);
    assert!(p.items[2].attributes.is_empty());
    // Positions are Catala's: 1-based line and column.
    let pos = sources.position(p.items[6].span);
    assert_eq!((pos.start_line, pos.start_col), (50, 1));
}

#[test]
fn english_declarations() {
    let (_, p) = parse_fixture("all_constructs.catala_en");
    let ItemKind::StructDecl(person) = &p.items[1].kind else {
        panic!("struct expected")
    };
    let fields: Vec<(&str, String, usize)> = person
        .fields
        .iter()
        .map(|f| {
            (
                f.name.name.as_str(),
                format!("{:?}", f.typ.kind),
                f.params.len(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("age", "Integer".to_string(), 0),
            ("income", "Money".into(), 0),
            ("birth", "Date".into(), 0),
            ("is_student", "Boolean".into(), 0),
            ("rate_for", "Decimal".into(), 1)
        ]
    );
    let ItemKind::EnumDecl(res) = &p.items[2].kind else {
        panic!("enum expected")
    };
    assert!(res.cases[0].payload.is_none());
    assert!(
        matches!(&res.cases[1].payload, Some(Type { kind: TypeKind::Named(n), .. }) if n.name.name == "Territory")
    );
    assert!(
        matches!(&res.cases[2].payload, Some(Type { kind: TypeKind::Tuple(ts), .. }) if ts.len() == 2)
    );
    let ItemKind::ScopeDecl(benefit) = &p.items[3].kind else {
        panic!("scope expected")
    };
    let vars: Vec<String> = benefit
        .items
        .iter()
        .map(|i| match i {
            ScopeDeclItem::Var(v) => format!(
                "{} {:?} out={} cond={} params={} states={}",
                v.name.name,
                v.io.input,
                v.io.output,
                v.is_condition,
                v.params.len(),
                v.states
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            ScopeDeclItem::SubScope(s) => {
                format!("{} sub {} out={}", s.name.name, q(&s.scope), s.output)
            }
        })
        .collect();
    assert_eq!(
        vars,
        [
            "person Input out=false cond=false params=0 states=",
            "residence Context out=false cond=false params=0 states=",
            "base Internal out=false cond=false params=0 states=initial,adjusted",
            "amount Internal out=true cond=false params=0 states=",
            "eligible Internal out=true cond=true params=0 states=",
            "ratio Internal out=false cond=false params=2 states=",
            "items Internal out=true cond=false params=0 states=",
            "maybe Input out=false cond=false params=0 states=",
            "supplement sub Supplement out=false",
            "visible_supplement sub Supplement out=true",
        ]
    );
    let half = topdef(&p, "half");
    assert_eq!(half.params[0].name.name, "x");
    assert_eq!(sx(&half.body), "(Div x 2.0)");
    assert!(!half.external);
}

#[test]
fn english_scope_use() {
    let (_, p) = parse_fixture("all_constructs.catala_en");
    let ItemKind::ScopeUse(u) = &p.items[6].kind else {
        panic!("scope use expected")
    };
    assert_eq!(
        u.condition.as_ref().map(sx).as_deref(),
        Some("(Ge person.age 18)")
    );
    let mut rendered = Vec::new();
    for item in &u.items {
        rendered.push(match item {
            ScopeUseItem::Definition(d) => format!(
                "{} {}{} label={} exc={} params={} cond={} body={} attrs={}",
                if d.is_rule { "rule" } else { "def" },
                d.target
                    .path
                    .iter()
                    .map(|i| i.name.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
                d.target
                    .state
                    .as_ref()
                    .map_or(String::new(), |s| format!("@{}", s.name)),
                d.label.as_ref().map_or("-", |l| l.name.as_str()),
                match &d.exception {
                    ExceptionTo::None => "-".to_string(),
                    ExceptionTo::Unlabeled(_) => "unlabeled".into(),
                    ExceptionTo::Label(l) => l.name.clone(),
                },
                d.params.len(),
                d.condition.as_ref().map_or("-".into(), sx),
                match &d.body {
                    DefBody::Expr(e) => sx(e),
                    DefBody::Fulfilled(b, _) => format!("fulfilled={b}"),
                },
                d.attributes.len()
            ),
            ScopeUseItem::Assertion(a) => {
                format!("assert {} attrs={}", sx(&a.expr), a.attributes.len())
            }
            ScopeUseItem::DateRounding(r, _) => format!("round {r:?}"),
        });
    }
    assert_eq!(
        rendered,
        [
            "def base@initial label=base_rule exc=- params=0 cond=- body=$1234.56 attrs=0",
            "def base@adjusted label=- exc=base_rule params=0 cond=person.is_student body=(Mul base 50.%) attrs=0",
            "def amount label=- exc=unlabeled params=0 cond=- body=(if eligible base@adjusted $0.00) attrs=0",
            "rule eligible label=- exc=- params=0 cond=(Lt person.age 65) body=fulfilled=true attrs=0",
            "rule eligible label=- exc=- params=0 cond=(Gt person.age 100) body=fulfilled=false attrs=0",
            // A built-in applies to one argument at application level: `(decimal of x) * y`.
            "def ratio label=- exc=- params=2 cond=- body=(Mul (ToDecimal x) y) attrs=0",
            "def supplement.value label=- exc=- params=0 cond=- body=21 attrs=0",
            "def items label=- exc=- params=0 cond=- body=[1 2 3] attrs=0",
            // `content` binds tighter than `+`.
            "def maybe label=- exc=- params=0 cond=- body=(Add (Add (Present 3Year) 2Month) 1Day) attrs=0",
            "assert (And (Ge amount $0.00) (Not (Gt amount $100000.00))) attrs=0",
            "assert (Eq supplement.doubled 42) attrs=1",
            "round Up",
        ]
    );
}

#[test]
fn english_expressions() {
    let (_, p) = parse_fixture("all_constructs.catala_en");
    // and/or/xor share one right-associative level below comparisons; unary minus binds
    // tighter than comparisons.
    assert_eq!(
        sx(&topdef(&p, "precedence").body),
        "(Or (Eq (Sub (Add 1 (Mul 2 3)) (Div 4 5)) 3) (And false (Xor true (Lt (Minus 1) 2))))"
    );
    let (l, body) = lets(&topdef(&p, "lists").body);
    assert_eq!(bound(&l, "m"), "(map x l (Add x 1))");
    assert_eq!(bound(&l, "f"), "(filter x m (Gt x 1))");
    assert_eq!(bound(&l, "s"), "(sum:Integer f)");
    assert_eq!(bound(&l, "n"), "(count f)");
    assert_eq!(bound(&l, "mx"), "(maximum l 0)");
    assert_eq!(bound(&l, "am"), "(argmin x l (Mul x 2) 0)");
    assert_eq!(bound(&l, "c"), "(fold x l acc 0 (Add acc x))");
    assert_eq!(bound(&l, "e"), "(exists x l (Eq x 2))");
    assert_eq!(bound(&l, "a"), "(forall x l (Gt x 0))");
    assert_eq!(bound(&l, "t"), "(tuple 1 $2.00).1");
    assert_eq!(
        bound(&l, "z"),
        "(map (x, y) (zip (tuple l l)) (let [x y] (x, y) (Add x y)))"
    );
    assert_eq!(
        body,
        "(if (And (contains l 3) (And e a)) (Add (Add (Add (Add (Add s n) mx) am) c) t) 0)"
    );
    assert_eq!(
        sx(&topdef(&p, "structures").body),
        "(replace (Person {age=(Round 3.5) income=(ToMoney 12.5) birth=|2001-2-3| \
         is_student=(is Residence.Mainland Mainland) rate_for=0.5}) {age=(ToInteger 4.0)})"
    );
    assert_eq!(
        sx(&topdef(&p, "calls").body),
        "(Sub (Add (Mul (call Supplement {value=1}).doubled $1.00) \
         (FirstDayOfMonth |2024-3-15|)) (Mul |2024-3-1| 0))"
    );
}

#[test]
fn english_match_arms() {
    let (_, p) = parse_fixture("all_constructs.catala_en");
    let ItemKind::ScopeUse(u) = &p.items[7].kind else {
        panic!("scope use expected")
    };
    let ScopeUseItem::Definition(d) = &u.items[0] else {
        panic!("definition expected")
    };
    let DefBody::Expr(e) = &d.body else {
        panic!("expression expected")
    };
    assert_eq!(
        sx(e),
        "(let twice (Mul value 2) (match Mainland [Mainland: twice] \
         [Overseas t: (Add twice 0)] [_: (Sub twice 0)]))"
    );
}

#[test]
fn french_fixture_with_late_2024_forms() {
    let (sources, p) = parse_fixture("tous_les_elements.catala_fr");
    assert!(p.items.iter().all(|i| i.language == Language::Fr));
    assert!(matches!(&p.items[0].kind, ItemKind::EnumDecl(e) if e.name.name == "Territoire"));
    let ItemKind::ScopeDecl(decl) = &p.items[4].kind else {
        panic!("scope declaration expected")
    };
    assert_eq!(decl.name.name, "CalculAide");
    assert!(matches!(&decl.items[6], ScopeDeclItem::SubScope(s) if s.name.name == "sous_calcul"));
    let ItemKind::ScopeUse(u) = &p.items[6].kind else {
        panic!("scope use expected")
    };
    assert_eq!(
        u.condition.as_ref().map(sx).as_deref(),
        Some("(Ge ménage.revenu $0.00)")
    );
    let bodies: Vec<String> = u
        .items
        .iter()
        .map(|i| match i {
            ScopeUseItem::Definition(d) => match &d.body {
                DefBody::Expr(e) => sx(e),
                DefBody::Fulfilled(b, _) => format!("fulfilled={b}"),
            },
            ScopeUseItem::Assertion(a) => sx(&a.expr),
            ScopeUseItem::DateRounding(r, _) => format!("{r:?}"),
        })
        .collect();
    assert_eq!(
        bodies,
        [
            "1.5",
            "(Mul taux 30.%)",
            "(match zone [Zone1: $1234.56] [Zone2 t: (Mul $100.00 t)] \
             [_: (ToMoney (Div (ToDecimal $12500.00) 3.0))])",
            "fulfilled=true",
            "fulfilled=false",
            "(Mul $500.00 n)",
            "montant",
            "(Ge (Add (Add (Add ménage.date_entrée 3Year) 2Month) 15Day) |2020-1-1|)",
            "Up",
        ]
    );
    let (l, body) = lets(&topdef(&p, "total").body);
    assert_eq!(
        bound(&l, "âges"),
        "(map enfant [(Enfant {âge=3}) (Enfant {âge=10})] (ToDecimal enfant.âge))"
    );
    assert_eq!(bound(&l, "s"), "(sum:Decimal âges)");
    assert_eq!(bound(&l, "année"), "(GetYear |2024-5-1|)");
    assert_eq!(bound(&l, "l"), "(map a âges (Mul a 2.0))");
    assert_eq!(bound(&l, "m"), "(argmax a l a 0.0)");
    assert_eq!(
        body,
        "(if (Xor e (And p (contains l 4.0))) (Add (Add (Add s m) c) (ToDecimal année)) 0.0)"
    );
    assert_eq!(
        sx(&topdef(&p, "appel").body),
        "(call SousCalcul {valeur=$1000.00}).double"
    );
    // Columns count code points: `é` is one column.
    let ItemKind::ScopeUse(u) = &p.items[6].kind else {
        panic!("scope use expected")
    };
    let ScopeUseItem::Definition(d) = &u.items[1] else {
        panic!("definition expected")
    };
    let pos = sources.position(d.target.state.as_ref().map_or(d.span, |s| s.span));
    assert_eq!((pos.start_col, pos.end_col), (24, 30));
}

#[test]
fn polish_fixture() {
    let (_, p) = parse_fixture("podatek.catala_pl");
    let ItemKind::ScopeUse(u) = &p.items[1].kind else {
        panic!("scope use expected")
    };
    let ScopeUseItem::Assertion(a) = &u.items[1] else {
        panic!("assertion expected")
    };
    assert_eq!(sx(&a.expr), "(Ge kwota $1000.50)");
}

#[test]
fn include_errors_are_io_diagnostics_at_the_directive() {
    for (name, line) in [("cycle_a.catala_en", 3), ("missing_include.catala_en", 5)] {
        let path = fixture(name);
        let (sources, result) = catala_syntax::parse_file_with_sources(&path);
        let d = result.err().unwrap_or_else(|| panic!("{name} should fail"));
        assert_eq!(d.kind, DiagnosticKind::Io);
        let pos = sources.position(d.labels[0].span);
        assert_eq!((pos.start_line, pos.start_col), (line, 1), "{name}");
    }
}

#[test]
fn syntax_error_position_and_message() {
    let (sources, result) =
        catala_syntax::parse_file_with_sources(&fixture("syntax_error.catala_en"));
    let d = result.err().unwrap_or_else(|| panic!("should fail"));
    assert_eq!(d.kind, DiagnosticKind::Parse);
    // Same position as the Catala compiler's tests/parsing/bad/single_error.catala_en.
    let pos = sources.position(d.labels[0].span);
    assert_eq!((pos.start_line, pos.start_col, pos.end_col), (5, 12, 20));
    assert!(d.message.starts_with("Syntax error at \"contents\""));
    assert!(d.message.contains("\"content\""));
}

#[test]
fn precedence_table() {
    let cases = [
        // Multiplicative over additive, both left-associative.
        ("1 - 2 - 3", "(Sub (Sub 1 2) 3)"),
        ("8 / 4 * 2", "(Mul (Div 8 4) 2)"),
        // `and`/`or` are one right-associative level; mixing them needs parentheses.
        ("a and b and c", "(And a (And b c))"),
        ("(a and b) or c", "(Or (And a b) c)"),
        ("a and (b or c)", "(And a (Or b c))"),
        // Application binds tighter than arithmetic, and is right-associative.
        ("f of g of 1 + 2", "(Add (f (g 1)) 2)"),
        ("f of 1, 2", "(f 1 2)"),
        // `not` binds tighter than `and`, looser than field access.
        ("not a.b and c", "(And (Not a.b) c)"),
        // `if` extends as far as possible.
        ("if a then 1 else 2 + 3", "(if a 1 (Add 2 3))"),
        ("1 + if a then 1 else 2", "(Add 1 (if a 1 2))"),
        // Late-2024 postfix map at application level.
        ("x + 1 for x among l", "(Add x (map x l 1))"),
        ("(x + 1) for x among l", "(map x l (Add x 1))"),
        // Typed operators read as the plain operator.
        ("a +$ b *. c", "(Add a (Mul b c))"),
        ("-$5 + $1", "(Add (Minus $5.00) $1.00)"),
        ("M.f of 1", "(M.f 1)"),
        // The standard library's `Money.sum` is a qualified name even though `sum` is a
        // keyword.
        ("Money.sum of l", "(Money.sum l)"),
        ("x state s + 1", "(Add x@s 1)"),
        ("maximum of l + 1", "(Add (maximum l) 1)"),
        ("e with pattern E.C content v", "(is e E.C v)"),
        ("e with pattern C of v", "(is e C v)"),
        ("[]", "[]"),
        ("sort l in increasing order", "(sort _ l)"),
        (
            "sort all x among l in decreasing order of x.a and then - x.b",
            "(sort-desc x l x.a (Minus x.b))",
        ),
        (
            "content of x among l such that x > 1",
            "(find x l (Gt x 1))",
        ),
        ("assertion a = 3 in a + 1", "(assert (Eq a 3) (Add a 1))"),
    ];
    for (src, expected) in cases {
        assert_eq!(one_expr(src, Language::En), expected, "{src}");
    }
    assert!(one_expr("1 < 2 < 3", Language::En).starts_with("error"));
    for mixed in [
        "a and b or c",
        "a or b and c",
        "a xor b xor c",
        "a and b and c or d",
    ] {
        assert!(
            one_expr(mixed, Language::En).starts_with("error: Please add parentheses"),
            "{mixed}"
        );
    }
    assert_eq!(
        one_expr("Argent.somme de l", Language::Fr),
        "(Argent.somme l)"
    );
    assert_eq!(
        one_expr("1 000,5 € + 2,5", Language::Fr),
        "(Add $1000.50 2.5)"
    );
    assert_eq!(
        one_expr("a et (b ou bien c)", Language::Fr),
        "(And a (Xor b c))"
    );
    assert_eq!(
        one_expr(
            "selon x sous forme -- A de y: y -- B contenu z: z",
            Language::Fr
        ),
        "(match x [A y: y] [B z: z])"
    );
}

#[test]
fn qualified_fields_pattern_conditions_and_operator_spans() {
    // `e.S.f` keeps its structure qualifier (Catala's `e.S.f` field access).
    assert_eq!(one_expr("x.Fo.f", Language::En), "x.Fo.f");
    // `with pattern C content y and c`: `y` is bound in `c` (parser.mly parses the `and` as a
    // binary operator whose left side is the pattern test; the binding scopes over the right).
    assert_eq!(
        one_expr("e with pattern C content y and y > 0", Language::En),
        "(is e C y and (Gt y 0))"
    );
    // Without a binding, `and` stays an operator.
    assert_eq!(
        one_expr("e with pattern C and b", Language::En),
        "(And (is e C) b)"
    );
    // The operator's own span: the `+` of `1 + 2 * 3`.
    let src = "```catala\ndeclaration x content integer equals 1 + 2 * 3\n```\n";
    let (_, p) =
        parse_str("expr.catala", src, Language::En).unwrap_or_else(|d| panic!("{}", d.message));
    let ExprKind::Binop(BinOp::Add, op_span, _, rhs) = &topdef(&p, "x").body.kind else {
        panic!("not an addition")
    };
    let plus = src.find(" + ").map(|i| i + 1).unwrap_or(0) as u32;
    assert_eq!((op_span.start, op_span.end), (plus, plus + 1));
    let ExprKind::Binop(BinOp::Mul, times, _, _) = &rhs.kind else {
        panic!("not a product")
    };
    let star = src.find('*').unwrap_or(0) as u32;
    assert_eq!((times.start, times.end), (star, star + 1));
}

#[test]
fn module_directives_checked_against_files() {
    // A module named after its file (case aside) is accepted.
    let (_, p) = parse_fixture("declares_module.catala_en");
    assert!(
        matches!(&p.items[0].kind, ItemKind::ModuleDef { name, .. } if name.name == "Declares_module")
    );

    // Catala's modules/bad/mod_badname: the name must match the file name; the error points
    // at the module name (1.10-23 here) and suggests the capitalized file name.
    let d = match parse_file(&fixture("wrong_module_name.catala_en")) {
        Ok(_) => panic!("a module not named after its file was accepted"),
        Err(d) => d,
    };
    assert_eq!(d.kind, DiagnosticKind::Parse);
    assert!(d
        .message
        .starts_with("Module declared as Not_this_name, which does not match"));
    assert!(d.message.contains("Rename the module to Wrong_module_name"));
    assert_eq!((d.labels[0].span.start, d.labels[0].span.end), (9, 22));

    // Catala's modules/bad/mod_bad_include: a file declaring a module cannot be included;
    // positions: the directive from `Include` to the end of the line, then the module name.
    let d = match parse_file(&fixture("includes_module.catala_en")) {
        Ok(_) => panic!("the include of a module was accepted"),
        Err(d) => d,
    };
    assert!(d
        .message
        .ends_with("You should use it as a module with '> Use Declares_module' instead."));
    let notes: Vec<Option<&str>> = d.labels.iter().map(|l| l.note.as_deref()).collect();
    assert_eq!(
        notes,
        vec![Some("File include"), Some("Module declaration")]
    );
    let directive = "# Including a module\n\n> ".len() as u32;
    let line_end = directive + "Include: declares_module.catala_en".len() as u32;
    assert_eq!(
        (d.labels[0].span.start, d.labels[0].span.end),
        (directive, line_end)
    );
    assert_eq!((d.labels[1].span.start, d.labels[1].span.end), (9, 24));
}
