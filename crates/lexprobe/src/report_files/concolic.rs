//! The result files of `lexprobe concolic`: the distinct problems of an exploration as
//! SARIF and JUnit XML (`concolic_problems.rs`), and the law coverage of its tests (each test
//! replayed with the coverage companion). Tests are recorded as the workers stream them; the
//! files are written at the end.

use super::concolic_problems::{ExplorationSummary, Problems};
use super::source_root::SourceRoot;
use super::{write_file, CoverageFiles};
use crate::catala::Loaded;
use crate::law_coverage::CoverageBuilder;
use catala_eval::runtime::json::value_to_json;
use concolic::{Outcome, TestCase};
use serde_json::{Map, Value as Json};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The result files of an exploration, besides its printed output.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConcolicFiles {
    /// The distinct problems found, as SARIF 2.1.0.
    pub sarif: Option<PathBuf>,
    /// The distinct problems found, as JUnit XML.
    pub junit: Option<PathBuf>,
    /// The directory the SARIF paths are relative to (default: see `SourceRoot::new`).
    pub source_root: Option<PathBuf>,
    /// The law coverage of the tests.
    pub coverage: CoverageFiles,
}

/// What a concolic exploration records besides its printed output, per streamed test: the
/// live status line, the distinct problems (for the exit code, `--sarif` and `--junit`).
pub(crate) struct ConcolicRecorders {
    pub status: crate::progress::Status,
    files: ConcolicFiles,
    /// The scope's name, as the SARIF log gives it.
    scope_name: String,
    problems: Mutex<Problems>,
    /// Each test's number (0-based), inputs, and whether the exploration found it outside
    /// the input space (a failed assertion), replayed with coverage at the end.
    coverage: Option<Mutex<Vec<(usize, Json, bool)>>>,
}

impl ConcolicRecorders {
    /// Recorders for the files asked for; the status line is drawn unless `quiet`.
    pub(crate) fn new(files: ConcolicFiles, quiet: bool, scope: &str) -> ConcolicRecorders {
        ConcolicRecorders {
            status: crate::progress::Status::new(
                crate::progress::wanted(quiet),
                &format!("concolic {scope}"),
            ),
            problems: Mutex::new(Problems::new(
                files.sarif.is_some() || files.junit.is_some(),
            )),
            coverage: files.coverage.wanted().then(|| Mutex::new(Vec::new())),
            files,
            scope_name: scope.to_string(),
        }
    }

    /// Records test number `index` (0-based); called from any worker thread.
    pub(crate) fn record(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        index: usize,
        test: &TestCase,
    ) {
        self.status.test(test.outcome.kind(), test.queries);
        self.problems
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(loaded, scope, index, test);
        if let Some(c) = &self.coverage {
            let inputs = test_inputs_json(loaded, scope, test);
            let outside = matches!(test.outcome, Outcome::Assertion(_));
            c.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((index, inputs, outside));
        }
    }

    /// The number of distinct problems (runtime errors) found so far.
    pub(crate) fn problem_count(&self) -> usize {
        self.problems
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Writes the files asked for; `file` is the program's source file and `include_dirs` the
    /// directories its modules were looked up in (the coverage reads the sources again);
    /// `summary` is what the whole exploration did.
    pub(crate) fn write(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        (file, include_dirs): (&Path, &[PathBuf]),
        summary: &ExplorationSummary,
    ) -> Result<(), String> {
        {
            let problems = self.problems.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(path) = &self.files.sarif {
                let root = SourceRoot::new(self.files.source_root.as_deref(), file);
                let log = problems.to_sarif(&self.scope_name, &root);
                write_file(path, &format!("{log:#}\n"))?;
            }
            if let Some(path) = &self.files.junit {
                let program = file.display().to_string();
                let xml = problems.to_junit(&program, &self.scope_name, summary);
                write_file(path, &xml)?;
            }
        }
        self.write_coverage(loaded, scope, file, include_dirs)
    }

    /// Writes the law coverage, if asked for.
    fn write_coverage(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        file: &Path,
        include_dirs: &[PathBuf],
    ) -> Result<(), String> {
        if let Some(c) = &self.coverage {
            let mut tests = std::mem::take(&mut *c.lock().unwrap_or_else(|p| p.into_inner()));
            tests.sort_by_key(|(i, _, _)| *i);
            let mut builder = CoverageBuilder::new(loaded, file, include_dirs)?;
            builder.count_outside_inputs = false;
            for (i, inputs, outside) in &tests {
                // The exploration checks the scope's assertions first (they bound the input
                // space); the plain order may meet an error before them.
                if *outside {
                    builder.exclude();
                    continue;
                }
                let values = catala_eval::eval::inputs_from_json(&loaded.program, scope, inputs)
                    .map_err(|e| format!("test {}: inputs not read back: {e}", i + 1))?;
                builder.run(
                    i + 1,
                    &format!("concolic test {}", i + 1),
                    scope,
                    values,
                    inputs,
                );
            }
            let report = builder.finish(&format!(
                "{} (scope {}, concolic exploration)",
                file.display(),
                self.scope_name
            ));
            self.files.coverage.write(&report)?;
        }
        Ok(())
    }
}

/// The inputs of a test as a JSON object (inputs left free by the path are left out).
pub(crate) fn test_inputs_json(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    test: &TestCase,
) -> Json {
    let decl = loaded.program.scope(scope);
    let mut m = Map::new();
    for (input, v) in decl.inputs.iter().zip(&test.inputs) {
        if let Some(v) = v {
            m.insert(input.name.clone(), value_to_json(&loaded.program, v));
        }
    }
    Json::Object(m)
}
