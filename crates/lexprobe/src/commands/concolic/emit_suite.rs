//! `--emit-tests DIR [--suite all|minimal]`: the tests of an exploration written as a Catala
//! test file in Catala's test model (see `concolic::emit`): `#[test]` scopes for the paths that
//! end normally, ```catala-test-cli blocks for those that end in an error, with the error
//! as `lexprobe run` prints it on the test's inputs. A program declaring a module is used by
//! the test file; when the program loads modules, a `clerk.toml` in DIR lists the directories
//! they are in, so that `lexprobe test DIR` and `clerk test` find them. With `--suite minimal`
//! only the tests a greedy set cover keeps (`concolic::suite`): every rule the exploration
//! applied and every distinct problem, each shown once.

use crate::catala::report::{write_errors, ErrorReport, ErrorStyle};
use crate::catala::Loaded;
use crate::law_coverage::CoverageBuilder;
use catala_eval::eval::Interpreter;
use catala_ir::dcalc::ScopeId;
use concolic::emit::{Suite, TestNames};
use concolic::suite::Candidate;
use concolic::{Outcome, TestCase};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};

/// Which tests a suite keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteKind {
    /// Every test of the exploration.
    All,
    /// The fewest tests applying every rule the exploration applied and showing every
    /// distinct problem.
    Minimal,
}

/// What was written.
pub(crate) struct SuiteWritten {
    pub file: PathBuf,
    pub kind: SuiteKind,
    pub kept: usize,
    pub total: usize,
    /// Rules applied by all the tests, and so by the kept ones (with `--suite minimal`).
    pub rules: Option<usize>,
    /// Distinct problems, each shown by one kept test.
    pub problems: usize,
    /// Tests ending in an error, written as test blocks.
    pub error_blocks: usize,
    /// Kept paths listed as text with their inputs, not written as tests (an input without a
    /// Catala literal, or an error the suite cannot state as Catala prints it).
    pub listed: usize,
    /// The clerk.toml written beside the tests, if any.
    pub manifest: Option<PathBuf>,
}

impl SuiteWritten {
    /// The line printed after the exploration.
    pub(crate) fn line(&self) -> String {
        let listed = match self.listed {
            0 => String::new(),
            n => format!("; {n} listed as text only"),
        };
        let kept = match (self.kind, self.rules) {
            (SuiteKind::Minimal, Some(rules)) => format!(
                "{} of {} tests kept{listed}; {rules} rules applied, as by all tests; {} problem{} \
                 shown",
                self.kept,
                self.total,
                self.problems,
                if self.problems == 1 { "" } else { "s" }
            ),
            _ => format!(
                "{} test{} ({} ending in an error, as test blocks{listed})",
                self.kept,
                if self.kept == 1 { "" } else { "s" },
                self.error_blocks
            ),
        };
        format!("Suite: {kept}; written to {}", self.file.display())
    }

    pub(crate) fn to_json(&self) -> Json {
        json!({
            "kind": match self.kind { SuiteKind::All => "all", SuiteKind::Minimal => "minimal" },
            "file": self.file.display().to_string(),
            "kept": self.kept,
            "total": self.total,
            "rules_applied": self.rules,
            "problems": self.problems,
            "error_blocks": self.error_blocks,
            "listed": self.listed,
            "manifest": self.manifest.as_ref().map(|p| p.display().to_string()),
        })
    }
}

/// A test as several workers hand it over (runtime values stay in their thread): its inputs
/// and path, replayed at the end ([`replayed`]).
pub(crate) struct FoundTest {
    inputs: Json,
    path: concolic::PathId,
    outside_input_space: bool,
}

impl FoundTest {
    pub(crate) fn of(loaded: &Loaded, scope: ScopeId, t: &TestCase) -> FoundTest {
        FoundTest {
            inputs: crate::report_files::test_inputs_json(loaded, scope, t),
            path: t.path.clone(),
            outside_input_space: t.outside_input_space,
        }
    }
}

/// The tests found by several workers, replayed on the plain interpreter for their outcomes
/// (the outcome of an exploration's test is the one `lexprobe run` gives on its inputs).
pub(crate) fn replayed(
    loaded: &Loaded,
    scope: ScopeId,
    found: Vec<FoundTest>,
) -> Result<Vec<TestCase>, String> {
    let mut interp = Interpreter::<()>::new(&loaded.program, ()).map_err(|e| e.message.clone())?;
    found
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let inputs = catala_eval::eval::inputs_from_json(&loaded.program, scope, &f.inputs)
                .map_err(|e| format!("test {}: inputs not read back: {e}", i + 1))?;
            let outcome = match catala_eval::run_with(&mut interp, scope, inputs.clone()) {
                Err(e) => Outcome::Error(e),
                Ok(mut r) if !r.assertion_failures.is_empty() => {
                    Outcome::Assertion(r.assertion_failures.swap_remove(0))
                }
                Ok(r) => Outcome::Ok(r.outputs),
            };
            let mut test = concolic::suite::replayed_test(inputs, outcome, f.path);
            test.outside_input_space = f.outside_input_space;
            Ok(test)
        })
        .collect()
}

/// The program being tested: its source file and module directories.
pub(crate) struct SuiteSource<'a> {
    pub loaded: &'a Loaded,
    pub scope: ScopeId,
    pub file: &'a Path,
    pub include_dirs: &'a [PathBuf],
}

/// Writes the suite of `tests` (in exploration order) into `dir`.
pub(crate) fn write_suite(
    source: &SuiteSource,
    tests: &[TestCase],
    dir: &Path,
    kind: SuiteKind,
) -> Result<SuiteWritten, String> {
    let loaded = source.loaded;
    let names = test_names(source);
    let suite = Suite {
        program: &loaded.program,
        scope: source.scope,
        names: &names,
    };
    let (kept, rules) = match kind {
        SuiteKind::All => ((0..tests.len()).collect::<Vec<_>>(), None),
        SuiteKind::Minimal => {
            let s = minimal(source, tests)?;
            (s.kept, Some(s.rules))
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // A module program's suite gets its own clerk.toml, the test directory then being the
    // root, unless it lies in a project whose clerk.toml already finds the modules.
    let compiled = names.link != concolic::emit::ProgramLink::Include;
    let in_project = project_manifest_above(dir);
    let writes_manifest = (names.uses_modules || compiled) && !in_project;
    let sources = relabelled(loaded, dir, writes_manifest, compiled);
    let mut interp = Interpreter::<()>::new(&loaded.program, ()).map_err(|e| e.message.clone())?;
    // A module program runs compiled under the test file that uses it.
    interp.report_as_compiled(names.link != concolic::emit::ProgramLink::Include);
    let mut texts = Vec::with_capacity(kept.len());
    let mut error_blocks = 0;
    let mut listed = 0;
    let mut problems = std::collections::HashSet::new();
    for &i in &kept {
        let t = &tests[i];
        if let Outcome::Error(e) = &t.outcome {
            problems.insert(e.signature());
        }
        let expected = match t.outcome {
            Outcome::Ok(_) => None,
            // Catala's compiled code stops at a failed assertion with another message, after
            // printing the values the assertion reads: such a path is listed, not written as
            // a test block.
            Outcome::Assertion(_) if compiled => None,
            _ => replayed_error(&mut interp, &sources, source.scope, t),
        };
        // A path listed as text (an input without a Catala literal) is no test block.
        error_blocks += usize::from(expected.is_some() && suite.is_writable(t));
        let is_error = !matches!(t.outcome, Outcome::Ok(_));
        listed += usize::from(!suite.is_writable(t) || (is_error && expected.is_none()));
        texts.push(suite.test_text(i, t, expected.as_deref()));
    }
    let file = suite
        .write(&texts, source.file, dir)
        .map_err(|e| format!("cannot write tests: {e}"))?;
    let manifest = if writes_manifest {
        write_manifest(source, dir)?
    } else {
        None
    };
    Ok(SuiteWritten {
        file,
        kind,
        kept: kept.len(),
        total: tests.len(),
        rules,
        problems: problems.len(),
        error_blocks,
        listed,
        manifest,
    })
}

/// The names the test file gives: qualified for a module program (the source parsed again
/// for its modules); plain when it cannot be read again.
fn test_names(source: &SuiteSource) -> TestNames {
    let options = catala_syntax::LoadOptions::for_file(source.file, source.include_dirs);
    let parsed = options.ok().and_then(|o| {
        catala_syntax::parse_file_with_options(source.file, &o)
            .1
            .ok()
    });
    match parsed {
        Some(ast) => TestNames::of(&source.loaded.program, source.scope, &ast),
        None => TestNames::plain(&source.loaded.program),
    }
}

/// The greedy selection: each test's applied rules from a replay with the coverage companion;
/// tests outside the input space (a failed assertion of the scope) are not candidates.
fn minimal(source: &SuiteSource, tests: &[TestCase]) -> Result<concolic::suite::Selection, String> {
    let mut builder = CoverageBuilder::new(source.loaded, source.file, source.include_dirs)?;
    let candidates: Vec<Candidate<_>> = tests
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.outcome, Outcome::Assertion(_)))
        .map(|(index, t)| Candidate {
            index,
            rules: builder.applied_items(source.scope, t.inputs.clone()),
            problem: match &t.outcome {
                Outcome::Error(e) => Some(e.signature()),
                _ => None,
            },
        })
        .collect();
    let mut s = concolic::suite::minimal(&candidates);
    s.total = tests.len();
    Ok(s)
}

/// The program's sources named as Catala names them in the positions of the errors of the test
/// blocks. `clerk test` runs Catala from the project root (the nearest directory above the test
/// directory with a `clerk.toml`, else with `.git` or `catala.opam`; the test directory itself
/// when there is none) on the test file named from there (`tests/S_concolic.catala_en`), and
/// Catala names an included file by the including file's directory joined, as written, with
/// the include path: `tests/../allowance.catala_en`. The test runner matches positions by path
/// suffix, so these names also hold wherever `lexprobe test` runs from. `own_root`: the suite
/// gets its own `clerk.toml` (module programs), so the test directory is the root.
///
/// The files of a module (the program itself when `compiled`, the modules it uses) are named
/// from the root, as Catala names the files it finds through the project's include
/// directories (`aides_logement/prologue.catala_fr`).
fn relabelled(
    loaded: &Loaded,
    dir: &Path,
    own_root: bool,
    compiled: bool,
) -> catala_syntax::SourceMap {
    let mut sources = loaded.sources.clone();
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let root = project_root(&dir).filter(|_| !own_root);
    let prefix = root
        .as_ref()
        .map(|root| concolic::emit::path_from(&dir, root));
    let program = &loaded.program;
    for (k, f) in sources.files.iter_mut().enumerate() {
        let id = |files: &[catala_syntax::FileId]| files.iter().any(|s| s.0 as usize == k);
        if id(&program.stdlib_files) || !f.path.is_file() {
            continue;
        }
        let file = f.path.canonicalize().unwrap_or_else(|_| f.path.clone());
        let module_file = id(&program.module_files) || compiled;
        f.display_name = match &root {
            Some(root) if module_file => {
                concolic::emit::path_from(&file, root).display().to_string()
            }
            _ => position_name(&file, &dir, prefix.as_deref()),
        };
    }
    sources
}

/// Whether a directory above `dir` (not `dir` itself) holds a `clerk.toml`: `dir` is then
/// inside a Catala project, whose manifest finds the modules.
fn project_manifest_above(dir: &Path) -> bool {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .skip(1)
        .any(|d| d.join("clerk.toml").is_file())
}

/// The directory `clerk test` takes as the project root when run in `dir` (see
/// [`relabelled`]); `None` when it is `dir` itself.
fn project_root(dir: &Path) -> Option<PathBuf> {
    let holding = |names: &[&str]| {
        dir.ancestors()
            .find(|d| names.iter().any(|n| d.join(n).exists()))
            .map(Path::to_path_buf)
    };
    holding(&["clerk.toml"])
        .or_else(|| holding(&[".git", "catala.opam"]))
        .filter(|root| root != dir)
}

/// How a test block in `dir` names `file`, `prefix` being the path of `dir` from the project
/// root (see [`relabelled`]): the prefix joined, as Catala joins it (no `..` resolved), with
/// the path of the file from `dir`.
fn position_name(file: &Path, dir: &Path, prefix: Option<&Path>) -> String {
    let relative = concolic::emit::path_from(file, dir);
    match prefix.filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.join(relative).display().to_string(),
        None => relative.display().to_string(),
    }
}

/// The error `lexprobe run` prints on test `t`'s inputs, positions named from the test
/// directory; `None` when the run ends normally.
fn replayed_error(
    interp: &mut Interpreter<'_, ()>,
    sources: &catala_syntax::SourceMap,
    scope: ScopeId,
    t: &TestCase,
) -> Option<String> {
    let errors: Vec<ErrorReport> = match catala_eval::run_with(interp, scope, t.inputs.clone()) {
        Err(e) => vec![ErrorReport::from_runtime(&e)],
        Ok(r) => r
            .assertion_failures
            .iter()
            .map(ErrorReport::from_assertion)
            .collect(),
    };
    if errors.is_empty() {
        return None;
    }
    let mut text = Vec::new();
    write_errors(
        sources,
        &errors,
        ErrorStyle::Boxes,
        &mut Vec::new(),
        &mut text,
    );
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// `DIR/clerk.toml` naming the directories of the program and of its modules (relative to
/// DIR), unless DIR has one already.
fn write_manifest(source: &SuiteSource, dir: &Path) -> Result<Option<PathBuf>, String> {
    let path = dir.join("clerk.toml");
    if path.exists() {
        eprintln!(
            "lexprobe concolic: {} exists and is left as it is; it must list the program's module directories",
            path.display()
        );
        return Ok(None);
    }
    let program_dir = source
        .file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let mut dirs = vec![program_dir.to_path_buf()];
    if let Ok(o) = catala_syntax::LoadOptions::for_file(source.file, source.include_dirs) {
        dirs.extend(o.include_dirs);
    }
    let mut listed: Vec<String> = Vec::new();
    for d in dirs {
        let rel = concolic::emit::path_from(&d, dir).display().to_string();
        let rel = if rel.is_empty() { ".".to_string() } else { rel };
        if !listed.contains(&rel) {
            listed.push(rel);
        }
    }
    let quoted: Vec<String> = listed
        .iter()
        .map(|d| format!("  {}", toml_string(d)))
        .collect();
    let text = format!(
        "# The directories of the tested program and of the modules it uses, for `clerk test`\n\
         # and `lexprobe test` of the tests in this directory.\n\
         [project]\ninclude_dirs = [\n{}\n]\n",
        quoted.join(",\n")
    );
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Some(path))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{position_name, project_root};
    use std::path::Path;

    #[test]
    fn positions_name_files_as_catala_does_from_the_project_root() {
        // Tests in `tests/` of the project `/r`: the included program one level up is
        // `tests/../x` (Catala joins the test file's directory and the include path as
        // written), one in a sibling directory `tests/../prog/x`.
        let tests = Path::new("/r/tests");
        let prefix = Some(Path::new("tests"));
        assert_eq!(
            position_name(Path::new("/r/x.catala_en"), tests, prefix),
            "tests/../x.catala_en"
        );
        assert_eq!(
            position_name(Path::new("/r/prog/x.catala_en"), tests, prefix),
            "tests/../prog/x.catala_en"
        );
        // Two levels down from the root.
        assert_eq!(
            position_name(
                Path::new("/r/prog/x.catala_en"),
                Path::new("/r/a/b"),
                Some(Path::new("a/b"))
            ),
            "a/b/../../prog/x.catala_en"
        );
        // The test directory is the root: paths from it.
        assert_eq!(
            position_name(Path::new("/r/tests/x.catala_en"), tests, None),
            "x.catala_en"
        );
        assert_eq!(
            position_name(Path::new("/a/prog/x.catala_en"), tests, None),
            "../../a/prog/x.catala_en"
        );
    }

    #[test]
    fn the_project_root_is_the_nearest_directory_with_a_clerk_manifest() {
        let base = std::env::temp_dir().join(format!("lexprobe-root-{}", std::process::id()));
        let tests = base.join("proj/tests");
        std::fs::create_dir_all(&tests).unwrap();
        std::fs::write(base.join("proj/clerk.toml"), "").unwrap();
        assert_eq!(project_root(&tests), Some(base.join("proj")));
        // A manifest in the test directory itself: it is the root.
        std::fs::write(tests.join("clerk.toml"), "").unwrap();
        assert_eq!(project_root(&tests), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
