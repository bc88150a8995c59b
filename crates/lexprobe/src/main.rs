//! The `lexprobe` command-line tool: runs, tests and explores Catala programs, falsifies
//! temporal properties of effectful ADT code, and checks metamorphic relations on legal software.

mod commands;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "lexprobe", version, about = "Finds bugs in computational law", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Falsify a temporal safety property of an ADT method (derivative-guided symbolic execution).
    Falsify(commands::falsify::FalsifyArgs),
    /// Search for violations of metamorphic relations on a Catala scope or an external program.
    Metamorphic(commands::metamorphic::MetamorphicArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Falsify(args) => commands::falsify::run(args),
        Command::Metamorphic(args) => commands::metamorphic::run(args),
    };
    std::process::exit(code);
}
