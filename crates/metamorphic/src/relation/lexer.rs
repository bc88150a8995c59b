//! Tokens of the relation language, with their byte ranges in the text. `#` starts a comment
//! to the end of the line. Numbers may carry `_` separators, a leading `$`, and a `k`
//! (thousands) or `%` (hundredths) suffix. Identifiers may end in primes (`x'`). The
//! mathematical symbols `∀ ∧ ∨ ¬ ⇒ ≥ ≤ ≠ ≡` are accepted as spellings of the keywords.

use super::parser::{SyntaxError, TEXT};
use diagnostics::Span;

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Ident(String),
    Number(f64),
    Str(String),
    Relation,
    Forall,
    And,
    Or,
    Not,
    Implies,
    True,
    False,
    Tolerance,
    Dot,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Plus,
    Minus,
    Star,
    Slash,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `==` (followed by an optional `[fields]`).
    Equiv,
    Colon,
    Eof,
}

impl Token {
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(s) => format!("identifier `{s}`"),
            Token::Number(n) => format!("number `{n}`"),
            Token::Str(_) => "a string".to_string(),
            Token::Eof => "end of input".to_string(),
            other => format!("`{}`", token_text(other)),
        }
    }
}

fn token_text(t: &Token) -> &'static str {
    match t {
        Token::Relation => "relation",
        Token::Forall => "forall",
        Token::And => "and",
        Token::Or => "or",
        Token::Not => "not",
        Token::Implies => "=>",
        Token::True => "true",
        Token::False => "false",
        Token::Tolerance => "tolerance",
        Token::Dot => ".",
        Token::Comma => ",",
        Token::LParen => "(",
        Token::RParen => ")",
        Token::LBracket => "[",
        Token::RBracket => "]",
        Token::Plus => "+",
        Token::Minus => "-",
        Token::Star => "*",
        Token::Slash => "/",
        Token::Eq => "=",
        Token::Ne => "!=",
        Token::Lt => "<",
        Token::Le => "<=",
        Token::Gt => ">",
        Token::Ge => ">=",
        Token::Equiv => "==",
        Token::Colon => ":",
        _ => "?",
    }
}

/// A token and its byte range in the text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spanned {
    pub token: Token,
    pub span: Span,
}

/// Splits a source text into tokens (ending with `Eof`).
pub(crate) fn tokenize(source: &str) -> Result<Vec<Spanned>, SyntaxError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    // Byte offset of `chars[i]`.
    let mut byte = 0;
    macro_rules! advance {
        ($n:expr) => {{
            for _ in 0..$n {
                byte += chars.get(i).map_or(0, |c| c.len_utf8());
                i += 1;
            }
        }};
    }
    while i < chars.len() {
        let c = chars[i];
        let start = byte;
        // The span from the token's start to the current character; an error's covers at
        // least the character it is at.
        macro_rules! span {
            () => {
                Span::new(TEXT, start, byte.max(start + c.len_utf8()))
            };
        }
        macro_rules! error {
            ($message:expr) => {
                SyntaxError::new(span!(), $message)
            };
        }
        if c.is_whitespace() {
            advance!(1);
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                advance!(1);
            }
            continue;
        }
        let next = chars.get(i + 1).copied();
        let two = |t: Token| (t, 2);
        let one = |t: Token| (t, 1);
        let simple = match (c, next) {
            ('=', Some('>')) => Some(two(Token::Implies)),
            ('=', Some('=')) => Some(two(Token::Equiv)),
            ('!', Some('=')) | ('<', Some('>')) => Some(two(Token::Ne)),
            ('<', Some('=')) => Some(two(Token::Le)),
            ('>', Some('=')) => Some(two(Token::Ge)),
            ('&', Some('&')) => Some(two(Token::And)),
            ('|', Some('|')) => Some(two(Token::Or)),
            ('=', _) => Some(one(Token::Eq)),
            ('<', _) => Some(one(Token::Lt)),
            ('>', _) => Some(one(Token::Gt)),
            ('!', _) | ('¬', _) => Some(one(Token::Not)),
            ('∧', _) => Some(one(Token::And)),
            ('∨', _) => Some(one(Token::Or)),
            ('⇒', _) | ('→', _) => Some(one(Token::Implies)),
            ('≥', _) => Some(one(Token::Ge)),
            ('≤', _) => Some(one(Token::Le)),
            ('≠', _) => Some(one(Token::Ne)),
            ('≡', _) => Some(one(Token::Equiv)),
            ('∀', _) => Some(one(Token::Forall)),
            ('.', _) => Some(one(Token::Dot)),
            (',', _) => Some(one(Token::Comma)),
            ('(', _) => Some(one(Token::LParen)),
            (')', _) => Some(one(Token::RParen)),
            ('[', _) => Some(one(Token::LBracket)),
            (']', _) => Some(one(Token::RBracket)),
            ('+', _) => Some(one(Token::Plus)),
            ('-', _) | ('−', _) => Some(one(Token::Minus)),
            ('*', _) | ('·', _) | ('×', _) => Some(one(Token::Star)),
            ('/', _) => Some(one(Token::Slash)),
            (':', _) => Some(one(Token::Colon)),
            _ => None,
        };
        if let Some((token, len)) = simple {
            advance!(len);
            tokens.push(Spanned {
                token,
                span: span!(),
            });
            continue;
        }
        if c == '"' {
            let mut text = String::new();
            advance!(1);
            loop {
                match chars.get(i) {
                    None => {
                        return Err(error!("unterminated string"));
                    }
                    Some('"') => {
                        advance!(1);
                        break;
                    }
                    Some(&ch) => {
                        text.push(ch);
                        advance!(1);
                    }
                }
            }
            tokens.push(Spanned {
                token: Token::Str(text),
                span: span!(),
            });
            continue;
        }
        if c.is_ascii_digit() || c == '$' {
            if c == '$' {
                advance!(1);
            }
            let mut text = String::new();
            while let Some(&ch) = chars.get(i) {
                let continues_number = ch.is_ascii_digit()
                    || ch == '_'
                    || (ch == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()));
                if !continues_number {
                    break;
                }
                if ch != '_' {
                    text.push(ch);
                }
                advance!(1);
            }
            let mut value: f64 = text
                .parse()
                .map_err(|_| error!(format!("malformed number `{text}`")))?;
            match chars.get(i) {
                Some('k') | Some('K')
                    if !chars
                        .get(i + 1)
                        .is_some_and(|d| d.is_alphanumeric() || *d == '_') =>
                {
                    value *= 1000.0;
                    advance!(1);
                }
                Some('%') => {
                    value /= 100.0;
                    advance!(1);
                }
                _ => {}
            }
            tokens.push(Spanned {
                token: Token::Number(value),
                span: span!(),
            });
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut text = String::new();
            while let Some(&ch) = chars.get(i) {
                if ch.is_alphanumeric() || ch == '_' {
                    text.push(ch);
                    advance!(1);
                } else {
                    break;
                }
            }
            while let Some(&ch) = chars.get(i) {
                if ch == '\'' || ch == '′' {
                    text.push('\'');
                    advance!(1);
                } else {
                    break;
                }
            }
            let token = match text.as_str() {
                "relation" => Token::Relation,
                "forall" => Token::Forall,
                "and" => Token::And,
                "or" => Token::Or,
                "not" => Token::Not,
                "true" => Token::True,
                "false" => Token::False,
                "tolerance" => Token::Tolerance,
                _ => Token::Ident(text),
            };
            tokens.push(Spanned {
                token,
                span: span!(),
            });
            continue;
        }
        return Err(error!(format!("unexpected character `{c}`")));
    }
    tokens.push(Spanned {
        token: Token::Eof,
        span: Span::new(TEXT, byte, byte),
    });
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_suffixes_and_positions() {
        let toks = tokenize("x.AGI <= 56_844 and\n  y.r >= 7.5% * 24.8k").unwrap();
        let kinds: Vec<Token> = toks.iter().map(|t| t.token.clone()).collect();
        assert!(kinds.contains(&Token::Number(56844.0)));
        assert!(kinds.contains(&Token::Number(0.075)));
        assert!(kinds.contains(&Token::Number(24800.0)));
        let y = toks
            .iter()
            .find(|t| t.token == Token::Ident("y".into()))
            .unwrap();
        // `y` opens line 2 after two spaces: bytes 22-23 of the text.
        assert_eq!(y.span, Span::new(TEXT, 22, 23));
    }

    #[test]
    fn primes_and_unicode_operators() {
        let toks = tokenize("∀x, x′. x' ≥ 1 ∧ ¬x.b").unwrap();
        let kinds: Vec<Token> = toks.into_iter().map(|t| t.token).collect();
        assert_eq!(kinds[0], Token::Forall);
        assert_eq!(kinds[3], Token::Ident("x'".into()));
        assert!(kinds.contains(&Token::Ge));
        assert!(kinds.contains(&Token::And));
        assert!(kinds.contains(&Token::Not));
    }

    #[test]
    fn bad_character_is_located() {
        let err = tokenize("x.a >= 1\n  @").unwrap_err();
        // Line 2, column 3: the byte after `x.a >= 1\n  `.
        assert_eq!(err.span, Span::new(TEXT, 11, 12));
    }
}
