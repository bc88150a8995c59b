//! The process's entry point, in place of Rust's default start-up.
//!
//! On GNU/Linux, Rust's start-up asks glibc for the bounds of the initial thread's stack
//! (`pthread_getattr_np`, to place the guard page of its stack-overflow message), and so does
//! the first recursion guarded by `stacker` (the parser, the lowering). For the initial thread
//! glibc answers by reading and parsing `/proc/self/maps`, which the kernel writes out line by
//! line: twice per process, about 6 % of the CPU time of a small exploration such as Section 132.
//! Here the entry point is ours (`#![no_main]` in `main.rs`), and it declares to the parser's
//! guard ([`catala_syntax::stack`]) a part of the stack known from the stack limit alone, so
//! neither reads the file unless an input is nested deeply enough to need more stack.
//!
//! What Rust's start-up did and still has to be done:
//! - the standard descriptors 0, 1 and 2 are open (a closed one is opened on `/dev/null`, so that
//!   a file the command opens never takes its place);
//! - a panic ends the process with exit code 101 after its message;
//! - the buffered standard output is flushed at exit (`std::process::exit` does it);
//! - a stack overflow is said as such: a handler on an alternate stack prints one line, then the
//!   process ends by the signal, as before. (Threads the command starts end by the signal
//!   without the line.)
//!
//! Command-line arguments need nothing: on glibc the standard library reads them before `main`.

use std::ffi::{c_char, c_int};

/// Declares to the parser's guard the part of the initial thread's stack below `top` (an
/// address in `main`'s frame) that is certainly usable: half the stack limit (`ulimit -s`; 8 MiB
/// when unlimited). The limit counts from the top of the stack's mapping, above `main`'s frame by
/// the arguments and the environment, which take at most a quarter of it, and by the frames of
/// the C start-up.
fn declare_initial_stack(top: usize) {
    const UNLIMITED: usize = 8 << 20;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes the limit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return;
    }
    let size = if limit.rlim_cur == libc::RLIM_INFINITY {
        UNLIMITED
    } else {
        usize::try_from(limit.rlim_cur).unwrap_or(UNLIMITED)
    };
    catala_syntax::stack::declare_stack(top.saturating_sub(size / 2), top);
}

/// Opens `/dev/null` on any of descriptors 0, 1 and 2 that is closed.
fn open_standard_descriptors() {
    for fd in 0..3 {
        // SAFETY: `fcntl(F_GETFD)` only reads the descriptor's flags; `open` returns the lowest
        // free descriptor, which is `fd` itself when the lower ones are open.
        unsafe {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
            {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
    }
}

/// The line printed when the command's thread overflows its stack or touches memory it may not.
const FAULT_LINE: &[u8] = b"lexprobe: fatal error: stack overflow or invalid memory access \
(the input may be nested too deeply); stopping\n";

extern "C" fn on_fault(_signal: c_int) {
    // SAFETY: `write` is async-signal-safe. The handler was installed with `SA_RESETHAND`, so the
    // default action is back: returning runs the faulting instruction again, and the process
    // ends by the signal.
    unsafe {
        libc::write(2, FAULT_LINE.as_ptr().cast(), FAULT_LINE.len());
    }
}

/// Gives the calling thread an alternate signal stack and a handler for `SIGSEGV` and `SIGBUS`
/// that says what happened (a handler needs a stack of its own to run when the thread's stack
/// is exhausted). Leaves the defaults when anything fails.
fn say_stack_overflows() {
    const ALT_STACK: usize = 64 * 1024;
    // SAFETY: a fresh anonymous mapping, never unmapped, becomes this thread's alternate signal
    // stack; the handler only calls `write`.
    unsafe {
        let stack = libc::mmap(
            std::ptr::null_mut(),
            ALT_STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            return;
        }
        let alt = libc::stack_t {
            ss_sp: stack,
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        if libc::sigaltstack(&alt, std::ptr::null_mut()) != 0 {
            return;
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fault as extern "C" fn(c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        for signal in [libc::SIGSEGV, libc::SIGBUS] {
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Runs `command` on the initial thread, after what Rust's start-up would have done; its exit
/// code (101 after a panic, whose message the panic hook has printed).
pub(crate) fn run(command: fn() -> i32) -> i32 {
    let top = 0u8;
    declare_initial_stack(std::hint::black_box(&top) as *const u8 as usize);
    open_standard_descriptors();
    say_stack_overflows();
    std::panic::catch_unwind(command).unwrap_or(101)
}

/// The process's entry point (see the module's documentation).
#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    let code = run(crate::command_main);
    std::process::exit(code)
}
