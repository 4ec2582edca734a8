//! What a reset copies back.
//!
//! An instance's reset restores the module's initial memory. Copying the
//! whole image back costs the size of the memory; what the program itself
//! can have changed is usually much less: the globals and the lists it can
//! write (those [`crate::analysis::list_facts`] does not find constant). An
//! instance keeps a [`ResetPlan`] of those lists and copies back only them
//! while nothing besides the program may have written the memory (the
//! embedder through `memory_mut`, another backend's state moved in, a call
//! passing lists to a program that writes through list references); after
//! such a write its next reset copies everything
//! ([`crate::runtime::Memory::reset_to`]).

use crate::runtime::Memory;

/// Slots of lists the program does not write that a plan copies along
/// rather than start another range (see [`ResetPlan::new`]).
const MERGE_GAP: u32 = 64;

/// What a reset must copy back into a memory that only its program
/// changed ([`Memory::reset_written_to`]): the heap ranges of the lists the
/// program can write, lists that follow each other with at most a few
/// dozen slots of other lists between them merged into one range (the
/// slots between hold their initial values, so copying them along changes
/// nothing). The globals are always copied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResetPlan {
    heap: Vec<std::ops::Range<u32>>,
}

impl ResetPlan {
    /// The plan for a program whose list `l` never changes but through the
    /// embedder when `constant[l]` holds (a list without an entry there
    /// counts as written), laid out as in `initial`. The constant lists
    /// must hold `initial`'s values whenever the plan is used: a few of
    /// their slots between two written lists may be copied along.
    pub fn new(initial: &Memory, constant: &[bool]) -> ResetPlan {
        let mut heap: Vec<std::ops::Range<u32>> = Vec::new();
        for (l, s) in initial.lists.iter().enumerate() {
            if constant.get(l).copied().unwrap_or(false) || s.slots == 0 {
                continue;
            }
            let r = s.base..s.base.saturating_add(s.slots);
            match heap.last_mut() {
                // A short stretch of lists the program does not write in
                // between is copied along (it holds its initial values):
                // one longer copy costs less than two calls of the copy.
                Some(last) if r.start.saturating_sub(last.end) <= MERGE_GAP => last.end = r.end,
                _ => heap.push(r),
            }
        }
        ResetPlan { heap }
    }

    /// The heap ranges the plan copies, ascending.
    pub fn ranges(&self) -> &[std::ops::Range<u32>] {
        &self.heap
    }

    /// The heap slots a reset by this plan copies.
    pub fn slots(&self) -> u64 {
        self.heap.iter().map(|r| u64::from(r.end - r.start)).sum()
    }
}
