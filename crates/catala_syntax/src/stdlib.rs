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

sources! {
    "Date_internal" => "date_internal.catala_en", En;
    "Decimal_internal" => "decimal_internal.catala_en", En;
    "List_internal" => "list_internal.catala_en", En;
    "Period_internal" => "period_internal.catala_en", En;
    "Date_en" => "date_en.catala_en", En;
    "Duration_en" => "duration_en.catala_en", En;
    "Integer_en" => "integer_en.catala_en", En;
    "Decimal_en" => "decimal_en.catala_en", En;
    "Money_en" => "money_en.catala_en", En;
    "List_en" => "list_en.catala_en", En;
    "MonthYear_en" => "monthyear_en.catala_en", En;
    "Period_en" => "period_en.catala_en", En;
    "Date_fr" => "date_fr.catala_fr", Fr;
    "Duration_fr" => "duration_fr.catala_fr", Fr;
    "Integer_fr" => "integer_fr.catala_fr", Fr;
    "Decimal_fr" => "decimal_fr.catala_fr", Fr;
    "Money_fr" => "money_fr.catala_fr", Fr;
    "List_fr" => "list_fr.catala_fr", Fr;
    "MonthYear_fr" => "monthyear_fr.catala_fr", Fr;
    "Period_fr" => "period_fr.catala_fr", Fr;
}

const ENGLISH: &[StdlibEntry] = &[
    StdlibEntry {
        module: "Date_en",
        aliases: &["Date"],
    },
    StdlibEntry {
        module: "Duration_en",
        aliases: &["Duration"],
    },
    StdlibEntry {
        module: "MonthYear_en",
        aliases: &["MonthYear"],
    },
    StdlibEntry {
        module: "Period_en",
        aliases: &["Period"],
    },
    StdlibEntry {
        module: "Money_en",
        aliases: &["Money"],
    },
    StdlibEntry {
        module: "Integer_en",
        aliases: &["Integer"],
    },
    StdlibEntry {
        module: "Decimal_en",
        aliases: &["Decimal"],
    },
    StdlibEntry {
        module: "List_en",
        aliases: &["List"],
    },
];
const FRENCH: &[StdlibEntry] = &[
    StdlibEntry {
        module: "Date_fr",
        aliases: &["Date"],
    },
    StdlibEntry {
        module: "Duration_fr",
        aliases: &["Durée"],
    },
    StdlibEntry {
        module: "MonthYear_fr",
        aliases: &["MoisAnnée"],
    },
    StdlibEntry {
        module: "Period_fr",
        aliases: &["Période"],
    },
    StdlibEntry {
        module: "Money_fr",
        aliases: &["Argent"],
    },
    StdlibEntry {
        module: "Integer_fr",
        aliases: &["Entier"],
    },
    StdlibEntry {
        module: "Decimal_fr",
        aliases: &["Décimal"],
    },
    StdlibEntry {
        module: "List_fr",
        aliases: &["Liste"],
    },
];

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
pub(crate) fn module_named(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(m, _)| *m == name).map(|(m, _)| *m)
}
