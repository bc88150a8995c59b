//! One shard of a sharded exploration: the subtrees a [`crate::plan::Plan`] gave it, each
//! explored depth-first below its prefix, one after the other, by one worker. A subtree is
//! complete when its exploration ended without a limit, a query the solver gave up on, a run
//! leaving its prefix, or a test outside the prefix. With checkpoints on, a checkpoint names
//! the subtree it is in (and the earlier ones that were not complete), so a shard killed at
//! any point resumes where its last checkpoint was; the tests found between that checkpoint
//! and the kill are found again, on the same paths (same [`PathId`]s), and a merge keeps one.

use crate::checkpoint::Checkpoint;
use crate::cpu_clock::thread_cpu_time;
use crate::explore::{transform, Worker};
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::searcher::{Solo, WorkPool};
use crate::{ConcolicError, Control, Exploration, ExploreOptions, TestCase};
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
    let transformed = transform(program, options.optimizations);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    // The plan's inputs are for the same input shapes (the same list bounds) as this shard's.
    let vars = worker.space.vars.len();
    if let Some((p, a)) = subtrees.iter().find(|(_, a)| a.len() != vars) {
        return Err(ConcolicError::Resume(format!(
            "the inputs of subtree {p} have {} variables, this scope's {vars}: was the plan made with another --max-list-length or other hints?",
            a.len()
        )));
    }
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
        worker.take_up(c, c.subtree < subtrees.len())?;
        pool.tests.set(c.tests);
        worker.lost_subtrees = c.lost_subtrees.clone();
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
    let checkpoints = options.checkpoint_every;
    for (k, (prefix, inputs)) in subtrees.iter().enumerate().skip(begin) {
        worker.shard_subtree = Some(k);
        let assignment = match resumed_inputs.take() {
            Some(a) => a,
            None => {
                // Between two subtrees: stop at a limit, or checkpoint when one is due, at the
                // start of this subtree.
                let limit = worker.limit_reached(pool.tests.get());
                let due =
                    checkpoints.is_some_and(|every| worker.last_checkpoint.elapsed() >= every);
                if (limit || due) && checkpoints.is_some() {
                    worker.last_checkpoint = Instant::now();
                    on_checkpoint(&worker.checkpoint(inputs, &[]));
                }
                if limit {
                    pool.stop();
                    break;
                }
                inputs.clone()
            }
        };
        let before = (worker.stats.unknown_queries, worker.stats.divergences);
        let (tests0, queries0) = (pool.tests.get(), worker.session.stats().path_queries);
        let (cpu0, clock) = (thread_cpu_time(), Instant::now());
        let mut strays = 0usize;
        let mut within = |i: usize, t: &TestCase| {
            if !prefix.is_prefix_of(&t.path) {
                strays += 1;
            }
            on_test(i, t)
        };
        let mut going =
            worker.explore_subtree(assignment, prefix.len(), &pool, &mut within, on_checkpoint)?;
        // Subtrees a searcher other than depth-first set aside belong to this one.
        while going {
            let Some((a, floor)) = pool.take() else {
                break;
            };
            going = worker.explore_subtree(a, floor, &pool, &mut within, on_checkpoint)?;
        }
        costs[k] = SubtreeCost {
            tests: pool.tests.get().saturating_sub(tests0),
            queries: (worker.session.stats().path_queries).saturating_sub(queries0),
            cpu_time: thread_cpu_time().saturating_sub(cpu0),
            wall_time: clock.elapsed(),
        };
        complete[k] = going
            && strays == 0
            && (worker.stats.unknown_queries, worker.stats.divergences) == before;
        if !complete[k] {
            worker.lost_subtrees.push(k);
        }
        if !going {
            pool.stop();
            break;
        }
    }
    worker.stats.complete = !pool.is_stopped() && complete.iter().all(|c| *c);
    let stopped = pool.is_stopped();
    Ok(ShardExploration {
        exploration: worker.finish(stopped),
        complete,
        costs,
    })
}
