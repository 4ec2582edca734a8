//! Fills that wait: the square sets of `Get` forms and line walkers kept
//! as bitboards until someone looks at their lists.
//!
//! For a list only such fills write and only square-set readers read
//! (`crate::analysis::deferred`), Cranelift's code does not write the
//! squares; it records the set, its count and the order of the squares in
//! a [`Pending`] record the run context points to. The squares are written
//! ([`Pending::flush`]) before anything else can see the list: when the
//! embedder takes the instance's memory, before the interpreter runs on
//! it, before an intrinsic called through the shim writes the list or
//! reads it element by element, and at the end of a run that has no
//! instance to keep the record. A square-set reader called through the
//! shim takes the set itself ([`Pending::waiting_set`]).
//!
//! A fill writes the squares in its order and the end marker after them,
//! and leaves the slots beyond untouched; so after two fills, the slots past
//! the second one's end marker still hold what the first one wrote there.
//! Compiled code keeps that exact: when a new fill of a list has fewer
//! squares than the one waiting, it writes the waiting one first (which
//! the new one then covers up to its own end marker); otherwise the new
//! one covers every slot the waiting one would have written, which is then
//! dropped. Memory seen from outside is always what the eager fills would
//! have left.

use crate::analysis::deferred::MAX_DEFERRED;
use cvm::runtime::LIST_END;
use cvm::Memory;
use std::mem::{offset_of, size_of};

/// The count of a slot with no waiting fill.
pub(crate) const NONE: i32 = -1;

/// One list's waiting fill.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct PendingFill {
    /// The squares to write, ascending.
    pub set: u64,
    /// Their number, or [`NONE`].
    pub count: i32,
    /// 0 when the squares are written ascending, 1 descending (written by
    /// compiled code only for a list that some fill writes descending).
    pub descending: u32,
}

/// The waiting fills of an instance, one slot per deferred list (in the
/// order of [`crate::analysis::deferred::deferred_lists`]; compiled code
/// addresses slot `i` at `i * offsets::FILL_SIZE`).
#[repr(C)]
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    fills: [PendingFill; MAX_DEFERRED],
    /// Non-zero when a fill may wait: compiled code sets it with every
    /// fill it records, [`Pending::flush`] and [`Pending::forget`] clear it
    /// (a cheap test for the intrinsic shim).
    any: u32,
    /// Non-zero when the memory of a deferred list may have been written
    /// since [`Pending::take_written`]: by a flush, by the shim's call of
    /// an intrinsic that writes one, or by compiled code writing a waiting
    /// fill on its cold path. While it is zero the deferred lists hold
    /// what the last reset left in them, and the next reset need not copy
    /// them back.
    written: u32,
    lists: [u32; MAX_DEFERRED],
    len: usize,
}

/// Byte offsets compiled code uses.
pub(crate) mod offsets {
    use super::*;
    /// Size of one slot.
    pub const FILL_SIZE: i32 = size_of::<PendingFill>() as i32;
    /// [`PendingFill::set`].
    pub const SET: i32 = offset_of!(PendingFill, set) as i32;
    /// [`PendingFill::count`].
    pub const COUNT: i32 = offset_of!(PendingFill, count) as i32;
    /// [`PendingFill::descending`].
    pub const DESCENDING: i32 = offset_of!(PendingFill, descending) as i32;
    /// [`Pending::any`].
    pub const ANY: i32 = offset_of!(Pending, any) as i32;
    /// [`Pending::written`].
    pub const WRITTEN: i32 = offset_of!(Pending, written) as i32;
}

impl Pending {
    /// A record for the deferred lists `lists` (at most [`MAX_DEFERRED`]
    /// are kept), nothing waiting.
    pub(crate) fn new(lists: &[u32]) -> Pending {
        let mut pending = Pending {
            fills: [PendingFill {
                set: 0,
                count: NONE,
                descending: 0,
            }; MAX_DEFERRED],
            any: 0,
            written: 0,
            lists: [0; MAX_DEFERRED],
            len: lists.len().min(MAX_DEFERRED),
        };
        pending.lists[..pending.len].copy_from_slice(&lists[..pending.len]);
        pending
    }

    /// Whether the program has deferred lists at all (compiled code may
    /// then use the record).
    pub(crate) fn is_used(&self) -> bool {
        self.len > 0
    }

    /// Whether a fill may wait (cheap; [`Pending::waiting`] is exact).
    pub(crate) fn may_wait(&self) -> bool {
        self.any != 0
    }

    /// Whether a fill waits.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> bool {
        self.fills[..self.len].iter().any(|f| f.count != NONE)
    }

    /// Writes every waiting fill into `memory`.
    pub(crate) fn flush(&mut self, memory: &mut Memory) {
        if !self.may_wait() {
            return;
        }
        for i in 0..self.len {
            self.flush_slot(i, memory);
        }
        self.any = 0;
    }

    /// Writes the waiting fill of list `list`, if it is deferred and one
    /// waits.
    pub(crate) fn flush_list(&mut self, list: u32, memory: &mut Memory) {
        if let Some(i) = self.lists[..self.len].iter().position(|&l| l == list) {
            self.flush_slot(i, memory);
        }
    }

    /// The set of the fill waiting for list `list` and its count, if the
    /// list is deferred and one waits: what a square-set reader takes
    /// instead of the squares.
    pub(crate) fn waiting_set(&self, list: u32) -> Option<(u64, u32)> {
        if !self.may_wait() {
            return None;
        }
        let i = self.lists[..self.len].iter().position(|&l| l == list)?;
        let fill = &self.fills[i];
        u32::try_from(fill.count).ok().map(|n| (fill.set, n))
    }

    /// Records that the memory of a deferred list may have been written
    /// (the shim is about to call an intrinsic that writes one).
    pub(crate) fn mark_written(&mut self) {
        self.written = 1;
    }

    /// Whether the memory of a deferred list may have been written since
    /// the last call; starts the record afresh.
    pub(crate) fn take_written(&mut self) -> bool {
        std::mem::take(&mut self.written) != 0
    }

    /// Drops every waiting fill: memory was reset, which overwrites them.
    pub(crate) fn forget(&mut self) {
        if !self.may_wait() {
            return;
        }
        for fill in &mut self.fills[..self.len] {
            fill.count = NONE;
        }
        self.any = 0;
    }

    /// Writes the waiting fill of slot `i`, if one waits (nothing for a
    /// slot past the deferred lists).
    pub(crate) fn flush_slot(&mut self, i: usize, memory: &mut Memory) {
        let Some(&list) = self.lists[..self.len].get(i) else {
            return;
        };
        let fill = &mut self.fills[i];
        if fill.count == NONE {
            return;
        }
        fill.count = NONE;
        self.written = 1;
        write_squares(memory, list, fill.set, fill.descending != 0);
    }
}

/// Writes the squares of `set`, ascending (or `descending`), and the end
/// marker into list `list`, as the fill does. Compiled code checked that
/// they fit before it recorded the set; were they not to, nothing is
/// written.
fn write_squares(memory: &mut Memory, list: u32, set: u64, descending: bool) {
    let Some(slice) = memory.lists.get(list as usize).copied() else {
        return;
    };
    let n = set.count_ones() as usize;
    let start = slice.base as usize;
    let Some(slots) = memory.heap.get_mut(start..start + slice.slots as usize) else {
        return;
    };
    let Some((squares, end)) = slots.get_mut(..=n).map(|s| s.split_at_mut(n)) else {
        return;
    };
    let mut rest = set;
    for slot in squares {
        let square = if descending {
            63 - rest.leading_zeros()
        } else {
            rest.trailing_zeros()
        };
        *slot = square as i32;
        rest &= !(1 << square);
    }
    end[0] = LIST_END;
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::asm::assemble;
    use cvm::Program;

    fn memory() -> Memory {
        let src = ".list a 5\n.list b 5\n.entry main\n.func main params 0 lists 0 locals 0 stack 1 value\n    push 0\n    retv\n.end\n";
        Memory::new(
            Program::new(assemble(src).expect("assembles"))
                .expect("verifies")
                .module(),
        )
    }

    #[test]
    fn a_flush_writes_what_the_eager_fill_would_and_only_once() {
        let mut m = memory();
        let mut p = Pending::new(&[1]);
        assert!(p.is_used() && !p.waiting());
        p.fills[0] = PendingFill {
            set: (1 << 3) | (1 << 9),
            count: 2,
            descending: 0,
        };
        p.any = 1;
        assert!(p.waiting() && p.may_wait());
        p.flush_list(0, &mut m);
        assert!(p.waiting(), "list 0 is not deferred");
        p.flush(&mut m);
        assert!(!p.waiting() && !p.may_wait());
        assert_eq!(m.list_elements(1), &[3, 9]);
        assert_eq!(m.list_elements(0), &[] as &[i32]);
        // Nothing waits any more: a second flush leaves memory alone.
        m.heap[m.lists[1].base as usize] = 7;
        p.flush(&mut m);
        assert_eq!(m.list_elements(1), &[7, 9]);
        p.fills[0].count = 1;
        p.any = 1;
        p.forget();
        assert!(!p.waiting() && !p.may_wait());
    }

    #[test]
    fn a_descending_fill_is_written_descending_and_a_set_reader_sees_the_set() {
        let mut m = memory();
        let mut p = Pending::new(&[0, 1]);
        p.fills[1] = PendingFill {
            set: (1 << 4) | (1 << 12) | (1 << 20),
            count: 3,
            descending: 1,
        };
        p.any = 1;
        assert_eq!(
            p.waiting_set(1),
            Some(((1 << 4) | (1 << 12) | (1 << 20), 3))
        );
        assert_eq!(p.waiting_set(0), None, "nothing waits for list 0");
        assert_eq!(p.waiting_set(2), None, "list 2 is not deferred");
        p.flush(&mut m);
        assert_eq!(m.list_elements(1), &[20, 12, 4]);
        assert_eq!(p.waiting_set(1), None);
    }
}
