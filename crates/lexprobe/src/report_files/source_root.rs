//! The source root of a SARIF log: the directory the file paths of its results are relative
//! to (`originalUriBaseIds.SRCROOT`). By default the top of the git work tree holding the
//! program (the directory with `.git`, found by walking up from the program's directory), so
//! that GitHub code scanning, which resolves paths against the checkout, finds the files
//! whatever the working directory of the run; outside a git work tree, the current directory.

use reports::sarif::UriBase;
use std::path::{Component, Path, PathBuf};

/// The base id the logs use.
pub(crate) const BASE_ID: &str = "SRCROOT";

/// A directory the paths of a SARIF log are written relative to.
#[derive(Clone, Debug)]
pub(crate) struct SourceRoot {
    /// Absolute, with symbolic links resolved when it exists.
    dir: PathBuf,
}

impl SourceRoot {
    /// `dir` as given (`--source-root`), or else the default for `program`: the top of the git
    /// work tree holding it, or the current directory.
    pub(crate) fn new(dir: Option<&Path>, program: &Path) -> SourceRoot {
        let dir = match dir {
            Some(d) => absolute(d),
            None => git_top_level(&absolute(program)).unwrap_or_else(|| absolute(Path::new("."))),
        };
        SourceRoot { dir }
    }

    /// The base as the SARIF writer takes it.
    pub(crate) fn uri_base(&self) -> UriBase {
        UriBase {
            id: BASE_ID.to_string(),
            dir: slashed(&self.dir),
        }
    }

    /// `file` (relative to the current directory, or absolute) relative to the root, with `/`
    /// separators; the absolute path when it is outside the root.
    pub(crate) fn relative(&self, file: &Path) -> String {
        let file = absolute(file);
        match file.strip_prefix(&self.dir) {
            Ok(rest) => slashed(rest),
            Err(_) => slashed(&file),
        }
    }
}

/// `path` made absolute against the current directory, symbolic links resolved when it exists
/// (`.` and `..` folded otherwise).
fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let joined = match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_path_buf(),
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The nearest ancestor of `file` holding `.git` (a directory, or the file of a linked work
/// tree).
fn git_top_level(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// A path with `/` separators.
fn slashed(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::RootDir => Some(String::new()),
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_the_root_are_relative_others_absolute() {
        let root = SourceRoot {
            dir: PathBuf::from("/nonexistent-root/project"),
        };
        assert_eq!(
            root.relative(Path::new("/nonexistent-root/project/law/tax.catala_en")),
            "law/tax.catala_en"
        );
        assert_eq!(
            root.relative(Path::new("/nonexistent-root/other/x.catala_en")),
            "/nonexistent-root/other/x.catala_en"
        );
        assert_eq!(
            root.relative(Path::new("/nonexistent-root/project/a/../b.catala_en")),
            "b.catala_en"
        );
        assert_eq!(root.uri_base().dir, "/nonexistent-root/project");
        assert_eq!(root.uri_base().id, "SRCROOT");
    }

    #[test]
    fn the_default_root_is_the_git_top_level() {
        let dir = std::env::temp_dir().join(format!("lexprobe-root-{}", std::process::id()));
        let sub = dir.join("law/section");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let program = sub.join("tax.catala_en");
        std::fs::write(&program, "").unwrap();
        let root = SourceRoot::new(None, &program);
        assert_eq!(root.relative(&program), "law/section/tax.catala_en");
        let given = SourceRoot::new(Some(&sub), &program);
        assert_eq!(given.relative(&program), "tax.catala_en");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
