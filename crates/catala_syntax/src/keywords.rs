//! The keyword tables of the three surface languages. A keyword is one word or a phrase of
//! several words separated by white space (`champ d'application`, `under condition`); the lexer
//! recognises the longest phrase starting at a word. Built-in functions, primitive types and
//! built-in constructors are not keywords: they are ordinary identifiers that the parser
//! recognises by name (as Catala does), so that they remain usable as field names elsewhere.

use crate::ast::{Builtin, Language};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A language-independent keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    Scope,
    Consequence,
    Data,
    Depends,
    Declaration,
    Context,
    Decreasing,
    Increasing,
    Of,
    List,
    Optional,
    Contains,
    Enumeration,
    Date,
    Sum,
    Fulfilled,
    Definition,
    State,
    Label,
    Exception,
    Equals,
    Match,
    Anything,
    Type,
    WithPattern,
    UnderCondition,
    If,
    Then,
    Else,
    Condition,
    Content,
    Structure,
    Assertion,
    With,
    For,
    All,
    WeHave,
    Rule,
    Let,
    Exists,
    In,
    Among,
    Combine,
    MapEach,
    To,
    Such,
    That,
    Sort,
    OrderAscending,
    OrderDescending,
    AndThen,
    And,
    Or,
    Xor,
    Not,
    Maximum,
    Minimum,
    Is,
    OrIfListEmpty,
    ButReplace,
    Initially,
    Year,
    Month,
    Day,
    True,
    False,
    Input,
    Output,
    Internal,
    External,
}

use Keyword as K;

const EN: &[(&str, Keyword)] = &[
    ("scope", K::Scope),
    ("consequence", K::Consequence),
    ("data", K::Data),
    ("depends on", K::Depends),
    ("declaration", K::Declaration),
    ("context", K::Context),
    ("down", K::Decreasing),
    ("decreasing", K::Decreasing),
    ("up", K::Increasing),
    ("increasing", K::Increasing),
    ("of", K::Of),
    ("list of", K::List),
    ("optional of", K::Optional),
    ("contains", K::Contains),
    ("enumeration", K::Enumeration),
    ("date", K::Date),
    ("sum", K::Sum),
    ("fulfilled", K::Fulfilled),
    ("definition", K::Definition),
    ("state", K::State),
    ("label", K::Label),
    ("exception", K::Exception),
    ("equals", K::Equals),
    ("match", K::Match),
    ("anything", K::Anything),
    ("type", K::Type),
    ("with pattern", K::WithPattern),
    ("under condition", K::UnderCondition),
    ("if", K::If),
    ("then", K::Then),
    ("else", K::Else),
    ("condition", K::Condition),
    ("content", K::Content),
    ("structure", K::Structure),
    ("assertion", K::Assertion),
    ("with", K::With),
    ("for", K::For),
    ("all", K::All),
    ("we have", K::WeHave),
    ("rule", K::Rule),
    ("let", K::Let),
    ("exists", K::Exists),
    ("in", K::In),
    ("among", K::Among),
    ("combine", K::Combine),
    ("map each", K::MapEach),
    ("to", K::To),
    ("such", K::Such),
    ("that", K::That),
    ("sort", K::Sort),
    ("in increasing order", K::OrderAscending),
    ("in decreasing order", K::OrderDescending),
    ("and then", K::AndThen),
    ("and", K::And),
    ("or", K::Or),
    ("xor", K::Xor),
    ("not", K::Not),
    ("maximum", K::Maximum),
    ("minimum", K::Minimum),
    ("is", K::Is),
    ("or if list empty", K::OrIfListEmpty),
    ("but replace", K::ButReplace),
    ("initially", K::Initially),
    ("year", K::Year),
    ("month", K::Month),
    ("day", K::Day),
    ("true", K::True),
    ("false", K::False),
    ("input", K::Input),
    ("output", K::Output),
    ("internal", K::Internal),
    ("external", K::External),
];

const FR: &[(&str, Keyword)] = &[
    ("champ d'application", K::Scope),
    ("conséquence", K::Consequence),
    ("donnée", K::Data),
    ("dépend de", K::Depends),
    ("déclaration", K::Declaration),
    ("contexte", K::Context),
    ("inférieur", K::Decreasing),
    ("décroissant", K::Decreasing),
    ("supérieur", K::Increasing),
    ("croissant", K::Increasing),
    ("de", K::Of),
    ("liste de", K::List),
    ("optionnel de", K::Optional),
    ("contient", K::Contains),
    ("énumération", K::Enumeration),
    ("date", K::Date),
    ("somme", K::Sum),
    ("rempli", K::Fulfilled),
    ("définition", K::Definition),
    ("état", K::State),
    ("étiquette", K::Label),
    ("exception", K::Exception),
    ("égal à", K::Equals),
    ("selon", K::Match),
    ("n'importe quel", K::Anything),
    ("type", K::Type),
    ("sous forme", K::WithPattern),
    ("sous condition", K::UnderCondition),
    ("si", K::If),
    ("alors", K::Then),
    ("sinon", K::Else),
    ("condition", K::Condition),
    ("contenu", K::Content),
    ("structure", K::Structure),
    ("assertion", K::Assertion),
    ("avec", K::With),
    ("pour", K::For),
    ("tout", K::All),
    ("on a", K::WeHave),
    ("règle", K::Rule),
    ("soit", K::Let),
    ("existe", K::Exists),
    ("dans", K::In),
    ("parmi", K::Among),
    ("combine", K::Combine),
    ("transforme chaque", K::MapEach),
    ("en", K::To),
    ("tel", K::Such),
    ("que", K::That),
    ("trie", K::Sort),
    ("par ordre croissant", K::OrderAscending),
    ("par ordre décroissant", K::OrderDescending),
    ("puis", K::AndThen),
    ("et", K::And),
    ("ou", K::Or),
    ("ou bien", K::Xor),
    ("non", K::Not),
    ("maximum", K::Maximum),
    ("minimum", K::Minimum),
    ("est", K::Is),
    ("ou si liste vide", K::OrIfListEmpty),
    ("mais en remplaçant", K::ButReplace),
    ("initialement", K::Initially),
    ("an", K::Year),
    ("mois", K::Month),
    ("jour", K::Day),
    ("vrai", K::True),
    ("faux", K::False),
    ("entrée", K::Input),
    ("résultat", K::Output),
    ("interne", K::Internal),
    ("externe", K::External),
];

const PL: &[(&str, Keyword)] = &[
    ("zakres", K::Scope),
    ("konsekwencja", K::Consequence),
    ("dane", K::Data),
    ("zależy od", K::Depends),
    ("deklaracja", K::Declaration),
    ("kontekst", K::Context),
    ("dół", K::Decreasing),
    ("malejący", K::Decreasing),
    ("górę", K::Increasing),
    ("rosnący", K::Increasing),
    ("z", K::Of),
    ("lista", K::List),
    ("opcjonalny", K::Optional),
    ("zawiera", K::Contains),
    ("enumeracja", K::Enumeration),
    ("czas", K::Date),
    ("suma", K::Sum),
    ("spełnione", K::Fulfilled),
    ("definicja", K::Definition),
    ("stan", K::State),
    ("etykieta", K::Label),
    ("wyjątek", K::Exception),
    ("wynosi", K::Equals),
    ("pasuje", K::Match),
    ("cokolwiek", K::Anything),
    ("rodzaj", K::Type),
    ("ze wzorem", K::WithPattern),
    ("pod warunkiem", K::UnderCondition),
    ("jeżeli", K::If),
    ("wtedy", K::Then),
    ("inaczej", K::Else),
    ("warunek", K::Condition),
    ("typu", K::Content),
    ("struktura", K::Structure),
    ("asercja", K::Assertion),
    ("wraz z", K::With),
    ("dla", K::For),
    ("wszystkie", K::All),
    ("mamy", K::WeHave),
    ("zasada", K::Rule),
    ("niech", K::Let),
    ("istnieje", K::Exists),
    ("w", K::In),
    ("wśród", K::Among),
    ("połączyć", K::Combine),
    ("plan każdy", K::MapEach),
    ("do", K::To),
    ("takie że", K::Such),
    ("to", K::That),
    ("sort", K::Sort),
    ("by increasing order", K::OrderAscending),
    ("by decreasing order", K::OrderDescending),
    ("and then", K::AndThen),
    ("i", K::And),
    ("lub", K::Or),
    ("albo", K::Xor),
    ("nie", K::Not),
    ("maksimum", K::Maximum),
    ("minimum", K::Minimum),
    ("jest", K::Is),
    ("lub jeżeli lista pusta", K::OrIfListEmpty),
    ("ale zastąpić", K::ButReplace),
    ("początkowo", K::Initially),
    ("rok", K::Year),
    ("miesiąc", K::Month),
    ("dzień", K::Day),
    ("prawda", K::True),
    ("fałsz", K::False),
    ("wejście", K::Input),
    ("wyjście", K::Output),
    ("wewnętrzny", K::Internal),
    ("external", K::External),
];

/// The keyword phrases of one language, indexed by their first word; phrases sharing a first
/// word are sorted longest first so that the lexer tries them in that order.
pub struct KeywordTable {
    by_first_word: HashMap<&'static str, Vec<(Vec<&'static str>, Keyword)>>,
}

impl KeywordTable {
    fn build(entries: &'static [(&'static str, Keyword)]) -> KeywordTable {
        // Sized once: growing the table while filling it was half the cost of building it.
        let mut by_first_word: HashMap<&'static str, Vec<(Vec<&'static str>, Keyword)>> =
            HashMap::with_capacity(entries.len());
        for (phrase, kw) in entries {
            let words: Vec<&'static str> = phrase.split(' ').collect();
            if let Some(first) = words.first() {
                by_first_word.entry(first).or_default().push((words, *kw));
            }
        }
        for phrases in by_first_word.values_mut() {
            phrases.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        }
        KeywordTable { by_first_word }
    }

    /// The phrases (as word lists, longest first) starting with `word`.
    pub(crate) fn phrases(&self, word: &str) -> &[(Vec<&'static str>, Keyword)] {
        self.by_first_word.get(word).map_or(&[], |v| v.as_slice())
    }
}

/// The keyword table of a language (built once, when a text of that language is first read).
pub fn table(lang: Language) -> &'static KeywordTable {
    static EN_TABLE: OnceLock<KeywordTable> = OnceLock::new();
    static FR_TABLE: OnceLock<KeywordTable> = OnceLock::new();
    static PL_TABLE: OnceLock<KeywordTable> = OnceLock::new();
    match lang {
        Language::En => EN_TABLE.get_or_init(|| KeywordTable::build(EN)),
        Language::Fr => FR_TABLE.get_or_init(|| KeywordTable::build(FR)),
        Language::Pl => PL_TABLE.get_or_init(|| KeywordTable::build(PL)),
    }
}

/// What a lower-case identifier means when it names a built-in (`round`, `nombre`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinName {
    Function(Builtin),
    /// `number of l` (`nombre de l`).
    Cardinal,
    Impossible,
}

/// The built-in names of each language: the first entry of a meaning is its spelling when
/// printing.
const BUILTINS: &[(Language, &str, BuiltinName)] = {
    use BuiltinName::{Cardinal, Function, Impossible};
    use Language::{En, Fr, Pl};
    &[
        (En, "round", Function(Builtin::Round)),
        (Fr, "arrondi", Function(Builtin::Round)),
        (Pl, "zaokrąglony", Function(Builtin::Round)),
        (En, "decimal", Function(Builtin::ToDecimal)),
        (Fr, "décimal", Function(Builtin::ToDecimal)),
        (Pl, "dziesiętny", Function(Builtin::ToDecimal)),
        (En, "money", Function(Builtin::ToMoney)),
        (Fr, "argent", Function(Builtin::ToMoney)),
        (Pl, "pieniądze", Function(Builtin::ToMoney)),
        (En, "integer", Function(Builtin::ToInteger)),
        (Fr, "entier", Function(Builtin::ToInteger)),
        (Pl, "całkowita", Function(Builtin::ToInteger)),
        (En, "number", Cardinal),
        (Fr, "nombre", Cardinal),
        (Pl, "liczba", Cardinal),
        (En, "impossible", Impossible),
        (Fr, "impossible", Impossible),
        (Pl, "niemożliwe", Impossible),
        (En, "get_day", Function(Builtin::GetDay)),
        (Fr, "accès_jour", Function(Builtin::GetDay)),
        (Pl, "dostęp_dzień", Function(Builtin::GetDay)),
        (En, "get_month", Function(Builtin::GetMonth)),
        (Fr, "accès_mois", Function(Builtin::GetMonth)),
        (Pl, "dostęp_miesiąc", Function(Builtin::GetMonth)),
        (En, "get_year", Function(Builtin::GetYear)),
        (Fr, "accès_année", Function(Builtin::GetYear)),
        (Pl, "dostęp_rok", Function(Builtin::GetYear)),
        (En, "first_day_of_month", Function(Builtin::FirstDayOfMonth)),
        (
            Fr,
            "premier_jour_du_mois",
            Function(Builtin::FirstDayOfMonth),
        ),
        (
            Pl,
            "pierwszy_dzień_miesiąca",
            Function(Builtin::FirstDayOfMonth),
        ),
        (En, "last_day_of_month", Function(Builtin::LastDayOfMonth)),
        (
            Fr,
            "dernier_jour_du_mois",
            Function(Builtin::LastDayOfMonth),
        ),
        (
            Pl,
            "ostatni_dzień_miesiąca",
            Function(Builtin::LastDayOfMonth),
        ),
    ]
};

/// Recognises the built-in function names of a language, including the late-2024 unqualified
/// date accessors (`accès_année`, `get_year`).
pub fn builtin(lang: Language, name: &str) -> Option<BuiltinName> {
    BUILTINS
        .iter()
        .find(|(l, n, _)| *l == lang && *n == name)
        .map(|(_, _, b)| *b)
}

/// The spelling of a built-in name in a language.
pub(crate) fn builtin_spelling(lang: Language, b: BuiltinName) -> &'static str {
    BUILTINS
        .iter()
        .find(|(l, _, x)| *l == lang && *x == b)
        .map_or("builtin", |(_, n, _)| n)
}

/// A primitive type written as a lower-case identifier (`date` is a keyword, handled apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrimitiveType {
    Integer,
    Decimal,
    Boolean,
    Money,
    Duration,
    /// `code_location` (`position_source`).
    Position,
}

pub(crate) fn primitive_type(lang: Language, name: &str) -> Option<PrimitiveType> {
    use PrimitiveType as P;
    let t = match (lang, name) {
        (Language::En, "integer") | (Language::Fr, "entier") | (Language::Pl, "całkowita") => {
            P::Integer
        }
        (Language::En, "decimal") | (Language::Fr, "décimal") | (Language::Pl, "dziesiętny") => {
            P::Decimal
        }
        (Language::En, "boolean") | (Language::Fr, "booléen") | (Language::Pl, "zerojedynkowy") => {
            P::Boolean
        }
        (Language::En, "money") | (Language::Fr, "argent") | (Language::Pl, "pieniądze") => {
            P::Money
        }
        (Language::En, "duration") | (Language::Fr, "durée") | (Language::Pl, "czastrwania") => {
            P::Duration
        }
        (Language::En, "code_location")
        | (Language::Fr, "position_source")
        | (Language::Pl, "code_location") => P::Position,
        _ => return None,
    };
    Some(t)
}

/// The spelling of a primitive type in a language.
pub(crate) fn primitive_spelling(lang: Language, t: PrimitiveType) -> &'static str {
    use PrimitiveType as P;
    match (lang, t) {
        (Language::En, P::Integer) => "integer",
        (Language::Fr, P::Integer) => "entier",
        (Language::Pl, P::Integer) => "całkowita",
        (Language::En, P::Decimal) => "decimal",
        (Language::Fr, P::Decimal) => "décimal",
        (Language::Pl, P::Decimal) => "dziesiętny",
        (Language::En, P::Boolean) => "boolean",
        (Language::Fr, P::Boolean) => "booléen",
        (Language::Pl, P::Boolean) => "zerojedynkowy",
        (Language::En, P::Money) => "money",
        (Language::Fr, P::Money) => "argent",
        (Language::Pl, P::Money) => "pieniądze",
        (Language::En, P::Duration) => "duration",
        (Language::Fr, P::Duration) => "durée",
        (Language::Pl, P::Duration) => "czastrwania",
        (Language::Fr, P::Position) => "position_source",
        (_, P::Position) => "code_location",
    }
}

/// The money operator suffix (`+$`, `+€`, `+PLN`) and the money literal symbol.
pub(crate) fn money_symbol(lang: Language) -> &'static str {
    match lang {
        Language::En => "$",
        Language::Fr => "€",
        Language::Pl => "PLN",
    }
}

/// The decimal separator of number literals.
pub fn decimal_separator(lang: Language) -> char {
    match lang {
        Language::Fr => ',',
        Language::En | Language::Pl => '.',
    }
}

/// The English spelling of a keyword, used in "expected ..." messages.
pub(crate) fn english(kw: Keyword) -> &'static str {
    EN.iter()
        .find(|(_, k)| *k == kw)
        .map_or("keyword", |(s, _)| s)
}

/// The spelling of a keyword in a language (first entry of the table).
pub fn spelling(lang: Language, kw: Keyword) -> &'static str {
    let entries = match lang {
        Language::En => EN,
        Language::Fr => FR,
        Language::Pl => PL,
    };
    entries
        .iter()
        .find(|(_, k)| *k == kw)
        .map_or("keyword", |(s, _)| s)
}
