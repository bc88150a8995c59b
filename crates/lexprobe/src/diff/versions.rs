//! The two versions of a program compared by `lexprobe diff`: each a file (with its module
//! include directories and the nearest clerk.toml, as `run` and `concolic` load them) or
//! `REV:PATH`, the file as git's revision `REV` has it (read with `git show`, written to a
//! temporary directory; the modules it uses are looked up beside `PATH` in the working tree).

use std::path::{Path, PathBuf};

/// Where a version's text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum VersionSource {
    File(PathBuf),
    /// A file at a git revision.
    Git {
        rev: String,
        path: PathBuf,
    },
}

impl VersionSource {
    /// A file when `arg` names one; else `REV:PATH` when it has that form.
    pub(crate) fn parse(arg: &str) -> VersionSource {
        let as_file = PathBuf::from(arg);
        if as_file.exists() {
            return VersionSource::File(as_file);
        }
        match arg.split_once(':') {
            Some((rev, path)) if !rev.is_empty() && !path.is_empty() => VersionSource::Git {
                rev: rev.to_string(),
                path: PathBuf::from(path),
            },
            _ => VersionSource::File(as_file),
        }
    }

    /// How the version is named in reports.
    pub(crate) fn label(&self) -> String {
        match self {
            VersionSource::File(p) => p.display().to_string(),
            VersionSource::Git { rev, path } => format!("{rev}:{}", path.display()),
        }
    }
}

/// A version's file on disk, and the directory to remove afterwards when it was extracted.
pub(crate) struct VersionFile {
    pub(crate) path: PathBuf,
    /// Extra include directory: the working-tree directory of a `REV:PATH` file.
    pub(crate) include: Option<PathBuf>,
    temporary: Option<PathBuf>,
}

impl Drop for VersionFile {
    fn drop(&mut self) {
        if let Some(dir) = &self.temporary {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The file of `source` (`which`: `old` or `new`, to keep the two extractions apart).
pub(crate) fn materialize(source: &VersionSource, which: &str) -> Result<VersionFile, String> {
    match source {
        VersionSource::File(p) => Ok(VersionFile {
            path: p.clone(),
            include: None,
            temporary: None,
        }),
        VersionSource::Git { rev, path } => {
            let spec = format!("{rev}:{}", git_path(path));
            let out = std::process::Command::new("git")
                .arg("show")
                .arg(&spec)
                .output()
                .map_err(|e| format!("cannot run git to read {spec}: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "git show {spec} failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            let dir =
                std::env::temp_dir().join(format!("lexprobe-diff-{}-{which}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let name = path.file_name().map_or_else(
                || PathBuf::from(format!("{which}.catala_en")),
                PathBuf::from,
            );
            let file = dir.join(name);
            std::fs::write(&file, &out.stdout)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            let include = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .or_else(|| Some(PathBuf::from(".")));
            Ok(VersionFile {
                path: file,
                include,
                temporary: Some(dir),
            })
        }
    }
}

/// `path` as git names it in `REV:PATH` (relative paths are taken from the current
/// directory, as `git show REV:./PATH` does).
fn git_path(path: &Path) -> String {
    let text = path.display().to_string();
    if path.is_absolute() || text.starts_with("./") || text.starts_with("../") {
        text
    } else {
        format!("./{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_and_path_is_read_from_git_and_a_file_is_a_file() {
        assert_eq!(
            VersionSource::parse("HEAD~1:no/such/file.catala_en"),
            VersionSource::Git {
                rev: "HEAD~1".into(),
                path: PathBuf::from("no/such/file.catala_en"),
            }
        );
        assert_eq!(
            VersionSource::parse("no-such-file.catala_en"),
            VersionSource::File(PathBuf::from("no-such-file.catala_en"))
        );
        assert_eq!(git_path(Path::new("a/b.catala_en")), "./a/b.catala_en");
    }
}
