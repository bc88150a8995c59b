//! Concolic exploration of one scope (Section 3 of the paper), joining KLEE's three parts: the
//! [`crate::executor`] runs the scope on concrete inputs with the symbolic companion, which
//! yields the path condition; the [`crate::searcher`] picks the constraint to negate next
//! (depth-first: the last one not yet negated); the solver chain (`smt::catala::session`)
//! gives inputs satisfying the prefix and the negation, and the next run starts from them. The
//! exploration ends when every constraint of the current path has been negated (all feasible
//! paths covered), or at a limit (time, tests, Ctrl-C: a solver check in flight is then
//! interrupted), which the result names in `incomplete` with what it leaves unexplored. The runs
//! evaluate the definitions in Catala's order (the paper's with [`EvaluationOrder::Paper`]).
//! Every path found becomes a [`TestCase`] whose outcome is the plain interpreter's on its
//! inputs, in Catala's order, as `lexprobe run` gives it ([`crate::replay`]); with `check`,
//! the outcome of each path as explored must be that one.
//! Searchers that negate a shallower constraint first (new branches first, coverage-guided)
//! set the open constraints below it aside as subtrees (solved for now, explored later): the
//! same paths, in another order.

use crate::checkpoint::Checkpoint;
use crate::observers::{Checkpoints, Observers};
pub use crate::options::{EvaluationOrder, ExploreOptions, Optimizations, Strategy};
pub use crate::results::{Control, Exploration, ExploreStats, Outcome, StopReason, TestCase};
use crate::searcher::Searcher;
use crate::work_pool::{Solo, Task};
use crate::worker::{transform, Worker};
use crate::ConcolicError;
use catala_ir::dcalc::{Program, ScopeId};
use std::time::Instant;

/// Explores every path of `scope`.
pub fn explore(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
) -> Result<Exploration, ConcolicError> {
    explore_with(program, scope, options, &mut |_, _| Control::Continue)
}

/// Explores every path of `scope`, handing each test to `on_test` (with its index) as soon as
/// it is found; `on_test` may stop the exploration.
pub(crate) fn explore_with(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
) -> Result<Exploration, ConcolicError> {
    explore_checkpointed(program, scope, options, on_test, &mut |_| {})
}

/// [`explore_with`], continuing from `options.resume` when given, and handing a
/// [`Checkpoint`] to `on_checkpoint` every `options.checkpoint_every` and when a limit stops
/// the exploration. The figures of a resumed exploration include those of the checkpoint.
pub fn explore_checkpointed(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    on_checkpoint: &mut dyn FnMut(&Checkpoint),
) -> Result<Exploration, ConcolicError> {
    explore_searching(program, scope, options, None, on_test, on_checkpoint)
}

/// [`explore_checkpointed`] with `searcher` in place of the one `options` name, when given
/// (the mutants' search directed at their mutated term).
pub(crate) fn explore_searching(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    searcher: Option<Box<dyn Searcher>>,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    on_checkpoint: &mut dyn FnMut(&Checkpoint),
) -> Result<Exploration, ConcolicError> {
    let start = Instant::now();
    let transformed = transform(program, options);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    if let Some(searcher) = searcher {
        worker.searcher = searcher;
    }
    let mut checkpoints = Checkpoints::new(options.checkpoint_every, on_checkpoint);
    let mut stats = ExploreStats::default();
    let (pool, first) = match &options.resume {
        Some(c) => {
            worker.take_up(c, true, &mut checkpoints, &mut stats)?;
            let pool = Solo::with_saved(&c.pending);
            pool.tests.set(c.tests);
            let first = Task {
                assignment: c.assignment.clone(),
                floor: 0,
                done: Some(c.done.clone()),
            };
            (pool, first)
        }
        None => (Solo::default(), Task::new(worker.initial_assignment()?, 0)),
    };
    let mut obs = Observers {
        tests: on_test,
        checkpoints: &mut checkpoints,
        stats: &mut stats,
    };
    worker.run(Some(first), &pool, &mut obs)?;
    let mut e = worker.finish(stats, pool.stopped.get(), &checkpoints);
    conclude(&mut e);
    Ok(e)
}

/// Adds to `incomplete` what keeps the exploration from being complete (see
/// [`ExploreStats::gaps`]); `complete` holds only when `incomplete` is empty.
pub(crate) fn conclude(e: &mut Exploration) {
    e.incomplete.extend(e.stats.gaps());
    e.stats.complete &= e.incomplete.is_empty();
}
