//! Fuzz target: any bytes, read as a literate Catala program in one of the three languages, must
//! parse and type-check to a result or a diagnostic with a position — never a panic. The input
//! may hold a second file after a line `%%`: it is written beside the main file as module
//! `Fuzzmod` (`fuzzmod.catala_xx`), so that `> Using Fuzzmod`, qualified names, visibility and
//! module errors are exercised too; the standard library is loaded as for any program.
#![no_main]

use catala_syntax::ast::Language;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A directory of this process for the module file.
fn workdir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("lexprobe-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (ext, lang) = match selector % 3 {
        0 => ("catala_en", Language::En),
        1 => ("catala_fr", Language::Fr),
        _ => ("catala_pl", Language::Pl),
    };
    let (main, module) = match text.split_once("\n%%\n") {
        Some((m, module)) => (m, Some(module)),
        None => (text, None),
    };
    let dir = workdir();
    let module_path = dir.join(format!("fuzzmod.{ext}"));
    match module {
        Some(module) => {
            if std::fs::write(&module_path, module).is_err() {
                return;
            }
        }
        None => {
            let _ = std::fs::remove_file(&module_path);
        }
    }
    // Wrap bare code in a code block half of the time so the parser, not only the literate
    // reader, sees most inputs.
    let source = if selector & 0x80 == 0 {
        format!("```catala\n{main}\n```\n")
    } else {
        main.to_string()
    };
    let name = dir.join(format!("main.{ext}"));
    let name = name.to_string_lossy();
    let (sources, parsed) = catala_syntax::parse_str_with_sources(&name, &source, lang);
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
