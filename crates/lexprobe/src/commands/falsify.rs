//! `lexprobe falsify` (being written).

#[derive(clap::Args)]
pub struct FalsifyArgs {}

pub fn run(_args: FalsifyArgs) -> i32 {
    eprintln!("lexprobe falsify: not available in this build");
    2
}
