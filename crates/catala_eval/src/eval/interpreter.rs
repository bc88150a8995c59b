//! The interpreter of dcalc: evaluates expressions and default terms over a stack of frames,
//! runs scopes statement by statement, and calls the companion's hooks at each branch point.
//!
//! Default terms follow Catala exactly: every exception is evaluated; exactly one non-empty
//! exception gives the result, several are a conflict naming each of them; with none, the
//! justification decides between the consequence and empty. `ErrorOnEmpty` turns empty into
//! the "no applicable rule" error at the variable's declaration. A companion may ask for the
//! lazy variant ([`Companion::lazy_exceptions`]): the exceptions stop at the second non-empty
//! one, which is already a conflict. Failed assertions are recorded and evaluation continues.

use super::companion::{BranchEvent, Companion, Composite, Projection};
use super::error::{AssertionFailure, RuntimeError, RuntimeErrorKind};
use super::input_assertions::InputAssertions;
use super::ops;
use crate::externals::{ExternalContext, ExternalError, Externals};
use crate::runtime::{Value, ValueError};
use catala_ir::dcalc::{BinaryOp, Expr, ExprKind, Lambda, Program, ScopeId, Stmt};
use catala_syntax::ast::Language;
use catala_syntax::Span;
use std::rc::Rc;
use std::sync::Arc;

/// A value with its companion.
pub type Tracked<C> = (Value, C);

pub(crate) type EvalResult<T> = Result<T, Box<RuntimeError>>;

/// Arguments of a scope run, aligned with the scope's inputs (`None`: empty).
pub type ScopeArgs<C> = Rc<[Option<Tracked<C>>]>;

/// A closure: its code, the captured slots, and the arguments of the scope run that created it.
pub(crate) struct ClosureValue<C> {
    lambda: std::sync::Arc<Lambda>,
    captured: Vec<Tracked<C>>,
    args: ScopeArgs<C>,
}

/// Where the current code reads its slots and scope arguments.
pub(crate) struct Frame<C> {
    pub(crate) base: usize,
    pub(crate) args: ScopeArgs<C>,
}

/// An interpreter for one program, generic over the companion riding along with values.
pub struct Interpreter<'p, C: Companion = ()> {
    pub(crate) program: &'p Program,
    /// The companion's state (e.g. the path constraint of a concolic run).
    pub session: C::Session,
    stack: Vec<Tracked<C>>,
    topdefs: Vec<Option<Tracked<C>>>,
    /// Assertions that failed since the last [`Interpreter::take_failures`].
    pub(crate) failures: Vec<AssertionFailure>,
    /// Language of the scope being run (for assertion messages).
    language: Language,
    /// Implementations of the external modules' declarations.
    externals: Arc<Externals>,
    /// In debug mode, the values of the `#[debug.print]` expressions met, in order.
    pub debug_log: Option<Vec<DebugRecord>>,
    /// Where the value of the last expression that hands on another one's value (a branch,
    /// a `let`, a call; see [`passes_value_on`]) was computed: a division by zero is reported
    /// there, as Catala reports it where its divisor's value comes from.
    origin: Span,
    /// Report errors as Catala's compiled code does for every scope, not only for those of
    /// used modules (see [`Interpreter::report_as_compiled`]).
    compiled_positions: bool,
    /// Check the input assertions of the top-level scope before its body (see
    /// [`Interpreter::check_input_assertions_first`]), with those found for the last scope run.
    input_assertions_first: bool,
    input_assertions: Vec<Option<Rc<InputAssertions>>>,
}

/// Whether an expression's value is another expression's, handed on unchanged: the taken
/// branch of an `if` or `match`, the body of a `let` or of a called function.
fn passes_value_on(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::If { .. }
            | ExprKind::Match { .. }
            | ExprKind::Let { .. }
            | ExprKind::Apply { .. }
    )
}

/// Where an expression computing its own value (not handing one on) puts it: its whole
/// span, parentheses included.
fn own_span(e: &Expr) -> Span {
    match e.kind {
        ExprKind::Binary { whole, .. } => whole,
        _ => e.span,
    }
}

/// A value shown by `#[debug.print]` in debug mode.
#[derive(Clone, Debug)]
pub struct DebugRecord {
    pub label: Option<String>,
    pub value: Value,
    pub span: Span,
}

impl<'p, C: Companion> Interpreter<'p, C> {
    /// Prepares an interpreter: evaluates the top-level definitions (in their dependency order).
    pub fn new(program: &'p Program, session: C::Session) -> Result<Self, RuntimeError> {
        Self::with_externals(program, session, Externals::standard())
    }

    /// Like [`Interpreter::new`], with the given implementations of external modules instead of
    /// [`Externals::standard`].
    pub fn with_externals(
        program: &'p Program,
        session: C::Session,
        externals: Arc<Externals>,
    ) -> Result<Self, RuntimeError> {
        let mut interp = Interpreter {
            program,
            session,
            stack: Vec::with_capacity(256),
            topdefs: vec![None; program.topdefs.len()],
            failures: Vec::new(),
            language: Language::En,
            externals,
            debug_log: None,
            origin: Span::default(),
            compiled_positions: false,
            input_assertions_first: false,
            input_assertions: Vec::new(),
        };
        for &id in &program.topdef_order {
            let def = program.topdef(id);
            let frame = interp.push_frame(def.frame_size as usize, Rc::from(Vec::new()));
            let v = interp.eval(&def.body, &frame);
            interp.stack.truncate(frame.base);
            let v = v.map_err(|e| *e)?;
            if let Some(slot) = interp.topdefs.get_mut(id.0 as usize) {
                *slot = Some(v);
            }
        }
        Ok(interp)
    }

    /// Calls the implementation of an external declaration on the values of `args`.
    fn external(
        &mut self,
        module: &str,
        name: &str,
        args: &[Expr],
        span: Span,
        fr: &Frame<C>,
    ) -> EvalResult<Tracked<C>> {
        let mut values = Vec::with_capacity(args.len());
        let mut companions = Vec::with_capacity(args.len());
        for a in args {
            let (v, c) = self.eval(a, fr)?;
            values.push(v);
            companions.push(c);
        }
        let refs: Vec<&C> = companions.iter().collect();
        C::opaque_call(&mut self.session, &refs);
        let Some(f) = self.externals.get(module, name).cloned() else {
            let mut err = self.error(RuntimeErrorKind::Internal, &[span]);
            err.message = format!("no implementation of external {module}.{name} is registered.");
            return Err(err);
        };
        let ctx = ExternalContext::new(self.program);
        match f(&values, &ctx) {
            Ok(v) => Ok(self.constant(v)),
            Err(ExternalError::Runtime(kind)) => Err(self.error(kind, &[span])),
            Err(ExternalError::Message(m)) => {
                let mut err = self.error(RuntimeErrorKind::External, &[span]);
                // Catala's runtime messages end with a period.
                err.message = if m.ends_with('.') { m } else { format!("{m}.") };
                Err(err)
            }
        }
    }

    /// The program this interpreter runs.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    pub(crate) fn current_language(&self) -> Language {
        self.language
    }

    /// The assertion failures recorded so far, in evaluation order; clears the list.
    pub fn take_failures(&mut self) -> Vec<AssertionFailure> {
        std::mem::take(&mut self.failures)
    }

    pub(crate) fn error(&self, kind: RuntimeErrorKind, spans: &[Span]) -> Box<RuntimeError> {
        Box::new(RuntimeError::new(self.program, kind, spans))
    }

    fn value_error(&self, e: ValueError, span: Span) -> Box<RuntimeError> {
        Box::new(RuntimeError::from_value_error(self.program, e, span))
    }

    pub(crate) fn internal(&self, span: Span) -> Box<RuntimeError> {
        self.error(RuntimeErrorKind::Internal, &[span])
    }

    pub(crate) fn constant(&mut self, v: Value) -> Tracked<C> {
        let c = C::constant(&mut self.session, &v);
        (v, c)
    }

    fn push_frame(&mut self, size: usize, args: ScopeArgs<C>) -> Frame<C> {
        let base = self.stack.len();
        let filler = self.constant(Value::Unit);
        self.stack.resize(base + size, filler);
        Frame { base, args }
    }

    pub(crate) fn set(&mut self, fr: &Frame<C>, slot: catala_ir::dcalc::Slot, v: Tracked<C>) {
        let i = fr.base + slot.index();
        if i >= self.stack.len() {
            let filler = self.constant(Value::Unit);
            self.stack.resize(i + 1, filler);
        }
        self.stack[i] = v;
    }

    fn get(
        &self,
        fr: &Frame<C>,
        slot: catala_ir::dcalc::Slot,
        span: Span,
    ) -> EvalResult<Tracked<C>> {
        self.stack
            .get(fr.base + slot.index())
            .cloned()
            .ok_or_else(|| self.internal(span))
    }

    pub(crate) fn eval_bool(&mut self, e: &Expr, fr: &Frame<C>) -> EvalResult<(bool, C)> {
        let (v, c) = self.eval(e, fr)?;
        match v {
            Value::Bool(b) => Ok((b, c)),
            _ => Err(self.internal(e.span)),
        }
    }

    /// Evaluates a default position: `None` is the empty default.
    pub(crate) fn eval_default(
        &mut self,
        e: &Expr,
        fr: &Frame<C>,
    ) -> EvalResult<Option<Tracked<C>>> {
        Ok(self.eval_default_at(e, fr)?.map(|(v, _)| v))
    }

    /// Evaluates a default position, returning with a value the span of the rule that produced
    /// it (the `PureDefault` holding the consequence), which is where a conflict points.
    fn eval_default_at(
        &mut self,
        e: &Expr,
        fr: &Frame<C>,
    ) -> EvalResult<Option<(Tracked<C>, Span)>> {
        match &e.kind {
            ExprKind::Default {
                exceptions,
                justification,
                consequence,
            } => {
                let mut found: Option<(Tracked<C>, Span)> = None;
                let mut non_empty = 0;
                // Spans of the applicable rules, kept only once there is a conflict.
                let mut applicable: Vec<Span> = Vec::new();
                let exceptions_start = C::mark(&self.session);
                for ex in exceptions {
                    let exception_start = C::mark(&self.session);
                    let result = match self.eval_default_at(ex, fr) {
                        Ok(r) => r,
                        Err(err) => {
                            C::exception_failed(
                                &mut self.session,
                                exceptions_start,
                                exception_start,
                            );
                            return Err(err);
                        }
                    };
                    if let Some((v, at)) = result {
                        non_empty += 1;
                        match (non_empty, &found) {
                            (2, Some((_, first))) => applicable.extend([*first, at]),
                            (1, _) => {}
                            _ => applicable.push(at),
                        }
                        found = Some((v, at));
                        if non_empty == 2 && C::lazy_exceptions(&self.session) {
                            break;
                        }
                    }
                }
                C::branch(
                    &mut self.session,
                    BranchEvent::Exceptions {
                        span: e.span,
                        non_empty,
                    },
                );
                match non_empty {
                    0 => {
                        let (taken, cond) = self.eval_bool(justification, fr)?;
                        C::branch(
                            &mut self.session,
                            BranchEvent::Justification {
                                span: justification.span,
                                condition: &cond,
                                taken,
                            },
                        );
                        if taken {
                            self.eval_default_at(consequence, fr)
                        } else {
                            Ok(None)
                        }
                    }
                    1 => Ok(found),
                    _ => Err(self.error(RuntimeErrorKind::Conflict, &applicable)),
                }
            }
            ExprKind::Empty => Ok(None),
            ExprKind::PureDefault(inner) => {
                C::consequence(&mut self.session, e.span);
                Ok(Some((self.eval(inner, fr)?, e.span)))
            }
            ExprKind::ScopeArg(i) => Ok(fr
                .args
                .get(*i as usize)
                .cloned()
                .flatten()
                .map(|v| (v, e.span))),
            _ => Ok(Some((self.eval(e, fr)?, e.span))),
        }
    }

    /// Evaluates a value position.
    pub(crate) fn eval(&mut self, e: &Expr, fr: &Frame<C>) -> EvalResult<Tracked<C>> {
        match &e.kind {
            ExprKind::Literal(lit) => {
                let v = ops::literal_value(lit).map_err(|err| self.value_error(err, e.span))?;
                Ok(self.constant(v))
            }
            ExprKind::Local(slot) => self.get(fr, *slot, e.span),
            ExprKind::ScopeArgGiven(i) => {
                let given = matches!(fr.args.get(*i as usize), Some(Some(_)));
                Ok(self.constant(Value::Bool(given)))
            }
            ExprKind::TopDef(id) => self
                .topdefs
                .get(id.0 as usize)
                .cloned()
                .flatten()
                .ok_or_else(|| self.internal(e.span)),
            ExprKind::ErrorOnEmpty { expr, decl } => match self.eval_default(expr, fr)? {
                Some(v) => Ok(v),
                None => Err(self.error(RuntimeErrorKind::NoValue, &[*decl])),
            },
            ExprKind::Default { .. }
            | ExprKind::Empty
            | ExprKind::PureDefault(_)
            | ExprKind::ScopeArg(_) => match self.eval_default(e, fr)? {
                Some(v) => Ok(v),
                None => Err(self.error(RuntimeErrorKind::NoValue, &[e.span])),
            },
            ExprKind::Let { slot, value, body } => {
                let v = self.eval(value, fr)?;
                self.set(fr, *slot, v);
                self.eval_handing_on(body, fr)
            }
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let (taken, c) = self.eval_bool(cond, fr)?;
                C::branch(
                    &mut self.session,
                    BranchEvent::If {
                        span: cond.span,
                        condition: &c,
                        taken,
                    },
                );
                if taken {
                    self.eval_handing_on(then_branch, fr)
                } else {
                    self.eval_handing_on(else_branch, fr)
                }
            }
            ExprKind::Lambda(lambda) => {
                let mut captured = Vec::with_capacity(lambda.captures.len());
                for slot in &lambda.captures {
                    captured.push(self.get(fr, *slot, e.span)?);
                }
                let closure = ClosureValue {
                    lambda: lambda.clone(),
                    captured,
                    args: fr.args.clone(),
                };
                Ok(self.constant(Value::Closure(Rc::new(closure))))
            }
            ExprKind::Apply { func, args } => {
                let f = self.eval(func, fr)?;
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval(a, fr)?);
                }
                self.origin = e.span;
                let r = self.call(&f.0, values, e.span);
                match r {
                    // An error inside the standard library is the caller's: it is reported
                    // at the call, as Catala does with its implicit position arguments.
                    Err(mut err)
                        if !self.program.is_stdlib_span(e.span)
                            && !err.labels.is_empty()
                            && err
                                .labels
                                .iter()
                                .all(|l| self.program.is_stdlib_span(l.span)) =>
                    {
                        let relocated = RuntimeError::new(self.program, err.kind, &[func.span]);
                        err.labels = relocated.labels;
                        Err(err)
                    }
                    r => r,
                }
            }
            ExprKind::StructNew { id, fields } => {
                let mut values = Vec::with_capacity(fields.len());
                let mut comps = Vec::with_capacity(fields.len());
                for f in fields {
                    let (v, c) = self.eval(f, fr)?;
                    values.push(v);
                    comps.push(c);
                }
                let v = Value::new_struct(id.0, values);
                let c = C::compose(
                    &mut self.session,
                    Composite::Struct { struct_id: id.0 },
                    comps,
                    &v,
                );
                Ok((v, c))
            }
            ExprKind::StructField { expr, field, .. } => {
                let (sv, sc) = self.eval(expr, fr)?;
                let Value::Struct(s) = &sv else {
                    return Err(self.internal(e.span));
                };
                let v = s
                    .fields
                    .get(*field as usize)
                    .cloned()
                    .ok_or_else(|| self.internal(e.span))?;
                let c = C::project(
                    &mut self.session,
                    Projection::StructField(*field),
                    (&sv, &sc),
                    &v,
                );
                Ok((v, c))
            }
            ExprKind::EnumInject { id, case, payload } => {
                let (pv, pc) = match payload {
                    Some(p) => self.eval(p, fr)?,
                    None => self.constant(Value::Unit),
                };
                let v = Value::new_enum(id.0, *case, pv);
                let c = C::compose(
                    &mut self.session,
                    Composite::Enum {
                        enum_id: id.0,
                        case: *case,
                    },
                    vec![pc],
                    &v,
                );
                Ok((v, c))
            }
            ExprKind::Match { expr, arms, .. } => {
                let (sv, sc) = self.eval(expr, fr)?;
                let Value::Enum(ev) = &sv else {
                    return Err(self.internal(e.span));
                };
                let case = ev.case;
                C::branch(
                    &mut self.session,
                    BranchEvent::Match {
                        span: expr.span,
                        scrutinee: &sc,
                        case,
                    },
                );
                let arm = arms
                    .get(case as usize)
                    .ok_or_else(|| self.internal(e.span))?;
                if let Some(slot) = arm.binder {
                    let payload = ev.payload.clone();
                    let pc = C::project(
                        &mut self.session,
                        Projection::EnumPayload(case),
                        (&sv, &sc),
                        &payload,
                    );
                    self.set(fr, slot, (payload, pc));
                }
                self.eval_handing_on(&arm.body, fr)
            }
            ExprKind::IsCase { expr, case, .. } => {
                let (sv, sc) = self.eval(expr, fr)?;
                let Value::Enum(ev) = &sv else {
                    return Err(self.internal(e.span));
                };
                let v = Value::Bool(ev.case == *case);
                let c = C::project(&mut self.session, Projection::IsCase(*case), (&sv, &sc), &v);
                Ok((v, c))
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let mut values = Vec::with_capacity(items.len());
                let mut comps = Vec::with_capacity(items.len());
                for item in items {
                    let (v, c) = self.eval(item, fr)?;
                    values.push(v);
                    comps.push(c);
                }
                let (v, kind) = if matches!(e.kind, ExprKind::Tuple(_)) {
                    (Value::Tuple(values.into()), Composite::Tuple)
                } else {
                    (Value::List(values.into()), Composite::List)
                };
                let c = C::compose(&mut self.session, kind, comps, &v);
                Ok((v, c))
            }
            ExprKind::TupleGet { expr, index } => {
                let (tv, tc) = self.eval(expr, fr)?;
                let Value::Tuple(items) = &tv else {
                    return Err(self.internal(e.span));
                };
                let v = items
                    .get(*index as usize)
                    .cloned()
                    .ok_or_else(|| self.internal(e.span))?;
                let c = C::project(
                    &mut self.session,
                    Projection::TupleElement(*index),
                    (&tv, &tc),
                    &v,
                );
                Ok((v, c))
            }
            ExprKind::ListMap { .. }
            | ExprKind::ListFilter { .. }
            | ExprKind::ListExists { .. }
            | ExprKind::ListForAll { .. }
            | ExprKind::ListFold { .. }
            | ExprKind::ListAggregate { .. }
            | ExprKind::ListArgExtremum { .. }
            | ExprKind::ListContains { .. }
            | ExprKind::ListSort { .. }
            | ExprKind::ListFind { .. }
            | ExprKind::ListZip(_) => self.eval_list_op(e, fr),
            ExprKind::ScopeCall { scope, args } => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(match a {
                        Some(a) => Some(self.eval(a, fr)?),
                        None => None,
                    });
                }
                self.run_scope_frame(*scope, values.into())
            }
            ExprKind::Unary { op, arg } => {
                let (av, ac) = self.eval(arg, fr)?;
                let v = ops::apply_unary(*op, &av).map_err(|err| self.value_error(err, e.span))?;
                let c = C::unary(&mut self.session, *op, (&av, &ac), &v);
                Ok((v, c))
            }
            ExprKind::Binary {
                op,
                lhs,
                rhs,
                whole,
            } => {
                let (lv, lc) = self.eval(lhs, fr)?;
                let (rv, rc) = self.eval(rhs, fr)?;
                self.binary(*op, (lv, lc), (rv, rc), (e.span, *whole), Some(rhs))
            }
            ExprKind::Impossible => Err(self.error(RuntimeErrorKind::Impossible, &[e.span])),
            ExprKind::ImpossibleMessage(m) => {
                let mut err = self.error(RuntimeErrorKind::Impossible, &[e.span]);
                err.message = format!("{}\n{m}", err.message);
                Err(err)
            }
            ExprKind::DebugPrint { label, expr } => {
                let v = self.eval(expr, fr)?;
                if let Some(log) = self.debug_log.as_mut() {
                    log.push(DebugRecord {
                        label: label.clone(),
                        value: v.0.clone(),
                        span: e.span,
                    });
                }
                Ok(v)
            }
            ExprKind::External { module, name, args } => {
                self.external(module, name, args, e.span, fr)
            }
            ExprKind::Assert {
                check,
                next,
                message,
            } => {
                self.check_assertion(check, e.span, message.as_deref(), None, fr)?;
                self.eval(next, fr)
            }
        }
    }

    /// Applies a binary operator, checking divisors against zero first. `span` is the
    /// operator's, `whole` the whole operation's; `rhs` the divisor's expression, when the
    /// operation is written (not one an aggregate makes).
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        (lv, lc): Tracked<C>,
        (rv, rc): Tracked<C>,
        (span, whole): (Span, Span),
        rhs: Option<&Expr>,
    ) -> EvalResult<Tracked<C>> {
        if op.is_division() {
            let is_zero = ops::divides_by_zero(op, &rv);
            C::branch(
                &mut self.session,
                BranchEvent::DivisionByZero {
                    span: rhs.map_or(span, |r| r.span),
                    divisor: &rc,
                    is_zero,
                },
            );
            if is_zero {
                return Err(self.division_by_zero(span, whole, rhs));
            }
        }
        let r = ops::apply_binary(op, &lv, &rv);
        C::checked_operation(
            &mut self.session,
            op,
            span,
            (&lv, &lc),
            (&rv, &rc),
            r.is_ok(),
        );
        let v = match r {
            Ok(v) => v,
            Err(err) => return Err(self.operator_error(err, span, whole)),
        };
        let c = C::binary(&mut self.session, op, (&lv, &lc), (&rv, &rc), &v);
        Ok((v, c))
    }

    /// Calls a closure value.
    pub(crate) fn call(
        &mut self,
        f: &Value,
        args: Vec<Tracked<C>>,
        span: Span,
    ) -> EvalResult<Tracked<C>> {
        let Value::Closure(any) = f else {
            return Err(self.internal(span));
        };
        let Some(closure) = any.downcast_ref::<ClosureValue<C>>() else {
            return Err(self.internal(span));
        };
        let lambda = closure.lambda.clone();
        let frame = self.push_frame(lambda.frame_size as usize, closure.args.clone());
        for (i, v) in closure.captured.iter().enumerate() {
            self.set(&frame, catala_ir::dcalc::Slot(i as u32), v.clone());
        }
        for (i, v) in args.into_iter().enumerate() {
            self.set(&frame, lambda.param_slot(i), v);
        }
        let result = self.eval_handing_on(&lambda.body, &frame);
        self.stack.truncate(frame.base);
        result
    }

    /// Reports runtime errors as Catala does when it runs the program compiled, as a module
    /// a test file uses (a division by zero at the division, not where its divisor came
    /// from): what a test of a module program expects.
    pub fn report_as_compiled(&mut self, compiled: bool) {
        self.compiled_positions = compiled;
    }

    /// The division-by-zero error, reported at the division itself in code Catala runs
    /// compiled, else where the divisor's value was computed (its own span, or the origin
    /// noted while evaluating an expression that hands a value on).
    #[cold]
    #[inline(never)]
    fn division_by_zero(&self, span: Span, whole: Span, rhs: Option<&Expr>) -> Box<RuntimeError> {
        let at = match rhs {
            _ if self.compiled_positions || self.program.is_module_span(span) => whole,
            Some(r) if passes_value_on(r) => self.origin,
            Some(r) => own_span(r),
            None => span,
        };
        self.error(RuntimeErrorKind::DivisionByZero, &[at])
    }

    /// An operator's runtime error (incomparable durations, an ambiguous date): at the operator,
    /// or, compiled, at the whole operation, as Catala reports it.
    #[cold]
    #[inline(never)]
    fn operator_error(&self, err: ValueError, span: Span, whole: Span) -> Box<RuntimeError> {
        let at = if self.compiled_positions || self.program.is_module_span(span) {
            whole
        } else {
            span
        };
        self.value_error(err, at)
    }

    /// Evaluates an expression whose value the caller hands on, noting where that value was
    /// computed (in [`Interpreter::origin`]).
    fn eval_handing_on(&mut self, e: &Expr, fr: &Frame<C>) -> EvalResult<Tracked<C>> {
        let r = self.eval(e, fr);
        if !passes_value_on(e) {
            self.origin = own_span(e);
        }
        r
    }

    /// Checks the input assertions of the scope a run starts with (see [`input_assertions`])
    /// before its body, reporting each to the companion as a
    /// [`BranchEvent::InputAssertion`]. The run's outcome is unchanged: the assertions are
    /// still checked at their place, where a failure is recorded.
    ///
    /// [`input_assertions`]: super::input_assertions
    pub fn check_input_assertions_first(&mut self, on: bool) {
        self.input_assertions_first = on;
    }

    /// The input assertions of `scope_id` (computed once per scope).
    pub fn input_assertions(&mut self, scope_id: ScopeId) -> Rc<InputAssertions> {
        let i = scope_id.0 as usize;
        if let Some(Some(found)) = self.input_assertions.get(i) {
            return found.clone();
        }
        let found = Rc::new(InputAssertions::of(
            self.program,
            self.program.scope(scope_id),
        ));
        if self.input_assertions.len() <= i {
            self.input_assertions.resize(i + 1, None);
        }
        self.input_assertions[i] = Some(found.clone());
        found
    }

    /// Runs the scope a run starts with (the explored scope): [`Interpreter::run_scope_frame`],
    /// its input assertions reported as the explored scope's.
    pub(crate) fn run_top_scope(
        &mut self,
        scope_id: ScopeId,
        args: ScopeArgs<C>,
    ) -> EvalResult<Tracked<C>> {
        self.run_scope_frame_as(scope_id, args, true)
    }

    /// Evaluates only the input assertions of `scope_id` on `args`, reporting each to the
    /// companion as a [`BranchEvent::InputAssertion`] (without running the scope): how an
    /// explorer learns their conditions before its first run.
    pub fn report_input_assertions_on(&mut self, scope_id: ScopeId, args: ScopeArgs<C>) {
        self.in_scope_frame(scope_id, args, |interp, frame| {
            interp.report_input_assertions(scope_id, frame, true);
            Ok(())
        })
        .ok();
    }

    /// Runs `f` in a fresh frame of `scope_id` holding `args`, in the scope's language.
    fn in_scope_frame<R>(
        &mut self,
        scope_id: ScopeId,
        args: ScopeArgs<C>,
        f: impl FnOnce(&mut Self, &Frame<C>) -> EvalResult<R>,
    ) -> EvalResult<R> {
        let program = self.program;
        let scope = program
            .scopes
            .get(scope_id.0 as usize)
            .ok_or_else(|| self.internal(Span::default()))?;
        let frame = self.push_frame(scope.frame_size as usize, args);
        let outer_language = std::mem::replace(&mut self.language, scope.language);
        let result = f(self, &frame);
        self.language = outer_language;
        self.stack.truncate(frame.base);
        result
    }

    /// Evaluates the input assertions of `scope_id` in `frame` (its inputs read as the body
    /// will read them) and reports them. Nothing is reported when an input is missing: the
    /// body fails on it before any assertion.
    fn report_input_assertions(&mut self, scope_id: ScopeId, frame: &Frame<C>, explored: bool) {
        let found = self.input_assertions(scope_id);
        if found.assertions.is_empty() {
            return;
        }
        let body = &self.program.scope(scope_id).body;
        for &i in &found.defines {
            if let Some(Stmt::Define { slot, expr, .. }) = body.get(i) {
                match self.eval(expr, frame) {
                    Ok(v) => self.set(frame, *slot, v),
                    Err(_) => return,
                }
            }
        }
        for &i in &found.assertions {
            if let Some(Stmt::Assert { expr, span, .. }) = body.get(i) {
                let Ok((holds, c)) = self.eval_bool(expr, frame) else {
                    return;
                };
                C::branch(
                    &mut self.session,
                    BranchEvent::InputAssertion {
                        span: *span,
                        condition: &c,
                        holds,
                        explored_scope: explored,
                    },
                );
            }
        }
    }

    /// Runs a scope in a fresh frame and returns its output structure.
    pub(crate) fn run_scope_frame(
        &mut self,
        scope_id: ScopeId,
        args: ScopeArgs<C>,
    ) -> EvalResult<Tracked<C>> {
        self.run_scope_frame_as(scope_id, args, false)
    }

    /// [`Interpreter::run_scope_frame`]; `explored`: the scope is the one the run starts with.
    fn run_scope_frame_as(
        &mut self,
        scope_id: ScopeId,
        args: ScopeArgs<C>,
        explored: bool,
    ) -> EvalResult<Tracked<C>> {
        self.in_scope_frame(scope_id, args, |interp, frame| {
            if interp.input_assertions_first {
                interp.report_input_assertions(scope_id, frame, explored);
            }
            interp.run_body(scope_id, frame)
        })
    }

    fn run_body(&mut self, scope_id: ScopeId, frame: &Frame<C>) -> EvalResult<Tracked<C>> {
        let program = self.program;
        let scope = program.scope(scope_id);
        for stmt in &scope.body {
            match stmt {
                Stmt::Define { slot, expr, .. } => {
                    let v = self.eval(expr, frame)?;
                    self.set(frame, *slot, v);
                }
                Stmt::CallSubScope {
                    slot, scope, args, ..
                } => {
                    let mut values = Vec::with_capacity(args.len());
                    for a in args {
                        values.push(match a {
                            Some(a) => self.eval_default(a, frame)?,
                            None => None,
                        });
                    }
                    let out = self.run_scope_frame(*scope, values.into())?;
                    self.set(frame, *slot, out);
                }
                Stmt::Assert {
                    expr,
                    span,
                    headings,
                    message,
                } => {
                    self.check_assertion(expr, *span, message.as_deref(), Some(headings), frame)?;
                }
            }
        }
        let mut values = Vec::with_capacity(scope.outputs.len());
        let mut comps = Vec::with_capacity(scope.outputs.len());
        for out in &scope.outputs {
            let (v, c) = self.get(frame, out.slot, scope.span)?;
            values.push(v);
            comps.push(c);
        }
        let sid = scope.output_struct.0;
        let v = Value::new_struct(sid, values);
        let c = C::compose(
            &mut self.session,
            Composite::ScopeOutput { struct_id: sid },
            comps,
            &v,
        );
        Ok((v, c))
    }
}
