//! Mutation testing (Section 5.2 of the paper): mutants of a program that inject a conflict or
//! a missing case into the default terms of scope variables — an exception removed, an
//! exception duplicated (two rules applying at once), a justification negated — and a check
//! that the concolic exploration of each mutant finds an input on which the mutant fails and
//! the original does not. Mutants can be confirmed first on known inputs (see
//! [`MutationOptions::witnesses`]); each report keeps the test that detected the mutant, or
//! why none did ([`Survival`]). [`crate::mutation_site`] says where a mutation acts,
//! [`crate::mutation_starts`] which witnesses go through it, and [`crate::mutation_directed`]
//! aims each exploration at it.

use crate::explore::{
    explore_with, Control, ExploreOptions, Outcome, StopReason, Strategy, TestCase,
};
use crate::mutation_directed::{explore_towards, MutationTarget};
use crate::mutation_goal::removed_exception_goal;
use crate::mutation_starts::FirstWitnesses;
use crate::ConcolicError;
use catala_eval::eval::{ErrorSignature, Interpreter, RuntimeError};
use catala_eval::runtime::json::value_to_json;
use catala_eval::Value;
use catala_ir::dcalc::{Expr, ExprKind, Program, ScopeId, Slot, Stmt, UnaryOp};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A kind of mutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MutationKind {
    RemoveException,
    DuplicateException,
    NegateJustification,
}

/// A mutation: which default term (the `site`-th of the scopes reachable from the explored
/// one, in program order) and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub kind: MutationKind,
    pub site: usize,
    /// The exception concerned (for removal and duplication).
    pub exception: usize,
}

/// What the exploration of one mutant found.
#[derive(Clone, Debug)]
pub struct MutantReport {
    pub mutation: Mutation,
    /// An input on which the mutant fails with an error (kind and positions) the original
    /// program does not give was found.
    pub detected: bool,
    /// Time from the first run on a starting witness (or from the start of the exploration)
    /// to the first such test.
    pub time_to_detection: Option<Duration>,
    pub tests: usize,
    pub exploration_time: Duration,
    /// The test that detected the mutant.
    pub kill: Option<Kill>,
    /// Why no test detected it (when not detected).
    pub survival: Option<Survival>,
    /// The witness the exploration started from (index in [`MutationOptions::witnesses`]):
    /// the first on which the original program evaluates the mutated default term (the
    /// first of the starting witnesses).
    pub start: Option<usize>,
    /// How many starting witnesses the mutant was run on before the exploration (see
    /// [`crate::mutation_starts`]): the tests numbered from 1 to this.
    pub starts: usize,
    /// The time spent looking for those witnesses (before the exploration).
    pub start_search: Duration,
}

impl MutantReport {
    /// The report of `mutation` from what its detection found, with the starting witnesses
    /// it was run on first (`start`, `starts`) and the time spent choosing them.
    fn of(
        mutation: Mutation,
        found: Detection,
        start: Option<usize>,
        starts: usize,
        start_search: Duration,
    ) -> MutantReport {
        MutantReport {
            mutation,
            detected: found.first.is_some(),
            time_to_detection: found.first,
            tests: found.tests,
            exploration_time: found.time,
            kill: found.kill,
            survival: found.survival,
            start,
            starts,
            start_search,
        }
    }
}

/// The test that detected a mutant.
#[derive(Clone, Debug)]
pub struct Kill {
    /// Its inputs (in the order of the scope's inputs; `None`: left to the default).
    pub inputs: Vec<Option<Value>>,
    /// The mutant's error on these inputs.
    pub error: RuntimeError,
    /// What the original program gives on them: `None` when it computes its outputs (or
    /// fails an assertion), or its own, different, error.
    pub original: Option<ErrorSignature>,
    /// The number of the test (1 for the first of the exploration).
    pub test: usize,
}

/// Why the exploration of a mutant ended without detecting it.
#[derive(Clone, Debug, PartialEq)]
pub enum Survival {
    /// A limit (time, tests, Ctrl-C) stopped it before every path was explored.
    Limit(StopReason),
    /// Every path was explored and none fails in a new way: the mutant is likely equivalent
    /// to the original (within the exploration's bounds).
    Exhausted,
    /// It ended without covering every path for these reasons (queries the solver gave up
    /// on, operations followed concretely, ...).
    Incomplete(Vec<String>),
}

/// The scopes a run of `root` may evaluate: itself and its sub-scopes, transitively.
fn reachable_scopes(program: &Program, root: ScopeId) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.0 as usize];
    while let Some(i) = todo.pop() {
        if !seen.insert(i) {
            continue;
        }
        let Some(scope) = program.scopes.get(i) else {
            continue;
        };
        for stmt in &scope.body {
            if let Stmt::CallSubScope { scope: callee, .. } = stmt {
                todo.push(callee.0 as usize);
            }
            // Scope calls inside expressions, read from the statement's structure.
            let text = format!("{stmt:?}");
            let pattern = "ScopeCall { scope: ScopeId(";
            let mut rest = text.as_str();
            while let Some(k) = rest.find(pattern) {
                rest = &rest[k + pattern.len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = digits.parse::<usize>() {
                    todo.push(n);
                }
            }
        }
    }
    seen
}

/// Calls `f` on every default term of the variable definitions of the scopes reachable from
/// `root`, with its site number.
pub(crate) fn for_each_default(
    program: &mut Program,
    root: ScopeId,
    f: &mut dyn FnMut(usize, &mut Expr),
) {
    let mut counter = 0;
    for_each_reachable_definition(program, root, &mut |_, expr| visit(expr, &mut counter, f));
}

/// Where a scope variable's definition is: the scope (its index in the program) and the slot
/// of the scope's frame holding the variable's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DefinedAt {
    pub(crate) scope: usize,
    pub(crate) slot: Slot,
}

/// Calls `f` on the expression of every scope variable definition of the scopes reachable
/// from `root`, in program order, with where it is.
fn for_each_reachable_definition(
    program: &mut Program,
    root: ScopeId,
    f: &mut dyn FnMut(DefinedAt, &mut Expr),
) {
    let reachable = reachable_scopes(program, root);
    for (i, scope) in program.scopes.iter_mut().enumerate() {
        if !reachable.contains(&i) {
            continue;
        }
        for stmt in &mut scope.body {
            if let Stmt::Define { expr, slot, .. } = stmt {
                let at = DefinedAt {
                    scope: i,
                    slot: *slot,
                };
                f(at, expr);
            }
        }
    }
}

/// Calls `f` on the definition of every scope variable of the scopes reachable from `root`
/// (the expression of each definition, in program order, with where it is), with the site
/// numbers of the default terms it holds (see [`for_each_default`]).
pub(crate) fn for_each_definition(
    program: &mut Program,
    root: ScopeId,
    f: &mut dyn FnMut(DefinedAt, std::ops::Range<usize>, &mut Expr),
) {
    let mut counter = 0;
    for_each_reachable_definition(program, root, &mut |at, expr| {
        let first = counter;
        visit(expr, &mut counter, &mut |_, _| {});
        f(at, first..counter, expr);
    });
}

/// Calls `f` on every default term of `e` with its site number, the first being `first`.
pub(crate) fn for_each_default_in(e: &mut Expr, first: usize, f: &mut dyn FnMut(usize, &mut Expr)) {
    let mut counter = first;
    visit(e, &mut counter, f);
}

fn visit(e: &mut Expr, counter: &mut usize, f: &mut dyn FnMut(usize, &mut Expr)) {
    match &mut e.kind {
        ExprKind::ErrorOnEmpty { expr, .. } => visit(expr, counter, f),
        ExprKind::Default { .. } => {
            let site = *counter;
            *counter += 1;
            f(site, e);
            if let ExprKind::Default {
                exceptions,
                consequence,
                ..
            } = &mut e.kind
            {
                for ex in exceptions {
                    visit(ex, counter, f);
                }
                visit(consequence, counter, f);
            }
        }
        _ => {}
    }
}

/// Every applicable mutation of the program, in program order.
pub fn candidate_mutations(program: &Program, root: ScopeId) -> Vec<Mutation> {
    let mut p = program.clone();
    let mut out = Vec::new();
    for_each_default(&mut p, root, &mut |site, e| {
        if let ExprKind::Default {
            exceptions,
            justification,
            ..
        } = &e.kind
        {
            for k in 0..exceptions.len() {
                let m = |kind| Mutation {
                    kind,
                    site,
                    exception: k,
                };
                out.push(m(MutationKind::RemoveException));
                out.push(m(MutationKind::DuplicateException));
            }
            let trivially_true = matches!(&justification.kind, ExprKind::Literal(l) if format!("{l:?}").contains("true"));
            if !trivially_true {
                out.push(Mutation {
                    kind: MutationKind::NegateJustification,
                    site,
                    exception: 0,
                });
            }
        }
    });
    out
}

/// The program with `m` applied.
pub fn apply(program: &Program, root: ScopeId, m: Mutation) -> Program {
    let mut p = program.clone();
    for_each_default(&mut p, root, &mut |site, e| {
        if site != m.site {
            return;
        }
        let span = e.span;
        if let ExprKind::Default {
            exceptions,
            justification,
            ..
        } = &mut e.kind
        {
            match m.kind {
                MutationKind::RemoveException if m.exception < exceptions.len() => {
                    exceptions.remove(m.exception);
                }
                MutationKind::DuplicateException if m.exception < exceptions.len() => {
                    let copy = exceptions[m.exception].clone();
                    exceptions.push(copy);
                }
                MutationKind::NegateJustification => {
                    let inner = std::mem::replace(
                        justification.as_mut(),
                        Expr::new(ExprKind::Impossible, span),
                    );
                    **justification = Expr::new(
                        ExprKind::Unary {
                            op: UnaryOp::Not,
                            arg: Box::new(inner),
                        },
                        span,
                    );
                }
                _ => {}
            }
        }
    });
    p
}

/// A small deterministic generator (64-bit LCG) for choosing mutants from a seed.
fn pick(n: usize, count: usize, seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut chosen = Vec::new();
    let mut seen = BTreeSet::new();
    while chosen.len() < count.min(n) {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let i = ((state >> 33) as usize) % n;
        if seen.insert(i) {
            chosen.push(i);
        }
    }
    chosen
}

/// A prepared plain interpreter answering "which error, if any, does this input give?".
struct Oracle<'p> {
    interp: Interpreter<'p, ()>,
    scope: ScopeId,
}

impl<'p> Oracle<'p> {
    fn new(program: &'p Program, scope: ScopeId) -> Result<Oracle<'p>, ConcolicError> {
        let interp =
            Interpreter::new(program, ()).map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
        Ok(Oracle { interp, scope })
    }

    /// The error signature of a run (`None` when it computes its outputs or fails an
    /// assertion).
    fn error_of(&mut self, inputs: &[Option<Value>]) -> Option<ErrorSignature> {
        catala_eval::eval::run_with(&mut self.interp, self.scope, inputs.to_vec())
            .err()
            .map(|e| e.signature())
    }
}

/// Settings of a mutation campaign.
#[derive(Clone, Debug)]
pub struct MutationOptions {
    pub seed: u64,
    pub count: usize,
    /// Settings of each mutant's exploration.
    pub explore: ExploreOptions,
    /// Inputs that confirm a mutant (typically every test of the original program's complete
    /// exploration): when given, only mutants for which one of these inputs gives an error
    /// the original program does not give are kept, as the paper keeps only mutants checked
    /// to introduce a reachable issue.
    pub witnesses: Option<Vec<Vec<Option<Value>>>>,
}

/// The result of a mutation campaign.
#[derive(Clone, Debug, Default)]
pub struct MutationRun {
    pub reports: Vec<MutantReport>,
    /// Mutants drawn, including those rejected as unconfirmed.
    pub drawn: usize,
    /// Mutants rejected because no witness showed an injected issue.
    pub unconfirmed: usize,
    /// Those mutants, in the order drawn.
    pub set_aside: Vec<Mutation>,
}

/// Draws mutants with `seed` (keeping only confirmed ones when witnesses are given) until
/// `count` are kept, explores each, and reports detection: a test of the mutant ending in an
/// error (conflict, no applicable rule, ...) that the original program, run on the same
/// inputs, does not give. Each exploration stops at its first detection, and is directed at
/// the mutated default term ([`crate::mutation_directed`]). With witnesses, the mutant is
/// first run on the witnesses that cover the ways through the mutated term
/// ([`crate::mutation_starts`]: chosen on the original alone, whatever the mutant does on
/// them), and the exploration starts from the first of them.
pub fn run_mutants(
    program: &Program,
    scope: ScopeId,
    options: &MutationOptions,
) -> Result<MutationRun, ConcolicError> {
    run_campaign(program, scope, options, &mut |mutation, mutant, hints| {
        let target = aim(Aim::TermAndCondition, mutant, scope, mutation);
        detect(
            program,
            mutant,
            scope,
            &options.explore,
            hints,
            target,
            None,
        )
    })
}

/// Explores the mutant of `m` alone, from the options' hints (no witnesses), until its first
/// detection or the end of its paths: directed at the mutated term and a removed exception's
/// condition as campaigns do, or (`directed` false) in the plain order of `explore.strategy`.
pub fn detect_mutant(
    program: &Program,
    scope: ScopeId,
    m: Mutation,
    explore: &ExploreOptions,
    directed: bool,
) -> Result<MutantReport, ConcolicError> {
    let how = if directed {
        Aim::TermAndCondition
    } else {
        Aim::Nowhere
    };
    detect_mutant_aimed(program, scope, m, explore, how)
}

/// [`detect_mutant`], directed as `how` says.
pub fn detect_mutant_aimed(
    program: &Program,
    scope: ScopeId,
    m: Mutation,
    explore: &ExploreOptions,
    how: Aim,
) -> Result<MutantReport, ConcolicError> {
    let mutant = apply(program, scope, m);
    let target = aim(how, &mutant, scope, m);
    let found = detect(program, &mutant, scope, explore, None, target, None)?;
    Ok(MutantReport::of(m, found, None, 0, Duration::ZERO))
}

/// Builds a fresh copy of the program in a worker thread (programs are not shared between
/// threads).
pub(crate) type ProgramSetup<'a> = &'a (dyn Fn() -> Result<Program, String> + Sync);

/// One mutant to explore, with the first inputs of its exploration.
type Job = (Mutation, Option<Json>);

/// [`run_mutants`], exploring each mutant twice side by side: depth-first directed at the
/// mutated term, and new branches first ([`Strategy`]) undirected, in two worker threads that live for the whole campaign (each with
/// its copy of the program from `setup`, and its Z3 context). The first detection stops both;
/// its time is the mutant's. The two orders reach different mutants quickly, so on two cores
/// this finds most issues sooner than either order alone.
pub fn run_mutants_both_orders(
    program: &Program,
    scope: ScopeId,
    options: &MutationOptions,
    setup: ProgramSetup<'_>,
) -> Result<MutationRun, ConcolicError> {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (results_tx, results) = mpsc::channel::<Result<Sent, String>>();
        let mut workers = Vec::new();
        for (strategy, directed) in [
            (Strategy::DepthFirst, true),
            (Strategy::NewBranchesFirst, false),
        ] {
            let (tx, jobs) = mpsc::channel::<Job>();
            workers.push(tx);
            let results_tx = results_tx.clone();
            let explore = ExploreOptions {
                strategy,
                ..options.explore.clone()
            };
            let stop = &stop;
            s.spawn(move || {
                let program = setup();
                for (mutation, hints) in jobs {
                    let r = match &program {
                        Ok(p) => {
                            let mutant = apply(p, scope, mutation);
                            let how = if directed {
                                Aim::TermAndCondition
                            } else {
                                Aim::Nowhere
                            };
                            let target = aim(how, &mutant, scope, mutation);
                            detect(p, &mutant, scope, &explore, hints, target, Some(stop))
                                .map(|d| Sent::from(p, scope, d))
                                .map_err(|e| e.to_string())
                        }
                        Err(e) => Err(e.clone()),
                    };
                    if results_tx.send(r).is_err() {
                        break;
                    }
                }
            });
        }
        drop(results_tx);
        let run = run_campaign(program, scope, options, &mut |mutation, _, hints| {
            stop.store(false, Ordering::Relaxed);
            for w in &workers {
                w.send((mutation, hints.clone()))
                    .map_err(|_| ConcolicError::Worker("a worker stopped".into()))?;
            }
            let mut found = Vec::new();
            for _ in &workers {
                let sent = results
                    .recv()
                    .map_err(|_| ConcolicError::Worker("a worker stopped".into()))?;
                found.push(sent.and_then(|d| d.into_detection(program, scope)));
            }
            earliest(found)
        });
        // Closing the job channels ends the workers.
        drop(workers);
        run
    })
}

/// Explores one mutant (the mutation, the mutated program, the first inputs).
type ExploreMutant<'a> =
    &'a mut dyn FnMut(Mutation, &Program, Option<Json>) -> Result<Detection, ConcolicError>;

fn run_campaign(
    program: &Program,
    scope: ScopeId,
    options: &MutationOptions,
    explore_mutant: ExploreMutant<'_>,
) -> Result<MutationRun, ConcolicError> {
    let candidates = candidate_mutations(program, scope);
    let mut run = MutationRun::default();
    let mut original = Oracle::new(program, scope)?;
    let baseline: Option<Vec<Option<ErrorSignature>>> = options
        .witnesses
        .as_ref()
        .map(|ws| ws.iter().map(|w| original.error_of(w)).collect());
    let first_witnesses = match &options.witnesses {
        Some(ws) => Some(FirstWitnesses::of(program, scope, ws)?),
        None => None,
    };
    for i in pick(candidates.len(), candidates.len(), options.seed) {
        if run.reports.len() >= options.count {
            break;
        }
        let mutation = candidates[i];
        let mutant = apply(program, scope, mutation);
        run.drawn += 1;
        if let (Some(ws), Some(base)) = (&options.witnesses, &baseline) {
            let mut oracle = Oracle::new(&mutant, scope)?;
            let confirmed = ws
                .iter()
                .zip(base)
                .any(|(w, b)| oracle.error_of(w).is_some_and(|e| Some(&e) != b.as_ref()));
            if !confirmed {
                run.unconfirmed += 1;
                run.set_aside.push(mutation);
                continue;
            }
        }
        let clock = Instant::now();
        let starts = match (
            &first_witnesses,
            MutationTarget::of(program, scope, mutation),
        ) {
            (Some(index), Some(target)) => index.starts(&target.site),
            _ => Vec::new(),
        };
        let start = starts.first().copied();
        let start_search = clock.elapsed();
        let clock = Instant::now();
        let probed = match (&options.witnesses, &baseline) {
            (Some(ws), Some(base)) => probe(&mutant, scope, ws, base, &starts)?,
            _ => None,
        };
        let found = match probed {
            Some(kill) => Detection {
                first: Some(clock.elapsed()),
                tests: kill.test,
                time: clock.elapsed(),
                kill: Some(kill),
                survival: None,
            },
            None => {
                // A removed exception is explored from the first witness whose run evaluates
                // its condition (read there for the exploration's goal, see
                // [`crate::mutation_goal`]), else from the first start.
                let from = match (&first_witnesses, mutation.kind) {
                    (Some(index), MutationKind::RemoveException) => index
                        .starts(&crate::mutation_goal::removed_justifications(
                            program, scope, mutation,
                        ))
                        .first()
                        .copied()
                        .or(start),
                    _ => start,
                };
                let hints = from
                    .and_then(|k| options.witnesses.as_ref()?.get(k))
                    .map(|w| hints_of(program, scope, w));
                let before = clock.elapsed();
                explore_mutant(mutation, &mutant, hints)?.after(starts.len(), before)
            }
        };
        run.reports.push(MutantReport::of(
            mutation,
            found,
            start,
            starts.len(),
            start_search,
        ));
    }
    Ok(run)
}

/// Runs `mutant` on the starting witnesses `starts` (indices in `witnesses`, whose errors on
/// the original are `base`), in order: the first that fails in a way the original does not
/// is the kill, its test number being its place among the starts.
fn probe(
    mutant: &Program,
    scope: ScopeId,
    witnesses: &[Vec<Option<Value>>],
    base: &[Option<ErrorSignature>],
    starts: &[usize],
) -> Result<Option<Kill>, ConcolicError> {
    let mut interp =
        Interpreter::new(mutant, ()).map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
    for (n, &k) in starts.iter().enumerate() {
        let (Some(w), Some(before)) = (witnesses.get(k), base.get(k)) else {
            continue;
        };
        if let Err(error) = catala_eval::eval::run_with(&mut interp, scope, w.clone()) {
            if before.as_ref() != Some(&error.signature()) {
                return Ok(Some(Kill {
                    inputs: w.clone(),
                    error,
                    original: before.clone(),
                    test: n + 1,
                }));
            }
        }
    }
    Ok(None)
}

/// Inputs as the hints of an exploration: a JSON object keyed by input name.
fn hints_of(program: &Program, scope: ScopeId, inputs: &[Option<Value>]) -> Json {
    let mut m = serde_json::Map::new();
    for (input, v) in program.scope(scope).inputs.iter().zip(inputs) {
        if let Some(v) = v {
            m.insert(input.name.clone(), value_to_json(program, v));
        }
    }
    Json::Object(m)
}

/// What one exploration of a mutant found.
struct Detection {
    first: Option<Duration>,
    tests: usize,
    time: Duration,
    kill: Option<Kill>,
    survival: Option<Survival>,
}

impl Detection {
    /// This exploration's figures counted after `tests` tests that took `time` (the runs on
    /// the starting witnesses).
    fn after(mut self, tests: usize, time: Duration) -> Detection {
        self.first = self.first.map(|t| t + time);
        self.tests += tests;
        self.time += time;
        if let Some(k) = &mut self.kill {
            k.test += tests;
        }
        self
    }
}

/// A [`Detection`] as a worker thread sends it: the killing test's inputs as JSON (values are
/// not shared between threads).
struct Sent {
    first: Option<Duration>,
    tests: usize,
    time: Duration,
    survival: Option<Survival>,
    kill: Option<(Json, RuntimeError, Option<ErrorSignature>, usize)>,
}

impl Sent {
    fn from(program: &Program, scope: ScopeId, d: Detection) -> Sent {
        Sent {
            first: d.first,
            tests: d.tests,
            time: d.time,
            survival: d.survival,
            kill: d.kill.map(|k| {
                (
                    hints_of(program, scope, &k.inputs),
                    k.error,
                    k.original,
                    k.test,
                )
            }),
        }
    }

    fn into_detection(self, program: &Program, scope: ScopeId) -> Result<Detection, String> {
        let kill = match self.kill {
            Some((inputs, error, original, test)) => Some(Kill {
                inputs: catala_eval::eval::inputs_from_json(program, scope, &inputs)
                    .map_err(|e| e.to_string())?,
                error,
                original,
                test,
            }),
            None => None,
        };
        Ok(Detection {
            first: self.first,
            tests: self.tests,
            time: self.time,
            kill,
            survival: self.survival,
        })
    }
}

/// How a mutant's exploration is directed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aim {
    /// Not directed: the order of the exploration's strategy.
    Nowhere,
    /// At the mutated term, its definition and its readers ([`crate::mutation_directed`]).
    Term,
    /// At the mutated term, with a removed exception's condition satisfied where the paths
    /// allow ([`crate::mutation_goal`]): the campaigns' direction.
    TermAndCondition,
}

/// Where an exploration aims, as the explorer needs it.
enum Aimed {
    Nowhere,
    Term(MutationTarget),
    WithCondition(MutationTarget, Mutation),
}

/// Where the exploration of the mutant of `m` aims.
fn aim(aim: Aim, mutant: &Program, scope: ScopeId, m: Mutation) -> Aimed {
    let target = match aim {
        Aim::Nowhere => None,
        Aim::Term | Aim::TermAndCondition => MutationTarget::of(mutant, scope, m),
    };
    match (target, aim) {
        (Some(t), Aim::TermAndCondition) => Aimed::WithCondition(t, m),
        (Some(t), _) => Aimed::Term(t),
        (None, _) => Aimed::Nowhere,
    }
}

/// Explores `mutant` (from `hints` when given, directed at `target` when given) until a test
/// shows an error the original does not give (reproduced by the plain interpreter on the
/// mutant), or until `stop` is raised by another exploration.
fn detect(
    program: &Program,
    mutant: &Program,
    scope: ScopeId,
    explore: &ExploreOptions,
    hints: Option<Json>,
    aim: Aimed,
    stop: Option<&AtomicBool>,
) -> Result<Detection, ConcolicError> {
    let clock = Instant::now();
    let mut original = Oracle::new(program, scope)?;
    let mut plain_mutant = Oracle::new(mutant, scope)?;
    let mut first = None;
    let mut kill = None;
    let mut explore = ExploreOptions {
        hints: hints.or_else(|| explore.hints.clone()),
        ..explore.clone()
    };
    // The removed exception's condition, read from a run of the original on the start; the
    // exploration starts from inputs satisfying it.
    let goal = match &aim {
        Aimed::WithCondition(_, m) => removed_exception_goal(program, scope, *m, &explore)?,
        _ => None,
    };
    if let Some(seed) = goal.as_ref().and_then(|g| g.seed.as_ref()) {
        explore.hints = Some(hints_of(program, scope, seed));
    }
    let setup = clock.elapsed();
    let mut on_test = |i: usize, t: &TestCase| {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Control::Stop;
        }
        if let Outcome::Error(err) = &t.outcome {
            let before = original.error_of(&t.inputs);
            if before != Some(err.signature()) && plain_mutant.error_of(&t.inputs).is_some() {
                first = Some(t.found_at);
                kill = Some(Kill {
                    inputs: t.inputs.clone(),
                    error: err.clone(),
                    original: before,
                    test: i + 1,
                });
                if let Some(s) = stop {
                    s.store(true, Ordering::Relaxed);
                }
                return Control::Stop;
            }
        }
        Control::Continue
    };
    let e = match aim {
        Aimed::Term(target) => {
            explore_towards(mutant, scope, &explore, target, None, &mut on_test)?
        }
        Aimed::WithCondition(target, _) => {
            let condition = goal.map(|g| g.condition);
            explore_towards(mutant, scope, &explore, target, condition, &mut on_test)?
        }
        Aimed::Nowhere => explore_with(mutant, scope, &explore, &mut on_test)?,
    };
    let survival = match (&kill, &e.stats.stopped_by) {
        (Some(_), _) => None,
        (None, Some(reason)) => Some(Survival::Limit(reason.clone())),
        (None, None) if e.stats.complete => Some(Survival::Exhausted),
        (None, None) => Some(Survival::Incomplete(e.incomplete.clone())),
    };
    Ok(Detection {
        first,
        tests: e.stats.tests,
        time: e.stats.time,
        kill,
        survival,
    }
    .after(0, setup))
}

/// The earliest detection among the explorations of one mutant (or, with none, the longest
/// exploration); an error only when every exploration failed.
fn earliest(found: Vec<Result<Detection, String>>) -> Result<Detection, ConcolicError> {
    let mut best: Option<Detection> = None;
    let mut errors = Vec::new();
    for r in found {
        match r {
            Ok(d) => {
                let better = match (&best, d.first) {
                    (None, _) => true,
                    (Some(b), Some(t)) => b.first.is_none_or(|bt| t < bt),
                    (Some(b), None) => b.first.is_none() && d.tests > b.tests,
                };
                if better {
                    best = Some(d);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    best.ok_or_else(|| ConcolicError::Worker(errors.join("; ")))
}
