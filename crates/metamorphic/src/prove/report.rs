//! The symbolic verdicts as JSON (the document shape of [`crate::report::to_json`]: a system
//! and one entry per relation, with `verdict` now `refuted`, `proved` or `unknown` and
//! `verdict_kind` `symbolic`) and as text (a table, then each counterexample with its
//! region and each reason).

use super::{ProofReport, ProofVerdict};
use crate::value::record_to_json;
use std::fmt::Write;

/// The JSON document of a symbolic check.
pub fn to_json(reports: &[ProofReport], system: &str) -> serde_json::Value {
    let relations: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            let mut entry = serde_json::json!({
                "name": r.relation,
                "verdict": r.verdict.as_str(),
                "verdict_kind": "symbolic",
                "path_pairs": r.path_pairs,
                "judged_pairs": r.judged_pairs,
                "error_pairs": r.error_pairs,
                "unknown_queries": r.unknown_queries,
                "path_queries": r.path_queries,
                "queries_without_z3": r.queries_without_z3,
                "retried_queries": r.retried_queries,
                "resolved_on_retry": r.resolved_on_retry,
                "unknown_leaf_queries": r.unknown_leaf_queries,
                "first_counterexample_s": r.first_counterexample_s,
                "elapsed_s": r.elapsed_s,
                "cases": r.cases,
                "sharing": r.sharing,
                "note": r.note,
                "reason": r.reason,
            });
            if let Some(c) = &r.counterexample {
                entry["counterexample"] = serde_json::json!({
                    "inputs": c.cases.iter().map(record_to_json).collect::<Vec<_>>(),
                    "outputs": c.outputs.iter().map(record_to_json).collect::<Vec<_>>(),
                    "deviation": c.deviation,
                });
                entry["region"] = serde_json::json!(r.region);
                if let Some(f) = &r.region_features {
                    entry["region_features"] = serde_json::json!(f);
                }
            }
            if let Some(s) = &r.random_search {
                entry["random_search"] = serde_json::json!({
                    "budget_s": s.budget_s,
                    "elapsed_s": s.elapsed_s,
                    "tests": s.tests,
                    "failed": s.failed,
                    "first_failure_s": s.first_failure_s,
                    "explanation": s.explanation,
                    "tree_accuracy": s.accuracy,
                    "failure_paths": s.failure_paths,
                });
            }
            if !r.error_examples.is_empty() {
                entry["run_error_examples"] = serde_json::json!(r.error_examples);
            }
            entry
        })
        .collect();
    serde_json::json!({ "system": system, "relations": relations })
}

/// A summary table, then the details of each relation.
pub fn to_text(reports: &[ProofReport]) -> String {
    let mut out = String::new();
    let width = reports
        .iter()
        .map(|r| r.relation.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let _ = writeln!(
        out,
        "{:<width$} {:<8} {:>10} {:>10} {:>10} {:>9}",
        "relation", "verdict", "pairs", "errors", "1st cex", "time"
    );
    for r in reports {
        let first = r
            .first_counterexample_s
            .map_or("-".to_string(), |s| format!("{s:.2}s"));
        let _ = writeln!(
            out,
            "{:<width$} {:<8} {:>10} {:>10} {:>10} {:>8.2}s",
            r.relation,
            r.verdict.as_str(),
            r.path_pairs,
            r.error_pairs,
            first,
            r.elapsed_s
        );
    }
    for r in reports {
        let _ = writeln!(out, "\n{} — {}", r.relation, r.verdict.as_str());
        for s in &r.sharing {
            let _ = writeln!(out, "  cases: {s}");
        }
        match r.verdict {
            ProofVerdict::Refuted => {
                if let Some(c) = &r.counterexample {
                    for ((name, inputs), outputs) in r.cases.iter().zip(&c.cases).zip(&c.outputs) {
                        let fields: Vec<String> =
                            inputs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        let f = outputs
                            .get(crate::search::MAIN_OUTPUT_KEY)
                            .map_or("-".to_string(), |v| v.to_string());
                        let _ = writeln!(out, "  {name}: F = {f}  [{}]", fields.join(", "));
                    }
                    let _ = writeln!(out, "  deviation: {:.2}", c.deviation);
                }
                let _ = writeln!(out, "  region (path condition of the violating pair):");
                for line in &r.region {
                    let _ = writeln!(out, "    {line}");
                }
                if let Some(lines) = &r.region_features {
                    let _ = writeln!(out, "  the same region over the domain's features:");
                    for line in lines {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                let _ = writeln!(out, "  {}", r.note);
                if let Some(s) = &r.random_search {
                    write_beside(&mut out, r, s);
                }
            }
            ProofVerdict::Proved => {
                let _ = writeln!(out, "  {}", r.note);
            }
            ProofVerdict::Unknown => {
                let _ = writeln!(
                    out,
                    "  reason: {}",
                    r.reason.as_deref().unwrap_or("unknown")
                );
            }
        }
        for e in r.error_examples.iter().take(2) {
            let first = e.lines().next().unwrap_or("");
            let _ = writeln!(out, "  runtime error on some pairs: {first}");
        }
    }
    out
}

/// The symbolic region and the random search's failing tree paths side by side (two columns
/// when the terminal lines stay short enough, else one after the other), then the tree.
fn write_beside(out: &mut String, r: &ProofReport, s: &super::SearchBeside) {
    let first = s.first_failure_s.map_or("no failure".to_string(), |t| {
        format!("first failure at {t:.2} s")
    });
    let _ = writeln!(
        out,
        "  random search beside it ({:.1} s budget): {} tests, {} failed, {first}",
        s.budget_s, s.tests, s.failed
    );
    let left: Vec<String> = r.region_features.as_ref().unwrap_or(&r.region).to_vec();
    let right: Vec<String> = s
        .failure_paths
        .iter()
        .enumerate()
        .flat_map(|(i, path)| {
            let mut lines = vec![format!("failing leaf {}:", i + 1)];
            lines.extend(path.iter().map(|c| format!("  {c}")));
            lines
        })
        .collect();
    let widest = left.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    if !right.is_empty() && widest > 80 {
        let _ = writeln!(out, "  decision tree (failing leaves):");
        for line in &right {
            let _ = writeln!(out, "    {line}");
        }
    } else if !right.is_empty() {
        let width = left
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
            .max("symbolic region".len());
        let _ = writeln!(
            out,
            "    {:<width$} | decision tree (failing leaves)",
            "symbolic region"
        );
        for i in 0..left.len().max(right.len()) {
            let l = left.get(i).map_or("", String::as_str);
            let rr = right.get(i).map_or("", String::as_str);
            let _ = writeln!(out, "    {l:<width$} | {rr}");
        }
    }
    let _ = writeln!(
        out,
        "  random search: {}",
        s.explanation.replace('\n', "\n    ")
    );
}
