//! Checkpoints of `lexprobe diff`: `--checkpoint FILE` cuts the pair's path tree into
//! subtrees (a plan, as for `--jobs`) and, when a limit (`--max-pairs`, `--timeout`) stops
//! the exploration or it ends, writes the subtrees left (a subtree cut short is left whole,
//! and what was found in it not kept) and the part explored (the differing path pairs as
//! identifiers and models, the figures); `--resume FILE` explores the subtrees left and adds
//! the saved part, so that the result is the one an uninterrupted run gives.

use crate::commands::diff::DiffArgs;
use catala_ir::dcalc::{Program, ScopeId};
use concolic::difference::{
    assignment_from_json, assignment_json, difference_of_part, explore_subtrees, plan_difference,
    plan_seeds, DifferenceError, DifferenceOptions, DifferencePart, DifferenceResult,
    InterfaceMapping, SUBTREES_PER_JOB,
};
use concolic::inputs::Assignment;
use concolic::PathId;
use serde_json::{json, Value as Json};
use std::path::Path;

/// The `format` field of checkpoints of `diff`.
const FORMAT: &str = "lexprobe-diff-checkpoint";

/// Explores from the checkpoint of `--resume` (or from a plan), writes `--checkpoint`, and
/// gives the result; `Ok(Err(_))`: an unreadable checkpoint or unwritable file.
pub(crate) fn explore(
    args: &DiffArgs,
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
) -> Result<Result<DifferenceResult, String>, DifferenceError> {
    let start = std::time::Instant::now();
    let (seeds, saved) = match &args.resume {
        Some(file) => match read(file, &args.scope) {
            Ok(x) => x,
            Err(e) => return Ok(Err(e)),
        },
        None => {
            let jobs = options.jobs.max(1);
            let subtrees = jobs.saturating_mul(SUBTREES_PER_JOB);
            let plan = plan_difference(old, new, mapping, options, jobs, subtrees)?;
            let mut saved = DifferencePart::empty();
            // Subtrees the plan lost count as unanswered queries.
            saved.unknown_queries = plan.unknown_queries;
            saved.complete = plan.unknown_queries == 0;
            (plan_seeds(&plan, None), saved)
        }
    };
    let mut part = explore_subtrees(old, new, mapping, options, seeds, start)?;
    let mut total = saved;
    let left = std::mem::take(&mut part.left);
    total.add(part);
    if !left.is_empty() {
        total.complete = false;
    }
    if let Some(file) = &args.checkpoint {
        if let Err(e) = write(file, &args.scope, &left, &total) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(difference_of_part(old, new, mapping, options, total)?))
}

fn write(
    file: &Path,
    scope: &str,
    left: &[(PathId, Assignment)],
    part: &DifferencePart,
) -> Result<(), String> {
    let j = json!({
        "format": FORMAT,
        "scope": scope,
        "left": left.iter().map(|(p, a)| json!({
            "prefix": p.to_string(),
            "inputs": assignment_json(a),
        })).collect::<Vec<_>>(),
        "part": part.to_json(),
    });
    crate::report_files::write_file(file, &format!("{j:#}\n"))
}

/// The subtrees left and the part saved in `file`, made ready to be added to.
fn read(file: &Path, scope: &str) -> Result<(Vec<(PathId, Assignment)>, DifferencePart), String> {
    let name = file.display();
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let j: Json =
        serde_json::from_str(&text).map_err(|e| format!("{name} is not a checkpoint: {e}"))?;
    if j.get("format").and_then(Json::as_str) != Some(FORMAT) {
        return Err(format!("{name} is not a checkpoint of `lexprobe diff`"));
    }
    if j.get("scope").and_then(Json::as_str) != Some(scope) {
        return Err(format!("{name} is a checkpoint of another scope"));
    }
    let mut left = Vec::new();
    for s in j["left"]
        .as_array()
        .ok_or(format!("{name}: no subtrees left"))?
    {
        let prefix = PathId::parse(s["prefix"].as_str().unwrap_or("x"))
            .map_err(|e| format!("{name}: {e}"))?;
        let inputs = assignment_from_json(&s["inputs"]).map_err(|e| format!("{name}: {e}"))?;
        left.push((prefix, inputs));
    }
    let part = DifferencePart::from_json(&j["part"]).map_err(|e| format!("{name}: {e}"))?;
    Ok((left, part.resumed()))
}
