//! The sharding options of `lexprobe concolic`: `--plan N` prints a plan cutting the path tree
//! into subtrees for N shards; `--plan-file FILE --shard I/N` (or `--shard auto`, reading the
//! index from Slurm's or Kubernetes' environment) explores one shard of it. Every output of
//! `lexprobe concolic` ends with a `coverage` object (which plan and shard, which subtrees,
//! which of them complete), which `lexprobe merge` reads; a shard's JSON Lines output also
//! starts with a `shard` line, so that a shard killed before its last line is still named.

use super::concolic::ConcolicArgs;
use crate::catala::Loaded;
use concolic::inputs::Assignment;
use concolic::plan::Plan;
use concolic::shard::SubtreeCost;
use concolic::{Exploration, ExploreOptions, Optimizations, PathId};
use serde_json::{json, Value as Json};

/// The `format` field of plan files.
const PLAN_FORMAT: &str = "lexprobe-concolic-plan";

/// FNV-1a, 64 bits, as 16 hex digits: a content hash to tell programs and plans apart (not a
/// protection against forgery).
pub fn fnv64<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.iter().chain(&[0xff]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The hash of every source file of the program (the main file, its modules and the standard
/// library), in loading order.
pub fn program_hash(loaded: &Loaded) -> String {
    fnv64(loaded.sources.files.iter().map(|f| f.text.as_bytes()))
}

/// One shard to explore.
pub struct ShardSetup {
    /// Hash of the plan file's text.
    pub plan_hash: String,
    pub index: usize,
    pub count: usize,
    /// Subtrees in the whole plan.
    pub plan_subtrees: usize,
    pub subtrees: Vec<(PathId, Assignment)>,
}

/// `--plan N`: explores the top of the tree and prints the plan.
pub fn print_plan(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    options: &ExploreOptions,
    args: &ConcolicArgs,
    shards: usize,
) -> Result<(), String> {
    let plan = concolic::plan::make_plan(
        &loaded.program,
        scope,
        options,
        shards,
        args.plan_subtrees
            .unwrap_or_else(|| concolic::plan::default_subtrees(shards)),
    )
    .map_err(|e| e.to_string())?;
    let mut doc = json!({
        "format": PLAN_FORMAT,
        "version": 1,
        "program": {
            "file": args.file.display().to_string(),
            "hash": program_hash(loaded),
        },
        "scope": args.scope,
        "optim": args.optim,
        "order": args.order.name(),
    });
    if let (Json::Object(d), Json::Object(p)) = (&mut doc, plan.to_json()) {
        d.extend(p);
    }
    crate::format::print_json_line(&doc);
    eprintln!(
        "plan: {} subtrees for {} shards ({} runs; {} path queries, {} of them answered without \
         the solver; {} rounding queries; {:.3} s, {:.3} s of it in the solver{})",
        plan.subtrees.len(),
        plan.shards,
        plan.runs,
        plan.solver_calls,
        plan.queries_without_z3,
        plan.soft_solver_calls,
        plan.time.as_secs_f64(),
        plan.solver_time.as_secs_f64(),
        if plan.unknown_queries > 0 {
            format!(
                "; {} queries abandoned by the solver: the exploration will be incomplete",
                plan.unknown_queries
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Reads `--shard`: `I/N` (0 ≤ I < N), `auto` or `auto/N`. Returns the index and the count
/// when known. `auto` reads Slurm's job array variables (`SLURM_ARRAY_TASK_ID`, minus
/// `SLURM_ARRAY_TASK_MIN`, and `SLURM_ARRAY_TASK_COUNT`) or Kubernetes' Indexed Job index
/// (`JOB_COMPLETION_INDEX`; the count is then the plan's, or the one given).
pub fn parse_shard(
    spec: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(usize, Option<usize>), String> {
    let number = |what: &str, s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("--shard: {what} `{s}` is not a number"))
    };
    let (index_part, count) = match spec.split_once('/') {
        Some((i, n)) => (i, Some(number("count", n)?)),
        None => (spec, None),
    };
    let (index, count) = if index_part == "auto" {
        if let Some(id) = env("SLURM_ARRAY_TASK_ID") {
            let id = number("SLURM_ARRAY_TASK_ID", &id)?;
            let min = match env("SLURM_ARRAY_TASK_MIN") {
                Some(m) => number("SLURM_ARRAY_TASK_MIN", &m)?,
                None => 0,
            };
            let slurm_count = env("SLURM_ARRAY_TASK_COUNT")
                .map(|n| number("SLURM_ARRAY_TASK_COUNT", &n))
                .transpose()?;
            let index = id
                .checked_sub(min)
                .ok_or("--shard auto: SLURM_ARRAY_TASK_ID below SLURM_ARRAY_TASK_MIN")?;
            (index, count.or(slurm_count))
        } else if let Some(i) = env("JOB_COMPLETION_INDEX") {
            (number("JOB_COMPLETION_INDEX", &i)?, count)
        } else {
            return Err(
                "--shard auto: neither SLURM_ARRAY_TASK_ID (Slurm job array) nor JOB_COMPLETION_INDEX (Kubernetes Indexed Job) is set"
                    .into(),
            );
        }
    } else {
        (number("index", index_part)?, count)
    };
    if count == Some(0) {
        return Err("--shard: the count must be at least 1".into());
    }
    if let Some(n) = count {
        if index >= n {
            return Err(format!(
                "--shard: index {index} out of 0..{n} (indices start at 0)"
            ));
        }
    }
    Ok((index, count))
}

/// `--plan-file` and `--shard`: reads the plan, checks that it was made for this program,
/// scope and optimizations, and picks the shard's subtrees.
pub fn read_shard(loaded: &Loaded, args: &ConcolicArgs) -> Result<Option<ShardSetup>, String> {
    let (Some(path), Some(spec)) = (&args.plan_file, &args.shard) else {
        return match (&args.plan_file, &args.shard) {
            (None, None) => Ok(None),
            _ => Err("--plan-file and --shard go together".into()),
        };
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a plan: {e}", path.display()))?;
    if doc.get("format").and_then(Json::as_str) != Some(PLAN_FORMAT) {
        return Err(format!("{} is not a plan", path.display()));
    }
    let hash = doc
        .get("program")
        .and_then(|p| p.get("hash"))
        .and_then(Json::as_str)
        .unwrap_or("");
    let here = program_hash(loaded);
    if hash != here {
        let file = doc
            .get("program")
            .and_then(|p| p.get("file"))
            .and_then(Json::as_str)
            .unwrap_or("?");
        return Err(format!(
            "{} was made for another program ({file}, hash {hash}; this one is {here})",
            path.display()
        ));
    }
    let scope = doc.get("scope").and_then(Json::as_str).unwrap_or("");
    if scope != args.scope {
        return Err(format!(
            "{} was made for scope {scope}, not {}",
            path.display(),
            args.scope
        ));
    }
    let optim = doc.get("optim").and_then(Json::as_str).unwrap_or("");
    let same_optim = match (
        Optimizations::parse(optim),
        Optimizations::parse(&args.optim),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same_optim {
        return Err(format!(
            "{} was made with --optim {optim}, not {}",
            path.display(),
            args.optim
        ));
    }
    // Plans made before the evaluation order was an option were in the paper's.
    let order = doc.get("order").and_then(Json::as_str).unwrap_or("paper");
    if order != args.order.name() {
        return Err(format!(
            "{} was made with --order {order}, not {}",
            path.display(),
            args.order.name()
        ));
    }
    let plan = Plan::from_json(&doc).map_err(|e| format!("{}: {e}", path.display()))?;
    let (index, count) = parse_shard(spec, &|k| std::env::var(k).ok())?;
    if let Some(n) = count {
        if n != plan.shards {
            return Err(format!(
                "--shard: {n} shards, but {} was made for {}",
                path.display(),
                plan.shards
            ));
        }
    }
    if index >= plan.shards {
        return Err(format!(
            "--shard: index {index}, but {} has shards 0..{}",
            path.display(),
            plan.shards
        ));
    }
    Ok(Some(ShardSetup {
        plan_hash: fnv64([text.as_bytes()]),
        index,
        count: plan.shards,
        plan_subtrees: plan.subtrees.len(),
        subtrees: plan
            .shard(index)
            .into_iter()
            .map(|s| (s.prefix.clone(), s.assignment.clone()))
            .collect(),
    }))
}

/// The first line of a shard's JSON Lines output.
pub fn header_json(s: &ShardSetup) -> Json {
    json!({ "shard": {
        "plan": s.plan_hash,
        "index": s.index,
        "count": s.count,
        "plan_subtrees": s.plan_subtrees,
        "subtrees": s.subtrees.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>(),
    }})
}

/// What a shard's exploration reports of its subtrees, in the plan's order for this shard.
pub struct ShardDone {
    pub complete: Vec<bool>,
    pub costs: Vec<SubtreeCost>,
}

/// What an output covers: the plan and shard (null for a whole exploration, whose one
/// subtree is the root), its subtrees, those explored completely and what each cost
/// (`costs`: tests, path queries, CPU seconds, wall-clock seconds, in this process).
pub fn coverage_json(
    shard: Option<&ShardSetup>,
    exploration: &Exploration,
    done: Option<&ShardDone>,
) -> Json {
    match (shard, done) {
        (Some(s), Some(ShardDone { complete, costs })) => json!({
            "plan": s.plan_hash,
            "shard": [s.index, s.count],
            "plan_subtrees": s.plan_subtrees,
            "subtrees": s.subtrees.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>(),
            "complete": s
                .subtrees
                .iter()
                .zip(complete)
                .filter(|(_, c)| **c)
                .map(|((p, _), _)| p.to_string())
                .collect::<Vec<_>>(),
            "costs": costs
                .iter()
                .map(|c| json!([
                    c.tests,
                    c.queries,
                    rounded(c.cpu_time.as_secs_f64()),
                    rounded(c.wall_time.as_secs_f64()),
                ]))
                .collect::<Vec<_>>(),
        }),
        _ => json!({
            "plan": null,
            "shard": null,
            "plan_subtrees": 1,
            "subtrees": [""],
            "complete": if exploration.stats.complete { vec![""] } else { Vec::new() },
        }),
    }
}

/// Seconds to the millisecond, for the costs of subtrees.
fn rounded(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn shard_indices_from_the_command_line_and_the_schedulers() {
        assert_eq!(parse_shard("3/8", &env(&[])), Ok((3, Some(8))));
        assert!(parse_shard("8/8", &env(&[])).is_err());
        assert!(parse_shard("x/8", &env(&[])).is_err());
        assert!(parse_shard("auto", &env(&[])).is_err());
        // A Slurm array `--array=1-8`: task 3 is the third shard, index 2.
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ];
        assert_eq!(parse_shard("auto", &env(&slurm)), Ok((2, Some(8))));
        let k8s = [("JOB_COMPLETION_INDEX", "5")];
        assert_eq!(parse_shard("auto", &env(&k8s)), Ok((5, None)));
        assert_eq!(parse_shard("auto/6", &env(&k8s)), Ok((5, Some(6))));
        assert!(parse_shard("auto/4", &env(&k8s)).is_err());
    }

    #[test]
    fn the_hash_tells_contents_apart() {
        assert_eq!(fnv64([&b""[..]]), fnv64([&b""[..]]));
        assert_ne!(fnv64([&b"ab"[..], b"c"]), fnv64([&b"a"[..], b"bc"]));
        // No part at all: FNV-1a's offset basis, untouched.
        assert_eq!(fnv64(std::iter::empty::<&[u8]>()), "cbf29ce484222325");
    }
}
