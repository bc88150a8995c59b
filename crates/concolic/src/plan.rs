//! Plans of a sharded exploration: the top of the path tree explored just far enough to cut
//! it into many disjoint subtrees, each given to one shard. A subtree is named by the branch
//! decisions of its common prefix ([`PathId`]) and comes with inputs whose run follows that
//! prefix; a shard explores it depth-first below the prefix ([`crate::shard`]).
//!
//! Splitting a subtree runs its inputs once: the run's path `p` (prefix length `f`) is itself
//! one subtree, of a single path (its prefix is the whole of `p`), and each open branch `j ≥ f`
//! of `p` gives the subtree `p[..j] ∧ ¬p[j]` when the solver finds inputs for it — exactly the
//! split a depth-first search makes, so the subtrees of a plan are disjoint and together hold
//! every path of the tree. The subtree with the most open branches below its prefix is split
//! first, until there are as many as asked; then each goes to the shard with the smallest
//! estimated load (largest first), the estimate being its open branches.
//!
//! The estimate is rough (on the housing benefits every path has about 50 open branches
//! whatever the size of the subtree below), so balance comes from numbers: with 1,024
//! subtrees the largest holds 93 of the 17,435 paths of the restricted housing benefits, and
//! 8 or 32 shards get within 4 % and 10 % of the mean number of paths.
//! [`default_subtrees`] asks for that many, or 32 per shard when there are more shards.

use crate::checkpoint::{value_from, value_json};
use crate::explore::{transform, Worker};
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::symbolic::PathConstraint;
use crate::{ConcolicError, ExploreOptions};
use catala_ir::dcalc::{Program, ScopeId};
use serde_json::{json, Value as Json};
use smt::catala::term::{self, Term};
use smt::catala::QueryOutcome;
use std::time::{Duration, Instant};

/// One subtree of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Subtree {
    /// The branch decisions every path of the subtree starts with.
    pub prefix: PathId,
    /// Inputs whose run follows the prefix.
    pub assignment: Assignment,
    /// The shard exploring it (0-based).
    pub shard: usize,
    /// Open branches below the prefix on the run of `assignment` (0: a single path).
    pub open: usize,
}

/// A plan: the subtrees, in depth-first order of their prefixes, and what making it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub shards: usize,
    pub subtrees: Vec<Subtree>,
    /// Branches whose query the solver gave up on: their subtrees are in no shard.
    pub unknown_queries: usize,
    /// Runs that left the prefix they were solved for.
    pub divergences: usize,
    pub runs: usize,
    pub solver_calls: u64,
    pub time: Duration,
}

/// A subtree while the plan is made: its inputs and the path they follow.
struct Piece {
    prefix: PathId,
    assignment: Assignment,
    path: Vec<PathConstraint>,
    /// The run stayed under the prefix.
    follows: bool,
    /// Already split (it stands for the single path of its run).
    leaf: bool,
}

impl Piece {
    fn open(&self) -> usize {
        if self.leaf || !self.follows {
            return 0;
        }
        self.path[self.prefix.len()..]
            .iter()
            .filter(|c| !c.fixed)
            .count()
    }
}

/// The number of subtrees a plan for `shards` shards aims at by default.
pub fn default_subtrees(shards: usize) -> usize {
    shards.saturating_mul(32).max(1024)
}

/// Makes a plan for `shards` shards with about `subtrees` subtrees (fewer when the tree has
/// fewer paths).
pub fn make_plan(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    shards: usize,
    subtrees: usize,
) -> Result<Plan, ConcolicError> {
    let shards = shards.max(1);
    let target = subtrees.max(shards);
    let start = Instant::now();
    let transformed = transform(program, options.optimizations);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    let mut runs = 0;
    let mut divergences = 0;
    let mut unknown_queries = 0;
    let mut run = |worker: &mut Worker, prefix: PathId, assignment: Assignment| -> Piece {
        runs += 1;
        let path = worker.executor.run(&assignment).path;
        let follows = prefix.is_prefix_of(&PathId::of(&path));
        Piece {
            prefix,
            assignment,
            path,
            follows,
            leaf: false,
        }
    };
    let initial = worker.initial_assignment()?;
    let mut pieces = vec![run(&mut worker, PathId::default(), initial)];
    while pieces.len() < target {
        // The piece with the most open branches (the shallowest among equals).
        let Some((k, _)) = pieces
            .iter()
            .enumerate()
            .map(|(k, p)| (k, p.open()))
            .filter(|(_, open)| *open > 0)
            .max_by(|(a, oa), (b, ob)| {
                oa.cmp(ob)
                    .then(pieces[*b].prefix.len().cmp(&pieces[*a].prefix.len()))
            })
        else {
            break;
        };
        let floor = pieces[k].prefix.len();
        let id = PathId::of(&pieces[k].path);
        let mut children = Vec::new();
        for j in floor..pieces[k].path.len() {
            if pieces[k].path[j].fixed {
                continue;
            }
            let mut query: Vec<Term> = pieces[k].path[..j].iter().map(|c| c.term.clone()).collect();
            query.push(term::not(&pieces[k].path[j].term));
            match worker.session.check_path(&query)? {
                QueryOutcome::Sat => {
                    let (assignment, _) = worker.model_inputs(&query)?;
                    if let Some(prefix) = id.sibling_subtree(j) {
                        children.push((prefix, assignment));
                    }
                }
                QueryOutcome::Unsat => {}
                QueryOutcome::Unknown => unknown_queries += 1,
            }
        }
        let piece = &mut pieces[k];
        piece.prefix = id;
        piece.leaf = true;
        for (prefix, assignment) in children {
            let child = run(&mut worker, prefix, assignment);
            if !child.follows {
                divergences += 1;
            }
            pieces.push(child);
        }
    }
    pieces.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    let mut subtrees: Vec<Subtree> = pieces
        .into_iter()
        .map(|p| Subtree {
            open: p.open(),
            prefix: p.prefix,
            assignment: p.assignment,
            shard: 0,
        })
        .collect();
    assign_shards(&mut subtrees, shards);
    Ok(Plan {
        shards,
        subtrees,
        unknown_queries,
        divergences,
        runs,
        solver_calls: worker.session.stats().path_queries,
        time: start.elapsed(),
    })
}

/// The estimated number of paths of a subtree with `open` open branches below its prefix.
fn estimated_size(open: usize) -> u64 {
    1 + open as u64
}

/// Gives each subtree to the shard with the smallest estimated load so far, largest first
/// (ties: the earlier subtree, the lower shard).
fn assign_shards(subtrees: &mut [Subtree], shards: usize) {
    let mut order: Vec<usize> = (0..subtrees.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(estimated_size(subtrees[i].open)));
    let mut load = vec![0u64; shards];
    for i in order {
        let mut lightest = 0;
        for s in 1..shards {
            if load[s] < load[lightest] {
                lightest = s;
            }
        }
        load[lightest] += estimated_size(subtrees[i].open);
        subtrees[i].shard = lightest;
    }
}

impl Plan {
    /// The subtrees of shard `index` (0-based), in depth-first order.
    pub fn shard(&self, index: usize) -> Vec<&Subtree> {
        self.subtrees.iter().filter(|s| s.shard == index).collect()
    }

    pub fn to_json(&self) -> Json {
        json!({
            "shards": self.shards,
            "unknown_queries": self.unknown_queries,
            "divergences": self.divergences,
            "runs": self.runs,
            "solver_calls": self.solver_calls,
            "time_s": self.time.as_secs_f64(),
            "subtrees": self.subtrees.iter().map(|s| json!({
                "prefix": s.prefix.to_string(),
                "shard": s.shard,
                "open": s.open,
                "inputs": s.assignment.iter().map(value_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    pub fn from_json(j: &Json) -> Result<Plan, String> {
        let number = |k: &str| j.get(k).and_then(Json::as_u64).ok_or(format!("no {k}"));
        let shards = number("shards")? as usize;
        if shards == 0 {
            return Err("a plan for 0 shards".into());
        }
        let mut subtrees = Vec::new();
        for s in j
            .get("subtrees")
            .and_then(Json::as_array)
            .ok_or("no subtrees")?
        {
            let prefix = PathId::parse(s.get("prefix").and_then(Json::as_str).ok_or("no prefix")?)?;
            let shard = s.get("shard").and_then(Json::as_u64).ok_or("no shard")? as usize;
            if shard >= shards {
                return Err(format!("subtree {prefix} in shard {shard} of {shards}"));
            }
            let assignment = s
                .get("inputs")
                .and_then(Json::as_array)
                .ok_or("no inputs")?
                .iter()
                .map(value_from)
                .collect::<Result<Vec<_>, _>>()?;
            subtrees.push(Subtree {
                prefix,
                assignment,
                shard,
                open: s.get("open").and_then(Json::as_u64).unwrap_or(0) as usize,
            });
        }
        Ok(Plan {
            shards,
            subtrees,
            unknown_queries: number("unknown_queries")? as usize,
            divergences: number("divergences")? as usize,
            runs: number("runs")? as usize,
            solver_calls: number("solver_calls")?,
            time: j
                .get("time_s")
                .and_then(Json::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
                .unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subtree(open: usize) -> Subtree {
        Subtree {
            prefix: PathId::default(),
            assignment: Vec::new(),
            shard: 0,
            open,
        }
    }

    #[test]
    fn the_largest_subtrees_are_spread_first() {
        let mut s: Vec<Subtree> = [9, 1, 0, 7, 3, 0].into_iter().map(subtree).collect();
        assign_shards(&mut s, 2);
        // Estimates 10 (#0), 8 (#3), 4 (#4), 2 (#1), 1 (#2), 1 (#5): #0 → shard 0 (10, 0);
        // #3 → 1 (10, 8); #4 → 1 (10, 12); #1 → 0 (12, 12); #2 → 0 on a tie (13, 12);
        // #5 → 1 (13, 13).
        let shards: Vec<usize> = s.iter().map(|t| t.shard).collect();
        assert_eq!(shards, [0, 0, 0, 1, 1, 1]);
    }
}
