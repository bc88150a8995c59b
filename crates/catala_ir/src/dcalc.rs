//! The default calculus (dcalc): the resolved, typed, lowered form of a Catala program that every
//! engine of lexprobe consumes (the interpreter of `catala_eval` now, the concolic engine later).
//!
//! Everything a run needs is resolved ahead of time: names become dense ids ([`StructId`],
//! [`EnumId`], [`ScopeId`], [`TopDefId`]) and local variables become frame [`Slot`]s; overloaded
//! surface operators become one [`BinaryOp`]/[`UnaryOp`] per operand types; each scope is an
//! ordered list of [`Stmt`]s already in evaluation order; each scope variable is a default term
//! `⟨exceptions | justification :- consequence⟩` (CUTECat, Fig. 1–2) with labels and exceptions
//! already arranged into exception trees. Names are kept only for printing and JSON.
//!
//! # Frames
//! Code runs in *frames*: a flat array of value slots. There is one frame per scope run (sized
//! [`Scope::frame_size`]), one per top-level definition evaluation ([`TopDef::frame_size`]) and
//! one per closure call ([`Lambda::frame_size`]). [`ExprKind::Local`] reads a slot of the current
//! frame; binders ([`ExprKind::Let`], match arms, list-operation binders) write one. Catala has no
//! recursion, so a frame is never re-entered while it is live.
//!
//! # Default terms and emptiness
//! Some expressions evaluate to either a value or *empty* (no rule applied). These "default
//! positions" are: the `exceptions` and `consequence` of [`ExprKind::Default`], the operand of
//! [`ExprKind::ErrorOnEmpty`], every `Some` argument of [`Stmt::CallSubScope`], and
//! [`ExprKind::ScopeArg`]. Only these node kinds appear in default positions: `Default`, `Empty`,
//! `PureDefault`, `ScopeArg`. Everywhere else an expression yields a value (an `ErrorOnEmpty`
//! turns empty into the "no applicable rule" error at the variable's declaration). An internal
//! variable that may stay empty is stored as a list of zero or one value and checked where it is
//! read (see [`ScopeVar::may_be_empty`]), as Catala does.

use catala_syntax::ast::{Language, LawHeading};
use catala_syntax::Span;
use num_bigint::BigInt;
use num_rational::BigRational;
use std::fmt;
use std::sync::Arc;

/// Index of a structure in [`Program::structs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// Index of an enumeration in [`Program::enums`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EnumId(pub u32);

/// Index of a scope in [`Program::scopes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(pub u32);

/// Index of a top-level definition in [`Program::topdefs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopDefId(pub u32);

/// Index of a value slot in the current frame (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub u32);

impl Slot {
    /// The slot as an index into a frame's array.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A whole compiled program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Structures: the declared ones, then one output structure per scope in scope order (named
    /// after the scope, its fields are the scope's output variables; see
    /// [`Scope::output_struct`]).
    pub structs: Vec<StructDef>,
    /// Declared enumerations, then the built-in `optional` enumeration (see
    /// [`Program::option_enum`]).
    pub enums: Vec<EnumDef>,
    /// The enumeration whose values are those of every `optional of t` type: case 0 `Absent`,
    /// case 1 `Present` (with content). `None` only in programs built by hand.
    pub option_enum: Option<EnumId>,
    /// Top-level definitions (`declaration x content T equals e`).
    pub topdefs: Vec<TopDef>,
    /// Order in which to evaluate the top-level definitions (each only references earlier ones).
    /// Evaluate them once, before running any scope, and keep the values for [`ExprKind::TopDef`].
    pub topdef_order: Vec<TopDefId>,
    /// Scopes in declaration order.
    pub scopes: Vec<Scope>,
    /// Law-heading trails by source range (one per item, in reading order): see
    /// [`Program::headings_at`].
    pub heading_ranges: Vec<HeadingRange>,
    /// The files of the standard library's modules (errors inside them are reported at the
    /// user's call).
    pub stdlib_files: Vec<catala_syntax::FileId>,
    /// The files of the other modules the program uses. Catala runs them compiled, and its
    /// compiled code reports a division by zero at the division (see [`ExprKind::Binary`]),
    /// not where the divisor came from.
    pub module_files: Vec<catala_syntax::FileId>,
    /// Warnings of the compilation (deprecated constructions), with their positions.
    pub warnings: Vec<catala_syntax::Diagnostic>,
}

// A compiled program is shared by the threads of a parallel exploration: it must stay
// `Send + Sync` (no `Rc`, no `Cell` anywhere in it). This fails to compile if it stops being so.
const _: () = {
    const fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<Program>();
};

/// The law-heading trail in force over one item of the source (for error messages).
#[derive(Clone, Debug)]
pub struct HeadingRange {
    pub span: Span,
    pub headings: Arc<[LawHeading]>,
}

impl Program {
    pub fn structure(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    pub fn enumeration(&self, id: EnumId) -> &EnumDef {
        &self.enums[id.0 as usize]
    }

    pub fn scope(&self, id: ScopeId) -> &Scope {
        &self.scopes[id.0 as usize]
    }

    pub fn topdef(&self, id: TopDefId) -> &TopDef {
        &self.topdefs[id.0 as usize]
    }

    /// The scope with this name in the main program, or else `Module.Scope` (a scope of a used
    /// module), if any.
    pub fn scope_by_name(&self, name: &str) -> Option<ScopeId> {
        let found = self
            .scopes
            .iter()
            .position(|s| s.module.is_none() && s.name == name)
            .or_else(|| {
                let (module, scope) = name.rsplit_once('.')?;
                self.scopes
                    .iter()
                    .position(|s| s.module.as_deref() == Some(module) && s.name == scope)
            });
        found.map(|i| ScopeId(i as u32))
    }

    /// Ids of the `#[test]` scopes of the main program, in program order.
    pub fn test_scopes(&self) -> Vec<ScopeId> {
        (0..self.scopes.len())
            .filter(|&i| self.scopes[i].is_test && self.scopes[i].module.is_none())
            .map(|i| ScopeId(i as u32))
            .collect()
    }

    /// True if `span` lies in a file of the standard library.
    pub fn is_stdlib_span(&self, span: Span) -> bool {
        self.stdlib_files.contains(&span.file)
    }

    /// True if `span` lies in a file of a used module other than the standard library's.
    pub fn is_module_span(&self, span: Span) -> bool {
        self.module_files.contains(&span.file)
    }

    /// The law headings in force at `span` (the trail of the innermost item containing it),
    /// empty when unknown. Meant for error reporting, not for hot paths.
    pub fn headings_at(&self, span: Span) -> Arc<[LawHeading]> {
        self.heading_ranges
            .iter()
            .filter(|r| {
                r.span.file == span.file && r.span.start <= span.start && span.end <= r.span.end
            })
            .min_by_key(|r| r.span.end - r.span.start)
            .map_or_else(|| Arc::from(Vec::new()), |r| r.headings.clone())
    }
}

/// A structure type: named fields in declaration order (field access is by index).
#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
}

/// An enumeration: cases in declaration order (a case is referred to by its index).
#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub cases: Vec<EnumCaseDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct EnumCaseDef {
    pub name: String,
    /// `Some(t)` for `-- C content t`, `None` for a case without payload.
    pub payload: Option<Ty>,
}

/// A resolved type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    /// Unbounded integer.
    Integer,
    /// Exact rational.
    Decimal,
    /// Unbounded integer number of cents.
    Money,
    Date,
    /// Years, months and days.
    Duration,
    Struct(StructId),
    Enum(EnumId),
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    /// `optional of t` (part 2 of the language; not produced yet).
    Option(Box<Ty>),
    /// A function: parameter types and result type.
    Arrow(Vec<Ty>, Box<Ty>),
    /// A type variable of a polymorphic top-level declaration (`anything of type t`): opaque in
    /// the declaration's body, instantiated at each call.
    Var(u32),
    /// A part of a type nothing has determined yet (the elements of `[]`, the content of
    /// `Absent`): compatible with any type during type checking.
    Unknown,
}

impl Ty {
    /// Equality where [`Ty::Unknown`] matches any type.
    pub fn compatible(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            (Ty::List(a), Ty::List(b)) | (Ty::Option(a), Ty::Option(b)) => a.compatible(b),
            (Ty::Tuple(a), Ty::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Ty::Arrow(pa, ra), Ty::Arrow(pb, rb)) => {
                pa.len() == pb.len()
                    && pa.iter().zip(pb).all(|(x, y)| x.compatible(y))
                    && ra.compatible(rb)
            }
            _ => self == other,
        }
    }

    /// The more determined of two compatible types (their unknown parts filled from each other).
    pub fn meet(&self, other: &Ty) -> Ty {
        match (self, other) {
            (Ty::Unknown, t) | (t, Ty::Unknown) => t.clone(),
            (Ty::List(a), Ty::List(b)) => Ty::List(Box::new(a.meet(b))),
            (Ty::Option(a), Ty::Option(b)) => Ty::Option(Box::new(a.meet(b))),
            (Ty::Tuple(a), Ty::Tuple(b)) if a.len() == b.len() => {
                Ty::Tuple(a.iter().zip(b).map(|(x, y)| x.meet(y)).collect())
            }
            (Ty::Arrow(pa, ra), Ty::Arrow(pb, rb)) if pa.len() == pb.len() => Ty::Arrow(
                pa.iter().zip(pb).map(|(x, y)| x.meet(y)).collect(),
                Box::new(ra.meet(rb)),
            ),
            _ => self.clone(),
        }
    }

    /// Catala's English spelling of the type (used in error messages).
    pub fn display<'a>(&'a self, program: &'a Program) -> TyDisplay<'a> {
        TyDisplay {
            ty: self,
            structs: &program.structs,
            enums: &program.enums,
        }
    }
}

/// Printer for [`Ty`] (see [`Ty::display`]).
pub struct TyDisplay<'a> {
    pub ty: &'a Ty,
    pub structs: &'a [StructDef],
    pub enums: &'a [EnumDef],
}

impl fmt::Display for TyDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |ty| TyDisplay {
            ty,
            structs: self.structs,
            enums: self.enums,
        };
        match self.ty {
            Ty::Bool => write!(f, "bool"),
            Ty::Integer => write!(f, "integer"),
            Ty::Decimal => write!(f, "decimal"),
            Ty::Money => write!(f, "money"),
            Ty::Date => write!(f, "date"),
            Ty::Duration => write!(f, "duration"),
            Ty::Struct(id) => match self.structs.get(id.0 as usize) {
                Some(s) => write!(f, "{}", s.name),
                None => write!(f, "struct#{}", id.0),
            },
            Ty::Enum(id) => match self.enums.get(id.0 as usize) {
                Some(e) => write!(f, "{}", e.name),
                None => write!(f, "enum#{}", id.0),
            },
            Ty::List(t) => write!(f, "list of {}", sub(t)),
            Ty::Option(t) => write!(f, "optional of {}", sub(t)),
            Ty::Tuple(ts) => {
                write!(f, "(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", sub(t))?;
                }
                write!(f, ")")
            }
            Ty::Var(n) => write!(f, "anything of type '{n}"),
            Ty::Unknown => write!(f, "<any type>"),
            Ty::Arrow(args, ret) => {
                for (i, t) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", sub(t))?;
                }
                write!(f, " → {}", sub(ret))
            }
        }
    }
}

/// Whether a variable's value may come from the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `input`: the caller must give it (a missing one is the "no applicable rule" error at the
    /// variable's declaration when the scope runs).
    Input,
    /// `context`: the caller may give it; it then overrides the scope's own definitions.
    Context,
    /// Neither: defined only inside the scope.
    Internal,
}

/// How date + duration rounds an ambiguous day (e.g. Jan 31 + 1 month).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateRounding {
    /// Default: an ambiguous result is the "ambiguous date computation" error.
    Abort,
    /// `date round up`: to the first day of the next month.
    Up,
    /// `date round down`: to the last day of the month.
    Down,
}

/// A compiled scope: a function from its input/context variables to its output structure.
#[derive(Clone, Debug)]
pub struct Scope {
    pub name: String,
    /// The module declaring the scope (`None` for the main program).
    pub module: Option<String>,
    /// Language of the file declaring the scope (selects value printing).
    pub language: Language,
    /// The scope's input and context variables in declaration order. The arguments of a call
    /// ([`Stmt::CallSubScope`], [`ExprKind::ScopeCall`], a top-level run) are aligned with this
    /// list; inside the scope, [`ExprKind::ScopeArg`]`(i)` reads argument `i`.
    pub inputs: Vec<ScopeInput>,
    /// Every scope variable (one entry per state of a variable with states), in declaration order.
    pub vars: Vec<ScopeVar>,
    /// The output variables in declaration order (what `catala interpret` prints); their values
    /// are the fields of [`Scope::output_struct`], in this order.
    pub outputs: Vec<ScopeOutput>,
    /// The structure holding the outputs (named after the scope), returned by a call.
    pub output_struct: StructId,
    /// Sub-scopes declared in the scope (`x scope S`).
    pub subscopes: Vec<SubScope>,
    /// Date rounding mode declared in the scope (`Abort` when none). Already baked into the
    /// date operators of the scope's expressions.
    pub date_rounding: DateRounding,
    /// True when the scope declaration carries `#[test]`.
    pub is_test: bool,
    /// Span of the scope declaration's name.
    pub span: Span,
    /// Law headings in force at the declaration.
    pub headings: Arc<[LawHeading]>,
    /// Number of slots of the frame a run of this scope needs.
    pub frame_size: u32,
    /// The statements, in evaluation order.
    pub body: Vec<Stmt>,
}

/// An input or context variable of a scope.
#[derive(Clone, Debug)]
pub struct ScopeInput {
    pub name: String,
    pub ty: Ty,
    /// `Input` or `Context` (never `Internal`).
    pub kind: InputKind,
    /// Index of the variable in [`Scope::vars`] (its first state if it has states).
    pub var: u32,
    /// Span of the variable's name in the declaration.
    pub span: Span,
}

/// A scope variable (or one state of it).
#[derive(Clone, Debug)]
pub struct ScopeVar {
    pub name: String,
    /// The state name, for a variable declared with states.
    pub state: Option<String>,
    pub ty: Ty,
    pub kind: InputKind,
    pub output: bool,
    pub is_condition: bool,
    /// The frame slot holding the value once its `Define` has run.
    pub slot: Slot,
    /// Span of the variable's name in the declaration.
    pub span: Span,
    /// True for an internal or non-output context variable (not a function) that may have no
    /// value (none of its rules is free of conditions). As in Catala, such a variable is an
    /// error only where it is read while empty: its slot holds a list of zero or one value of
    /// type `ty`, its `Define` never fails on emptiness (the caller's value of a context
    /// variable becomes `⟨ | ScopeArgGiven(i) :- [ScopeArg(i)]⟩`), and each read is `content of x among slot such that 0 is maximum or if list
    /// empty then <ErrorOnEmpty(Empty) at the read>` (a `ListArgExtremum`).
    pub may_be_empty: bool,
}

/// An output variable of a scope.
#[derive(Clone, Debug)]
pub struct ScopeOutput {
    pub name: String,
    pub ty: Ty,
    /// Slot holding the value at the end of the run (the last state for a variable with states;
    /// the sub-scope's output structure for an `output` sub-scope).
    pub slot: Slot,
}

/// A sub-scope declaration `name scope S`.
#[derive(Clone, Debug)]
pub struct SubScope {
    pub name: String,
    pub scope: ScopeId,
    /// Slot receiving the callee's output structure when its `CallSubScope` runs.
    pub slot: Slot,
    pub span: Span,
}

/// One step of a scope run.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// Evaluate `expr` and store it in `slot`. `expr` is always `ErrorOnEmpty` (carrying the
    /// variable's declaration span) around the variable's default tree; for a function variable
    /// the tree is `PureDefault(Lambda)` and the lambda's body is itself an `ErrorOnEmpty`
    /// around the rules; for a context function, a `Default` chooses, when the caller gave a
    /// closure, a merged closure (the caller's value for these arguments if it has one, else
    /// the scope's own rules), see [`ExprKind::ScopeArg`].
    Define {
        /// Index in [`Scope::vars`].
        var: u32,
        slot: Slot,
        expr: Expr,
    },
    /// Call a sub-scope and store its output structure in `slot`.
    CallSubScope {
        /// Index in [`Scope::subscopes`].
        subscope: u32,
        slot: Slot,
        scope: ScopeId,
        /// One entry per callee input ([`Scope::inputs`] of `scope`): the caller's default tree
        /// for that variable (a default position, may evaluate to empty), or `None` when the
        /// caller does not define it (the callee then sees an empty argument).
        args: Vec<Option<Expr>>,
        span: Span,
    },
    /// Check a boolean; on `false` record a failed assertion and continue.
    Assert {
        /// The asserted expression. When its root is a comparison (`Binary` with a `Lt`, `Le`,
        /// `Gt`, `Ge`, `Eq`, `Neq` operator), the failure message is the negated comparison on
        /// the operand values (`6 ≮ 6`).
        expr: Expr,
        span: Span,
        headings: Arc<[LawHeading]>,
        /// `#[error.message = "..."]` attached to the assertion.
        message: Option<String>,
    },
}

/// A literal value, numbers exact.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    Bool(bool),
    Integer(BigInt),
    Decimal(BigRational),
    /// An amount in cents.
    Money(BigInt),
    Date {
        year: i64,
        month: u32,
        day: u32,
    },
    Duration {
        years: i64,
        months: i64,
        days: i64,
    },
}

/// Operand types of a typed comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpType {
    Integer,
    Decimal,
    Money,
    Date,
    /// Comparing durations that mix months and days is a runtime error.
    Duration,
    /// Any other type (booleans, structures, enumerations, tuples, lists, functions): Catala's
    /// comparison operators are polymorphic, comparing values structurally (structures field
    /// by field, enumerations by case then payload, lists and tuples lexicographically); a
    /// function met on the way is the "attempting to compare values with uncomparable types"
    /// runtime error, reported at the operator.
    Structural,
}

/// A unary operator, resolved by operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    MinusInt,
    MinusDec,
    MinusMon,
    MinusDur,
    /// `decimal of` an integer.
    ToDecInt,
    /// `decimal of` money (in units: $1.50 → 1.5).
    ToDecMon,
    /// `integer of` a decimal: truncates toward zero.
    ToIntDec,
    /// `integer of` money: rounds half away from zero to the unit.
    ToIntMon,
    /// `money of` a decimal: rounds half away from zero to the cent.
    ToMonDec,
    /// `money of` an integer.
    ToMonInt,
    /// `round of` money: to the unit, half away from zero.
    RoundMon,
    /// `round of` a decimal: to an integer-valued decimal, half away from zero.
    RoundDec,
    GetDay,
    GetMonth,
    GetYear,
    FirstDayOfMonth,
    LastDayOfMonth,
    /// `number of` a list: its length as an integer.
    Length,
}

/// A binary operator, resolved by operand types. Operands are evaluated left then right
/// (both always: `and`/`or` are strict, as in Catala's interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    And,
    Or,
    Xor,
    AddIntInt,
    AddDecDec,
    AddMonMon,
    AddDurDur,
    /// date + duration with the rounding mode of the enclosing scope.
    AddDatDur(DateRounding),
    SubIntInt,
    SubDecDec,
    SubMonMon,
    SubDurDur,
    /// date − date: a duration in days.
    SubDatDat,
    /// date − duration with the rounding mode of the enclosing scope.
    SubDatDur(DateRounding),
    MultIntInt,
    MultDecDec,
    /// money × integer (operands normalised to money on the left).
    MultMonInt,
    /// money × decimal, exact product rounded once to the cent (money on the left).
    MultMonDec,
    /// duration × integer (duration on the left).
    MultDurInt,
    /// integer / integer → decimal.
    DivIntInt,
    DivDecDec,
    /// money / money → decimal.
    DivMonMon,
    /// money / integer → money rounded to the cent.
    DivMonInt,
    /// money / decimal → money rounded to the cent.
    DivMonDec,
    /// duration / duration → decimal (both must be pure days).
    DivDurDur,
    Lt(CmpType),
    Le(CmpType),
    Gt(CmpType),
    Ge(CmpType),
    /// Structural equality on any type (except functions).
    Eq,
    /// Negation of [`BinaryOp::Eq`].
    Neq,
    /// List concatenation `++`.
    Concat,
}

impl BinaryOp {
    /// True for the division operators (their right operand's span is the error position when
    /// it is zero).
    pub fn is_division(self) -> bool {
        matches!(
            self,
            BinaryOp::DivIntInt
                | BinaryOp::DivDecDec
                | BinaryOp::DivMonMon
                | BinaryOp::DivMonInt
                | BinaryOp::DivMonDec
                | BinaryOp::DivDurDur
        )
    }

    /// For comparisons, the symbol of the negated comparison as Catala prints a failed assertion
    /// (`<` fails as `≮`).
    pub fn negated_symbol(self) -> Option<&'static str> {
        match self {
            BinaryOp::Lt(_) => Some("≮"),
            BinaryOp::Le(_) => Some("≰"),
            BinaryOp::Gt(_) => Some("≯"),
            BinaryOp::Ge(_) => Some("≱"),
            BinaryOp::Eq => Some("≠"),
            BinaryOp::Neq => Some("="),
            _ => None,
        }
    }
}

/// List aggregations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggregateOp {
    /// Sum of integers, decimals, money or durations (an empty list sums to zero).
    Sum(SumType),
    /// Greatest element (on ties the last one wins); empty → `default` or "the list was empty".
    Maximum(CmpType),
    /// Least element (on ties the last one wins); empty → `default` or "the list was empty".
    Minimum(CmpType),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SumType {
    Integer,
    Decimal,
    Money,
    Duration,
}

/// An expression node. Every node carries the span of the source it comes from.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The direct sub-expressions, in source order (a closure's body included), for walks
    /// that only read the tree. Every kind is listed: a new kind must say its children here.
    pub fn children(&self) -> Vec<&Expr> {
        use ExprKind as K;
        match &self.kind {
            K::Literal(_)
            | K::Local(_)
            | K::TopDef(_)
            | K::ScopeArg(_)
            | K::ScopeArgGiven(_)
            | K::Impossible
            | K::ImpossibleMessage(_)
            | K::Empty => Vec::new(),
            K::StructField { expr, .. }
            | K::IsCase { expr, .. }
            | K::TupleGet { expr, .. }
            | K::DebugPrint { expr, .. }
            | K::PureDefault(expr)
            | K::ErrorOnEmpty { expr, .. }
            | K::Unary { arg: expr, .. } => vec![expr],
            K::Let { value, body, .. } => vec![value, body],
            K::If {
                cond,
                then_branch,
                else_branch,
            } => vec![cond, then_branch, else_branch],
            K::Lambda(l) => vec![&l.body],
            K::Apply { func, args } => std::iter::once(&**func).chain(args).collect(),
            K::StructNew { fields, .. } => fields.iter().collect(),
            K::EnumInject { payload, .. } => payload.as_deref().into_iter().collect(),
            K::Match { expr, arms, .. } => std::iter::once(&**expr)
                .chain(arms.iter().map(|a| &a.body))
                .collect(),
            K::Tuple(items)
            | K::List(items)
            | K::ListZip(items)
            | K::External { args: items, .. } => items.iter().collect(),
            K::ListMap { list, body: o, .. }
            | K::ListFilter { list, cond: o, .. }
            | K::ListExists { list, cond: o, .. }
            | K::ListFind { list, cond: o, .. }
            | K::ListForAll { list, cond: o, .. }
            | K::ListContains { list, elem: o } => vec![list, o],
            K::ListFold {
                list, init, step, ..
            } => vec![list, init, step],
            K::ListAggregate { list, default, .. } => {
                std::iter::once(&**list).chain(default.as_deref()).collect()
            }
            K::ListArgExtremum {
                list, key, default, ..
            } => [&**list, &**key]
                .into_iter()
                .chain(default.as_deref())
                .collect(),
            K::ListSort { list, keys, .. } => std::iter::once(&**list).chain(keys).collect(),
            K::ScopeCall { args, .. } => args.iter().flatten().collect(),
            K::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            K::Assert { check, next, .. } => vec![check, next],
            K::Default {
                exceptions,
                justification,
                consequence,
            } => exceptions
                .iter()
                .chain([&**justification, &**consequence])
                .collect(),
        }
    }
}

/// A closure body: created by [`ExprKind::Lambda`], called by [`ExprKind::Apply`].
///
/// Frame layout of a call: slots `0..captures.len()` hold copies of the captured slots of the
/// creating frame (taken when the closure is created), the next `params.len()` slots hold the
/// arguments, the remaining ones are locals; `frame_size` slots in all.
#[derive(Clone, Debug)]
pub struct Lambda {
    /// Slots of the creating frame to copy, in order, into slots `0..` of the call frame (empty
    /// for top-level definitions).
    pub captures: Vec<Slot>,
    /// Parameter names and types.
    pub params: Vec<(String, Ty)>,
    pub frame_size: u32,
    /// A value position (for function scope variables: the default tree wrapped in
    /// `ErrorOnEmpty`).
    pub body: Expr,
}

impl Lambda {
    /// The slot of parameter `i` in the call frame.
    pub fn param_slot(&self, i: usize) -> Slot {
        Slot((self.captures.len() + i) as u32)
    }
}

/// One arm of a [`ExprKind::Match`]: the arms are indexed by case, one per case of the enum.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// Slot receiving the payload (`-- C content x`), `None` when the arm ignores it.
    pub binder: Option<Slot>,
    pub body: Expr,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Literal(Literal),
    /// Read a slot of the current frame.
    Local(Slot),
    /// The value of a top-level definition (evaluated before any scope; see
    /// [`Program::topdef_order`]).
    TopDef(TopDefId),
    /// Argument `i` of the running scope (aligned with [`Scope::inputs`]): a default position,
    /// empty when the caller gave nothing for it. For a `context` *function* variable, the
    /// caller's value is a closure returning a list of zero or one value (empty when the
    /// caller's rules give nothing for these arguments, so that the scope's own rules apply);
    /// lowering builds such closures for sub-scope calls and `output of S with {…}`.
    ScopeArg(u32),
    /// True iff the caller gave argument `i` of the running scope (a boolean value; used to
    /// store a context variable that may be empty, see [`ScopeVar::may_be_empty`]).
    ScopeArgGiven(u32),
    /// `let slot = value in body`.
    Let {
        slot: Slot,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    If {
        cond: Box<Expr>,
        then_branch: Box<Expr>,
        else_branch: Box<Expr>,
    },
    Lambda(Arc<Lambda>),
    /// Call a closure.
    Apply {
        func: Box<Expr>,
        args: Vec<Expr>,
    },
    /// Build a structure (fields in declaration order).
    StructNew {
        id: StructId,
        fields: Vec<Expr>,
    },
    /// Field `field` (index in declaration order) of a structure value.
    StructField {
        expr: Box<Expr>,
        id: StructId,
        field: u32,
    },
    /// Build an enum value.
    EnumInject {
        id: EnumId,
        case: u32,
        payload: Option<Box<Expr>>,
    },
    /// Branch on the case of an enum value: `arms[case]`.
    Match {
        expr: Box<Expr>,
        id: EnumId,
        arms: Vec<MatchArm>,
    },
    /// `e with pattern C`: true iff the value is of case `case`.
    IsCase {
        expr: Box<Expr>,
        id: EnumId,
        case: u32,
    },
    Tuple(Vec<Expr>),
    /// Component `index` (0-based) of a tuple.
    TupleGet {
        expr: Box<Expr>,
        index: u32,
    },
    List(Vec<Expr>),
    /// `map each binder among list to body`.
    ListMap {
        binder: Slot,
        list: Box<Expr>,
        body: Box<Expr>,
    },
    /// `list of binder among list such that cond`.
    ListFilter {
        binder: Slot,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `exists binder among list such that cond`.
    ListExists {
        binder: Slot,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `content of binder among list such that cond`: `Present content` the first element
    /// satisfying `cond`, or `Absent` (values of [`Program::option_enum`] `option`).
    ListFind {
        binder: Slot,
        list: Box<Expr>,
        cond: Box<Expr>,
        option: EnumId,
    },
    /// `for all binder among list we have cond`.
    ListForAll {
        binder: Slot,
        list: Box<Expr>,
        cond: Box<Expr>,
    },
    /// `combine all binder among list in acc initially init with step`.
    ListFold {
        binder: Slot,
        acc: Slot,
        list: Box<Expr>,
        init: Box<Expr>,
        step: Box<Expr>,
    },
    /// `sum t of list`, `maximum of list [or if list empty then default]`, ...
    ListAggregate {
        op: AggregateOp,
        list: Box<Expr>,
        default: Option<Box<Expr>>,
    },
    /// `content of binder among list such that key is maximum|minimum [or if list empty then d]`:
    /// on ties the last element wins.
    ListArgExtremum {
        maximum: bool,
        key_type: CmpType,
        binder: Slot,
        list: Box<Expr>,
        key: Box<Expr>,
        default: Option<Box<Expr>>,
    },
    /// The lists traversed together by `map each (x, y) among (l1, l2) to …` (and the other
    /// list operations with a tuple of lists): the list of the tuples of their elements at the
    /// same index; lists of different lengths are the "traversing multiple lists of different
    /// lengths" runtime error at the node's span.
    ListZip(Vec<Expr>),
    /// `sort list in increasing order` (`binder` `None`, `keys` empty: the elements compared
    /// with each other), or `sort all binder among list in decreasing order of k1 and then k2`
    /// (compared by the keys, lexicographically). Stable; comparison as Catala's polymorphic
    /// `<` (an uncomparable pair is the runtime error at the node's span).
    ListSort {
        binder: Option<Slot>,
        list: Box<Expr>,
        keys: Vec<Expr>,
        descending: bool,
    },
    /// `list contains elem` (structural equality).
    ListContains {
        list: Box<Expr>,
        elem: Box<Expr>,
    },
    /// `output of S with { ... }`: run the scope, giving its output structure. `args` are
    /// aligned with the callee's [`Scope::inputs`]; `Some` arguments are plain values (not default
    /// positions).
    ScopeCall {
        scope: ScopeId,
        args: Vec<Option<Expr>>,
    },
    Unary {
        op: UnaryOp,
        arg: Box<Expr>,
    },
    /// A binary operator. The node's span is the operator token's (where Catala reports an
    /// ambiguous date or incomparable durations); `whole` is the whole expression's, its
    /// parentheses included: where a value this operator computes comes from, the position
    /// Catala gives a division by zero whose divisor it computed. In a used module (run
    /// compiled by Catala) a division by zero is reported at the division's own `whole`, which
    /// for a division that is the whole of a variable's only, unconditional rule is the
    /// variable's declaration (Catala's compiled code keeps no closer position there).
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        whole: Span,
    },
    /// `impossible`: the "impossible computation reached" error at this span.
    Impossible,
    /// `#[error.message = "m"] impossible`: the same error, with `m` after Catala's message.
    ImpossibleMessage(String),
    /// `#[debug.print [= "label"]] expr`: the value of `expr`, recorded with the label and the
    /// span when the interpreter runs in debug mode.
    DebugPrint {
        label: Option<String>,
        expr: Box<Expr>,
    },
    /// A value computed outside Catala: the implementation of declaration `name` of external
    /// module `module`, registered with the interpreter, applied to the values of `args`
    /// (empty for a constant).
    External {
        module: String,
        name: String,
        args: Vec<Expr>,
    },
    /// An inline `assertion check in next`: `check` (a boolean value position) is evaluated;
    /// when false, a failed assertion is recorded (message and numbering as for the scope's
    /// assertions, position: the node's span, from `assertion` to the end of `check`) and the
    /// evaluation goes on; the value is `next`'s.
    Assert {
        check: Box<Expr>,
        next: Box<Expr>,
        /// The `#[error.message = "..."]` attribute written before the assertion.
        message: Option<String>,
    },
    /// `⟨exceptions | justification :- consequence⟩`. Every exception is evaluated; if exactly
    /// one is non-empty it is the result; if several are, it is a conflict; if none,
    /// `justification` (a boolean value position) is evaluated: `true` gives `consequence`
    /// (possibly empty), `false` gives empty.
    ///
    /// Positions of a conflict: Catala names, for each non-empty exception, the rule whose
    /// consequence produced its value. Lowering gives every rule's `Default` and its
    /// `PureDefault` the span of the rule's consequence as written, and gives a group of rules
    /// the span of its first rule; so the exception's own `span` is exact for a single rule, and
    /// the span of the `PureDefault` that produced the value is exact in every case (e.g. when
    /// rules with equal consequences are chained, `collapse_similar_outcomes`).
    Default {
        exceptions: Vec<Expr>,
        justification: Box<Expr>,
        consequence: Box<Expr>,
    },
    /// The empty default (no rule applies).
    Empty,
    /// A value position evaluated inside a default position (never empty).
    PureDefault(Box<Expr>),
    /// Evaluate a default position; empty becomes the "no applicable rule to define this
    /// variable" error at `decl` (the variable's declaration; for a variable that may be empty,
    /// the place where it is read, see [`ScopeVar::may_be_empty`]).
    ErrorOnEmpty {
        expr: Box<Expr>,
        decl: Span,
    },
}

/// A top-level definition (`declaration x content T [depends on ...] equals e`).
#[derive(Clone, Debug)]
pub struct TopDef {
    pub name: String,
    pub ty: Ty,
    /// A value position; a `Lambda` without captures when the definition has parameters.
    /// Date operators in it use [`DateRounding::Abort`].
    pub body: Expr,
    /// Slots needed to evaluate `body`.
    pub frame_size: u32,
    pub span: Span,
}
