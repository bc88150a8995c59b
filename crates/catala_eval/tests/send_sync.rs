//! Compile-time check that a compiled program can be shared by the threads of `--jobs`: the
//! default-calculus program, the loaded program with its sources, and the registry of external
//! implementations are `Send + Sync`. If any of them stops being so, this file stops compiling.

use catala_eval::externals::Externals;
use catala_eval::loader::LoadedProgram;
use catala_ir::dcalc::Program;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_compiled_program_is_shared_between_threads() {
    assert_send_sync::<Program>();
    assert_send_sync::<LoadedProgram>();
    assert_send_sync::<Externals>();
}
