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
                let _ = writeln!(out, "  {}", r.note);
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
