//! The report of `lexprobe mutate`, as text and as JSON: each mutant with its operator, its
//! position (file:line:col) and law headings, the rule before and after the mutation as
//! Catala, then the test that detected it (its inputs, the mutant's error, what the original
//! gives on them) or why none did; the mutants set aside; the score per law heading. Rules are
//! shown as their source text (the definition around the position the program keeps), the
//! mutated form written from it: a removed rule is shown removed, a duplicated one twice, a
//! negated condition `c` as `not (c)` in place.

use crate::catala::report::ErrorReport;
use crate::catala::Loaded;
use catala_eval::eval::ErrorSignature;
use catala_eval::runtime::json::value_to_json;
use catala_eval::ValuePrinter;
use catala_ir::dcalc::ScopeId;
use catala_syntax::ast::{self, ItemKind, ScopeUseItem};
use catala_syntax::{SourceMap, Span};
use concolic::mutation::{Kill, MutantReport, Mutation, MutationKind, MutationRun, Survival};
use concolic::mutation_site::{describe, MutationSite};
use concolic::StopReason;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// Rule texts longer than this are cut in the text report (never in JSON).
const TEXT_WIDTH: usize = 240;

/// The definitions of a parsed program, to find the rule around a position.
#[derive(Default)]
pub(crate) struct RuleIndex {
    /// Each definition's span and its condition's.
    rules: Vec<(Span, Option<Span>)>,
}

impl RuleIndex {
    /// The definitions of every scope block of the program and of its modules.
    pub(crate) fn of(program: &ast::Program) -> RuleIndex {
        let mut rules = Vec::new();
        let modules = program.modules.iter().flat_map(|m| m.items.iter());
        for item in program.items.iter().chain(modules) {
            if let ItemKind::ScopeUse(block) = &item.kind {
                for it in &block.items {
                    if let ScopeUseItem::Definition(d) = it {
                        rules.push((d.span, d.condition.as_ref().map(|c| c.span)));
                    }
                }
            }
        }
        RuleIndex { rules }
    }

    /// The innermost definition containing `span`.
    fn rule_at(&self, span: Span) -> Option<(Span, Option<Span>)> {
        self.rules
            .iter()
            .filter(|(d, _)| d.file == span.file && d.start <= span.start && span.end <= d.end)
            .min_by_key(|(d, _)| d.end - d.start)
            .copied()
    }
}

/// One mutation as a reader sees it.
struct Explained {
    file: String,
    line: usize,
    column: usize,
    headings: Vec<String>,
    before: String,
    after: String,
}

impl Explained {
    fn place(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }

    fn heading_trail(&self) -> String {
        if self.headings.is_empty() {
            "no law heading".to_string()
        } else {
            self.headings.join(" > ")
        }
    }
}

/// The source text of `span`, its white space collapsed to single spaces.
fn text_of(sources: &SourceMap, span: Span) -> String {
    let file = sources.file(span.file);
    let (start, end) = (span.start as usize, span.end as usize);
    file.text
        .get(start..end.min(file.text.len()))
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of a rule with `condition` (a part of it) written `not (condition)`.
fn negated(sources: &SourceMap, rule: Span, condition: Span) -> String {
    let head = Span {
        end: condition.start,
        ..rule
    };
    let tail = Span {
        start: condition.end,
        ..rule
    };
    format!(
        "{} {} ({}) {}",
        text_of(sources, head),
        not_keyword(sources, rule),
        text_of(sources, condition),
        text_of(sources, tail)
    )
    .trim()
    .to_string()
}

/// `not` in the language of the file of `span`.
fn not_keyword(sources: &SourceMap, span: Span) -> &'static str {
    let name = &sources.file(span.file).display_name;
    if name.ends_with(".catala_fr") {
        "non"
    } else if name.ends_with(".catala_pl") {
        "nie"
    } else {
        "not"
    }
}

/// The rule texts before and after `m` at `site`.
fn before_after(
    sources: &SourceMap,
    index: &RuleIndex,
    m: Mutation,
    site: &MutationSite,
) -> (String, String) {
    let rule_text = |s: Span| match index.rule_at(s) {
        Some((def, _)) => text_of(sources, def),
        None => text_of(sources, s),
    };
    let first = site
        .rules
        .first()
        .map(|s| rule_text(*s))
        .unwrap_or_default();
    let more = match site.rules.len() {
        0 | 1 => String::new(),
        n => {
            let lines: Vec<String> = site.rules[1..]
                .iter()
                .filter_map(|s| sources.line_col(*s).map(|(l, _)| l.to_string()))
                .collect();
            let (rules, at) = if n == 2 {
                ("rule", "line")
            } else {
                ("rules", "lines")
            };
            format!(" (and {} more {rules}: {at} {})", n - 1, lines.join(", "))
        }
    };
    match m.kind {
        MutationKind::RemoveException => (format!("{first}{more}"), "(removed)".to_string()),
        MutationKind::DuplicateException => (
            format!("{first}{more}"),
            format!("{first}{more}, written twice (both copies apply wherever it applies)"),
        ),
        MutationKind::NegateJustification => negation(sources, index, site),
    }
}

/// The texts before and after a negated justification: the rule with its condition `c`
/// written `not (c)`; for the constant condition of a group of rules (which applies only
/// through its rules), that condition.
fn negation(sources: &SourceMap, index: &RuleIndex, site: &MutationSite) -> (String, String) {
    let group = |b: bool| {
        let first = index.rule_at(site.default_span).map_or_else(
            || text_of(sources, site.default_span),
            |(d, _)| text_of(sources, d),
        );
        (
            format!("the group of rules beginning with: {first} (the group's own condition: {b}, under which nothing follows)"),
            format!("the group's own condition: {} (under which nothing follows either)", !b),
        )
    };
    match (site.constant_justification, site.justification) {
        (Some(b), _) => group(b),
        (None, Some(j)) => match index.rule_at(j) {
            Some((def, Some(cond))) => (text_of(sources, def), negated(sources, def, cond)),
            _ => {
                let c = text_of(sources, j);
                let not = not_keyword(sources, j);
                (format!("condition {c}"), format!("condition {not} ({c})"))
            }
        },
        (None, None) => (
            text_of(sources, site.default_span),
            "(condition negated)".into(),
        ),
    }
}

/// Where to point a reader: the whole condition of a negated rule, else the site's position.
fn position(index: &RuleIndex, site: &MutationSite) -> Span {
    match site.justification.and_then(|j| index.rule_at(j)) {
        Some((_, Some(cond))) if site.constant_justification.is_none() => cond,
        _ => site.position(),
    }
}

fn explain(sources: &SourceMap, index: &RuleIndex, site: &MutationSite, m: Mutation) -> Explained {
    let at = position(index, site);
    let file = sources.file(at.file).display_name.clone();
    let (line, column) = sources.line_col(at).unwrap_or((0, 0));
    let (before, after) = before_after(sources, index, m, site);
    Explained {
        file,
        line,
        column,
        headings: site.headings.iter().map(|h| h.title.clone()).collect(),
        before,
        after,
    }
}

/// Everything the report needs besides the campaign.
pub(crate) struct MutateReport<'a> {
    pub loaded: &'a Loaded,
    pub scope: ScopeId,
    pub rules: &'a RuleIndex,
}

impl MutateReport<'_> {
    fn explained(&self, m: Mutation) -> Option<Explained> {
        let site = describe(&self.loaded.program, self.scope, m)?;
        Some(explain(&self.loaded.sources, self.rules, &site, m))
    }

    /// The inputs of a test, `name = value` each, in the program's language.
    fn inputs_text(&self, kill: &Kill) -> String {
        let decl = self.loaded.program.scope(self.scope);
        let printer = ValuePrinter {
            language: decl.language,
            names: &self.loaded.program,
        };
        let given: Vec<String> = decl
            .inputs
            .iter()
            .zip(&kill.inputs)
            .filter_map(|(input, v)| {
                Some(format!("{} = {}", input.name, printer.flat(v.as_ref()?)))
            })
            .collect();
        if given.is_empty() {
            "no input".to_string()
        } else {
            given.join(", ")
        }
    }

    fn inputs_json(&self, kill: &Kill) -> Json {
        let decl = self.loaded.program.scope(self.scope);
        let mut m = serde_json::Map::new();
        for (input, v) in decl.inputs.iter().zip(&kill.inputs) {
            if let Some(v) = v {
                m.insert(input.name.clone(), value_to_json(&self.loaded.program, v));
            }
        }
        Json::Object(m)
    }

    fn places(&self, spans: &[Span]) -> String {
        let sources = &self.loaded.sources;
        let places: Vec<String> = spans
            .iter()
            .filter_map(|s| {
                let (l, c) = sources.line_col(*s)?;
                Some(format!("{}:{l}:{c}", sources.file(s.file).display_name))
            })
            .collect();
        places.join(", ")
    }

    /// What the original program gives on a killing test's inputs.
    fn original_text(&self, original: &Option<ErrorSignature>) -> String {
        match original {
            None => "the original gives no error".to_string(),
            Some(sig) => format!(
                "the original fails otherwise: {} ({})",
                sig.kind.as_str(),
                self.places(&sig.spans)
            ),
        }
    }

    fn original_json(&self, original: &Option<ErrorSignature>) -> Json {
        match original {
            None => Json::Null,
            Some(sig) => json!({"kind": sig.kind.as_str(), "positions": self.places(&sig.spans)}),
        }
    }

    /// The verdict lines of one explored mutant.
    fn verdict_text(&self, r: &MutantReport) -> String {
        match (&r.kill, r.time_to_detection) {
            (Some(kill), Some(t)) => {
                let sig = kill.error.signature();
                format!(
                    "    detected after {} ({:.3} s): {}\n      → {} ({}); {}\n",
                    tests(kill.test),
                    t.as_secs_f64(),
                    self.inputs_text(kill),
                    kill.error.message.trim_end_matches('.'),
                    self.places(&sig.spans),
                    self.original_text(&kill.original)
                )
            }
            _ => format!(
                "    not detected ({}, {:.3} s): {}\n",
                tests(r.tests),
                r.exploration_time.as_secs_f64(),
                survival_text(r.survival.as_ref())
            ),
        }
    }

    /// One explored mutant as text.
    fn mutant_text(&self, i: usize, r: &MutantReport) -> String {
        let mut out = match self.explained(r.mutation) {
            Some(e) => format!(
                "mutant {}: {:?}  {}  ({})\n    before: {}\n    after:  {}\n",
                i + 1,
                r.mutation.kind,
                e.place(),
                e.heading_trail(),
                cut(&e.before),
                cut(&e.after)
            ),
            None => format!(
                "mutant {}: {:?} at default #{} (exception {})\n",
                i + 1,
                r.mutation.kind,
                r.mutation.site,
                r.mutation.exception
            ),
        };
        out.push_str(&self.verdict_text(r));
        out
    }

    /// The campaign as text: each mutant, those set aside, the score per law heading, the
    /// detection count.
    pub(crate) fn text(&self, campaign: &MutationRun, with_witnesses: bool) -> String {
        let mut out = String::new();
        for (i, r) in campaign.reports.iter().enumerate() {
            out.push_str(&self.mutant_text(i, r));
        }
        for m in &campaign.set_aside {
            let place = self
                .explained(*m)
                .map(|e| format!("{}  ({})", e.place(), e.heading_trail()))
                .unwrap_or_else(|| format!("default #{}", m.site));
            out.push_str(&format!(
                "set aside: {:?}  {place}: no witness input shows an injected issue\n",
                m.kind
            ));
        }
        let scores = self.scores(campaign);
        if !scores.is_empty() {
            out.push_str("score by law heading:\n");
            for (heading, (detected, total)) in &scores {
                out.push_str(&format!("  {heading}: {detected}/{total} detected\n"));
            }
        }
        let times = detection_times(campaign);
        out.push_str(&format!(
            "{}/{} mutants detected{}\n",
            times.len(),
            campaign.reports.len(),
            mean(&times).map_or(String::new(), |m| format!(
                ", mean time to detection {m:.3} s"
            ))
        ));
        if with_witnesses {
            out.push_str(&format!(
                "{} mutants drawn, {} set aside: no witness input shows an injected issue\n",
                campaign.drawn, campaign.unconfirmed
            ));
        }
        out
    }

    /// Detected and explored mutants per law-heading trail (in the order of the trails).
    fn scores(&self, campaign: &MutationRun) -> BTreeMap<String, (usize, usize)> {
        let mut scores: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for r in &campaign.reports {
            let trail = self
                .explained(r.mutation)
                .map_or_else(|| "no law heading".to_string(), |e| e.heading_trail());
            let entry = scores.entry(trail).or_default();
            entry.0 += usize::from(r.detected);
            entry.1 += 1;
        }
        scores
    }

    fn mutant_json(&self, r: &MutantReport) -> Json {
        let mut o = json!({
            "mutation": format!("{:?}", r.mutation.kind),
            "site": r.mutation.site,
            "exception": r.mutation.exception,
            "detected": r.detected,
            "time_to_detection_s": r.time_to_detection.map(|t| t.as_secs_f64()),
            "tests": r.tests,
            "time_s": r.exploration_time.as_secs_f64(),
        });
        if let Json::Object(m) = &mut o {
            m.extend(self.place_json(r.mutation));
            m.insert("killing_test".into(), self.kill_json(r.kill.as_ref()));
            m.insert(
                "survivor_reason".into(),
                r.survival.as_ref().map_or(Json::Null, survival_json),
            );
            m.insert("start_witness".into(), json!(r.start));
            m.insert("start_witnesses".into(), json!(r.starts));
            m.insert("start_search_s".into(), json!(r.start_search.as_secs_f64()));
        }
        o
    }

    /// Position, headings, rule before and after.
    fn place_json(&self, m: Mutation) -> serde_json::Map<String, Json> {
        let mut o = serde_json::Map::new();
        if let Some(e) = self.explained(m) {
            o.insert(
                "position".into(),
                json!({"file": e.file, "line": e.line, "column": e.column}),
            );
            o.insert("headings".into(), json!(e.headings));
            o.insert("before".into(), json!(e.before));
            o.insert("after".into(), json!(e.after));
        }
        o
    }

    fn kill_json(&self, kill: Option<&Kill>) -> Json {
        let Some(kill) = kill else {
            return Json::Null;
        };
        json!({
            "test": kill.test,
            "inputs": self.inputs_json(kill),
            "error": ErrorReport::from_runtime(&kill.error).to_json(&self.loaded.sources),
            "original_error": self.original_json(&kill.original),
        })
    }

    /// The campaign as one JSON object (`--format json`).
    pub(crate) fn json(&self, campaign: &MutationRun) -> Json {
        let times = detection_times(campaign);
        let mutants: Vec<Json> = campaign
            .reports
            .iter()
            .map(|r| self.mutant_json(r))
            .collect();
        let set_aside: Vec<Json> = campaign
            .set_aside
            .iter()
            .map(|m| {
                let mut o = serde_json::Map::new();
                o.insert("mutation".into(), json!(format!("{:?}", m.kind)));
                o.insert("site".into(), json!(m.site));
                o.insert("exception".into(), json!(m.exception));
                o.extend(self.place_json(*m));
                o.insert("reason".into(), json!("no_witness"));
                Json::Object(o)
            })
            .collect();
        let scores: Vec<Json> = self
            .scores(campaign)
            .into_iter()
            .map(|(h, (d, t))| json!({"heading": h, "detected": d, "total": t}))
            .collect();
        json!({
            "mutants": mutants,
            "detected": times.len(),
            "mean_time_to_detection_s": mean(&times),
            "drawn": campaign.drawn,
            "unconfirmed": campaign.unconfirmed,
            "set_aside": set_aside,
            "score_by_heading": scores,
        })
    }
}

/// `n tests`, or `1 test`.
fn tests(n: usize) -> String {
    if n == 1 {
        "1 test".to_string()
    } else {
        format!("{n} tests")
    }
}

/// A text cut to [`TEXT_WIDTH`] characters.
fn cut(text: &str) -> String {
    if text.chars().count() <= TEXT_WIDTH {
        return text.to_string();
    }
    let kept: String = text.chars().take(TEXT_WIDTH).collect();
    format!("{kept} …")
}

fn survival_text(s: Option<&Survival>) -> String {
    match s {
        Some(Survival::Limit(StopReason::Time(t))) => format!(
            "time limit ({} s) reached before every path was explored",
            t.as_secs_f64()
        ),
        Some(Survival::Limit(StopReason::Tests(n))) => {
            format!("test limit ({n}) reached before every path was explored")
        }
        Some(Survival::Limit(_)) => "stopped before every path was explored".to_string(),
        Some(Survival::Exhausted) => {
            "every path explored, none fails in a new way: equivalent mutant suspected".to_string()
        }
        Some(Survival::Incomplete(why)) => {
            format!("exploration incomplete: {}", why.join("; "))
        }
        None => "stopped".to_string(),
    }
}

fn survival_json(s: &Survival) -> Json {
    let reason = match s {
        Survival::Limit(StopReason::Time(_)) => "time_limit",
        Survival::Limit(StopReason::Tests(_)) => "test_limit",
        Survival::Limit(_) => "stopped",
        Survival::Exhausted => "equivalent_suspected",
        Survival::Incomplete(_) => "incomplete",
    };
    json!({"reason": reason, "explanation": survival_text(Some(s))})
}

/// The times to detection of the detected mutants, in seconds.
fn detection_times(campaign: &MutationRun) -> Vec<f64> {
    campaign
        .reports
        .iter()
        .filter_map(|r| r.time_to_detection.map(|t| t.as_secs_f64()))
        .collect()
}

/// The mean of `times`, if there is one.
fn mean(times: &[f64]) -> Option<f64> {
    (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
}
