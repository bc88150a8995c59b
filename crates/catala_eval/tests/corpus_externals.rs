//! The external modules of the catala-examples programs, called through
//! `Externals::standard()`: `Oracles` (income tax: deficits carried forward, pro rata rounded to
//! the euro) and `Eligibilite_commune` (fibre-connection grant: postal codes of the eligible
//! communes). Expected results are worked out by hand from the documented rules (the working is
//! in the comments) and include the results the catala-examples tests print.

use catala_eval::externals::{ExternalContext, ExternalError, Externals};
use catala_eval::runtime::Integer;
use catala_eval::Value;
use catala_ir::dcalc::Program;
use catala_syntax::ast::Language;
use std::rc::Rc;

/// The structures of the `Oracles` module, needed to build and read the values its functions
/// take and return (the functions themselves are called directly, so they are not declared).
const ORACLES: &str = r#"```catala-metadata
declaration structure DéficitAntérieur:
  data année content integer
  data valeur content money

declaration structure RésultatImputation:
  data revenu_imputé content money
  data déficits_antérieurs_restants content list of DéficitAntérieur

declaration structure RésultatProRataArrondiEuroBranchement:
  data valeur_proratisée_1 content money
  data valeur_proratisée_2 content money
  data valeur_proratisée_3 content money
  data valeur_proratisée_4 content money
  data valeur_proratisée_5 content money
  data valeur_proratisée_6 content money
  data valeur_proratisée_7 content money
  data valeur_proratisée_8 content money
  data valeur_proratisée_9 content money
  data valeurs_proratisées_liste_1 content list of money
  data valeurs_proratisées_liste_2 content list of money
  data valeurs_proratisées_liste_3 content list of money
  data valeurs_proratisées_liste_4 content list of money
  data valeurs_proratisées_liste_5 content list of money
  data valeurs_proratisées_liste_6 content list of money
  data valeurs_proratisées_liste_7 content list of money
  data valeurs_proratisées_liste_8 content list of money
  data valeurs_proratisées_liste_9 content list of money
```
"#;

fn oracles_program() -> Program {
    let (sources, ast) = catala_syntax::parse_str("Oracles.catala_en", ORACLES, Language::En)
        .unwrap_or_else(|d| panic!("the Oracles declarations do not parse: {}", d.message));
    catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| {
        panic!(
            "the Oracles declarations do not compile: {:?}",
            ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    })
}

fn call(
    program: &Program,
    module: &str,
    name: &str,
    args: &[Value],
) -> Result<Value, ExternalError> {
    let externals = Externals::standard();
    let f = externals
        .get(module, name)
        .unwrap_or_else(|| panic!("{module}.{name} is not registered"));
    f(args, &ExternalContext::new(program))
}

fn euros(e: i64) -> Value {
    Value::money_cents(e * 100)
}

fn euro_list(es: &[i64]) -> Value {
    Value::List(es.iter().map(|&e| euros(e)).collect::<Rc<[_]>>())
}

/// A list of money values as whole euros (fails on cents).
fn as_euros(v: &Value) -> Vec<i64> {
    match v {
        Value::List(l) => l
            .iter()
            .map(|m| match m {
                Value::Money(c) => {
                    let c = c.to_i64().expect("small amount");
                    assert_eq!(c % 100, 0, "a share is not in whole euros: {c} cents");
                    c / 100
                }
                other => panic!("not money: {other:?}"),
            })
            .collect(),
        other => panic!("not a list: {other:?}"),
    }
}

fn field<'v>(program: &Program, v: &'v Value, name: &str) -> &'v Value {
    match v {
        Value::Struct(s) => {
            let def = &program.structs[s.struct_id as usize];
            let i = def
                .fields
                .iter()
                .position(|f| f.name == name)
                .unwrap_or_else(|| panic!("{} has no field {name}", def.name));
            &s.fields[i]
        }
        other => panic!("not a structure: {other:?}"),
    }
}

fn struct_id(program: &Program, name: &str) -> u32 {
    program
        .structs
        .iter()
        .position(|s| s.name == name)
        .unwrap_or_else(|| panic!("no structure {name}")) as u32
}

fn prorata(program: &Program, amount: i64, bases: &[i64]) -> Result<Vec<i64>, ExternalError> {
    call(
        program,
        "Oracles",
        "prorata_arrondi_euro",
        &[euros(amount), euro_list(bases)],
    )
    .map(|v| as_euros(&v))
}

#[test]
fn every_corpus_external_is_registered() {
    let externals = Externals::standard();
    for (m, f) in [
        ("Oracles", "imputation_aux_déficits_les_plus_anciens"),
        ("Oracles", "prorata_arrondi_euro"),
        ("Oracles", "prorata_arrondi_euro_listes"),
        ("Oracles", "prorata_arrondi_euro_branchement"),
        ("Eligibilite_commune", "éligibilité_commune"),
    ] {
        assert!(externals.get(m, f).is_some(), "{m}.{f}");
    }
}

#[test]
fn prorata_without_rounding() {
    // 100 € over 1:2:3:4 (total 10): exactly 10, 20, 30, 40 (test ProRata1 of catala-examples).
    let p = oracles_program();
    assert_eq!(prorata(&p, 100, &[1, 2, 3, 4]), Ok(vec![10, 20, 30, 40]));
}

#[test]
fn prorata_one_euro_too_many() {
    // 15 € over 1:2:3:4: exact shares 1.5, 3, 4.5, 6, rounded 2 (up), 3, 5 (up), 6: 16 €, one
    // too many; two shares went up. First up share: 1 × 1 > 2 up shares pending? no. Second:
    // 1 × 2 (shares since the last reversal) > 1? yes, 5 becomes 4 (test ProRata2).
    let p = oracles_program();
    assert_eq!(prorata(&p, 15, &[1, 2, 3, 4]), Ok(vec![2, 3, 4, 6]));
}

#[test]
fn prorata_two_euros_too_many_spread() {
    // 567 € over 46, 284, 44, 956, 86, 465, 129, 465 (total 2475): exact shares 10.54, 65.06,
    // 10.08, 219.01, 19.70, 106.53, 29.55, 106.53, rounded 11↑ 65↓ 10↓ 219↓ 20↑ 107↑ 30↑ 107↑ =
    // 569 €, Δ = 2 over 5 up shares. Up shares in turn: 2·1 > 5 no; 2·2 > 4 no; 2·3 > 3 yes
    // (107 → 106, Δ = 1); 1·1 > 2 no; 1·2 > 1 yes (107 → 106). Test ProRata3.
    let p = oracles_program();
    assert_eq!(
        prorata(&p, 567, &[46, 284, 44, 956, 86, 465, 129, 465]),
        Ok(vec![11, 65, 10, 219, 20, 106, 30, 106])
    );
}

#[test]
fn prorata_one_euro_short() {
    // 10 € over three equal bases: 3.33 each, rounded down to 3: 9 €, Δ = -1 over 3 down shares:
    // 1·1 > 3 no; 1·2 > 2 no; 1·3 > 1 yes: the last share goes up to 4.
    let p = oracles_program();
    assert_eq!(prorata(&p, 10, &[5, 5, 5]), Ok(vec![3, 3, 4]));
    // 20 € over three equal bases: 6.67 rounded up to 7 each, 21 €: the last goes down to 6.
    assert_eq!(prorata(&p, 20, &[5, 5, 5]), Ok(vec![7, 7, 6]));
}

#[test]
fn prorata_half_euros_round_away_from_zero() {
    // 5 € over 1:1: 2.5 each, rounded up to 3 both (6 €, Δ = 1): 1·1 > 2 no; 1·2 > 1 yes.
    let p = oracles_program();
    assert_eq!(prorata(&p, 5, &[1, 1]), Ok(vec![3, 2]));
    // Bases with cents: 7 € over 0.50 € and 1.50 €: 1.75 → 2 (up), 5.25 → 5 (down): exact sum.
    let r = call(
        &p,
        "Oracles",
        "prorata_arrondi_euro",
        &[
            euros(7),
            Value::List(Rc::from(vec![
                Value::money_cents(50),
                Value::money_cents(150),
            ])),
        ],
    )
    .map(|v| as_euros(&v));
    assert_eq!(r, Ok(vec![2, 5]));
}

#[test]
fn prorata_zero_and_empty() {
    let p = oracles_program();
    assert_eq!(prorata(&p, 0, &[0, 0]), Ok(vec![0, 0]));
    assert_eq!(prorata(&p, 0, &[]), Ok(vec![]));
    assert_eq!(prorata(&p, 0, &[3, 4]), Ok(vec![0, 0]));
    assert_eq!(prorata(&p, 12, &[0, 7, 0]), Ok(vec![0, 12, 0]));
}

#[test]
fn prorata_rejects_what_its_documentation_excludes() {
    let p = oracles_program();
    // A negative base.
    assert!(prorata(&p, 10, &[5, -1]).is_err());
    // All bases zero (or none) with something to distribute.
    assert!(prorata(&p, 10, &[0, 0]).is_err());
    assert!(prorata(&p, 10, &[]).is_err());
    // An amount not in whole euros.
    let r = call(
        &p,
        "Oracles",
        "prorata_arrondi_euro",
        &[Value::money_cents(1050), euro_list(&[1, 1])],
    );
    assert!(r.is_err());
    // Ill-typed arguments are errors, not panics.
    assert!(call(&p, "Oracles", "prorata_arrondi_euro", &[euros(1)]).is_err());
    assert!(call(
        &p,
        "Oracles",
        "prorata_arrondi_euro",
        &[Value::integer(1), euro_list(&[1])]
    )
    .is_err());
    assert!(call(
        &p,
        "Oracles",
        "prorata_arrondi_euro",
        &[euros(1), Value::List(Rc::from(vec![Value::integer(1)]))]
    )
    .is_err());
}

#[test]
fn prorata_over_lists_keeps_their_shape() {
    // 15 € over [1, 2], [], [3, 4]: the flat computation gives 2, 3, 4, 6 (see above).
    let p = oracles_program();
    let lists = Value::List(Rc::from(vec![
        euro_list(&[1, 2]),
        euro_list(&[]),
        euro_list(&[3, 4]),
    ]));
    let r = call(
        &p,
        "Oracles",
        "prorata_arrondi_euro_listes",
        &[euros(15), lists],
    )
    .expect("prorata over lists");
    let Value::List(groups) = r else {
        panic!("not a list")
    };
    let groups: Vec<Vec<i64>> = groups.iter().map(as_euros).collect();
    assert_eq!(groups, vec![vec![2, 3], vec![], vec![4, 6]]);
}

#[test]
fn prorata_branching_fills_every_field() {
    // 100 € over base 1 = 1 €, base 2 absent (0 €), bases 3–9 = 0 €, list 1 = [2 €, 3 €],
    // list 9 = [4 €]: the flat bases 1, 0, 0, …, 0, 2, 3, 4 (total 10) give 10, 0, …, 0, 20, 30,
    // 40.
    let p = oracles_program();
    let ctx = ExternalContext::new(&p);
    let mut args = vec![euros(100)];
    args.push(ctx.present(euros(1)).expect("optional"));
    args.push(ctx.absent().expect("optional"));
    for _ in 3..=9 {
        args.push(ctx.present(euros(0)).expect("optional"));
    }
    args.push(euro_list(&[2, 3]));
    for _ in 2..=8 {
        args.push(euro_list(&[]));
    }
    args.push(euro_list(&[4]));
    let r =
        call(&p, "Oracles", "prorata_arrondi_euro_branchement", &args).expect("prorata branching");
    let single = |i: usize| {
        as_euros(&Value::List(Rc::from(vec![field(
            &p,
            &r,
            &format!("valeur_proratisée_{i}"),
        )
        .clone()])))
    };
    assert_eq!(single(1), vec![10]);
    for i in 2..=9 {
        assert_eq!(single(i), vec![0], "valeur_proratisée_{i}");
    }
    let list = |i: usize| as_euros(field(&p, &r, &format!("valeurs_proratisées_liste_{i}")));
    assert_eq!(list(1), vec![20, 30]);
    for i in 2..=8 {
        assert_eq!(list(i), Vec::<i64>::new(), "valeurs_proratisées_liste_{i}");
    }
    assert_eq!(list(9), vec![40]);
    // Wrong number of arguments.
    assert!(call(
        &p,
        "Oracles",
        "prorata_arrondi_euro_branchement",
        &args[..18]
    )
    .is_err());
}

fn deficit(p: &Program, year: i64, amount: i64) -> Value {
    let id = struct_id(p, "DéficitAntérieur");
    let def = &p.structs[id as usize];
    let mut fields = vec![Value::Unit; def.fields.len()];
    for (i, f) in def.fields.iter().enumerate() {
        fields[i] = match f.name.as_str() {
            "année" => Value::integer(year),
            "valeur" => euros(amount),
            other => panic!("unexpected field {other}"),
        };
    }
    Value::new_struct(id, fields)
}

/// (income left, [(year, deficit left)]) of the carry-forward.
fn imputation(p: &Program, income: i64, deficits: &[(i64, i64)]) -> (i64, Vec<(i64, i64)>) {
    let list = Value::List(
        deficits
            .iter()
            .map(|&(y, a)| deficit(p, y, a))
            .collect::<Rc<[_]>>(),
    );
    let r = call(
        p,
        "Oracles",
        "imputation_aux_déficits_les_plus_anciens",
        &[euros(income), list],
    )
    .expect("imputation");
    let income = as_euros(&Value::List(Rc::from(vec![
        field(p, &r, "revenu_imputé").clone()
    ])))[0];
    let Value::List(left) = field(p, &r, "déficits_antérieurs_restants") else {
        panic!("not a list")
    };
    let left = left
        .iter()
        .map(|d| {
            let year = match field(p, d, "année") {
                Value::Integer(y) => y.to_i64().expect("small year"),
                other => panic!("not an integer: {other:?}"),
            };
            let amount = as_euros(&Value::List(Rc::from(vec![field(p, d, "valeur").clone()])))[0];
            (year, amount)
        })
        .collect();
    (income, left)
}

#[test]
fn imputation_oldest_deficit_first() {
    let p = oracles_program();
    // Test DéficitsAntérieurs1 of catala-examples: 1000 € with 500 € (2020) and 600 € (2019):
    // 2019 first, 1000 − 600 = 400 €; the 500 € of 2020 exceed it: 0 € and 100 € left for 2020.
    assert_eq!(
        imputation(&p, 1000, &[(2020, 500), (2019, 600)]),
        (0, vec![(2020, 100)])
    );
    // Deficits smaller than the income are all used up.
    assert_eq!(
        imputation(&p, 2000, &[(2018, 300), (2017, 200)]),
        (1500, vec![])
    );
    // A deficit equal to what is left is used up (only a strictly greater one stays).
    assert_eq!(imputation(&p, 500, &[(2019, 500)]), (0, vec![]));
    // The first deficit exceeding the income is reduced, the later ones are kept as they are.
    assert_eq!(
        imputation(&p, 100, &[(2021, 70), (2019, 500), (2020, 50)]),
        (0, vec![(2019, 400), (2020, 50), (2021, 70)])
    );
    // No deficit: the income is unchanged.
    assert_eq!(imputation(&p, 1234, &[]), (1234, vec![]));
    // Deficits of the same year keep their order.
    assert_eq!(
        imputation(&p, 10, &[(2020, 30), (2020, 40)]),
        (0, vec![(2020, 20), (2020, 40)])
    );
}

#[test]
fn imputation_rejects_ill_typed_arguments() {
    let p = oracles_program();
    let f = "imputation_aux_déficits_les_plus_anciens";
    assert!(call(&p, "Oracles", f, &[euros(1)]).is_err());
    assert!(call(&p, "Oracles", f, &[euros(1), euro_list(&[3])]).is_err());
    assert!(call(
        &p,
        "Oracles",
        f,
        &[Value::integer(1), Value::List(Rc::from(vec![]))]
    )
    .is_err());
}

/// `Ok(answer)`, or `Err(())` when the call fails.
fn eligible(code: Value) -> Result<bool, ()> {
    let p = oracles_program();
    match call(&p, "Eligibilite_commune", "éligibilité_commune", &[code]) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(other) => panic!("not a boolean: {other:?}"),
        Err(_) => Err(()),
    }
}

#[test]
fn eligible_communes_by_postal_code() {
    // In the table: the first code (01000, written 1000), 02300, Fort-de-France (97200),
    // Schœlcher (97233, the code of the aide_fibre test), Basse-Terre (97100), the last code.
    for code in [1000, 2300, 97200, 97233, 97100, 97442] {
        assert_eq!(eligible(Value::integer(code)), Ok(true), "{code}");
    }
    // Not in the table: Paris, Lyon, Marseille, codes out of range.
    for code in [75001, 69001, 13001, 0, 999, -97233, 100000] {
        assert_eq!(eligible(Value::integer(code)), Ok(false), "{code}");
    }
    let huge = Integer::from_i128(i128::MAX);
    assert_eq!(eligible(Value::Integer(huge)), Ok(false));
    assert!(eligible(Value::Bool(true)).is_err());
}
