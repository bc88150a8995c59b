//! The operating-system side of talking to a program: writing to its standard input without
//! being killed by SIGPIPE when it has closed that input, and stopping it together with every
//! process it started.
//!
//! The `lexprobe` binary restores the default disposition of SIGPIPE (so that `lexprobe ... |
//! head` ends quietly); with that disposition, a write to a program that exited would kill
//! lexprobe. Writes here block SIGPIPE in the writing thread for the duration of the write,
//! so that a closed pipe is an `io::ErrorKind::BrokenPipe` error, and a SIGPIPE raised by the
//! write is taken off the thread's pending signals before the mask is restored.

use std::io::{self, Write};

/// SIGPIPE blocked in the current thread until dropped; on drop, a SIGPIPE that became
/// pending meanwhile is consumed, then the previous mask is restored.
struct SigpipeBlocked {
    previous: libc::sigset_t,
}

fn sigpipe_set() -> libc::sigset_t {
    // SAFETY: sigemptyset and sigaddset initialise the set they are given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        set
    }
}

impl SigpipeBlocked {
    fn new() -> SigpipeBlocked {
        let set = sigpipe_set();
        // SAFETY: pthread_sigmask only changes the calling thread's mask; `previous` receives
        // the old mask.
        unsafe {
            let mut previous: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous);
            SigpipeBlocked { previous }
        }
    }
}

impl Drop for SigpipeBlocked {
    fn drop(&mut self) {
        let set = sigpipe_set();
        // SAFETY: sigpending fills a set; sigwait returns at once because SIGPIPE is pending
        // and blocked; pthread_sigmask restores the mask saved in `new`.
        unsafe {
            let mut pending: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut pending);
            if libc::sigpending(&mut pending) == 0
                && libc::sigismember(&pending, libc::SIGPIPE) == 1
                && libc::sigismember(&self.previous, libc::SIGPIPE) == 0
            {
                let mut taken = 0;
                libc::sigwait(&set, &mut taken);
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut());
        }
    }
}

/// Writes all of `bytes` and flushes. A reader that has gone away gives an
/// `io::ErrorKind::BrokenPipe` error, never a SIGPIPE.
pub(crate) fn write_all_without_sigpipe(writer: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    let _blocked = SigpipeBlocked::new();
    writer.write_all(bytes).and_then(|_| writer.flush())
}

/// Kills a process group (the shell `sh -c` started and everything it started).
pub(crate) fn kill_process_group(leader: u32) {
    let Ok(group) = libc::pid_t::try_from(leader) else {
        return;
    };
    if group > 1 {
        // SAFETY: kill with a negative pid signals the process group; no memory is involved.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn writing_to_a_program_that_exited_is_an_error() {
        let mut child = Command::new("sh")
            .args(["-c", "exit 0"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        child.wait().unwrap();
        // More than a pipe buffer, so that the write cannot all land in the buffer.
        let big = vec![b'x'; 1 << 20];
        let error = write_all_without_sigpipe(&mut stdin, &big).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    }
}
