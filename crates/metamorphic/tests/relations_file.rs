//! The shipped relations files: the 16 relations of Table 1 parse into the quantifier
//! structure of the paper, and relations that do not fit their domain are rejected at the
//! offending name, as `file:line:column` and in the box with the source line.

use metamorphic::domain::Domain;
use metamorphic::relation::{parse_relations, parse_relations_file, Relation};
use metamorphic::{validate_relation, ValidationError};
use std::path::PathBuf;

fn example(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/metamorphic")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn find<'a>(relations: &'a [Relation], prefix: &str) -> &'a Relation {
    relations
        .iter()
        .find(|r| r.name.starts_with(prefix))
        .unwrap()
}

#[test]
fn table_one_has_the_papers_quantifier_structure() {
    let relations = parse_relations(&example("form1040.mr")).unwrap();
    assert_eq!(relations.len(), 16);
    let names: Vec<String> = relations.iter().map(|r| r.name.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        assert!(name.starts_with(&format!("r{}_", i + 1)), "{name}");
    }
    // #1: ∀x,y. (x ≡age y ∧ ...) ∨ (x ≡blind y ∧ ...) ⇒ F(x) ≥ F(y)
    let r1 = find(&relations, "r1_");
    assert_eq!(
        (r1.base_vars.clone(), r1.follow_vars.clone()),
        (vec!["x".into()], vec!["y".into()])
    );
    assert_eq!(r1.conclusion.to_string(), "F(x) >= F(y)");
    // #8 and #12 quantify four filers: bases x, x', follow-ups y, y'.
    for prefix in ["r8_", "r12_"] {
        let r = find(&relations, prefix);
        assert_eq!(r.base_vars, vec!["x".to_string(), "x'".to_string()]);
        assert_eq!(r.follow_vars, vec!["y".to_string(), "y'".to_string()]);
        assert_eq!(r.conclusion.to_string(), "(F(x) - F(y)) >= (F(x') - F(y'))");
    }
    // #13: the medical floor, 7.5% of AGI, is a base condition.
    let r13 = find(&relations, "r13_");
    assert_eq!(r13.base_premise.to_string(), "x.mde <= (x.agi * 0.075)");
    assert_eq!(r13.conclusion.to_string(), "F(x) = F(y)");
    // #15: MFJ filers, itemizing at most $24,800.
    let r15 = find(&relations, "r15_");
    assert!(r15.follow_premise.to_string().contains("x.l12 <= 24800"));
    assert_eq!(r15.conclusion.to_string(), "F(x) <= F(y)");
}

#[test]
fn shipped_relations_fit_their_domains() {
    let form = Domain::from_toml(&example("form1040.toml")).unwrap();
    for r in parse_relations(&example("form1040.mr")).unwrap() {
        validate_relation(&r, &form).unwrap();
    }
    let housing = Domain::from_toml(&example("aides_logement.toml")).unwrap();
    let relations = parse_relations(&example("aides_logement.mr")).unwrap();
    assert!(relations.len() >= 3);
    for r in relations {
        validate_relation(&r, &housing).unwrap();
    }
}

#[test]
fn relations_outside_the_domain_are_located() {
    let domain = Domain::from_toml(&example("form1040.toml")).unwrap();
    let text = "relation typo\n  forall x, y. x ==[agi] y and\n    x.aig > 0 => F(x) >= F(y)";
    let relation = &parse_relations(text).unwrap()[0];
    let error = validate_relation(relation, &domain).unwrap_err();
    assert!(matches!(&error.error, ValidationError::UnknownField { field, .. } if field == "aig"));
    // At the field's name: `aig` after `    x.` on line 3.
    assert!(error.to_string().starts_with("3:7:"), "{error}");
    let text = "relation status forall x, y. x ==[agi] y and x.sts = MFJJ => F(x) >= F(y)";
    let relation = &parse_relations(text).unwrap()[0];
    let error = validate_relation(relation, &domain).unwrap_err();
    assert!(
        matches!(&error.error, ValidationError::UnknownConstant { name, .. } if name == "MFJJ")
    );
    // `MFJJ` is the 54th character of the line.
    assert_eq!(error.line_col(), Some((1, 54)));
}

#[test]
fn a_field_missing_from_the_domain_is_marked_on_its_name_in_the_file() {
    let domain = Domain::from_toml(&example("form1040.toml")).unwrap();
    // `children` is not a field of the domain: it is excepted in the equivalence of line 2,
    // written from column 21 (after the 20 characters of `  forall x, y. x ==[`), eight
    // characters long.
    let text =
        "relation kids \"more children\"\n  forall x, y. x ==[children] y =>\n  F(x) <= F(y)\n";
    let relation = &parse_relations_file("kids.mr", text).unwrap()[0];
    let error = validate_relation(relation, &domain).unwrap_err();
    assert_eq!(
        error.to_string(),
        "kids.mr:2:21: relation `kids` uses `children`, which is not a field of the domain"
    );
    let boxed = error.render();
    assert!(boxed.contains("├─➤ kids.mr:2.21-29:\n"), "{boxed}");
    let marked = format!(
        "│ 2 │   forall x, y. x ==[children] y =>\n│   │ {}{}\n",
        " ".repeat(20),
        "‾".repeat(8)
    );
    assert!(boxed.contains(&marked), "{boxed}");
}
