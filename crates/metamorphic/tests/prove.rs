//! The symbolic check (`metamorphic::prove`) on small scopes written for it
//! (`tests/fixtures/prove/`): a benefit monotone by construction, whose relations are proved
//! (except one on four cases, refuted by the income above which nothing is paid), and the same
//! benefit with a planted step at $2,000 of income, refuted exactly at the step.

use metamorphic::domain::Domain;
use metamorphic::prove::{prove_catala, ProofReport, ProofVerdict, ProveConfig};
use metamorphic::relation::parse_relations;
use metamorphic::value::Value;
use std::path::PathBuf;
use std::time::Duration;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/prove")
}

fn prove(model: &str) -> Vec<ProofReport> {
    prove_with(model, ProveConfig::default())
}

fn prove_with(model: &str, base: ProveConfig) -> Vec<ProofReport> {
    let dir = fixtures();
    let domain =
        Domain::from_toml(&std::fs::read_to_string(dir.join("benefit.toml")).unwrap()).unwrap();
    let relations =
        parse_relations(&std::fs::read_to_string(dir.join("benefit.mr")).unwrap()).unwrap();
    let target = format!("{}#Benefit", dir.join(model).display());
    let config = ProveConfig {
        budget: Duration::from_secs(3600),
        ..base
    };
    let mut reports = Vec::new();
    prove_catala(&target, &domain, &relations, &config, &mut |r| {
        reports.push(r)
    })
    .unwrap();
    reports
}

#[test]
fn the_search_order_and_the_guesses_change_no_verdict_and_no_pair_count() {
    // Every feasible path pair is visited once whatever the order in which branches are
    // negated and whichever layer answers the queries: depth first with Z3 alone gives the
    // same verdicts, and the same counts on the relations explored to the end.
    let default = prove("benefit.catala_en");
    let plain = prove_with(
        "benefit.catala_en",
        ProveConfig {
            order: metamorphic::prove::RelationalOrder::DepthFirst,
            guesses: false,
            tree_budget: Duration::ZERO,
            ..ProveConfig::default()
        },
    );
    for (a, b) in default.iter().zip(&plain) {
        assert_eq!(a.verdict, b.verdict, "{}", a.relation);
        if a.verdict == ProofVerdict::Proved {
            assert_eq!(a.path_pairs, b.path_pairs, "{}", a.relation);
        }
    }
    assert_eq!(default.len(), 4);
}

fn find<'a>(reports: &'a [ProofReport], name: &str) -> &'a ProofReport {
    reports.iter().find(|r| r.relation == name).unwrap()
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn the_monotone_benefit_is_proved_and_the_uniform_supplement_refuted() {
    let reports = prove("benefit.catala_en");
    for name in [
        "more_income_never_raises",
        "more_children_never_lower",
        "never_negative",
    ] {
        let r = find(&reports, name);
        assert_eq!(r.verdict, ProofVerdict::Proved, "{name}: {r:?}");
        assert!(r.path_pairs >= 1 && r.judged_pairs == r.path_pairs, "{r:?}");
        assert_eq!(r.error_pairs, 0);
    }
    // Three branches for one run (≤ $1,000, ≥ $3,000, between): every pair of branches
    // compatible with x.income ≤ y.income, i.e. 6 of the 9 pairs, is feasible.
    assert_eq!(find(&reports, "more_income_never_raises").path_pairs, 6);
    // One case: the three branches.
    assert_eq!(find(&reports, "never_negative").path_pairs, 3);
    // y shares x's income: the same branch on both sides, 3 pairs.
    let children = find(&reports, "more_children_never_lower");
    assert_eq!(children.path_pairs, 3);
    assert_eq!(children.sharing, vec!["y = x except on [children]"]);

    // Above $3,000 a child adds nothing, below it adds $100: the relation on four cases fails
    // by exactly $100.
    let uniform = find(&reports, "child_supplement_is_uniform");
    assert_eq!(uniform.verdict, ProofVerdict::Refuted, "{uniform:?}");
    let cex = uniform.counterexample.as_ref().unwrap();
    assert_eq!(cex.cases.len(), 4);
    assert_eq!(cex.deviation, 100.0);
    let incomes: Vec<f64> = cex.cases.iter().map(|c| number(&c["income"])).collect();
    // x and y share the income, and so do x' and y'; one side is at or above $3,000, the
    // other below.
    assert_eq!(incomes[0], incomes[2]);
    assert_eq!(incomes[1], incomes[3]);
    assert!(
        (incomes[0] >= 3000.0) != (incomes[1] >= 3000.0),
        "{incomes:?}"
    );
}

#[test]
fn the_planted_step_is_refuted_at_the_step() {
    let reports = prove("benefit_step.catala_en");
    let r = find(&reports, "more_income_never_raises");
    assert_eq!(r.verdict, ProofVerdict::Refuted, "{r:?}");
    let cex = r.counterexample.as_ref().unwrap();
    let (x, y) = (
        number(&cex.cases[0]["income"]),
        number(&cex.cases[1]["income"]),
    );
    // By hand: F(x) = (3000 − x)/4 below the step, F(y) = (3000 − y)/4 + 60 on it, so F(y) >
    // F(x) exactly when x < 2000 ≤ y < 2100 and y − x < 240 (up to the cent's rounding).
    assert!(1000.0 < x && x < 2000.0, "x.income = {x}");
    assert!((2000.0..2100.0).contains(&y), "y.income = {y}");
    assert!(y - x < 240.01, "{x} {y}");
    assert_eq!(cex.cases[0]["children"], cex.cases[1]["children"]);
    let fx = number(&cex.outputs[0]["F"]);
    let fy = number(&cex.outputs[1]["F"]);
    assert!(fy > fx, "{fx} {fy}");
    assert!((cex.deviation - (fy - fx)).abs() < 1e-9);
    // The region: y on the step, x strictly between $1,000 and the step.
    assert!(
        r.region.iter().any(|l| l == "2000 <= y.income < 2100"),
        "{:?}",
        r.region
    );
    assert!(
        r.region.iter().any(|l| l.starts_with("1000 < x.income < ")),
        "{:?}",
        r.region
    );
    // The step changes nothing else.
    for name in ["more_children_never_lower", "never_negative"] {
        assert_eq!(find(&reports, name).verdict, ProofVerdict::Proved, "{name}");
    }
}

/// The threshold of a tree condition `FEATURE <= T` or `not (FEATURE <= T)`.
fn threshold(condition: &str, feature: &str) -> Option<(bool, f64)> {
    let (negated, inner) = match condition.strip_prefix("not (") {
        Some(rest) => (true, rest.strip_suffix(')')?),
        None => (false, condition),
    };
    let t = inner.strip_prefix(&format!("{feature} <= "))?;
    Some((negated, t.parse().ok()?))
}

#[test]
fn a_refuted_relation_shows_its_region_over_features_beside_the_random_search_tree() {
    // allowance = $100 when 200 < burden <= 1000, else $0, with burden = rent − income/4
    // (a declared feature). A higher rent (y) lowers the allowance exactly when x's burden is
    // in (200, 1000] and y's is above 1000: that is the region of the only violating path
    // pair, and what a tree over the feature separates.
    let dir = fixtures();
    let domain =
        Domain::from_toml(&std::fs::read_to_string(dir.join("allowance.toml")).unwrap()).unwrap();
    let relations =
        parse_relations(&std::fs::read_to_string(dir.join("allowance.mr")).unwrap()).unwrap();
    let target = format!("{}#Allowance", dir.join("allowance.catala_en").display());
    let config = ProveConfig {
        // Bounded by the path pairs and the tree's test cap; the times are safety nets.
        budget: Duration::from_secs(3600),
        tree_budget: Duration::from_secs(3600),
        tree_max_tests: Some(20_000),
        seed: 3,
        ..ProveConfig::default()
    };
    let mut reports = Vec::new();
    prove_catala(&target, &domain, &relations, &config, &mut |r| {
        reports.push(r)
    })
    .unwrap();
    let r = &reports[0];
    assert_eq!(r.verdict, ProofVerdict::Refuted, "{r:?}");
    let cex = r.counterexample.as_ref().unwrap();
    let burden = |c: &metamorphic::value::Record, income: f64| number(&c["rent"]) - income / 4.0;
    let income = number(&cex.cases[0]["income"]);
    assert_eq!(cex.cases[1]["income"], cex.cases[0]["income"]);
    let (bx, by) = (burden(&cex.cases[0], income), burden(&cex.cases[1], income));
    assert!(bx > 200.0 && bx <= 1000.0 && by > 1000.0, "{bx} {by}");
    // Over the fields the region keeps the program's cent rounding of income / 4.
    assert!(
        r.region
            .iter()
            .any(|l| l.contains("y.rent_cents") && l.contains("> 100000")),
        "{:?}",
        r.region
    );
    // Over the features: exactly the hand-derived region.
    let features = r.region_features.as_ref().expect("a region over features");
    assert!(
        features
            .iter()
            .any(|l| l.starts_with("200 < x.burden <= 1000")),
        "{features:?}"
    );
    assert!(
        features.iter().any(|l| l.starts_with("y.burden > 1000")),
        "{features:?}"
    );
    // The random search beside it: failures, and a tree whose failing leaves bound x.burden
    // near 200 from below and near 1000 from above.
    let s = r
        .random_search
        .as_ref()
        .expect("the random search beside it");
    assert!(s.failed > 0 && s.tests > s.failed, "{s:?}");
    let bounded = s.failure_paths.iter().any(|path| {
        let lower = path
            .iter()
            .filter_map(|c| threshold(c, "x.burden"))
            .any(|(negated, t)| negated && (195.0..=210.0).contains(&t));
        let upper = path
            .iter()
            .filter_map(|c| threshold(c, "x.burden"))
            .any(|(negated, t)| !negated && (990.0..=1005.0).contains(&t));
        lower && upper
    });
    assert!(bounded, "{:?}\n{}", s.failure_paths, s.explanation);
    // Side by side in the text report, and both in JSON.
    let text = metamorphic::prove::report::to_text(&reports);
    let header = text
        .lines()
        .find(|l| l.contains("symbolic region") && l.contains("decision tree"))
        .unwrap_or_else(|| panic!("{text}"));
    let column = header.find('|').unwrap();
    assert!(
        text.lines().any(|l| {
            l.trim_start().starts_with("200 < x.burden <= 1000") && l.find('|') == Some(column)
        }),
        "{text}"
    );
    let json = metamorphic::prove::report::to_json(&reports, "allowance");
    let entry = &json["relations"][0];
    assert!(entry["region_features"].is_array(), "{entry}");
    assert!(
        entry["random_search"]["failure_paths"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{entry}"
    );
}

/// A scope input the domain leaves out would be missing from every run (each run would fail
/// on it): the relation is not proved of such runs, it is reported unknown, naming the input.
#[test]
fn an_input_left_out_of_the_domain_is_named_and_nothing_is_proved() {
    let dir = fixtures();
    let text = std::fs::read_to_string(dir.join("benefit.toml")).unwrap();
    // The domain without its `children` field.
    let cut = text.split("[fields.children]").next().unwrap_or_default();
    let domain = Domain::from_toml(cut).unwrap();
    let relations = parse_relations(
        "relation more_income_never_raises\n  \"More income never raises the benefit.\"\n  forall x, y. x ==[income] y and x.income <= y.income => F(x) >= F(y)\n",
    )
    .unwrap();
    let target = format!("{}#Benefit", dir.join("benefit.catala_en").display());
    let mut reports = Vec::new();
    prove_catala(
        &target,
        &domain,
        &relations,
        &ProveConfig::default(),
        &mut |r| reports.push(r),
    )
    .unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].verdict, ProofVerdict::Unknown);
    let reason = reports[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("input `children` is not a field"),
        "{reason}"
    );
}
