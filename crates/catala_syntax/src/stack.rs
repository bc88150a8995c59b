//! Deep recursion (nested expressions and types) without overflowing the thread's stack.
//!
//! [`maybe_grow`] runs its closure on the current stack when enough of it is left, and otherwise
//! on a new segment (the `stacker` crate). To know how much is left, `stacker` asks glibc for the
//! thread's stack bounds, which for a process's initial thread means reading and parsing
//! `/proc/self/maps` (a noticeable share of a short command's time). A program that knows part
//! of its initial thread's stack for certain declares it with [`declare_stack`]; while the stack
//! pointer is inside that part and the red zone fits, the question is answered without `stacker`.

use std::cell::Cell;

thread_local! {
    /// The part of this thread's stack declared usable: lowest and highest address; (0, 0) when
    /// nothing was declared.
    static DECLARED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// Declares that the addresses from `lowest` to `highest` are this thread's stack, usable in
/// full (below `highest`, which should be an address in the caller's frame).
pub fn declare_stack(lowest: usize, highest: usize) {
    DECLARED.with(|d| d.set((lowest, highest)));
}

/// An address within the current stack frame.
#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Runs `f` with at least `red_zone` bytes of stack, on a new segment of `segment` bytes when
/// the current stack has less left.
pub fn maybe_grow<R>(red_zone: usize, segment: usize, f: impl FnOnce() -> R) -> R {
    let (lowest, highest) = DECLARED.with(Cell::get);
    let here = stack_address();
    // Outside the declared part (on a segment `stacker` allocated, or on another thread's stack
    // than the one declared), `stacker` decides.
    if lowest < here && here <= highest && here - lowest >= red_zone {
        return f();
    }
    stacker::maybe_grow(red_zone, segment, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_room_runs_in_place_and_too_little_grows() {
        let here = stack_address();
        // 1 MiB declared below this frame: a 64 KiB red zone fits, so the closure runs on this
        // stack (its frame is close to `here`).
        declare_stack(here - (1 << 20), here + 4096);
        let inner = maybe_grow(64 * 1024, 1 << 20, stack_address);
        assert!(
            here.abs_diff(inner) < 64 * 1024,
            "ran elsewhere: {here:#x} vs {inner:#x}"
        );
        // Nothing declared as usable below this frame, and a red zone of 64 MiB, more than any
        // test thread's stack: the closure runs on a new segment, far from this frame.
        declare_stack(here - 16, here + 4096);
        let grown = maybe_grow(64 << 20, 128 << 20, stack_address);
        assert!(
            here.abs_diff(grown) > 64 * 1024,
            "not grown: {here:#x} vs {grown:#x}"
        );
        declare_stack(0, 0);
    }
}
