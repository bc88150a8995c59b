//! One shard of a sharded exploration: the subtrees a [`crate::plan::Plan`] gave it, each
//! explored depth-first below its prefix, one after the other, by one worker. A subtree is
//! complete when its exploration ended without a limit, a query the solver gave up on, a run
//! leaving its prefix, a test outside the prefix, or a test whose path does not decide its
//! outcome. With checkpoints on, a checkpoint names
//! the subtree it is in (and the earlier ones that were not complete), so a shard killed at
//! any point resumes where its last checkpoint was; the tests found between that checkpoint
//! and the kill are found again, on the same paths (same [`PathId`]s), and a merge keeps one.
//! With several threads (`crate::shard_threads`) several subtrees are under way at once: a
//! checkpoint then lists every subtree left (`Checkpoint::subtrees_listed`), each with its
//! position, and any number of threads resume it ([`shard_tasks`]).

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::cpu_clock::thread_cpu_time;
use crate::explore::conclude;
use crate::inputs::Assignment;
use crate::observers::{Checkpoints, Observers};
use crate::path_id::PathId;
pub use crate::shard_threads::explore_shard_parallel;
use crate::work_pool::{Solo, Task, WorkPool};
use crate::worker::{transform, Worker};
use crate::{ConcolicError, Control, Exploration, ExploreOptions, ExploreStats, TestCase};
use catala_ir::dcalc::{Program, ScopeId};
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
    let mut stats = ExploreStats::default();
    let ShardTasks {
        mut tasks,
        mut complete,
        lost,
    } = shard_tasks(options.resume.as_ref(), subtrees)?;
    let mut costs = vec![SubtreeCost::default(); subtrees.len()];
    let listed = options.resume.as_ref().is_some_and(|c| c.subtrees_listed);
    let mut resumed = false;
    if let Some(c) = &options.resume {
        // A shard stopped after its last subtree has no inputs left to check.
        worker.take_up(c, c.subtree < subtrees.len(), &mut checkpoints, &mut stats)?;
        pool.tests.set(c.tests);
        checkpoints.lost_subtrees = lost;
        resumed = c.subtree < subtrees.len();
    }
    while let Some((k, task)) = tasks.pop_front() {
        checkpoints.shard_subtree = Some(k);
        if listed {
            checkpoints.shard_rest = Some(tasks.iter().map(|(j, t)| labelled(*j, t)).collect());
        }
        if !std::mem::take(&mut resumed) {
            // Between two subtrees: stop at a limit, or checkpoint when one is due, at the
            // start of this subtree.
            let limit =
                worker.limit_reached(&mut stats, pool.tests.get(), checkpoints.tests_before);
            let due = checkpoints.due();
            if (limit || due) && checkpoints.enabled() {
                let mut c = worker.checkpoint(&stats, &checkpoints, &pool, &task.assignment, &[]);
                c.done = task.done.clone().unwrap_or_default();
                checkpoints.write(&c);
            }
            if limit {
                pool.stop();
                break;
            }
        }
        let mut obs = Observers {
            tests: on_test,
            checkpoints: &mut checkpoints,
            stats: &mut stats,
        };
        let done = explore_one(&mut worker, &pool, &mut obs, &subtrees[k].0, task)?;
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
    stats.complete = !pool.is_stopped() && complete.iter().all(|c| *c);
    let stopped = pool.is_stopped();
    let mut exploration = worker.finish(stats, stopped, &checkpoints);
    conclude(&mut exploration);
    Ok(ShardExploration {
        exploration,
        complete,
        costs,
    })
}

/// The subtrees a shard has to explore, each with its position in the shard's list, and
/// what is known of the others.
pub(crate) struct ShardTasks {
    /// In the order they are explored.
    pub(crate) tasks: std::collections::VecDeque<(usize, Task)>,
    /// For each subtree: explored entirely by the explorations resumed.
    pub(crate) complete: Vec<bool>,
    /// The subtrees done before that could not be explored entirely.
    pub(crate) lost: Vec<usize>,
}

/// The subtrees left to explore: all of them, or those of checkpoint `resume` (the one it
/// was in and the following ones, or those it lists).
pub(crate) fn shard_tasks(
    resume: Option<&Checkpoint>,
    subtrees: &[(PathId, Assignment)],
) -> Result<ShardTasks, ConcolicError> {
    let n = subtrees.len();
    let fresh = |k: usize| (k, Task::new(subtrees[k].1.clone(), subtrees[k].0.len()));
    let Some(c) = resume else {
        return Ok(ShardTasks {
            tasks: (0..n).map(fresh).collect(),
            complete: vec![false; n],
            lost: Vec::new(),
        });
    };
    if c.subtree > n {
        return Err(ConcolicError::Resume(format!(
            "the checkpoint is at subtree {} of a shard of {n}",
            c.subtree
        )));
    }
    let mut tasks = std::collections::VecDeque::new();
    if c.subtree < n {
        tasks.push_back((
            c.subtree,
            Task {
                assignment: c.assignment.clone(),
                floor: subtrees[c.subtree].0.len(),
                done: Some(c.done.clone()),
            },
        ));
    }
    if c.subtrees_listed {
        for p in &c.pending {
            let k = p.subtree.filter(|k| *k < n).ok_or_else(|| {
                ConcolicError::Resume("a subtree of the checkpoint is not in this shard".into())
            })?;
            let task = Task {
                assignment: p.assignment.clone(),
                floor: subtrees[k].0.len(),
                done: Some(p.done.clone()),
            };
            tasks.push_back((k, task));
        }
    } else {
        tasks.extend((c.subtree + 1..n).map(fresh));
    }
    let mut complete = vec![true; n];
    for k in tasks
        .iter()
        .map(|(k, _)| *k)
        .chain(c.lost_subtrees.iter().copied())
    {
        if let Some(done) = complete.get_mut(k) {
            *done = false;
        }
    }
    Ok(ShardTasks {
        tasks,
        complete,
        lost: c.lost_subtrees.clone(),
    })
}

/// Subtree `k` of a shard, as a checkpoint listing the shard's subtrees keeps it.
pub(crate) fn labelled(k: usize, task: &Task) -> SavedSubtree {
    SavedSubtree {
        subtree: Some(k),
        ..task.saved()
    }
}

/// What exploring one subtree of a shard gave.
pub(crate) struct SubtreeDone {
    /// The exploration may go on (no limit, the caller did not stop it).
    pub(crate) going: bool,
    pub(crate) complete: bool,
    pub(crate) cost: SubtreeCost,
}

/// Explores the subtree below `prefix` from `task`, and the subtrees a searcher other than
/// depth-first sets aside on the way (they belong to it).
pub(crate) fn explore_one(
    worker: &mut Worker,
    pool: &dyn WorkPool,
    obs: &mut Observers,
    prefix: &PathId,
    task: Task,
) -> Result<SubtreeDone, ConcolicError> {
    let gaps = |s: &ExploreStats| (s.unknown_queries, s.divergences, s.relabelled);
    let before = gaps(obs.stats);
    let (tests0, queries0) = (obs.stats.tests, worker.session.stats().path_queries);
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
        stats: obs.stats,
    };
    let mut going = worker.explore_subtree(task, pool, &mut sub)?;
    while going {
        let Some(t) = pool.take(&|| worker.figures(sub.stats, sub.checkpoints)) else {
            break;
        };
        going = worker.explore_subtree(t, pool, &mut sub)?;
    }
    let (tests1, after) = (sub.stats.tests, gaps(sub.stats));
    let cost = SubtreeCost {
        tests: tests1.saturating_sub(tests0),
        queries: (worker.session.stats().path_queries).saturating_sub(queries0),
        cpu_time: thread_cpu_time().saturating_sub(cpu0),
        wall_time: clock.elapsed(),
    };
    Ok(SubtreeDone {
        going,
        complete: going && strays == 0 && after == before,
        cost,
    })
}

/// The plan's inputs are for the same input shapes (the same list bounds) as this shard's.
pub(crate) fn check_inputs(
    worker: &Worker,
    subtrees: &[(PathId, Assignment)],
) -> Result<(), ConcolicError> {
    let vars = worker.space.vars.len();
    match subtrees.iter().find(|(_, a)| a.len() != vars) {
        Some((p, a)) => Err(ConcolicError::Resume(format!(
            "the inputs of subtree {p} have {} variables, this scope's {vars}: was the plan made with another --max-list-length or other hints?",
            a.len()
        ))),
        None => Ok(()),
    }
}
