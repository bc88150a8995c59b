//! What exploring some subtrees of a pair's path tree found, without terms: the differing
//! leaves as their path identifiers and models ([`FoundLeaf`]), the figures, and whether every
//! subtree was explored entirely. Threads of a parallel exploration hand such parts back; a
//! shard prints one as JSON and `merge` reads them back ([`DifferencePart::to_json`],
//! [`DifferencePart::from_json`]). Parts add up: the leaves are joined (a leaf found twice,
//! on the same path identifier, is kept once when rebuilt), the figures summed.

use crate::checkpoint::{value_from, value_json};
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::relational::RelationalResult;
use serde_json::{json, Value as Json};
use std::collections::BTreeSet;

/// A differing leaf: its path and a model where the versions differ on it.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundLeaf {
    pub id: PathId,
    pub assignment: Assignment,
    /// Seconds from the start of the exploration that found it.
    pub at_s: f64,
}

/// The differing leaves and figures of the subtrees explored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DifferencePart {
    pub found: Vec<FoundLeaf>,
    /// Every subtree given was explored entirely and every query answered.
    pub complete: bool,
    pub path_pairs: usize,
    pub judged_pairs: usize,
    pub error_pairs: usize,
    pub error_examples: Vec<String>,
    pub unknown_queries: usize,
    pub retried_queries: usize,
    pub resolved_on_retry: usize,
    pub unknown_leaf_queries: usize,
    pub queries_without_z3: u64,
    pub unencoded_leaves: usize,
    pub unencoded_reason: Option<String>,
    pub incomplete: BTreeSet<String>,
    pub stopped: Option<String>,
    pub divergences: usize,
    pub path_queries: u64,
    pub elapsed_s: f64,
    /// The subtrees (prefix, inputs) not explored, or cut short and taken back, when the
    /// exploration was stopped (for a checkpoint; not part of the JSON form).
    pub left: Vec<(PathId, Assignment)>,
}

impl DifferencePart {
    /// The part of one loop's result.
    pub(crate) fn of(mut r: RelationalResult) -> DifferencePart {
        let found = std::mem::take(&mut r.violations)
            .into_iter()
            .map(|v| FoundLeaf {
                id: v.id,
                assignment: v.assignment,
                at_s: v.at_s,
            })
            .collect();
        DifferencePart {
            found,
            complete: r.complete,
            path_pairs: r.path_pairs,
            judged_pairs: r.judged_pairs,
            error_pairs: r.error_pairs,
            error_examples: r.error_examples,
            unknown_queries: r.unknown_queries,
            retried_queries: r.retried_queries,
            resolved_on_retry: r.resolved_on_retry,
            unknown_leaf_queries: r.unknown_leaf_queries,
            queries_without_z3: r.queries_without_z3,
            unencoded_leaves: r.unencoded_leaves,
            unencoded_reason: r.unencoded_reason,
            incomplete: r.incomplete,
            stopped: r.stopped,
            divergences: r.divergences,
            path_queries: r.path_queries,
            elapsed_s: r.elapsed_s,
            left: r.unfinished,
        }
    }

    /// A part saved by a stopped exploration, to add a resumption to: not stopped any more,
    /// complete when the subtrees it finished were (no query unanswered, no pair left
    /// uncompared, no run off its subtree, nothing evaluated concretely).
    pub fn resumed(mut self) -> DifferencePart {
        self.stopped = None;
        self.complete = self.unknown_queries == 0
            && self.unencoded_leaves == 0
            && self.divergences == 0
            && self.incomplete.is_empty();
        self.left.clear();
        self
    }

    /// Nothing explored yet, complete.
    pub fn empty() -> DifferencePart {
        DifferencePart {
            complete: true,
            ..DifferencePart::default()
        }
    }

    /// Adds `other`: complete when both are; the longest time (parts run side by side).
    pub fn add(&mut self, other: DifferencePart) {
        self.found.extend(other.found);
        self.complete &= other.complete;
        self.path_pairs += other.path_pairs;
        self.judged_pairs += other.judged_pairs;
        self.error_pairs += other.error_pairs;
        for e in other.error_examples {
            if self.error_examples.len() < 5 && !self.error_examples.contains(&e) {
                self.error_examples.push(e);
            }
        }
        self.unknown_queries += other.unknown_queries;
        self.retried_queries += other.retried_queries;
        self.resolved_on_retry += other.resolved_on_retry;
        self.unknown_leaf_queries += other.unknown_leaf_queries;
        self.queries_without_z3 += other.queries_without_z3;
        self.unencoded_leaves += other.unencoded_leaves;
        if self.unencoded_reason.is_none() {
            self.unencoded_reason = other.unencoded_reason;
        }
        self.incomplete.extend(other.incomplete);
        if self.stopped.is_none() {
            self.stopped = other.stopped;
        }
        self.divergences += other.divergences;
        self.path_queries += other.path_queries;
        self.elapsed_s = self.elapsed_s.max(other.elapsed_s);
        self.left.extend(other.left);
    }

    /// The figures as a relational result without violations, and the leaves found.
    pub(crate) fn into_result(self) -> (RelationalResult, Vec<FoundLeaf>) {
        let r = RelationalResult {
            complete: self.complete,
            path_pairs: self.path_pairs,
            judged_pairs: self.judged_pairs,
            error_pairs: self.error_pairs,
            error_examples: self.error_examples,
            unknown_queries: self.unknown_queries,
            retried_queries: self.retried_queries,
            resolved_on_retry: self.resolved_on_retry,
            unknown_leaf_queries: self.unknown_leaf_queries,
            queries_without_z3: self.queries_without_z3,
            unencoded_leaves: self.unencoded_leaves,
            unencoded_reason: self.unencoded_reason,
            incomplete: self.incomplete,
            stopped: self.stopped,
            divergences: self.divergences,
            path_queries: self.path_queries,
            elapsed_s: self.elapsed_s,
            ..RelationalResult::default()
        };
        (r, self.found)
    }

    pub fn to_json(&self) -> Json {
        json!({
            "found": self.found.iter().map(|f| json!({
                "path": f.id.to_string(),
                "inputs": f.assignment.iter().map(value_json).collect::<Vec<_>>(),
                "at_s": f.at_s,
            })).collect::<Vec<_>>(),
            "complete": self.complete,
            "path_pairs": self.path_pairs,
            "judged_pairs": self.judged_pairs,
            "error_pairs": self.error_pairs,
            "error_examples": self.error_examples,
            "unknown_queries": self.unknown_queries,
            "retried_queries": self.retried_queries,
            "resolved_on_retry": self.resolved_on_retry,
            "unknown_leaf_queries": self.unknown_leaf_queries,
            "queries_without_z3": self.queries_without_z3,
            "unencoded_leaves": self.unencoded_leaves,
            "unencoded_reason": self.unencoded_reason,
            "incomplete": self.incomplete,
            "stopped": self.stopped,
            "divergences": self.divergences,
            "path_queries": self.path_queries,
            "elapsed_s": self.elapsed_s,
        })
    }

    pub fn from_json(j: &Json) -> Result<DifferencePart, String> {
        let count = |k: &str| j.get(k).and_then(Json::as_u64).unwrap_or(0);
        let text = |k: &str| j.get(k).and_then(Json::as_str).map(str::to_string);
        let texts = |k: &str| -> Vec<String> {
            j.get(k)
                .and_then(Json::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut found = Vec::new();
        for f in j.get("found").and_then(Json::as_array).ok_or("no found")? {
            found.push(FoundLeaf {
                id: PathId::parse(f.get("path").and_then(Json::as_str).ok_or("no path")?)?,
                assignment: f
                    .get("inputs")
                    .and_then(Json::as_array)
                    .ok_or("no inputs")?
                    .iter()
                    .map(value_from)
                    .collect::<Result<_, _>>()?,
                at_s: f.get("at_s").and_then(Json::as_f64).unwrap_or(0.0),
            });
        }
        Ok(DifferencePart {
            found,
            complete: j
                .get("complete")
                .and_then(Json::as_bool)
                .ok_or("no complete")?,
            path_pairs: count("path_pairs") as usize,
            judged_pairs: count("judged_pairs") as usize,
            error_pairs: count("error_pairs") as usize,
            error_examples: texts("error_examples"),
            unknown_queries: count("unknown_queries") as usize,
            retried_queries: count("retried_queries") as usize,
            resolved_on_retry: count("resolved_on_retry") as usize,
            unknown_leaf_queries: count("unknown_leaf_queries") as usize,
            queries_without_z3: count("queries_without_z3"),
            unencoded_leaves: count("unencoded_leaves") as usize,
            unencoded_reason: text("unencoded_reason"),
            incomplete: texts("incomplete").into_iter().collect(),
            stopped: text("stopped"),
            divergences: count("divergences") as usize,
            path_queries: count("path_queries"),
            elapsed_s: j.get("elapsed_s").and_then(Json::as_f64).unwrap_or(0.0),
            left: Vec::new(),
        })
    }
}

/// Inputs as JSON, as plans and checkpoints write them.
pub fn assignment_json(a: &Assignment) -> Json {
    Json::Array(a.iter().map(value_json).collect())
}

/// Inputs written by [`assignment_json`].
pub fn assignment_from_json(j: &Json) -> Result<Assignment, String> {
    j.as_array()
        .ok_or("no inputs")?
        .iter()
        .map(value_from)
        .collect()
}
