//! Lexer and parser for the OCaml subset of the benchmark language: top-level `let` items with
//! attributes (`let[@pred]`, `let[@libRty]`, `let[@assertRty]`, `let[@axiom]`, `let rec`), `val`
//! signatures, and expressions (application, infix operators, `if`, `let … in`, `fun`, tuples,
//! sequences, records, arrays `[| … |]`, constructors, type constraints, `[%v: T]` extensions,
//! `[@…]` attributes and labelled parameters `?l:(x = e)`). Everything else is an error with a
//! span of its file. The result is a plain syntax tree; `front` gives it meaning.

use crate::lexer::{is_keyword, lex, show, Tok};
use diagnostics::{FileId, Span};

/// A parse error at a span of the file.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub pos: Span,
    pub message: String,
}

/// A type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Name(String),
    Arrow(Box<Ty>, Box<Ty>),
}

/// An expression with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Span,
}

/// Expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Var(String),
    Constr(String, Option<Box<Expr>>),
    Int(i64),
    Unit,
    App(Box<Expr>, Vec<Expr>),
    Infix(String, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    If(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    Let {
        is_rec: bool,
        name: Param,
        params: Vec<Param>,
        ret: Option<Ty>,
        rhs: Box<Expr>,
        body: Box<Expr>,
    },
    Fun(Vec<Param>, Box<Expr>),
    Tuple(Vec<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    Record(Vec<(String, Expr)>),
    Array(Vec<Expr>),
    Constraint(Box<Expr>, Ty),
    /// `[%v: T]`
    Ext(String, Ty),
    Attr(Box<Expr>, String),
}

/// A parameter of a `let` or `fun`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Option<Ty>,
    pub attrs: Vec<String>,
    /// `?l:(x = e)`: the labelled form with its refinement expression.
    pub refinement: Option<Box<Expr>>,
    pub pos: Span,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // few items per file; boxing would only obscure matching
pub enum Item {
    Let {
        attr: Option<String>,
        is_rec: bool,
        name: String,
        params: Vec<Param>,
        ret: Option<Ty>,
        body: Expr,
        pos: Span,
    },
    Val {
        name: String,
        ty: Ty,
        pos: Span,
    },
}

struct Parser {
    toks: Vec<(Tok, Span)>,
    i: usize,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.i.min(self.toks.len() - 1)].0
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }
    fn pos(&self) -> Span {
        self.toks[self.i.min(self.toks.len() - 1)].1
    }
    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        self.i += 1;
        t
    }
    fn err<T>(&self, msg: &str) -> PResult<T> {
        Err(ParseError {
            pos: self.pos(),
            message: format!("{msg}, found {}", show(self.peek())),
        })
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    fn is_kw(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == s)
    }
    fn expect_sym(&mut self, s: &str) -> PResult<()> {
        if self.is_sym(s) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("expected `{s}`"))
        }
    }
    fn expect_kw(&mut self, s: &str) -> PResult<()> {
        if self.is_kw(s) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("expected `{s}`"))
        }
    }
    fn ident(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) if !is_keyword(&s) => {
                self.i += 1;
                Ok(s)
            }
            _ => self.err("expected an identifier"),
        }
    }

    fn items(&mut self) -> PResult<Vec<Item>> {
        let mut out = Vec::new();
        while *self.peek() != Tok::Eof {
            out.push(self.item()?);
        }
        Ok(out)
    }

    fn item(&mut self) -> PResult<Item> {
        let pos = self.pos();
        if self.is_kw("val") {
            self.i += 1;
            let name = self.binder_name()?;
            self.expect_sym(":")?;
            let ty = self.ty()?;
            return Ok(Item::Val { name, ty, pos });
        }
        self.expect_kw("let")?;
        let attr = if self.is_sym("[@") {
            self.i += 1;
            let a = self.ident()?;
            self.expect_sym("]")?;
            Some(a)
        } else {
            None
        };
        let is_rec = if self.is_kw("rec") {
            self.i += 1;
            true
        } else {
            false
        };
        let name = self.binder_name()?;
        let params = self.params()?;
        let ret = if self.is_sym(":") {
            self.i += 1;
            Some(self.ty_or_ext()?)
        } else {
            None
        };
        self.expect_sym("=")?;
        let body = self.expr()?;
        Ok(Item::Let {
            attr,
            is_rec,
            name,
            params,
            ret,
            body,
            pos,
        })
    }

    /// A name, or an operator in parentheses such as `( && )`.
    fn binder_name(&mut self) -> PResult<String> {
        if self.is_sym("(") {
            if let Tok::Sym(s) = self.peek_at(1).clone() {
                if self.peek_at(2) == &Tok::Sym(")") {
                    self.i += 3;
                    return Ok(s.to_string());
                }
            }
            if let Tok::Ident(s) = self.peek_at(1).clone() {
                if s == "mod" && self.peek_at(2) == &Tok::Sym(")") {
                    self.i += 3;
                    return Ok(s);
                }
            }
        }
        self.ident()
    }

    fn params(&mut self) -> PResult<Vec<Param>> {
        let mut out = Vec::new();
        loop {
            let pos = self.pos();
            if self.is_sym("?") {
                // ?l:(x = e)
                self.i += 1;
                let _label = self.ident()?;
                self.expect_sym(":")?;
                self.expect_sym("(")?;
                let name = self.ident()?;
                self.expect_sym("=")?;
                let mut e = self.expr()?;
                while self.is_sym("[@") {
                    self.i += 1;
                    let a = self.ident()?;
                    self.expect_sym("]")?;
                    e = Expr {
                        kind: ExprKind::Attr(Box::new(e), a),
                        pos,
                    };
                }
                self.expect_sym(")")?;
                out.push(Param {
                    name,
                    ty: None,
                    attrs: Vec::new(),
                    refinement: Some(Box::new(e)),
                    pos,
                });
            } else if self.is_sym("(") {
                self.i += 1;
                if self.is_sym(")") {
                    self.i += 1;
                    out.push(Param {
                        name: "_".into(),
                        ty: Some(Ty::Name("unit".into())),
                        attrs: vec![],
                        refinement: None,
                        pos,
                    });
                    continue;
                }
                let p = self.param_inner()?;
                self.expect_sym(")")?;
                out.push(p);
            } else if let Tok::Ident(s) = self.peek().clone() {
                if is_keyword(&s) {
                    break;
                }
                self.i += 1;
                out.push(Param {
                    name: s,
                    ty: None,
                    attrs: vec![],
                    refinement: None,
                    pos,
                });
            } else {
                break;
            }
        }
        Ok(out)
    }

    /// Inside parentheses: `x : T`, `(x : T) [@a]`, `(x [@a]) : T`, `x`.
    fn param_inner(&mut self) -> PResult<Param> {
        let pos = self.pos();
        let mut p = if self.is_sym("(") {
            self.i += 1;
            let p = self.param_inner()?;
            self.expect_sym(")")?;
            p
        } else {
            let name = self.ident()?;
            Param {
                name,
                ty: None,
                attrs: vec![],
                refinement: None,
                pos,
            }
        };
        loop {
            if self.is_sym("[@") {
                self.i += 1;
                p.attrs.push(self.ident()?);
                self.expect_sym("]")?;
            } else if self.is_sym(":") {
                self.i += 1;
                p.ty = Some(self.ty()?);
            } else {
                return Ok(p);
            }
        }
    }

    fn ty(&mut self) -> PResult<Ty> {
        let a = self.ty_atom()?;
        if self.is_sym("->") {
            self.i += 1;
            let b = self.ty()?;
            return Ok(Ty::Arrow(Box::new(a), Box::new(b)));
        }
        Ok(a)
    }

    fn ty_atom(&mut self) -> PResult<Ty> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.i += 1;
                Ok(Ty::Name(s))
            }
            Tok::UIdent(m) => {
                self.i += 1;
                self.expect_sym(".")?;
                let t = self.ident()?;
                Ok(Ty::Name(format!("{m}.{t}")))
            }
            Tok::Sym("(") => {
                self.i += 1;
                let t = self.ty()?;
                self.expect_sym(")")?;
                Ok(t)
            }
            _ => self.err("expected a type"),
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let a = self.expr_no_seq()?;
        if self.is_sym(";") {
            // a trailing `;` before a closing bracket ends the sequence
            if matches!(
                self.peek_at(1),
                Tok::Sym(")") | Tok::Sym("}") | Tok::Sym("|]") | Tok::Eof
            ) {
                self.i += 1;
                return Ok(a);
            }
            self.i += 1;
            let b = self.expr()?;
            return Ok(Expr {
                kind: ExprKind::Seq(Box::new(a), Box::new(b)),
                pos,
            });
        }
        Ok(a)
    }

    fn expr_no_seq(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.is_kw("let") {
            self.i += 1;
            let is_rec = if self.is_kw("rec") {
                self.i += 1;
                true
            } else {
                false
            };
            let name = if self.is_sym("(") {
                self.i += 1;
                let p = self.param_inner()?;
                self.expect_sym(")")?;
                p
            } else {
                let n = self.ident()?;
                Param {
                    name: n,
                    ty: None,
                    attrs: vec![],
                    refinement: None,
                    pos,
                }
            };
            let params = self.params()?;
            let ret = if self.is_sym(":") {
                self.i += 1;
                Some(self.ty()?)
            } else {
                None
            };
            self.expect_sym("=")?;
            let rhs = self.expr()?;
            self.expect_kw("in")?;
            let body = self.expr()?;
            return Ok(Expr {
                kind: ExprKind::Let {
                    is_rec,
                    name,
                    params,
                    ret,
                    rhs: Box::new(rhs),
                    body: Box::new(body),
                },
                pos,
            });
        }
        if self.is_kw("if") {
            self.i += 1;
            let c = self.expr()?;
            self.expect_kw("then")?;
            let t = self.expr_no_seq()?;
            let e = if self.is_kw("else") {
                self.i += 1;
                Some(Box::new(self.expr_no_seq()?))
            } else {
                None
            };
            return Ok(Expr {
                kind: ExprKind::If(Box::new(c), Box::new(t), e),
                pos,
            });
        }
        if self.is_kw("fun") {
            self.i += 1;
            let params = self.params()?;
            self.expect_sym("->")?;
            let body = self.expr()?;
            return Ok(Expr {
                kind: ExprKind::Fun(params, Box::new(body)),
                pos,
            });
        }
        self.tuple()
    }

    fn tuple(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let first = self.binop(0)?;
        if self.is_sym(",") {
            let mut xs = vec![first];
            while self.is_sym(",") {
                self.i += 1;
                xs.push(self.binop(0)?);
            }
            return Ok(Expr {
                kind: ExprKind::Tuple(xs),
                pos,
            });
        }
        Ok(first)
    }

    fn binop(&mut self, level: usize) -> PResult<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["=", "==", "!=", "<>", "<", ">", "<=", ">="],
            &["+", "-"],
            &["*", "/", "mod"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let pos = self.pos();
        let mut lhs = self.binop(level + 1)?;
        loop {
            let op = match self.peek() {
                Tok::Sym(s) if LEVELS[level].contains(s) => s.to_string(),
                Tok::Ident(s) if s == "mod" && LEVELS[level].contains(&"mod") => s.clone(),
                _ => break,
            };
            self.i += 1;
            // right-associative boolean connectives, left-associative otherwise
            let rhs = if level <= 1 {
                self.binop(level)?
            } else {
                self.binop(level + 1)?
            };
            lhs = Expr {
                kind: ExprKind::Infix(op, Box::new(lhs), Box::new(rhs)),
                pos,
            };
            if level <= 1 {
                break;
            }
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.is_sym("-") {
            self.i += 1;
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Neg(Box::new(e)),
                pos,
            });
        }
        self.app()
    }

    fn starts_atom(&self) -> bool {
        match self.peek() {
            Tok::Ident(s) => !is_keyword(s) || s == "true" || s == "false",
            Tok::UIdent(_) | Tok::Int(_) => true,
            Tok::Sym(s) => matches!(*s, "(" | "[|" | "{" | "[%"),
            Tok::Eof => false,
        }
    }

    fn app(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if let Tok::UIdent(c) = self.peek().clone() {
            // constructor, possibly applied to one argument
            self.i += 1;
            if self.is_sym(".") {
                self.i += 1;
                let f = self.ident()?;
                return Ok(Expr {
                    kind: ExprKind::Var(format!("{c}.{f}")),
                    pos,
                });
            }
            let arg = if self.starts_atom() {
                Some(Box::new(self.atom()?))
            } else {
                None
            };
            return Ok(Expr {
                kind: ExprKind::Constr(c, arg),
                pos,
            });
        }
        let f = self.hash_atom()?;
        let mut args = Vec::new();
        while self.starts_atom() {
            args.push(self.hash_atom()?);
        }
        if args.is_empty() {
            Ok(f)
        } else {
            Ok(Expr {
                kind: ExprKind::App(Box::new(f), args),
                pos,
            })
        }
    }

    /// Atoms joined by `#`-operators, which bind tighter than application in OCaml.
    fn hash_atom(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let mut e = self.atom()?;
        while self.is_sym("#==>") {
            self.i += 1;
            let rhs = self.atom()?;
            e = Expr {
                kind: ExprKind::Infix("#==>".into(), Box::new(e), Box::new(rhs)),
                pos,
            };
        }
        Ok(e)
    }

    fn atom(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let mk = |kind| Ok(Expr { kind, pos });
        match self.bump() {
            Tok::Int(n) => mk(ExprKind::Int(n)),
            Tok::Ident(s) if s == "true" => mk(ExprKind::Constr("true".into(), None)),
            Tok::Ident(s) if s == "false" => mk(ExprKind::Constr("false".into(), None)),
            Tok::Ident(s) if !is_keyword(&s) => mk(ExprKind::Var(s)),
            Tok::UIdent(c) => mk(ExprKind::Constr(c, None)),
            Tok::Sym("[%") => {
                let name = self.ident()?;
                self.expect_sym(":")?;
                let t = self.ty()?;
                self.expect_sym("]")?;
                mk(ExprKind::Ext(name, t))
            }
            Tok::Sym("[|") => {
                let mut xs = Vec::new();
                while !self.is_sym("|]") {
                    xs.push(self.expr_no_seq()?);
                    if self.is_sym(";") {
                        self.i += 1;
                    }
                }
                self.expect_sym("|]")?;
                mk(ExprKind::Array(xs))
            }
            Tok::Sym("{") => {
                let mut fields = Vec::new();
                while !self.is_sym("}") {
                    let f = self.ident()?;
                    self.expect_sym("=")?;
                    let e = self.expr_no_seq()?;
                    fields.push((f, e));
                    if self.is_sym(";") {
                        self.i += 1;
                    }
                }
                self.expect_sym("}")?;
                mk(ExprKind::Record(fields))
            }
            Tok::Sym("(") => {
                if self.is_sym(")") {
                    self.i += 1;
                    return mk(ExprKind::Unit);
                }
                // operator section `( && )`
                if let Tok::Sym(s) = self.peek().clone() {
                    if self.peek_at(1) == &Tok::Sym(")")
                        && s != "("
                        && s != "[|"
                        && s != "{"
                        && s != "[%"
                    {
                        self.i += 2;
                        return mk(ExprKind::Var(s.to_string()));
                    }
                }
                let mut e = self.expr()?;
                loop {
                    if self.is_sym(":") {
                        self.i += 1;
                        let t = self.ty_or_ext()?;
                        e = Expr {
                            kind: ExprKind::Constraint(Box::new(e), t),
                            pos,
                        };
                    } else if self.is_sym("[@") {
                        self.i += 1;
                        let a = self.ident()?;
                        self.expect_sym("]")?;
                        e = Expr {
                            kind: ExprKind::Attr(Box::new(e), a),
                            pos,
                        };
                    } else {
                        break;
                    }
                }
                self.expect_sym(")")?;
                Ok(e)
            }
            _ => {
                self.i -= 1;
                self.err("expected an expression")
            }
        }
    }

    /// After `:` inside parentheses: a type, or a `[%v: T]` refinement marker (kept as a type
    /// named `%v:T`).
    fn ty_or_ext(&mut self) -> PResult<Ty> {
        if self.is_sym("[%") {
            self.i += 1;
            let name = self.ident()?;
            self.expect_sym(":")?;
            let t = self.ty()?;
            self.expect_sym("]")?;
            let inner = match t {
                Ty::Name(n) => n,
                Ty::Arrow(..) => return self.err("a refinement sort must be a base type"),
            };
            return Ok(Ty::Name(format!("%{name}:{inner}")));
        }
        self.ty()
    }
}

/// Parses a whole file into items.
pub fn parse_items(file: FileId, src: &str) -> Result<Vec<Item>, ParseError> {
    let toks = lex(file, src)?;
    Parser { toks, i: 0 }.items()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spec_items() {
        let src = "let[@libRty] getNext ((a : Cell.t) [@ghost]) ?l:(prev = (true : [%v: Cell.t])) =\n  { pre = nextP prev a; res = (v == a : [%v: Cell.t]); newadding = lastL && GetNext ((prev [@d]), v, v == a); }\n";
        let items = parse_items(FileId(0), src).unwrap();
        let Item::Let { attr, params, .. } = &items[0] else {
            panic!("not a let")
        };
        assert_eq!(attr.as_deref(), Some("libRty"));
        assert_eq!(params.len(), 2);
        assert_eq!(params[0].attrs, vec!["ghost".to_string()]);
        assert!(params[1].refinement.is_some());
    }

    /// OCaml's `#`-operators bind tighter than application: `_G (a) #==> (b) && c` is
    /// `(_G ((a) #==> (b))) && c` (the reading of MinSet_Set's `ri.ml`).
    #[test]
    fn hash_implication_binds_inside_the_application() {
        let items =
            parse_items(FileId(0), "let[@pred] rI (m : int) = _G (a) #==> (b) && c").unwrap();
        let Item::Let { body, .. } = &items[0] else {
            panic!("not a let")
        };
        let ExprKind::Infix(and, lhs, rhs) = &body.kind else {
            panic!("top is not `&&`: {body:?}")
        };
        assert_eq!(and, "&&");
        assert!(matches!(&rhs.kind, ExprKind::Var(c) if c == "c"));
        let ExprKind::App(f, args) = &lhs.kind else {
            panic!("left of `&&` is not an application: {lhs:?}")
        };
        assert!(matches!(&f.kind, ExprKind::Var(g) if g == "_G"));
        assert_eq!(args.len(), 1);
        assert!(matches!(&args[0].kind, ExprKind::Infix(op, _, _) if op == "#==>"));
    }

    #[test]
    fn reports_positions() {
        // `match` is not part of the language: the error is at it, on line 2, columns 3-7
        // (bytes 12..17 of the text).
        let src = "let f x =\n  match x with | _ -> x";
        let err = parse_items(FileId(0), src).unwrap_err();
        assert_eq!((err.pos.start, err.pos.end), (12, 17));
        let file = diagnostics::SourceFile::new("f.ml", "f.ml", src.to_string());
        assert_eq!(file.line_col(err.pos.start as usize), (2, 3));
    }
}
