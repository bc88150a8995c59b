//! The recursive-descent parser of one code block's tokens. This module holds the token cursor,
//! error reporting, attributes and the top-level items (declarations and scope uses); the
//! expressions (a Pratt parser with Catala's operator precedences) and types are in
//! [`expr`].

mod expr;
mod items;
mod lists;

use crate::ast::{Attribute, Ident, Item, Language, QualName};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::keywords::Keyword;
use crate::lexer::{Token, TokenKind};
use crate::literate::CodeBlock;
use crate::source::Span;

pub(crate) type PResult<T> = Result<T, Diagnostic>;

/// Deepest nesting of expressions and types accepted before reporting an error.
const MAX_DEPTH: u32 = 400;

/// When less than this much stack is left, nested parsing continues on a new stack segment.
const STACK_RED_ZONE: usize = 128 * 1024;
/// Size of each new stack segment.
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f` with enough stack for one more level of nesting (grows the stack on the heap when
/// needed, so deeply nested input cannot overflow it).
pub(crate) fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    crate::stack::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
}

/// Parses the tokens of one code block into items.
pub(crate) fn parse_block(
    tokens: Vec<Token>,
    block: &CodeBlock,
    text: &str,
) -> Result<Vec<Item>, Diagnostic> {
    let mut parser = Parser {
        tokens,
        pos: 0,
        lang: block.language,
        text,
        depth: 0,
    };
    parser.code_items(block)
}

/// A token valid at the point of a syntax error: a keyword or a literal symbol.
pub(crate) enum Valid {
    Kw(Keyword),
    Text(&'static str),
}

pub(crate) struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    lang: Language,
    /// The whole text of the file (for attribute values written as expressions).
    text: &'a str,
    depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> &TokenKind {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &TokenKind {
        self.tokens
            .get(self.pos + n)
            .or(self.tokens.last())
            .map_or(&TokenKind::Eof, |t| &t.kind)
    }

    fn span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(Span::default(), |t| t.span)
    }

    /// End of the last consumed token (as an empty span there).
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)) {
            Some(t) => t.span,
            None => self.span(),
        }
    }

    /// The span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        start.to(self.prev_span())
    }

    fn bump(&mut self) -> Token {
        let tok = self
            .tokens
            .get(self.pos)
            .or(self.tokens.last())
            .cloned()
            .unwrap_or(Token {
                kind: TokenKind::Eof,
                span: Span::default(),
            });
        if self.pos < self.tokens.len().saturating_sub(1) {
            self.pos += 1;
        }
        tok
    }

    fn at_kw(&self, kw: Keyword) -> bool {
        matches!(self.peek(), TokenKind::Keyword(k) if *k == kw)
    }

    fn at_kw_at(&self, n: usize, kw: Keyword) -> bool {
        matches!(self.peek_at(n), TokenKind::Keyword(k) if *k == kw)
    }

    fn eat_kw(&mut self, kw: Keyword) -> Option<Span> {
        if self.at_kw(kw) {
            Some(self.bump().span)
        } else {
            None
        }
    }

    fn eat(&mut self, kind: &TokenKind) -> Option<Span> {
        if self.peek() == kind {
            Some(self.bump().span)
        } else {
            None
        }
    }

    /// The current token as written in the source, quoted (its description at the end of a
    /// block).
    fn current_token_text(&self) -> String {
        let span = self.span();
        match self.text.get(span.start as usize..span.end as usize) {
            Some(t) if !t.is_empty() && !matches!(self.peek(), TokenKind::Eof) => {
                format!("\"{t}\"")
            }
            _ => self.peek().describe(),
        }
    }

    /// A syntax error at the current token: `Syntax error at "tok":` then `expected ...`.
    fn error(&self, expected: &str) -> Diagnostic {
        let tok = self.current_token_text();
        Diagnostic::new(
            DiagnosticKind::Parse,
            format!("Syntax error at {tok}:\nexpected {expected}."),
        )
        .at(self.span())
    }

    /// A syntax error in the Catala compiler's wording: an optional `» expected ...` context
    /// line, then the keywords (in the file's language) valid at this point.
    /// The valid tokens are listed in the order given, except that those closest to the
    /// token written (by edit distance) come first, as Catala lists them.
    fn error_valid(&self, context: Option<&str>, valid: &[Valid]) -> Diagnostic {
        let tok = self.current_token_text();
        let span = self.span();
        let written = self
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("");
        let raw: Vec<&str> = valid
            .iter()
            .map(|v| match v {
                Valid::Kw(k) => crate::keywords::spelling(self.lang, *k),
                Valid::Text(t) => t,
            })
            .collect();
        let distance = |n: &str| crate::diagnostic::edit_distance(written, n);
        let best = raw.iter().map(|n| distance(n)).min().unwrap_or(0);
        let (closest, others): (Vec<&str>, Vec<&str>) =
            raw.iter().copied().partition(|n| distance(n) == best);
        let names: Vec<String> = closest
            .iter()
            .chain(others.iter())
            .map(|n| format!("\"{n}\""))
            .collect();
        let context = match context {
            Some(c) => format!("» expected {c}."),
            None => "unexpected token.".to_string(),
        };
        Diagnostic::new(
            DiagnosticKind::Parse,
            format!(
                "Syntax error at {tok}:\n{context}\nThose are valid at this point: {}.",
                names.join(", ")
            ),
        )
        .at(self.span())
    }

    fn error_at(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(DiagnosticKind::Parse, message).at(span)
    }

    fn expect_kw(&mut self, kw: Keyword) -> PResult<Span> {
        match self.eat_kw(kw) {
            Some(s) => Ok(s),
            None => Err(self.error(&format!("\"{}\"", crate::keywords::spelling(self.lang, kw)))),
        }
    }

    fn expect(&mut self, kind: TokenKind) -> PResult<Span> {
        match self.eat(&kind) {
            Some(s) => Ok(s),
            None => Err(self.error(&kind.describe())),
        }
    }

    /// A lower-case identifier. A few keywords that only matter in rare positions (`type`,
    /// `sum`) are accepted as identifiers, as older Catala programs use them as names.
    fn lident(&mut self) -> PResult<Ident> {
        match self.peek() {
            TokenKind::LIdent(_) => {
                let tok = self.bump();
                match tok.kind {
                    TokenKind::LIdent(name) => Ok(Ident {
                        name,
                        span: tok.span,
                    }),
                    _ => Err(self.error("a lower-case identifier")),
                }
            }
            TokenKind::Keyword(kw @ (Keyword::Type | Keyword::Sum)) => {
                let name = crate::keywords::spelling(self.lang, *kw).to_string();
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => Err(self.error("a lower-case identifier")),
        }
    }

    fn at_lident(&self, n: usize) -> bool {
        matches!(
            self.peek_at(n),
            TokenKind::LIdent(_) | TokenKind::Keyword(Keyword::Type | Keyword::Sum)
        )
    }

    fn uident(&mut self) -> PResult<Ident> {
        match self.peek() {
            TokenKind::UIdent(_) => {
                let tok = self.bump();
                match tok.kind {
                    TokenKind::UIdent(name) => Ok(Ident {
                        name,
                        span: tok.span,
                    }),
                    _ => Err(self.error("an upper-case identifier")),
                }
            }
            _ => Err(self.error("an upper-case identifier")),
        }
    }

    /// `U1.U2.U3`: a possibly qualified upper-case name.
    fn quident(&mut self) -> PResult<QualName> {
        let mut path = Vec::new();
        let mut name = self.uident()?;
        while matches!(self.peek(), TokenKind::Dot)
            && matches!(self.peek_at(1), TokenKind::UIdent(_))
        {
            self.bump();
            path.push(std::mem::replace(&mut name, self.uident()?));
        }
        Ok(QualName { path, name })
    }

    /// Zero or more `#[path.to.attr]` / `#[path = value]` attributes.
    fn attributes(&mut self) -> PResult<Vec<Attribute>> {
        let mut attrs = Vec::new();
        while matches!(self.peek(), TokenKind::AttrStart) {
            let start = self.bump().span;
            let mut path = vec![self.lident()?.name];
            while self.eat(&TokenKind::Dot).is_some() {
                path.push(self.lident()?.name);
            }
            let value = if self.eat(&TokenKind::Equal).is_some() {
                if let TokenKind::Str(s) = self.peek().clone() {
                    self.bump();
                    Some(s)
                } else {
                    let e = self.expr(0)?;
                    let text = self
                        .text
                        .get(e.span.start as usize..e.span.end as usize)
                        .unwrap_or("");
                    Some(text.to_string())
                }
            } else {
                None
            };
            self.expect(TokenKind::RBracket)?;
            attrs.push(Attribute {
                path,
                value,
                span: self.since(start),
            });
        }
        Ok(attrs)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(self.span(), "Expression nested too deeply"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}
