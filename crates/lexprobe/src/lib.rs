//! The lexprobe library behind the `lexprobe` command: loading Catala programs and reporting
//! their errors ([`catala`]), the subcommands ([`commands`]), and the test runner shared by
//! `lexprobe test` and the conformance suites over the Catala compiler's test suite
//! ([`testing`]).

pub mod catala;
pub mod commands;
pub(crate) mod diff;
pub mod exit;
pub mod format;
pub(crate) mod interrupt;
pub(crate) mod law_coverage;
pub(crate) mod progress;
pub(crate) mod report_files;
pub mod testing;
