//! The `lexprobe` command-line tool: runs, tests and explores Catala programs, falsifies
//! temporal properties of effectful ADT code, and checks metamorphic relations on legal software.

use clap::{Parser, Subcommand};
use lexprobe::{commands, exit};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "lexprobe", version, about = "Finds bugs in computational law", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a scope of a Catala program and print its outputs.
    Run(commands::run::RunArgs),
    /// Run the `#[test]` scopes and the test blocks of Catala programs and directories.
    Test(commands::test::TestArgs),
    /// Parse, resolve names and type-check Catala programs.
    Typecheck(commands::typecheck::TypecheckArgs),
    /// Explore every execution path of a Catala scope (concolic execution) and report conflicts,
    /// empty defaults and runtime errors with concrete inputs.
    Concolic(commands::concolic::ConcolicArgs),
    /// Inject bugs into a Catala scope and check that concolic execution finds them.
    Mutate(commands::mutate::MutateArgs),
    /// Falsify a temporal safety property of an ADT method (derivative-guided symbolic execution).
    Falsify(commands::falsify::FalsifyArgs),
    /// Search for violations of metamorphic relations on a Catala scope or an external program.
    Metamorphic(commands::metamorphic::MetamorphicArgs),
    /// Merge the outputs of concolic explorations (shards of one plan, or a run and its
    /// resumptions) into one, without doubles, and say whether it is complete.
    Merge(commands::merge::MergeArgs),
    /// Check a concolic exploration's completeness: random inputs within the input space, each
    /// run's path looked up among the explored ones.
    Audit(commands::audit::AuditArgs),
    /// Compare two versions of a Catala scope: for which inputs some output or the outcome
    /// differs, and by how much (one concolic exploration of the pair).
    Diff(commands::diff::DiffArgs),
}

/// Output piped into a program that stops reading (`| head`) ends the process quietly, as
/// for other command-line tools, instead of failing on the next write.
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: resetting a signal's disposition to its default at start-up, before any thread
    // exists, has no other effect on the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The Catala source files a subcommand reads, with the subcommand's name.
fn source_files(command: &Command) -> (&'static str, Vec<&Path>) {
    match command {
        Command::Run(a) => ("run", vec![a.file.as_path()]),
        Command::Typecheck(a) => ("typecheck", a.files.iter().map(PathBuf::as_path).collect()),
        Command::Concolic(a) => ("concolic", vec![a.file.as_path()]),
        Command::Mutate(a) => ("mutate", vec![a.file.as_path()]),
        Command::Audit(a) => ("audit", vec![a.file.as_path()]),
        Command::Test(_)
        | Command::Falsify(_)
        | Command::Metamorphic(_)
        | Command::Merge(_)
        | Command::Diff(_) => ("", Vec::new()),
    }
}

/// Source files a subcommand cannot work on, said as such before anything is loaded: a
/// directory where a Catala file is expected is bad usage (exit code 2); an empty file has no
/// scope to run or explore (exit code 123, as for a program without the scope asked for; an
/// empty file type-checks, as with Catala).
fn check_source_files(command: &Command) -> Result<(), (String, i32)> {
    let (name, files) = source_files(command);
    for file in files {
        if file.is_dir() {
            let msg = format!(
                "lexprobe {name}: {} is a directory; give a Catala source file (.catala_en, \
                 .catala_fr, .catala_pl), or use `lexprobe test` to test the files of a \
                 directory",
                file.display()
            );
            return Err((msg, exit::USAGE));
        }
        let empty = std::fs::read(file).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace));
        if empty && name != "typecheck" {
            let msg = format!(
                "lexprobe {name}: {} is empty: it has no Catala code, hence no scope",
                file.display()
            );
            return Err((msg, exit::CATALA_ERROR));
        }
    }
    Ok(())
}

fn main() {
    die_quietly_on_closed_pipe();
    let cli = Cli::parse();
    if let Err((msg, code)) = check_source_files(&cli.command) {
        eprintln!("{msg}");
        std::process::exit(code);
    }
    let code = match cli.command {
        Command::Run(args) => commands::run::run(args),
        Command::Test(args) => commands::test::run(args),
        Command::Typecheck(args) => commands::typecheck::run(args),
        Command::Concolic(args) => commands::concolic::run(args),
        Command::Mutate(args) => commands::mutate::run(args),
        Command::Falsify(args) => commands::falsify::run(args),
        Command::Metamorphic(args) => commands::metamorphic::run(args),
        Command::Merge(args) => commands::merge::run(args),
        Command::Audit(args) => commands::audit::run(args),
        Command::Diff(args) => commands::diff::run(args),
    };
    std::process::exit(code);
}
