//! Advice intrinsics as native code: `SetSqrs` of a piece known when
//! compiling, on a list whose squares are a bitboard (the waiting fill of
//! a deferred list, `crate::deferred`, or a constant list of distinct
//! concrete squares), writes the advice table's square bonuses itself
//! (a loop over the squares) instead of calling the intrinsic shim.
//!
//! What the Rust intrinsic does on such a list
//! ([`cvm::intrinsics::invoke_on_squares`]) is kept exactly: the cost
//! (base and terms over the number of squares, charged before anything is
//! written; out of fuel, nothing is), one saturating addition of the bonus
//! per selected piece and square (`AdviceTable::add_square`), and the rows
//! written recorded in `AdviceTable::written` when a square is written. A
//! deferred list with no fill waiting (its squares are in memory) takes
//! the shim, as before.

use super::{trusted, Lower, PTR};
use crate::context::offsets;
use crate::deferred::NONE;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cvm::intrinsics::{SquaresWork, INTRINSICS};
use cvm_chess::advice_table::{AdviceTable, Written};
use std::mem::offset_of;

/// At most this many (colour, kind) pairs are written inline (`?R`, `?K`,
/// one colour's two kinds); a piece that selects more takes the shim.
const MAX_PAIRS: usize = 4;

/// The shape of an inline `SetSqrs`: what is known when compiling.
struct Shape {
    /// The (colour, kind) pairs the piece selects.
    pairs: Vec<(usize, usize)>,
    /// The cost's base and, per term, its work on `n` squares, its
    /// multiplier and the term itself.
    base: u64,
    terms: Vec<(SquaresWork, u64, cvm::intrinsics::Term)>,
}

impl Shape {
    /// The fuel on `n` squares in a list of `slots` slots, computed now.
    fn cost(&self, n: u64, slots: u64) -> u64 {
        self.terms
            .iter()
            .fold(self.base, |total, &(work, per, term)| {
                total.saturating_add(term.charge(work.on(n, slots), per))
            })
    }

    /// The rows of `AdviceTable::written` the pairs write.
    fn rows(&self) -> u32 {
        self.pairs.iter().fold(0, |m, &(c, k)| m | 1 << (c * 6 + k))
    }
}

/// The byte offset of `square_bonus[colour][kind][0]` in the table.
fn row_offset(colour: usize, kind: usize) -> i32 {
    (offset_of!(AdviceTable, square_bonus) + (colour * 6 + kind) * 64 * 4) as i32
}

/// The byte offset of `written.squares` in the table.
const WRITTEN_SQUARES: i32 =
    (offset_of!(AdviceTable, written) + offset_of!(Written, squares)) as i32;

impl Lower<'_, '_> {
    /// `SetSqrs(piece, bonus, squares)` as native code, its arguments the
    /// stack slots from `base` up, when the piece is known and the list is
    /// a deferred one or a constant list of distinct concrete squares.
    /// Returns whether it was compiled (nothing is emitted otherwise).
    pub(super) fn set_sqrs_inline(&mut self, id: u32, base: u32, offset: u32) -> bool {
        let Some(shape) = self.set_sqrs_shape(id, base) else {
            return false;
        };
        let Some(list) = self.known(base + 2).and_then(|l| u32::try_from(l).ok()) else {
            return false;
        };
        let Some(slots) = self
            .env
            .initial
            .lists
            .get(list as usize)
            .map(|l| u64::from(l.slots))
        else {
            return false;
        };
        if let Some(slot) = self.env.deferred.iter().position(|&d| d == list) {
            self.set_sqrs_deferred(id, base, offset, &shape, slot, slots);
            return true;
        }
        let Some((set, n)) = self.constant_squares(list) else {
            return false;
        };
        self.charge_n(shape.cost(u64::from(n), slots), offset);
        if n == 0 || shape.pairs.is_empty() {
            return true;
        }
        let bonus = self.get(base + 1);
        let table = self.advice_table();
        let set = self.b.ins().iconst(types::I64, set as i64);
        self.add_to_squares(table, set, &shape.pairs, bonus);
        let written = self
            .b
            .ins()
            .load(types::I32, trusted(), table, WRITTEN_SQUARES);
        let written = self.b.ins().bor_imm_u(written, i64::from(shape.rows()));
        self.b
            .ins()
            .store(trusted(), written, table, WRITTEN_SQUARES);
        true
    }

    /// What is known of a `SetSqrs` call when compiling: `None` unless it
    /// is `SetSqrs` with a known piece selecting at most [`MAX_PAIRS`]
    /// pairs and every cost term is work on the squares with a multiplier
    /// that does not depend on verbose mode.
    fn set_sqrs_shape(&self, id: u32, base: u32) -> Option<Shape> {
        let info = INTRINSICS.get(id as usize)?;
        if info.name != "SetSqrs" || !cvm::intrinsics::reads_square_set(id) {
            return None;
        }
        let piece = self.known(base)?;
        let pairs: Vec<(usize, usize)> = cvm_chess::advice::piece_list(piece).collect();
        if pairs.len() > MAX_PAIRS {
            return None;
        }
        let mut terms = Vec::new();
        for &term in info.cost.terms {
            let work = SquaresWork::of(term.work)?;
            // `SetSqrs` has no colour argument: it reads as 0.
            let per = term.per.exact(0, piece, false);
            if per != term.per.exact(0, piece, true) {
                return None;
            }
            terms.push((work, per, term));
        }
        Some(Shape {
            pairs,
            base: u64::from(info.cost.base.max(1)),
            terms,
        })
    }

    /// The squares of constant list `list` and their number, when its
    /// elements are distinct concrete squares.
    fn constant_squares(&self, list: u32) -> Option<(u64, u32)> {
        self.env.constant_elements.get(list as usize)?.as_ref()?;
        let slots = self.env.initial.list(list);
        let elements = slots
            .iter()
            .position(|&v| v == cvm::runtime::LIST_END)
            .map_or(slots, |end| &slots[..end]);
        let mut set = 0u64;
        for &e in elements {
            let square = cvm_chess::sets::concrete_square(e)?;
            if set & (1 << square) != 0 {
                return None;
            }
            set |= 1 << square;
        }
        Some((set, u32::try_from(elements.len()).ok()?))
    }

    /// `SetSqrs` on deferred list slot `slot`: with a fill waiting, its set
    /// written inline; without one, the shim reads the list from memory.
    fn set_sqrs_deferred(
        &mut self,
        id: u32,
        base: u32,
        offset: u32,
        shape: &Shape,
        slot: usize,
        slots: u64,
    ) {
        use crate::deferred::offsets::{COUNT, FILL_SIZE, SET};
        let at = slot as i32 * FILL_SIZE;
        let record = self
            .b
            .ins()
            .load(PTR, super::invariant(), self.ctx, offsets::PENDING);
        let count = self.b.ins().load(types::I32, trusted(), record, at + COUNT);
        let none = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, count, i64::from(NONE));
        let (shim, inline, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(none, shim, &[], inline, &[]);
        self.b.switch_to_block(shim);
        self.b.seal_block(shim);
        self.b.set_cold_block(shim);
        self.intrinsic_shim(id, base, offset);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(inline);
        self.b.seal_block(inline);
        let set = self.b.ins().load(types::I64, trusted(), record, at + SET);
        let n = self.b.ins().uextend(types::I64, count);
        let cost = self.cost_value(shape, n, slots);
        self.charge_value(cost, offset);
        if !shape.pairs.is_empty() {
            let bonus = self.get(base + 1);
            let table = self.advice_table();
            self.add_to_squares(table, set, &shape.pairs, bonus);
            // The rows are written when a square is.
            let rows = self.b.ins().iconst(types::I32, i64::from(shape.rows()));
            let zero = self.b.ins().iconst(types::I32, 0);
            let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, count, 0);
            let rows = self.b.ins().select(any, rows, zero);
            let written = self
                .b
                .ins()
                .load(types::I32, trusted(), table, WRITTEN_SQUARES);
            let written = self.b.ins().bor(written, rows);
            self.b
                .ins()
                .store(trusted(), written, table, WRITTEN_SQUARES);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        self.open = true;
    }

    /// The shape's cost on `n` squares (an `i64`) in a list of `slots`
    /// slots, as IR.
    fn cost_value(&mut self, shape: &Shape, n: Value, slots: u64) -> Value {
        let mut total = self.b.ins().iconst(types::I64, shape.base as i64);
        for &(work, per, term) in &shape.terms {
            let w = match work {
                SquaresWork::Fixed(k) => self.b.ins().iconst(types::I64, k as i64),
                SquaresWork::Count => n,
                // A waiting fill's squares leave room for its end marker
                // (the `Get` form that made it checked that they fit), so
                // the minimum with the list's slots never binds here.
                SquaresWork::CountAndEnd => self.b.ins().iadd_imm_s(n, 1),
                fixed @ SquaresWork::OutSlots(_) => {
                    self.b.ins().iconst(types::I64, fixed.on(0, slots) as i64)
                }
            };
            // At most 65 squares times 12 pieces times a small unit: no
            // product comes near overflowing.
            let times = self.b.ins().imul_imm_s(w, per as i64);
            let shifted = self
                .b
                .ins()
                .ushr_imm_u(times, i64::from(term.of.trailing_zeros()));
            let charge = self.b.ins().imul_imm_s(shifted, i64::from(term.units));
            total = self.b.ins().iadd(total, charge);
        }
        total
    }

    /// Charges `cost` units (an `i64` computed at run time), or stops with
    /// out-of-fuel at `offset` (taking nothing) when fewer are left.
    fn charge_value(&mut self, cost: Value, offset: u32) {
        if !self.env.checks.fuel {
            return;
        }
        let fuel = self.b.use_var(self.fuel);
        let short = self.b.ins().icmp(IntCC::UnsignedLessThan, fuel, cost);
        self.trap_if(
            short,
            Some(crate::context::trap::OUT_OF_FUEL),
            offset,
            None,
            None,
        );
        let left = self.b.ins().isub(fuel, cost);
        self.fuel_dynamic();
        self.b.def_var(self.fuel, left);
    }

    /// The run's advice table.
    fn advice_table(&mut self) -> Value {
        self.b
            .ins()
            .load(PTR, super::invariant(), self.ctx, offsets::ADVICE)
    }

    /// Adds `bonus` to every pair's entry of every square of `set`: a loop
    /// in the function's code, one lowest square a turn.
    fn add_to_squares(&mut self, table: Value, set: Value, pairs: &[(usize, usize)], bonus: Value) {
        let wide = self.b.ins().sextend(types::I64, bonus);
        let limits = (
            self.b.ins().iconst(types::I64, i64::from(i32::MAX)),
            self.b.ins().iconst(types::I64, i64::from(i32::MIN)),
        );
        let head = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        self.b.ins().jump(head, &[set.into()]);
        self.b.switch_to_block(head);
        let rest = self.b.block_params(head)[0];
        self.b.ins().brif(rest, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
        let square = self.b.ins().ctz(rest);
        let bytes = self.b.ins().ishl_imm_u(square, 2);
        let at = self.b.ins().iadd(table, bytes);
        for &(c, k) in pairs {
            self.add_bonus(at, row_offset(c, k), wide, limits);
        }
        let lower = self.b.ins().iadd_imm_s(rest, -1);
        let next = self.b.ins().band(rest, lower);
        self.b.ins().jump(head, &[next.into()]);
        self.b.seal_block(head);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
    }

    /// `*(addr + at) = saturating(*(addr + at) + bonus)`, the `i32` entry
    /// of `AdviceTable::add_square`, with the bonus widened to 64 bits and
    /// the `i32` limits as 64-bit values.
    fn add_bonus(&mut self, addr: Value, at: i32, bonus: Value, (max, min): (Value, Value)) {
        let old = self.b.ins().load(types::I32, trusted(), addr, at);
        let wide = self.b.ins().sextend(types::I64, old);
        let sum = self.b.ins().iadd(wide, bonus);
        let sum = self.b.ins().smin(sum, max);
        let sum = self.b.ins().smax(sum, min);
        let new = self.b.ins().ireduce(types::I32, sum);
        self.b.ins().store(trusted(), new, addr, at);
    }
}
