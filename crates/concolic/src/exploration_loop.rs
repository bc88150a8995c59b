//! The exploration loop (Section 3 of the paper, KLEE's shape): run the executor on the next
//! inputs, hand the path's leaf to the leaf hook (the test of the path), put the path's
//! constraints on the searcher's stack, let the searcher pick the one to negate, and ask the
//! solver chain for inputs reaching the other side; until every constraint is negated or a
//! limit stops the loop. The work pool hands out the subtrees set aside or shared between
//! threads; the observers see each test and the states from which the loop can be resumed
//! (a checkpoint before a run, or at a stop), and a checkpoint of every thread is taken when
//! the pool asks for one (`WorkPool::pause_asked`).
//!
//! The loop itself is [`drive`], over the two steps of a [`LoopSteps`]: a run (the executor,
//! then the leaf hook, then the path's open branches to the searcher) and a negation (the
//! searcher's pick, then the solver chain). Concolic testing of one subtree is its instance
//! here (`SubtreeSteps`); relational proofs (`crate::relational_loop`) and plans
//! (`crate::plan`) are the others.

use crate::executor::{PathExecutor, Run};
use crate::inputs::Assignment;
use crate::observers::Observers;
use crate::results::{Control, ExploreStats, StopReason};
use crate::searcher::Node;
use crate::work_pool::{Task, WorkPool};
use crate::worker::{roundness_of, Worker};
use crate::ConcolicError;
use smt::catala::term::{self, Term};
use smt::catala::QueryOutcome;
use smt::catala::RoundnessLevel;

impl Worker<'_> {
    /// Explores depth-first the subtrees of `first` and then of the tasks the pool hands out,
    /// until the pool has no more or a limit is reached. Sets `stats.complete` when this worker
    /// ran out of work without being stopped.
    pub(crate) fn run(
        &mut self,
        first: Option<Task>,
        pool: &dyn WorkPool,
        obs: &mut Observers,
    ) -> Result<(), ConcolicError> {
        let mut task = first.or_else(|| pool.take(&|| self.figures(obs.stats, obs.checkpoints)));
        while let Some(t) = task {
            if !self.explore_subtree(t, pool, obs)? {
                pool.stop();
                return Ok(());
            }
            task = pool.take(&|| self.figures(obs.stats, obs.checkpoints));
        }
        obs.stats.complete = !pool.is_stopped();
        Ok(())
    }

    /// Depth-first exploration below `floor` starting from `assignment`. Returns false when
    /// the exploration must end (a limit, or the caller).
    pub(crate) fn explore_subtree(
        &mut self,
        task: Task,
        pool: &dyn WorkPool,
        obs: &mut Observers,
    ) -> Result<bool, ConcolicError> {
        let Task {
            assignment,
            floor,
            done,
        } = task;
        let roundness = roundness_of(&assignment, &self.money_vars);
        let mut steps = SubtreeSteps {
            // The done flags of the first run's path: those of a checkpoint, or those above
            // the floor (so that a checkpoint before that run keeps the floor).
            resumed_done: done.or_else(|| (floor > 0).then(|| vec![true; floor])),
            saves: obs.checkpoints.enabled(),
            stopping: false,
            prefix: Vec::new(),
            lemmas: Vec::new(),
            stack: Vec::new(),
            assignment: Vec::new(),
            restarted: false,
            floor,
            worker: self,
            pool,
            obs,
        };
        drive(&mut steps, (assignment, roundness))
    }

    /// What comes before a run on `assignment`: the end of the loop when another thread or a
    /// limit stopped it (writing the state before the run when `save`), and this thread's
    /// part of a checkpoint of every thread when the pool asks for one. False: the loop ends.
    fn before_run(
        &mut self,
        pool: &dyn WorkPool,
        obs: &mut Observers,
        assignment: &Assignment,
        flags: Vec<bool>,
        save: bool,
    ) -> bool {
        // Another thread met a limit, or this one did: the state before this run is what is
        // left to do here.
        let stopped = pool.is_stopped();
        let limit = if stopped { None } else { self.hard_stop() };
        let limited = limit.is_some();
        if let Some(reason) = limit {
            obs.stats.stop_at(reason);
        }
        if stopped || limited {
            if save {
                let mut c = self.checkpoint(obs.stats, obs.checkpoints, pool, assignment, &[]);
                c.done = flags;
                obs.checkpoints.write(&c);
            }
            return false;
        }
        if pool.pause_asked() {
            let mut c = self.checkpoint(obs.stats, obs.checkpoints, pool, assignment, &[]);
            c.done = flags;
            pool.pause(c);
        }
        true
    }

    /// The branch stack of a run's `path`: the constraints of the prefix it was solved for
    /// keep their flags (a run leaving it is a divergence), those of a checkpoint taken up
    /// theirs (`resumed`), new constraints are open; constraints above the floor belong to the
    /// worker that handed this subtree out and are never negated here.
    fn branch_stack(
        &mut self,
        path: Vec<crate::symbolic::PathConstraint>,
        resumed: Option<&[bool]>,
        prefix: &[Node],
        floor: usize,
        stats: &mut ExploreStats,
    ) -> Vec<Node> {
        let mut stack: Vec<Node> = Vec::with_capacity(path.len());
        for (i, c) in path.into_iter().enumerate() {
            let done = match (resumed, prefix.get(i)) {
                (Some(flags), _) => flags.get(i).copied().unwrap_or(false),
                (None, Some(p)) => {
                    if p.term != c.term {
                        stats.divergences += 1;
                    }
                    p.done
                }
                (None, None) => false,
            } || i < floor;
            self.coverage.record(c.span, c.way);
            stack.push(Node {
                term: c.term,
                done: done || c.fixed,
                other_way: Some((c.span, c.way ^ 1)),
                repeated_at: c.repeated_at,
            });
        }
        stack
    }

    /// Asks the solver chain for the path of `stack` (its last node negated) with the
    /// lemmas; when the lemmas make the query too hard, without them (they only prune).
    fn ask(
        &mut self,
        stack: &[Node],
        lemmas: &mut Vec<(usize, Term)>,
        stats: &mut ExploreStats,
    ) -> Result<(Vec<Term>, QueryOutcome), ConcolicError> {
        let (query, outcome) = self.check_preferring(with_lemmas(stack, lemmas))?;
        if outcome != QueryOutcome::Unknown || lemmas.is_empty() {
            return Ok((query, outcome));
        }
        lemmas.clear();
        stats.dropped_lemmas += 1;
        self.check_preferring(with_lemmas(stack, lemmas))
    }

    /// Hands the shallowest open subtree of `stack` (below `floor`) to the pool, when another
    /// one stays open here.
    fn share(
        &mut self,
        stack: &mut [Node],
        lemmas: &[(usize, Term)],
        floor: usize,
        pool: &dyn WorkPool,
    ) -> Result<(), ConcolicError> {
        let mut open = stack
            .iter()
            .enumerate()
            .filter(|(i, n)| *i >= floor && !n.done)
            .map(|(i, _)| i);
        let (Some(k), Some(_)) = (open.next(), open.next()) else {
            return Ok(());
        };
        let mut query: Vec<Term> = stack[..k].iter().map(|n| n.term.clone()).collect();
        query.push(term::not(&stack[k].term));
        let nodes: Vec<Node> = query
            .into_iter()
            .map(|term| Node {
                term,
                done: true,
                other_way: None,
                repeated_at: Vec::new(),
            })
            .collect();
        let relevant: Vec<(usize, Term)> =
            lemmas.iter().filter(|(p, _)| *p <= k).cloned().collect();
        let (query, outcome) = self.check_preferring(with_lemmas(&nodes, &relevant))?;
        // When the solver gives up, the branch stays here, open.
        stack[k].done = outcome != QueryOutcome::Unknown;
        if outcome == QueryOutcome::Sat {
            let (assignment, _) = self.model_inputs(&query)?;
            pool.give(Task::new(assignment, k + 1));
        }
        Ok(())
    }

    /// Hands every open node of `stack` after position `k` to the pool as a subtree (solving
    /// for its inputs now) and marks it done, so the search can go on at `k`.
    fn hand_out_below(
        &mut self,
        stack: &mut [Node],
        k: usize,
        pool: &dyn WorkPool,
        stats: &mut ExploreStats,
    ) -> Result<(), ConcolicError> {
        for j in k + 1..stack.len() {
            if stack[j].done {
                continue;
            }
            let mut query: Vec<Term> = stack[..j].iter().map(|n| n.term.clone()).collect();
            query.push(term::not(&stack[j].term));
            stack[j].done = true;
            let (query, outcome) = self.check_preferring(query)?;
            match outcome {
                QueryOutcome::Sat => {
                    let (assignment, _) = self.model_inputs(&query)?;
                    pool.give(Task::new(assignment, j + 1));
                }
                QueryOutcome::Unsat => {}
                // A query a limit interrupted is not one the solver gave up on: the limit is
                // reported instead.
                QueryOutcome::Unknown if self.session.stopped() => {}
                QueryOutcome::Unknown => stats.unknown_queries += 1,
            }
        }
        Ok(())
    }
}

/// The done flags of the path of the next run: those of the checkpoint taken up, or of the
/// prefix the run was solved for.
fn flags_before_run(resumed: &Option<Vec<bool>>, prefix: &[Node]) -> Vec<bool> {
    match resumed {
        Some(flags) => flags.clone(),
        None => prefix.iter().map(|n| n.done).collect(),
    }
}

/// The terms of a query: the stack's constraints with each lemma before the node it is
/// attached to.
fn with_lemmas(stack: &[Node], lemmas: &[(usize, Term)]) -> Vec<Term> {
    let mut query: Vec<Term> = Vec::with_capacity(stack.len() + lemmas.len());
    let mut pending = lemmas.iter().peekable();
    for (k, n) in stack.iter().enumerate() {
        while let Some((_, l)) = pending.next_if(|(p, _)| *p == k) {
            query.push(l.clone());
        }
        query.push(n.term.clone());
    }
    query
}

/// How the loop goes on after a run.
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// What negating the next branch gave.
pub(crate) enum Negation<I> {
    /// Inputs reaching the other side of the branch the searcher picked: the next run's.
    Next(I),
    /// The branch picked has no inputs (or the solver gave up on it): pick another.
    Closed,
    /// Every branch is negated.
    Exhausted,
    /// A limit, the caller or the leaf hook ended the exploration.
    Stop,
}

/// One exploration as [`drive`] runs it: an executor whose run's leaf goes to the leaf hook
/// and whose path's open branches go to the searcher, and a searcher whose pick the solver
/// chain answers. Concolic testing (`SubtreeSteps`: one program, the paths of a subtree, a
/// test at each leaf), relational proofs (`crate::relational_loop`: a product of runs, the
/// goal asked at each leaf) and plans (`crate::plan`: one program, splits until enough
/// subtrees) are its instances.
pub(crate) trait LoopSteps {
    /// The inputs of one run.
    type Inputs;
    /// Runs the executor on `inputs`, hands the leaf to the leaf hook and the path's open
    /// branches to the searcher.
    fn run(&mut self, inputs: Self::Inputs) -> Result<Flow, ConcolicError>;
    /// Lets the searcher pick the next branch and asks the solver chain for inputs reaching
    /// its other side.
    fn negate(&mut self) -> Result<Negation<Self::Inputs>, ConcolicError>;
}

/// The exploration loop: runs `first`, then negates branches and runs the inputs found,
/// until every branch is negated (true) or the exploration is stopped (false).
pub(crate) fn drive<L: LoopSteps>(steps: &mut L, first: L::Inputs) -> Result<bool, ConcolicError> {
    let mut next = Some(first);
    loop {
        if let Some(inputs) = next.take() {
            if let Flow::Stop = steps.run(inputs)? {
                return Ok(false);
            }
            continue;
        }
        match steps.negate()? {
            Negation::Next(inputs) => next = Some(inputs),
            Negation::Closed => {}
            Negation::Exhausted => return Ok(true),
            Negation::Stop => return Ok(false),
        }
    }
}

/// The concolic instance of the loop on one subtree: the worker's executor, the test of
/// each path as leaf hook (`Worker::record_test`), the worker's searcher over the current
/// path's stack, the subtrees it sets aside or shares going to the pool, and the observers.
struct SubtreeSteps<'a, 'p, 'o, 'c> {
    worker: &'a mut Worker<'p>,
    pool: &'a dyn WorkPool,
    obs: &'a mut Observers<'o, 'c>,
    floor: usize,
    /// The done flags of the path of the first run (a checkpoint's, or the floor's).
    resumed_done: Option<Vec<bool>>,
    saves: bool,
    /// Set when a limit is reached: the next inputs are still solved for, to checkpoint.
    stopping: bool,
    /// The stack the current run's inputs were solved for.
    prefix: Vec<Node>,
    /// Early-conflict lemmas: (p, ¬χ') holds for queries negating a node at position p or
    /// later, as long as the first p nodes of the stack stay (Fig. 10).
    lemmas: Vec<(usize, Term)>,
    /// The current run's path.
    stack: Vec<Node>,
    /// The current run's inputs.
    assignment: Assignment,
    /// A start outside the input space was followed by a start within it.
    restarted: bool,
}

impl LoopSteps for SubtreeSteps<'_, '_, '_, '_> {
    type Inputs = (Assignment, RoundnessLevel);

    fn run(&mut self, (assignment, roundness): Self::Inputs) -> Result<Flow, ConcolicError> {
        self.assignment = assignment;
        let w = &mut *self.worker;
        let flags = flags_before_run(&self.resumed_done, &self.prefix);
        let save = self.saves && !self.stopping;
        if !w.before_run(self.pool, self.obs, &self.assignment, flags, save) {
            return Ok(Flow::Stop);
        }
        w.remember_inputs(&self.assignment);
        let Run {
            inputs,
            path,
            outcome,
            lemmas: learnt,
            outside_input_space,
            started_outside,
        } = w.executor.execute(&self.assignment);
        if !learnt.is_empty() {
            self.obs.stats.early_lemmas += learnt.len();
            self.lemmas.extend(learnt);
            self.lemmas.sort_by_key(|(p, _)| *p);
        }
        let (index, control) = w.record_test(
            self.pool,
            inputs,
            &path,
            (outcome, outside_input_space),
            roundness,
            self.obs,
        );
        if control == Control::Stop {
            self.obs.stats.stop_at(StopReason::Caller);
            return Ok(Flow::Stop);
        }
        match w.limit(index + 1, self.obs.checkpoints.tests_before) {
            None => {}
            Some(reason @ StopReason::Tests(_)) => {
                self.obs.stats.stop_at(reason);
                if !self.saves {
                    return Ok(Flow::Stop);
                }
                // The next inputs are solved for, to checkpoint the state before their run.
                self.stopping = true;
            }
            Some(reason) => {
                // Time or Ctrl-C: no more queries; this run is done again on resumption.
                self.obs.stats.stop_at(reason);
                if self.saves {
                    let done = flags_before_run(&self.resumed_done, &self.prefix);
                    let c = w.checkpoint_rerun(
                        self.obs.stats,
                        self.obs.checkpoints,
                        self.pool,
                        &self.assignment,
                        done,
                    );
                    self.obs.checkpoints.write(&c);
                }
                return Ok(Flow::Stop);
            }
        }
        if started_outside && !self.restarted {
            // A starting input outside the scope's input space: its test is recorded; the
            // exploration starts again from a model of the space and of the path solved for.
            self.restarted = true;
            let prefix = std::mem::take(&mut self.prefix);
            let asked = w.ask(&prefix, &mut self.lemmas, self.obs.stats);
            self.prefix = prefix;
            self.stack.clear();
            let (query, outcome) = asked?;
            return match outcome {
                QueryOutcome::Sat => {
                    let inputs = w.model_inputs(&query)?;
                    self.run(inputs)
                }
                QueryOutcome::Unsat => Ok(Flow::Continue),
                QueryOutcome::Unknown => {
                    self.obs.stats.unknown_queries += 1;
                    Ok(Flow::Continue)
                }
            };
        }
        let resumed = self.resumed_done.take();
        self.stack = w.branch_stack(
            path,
            resumed.as_deref(),
            &self.prefix,
            self.floor,
            self.obs.stats,
        );
        Ok(Flow::Continue)
    }

    fn negate(&mut self) -> Result<Negation<Self::Inputs>, ConcolicError> {
        let w = &mut *self.worker;
        let stack = &mut self.stack;
        if self.pool.hungry() {
            w.share(stack, &self.lemmas, self.floor, self.pool)?;
        }
        let Some(pick) = w.searcher.pick(stack, &w.coverage, !self.lemmas.is_empty()) else {
            if self.stopping {
                // The test limit came with the last path of this subtree: it cut nothing here.
                self.obs.stats.stopped_by = None;
            }
            return Ok(Negation::Exhausted);
        };
        let i = pick.negate;
        if pick.set_aside_below {
            w.hand_out_below(stack, i, self.pool, self.obs.stats)?;
        }
        // The flags of the path before this negation (depth-first: the nodes below `i` are
        // done), for a checkpoint at a stop during the query.
        let below = stack.len() - i - 1;
        stack.truncate(i + 1);
        let negated = term::not(&stack[i].term);
        stack[i] = Node {
            term: negated,
            done: true,
            other_way: None,
            repeated_at: Vec::new(),
        };
        self.lemmas.retain(|(p, _)| *p <= i);
        let (query, outcome) = w.ask(stack, &mut self.lemmas, self.obs.stats)?;
        if outcome != QueryOutcome::Sat {
            if let Some(reason) = w.hard_stop() {
                // A limit interrupted the query, or came during it: not an answer.
                self.obs.stats.stop_at(reason);
                if self.saves {
                    let mut done: Vec<bool> = stack[..i].iter().map(|n| n.done).collect();
                    done.push(outcome == QueryOutcome::Unsat);
                    done.extend(std::iter::repeat_n(true, below));
                    let c = w.checkpoint_rerun(
                        self.obs.stats,
                        self.obs.checkpoints,
                        self.pool,
                        &self.assignment,
                        done,
                    );
                    self.obs.checkpoints.write(&c);
                }
                return Ok(Negation::Stop);
            }
        }
        match outcome {
            QueryOutcome::Sat => {}
            QueryOutcome::Unsat => return Ok(Negation::Closed),
            QueryOutcome::Unknown => {
                // The solver gave up: the subtree is skipped and the exploration is not
                // complete.
                self.obs.stats.unknown_queries += 1;
                return Ok(Negation::Closed);
            }
        }
        let (assignment, roundness) = w.model_inputs(&query)?;
        self.prefix = std::mem::take(stack);
        if (self.obs.checkpoints.due() || self.stopping) && self.saves {
            let c = w.checkpoint(
                self.obs.stats,
                self.obs.checkpoints,
                self.pool,
                &assignment,
                &self.prefix,
            );
            self.obs.checkpoints.write(&c);
        }
        if self.stopping {
            return Ok(Negation::Stop);
        }
        Ok(Negation::Next((assignment, roundness)))
    }
}
