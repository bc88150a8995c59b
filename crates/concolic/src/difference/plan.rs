//! Plans of a pair's path tree, for the threads of `diff --jobs` and the shards of
//! `diff --plan`: the top of the tree explored just far enough to cut it into disjoint
//! subtrees, as the plans of a single program's tree are made (`crate::plan`), and in the
//! same form ([`Plan`]): each subtree named by the decisions of its prefix ([`PathId`] of the
//! product's path condition, both versions' constraints in run order) with inputs whose run
//! follows it. The splitting is an instance of the exploration loop
//! (`crate::relational_loop::plan_pieces`): the piece with the most open branches is split
//! first; its run becomes a subtree of one path and every open branch below its prefix,
//! negated, a subtree of its own (a query the solver gives up on loses that subtree: the plan
//! counts it). Each subtree goes
//! to the shard with the smallest load, the heaviest first, its weight `1.2^open` (the paths
//! below grow geometrically with the open branches).

use super::product::Product;
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::plan::{Plan, Subtree};
use crate::relational::RelationalOptions;
use crate::relational_loop::plan_pieces;
use crate::ConcolicError;
use catala_ir::dcalc::Program;
use std::time::Instant;

/// `1.2^open`, 0 for a single path.
fn weight_of(open: usize) -> u64 {
    if open == 0 {
        return 0;
    }
    1.2f64
        .powi(open.min(200) as i32)
        .round()
        .min(u64::MAX as f64) as u64
}

/// A plan of the pair's tree for `shards` shards with about `target` subtrees.
pub(crate) fn make_plan(
    product: &Product,
    programs: &[&Program],
    options: &RelationalOptions,
    shards: usize,
    target: usize,
) -> Result<Plan, ConcolicError> {
    let start = Instant::now();
    let shards = shards.max(1);
    let mut parts = product.parts(programs, options)?;
    let mut plan = Plan {
        shards,
        subtrees: Vec::new(),
        unknown_queries: 0,
        divergences: 0,
        runs: 0,
        solver_calls: 0,
        queries_without_z3: 0,
        soft_solver_calls: 0,
        solver_time: Default::default(),
        time: Default::default(),
    };
    let first = match parts.first_assignment()? {
        Ok(a) => a,
        Err((_, unknown, _)) => {
            // No input at all (nothing to explore), or the solver could not tell.
            plan.unknown_queries = unknown;
            return Ok(plan);
        }
    };
    let target = target.max(shards);
    let made = plan_pieces(
        (&mut parts.executor, &mut parts.session, &parts.q),
        first,
        target,
    )?;
    plan.runs = made.runs;
    plan.divergences = made.divergences;
    plan.unknown_queries = made.unknown_queries;
    let mut pieces = made.pieces;
    pieces.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    plan.subtrees = pieces
        .into_iter()
        .map(|p| Subtree {
            weight: weight_of(p.open),
            open: p.open,
            prefix: p.prefix,
            assignment: p.assignment,
            shard: 0,
        })
        .collect();
    assign_shards(&mut plan.subtrees, shards);
    let stats = parts.session.stats();
    plan.solver_calls = stats.path_queries;
    plan.queries_without_z3 = stats.fast_queries;
    plan.soft_solver_calls = stats.soft_queries;
    plan.solver_time = stats.solver_time;
    plan.time = start.elapsed();
    Ok(plan)
}

/// Each subtree to the shard with the smallest load so far, the heaviest first.
fn assign_shards(subtrees: &mut [Subtree], shards: usize) {
    let mut order: Vec<usize> = (0..subtrees.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(subtrees[i].weight));
    let mut load = vec![0u64; shards];
    for i in order {
        let lightest = (0..shards).min_by_key(|s| load[*s]).unwrap_or(0);
        load[lightest] = load[lightest].saturating_add(1 + subtrees[i].weight);
        subtrees[i].shard = lightest;
    }
}

/// The subtrees of `plan` (those of shard `shard` when given), the heaviest first: a thread
/// free takes the next, so the long ones start early.
pub(crate) fn seeds(plan: &Plan, shard: Option<usize>) -> Vec<(PathId, Assignment)> {
    let mut chosen: Vec<&Subtree> = plan
        .subtrees
        .iter()
        .filter(|s| shard.is_none_or(|k| s.shard == k))
        .collect();
    chosen.sort_by_key(|s| std::cmp::Reverse(s.weight));
    chosen
        .into_iter()
        .map(|s| (s.prefix.clone(), s.assignment.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_subtrees_are_spread_over_the_shards() {
        let s = |weight: u64| Subtree {
            prefix: PathId::default(),
            assignment: Vec::new(),
            shard: 0,
            open: 1,
            weight,
        };
        let mut subtrees: Vec<Subtree> = [8, 1, 7, 0].into_iter().map(s).collect();
        assign_shards(&mut subtrees, 2);
        // 8 → shard 0 (9, 0); 7 → 1 (9, 8); 1 → 1 (9, 10); 0 → 0 (10, 10).
        let shards: Vec<usize> = subtrees.iter().map(|t| t.shard).collect();
        assert_eq!(shards, [0, 1, 1, 0]);
        assert_eq!(weight_of(0), 0);
        // 1.2^10 = 6.19.
        assert_eq!(weight_of(10), 6);
    }
}
