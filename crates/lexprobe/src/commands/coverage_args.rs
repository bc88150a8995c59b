//! The `--coverage FILE` and `--coverage-json FILE` options of the subcommands that write
//! the law coverage of their runs (`lexprobe test`, `lexprobe concolic`).

use crate::report_files::CoverageFiles;
use std::path::PathBuf;

/// Where the coverage files go.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CoverageArgs {
    /// Write the law coverage as a self-contained HTML page to FILE: the law text with every
    /// rule marked applied, considered or never reached, linked to a test that applied it.
    #[arg(long, value_name = "FILE")]
    pub coverage: Option<PathBuf>,
    /// Write the same coverage data as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub coverage_json: Option<PathBuf>,
}

impl CoverageArgs {
    /// The files asked for, as the report writers take them.
    pub(crate) fn files(&self) -> CoverageFiles {
        CoverageFiles {
            html: self.coverage.clone(),
            json: self.coverage_json.clone(),
        }
    }
}
