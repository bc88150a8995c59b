//! The lexer of Catala code blocks: turns the text of one ```catala block into tokens with byte
//! spans. Keywords (including multi-word phrases such as `under condition`) come from
//! [`crate::keywords`]; number, money, date and percent literals follow each language's
//! conventions (`$1,234.56`, `1 234,56 €`, `1,5`, `|2019-01-31|`). Comments run from `#` to the
//! end of the line, except `#[` which opens an attribute.

use crate::ast::Language;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::keywords::{self, Keyword};
use crate::source::{FileId, Span};

/// What a token is; identifiers and literals carry their text or parsed parts.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// A lower-case-initial identifier.
    LIdent(String),
    /// An upper-case-initial identifier.
    UIdent(String),
    Keyword(Keyword),
    /// Digits of a non-negative integer literal.
    Int(String),
    Decimal {
        int_part: String,
        frac_part: String,
    },
    /// Units and cents (padded to two digits) of a money literal.
    Money {
        units: String,
        cents: String,
    },
    Date {
        year: i64,
        month: u32,
        day: u32,
    },
    Str(String),
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Colon,
    Semicolon,
    Comma,
    Dot,
    /// `--`
    Alt,
    /// `++`
    PlusPlus,
    Percent,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Plus,
    Minus,
    Mult,
    Div,
    /// `#[`
    AttrStart,
    /// End of the code block.
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected ..." and "Syntax error at token" messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::LIdent(s) | TokenKind::UIdent(s) => format!("\"{s}\""),
            TokenKind::Keyword(k) => format!("\"{}\"", keywords::english(*k)),
            TokenKind::Int(s) => format!("\"{s}\""),
            TokenKind::Decimal {
                int_part,
                frac_part,
            } => format!("\"{int_part}.{frac_part}\""),
            TokenKind::Money { units, cents } => format!("\"${units}.{cents}\""),
            TokenKind::Date { year, month, day } => {
                format!("\"|{year:04}-{month:02}-{day:02}|\"")
            }
            TokenKind::Str(s) => format!("{s:?}"),
            TokenKind::LParen => "\"(\"".into(),
            TokenKind::RParen => "\")\"".into(),
            TokenKind::LBrace => "\"{\"".into(),
            TokenKind::RBrace => "\"}\"".into(),
            TokenKind::LBracket => "\"[\"".into(),
            TokenKind::RBracket => "\"]\"".into(),
            TokenKind::Colon => "\":\"".into(),
            TokenKind::Semicolon => "\";\"".into(),
            TokenKind::Comma => "\",\"".into(),
            TokenKind::Dot => "\".\"".into(),
            TokenKind::Alt => "\"--\"".into(),
            TokenKind::PlusPlus => "\"++\"".into(),
            TokenKind::Percent => "\"%\"".into(),
            TokenKind::Equal => "\"=\"".into(),
            TokenKind::NotEqual => "\"!=\"".into(),
            TokenKind::Less => "\"<\"".into(),
            TokenKind::LessEqual => "\"<=\"".into(),
            TokenKind::Greater => "\">\"".into(),
            TokenKind::GreaterEqual => "\">=\"".into(),
            TokenKind::Plus => "\"+\"".into(),
            TokenKind::Minus => "\"-\"".into(),
            TokenKind::Mult => "\"*\"".into(),
            TokenKind::Div => "\"/\"".into(),
            TokenKind::AttrStart => "\"#[\"".into(),
            TokenKind::Eof => "end of code block".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Lexes `text[start..end]` of file `file` (a code block body) into tokens ending with `Eof`.
pub fn lex(
    file: FileId,
    text: &str,
    start: usize,
    end: usize,
    lang: Language,
) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer {
        file,
        text,
        pos: start,
        end: end.min(text.len()),
        lang,
        tokens: Vec::new(),
    };
    lexer.run()?;
    let eof = Span::new(file, lexer.end, lexer.end);
    lexer.tokens.push(Token {
        kind: TokenKind::Eof,
        span: eof,
    });
    Ok(lexer.tokens)
}

struct Lexer<'a> {
    file: FileId,
    text: &'a str,
    pos: usize,
    end: usize,
    lang: Language,
    tokens: Vec<Token>,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

fn is_hspace(c: char) -> bool {
    c != '\n' && c != '\r' && c.is_whitespace()
}

/// Spaces allowed between the digit groups of a French money amount.
fn is_group_space(c: char) -> bool {
    c == ' ' || c == '\u{a0}' || c == '\u{202f}'
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.pos..self.end).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(self.file, start, self.pos),
        });
    }

    fn error(&self, start: usize, end: usize, msg: String) -> Diagnostic {
        Diagnostic::new(DiagnosticKind::Parse, msg).at(Span::new(self.file, start, end))
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        while let Some(c) = self.peek() {
            let start = self.pos;
            if c.is_whitespace() {
                self.pos += c.len_utf8();
                continue;
            }
            if c == '#' {
                if self.rest().starts_with("#[") {
                    self.pos += 2;
                    self.push(TokenKind::AttrStart, start);
                } else {
                    // Comment (or `##` docstring) up to the end of the line.
                    let len = self.rest().find('\n').unwrap_or(self.rest().len());
                    self.pos += len;
                }
                continue;
            }
            if c == '"' {
                self.lex_string(start)?;
                continue;
            }
            if c.is_ascii_digit() {
                self.lex_number(start)?;
                continue;
            }
            if c == '$' && self.lang == Language::En {
                if let Some(tok) = self.try_money() {
                    self.push(tok, start);
                    continue;
                }
            }
            if c == '|' {
                if let Some(tok) = self.try_date() {
                    self.pos += 12;
                    self.push(tok, start);
                    continue;
                }
            }
            if c.is_alphabetic() || c == '_' {
                self.lex_word(start);
                continue;
            }
            self.lex_symbol(start, c)?;
        }
        Ok(())
    }

    fn lex_string(&mut self, start: usize) -> Result<(), Diagnostic> {
        self.pos += 1;
        let mut value = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    self.push(TokenKind::Str(value), start);
                    return Ok(());
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, 't')) => value.push('\t'),
                    Some((_, '\n')) => {}
                    Some((_, other)) => value.push(other),
                    None => break,
                },
                other => value.push(other),
            }
        }
        Err(self.error(start, self.end, "Unterminated string literal".to_string()))
    }

    /// A word: an identifier, or a keyword phrase (longest match over following words).
    fn lex_word(&mut self, start: usize) {
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|(_, c)| !is_ident_char(*c))
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..len];
        let table = keywords::table(self.lang);
        for (words, kw) in table.phrases(word) {
            if let Some(total) = match_phrase(rest, len, &words[1..]) {
                self.pos += total;
                self.push(TokenKind::Keyword(*kw), start);
                return;
            }
        }
        self.pos += len;
        let first = word.chars().next().unwrap_or('a');
        let kind = if first.is_uppercase() {
            TokenKind::UIdent(word.to_string())
        } else {
            TokenKind::LIdent(word.to_string())
        };
        self.push(kind, start);
    }

    fn try_date(&self) -> Option<TokenKind> {
        let b = self.rest().as_bytes();
        if b.len() < 12 || b[11] != b'|' || b[5] != b'-' || b[8] != b'-' {
            return None;
        }
        let digits = |r: std::ops::Range<usize>| -> Option<&str> {
            let s = self.rest().get(r)?;
            s.bytes().all(|d| d.is_ascii_digit()).then_some(s)
        };
        let year = digits(1..5)?.parse().ok()?;
        let month = digits(6..8)?.parse().ok()?;
        let day = digits(9..11)?.parse().ok()?;
        Some(TokenKind::Date { year, month, day })
    }

    /// Money amounts: `$1,234.56` (EN), `1 234,56 €` (FR), `1,234.56 PLN` (PL). On success,
    /// advances past the literal.
    fn try_money(&mut self) -> Option<TokenKind> {
        let rest = self.rest();
        let (sep, dec, prefix, suffix): (fn(char) -> bool, char, &str, &str) = match self.lang {
            Language::En => (|c| c == ',', '.', "$", ""),
            Language::Fr => (is_group_space, ',', "", "€"),
            Language::Pl => (|c| c == ',', '.', "", "PLN"),
        };
        let mut i = prefix.len();
        if !rest.starts_with(prefix) {
            return None;
        }
        if !prefix.is_empty() {
            while let Some(c) = rest[i..].chars().next().filter(|c| is_hspace(*c)) {
                i += c.len_utf8();
            }
        }
        let mut units = String::new();
        let mut last_digit_end = None;
        for (j, c) in rest[i..].char_indices() {
            if c.is_ascii_digit() {
                units.push(c);
                last_digit_end = Some(i + j + 1);
            } else if sep(c) && !units.is_empty() {
                continue;
            } else {
                break;
            }
        }
        // The amount ends at its last digit (separators must be followed by a digit).
        i = last_digit_end?;
        let mut cents = String::new();
        if rest[i..].starts_with(dec) {
            let frac: String = rest[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if (1..=2).contains(&frac.len()) {
                cents = frac;
                i += 1 + cents.len();
            } else if !suffix.is_empty() {
                return None;
            }
        }
        if !suffix.is_empty() {
            let mut j = i;
            while let Some(c) = rest[j..].chars().next().filter(|c| is_hspace(*c)) {
                j += c.len_utf8();
            }
            if !rest[j..].starts_with(suffix) {
                return None;
            }
            i = j + suffix.len();
        }
        while cents.len() < 2 {
            cents.push('0');
        }
        self.pos += i;
        Some(TokenKind::Money { units, cents })
    }

    fn lex_number(&mut self, start: usize) -> Result<(), Diagnostic> {
        if self.lang != Language::En {
            if let Some(tok) = self.try_money() {
                self.push(tok, start);
                return Ok(());
            }
        }
        let rest = self.rest();
        let int_len = rest
            .bytes()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        let int_part = rest[..int_len].to_string();
        let sep = keywords::decimal_separator(self.lang);
        let after = &rest[int_len..];
        if after.starts_with(sep) {
            let frac_len = after[1..]
                .bytes()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(after.len() - 1);
            if frac_len > 0 {
                let frac_part = after[1..1 + frac_len].to_string();
                self.pos += int_len + 1 + frac_len;
                self.push(
                    TokenKind::Decimal {
                        int_part,
                        frac_part,
                    },
                    start,
                );
                return Ok(());
            }
        }
        self.pos += int_len;
        self.push(TokenKind::Int(int_part), start);
        Ok(())
    }

    /// Skips the typed-operator suffix (`$`/`€`/`PLN`, `!`, `.`, `@`, `^`) after an operator.
    fn skip_op_kind(&mut self) {
        let rest = self.rest();
        let money = keywords::money_symbol(self.lang);
        if let Some(after) = rest.strip_prefix(money) {
            // `-$5` is a negative money amount, not the money subtraction operator.
            let after = after.trim_start_matches(is_hspace);
            if self.lang == Language::En && after.starts_with(|c: char| c.is_ascii_digit()) {
                return;
            }
            self.pos += money.len();
        } else if rest.starts_with(['!', '@', '^'])
            || (rest.starts_with('.') && !rest[1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            self.pos += 1;
        }
    }

    fn lex_symbol(&mut self, start: usize, c: char) -> Result<(), Diagnostic> {
        let rest = self.rest();
        let two = rest.get(..2).unwrap_or("");
        let (kind, len, typed) = match two {
            "--" => (TokenKind::Alt, 2, false),
            "++" => (TokenKind::PlusPlus, 2, false),
            "<=" => (TokenKind::LessEqual, 2, true),
            ">=" => (TokenKind::GreaterEqual, 2, true),
            "!=" => (TokenKind::NotEqual, 2, false),
            _ => match c {
                '(' => (TokenKind::LParen, 1, false),
                ')' => (TokenKind::RParen, 1, false),
                '{' => (TokenKind::LBrace, 1, false),
                '}' => (TokenKind::RBrace, 1, false),
                '[' => (TokenKind::LBracket, 1, false),
                ']' => (TokenKind::RBracket, 1, false),
                ':' => (TokenKind::Colon, 1, false),
                ';' => (TokenKind::Semicolon, 1, false),
                ',' => (TokenKind::Comma, 1, false),
                '.' => (TokenKind::Dot, 1, false),
                '%' => (TokenKind::Percent, 1, false),
                '=' => (TokenKind::Equal, 1, false),
                '<' => (TokenKind::Less, 1, true),
                '>' => (TokenKind::Greater, 1, true),
                '+' => (TokenKind::Plus, 1, true),
                '-' => (TokenKind::Minus, 1, true),
                '*' => (TokenKind::Mult, 1, true),
                '/' => (TokenKind::Div, 1, true),
                _ => {
                    let end = start + c.len_utf8();
                    return Err(self.error(
                        start,
                        end,
                        format!("Parsing error after token \"{c}\": unexpected character"),
                    ));
                }
            },
        };
        self.pos += len;
        if typed {
            self.skip_op_kind();
        }
        self.push(kind, start);
        Ok(())
    }
}

/// Matches the remaining words of a keyword phrase after the first word (of byte length
/// `first_len`) at the start of `rest`: each preceded by white space and ending at a word
/// boundary. Returns the byte length of the whole phrase.
fn match_phrase(rest: &str, first_len: usize, words: &[&str]) -> Option<usize> {
    let mut i = first_len;
    for w in words {
        let ws = rest[i..]
            .char_indices()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(rest.len() - i, |(j, _)| j);
        if ws == 0 {
            return None;
        }
        i += ws;
        if !rest[i..].starts_with(w) {
            return None;
        }
        i += w.len();
        if rest[i..].chars().next().is_some_and(is_ident_char) {
            return None;
        }
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, lang: Language) -> Vec<TokenKind> {
        lex(FileId(0), text, 0, text.len(), lang)
            .map(|ts| ts.into_iter().map(|t| t.kind).collect())
            .unwrap_or_default()
    }

    #[test]
    fn multi_word_keywords_take_the_longest_phrase() {
        let k = kinds("champ d'application ou bien ou x", Language::Fr);
        assert_eq!(
            k,
            vec![
                TokenKind::Keyword(Keyword::Scope),
                TokenKind::Keyword(Keyword::Xor),
                TokenKind::Keyword(Keyword::Or),
                TokenKind::LIdent("x".into()),
                TokenKind::Eof
            ]
        );
        // A keyword followed by more identifier characters is an identifier.
        assert_eq!(
            kinds("scopes", Language::En)[0],
            TokenKind::LIdent("scopes".into())
        );
    }

    #[test]
    fn french_money_uses_spaces_and_comma() {
        let k = kinds("1 234,5 € + 3,25", Language::Fr);
        assert_eq!(
            k[0],
            TokenKind::Money {
                units: "1234".into(),
                cents: "50".into()
            }
        );
        assert_eq!(
            k[2],
            TokenKind::Decimal {
                int_part: "3".into(),
                frac_part: "25".into()
            }
        );
        let nb = kinds("1\u{a0}000 €", Language::Fr);
        assert_eq!(
            nb[0],
            TokenKind::Money {
                units: "1000".into(),
                cents: "00".into()
            }
        );
        // Digits not followed by the euro sign are separate integers.
        assert_eq!(kinds("3 mois", Language::Fr)[0], TokenKind::Int("3".into()));
    }

    #[test]
    fn english_money_and_typed_operators() {
        let k = kinds("$1,234.56 +$ x -$5", Language::En);
        assert_eq!(
            k,
            vec![
                TokenKind::Money {
                    units: "1234".into(),
                    cents: "56".into()
                },
                TokenKind::Plus,
                TokenKind::LIdent("x".into()),
                TokenKind::Minus,
                TokenKind::Money {
                    units: "5".into(),
                    cents: "00".into()
                },
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn comments_and_attributes() {
        let k = kinds("x # comment\n#[test] y", Language::En);
        assert_eq!(
            k,
            vec![
                TokenKind::LIdent("x".into()),
                TokenKind::AttrStart,
                TokenKind::LIdent("test".into()),
                TokenKind::RBracket,
                TokenKind::LIdent("y".into()),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn dates_and_percent() {
        let k = kinds("|2019-01-31| 30%", Language::En);
        assert_eq!(
            k[0],
            TokenKind::Date {
                year: 2019,
                month: 1,
                day: 31
            }
        );
        assert_eq!(k[1], TokenKind::Int("30".into()));
        assert_eq!(k[2], TokenKind::Percent);
    }
}
