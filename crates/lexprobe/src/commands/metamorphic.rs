//! `lexprobe metamorphic` (being written).

#[derive(clap::Args)]
pub struct MetamorphicArgs {}

pub fn run(_args: MetamorphicArgs) -> i32 {
    eprintln!("lexprobe metamorphic: not available in this build");
    2
}
