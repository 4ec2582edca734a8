//! Counted loops in the lowering: the guard on the loop's entry, the fast
//! copy of its body, unrolled when small, with its counter rotated
//! (see the analysis in [`crate::analysis::loops`] and `docs/jit.md`,
//! "Counted loops").

use super::{next_reachable, trusted, Lower};
use crate::analysis::loops::{CountedLoop, ListRef, Step};
use crate::context::{offsets, STATUS_TRAP};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};
use cvm::isa::Opcode;
use cvm::verify::{FunctionInfo, InstrInfo};
use std::collections::{HashMap, HashSet};

mod guard;

/// The counter of a counted loop whose fast copy can rotate it
/// ([`Rotation`]): the loop's only edge back to the header is an
/// `inc.jlt.li` with a bound above `i32::MIN`, on a slot the guard tracks
/// as an induction variable stepping by one (so it proves the increment
/// never wraps).
fn rotation(info: &FunctionInfo, lp: &CountedLoop) -> Option<Rotation> {
    let mut latches = body(info, lp).filter(|(_, i)| i.instr.target() == Some(lp.header));
    let (_, latch) = latches.next()?;
    if latches.next().is_some() || latch.instr.opcode != Opcode::IncJLtLI {
        return None;
    }
    let (slot, bound) = (latch.instr.operands[0], latch.instr.operands[1]);
    let counts = lp
        .ivs
        .iter()
        .any(|iv| iv.slot == slot && iv.step == Step::Const(1));
    (counts && bound as i32 != i32::MIN).then_some(Rotation {
        slot,
        latch: latch.offset,
    })
}

/// The body of `lp` in code order: each instruction with its position in
/// `info` (the body's offsets are sorted, and so are `info`'s).
fn body<'i>(
    info: &'i FunctionInfo,
    lp: &'i CountedLoop,
) -> impl Iterator<Item = (usize, &'i InstrInfo)> + 'i {
    lp.body.iter().filter_map(move |&o| {
        let n = info.instrs.binary_search_by_key(&o, |i| i.offset).ok()?;
        Some((n, &info.instrs[n]))
    })
}

/// The state of a counted loop's fast copy: fuel is
/// charged without tests, depth tests are left out, and the proven
/// accesses skip their bounds checks.
pub(super) struct Fast {
    /// The copy's block for each leader of the loop body, by offset.
    pub(super) blocks: HashMap<u32, Block>,
    /// Offsets of the accesses whose bounds the guard proved.
    pub(super) proven: HashSet<u32>,
    /// Whether every edge back to the header is a charged jump, each
    /// charging the same. The copy then charges that at the top of the
    /// header instead of on the edge (the guard adds as much for the
    /// entry), so a back edge is a plain branch.
    pub(super) charged: bool,
    /// A counter the copy increments at the top of the header instead of
    /// at its latch ([`Rotation`]).
    pub(super) rotated: Option<Rotation>,
    /// The loop header's offset.
    pub(super) header: u32,
    /// Where this copy's edges back to the header go: the next copy's
    /// header when the loop is unrolled (the copies form a ring), else its
    /// own.
    pub(super) back_to: Block,
}

/// A rotated loop counter in a fast copy. The loop's only back edge is an
/// `inc.jlt.li` on a counter the guard proved not to wrap. The copy passes
/// the counter's old value back to the header, which adds the one, and the
/// latch tests `old < bound - 1` (the same as `old + 1 < bound` without
/// wrapping); the loop's exit adds the one itself, and the guard's entry
/// into the copy passes the counter less one. So no value of the counter
/// outlives its successor and the back edge needs no register copy.
#[derive(Copy, Clone, Debug)]
pub(super) struct Rotation {
    /// The counter's frame slot.
    pub(super) slot: u32,
    /// Offset of the latch (the `inc.jlt.li`).
    pub(super) latch: u32,
}

impl Fast {
    /// The header's offset when the copy charges its back edges there.
    pub(super) fn charged_header(&self) -> Option<u32> {
        self.charged.then_some(self.header)
    }
}

impl Lower<'_, '_> {
    /// Fills the guard of every counted loop of the current frame and
    /// lowers the loop's fast copy, unrolled when small.
    pub(super) fn counted_copies(&mut self) {
        let info = self.info;
        let loops = self.loops;
        for lp in loops {
            let (Some(&(_, guard)), Some(&ordinary)) =
                (self.guards.get(&lp.header), self.blocks.get(&lp.header))
            else {
                continue;
            };
            let charged_header = lp.back_edges_charged.then_some(lp.header);
            let rotated = charged_header.and_then(|_| rotation(info, lp));
            let unroll = lp.fast_copies();
            let copies: Vec<HashMap<u32, Block>> = (0..unroll)
                .map(|_| {
                    lp.body
                        .iter()
                        .filter(|o| self.blocks.contains_key(o))
                        .map(|&o| (o, self.b.create_block()))
                        .collect()
                })
                .collect();
            let headers: Vec<Block> = copies
                .iter()
                .filter_map(|c| c.get(&lp.header).copied())
                .collect();
            let Some(&fast_header) = headers.first() else {
                continue;
            };
            self.b.switch_to_block(guard);
            self.known.clear();
            let ok = guard::guard(self, lp);
            self.count_entry(ok);
            if charged_header.is_some() {
                let entry = self.b.create_block();
                self.b.ins().brif(ok, entry, &[], ordinary, &[]);
                self.b.switch_to_block(entry);
                // The header charges a back edge's fuel; the entry is no
                // back edge. (Wrapping: i64::MAX + c - c is i64::MAX again;
                // a back edge charges far less than 2^63.)
                // (Code without fuel checks charges nothing at the header.)
                if self.env.checks.fuel {
                    let fuel = self.b.use_var(self.fuel);
                    let c = i64::try_from(lp.back_edge_fuel).unwrap_or(i64::MAX);
                    let more = self.b.ins().iadd_imm_s(fuel, c);
                    self.fuel_dynamic();
                    self.b.def_var(self.fuel, more);
                }
                if let Some(r) = rotated {
                    // The header adds the one back (wrapping both ways).
                    let v = self.slot(r.slot);
                    let before = self.b.ins().iadd_imm_s(v, -1);
                    self.set_slot(r.slot, before);
                }
                self.b.ins().jump(fast_header, &[]);
            } else {
                self.b.ins().brif(ok, fast_header, &[], ordinary, &[]);
            }
            for (copy, blocks) in copies.into_iter().enumerate() {
                self.open = false;
                self.fast = Some(Fast {
                    blocks,
                    proven: lp.accesses.iter().map(|a| a.offset).collect(),
                    charged: charged_header.is_some(),
                    rotated,
                    header: lp.header,
                    back_to: headers[(copy + 1) % headers.len()],
                });
                self.fast_copy(lp);
            }
            self.fast = None;
        }
    }

    /// Lowers one copy of a counted loop's body for the fast path (the
    /// state in `self.fast`).
    pub(super) fn fast_copy(&mut self, lp: &CountedLoop) {
        let info = self.info;
        let instrs = &info.instrs;
        let (charged_header, rotated) = match &self.fast {
            Some(f) => (f.charged_header(), f.rotated),
            None => return,
        };
        let back_edge_fuel = lp.back_edge_fuel;
        for (n, i) in body(info, lp) {
            let Some(depth) = i.depth else { continue };
            let leader = self
                .fast
                .as_ref()
                .and_then(|f| f.blocks.get(&i.offset))
                .copied();
            if let Some(block) = leader {
                if self.open {
                    self.b.ins().jump(block, &[]);
                }
                self.enter(block);
                if charged_header == Some(i.offset) {
                    self.charge_n(back_edge_fuel, i.offset);
                    if let Some(r) = rotated {
                        let v = self.slot(r.slot);
                        let now = self.b.ins().iadd_imm_s(v, 1);
                        self.set_slot(r.slot, now);
                    }
                }
            } else {
                self.reopen();
            }
            let next = next_reachable(instrs, n);
            self.instr(i.offset, i.instr, depth, next);
            // A fall-through out of the loop (a for-in step that found
            // an element, when its exit is the back edge): continue in
            // the ordinary code.
            if self.open && !next.is_some_and(|n| lp.contains(n)) {
                match next {
                    Some(n) => {
                        let to = self.target_block(i.offset, n);
                        self.b.ins().jump(to, &[]);
                        self.open = false;
                    }
                    None => {
                        // Verified code never falls off the end.
                        let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
                        self.ret_status(status);
                    }
                }
            }
        }
        if self.open {
            // Every body instruction's fall-through is handled above.
            let status = self.b.ins().iconst(types::I64, STATUS_TRAP);
            self.ret_status(status);
        }
    }

    /// Counts a counted loop's entry in the context: as fast when `ok`
    /// is set, else as checked.
    pub(super) fn count_entry(&mut self, ok: Value) {
        let flags = trusted();
        let one = self.b.ins().uextend(types::I64, ok);
        let fast = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, offsets::LOOPS_FAST);
        let fast = self.b.ins().iadd(fast, one);
        self.b
            .ins()
            .store(flags, fast, self.ctx, offsets::LOOPS_FAST);
        let checked = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, offsets::LOOPS_CHECKED);
        let checked = self.b.ins().iadd_imm_s(checked, 1);
        let checked = self.b.ins().isub(checked, one);
        self.b
            .ins()
            .store(flags, checked, self.ctx, offsets::LOOPS_CHECKED);
    }

    /// The slot count (an `i32`) of a list (for the loop guards).
    pub(super) fn list_slot_count(&mut self, r: ListRef) -> Value {
        match r {
            ListRef::Module(l) => {
                let slots = self.env.initial.lists[l as usize].slots;
                self.b.ins().iconst(types::I32, i64::from(slots))
            }
            ListRef::Param(p) => {
                let r = self.slot(p);
                self.slice_of(r).1
            }
        }
    }

    /// Whether the access at `offset` runs in a fast copy whose guard
    /// proved it in bounds.
    pub(super) fn proven(&self, offset: u32) -> bool {
        self.fast
            .as_ref()
            .is_some_and(|f| f.proven.contains(&offset))
    }

    /// Whether the instruction at `offset` is the latch of a rotated
    /// counter in the fast copy being lowered.
    pub(super) fn rotated_latch(&self, offset: u32) -> bool {
        self.fast
            .as_ref()
            .and_then(|f| f.rotated)
            .is_some_and(|r| r.latch == offset)
    }
}
