//! `lexprobe diff` at scale: the exploration of the pair with several threads (`--jobs`), a
//! plan cutting the pair's path tree into disjoint subtrees for shards (`--plan`), one shard
//! of it (`--plan-file F --shard I/N`, whose output is a *part*: the differing path pairs as
//! their identifiers and models, and the figures), and the result of the parts of every shard
//! (`lexprobe merge`, which runs `diff` again with the command the shards recorded and their
//! parts: the differing pairs are run on the pair again and grouped into regions as one
//! exploration groups them). A merge is complete when every shard of the plan is there and
//! complete; equivalent only then, and when no shard found a difference. Checkpoints are
//! [`super::checkpoint`]'s.

use crate::commands::diff::DiffArgs;
use crate::exit;
use crate::format::OutputFormat;
use catala_ir::dcalc::{Program, ScopeId};
use concolic::difference::{
    difference_of_part, explore_difference, explore_plan, plan_difference, DifferenceError,
    DifferenceOptions, DifferencePart, DifferenceResult, InterfaceMapping, Plan, Verdict,
    SUBTREES_PER_JOB,
};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};

/// The `format` field of plan files of `diff`.
const PLAN_FORMAT: &str = "lexprobe-diff-plan";

/// What the exploration step of `diff` gave.
pub(crate) enum Explored {
    /// A result to report as usual.
    Whole(Box<DifferenceResult>),
    /// A plan or a shard's part was printed (or a usage error): exit with this code.
    Printed(i32),
}

fn usage(json: bool, message: &str) -> Explored {
    if json {
        println!("{}", json!({"error": "usage", "message": message}));
    } else {
        eprintln!("lexprobe diff: {message}");
    }
    Explored::Printed(exit::USAGE)
}

/// Explores as the arguments say: a plan, one shard, the parts of the shards, or the whole
/// pair (with `--jobs` threads).
pub(crate) fn explore(
    args: &DiffArgs,
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
) -> Result<Explored, DifferenceError> {
    let json = args.format == OutputFormat::Json;
    if let Some(shards) = args.plan {
        if shards == 0 {
            return Ok(usage(json, "--plan needs at least 1 shard"));
        }
        let subtrees = args
            .plan_subtrees
            .unwrap_or(shards.saturating_mul(SUBTREES_PER_JOB));
        let plan = plan_difference(old, new, mapping, options, shards, subtrees)?;
        let mut j = plan.to_json();
        j["format"] = json!(PLAN_FORMAT);
        j["scope"] = json!(args.scope);
        println!("{j:#}");
        return Ok(Explored::Printed(exit::SUCCESS));
    }
    if let (Some(file), Some(spec)) = (&args.plan_file, &args.shard) {
        let (plan, index) = match read_plan(file, spec) {
            Ok(x) => x,
            Err(e) => return Ok(usage(json, &e)),
        };
        let start = std::time::Instant::now();
        let part = explore_plan(old, new, mapping, options, &plan, Some(index), start)?;
        println!("{:#}", shard_json(args, &plan, index, &part));
        let code = if !part.found.is_empty() {
            exit::DIFFERS
        } else if part.complete {
            exit::SUCCESS
        } else {
            exit::INCONCLUSIVE
        };
        return Ok(Explored::Printed(code));
    }
    if args.checkpoint.is_some() || args.resume.is_some() {
        return match super::checkpoint::explore(args, old, new, mapping, options) {
            Ok(Ok(result)) => Ok(Explored::Whole(Box::new(result))),
            Ok(Err(e)) => Ok(usage(json, &e)),
            Err(e) => Err(e),
        };
    }
    if !args.from_shards.is_empty() {
        let (part, missing) = match read_parts(&args.from_shards) {
            Ok(x) => x,
            Err(e) => return Ok(usage(json, &e)),
        };
        let mut result = difference_of_part(old, new, mapping, options, part)?;
        if !missing.is_empty() {
            result.complete = false;
            result.incomplete.push(format!(
                "shards missing from the merge: {}",
                missing
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if result.verdict == Verdict::Equivalent && !result.complete {
            result.verdict = Verdict::Unknown;
        }
        return Ok(Explored::Whole(Box::new(result)));
    }
    let result = explore_difference(old, new, mapping, options)?;
    Ok(Explored::Whole(Box::new(result)))
}

/// Reads a plan of `diff` and `--shard I/N` (N, when given, the plan's).
fn read_plan(file: &Path, spec: &str) -> Result<(Plan, usize), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let j: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a plan: {e}", file.display()))?;
    if j.get("format").and_then(Json::as_str) != Some(PLAN_FORMAT) {
        return Err(format!(
            "{} is not a plan of `lexprobe diff --plan`",
            file.display()
        ));
    }
    let plan = Plan::from_json(&j).map_err(|e| format!("{}: {e}", file.display()))?;
    let (index, count) = crate::commands::shard::parse_shard(spec, &|k| std::env::var(k).ok())?;
    if count.is_some_and(|n| n != plan.shards) || index >= plan.shards {
        return Err(format!(
            "--shard {spec}: the plan has {} shards",
            plan.shards
        ));
    }
    Ok((plan, index))
}

/// The command that gives this result again from the shards' parts (the files as given,
/// relative to `cwd`).
fn command(args: &DiffArgs) -> Vec<String> {
    let mut c = vec![
        args.old.clone(),
        args.new.clone(),
        "--scope".into(),
        args.scope.clone(),
    ];
    let mut flag = |name: &str, value: String| {
        c.push(format!("--{name}"));
        c.push(value);
    };
    for dir in &args.includes.include {
        flag("include", dir.display().to_string());
    }
    if let Some(s) = &args.new_scope {
        flag("new-scope", s.clone());
    }
    for r in &args.renames {
        flag("rename", r.clone());
    }
    for d in &args.defaults {
        flag("default", d.clone());
    }
    if let Some(m) = &args.mapping {
        flag("mapping", m.display().to_string());
    }
    if let Some(t) = args.timeout {
        flag("timeout", t.to_string());
    }
    flag("query-timeout", args.query_timeout.to_string());
    flag("max-list-length", args.max_list_length.to_string());
    if args.no_ranges {
        c.push("--no-ranges".into());
    }
    c
}

/// A shard's output: which shard of which plan, the command, its part.
fn shard_json(args: &DiffArgs, plan: &Plan, index: usize, part: &DifferencePart) -> Json {
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    json!({
        "diff_shard": {
            "index": index,
            "shards": plan.shards,
            "subtrees": plan.shard(index).len(),
            "plan_subtrees": plan.subtrees.len(),
        },
        "cwd": cwd,
        "command": command(args),
        "part": part.to_json(),
    })
}

/// Whether `doc` is the output of a shard of `diff`.
pub(crate) fn is_shard_output(doc: &Json) -> bool {
    doc.get("diff_shard").is_some() && doc.get("part").is_some()
}

/// The parts of the shard outputs `files`, added, and the shards of the plan none of them is.
fn read_parts(files: &[PathBuf]) -> Result<(DifferencePart, Vec<usize>), String> {
    let mut total = DifferencePart::empty();
    let mut seen = std::collections::BTreeSet::new();
    let mut shards = None;
    for f in files {
        let doc = read_json(f)?;
        if !is_shard_output(&doc) {
            return Err(format!(
                "{} is not the output of a shard of `diff`",
                f.display()
            ));
        }
        let n = doc["diff_shard"]["shards"].as_u64().unwrap_or(0) as usize;
        if *shards.get_or_insert(n) != n {
            return Err(format!("{} is a shard of another plan", f.display()));
        }
        let index = doc["diff_shard"]["index"].as_u64().unwrap_or(0) as usize;
        if !seen.insert(index) {
            return Err(format!("shard {index} given twice ({})", f.display()));
        }
        let part =
            DifferencePart::from_json(&doc["part"]).map_err(|e| format!("{}: {e}", f.display()))?;
        total.add(part);
    }
    let missing = (0..shards.unwrap_or(0))
        .filter(|k| !seen.contains(k))
        .collect();
    Ok((total, missing))
}

fn read_json(f: &Path) -> Result<Json, String> {
    let text =
        std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", f.display()))
}

/// `lexprobe merge` on outputs of shards of `diff`: `None` when the first output is not
/// one; else `diff` run again with the shards' command on their parts (its JSON report
/// printed), and its exit code.
pub(crate) fn merge_shards(outputs: &[PathBuf]) -> Option<i32> {
    let first = read_json(outputs.first()?).ok()?;
    if !is_shard_output(&first) {
        return None;
    }
    let command: Vec<String> = first["command"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    // The files are the shards' as given, relative to their directory.
    let files: Vec<PathBuf> = outputs
        .iter()
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    if let Some(cwd) = first["cwd"].as_str().filter(|d| Path::new(d).is_dir()) {
        if let Err(e) = std::env::set_current_dir(cwd) {
            eprintln!("lexprobe merge: cannot go to the shards' directory {cwd}: {e}");
            return Some(exit::USAGE);
        }
    }
    let mut argv = vec!["diff".to_string()];
    argv.extend(command);
    let mut args = match <DiffCommand as clap::Parser>::try_parse_from(argv) {
        Ok(c) => c.args,
        Err(e) => {
            eprintln!("lexprobe merge: the shards' command does not read: {e}");
            return Some(exit::USAGE);
        }
    };
    args.from_shards = files;
    args.format = OutputFormat::Json;
    Some(crate::commands::diff::run(args))
}

/// `diff`'s arguments alone, to read a shard's command.
#[derive(clap::Parser)]
struct DiffCommand {
    #[command(flatten)]
    args: DiffArgs,
}
