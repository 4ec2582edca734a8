//! Memory and lists in the lowering: globals, list elements with their
//! bounds checks (left out where a constant index or a counted loop's
//! guard proves them), the list table, for-in steps, and the stack slot
//! for intrinsic arguments.

use super::{invariant, trusted, Lower, PTR};
use crate::analysis::deferred::Order;
use crate::context::{offsets, trap};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, Block, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cvm::intrinsics::MAX_PARAMS;
use cvm::runtime::ListSlice;

impl Lower<'_, '_> {
    pub(super) fn global_addr(&mut self, g: u32) -> (Value, i32) {
        (self.globals, (g as i32).wrapping_mul(4))
    }

    /// The address of element `idx` of module list `list`, bounds-checked
    /// (a bounds error at `offset`).
    pub(super) fn list_elem(
        &mut self,
        list: u32,
        idx: Value,
        known: Option<i32>,
        offset: u32,
    ) -> Value {
        let ListSlice { base, slots } = self.env.initial.lists[list as usize];
        match known {
            Some(k) if (k as u32) < slots => {
                let _ = idx;
                let at = self
                    .b
                    .ins()
                    .iadd_imm_s(self.heap, i64::from(base + k as u32) * 4);
                at
            }
            _ => {
                if self.env.checks.bounds && !self.proven(offset) {
                    let out = self.b.ins().icmp_imm_s(
                        IntCC::UnsignedGreaterThanOrEqual,
                        idx,
                        i64::from(slots),
                    );
                    let s = self.b.ins().iconst(types::I32, i64::from(slots));
                    self.trap_if(out, Some(trap::LIST_INDEX), offset, Some(idx), Some(s));
                }
                let wide = self.b.ins().uextend(PTR, idx);
                let bytes = self.b.ins().ishl_imm_u(wide, 2);
                let at = self.b.ins().iadd(self.heap, bytes);
                self.b.ins().iadd_imm_s(at, i64::from(base) * 4)
            }
        }
    }

    /// Writes the squares of the 64-bit set `set` into module list `list`,
    /// ascending, then the end marker, as a `Get` intrinsic fills its
    /// list: a loop in the function's code, one lowest set bit a turn. The
    /// caller has checked that they fit (the set's count below the list's
    /// slot count).
    pub(crate) fn fill_squares(&mut self, list: u32, set: Value) {
        let ListSlice { base, .. } = self.env.initial.lists[list as usize];
        let start = self.b.ins().iadd_imm_s(self.heap, i64::from(base) * 4);
        let head = self.b.create_block();
        let body = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        self.b.append_block_param(head, PTR);
        self.b.append_block_param(done, PTR);
        self.b.ins().jump(head, &[set.into(), start.into()]);
        self.b.switch_to_block(head);
        let (rest, at) = {
            let params = self.b.block_params(head);
            (params[0], params[1])
        };
        self.b.ins().brif(rest, body, &[], done, &[at.into()]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
        let square = self.b.ins().ctz(rest);
        let square = self.b.ins().ireduce(types::I32, square);
        self.b.ins().store(trusted(), square, at, 0);
        let lower = self.b.ins().iadd_imm_s(rest, -1);
        let next = self.b.ins().band(rest, lower);
        let after = self.b.ins().iadd_imm_s(at, 4);
        self.b.ins().jump(head, &[next.into(), after.into()]);
        self.b.seal_block(head);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        let at = self.b.block_params(done)[0];
        let end = self
            .b
            .ins()
            .iconst(types::I32, i64::from(cvm::runtime::LIST_END));
        self.b.ins().store(trusted(), end, at, 0);
    }

    /// The board's bitboard of `colour`'s pieces of `kind`, read where the
    /// context's board pointer points. A program that calls no host
    /// service keeps one board pointer for the whole run: it is loaded once,
    /// in the entry block (so that it dominates every use, on-stack
    /// replacement entries included), when the function first reads the
    /// board; a function that reads none loads nothing. Otherwise a host
    /// service may change the pointer (`Context::board`), and each read
    /// loads it with the word.
    pub(crate) fn board_word(&mut self, colour: usize, kind: usize) -> Value {
        let board = if self.env.host_calls {
            self.b.ins().load(PTR, trusted(), self.ctx, offsets::BOARD)
        } else if let Some(board) = self.board {
            board
        } else {
            // After the context loads that start the entry block.
            let last = self.b.func.dfg.value_def(self.lists).unwrap_inst();
            let mut entry = FuncCursor::new(self.b.func).after_inst(last);
            let board = entry.ins().load(PTR, trusted(), self.ctx, offsets::BOARD);
            self.board = Some(board);
            board
        };
        self.b
            .ins()
            .load(types::I64, trusted(), board, offsets::piece(colour, kind))
    }

    /// A square-set fill of deferred list `list` (slot `slot` of the
    /// waiting-fill record, `crate::deferred`) in `order`: records the set
    /// `set` and its count `n` instead of writing the squares. A fill still
    /// waiting with more squares than `n` is written first (cold path), so
    /// that the slots past the new fill's end marker hold what they would
    /// have held. For a list that some fill writes descending, the order is
    /// recorded with the set and the shim writes the waiting fill (it knows
    /// the order); for every other list the cold path writes it, ascending.
    pub(crate) fn defer_fill(
        &mut self,
        list: u32,
        slot: usize,
        set: Value,
        n: Value,
        order: Order,
    ) {
        use crate::deferred::offsets::{ANY, COUNT, DESCENDING, FILL_SIZE, SET, WRITTEN};
        let mixed = crate::analysis::deferred::fills_descending(self.env.infos, list);
        let at = slot as i32 * FILL_SIZE;
        let record = self
            .b
            .ins()
            .load(PTR, invariant(), self.ctx, offsets::PENDING);
        let before = self.b.ins().load(types::I32, trusted(), record, at + COUNT);
        let longer = self.b.ins().icmp(IntCC::SignedGreaterThan, before, n);
        let flush = self.b.create_block();
        let record_it = self.b.create_block();
        self.b.ins().brif(longer, flush, &[], record_it, &[]);
        self.b.switch_to_block(flush);
        self.b.seal_block(flush);
        self.b.set_cold_block(flush);
        if mixed {
            let slot_number = self.b.ins().iconst(types::I32, slot as i64);
            self.b
                .ins()
                .call(self.env.flush_fill, &[self.ctx, slot_number]);
        } else {
            // Ascending, as every fill of this list: written inline, which
            // leaves the registers of the hot path alone.
            let waiting = self.b.ins().load(types::I64, trusted(), record, at + SET);
            self.fill_squares(list, waiting);
            let one = self.b.ins().iconst(types::I32, 1);
            self.b.ins().store(trusted(), one, record, WRITTEN);
        }
        self.b.ins().jump(record_it, &[]);
        self.b.switch_to_block(record_it);
        self.b.seal_block(record_it);
        self.b.ins().store(trusted(), set, record, at + SET);
        self.b.ins().store(trusted(), n, record, at + COUNT);
        if mixed {
            let way = i64::from(order == Order::Descending);
            let way = self.b.ins().iconst(types::I32, way);
            self.b.ins().store(trusted(), way, record, at + DESCENDING);
        }
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().store(trusted(), one, record, ANY);
    }

    /// The address of element `idx` of the list referenced by `r` (a list
    /// index, valid by verification), bounds-checked.
    pub(super) fn ref_elem(
        &mut self,
        r: Value,
        r_known: Option<i32>,
        idx: Value,
        idx_known: Option<i32>,
        offset: u32,
    ) -> Value {
        if let Some(list) = r_known {
            return self.list_elem(list as u32, idx, idx_known, offset);
        }
        let (base, slots) = self.slice_of(r);
        if self.env.checks.bounds && !self.proven(offset) {
            let out = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, idx, slots);
            self.trap_if(out, Some(trap::LIST_INDEX), offset, Some(idx), Some(slots));
        }
        self.heap_addr(base, idx)
    }

    /// Base and slot count of the list referenced by `r`.
    pub(super) fn slice_of(&mut self, r: Value) -> (Value, Value) {
        let wide = self.b.ins().uextend(PTR, r);
        let scaled = self.b.ins().imul_imm_s(wide, offsets::SLICE_SIZE);
        let entry = self.b.ins().iadd(self.lists, scaled);
        let base = self
            .b
            .ins()
            .load(types::I32, invariant(), entry, offsets::SLICE_BASE);
        let slots = self
            .b
            .ins()
            .load(types::I32, invariant(), entry, offsets::SLICE_SLOTS);
        (base, slots)
    }

    pub(super) fn heap_addr(&mut self, base: Value, idx: Value) -> Value {
        let base = self.b.ins().uextend(PTR, base);
        let idx = self.b.ins().uextend(PTR, idx);
        let at = self.b.ins().iadd(base, idx);
        let bytes = self.b.ins().ishl_imm_u(at, 2);
        self.b.ins().iadd(self.heap, bytes)
    }

    /// One for-in step, with the list (`base`, `slots`) and the cursor:
    /// branches to `exit` when the cursor is not below the slot count
    /// (unsigned) or the element there is the end marker -1; otherwise
    /// continues in a fresh block and returns the element.
    pub(super) fn for_elem(
        &mut self,
        base: Value,
        slots: Value,
        cursor: Value,
        exit: Block,
    ) -> Value {
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, cursor, slots);
        let load = self.b.create_block();
        self.b.ins().brif(inside, load, &[], exit, &[]);
        self.b.switch_to_block(load);
        let addr = self.heap_addr(base, cursor);
        let elem = self.b.ins().load(types::I32, trusted(), addr, 0);
        let end = self.b.ins().icmp_imm_s(IntCC::Equal, elem, -1);
        let cont = self.b.create_block();
        self.b.ins().brif(end, exit, &[], cont, &[]);
        self.flush();
        self.b.switch_to_block(cont);
        self.open = true;
        elem
    }

    /// A for-in step (`forl`, `forx`) over the list (`base`, `slots`) with
    /// the cursor in `cursor_slot`: with an element, push it and advance
    /// the cursor; without, jump to `target`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_step(
        &mut self,
        base: Value,
        slots: Value,
        cursor_slot: u32,
        d: u32,
        offset: u32,
        target: u32,
    ) {
        let cursor = self.slot(cursor_slot);
        let exit = self.edge(offset, target);
        let elem = self.for_elem(base, slots, cursor, exit);
        self.set(d, elem);
        let next = self.b.ins().iadd_imm_s(cursor, 1);
        self.set_slot(cursor_slot, next);
    }

    /// An inverted for-in step (`forl.b`, `forx.b`): with an element, push
    /// it, advance the cursor and jump to `target`; without, fall through.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_step_back(
        &mut self,
        base: Value,
        slots: Value,
        cursor_slot: u32,
        d: u32,
        offset: u32,
        target: u32,
        next: Option<u32>,
    ) {
        let cursor = self.slot(cursor_slot);
        let fall = match next {
            Some(n) => self.target_block(offset, n),
            None => self.b.create_block(),
        };
        let elem = self.for_elem(base, slots, cursor, fall);
        self.set(d, elem);
        let advanced = self.b.ins().iadd_imm_s(cursor, 1);
        self.set_slot(cursor_slot, advanced);
        self.jump(offset, target);
    }

    /// The stack slot holding intrinsic arguments, created on first use.
    pub(crate) fn args_slot(&mut self) -> StackSlot {
        match self.args_slot {
            Some(s) => s,
            None => {
                let s = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    (MAX_PARAMS * 4) as u32,
                    2,
                ));
                self.args_slot = Some(s);
                s
            }
        }
    }
}
