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
//! estimated load (largest first).
//!
//! The estimate of a subtree's cost is its *weight*, `1.2^open × 1.3^h`: `open` the open
//! branches below its prefix on the run of its inputs, `h` the products, divisions and
//! roundings in that run's path condition ([`weight_of`]). What a subtree costs is mostly
//! solver time, and that depends on what its conditions say more than on how many paths it
//! holds: on the restricted housing benefits, a 32-shard plan's subtrees cost 0.02 s of CPU on
//! average and the dearest, of about 30 paths each, 0.3 s: they lie deep in the rent ceilings
//! of furnished housing, where each query carries long chains of money roundings. Against the
//! CPU each subtree of a 32-shard plan actually cost, the open branches alone correlate at
//! 0.35, times the path length at 0.38, the size in term nodes of the open conditions at 0.27,
//! and `open × 1.3^h` at 0.65. The rest is evened out by numbers, which is why a plan has many
//! more subtrees than shards ([`default_subtrees`]).

use crate::checkpoint::{value_from, value_json};
use crate::executor::PathExecutor;
use crate::exploration_loop::{drive, Flow, LoopSteps, Negation};
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::symbolic::PathConstraint;
use crate::worker::{transform, Worker};
use crate::{ConcolicError, ExploreOptions};
use catala_ir::dcalc::{Program, ScopeId};
use serde_json::{json, Value as Json};
use smt::catala::term::{self, Op, Term, TermNode};
use smt::catala::QueryOutcome;
use std::collections::VecDeque;
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
    /// The estimated cost of exploring the subtree, `1.2^open × 1.3^h` with `h` the nonlinear
    /// and rounding operations of the path of `assignment` (0: a single path).
    pub weight: u64,
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
    /// Path queries answered without the solver (included in `solver_calls`).
    pub queries_without_z3: u64,
    /// Queries made to round the inputs of the subtrees' runs.
    pub soft_solver_calls: u64,
    /// Time spent in the solver's checks.
    pub solver_time: Duration,
    pub time: Duration,
}

/// A subtree while the plan is made: its inputs and the path they follow.
#[derive(Clone)]
struct Piece {
    prefix: PathId,
    assignment: Assignment,
    path: Vec<PathConstraint>,
    /// The run stayed under the prefix.
    follows: bool,
    /// Already split (it stands for the single path of its run).
    leaf: bool,
    /// Nonlinear and rounding operations in the path condition ([`nonlinear_operations`]).
    hard: u32,
}

impl Piece {
    /// The conditions below the prefix that a depth-first search will negate.
    fn open_conditions(&self) -> impl Iterator<Item = &PathConstraint> {
        let below = if self.leaf || !self.follows {
            &[][..]
        } else {
            &self.path[self.prefix.len().min(self.path.len())..]
        };
        below.iter().filter(|c| !c.fixed)
    }

    fn open(&self) -> usize {
        self.open_conditions().count()
    }

    /// The estimated cost of exploring the subtree ([`weight_of`]).
    fn weight(&self) -> u64 {
        weight_of(self.open(), self.hard)
    }
}

/// The weight of a subtree with `open` open branches on a path condition holding `hard`
/// nonlinear or rounding operations: `1.2^open × 1.3^hard` (0 for a single path). The paths
/// below grow geometrically with the open branches, and a query's cost with the products,
/// divisions and roundings in it. The bases were chosen on the restricted housing benefits:
/// replaying the measured CPU of each subtree of four plans (8 and 32 shards), assignment by
/// this weight left the slowest shard at 1.22–1.30 × the mean, by `open × 1.3^hard` at
/// 1.18–1.57, by the open branches alone at 1.31–1.64; in runs, 8 shards were at 1.35 and
/// 1.43, 32 shards at 1.25–1.33 (BENCHMARKS.md).
fn weight_of(open: usize, hard: u32) -> u64 {
    if open == 0 {
        return 0;
    }
    // Bounded exponents keep the weight within u64 (1.2^60 · 1.3^60 ≈ 3.9e11).
    let w = 1.2f64.powi(open.min(60) as i32) * 1.3f64.powi(hard.min(60) as i32);
    w.round() as u64
}

/// The distinct products, divisions, roundings, truncations and integer divisions in the
/// terms of `path` (shared subterms counted once).
fn nonlinear_operations(path: &[PathConstraint]) -> u32 {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<&Term> = path.iter().map(|c| &c.term).collect();
    let mut count = 0u32;
    while let Some(t) = stack.pop() {
        if !seen.insert(std::rc::Rc::as_ptr(t)) {
            continue;
        }
        if let TermNode::App(op, args) = &**t {
            if matches!(
                op,
                Op::Mul | Op::Div | Op::Round | Op::Truncate | Op::IntDiv | Op::Mod
            ) {
                count = count.saturating_add(1);
            }
            stack.extend(args.iter());
        }
    }
    count
}

/// The number of subtrees a plan for `shards` shards aims at by default: 1,024, or 64 per
/// shard beyond 16 shards. On the restricted housing benefits (34–37 s of CPU in one
/// process), 32 shards with 1,024 subtrees were 2.0 × off balance in CPU time (one subtree of
/// 93 paths cost 0.84 of a mean shard); with 2,048, 1.25–1.33 ×, for a plan of 2.0 s of CPU;
/// with 4,096 (weighed by open branches × path length), 1.27–1.51 ×, for a plan of 4.3 s
/// (12 % of the exploration).
pub fn default_subtrees(shards: usize) -> usize {
    shards.saturating_mul(64).max(1024)
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
    let transformed = transform(program, options);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    let initial = worker.initial_assignment()?;
    let mut steps = PlanSteps {
        worker: &mut worker,
        target,
        pieces: Vec::new(),
        children: VecDeque::new(),
        runs: 0,
        divergences: 0,
        unknown_queries: 0,
    };
    drive(&mut steps, (PathId::default(), initial))?;
    let PlanSteps {
        mut pieces,
        runs,
        divergences,
        unknown_queries,
        ..
    } = steps;
    pieces.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    let mut subtrees: Vec<Subtree> = pieces
        .into_iter()
        .map(|p| Subtree {
            open: p.open(),
            weight: p.weight(),
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
        queries_without_z3: worker.session.stats().fast_queries,
        soft_solver_calls: worker.session.stats().soft_queries,
        solver_time: worker.session.stats().solver_time,
        time: start.elapsed(),
    })
}

/// The planner as an instance of the exploration loop (`crate::exploration_loop`): the
/// executor runs the inputs of each subtree found and the leaf hook makes the run a piece;
/// the searcher picks the piece with the most open branches and negates them all, deepest
/// first (their children wait for their runs); the loop ends when there are `target` pieces
/// or none has an open branch left.
struct PlanSteps<'w, 'p> {
    worker: &'w mut Worker<'p>,
    target: usize,
    pieces: Vec<Piece>,
    /// The subtrees of the last piece split, waiting for their runs.
    children: VecDeque<(PathId, Assignment)>,
    runs: usize,
    divergences: usize,
    unknown_queries: usize,
}

impl LoopSteps for PlanSteps<'_, '_> {
    type Inputs = (PathId, Assignment);

    fn run(&mut self, (prefix, mut assignment): Self::Inputs) -> Result<Flow, ConcolicError> {
        self.runs += 1;
        let mut run = self.worker.executor.execute(&assignment);
        if run.started_outside && prefix.is_empty() {
            // A start outside the scope's input space: the plan starts from a model of it, as
            // an exploration does (the pieces are within the space every query is in).
            match self.worker.session.check_path(&[])? {
                QueryOutcome::Sat => {
                    assignment = self.worker.model_inputs(&[])?.0;
                    self.runs += 1;
                    run = self.worker.executor.execute(&assignment);
                }
                QueryOutcome::Unsat => return Ok(Flow::Continue),
                QueryOutcome::Unknown => {
                    self.unknown_queries += 1;
                    return Ok(Flow::Continue);
                }
            }
        }
        let path = run.path;
        let follows = prefix.is_prefix_of(&PathId::of(&path));
        if !follows {
            self.divergences += 1;
        }
        let hard = nonlinear_operations(&path);
        self.pieces.push(Piece {
            hard,
            prefix,
            assignment,
            path,
            follows,
            leaf: false,
        });
        Ok(Flow::Continue)
    }

    fn negate(&mut self) -> Result<Negation<Self::Inputs>, ConcolicError> {
        if let Some(child) = self.children.pop_front() {
            return Ok(Negation::Next(child));
        }
        if self.pieces.len() >= self.target {
            return Ok(Negation::Exhausted);
        }
        // The piece with the most open branches (the shallowest among equals): the number
        // of paths below grows with them, and a piece left with many is the one that can hold
        // thousands of paths (a weight, which also counts the path's length, let one of 2,904
        // paths through to an 8-shard plan, 2.2 × off balance).
        let pieces = &self.pieces;
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
            return Ok(Negation::Exhausted);
        };
        self.split(k)?;
        Ok(Negation::Closed)
    }
}

impl PlanSteps<'_, '_> {
    /// Negates every open branch of piece `k` below its prefix; the piece becomes the single
    /// path of its run and the subtrees found wait for their runs.
    fn split(&mut self, k: usize) -> Result<(), ConcolicError> {
        let worker = &mut *self.worker;
        let piece = &self.pieces[k];
        let floor = piece.prefix.len();
        let id = PathId::of(&piece.path);
        // The branches are negated deepest first, each query guessed from the inputs of the
        // last subtree found, as a depth-first search meets them (it comes back to a branch
        // from the last path below it): the subtrees get inputs like those a single run would
        // give them. Guessing from the piece's own inputs at every branch found fewer models
        // without Z3, and the shards, starting from less round inputs, guessed less too: on
        // the restricted housing benefits in 32 shards, 39.7 s of CPU against 40.9 s.
        worker.remember_inputs(&piece.assignment);
        for j in (floor..piece.path.len()).rev() {
            if piece.path[j].fixed {
                continue;
            }
            let mut query: Vec<Term> = piece.path[..j].iter().map(|c| c.term.clone()).collect();
            query.push(term::not(&piece.path[j].term));
            match worker.session.check_path(&query)? {
                QueryOutcome::Sat => {
                    let (assignment, _) = worker.model_inputs(&query)?;
                    worker.remember_inputs(&assignment);
                    if let Some(prefix) = id.sibling_subtree(j) {
                        self.children.push_back((prefix, assignment));
                    }
                }
                QueryOutcome::Unsat => {}
                QueryOutcome::Unknown => self.unknown_queries += 1,
            }
        }
        let piece = &mut self.pieces[k];
        piece.prefix = id;
        piece.leaf = true;
        Ok(())
    }
}

/// The estimated cost of a subtree: its weight, and one for the run of its inputs.
fn estimated_cost(s: &Subtree) -> u64 {
    1 + s.weight
}

/// Gives each subtree to the shard with the smallest estimated load so far, largest first
/// (ties: the earlier subtree, the lower shard).
fn assign_shards(subtrees: &mut [Subtree], shards: usize) {
    let mut order: Vec<usize> = (0..subtrees.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(estimated_cost(&subtrees[i])));
    let mut load = vec![0u64; shards];
    for i in order {
        let mut lightest = 0;
        for s in 1..shards {
            if load[s] < load[lightest] {
                lightest = s;
            }
        }
        load[lightest] += estimated_cost(&subtrees[i]);
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
            "queries_without_z3": self.queries_without_z3,
            "soft_solver_calls": self.soft_solver_calls,
            "solver_time_s": self.solver_time.as_secs_f64(),
            "time_s": self.time.as_secs_f64(),
            "subtrees": self.subtrees.iter().map(|s| json!({
                "prefix": s.prefix.to_string(),
                "shard": s.shard,
                "open": s.open,
                "weight": s.weight,
                "inputs": s.assignment.iter().map(value_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    pub fn from_json(j: &Json) -> Result<Plan, String> {
        let number = |k: &str| j.get(k).and_then(Json::as_u64).ok_or(format!("no {k}"));
        let seconds = |k: &str| {
            j.get(k)
                .and_then(Json::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
                .unwrap_or_default()
        };
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
                weight: s.get("weight").and_then(Json::as_u64).unwrap_or(0),
            });
        }
        Ok(Plan {
            shards,
            subtrees,
            unknown_queries: number("unknown_queries")? as usize,
            divergences: number("divergences")? as usize,
            runs: number("runs")? as usize,
            solver_calls: number("solver_calls")?,
            queries_without_z3: j
                .get("queries_without_z3")
                .and_then(Json::as_u64)
                .unwrap_or(0),
            soft_solver_calls: j
                .get("soft_solver_calls")
                .and_then(Json::as_u64)
                .unwrap_or(0),
            solver_time: seconds("solver_time_s"),
            time: seconds("time_s"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subtree(weight: u64) -> Subtree {
        Subtree {
            prefix: PathId::default(),
            assignment: Vec::new(),
            shard: 0,
            open: 1,
            weight,
        }
    }

    #[test]
    fn a_weight_grows_with_open_branches_and_nonlinear_operations() {
        use crate::symbolic::ConstraintOrigin;
        use smt::catala::term::{app, int_const, var};
        use smt::catala::{Kind, VarId};
        let x = var(VarId(0), Kind::Int);
        // x · x appears twice but is one shared term; round(x / 3) adds a division and a
        // rounding: 3 nonlinear operations in all.
        let square = app(Op::Mul, vec![x.clone(), x.clone()]);
        let third = app(
            Op::Round,
            vec![app(
                Op::Div,
                vec![
                    app(Op::ToReal, vec![x.clone()]),
                    smt::catala::term::real_const("3", "1"),
                ],
            )],
        );
        let c = |term: Term, fixed: bool| PathConstraint {
            term,
            fixed,
            origin: ConstraintOrigin::If,
            span: Default::default(),
            way: 1,
            repeated_at: Vec::new(),
        };
        let path = vec![
            c(app(Op::Gt, vec![x.clone(), int_const("0")]), false),
            c(app(Op::Gt, vec![square.clone(), int_const("4")]), false),
            c(app(Op::Lt, vec![square, int_const("100")]), false),
            c(app(Op::Ge, vec![third, int_const("2")]), true),
            c(app(Op::Le, vec![x, int_const("50")]), false),
        ];
        assert_eq!(nonlinear_operations(&path), 3);
        // The first 2 constraints in the prefix, one of the 3 below fixed: 2 open branches.
        let piece = Piece {
            prefix: PathId::parse("11").unwrap_or_default(),
            assignment: Vec::new(),
            hard: nonlinear_operations(&path),
            path,
            follows: true,
            leaf: false,
        };
        assert_eq!(piece.open(), 2);
        // 1.2² × 1.3³ = 3.16.
        assert_eq!(piece.weight(), 3);
        // 1.2¹⁰ × 1.3¹⁰ = 6.19 × 13.79 = 85.36.
        assert_eq!(weight_of(10, 10), 85);
        assert_eq!(weight_of(0, 30), 0);
        // Three more nonlinear operations outweigh four more open branches: 1,795 and 1,695.
        assert!(weight_of(8, 23) > weight_of(12, 20));
        // Split (a single path), or left off its prefix: nothing below to explore.
        assert_eq!(
            Piece {
                leaf: true,
                ..piece.clone()
            }
            .weight(),
            0
        );
        assert_eq!(
            Piece {
                follows: false,
                ..piece
            }
            .weight(),
            0
        );
    }

    #[test]
    fn the_heaviest_subtrees_are_spread_first() {
        let mut s: Vec<Subtree> = [9, 1, 0, 7, 3, 0].into_iter().map(subtree).collect();
        assign_shards(&mut s, 2);
        // Estimates 10 (#0), 8 (#3), 4 (#4), 2 (#1), 1 (#2), 1 (#5): #0 → shard 0 (10, 0);
        // #3 → 1 (10, 8); #4 → 1 (10, 12); #1 → 0 (12, 12); #2 → 0 on a tie (13, 12);
        // #5 → 1 (13, 13).
        let shards: Vec<usize> = s.iter().map(|t| t.shard).collect();
        assert_eq!(shards, [0, 0, 0, 1, 1, 1]);
    }
}
