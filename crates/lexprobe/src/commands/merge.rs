//! `lexprobe merge OUTPUTS…`: one exploration's result from the outputs of several
//! `lexprobe concolic` processes — the shards of one plan, or a run killed and its
//! resumptions from checkpoints (JSON Lines or one JSON object each). Tests are kept once per
//! path identifier and numbered in the depth-first order of their identifiers; statistics are
//! summed; findings are grouped as one run groups them. The result is complete only when
//! every subtree of the plan (the root, for whole explorations) is reported complete by some
//! output: a missing shard, or one cut short without a resumption finishing it, is named.
//! Outputs of the shards of `lexprobe diff` are merged by `diff` itself
//! (`crate::diff::scale::merge_shards`): its report, as one exploration of the pair gives it.

use crate::exit::{PROBLEMS_FOUND, SUCCESS, USAGE};
use concolic::PathId;
use serde_json::{json, Map, Value as Json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;

/// Exit code when the merged exploration is not complete (the merged result is printed all
/// the same).
pub const INCOMPLETE: i32 = 1;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe merge shard-*.jsonl > all.jsonl
  lexprobe merge part1.jsonl part2.jsonl --format json > all.json
  lexprobe merge diff-shard-*.json > diff.json

Outputs of `lexprobe diff --shard` give the JSON report of `lexprobe diff` and its exit codes
(1 differs, 0 equivalent: every shard there and complete, 3 unknown, 2 usage).

Exit codes (as `lexprobe concolic`'s, for the merged exploration):
  0    complete, and no problem on any path (or --exit-zero)
  1    a problem found on some path (a conflict, an empty default, a runtime error: the merged
       `findings`), unless --exit-zero; or the merged exploration is not complete (a shard
       missing or cut short, a subtree not finished: each is named on the error stream)
  2    unreadable input")]
pub struct MergeArgs {
    /// Outputs of `lexprobe concolic --jsonl` or `--format json`, or of `lexprobe diff --shard`.
    #[arg(required = true)]
    pub outputs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = MergeFormat::Jsonl)]
    pub format: MergeFormat,
    /// Exit with 0 even when the merged findings hold problems (they are still printed); an
    /// incomplete merge keeps its exit code 1.
    #[arg(long)]
    pub exit_zero: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeFormat {
    /// One object with every test.
    Json,
    /// One test per line, then a closing line with the figures.
    Jsonl,
}

/// One test: what the merge reads of it (`path`, `outcome`, `error`), and its text as
/// written, which is all that is kept of the rest (a merge of 142,046 tests holds about the
/// size of the files, not of their parsed form).
struct Test {
    head: Json,
    text: String,
}

impl Test {
    fn new(value: &Json, text: String) -> Test {
        let mut head = Map::new();
        for key in ["path", "outcome", "error"] {
            if let Some(v) = value.get(key) {
                head.insert(key.into(), v.clone());
            }
        }
        Test {
            head: Json::Object(head),
            text,
        }
    }
}

/// What one output holds.
#[derive(Default)]
struct Output {
    name: String,
    tests: Vec<Test>,
    /// `shard` line of a shard's JSON Lines output.
    header: Option<Json>,
    /// The closing line (or the whole object): `stats`, `incomplete`, `coverage`.
    closing: Option<Json>,
    /// Lines cut in the middle by a kill.
    cut: usize,
}

fn read_output(path: &std::path::Path) -> Result<Output, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut out = Output {
        name: name.clone(),
        ..Output::default()
    };
    if let Ok(Json::Object(doc)) = serde_json::from_str::<Json>(&text) {
        if let Some(Json::Array(tests)) = doc.get("tests") {
            out.tests = tests.iter().map(|t| Test::new(t, t.to_string())).collect();
            let mut closing = doc;
            closing.remove("tests");
            out.closing = Some(Json::Object(closing));
            return Ok(out);
        }
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    for (n, line) in &lines {
        let mut text = line.trim().to_string();
        let value: Json = match serde_json::from_str(line) {
            Ok(v) => v,
            // A process killed while writing leaves its last line cut; a resumed run appending
            // to the same file then writes its first line right after the cut one.
            Err(_) if line.trim_start().starts_with('{') => {
                out.cut += 1;
                match glued(line) {
                    Some(v) => {
                        text = v.to_string();
                        v
                    }
                    None => continue,
                }
            }
            Err(e) => return Err(format!("{name}:{}: not JSON: {e}", n + 1)),
        };
        if value.get("outcome").is_some() {
            out.tests.push(Test::new(&value, text));
        } else if value.get("stats").is_some() {
            out.closing = Some(value);
        } else if value.get("shard").is_some() {
            out.header = Some(value["shard"].clone());
        } else {
            return Err(format!(
                "{name}:{}: neither a test, a shard line nor a closing line",
                n + 1
            ));
        }
    }
    Ok(out)
}

/// The whole object at the end of a cut line: the leftmost suffix starting with `{` that
/// parses (the cut part cannot close it: two objects side by side are not one JSON value).
fn glued(line: &str) -> Option<Json> {
    line.char_indices()
        .skip(1)
        .filter(|(_, c)| *c == '{')
        .find_map(|(i, _)| serde_json::from_str::<Json>(&line[i..]).ok())
        .filter(Json::is_object)
}

/// The plan and shard an output belongs to: (plan hash, index, count, plan subtrees,
/// subtrees), `None` for a whole exploration.
type ShardOf = (String, usize, usize, usize, Vec<String>);

fn shard_of(o: &Output) -> Result<Option<ShardOf>, String> {
    let coverage = o.closing.as_ref().and_then(|c| c.get("coverage"));
    let (plan, index, count) = match (&o.header, coverage) {
        (Some(h), _) => (h.get("plan"), h.get("index"), h.get("count")),
        (None, Some(c)) => {
            let shard = c.get("shard").and_then(Json::as_array);
            (
                c.get("plan"),
                shard.and_then(|s| s.first()),
                shard.and_then(|s| s.get(1)),
            )
        }
        (None, None) => return Ok(None),
    };
    let Some(plan) = plan.and_then(Json::as_str) else {
        return Ok(None);
    };
    let source = o.header.as_ref().or(coverage);
    let number = |v: Option<&Json>| v.and_then(Json::as_u64).map(|n| n as usize);
    let (Some(index), Some(count), Some(total)) = (
        number(index),
        number(count),
        number(source.and_then(|s| s.get("plan_subtrees"))),
    ) else {
        return Err(format!("{}: a shard without its index and count", o.name));
    };
    let subtrees = strings(source.and_then(|s| s.get("subtrees")));
    Ok(Some((plan.to_string(), index, count, total, subtrees)))
}

fn strings(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The merged exploration.
struct Merged {
    /// The bounds the outputs were explored within (`null` when none of them says).
    bounds: Json,
    tests: Vec<Test>,
    duplicates: usize,
    stats: Map<String, Json>,
    incomplete: Vec<String>,
    findings: Json,
    problems: Vec<String>,
    notes: Vec<String>,
}

const SUMMED: [&str; 11] = [
    "solver_calls",
    "soft_solver_calls",
    "queries_without_z3",
    "guessed_queries",
    "fresh_queries",
    "time_s",
    "solver_time_s",
    "divergences",
    "early_lemmas",
    "dropped_lemmas",
    "unknown_queries",
];

fn merge(outputs: &[Output]) -> Result<Merged, String> {
    let (by_path, duplicates) = tests_by_path(outputs)?;
    let mut notes = Vec::new();
    // Which subtrees there are, and which some output reports complete.
    let mut complete: BTreeSet<String> = BTreeSet::new();
    for o in outputs {
        let c = o.closing.as_ref().and_then(|c| c.get("coverage"));
        complete.extend(strings(c.and_then(|c| c.get("complete"))));
        if o.closing.is_none() {
            notes.push(format!("{}: cut short (no closing line)", o.name));
        }
        if o.cut > 0 {
            notes.push(format!("{}: {} cut lines skipped", o.name, o.cut));
        }
    }
    let bounds = common_bounds(outputs)?;
    let (mut problems, subtrees) = uncovered_subtrees(outputs, &complete)?;
    // Every test lies under one subtree of the plan (its prefixes are disjoint).
    if problems.is_empty() {
        let outside = by_path
            .keys()
            .filter(|p| !subtrees.iter().any(|s| s.is_prefix_of(p)))
            .count();
        if outside > 0 {
            problems.push(format!(
                "{outside} tests lie outside every subtree of the plan"
            ));
        }
    }
    let (mut stats, entries, by_roundness) = summed_figures(outputs);
    // What stopped one process (a limit, Ctrl-C) is made up for when every subtree is
    // complete in some output (a resumption finished it); the other entries are gaps in what
    // was explored.
    let (stops, gaps): (Vec<String>, Vec<String>) = entries
        .into_iter()
        .partition(|e| concolic::results::is_stop_entry(e));
    // The merged `incomplete`: the subtrees not covered, the gaps, and the stops that left
    // something unexplored.
    let mut incomplete: Vec<String> = problems.clone();
    if !problems.is_empty() {
        incomplete.extend(stops);
    }
    if !gaps.is_empty() {
        problems.push(format!("incomplete outputs: {}", gaps.join("; ")));
    }
    incomplete.extend(gaps);
    let tests: Vec<Test> = by_path
        .into_values()
        .map(|t| Test {
            head: t.head.clone(),
            text: t.text.clone(),
        })
        .collect();
    let mut by_outcome: BTreeMap<String, u64> = BTreeMap::new();
    for t in &tests {
        if let Some(k) = t.head.get("outcome").and_then(Json::as_str) {
            *by_outcome.entry(k.to_string()).or_default() += 1;
        }
    }
    stats.insert("tests".into(), json!(tests.len()));
    stats.insert("complete".into(), json!(problems.is_empty()));
    stats.insert("bounds".into(), bounds.clone());
    stats.insert("by_outcome".into(), json!(by_outcome));
    stats.insert("by_roundness".into(), json!(by_roundness));
    let findings = findings(&tests);
    Ok(Merged {
        bounds,
        tests,
        duplicates,
        stats,
        incomplete,
        findings,
        problems,
        notes,
    })
}

/// The tests of all outputs by path identifier (the first output naming a path keeps it),
/// and how many were dropped as found twice.
fn tests_by_path(outputs: &[Output]) -> Result<(BTreeMap<PathId, &Test>, usize), String> {
    let mut by_path: BTreeMap<PathId, &Test> = BTreeMap::new();
    let mut duplicates = 0;
    for o in outputs {
        for t in &o.tests {
            let Some(p) = t.head.get("path").and_then(Json::as_str) else {
                return Err(format!(
                    "{}: a test without a path identifier (written by an older lexprobe?)",
                    o.name
                ));
            };
            let id = PathId::parse(p).map_err(|e| format!("{}: {e}", o.name))?;
            match by_path.entry(id) {
                std::collections::btree_map::Entry::Occupied(_) => duplicates += 1,
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(t);
                }
            }
        }
    }
    Ok((by_path, duplicates))
}

/// What the outputs leave unexplored (a shard missing, cut short or incomplete; no complete
/// whole exploration), given the subtrees some output reports `complete`; and the subtrees
/// of the plan (the root alone for a whole exploration).
fn uncovered_subtrees(
    outputs: &[Output],
    complete: &BTreeSet<String>,
) -> Result<(Vec<String>, BTreeSet<PathId>), String> {
    let mut problems = Vec::new();
    let shards: Vec<Option<ShardOf>> = outputs.iter().map(shard_of).collect::<Result<_, _>>()?;
    let plans: BTreeSet<&String> = shards.iter().flatten().map(|s| &s.0).collect();
    if plans.len() > 1 {
        return Err("the outputs come from different plans".into());
    }
    let mut subtrees: BTreeSet<PathId> = BTreeSet::new();
    if let Some(plan) = plans.into_iter().next() {
        if let Some(o) = outputs.iter().zip(&shards).find(|(_, s)| s.is_none()) {
            return Err(format!(
                "{}: a whole exploration mixed with the shards of plan {plan}",
                o.0.name
            ));
        }
        let counts: BTreeSet<(usize, usize)> =
            shards.iter().flatten().map(|s| (s.2, s.3)).collect();
        let [(count, total)] = counts.into_iter().collect::<Vec<_>>()[..] else {
            return Err("the shards disagree on the number of shards or subtrees".into());
        };
        for index in 0..count {
            let mine: Vec<(&Output, &ShardOf)> = outputs
                .iter()
                .zip(&shards)
                .filter_map(|(o, s)| s.as_ref().filter(|s| s.1 == index).map(|s| (o, s)))
                .collect();
            let Some((_, first)) = mine.first() else {
                problems.push(format!(
                    "shard {index}/{count} missing: its subtrees are unexplored"
                ));
                continue;
            };
            for p in &first.4 {
                subtrees.insert(PathId::parse(p).map_err(|e| format!("shard {index}: {e}"))?);
            }
            let open = first.4.iter().filter(|p| !complete.contains(*p)).count();
            if open == 0 {
                continue;
            }
            if mine.iter().all(|(o, _)| o.closing.is_none()) {
                problems.push(format!(
                    "shard {index}/{count} cut short ({} of {} subtrees not finished; resume it from its checkpoint)",
                    open,
                    first.4.len()
                ));
            } else {
                problems.push(format!(
                    "shard {index}/{count}: {open} of {} subtrees not complete",
                    first.4.len()
                ));
            }
        }
        if problems.is_empty() && subtrees.len() != total {
            problems.push(format!(
                "the plan has {total} subtrees, the shards name {}",
                subtrees.len()
            ));
        }
    } else {
        subtrees.insert(PathId::default());
        if !complete.contains("") {
            problems.push(
                "no output reports the exploration complete (cut short, or stopped at a limit)"
                    .into(),
            );
        }
    }
    Ok((problems, subtrees))
}

/// The figures of the outputs' closing lines summed, their `incomplete` entries, and the
/// tests by roundness.
fn summed_figures(
    outputs: &[Output],
) -> (Map<String, Json>, BTreeSet<String>, BTreeMap<String, u64>) {
    let mut stats = Map::new();
    let mut entries: BTreeSet<String> = BTreeSet::new();
    let mut by_roundness: BTreeMap<String, u64> = BTreeMap::new();
    for o in outputs {
        let Some(c) = &o.closing else { continue };
        entries.extend(strings(c.get("incomplete")));
        let s = &c["stats"];
        for k in SUMMED {
            let add = s.get(k).and_then(Json::as_f64).unwrap_or(0.0);
            let sum = stats.get(k).and_then(Json::as_f64).unwrap_or(0.0) + add;
            stats.insert(k.to_string(), number_json(sum, k.ends_with("_s")));
        }
        if let Some(Json::Object(m)) = s.get("by_roundness") {
            for (k, v) in m {
                *by_roundness.entry(k.clone()).or_default() += v.as_u64().unwrap_or(0);
            }
        }
    }
    (stats, entries, by_roundness)
}

/// The bounds the outputs' explorations hold within: the same for all of them (a merge of
/// explorations within other bounds would say `complete` of no bound at all).
fn common_bounds(outputs: &[Output]) -> Result<Json, String> {
    let mut found: Option<(&str, &Json)> = None;
    for o in outputs {
        let Some(b) = o.closing.as_ref().and_then(|c| c.get("bounds")) else {
            continue;
        };
        match found {
            None => found = Some((&o.name, b)),
            Some((first, seen)) if seen != b => {
                return Err(format!(
                    "{first} and {} were explored within different bounds ({seen} and {b})",
                    o.name
                ))
            }
            Some(_) => {}
        }
    }
    Ok(found.map_or(Json::Null, |(_, b)| b.clone()))
}

fn number_json(x: f64, seconds: bool) -> Json {
    if seconds {
        json!(x)
    } else {
        json!(x.round() as u64)
    }
}

/// The distinct runtime errors of the tests (kind and positions), each with its number of
/// tests and the first of them (1-based), in order of first appearance; failed assertions are
/// inputs outside the input space, not problems.
fn findings(tests: &[Test]) -> Json {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut found: Vec<Json> = Vec::new();
    for (i, t) in tests.iter().map(|t| &t.head).enumerate() {
        let Some(error) = t.get("error") else {
            continue;
        };
        if t.get("outcome").and_then(Json::as_str) == Some("assertion") {
            continue;
        }
        let mut positions: Vec<String> = error
            .get("positions")
            .and_then(Json::as_array)
            .map(|a| a.iter().map(Json::to_string).collect())
            .unwrap_or_default();
        positions.sort();
        let key = format!("{} {}", error["kind"], positions.join(" "));
        match index.get(&key) {
            Some(&k) => {
                let n = found[k]["tests"].as_u64().unwrap_or(0);
                found[k]["tests"] = json!(n + 1);
            }
            None => {
                index.insert(key, found.len());
                found.push(json!({
                    "kind": error["kind"],
                    "tests": 1,
                    "first_test": i + 1,
                    "error": error,
                }));
            }
        }
    }
    Json::Array(found)
}

pub fn run(args: MergeArgs) -> i32 {
    if let Some(code) = crate::diff::scale::merge_shards(&args.outputs) {
        return code;
    }
    let mut outputs = Vec::new();
    for path in &args.outputs {
        match read_output(path) {
            Ok(o) => outputs.push(o),
            Err(e) => {
                eprintln!("lexprobe merge: {e}");
                return USAGE;
            }
        }
    }
    let merged = match merge(&outputs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("lexprobe merge: {e}");
            return USAGE;
        }
    };
    let complete = merged.problems.is_empty();
    let coverage = json!({
        "plan": null,
        "shard": null,
        "plan_subtrees": 1,
        "subtrees": [""],
        "complete": if complete { vec![""] } else { Vec::new() },
    });
    let summary = json!({
        "outputs": outputs.len(),
        "duplicates": merged.duplicates,
        "complete": complete,
        "problems": merged.problems,
    });
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        MergeFormat::Json => {
            // The tests as they were written, then the rest of the object.
            let rest = json!({
                "stats": merged.stats,
                "incomplete": merged.incomplete,
                "bounds": merged.bounds,
                "findings": merged.findings,
                "coverage": coverage,
                "merge": summary,
            })
            .to_string();
            write!(out, "{{\"tests\":[")
                .and_then(|_| {
                    merged.tests.iter().enumerate().try_for_each(|(i, t)| {
                        let comma = if i == 0 { "" } else { "," };
                        write!(out, "{comma}{}", t.text)
                    })
                })
                .and_then(|_| writeln!(out, "],{}", &rest[1..]))
        }
        MergeFormat::Jsonl => merged
            .tests
            .iter()
            .try_for_each(|t| writeln!(out, "{}", t.text))
            .and_then(|_| {
                writeln!(
                    out,
                    "{}",
                    json!({
                        "stats": merged.stats,
                        "incomplete": merged.incomplete,
                        "bounds": merged.bounds,
                        "findings": merged.findings,
                        "coverage": coverage,
                        "merge": summary,
                    })
                )
            }),
    };
    let _ = written.and_then(|_| out.flush());
    for n in &merged.notes {
        eprintln!("lexprobe merge: note: {n}");
    }
    eprintln!(
        "lexprobe merge: {} tests from {} outputs ({} duplicates dropped), {}",
        merged.tests.len(),
        outputs.len(),
        merged.duplicates,
        if complete {
            "complete".to_string()
        } else {
            format!("incomplete: {}", merged.problems.join("; "))
        }
    );
    exit_code(complete, &merged.findings, args.exit_zero)
}

/// 1 when the merge is incomplete, or when its findings hold a problem (unless `exit_zero`);
/// else 0. The problems are counted on the error stream.
fn exit_code(complete: bool, findings: &Json, exit_zero: bool) -> i32 {
    let problems = findings.as_array().map_or(0, Vec::len);
    if problems > 0 {
        eprintln!(
            "lexprobe merge: {problems} distinct problem{} in the merged findings",
            if problems == 1 { "" } else { "s" }
        );
    }
    if !complete {
        INCOMPLETE
    } else if problems > 0 && !exit_zero {
        PROBLEMS_FOUND
    } else {
        SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(name: &str, lines: &[Json], complete: bool) -> Output {
        Output {
            name: name.into(),
            tests: lines.iter().map(|t| Test::new(t, t.to_string())).collect(),
            header: None,
            closing: Some(json!({
                "stats": { "tests": lines.len(), "solver_calls": 10, "time_s": 1.5 },
                "incomplete": [],
                "coverage": { "plan": null, "shard": null, "plan_subtrees": 1,
                              "subtrees": [""], "complete": if complete { vec![""] } else { vec![] } },
            })),
            cut: 0,
        }
    }

    fn conflict(path: &str, line: u64) -> Json {
        json!({ "path": path, "outcome": "conflict", "error": { "kind": "conflict",
            "positions": [{ "file": "a", "line": line }] } })
    }

    #[test]
    fn doubles_dropped_tests_sorted_figures_summed_findings_grouped() {
        let ok = |p: &str| json!({ "path": p, "outcome": "ok" });
        let a = output("a", &[ok("10"), conflict("011", 3), ok("00")], false);
        let b = output(
            "b",
            &[ok("10"), conflict("010", 3), conflict("11", 7)],
            true,
        );
        let m = match merge(&[a, b]) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let paths: Vec<&str> = m
            .tests
            .iter()
            .filter_map(|t| t.head["path"].as_str())
            .collect();
        assert_eq!(paths, ["00", "010", "011", "10", "11"]);
        assert_eq!(m.duplicates, 1);
        assert_eq!(m.stats["tests"], 5);
        assert_eq!(m.stats["solver_calls"], 20);
        assert_eq!(m.stats["time_s"], 3.0);
        assert_eq!(m.stats["complete"], true);
        // Line 3 in tests 2 and 3 (first: 2), line 7 in test 5.
        assert_eq!(m.findings[0]["tests"], 2);
        assert_eq!(m.findings[0]["first_test"], 2);
        assert_eq!(m.findings[1]["first_test"], 5);
        assert!(m.problems.is_empty());
    }

    #[test]
    fn the_bounds_of_the_outputs_are_kept_and_must_agree() {
        let ok = |p: &str| json!({ "path": p, "outcome": "ok" });
        let with_bounds = |name: &str, path: &str, n: u64| {
            let mut o = output(name, &[ok(path)], true);
            if let Some(c) = o.closing.as_mut() {
                c["bounds"] = json!({ "max_list_length": n });
            }
            o
        };
        let m = match merge(&[with_bounds("a", "0", 2), with_bounds("b", "1", 2)]) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(m.bounds, json!({ "max_list_length": 2 }));
        assert_eq!(m.stats["bounds"], json!({ "max_list_length": 2 }));
        let err = merge(&[with_bounds("a", "0", 2), with_bounds("b", "1", 3)]).err();
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("different bounds")),
            "{err:?}"
        );
        // Outputs that do not state their bounds (older ones) leave them unknown.
        let m = match merge(&[output("a", &[ok("")], true)]) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(m.bounds, Json::Null);
    }

    #[test]
    fn a_line_glued_to_a_cut_one_is_recovered() {
        let cut = r#"{"path":"01","inputs":{"a":{"b":1"#;
        let next = r#"{"path":"1","inputs":{"a":2},"outcome":"ok"}"#;
        assert_eq!(
            glued(&format!("{cut}{next}")),
            serde_json::from_str::<Json>(next).ok()
        );
        assert_eq!(glued(cut), None);
    }

    #[test]
    fn nothing_reported_complete_is_incomplete() {
        let a = output("a", &[json!({ "path": "1", "outcome": "ok" })], false);
        let m = match merge(&[a]) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(m.problems.len(), 1);
        assert_eq!(m.stats["complete"], false);
    }

    fn shard_output(index: usize, subtrees: &[&str], tests: &[Json]) -> Output {
        let shard = json!({ "plan": "p1", "index": index, "count": 2, "plan_subtrees": 2,
                            "subtrees": subtrees });
        Output {
            name: format!("shard-{index}"),
            tests: tests.iter().map(|t| Test::new(t, t.to_string())).collect(),
            header: Some(shard),
            closing: Some(json!({
                "stats": { "tests": tests.len() },
                "incomplete": [],
                "coverage": { "plan": "p1", "shard": [index, 2], "plan_subtrees": 2,
                              "subtrees": subtrees, "complete": subtrees },
            })),
            cut: 0,
        }
    }

    #[test]
    fn a_missing_shard_is_listed_in_incomplete() {
        let ok = |p: &str| json!({ "path": p, "outcome": "ok" });
        let both = [
            shard_output(0, &["0"], &[ok("0")]),
            shard_output(1, &["1"], &[ok("1")]),
        ];
        let m = merge(&both).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.incomplete.is_empty(), "{:?}", m.incomplete);
        assert_eq!(m.stats["complete"], true);
        let m = merge(&both[..1]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            m.incomplete,
            ["shard 1/2 missing: its subtrees are unexplored"]
        );
        assert_eq!(m.stats["complete"], false);
    }

    #[test]
    fn a_stop_made_up_for_by_a_resumption_is_dropped_and_kept_otherwise() {
        let ok = |p: &str| json!({ "path": p, "outcome": "ok" });
        let stop = "time limit (--timeout 20): the paths after test 1 are unexplored";
        let mut part1 = output("part1", &[ok("0")], false);
        if let Some(c) = &mut part1.closing {
            c["incomplete"] = json!([stop]);
        }
        let part2 = output("part2", &[ok("1")], true);
        let alone = merge(std::slice::from_ref(&part1)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            alone.incomplete.iter().any(|e| e == stop),
            "{:?}",
            alone.incomplete
        );
        assert_eq!(alone.stats["complete"], false);
        let m = merge(&[part1, part2]).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.incomplete.is_empty(), "{:?}", m.incomplete);
        assert_eq!(m.stats["complete"], true);
    }
}
