//! The completeness audit: a check, from outside the solver, that an exploration claiming to be
//! complete really found every path. Seeded random inputs are drawn within the input space
//! (every input kind the scope declares, lists up to the length bound, dates in the explored
//! range; runs whose assertions fail are outside the space and dropped), each is run on the
//! interpreter, and the run's *trace* — every branch decision the interpreter reports (each
//! condition, justification, exception count, match case, division check, list condition,
//! date operation accepted or refused, and each list element read), then the outcome's kind
//! and positions — is compared with the traces of the exploration's tests. A sound exploration
//! gives every input the trace of the test of its path: the decisions on a path are fixed by
//! its path condition, and the interpreter is deterministic. So a random trace that no test has
//! is a path the exploration missed. The trace is taken from the program as the exploration
//! runs it (its optimisations' transformations), and is independent of the symbolic
//! machinery: an input the exploration kept fixed shows up as traces it never produced.
//!
//! One optimisation leaves paths out on purpose: with early conflicts (Fig. 10 of the CUTECat
//! paper), once an exception of a default term fails, the other decisions of the exceptions
//! before it are not explored again, since every one of them ends in that same error. A random
//! run off the explored paths that ends in an error some test has (same kind, same positions)
//! is then counted apart, as merged by that rule, not as missing.

use crate::explore::ExploreOptions;
use crate::worker::transform;
use crate::ConcolicError;
use catala_eval::eval::{BranchEvent, Companion, Composite, Interpreter, Projection};
use catala_eval::runtime::{Date, Decimal, Duration, Integer, Value};
use catala_ir::dcalc::{BinaryOp, InputKind, Program, ScopeId, Ty, UnaryOp};
use catala_syntax::Span;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hasher};
use std::rc::Rc;

/// Settings of an audit.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// Random inputs drawn.
    pub runs: usize,
    /// Seed of the generator: the same seed draws the same inputs.
    pub seed: u64,
    /// The longest list drawn (the exploration's bound).
    pub max_list_length: usize,
    /// How many missing inputs to keep as examples.
    pub examples: usize,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            runs: 2_000,
            seed: 1,
            max_list_length: 3,
            examples: 3,
        }
    }
}

/// What an audit found.
#[derive(Clone, Debug, Default)]
pub struct AuditReport {
    /// Distinct traces among the exploration's tests.
    pub explored_traces: usize,
    /// Random inputs drawn.
    pub runs: usize,
    /// Of these, the runs within the input space (no assertion failed).
    pub in_space: usize,
    /// Distinct traces of the runs within the space.
    pub random_traces: usize,
    /// Runs within the space whose trace no test of the exploration has.
    pub missing_runs: usize,
    /// Distinct traces among those runs: the paths the exploration missed (at least).
    pub missing_traces: usize,
    /// Distinct traces off the explored paths whose run ends in an error some test has, with
    /// early conflicts on: paths that rule leaves out on purpose (not counted as missing).
    pub merged_traces: usize,
    /// The inputs of some missing runs (aligned with the scope's inputs; `None`: a context
    /// variable left to its definition).
    pub examples: Vec<Vec<Option<Value>>>,
    /// The inputs no value can be drawn for (functions), by name: the scope is then not
    /// audited (no run is made).
    pub undrawable: Vec<String>,
}

/// The companion of the audit: no value of its own, every branch decision hashed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Traced;

/// The trace of one run, as a 128-bit hash (two independent hashes of the same events).
pub(crate) struct TraceSession {
    a: DefaultHasher,
    b: DefaultHasher,
    lazy: bool,
    buffer: String,
    /// An input assertion failed (checked first, as the exploration checks them): the run is
    /// outside the input space the exploration keeps to.
    outside: bool,
}

impl TraceSession {
    fn new(lazy: bool) -> TraceSession {
        let a = DefaultHasher::new();
        let mut b = DefaultHasher::new();
        b.write_u64(0x9e37_79b9_7f4a_7c15);
        TraceSession {
            a,
            b,
            lazy,
            buffer: String::new(),
            outside: false,
        }
    }

    fn reset(&mut self) {
        *self = TraceSession::new(self.lazy);
    }

    fn event(&mut self, text: std::fmt::Arguments<'_>) {
        self.buffer.clear();
        let _ = self.buffer.write_fmt(text);
        self.a.write(self.buffer.as_bytes());
        self.a.write_u8(0xff);
        self.b.write(self.buffer.as_bytes());
        self.b.write_u8(0xff);
    }

    fn finish(&self) -> u128 {
        (u128::from(self.a.finish()) << 64) | u128::from(self.b.finish())
    }
}

impl Companion for Traced {
    type Session = TraceSession;

    fn constant(_: &mut TraceSession, _: &Value) -> Traced {
        Traced
    }

    fn unary(_: &mut TraceSession, _: UnaryOp, _: (&Value, &Traced), _: &Value) -> Traced {
        Traced
    }

    fn binary(
        _: &mut TraceSession,
        _: BinaryOp,
        _: (&Value, &Traced),
        _: (&Value, &Traced),
        _: &Value,
    ) -> Traced {
        Traced
    }

    fn compose(_: &mut TraceSession, _: Composite, _: Vec<Traced>, _: &Value) -> Traced {
        Traced
    }

    fn project(
        session: &mut TraceSession,
        kind: Projection,
        _: (&Value, &Traced),
        _: &Value,
    ) -> Traced {
        // The elements read tell how long the lists iterated over were.
        if let Projection::ListElement(i) = kind {
            session.event(format_args!("element {i}"));
        }
        Traced
    }

    fn branch(session: &mut TraceSession, event: BranchEvent<'_, Traced>) {
        if let BranchEvent::InputAssertion { holds: false, .. } = event {
            session.outside = true;
        }
        session.event(format_args!("{event:?}"));
    }

    fn checked_operation(
        session: &mut TraceSession,
        op: BinaryOp,
        span: Span,
        _: (&Value, &Traced),
        _: (&Value, &Traced),
        succeeded: bool,
    ) {
        session.event(format_args!("{op:?} at {span:?}: {succeeded}"));
    }

    fn lazy_exceptions(session: &TraceSession) -> bool {
        session.lazy
    }
}

/// Runs a scope and gives the trace of each run, `None` for a run outside the input space (an
/// assertion failed, or, with the `input-space` optimization, an assertion on the inputs of a
/// scope failed when it was entered, whatever error came before Catala checks it).
pub(crate) struct Tracer<'p> {
    interp: Interpreter<'p, Traced>,
    scope: ScopeId,
}

impl<'p> Tracer<'p> {
    /// A tracer of `scope` of `program` as the exploration runs it (see
    /// `crate::worker::transform`).
    pub fn new(
        program: &'p Program,
        scope: ScopeId,
        optimizations: &crate::Optimizations,
    ) -> Result<Tracer<'p>, ConcolicError> {
        let session = TraceSession::new(optimizations.lazy_defaults);
        let mut interp = Interpreter::<Traced>::new(program, session)
            .map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
        // The input space the exploration keeps to: its input assertions checked first.
        interp.check_input_assertions_first(optimizations.input_space);
        Ok(Tracer { interp, scope })
    }

    /// The trace of a run on `inputs`, with the signature of its error (kind and positions)
    /// when it ends in one; `None` outside the input space.
    pub fn trace(&mut self, inputs: &[Option<Value>]) -> Option<(u128, Option<String>)> {
        self.interp.session.reset();
        let args = inputs
            .iter()
            .map(|v| v.clone().map(|v| (v, Traced)))
            .collect();
        let result = self.interp.run(self.scope, args);
        let failed_assertion = match &result {
            Ok((_, failures)) => !failures.is_empty(),
            Err(_) => !self.interp.take_failures().is_empty(),
        };
        if failed_assertion || self.interp.session.outside {
            return None;
        }
        let error = match &result {
            Ok(_) => None,
            Err(e) => {
                let spans: Vec<Span> = e.labels.iter().map(|l| l.span).collect();
                Some(format!("{} {spans:?}", e.kind.as_str()))
            }
        };
        match &error {
            None => self.interp.session.event(format_args!("outcome ok")),
            Some(sig) => self.interp.session.event(format_args!("outcome {sig}")),
        }
        Some((self.interp.session.finish(), error))
    }
}

/// Audits an exploration of `scope` made with `options`, whose tests had the inputs
/// `explored`: draws `audit.runs` random inputs and counts those whose path is not among the
/// explored ones.
pub fn audit(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    explored: &[Vec<Option<Value>>],
    audit: &AuditOptions,
) -> Result<AuditReport, ConcolicError> {
    let transformed = transform(program, options);
    let mut tracer = Tracer::new(&transformed, scope, &options.optimizations)?;
    let mut known: HashSet<u128> = HashSet::new();
    let mut known_errors: HashSet<String> = HashSet::new();
    for inputs in explored {
        if let Some((trace, error)) = tracer.trace(inputs) {
            known.insert(trace);
            known_errors.extend(error);
        }
    }
    let decl = program.scope(scope);
    let mut report = AuditReport {
        explored_traces: known.len(),
        runs: audit.runs,
        ..AuditReport::default()
    };
    report.undrawable = decl
        .inputs
        .iter()
        .filter(|i| i.kind != InputKind::Internal && !drawable(program, &i.ty, 0))
        .map(|i| i.name.clone())
        .collect();
    if !report.undrawable.is_empty() {
        report.runs = 0;
        return Ok(report);
    }
    let early = options.optimizations.early_conflicts;
    let mut merged = HashSet::new();
    let mut seen = HashSet::new();
    let mut missing = HashSet::new();
    let mut gen = Generator {
        program,
        rng: SplitMix(audit.seed),
        max_list_length: audit.max_list_length,
    };
    for _ in 0..audit.runs {
        let inputs: Vec<Option<Value>> = decl
            .inputs
            .iter()
            .map(|input| match input.kind {
                InputKind::Input => Some(gen.value(&input.ty, 0)),
                InputKind::Context => gen.rng.chance(2).then(|| gen.value(&input.ty, 0)),
                InputKind::Internal => None,
            })
            .collect();
        let Some((trace, error)) = tracer.trace(&inputs) else {
            continue;
        };
        report.in_space += 1;
        seen.insert(trace);
        if known.contains(&trace) {
            continue;
        }
        if early && error.is_some_and(|e| known_errors.contains(&e)) {
            merged.insert(trace);
        } else {
            report.missing_runs += 1;
            if missing.insert(trace) && report.examples.len() < audit.examples {
                report.examples.push(inputs);
            }
        }
    }
    report.random_traces = seen.len();
    report.missing_traces = missing.len();
    report.merged_traces = merged.len();
    Ok(report)
}

/// Whether values of `ty` can be drawn (functions cannot).
fn drawable(program: &Program, ty: &Ty, depth: u32) -> bool {
    if depth > 16 {
        return true;
    }
    match ty {
        Ty::Bool | Ty::Integer | Ty::Money | Ty::Decimal | Ty::Date | Ty::Duration => true,
        Ty::Struct(id) => program
            .structure(*id)
            .fields
            .iter()
            .all(|f| drawable(program, &f.ty, depth + 1)),
        Ty::Enum(id) => program.enumeration(*id).cases.iter().all(|c| {
            c.payload
                .as_ref()
                .is_none_or(|t| drawable(program, t, depth + 1))
        }),
        Ty::Tuple(items) => items.iter().all(|t| drawable(program, t, depth + 1)),
        Ty::List(t) | Ty::Option(t) => drawable(program, t, depth + 1),
        Ty::Arrow(..) | Ty::Var(_) | Ty::Unknown => false,
    }
}

/// SplitMix64: a small, seeded, reproducible generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.next() % span) as i64
    }

    /// True once in `n` times.
    fn chance(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Draws values of Catala types. Numbers mix small values (where thresholds of law programs
/// often sit), round amounts and wide ones; dates fall between 1900 and 2199, the range the
/// exploration's date variables take.
struct Generator<'p> {
    program: &'p Program,
    rng: SplitMix,
    max_list_length: usize,
}

impl Generator<'_> {
    fn integer(&mut self) -> i64 {
        match self.rng.range(0, 9) {
            0..=4 => self.rng.range(-2, 12),
            5..=6 => self.rng.range(0, 100),
            7 => self.rng.range(-1_000, 1_000),
            8 => self.rng.range(0, 100_000),
            _ => self.rng.range(-10_000_000, 1_000_000_000),
        }
    }

    fn cents(&mut self) -> i64 {
        let units = match self.rng.range(0, 9) {
            0..=1 => self.rng.range(0, 100),
            2..=5 => self.rng.range(0, 5_000),
            6..=7 => self.rng.range(0, 100_000),
            8 => self.rng.range(-1_000, 1_000),
            _ => self.rng.range(0, 10_000_000),
        };
        match self.rng.range(0, 3) {
            0 => units * 100 + self.rng.range(0, 99),
            1 => units / 100 * 10_000,
            _ => units * 100,
        }
    }

    fn decimal(&mut self) -> Decimal {
        let den = self.rng.pick(&[1, 2, 3, 4, 10, 100, 1_000]);
        let num = match self.rng.range(0, 3) {
            0 => self.rng.range(0, 2 * den),
            1 => self.rng.range(-den, 10 * den),
            _ => self.rng.range(0, 100_000 * den),
        };
        Decimal::from_i128_ratio(i128::from(num), i128::from(den))
    }

    fn date(&mut self) -> Value {
        let year = match self.rng.range(0, 9) {
            0 => self.rng.range(1900, 2199),
            1..=3 => self.rng.range(1950, 2010),
            _ => self.rng.range(2010, 2035),
        };
        let month = self.rng.range(1, 12);
        let day = if self.rng.chance(6) {
            self.rng.pick(&[1, 28, 29, 30, 31])
        } else {
            self.rng.range(1, 28)
        };
        let date = Date::new(year, month, day).or_else(|| Date::new(year, month, 28));
        date.map_or(Value::Unit, Value::Date)
    }

    fn duration(&mut self) -> Duration {
        let small = |g: &mut Self, hi: i64| {
            if g.rng.chance(8) {
                g.rng.range(-2, hi)
            } else {
                g.rng.range(0, hi)
            }
        };
        match self.rng.range(0, 5) {
            0 => Duration::new(0, 0, small(self, 800)),
            1 => Duration::new(0, small(self, 30), 0),
            2 => Duration::new(small(self, 30), 0, 0),
            3 => Duration::new(small(self, 10), small(self, 11), 0),
            4 => Duration::new(0, 0, 0),
            _ => Duration::new(small(self, 5), small(self, 14), small(self, 40)),
        }
    }

    fn value(&mut self, ty: &Ty, depth: u32) -> Value {
        match ty {
            Ty::Bool => Value::Bool(self.rng.chance(2)),
            Ty::Integer => Value::Integer(Integer::from(self.integer())),
            Ty::Money => Value::money_cents(self.cents()),
            Ty::Decimal => Value::Decimal(self.decimal()),
            Ty::Date => self.date(),
            Ty::Duration => Value::Duration(self.duration()),
            Ty::Struct(id) => {
                let program = self.program;
                let fields = program
                    .structure(*id)
                    .fields
                    .iter()
                    .map(|f| self.value(&f.ty, depth + 1))
                    .collect();
                Value::new_struct(id.0, fields)
            }
            Ty::Enum(id) => {
                let program = self.program;
                let def = program.enumeration(*id);
                if def.cases.is_empty() {
                    return Value::Unit;
                }
                let case = self.rng.range(0, def.cases.len() as i64 - 1) as usize;
                let payload = match &def.cases[case].payload {
                    Some(t) => self.value(t, depth + 1),
                    None => Value::Unit,
                };
                Value::new_enum(id.0, case as u32, payload)
            }
            Ty::Tuple(items) => Value::Tuple(
                items
                    .iter()
                    .map(|t| self.value(t, depth + 1))
                    .collect::<Vec<_>>()
                    .into(),
            ),
            Ty::List(elem) => {
                let n = if depth > 8 {
                    0
                } else {
                    self.rng.range(0, self.max_list_length as i64) as usize
                };
                let items: Vec<Value> = (0..n).map(|_| self.value(elem, depth + 1)).collect();
                Value::List(Rc::from(items))
            }
            Ty::Option(inner) => match self.program.option_enum {
                // `Absent` (case 0) one time in three, else `Present` with a content.
                Some(id) if self.rng.chance(3) => Value::new_enum(id.0, 0, Value::Unit),
                Some(id) => Value::new_enum(id.0, 1, self.value(inner, depth + 1)),
                None => Value::Unit,
            },
            _ => Value::Unit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_reproducible_and_within_its_ranges() {
        let mut a = SplitMix(7);
        let mut b = SplitMix(7);
        for _ in 0..1_000 {
            let (x, y) = (a.range(-3, 5), b.range(-3, 5));
            assert_eq!(x, y);
            assert!((-3..=5).contains(&x));
        }
        let mut c = SplitMix(8);
        assert!((0..100).any(|_| c.next() != a.next()));
    }
}
