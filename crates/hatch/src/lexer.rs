//! The lexer of the benchmark language: identifiers (lower- and upper-case, with primes),
//! integers, the operator and bracket symbols of the OCaml subset (including `[@`, `[%`, `[|`,
//! `|]` and the `#==>` implication), and nested `(* … *)` comments, each token with its span (a
//! byte range of its file).

use crate::syntax::ParseError;
use diagnostics::{FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    UIdent(String),
    Int(i64),
    Sym(&'static str),
    Eof,
}

const SYMBOLS: &[&str] = &[
    "#==>", "[|", "|]", "[@", "[%", "->", "<=", ">=", "==", "!=", "&&", "||", "<>", "(", ")", "[",
    "]", "{", "}", ";", ",", ":", "=", "?", "~", "*", "+", "-", "/", "<", ">", ".", "|", "'",
];

pub(crate) fn lex(file: FileId, src: &str) -> Result<Vec<(Tok, Span)>, ParseError> {
    // Each character with its byte offset; `i` indexes this list.
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let offset = |i: usize| chars.get(i).map_or(src.len(), |&(o, _)| o);
    let span = |from: usize, to: usize| Span::new(file, offset(from), offset(to));
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(c) = at(i) {
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '(' && at(i + 1) == Some('*') && at(i + 2) != Some(')') {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    return Err(ParseError {
                        pos: span(start, start + 2),
                        message: "unterminated comment".into(),
                    });
                }
                if at(i) == Some('(') && at(i + 1) == Some('*') {
                    depth += 1;
                    i += 1;
                } else if at(i) == Some('*') && at(i + 1) == Some(')') {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
            continue;
        }
        if c.is_ascii_digit() {
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            let text = &src[offset(start)..offset(i)];
            let n = text.parse::<i64>().map_err(|_| ParseError {
                pos: span(start, i),
                message: format!("bad integer {text}"),
            })?;
            out.push((Tok::Int(n), span(start, i)));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while at(i).is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '\'') {
                i += 1;
            }
            let text = src[offset(start)..offset(i)].to_string();
            if c.is_uppercase() {
                out.push((Tok::UIdent(text), span(start, i)));
            } else {
                out.push((Tok::Ident(text), span(start, i)));
            }
            continue;
        }
        let rest = &src[offset(i)..];
        match SYMBOLS.iter().find(|s| rest.starts_with(**s)) {
            Some(s) => {
                // Symbols are ASCII: one character per byte.
                i += s.len();
                out.push((Tok::Sym(s), span(start, i)));
            }
            None => {
                return Err(ParseError {
                    pos: span(start, start + 1),
                    message: format!("unexpected character {c:?}"),
                })
            }
        }
    }
    out.push((Tok::Eof, span(chars.len(), chars.len())));
    Ok(out)
}

pub(crate) fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "let"
            | "rec"
            | "in"
            | "if"
            | "then"
            | "else"
            | "fun"
            | "val"
            | "true"
            | "false"
            | "mod"
            | "match"
            | "with"
            | "begin"
            | "end"
            | "type"
    )
}

pub(crate) fn show(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::UIdent(s) => format!("`{s}`"),
        Tok::Int(n) => format!("`{n}`"),
        Tok::Sym(s) => format!("`{s}`"),
        Tok::Eof => "end of file".into(),
    }
}
