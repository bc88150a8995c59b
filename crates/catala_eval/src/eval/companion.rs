//! Companions: what rides along with every value the interpreter computes, and the hooks the
//! interpreter calls at each branch point. A concrete run uses `()` (zero-sized, every hook is an
//! empty inlined function, so plain interpretation pays nothing); a concolic run uses a symbolic
//! term as companion and records each branch decision as a path constraint. Conflicts, empty
//! defaults, divisions and rounding are thus decided by the same code in both modes.

use crate::runtime::Value;
use catala_ir::dcalc::{BinaryOp, UnaryOp};
use catala_syntax::Span;

/// Ways of building an aggregate value from parts (the parts' companions are passed in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Composite {
    Struct {
        struct_id: u32,
    },
    Enum {
        enum_id: u32,
        case: u32,
    },
    Tuple,
    List,
    /// The output structure of a scope run.
    ScopeOutput {
        struct_id: u32,
    },
}

/// Ways of reading a part of an aggregate value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Projection {
    StructField(u32),
    TupleElement(u32),
    /// The payload of an enum value (known to be of this case).
    EnumPayload(u32),
    /// `e with pattern C`: the boolean "the value is of case C".
    IsCase(u32),
    ListElement(u32),
    /// The number of elements of a list (no branch: the length is a value).
    ListLength,
}

/// A branch point of the evaluation and the decision taken there.
#[derive(Debug)]
pub enum BranchEvent<'a, C> {
    /// `if cond then … else …`.
    If {
        span: Span,
        condition: &'a C,
        taken: bool,
    },
    /// The justification of a default term, evaluated because no exception applied.
    Justification {
        span: Span,
        condition: &'a C,
        taken: bool,
    },
    /// The exceptions of a default term have been evaluated: how many were non-empty
    /// (0: justification next, 1: its value is the result, more: conflict).
    Exceptions { span: Span, non_empty: usize },
    /// A `match` selected `case`.
    Match {
        span: Span,
        scrutinee: &'a C,
        case: u32,
    },
    /// A divisor was checked against zero.
    DivisionByZero {
        span: Span,
        divisor: &'a C,
        is_zero: bool,
    },
    /// An assertion was checked (in a test scope, assertions restrict the inputs).
    Assertion {
        span: Span,
        condition: &'a C,
        holds: bool,
    },
    /// An assertion of a scope on its inputs alone, checked before the scope's body when the
    /// interpreter is asked to ([`super::input_assertions`]): on a run where it fails, the
    /// inputs are outside the input space the scope states (`explored_scope`: the scope the
    /// run starts with, whose assertions read the run's inputs only; else a scope it calls).
    /// It is checked again at its place (an [`BranchEvent::Assertion`] with the same span).
    InputAssertion {
        span: Span,
        condition: &'a C,
        holds: bool,
        explored_scope: bool,
    },
    /// A list operation decided on an element (filter, exists, for all) with this condition.
    ListCondition {
        span: Span,
        condition: &'a C,
        taken: bool,
    },
    /// A list operation (map, filter, fold, exists, aggregates, sort, zip, membership) is about
    /// to go through the `length` elements of `list`: what it does depends on that length.
    ListLength {
        span: Span,
        list: &'a C,
        length: usize,
    },
}

/// The interface between the interpreter and what rides along with values.
pub trait Companion: Clone + 'static {
    /// Mutable state shared by the hooks of one run (e.g. the path constraint being built).
    type Session;

    /// Companion of a value that no tracked computation produced (literals, inputs, closures).
    fn constant(session: &mut Self::Session, value: &Value) -> Self;

    fn unary(
        session: &mut Self::Session,
        op: UnaryOp,
        arg: (&Value, &Self),
        result: &Value,
    ) -> Self;

    fn binary(
        session: &mut Self::Session,
        op: BinaryOp,
        lhs: (&Value, &Self),
        rhs: (&Value, &Self),
        result: &Value,
    ) -> Self;

    fn compose(
        session: &mut Self::Session,
        kind: Composite,
        parts: Vec<Self>,
        result: &Value,
    ) -> Self;

    fn project(
        session: &mut Self::Session,
        kind: Projection,
        from: (&Value, &Self),
        result: &Value,
    ) -> Self;

    /// Called at every branch point with the decision the concrete values imply.
    fn branch(session: &mut Self::Session, event: BranchEvent<'_, Self>);

    /// Called for every binary operator before its result (or its error) is used: `succeeded`
    /// says whether the operands' values were accepted. Some operators fail on values alone
    /// (a date that does not exist without a rounding mode, durations of months compared with
    /// durations of days): a symbolic companion records the condition as a branch at `span`.
    #[inline(always)]
    fn checked_operation(
        _session: &mut Self::Session,
        _op: BinaryOp,
        _span: Span,
        _lhs: (&Value, &Self),
        _rhs: (&Value, &Self),
        _succeeded: bool,
    ) {
    }

    /// Called when arguments go into code the companion cannot follow (an external module's
    /// implementation): its result is then a constant. A symbolic companion notes that what
    /// depends on the result is no longer explored completely.
    fn opaque_call(_session: &mut Self::Session, _args: &[&Self]) {}

    /// Whether a default term stops evaluating its exceptions as soon as two of them are
    /// non-empty (the conflict is then certain: the lazy rules of Fig. 9 of the CUTECat paper).
    /// The default is Catala's eager evaluation of every exception, which concrete runs keep;
    /// the conflict error then names only the first two applicable rules.
    #[inline(always)]
    fn lazy_exceptions(_session: &Self::Session) -> bool {
        false
    }

    /// A position in the session's record of the run (e.g. the length of the path condition
    /// so far), taken before a default term's exceptions and before each of them.
    #[inline(always)]
    fn mark(_session: &Self::Session) -> usize {
        0
    }

    /// The evaluation of an exception of a default term failed (the error then ends the run):
    /// `exceptions_start` is the mark taken before the term's first exception,
    /// `exception_start` the one taken before the failing exception. The early-conflict rule
    /// (Fig. 10 of the CUTECat paper) uses it: what the earlier exceptions recorded did not
    /// cause the failure.
    #[inline(always)]
    fn exception_failed(
        _session: &mut Self::Session,
        _exceptions_start: usize,
        _exception_start: usize,
    ) {
    }

    /// A rule's consequence (the `PureDefault` at `span`) is about to give the value of its
    /// default term: its justification held. Law coverage (`coverage.rs`) counts these; no
    /// other companion needs them.
    #[inline(always)]
    fn consequence(_session: &mut Self::Session, _span: Span) {}
}

/// The companion of concrete runs: nothing at all.
impl Companion for () {
    type Session = ();

    #[inline(always)]
    fn constant(_: &mut (), _: &Value) {}

    #[inline(always)]
    fn unary(_: &mut (), _: UnaryOp, _: (&Value, &()), _: &Value) {}

    #[inline(always)]
    fn binary(_: &mut (), _: BinaryOp, _: (&Value, &()), _: (&Value, &()), _: &Value) {}

    #[inline(always)]
    fn compose(_: &mut (), _: Composite, _: Vec<()>, _: &Value) {}

    #[inline(always)]
    fn project(_: &mut (), _: Projection, _: (&Value, &()), _: &Value) {}

    #[inline(always)]
    fn branch(_: &mut (), _: BranchEvent<'_, ()>) {}
}
