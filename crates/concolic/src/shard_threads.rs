//! One shard explored by several threads (`--jobs N --shard I/N`): the threads share the
//! program and take the shard's subtrees one at a time, in order, each exploring its subtree
//! alone, so every subtree's completeness and cost are those of one thread and the shard's
//! tests are those of one thread, in another order. Checkpoints: when one is due, every thread
//! hands its state (the inputs of its next run, the done flags of their path and its subtree)
//! before that run and waits; the last to arrive (or a thread with no subtree left) writes one
//! checkpoint listing the states and the subtrees not started, each with its position in the
//! shard (`Checkpoint::subtrees_listed`). At a stop, each thread's last state and the subtrees
//! not started make the final checkpoint. Any number of threads resume it.

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::explore::conclude;
use crate::inputs::Assignment;
use crate::observers::{Checkpoints, Observers};
use crate::parallel::{combine, merge, run_threads, Summary};
use crate::path_id::PathId;
use crate::shard::{
    check_inputs, explore_one, labelled, shard_tasks, ShardExploration, ShardTasks, SubtreeCost,
    SubtreeDone,
};
use crate::work_pool::{Solo, Task, WorkPool};
use crate::worker::{transform, Worker};
use crate::{ConcolicError, Control, ExploreOptions, ExploreStats, TestCase};
use catala_ir::dcalc::{Program, ScopeId};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the threads of a shard share under one lock.
struct Board {
    /// The subtrees not started, with their positions.
    queue: VecDeque<(usize, Task)>,
    /// What exploring each subtree gave, in this process.
    done: Vec<Option<SubtreeDone>>,
    /// The subtrees explored (before or here) that could not be explored entirely.
    lost: Vec<usize>,
    /// The figures of the threads with no subtree left.
    retired: Vec<Checkpoint>,
    /// The states of the threads paused for a checkpoint.
    paused: Vec<Checkpoint>,
    /// Counts the checkpoints written (a paused thread waits for the next).
    generation: u64,
    last_checkpoint: Instant,
}

/// The shard's subtrees and counters, shared by its threads.
struct Shared<'c> {
    board: Mutex<Board>,
    wake: Condvar,
    jobs: usize,
    tests: AtomicUsize,
    stopped: AtomicBool,
    /// A checkpoint of every thread is being taken.
    pausing: AtomicBool,
    every: Option<Duration>,
    /// The checkpoint resumed (its figures are added to every checkpoint written).
    resumed: Option<Checkpoint>,
    shard_size: usize,
    sink: Mutex<&'c mut (dyn FnMut(&Checkpoint) + Send)>,
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, Board> {
        // Every update of the board is a single push, pop or store: a poisoned lock left it
        // consistent.
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next subtree not started, unless the exploration is stopped.
    fn next_subtree(&self) -> Option<(usize, Task)> {
        let mut b = self.lock();
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        b.queue.pop_front()
    }

    /// Subtree `k` is done (entirely, or cut by a stop, or with gaps).
    fn subtree_done(&self, k: usize, d: SubtreeDone) {
        let mut b = self.lock();
        if d.going && !d.complete {
            b.lost.push(k);
        }
        if let Some(slot) = b.done.get_mut(k) {
            *slot = Some(d);
        }
    }

    /// A thread with no subtree left: its figures join every checkpoint written from now.
    fn retire(&self, figures: Checkpoint) {
        let mut b = self.lock();
        b.retired.push(figures);
        if self.all_arrived(&b) {
            self.write_paused(&mut b);
        }
        self.wake.notify_all();
    }

    /// One checkpoint of the states `states`, the figures `figures` and the subtrees not
    /// started.
    fn checkpoint(&self, b: &Board, states: &[Checkpoint], figures: &[Checkpoint]) -> Checkpoint {
        let queued: Vec<SavedSubtree> = b.queue.iter().map(|(k, t)| labelled(*k, t)).collect();
        let mut c = combine(states, figures, queued, self.resumed.as_ref());
        // `combine` lists the states after the first before the queue.
        for (p, s) in c.pending.iter_mut().zip(states.iter().skip(1)) {
            p.subtree = Some(s.subtree);
        }
        c.subtree = states.first().map_or(self.shard_size, |s| s.subtree);
        let mut lost = b.lost.clone();
        lost.sort_unstable();
        lost.dedup();
        c.lost_subtrees = lost;
        c.subtrees_listed = true;
        c
    }

    /// Writes the checkpoint of the paused threads, the retired ones and the subtrees not
    /// started, and lets the paused threads go on.
    fn write_paused(&self, b: &mut Board) {
        let states = std::mem::take(&mut b.paused);
        let c = self.checkpoint(b, &states, &b.retired);
        (self.sink.lock().unwrap_or_else(|p| p.into_inner()))(&c);
        b.generation += 1;
        b.last_checkpoint = Instant::now();
        self.pausing.store(false, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Every thread is paused or retired: the checkpoint can be written.
    fn all_arrived(&self, b: &Board) -> bool {
        self.pausing.load(Ordering::Relaxed) && b.paused.len() + b.retired.len() == self.jobs
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let _b = self.lock();
        self.wake.notify_all();
    }
}

/// The pool of one thread of a shard: the subtrees its searcher sets aside stay with it;
/// the test count, the stop and the checkpoints are the shard's.
struct ThreadPool<'s, 'c> {
    own: Solo,
    shared: &'s Shared<'c>,
}

impl WorkPool for ThreadPool<'_, '_> {
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
        self.shared.tests.fetch_add(1, Ordering::Relaxed) + 1
    }
    fn stop(&self) {
        self.shared.stop()
    }
    fn is_stopped(&self) -> bool {
        self.shared.stopped.load(Ordering::Relaxed)
    }
    fn waiting(&self) -> Vec<SavedSubtree> {
        self.own.waiting()
    }
    fn pause_asked(&self) -> bool {
        let s = self.shared;
        let Some(every) = s.every else {
            return false;
        };
        if s.pausing.load(Ordering::Relaxed) {
            return true;
        }
        let b = s.lock();
        if b.last_checkpoint.elapsed() >= every {
            s.pausing.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
    fn pause(&self, state: Checkpoint) {
        let s = self.shared;
        let mut b = s.lock();
        if !s.pausing.load(Ordering::Relaxed) || self.is_stopped() {
            return;
        }
        b.paused.push(state);
        if s.all_arrived(&b) {
            s.write_paused(&mut b);
            return;
        }
        let generation = b.generation;
        while b.generation == generation && !self.is_stopped() {
            b = s.wake.wait(b).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// [`crate::shard::explore_shard`] with `jobs` threads sharing the program: each thread takes
/// the next subtree of the shard and explores it alone. Continues from `options.resume` when
/// given (a checkpoint of this shard, written by any number of threads) and hands a
/// checkpoint of every thread to `on_checkpoint` every `options.checkpoint_every` and when a
/// limit stops the exploration.
pub fn explore_shard_parallel(
    jobs: usize,
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    subtrees: &[(PathId, Assignment)],
    on_test: &(dyn Fn(usize, &TestCase) -> Control + Sync),
    on_checkpoint: &mut (dyn FnMut(&Checkpoint) + Send),
) -> Result<ShardExploration, ConcolicError> {
    let jobs = jobs.max(1);
    let options = ExploreOptions {
        keep_tests: false,
        ..options.clone()
    };
    let resumed = options.resume.clone();
    let ShardTasks {
        tasks,
        complete: complete_before,
        lost,
    } = shard_tasks(resumed.as_ref(), subtrees)?;
    if let Some((_, t)) = tasks
        .iter()
        .find(|(k, t)| t.assignment.len() != subtrees[*k].1.len())
    {
        return Err(ConcolicError::Resume(format!(
            "the checkpoint has {} variables, this scope {}",
            t.assignment.len(),
            subtrees.first().map_or(0, |s| s.1.len())
        )));
    }
    let tests_before = resumed.as_ref().map_or(0, |c| c.tests);
    let shared = Shared {
        board: Mutex::new(Board {
            queue: tasks,
            done: (0..subtrees.len()).map(|_| None).collect(),
            lost,
            retired: Vec::new(),
            paused: Vec::new(),
            generation: 0,
            last_checkpoint: Instant::now(),
        }),
        wake: Condvar::new(),
        jobs,
        tests: AtomicUsize::new(tests_before),
        stopped: AtomicBool::new(false),
        pausing: AtomicBool::new(false),
        every: options.checkpoint_every,
        resumed: resumed.clone(),
        shard_size: subtrees.len(),
        sink: Mutex::new(on_checkpoint),
    };
    let start = Instant::now();
    let transformed = transform(program, &options);
    let thread = |_: usize| -> Result<Summary, String> {
        let mut worker = Worker::new(program, &transformed, scope, &options, start)
            .map_err(|e| e.to_string())?;
        check_inputs(&worker, subtrees).map_err(|e| e.to_string())?;
        let pool = ThreadPool {
            own: Solo::default(),
            shared: &shared,
        };
        // Each thread saves its own state only at a stop (`Duration::MAX`: never due); the
        // periodic checkpoints are the shard's.
        let mut state: Option<Checkpoint> = None;
        let mut keep = |c: &Checkpoint| state = Some(c.clone());
        let every = options.checkpoint_every.map(|_| Duration::MAX);
        let mut checkpoints = Checkpoints::new(every, &mut keep);
        checkpoints.tests_before = tests_before;
        let mut report = |i: usize, t: &TestCase| on_test(i, t);
        let mut stats = ExploreStats::default();
        loop {
            // A test limit met at the end of another subtree.
            let tests = shared.tests.load(Ordering::Relaxed);
            if worker.limit_reached(&mut stats, tests, tests_before) {
                pool.stop();
                break;
            }
            let Some((k, task)) = shared.next_subtree() else {
                break;
            };
            checkpoints.shard_subtree = Some(k);
            let mut obs = Observers {
                tests: &mut report,
                checkpoints: &mut checkpoints,
                stats: &mut stats,
            };
            let one = explore_one(&mut worker, &pool, &mut obs, &subtrees[k].0, task)
                .map_err(|e| e.to_string())?;
            let going = one.going;
            shared.subtree_done(k, one);
            if !going {
                pool.stop();
                break;
            }
        }
        let figures = worker.figures(&stats, &checkpoints);
        shared.retire(figures.clone());
        stats.complete = true;
        let e = worker.finish(stats, pool.is_stopped(), &checkpoints);
        Ok(Summary {
            figures,
            state,
            ..Summary::of(e)
        })
    };
    let summaries = run_threads(jobs, &|| shared.stop(), &thread)?;
    let stopped = shared.stopped.load(Ordering::Relaxed);
    if options.checkpoint_every.is_some() && stopped {
        let (states, figures): (Vec<&Summary>, Vec<&Summary>) =
            summaries.iter().partition(|s| s.state.is_some());
        let states: Vec<Checkpoint> = states.iter().filter_map(|s| s.state.clone()).collect();
        let figures: Vec<Checkpoint> = figures.iter().map(|s| s.figures.clone()).collect();
        let b = shared.lock();
        let c = shared.checkpoint(&b, &states, &figures);
        drop(b);
        (shared.sink.lock().unwrap_or_else(|p| p.into_inner()))(&c);
    }
    let board = shared.board.into_inner().unwrap_or_else(|p| p.into_inner());
    let complete: Vec<bool> = board
        .done
        .iter()
        .zip(&complete_before)
        .map(|(d, before)| d.as_ref().map_or(*before, |d| d.complete))
        .collect();
    let costs = board
        .done
        .iter()
        .map(|d| d.as_ref().map_or(SubtreeCost::default(), |d| d.cost))
        .collect();
    let mut exploration = merge(summaries, resumed.as_ref());
    exploration.stats.complete &= !stopped && complete.iter().all(|c| *c);
    exploration.stats.time =
        start.elapsed() + resumed.as_ref().map_or(Duration::ZERO, |c| c.elapsed);
    conclude(&mut exploration);
    Ok(ShardExploration {
        exploration,
        complete,
        costs,
    })
}
