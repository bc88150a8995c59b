//! Recursive-descent parser for relations files and single expressions. Precedence, lowest
//! first: `=>` (right-associative), `or`, `and`, `not`, comparisons (chainable, plus the
//! equivalence `x ==[f] y`), `+ -`, `* /`, unary minus. Every node keeps the span of its token
//! in the text's source map; errors carry the span of the token they are at, with the text,
//! so that they show in the box layout of the `diagnostics` crate.

use super::lexer::{tokenize, Spanned, Token};
use super::{ArithOp, Builtin, CmpOp, Expr, Relation};
use diagnostics::{FileId, SourceError, SourceFile, SourceMap, Span};
use std::sync::Arc;
use thiserror::Error;

/// A syntax error at a span of a relations file or an expression text, with the text
/// (`Display`: `line:column: message`, or `file:line:column: message` for a named file;
/// [`ParseError::render`]: the box).
#[derive(Debug, Clone, Error, PartialEq)]
#[error("{located}")]
pub struct ParseError {
    pub located: Box<SourceError>,
}

impl ParseError {
    /// The error in the box layout, with the source line and the offending token underlined.
    pub fn render(&self) -> String {
        self.located.render()
    }

    /// 1-based line and column (in code points) of the offending token.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.located.line_col()
    }
}

/// A syntax error while reading: the span of the token it is at, and what.
#[derive(Debug, Clone)]
pub(crate) struct SyntaxError {
    pub(crate) span: Span,
    pub(crate) message: String,
}

impl SyntaxError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            span,
            message: message.into(),
        }
    }
}

/// The file id the lexer gives every text it reads (spans are then placed in the sources).
pub(crate) const TEXT: FileId = FileId(0);

/// Parses every relation of a relations file.
pub fn parse_relations(source: &str) -> Result<Vec<Relation>, ParseError> {
    parse_relations_file("", source)
}

/// Parses every relation of the relations file `name` (its errors name it, and its relations
/// keep the file to show later errors).
pub fn parse_relations_file(name: &str, source: &str) -> Result<Vec<Relation>, ParseError> {
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(name, name, source.to_string()));
    let place = move |s: Span| Span { file, ..s };
    read(source, Vec::new(), Arc::new(sources), &place, |parser| {
        let mut relations: Vec<Relation> = Vec::new();
        while parser.peek() != &Token::Eof {
            let relation = parser.relation()?;
            if relations.iter().any(|r| r.name == relation.name) {
                return Err(SyntaxError::new(
                    relation.span,
                    format!("relation `{}` is defined twice", relation.name),
                ));
            }
            relations.push(relation);
        }
        Ok(relations)
    })
}

/// Parses one expression in which `vars` are the bound case variables (may be empty, e.g.
/// for domain constraints written over bare field names).
pub fn parse_expression(source: &str, vars: &[&str]) -> Result<Expr, ParseError> {
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new("", "", source.to_string()));
    parse_expression_at(source, vars, Arc::new(sources), &move |s| Span {
        file,
        ..s
    })
}

/// Parses one expression written inside a larger file (a string of a domain file): `place`
/// turns a span of `source` into one of `sources`, where the errors are shown.
pub(crate) fn parse_expression_at(
    source: &str,
    vars: &[&str],
    sources: Arc<SourceMap>,
    place: &dyn Fn(Span) -> Span,
) -> Result<Expr, ParseError> {
    let vars = vars.iter().map(|v| v.to_string()).collect();
    read(source, vars, sources, place, |parser| {
        let expr = parser.implication()?;
        parser.expect(&Token::Eof)?;
        Ok(expr)
    })
}

/// Runs `parse` on the tokens of `source`, each token's span placed in `sources` by `place`;
/// a syntax error becomes a [`ParseError`] at its placed span.
fn read<T>(
    source: &str,
    vars: Vec<String>,
    sources: Arc<SourceMap>,
    place: &dyn Fn(Span) -> Span,
    parse: impl FnOnce(&mut Parser) -> Result<T, SyntaxError>,
) -> Result<T, ParseError> {
    let result = tokenize(source)
        .map_err(|e| SyntaxError::new(place(e.span), e.message))
        .and_then(|mut tokens| {
            for t in &mut tokens {
                t.span = place(t.span);
            }
            let mut parser = Parser {
                tokens,
                index: 0,
                vars,
                sources: sources.clone(),
            };
            parse(&mut parser)
        });
    result.map_err(|e| ParseError {
        located: Box::new(SourceError::new(e.message, e.span, sources)),
    })
}

/// The body of a quantifier: either a plain expression or `premise => forall ...`.
enum Body {
    Plain(Expr),
    Nested(Expr, Vec<String>, Box<Body>),
}

struct Parser {
    tokens: Vec<Spanned>,
    index: usize,
    vars: Vec<String>,
    /// The sources the token spans are in (kept by every relation read).
    sources: Arc<SourceMap>,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.index.min(self.tokens.len() - 1)].token
    }

    fn peek_at(&self, offset: usize) -> &Token {
        &self.tokens[(self.index + offset).min(self.tokens.len() - 1)].token
    }

    fn span(&self) -> Span {
        self.tokens[self.index.min(self.tokens.len() - 1)].span
    }

    fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if self.index < self.tokens.len() - 1 {
            self.index += 1;
        }
        token
    }

    fn eat(&mut self, token: &Token) -> bool {
        if self.peek() == token {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error_expected(&self, what: &str) -> SyntaxError {
        SyntaxError::new(
            self.span(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    fn expect(&mut self, token: &Token) -> Result<(), SyntaxError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error_expected(&token.describe()))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, SyntaxError> {
        match self.peek().clone() {
            Token::Ident(name) => {
                self.bump();
                Ok(name)
            }
            _ => Err(self.error_expected(what)),
        }
    }

    fn relation(&mut self) -> Result<Relation, SyntaxError> {
        let pos = self.span();
        self.expect(&Token::Relation)?;
        let name = self.ident("a relation name")?;
        let mut description = None;
        let mut tolerance = None;
        loop {
            match self.peek().clone() {
                Token::Str(text) => {
                    self.bump();
                    description = Some(text);
                }
                Token::Tolerance => {
                    self.bump();
                    match self.bump() {
                        Token::Number(n) => tolerance = Some(n),
                        _ => return Err(self.error_expected("a tolerance number")),
                    }
                }
                _ => break,
            }
        }
        self.eat(&Token::Colon);
        if self.peek() != &Token::Forall {
            return Err(self.error_expected("`forall`"));
        }
        self.vars.clear();
        let quantifier_pos = self.span();
        let (first_vars, body) = self.quantified()?;
        let (base_vars, follow_vars, base_premise, rest) = match body {
            Body::Nested(premise, second_vars, inner) => (first_vars, second_vars, premise, *inner),
            Body::Plain(expr) => {
                let split = first_vars.len().div_ceil(2);
                let (base, follow) = first_vars.split_at(split);
                (
                    base.to_vec(),
                    follow.to_vec(),
                    Expr::Bool(true),
                    Body::Plain(expr),
                )
            }
        };
        let (follow_premise, conclusion) = match rest {
            Body::Plain(Expr::Implies(premise, conclusion)) => (*premise, *conclusion),
            Body::Plain(conclusion) => (Expr::Bool(true), conclusion),
            Body::Nested(..) => {
                return Err(SyntaxError::new(
                    quantifier_pos,
                    "at most two nested `forall` are allowed (bases, then follow-ups)",
                ))
            }
        };
        for (part, what) in [(&base_premise, "premise"), (&follow_premise, "premise")] {
            if part.mentions_outputs() {
                return Err(SyntaxError::new(
                    pos,
                    format!("relation `{name}`: the {what} may not read outputs"),
                ));
            }
        }
        Ok(Relation {
            name,
            description,
            tolerance,
            base_vars,
            follow_vars,
            base_premise,
            follow_premise,
            conclusion,
            span: pos,
            sources: self.sources.clone(),
        })
    }

    /// `forall v1, v2 . body`
    fn quantified(&mut self) -> Result<(Vec<String>, Body), SyntaxError> {
        self.expect(&Token::Forall)?;
        let mut vars = Vec::new();
        loop {
            let pos = self.span();
            let var = self.ident("a variable name")?;
            if self.vars.contains(&var) {
                return Err(SyntaxError::new(
                    pos,
                    format!("variable `{var}` is bound twice"),
                ));
            }
            self.vars.push(var.clone());
            vars.push(var);
            if !self.eat(&Token::Comma) {
                break;
            }
        }
        self.expect(&Token::Dot)?;
        let body = self.body()?;
        Ok((vars, body))
    }

    fn body(&mut self) -> Result<Body, SyntaxError> {
        let lhs = self.disjunction()?;
        if self.eat(&Token::Implies) {
            if self.peek() == &Token::Forall {
                let (vars, inner) = self.quantified()?;
                return Ok(Body::Nested(lhs, vars, Box::new(inner)));
            }
            let pos = self.span();
            return match self.body()? {
                Body::Plain(rhs) => Ok(Body::Plain(Expr::Implies(Box::new(lhs), Box::new(rhs)))),
                Body::Nested(..) => Err(SyntaxError::new(
                    pos,
                    "a nested `forall` must follow the first `=>` of the body",
                )),
            };
        }
        Ok(Body::Plain(lhs))
    }

    fn implication(&mut self) -> Result<Expr, SyntaxError> {
        let lhs = self.disjunction()?;
        if self.eat(&Token::Implies) {
            let rhs = self.implication()?;
            return Ok(Expr::Implies(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn disjunction(&mut self) -> Result<Expr, SyntaxError> {
        let mut lhs = self.conjunction()?;
        while self.eat(&Token::Or) {
            let rhs = self.conjunction()?;
            lhs = Expr::Or(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn conjunction(&mut self) -> Result<Expr, SyntaxError> {
        let mut lhs = self.negation()?;
        while self.eat(&Token::And) {
            let rhs = self.negation()?;
            lhs = Expr::And(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn negation(&mut self) -> Result<Expr, SyntaxError> {
        if self.eat(&Token::Not) {
            let inner = self.negation()?;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison_op(&self) -> Option<CmpOp> {
        match self.peek() {
            Token::Eq => Some(CmpOp::Eq),
            Token::Ne => Some(CmpOp::Ne),
            Token::Lt => Some(CmpOp::Lt),
            Token::Le => Some(CmpOp::Le),
            Token::Gt => Some(CmpOp::Gt),
            Token::Ge => Some(CmpOp::Ge),
            _ => None,
        }
    }

    fn comparison(&mut self) -> Result<Expr, SyntaxError> {
        let pos = self.span();
        let first = self.additive()?;
        if self.peek() == &Token::Equiv {
            if let Expr::Name(left, _) = &first {
                if self.vars.contains(left) {
                    return self.equivalence(left.clone(), pos);
                }
            }
            // `==` between values is plain equality.
            self.bump();
            let rhs = self.additive()?;
            return Ok(Expr::Compare {
                operands: vec![first, rhs],
                ops: vec![CmpOp::Eq],
            });
        }
        let mut operands = vec![first];
        let mut ops = Vec::new();
        while let Some(op) = self.comparison_op() {
            self.bump();
            ops.push(op);
            operands.push(self.additive()?);
        }
        if ops.is_empty() {
            return Ok(operands.remove(0));
        }
        Ok(Expr::Compare { operands, ops })
    }

    /// After `left`: `==[f, g] right` (the bracket list may be empty or absent).
    fn equivalence(&mut self, left: String, pos: Span) -> Result<Expr, SyntaxError> {
        self.expect(&Token::Equiv)?;
        let mut except = Vec::new();
        let mut except_spans = Vec::new();
        if self.eat(&Token::LBracket) && !self.eat(&Token::RBracket) {
            loop {
                except_spans.push(self.span());
                except.push(self.ident("a field name")?);
                if !self.eat(&Token::Comma) {
                    break;
                }
            }
            self.expect(&Token::RBracket)?;
        }
        let right_pos = self.span();
        let right = self.ident("a variable name")?;
        if !self.vars.contains(&right) {
            return Err(SyntaxError::new(
                right_pos,
                format!("`{right}` is not a quantified variable"),
            ));
        }
        Ok(Expr::Equiv {
            left,
            right,
            except,
            except_spans,
            span: pos,
        })
    }

    fn additive(&mut self) -> Result<Expr, SyntaxError> {
        let mut lhs = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Token::Plus => ArithOp::Add,
                Token::Minus => ArithOp::Sub,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.multiplicative()?;
            lhs = Expr::Arith(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, SyntaxError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek() {
                Token::Star => ArithOp::Mul,
                Token::Slash => ArithOp::Div,
                _ => return Ok(lhs),
            };
            self.bump();
            let rhs = self.unary()?;
            lhs = Expr::Arith(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        if self.eat(&Token::Minus) {
            let inner = self.unary()?;
            return Ok(match inner {
                Expr::Number(n) => Expr::Number(-n),
                other => Expr::Neg(Box::new(other)),
            });
        }
        self.primary()
    }

    fn bound_var(&mut self) -> Result<String, SyntaxError> {
        let pos = self.span();
        let var = self.ident("a variable name")?;
        if !self.vars.contains(&var) {
            return Err(SyntaxError::new(
                pos,
                format!("`{var}` is not a quantified variable"),
            ));
        }
        Ok(var)
    }

    fn primary(&mut self) -> Result<Expr, SyntaxError> {
        let pos = self.span();
        match self.peek().clone() {
            Token::Number(n) => {
                self.bump();
                Ok(Expr::Number(n))
            }
            Token::True => {
                self.bump();
                Ok(Expr::Bool(true))
            }
            Token::False => {
                self.bump();
                Ok(Expr::Bool(false))
            }
            Token::LParen => {
                self.bump();
                let inner = self.implication()?;
                self.expect(&Token::RParen)?;
                Ok(inner)
            }
            Token::Ident(name) => {
                self.bump();
                self.after_identifier(name, pos)
            }
            _ => Err(self.error_expected("an expression")),
        }
    }

    fn after_identifier(&mut self, name: String, pos: Span) -> Result<Expr, SyntaxError> {
        let builtin = match name.as_str() {
            "ceil" => Some(Builtin::Ceil),
            "floor" => Some(Builtin::Floor),
            "abs" => Some(Builtin::Abs),
            "min" => Some(Builtin::Min),
            "max" => Some(Builtin::Max),
            _ => None,
        };
        if let (Some(builtin), Token::LParen) = (builtin, self.peek()) {
            self.bump();
            let mut args = vec![self.implication()?];
            while self.eat(&Token::Comma) {
                args.push(self.implication()?);
            }
            self.expect(&Token::RParen)?;
            let arity_ok = match builtin {
                Builtin::Min | Builtin::Max => args.len() >= 2,
                _ => args.len() == 1,
            };
            if !arity_ok {
                return Err(SyntaxError::new(
                    pos,
                    format!("wrong number of arguments to `{name}`"),
                ));
            }
            return Ok(Expr::Call(builtin, args));
        }
        if name == "F" && self.peek() == &Token::LParen {
            self.bump();
            let var = self.bound_var()?;
            self.expect(&Token::RParen)?;
            return Ok(Expr::Output {
                output: None,
                var,
                span: pos,
            });
        }
        if name == "out" && self.peek() == &Token::Dot && !self.vars.contains(&name) {
            self.bump();
            let output_span = self.span();
            let output = self.ident("an output name")?;
            self.expect(&Token::LParen)?;
            let var = self.bound_var()?;
            self.expect(&Token::RParen)?;
            return Ok(Expr::Output {
                output: Some(output),
                var,
                span: output_span,
            });
        }
        if self.peek() == &Token::Dot && matches!(self.peek_at(1), Token::Ident(_)) {
            if !self.vars.contains(&name) {
                return Err(SyntaxError::new(
                    pos,
                    format!("`{name}` is not a quantified variable"),
                ));
            }
            self.bump();
            let field_span = self.span();
            let field = self.ident("a field name")?;
            return Ok(Expr::Field {
                var: name,
                field,
                span: field_span,
            });
        }
        Ok(Expr::Name(name, pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_quantifiers_split_bases_premises_and_conclusion() {
        let text = "relation eitc_mfs \"MFS\" tolerance 0.5\n forall x. x.sts = MFS =>\n forall y. x ==[L27] y and x.L27 > 0 and y.L27 = 0 => F(x) = F(y)";
        let relations = parse_relations(text).unwrap();
        assert_eq!(relations.len(), 1);
        let r = &relations[0];
        assert_eq!(r.name, "eitc_mfs");
        assert_eq!(r.description.as_deref(), Some("MFS"));
        assert_eq!(r.tolerance, Some(0.5));
        assert_eq!(r.base_vars, vec!["x"]);
        assert_eq!(r.follow_vars, vec!["y"]);
        assert_eq!(r.base_premise.to_string(), "x.sts = MFS");
        assert_eq!(
            r.follow_premise.to_string(),
            "((x ==[L27] y and x.L27 > 0) and y.L27 = 0)"
        );
        assert_eq!(r.conclusion.to_string(), "F(x) = F(y)");
    }

    #[test]
    fn single_quantifier_splits_variables_in_half() {
        let text = "relation four forall x, x', y, y'. x ==[QC] y and x' ==[QC] y' => F(x) - F(y) >= F(x') - F(y')";
        let r = &parse_relations(text).unwrap()[0];
        assert_eq!(r.base_vars, vec!["x", "x'"]);
        assert_eq!(r.follow_vars, vec!["y", "y'"]);
        assert_eq!(r.base_premise, Expr::Bool(true));
        assert_eq!(r.conclusion.to_string(), "(F(x) - F(y)) >= (F(x') - F(y'))");
    }

    #[test]
    fn precedence_and_chains() {
        let e =
            parse_expression("not a.b and a.c or 1 + 2 * 3 <= a.d < 10 => a.e", &["a"]).unwrap();
        assert_eq!(
            e.to_string(),
            "(((not (a.b) and a.c) or (1 + (2 * 3)) <= a.d < 10) => a.e)"
        );
        let e = parse_expression("ceil((x.AGI - 400k) / 1k) * 0.05k", &["x"]).unwrap();
        assert_eq!(e.to_string(), "(ceil(((x.AGI - 400000) / 1000)) * 50)");
    }

    #[test]
    fn named_outputs_and_equivalence_without_fields() {
        let e = parse_expression("x == y => out.tax(x) = out.tax(y)", &["x", "y"]).unwrap();
        assert_eq!(e.to_string(), "(x ==[] y => out.tax(x) = out.tax(y))");
    }

    #[test]
    fn errors_name_line_and_column() {
        let err =
            parse_relations("relation r\n  forall x, y.\n    x.a >= => F(x) = F(y)").unwrap_err();
        assert_eq!(err.line_col(), Some((3, 12)));
        assert!(
            err.located.message.contains("expected an expression"),
            "{err}"
        );
        let err = parse_relations("relation r forall x. z.a > 0 => F(x) > 0").unwrap_err();
        assert_eq!(err.line_col(), Some((1, 22)));
        assert!(err
            .located
            .message
            .contains("`z` is not a quantified variable"));
        let err = parse_relations("relation r forall x, y. F(x) > 0 => F(y) > 0").unwrap_err();
        assert!(err.located.message.contains("may not read outputs"));
        let err = parse_relations(
            "relation r forall x. x.a > 0 => F(x) > 0\nrelation r forall x. x.a > 0 => F(x) > 0",
        )
        .unwrap_err();
        assert_eq!(err.line_col(), Some((2, 1)));
    }

    #[test]
    fn a_relations_file_error_shows_its_file_line_column_and_source_line() {
        let text = "relation r\n  forall x, y.\n    x.a >= => F(x) = F(y)\n";
        let err = parse_relations_file("tax.rel", text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tax.rel:3:12: expected an expression, found `=>`"
        );
        let boxed = err.render();
        assert!(boxed.starts_with("┌─[ERROR]─\n"), "{boxed}");
        assert!(
            boxed.contains("│  expected an expression, found `=>`\n"),
            "{boxed}"
        );
        assert!(boxed.contains("├─➤ tax.rel:3.12-14:\n"), "{boxed}");
        assert!(
            boxed.contains("│ 3 │     x.a >= => F(x) = F(y)\n"),
            "{boxed}"
        );
        assert!(boxed.contains("│   │            ‾‾\n"), "{boxed}");
        // Without a file name (an expression of a domain file), `line:column` as before.
        let err = parse_expression("x.a >=", &["x"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1:7: expected an expression, found end of input"
        );
    }

    #[test]
    fn columns_count_code_points() {
        // `≥` is three bytes: `@` is the 28th character of the line and its 30th byte.
        let err = parse_relations_file("r.rel", "relation r forall x. x.a ≥ @").unwrap_err();
        assert_eq!(err.line_col(), Some((1, 28)));
        assert_eq!(err.to_string(), "r.rel:1:28: unexpected character `@`");
        assert!(err.render().contains("├─➤ r.rel:1.28-29:\n"));
    }
}
