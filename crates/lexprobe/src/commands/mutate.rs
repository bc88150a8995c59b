//! `lexprobe mutate` (being written).

#[derive(clap::Args)]
pub struct MutateArgs {}

pub fn run(_args: MutateArgs) -> i32 {
    eprintln!("lexprobe mutate: not available in this build");
    2
}
