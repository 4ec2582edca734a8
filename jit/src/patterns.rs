//! Native patterns: chess pattern intrinsics as native bitboard code.
//!
//! Che++ advice programs are mostly pattern tests on literal square lists:
//! `PcOnSqrs(wP, c3 d4 e3)` compiles to `push wP; lref L; intr PcOnSqrs`
//! with `L` a module list nobody writes. The interpreter calls the Rust
//! intrinsic, which decodes the piece, walks the list and decodes every
//! square value on every call. When the compiler can prove the list
//! constant ([`crate::analysis`]) and sees the other arguments that select
//! the pattern (piece, colour, compoperator) as constants, it folds the
//! list into 64-bit masks at compile time ([`ListFold`], the same folding
//! the `cvm` pattern module documents for JIT use) and emits the test as a
//! few loads, `and`s, compares and `popcnt`s over the bitboards of the
//! board view in the run context:
//!
//! * `PcOnSqrs`, `orPcOnSqrs`, `CmpNrPcs`, `KingPos`, `orKingPos`,
//!   `POnLine`, `orPOnLine`: entirely native;
//! * `DblPwns`, `Passed`, `Control`, `ExchngCtrl` and their or-forms: the
//!   pattern's square set comes from one call of the Rust function in
//!   [`cvm_chess::pattern`] (attack generation and exchange evaluation are
//!   not worth duplicating), the list test is native;
//! * `NxtSqr`, `PrvSqr` of a constant: folded to the result;
//! * the `Get` intrinsics on a known list with a known colour or piece:
//!   the pattern's square set (bitboard code for `GetPcOnSqrs`,
//!   `GetPassed` and `GetControl` of pawns, knights and kings, the pattern
//!   shim for the others), a population count for the result, the list's
//!   overflow check, and the squares written into the list by a loop in
//!   the function's code.
//!
//! Every rule of the Rust intrinsics is kept: invalid arguments or
//! elements make both forms false, the and-form of an empty list is true
//! and the or-form false, counts compare with the compoperator's
//! semantics. Anything else (unknown arguments, variable lists) goes
//! through the intrinsic shim. The tests in
//! `jit/tests/patterns.rs` compare both ways on random boards.

use crate::analysis::deferred::{square_fill, Order};
use crate::context::offsets;
use crate::lower::Lower;
use crate::shims::pattern;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cvm::intrinsics::{cost_folded, cost_known, Arg, ParamKind, INTRINSICS};
use cvm_chess::board::kind;
use cvm_chess::lit;
use cvm_chess::pattern::ListFold;
use cvm_chess::sets::{self, FILE_A};

/// `CmpNrPcs` on a list of more distinct elements than this is called, not
/// compiled: it makes one test per element. (Every other native pattern
/// makes at most 18 tests, one per distinct wildcard and one for all the
/// concrete squares, or one per file.)
const MAX_COUNT_TESTS: usize = 16;

/// How a pattern combines its list elements.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Form {
    And,
    Or,
}

/// Tries to compile intrinsic `id`, whose arguments are the stack slots
/// from `base` up, as native code. Returns the result value (an `i32`; for
/// intrinsics without a result, any value) or `None` when it must be called.
pub(crate) fn try_native(l: &mut Lower<'_, '_>, id: u32, base: u32, offset: u32) -> Option<Value> {
    let name = INTRINSICS.get(id as usize)?.name;
    let form = if name.starts_with("or") {
        Form::Or
    } else {
        Form::And
    };
    match name {
        "GetPcOnSqrs" | "GetDblPwns" | "GetPassed" | "GetControl" | "GetExchngCtrl" => {
            get_form(l, id, base, offset)
        }
        "GetDwnSqrs" | "GetUpSqrs" | "GetLSqrs" | "GetRSqrs" => line_form(l, id, base, offset),
        "NxtSqr" | "PrvSqr" => {
            let v = l.known(base)?;
            pay(l, id, base, offset)?;
            let r = if name == "NxtSqr" {
                lit::next_square(v)
            } else {
                lit::prev_square(v)
            };
            Some(konst(l, r))
        }
        "PcOnSqrs" | "orPcOnSqrs" => {
            let piece = l.known(base)?;
            let els = constant_list(l, base + 1)?;
            pay(l, id, base, offset)?;
            let Some((cs, ks)) = sets::piece(piece) else {
                return Some(konst(l, 0));
            };
            let Some(fold) = ListFold::squares(els) else {
                return Some(konst(l, 0));
            };
            let set = pieces(l, cs, ks);
            Some(test_fold(l, set, &fold, form))
        }
        "DblPwns" | "orDblPwns" | "Passed" | "orPassed" | "ExchngCtrl" | "orExchngCtrl" => {
            let colour = l.known(base)?;
            let els = constant_list(l, base + 1)?;
            pay(l, id, base, offset)?;
            let (Some(_), Some(fold)) = (sets::colours(colour), ListFold::squares(els)) else {
                return Some(konst(l, 0));
            };
            let which = match name {
                "DblPwns" | "orDblPwns" => pattern::DOUBLED,
                "Passed" | "orPassed" => pattern::PASSED,
                _ => pattern::EXCHANGE,
            };
            let set = shim_set(l, which, colour, fold.union, offset);
            Some(test_fold(l, set, &fold, form))
        }
        "Control" | "orControl" => {
            let piece = l.known(base)?;
            let els = constant_list(l, base + 1)?;
            pay(l, id, base, offset)?;
            let (Some(_), Some(fold)) = (sets::piece(piece), ListFold::squares(els)) else {
                return Some(konst(l, 0));
            };
            let set = shim_set(l, pattern::CONTROL, piece, fold.union, offset);
            Some(test_fold(l, set, &fold, form))
        }
        "CmpNrPcs" => {
            let piece = l.known(base)?;
            let op = l.known(base + 1)?;
            let els = constant_list(l, base + 3)?;
            // One test per distinct element: a long list stays a call, so
            // the code of one instruction stays bounded. (Decided before
            // anything is charged: the call charges for itself.)
            if els.len() > MAX_COUNT_TESTS {
                return None;
            }
            pay(l, id, base, offset)?;
            let (Some((cs, ks)), Some(cc)) = (sets::piece(piece), compop(op)) else {
                return Some(konst(l, 0));
            };
            let Some(masks) = els
                .iter()
                .map(|&e| sets::square_set(e))
                .collect::<Option<Vec<u64>>>()
            else {
                return Some(konst(l, 0));
            };
            let n = l.get(base + 2);
            let set = pieces(l, cs, ks);
            let tests: Vec<Value> = dedup(masks)
                .into_iter()
                .map(|m| {
                    let count = count_in(l, set, m);
                    l.b.ins().icmp(cc, count, n)
                })
                .collect();
            Some(combine(l, &tests, Form::And))
        }
        "KingPos" | "orKingPos" => {
            let colour = l.known(base)?;
            let els = constant_list(l, base + 1)?;
            pay(l, id, base, offset)?;
            let Some(cs) = sets::colours(colour) else {
                return Some(konst(l, 0));
            };
            let Some(files) = els
                .iter()
                .map(|&e| sets::side_files(e))
                .collect::<Option<Vec<u8>>>()
            else {
                return Some(konst(l, 0));
            };
            let tests: Vec<Value> = dedup(files)
                .into_iter()
                .map(|f| king_inside(l, cs, sets::files_mask(f)))
                .collect();
            Some(combine(l, &tests, form))
        }
        "POnLine" | "orPOnLine" => {
            let colour = l.known(base)?;
            let op = l.known(base + 1)?;
            let els = constant_list(l, base + 3)?;
            pay(l, id, base, offset)?;
            let (Some(cs), Some(cc)) = (sets::colours(colour), compop(op)) else {
                return Some(konst(l, 0));
            };
            let Some(columns) = els
                .iter()
                .map(|&e| sets::column_files(e))
                .collect::<Option<Vec<u8>>>()
            else {
                return Some(konst(l, 0));
            };
            let n = l.get(base + 2);
            let pawns = pieces(l, cs, 1 << kind::PAWN);
            // One compare per file any element names, shared by elements.
            let used = columns.iter().fold(0u8, |acc, &f| acc | f);
            let mut per_file: [Option<Value>; 8] = [None; 8];
            for (f, slot) in per_file.iter_mut().enumerate() {
                if used & (1 << f) != 0 {
                    let count = count_in(l, pawns, FILE_A << f);
                    *slot = Some(l.b.ins().icmp(cc, count, n));
                }
            }
            let tests: Vec<Value> = dedup(columns)
                .into_iter()
                .map(|files| {
                    let hits: Vec<Value> = (0..8)
                        .filter(|f| files & (1 << f) != 0)
                        .filter_map(|f| per_file[f])
                        .collect();
                    combine_bool(l, &hits, Form::Or)
                })
                .collect();
            Some(combine(l, &tests, form))
        }
        _ => None,
    }
}

/// Tries to compile a folded pattern (`pat.all` when `any` is false,
/// `pat.any` otherwise) on intrinsic `id` natively: its scalar argument
/// (piece or colour, in stack slot `base`) must be known. The result
/// agrees with the intrinsic's folded form ([`cvm::intrinsics::Fold`]).
pub(crate) fn try_native_mask(
    l: &mut Lower<'_, '_>,
    id: u32,
    base: u32,
    mask: u64,
    any: bool,
    offset: u32,
) -> Option<Value> {
    let name = INTRINSICS.get(id as usize)?.name;
    let arg = l.known(base)?;
    if !matches!(
        name.trim_start_matches("or"),
        "PcOnSqrs" | "Control" | "DblPwns" | "Passed" | "ExchngCtrl"
    ) {
        return None;
    }
    // The folded form's cost, as the interpreter charges it.
    l.charge_n(cost_folded(id, arg, mask), offset);
    let fold = if any {
        ListFold {
            all: 0,
            any: vec![mask],
            union: mask,
        }
    } else {
        ListFold {
            all: mask,
            any: Vec::new(),
            union: mask,
        }
    };
    let set = match name.trim_start_matches("or") {
        "PcOnSqrs" => {
            let Some((cs, ks)) = sets::piece(arg) else {
                return Some(konst(l, 0));
            };
            pieces(l, cs, ks)
        }
        "Control" => {
            if sets::piece(arg).is_none() {
                return Some(konst(l, 0));
            }
            shim_set(l, pattern::CONTROL, arg, mask, offset)
        }
        family @ ("DblPwns" | "Passed" | "ExchngCtrl") => {
            if sets::colours(arg).is_none() {
                return Some(konst(l, 0));
            }
            let which = match family {
                "DblPwns" => pattern::DOUBLED,
                "Passed" => pattern::PASSED,
                _ => pattern::EXCHANGE,
            };
            shim_set(l, which, arg, mask, offset)
        }
        _ => return None,
    };
    Some(test_fold(l, set, &fold, Form::And))
}

/// `Get` intrinsic `id` (`GetPcOnSqrs`, `GetDblPwns`, `GetPassed`,
/// `GetControl`, `GetExchngCtrl`), whose arguments (the colour or piece,
/// then the list) are the stack slots from `base` up, as native code: the
/// pattern's square set (bitboard code for `GetPcOnSqrs`, `GetPassed` and
/// `GetControl` of pawns, knights and kings, the pattern shim for the
/// others), its population count, the list-overflow check the intrinsic
/// makes (failing before anything is written) and the squares written into
/// the list, ascending, with the end marker (or, for a list only `Get`
/// forms fill, the set recorded for writing later: `crate::deferred`). Needs the scalar argument and
/// the list (so its slots and the cost) known at compile time; `None`
/// (nothing emitted) otherwise, and the intrinsic is called.
fn get_form(l: &mut Lower<'_, '_>, id: u32, base: u32, offset: u32) -> Option<Value> {
    let info = INTRINSICS.get(id as usize)?;
    let arg = l.known(base)?;
    let list = u32::try_from(l.known(base + 1)?).ok()?;
    let slots = l.env.module.lists.get(list as usize)?.slots();
    let slots = u32::try_from(slots).ok()?;
    let which = match info.name {
        "GetPcOnSqrs" => None,
        "GetControl" => Some(pattern::CONTROL),
        "GetDblPwns" => Some(pattern::DOUBLED),
        "GetPassed" => Some(pattern::PASSED),
        "GetExchngCtrl" => Some(pattern::EXCHANGE),
        _ => return None,
    };
    pay(l, id, base, offset)?;
    let set = match which {
        None => sets::piece(arg).map(|(cs, ks)| pieces(l, cs, ks)),
        Some(pattern::CONTROL) => sets::piece(arg).map(|(cs, ks)| {
            leaper_control(l, cs, ks)
                .unwrap_or_else(|| shim_set(l, pattern::CONTROL, arg, u64::MAX, offset))
        }),
        Some(pattern::PASSED) => sets::colours(arg).map(|cs| passed(l, cs)),
        Some(kind) => sets::colours(arg).map(|_| shim_set(l, kind, arg, u64::MAX, offset)),
    };
    let set = set.unwrap_or_else(|| mask(l, 0));
    let n = l.b.ins().popcnt(set);
    let n = l.b.ins().ireduce(types::I32, n);
    // The `Get` form's check: the count and the end marker must fit (a
    // list of more than 64 slots holds any set of squares).
    if slots <= 64 {
        overflow_check(l, n, slots, offset);
    }
    match l.env.deferred.iter().position(|&d| d == list) {
        Some(slot) => l.defer_fill(list, slot, set, n, Order::Ascending),
        None => l.fill_squares(list, set),
    }
    Some(n)
}

/// A line walker (`GetDwnSqrs`, `GetUpSqrs`, `GetLSqrs`, `GetRSqrs`) whose
/// list's fills are deferred (`crate::deferred`): the squares from the
/// argument square to the edge of the board along its file or rank (none
/// for a value that is no concrete square) as a bitboard, their count for
/// the result, the list-overflow check the intrinsic makes, and the set
/// recorded with the order the intrinsic writes its squares in. Its cost
/// is a constant, charged first. `None` (nothing emitted) for a list that
/// is not deferred or not known at compile time, and the intrinsic is
/// called.
fn line_form(l: &mut Lower<'_, '_>, id: u32, base: u32, offset: u32) -> Option<Value> {
    let info = INTRINSICS.get(id as usize)?;
    let order = square_fill(id)?;
    let list = u32::try_from(l.known(base + 1)?).ok()?;
    let slot = l.env.deferred.iter().position(|&d| d == list)?;
    let slots = l.env.module.lists.get(list as usize)?.slots();
    let slots = u32::try_from(slots).ok()?;
    // Squares toward a1 (down the file, left along the rank) or toward h8,
    // the square itself included; along its file or its rank.
    let (toward_a1, file) = match info.name {
        "GetDwnSqrs" => (true, true),
        "GetUpSqrs" => (false, true),
        "GetLSqrs" => (true, false),
        "GetRSqrs" => (false, false),
        _ => return None,
    };
    pay(l, id, base, offset)?;
    let square = l.get(base);
    let concrete = l.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, square, 64);
    let wide = l.b.ins().uextend(types::I64, square);
    let at = l.b.ins().band_imm_u(wide, 63);
    let one = l.b.ins().iconst(types::I64, 1);
    let bit = l.b.ins().ishl(one, at);
    let below = l.b.ins().iadd_imm_s(bit, -1);
    let side = if toward_a1 {
        l.b.ins().bor(bit, below)
    } else {
        l.b.ins().bnot(below)
    };
    let line = if file {
        let column = l.b.ins().band_imm_u(at, 7);
        let file_a = l.b.ins().iconst(types::I64, FILE_A as i64);
        l.b.ins().ishl(file_a, column)
    } else {
        let row = l.b.ins().band_imm_u(at, 56);
        let rank_1 = l.b.ins().iconst(types::I64, 0xFF);
        l.b.ins().ishl(rank_1, row)
    };
    let set = l.b.ins().band(line, side);
    let none = mask(l, 0);
    let set = l.b.ins().select(concrete, set, none);
    let n = l.b.ins().popcnt(set);
    let n = l.b.ins().ireduce(types::I32, n);
    // At most eight squares: a list of more slots always has room.
    if slots <= 8 {
        overflow_check(l, n, slots, offset);
    }
    l.defer_fill(list, slot, set, n, order);
    Some(n)
}

/// A fill's list-overflow check: `n` squares and the end marker must fit
/// in the list's `slots`, or the call stops with `ListOverflow` (needed
/// `n`, capacity one slot less) before anything is written.
fn overflow_check(l: &mut Lower<'_, '_>, n: Value, slots: u32, offset: u32) {
    let full =
        l.b.ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, n, i64::from(slots));
    let capacity = konst(l, slots.saturating_sub(1) as i32);
    l.trap_if(
        full,
        Some(crate::context::trap::LIST_OVERFLOW),
        offset,
        Some(n),
        Some(capacity),
    );
}

/// Squares of no file but a: what a shift west may bring in from file h
/// must be cleared with this, and the mirror for file a.
const NOT_FILE_A: u64 = !FILE_A;
/// Every square but those of file h.
const NOT_FILE_H: u64 = !(FILE_A << 7);

/// `v` shifted toward h1..h8 by `n` files (and ranks for `n` >= 8 the
/// same way), as `v << n`; negative `n` shifts right.
fn shift(l: &mut Lower<'_, '_>, v: Value, n: i64) -> Value {
    if n >= 0 {
        l.b.ins().ishl_imm_u(v, n)
    } else {
        l.b.ins().ushr_imm_u(v, -n)
    }
}

fn and_mask(l: &mut Lower<'_, '_>, v: Value, m: u64) -> Value {
    let mv = mask(l, m);
    l.b.ins().band(v, mv)
}

/// The passed pawns of the colours `cs` (bit 0 white, bit 1 black) as
/// bitboard code: a pawn is passed when no enemy pawn stands in front of
/// it on its own or an adjacent file, which is when it lies outside the
/// enemy pawns' rear spans (filled toward the pawn's side, widened by a
/// file each way). The same set as [`cvm_chess::pattern::passed_pawns`].
fn passed(l: &mut Lower<'_, '_>, cs: u8) -> Value {
    let mut out: Option<Value> = None;
    for c in 0..2usize {
        if cs & (1 << c) == 0 {
            continue;
        }
        let own = pieces(l, 1u8 << c, 1u8 << kind::PAWN);
        let enemy = pieces(l, 1u8 << (c ^ 1), 1u8 << kind::PAWN);
        // White pawns are stopped by black pawns ahead, whose rear spans
        // run south; black ones by white pawns, spans running north.
        let dir: i64 = if c == 0 { -1 } else { 1 };
        let mut span = shift(l, enemy, 8 * dir);
        for n in [8, 16, 32] {
            let more = shift(l, span, n * dir);
            span = l.b.ins().bor(span, more);
        }
        let west = shift(l, span, -1);
        let west = and_mask(l, west, NOT_FILE_H);
        let east = shift(l, span, 1);
        let east = and_mask(l, east, NOT_FILE_A);
        let wide = l.b.ins().bor(span, west);
        let wide = l.b.ins().bor(wide, east);
        let set = l.b.ins().band_not(own, wide);
        out = Some(match out {
            Some(o) => l.b.ins().bor(o, set),
            None => set,
        });
    }
    out.unwrap_or_else(|| mask(l, 0))
}

/// The control set of the pieces of colours `cs` and kinds `ks` when every
/// kind is a leaper (pawn, knight, king) as bitboard shifts; `None` when a
/// slider is among them (their sets come from the pattern shim). The same
/// set as [`cvm_chess::pattern::control`].
fn leaper_control(l: &mut Lower<'_, '_>, cs: u8, ks: u8) -> Option<Value> {
    let leapers = 1u8 << kind::PAWN | 1u8 << kind::KNIGHT | 1u8 << kind::KING;
    if ks & !leapers != 0 {
        return None;
    }
    let mut out = mask(l, 0);
    for c in 0..2usize {
        if cs & (1 << c) == 0 {
            continue;
        }
        for k in [kind::PAWN, kind::KNIGHT, kind::KING] {
            if ks & (1 << k) == 0 {
                continue;
            }
            let b = pieces(l, 1u8 << c, 1u8 << k);
            let set = match k {
                kind::PAWN => {
                    // Captures forward: one rank up (white) or down
                    // (black) and a file to either side.
                    let (west, east) = if c == 0 { (7, 9) } else { (-9, -7) };
                    let w = shift(l, b, west);
                    let w = and_mask(l, w, NOT_FILE_H);
                    let e = shift(l, b, east);
                    let e = and_mask(l, e, NOT_FILE_A);
                    l.b.ins().bor(w, e)
                }
                kind::KNIGHT => {
                    let w1 = shift(l, b, -1);
                    let w1 = and_mask(l, w1, NOT_FILE_H);
                    let e1 = shift(l, b, 1);
                    let e1 = and_mask(l, e1, NOT_FILE_A);
                    let w2 = shift(l, b, -2);
                    let w2 = and_mask(l, w2, NOT_FILE_H & !(FILE_A << 6));
                    let e2 = shift(l, b, 2);
                    let e2 = and_mask(l, e2, NOT_FILE_A & !(FILE_A << 1));
                    let one = l.b.ins().bor(w1, e1);
                    let two = l.b.ins().bor(w2, e2);
                    let up2 = shift(l, one, 16);
                    let down2 = shift(l, one, -16);
                    let up1 = shift(l, two, 8);
                    let down1 = shift(l, two, -8);
                    let a = l.b.ins().bor(up2, down2);
                    let z = l.b.ins().bor(up1, down1);
                    l.b.ins().bor(a, z)
                }
                _ => {
                    let w = shift(l, b, -1);
                    let w = and_mask(l, w, NOT_FILE_H);
                    let e = shift(l, b, 1);
                    let e = and_mask(l, e, NOT_FILE_A);
                    let side = l.b.ins().bor(w, e);
                    let row = l.b.ins().bor(side, b);
                    let up = shift(l, row, 8);
                    let down = shift(l, row, -8);
                    let v = l.b.ins().bor(up, down);
                    l.b.ins().bor(v, side)
                }
            };
            out = l.b.ins().bor(out, set);
        }
    }
    Some(out)
}

/// Charges the cost of intrinsic `id` with its arguments in the stack
/// slots from `base` up, when it is known at compile time (the selector
/// arguments constants, the list constant); `None` (nothing emitted)
/// otherwise, and the call is left to the intrinsic shim, which charges it
/// at run time. The charge comes first, as in the interpreter: out of fuel,
/// nothing else happens.
pub(crate) fn pay(l: &mut Lower<'_, '_>, id: u32, base: u32, offset: u32) -> Option<()> {
    let env = l.env;
    let info = INTRINSICS.get(id as usize)?;
    let args: Vec<Arg<'_>> = (0..info.params.len() as u32)
        .map(
            |k| match (info.params[k as usize].kind, l.known(base + k)) {
                (ParamKind::List { .. }, Some(list)) => match u32::try_from(list) {
                    Ok(list)
                        if env
                            .constant_elements
                            .get(list as usize)
                            .is_some_and(Option::is_some) =>
                    {
                        Arg::List(env.initial.list(list))
                    }
                    // Another list's size is known: enough for a cost
                    // that does not read its contents.
                    Ok(list) => env
                        .module
                        .lists
                        .get(list as usize)
                        .and_then(|l| u32::try_from(l.slots()).ok())
                        .map_or(Arg::Unknown, Arg::Slots),
                    Err(_) => Arg::Unknown,
                },
                (ParamKind::List { .. }, None) | (_, None) => Arg::Unknown,
                (_, Some(v)) => Arg::Int(v),
            },
        )
        .collect();
    let cost = cost_known(id, &args)?;
    l.charge_n(cost, offset);
    Some(())
}

fn konst(l: &mut Lower<'_, '_>, v: i32) -> Value {
    l.b.ins().iconst(types::I32, i64::from(v))
}

/// The distinct elements of the list whose reference is in stack slot `k`,
/// when that is a constant list: the module's initial values before the
/// first end marker, each once ([`crate::analysis::constant_elements`]).
fn constant_list<'e>(l: &Lower<'e, '_>, k: u32) -> Option<&'e [i32]> {
    let list = usize::try_from(l.known(k)?).ok()?;
    l.env.constant_elements.get(list)?.as_deref()
}

/// The comparison of a compoperator value (`count op n`).
fn compop(op: i32) -> Option<IntCC> {
    Some(match op.wrapping_sub(lit::COMPOP_BASE) {
        0 => IntCC::Equal,
        1 => IntCC::NotEqual,
        2 => IntCC::SignedLessThan,
        3 => IntCC::SignedLessThanOrEqual,
        4 => IntCC::SignedGreaterThan,
        5 => IntCC::SignedGreaterThanOrEqual,
        _ => return None,
    })
}

/// Removes repeated values (the same element twice tests the same thing).
fn dedup<T: PartialEq + Copy>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The union of the board's bitboards of the given colours and kinds (bit
/// sets as in [`sets::piece`]).
fn pieces(l: &mut Lower<'_, '_>, colours: u8, kinds: u8) -> Value {
    let mut set: Option<Value> = None;
    for c in 0..2 {
        for k in 0..6 {
            if colours & (1 << c) != 0 && kinds & (1 << k) != 0 {
                let b = l.board_word(c, k);
                set = Some(match set {
                    Some(s) => l.b.ins().bor(s, b),
                    None => b,
                });
            }
        }
    }
    match set {
        Some(s) => s,
        None => l.b.ins().iconst(types::I64, 0),
    }
}

fn mask(l: &mut Lower<'_, '_>, m: u64) -> Value {
    l.b.ins().iconst(types::I64, m as i64)
}

/// The number of squares of `set` inside `m`, as an `i32`.
fn count_in(l: &mut Lower<'_, '_>, set: Value, m: u64) -> Value {
    let mv = mask(l, m);
    let inside = l.b.ins().band(set, mv);
    let count = l.b.ins().popcnt(inside);
    l.b.ins().ireduce(types::I32, count)
}

/// Whether every king of the colours stands inside `m` (a colour without
/// a king fails), as a boolean.
fn king_inside(l: &mut Lower<'_, '_>, colours: u8, m: u64) -> Value {
    let mut tests = Vec::new();
    for c in 0..2 {
        if colours & (1 << c) == 0 {
            continue;
        }
        let kings = l.board_word(c, kind::KING);
        let present = l.b.ins().icmp_imm_s(IntCC::NotEqual, kings, 0);
        let outside = mask(l, !m);
        let stray = l.b.ins().band(kings, outside);
        let none_outside = l.b.ins().icmp_imm_s(IntCC::Equal, stray, 0);
        tests.push(l.b.ins().band(present, none_outside));
    }
    combine_bool(l, &tests, Form::And)
}

/// The square set of a pattern computed by the pattern shim (exact on
/// the squares of `within`, the only ones the list tests).
fn shim_set(l: &mut Lower<'_, '_>, which: u32, arg: i32, within: u64, offset: u32) -> Value {
    let w = l.b.ins().iconst(types::I32, i64::from(which));
    let a = l.b.ins().iconst(types::I32, i64::from(arg));
    let m = mask(l, within);
    let call = l.b.ins().call(l.env.pattern, &[l.ctx, w, a, m]);
    let status = l.b.inst_results(call)[0];
    l.check_shim(status, offset);
    l.b.ins().load(
        types::I64,
        MemFlagsData::trusted().with_readonly(),
        l.ctx,
        offsets::SET_OUT,
    )
}

/// The and- or or-form of a square list folded into masks, tested against
/// the pattern's square set; an `i32` 1 or 0.
fn test_fold(l: &mut Lower<'_, '_>, set: Value, fold: &ListFold, form: Form) -> Value {
    let mut tests = Vec::new();
    match form {
        Form::And => {
            if fold.all.is_power_of_two() {
                // One square: holding it is the same as holding any of it,
                // a plain bit test.
                let all = mask(l, fold.all);
                let hit = l.b.ins().band(set, all);
                tests.push(l.b.ins().icmp_imm_s(IntCC::NotEqual, hit, 0));
            } else if fold.all != 0 {
                let all = mask(l, fold.all);
                let hit = l.b.ins().band(set, all);
                tests.push(l.b.ins().icmp(IntCC::Equal, hit, all));
            }
            for m in dedup(fold.any.clone()) {
                let mv = mask(l, m);
                let hit = l.b.ins().band(set, mv);
                tests.push(l.b.ins().icmp_imm_s(IntCC::NotEqual, hit, 0));
            }
        }
        Form::Or => {
            if fold.union == 0 {
                return konst(l, 0);
            }
            let u = mask(l, fold.union);
            let hit = l.b.ins().band(set, u);
            tests.push(l.b.ins().icmp_imm_s(IntCC::NotEqual, hit, 0));
        }
    }
    combine(l, &tests, form)
}

/// Combines boolean tests by `form` into a boolean: the and of none is
/// true, the or of none false.
fn combine_bool(l: &mut Lower<'_, '_>, tests: &[Value], form: Form) -> Value {
    let mut it = tests.iter().copied();
    let Some(first) = it.next() else {
        let v = i64::from(form == Form::And);
        return l.b.ins().iconst(types::I8, v);
    };
    it.fold(first, |acc, t| match form {
        Form::And => l.b.ins().band(acc, t),
        Form::Or => l.b.ins().bor(acc, t),
    })
}

/// [`combine_bool`] as an `i32` 1 or 0.
fn combine(l: &mut Lower<'_, '_>, tests: &[Value], form: Form) -> Value {
    let b = combine_bool(l, tests, form);
    l.b.ins().uextend(types::I32, b)
}
