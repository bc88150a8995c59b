//! The `lexprobe` command-line tool: runs, tests and explores Catala programs, falsifies
//! temporal properties of effectful ADT code, and checks metamorphic relations on legal software.

use clap::{Parser, Subcommand};
use lexprobe::commands;

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

fn main() {
    die_quietly_on_closed_pipe();
    let cli = Cli::parse();
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
    };
    std::process::exit(code);
}
