//! The surface abstract syntax tree: what the parser produces from the code blocks of a literate
//! Catala program, for every surface language (the keywords are gone, the structure is the same).
//! Every node carries its [`Span`]; every top-level item carries its law-heading trail.

use crate::source::Span;
use std::sync::Arc;

/// Surface language of a source file (selects keywords and value printing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    En,
    Fr,
    Pl,
}

/// An identifier with its position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A possibly qualified name such as `Enum.Ctor` or `Module.Type.Ctor`; `path` holds the
/// qualifiers and `name` the last component.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QualName {
    pub path: Vec<Ident>,
    pub name: Ident,
}

impl QualName {
    pub fn span(&self) -> Span {
        self.path
            .first()
            .map_or(self.name.span, |p| p.span.to(self.name.span))
    }
}

pub use diagnostics::LawHeading;

/// The whole program: the items of the main file and of every included file, in reading order,
/// and the modules it uses (transitively, each after the modules it uses).
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub items: Vec<Item>,
    /// Every module loaded, dependencies first.
    pub modules: Vec<crate::modules::Module>,
    /// The module names visible in the main file (its `Using` lines and the standard library).
    pub uses: Vec<crate::modules::ModuleBinding>,
}

/// An attribute such as `#[test]` or `#[error.message = "..."]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub path: Vec<String>,
    pub value: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
    /// The heading trail (outermost first) in force where the item starts.
    pub headings: Arc<[LawHeading]>,
    /// Language of the file the item comes from.
    pub language: Language,
    /// True when the item comes from a ```catala-metadata block.
    pub metadata: bool,
    pub attributes: Vec<Attribute>,
}

#[derive(Clone, Debug)]
pub enum ItemKind {
    StructDecl(StructDecl),
    EnumDecl(EnumDecl),
    ScopeDecl(ScopeDecl),
    /// `scope S [under condition c]:` followed by rules, definitions and assertions.
    ScopeUse(ScopeUse),
    /// `declaration x content T [depends on ...] equals e`.
    TopDef(TopDef),
    /// `> Module M [external]`: the file declares module `M` (recorded; no semantics yet).
    ModuleDef {
        name: Ident,
        external: bool,
    },
    /// `> Using M [as A]` (`> Usage de M [en tant que A]`): the file uses module `M`.
    ModuleUse {
        name: Ident,
        alias: Option<Ident>,
    },
}

#[derive(Clone, Debug)]
pub struct StructDecl {
    pub name: Ident,
    pub fields: Vec<StructField>,
}

#[derive(Clone, Debug)]
pub struct StructField {
    pub name: Ident,
    /// The field's type (the result type when the field is a function).
    pub typ: Type,
    /// `data f content T depends on x content U`: parameters of a function-typed field.
    pub params: Vec<Param>,
}

#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub name: Ident,
    pub cases: Vec<EnumCase>,
    /// `declaration type T: external`: an abstract type, whose values only an external
    /// module's functions give; it has no cases.
    pub abstract_type: bool,
}

#[derive(Clone, Debug)]
pub struct EnumCase {
    pub name: Ident,
    /// `-- C content T`; `None` for `-- C`.
    pub payload: Option<Type>,
}

#[derive(Clone, Debug)]
pub struct ScopeDecl {
    pub name: Ident,
    pub items: Vec<ScopeDeclItem>,
}

#[derive(Clone, Debug)]
pub enum ScopeDeclItem {
    Var(VarDecl),
    SubScope(SubScopeDecl),
}

/// Where a scope variable's value may come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `input`: the caller must give it.
    Input,
    /// `context`: the caller may override the scope's own definitions.
    Context,
    /// `internal` or `output` alone: defined only inside the scope.
    Internal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoQualifier {
    pub input: InputKind,
    pub output: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: Ident,
    pub io: IoQualifier,
    /// `condition` variables have type boolean and a default of false.
    pub is_condition: bool,
    /// The content type (boolean for conditions; the result type for functions).
    pub typ: Type,
    /// `depends on x content T, y content U`: parameters of a function variable.
    pub params: Vec<Param>,
    /// `state s1 state s2`, in order.
    pub states: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub typ: Type,
}

/// `x scope S` (`x champ d'application S`), optionally marked `output`.
#[derive(Clone, Debug)]
pub struct SubScopeDecl {
    pub name: Ident,
    pub scope: QualName,
    pub output: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ScopeUse {
    pub scope: QualName,
    /// Scope-level `under condition c`, added to every rule of the block.
    pub condition: Option<Expr>,
    pub items: Vec<ScopeUseItem>,
}

#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum ScopeUseItem {
    Definition(Definition),
    Assertion(Assertion),
    /// `date round up` / `date round down` (`date arrondi supérieur/inférieur`).
    DateRounding(DateRounding, Span),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateRounding {
    Up,
    Down,
}

/// What a definition is an exception to.
#[derive(Clone, Debug, PartialEq)]
pub enum ExceptionTo {
    /// Not an exception.
    None,
    /// `exception` without a label: to the unique unlabeled base definition.
    Unlabeled(Span),
    /// `exception lbl`.
    Label(Ident),
}

/// The variable a definition or rule defines: `x`, `sub.x`, with an optional `state s`.
#[derive(Clone, Debug)]
pub struct DefTarget {
    /// One component for a scope variable, two for a sub-scope's variable (`sub.x`).
    pub path: Vec<Ident>,
    pub state: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum DefBody {
    /// `... equals e`.
    Expr(Expr),
    /// `rule x ... fulfilled` (true) / `not fulfilled` (false); span of the keyword(s).
    Fulfilled(bool, Span),
}

/// Both `definition x [of params] [state s] [under condition c consequence] equals e`
/// and `rule x [of params] [under condition c consequence] [not] fulfilled`.
#[derive(Clone, Debug)]
pub struct Definition {
    pub label: Option<Ident>,
    pub exception: ExceptionTo,
    pub target: DefTarget,
    pub params: Vec<Ident>,
    pub condition: Option<Expr>,
    pub body: DefBody,
    /// True for `rule`, false for `definition`.
    pub is_rule: bool,
    pub span: Span,
    pub attributes: Vec<Attribute>,
}

#[derive(Clone, Debug)]
pub struct Assertion {
    pub expr: Expr,
    pub span: Span,
    pub attributes: Vec<Attribute>,
}

#[derive(Clone, Debug)]
pub struct TopDef {
    pub name: Ident,
    pub typ: Type,
    pub params: Vec<Param>,
    /// The definition; for an external declaration (no `equals`), a placeholder
    /// [`ExprKind::Impossible`] spanning the declaration.
    pub body: Expr,
    /// True for `declaration f content T depends on ...` without `equals`: the value is
    /// provided by an external module implementation.
    pub external: bool,
}

#[derive(Clone, Debug)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TypeKind {
    Boolean,
    Integer,
    Decimal,
    Money,
    Date,
    Duration,
    /// A struct or enumeration name.
    Named(QualName),
    List(Box<Type>),
    Optional(Box<Type>),
    Tuple(Vec<Type>),
    /// `anything` / `anything of type t`: a type variable (polymorphic standard-library
    /// signatures).
    Any(Option<Ident>),
    /// `code_location` (`position_source`): a source position, passed implicitly to
    /// standard-library functions whose parameter has `#[implicit_position_argument]`.
    CodeLocation,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Neq,
    Concat,
}

impl BinOp {
    /// The operator's symbol (`+`, `<=`, …); for the logical operators, their English keyword
    /// (`and`, `or`, `xor`), as in Catala's messages.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "=",
            BinOp::Neq => "!=",
            BinOp::Concat => "++",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Minus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationUnit {
    Year,
    Month,
    Day,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// Digits only, thousands separators removed.
    Integer(String),
    /// `int_part.frac_part` (`1.5`, FR `1,5`); `frac_part` may be empty.
    Decimal {
        int_part: String,
        frac_part: String,
    },
    /// `37%` or `2.5%`: the decimal written before `%`.
    Percent {
        int_part: String,
        frac_part: String,
    },
    /// `$1,234.56` / `1 234,56 €`: units (digits, separators removed) and cents (0–2 digits).
    Money {
        units: String,
        cents: String,
    },
    Date {
        year: i64,
        month: u32,
        day: u32,
    },
    /// `3 year`, `2 month`, `15 day` (`an`, `mois`, `jour`).
    Duration {
        amount: String,
        unit: DurationUnit,
    },
}

/// Built-in unary functions written `f of e` (`f de e`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Round,
    ToDecimal,
    ToMoney,
    ToInteger,
    GetDay,
    GetMonth,
    GetYear,
    FirstDayOfMonth,
    LastDayOfMonth,
}

/// List aggregations written `op of l` (optionally `or if list empty then d`).
#[derive(Clone, Debug)]
pub enum Aggregate {
    /// `sum T of l` (`somme T de l`).
    Sum(Type),
    /// `number of l` (`nombre de l`).
    Count,
    Maximum,
    Minimum,
}

#[derive(Clone, Debug)]
pub struct MatchArm {
    pub pattern: Pattern,
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Pattern {
    /// `-- C`, `-- C content x` (late-2024: `-- C of x` / `-- C de x`).
    Ctor {
        ctor: QualName,
        binding: Option<Ident>,
    },
    /// `-- anything` (`-- n'importe quel`).
    Wildcard(Span),
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Literal(Literal),
    /// A lower-case variable name (local, scope variable, top-level definition, sub-scope).
    Var(Ident),
    /// `M.x` / `M.N.x`: a lower-case name qualified by module (or module alias) names, such as
    /// the standard library's `Date.accès_année` or `Argent.somme`.
    QualVar(QualName),
    /// An upper-case name, possibly qualified, possibly with a payload: an enum constructor
    /// (`Métropole`, `Enum.Ctor content e`), resolved by name resolution.
    Constructor {
        name: QualName,
        payload: Option<Box<Expr>>,
    },
    /// `e.f`: struct field, or sub-scope variable when `e` names a sub-scope.
    /// `e.f`, or `e.S.f` with the structure qualifier `S` (possibly module-qualified).
    Field(Box<Expr>, Option<QualName>, Ident),
    /// `e.1`: tuple component (0-based index as written minus one is the IR's concern).
    TupleIndex(Box<Expr>, u32),
    /// `x state s` in an expression: explicit state access.
    StateAccess(Ident, Ident),
    /// A binary operator with the span of its token, and its operands.
    Binop(BinOp, Span, Box<Expr>, Box<Expr>),
    Unop(UnOp, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `let x equals e in body`.
    Let(Ident, Box<Expr>, Box<Expr>),
    /// `let (x, y) equals e in body`: destructuring of a tuple. The parser also produces it
    /// for every other tuple binder (`map each (x, y) among ...`, `-- C content (x, y):`): the
    /// binder becomes one fresh variable named `(x, y)` (not a valid identifier, so it cannot
    /// clash) and the body is wrapped in `LetTuple([x, y], Var("(x, y)"), body)`.
    LetTuple(Vec<Ident>, Box<Expr>, Box<Expr>),
    /// The list of tuples zipping a tuple of lists: the collection of a binder over several
    /// lists, `map each (x, y) among (l1, l2) to ...` iterates over `ListZip((l1, l2))`.
    ListZip(Box<Expr>),
    Match(Box<Expr>, Vec<MatchArm>),
    /// `e with pattern C [content x] [and cond]` (`e sous forme C`).
    TestCtor {
        expr: Box<Expr>,
        ctor: QualName,
        binding: Option<Ident>,
        and_cond: Option<Box<Expr>>,
    },
    /// `S { -- f: e -- g: e }`.
    StructLit(QualName, Vec<(Ident, Expr)>),
    /// `e but replace { -- f: e }`.
    StructReplace(Box<Expr>, Vec<(Ident, Expr)>),
    /// `output of S with { -- x: e }` (`résultat de S avec {...}`).
    ScopeCall(QualName, Vec<(Ident, Expr)>),
    /// `f of a, b` (function application).
    Call(Box<Expr>, Vec<Expr>),
    Builtin(Builtin, Box<Expr>),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    /// `map each x among l to e`, and the late-2024 postfix `e for x among l` (`e pour x parmi l`).
    ListMap {
        var: Ident,
        list: Box<Expr>,
        body: Box<Expr>,
    },
    /// `list of x among l such that p`.
    ListFilter {
        var: Ident,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `exists x among l such that p`.
    ListExists {
        var: Ident,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `for all x among l we have p`.
    ListForAll {
        var: Ident,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `sum T of l`, `number of l`, `maximum of l [or if list empty then d]`.
    ListAggregate {
        op: Aggregate,
        list: Box<Expr>,
        default: Option<Box<Expr>>,
    },
    /// `content of x among l such that e is maximum|minimum [or if list empty then d]`.
    ListArgExtremum {
        maximum: bool,
        var: Ident,
        list: Box<Expr>,
        key: Box<Expr>,
        default: Option<Box<Expr>>,
    },
    /// `combine all x among l in acc initially i with e`.
    ListFold {
        var: Ident,
        list: Box<Expr>,
        acc: Ident,
        init: Box<Expr>,
        step: Box<Expr>,
    },
    /// `l contains e`.
    ListContains(Box<Expr>, Box<Expr>),
    /// `content of x among l such that p` (no `is maximum`): the first element satisfying `p`.
    ListFind {
        var: Ident,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `sort l in increasing order` (`var` is `None`, `keys` empty: elements compared
    /// directly), or `sort all x among l in decreasing order of k1 and then k2` (compared by
    /// the keys, lexicographically).
    ListSort {
        var: Option<Ident>,
        list: Box<Expr>,
        keys: Vec<Expr>,
        descending: bool,
    },
    /// `[#[error.message = "m"]] assertion check in next`: evaluates `next` after checking
    /// `check`; the third field is the `error.message` attribute written before the assertion.
    Assert(Box<Expr>, Box<Expr>, Option<String>),
    /// `impossible`.
    Impossible,
    /// `#[error.message = "m"] impossible`: the error's message carries `m`.
    ImpossibleMessage(String),
    /// `#[debug.print] e` / `#[debug.print = "label"] e`: `e`, whose value is shown (with the
    /// label) when the program runs in debug mode.
    DebugPrint(Option<String>, Box<Expr>),
}
