//! The falsifier: loads a benchmark method, builds its harness, and searches the symbolic
//! states of the chosen semantics depth first (a [`Searcher`]: successors are explored in the
//! order the semantics ranks them, so DistToDead-preferred prefixes come first) until a violation
//! is found, the states run out, or the time limit passes.

use crate::core::{harness, Harness, RESULT_VAR};
use crate::derivative::DerivativeSemantics;
use crate::exec::{
    feasible, finished, step, Control, EffectSemantics, ExecError, NameSupply, State, Step, Value,
    Violation,
};
use crate::front::{load_method, FrontError, Library};
use crate::naive::{NaiveEffects, NaiveSemantics};
use smt::{Solver, SolverStats, Term};
use sre::{Deriver, Sre};
use std::collections::{BinaryHeap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Which semantics runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Derivative,
    Naive,
}

/// Bounds and switches of a run.
#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    /// Function calls along one path.
    pub exec_bound: usize,
    /// Length of the traces sampled from an appended effect or required context.
    pub append_bound: usize,
    pub timeout: Duration,
    /// Cut-off of DistToDead.
    pub dead_cutoff: usize,
    /// Most refinements kept per `admit`/`append`.
    pub match_limit: usize,
    /// Per-query solver timeout.
    pub solver_timeout_ms: u32,
    /// Derivative search: the next events of an expression that have the same derivative are
    /// taken as one event, their union, when traces are sampled or matched (so one state
    /// stands for the states that differed only in which of them an event belonged to). An
    /// exact reduction: the same executions are explored, the verdicts do not change.
    pub merge_states: bool,
    /// Derivative search: when a step refines the trace in several ways with one continuation
    /// (an `admit` of a library call's required context; the sampled prestates with the same
    /// continuation), one state stands for them: its path condition says that the trace is one
    /// of the refinements ([`crate::derivative`]'s `Split`) instead of one state per
    /// refinement. An exact reduction: the state has exactly the concrete executions of the
    /// states it replaces, and a violation is looked for among the refinements themselves.
    pub disjunctive_states: bool,
    /// Derivative search: the feasibility check of a state that an `admit` or an `append`
    /// changed is deferred to its next branch or its end ([`crate::exec::State::unchecked`]):
    /// an infeasible state may take a few more steps, a feasible one is never dropped, and
    /// the paths and verdicts are the same. Most such checks find the state feasible and cost
    /// more than the steps they would save.
    pub deferred_checks: bool,
    /// Derivative search: how much the states stopped at a round's call bound may weigh, in all
    /// the frontiers kept at once, before a frontier is dropped and the next round of its
    /// prestate length starts afresh ([`FRONTIER_BUDGET`] by default, see [`frontier_size`]).
    /// Bounds the memory; the executions explored are the same whatever it is.
    pub frontier_budget: usize,
    /// Derivative search: an entry into a user function that an earlier entry of the same path
    /// covers (same function, pending frames and continuation, a trace longer only by calls of
    /// functions no specification can see, equal arguments) is not explored again, and one
    /// that it covers in part goes on with the arguments unequal ([`crate::subsume`]). An
    /// exact reduction: the earlier entry has every execution of the later one, with fewer
    /// calls.
    pub subsume_entries: bool,
    /// Called with one line per round (bound on calls and prestate length: states, paths,
    /// time, rejected witnesses); the library prints nothing itself.
    pub on_round: Option<fn(String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Derivative,
            exec_bound: 20,
            append_bound: 5,
            timeout: Duration::from_secs(60),
            dead_cutoff: 3,
            match_limit: 64,
            solver_timeout_ms: 5000,
            merge_states: true,
            disjunctive_states: true,
            deferred_checks: true,
            frontier_budget: FRONTIER_BUDGET,
            subsume_entries: true,
            on_round: None,
        }
    }
}

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
pub enum HatchError {
    #[error(transparent)]
    Input(#[from] FrontError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("{0}: cannot find the `predefined` folder of the benchmark suite")]
    NoPredefined(String),
    #[error("{0}: no such method file")]
    NotFound(String),
}

impl HatchError {
    /// The error as shown to the user: an error at a place of an input file in the box layout
    /// with its source line, any other as `error: …`.
    pub fn render(&self) -> String {
        match self {
            HatchError::Input(FrontError::At(e)) => e.render(),
            other => format!("error: {other}\n"),
        }
    }
}

/// A pair of search bounds: most function calls along a path and longest prestate (the trace
/// of library calls before the method runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub calls: usize,
    pub prestate_length: usize,
}

/// How far the bounded search got. The derivative-guided search runs rounds of growing bounds
/// (calls 1, 2, 4, … up to `exec_bound`; within each, prestates of length 0 to
/// `append_bound`); a round that ends has explored every execution within its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProgress {
    /// The bounds asked for (`--exec-bound`, `--append-bound`).
    pub limit: Bounds,
    /// Every round ended: no violation within `limit`.
    pub exhausted: bool,
    /// The last round that ended: every execution with at most `calls` calls and a prestate
    /// of at most `prestate_length` events was explored (and, for the derivative search, every
    /// one with fewer calls than the previous round's bound and any prestate up to the limit).
    pub completed: Option<Bounds>,
    /// The round that was running when the time ran out.
    pub interrupted: Option<Bounds>,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Report {
    pub falsified: bool,
    pub timed_out: bool,
    /// How far the search got (meaningful when nothing was falsified).
    pub progress: SearchProgress,
    pub elapsed: Duration,
    pub violation: Option<Violation>,
    pub states: usize,
    pub paths: usize,
    pub solver: SolverStats,
    /// Arity of each effectful function (for printing traces).
    pub arities: HashMap<String, usize>,
}

/// Explores states with the fewest function calls first, and depth first among those (the
/// most recently added state first), so shallow executions are tried before deep recursions;
/// or, built by [`Searcher::depth_first`], depth first whatever the calls (the most recently
/// added state first), as the rounds of growing call bounds of the derivative search do: the
/// bound of the round already tries shallow executions first, and a search by fewest calls
/// would hold every state of the next number of calls at once.
pub struct Searcher<T: Clone> {
    heap: BinaryHeap<Queued<T>>,
    seq: u64,
    depth_first: bool,
}

struct Queued<T: Clone> {
    calls: usize,
    seq: u64,
    state: State<T>,
}

impl<T: Clone> PartialEq for Queued<T> {
    fn eq(&self, other: &Self) -> bool {
        self.calls == other.calls && self.seq == other.seq
    }
}
impl<T: Clone> Eq for Queued<T> {}
impl<T: Clone> PartialOrd for Queued<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Clone> Ord for Queued<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.calls.cmp(&self.calls).then(self.seq.cmp(&other.seq))
    }
}

impl<T: Clone> Searcher<T> {
    pub fn new(initial: State<T>) -> Self {
        let mut s = Self::empty();
        s.push_all(vec![initial]);
        s
    }
    /// A searcher with no state, fewest calls first.
    pub fn empty() -> Self {
        Searcher {
            heap: BinaryHeap::new(),
            seq: 0,
            depth_first: false,
        }
    }
    /// A searcher with no state that explores depth first whatever the calls: the states it
    /// holds are the unexplored siblings of the path it is on.
    pub fn depth_first() -> Self {
        Searcher {
            depth_first: true,
            ..Self::empty()
        }
    }
    /// How many states wait.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    pub fn pop(&mut self) -> Option<State<T>> {
        self.heap.pop().map(|q| q.state)
    }
    /// Adds successors, the first one to be explored first.
    pub(crate) fn push_all(&mut self, states: Vec<State<T>>) {
        for state in states.into_iter().rev() {
            self.seq += 1;
            self.heap.push(Queued {
                calls: if self.depth_first { 0 } else { state.calls },
                seq: self.seq,
                state,
            });
        }
    }
}

/// What one run of the searcher gives.
pub(crate) struct RunOutcome<T: Clone> {
    pub violation: Option<Violation>,
    pub timed_out: bool,
    pub states: usize,
    pub paths: usize,
    /// The states stopped by the execution bound, in the order the search met them (`None`
    /// when their [`frontier_size`] passed the run's budget: a larger bound must then start
    /// afresh).
    pub frontier: Option<Vec<State<T>>>,
}

/// How much the states stopped by the execution bound may weigh, together, in all the frontiers
/// the rounds keep at once ([`frontier_size`]: one per state, one per trace event and one per
/// pending frame; a state of a long recursive run weighs about 100 and takes about 65 KB).
/// A frontier that would pass it is dropped and the next round of its prestate length starts
/// afresh from the harness: the same executions, explored again, instead of a memory that
/// grows with every state stopped.
pub const FRONTIER_BUDGET: usize = 300_000;

/// The weight of a state kept in a frontier: one, plus its trace events and its pending frames,
/// which is what its memory grows with.
pub(crate) fn frontier_size<S: EffectSemantics>(sem: &S, st: &State<S::Effects>) -> usize {
    1 + st.stack.len() + sem.trace_len(&st.effects)
}

/// How a run treats the states stopped by the execution bound.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Frontier {
    /// Dropped.
    Drop,
    /// Kept for a later round (which counts them), as long as their [`frontier_size`] stays
    /// within the budget; past it, none is kept.
    Keep { budget: usize },
}

/// Explores from `initial` (the first one first) until a violation, the end of the states or
/// the time limit, with `searcher`'s order; the states stopped by the execution bound are kept
/// or dropped as `frontier` says.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<S: EffectSemantics>(
    sem: &mut S,
    solver: &mut Solver,
    h: &Harness,
    mut searcher: Searcher<S::Effects>,
    initial: Vec<State<S::Effects>>,
    names: &mut NameSupply,
    opts: &Options,
    start: Instant,
    frontier: Frontier,
) -> Result<RunOutcome<S::Effects>, ExecError> {
    searcher.push_all(initial);
    let mut kept_size = 0usize;
    let mut out = RunOutcome {
        violation: None,
        timed_out: false,
        states: 0,
        paths: 0,
        frontier: Some(Vec::new()),
    };
    while let Some(st) = searcher.pop() {
        if start.elapsed() > opts.timeout {
            out.timed_out = true;
            return Ok(out);
        }
        out.states += 1;
        if let Some(v) = finished(&st) {
            // a path is counted, and looked at, only when it is feasible
            if st.unchecked && !feasible(sem, solver, &st)? {
                continue;
            }
            out.paths += 1;
            let result = match v {
                Value::Term(t) => h.result.subst(&|n: &str| {
                    if n == RESULT_VAR {
                        Some(t.clone())
                    } else {
                        None
                    }
                }),
                Value::Fun(..) => Term::tt(),
            };
            if let Some(viol) = sem.finish(solver, &st, &result)? {
                out.violation = Some(viol);
                return Ok(out);
            }
            continue;
        }
        match step(sem, solver, names, opts.exec_bound, st)? {
            Step::Continue(next) => searcher.push_all(next),
            Step::Falsified(v) => {
                out.violation = Some(v);
                return Ok(out);
            }
            Step::Bounded(st) => {
                let Frontier::Keep { budget } = frontier else {
                    continue;
                };
                // the state is counted again when a later round resumes it (one that starts
                // afresh explores it again)
                out.states -= 1;
                if let Some(f) = &mut out.frontier {
                    kept_size += frontier_size(sem, &st);
                    if kept_size <= budget {
                        f.push(st);
                    } else {
                        out.frontier = None;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The initial state of the harness with the given trace part.
pub(crate) fn initial_state<T: Clone>(h: &Harness, init: T) -> State<T> {
    State {
        phi: crate::path_condition::PathCondition::new(),
        effects: init,
        control: Control::Eval(Rc::new(h.program()), Rc::new(HashMap::new())),
        stack: Vec::new(),
        calls: 0,
        unchecked: false,
        entries: None,
    }
}

/// Runs the falsifier on a loaded method.
pub fn falsify(lib: &Library, h: &Harness, opts: &Options) -> Result<Report, HatchError> {
    let start = Instant::now();
    let mut solver = Solver::new(opts.solver_timeout_ms);
    for a in &lib.axioms {
        solver.add_axiom(a.clone());
    }
    let limit = Bounds {
        calls: opts.exec_bound,
        prestate_length: opts.append_bound,
    };
    let mut progress = SearchProgress {
        limit,
        exhausted: false,
        completed: None,
        interrupted: None,
    };
    let (violation, timed_out, states, paths) = match opts.mode {
        Mode::Derivative => {
            let mut deriver = Deriver::new();
            deriver.merge_successors = opts.merge_states;
            let mut sem = DerivativeSemantics {
                deriver,
                event_memo: sre::EventMemo::default(),
                post: h.post.clone(),
                post_after_pre: h.post_after_pre.clone(),
                append_bound: opts.append_bound,
                context_len: 0,
                dead_cutoff: opts.dead_cutoff,
                match_limit: opts.match_limit,
                replay: h.replay.clone(),
                rejected: 0,
                disjunctive_states: opts.disjunctive_states,
                deferred_checks: opts.deferred_checks,
                deadline: start + opts.timeout,
                neutral: None,
            };
            if opts.subsume_entries {
                let neutral = neutral_functions(lib, h, opts)?;
                if let Some(report) = opts.on_round {
                    let names: Vec<&str> = neutral.iter().map(|o| &**o).collect();
                    report(format!("neutral functions: {}", names.join(", ")));
                }
                sem.neutral = Some(neutral);
            }
            crate::rounds::derivative_rounds(&mut sem, &mut solver, h, opts, start, &mut progress)?
        }
        Mode::Naive => {
            let mut sem = NaiveSemantics {
                deriver: Deriver::new(),
                post: h.post.clone(),
                max_context_len: opts.append_bound,
                deadline: start + opts.timeout,
            };
            let init = NaiveEffects {
                curr: Sre::eps(),
                post: None,
                appended: 0,
            };
            let initial = vec![initial_state(h, init)];
            let mut names = NameSupply::default();
            let r = run(
                &mut sem,
                &mut solver,
                h,
                Searcher::empty(),
                initial,
                &mut names,
                opts,
                start,
                Frontier::Drop,
            )?;
            let timed_out = r.timed_out || start.elapsed() > opts.timeout;
            if timed_out {
                progress.interrupted = Some(limit);
            } else if r.violation.is_none() {
                progress.completed = Some(limit);
            }
            (r.violation, timed_out, r.states, r.paths)
        }
    };
    progress.exhausted = violation.is_none() && !timed_out;
    Ok(Report {
        falsified: violation.is_some(),
        timed_out: timed_out && violation.is_none(),
        progress,
        elapsed: start.elapsed(),
        violation,
        states,
        paths,
        solver: solver.stats(),
        arities: lib
            .ops
            .iter()
            .map(|(k, s)| (k.clone(), s.args.len()))
            .collect(),
    })
}

/// The library functions that neither the property nor the required context of any `admit`
/// of the harness can see ([`crate::subsume::neutral_functions`]), asked of a solver of their
/// own (the run's query counts are the exploration's).
fn neutral_functions(
    lib: &Library,
    h: &Harness,
    opts: &Options,
) -> Result<std::collections::BTreeSet<Rc<str>>, HatchError> {
    let mut solver = Solver::new(opts.solver_timeout_ms);
    for a in &lib.axioms {
        solver.add_axiom(a.clone());
    }
    let mut exprs = vec![h.post.clone()];
    exprs.extend(h.post_after_pre.clone());
    crate::subsume::admitted(&h.program(), &mut exprs);
    let mut ops: Vec<Rc<str>> = lib.ops.keys().map(|k| Rc::from(k.as_str())).collect();
    ops.sort();
    let mut deriver = Deriver::new();
    let mut oracle = sre::SmtOracle::new(&mut solver);
    Ok(crate::subsume::neutral_functions(
        &mut deriver,
        &mut oracle,
        &ops,
        &exprs,
    ))
}

/// Finds `predefined/` next to the benchmark folder's parent (`…/ri/<Bench>/m.ml`).
pub(crate) fn predefined_dir(method: &Path) -> Option<PathBuf> {
    let mut dir = method.parent();
    while let Some(d) = dir {
        let p = d.join("predefined");
        if p.is_dir() {
            return Some(p);
        }
        dir = d.parent();
    }
    None
}

/// Loads and falsifies `BENCH_DIR/METHOD.ml`.
pub fn falsify_file(method: &Path, opts: &Options) -> Result<Report, HatchError> {
    if !method.is_file() {
        return Err(HatchError::NotFound(method.display().to_string()));
    }
    let absolute = std::fs::canonicalize(method).unwrap_or_else(|_| method.to_path_buf());
    let method = absolute.as_path();
    let pre = predefined_dir(method)
        .ok_or_else(|| HatchError::NoPredefined(method.display().to_string()))?;
    let bench = method.parent().unwrap_or(Path::new("."));
    let lib = Library::load(&pre, bench)?;
    let m = load_method(method)?;
    let h = harness(&lib, &m)?;
    falsify(&lib, &h, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state that only says how many calls it made (and, as its result, which one it is).
    fn state(calls: usize, tag: i64) -> State<()> {
        State {
            phi: crate::path_condition::PathCondition::new(),
            effects: (),
            control: Control::Return(Value::Term(Term::Int(tag))),
            stack: Vec::new(),
            calls,
            unchecked: false,
            entries: None,
        }
    }

    fn order(mut s: Searcher<()>) -> Vec<i64> {
        let mut out = Vec::new();
        while let Some(st) = s.pop() {
            match st.control {
                Control::Return(Value::Term(Term::Int(i))) => out.push(i),
                other => panic!("not a tagged state: {other:?}"),
            }
        }
        out
    }

    #[test]
    fn depth_first_takes_the_newest_states_whatever_their_calls() {
        // a first batch (one state of no call, one of two), then the successors of a state
        // with one more call: 3 (three calls) and 4 (one call), ranked in that order
        let batches = [
            vec![state(0, 1), state(2, 2)],
            vec![state(3, 3), state(1, 4)],
        ];
        let mut by_calls = Searcher::empty();
        let mut deep = Searcher::depth_first();
        for b in &batches {
            by_calls.push_all(b.clone());
            deep.push_all(b.clone());
        }
        // fewest calls first, the newest first among equals
        assert_eq!(order(by_calls), vec![1, 4, 2, 3]);
        // the newest batch first, in its own order, then the older one
        assert_eq!(order(deep), vec![3, 4, 1, 2]);
    }
}
