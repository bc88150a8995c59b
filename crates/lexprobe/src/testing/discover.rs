//! Which files a test run covers: the files given, and the Catala files found by walking the
//! directories given (recursively, in name order, skipping hidden folders and clerk's build
//! folders). With `--target NAME`, a project directory's `clerk.toml` decides instead: the
//! `tests` folders and files of its `[[target]]` named NAME.

use std::path::{Path, PathBuf};

/// The extensions of literate Catala files.
pub(crate) const CATALA_EXTENSIONS: &[&str] = &["catala_en", "catala_fr", "catala_pl"];

/// A file to test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FoundFile {
    pub path: PathBuf,
    /// Named on the command line (tested even if it holds no test), rather than found by a walk
    /// (tested only if it holds `#[test]` scopes or test blocks).
    pub explicit: bool,
}

/// The files under `paths`, each once, in order.
pub(crate) fn find_files(paths: &[PathBuf], targets: &[String]) -> Result<Vec<FoundFile>, String> {
    let mut found: Vec<FoundFile> = Vec::new();
    for path in paths {
        if !path.is_dir() {
            found.push(FoundFile {
                path: path.clone(),
                explicit: true,
            });
            continue;
        }
        let roots = if targets.is_empty() {
            vec![path.clone()]
        } else {
            target_tests(path, targets)?
        };
        for root in roots {
            if root.is_dir() {
                walk(&root, &mut found);
            } else {
                found.push(FoundFile {
                    path: root,
                    explicit: true,
                });
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|f| seen.insert(f.path.clone()));
    Ok(found)
}

/// Whether `path` names a literate Catala file.
pub(crate) fn is_catala_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CATALA_EXTENSIONS.contains(&e))
}

fn walk(dir: &Path, out: &mut Vec<FoundFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !name.starts_with('.') && name != "_build" && name != "_target" {
                walk(&p, out);
            }
        } else if is_catala_file(&p) {
            out.push(FoundFile {
                path: p,
                explicit: false,
            });
        }
    }
}

/// The `tests` entries of the named targets of `project/clerk.toml`, relative to `project`.
fn target_tests(project: &Path, targets: &[String]) -> Result<Vec<PathBuf>, String> {
    let manifest = project.join("clerk.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("--target needs {}: {e}", manifest.display()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", manifest.display()))?;
    let declared = table
        .get("target")
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    let mut roots = Vec::new();
    for name in targets {
        let target = declared
            .iter()
            .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(name.as_str()))
            .ok_or_else(|| format!("{} has no [[target]] named {name}", manifest.display()))?;
        let tests = target
            .get("tests")
            .and_then(|t| t.as_array())
            .cloned()
            .unwrap_or_default();
        roots.extend(
            tests
                .iter()
                .filter_map(|t| t.as_str())
                .map(|t| project.join(t)),
        );
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/runner")
    }

    fn names(found: &[FoundFile]) -> Vec<String> {
        found
            .iter()
            .map(|f| {
                let rel = f.path.strip_prefix(fixtures()).unwrap_or(&f.path);
                format!(
                    "{}{}",
                    rel.display(),
                    if f.explicit { " (given)" } else { "" }
                )
            })
            .collect()
    }

    #[test]
    fn walks_in_name_order_and_lists_each_file_once() {
        let good = fixtures().join("good");
        let shares = good.join("shares.catala_en");
        let found = find_files(&[good, shares], &[]).expect("files");
        assert_eq!(
            names(&found),
            vec![
                "good/nested/library.catala_en",
                "good/nested/partage.catala_fr",
                "good/shares.catala_en",
            ]
        );
    }

    #[test]
    fn targets_stand_for_their_test_folders() {
        let project = fixtures().join("project");
        let found =
            find_files(std::slice::from_ref(&project), &["checked".to_string()]).expect("files");
        assert_eq!(names(&found), vec!["project/tests/checked.catala_en"]);
        let missing = find_files(&[project], &["other".to_string()]).unwrap_err();
        assert!(missing.contains("no [[target]] named other"), "{missing}");
        let file = fixtures().join("absent.catala_en");
        assert_eq!(
            names(&find_files(&[file], &[]).expect("files")),
            vec!["absent.catala_en (given)"]
        );
    }
}
