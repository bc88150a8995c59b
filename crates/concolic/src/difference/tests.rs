//! The difference engine on the fixture pairs of `tests/fixtures/diff` (answers derived by
//! hand in its README) and on small programs written here.

use super::*;
use num_bigint::BigInt;

fn load(path: &std::path::Path) -> Program {
    match catala_eval::loader::load_program(path, &[]) {
        Ok(l) => l.program,
        Err(e) => panic!("{}: {:?}", path.display(), e.diagnostics),
    }
}

fn fixture(pair: &str) -> (Program, Program) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/diff")
        .join(pair);
    (
        load(&dir.join("old.catala_en")),
        load(&dir.join("new.catala_en")),
    )
}

fn diff(pair: &str, scope: &str) -> DifferenceResult {
    let (old, new) = fixture(pair);
    let (Some(os), Some(ns)) = (old.scope_by_name(scope), new.scope_by_name(scope)) else {
        panic!("no scope {scope}")
    };
    match explore_difference(
        (&old, os),
        (&new, ns),
        &InterfaceMapping::default(),
        &DifferenceOptions::default(),
    ) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

fn output(name: &str) -> Change {
    Change::Output {
        old: name.into(),
        new: name.into(),
    }
}

#[test]
fn a_moved_threshold_differs_by_300_dollars_between_the_two_ceilings() {
    // OLD: $300 when income <= $20,000, else $0; NEW: ceiling $22,000. They differ exactly
    // for $20,000 < income <= $22,000, where NEW − OLD = $300 − $0 = 30,000 cents.
    let r = diff("moved_threshold", "Cheque");
    assert_eq!(r.verdict, Verdict::Differs);
    assert!(r.complete, "{:?}", r.incomplete);
    assert_eq!(r.regions.len(), 1);
    let region = &r.regions[0];
    assert_eq!(region.changes, vec![output("amount")]);
    assert_eq!(region.ranges.len(), 1);
    assert_eq!(
        region.ranges[0].range.constant(),
        Some(&BigInt::from(30_000))
    );
    // The example lies in the region.
    let Some((_, Some(Value::Money(income)))) = region.example.old_inputs.first() else {
        panic!("{:?}", region.example)
    };
    let cents = income.to_i64().unwrap_or(0);
    assert!((2_000_001..=2_200_000).contains(&cents), "{cents}");
    // The region's condition, over the named input.
    let c = explain::explain(&region.paths, &r.inputs);
    let text = c.lines(&explain::PlainFormat).join(" ");
    assert_eq!(text, "$20,000.00 < income <= $22,000.00");
}

#[test]
fn a_new_conflict_is_a_difference_of_outcome() {
    // NEW adds `children >= 3 → $200` as a second exception to the base rule: without a
    // disabled member it changes $100 into $200; with one, Articles 2 and 3 both apply and
    // NEW ends in a conflict where OLD gives $150.
    let r = diff("new_conflict", "Allowance");
    assert_eq!(r.verdict, Verdict::Differs);
    assert!(r.complete, "{:?}", r.incomplete);
    let changes: Vec<&Vec<Change>> = r.regions.iter().map(|g| &g.changes).collect();
    assert_eq!(r.regions.len(), 2, "{changes:?}");
    let conflict = r
        .regions
        .iter()
        .find(|g| {
            g.changes
                == vec![Change::Outcome {
                    old: "outputs".into(),
                    new: "conflict".into(),
                }]
        })
        .unwrap_or_else(|| panic!("no conflict region: {changes:?}"));
    assert!(matches!(conflict.example.new, VersionOutcome::Failed(_)));
    let amount = r
        .regions
        .iter()
        .find(|g| g.changes == vec![output("amount")])
        .unwrap_or_else(|| panic!("no amount region: {changes:?}"));
    // $100 → $200: +10,000 cents everywhere in that region.
    assert_eq!(
        amount.ranges.first().and_then(|r| r.range.constant()),
        Some(&BigInt::from(10_000))
    );
}

#[test]
fn a_refactoring_is_proved_equivalent() {
    let r = diff("refactoring", "Supplement");
    assert_eq!(r.verdict, Verdict::Equivalent, "{:?}", r.regions);
    assert!(r.complete);
    assert!(r.regions.is_empty());
    // Three ways through OLD's expression, each with its way through NEW's rules: at least
    // three pairs, every one compared.
    assert!(r.stats.path_pairs >= 3, "{}", r.stats.path_pairs);
    assert_eq!(r.stats.judged_pairs, r.stats.path_pairs);
}

#[test]
fn the_same_error_in_both_versions_is_the_same_outcome() {
    // Both versions divide by `d`: both fail with a division by zero at d = 0 (same outcome),
    // and their results differ nowhere else.
    let text = |k: &str| {
        format!(
            "```catala\ndeclaration scope S:\n  input d content integer\n  output r content decimal\n\nscope S:\n  definition r equals {k} / (decimal of d)\n```\n"
        )
    };
    let compile = |t: String| {
        let (sources, ast) =
            catala_syntax::parse_str("s.catala_en", &t, catala_syntax::ast::Language::En)
                .unwrap_or_else(|_| panic!("parse"));
        catala_ir::compile(&sources, &ast).unwrap_or_else(|_| panic!("compile"))
    };
    let old = compile(text("10.0"));
    let new = compile(text("(5.0 + 5.0)"));
    let Some(s) = old.scope_by_name("S") else {
        panic!("no S")
    };
    let options = DifferenceOptions::default();
    let mapping = InterfaceMapping::default();
    let same = explore_difference((&old, s), (&new, s), &mapping, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(same.verdict, Verdict::Equivalent, "{:?}", same.regions);
    // A version without the error at d = 0 differs exactly there, by its outcome.
    let safe = compile(
        "```catala\ndeclaration scope S:\n  input d content integer\n  output r content decimal\n\nscope S:\n  definition r equals if d = 0 then 0.0 else 10.0 / (decimal of d)\n```\n".into(),
    );
    let r = explore_difference((&old, s), (&safe, s), &mapping, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.verdict, Verdict::Differs);
    assert_eq!(r.regions.len(), 1, "{:?}", r.regions);
    assert_eq!(
        r.regions[0].changes,
        vec![Change::Outcome {
            old: "division_by_zero".into(),
            new: "outputs".into(),
        }]
    );
    let Some((_, Some(Value::Integer(d)))) = r.regions[0].example.old_inputs.first() else {
        panic!("{:?}", r.regions[0].example)
    };
    assert_eq!(d.to_i64(), Some(0));
}

#[test]
fn an_input_only_in_new_needs_a_default() {
    let (old, new) = fixture("moved_threshold");
    let Some(s) = old.scope_by_name("Cheque") else {
        panic!("no scope")
    };
    let extra = {
        let t = "```catala\ndeclaration scope Cheque:\n  input income content money\n  input children content integer\n  output amount content money\n\nscope Cheque:\n  definition amount equals\n    if income <= $20,000 or children > 2 then $300 else $0\n```\n";
        let (sources, ast) =
            catala_syntax::parse_str("c.catala_en", t, catala_syntax::ast::Language::En)
                .unwrap_or_else(|_| panic!("parse"));
        catala_ir::compile(&sources, &ast).unwrap_or_else(|_| panic!("compile"))
    };
    let _ = new;
    let Some(es) = extra.scope_by_name("Cheque") else {
        panic!("no scope")
    };
    let options = DifferenceOptions::default();
    let err = explore_difference(
        (&old, s),
        (&extra, es),
        &InterfaceMapping::default(),
        &options,
    );
    match err {
        Err(DifferenceError::Interface(m)) => assert!(m.contains("--default children"), "{m}"),
        other => panic!("{:?}", other.map(|r| r.verdict)),
    }
    // With children = 0 the new condition is OLD's: equivalent.
    let mut mapping = InterfaceMapping::default();
    mapping.defaults.insert(
        "children".into(),
        Value::Integer(catala_eval::runtime::Integer::from(0)),
    );
    let r = explore_difference((&old, s), (&extra, es), &mapping, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.verdict, Verdict::Equivalent, "{:?}", r.regions);
}

fn compile(text: &str) -> Program {
    let (sources, ast) =
        catala_syntax::parse_str("t.catala_en", text, catala_syntax::ast::Language::En)
            .unwrap_or_else(|_| panic!("parse"));
    catala_ir::compile(&sources, &ast).unwrap_or_else(|_| panic!("compile"))
}

fn explore_texts(old: &str, new: &str) -> DifferenceResult {
    let (old, new) = (compile(old), compile(new));
    let (Some(os), Some(ns)) = (old.scope_by_name("S"), new.scope_by_name("S")) else {
        panic!("no scope S")
    };
    explore_difference(
        (&old, os),
        (&new, ns),
        &InterfaceMapping::default(),
        &DifferenceOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn structures_enumerations_with_payloads_lists_and_context_inputs_are_shared() {
    // OLD pays $100 in a city of more than 2 (else $50), NEW of more than 3: they differ
    // exactly for zone = City content 3, by $50 − $100 = −$50 whatever the household's list
    // of members and whether the context input `bonus` is given.
    let old = "```catala\ndeclaration enumeration Zone:\n  -- City content integer\n  -- Rural\n\ndeclaration structure House:\n  data income content money\n  data members content list of integer\n\ndeclaration scope S:\n  input house content House\n  input zone content Zone\n  context bonus content money\n  output amount content money\n\nscope S:\n  definition bonus equals $10\n  definition amount equals\n    (match zone with pattern\n      -- City content n: if n > 2 then $100 else $50\n      -- Rural: $70)\n    + (if number of house.members > 1 then $5 else $0) + bonus\n```\n";
    let new = old.replace("if n > 2 then $100", "if n > 3 then $100");
    let r = explore_texts(old, &new);
    assert_eq!(r.verdict, Verdict::Differs);
    assert!(r.complete, "{:?}", r.incomplete);
    assert_eq!(r.regions.len(), 1);
    let c = explain::explain(&r.regions[0].paths, &r.inputs);
    assert_eq!(
        c.lines(&explain::PlainFormat),
        ["zone = City and zone.City = 3"]
    );
    assert_eq!(
        r.regions[0].ranges[0].range.constant(),
        Some(&BigInt::from(-5_000))
    );
}

#[test]
fn the_range_of_a_varying_difference_is_searched_exactly() {
    // OLD gives x, NEW 2x, for 0 <= x <= 100 (both 0 elsewhere): they differ for
    // 1 <= x <= 100, where NEW − OLD = x ranges from 1 to 100.
    let text = |e: &str| {
        format!("```catala\ndeclaration scope S:\n  input x content integer\n  output r content integer\n\nscope S:\n  definition r equals if x >= 0 and x <= 100 then {e} else 0\n```\n")
    };
    let r = explore_texts(&text("x"), &text("2 * x"));
    assert_eq!(r.verdict, Verdict::Differs);
    assert_eq!(r.regions.len(), 1);
    let range = &r.regions[0].ranges[0].range;
    assert_eq!(range.min, Bound::Exact(BigInt::from(1)));
    assert_eq!(range.max, Bound::Exact(BigInt::from(100)));
    let c = explain::explain(&r.regions[0].paths, &r.inputs);
    // 1 <= x <= 100, written as conditions write an integer interval open below.
    assert_eq!(c.lines(&explain::PlainFormat), ["0 < x <= 100"]);
}

#[test]
fn a_subtree_cut_short_is_given_back_whole_and_explored_again() {
    // new_conflict has 4 path pairs (OLD asks `disabled`, NEW both exceptions' conditions)
    // and 2 differing ones. A plan of one subtree (the whole tree) stopped after 2 pairs gives
    // the subtree back with nothing counted; exploring it again finds the 4 pairs and the 2
    // regions of the README.
    let (old, new) = fixture("new_conflict");
    let (Some(os), Some(ns)) = (
        old.scope_by_name("Allowance"),
        new.scope_by_name("Allowance"),
    ) else {
        panic!("no scope Allowance")
    };
    let mapping = InterfaceMapping::default();
    let mut options = DifferenceOptions::default();
    let plan = match plan_difference((&old, os), (&new, ns), &mapping, &options, 1, 1) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(plan.subtrees.len(), 1);
    assert!(plan.subtrees[0].prefix.is_empty());
    let start = std::time::Instant::now();
    options.exploration.max_pairs = Some(2);
    let seeds = plan_seeds(&plan, None);
    let cut = match explore_subtrees((&old, os), (&new, ns), &mapping, &options, seeds, start) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert!(!cut.complete);
    assert_eq!((cut.path_pairs, cut.found.len()), (0, 0), "{cut:?}");
    assert_eq!(cut.left.len(), 1);
    assert!(cut.left[0].0.is_empty());
    options.exploration.max_pairs = None;
    let mut total = cut.clone().resumed();
    let rest = match explore_subtrees((&old, os), (&new, ns), &mapping, &options, cut.left, start) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert!(rest.left.is_empty());
    total.add(rest);
    assert!(total.complete);
    assert_eq!((total.path_pairs, total.found.len()), (4, 2));
    let r = match difference_of_part((&old, os), (&new, ns), &mapping, &options, total) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(r.verdict, Verdict::Differs);
    assert!(r.complete, "{:?}", r.incomplete);
    assert_eq!(r.regions.len(), 2);
}
