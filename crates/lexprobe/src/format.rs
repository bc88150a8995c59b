//! Output formats shared by the subcommands.

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Catala's boxes, for people.
    Human,
    /// JSON, for machines.
    Json,
}
