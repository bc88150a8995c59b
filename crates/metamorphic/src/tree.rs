//! Decision trees explaining where a relation fails: CART with Gini impurity over the
//! features of the base and follow-up cases, and the lexicographic variant of the paper's
//! Section 5, in which every root-to-leaf path splits on base features before follow-up
//! features (a node switches to follow-up features only when no base feature reduces its
//! impurity), because follow-ups are drawn from their bases and their features depend on
//! the bases'. Trees are trained on passed/failed labels with a depth limit and report
//! their training accuracy and leaf count.

use crate::search::TestRecord;
use crate::value::Value;
use std::fmt::Write;

/// How a feature's values are compared.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureKind {
    Numeric,
    Boolean,
    /// Enumeration values, encoded by their index.
    Categorical(Vec<String>),
}

/// One column of the data set, e.g. `x.AGI`.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    pub name: String,
    /// 0 for base-case features, 1 for follow-up features.
    pub group: usize,
    pub kind: FeatureKind,
}

/// Labelled rows: `labels[i]` is true when test i failed.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    pub features: Vec<Feature>,
    pub rows: Vec<Vec<f64>>,
    pub labels: Vec<bool>,
}

impl Dataset {
    /// Builds the data set of a search: one feature per (case variable, input field).
    pub(crate) fn from_tests(vars: &[String], base_count: usize, tests: &[TestRecord]) -> Dataset {
        let Some(first) = tests.first() else {
            return Dataset::default();
        };
        let mut features = Vec::new();
        let mut columns: Vec<(usize, String)> = Vec::new();
        for (v, var) in vars.iter().enumerate() {
            let Some(case) = first.cases.get(v) else {
                continue;
            };
            for (field, value) in case {
                let kind = match value {
                    Value::Bool(_) => FeatureKind::Boolean,
                    Value::Enum(_) => {
                        let mut names: Vec<String> = tests
                            .iter()
                            .filter_map(|t| match t.cases.get(v)?.get(field)? {
                                Value::Enum(s) => Some(s.clone()),
                                _ => None,
                            })
                            .collect();
                        names.sort();
                        names.dedup();
                        FeatureKind::Categorical(names)
                    }
                    _ => FeatureKind::Numeric,
                };
                features.push(Feature {
                    name: format!("{var}.{field}"),
                    group: usize::from(v >= base_count),
                    kind,
                });
                columns.push((v, field.clone()));
            }
        }
        let rows = tests
            .iter()
            .map(|t| {
                columns
                    .iter()
                    .zip(&features)
                    .map(|((v, field), feature)| {
                        let value = t.cases.get(*v).and_then(|c| c.get(field));
                        match (value, &feature.kind) {
                            (Some(Value::Enum(s)), FeatureKind::Categorical(names)) => names
                                .iter()
                                .position(|n| n == s)
                                .map_or(f64::NAN, |i| i as f64),
                            (Some(other), _) => other.as_f64().unwrap_or(f64::NAN),
                            (None, _) => f64::NAN,
                        }
                    })
                    .collect()
            })
            .collect();
        Dataset {
            features,
            rows,
            labels: tests.iter().map(|t| t.failed).collect(),
        }
    }
}

/// The test at a split node.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `feature <= threshold`
    AtMost(f64),
    /// `feature == category index`
    Is(usize),
    /// boolean feature is true
    IsTrue,
}

/// A node of a trained tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Leaf {
        failed: usize,
        passed: usize,
    },
    Split {
        feature: usize,
        condition: Condition,
        /// Where rows meeting the condition go.
        yes: Box<Node>,
        no: Box<Node>,
        failed: usize,
        passed: usize,
    },
}

impl Node {
    pub(crate) fn counts(&self) -> (usize, usize) {
        match self {
            Node::Leaf { failed, passed } | Node::Split { failed, passed, .. } => {
                (*failed, *passed)
            }
        }
    }
}

/// Training options.
#[derive(Debug, Clone, Copy)]
pub struct TreeOptions {
    pub max_depth: usize,
    pub min_samples_leaf: usize,
    /// Base features before follow-up features on every path.
    pub lexicographic: bool,
    /// Weigh the classes inversely to their frequency (so that rare failures still get
    /// leaves of their own).
    pub balanced: bool,
}

impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            max_depth: 4,
            min_samples_leaf: 1,
            lexicographic: true,
            balanced: true,
        }
    }
}

/// A trained tree with the features it refers to.
#[derive(Debug, Clone)]
pub struct DecisionTree {
    pub root: Node,
    pub features: Vec<Feature>,
    pub lexicographic: bool,
    /// Weight of a failed test relative to a passed one (1 when not balanced).
    pub failed_weight: f64,
}

/// Gini impurity of a node with (weighted) failed and passed masses.
fn gini(failed: f64, passed: f64) -> f64 {
    let total = failed + passed;
    if total <= 0.0 {
        return 0.0;
    }
    let p = failed / total;
    2.0 * p * (1.0 - p)
}

/// Whether a node with these counts predicts failure, failed tests weighing `failed_weight`.
fn predicts_failure(failed: usize, passed: usize, failed_weight: f64) -> bool {
    failed as f64 * failed_weight > passed as f64
}

/// Smallest impurity decrease that counts as an improvement.
const MIN_GAIN: f64 = 1e-9;

struct Candidate {
    feature: usize,
    condition: Condition,
    gain: f64,
}

fn meets(condition: &Condition, x: f64) -> bool {
    match condition {
        Condition::AtMost(t) => x <= *t,
        Condition::Is(i) => x == *i as f64,
        Condition::IsTrue => x > 0.5,
    }
}

fn best_split(
    data: &Dataset,
    rows: &[usize],
    allowed_group: Option<usize>,
    min_leaf: usize,
    failed_weight: f64,
) -> Option<Candidate> {
    let total = rows.len();
    let total_failed = rows.iter().filter(|&&r| data.labels[r]).count();
    let mass = |failed: usize, all: usize| (failed as f64 * failed_weight, (all - failed) as f64);
    let (pf, pp) = mass(total_failed, total);
    let parent = gini(pf, pp);
    let mut best: Option<Candidate> = None;
    let mut consider = |feature: usize, condition: Condition, yes_failed: usize, yes: usize| {
        let no = total - yes;
        if yes < min_leaf || no < min_leaf {
            return;
        }
        let (yf, yp) = mass(yes_failed, yes);
        let (nf, np) = mass(total_failed - yes_failed, no);
        let child = ((yf + yp) * gini(yf, yp) + (nf + np) * gini(nf, np)) / (pf + pp);
        let gain = parent - child;
        if gain > MIN_GAIN && best.as_ref().is_none_or(|b| gain > b.gain + 1e-12) {
            best = Some(Candidate {
                feature,
                condition,
                gain,
            });
        }
    };
    for (f, feature) in data.features.iter().enumerate() {
        if allowed_group.is_some_and(|g| feature.group != g) {
            continue;
        }
        match &feature.kind {
            FeatureKind::Boolean => {
                let yes: Vec<usize> = rows
                    .iter()
                    .copied()
                    .filter(|&r| data.rows[r][f] > 0.5)
                    .collect();
                let yes_failed = yes.iter().filter(|&&r| data.labels[r]).count();
                consider(f, Condition::IsTrue, yes_failed, yes.len());
            }
            FeatureKind::Categorical(names) => {
                for i in 0..names.len() {
                    let mut yes = 0;
                    let mut yes_failed = 0;
                    for &r in rows {
                        if data.rows[r][f] == i as f64 {
                            yes += 1;
                            yes_failed += usize::from(data.labels[r]);
                        }
                    }
                    consider(f, Condition::Is(i), yes_failed, yes);
                }
            }
            FeatureKind::Numeric => {
                let mut sorted: Vec<(f64, bool)> = rows
                    .iter()
                    .map(|&r| (data.rows[r][f], data.labels[r]))
                    .filter(|(x, _)| !x.is_nan())
                    .collect();
                if sorted.len() < total {
                    continue;
                }
                sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut yes_failed = 0;
                for i in 0..sorted.len().saturating_sub(1) {
                    yes_failed += usize::from(sorted[i].1);
                    if sorted[i].0 == sorted[i + 1].0 {
                        continue;
                    }
                    let threshold = (sorted[i].0 + sorted[i + 1].0) / 2.0;
                    consider(f, Condition::AtMost(threshold), yes_failed, i + 1);
                }
            }
        }
    }
    best
}

fn grow(
    data: &Dataset,
    rows: Vec<usize>,
    depth: usize,
    group: usize,
    options: &TreeOptions,
    failed_weight: f64,
) -> Node {
    let failed = rows.iter().filter(|&&r| data.labels[r]).count();
    let passed = rows.len() - failed;
    if depth >= options.max_depth || failed == 0 || passed == 0 {
        return Node::Leaf { failed, passed };
    }
    let min_leaf = options.min_samples_leaf.max(1);
    let (candidate, child_group) = if options.lexicographic {
        let max_group = data.features.iter().map(|f| f.group).max().unwrap_or(0);
        let mut found = (None, group);
        for g in group..=max_group {
            if let Some(c) = best_split(data, &rows, Some(g), min_leaf, failed_weight) {
                found = (Some(c), g);
                break;
            }
        }
        found
    } else {
        (
            best_split(data, &rows, None, min_leaf, failed_weight),
            group,
        )
    };
    let Some(candidate) = candidate else {
        return Node::Leaf { failed, passed };
    };
    let (yes, no): (Vec<usize>, Vec<usize>) = rows
        .into_iter()
        .partition(|&r| meets(&candidate.condition, data.rows[r][candidate.feature]));
    let yes = grow(data, yes, depth + 1, child_group, options, failed_weight);
    let no = grow(data, no, depth + 1, child_group, options, failed_weight);
    // A split whose two sides predict the same label explains nothing: merge it.
    if let (Node::Leaf { .. }, Node::Leaf { .. }) = (&yes, &no) {
        let (yf, yp) = yes.counts();
        let (nf, np) = no.counts();
        if predicts_failure(yf, yp, failed_weight) == predicts_failure(nf, np, failed_weight) {
            return Node::Leaf { failed, passed };
        }
    }
    Node::Split {
        feature: candidate.feature,
        condition: candidate.condition,
        yes: Box::new(yes),
        no: Box::new(no),
        failed,
        passed,
    }
}

impl DecisionTree {
    /// Trains a tree on a data set.
    pub(crate) fn train(data: &Dataset, options: &TreeOptions) -> DecisionTree {
        let rows: Vec<usize> = (0..data.rows.len()).collect();
        let failed = data.labels.iter().filter(|l| **l).count();
        let passed = data.labels.len() - failed;
        let failed_weight = if options.balanced && failed > 0 && passed > 0 {
            passed as f64 / failed as f64
        } else {
            1.0
        };
        DecisionTree {
            root: grow(data, rows, 0, 0, options, failed_weight),
            features: data.features.clone(),
            lexicographic: options.lexicographic,
            failed_weight,
        }
    }

    /// The predicted label (true = failed) of a row.
    pub(crate) fn predict(&self, row: &[f64]) -> bool {
        let mut node = &self.root;
        loop {
            match node {
                Node::Leaf { failed, passed } => {
                    return predicts_failure(*failed, *passed, self.failed_weight)
                }
                Node::Split {
                    feature,
                    condition,
                    yes,
                    no,
                    ..
                } => {
                    node = if meets(condition, row[*feature]) {
                        yes
                    } else {
                        no
                    };
                }
            }
        }
    }

    /// Fraction of rows classified correctly.
    pub fn accuracy(&self, data: &Dataset) -> f64 {
        if data.rows.is_empty() {
            return 1.0;
        }
        let correct = data
            .rows
            .iter()
            .zip(&data.labels)
            .filter(|(row, label)| self.predict(row) == **label)
            .count();
        correct as f64 / data.rows.len() as f64
    }

    /// Whether a node's tests are labelled failed by this tree's class weights.
    pub fn predicts_failure(&self, node: &Node) -> bool {
        let (failed, passed) = node.counts();
        predicts_failure(failed, passed, self.failed_weight)
    }

    pub fn leaves(&self) -> usize {
        fn count(n: &Node) -> usize {
            match n {
                Node::Leaf { .. } => 1,
                Node::Split { yes, no, .. } => count(yes) + count(no),
            }
        }
        count(&self.root)
    }

    /// The condition of a split as text, e.g. `x.AGI <= 56844.5` or `x.sts = MFS`.
    pub fn condition_text(&self, feature: usize, condition: &Condition) -> String {
        let Some(f) = self.features.get(feature) else {
            return "?".to_string();
        };
        match (condition, &f.kind) {
            (Condition::AtMost(t), _) => format!("{} <= {}", f.name, format_threshold(*t)),
            (Condition::Is(i), FeatureKind::Categorical(names)) => {
                format!("{} = {}", f.name, names.get(*i).map_or("?", String::as_str))
            }
            (Condition::Is(i), _) => format!("{} = {i}", f.name),
            (Condition::IsTrue, _) => f.name.clone(),
        }
    }

    /// Indented text rendering, one line per node.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_node(&self.root, 0, &mut out);
        out
    }

    fn write_node(&self, node: &Node, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        match node {
            Node::Leaf { failed, passed } => {
                let label = if predicts_failure(*failed, *passed, self.failed_weight) {
                    "FAILED"
                } else {
                    "passed"
                };
                let _ = writeln!(out, "{pad}=> {label} ({failed} failed, {passed} passed)");
            }
            Node::Split {
                feature,
                condition,
                yes,
                no,
                ..
            } => {
                let text = self.condition_text(*feature, condition);
                let _ = writeln!(out, "{pad}if {text}:");
                self.write_node(yes, indent + 1, out);
                let _ = writeln!(out, "{pad}else:");
                self.write_node(no, indent + 1, out);
            }
        }
    }

    /// The conditions on the paths to leaves predicting failure (each a conjunction).
    pub fn failure_paths(&self) -> Vec<Vec<String>> {
        let mut paths = Vec::new();
        self.collect_paths(&self.root, &mut Vec::new(), &mut paths);
        paths
    }

    fn collect_paths(&self, node: &Node, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match node {
            Node::Leaf { failed, passed } => {
                if predicts_failure(*failed, *passed, self.failed_weight) {
                    out.push(prefix.clone());
                }
            }
            Node::Split {
                feature,
                condition,
                yes,
                no,
                ..
            } => {
                let text = self.condition_text(*feature, condition);
                prefix.push(text.clone());
                self.collect_paths(yes, prefix, out);
                prefix.pop();
                prefix.push(format!("not ({text})"));
                self.collect_paths(no, prefix, out);
                prefix.pop();
            }
        }
    }
}

fn format_threshold(t: f64) -> String {
    if (t * 100.0).fract().abs() < 1e-9 {
        let s = format!("{t:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{t:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeededRng;

    /// Synthetic data with a known rule: failed ⇔ status = MFS and income > 500 (base
    /// features), plus a follow-up feature that copies the label exactly.
    fn synthetic(n: usize) -> Dataset {
        let mut rng = SeededRng::new(9);
        let features = vec![
            Feature {
                name: "x.sts".into(),
                group: 0,
                kind: FeatureKind::Categorical(vec!["MFJ".into(), "MFS".into(), "single".into()]),
            },
            Feature {
                name: "x.income".into(),
                group: 0,
                kind: FeatureKind::Numeric,
            },
            Feature {
                name: "x.blind".into(),
                group: 0,
                kind: FeatureKind::Boolean,
            },
            Feature {
                name: "y.shadow".into(),
                group: 1,
                kind: FeatureKind::Numeric,
            },
        ];
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for _ in 0..n {
            let sts = rng.int_in(0, 2) as f64;
            let income = rng.int_in(0, 1000) as f64;
            let blind = rng.int_in(0, 1) as f64;
            let failed = sts == 1.0 && income > 500.0;
            rows.push(vec![sts, income, blind, if failed { 1.0 } else { 0.0 }]);
            labels.push(failed);
        }
        Dataset {
            features,
            rows,
            labels,
        }
    }

    #[test]
    fn cart_recovers_a_known_rule() {
        let data = synthetic(2000);
        let tree = DecisionTree::train(
            &data,
            &TreeOptions {
                lexicographic: false,
                ..TreeOptions::default()
            },
        );
        assert_eq!(tree.accuracy(&data), 1.0);
        // Plain CART takes the single perfect split on the follow-up copy of the label.
        assert_eq!(tree.leaves(), 2);
        assert!(
            tree.to_text().starts_with("if y.shadow <= 0.5:"),
            "{}",
            tree.to_text()
        );
    }

    #[test]
    fn lexicographic_tree_splits_on_base_features_first() {
        let data = synthetic(2000);
        let tree = DecisionTree::train(&data, &TreeOptions::default());
        assert_eq!(tree.accuracy(&data), 1.0);
        let paths = tree.failure_paths();
        assert_eq!(paths.len(), 1, "{}", tree.to_text());
        let path = paths[0].join(" and ");
        assert!(path.contains("x.sts = MFS"), "{path}");
        assert!(path.contains("not (x.income <= 50"), "{path}");
        // The learned threshold separates 500 from 501 for MFS filers only.
        assert!(!tree.predict(&[1.0, 500.0, 0.0, 0.0]));
        assert!(tree.predict(&[1.0, 501.0, 1.0, 0.0]));
        assert!(!tree.predict(&[0.0, 900.0, 0.0, 0.0]));
        assert!(
            !path.contains("y.shadow") && !path.contains("blind"),
            "{path}"
        );
    }

    #[test]
    fn balanced_weights_give_rare_failures_a_leaf() {
        // Failed ⇔ status = MFS and income > 500 and blind: about 1 test in 12, with a noisy
        // copy of the income so that a pure split takes several levels.
        let mut data = synthetic(3000);
        for (row, label) in data.rows.iter_mut().zip(data.labels.iter_mut()) {
            *label = *label && row[2] > 0.5;
            row[3] = 0.0;
        }
        let balanced = DecisionTree::train(&data, &TreeOptions::default());
        let paths = balanced.failure_paths();
        assert_eq!(paths.len(), 1, "{}", balanced.to_text());
        assert!(balanced.accuracy(&data) > 0.99);
        assert!(balanced.predict(&[1.0, 800.0, 1.0, 0.0]));
        assert!(!balanced.predict(&[1.0, 800.0, 0.0, 0.0]));
    }

    #[test]
    fn depth_limit_and_pure_data() {
        let data = synthetic(500);
        let stump = DecisionTree::train(
            &data,
            &TreeOptions {
                max_depth: 1,
                ..TreeOptions::default()
            },
        );
        assert!(stump.leaves() <= 2);
        let mut pure = data.clone();
        pure.labels.iter_mut().for_each(|l| *l = false);
        let leaf = DecisionTree::train(&pure, &TreeOptions::default());
        assert_eq!(leaf.leaves(), 1);
        assert_eq!(leaf.accuracy(&pure), 1.0);
    }
}
