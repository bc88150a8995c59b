//! The CPU time of the calling thread, to tell what a piece of work cost apart from what
//! other processes on the same machine took (wall-clock time counts their share too).

use std::time::Duration;

/// CPU time (user and system) consumed so far by the calling thread; zero where the
/// platform cannot tell.
pub(crate) fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if !ok || t.tv_sec < 0 || t.tv_nsec < 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_takes_cpu_time_and_sleep_does_not() {
        let start = thread_cpu_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(x);
        let busy = thread_cpu_time() - start;
        assert!(busy > Duration::ZERO);
        let before = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(200));
        let slept = thread_cpu_time() - before;
        assert!(
            slept < Duration::from_millis(100),
            "sleeping took {slept:?} of CPU"
        );
    }
}
