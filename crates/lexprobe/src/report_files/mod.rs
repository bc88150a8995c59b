//! The result files the subcommands write for CI servers: `--sarif` (SARIF 2.1.0, paths
//! relative to a source root) of `lexprobe concolic` and `lexprobe metamorphic`, `--junit`
//! (JUnit XML) of `lexprobe concolic`, `lexprobe metamorphic` and `lexprobe falsify`, and the law coverage (`--coverage`,
//! `--coverage-json`). The formats themselves are in the `reports` crate; these modules turn
//! each engine's results into their plain data. Every writer takes plain values (paths, the
//! engine's results, the loaded program), never a command's arguments: the commands depend on
//! the writers, not the other way round.

mod concolic;
mod concolic_problems;
pub(crate) mod diff;
pub(crate) mod diff_html;
mod falsify;
pub(crate) mod html_report;
mod metamorphic;
pub(crate) mod mutate;
mod source_root;

pub(crate) use concolic::{test_inputs_json, ConcolicFiles, ConcolicRecorders};
pub(crate) use concolic_problems::ExplorationSummary;
pub(crate) use falsify::falsify_junit;
pub(crate) use metamorphic::{
    metamorphic_junit, metamorphic_sarif, relation_done_line, relation_running,
};

use reports::coverage::CoverageReport;
use reports::sarif::Tool;
use std::path::{Path, PathBuf};

/// This program, as SARIF's `tool.driver`.
fn tool() -> Tool {
    Tool {
        name: "lexprobe".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        information_uri: None,
    }
}

/// Writes `text` to `path`, saying which file could not be written.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Where the law coverage goes: a self-contained HTML page, and the same data as JSON.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoverageFiles {
    pub html: Option<PathBuf>,
    pub json: Option<PathBuf>,
}

impl CoverageFiles {
    /// Whether any coverage file is asked for.
    pub(crate) fn wanted(&self) -> bool {
        self.html.is_some() || self.json.is_some()
    }

    /// Writes the files asked for.
    pub(crate) fn write(&self, report: &CoverageReport) -> Result<(), String> {
        if let Some(path) = &self.html {
            // A page over 10 MB is split: the index at PATH, one page per source beside it.
            let index = path
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "coverage.html".into());
            let dir = path.parent().unwrap_or_else(|| Path::new(""));
            for (k, (name, html)) in reports::coverage::html::to_pages(report, &index)
                .into_iter()
                .enumerate()
            {
                let target = if k == 0 { path.clone() } else { dir.join(name) };
                write_file(&target, &html)?;
            }
        }
        if let Some(path) = &self.json {
            let json = reports::coverage::to_json(report);
            write_file(path, &format!("{json:#}\n"))?;
        }
        Ok(())
    }
}
