//! List expressions: the binders `map each`, `list of ... such that`, `exists`, `for all`,
//! `combine`, `content of ... is maximum`, the aggregates `sum T of`, `maximum of` (with
//! `or if list empty then`), `contains`, and the late-2024 postfix map `e for x among l`.
//! Tuple binders `(x, y)` become one fresh variable destructured in the body, the collection
//! being zipped.

use super::expr::{APPLY, LET, TOP};
use super::{PResult, Parser, Valid};
use crate::ast::*;
use crate::keywords::{Keyword, Keyword as K};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    #[inline(never)]
    pub(super) fn prefix_sum(&mut self) -> PResult<ExprKind> {
        self.bump();
        let typ = self.typ()?;
        self.expect_kw(K::Of)?;
        let list = self.expr(APPLY)?;
        Ok(ExprKind::ListAggregate {
            op: Aggregate::Sum(typ),
            list: Box::new(list),
            default: None,
        })
    }

    #[inline(never)]
    pub(super) fn prefix_exists(&mut self) -> PResult<ExprKind> {
        self.bump();
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        self.expect_kw(K::Such)?;
        self.expect_kw(K::That)?;
        let cond = b.wrap_body(self.expr(LET)?);
        Ok(ExprKind::ListExists {
            var: b.var(),
            list: Box::new(list),
            cond: Box::new(cond),
        })
    }

    #[inline(never)]
    pub(super) fn prefix_for_all(&mut self) -> PResult<ExprKind> {
        self.bump();
        self.expect_kw(K::All)?;
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        self.expect_kw(K::WeHave)?;
        let cond = b.wrap_body(self.expr(LET)?);
        Ok(ExprKind::ListForAll {
            var: b.var(),
            list: Box::new(list),
            cond: Box::new(cond),
        })
    }

    #[inline(never)]
    pub(super) fn prefix_map_each(&mut self) -> PResult<ExprKind> {
        self.bump();
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let mut list = b.wrap_list(self.expr(0)?);
        if self.eat_kw(K::Such).is_some() {
            self.expect_kw(K::That)?;
            let cond = b.wrap_body(self.expr(0)?);
            let span = list.span.to(cond.span);
            list = Expr {
                kind: ExprKind::ListFilter {
                    var: b.var(),
                    list: Box::new(list),
                    cond: Box::new(cond),
                },
                span,
            };
        }
        self.expect_kw(K::To)?;
        let body = b.wrap_body(self.expr(TOP)?);
        Ok(ExprKind::ListMap {
            var: b.var(),
            list: Box::new(list),
            body: Box::new(body),
        })
    }

    #[inline(never)]
    pub(super) fn prefix_list_filter(&mut self) -> PResult<ExprKind> {
        self.bump();
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        self.expect_kw(K::Such)?;
        self.expect_kw(K::That)?;
        let cond = b.wrap_body(self.expr(TOP)?);
        Ok(ExprKind::ListFilter {
            var: b.var(),
            list: Box::new(list),
            cond: Box::new(cond),
        })
    }

    #[inline(never)]
    pub(super) fn prefix_combine(&mut self) -> PResult<ExprKind> {
        self.bump();
        // Catala's parser has no message of its own for this state: `unexpected token.`
        if self.eat_kw(K::All).is_none() {
            return Err(self.error_valid(None, &[Valid::Kw(K::All)]));
        }
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        self.expect_kw(K::In)?;
        let acc = self.binder()?;
        self.expect_kw(K::Initially)?;
        let init = self.expr(0)?;
        self.expect_kw(K::With)?;
        let step = acc.wrap_body(b.wrap_body(self.expr(TOP)?));
        Ok(ExprKind::ListFold {
            var: b.var(),
            list: Box::new(list),
            acc: acc.var(),
            init: Box::new(init),
            step: Box::new(step),
        })
    }

    #[inline(never)]
    pub(super) fn prefix_arg_extremum(&mut self) -> PResult<ExprKind> {
        self.bump();
        self.expect_kw(K::Of)?;
        let b = self.binder()?;
        let var = b.var();
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        self.expect_kw(K::Such)?;
        self.expect_kw(K::That)?;
        let key = b.wrap_body(self.expr(0)?);
        if self.eat_kw(K::Is).is_none() {
            return Ok(ExprKind::ListFind {
                var,
                list: Box::new(list),
                cond: Box::new(key),
            });
        }
        let maximum = if self.eat_kw(K::Maximum).is_some() {
            true
        } else if self.eat_kw(K::Minimum).is_some() {
            false
        } else {
            return Err(self.error("\"maximum\" or \"minimum\""));
        };
        let default = self.or_if_list_empty()?;
        Ok(ExprKind::ListArgExtremum {
            maximum,
            var,
            list: Box::new(list),
            key: Box::new(key),
            default,
        })
    }

    #[inline(never)]
    pub(super) fn prefix_min_max(&mut self, kw: Keyword) -> PResult<ExprKind> {
        self.bump();
        self.expect_kw(K::Of)?;
        let list = self.expr(APPLY)?;
        let default = self.or_if_list_empty()?;
        Ok(ExprKind::ListAggregate {
            op: if kw == K::Maximum {
                Aggregate::Maximum
            } else {
                Aggregate::Minimum
            },
            list: Box::new(list),
            default,
        })
    }

    fn or_if_list_empty(&mut self) -> PResult<Option<Box<Expr>>> {
        if self.eat_kw(K::OrIfListEmpty).is_none() {
            return Ok(None);
        }
        self.expect_kw(K::Then)?;
        Ok(Some(Box::new(self.expr(APPLY)?)))
    }

    /// Late-2024 postfix map: `e for x among l [such that p]`.
    #[inline(never)]
    pub(super) fn postfix_map(&mut self, lhs: Expr) -> PResult<Expr> {
        self.bump();
        let var = self.lident()?;
        self.expect_kw(K::Among)?;
        let mut list = self.expr(APPLY)?;
        if self.eat_kw(K::Such).is_some() {
            self.expect_kw(K::That)?;
            let cond = self.expr(TOP)?;
            let span = list.span.to(cond.span);
            list = Expr {
                kind: ExprKind::ListFilter {
                    var: var.clone(),
                    list: Box::new(list),
                    cond: Box::new(cond),
                },
                span,
            };
        }
        let span = lhs.span.to(list.span);
        Ok(Expr {
            kind: ExprKind::ListMap {
                var,
                list: Box::new(list),
                body: Box::new(lhs),
            },
            span,
        })
    }

    /// `l contains e`.
    #[inline(never)]
    pub(super) fn contains(&mut self, lhs: Expr) -> PResult<Expr> {
        self.bump();
        let rhs = self.expr(APPLY)?;
        let span = lhs.span.to(rhs.span);
        Ok(Expr {
            kind: ExprKind::ListContains(Box::new(lhs), Box::new(rhs)),
            span,
        })
    }

    /// A binder: a name, or a tuple of names `(x, y)`.
    pub(super) fn binder(&mut self) -> PResult<Binder> {
        self.attributes()?;
        if matches!(self.peek(), TokenKind::LParen) {
            let start = self.bump().span;
            let mut vars = Vec::new();
            loop {
                self.attributes()?;
                vars.push(self.lident()?);
                if self.eat(&TokenKind::Comma).is_none() {
                    break;
                }
            }
            self.expect(TokenKind::RParen)?;
            return Ok(Binder::Tuple(vars, self.since(start)));
        }
        Ok(Binder::Single(self.lident()?))
    }
}

impl Parser<'_> {
    /// `sort l in increasing order`, `sort all x among l in decreasing order of k [and then k]`.
    #[inline(never)]
    pub(super) fn prefix_sort(&mut self) -> PResult<ExprKind> {
        self.bump();
        if self.eat_kw(K::All).is_none() {
            let list = self.expr(0)?;
            let descending = self.sort_order()?;
            return Ok(ExprKind::ListSort {
                var: None,
                list: Box::new(list),
                keys: Vec::new(),
                descending,
            });
        }
        let b = self.binder()?;
        self.expect_kw(K::Among)?;
        let list = b.wrap_list(self.expr(0)?);
        let descending = self.sort_order()?;
        self.expect_kw(K::Of)?;
        let mut keys = vec![b.wrap_body(self.expr(APPLY)?)];
        while self.eat_kw(K::AndThen).is_some() {
            keys.push(b.wrap_body(self.expr(APPLY)?));
        }
        Ok(ExprKind::ListSort {
            var: Some(b.var()),
            list: Box::new(list),
            keys,
            descending,
        })
    }

    fn sort_order(&mut self) -> PResult<bool> {
        if self.eat_kw(K::OrderAscending).is_some() {
            Ok(false)
        } else if self.eat_kw(K::OrderDescending).is_some() {
            Ok(true)
        } else {
            Err(self.error("\"in increasing order\" or \"in decreasing order\""))
        }
    }
}

/// A binder of a list operator, `let` or pattern: one name or a tuple of names.
#[derive(Clone, Debug)]
pub(super) enum Binder {
    Single(Ident),
    Tuple(Vec<Ident>, Span),
}

impl Binder {
    /// The variable bound: the name itself, or for a tuple one fresh variable named after it.
    pub(super) fn var(&self) -> Ident {
        match self {
            Binder::Single(id) => id.clone(),
            Binder::Tuple(vars, span) => Ident {
                name: tuple_var_name(vars),
                span: *span,
            },
        }
    }

    /// For a tuple, wraps `body` in the destructuring of the fresh variable.
    pub(super) fn wrap_body(&self, body: Expr) -> Expr {
        match self {
            Binder::Single(_) => body,
            Binder::Tuple(vars, _) => {
                let var = self.var();
                let span = body.span;
                let value = Expr {
                    span: var.span,
                    kind: ExprKind::Var(var),
                };
                Expr {
                    kind: ExprKind::LetTuple(vars.clone(), Box::new(value), Box::new(body)),
                    span,
                }
            }
        }
    }

    /// For a tuple, the collection is a tuple of lists to zip.
    pub(super) fn wrap_list(&self, list: Expr) -> Expr {
        match self {
            Binder::Single(_) => list,
            Binder::Tuple(..) => {
                let span = list.span;
                Expr {
                    kind: ExprKind::ListZip(Box::new(list)),
                    span,
                }
            }
        }
    }
}

/// The name of the fresh variable standing for a tuple binder: `(x, y)`.
fn tuple_var_name(vars: &[Ident]) -> String {
    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    format!("({})", names.join(", "))
}
