//! One shard of a sharded exploration: the subtrees a [`crate::plan::Plan`] gave it, each
//! explored depth-first below its prefix, one after the other, by one worker. A subtree is
//! complete when its exploration ended without a limit, a query the solver gave up on, a run
//! leaving its prefix, a test outside the prefix, or a test whose path does not decide its
//! outcome. With checkpoints on, a checkpoint names
//! the subtree it is in (and the earlier ones that were not complete), so a shard killed at
//! any point resumes where its last checkpoint was; the tests found between that checkpoint
//! and the kill are found again, on the same paths (same [`PathId`]s), and a merge keeps one.

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::cpu_clock::thread_cpu_time;
use crate::explore::conclude;
use crate::inputs::Assignment;
use crate::observers::{Checkpoints, Observers};
use crate::parallel::{merge, run_threads, Summary};
use crate::path_id::PathId;
use crate::work_pool::{Solo, Task, WorkPool};
use crate::worker::{transform, Worker};
use crate::{ConcolicError, Control, Exploration, ExploreOptions, TestCase};
use catala_ir::dcalc::{Program, ScopeId};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a shard explored: the usual result and, for each of its subtrees, whether it is
/// complete and what exploring it cost in this process.
pub struct ShardExploration {
    pub exploration: Exploration,
    pub complete: Vec<bool>,
    pub costs: Vec<SubtreeCost>,
}

/// What one subtree cost a shard (zero for subtrees not reached, and for those done before
/// the checkpoint it resumed from).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubtreeCost {
    pub tests: usize,
    /// Path queries, Z3's and those answered without it.
    pub queries: u64,
    /// CPU time of the exploring thread.
    pub cpu_time: Duration,
    pub wall_time: Duration,
}

/// Explores the subtrees `(prefix, inputs)` in order, continuing from `options.resume` when
/// given (a checkpoint of this same shard), streaming tests to `on_test` and checkpoints to
/// `on_checkpoint` as [`crate::explore_checkpointed`] does.
pub fn explore_shard(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    subtrees: &[(PathId, Assignment)],
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    on_checkpoint: &mut dyn FnMut(&Checkpoint),
) -> Result<ShardExploration, ConcolicError> {
    let pool = Solo::default();
    let start = Instant::now();
    let transformed = transform(program, options);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    check_inputs(&worker, subtrees)?;
    let mut checkpoints = Checkpoints::new(options.checkpoint_every, on_checkpoint);
    let mut complete = vec![false; subtrees.len()];
    let mut costs = vec![SubtreeCost::default(); subtrees.len()];
    let mut begin = 0;
    let mut resumed_inputs: Option<Assignment> = None;
    if let Some(c) = &options.resume {
        if c.subtree > subtrees.len() {
            return Err(ConcolicError::Resume(format!(
                "the checkpoint is at subtree {} of a shard of {}",
                c.subtree,
                subtrees.len()
            )));
        }
        // A shard stopped after its last subtree has no inputs left to check.
        worker.take_up(c, c.subtree < subtrees.len(), &mut checkpoints)?;
        pool.tests.set(c.tests);
        checkpoints.lost_subtrees = c.lost_subtrees.clone();
        begin = c.subtree;
        resumed_inputs = Some(c.assignment.clone());
        for done in complete.iter_mut().take(begin) {
            *done = true;
        }
        for &lost in &c.lost_subtrees {
            if let Some(done) = complete.get_mut(lost) {
                *done = false;
            }
        }
    }
    for (k, (prefix, inputs)) in subtrees.iter().enumerate().skip(begin) {
        checkpoints.shard_subtree = Some(k);
        let task = match resumed_inputs.take() {
            Some(a) => Task {
                assignment: a,
                floor: prefix.len(),
                done: options.resume.as_ref().map(|c| c.done.clone()),
            },
            None => {
                // Between two subtrees: stop at a limit, or checkpoint when one is due, at the
                // start of this subtree.
                let limit = worker.limit_reached(pool.tests.get(), checkpoints.tests_before);
                let due = checkpoints.due();
                if (limit || due) && checkpoints.enabled() {
                    let c = worker.checkpoint(&checkpoints, &pool, inputs, &[]);
                    checkpoints.write(&c);
                }
                if limit {
                    pool.stop();
                    break;
                }
                Task::new(inputs.clone(), prefix.len())
            }
        };
        let mut obs = Observers {
            tests: on_test,
            checkpoints: &mut checkpoints,
        };
        let done = explore_one(&mut worker, &pool, &mut obs, prefix, task)?;
        costs[k] = done.cost;
        complete[k] = done.complete;
        if !complete[k] {
            checkpoints.lost_subtrees.push(k);
        }
        if !done.going {
            pool.stop();
            break;
        }
    }
    worker.stats.complete = !pool.is_stopped() && complete.iter().all(|c| *c);
    let stopped = pool.is_stopped();
    let mut exploration = worker.finish(stopped, &checkpoints);
    conclude(&mut exploration);
    Ok(ShardExploration {
        exploration,
        complete,
        costs,
    })
}

/// What exploring one subtree of a shard gave.
struct SubtreeDone {
    /// The exploration may go on (no limit, the caller did not stop it).
    going: bool,
    complete: bool,
    cost: SubtreeCost,
}

/// Explores the subtree below `prefix` from `task`, and the subtrees a searcher other than
/// depth-first sets aside on the way (they belong to it).
fn explore_one(
    worker: &mut Worker,
    pool: &dyn WorkPool,
    obs: &mut Observers,
    prefix: &PathId,
    task: Task,
) -> Result<SubtreeDone, ConcolicError> {
    let gaps = |w: &Worker| {
        (
            w.stats.unknown_queries,
            w.stats.divergences,
            w.stats.relabelled,
        )
    };
    let before = gaps(worker);
    let (tests0, queries0) = (worker.stats.tests, worker.session.stats().path_queries);
    let (cpu0, clock) = (thread_cpu_time(), Instant::now());
    let mut strays = 0usize;
    let outer = &mut *obs.tests;
    let mut within = |i: usize, t: &TestCase| {
        if !prefix.is_prefix_of(&t.path) {
            strays += 1;
        }
        outer(i, t)
    };
    let mut sub = Observers {
        tests: &mut within,
        checkpoints: obs.checkpoints,
    };
    let mut going = worker.explore_subtree(task, pool, &mut sub)?;
    while going {
        let Some(t) = pool.take(&|| worker.figures(sub.checkpoints)) else {
            break;
        };
        going = worker.explore_subtree(t, pool, &mut sub)?;
    }
    let cost = SubtreeCost {
        tests: worker.stats.tests.saturating_sub(tests0),
        queries: (worker.session.stats().path_queries).saturating_sub(queries0),
        cpu_time: thread_cpu_time().saturating_sub(cpu0),
        wall_time: clock.elapsed(),
    };
    Ok(SubtreeDone {
        going,
        complete: going && strays == 0 && gaps(worker) == before,
        cost,
    })
}

/// The pool of one thread of a shard explored by several: the subtrees its searcher sets
/// aside stay with it; the test count and the stop are the shard's.
struct ThreadPool<'s> {
    own: Solo,
    tests: &'s AtomicUsize,
    stopped: &'s AtomicBool,
}

impl WorkPool for ThreadPool<'_> {
    fn hungry(&self) -> bool {
        false
    }
    fn give(&self, task: Task) {
        self.own.give(task)
    }
    fn take(&self, figures: &dyn Fn() -> Checkpoint) -> Option<Task> {
        self.own.take(figures)
    }
    fn count_test(&self) -> usize {
        self.tests.fetch_add(1, Ordering::Relaxed) + 1
    }
    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }
    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
    fn waiting(&self) -> Vec<SavedSubtree> {
        self.own.waiting()
    }
}

/// [`explore_shard`] with `jobs` threads sharing the program: each thread takes the next
/// subtree of the shard and explores it alone, so every subtree's completeness and cost are
/// those of one thread, and the shard's tests are those of one thread (in another order).
/// Checkpoints need one thread (`options.resume` and `options.checkpoint_every` are refused
/// here).
pub fn explore_shard_parallel(
    jobs: usize,
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    subtrees: &[(PathId, Assignment)],
    on_test: &(dyn Fn(usize, &TestCase) -> Control + Sync),
) -> Result<ShardExploration, ConcolicError> {
    if options.resume.is_some() || options.checkpoint_every.is_some() {
        return Err(ConcolicError::Resume(
            "the checkpoints of a shard are written by one thread".into(),
        ));
    }
    let options = ExploreOptions {
        keep_tests: false,
        ..options.clone()
    };
    let next = AtomicUsize::new(0);
    let tests = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let done: Mutex<Vec<Option<SubtreeDone>>> =
        Mutex::new((0..subtrees.len()).map(|_| None).collect());
    let start = Instant::now();
    let transformed = transform(program, &options);
    let thread = |_: usize| -> Result<Summary, String> {
        let mut worker = Worker::new(program, &transformed, scope, &options, start)
            .map_err(|e| e.to_string())?;
        check_inputs(&worker, subtrees).map_err(|e| e.to_string())?;
        let pool = ThreadPool {
            own: Solo::default(),
            tests: &tests,
            stopped: &stopped,
        };
        let mut no_sink = |_: &Checkpoint| {};
        let mut checkpoints = Checkpoints::new(None, &mut no_sink);
        let mut report = |i: usize, t: &TestCase| on_test(i, t);
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some((prefix, inputs)) = subtrees.get(k) else {
                break;
            };
            if pool.is_stopped() || worker.limit_reached(tests.load(Ordering::Relaxed), 0) {
                pool.stop();
                break;
            }
            let mut obs = Observers {
                tests: &mut report,
                checkpoints: &mut checkpoints,
            };
            let task = Task::new(inputs.clone(), prefix.len());
            let one = explore_one(&mut worker, &pool, &mut obs, prefix, task)
                .map_err(|e| e.to_string())?;
            let going = one.going;
            done.lock().unwrap_or_else(|p| p.into_inner())[k] = Some(one);
            if !going {
                pool.stop();
                break;
            }
        }
        worker.stats.complete = true;
        Ok(Summary::of(worker.finish(pool.is_stopped(), &checkpoints)))
    };
    let summaries = run_threads(
        jobs.max(1),
        &|| stopped.store(true, Ordering::Relaxed),
        &thread,
    )?;
    let done = done.into_inner().unwrap_or_else(|p| p.into_inner());
    let complete: Vec<bool> = done
        .iter()
        .map(|d| d.as_ref().is_some_and(|d| d.complete))
        .collect();
    let costs = done
        .iter()
        .map(|d| d.as_ref().map_or(SubtreeCost::default(), |d| d.cost))
        .collect();
    let mut exploration = merge(summaries, None);
    exploration.stats.complete &= !stopped.load(Ordering::Relaxed) && complete.iter().all(|c| *c);
    exploration.stats.time = start.elapsed();
    conclude(&mut exploration);
    Ok(ShardExploration {
        exploration,
        complete,
        costs,
    })
}

/// The plan's inputs are for the same input shapes (the same list bounds) as this shard's.
fn check_inputs(worker: &Worker, subtrees: &[(PathId, Assignment)]) -> Result<(), ConcolicError> {
    let vars = worker.space.vars.len();
    match subtrees.iter().find(|(_, a)| a.len() != vars) {
        Some((p, a)) => Err(ConcolicError::Resume(format!(
            "the inputs of subtree {p} have {} variables, this scope's {vars}: was the plan made with another --max-list-length or other hints?",
            a.len()
        ))),
        None => Ok(()),
    }
}
