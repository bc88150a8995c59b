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

/// Appends `doc` as one line of compact JSON to `out`. Serializing straight into bytes is
/// several times cheaper than going through `Display` (which formats piece by piece); the text
/// is the same.
pub fn json_line(out: &mut Vec<u8>, doc: &serde_json::Value) {
    // Writing into a vector cannot fail, and a `Value` always serializes.
    let _ = serde_json::to_writer(&mut *out, doc);
    out.push(b'\n');
}

/// Prints `doc` as one line of compact JSON on the standard output, in one write. A closed pipe
/// (e.g. `| head`) is not an error of the command that printed.
pub fn print_json_line(doc: &serde_json::Value) {
    use std::io::Write;
    let mut text = Vec::with_capacity(4096);
    json_line(&mut text, doc);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&text).and_then(|_| out.flush());
}
