//! Expressions and types. Expressions are parsed by precedence climbing with the levels of
//! Catala's `parser.mly` (lowest first): top-level binders (`map each`, `combine`, `list of`),
//! `--` match arms, `if`/`let`/`exists`/`for all`, `and`/`or`/`xor` (one right-associative
//! level), comparisons (non-associative), `+ - ++` (left), `* /` (left), application `of`,
//! `contains`, `with pattern`, `but replace` (right), unary `not`/`-`, constructor payloads
//! `content`, and field access `.` (left). The late-2024 forms `e for x among l`,
//! `-- C of x:` and unqualified date built-ins are accepted too.

use super::lists::Binder;
use super::{PResult, Parser};
use crate::ast::*;
use crate::keywords::{self, BuiltinName, Keyword as K, PrimitiveType};
use crate::lexer::TokenKind;
use crate::source::Span;

/// Precedence levels (higher binds tighter).
pub(super) const TOP: u8 = 1;
pub(super) const LET: u8 = 3;
const LOGIC: u8 = 4;
const COMPARE: u8 = 5;
const ADD: u8 = 6;
const MULT: u8 = 7;
pub(super) const APPLY: u8 = 8;
const UNOP: u8 = 11;
const CONTENT: u8 = 12;
const DOT: u8 = 14;

fn binop_of(tok: &TokenKind) -> Option<(BinOp, u8)> {
    let op = match tok {
        TokenKind::Keyword(K::And) => (BinOp::And, LOGIC),
        TokenKind::Keyword(K::Or) => (BinOp::Or, LOGIC),
        TokenKind::Keyword(K::Xor) => (BinOp::Xor, LOGIC),
        TokenKind::Less => (BinOp::Lt, COMPARE),
        TokenKind::LessEqual => (BinOp::Le, COMPARE),
        TokenKind::Greater => (BinOp::Gt, COMPARE),
        TokenKind::GreaterEqual => (BinOp::Ge, COMPARE),
        TokenKind::Equal => (BinOp::Eq, COMPARE),
        TokenKind::NotEqual => (BinOp::Neq, COMPARE),
        TokenKind::Plus => (BinOp::Add, ADD),
        TokenKind::Minus => (BinOp::Sub, ADD),
        TokenKind::PlusPlus => (BinOp::Concat, ADD),
        TokenKind::Mult => (BinOp::Mul, MULT),
        TokenKind::Div => (BinOp::Div, MULT),
        _ => return None,
    };
    Some(op)
}

impl Parser<'_> {
    /// An expression whose infix operators all have a level of at least `min`.
    pub(super) fn expr(&mut self, min: u8) -> PResult<Expr> {
        self.enter()?;
        let result = super::with_stack(|| self.expr_inner(min));
        self.leave();
        result
    }

    fn expr_inner(&mut self, min: u8) -> PResult<Expr> {
        // Attributes apply to the expression that follows at the current precedence:
        // `#[debug.print] 4 - 2` covers `4 - 2`, `4 - #[debug.print] 2 - 1` covers `2`.
        if matches!(self.peek(), TokenKind::AttrStart) {
            let attrs = self.attributes()?;
            let mut e = self.expr_inner(min)?;
            let message = attrs
                .iter()
                .find(|a| a.path == ["error", "message"])
                .and_then(|a| a.value.clone());
            if let ExprKind::Assert(_, _, m) = &mut e.kind {
                *m = message;
            } else if let (ExprKind::Impossible, Some(m)) = (&e.kind, message) {
                e.kind = ExprKind::ImpossibleMessage(m);
            }
            if let Some(debug) = attrs.iter().find(|a| a.path == ["debug", "print"]) {
                let span = e.span;
                e = Expr {
                    kind: ExprKind::DebugPrint(debug.value.clone(), Box::new(e)),
                    span,
                };
            }
            return Ok(e);
        }
        let mut lhs = self.prefix()?;
        loop {
            let tok = self.peek();
            lhs = if let Some((op, level)) = binop_of(tok) {
                if level < min {
                    break;
                }
                self.binop(lhs, op, level)?
            } else {
                match tok {
                    TokenKind::Dot if DOT >= min => {
                        self.bump();
                        self.field_access(lhs)?
                    }
                    TokenKind::Keyword(K::Of) if APPLY >= min => self.call(lhs)?,
                    TokenKind::Keyword(K::WithPattern)
                        if APPLY >= min && !matches!(self.peek_at(1), TokenKind::Alt) =>
                    {
                        self.test_ctor(lhs)?
                    }
                    TokenKind::Keyword(K::ButReplace) if APPLY >= min => self.but_replace(lhs)?,
                    TokenKind::Keyword(K::Contains) if APPLY >= min => self.contains(lhs)?,
                    TokenKind::Keyword(K::For)
                        if APPLY >= min && self.at_lident(1) && self.at_kw_at(2, K::Among) =>
                    {
                        self.postfix_map(lhs)?
                    }
                    _ => break,
                }
            };
        }
        Ok(lhs)
    }

    #[inline(never)]
    fn binop(&mut self, mut lhs: Expr, op: BinOp, level: u8) -> PResult<Expr> {
        let op_span = self.bump().span;
        let rhs_min = match level {
            LOGIC => LOGIC,
            _ => level + 1,
        };
        let rhs = self.expr(rhs_min)?;
        if level == LOGIC {
            self.check_logic_mix(op, op_span, &rhs)?;
        }
        if level == COMPARE {
            if let Some((_, COMPARE)) = binop_of(self.peek()) {
                return Err(self.error(
                    "an operator other than a comparison (comparisons do not associate; add \
                     parentheses)",
                ));
            }
        }
        let span = lhs.span.to(rhs.span);
        // `e with pattern C content x and cond`: `x` is bound in `cond`.
        if op == BinOp::And {
            if let ExprKind::TestCtor {
                binding: Some(binding),
                and_cond: and_cond @ None,
                ..
            } = &mut lhs.kind
            {
                // A tuple binder `(x, y)` is one fresh variable named `(x, y)`: destructure it
                // around the condition.
                let rhs = match binding
                    .name
                    .strip_prefix('(')
                    .and_then(|n| n.strip_suffix(')'))
                {
                    Some(names) => {
                        let vars = names
                            .split(", ")
                            .map(|n| Ident {
                                name: n.to_string(),
                                span: binding.span,
                            })
                            .collect();
                        let value = Expr {
                            span: binding.span,
                            kind: ExprKind::Var(binding.clone()),
                        };
                        let span = rhs.span;
                        Expr {
                            kind: ExprKind::LetTuple(vars, Box::new(value), Box::new(rhs)),
                            span,
                        }
                    }
                    None => rhs,
                };
                *and_cond = Some(Box::new(rhs));
                return Ok(Expr {
                    kind: lhs.kind,
                    span,
                });
            }
        }
        Ok(Expr {
            kind: ExprKind::Binop(op, op_span, Box::new(lhs), Box::new(rhs)),
            span,
        })
    }

    /// `and`, `or` and `xor` share one right-associative level; like Catala, reject a chain
    /// that mixes them (or chains `xor`) without parentheses.
    fn check_logic_mix(&self, op: BinOp, op_span: Span, rhs: &Expr) -> PResult<()> {
        let ExprKind::Binop(op1 @ (BinOp::And | BinOp::Or | BinOp::Xor), op1_span, l1, _) =
            &rhs.kind
        else {
            return Ok(());
        };
        // A parenthesised right operand spans its parentheses, beyond its own left operand.
        let parenthesised = rhs.span.start < l1.span.start;
        if parenthesised || (op != BinOp::Xor && op == *op1) {
            return Ok(());
        }
        Err(self
            .error_at(
                op_span,
                "Please add parentheses to explicit which of these operators should be applied \
             first.",
            )
            .at(*op1_span))
    }

    /// `f of a, b`.
    #[inline(never)]
    fn call(&mut self, lhs: Expr) -> PResult<Expr> {
        self.bump();
        let args = self.call_args()?;
        let span = args.last().map_or(lhs.span, |a| lhs.span.to(a.span));
        Ok(Expr {
            kind: ExprKind::Call(Box::new(lhs), args),
            span,
        })
    }

    /// `e with pattern C [content x]`.
    #[inline(never)]
    fn test_ctor(&mut self, lhs: Expr) -> PResult<Expr> {
        self.bump();
        let (ctor, binding) = self.constructor_binding()?;
        let binding = binding.map(|b| b.var());
        let span = self.since(lhs.span);
        Ok(Expr {
            kind: ExprKind::TestCtor {
                expr: Box::new(lhs),
                ctor,
                binding,
                and_cond: None,
            },
            span,
        })
    }

    /// `e but replace { -- f: e }`.
    #[inline(never)]
    fn but_replace(&mut self, lhs: Expr) -> PResult<Expr> {
        self.bump();
        self.expect(TokenKind::LBrace)?;
        let fields = self.struct_fields(true)?;
        self.expect(TokenKind::RBrace)?;
        let span = self.since(lhs.span);
        Ok(Expr {
            kind: ExprKind::StructReplace(Box::new(lhs), fields),
            span,
        })
    }

    /// `e.field`, `e.1`, or `e.S.x` / `e.M.S.x` (structure-qualified field access).
    fn field_access(&mut self, lhs: Expr) -> PResult<Expr> {
        if let TokenKind::Int(n) = self.peek().clone() {
            let span = self.bump().span;
            let index = n
                .parse::<u32>()
                .ok()
                .filter(|i| *i >= 1)
                .ok_or_else(|| self.error_at(span, "Tuple indices must be >= 1"))?;
            return Ok(Expr {
                span: lhs.span.to(span),
                kind: ExprKind::TupleIndex(Box::new(lhs), index),
            });
        }
        let mut qualifier: Vec<Ident> = Vec::new();
        while matches!(self.peek(), TokenKind::UIdent(_))
            && matches!(self.peek_at(1), TokenKind::Dot)
        {
            qualifier.push(self.uident()?);
            self.bump();
        }
        let qualifier = qualifier.pop().map(|name| QualName {
            path: qualifier,
            name,
        });
        let field = self.lident()?;
        Ok(Expr {
            span: lhs.span.to(field.span),
            kind: ExprKind::Field(Box::new(lhs), qualifier, field),
        })
    }

    /// Arguments of `f of a, b`: each at application level, separated by commas.
    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = vec![self.expr(APPLY)?];
        while self.eat(&TokenKind::Comma).is_some() {
            args.push(self.expr(APPLY)?);
        }
        Ok(args)
    }

    /// `C`, `C content x`, or the late-2024 `C of x` (patterns and `with pattern` tests).
    fn constructor_binding(&mut self) -> PResult<(QualName, Option<Binder>)> {
        let ctor = self.quident()?;
        let binds = (self.at_kw(K::Content) || self.at_kw(K::Of))
            && (self.at_lident(1) || matches!(self.peek_at(1), TokenKind::LParen));
        let binding = if binds {
            self.bump();
            Some(self.binder()?)
        } else {
            None
        };
        Ok((ctor, binding))
    }

    /// `-- f: e -- g: e` (at least one field when `nonempty`).
    fn struct_fields(&mut self, nonempty: bool) -> PResult<Vec<(Ident, Expr)>> {
        let mut fields = Vec::new();
        while self.eat(&TokenKind::Alt).is_some() {
            let name = self.lident()?;
            self.expect(TokenKind::Colon)?;
            let value = self.expr(0)?;
            fields.push((name, value));
        }
        if nonempty && fields.is_empty() {
            return Err(self.error("\"--\" followed by a field name"));
        }
        Ok(fields)
    }

    fn prefix(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::LIdent(_) => return self.lident_expr(),
            TokenKind::Keyword(K::Sum) if !matches!(self.peek_at(1), TokenKind::Keyword(K::Of)) => {
                self.prefix_sum()?
            }
            TokenKind::UIdent(_) => return self.uident_expr(),
            TokenKind::Int(_)
            | TokenKind::Decimal { .. }
            | TokenKind::Money { .. }
            | TokenKind::Date { .. }
            | TokenKind::Keyword(K::True | K::False) => ExprKind::Literal(self.literal()?),
            TokenKind::LParen => return self.prefix_paren(start),
            TokenKind::LBracket => self.prefix_list()?,
            TokenKind::Keyword(K::Output) => self.prefix_scope_call()?,
            TokenKind::Keyword(K::Not) => self.prefix_not()?,
            TokenKind::Minus => self.prefix_minus()?,
            TokenKind::Keyword(K::If) => self.prefix_if()?,
            TokenKind::Keyword(K::Let) => self.prefix_let()?,
            TokenKind::Keyword(K::Match) => self.match_expr()?,
            TokenKind::Keyword(K::Exists) => self.prefix_exists()?,
            TokenKind::Keyword(K::For) => self.prefix_for_all()?,
            TokenKind::Keyword(K::MapEach) => self.prefix_map_each()?,
            TokenKind::Keyword(K::List) => self.prefix_list_filter()?,
            TokenKind::Keyword(K::Combine) => self.prefix_combine()?,
            TokenKind::Keyword(K::Content) => self.prefix_arg_extremum()?,
            TokenKind::Keyword(kw @ (K::Maximum | K::Minimum)) => {
                let kw = *kw;
                self.prefix_min_max(kw)?
            }
            TokenKind::Keyword(K::Sort) => self.prefix_sort()?,
            TokenKind::Keyword(K::Assertion) => {
                self.bump();
                let check = self.expr(0)?;
                self.expect_kw(K::In)?;
                let next = self.expr(LET)?;
                ExprKind::Assert(Box::new(check), Box::new(next), None)
            }
            _ => return Err(self.error("an expression")),
        };
        Ok(Expr {
            kind,
            span: self.since(start),
        })
    }

    /// `(e)` or a tuple `(e1, e2)`.
    #[inline(never)]
    fn prefix_paren(&mut self, start: Span) -> PResult<Expr> {
        self.bump();
        let mut items = vec![self.expr(0)?];
        while self.eat(&TokenKind::Comma).is_some() {
            items.push(self.expr(0)?);
        }
        self.expect(TokenKind::RParen)?;
        if items.len() == 1 {
            let mut e = items.remove(0);
            e.span = self.since(start);
            return Ok(e);
        }
        Ok(Expr {
            kind: ExprKind::Tuple(items),
            span: self.since(start),
        })
    }

    #[inline(never)]
    fn prefix_list(&mut self) -> PResult<ExprKind> {
        self.bump();
        let mut items = Vec::new();
        while !matches!(self.peek(), TokenKind::RBracket) {
            items.push(self.expr(0)?);
            if self.eat(&TokenKind::Semicolon).is_none() {
                break;
            }
        }
        self.expect(TokenKind::RBracket)?;
        Ok(ExprKind::List(items))
    }

    #[inline(never)]
    fn prefix_scope_call(&mut self) -> PResult<ExprKind> {
        self.bump();
        self.expect_kw(K::Of)?;
        let scope = self.quident()?;
        let args = if self.eat_kw(K::With).is_some() {
            self.expect(TokenKind::LBrace)?;
            let fields = self.struct_fields(false)?;
            self.expect(TokenKind::RBrace)?;
            fields
        } else {
            Vec::new()
        };
        Ok(ExprKind::ScopeCall(scope, args))
    }

    #[inline(never)]
    fn prefix_not(&mut self) -> PResult<ExprKind> {
        self.bump();
        let e = self.expr(UNOP)?;
        Ok(ExprKind::Unop(UnOp::Not, Box::new(e)))
    }

    #[inline(never)]
    fn prefix_minus(&mut self) -> PResult<ExprKind> {
        self.bump();
        let e = self.expr(UNOP)?;
        Ok(ExprKind::Unop(UnOp::Minus, Box::new(e)))
    }

    #[inline(never)]
    fn prefix_if(&mut self) -> PResult<ExprKind> {
        self.bump();
        let c = self.expr(0)?;
        self.expect_kw(K::Then)?;
        let t = self.expr(0)?;
        self.expect_kw(K::Else)?;
        let e = self.expr(LET)?;
        Ok(ExprKind::If(Box::new(c), Box::new(t), Box::new(e)))
    }

    #[inline(never)]
    fn prefix_let(&mut self) -> PResult<ExprKind> {
        self.bump();
        let binder = self.binder()?;
        self.expect_kw(K::Equals)?;
        let value = self.expr(0)?;
        self.expect_kw(K::In)?;
        let body = self.expr(LET)?;
        Ok(match binder {
            Binder::Single(var) => ExprKind::Let(var, Box::new(value), Box::new(body)),
            Binder::Tuple(vars, _) => ExprKind::LetTuple(vars, Box::new(value), Box::new(body)),
        })
    }

    /// A lower-case name: a variable, `x state s`, or a built-in (`round of e`, `number of l`,
    /// `impossible`).
    fn lident_expr(&mut self) -> PResult<Expr> {
        let ident = self.lident()?;
        let start = ident.span;
        match keywords::builtin(self.lang, &ident.name) {
            Some(BuiltinName::Impossible) => Ok(Expr {
                kind: ExprKind::Impossible,
                span: start,
            }),
            Some(b) => {
                if self.eat_kw(K::Of).is_none() {
                    return Err(self.error_at(
                        start,
                        format!(
                            "Invalid use of built-in {}: expected \"of\" after it",
                            ident.name
                        ),
                    ));
                }
                let arg = self.expr(APPLY)?;
                let kind = match b {
                    BuiltinName::Function(f) => ExprKind::Builtin(f, Box::new(arg)),
                    _ => ExprKind::ListAggregate {
                        op: Aggregate::Count,
                        list: Box::new(arg),
                        default: None,
                    },
                };
                Ok(Expr {
                    kind,
                    span: self.since(start),
                })
            }
            None => {
                if self.at_kw(K::State) && self.at_lident(1) {
                    self.bump();
                    let state = self.lident()?;
                    return Ok(Expr {
                        span: start.to(state.span),
                        kind: ExprKind::StateAccess(ident, state),
                    });
                }
                Ok(Expr {
                    kind: ExprKind::Var(ident),
                    span: start,
                })
            }
        }
    }

    /// `M.x`, `C`, `E.C content e`, `S { -- f: e }`.
    fn uident_expr(&mut self) -> PResult<Expr> {
        let start = self.span();
        let mut path = vec![self.uident()?];
        while matches!(self.peek(), TokenKind::Dot) {
            match self.peek_at(1) {
                TokenKind::UIdent(_) => {
                    self.bump();
                    path.push(self.uident()?);
                }
                _ if self.at_lident(1) => {
                    self.bump();
                    let name = self.lident()?;
                    return Ok(Expr {
                        span: start.to(name.span),
                        kind: ExprKind::QualVar(QualName { path, name }),
                    });
                }
                _ => break,
            }
        }
        let name = path.pop().ok_or_else(|| self.error("a name"))?;
        let qname = QualName { path, name };
        if matches!(self.peek(), TokenKind::LBrace) {
            self.bump();
            let fields = self.struct_fields(true)?;
            self.expect(TokenKind::RBrace)?;
            return Ok(Expr {
                kind: ExprKind::StructLit(qname, fields),
                span: self.since(start),
            });
        }
        let payload = if self.eat_kw(K::Content).is_some() {
            Some(Box::new(self.expr(CONTENT)?))
        } else {
            None
        };
        Ok(Expr {
            kind: ExprKind::Constructor {
                name: qname,
                payload,
            },
            span: self.since(start),
        })
    }

    fn match_expr(&mut self) -> PResult<ExprKind> {
        self.bump();
        let scrutinee = self.expr(0)?;
        self.expect_kw(K::WithPattern)?;
        let mut arms = Vec::new();
        while matches!(self.peek(), TokenKind::Alt)
            && matches!(
                self.peek_at(1),
                TokenKind::UIdent(_) | TokenKind::Keyword(K::Anything)
            )
        {
            let arm_start = self.bump().span;
            let (pattern, binder) = if let Some(span) = self.eat_kw(K::Anything) {
                (Pattern::Wildcard(span), None)
            } else {
                let (ctor, binder) = self.constructor_binding()?;
                let binding = binder.as_ref().map(Binder::var);
                (Pattern::Ctor { ctor, binding }, binder)
            };
            self.expect(TokenKind::Colon)?;
            let mut body = self.expr(0)?;
            if let Some(b) = &binder {
                body = b.wrap_body(body);
            }
            arms.push(MatchArm {
                pattern,
                body,
                span: self.since(arm_start),
            });
        }
        if arms.is_empty() {
            return Err(self.error("\"--\" followed by a pattern"));
        }
        Ok(ExprKind::Match(Box::new(scrutinee), arms))
    }

    /// Number, money, date and boolean literals, with `%` and duration units.
    fn literal(&mut self) -> PResult<Literal> {
        let tok = self.bump();
        let lit = match tok.kind {
            TokenKind::Int(digits) => {
                if self.eat(&TokenKind::Percent).is_some() {
                    Literal::Percent {
                        int_part: digits,
                        frac_part: String::new(),
                    }
                } else if let Some(unit) = self.duration_unit() {
                    Literal::Duration {
                        amount: digits,
                        unit,
                    }
                } else {
                    Literal::Integer(digits)
                }
            }
            TokenKind::Decimal {
                int_part,
                frac_part,
            } => {
                if self.eat(&TokenKind::Percent).is_some() {
                    Literal::Percent {
                        int_part,
                        frac_part,
                    }
                } else if self.duration_unit().is_some() {
                    return Err(self.error_at(
                        self.since(tok.span),
                        "Durations must be written with an integer amount",
                    ));
                } else {
                    Literal::Decimal {
                        int_part,
                        frac_part,
                    }
                }
            }
            TokenKind::Money { units, cents } => Literal::Money { units, cents },
            TokenKind::Date { year, month, day } => Literal::Date { year, month, day },
            TokenKind::Keyword(K::True) => Literal::Bool(true),
            TokenKind::Keyword(K::False) => Literal::Bool(false),
            _ => return Err(self.error_at(tok.span, "Expected a literal")),
        };
        Ok(lit)
    }

    fn duration_unit(&mut self) -> Option<DurationUnit> {
        let unit = match self.peek() {
            TokenKind::Keyword(K::Year) => DurationUnit::Year,
            TokenKind::Keyword(K::Month) => DurationUnit::Month,
            TokenKind::Keyword(K::Day) => DurationUnit::Day,
            _ => return None,
        };
        self.bump();
        Some(unit)
    }

    /// A type: primitive, structure/enumeration name, `list of T`, `optional of T`, `(T, U)`.
    pub(super) fn typ(&mut self) -> PResult<Type> {
        self.enter()?;
        let result = super::with_stack(|| self.typ_inner());
        self.leave();
        result
    }

    fn typ_inner(&mut self) -> PResult<Type> {
        let start = self.span();
        self.attributes()?;
        let kind = match self.peek() {
            TokenKind::Keyword(K::Date) => {
                self.bump();
                TypeKind::Date
            }
            TokenKind::LIdent(name) => {
                let prim = keywords::primitive_type(self.lang, name);
                let span = self.bump().span;
                match prim {
                    Some(PrimitiveType::Integer) => TypeKind::Integer,
                    Some(PrimitiveType::Decimal) => TypeKind::Decimal,
                    Some(PrimitiveType::Boolean) => TypeKind::Boolean,
                    Some(PrimitiveType::Money) => TypeKind::Money,
                    Some(PrimitiveType::Duration) => TypeKind::Duration,
                    Some(PrimitiveType::Position) => TypeKind::CodeLocation,
                    None => return Err(self.error_at(span, "Unknown built-in type")),
                }
            }
            TokenKind::UIdent(_) => TypeKind::Named(self.quident()?),
            TokenKind::Keyword(K::List) => {
                self.bump();
                TypeKind::List(Box::new(self.typ()?))
            }
            TokenKind::Keyword(K::Optional) => {
                self.bump();
                TypeKind::Optional(Box::new(self.typ()?))
            }
            TokenKind::LParen => {
                self.bump();
                let mut items = vec![self.typ()?];
                while self.eat(&TokenKind::Comma).is_some() {
                    items.push(self.typ()?);
                }
                self.expect(TokenKind::RParen)?;
                if items.len() == 1 {
                    return Ok(items.remove(0));
                }
                TypeKind::Tuple(items)
            }
            TokenKind::Keyword(K::Anything) => {
                self.bump();
                if self.at_kw(K::Of) && self.at_kw_at(1, K::Type) {
                    self.bump();
                    self.bump();
                    TypeKind::Any(Some(self.lident()?))
                } else {
                    TypeKind::Any(None)
                }
            }
            _ => return Err(self.error("a type")),
        };
        Ok(Type {
            kind,
            span: self.since(start),
        })
    }
}
