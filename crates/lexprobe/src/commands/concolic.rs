//! `lexprobe concolic` (being written).

#[derive(clap::Args)]
pub struct ConcolicArgs {}

pub fn run(_args: ConcolicArgs) -> i32 {
    eprintln!("lexprobe concolic: not available in this build");
    2
}
