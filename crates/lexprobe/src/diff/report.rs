//! The answer of `lexprobe diff` for people and machines: the verdict, what it covers, then
//! each region where the versions differ — what differs, the condition over the named inputs
//! (written as problem conditions are, in the program's language), the number of path pairs,
//! an example with both versions' outcomes, and the range of each numeric difference.

use crate::catala::condition_format::CatalaFormat;
use crate::catala::Loaded;
use catala_eval::runtime::{Integer, Value, ValuePrinter};
use catala_syntax::ast::Language;
use concolic::difference::{
    Bound, Change, DifferenceResult, Example, OutputRange, Region, Verdict, VersionOutcome,
};
use explain::Condition;
use num_bigint::BigInt;
use serde_json::{json, Value as Json};

/// The two versions as loaded, with their labels, for printing.
pub(crate) struct Versions<'a> {
    pub(crate) old: &'a Loaded,
    pub(crate) new: &'a Loaded,
    pub(crate) old_label: String,
    pub(crate) new_label: String,
    pub(crate) scope: String,
    pub(crate) language: Language,
}

/// How many condition cases a region shows in text (all of them in JSON).
const CASES_SHOWN: usize = 8;

impl Versions<'_> {
    /// A value as `lexprobe run` prints it, with the names of OLD's or NEW's program.
    pub(crate) fn print(&self, program_new: bool, v: &Value) -> String {
        let program = if program_new {
            &self.new.program
        } else {
            &self.old.program
        };
        ValuePrinter {
            language: self.language,
            names: program,
        }
        .flat(v)
    }

    /// The region's condition over the named inputs.
    pub(crate) fn condition(&self, result: &DifferenceResult, region: &Region) -> Condition {
        explain::explain(&region.paths, &result.inputs)
    }

    /// A difference of cents or units, signed, as the output's type prints.
    fn amount(&self, money: bool, n: &BigInt) -> String {
        let value = if money {
            Value::Money(Integer::from_bigint(n.clone()))
        } else {
            Value::Integer(Integer::from_bigint(n.clone()))
        };
        let text = self.print(false, &value);
        if n > &BigInt::from(0) {
            format!("+{text}")
        } else {
            text
        }
    }

    fn bound_text(&self, money: bool, b: &Bound, lower: bool) -> String {
        match b {
            Bound::Exact(n) => self.amount(money, n),
            Bound::Beyond(n) if lower => {
                format!("{} or less (search stopped)", self.amount(money, n))
            }
            Bound::Beyond(n) => format!("{} or more (search stopped)", self.amount(money, n)),
            Bound::Unknown => "unknown".into(),
        }
    }

    /// `amount: +$300.00 everywhere in the region` or `amount: from +$10.00 to +$300.00`.
    pub(crate) fn range_text(&self, r: &OutputRange) -> String {
        match r.range.constant() {
            Some(n) => format!(
                "{}: {} everywhere in the region",
                r.output,
                self.amount(r.money, n)
            ),
            None => format!(
                "{}: from {} to {}",
                r.output,
                self.bound_text(r.money, &r.range.min, true),
                self.bound_text(r.money, &r.range.max, false)
            ),
        }
    }

    fn outcome_text(&self, new: bool, o: &VersionOutcome) -> String {
        match o {
            VersionOutcome::Outputs(outs) => outs
                .iter()
                .map(|(n, v)| format!("{n} = {}", self.print(new, v)))
                .collect::<Vec<_>>()
                .join(", "),
            VersionOutcome::Failed(f) => {
                let loaded = if new { self.new } else { self.old };
                let at: Vec<String> = f
                    .spans
                    .iter()
                    .filter_map(|s| position(loaded, *s))
                    .collect();
                let at = if at.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", at.join(", "))
                };
                format!("{}: {}{at}", f.kind, f.message.trim_end_matches('.'))
            }
        }
    }

    fn inputs_text(&self, new: bool, inputs: &[(String, Option<Value>)]) -> String {
        inputs
            .iter()
            .map(|(n, v)| match v {
                Some(v) => format!("{n} = {}", self.print(new, v)),
                None => format!("{n} not given"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The text report.
    pub(crate) fn text(&self, result: &DifferenceResult) -> String {
        let mut out = format!(
            "Comparing scope {} of OLD {} and NEW {}\n",
            self.scope, self.old_label, self.new_label
        );
        let s = &result.stats;
        let figures = format!(
            "{} path pair{} explored, {} compared",
            s.path_pairs,
            if s.path_pairs == 1 { "" } else { "s" },
            s.judged_pairs + result.regions.iter().map(|r| r.paths.len()).sum::<usize>()
        );
        match result.verdict {
            Verdict::Equivalent => out.push_str(&format!(
                "Verdict: equivalent — no input makes the versions differ ({figures}; every path \
                 pair within the bounds: {})\n",
                result.bounds.describe()
            )),
            Verdict::Differs => out.push_str(&format!(
                "Verdict: differs — {} region{} where some output or the outcome differs ({figures}{})\n",
                result.regions.len(),
                if result.regions.len() == 1 { "" } else { "s" },
                if result.complete {
                    format!("; every region found, within the bounds: {}", result.bounds.describe())
                } else {
                    "; the exploration is not complete: other regions may exist".into()
                }
            )),
            Verdict::Unknown => out.push_str(&format!(
                "Verdict: unknown — no difference found, but the exploration is not complete ({figures})\n"
            )),
        }
        for why in &result.incomplete {
            out.push_str(&format!("  Not complete: {why}\n"));
        }
        for note in &result.notes {
            out.push_str(&format!("  Note: {note}\n"));
        }
        let format = CatalaFormat(self.language);
        for (i, region) in result.regions.iter().enumerate() {
            out.push_str(&format!(
                "\nRegion {}: {}\n",
                i + 1,
                changes_text(&region.changes)
            ));
            let c = self.condition(result, region);
            let lines = c.lines(&format);
            let head = format!(
                "  Condition ({} path{}):",
                region.paths.len(),
                if region.paths.len() == 1 { "" } else { "s" }
            );
            if let [one] = lines.as_slice() {
                out.push_str(&format!("{head} {one}\n"));
            } else {
                out.push_str(&format!("{head}\n"));
                for l in lines.iter().take(CASES_SHOWN) {
                    out.push_str(&format!("    {l}\n"));
                }
                if lines.len() > CASES_SHOWN {
                    out.push_str(&format!(
                        "    … and {} more cases (all of them with --format json)\n",
                        lines.len() - CASES_SHOWN
                    ));
                }
            }
            out.push_str(&self.example_text(&region.example));
            for r in &region.ranges {
                out.push_str(&format!("  Difference NEW − OLD: {}\n", self.range_text(r)));
            }
        }
        out
    }

    /// The example as one line per version.
    pub(crate) fn text_example(&self, e: &Example) -> String {
        self.example_text(e)
            .trim()
            .replace('\n', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn example_text(&self, e: &Example) -> String {
        let old_in = self.inputs_text(false, &e.old_inputs);
        let new_in = self.inputs_text(true, &e.new_inputs);
        let mut out = format!("  Example: {old_in}\n");
        if new_in != old_in {
            out.push_str(&format!("    (NEW's inputs: {new_in})\n"));
        }
        out.push_str(&format!("    OLD: {}\n", self.outcome_text(false, &e.old)));
        out.push_str(&format!("    NEW: {}\n", self.outcome_text(true, &e.new)));
        out
    }

    fn outcome_json(&self, new: bool, o: &VersionOutcome) -> Json {
        let loaded = if new { self.new } else { self.old };
        match o {
            VersionOutcome::Outputs(outs) => {
                let mut m = serde_json::Map::new();
                for (n, v) in outs {
                    m.insert(
                        n.clone(),
                        catala_eval::runtime::json::value_to_json(&loaded.program, v),
                    );
                }
                json!({"outcome": "outputs", "outputs": m})
            }
            VersionOutcome::Failed(f) => json!({
                "outcome": f.kind,
                "message": f.message,
                "positions": f.spans.iter().filter_map(|s| position(loaded, *s)).collect::<Vec<_>>(),
            }),
        }
    }

    fn inputs_json(&self, new: bool, inputs: &[(String, Option<Value>)]) -> Json {
        let program = if new {
            &self.new.program
        } else {
            &self.old.program
        };
        let mut m = serde_json::Map::new();
        for (n, v) in inputs {
            if let Some(v) = v {
                m.insert(
                    n.clone(),
                    catala_eval::runtime::json::value_to_json(program, v),
                );
            }
        }
        Json::Object(m)
    }

    fn bound_json(b: &Bound) -> Json {
        match b {
            Bound::Exact(n) => json!({"exact": n.to_string()}),
            Bound::Beyond(n) => json!({"beyond": n.to_string()}),
            Bound::Unknown => Json::Null,
        }
    }

    /// The JSON report.
    pub(crate) fn json(&self, result: &DifferenceResult) -> Json {
        let format = CatalaFormat(self.language);
        let regions: Vec<Json> = result
            .regions
            .iter()
            .map(|region| {
                let c = self.condition(result, region);
                json!({
                    "changes": region.changes.iter().map(change_json).collect::<Vec<_>>(),
                    "condition": c.lines(&format).join("\n"),
                    "condition_cases": c.to_json(&format),
                    "paths": region.paths.len(),
                    "example": {
                        "old_inputs": self.inputs_json(false, &region.example.old_inputs),
                        "new_inputs": self.inputs_json(true, &region.example.new_inputs),
                        "old": self.outcome_json(false, &region.example.old),
                        "new": self.outcome_json(true, &region.example.new),
                    },
                    "differences": region.ranges.iter().map(|r| json!({
                        "output": r.output,
                        "unit": if r.money { "cents" } else { "integer" },
                        "min": Self::bound_json(&r.range.min),
                        "max": Self::bound_json(&r.range.max),
                        "constant": r.range.constant().map(|n| n.to_string()),
                        "text": self.range_text(r),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let s = &result.stats;
        json!({
            "verdict": result.verdict.as_str(),
            "scope": self.scope,
            "old": self.old_label,
            "new": self.new_label,
            "complete": result.complete,
            "bounds": result.bounds.to_json(),
            "incomplete": result.incomplete,
            "notes": result.notes,
            "regions": regions,
            "stats": {
                "path_pairs": s.path_pairs,
                "same_pairs": s.judged_pairs,
                "differing_pairs": result.regions.iter().map(|r| r.paths.len()).sum::<usize>(),
                "path_queries": s.path_queries,
                "queries_without_z3": s.queries_without_z3,
                "unknown_queries": s.unknown_queries,
                "elapsed_s": s.elapsed_s,
            },
        })
    }
}

/// `file:line:column` of a span.
fn position(loaded: &Loaded, span: catala_syntax::Span) -> Option<String> {
    let (line, col) = loaded.sources.line_col(span)?;
    let file = &loaded.sources.file(span.file).display_name;
    Some(format!("{file}:{line}:{col}"))
}

/// `amount differs`, `outcome: outputs → conflict`, joined by `; `.
pub(crate) fn changes_text(changes: &[Change]) -> String {
    changes
        .iter()
        .map(|c| match c {
            Change::Output { old, new } if old == new => format!("{old} differs"),
            Change::Output { old, new } => format!("{old} (NEW: {new}) differs"),
            Change::Outcome { old, new } => format!("outcome {old} → {new}"),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn change_json(c: &Change) -> Json {
    match c {
        Change::Output { old, new } => json!({"output": old, "new_name": new}),
        Change::Outcome { old, new } => json!({"outcome": {"old": old, "new": new}}),
    }
}
