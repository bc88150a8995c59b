//! The `lexprobe` command-line tool: runs, tests and explores Catala programs, falsifies
//! temporal properties of effectful ADT code, and checks metamorphic relations on legal software.
//! The process starts in [`entry`], which runs [`command_main`].

#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
mod entry;

use clap::{Args, FromArgMatches, Parser, Subcommand};
use lexprobe::{commands, exit};
use std::ffi::OsString;
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

/// The parser of the subcommand `name` alone (its options, without its help texts).
fn subcommand_parser(name: &str) -> Option<clap::Command> {
    use commands::*;
    let (name, augment): (&'static str, fn(clap::Command) -> clap::Command) = match name {
        "run" => ("run", run::RunArgs::augment_args),
        "test" => ("test", test::TestArgs::augment_args),
        "typecheck" => ("typecheck", typecheck::TypecheckArgs::augment_args),
        "concolic" => ("concolic", concolic::ConcolicArgs::augment_args),
        "mutate" => ("mutate", mutate::MutateArgs::augment_args),
        "falsify" => ("falsify", falsify::FalsifyArgs::augment_args),
        "metamorphic" => ("metamorphic", metamorphic::MetamorphicArgs::augment_args),
        "merge" => ("merge", merge::MergeArgs::augment_args),
        "audit" => ("audit", audit::AuditArgs::augment_args),
        "diff" => ("diff", diff::DiffArgs::augment_args),
        _ => return None,
    };
    Some(augment(clap::Command::new(name)))
}

/// The command line parsed with the parser of the one subcommand it names, without building
/// the other nine (most of the start-up of a short run went into building every subcommand's
/// options). `None` whenever the full parser must answer: help or version asked for, no or an
/// unknown subcommand, or arguments this parser rejects (the full one then reports the error,
/// with its usage text).
fn parse_named_subcommand(args: &[OsString]) -> Option<Cli> {
    let asks_for_text = |a: &OsString| {
        matches!(
            a.to_str(),
            Some("-h" | "--help" | "-V" | "--version" | "help")
        )
    };
    if args.iter().skip(1).any(asks_for_text) {
        return None;
    }
    let sub = subcommand_parser(args.get(1)?.to_str()?)?;
    let matches = clap::Command::new("lexprobe")
        .subcommand(sub)
        .try_get_matches_from(args)
        .ok()?;
    let command = Command::from_arg_matches(&matches).ok()?;
    Some(Cli { command })
}

/// The line `lexprobe --version` (or `-V`) prints, as the full parser prints it.
fn version_line() -> String {
    format!("lexprobe {}", env!("CARGO_PKG_VERSION"))
}

/// Whether the command line asks for the version alone (`lexprobe --version`, `lexprobe
/// -V`): answered without building a parser, since building the full one (every
/// subcommand's options and help texts) was most of what such a run did.
fn asks_for_version_alone(args: &[OsString]) -> bool {
    args.len() == 2 && matches!(args[1].to_str(), Some("--version" | "-V"))
}

/// Reads the command line and runs the subcommand; its exit code.
#[cfg_attr(test, allow(dead_code))]
fn command_main() -> i32 {
    die_quietly_on_closed_pipe();
    let args: Vec<OsString> = std::env::args_os().collect();
    if asks_for_version_alone(&args) {
        use std::io::Write;
        // A closed or full standard output is not an error of the version's (as with clap).
        let _ = writeln!(std::io::stdout(), "{}", version_line());
        return 0;
    }
    let cli = parse_named_subcommand(&args).unwrap_or_else(|| Cli::parse_from(&args));
    if let Err((msg, code)) = check_source_files(&cli.command) {
        eprintln!("{msg}");
        std::process::exit(code);
    }
    match cli.command {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every subcommand of the full parser has a parser of its own with the same options, so a
    /// command line means the same whichever parser reads it.
    #[test]
    fn each_subcommand_parser_has_the_options_of_the_full_one() {
        let full = Cli::command();
        let mut names = 0;
        for sub in full.get_subcommands() {
            let name = sub.get_name();
            let alone = subcommand_parser(name)
                .unwrap_or_else(|| panic!("no parser of its own for `{name}`"));
            let ids = |c: &clap::Command| {
                let mut v: Vec<String> =
                    c.get_arguments().map(|a| a.get_id().to_string()).collect();
                v.sort();
                v
            };
            assert_eq!(ids(sub), ids(&alone), "options of `{name}`");
            names += 1;
        }
        assert_eq!(names, 10);
        assert!(subcommand_parser("nonsense").is_none());
    }

    #[test]
    fn the_version_printed_without_a_parser_is_the_full_parsers() {
        let full = Cli::command().render_version();
        assert_eq!(format!("{}\n", version_line()), full.to_string());
        let line = |a: &[&str]| -> Vec<OsString> { a.iter().map(OsString::from).collect() };
        assert!(asks_for_version_alone(&line(&["lexprobe", "--version"])));
        assert!(asks_for_version_alone(&line(&["lexprobe", "-V"])));
        // With anything else the parsers answer (a subcommand's version, an error).
        assert!(!asks_for_version_alone(&line(&[
            "lexprobe",
            "run",
            "--version"
        ])));
        assert!(!asks_for_version_alone(&line(&[
            "lexprobe",
            "--version",
            "x"
        ])));
        assert!(!asks_for_version_alone(&line(&["lexprobe"])));
    }

    #[test]
    fn a_command_line_reads_the_same_with_either_parser() {
        let args: Vec<OsString> = [
            "lexprobe",
            "concolic",
            "f.catala_en",
            "--scope",
            "S",
            "--jobs",
            "2",
            "--jsonl",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let Some(Cli {
            command: Command::Concolic(a),
        }) = parse_named_subcommand(&args)
        else {
            panic!("the concolic parser did not read the line")
        };
        let Cli {
            command: Command::Concolic(b),
        } = Cli::parse_from(&args)
        else {
            panic!("the full parser did not read a concolic line")
        };
        assert_eq!((a.scope.as_str(), a.jobs, a.jsonl), ("S", 2, true));
        assert_eq!((b.scope.as_str(), b.jobs, b.jsonl), ("S", 2, true));
        // Help, version and errors are left to the full parser.
        for extra in ["--help", "-V"] {
            let mut with = args.clone();
            with.push(extra.into());
            assert!(parse_named_subcommand(&with).is_none());
        }
        let mut bad = args.clone();
        bad.push("--no-such-option".into());
        assert!(parse_named_subcommand(&bad).is_none());
    }
}
