//! Reports of a check: a text summary for terminals, the JSON document of `--format json`,
//! and a self-contained HTML page with, per relation, the statistics (tests, first-failure
//! time, pass/fail counts, maximal deviation), the explanation trees drawn as SVG, and the
//! most deviating failing examples side by side.

use crate::check::{Explanation, RelationReport};
use crate::search::MAIN_OUTPUT_KEY;
use crate::tree::{DecisionTree, Node};
use crate::value::{Record, Value};
use std::fmt::Write;

/// The JSON document: `{"relations": [{name, verdict, tests, passed, failed,
/// first_failure_s, max_deviation, explanation, ...}]}`.
pub fn to_json(reports: &[RelationReport], system: &str) -> serde_json::Value {
    let relations: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            let o = &r.outcome;
            let mut entry = serde_json::json!({
                "name": r.relation.name,
                "verdict": o.verdict.as_str(),
                "tests": o.tests,
                "passed": o.passed,
                "failed": o.failed,
                "first_failure_s": o.first_failure_s,
                "max_deviation": o.max_deviation,
                "explanation": r.explanation.to_text(o),
                "run_errors": o.run_errors,
                "generation_failures": o.generation_failures,
                "accepted_bases": o.accepted_bases,
                "exhausted_bases": o.exhausted_bases,
                "runs": o.runs,
                "inconclusive_reason": o.stop_reason.as_deref().filter(|_| o.verdict == crate::search::Verdict::Inconclusive),
                "elapsed_s": o.elapsed_s,
                "tests_per_second": o.throughput(),
            });
            if let Explanation::Trees {
                lexicographic,
                lexicographic_accuracy,
                cart_accuracy,
                cart,
                training_tests,
            } = &r.explanation
            {
                entry["tree"] = serde_json::json!({
                    "training_tests": training_tests,
                    "lexicographic_accuracy": lexicographic_accuracy,
                    "lexicographic_leaves": lexicographic.leaves(),
                    "failure_paths": lexicographic.failure_paths(),
                    "cart_accuracy": cart_accuracy,
                    "cart_leaves": cart.leaves(),
                });
            }
            if !o.run_error_examples.is_empty() {
                entry["run_error_examples"] = serde_json::json!(o.run_error_examples);
            }
            entry
        })
        .collect();
    serde_json::json!({ "system": system, "relations": relations })
}

/// A terminal summary: one line per relation, then the explanation of each failure.
pub fn to_text(reports: &[RelationReport]) -> String {
    let mut out = String::new();
    let width = reports
        .iter()
        .map(|r| r.relation.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let _ = writeln!(
        out,
        "{:<width$} {:<12} {:>8} {:>8} {:>8} {:>10} {:>12} {:>8}",
        "relation", "verdict", "tests", "passed", "failed", "1st fail", "max dev", "errors"
    );
    for r in reports {
        let o = &r.outcome;
        let first = o
            .first_failure_s
            .map_or("-".to_string(), |s| format!("{s:.2}s"));
        let _ = writeln!(
            out,
            "{:<width$} {:<12} {:>8} {:>8} {:>8} {:>10} {:>12.2} {:>8}",
            r.relation.name,
            o.verdict.as_str(),
            o.tests,
            o.passed,
            o.failed,
            first,
            o.max_deviation,
            o.run_errors
        );
    }
    for r in reports {
        let inconclusive = r.outcome.verdict == crate::search::Verdict::Inconclusive;
        if r.outcome.failed == 0 && r.outcome.run_errors == 0 && !inconclusive {
            continue;
        }
        let _ = writeln!(out, "\n== {} ==", r.relation.name);
        let _ = writeln!(out, "{}", r.explanation.to_text(&r.outcome).trim_end());
        if let Some(worst) = r.outcome.worst_failures.first() {
            let _ = writeln!(
                out,
                "most deviating failure (deviation {:.2}):",
                worst.deviation
            );
            for (var, (case, outputs)) in r
                .relation
                .all_vars()
                .iter()
                .zip(worst.cases.iter().zip(&worst.outputs))
            {
                let _ = writeln!(
                    out,
                    "  {var}: {}  F = {}",
                    record_text(case),
                    outputs
                        .get(MAIN_OUTPUT_KEY)
                        .map_or("?".into(), |v| v.to_string())
                );
            }
        }
        for message in &r.outcome.run_error_examples {
            let _ = writeln!(out, "  run error: {message}");
        }
    }
    out
}

fn record_text(record: &Record) -> String {
    record
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const NODE_WIDTH: f64 = 190.0;
const NODE_HEIGHT: f64 = 40.0;
const LEVEL_GAP: f64 = 80.0;

struct Placed {
    x: f64,
    y: f64,
    label: String,
    counts: String,
    failing: Option<bool>,
}

/// Lays a tree out (leaves left to right, parents centred) and returns node boxes and edges.
fn layout(
    tree: &DecisionTree,
    node: &Node,
    depth: usize,
    next_leaf: &mut f64,
    nodes: &mut Vec<Placed>,
    edges: &mut Vec<(usize, usize, &'static str)>,
) -> usize {
    let y = depth as f64 * LEVEL_GAP + 10.0;
    let (failed, passed) = node.counts();
    let counts = format!("{failed} failed / {passed} passed");
    match node {
        Node::Leaf { .. } => {
            let x = *next_leaf;
            *next_leaf += NODE_WIDTH + 20.0;
            nodes.push(Placed {
                x,
                y,
                label: if tree.predicts_failure(node) {
                    "FAILED"
                } else {
                    "passed"
                }
                .to_string(),
                counts,
                failing: Some(tree.predicts_failure(node)),
            });
            nodes.len() - 1
        }
        Node::Split {
            feature,
            condition,
            yes,
            no,
            ..
        } => {
            let yes_index = layout(tree, yes, depth + 1, next_leaf, nodes, edges);
            let no_index = layout(tree, no, depth + 1, next_leaf, nodes, edges);
            let x = (nodes[yes_index].x + nodes[no_index].x) / 2.0;
            nodes.push(Placed {
                x,
                y,
                label: tree.condition_text(*feature, condition),
                counts,
                failing: None,
            });
            let me = nodes.len() - 1;
            edges.push((me, yes_index, "yes"));
            edges.push((me, no_index, "no"));
            me
        }
    }
}

/// Draws a tree as an SVG element.
pub(crate) fn tree_svg(tree: &DecisionTree) -> String {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut next_leaf = 10.0;
    layout(tree, &tree.root, 0, &mut next_leaf, &mut nodes, &mut edges);
    let width = next_leaf.max(NODE_WIDTH + 20.0);
    let height = nodes.iter().map(|n| n.y).fold(0.0, f64::max) + NODE_HEIGHT + 20.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n"
    );
    for (from, to, label) in &edges {
        let (a, b) = (&nodes[*from], &nodes[*to]);
        let (x1, y1) = (a.x + NODE_WIDTH / 2.0, a.y + NODE_HEIGHT);
        let (x2, y2) = (b.x + NODE_WIDTH / 2.0, b.y);
        let _ = writeln!(
            svg,
            "<line x1=\"{x1:.0}\" y1=\"{y1:.0}\" x2=\"{x2:.0}\" y2=\"{y2:.0}\" stroke=\"#666\"/><text x=\"{:.0}\" y=\"{:.0}\" fill=\"#444\">{label}</text>",
            (x1 + x2) / 2.0 + 4.0,
            (y1 + y2) / 2.0
        );
    }
    for n in &nodes {
        let fill = match n.failing {
            Some(true) => "#f8d0d0",
            Some(false) => "#d4efd4",
            None => "#eef2fa",
        };
        let _ = writeln!(
            svg,
            "<rect x=\"{:.0}\" y=\"{:.0}\" width=\"{NODE_WIDTH:.0}\" height=\"{NODE_HEIGHT:.0}\" rx=\"5\" fill=\"{fill}\" stroke=\"#888\"/><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\">{}</text>",
            n.x,
            n.y,
            n.x + NODE_WIDTH / 2.0,
            n.y + 16.0,
            escape(&n.label),
            n.x + NODE_WIDTH / 2.0,
            n.y + 32.0,
            escape(&n.counts)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn examples_table(report: &RelationReport) -> String {
    let vars = report.relation.all_vars();
    let mut html = String::new();
    for (i, test) in report.outcome.worst_failures.iter().take(5).enumerate() {
        let _ = writeln!(
            html,
            "<h4>Failing example {} (deviation {:.2}): the cases side by side, fields that differ highlighted</h4><table class=\"pair\"><tr><th>field</th>{}</tr>",
            i + 1,
            test.deviation,
            vars.iter()
                .map(|v| format!("<th>{}</th>", escape(v)))
                .collect::<String>()
        );
        html.push_str(&pair_rows(&test.cases, "in"));
        html.push_str(&pair_rows(&test.outputs, "out"));
        html.push_str("</table>\n");
    }
    html
}

/// One row per field of `records` (inputs or outputs of the cases of a test, side by side);
/// a cell whose value differs from the first case's is marked `diff`, and so is the field.
fn pair_rows(records: &[Record], class: &str) -> String {
    let mut fields: Vec<&String> = Vec::new();
    for r in records {
        for k in r.keys() {
            if !fields.contains(&k) {
                fields.push(k);
            }
        }
    }
    let mut html = String::new();
    for field in fields {
        let values: Vec<Option<&Value>> = records.iter().map(|c| c.get(field)).collect();
        let differs = values.windows(2).any(|w| w[0] != w[1]);
        let name = if field == MAIN_OUTPUT_KEY {
            "F".to_string()
        } else {
            escape(field)
        };
        let _ = write!(
            html,
            "<tr class=\"{class}\"><td{}>{name}</td>",
            if differs { " class=\"diff\"" } else { "" }
        );
        for v in &values {
            let cell = if *v != values[0] {
                " class=\"diff\""
            } else {
                ""
            };
            let _ = write!(
                html,
                "<td{cell}>{}</td>",
                v.map_or("–".into(), |v| escape(&v.to_string()))
            );
        }
        html.push_str("</tr>\n");
    }
    html
}

/// The self-contained HTML report.
pub fn to_html(reports: &[RelationReport], system: &str) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lexprobe metamorphic report</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.failed{color:#b00;font-weight:bold}.passed{color:#070}.inconclusive{color:#a60;font-weight:bold}td.diff{background:#ffe08a;font-weight:bold}tr.out td{border-top-color:#999}tr.out td:first-child{font-style:italic}pre{background:#f6f6f6;padding:8px}.tree{display:flex;gap:16px;align-items:flex-start;overflow-x:auto}.tree pre{margin:0;flex:0 0 auto;font-size:12px}section.relation{border-top:2px solid #888;margin-top:1.5em}</style></head><body>\n",
    );
    let _ = writeln!(
        html,
        "<h1>Metamorphic testing report</h1><p>System: <code>{}</code></p>",
        escape(system)
    );
    html.push_str("<table><tr><th>relation</th><th>verdict</th><th>tests</th><th>passed</th><th>failed</th><th>first failure (s)</th><th>max deviation</th><th>run errors</th><th>tests/s</th></tr>\n");
    for r in reports {
        let o = &r.outcome;
        let _ = writeln!(
            html,
            "<tr><td><a href=\"#{name}\">{name}</a></td><td class=\"{v}\">{v}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.0}</td></tr>",
            o.tests,
            o.passed,
            o.failed,
            o.first_failure_s.map_or("–".into(), |s| format!("{s:.2}")),
            o.max_deviation,
            o.run_errors,
            o.throughput(),
            name = escape(&r.relation.name),
            v = o.verdict.as_str(),
        );
    }
    html.push_str("</table>\n");
    for r in reports {
        let o = &r.outcome;
        let _ = writeln!(
            html,
            "<section class=\"relation\"><h2 id=\"{0}\">{0}</h2>",
            escape(&r.relation.name)
        );
        if let Some(d) = &r.relation.description {
            let _ = writeln!(html, "<p>{}</p>", escape(d));
        }
        let _ = writeln!(
            html,
            "<pre>forall {}. {}\n  =&gt; forall {}. {}\n  =&gt; {}</pre>",
            escape(&r.relation.base_vars.join(", ")),
            escape(&r.relation.base_premise.to_string()),
            escape(&r.relation.follow_vars.join(", ")),
            escape(&r.relation.follow_premise.to_string()),
            escape(&r.relation.conclusion.to_string())
        );
        let _ = writeln!(
            html,
            "<p>Verdict <span class=\"{v}\">{v}</span>: {} tests, {} passed, {} failed, {} run errors, first failure {}, max deviation {:.2}, {} bases accepted (K = {}), {} bases exhausted, {:.1} s.</p>",
            o.tests,
            o.passed,
            o.failed,
            o.run_errors,
            o.first_failure_s.map_or("–".into(), |s| format!("at {s:.2} s")),
            o.max_deviation,
            o.accepted_bases,
            o.consecutive_passes_needed,
            o.exhausted_bases,
            o.elapsed_s,
            v = o.verdict.as_str()
        );
        match &r.explanation {
            Explanation::Trees {
                lexicographic,
                lexicographic_accuracy,
                cart,
                cart_accuracy,
                training_tests,
            } => {
                let _ = writeln!(html, "<p>Trees trained on {training_tests} tests.</p>");
                let _ = writeln!(
                    html,
                    "<h3>Lexicographic tree ({:.1}% accuracy, {} leaves)</h3><div class=\"tree\">{}<pre>{}</pre></div>",
                    lexicographic_accuracy * 100.0,
                    lexicographic.leaves(),
                    tree_svg(lexicographic),
                    escape(&lexicographic.to_text())
                );
                let _ = writeln!(
                    html,
                    "<h3>CART tree ({:.1}% accuracy, {} leaves)</h3><div class=\"tree\">{}<pre>{}</pre></div>",
                    cart_accuracy * 100.0,
                    cart.leaves(),
                    tree_svg(cart),
                    escape(&cart.to_text())
                );
            }
            other => {
                let _ = writeln!(html, "<p><em>{}</em></p>", escape(&other.to_text(o)));
            }
        }
        html.push_str(&examples_table(r));
        for message in &o.run_error_examples {
            let _ = writeln!(html, "<p>Run error: <code>{}</code></p>", escape(message));
        }
        html.push_str("</section>\n");
    }
    html.push_str("</body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_rows_mark_the_cells_that_differ() {
        let mut a = Record::new();
        a.insert("income".into(), Value::Integer(100));
        a.insert("children".into(), Value::Integer(2));
        let mut b = a.clone();
        b.insert("income".into(), Value::Integer(200));
        let rows = pair_rows(&[a, b], "in");
        assert!(rows.contains(
            "<tr class=\"in\"><td class=\"diff\">income</td><td>100</td><td class=\"diff\">200</td></tr>"
        ));
        assert!(rows.contains("<tr class=\"in\"><td>children</td><td>2</td><td>2</td></tr>"));
    }
    use crate::check::check_relations;
    use crate::domain::Domain;
    use crate::relation::parse_relations;
    use crate::search::SearchConfig;
    use crate::system::{FunctionSystem, RunFailure};
    use crate::tree::TreeOptions;
    use std::time::Duration;

    #[test]
    fn text_states_why_each_relation_is_inconclusive() {
        let domain =
            Domain::from_toml("output = \"y\"\n[fields.a]\ntype = \"integer\"\nmin = 0\nmax = 9\n")
                .unwrap();
        let relations = parse_relations(
            "relation impossible forall x, y. x ==[a] y and y.a > 20 => F(x) = F(y)\n\
             relation crashing forall x, y. x ==[a] y and x.a < y.a => F(x) <= F(y)",
        )
        .unwrap();
        let system = FunctionSystem {
            name: "always crashes".into(),
            function: |_: &Record| {
                Err(RunFailure::Crashed {
                    detail: "`prog` ended without answering (exit status: 1)".into(),
                })
            },
        };
        let config = SearchConfig {
            budget: Duration::from_secs(10),
            ..SearchConfig::default()
        };
        let reports = check_relations(
            &relations,
            &domain,
            &system,
            &config,
            &TreeOptions::default(),
            &mut |_| {},
        );
        let text = to_text(&reports);
        assert!(
            text.contains("== impossible ==\ninconclusive: no inputs satisfying the premise were found in the domain"),
            "{text}"
        );
        assert!(
            text.contains("== crashing ==\ninconclusive: every run failed"),
            "{text}"
        );
        assert!(text.contains("first run error: crash: `prog` ended without answering"));
        let json = to_json(&reports, "always crashes");
        let reason = json["relations"][1]["inconclusive_reason"]
            .as_str()
            .unwrap();
        assert!(reason.starts_with("every run failed"), "{reason}");
    }
}
