//! Native stack for compiled code.
//!
//! The interpreter keeps CVM frames on the heap, so its only limit is the
//! configured call depth. Compiled CVM calls are native calls, so a deep
//! recursion uses native stack. To keep the depth limit the only
//! observable limit, every run first works out the stack it could need
//! (the deepest possible nesting times the largest compiled frame, plus a
//! reserve for the trampoline, the shims and the Rust code they call) and
//! runs the compiled code where that much is available: on the current
//! thread's stack when enough of it is left, otherwise on a fresh stack
//! segment (with a guard page) of the current thread. Compiled frames probe
//! their pages, so even a frame larger than a page cannot jump over a
//! guard.
//!
//! When the need exceeds [`MAX_SEGMENT`] (a depth limit in the millions on
//! recursive code) or the platform cannot switch stacks, the instance runs
//! that call on the interpreter instead, which has identical semantics.

/// Native stack a run may use besides its compiled frames: the entry
/// trampoline, the shims, the intrinsics and the embedder's `Host` and
/// `Output` code they call.
pub(crate) const RESERVE: u64 = 256 * 1024;

/// The largest stack segment the JIT asks for.
pub(crate) const MAX_SEGMENT: u64 = 256 << 20;

/// Headroom added to a new segment for the frames of the stack switch
/// itself.
const SWITCH_SLACK: usize = 64 * 1024;

/// The native stack, in bytes, that `frames` nested compiled frames of at
/// most `frame_bytes` each need; `None` when that exceeds [`MAX_SEGMENT`].
pub(crate) fn need(frames: u64, frame_bytes: u64) -> Option<usize> {
    let total = frames.checked_mul(frame_bytes)?.checked_add(RESERVE)?;
    if total > MAX_SEGMENT {
        return None;
    }
    usize::try_from(total).ok()
}

/// Whether the current native stack has at least `bytes` left: one look
/// at the stack pointer and the thread's cached stack limit, the check
/// every call makes before it considers [`with_stack`].
#[inline]
pub(crate) fn enough_here(bytes: usize) -> bool {
    stacker::remaining_stack().is_some_and(|left| left >= bytes)
}

/// Runs `f` with at least `bytes` of native stack available, or returns
/// `None` without running it when that cannot be arranged.
pub(crate) fn with_stack<R>(bytes: usize, f: impl FnOnce() -> R) -> Option<R> {
    stacker::maybe_grow(bytes, bytes.saturating_add(SWITCH_SLACK), move || {
        match stacker::remaining_stack() {
            Some(left) if left >= bytes => Some(f()),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_are_bounded() {
        assert_eq!(need(1000, 100), Some(100_000 + RESERVE as usize));
        assert_eq!(need(u64::from(u32::MAX), 200), None);
        assert_eq!(need(u64::MAX, u64::MAX), None);
    }

    #[test]
    fn runs_with_a_big_stack_on_a_small_thread() {
        // A thread with 64 KiB of stack still gets 4 MiB for the callback.
        let got = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| with_stack(4 << 20, stacker::remaining_stack))
            .expect("thread")
            .join()
            .expect("no panic");
        let left = got.flatten().unwrap_or(0);
        assert!(left >= 4 << 20, "{left}");
    }
}
