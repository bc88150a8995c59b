//! The standard library's Catala sources, embedded in the binary: one module per concern and
//! language (`Date_en`, `Date_fr`, `List_en`, ...), each visible in every user file under its
//! short names (`Date`; `List` in English, `Liste` in French, ...). Their native parts are the
//! `*_internal` external modules, implemented in the interpreter.

use crate::ast::Language;

/// A standard-library module source.
pub struct StdlibSource {
    pub file_name: &'static str,
    pub language: Language,
    pub text: &'static str,
}

/// A module visible in user files of one language, with its short names.
pub struct StdlibEntry {
    pub module: &'static str,
    pub aliases: &'static [&'static str],
}

macro_rules! sources {
    ($( $module:literal => $file:literal, $lang:ident; )*) => {
        const SOURCES: &[(&str, StdlibSource)] = &[
            $( ($module, StdlibSource {
                file_name: $file,
                language: Language::$lang,
                text: include_str!(concat!("../stdlib/", $file)),
            }), )*
        ];
    };
}

sources! {}

const ENGLISH: &[StdlibEntry] = &[];
const FRENCH: &[StdlibEntry] = &[];

/// The modules visible in a user file of `language`, with their short names.
pub fn modules(language: Language) -> &'static [StdlibEntry] {
    match language {
        Language::Fr => FRENCH,
        Language::En | Language::Pl => ENGLISH,
    }
}

/// The source of a standard-library module.
pub fn source(module: &str) -> Option<&'static StdlibSource> {
    SOURCES.iter().find(|(m, _)| *m == module).map(|(_, s)| s)
}

/// The standard-library module of this name (as written in a `Using` line of the standard
/// library itself).
pub fn module_named(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(m, _)| *m == name).map(|(m, _)| *m)
}
