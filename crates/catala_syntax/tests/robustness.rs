//! The parser never panics: it is fed every prefix of the fixtures, thousands of byte-mutated
//! variants, and pathological nesting, and must return either a program or a diagnostic that
//! points into the input (a panic fails the test).

use catala_syntax::ast::Language;
use catala_syntax::{parse_str_with_sources, render_error};
use std::path::Path;

const FIXTURES: [(&str, Language); 3] = [
    ("all_constructs.catala_en", Language::En),
    ("tous_les_elements.catala_fr", Language::Fr),
    ("podatek.catala_pl", Language::Pl),
];

fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/syntax")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses and, on error, renders the diagnostic (the renderer must not panic either, and
/// every label must point into a loaded file).
fn check(text: &str, lang: Language) {
    let (sources, result) = parse_str_with_sources("fuzz.catala", text, lang);
    if let Err(d) = result {
        for l in &d.labels {
            assert!((l.span.file.0 as usize) < sources.files.len());
            let len = sources.file(l.span.file).text.len() as u32;
            assert!(l.span.start <= l.span.end && l.span.end <= len, "{d:?}");
        }
        let out = render_error(&sources, None, &d.message, &d.labels);
        assert!(out.starts_with("┌─[ERROR]─"));
    }
}

#[test]
fn every_prefix_parses_or_fails_cleanly() {
    for (name, lang) in FIXTURES {
        let text = fixture_text(name);
        for (i, _) in text.char_indices().step_by(3) {
            check(&text[..i], lang);
        }
    }
}

/// A small deterministic generator (xorshift) so failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn byte_mutations_parse_or_fail_cleanly() {
    let interesting: &[&[u8]] = &[
        b"(",
        b")",
        b"[",
        b"]",
        b"{",
        b"}",
        b"-",
        b"--",
        b"#",
        b"#[",
        b"|",
        b"$",
        b"\xe2\x82\xac",
        b"%",
        b":",
        b",",
        b".",
        b"0",
        b"9",
        b"\n",
        b" ",
        b"```",
        b"\"",
        b"\xc3",
        b"\xff",
        b"a",
        b"Z",
        b"of",
        b"content",
        b"de",
        b"1 000",
        b"|2020-13-45|",
        b"> Include: x\n",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, lang) in FIXTURES {
        let text = fixture_text(name).into_bytes();
        for _ in 0..1500 {
            let mut bytes = text.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len());
                match rng.below(3) {
                    0 => {
                        bytes.remove(at);
                    }
                    1 => {
                        let ins = interesting[rng.below(interesting.len())];
                        bytes.splice(at..at, ins.iter().copied());
                    }
                    _ => bytes[at] = (rng.next() & 0xff) as u8,
                }
            }
            let mutated = String::from_utf8_lossy(&bytes);
            check(&mutated, lang);
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = |open: &str, close: &str| {
        format!(
            "```catala\ndeclaration x content integer equals {}1{}\n```\n",
            open.repeat(100_000),
            close.repeat(100_000)
        )
    };
    for (open, close) in [("(", ")"), ("not ", ""), ("[", "]"), ("- ", "")] {
        let (_, result) =
            parse_str_with_sources("deep.catala_en", &deep(open, close), Language::En);
        assert!(result.is_err());
    }
    let types = format!(
        "```catala\ndeclaration x content {}integer equals 1\n```\n",
        "list of ".repeat(100_000)
    );
    assert!(parse_str_with_sources("t.catala_en", &types, Language::En)
        .1
        .is_err());
}
