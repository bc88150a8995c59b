//! Output formats shared by the subcommands.

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// For people (Catala's boxes, tables, sentences); `text` is accepted as an alias.
    #[value(alias = "text")]
    Human,
    /// JSON, for machines.
    Json,
}

/// The layout of error messages on the error stream, as Catala's `--message-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    /// Catala's `┌─[ERROR]─` boxes with the source lines.
    Human,
    /// One `file:line.col-col: [ERROR] message` line per error, for editors.
    Gnu,
}
