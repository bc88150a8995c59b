//! `lexprobe diff --order directed|blind` on `tests/fixtures/diff/hidden_change`: a one-value
//! change (region 1's rent supplement above $500, $50 → $60) evaluated before eight
//! independent circumstances. The derivation of the path pairs each order needs is in the
//! fixtures' README and repeated beside each test. Then a one-value change planted in a copy
//! of the housing module of the shared corpus (`../shared/corpus`, skipped with a notice when
//! absent).

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pair() -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/diff/hidden_change");
    let f = |v: &str| -> String {
        let p: PathBuf = dir.join(format!("{v}.catala_en"));
        p.display().to_string()
    };
    (f("old"), f("new"))
}

/// `lexprobe diff OLD NEW -s HouseholdGrant --format json EXTRA…`: exit code and JSON.
fn diff(extra: &[&str]) -> (i32, Json) {
    let (old, new) = pair();
    let mut args = vec![
        "diff",
        old.as_str(),
        new.as_str(),
        "-s",
        "HouseholdGrant",
        "--format",
        "json",
    ];
    args.extend(extra);
    let out = match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(&args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    };
    let j = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), j)
}

fn conditions(j: &Json) -> Vec<String> {
    j["regions"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|g| g["condition"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_directed_order_finds_the_hidden_change_within_five_pairs() {
    // Pair 1 (every input 0 or false): region ≠ 1, then the eight circumstances. `region = 1`
    // is a gate (its then-branch holds the changed amount): negated first. Pair 2: region 1,
    // rent ≤ $500; `rent > $500` is a gate too: negated. Pair 3: region 1, rent above $500,
    // where OLD gives $50 and NEW $60: the versions differ there.
    let (code, j) = diff(&["--max-pairs", "5"]);
    assert_eq!(code, 1, "{j:#}");
    assert_eq!(j["verdict"], "differs");
    let c = conditions(&j);
    assert!(
        !c.is_empty()
            && c.iter()
                .all(|c| c.contains("region = 1 and rent > $500.00")),
        "{c:?}"
    );
    let example = &j["regions"][0]["example"];
    assert_eq!(example["old"]["outputs"]["amount"], "50.00", "{j:#}");
    assert_eq!(example["new"]["outputs"]["amount"], "60.00", "{j:#}");
}

#[test]
fn the_blind_order_does_not_reach_it_within_five_pairs() {
    // The blind order negates first the branches whose other way no pair has taken, the
    // deepest first: after pair 1, the eight circumstances (each on the prefix `region ≠ 1`,
    // so pairs 2 to 9 stay out of region 1) come before `region = 1`, which pair 10 at the
    // earliest takes. Within five pairs the versions agree everywhere explored: unknown.
    let (code, j) = diff(&["--max-pairs", "5", "--order", "blind"]);
    assert_eq!(code, 3, "{j:#}");
    assert_eq!(j["verdict"], "unknown");
    assert!(conditions(&j).is_empty(), "{j:#}");
}

#[test]
fn both_orders_explore_the_same_pairs_to_the_same_answer() {
    // Complete, the order does not matter: 3 ways for region and rent (region ≠ 1; region 1
    // with rent ≤ $500; above) times 2^8 circumstances = 768 path pairs, and one region,
    // region 1 with rent above $500 (+$10.00).
    for order in ["directed", "blind"] {
        let (code, j) = diff(&["--order", order]);
        assert_eq!(code, 1, "{order}: {j:#}");
        assert_eq!(j["complete"], true, "{order}");
        assert_eq!(j["stats"]["path_pairs"], 768, "{order}");
        assert_eq!(conditions(&j), ["region = 1 and rent > $500.00"], "{order}");
        assert_eq!(
            j["regions"][0]["differences"][0]["constant"], "1000",
            "{order}"
        );
    }
}

/// Copies directory `from` into `to` (files and subdirectories).
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// One version of the restricted housing fixture: its module directory copied from the
/// corpus, the fixture beside it, and a `clerk.toml` naming that copy and the other modules.
fn housing_version(root: &Path, corpus: &Path, fixture: &Path) -> std::io::Result<PathBuf> {
    copy_dir(&corpus.join("aides_logement"), &root.join("aides_logement"))?;
    std::fs::copy(fixture, root.join("restricte.catala_fr"))?;
    let others = [
        "prologue_france",
        "base_mensuelle_allocations_familiales",
        "prestations_familiales",
        "allocations_familiales",
        "smic",
    ];
    let mut toml = String::from("[project]\ninclude_dirs = [\n  \"aides_logement\",\n");
    for o in others {
        toml.push_str(&format!("  {:?},\n", corpus.join(o).display().to_string()));
    }
    toml.push_str("]\n");
    std::fs::write(root.join("clerk.toml"), toml)?;
    Ok(root.join("restricte.catala_fr"))
}

#[test]
fn a_ceiling_changed_in_the_housing_module_is_found_within_eight_pairs() {
    // A copy of the current housing module where the zone 1 rent ceiling of a single person
    // without dependants, from 1 October 2024 to 30 September 2025, is €339.71 instead of
    // €329.71. The restricted fixture of the module compared with itself over both copies:
    // only that rule differs, so every difference is a single person without dependants in
    // zone 1 in that period, whose rent is above €329.71 (below it both versions take the
    // rent itself). Directed, each pair negates one branch on the way: the period of the
    // rule, its condition (a single person without dependants), the zone's case, then the
    // comparison of the rent with the ceiling that NEW makes with another amount; with the
    // first pair, at most 5 pairs when every negation is answered, 8 leave room for a few
    // that are not.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = manifest.join("../../../shared/corpus/catala-examples");
    let fixture =
        manifest.join("../../tests/fixtures/concolic_modules/aides_logement_restricte.catala_fr");
    let archives = corpus.join("aides_logement/archives.catala_fr");
    let Ok(text) = std::fs::read_to_string(&archives) else {
        println!("notice: ../shared/corpus/catala-examples is absent; housing test skipped");
        return;
    };
    // The scale of that period, then its first zone 1 amount.
    let period = "sous condition date_courante >= |2024-10-01| et date_courante < |2025-10-01|:";
    let planted = text.find(period).and_then(|at| {
        let ceiling = at + text[at..].find("-- Zone1 : 329,71€")?;
        let mut t = text.clone();
        t.replace_range(
            ceiling..ceiling + "-- Zone1 : 329,71€".len(),
            "-- Zone1 : 339,71€",
        );
        Some(t)
    });
    let Some(planted) = planted else {
        println!("notice: the housing module's 2024-10 rent ceilings are not as expected; skipped");
        return;
    };
    let root = std::env::temp_dir().join(format!("lexprobe-diff-directed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (old, new) = match (
        housing_version(&root.join("old"), &corpus, &fixture),
        housing_version(&root.join("new"), &corpus, &fixture),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => panic!("{}: {e}", root.display()),
    };
    if let Err(e) = std::fs::write(root.join("new/aides_logement/archives.catala_fr"), planted) {
        panic!("{e}");
    }
    let run = |order: &str| -> (i32, Json) {
        let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
            .args([
                "diff",
                &old.display().to_string(),
                &new.display().to_string(),
            ])
            .args(["--scope", "Test", "--max-pairs", "8", "--no-ranges"])
            .args(["--format", "json", "--order", order])
            .output()
            .unwrap_or_else(|e| panic!("lexprobe does not start: {e}"));
        let j = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code().unwrap_or(-1), j)
    };
    let (code, j) = run("directed");
    assert_eq!(code, 1, "{j:#}");
    let c = conditions(&j);
    assert!(!c.is_empty(), "{j:#}");
    for c in &c {
        for part in [
            "situation_familiale_calcul_apl = PersonneSeule",
            "zone = Zone1",
            "nombre_personnes_à_charge = 0",
        ] {
            assert!(c.contains(part), "{part}: {c}");
        }
    }
    let example = &j["regions"][0]["example"]["old_inputs"];
    let date = example["date_courante"].as_str().unwrap_or("");
    assert!(("2024-10-01"..="2025-09-30").contains(&date), "{date}");
    let rent: f64 = example["loyer_principal"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    assert!(rent > 329.71, "{rent}");
    let _ = std::fs::remove_dir_all(&root);
}
