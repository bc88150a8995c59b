//! Benchmark of the interpreter: runs the entry scopes of the CUTECat benchmarks (the `Test`
//! scopes of the housing benefits and of the family quotient, and the running example) many
//! times on fixed inputs and prints runs per second. Not a test: run it through
//! `bench/eval/run.sh` (release mode).
//!
//! Usage: `bench_scopes [CORPUS_DIR] [RUNS]` (defaults: `../shared/corpus` beside the
//! workspace, 10000 runs per scope).

use catala_eval::eval::{inputs_from_json, run_with, Interpreter};
use catala_eval::runtime::ValuePrinter;
use serde_json::{json, Value as Json};
use std::path::PathBuf;
use std::time::Instant;

fn housing_inputs(full: bool) -> Json {
    let mut inputs = json!({
        "loyer_principal": 450,
        "ressources_ménage_arrondies": 15000,
        "bénéficiaire_aide_adulte_ou_enfant_handicapés": false,
        "date_courante": "2023-10-01",
        "nombre_personnes_à_charge": 2,
        "situation_familiale_calcul_apl": "Couple",
        "zone": "Zone2",
        "logement_est_chambre": false,
        "âgées_ou_handicap_adultes_hébergées_onéreux_particuliers": false,
        "colocation": false,
        "réduction_loyer_solidarité": 0,
        "logement_meublé_d842_2": false,
        "résidence": "Métropole"
    });
    if full {
        inputs["type_aide"] = json!("AidePersonnaliséeLogement");
    }
    inputs
}

fn family_quotient_inputs() -> Json {
    json!({
        "année_revenu": 2023,
        "foyer_fiscal": {
            "nombre_enfants_à_charge_mineurs_et_non_mariés": 2,
            "nombre_enfants_à_charge_mineurs_et_non_mariés_invalides": 0,
            "nombre_enfants_à_charge_résidence_alternée": 1,
            "nombre_enfants_à_charge_résidence_alternée_invalides": 0,
            "nombre_autres_personnes_invalides_vivant_sous_toit": 0,
            "nombre_enfants_majeurs_célibataires_sans_enfant": 0,
            "nombre_enfants_majeurs_mariés_ou_chargés_famille": 0,
            "mariées": true,
            "célibataire": false,
            "pacsées": false,
            "divorcée_séparées": false,
            "veuve": false,
            "parent_isolé": false,
            "célibataire_divorcé_veuf_sans_enfant": false,
            "titulaire_carte_invalidité_CMI_invalidité_40_pourcent": false,
            "conjoint_titulaire_carte_invalidité_CMI_invalidité_40_pourcent": false,
            "pensionné_guerre_célibataire_veuf": false,
            "pensionné_guerre_marié_pacsé": false,
            "pensionné_veuve_de_guerre": false
        }
    })
}

/// CPU time of this (single-threaded) process in nanoseconds, from `/proc/self/schedstat` on
/// Linux: on a loaded machine it is steadier than wall-clock time.
fn cpu_time_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

struct Case {
    file: &'static str,
    scope: &'static str,
    inputs: Json,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
    });
    let runs: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let bench = corpus.join("cutecat-benchmarks");
    if !bench.is_dir() {
        println!(
            "corpus not found at {}: nothing to benchmark",
            corpus.display()
        );
        return;
    }
    let cases = [
        Case {
            file: "aides_logement/tests/concolic/large_metropole_apl.catala_fr",
            scope: "Test",
            inputs: housing_inputs(false),
        },
        Case {
            file: "aides_logement/tests/concolic/full.catala_fr",
            scope: "Test",
            inputs: housing_inputs(true),
        },
        Case {
            file: "aides_logement/tests/concolic/simple_nochild_noassert.catala_fr",
            scope: "Test",
            inputs: json!({
                "loyer_principal": 450,
                "ressources_ménage_arrondies": 15000,
                "réduction_loyer_solidarité": 0
            }),
        },
        Case {
            file: "impot_revenu/nombre_de_parts.catala_fr",
            scope: "Test",
            inputs: family_quotient_inputs(),
        },
        Case {
            file: "running_example/running_example.catala_en",
            scope: "IncomeTaxComputation",
            inputs: json!({"house": {"income": 20000, "nb_children": 2}}),
        },
    ];
    println!("{runs} runs per scope");
    for case in &cases {
        let path = bench.join(case.file);
        let (sources, ast) = match catala_syntax::parse_file(&path) {
            Ok(x) => x,
            Err(d) => {
                println!("{}: parse error: {}", case.file, d.message);
                continue;
            }
        };
        let program = match catala_ir::compile(&sources, &ast) {
            Ok(p) => p,
            Err(ds) => {
                let first = ds.first().map(|d| d.message.clone()).unwrap_or_default();
                println!("{}: compile error: {first}", case.file);
                continue;
            }
        };
        let Some(scope) = program.scope_by_name(case.scope) else {
            println!("{}: no scope {}", case.file, case.scope);
            continue;
        };
        let inputs = match inputs_from_json(&program, scope, &case.inputs) {
            Ok(i) => i,
            Err(e) => {
                println!("{}: bad inputs: {e}", case.file);
                continue;
            }
        };
        let mut interp = match Interpreter::<()>::new(&program, ()) {
            Ok(i) => i,
            Err(e) => {
                println!("{}: {e}", case.file);
                continue;
            }
        };
        let printer = ValuePrinter {
            language: program.scope(scope).language,
            names: &program,
        };
        match run_with(&mut interp, scope, inputs.clone()) {
            Ok(r) => {
                let shown: Vec<String> = r
                    .outputs
                    .iter()
                    .map(|(n, v)| format!("{n} = {}", printer.flat(v)))
                    .collect();
                println!(
                    "{} / {}: {} ({} failed assertions)",
                    case.file,
                    case.scope,
                    shown.join(", "),
                    r.assertion_failures.len()
                );
            }
            Err(e) => {
                println!("{} / {}: runtime error: {e}", case.file, case.scope);
                continue;
            }
        }
        let start = Instant::now();
        let cpu_start = cpu_time_ns();
        let mut ok = 0u32;
        for _ in 0..runs {
            if run_with(&mut interp, scope, inputs.clone()).is_ok() {
                ok += 1;
            }
        }
        let elapsed = start.elapsed();
        let per_run = elapsed.as_secs_f64() / runs as f64;
        let cpu = match (cpu_start, cpu_time_ns()) {
            (Some(a), Some(b)) => {
                let per_run_cpu = (b - a) as f64 / 1e9 / runs as f64;
                format!(
                    ", CPU time: {:.0} runs/s, {:.1} µs/run",
                    1.0 / per_run_cpu,
                    per_run_cpu * 1e6
                )
            }
            _ => String::new(),
        };
        println!(
            "    {:>10.0} runs/s   {:>8.1} µs/run   ({ok}/{runs} ok, {:.2} s wall{cpu})",
            1.0 / per_run,
            per_run * 1e6,
            elapsed.as_secs_f64()
        );
    }
}
