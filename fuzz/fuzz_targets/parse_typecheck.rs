//! Fuzz target: any bytes, read as a literate Catala file in one of the three languages, must
//! parse and type-check to a result or a diagnostic with a position — never a panic.
#![no_main]

use catala_syntax::ast::Language;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (name, lang) = match selector % 3 {
        0 => ("fuzz.catala_en", Language::En),
        1 => ("fuzz.catala_fr", Language::Fr),
        _ => ("fuzz.catala_pl", Language::Pl),
    };
    // Wrap bare code in a code block half of the time so the parser, not only the literate
    // reader, sees most inputs.
    let source = if selector & 0x80 == 0 {
        format!("```catala\n{text}\n```\n")
    } else {
        text.to_string()
    };
    let (sources, parsed) = catala_syntax::parse_str_with_sources(name, &source, lang);
    match parsed {
        Ok(program) => {
            if let Err(diagnostics) = catala_ir::compile(&sources, &program) {
                for d in &diagnostics {
                    let _ = catala_syntax::render_error(&sources, None, &d.message, &d.labels);
                }
            }
        }
        Err(d) => {
            let _ = catala_syntax::render_error(&sources, None, &d.message, &d.labels);
        }
    }
});
