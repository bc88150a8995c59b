//! The rounds of the derivative-guided search: growing bounds on calls (1, 2, 4, … up to the
//! execution bound) and, within each, prestates of each length from 0 to the append bound.
//! A round does not start again from the harness: the states the previous round with the same
//! prestate length stopped at its call bound (its frontier) are resumed, since every execution
//! of the larger bound that the previous round did not finish passes through one of them. When
//! a frontier is empty, every execution of that prestate length ended within the smaller bound
//! and the later rounds of that length have nothing left to explore. A frontier too large to
//! keep ([`crate::engine::FRONTIER_LIMIT`]) makes the next round of its length start afresh.

use crate::core::Harness;
use crate::derivative::{DerivEffects, DerivativeSemantics};
use crate::engine::{
    frontier_size, initial_state, run, Bounds, Frontier, Options, SearchProgress, Searcher,
};
use crate::exec::{ExecError, NameSupply, State, Violation};
use smt::Solver;
use sre::Sre;
use std::time::Instant;

/// Where a prestate length stands between rounds.
struct Pending {
    /// The frontier of the last round of this length (`None`: start afresh).
    frontier: Option<Vec<State<DerivEffects>>>,
    /// The [`frontier_size`] of `frontier`'s states.
    size: usize,
    /// Fresh names continue across the rounds of one length, so resumed states keep theirs.
    names: NameSupply,
}

/// The call bounds of the rounds: 1, 2, 4, … and the execution bound last.
pub(crate) fn call_bounds(exec_bound: usize) -> Vec<usize> {
    let mut depths = vec![1usize];
    while *depths.last().unwrap_or(&1) < exec_bound {
        let next = (depths.last().copied().unwrap_or(1) * 2).min(exec_bound);
        depths.push(next);
    }
    depths
}

/// Runs the rounds until a violation, the time limit, or the last round; gives the violation,
/// whether the time ran out, and the states and paths explored, and records in `progress` the
/// last round that ended and the one the time interrupted.
pub(crate) fn derivative_rounds(
    sem: &mut DerivativeSemantics,
    solver: &mut Solver,
    h: &Harness,
    opts: &Options,
    start: Instant,
    progress: &mut SearchProgress,
) -> Result<(Option<Violation>, bool, usize, usize), ExecError> {
    let mut pending: Vec<Pending> = (0..=opts.append_bound)
        .map(|_| Pending {
            frontier: None,
            size: 0,
            names: NameSupply::default(),
        })
        .collect();
    let (mut states, mut paths) = (0usize, 0usize);
    for (round, depth) in call_bounds(opts.exec_bound).into_iter().enumerate() {
        let round_opts = Options {
            exec_bound: depth,
            ..opts.clone()
        };
        for len in 0..pending.len() {
            sem.context_len = len;
            // what the other lengths' frontiers (this round's and the last one's) keep already
            let others: usize = pending
                .iter()
                .enumerate()
                .filter(|(l, _)| *l != len)
                .map(|(_, p)| p.size)
                .sum();
            let budget = opts.frontier_budget.saturating_sub(others);
            let p = &mut pending[len];
            p.size = 0;
            let initial = match p.frontier.take() {
                Some(frontier) if round > 0 => frontier,
                _ => {
                    p.names = NameSupply::default();
                    let init = DerivEffects::new(Sre::all(), opts.disjunctive_states);
                    vec![initial_state(h, init)]
                }
            };
            let resumed = if round > 0 { initial.len() } else { 0 };
            let r = run(
                sem,
                solver,
                h,
                Searcher::depth_first(),
                initial,
                &mut p.names,
                &round_opts,
                start,
                Frontier::Keep { budget },
            )?;
            if let Some(report) = opts.on_round {
                report(format!(
                    "calls ≤ {depth}, prestate length {len}: {} states, {} paths, {:.3}s, {} witnesses rejected, {} states resumed, {} stopped at the call bound, {} matches truncated",
                    r.states,
                    r.paths,
                    start.elapsed().as_secs_f64(),
                    sem.rejected,
                    resumed,
                    r.frontier.as_ref().map_or("too many".to_string(), |f| f.len().to_string()),
                    sem.deriver.truncated,
                ));
            }
            states += r.states;
            paths += r.paths;
            let bounds = Bounds {
                calls: depth,
                prestate_length: len,
            };
            // an `append` past the deadline stops sampling, so a round that ran past it may
            // have left executions out even when its last state was explored
            if r.violation.is_none() && (r.timed_out || Instant::now() > sem.deadline) {
                progress.interrupted = Some(bounds);
                return Ok((None, true, states, paths));
            }
            if r.violation.is_some() {
                return Ok((r.violation, false, states, paths));
            }
            progress.completed = Some(bounds);
            p.size = r
                .frontier
                .iter()
                .flatten()
                .map(|st| frontier_size(sem, st))
                .sum();
            p.frontier = r.frontier;
        }
    }
    Ok((None, false, states, paths))
}
