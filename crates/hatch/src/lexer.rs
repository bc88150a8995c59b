//! The lexer of the benchmark language: identifiers (lower- and upper-case, with primes),
//! integers, the operator and bracket symbols of the OCaml subset (including `[@`, `[%`, `[|`,
//! `|]` and the `#==>` implication), and nested `(* … *)` comments, each token with its position.

use crate::syntax::{ParseError, Pos};

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

pub(crate) fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let adv = |i: &mut usize, line: &mut usize, col: &mut usize, chars: &[char]| {
        if chars[*i] == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c.is_whitespace() {
            adv(&mut i, &mut line, &mut col, &chars);
            continue;
        }
        if c == '(' && chars.get(i + 1) == Some(&'*') && chars.get(i + 2) != Some(&')') {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    return Err(ParseError {
                        pos,
                        message: "unterminated comment".into(),
                    });
                }
                if chars[i] == '(' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    adv(&mut i, &mut line, &mut col, &chars);
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&')') {
                    depth -= 1;
                    adv(&mut i, &mut line, &mut col, &chars);
                    if depth == 0 {
                        adv(&mut i, &mut line, &mut col, &chars);
                        break;
                    }
                }
                adv(&mut i, &mut line, &mut col, &chars);
            }
            continue;
        }
        if c.is_ascii_digit() {
            let mut s = String::new();
            while i < chars.len() && chars[i].is_ascii_digit() {
                s.push(chars[i]);
                adv(&mut i, &mut line, &mut col, &chars);
            }
            let n = s.parse::<i64>().map_err(|_| ParseError {
                pos,
                message: format!("bad integer {s}"),
            })?;
            out.push((Tok::Int(n), pos));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut s = String::new();
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '\'')
            {
                s.push(chars[i]);
                adv(&mut i, &mut line, &mut col, &chars);
            }
            if c.is_uppercase() {
                out.push((Tok::UIdent(s), pos));
            } else {
                out.push((Tok::Ident(s), pos));
            }
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 4)].iter().collect();
        let sym = SYMBOLS.iter().find(|s| rest.starts_with(**s));
        match sym {
            Some(s) => {
                for _ in 0..s.len() {
                    adv(&mut i, &mut line, &mut col, &chars);
                }
                out.push((Tok::Sym(s), pos));
            }
            None => {
                return Err(ParseError {
                    pos,
                    message: format!("unexpected character {c:?}"),
                })
            }
        }
    }
    out.push((Tok::Eof, Pos { line, col }));
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
