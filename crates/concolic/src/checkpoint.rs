//! Checkpoints of a sequential exploration, so that a run cut short (killed, or stopped at its
//! time limit) continues where it was. Between two runs the depth-first search is entirely
//! described by the inputs of the next run and, for each constraint of the path those inputs
//! will follow, whether its other branch has been explored: running the inputs again rebuilds
//! the constraints themselves. Early-conflict lemmas are not kept (a resumed exploration may
//! prune a little less). Subtrees waiting for a worker (set aside by a searcher, or queued
//! between the threads of `--jobs`) are kept the same way, each as its inputs and done flags
//! (`pending`), so a parallel exploration is saved and resumed too, with any number of threads.

use serde_json::{json, Value as Json};
use smt::catala::ModelValue;
use std::collections::BTreeMap;
use std::time::Duration;

/// The state of an exploration between two runs, with its figures so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checkpoint {
    /// Inputs of the next run (one entry per solver variable; `None`: left to its default).
    pub assignment: Vec<Option<ModelValue>>,
    /// For each constraint of the next run's path prefix: its other branch is explored.
    pub done: Vec<bool>,
    pub tests: usize,
    pub solver_calls: u64,
    pub soft_solver_calls: u64,
    pub elapsed: Duration,
    pub solver_time: Duration,
    pub by_outcome: BTreeMap<String, usize>,
    pub by_roundness: BTreeMap<String, usize>,
    /// In a shard: the position, in the shard's list, of the subtree the next run belongs to
    /// (the earlier ones are done); 0 otherwise.
    pub subtree: usize,
    /// In a shard: the positions of the earlier subtrees that could not be explored entirely.
    pub lost_subtrees: Vec<usize>,
    /// Other subtrees still to explore (those of the other threads, and those waiting).
    pub pending: Vec<SavedSubtree>,
    /// In a shard: every subtree left to explore is listed (the one of `assignment`, named by
    /// `subtree`, and those of `pending`, each named by its `subtree`), in any order; the
    /// others are done. Otherwise the subtrees after `subtree` are still to explore.
    pub subtrees_listed: bool,
}

/// A subtree still to explore: the inputs of its next run and the done flags of that run's
/// path prefix (as [`Checkpoint::assignment`] and [`Checkpoint::done`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedSubtree {
    pub assignment: Vec<Option<ModelValue>>,
    pub done: Vec<bool>,
    /// In a shard: the position of the subtree in the shard's list.
    pub subtree: Option<usize>,
}

fn flags_json(done: &[bool]) -> Json {
    Json::String(done.iter().map(|d| if *d { '1' } else { '0' }).collect())
}

fn flags_from(j: Option<&Json>) -> Result<Vec<bool>, String> {
    j.and_then(Json::as_str)
        .ok_or("no done flags")?
        .chars()
        .map(|c| match c {
            '1' => Ok(true),
            '0' => Ok(false),
            other => Err(format!("bad done flag {other:?}")),
        })
        .collect()
}

fn assignment_from(j: Option<&Json>) -> Result<Vec<Option<ModelValue>>, String> {
    j.and_then(Json::as_array)
        .ok_or("no assignment")?
        .iter()
        .map(value_from)
        .collect()
}

pub(crate) fn value_json(v: &Option<ModelValue>) -> Json {
    match v {
        None => Json::Null,
        Some(ModelValue::Bool(b)) => json!({ "bool": b }),
        Some(ModelValue::Int(i)) => json!({ "int": i }),
        Some(ModelValue::Real(n, d)) => json!({ "real": [n, d] }),
    }
}

pub(crate) fn value_from(j: &Json) -> Result<Option<ModelValue>, String> {
    if j.is_null() {
        return Ok(None);
    }
    let bad = || format!("not a model value: {j}");
    if let Some(b) = j.get("bool") {
        return b
            .as_bool()
            .map(|b| Some(ModelValue::Bool(b)))
            .ok_or_else(bad);
    }
    if let Some(i) = j.get("int").and_then(Json::as_str) {
        if i.trim_start_matches('-')
            .chars()
            .all(|c| c.is_ascii_digit())
            && !i.is_empty()
        {
            return Ok(Some(ModelValue::Int(i.to_string())));
        }
        return Err(bad());
    }
    if let Some([n, d]) = j.get("real").and_then(Json::as_array).map(Vec::as_slice) {
        if let (Some(n), Some(d)) = (n.as_str(), d.as_str()) {
            return Ok(Some(ModelValue::Real(n.to_string(), d.to_string())));
        }
    }
    Err(bad())
}

fn counts(j: Option<&Json>) -> Result<BTreeMap<String, usize>, String> {
    let mut out = BTreeMap::new();
    if let Some(Json::Object(m)) = j {
        for (k, v) in m {
            let n = v.as_u64().ok_or_else(|| format!("not a count: {v}"))?;
            out.insert(k.clone(), n as usize);
        }
    }
    Ok(out)
}

impl Checkpoint {
    pub fn to_json(&self) -> Json {
        let mut j = json!({
            "assignment": self.assignment.iter().map(value_json).collect::<Vec<_>>(),
            "done": flags_json(&self.done),
            "tests": self.tests,
            "solver_calls": self.solver_calls,
            "soft_solver_calls": self.soft_solver_calls,
            "elapsed_s": self.elapsed.as_secs_f64(),
            "solver_time_s": self.solver_time.as_secs_f64(),
            "by_outcome": self.by_outcome,
            "by_roundness": self.by_roundness,
            "subtree": self.subtree,
            "lost_subtrees": self.lost_subtrees,
        });
        if !self.pending.is_empty() {
            j["pending"] = self
                .pending
                .iter()
                .map(|p| {
                    let mut s = json!({
                        "assignment": p.assignment.iter().map(value_json).collect::<Vec<_>>(),
                        "done": flags_json(&p.done),
                    });
                    if let Some(k) = p.subtree {
                        s["subtree"] = json!(k);
                    }
                    s
                })
                .collect();
        }
        if self.subtrees_listed {
            j["subtrees_listed"] = json!(true);
        }
        j
    }

    pub fn from_json(j: &Json) -> Result<Checkpoint, String> {
        let assignment = assignment_from(j.get("assignment"))?;
        let done = flags_from(j.get("done"))?;
        let pending = match j.get("pending") {
            None => Vec::new(),
            Some(p) => p
                .as_array()
                .ok_or("bad pending")?
                .iter()
                .map(|s| {
                    Ok(SavedSubtree {
                        assignment: assignment_from(s.get("assignment"))?,
                        done: flags_from(s.get("done"))?,
                        subtree: match s.get("subtree") {
                            None => None,
                            Some(k) => Some(k.as_u64().ok_or("bad pending subtree")? as usize),
                        },
                    })
                })
                .collect::<Result<Vec<_>, String>>()?,
        };
        let number = |k: &str| j.get(k).and_then(Json::as_u64).ok_or(format!("no {k}"));
        let seconds = |k: &str| {
            j.get(k)
                .and_then(Json::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
                .ok_or(format!("no {k}"))
        };
        Ok(Checkpoint {
            assignment,
            done,
            tests: number("tests")? as usize,
            solver_calls: number("solver_calls")?,
            soft_solver_calls: number("soft_solver_calls")?,
            elapsed: seconds("elapsed_s")?,
            solver_time: seconds("solver_time_s")?,
            by_outcome: counts(j.get("by_outcome"))?,
            by_roundness: counts(j.get("by_roundness"))?,
            // Absent from the checkpoints of a whole exploration written before shards.
            subtree: j.get("subtree").and_then(Json::as_u64).unwrap_or(0) as usize,
            lost_subtrees: match j.get("lost_subtrees") {
                None => Vec::new(),
                Some(l) => l
                    .as_array()
                    .and_then(|a| {
                        a.iter()
                            .map(|n| n.as_u64().map(|n| n as usize))
                            .collect::<Option<Vec<usize>>>()
                    })
                    .ok_or("bad lost_subtrees")?,
            },
            pending,
            subtrees_listed: j
                .get("subtrees_listed")
                .and_then(Json::as_bool)
                .unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_read_back_what_they_wrote() {
        let c = Checkpoint {
            assignment: vec![
                Some(ModelValue::Bool(true)),
                None,
                Some(ModelValue::Int("-120000".into())),
                Some(ModelValue::Real("1".into(), "3".into())),
            ],
            done: vec![true, false, true],
            tests: 42,
            solver_calls: 100,
            soft_solver_calls: 7,
            elapsed: Duration::from_millis(1500),
            solver_time: Duration::from_millis(500),
            by_outcome: [("ok".to_string(), 40), ("conflict".to_string(), 2)].into(),
            by_roundness: [("Hundreds".to_string(), 42)].into(),
            subtree: 3,
            lost_subtrees: vec![1],
            pending: vec![SavedSubtree {
                assignment: vec![None, Some(ModelValue::Int("7".into())), None, None],
                done: vec![true, true, false],
                subtree: Some(4),
            }],
            subtrees_listed: true,
        };
        let without_pending = Checkpoint {
            pending: Vec::new(),
            subtrees_listed: false,
            ..c.clone()
        };
        assert!(without_pending.to_json().get("pending").is_none());
        assert!(without_pending.to_json().get("subtrees_listed").is_none());
        assert_eq!(
            Checkpoint::from_json(&without_pending.to_json()),
            Ok(without_pending)
        );
        assert_eq!(Checkpoint::from_json(&c.to_json()), Ok(c));
        assert!(Checkpoint::from_json(&json!({"assignment": [], "done": "01x"})).is_err());
        assert!(
            Checkpoint::from_json(&json!({"assignment": [{"int": "1.5"}], "done": ""})).is_err()
        );
    }
}
