//! The Catala pretty-printer: writes surface AST items and expressions back as Catala source in
//! English, French or Polish, with the keywords of [`crate::keywords`]. Compound
//! sub-expressions are parenthesized, so the text reads back as the same tree; layout follows
//! Catala's usual style (two-space indentation inside declarations and scope blocks). Every
//! program that writes Catala (the test scopes of the concolic engine, for instance) goes
//! through here, so that its output parses in the language it was written for.

use crate::ast::*;
use crate::keywords::{
    builtin_spelling, primitive_spelling, spelling, BuiltinName, Keyword as K, PrimitiveType,
};
use std::fmt::Write as _;

/// Writes Catala source in one language.
pub struct Printer {
    pub language: Language,
}

impl Printer {
    pub fn new(language: Language) -> Printer {
        Printer { language }
    }

    fn kw(&self, k: K) -> &'static str {
        spelling(self.language, k)
    }

    /// A code block holding the items (```catala … ```).
    pub fn code_block(&self, items: &[ItemKind]) -> String {
        let mut out = String::from("```catala\n");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&self.item(item, &[]));
        }
        out.push_str("```\n");
        out
    }

    /// One item, preceded by its attributes.
    pub fn item(&self, item: &ItemKind, attributes: &[Attribute]) -> String {
        let mut out = String::new();
        for a in attributes {
            out.push_str(&self.attribute(a));
            out.push('\n');
        }
        match item {
            ItemKind::StructDecl(s) => {
                let _ = writeln!(
                    out,
                    "{} {} {}:",
                    self.kw(K::Declaration),
                    self.kw(K::Structure),
                    s.name.name
                );
                for f in &s.fields {
                    let _ = write!(
                        out,
                        "  {} {} {} {}",
                        self.kw(K::Data),
                        f.name.name,
                        self.kw(K::Content),
                        self.typ(&f.typ)
                    );
                    out.push_str(&self.params(&f.params));
                    out.push('\n');
                }
            }
            ItemKind::EnumDecl(e) if e.abstract_type => {
                let _ = writeln!(
                    out,
                    "{} {} {}: {}",
                    self.kw(K::Declaration),
                    self.kw(K::Type),
                    e.name.name,
                    self.kw(K::External)
                );
            }
            ItemKind::EnumDecl(e) => {
                let _ = writeln!(
                    out,
                    "{} {} {}:",
                    self.kw(K::Declaration),
                    self.kw(K::Enumeration),
                    e.name.name
                );
                for c in &e.cases {
                    match &c.payload {
                        Some(t) => {
                            let _ = writeln!(
                                out,
                                "  -- {} {} {}",
                                c.name.name,
                                self.kw(K::Content),
                                self.typ(t)
                            );
                        }
                        None => {
                            let _ = writeln!(out, "  -- {}", c.name.name);
                        }
                    }
                }
            }
            ItemKind::ScopeDecl(s) => {
                let _ = writeln!(
                    out,
                    "{} {} {}:",
                    self.kw(K::Declaration),
                    self.kw(K::Scope),
                    s.name.name
                );
                for it in &s.items {
                    out.push_str("  ");
                    out.push_str(&self.scope_decl_item(it));
                    out.push('\n');
                }
            }
            ItemKind::ScopeUse(u) => {
                let _ = write!(out, "{} {}", self.kw(K::Scope), self.qual(&u.scope));
                if let Some(c) = &u.condition {
                    let _ = write!(out, " {} {}", self.kw(K::UnderCondition), self.expr(c));
                }
                out.push_str(":\n");
                for it in &u.items {
                    out.push_str(&self.scope_use_item(it));
                }
            }
            ItemKind::TopDef(t) => {
                let _ = write!(
                    out,
                    "{} {} {} {}",
                    self.kw(K::Declaration),
                    t.name.name,
                    self.kw(K::Content),
                    self.typ(&t.typ)
                );
                out.push_str(&self.params(&t.params));
                if !t.external {
                    let _ = write!(out, " {} {}", self.kw(K::Equals), self.expr(&t.body));
                }
                out.push('\n');
            }
            ItemKind::ModuleDef { name, external } => {
                let _ = write!(out, "> Module {}", name.name);
                if *external {
                    out.push_str(match self.language {
                        Language::Fr => " externe",
                        _ => " external",
                    });
                }
                out.push('\n');
            }
            ItemKind::ModuleUse { name, alias } => {
                let _ = match (self.language, alias) {
                    (Language::Fr, Some(a)) => {
                        writeln!(out, "> Usage de {} en tant que {}", name.name, a.name)
                    }
                    (Language::Fr, None) => writeln!(out, "> Usage de {}", name.name),
                    (_, Some(a)) => writeln!(out, "> Using {} as {}", name.name, a.name),
                    (_, None) => writeln!(out, "> Using {}", name.name),
                };
            }
        }
        out
    }

    fn attribute(&self, a: &Attribute) -> String {
        match &a.value {
            Some(v) => format!("#[{} = \"{}\"]", a.path.join("."), v),
            None => format!("#[{}]", a.path.join(".")),
        }
    }

    fn params(&self, params: &[Param]) -> String {
        if params.is_empty() {
            return String::new();
        }
        let ps: Vec<String> = params
            .iter()
            .map(|p| {
                format!(
                    "{} {} {}",
                    p.name.name,
                    self.kw(K::Content),
                    self.typ(&p.typ)
                )
            })
            .collect();
        format!(" {} {}", self.kw(K::Depends), ps.join(", "))
    }

    fn scope_decl_item(&self, it: &ScopeDeclItem) -> String {
        match it {
            ScopeDeclItem::Var(v) => {
                let mut words: Vec<&str> = Vec::new();
                match v.io.input {
                    InputKind::Input => words.push(self.kw(K::Input)),
                    InputKind::Context => words.push(self.kw(K::Context)),
                    InputKind::Internal if !v.io.output => words.push(self.kw(K::Internal)),
                    InputKind::Internal => {}
                }
                if v.io.output {
                    words.push(self.kw(K::Output));
                }
                let mut out = format!("{} {}", words.join(" "), v.name.name);
                if v.is_condition {
                    let _ = write!(out, " {}", self.kw(K::Condition));
                } else {
                    let _ = write!(out, " {} {}", self.kw(K::Content), self.typ(&v.typ));
                }
                out.push_str(&self.params(&v.params));
                for s in &v.states {
                    let _ = write!(out, " {} {}", self.kw(K::State), s.name);
                }
                out
            }
            ScopeDeclItem::SubScope(s) => {
                let output = if s.output {
                    format!("{} ", self.kw(K::Output))
                } else {
                    String::new()
                };
                format!(
                    "{output}{} {} {}",
                    s.name.name,
                    self.kw(K::Scope),
                    self.qual(&s.scope)
                )
            }
        }
    }

    fn scope_use_item(&self, it: &ScopeUseItem) -> String {
        match it {
            ScopeUseItem::Definition(d) => {
                let mut out = String::new();
                for a in &d.attributes {
                    let _ = writeln!(out, "  {}", self.attribute(a));
                }
                out.push_str("  ");
                if let Some(l) = &d.label {
                    let _ = write!(out, "{} {} ", self.kw(K::Label), l.name);
                }
                match &d.exception {
                    ExceptionTo::None => {}
                    ExceptionTo::Unlabeled(_) => {
                        let _ = write!(out, "{} ", self.kw(K::Exception));
                    }
                    ExceptionTo::Label(l) => {
                        let _ = write!(out, "{} {} ", self.kw(K::Exception), l.name);
                    }
                }
                let target: Vec<&str> = d.target.path.iter().map(|i| i.name.as_str()).collect();
                let head = if d.is_rule { K::Rule } else { K::Definition };
                let _ = write!(out, "{} {}", self.kw(head), target.join("."));
                if !d.params.is_empty() {
                    let ps: Vec<&str> = d.params.iter().map(|p| p.name.as_str()).collect();
                    let _ = write!(out, " {} {}", self.kw(K::Of), ps.join(", "));
                }
                if let Some(s) = &d.target.state {
                    let _ = write!(out, " {} {}", self.kw(K::State), s.name);
                }
                if let Some(c) = &d.condition {
                    let _ = write!(
                        out,
                        " {} {} {}",
                        self.kw(K::UnderCondition),
                        self.expr(c),
                        self.kw(K::Consequence)
                    );
                }
                match &d.body {
                    DefBody::Expr(e) => {
                        let _ = write!(out, " {} {}", self.kw(K::Equals), self.expr(e));
                    }
                    DefBody::Fulfilled(true, _) => {
                        let _ = write!(out, " {}", self.kw(K::Fulfilled));
                    }
                    DefBody::Fulfilled(false, _) => {
                        let _ = write!(out, " {} {}", self.kw(K::Not), self.kw(K::Fulfilled));
                    }
                }
                out.push('\n');
                out
            }
            ScopeUseItem::Assertion(a) => {
                let mut out = String::new();
                for at in &a.attributes {
                    let _ = writeln!(out, "  {}", self.attribute(at));
                }
                let _ = writeln!(out, "  {} {}", self.kw(K::Assertion), self.expr(&a.expr));
                out
            }
            ScopeUseItem::DateRounding(r, _) => {
                let dir = match r {
                    DateRounding::Up => K::Increasing,
                    DateRounding::Down => K::Decreasing,
                };
                format!(
                    "  {} {} {}\n",
                    self.kw(K::Date),
                    builtin_spelling(self.language, BuiltinName::Function(Builtin::Round)),
                    self.kw(dir)
                )
            }
        }
    }

    fn qual(&self, q: &QualName) -> String {
        let mut parts: Vec<&str> = q.path.iter().map(|i| i.name.as_str()).collect();
        parts.push(&q.name.name);
        parts.join(".")
    }

    /// A type.
    pub fn typ(&self, t: &Type) -> String {
        let prim = |p| primitive_spelling(self.language, p).to_string();
        match &t.kind {
            TypeKind::Boolean => prim(PrimitiveType::Boolean),
            TypeKind::Integer => prim(PrimitiveType::Integer),
            TypeKind::Decimal => prim(PrimitiveType::Decimal),
            TypeKind::Money => prim(PrimitiveType::Money),
            TypeKind::Duration => prim(PrimitiveType::Duration),
            TypeKind::CodeLocation => prim(PrimitiveType::Position),
            TypeKind::Date => self.kw(K::Date).to_string(),
            TypeKind::Named(q) => self.qual(q),
            TypeKind::List(i) => format!("{} {}", self.kw(K::List), self.typ(i)),
            TypeKind::Optional(i) => format!("{} {}", self.kw(K::Optional), self.typ(i)),
            TypeKind::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| self.typ(t)).collect();
                format!("({})", parts.join(", "))
            }
            TypeKind::Any(None) => self.kw(K::Anything).to_string(),
            TypeKind::Any(Some(n)) => {
                format!("{} {} {}", self.kw(K::Anything), self.kw(K::Type), n.name)
            }
        }
    }

    /// A literal.
    pub fn literal(&self, l: &Literal) -> String {
        let sep = crate::keywords::decimal_separator(self.language);
        match l {
            Literal::Bool(true) => self.kw(K::True).to_string(),
            Literal::Bool(false) => self.kw(K::False).to_string(),
            Literal::Integer(d) => d.clone(),
            Literal::Decimal {
                int_part,
                frac_part,
            } => {
                let frac = if frac_part.is_empty() { "0" } else { frac_part };
                format!("{int_part}{sep}{frac}")
            }
            Literal::Percent {
                int_part,
                frac_part,
            } => {
                if frac_part.is_empty() {
                    format!("{int_part}%")
                } else {
                    format!("{int_part}{sep}{frac_part}%")
                }
            }
            Literal::Money { units, cents } => {
                let cents = format!("{cents:0<2}");
                match self.language {
                    Language::En => format!("${units}.{cents}"),
                    Language::Fr => format!("{units},{cents} €"),
                    Language::Pl => format!("{units}.{cents} PLN"),
                }
            }
            Literal::Date { year, month, day } => format!("|{year:04}-{month:02}-{day:02}|"),
            Literal::Duration { amount, unit } => {
                let k = match unit {
                    DurationUnit::Year => K::Year,
                    DurationUnit::Month => K::Month,
                    DurationUnit::Day => K::Day,
                };
                format!("{amount} {}", self.kw(k))
            }
        }
    }

    /// An expression, parenthesized when compound (so that it can stand anywhere).
    fn sub(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Literal(_)
            | ExprKind::Var(_)
            | ExprKind::QualVar(_)
            | ExprKind::Tuple(_)
            | ExprKind::List(_)
            | ExprKind::StructLit(..)
            | ExprKind::Constructor { payload: None, .. } => self.expr(e),
            _ => format!("({})", self.expr(e)),
        }
    }

    /// The body as written under a binder: a tuple binder `(x, y)` is one variable named
    /// `(x, y)` whose destructuring the parser wrapped around the body; that wrapper is not
    /// printed (the binder says it).
    fn under<'e>(&self, var: &Ident, body: &'e Expr) -> &'e Expr {
        if var.name.starts_with('(') {
            if let ExprKind::LetTuple(_, value, inner) = &body.kind {
                if matches!(&value.kind, ExprKind::Var(v) if v.name == var.name) {
                    return inner;
                }
            }
        }
        body
    }

    /// `HEAD x among l such that cond` (filter, exists, find).
    fn such_that(&self, head: &str, var: &Ident, list: &Expr, cond: &Expr) -> String {
        format!(
            "{head} {} {} {} {}",
            self.binder_list(var, list),
            self.kw(K::Such),
            self.kw(K::That),
            self.sub(self.under(var, cond))
        )
    }

    fn binder_list(&self, var: &Ident, list: &Expr) -> String {
        format!("{} {} {}", var.name, self.kw(K::Among), self.sub(list))
    }

    /// An expression.
    pub fn expr(&self, e: &Expr) -> String {
        let kw = |k| self.kw(k);
        match &e.kind {
            ExprKind::Literal(l) => self.literal(l),
            ExprKind::Var(i) => i.name.clone(),
            ExprKind::QualVar(q) => self.qual(q),
            ExprKind::Constructor { name, payload } => match payload {
                Some(p) => format!("{} {} {}", self.qual(name), kw(K::Content), self.sub(p)),
                None => self.qual(name),
            },
            ExprKind::Field(inner, qualifier, f) => match qualifier {
                Some(q) => format!("{}.{}.{}", self.sub(inner), self.qual(q), f.name),
                None => format!("{}.{}", self.sub(inner), f.name),
            },
            ExprKind::TupleIndex(inner, n) => format!("{}.{n}", self.sub(inner)),
            ExprKind::StateAccess(x, s) => format!("{} {} {}", x.name, kw(K::State), s.name),
            ExprKind::Binop(op, _, a, b) => {
                let sym = match op {
                    BinOp::And => kw(K::And),
                    BinOp::Or => kw(K::Or),
                    BinOp::Xor => kw(K::Xor),
                    other => other.symbol(),
                };
                format!("{} {sym} {}", self.sub(a), self.sub(b))
            }
            ExprKind::Unop(UnOp::Not, a) => format!("{} {}", kw(K::Not), self.sub(a)),
            ExprKind::Unop(UnOp::Minus, a) => format!("- {}", self.sub(a)),
            ExprKind::If(c, t, f) => format!(
                "{} {} {} {} {} {}",
                kw(K::If),
                self.sub(c),
                kw(K::Then),
                self.sub(t),
                kw(K::Else),
                self.sub(f)
            ),
            ExprKind::Let(x, v, body) => format!(
                "{} {} {} {} {} {}",
                kw(K::Let),
                x.name,
                kw(K::Equals),
                self.sub(v),
                kw(K::In),
                self.sub(body)
            ),
            ExprKind::LetTuple(xs, v, body) => {
                let names: Vec<&str> = xs.iter().map(|x| x.name.as_str()).collect();
                format!(
                    "{} ({}) {} {} {} {}",
                    kw(K::Let),
                    names.join(", "),
                    kw(K::Equals),
                    self.sub(v),
                    kw(K::In),
                    self.sub(body)
                )
            }
            ExprKind::ListZip(inner) => self.expr(inner),
            ExprKind::Match(scrutinee, arms) => {
                let mut out = format!(
                    "{} {} {}",
                    kw(K::Match),
                    self.sub(scrutinee),
                    kw(K::WithPattern)
                );
                for arm in arms {
                    let (pattern, body) = match &arm.pattern {
                        Pattern::Ctor {
                            ctor,
                            binding: Some(b),
                        } => (
                            format!("{} {} {}", self.qual(ctor), kw(K::Content), b.name),
                            self.under(b, &arm.body),
                        ),
                        Pattern::Ctor {
                            ctor,
                            binding: None,
                        } => (self.qual(ctor), &arm.body),
                        Pattern::Wildcard(_) => (kw(K::Anything).to_string(), &arm.body),
                    };
                    let _ = write!(out, " -- {pattern}: {}", self.sub(body));
                }
                out
            }
            ExprKind::TestCtor {
                expr,
                ctor,
                binding,
                and_cond,
            } => {
                let mut out = format!(
                    "{} {} {}",
                    self.sub(expr),
                    kw(K::WithPattern),
                    self.qual(ctor)
                );
                if let Some(b) = binding {
                    let _ = write!(out, " {} {}", kw(K::Content), b.name);
                }
                if let Some(c) = and_cond {
                    let c = match binding {
                        Some(b) => self.under(b, c),
                        None => c,
                    };
                    let _ = write!(out, " {} {}", kw(K::And), self.sub(c));
                }
                out
            }
            ExprKind::StructLit(name, fields) => {
                let mut out = format!("{} {{", self.qual(name));
                for (f, v) in fields {
                    let _ = write!(out, " -- {}: {}", f.name, self.sub(v));
                }
                out.push_str(" }");
                out
            }
            ExprKind::StructReplace(base, fields) => {
                let mut out = format!("{} {} {{", self.sub(base), kw(K::ButReplace));
                for (f, v) in fields {
                    let _ = write!(out, " -- {}: {}", f.name, self.sub(v));
                }
                out.push_str(" }");
                out
            }
            ExprKind::ScopeCall(name, args) => {
                let mut out = format!(
                    "{} {} {} {} {{",
                    kw(K::Output),
                    kw(K::Of),
                    self.qual(name),
                    kw(K::With)
                );
                for (f, v) in args {
                    let _ = write!(out, " -- {}: {}", f.name, self.sub(v));
                }
                out.push_str(" }");
                out
            }
            ExprKind::Call(f, args) => {
                let parts: Vec<String> = args.iter().map(|a| self.sub(a)).collect();
                format!("{} {} {}", self.sub(f), kw(K::Of), parts.join(", "))
            }
            ExprKind::Builtin(b, a) => format!(
                "{} {} {}",
                builtin_spelling(self.language, BuiltinName::Function(*b)),
                kw(K::Of),
                self.sub(a)
            ),
            ExprKind::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.sub(i)).collect();
                format!("({})", parts.join(", "))
            }
            ExprKind::List(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.sub(i)).collect();
                format!("[{}]", parts.join("; "))
            }
            ExprKind::ListMap { var, list, body } => format!(
                "{} {} {} {}",
                kw(K::MapEach),
                self.binder_list(var, list),
                kw(K::To),
                self.sub(self.under(var, body))
            ),
            ExprKind::ListFilter { var, list, cond } => {
                self.such_that(kw(K::List), var, list, cond)
            }
            ExprKind::ListExists { var, list, cond } => {
                self.such_that(kw(K::Exists), var, list, cond)
            }
            ExprKind::ListForAll { var, list, cond } => format!(
                "{} {} {} {}",
                kw(K::For),
                kw(K::All),
                self.binder_list(var, list),
                format_args!("{} {}", kw(K::WeHave), self.sub(self.under(var, cond)))
            ),
            ExprKind::ListAggregate { op, list, default } => {
                let head = match op {
                    Aggregate::Sum(t) => format!("{} {} {}", kw(K::Sum), self.typ(t), kw(K::Of)),
                    Aggregate::Count => format!(
                        "{} {}",
                        builtin_spelling(self.language, BuiltinName::Cardinal),
                        kw(K::Of)
                    ),
                    Aggregate::Maximum => format!("{} {}", kw(K::Maximum), kw(K::Of)),
                    Aggregate::Minimum => format!("{} {}", kw(K::Minimum), kw(K::Of)),
                };
                let mut out = format!("{head} {}", self.sub(list));
                if let Some(d) = default {
                    let _ = write!(
                        out,
                        " {} {} {}",
                        kw(K::OrIfListEmpty),
                        kw(K::Then),
                        self.sub(d)
                    );
                }
                out
            }
            ExprKind::ListArgExtremum {
                maximum,
                var,
                list,
                key,
                default,
            } => {
                let mut out = format!(
                    "{} {} {} {} {} {}",
                    kw(K::Content),
                    kw(K::Of),
                    self.binder_list(var, list),
                    format_args!("{} {}", kw(K::Such), kw(K::That)),
                    self.sub(self.under(var, key)),
                    format_args!(
                        "{} {}",
                        kw(K::Is),
                        kw(if *maximum { K::Maximum } else { K::Minimum })
                    )
                );
                if let Some(d) = default {
                    let _ = write!(
                        out,
                        " {} {} {}",
                        kw(K::OrIfListEmpty),
                        kw(K::Then),
                        self.sub(d)
                    );
                }
                out
            }
            ExprKind::ListFind { var, list, cond } => {
                let head = format!("{} {}", kw(K::Content), kw(K::Of));
                self.such_that(&head, var, list, cond)
            }
            ExprKind::ListFold {
                var,
                list,
                acc,
                init,
                step,
            } => format!(
                "{} {} {} {} {} {} {} {}",
                kw(K::Combine),
                kw(K::All),
                self.binder_list(var, list),
                kw(K::In),
                acc.name,
                format_args!("{} {}", kw(K::Initially), self.sub(init)),
                kw(K::With),
                self.sub(self.under(var, step))
            ),
            ExprKind::ListContains(list, elem) => {
                format!("{} {} {}", self.sub(list), kw(K::Contains), self.sub(elem))
            }
            ExprKind::ListSort {
                var,
                list,
                keys,
                descending,
            } => {
                let order = kw(if *descending {
                    K::OrderDescending
                } else {
                    K::OrderAscending
                });
                match var {
                    None => format!("{} {} {order}", kw(K::Sort), self.sub(list)),
                    Some(v) => {
                        let ks: Vec<String> =
                            keys.iter().map(|k| self.sub(self.under(v, k))).collect();
                        format!(
                            "{} {} {} {order} {} {}",
                            kw(K::Sort),
                            kw(K::All),
                            self.binder_list(v, list),
                            kw(K::Of),
                            ks.join(&format!(" {} ", kw(K::AndThen)))
                        )
                    }
                }
            }
            ExprKind::Assert(check, next, message) => {
                let attr = message
                    .as_ref()
                    .map(|m| format!("#[error.message = \"{m}\"] "))
                    .unwrap_or_default();
                format!(
                    "{attr}{} {} {} {}",
                    kw(K::Assertion),
                    self.sub(check),
                    kw(K::In),
                    self.sub(next)
                )
            }
            ExprKind::Impossible => {
                builtin_spelling(self.language, BuiltinName::Impossible).to_string()
            }
            ExprKind::ImpossibleMessage(m) => format!(
                "#[error.message = \"{m}\"] {}",
                builtin_spelling(self.language, BuiltinName::Impossible)
            ),
            ExprKind::DebugPrint(label, inner) => match label {
                Some(l) => format!("#[debug.print = \"{l}\"] {}", self.sub(inner)),
                None => format!("#[debug.print] {}", self.sub(inner)),
            },
        }
    }
}
