//! Parallel exploration: `jobs` workers, each in its own thread with its own interpreter and
//! its own Z3 context, share the program (loaded and transformed once) and the path tree. A worker explores its subtree depth-first; when
//! another worker waits for work, it hands out the shallowest open branch of its stack (solving
//! for inputs that reach it) and marks it done locally, so every subtree is explored by exactly
//! one worker and the set of paths is that of the sequential exploration. (Early-conflict
//! lemmas stay with the worker that learnt them: a subtree handed out may then be pruned less
//! than in a sequential run.) The exploration ends when every worker waits and no subtree is
//! left, or at a limit.
//!
//! Checkpoints: when one is due, every worker hands its state (the inputs of its next run and
//! the done flags of their path) to the pool before that run and waits; the last to arrive
//! writes one checkpoint holding those states and the subtrees queued, then all go on. At a
//! stop, each worker's last state and the queue make the final checkpoint. A checkpoint of any
//! number of threads resumes with any number of threads (the subtrees are queued again).

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::explore::{conclude, Control, ExploreOptions, ExploreStats, TestCase};
use crate::observers::{Checkpoints, Observers};
use crate::work_pool::{Task, WorkPool};
use crate::worker::{transform, Worker};
use crate::{ConcolicError, Exploration};
use catala_ir::dcalc::{Program, ScopeId};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

struct Queue {
    tasks: VecDeque<Task>,
    waiting: usize,
    finished: bool,
    /// The figures of the workers waiting for a subtree (for a checkpoint taken meanwhile).
    idle: HashMap<ThreadId, Checkpoint>,
    /// The states of the workers paused for a checkpoint.
    paused: Vec<Checkpoint>,
    /// Counts the checkpoints of every worker taken (a paused worker waits for the next).
    generation: u64,
    last_checkpoint: Instant,
}

/// The subtrees waiting for a worker, and the counters every worker reads.
struct Shared<'c> {
    queue: Mutex<Queue>,
    wake: Condvar,
    jobs: usize,
    waiting: AtomicUsize,
    queued: AtomicUsize,
    tests: AtomicUsize,
    stopped: AtomicBool,
    /// A checkpoint of every worker is being taken.
    pausing: AtomicBool,
    every: Option<Duration>,
    /// The checkpoint resumed (its figures are added to every checkpoint written).
    resumed: Option<Checkpoint>,
    sink: Mutex<&'c mut (dyn FnMut(&Checkpoint) + Send)>,
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A worker that panicked while holding the lock left the queue consistent (every
        // update is a single push or pop), so the poison is ignored.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes the checkpoint of the paused workers, the waiting ones and the queue, and lets
    /// the paused workers go on.
    fn write_paused(&self, q: &mut Queue) {
        let states = std::mem::take(&mut q.paused);
        let idle: Vec<Checkpoint> = q.idle.values().cloned().collect();
        let queued: Vec<SavedSubtree> = q.tasks.iter().map(Task::saved).collect();
        let c = combine(&states, &idle, queued, self.resumed.as_ref());
        (self.sink.lock().unwrap_or_else(|p| p.into_inner()))(&c);
        q.generation += 1;
        q.last_checkpoint = Instant::now();
        self.pausing.store(false, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Every worker is paused or waiting: the checkpoint can be written.
    fn all_arrived(&self, q: &Queue) -> bool {
        self.pausing.load(Ordering::Relaxed) && q.paused.len() + q.waiting == self.jobs
    }
}

impl WorkPool for Shared<'_> {
    fn hungry(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) > self.queued.load(Ordering::Relaxed)
    }

    fn give(&self, task: Task) {
        let mut q = self.lock();
        q.tasks.push_back(task);
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_one();
    }

    fn take(&self, figures: &dyn Fn() -> Checkpoint) -> Option<Task> {
        let me = std::thread::current().id();
        let mine = self.every.map(|_| figures());
        let mut q = self.lock();
        q.waiting += 1;
        self.waiting.fetch_add(1, Ordering::Relaxed);
        if let Some(f) = mine {
            q.idle.insert(me, f);
        }
        let task = loop {
            if self.stopped.load(Ordering::Relaxed) || q.finished {
                break None;
            }
            if self.all_arrived(&q) {
                self.write_paused(&mut q);
            }
            if let Some(t) = q.tasks.pop_front() {
                self.queued.fetch_sub(1, Ordering::Relaxed);
                break Some(t);
            }
            if q.waiting == self.jobs && q.paused.is_empty() {
                // Nobody is exploring and nothing is queued: every path is covered.
                q.finished = true;
                self.wake.notify_all();
                break None;
            }
            q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
        };
        q.idle.remove(&me);
        q.waiting -= 1;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        task
    }

    fn count_test(&self) -> usize {
        self.tests.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let _q = self.lock();
        self.wake.notify_all();
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    fn waiting(&self) -> Vec<SavedSubtree> {
        self.lock().tasks.iter().map(Task::saved).collect()
    }

    fn pause_asked(&self) -> bool {
        let Some(every) = self.every else {
            return false;
        };
        if self.pausing.load(Ordering::Relaxed) {
            return true;
        }
        let q = self.lock();
        if q.last_checkpoint.elapsed() >= every {
            self.pausing.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    fn pause(&self, state: Checkpoint) {
        let mut q = self.lock();
        if !self.pausing.load(Ordering::Relaxed) || self.is_stopped() {
            return;
        }
        q.paused.push(state);
        if self.all_arrived(&q) {
            self.write_paused(&mut q);
            return;
        }
        // Waiting workers may be the last ones: they check when woken.
        self.wake.notify_all();
        let generation = q.generation;
        while q.generation == generation && !self.is_stopped() {
            q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// One checkpoint of several workers: the first state is the checkpoint's own, the other
/// states and the queued subtrees are pending; the figures are the sums (the time the
/// longest), with those of the checkpoint resumed.
pub(crate) fn combine(
    states: &[Checkpoint],
    figures_only: &[Checkpoint],
    queued: Vec<SavedSubtree>,
    resumed: Option<&Checkpoint>,
) -> Checkpoint {
    let mut c = Checkpoint::default();
    let mut saved = states.iter().map(|s| SavedSubtree {
        assignment: s.assignment.clone(),
        done: s.done.clone(),
        subtree: None,
    });
    if let Some(first) = saved.next() {
        c.assignment = first.assignment;
        c.done = first.done;
    }
    c.pending = saved.chain(queued).collect();
    let mut elapsed = Duration::ZERO;
    for f in states.iter().chain(figures_only).chain(resumed) {
        c.tests += f.tests;
        c.solver_calls += f.solver_calls;
        c.soft_solver_calls += f.soft_solver_calls;
        c.solver_time += f.solver_time;
        elapsed = elapsed.max(f.elapsed);
        for (k, n) in &f.by_outcome {
            *c.by_outcome.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &f.by_roundness {
            *c.by_roundness.entry(k.clone()).or_default() += n;
        }
    }
    c.elapsed = elapsed + resumed.map_or(Duration::ZERO, |r| r.elapsed);
    c
}

/// What a worker thread reports (plain data, to cross threads).
pub(crate) struct Summary {
    pub(crate) stats: ExploreStats,
    pub(crate) incomplete: Vec<String>,
    pub(crate) mismatches: Vec<(usize, String)>,
    /// The figures at the end, and the state to resume from when a limit stopped the worker.
    pub(crate) figures: Checkpoint,
    pub(crate) state: Option<Checkpoint>,
}

impl Summary {
    /// The summary of a worker's exploration.
    pub(crate) fn of(e: Exploration) -> Summary {
        Summary {
            stats: e.stats,
            incomplete: e.incomplete,
            mismatches: e.replay_mismatches,
            figures: Checkpoint::default(),
            state: None,
        }
    }
}

/// Runs `work(index)` in `jobs` threads; the first error stops the others (`stop`) and is
/// the result.
pub(crate) fn run_threads<R: Send>(
    jobs: usize,
    stop: &(dyn Fn() + Sync),
    work: &(dyn Fn(usize) -> Result<R, String> + Sync),
) -> Result<Vec<R>, ConcolicError> {
    let results: Vec<Result<R, String>> = std::thread::scope(|threads| {
        let handles: Vec<_> = (0..jobs)
            .map(|index| {
                threads.spawn(move || {
                    let r = work(index);
                    if r.is_err() {
                        stop();
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a worker thread panicked".to_string()))
            })
            .collect()
    });
    results
        .into_iter()
        .collect::<Result<Vec<R>, String>>()
        .map_err(ConcolicError::Worker)
}

/// Explores `scope` of `program` with `jobs` workers sharing the program (each with its own
/// interpreter and Z3 context), calling `on_test` for each test found (test indices are
/// global; the order of the calls is not that of a sequential run). Tests are not kept in the
/// result, only the statistics.
pub fn explore_parallel(
    jobs: usize,
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &(dyn Fn(usize, &TestCase) -> Control + Sync),
) -> Result<Exploration, ConcolicError> {
    explore_parallel_checkpointed(jobs, program, scope, options, on_test, &mut |_| {})
}

/// [`explore_parallel`], continuing from `options.resume` when given (a checkpoint of a
/// sequential or a parallel exploration), and handing a checkpoint of all workers to
/// `on_checkpoint` every `options.checkpoint_every` and when a limit stops the exploration.
pub fn explore_parallel_checkpointed(
    jobs: usize,
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &(dyn Fn(usize, &TestCase) -> Control + Sync),
    on_checkpoint: &mut (dyn FnMut(&Checkpoint) + Send),
) -> Result<Exploration, ConcolicError> {
    let jobs = jobs.max(1);
    let options = ExploreOptions {
        keep_tests: false,
        ..options.clone()
    };
    let resumed = options.resume.clone();
    let mut tasks = VecDeque::new();
    if let Some(c) = &resumed {
        tasks.push_back(Task::from_saved(&SavedSubtree {
            assignment: c.assignment.clone(),
            done: c.done.clone(),
            subtree: None,
        }));
        tasks.extend(c.pending.iter().map(Task::from_saved));
    }
    let shared = Shared {
        queued: AtomicUsize::new(tasks.len()),
        queue: Mutex::new(Queue {
            tasks,
            waiting: 0,
            finished: false,
            idle: HashMap::new(),
            paused: Vec::new(),
            generation: 0,
            last_checkpoint: Instant::now(),
        }),
        wake: Condvar::new(),
        jobs,
        waiting: AtomicUsize::new(0),
        tests: AtomicUsize::new(resumed.as_ref().map_or(0, |c| c.tests)),
        stopped: AtomicBool::new(false),
        pausing: AtomicBool::new(false),
        every: options.checkpoint_every,
        resumed: resumed.clone(),
        sink: Mutex::new(on_checkpoint),
    };
    let start = Instant::now();
    // The program as the workers run it, transformed once for all.
    let transformed = transform(program, &options);
    let worker = |index: usize| -> Result<Summary, String> {
        let mut w = Worker::new(program, &transformed, scope, &options, start)
            .map_err(|e| e.to_string())?;
        if let Some(c) = &resumed {
            if c.assignment.len() != w.space.vars.len() {
                return Err(format!(
                    "cannot resume: the checkpoint has {} variables, this scope {}",
                    c.assignment.len(),
                    w.space.vars.len()
                ));
            }
        }
        let first = match (&resumed, index) {
            (None, 0) => Some(Task::new(
                w.initial_assignment().map_err(|e| e.to_string())?,
                0,
            )),
            _ => None,
        };
        // Each worker saves its own state only at a stop (`Duration::MAX`: never due); the
        // periodic checkpoints are the pool's.
        let mut state: Option<Checkpoint> = None;
        let mut keep = |c: &Checkpoint| state = Some(c.clone());
        let every = options.checkpoint_every.map(|_| Duration::MAX);
        let mut checkpoints = Checkpoints::new(every, &mut keep);
        checkpoints.tests_before = resumed.as_ref().map_or(0, |c| c.tests);
        let mut report = |i: usize, t: &TestCase| on_test(i, t);
        let mut stats = ExploreStats::default();
        let mut obs = Observers {
            tests: &mut report,
            checkpoints: &mut checkpoints,
            stats: &mut stats,
        };
        w.run(first, &shared, &mut obs).map_err(|e| e.to_string())?;
        let figures = w.figures(&stats, &checkpoints);
        let e = w.finish(stats, shared.is_stopped(), &checkpoints);
        Ok(Summary {
            figures,
            state,
            ..Summary::of(e)
        })
    };
    let summaries = run_threads(jobs, &|| shared.stop(), &worker)?;
    if options.checkpoint_every.is_some() && shared.is_stopped() {
        let (states, figures): (Vec<&Summary>, Vec<&Summary>) =
            summaries.iter().partition(|s| s.state.is_some());
        let states: Vec<Checkpoint> = states.iter().filter_map(|s| s.state.clone()).collect();
        let figures: Vec<Checkpoint> = figures.iter().map(|s| s.figures.clone()).collect();
        let q = shared.lock();
        let queued = q.tasks.iter().map(Task::saved).collect();
        let c = combine(&states, &figures, queued, resumed.as_ref());
        drop(q);
        (shared.sink.lock().unwrap_or_else(|p| p.into_inner()))(&c);
    }
    let mut e = merge(summaries, resumed.as_ref());
    e.stats.complete &= !shared.is_stopped();
    e.stats.time = start.elapsed() + resumed.as_ref().map_or(Duration::ZERO, |c| c.elapsed);
    conclude(&mut e);
    Ok(e)
}

/// The figures of all workers (and of the checkpoint resumed) as one exploration's.
pub(crate) fn merge(summaries: Vec<Summary>, resumed: Option<&Checkpoint>) -> Exploration {
    let mut stats = ExploreStats {
        complete: true,
        ..ExploreStats::default()
    };
    if let Some(c) = resumed {
        stats.tests = c.tests;
        stats.solver_calls = c.solver_calls;
        stats.soft_solver_calls = c.soft_solver_calls;
        stats.solver_time = c.solver_time;
        stats.by_outcome = c.by_outcome.clone();
        stats.by_roundness = c.by_roundness.clone();
    }
    let mut incomplete = Vec::new();
    let mut mismatches = Vec::new();
    for s in summaries {
        stats.tests += s.stats.tests;
        stats.solver_calls += s.stats.solver_calls;
        stats.soft_solver_calls += s.stats.soft_solver_calls;
        stats.queries_without_z3 += s.stats.queries_without_z3;
        stats.guessed_queries += s.stats.guessed_queries;
        stats.fresh_queries += s.stats.fresh_queries;
        stats.solver_time += s.stats.solver_time;
        stats.divergences += s.stats.divergences;
        stats.early_lemmas += s.stats.early_lemmas;
        stats.dropped_lemmas += s.stats.dropped_lemmas;
        stats.unknown_queries += s.stats.unknown_queries;
        stats.relabelled += s.stats.relabelled;
        stats.outside_with_error += s.stats.outside_with_error;
        // The worker that met the limit says which; the others stopped because it did.
        if stats.stopped_by.is_none() {
            stats.stopped_by = s.stats.stopped_by;
        }
        stats.complete &= s.stats.complete;
        for (k, n) in s.stats.by_outcome {
            *stats.by_outcome.entry(k).or_default() += n;
        }
        for (k, n) in s.stats.by_roundness {
            *stats.by_roundness.entry(k).or_default() += n;
        }
        incomplete.extend(s.incomplete);
        mismatches.extend(s.mismatches);
    }
    incomplete.sort();
    incomplete.dedup();
    mismatches.sort();
    Exploration {
        tests: Vec::new(),
        stats,
        incomplete,
        replay_mismatches: mismatches,
    }
}
