//! The chess intrinsics as [`crate::intrinsics::IntrinsicFn`]s: the glue between the VM's
//! calling convention (argument words, list references, the [`Ctx`]) and
//! the pure functions of [`pattern`], [`advise`] and [`lit`].
//!
//! Each function here decodes its arguments, reads its list through
//! bounds-checked accessors (an embedder calling a table entry directly
//! with a wrong list reference gets [`TrapKind::BadCall`], never a panic),
//! applies the document's and/or/`Get` rules and returns. The rules for
//! lists, stated once:
//!
//! * and form: true iff every element is valid and satisfied (true for an
//!   empty list);
//! * or form: true iff every element is valid and one is satisfied (false
//!   for an empty list);
//! * an invalid parameter or element (a value that is not a literal of the
//!   expected kind) makes both forms false;
//! * `Get` form: fills its list with every satisfying value in ascending
//!   order and returns how many; a list too short for them is a
//!   [`TrapKind::ListOverflow`] (nothing is written); invalid parameters
//!   give the empty list and 0.

use crate::runtime::{Ctx, Memory, TrapKind, LIST_END};
use cvm_chess::advice as advise;
use cvm_chess::board::BoardView;
use cvm_chess::{lit, pattern, sets, style};

type R = Result<i32, TrapKind>;

fn bad_args() -> TrapKind {
    TrapKind::BadCall("wrong number of intrinsic arguments".into())
}

/// Where the slots of list `id` lie in the heap, checked.
fn slot_range(memory: &Memory, id: i32) -> Result<std::ops::Range<usize>, TrapKind> {
    let s = usize::try_from(id)
        .ok()
        .and_then(|i| memory.lists.get(i))
        .ok_or_else(|| TrapKind::BadCall(format!("no list {id}")))?;
    let base = s.base as usize;
    let range = base..base + s.slots as usize;
    if range.end > memory.heap.len() {
        return Err(TrapKind::BadCall(format!(
            "list {id} lies outside the heap"
        )));
    }
    Ok(range)
}

/// The slots of list `id`, checked.
fn slots(memory: &Memory, id: i32) -> Result<&[i32], TrapKind> {
    let range = slot_range(memory, id)?;
    Ok(&memory.heap[range])
}

/// The elements of list `id` before its end marker.
fn elements(memory: &Memory, id: i32) -> Result<&[i32], TrapKind> {
    let l = slots(memory, id)?;
    let n = l.iter().position(|&v| v == LIST_END).unwrap_or(l.len());
    Ok(&l[..n])
}

/// Fills list `id` with `values` and the end marker; returns the count.
fn fill(memory: &mut Memory, id: i32, values: &[i32]) -> R {
    if slots(memory, id)?.is_empty() {
        return Err(TrapKind::ListOverflow {
            needed: values.len() as u32,
            capacity: 0,
        });
    }
    memory.fill_list(id as u32, values)?;
    Ok(values.len() as i32)
}

/// Fills list `id` with the squares of `set`, ascending, and the end
/// marker, as [`fill`] would with them (the same overflow check), written
/// straight into the list.
fn fill_squares(memory: &mut Memory, id: i32, set: u64) -> R {
    let n = set.count_ones() as usize;
    let range = slot_range(memory, id)?;
    let list = &mut memory.heap[range];
    if n >= list.len() {
        return Err(TrapKind::ListOverflow {
            needed: n as u32,
            capacity: list.len().saturating_sub(1) as u32,
        });
    }
    // `n` squares, then the end marker: slots 0..=n, all inside the list.
    let (squares, end) = list[..=n].split_at_mut(n);
    let mut rest = set;
    for slot in squares {
        *slot = rest.trailing_zeros() as i32;
        rest &= rest - 1;
    }
    end[0] = LIST_END;
    Ok(n as i32)
}

fn board(host: &dyn crate::runtime::Host) -> &BoardView {
    host.board().unwrap_or(&BoardView::EMPTY)
}

/// How a pattern combines its list elements.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Form {
    And,
    Or,
}

/// Combines per-element answers (`None` = invalid element) by `form`.
fn combine(form: Form, els: &[i32], mut pred: impl FnMut(i32) -> Option<bool>) -> bool {
    match form {
        Form::And => els.iter().all(|&e| pred(e) == Some(true)),
        Form::Or => {
            let mut any = false;
            for &e in els {
                match pred(e) {
                    Some(hit) => any |= hit,
                    None => return false,
                }
            }
            any
        }
    }
}

/// A square-set pattern in and/or form: `set` gets the board and the
/// squares the list names (the set only matters there) and returns `None`
/// for invalid parameters.
fn square_test(
    ctx: &mut Ctx<'_>,
    form: Form,
    list: i32,
    set: impl FnOnce(&BoardView, u64) -> Option<u64>,
) -> R {
    let els = elements(ctx.memory, list)?;
    let named = els
        .iter()
        .filter_map(|&e| sets::square_set(e))
        .fold(0, |acc, m| acc | m);
    let Some(set) = set(board(&*ctx.host), named) else {
        return Ok(0);
    };
    Ok(i32::from(combine(form, els, |e| {
        sets::square_set(e).map(|m| set & m != 0)
    })))
}

macro_rules! square_pattern {
    ($(#[$m:meta])* $and:ident, $or:ident, $get:ident, $squares:ident, |$b:ident, $w:ident, $x:ident| $set:expr) => {
        $(#[$m])*
        pub(crate) fn $and(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
            let &[$x, list] = args else { return Err(bad_args()) };
            square_test(ctx, Form::And, list, |$b, $w| $set)
        }
        $(#[$m])*
        pub(crate) fn $or(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
            let &[$x, list] = args else { return Err(bad_args()) };
            square_test(ctx, Form::Or, list, |$b, $w| $set)
        }
        $(#[$m])*
        pub(crate) fn $get(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
            let &[$x, list] = args else { return Err(bad_args()) };
            fill_squares(ctx.memory, list, $squares(board(&*ctx.host), $x))
        }
        /// The squares the `Get` form writes for its scalar argument
        /// (none for an invalid one).
        pub(crate) fn $squares($b: &BoardView, $x: i32) -> u64 {
            let $w = u64::MAX;
            let set: Option<u64> = $set;
            set.unwrap_or(0)
        }
    };
}

square_pattern!(
    pc_on_sqrs,
    or_pc_on_sqrs,
    get_pc_on_sqrs,
    pc_on_sqrs_squares,
    |b, _w, piece| { sets::piece(piece).map(|_| pattern::piece_set(b, piece)) }
);
square_pattern!(
    dbl_pwns,
    or_dbl_pwns,
    get_dbl_pwns,
    dbl_pwns_squares,
    |b, _w, colour| { sets::colours(colour).map(|_| pattern::doubled_pawns(b, colour)) }
);
square_pattern!(
    passed,
    or_passed,
    get_passed,
    passed_squares,
    |b, _w, colour| { sets::colours(colour).map(|_| pattern::passed_pawns(b, colour)) }
);
square_pattern!(
    control,
    or_control,
    get_control,
    control_squares,
    |b, _w, piece| { sets::piece(piece).map(|_| pattern::control(b, piece)) }
);
square_pattern!(
    exchng_ctrl,
    or_exchng_ctrl,
    get_exchng_ctrl,
    exchng_ctrl_squares,
    |b, within, colour| {
        sets::colours(colour).map(|_| pattern::exchange_control_within(b, colour, within))
    }
);

/// `CmpNrPcs(piece, op, n, squares)`: every element's piece count compares.
pub(crate) fn cmp_nr_pcs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[piece, op, n, list] = args else {
        return Err(bad_args());
    };
    let els = elements(ctx.memory, list)?;
    if sets::piece(piece).is_none() || sets::compare(0, op, n).is_none() {
        return Ok(0);
    }
    let set = pattern::piece_set(board(&*ctx.host), piece);
    Ok(i32::from(combine(Form::And, els, |e| {
        sets::square_set(e).and_then(|m| sets::compare((set & m).count_ones() as i32, op, n))
    })))
}

fn king_pos_form(ctx: &mut Ctx<'_>, args: &[i32], form: Form) -> R {
    let &[colour, list] = args else {
        return Err(bad_args());
    };
    let els = elements(ctx.memory, list)?;
    if sets::colours(colour).is_none() {
        return Ok(0);
    }
    let b = board(&*ctx.host);
    Ok(i32::from(combine(form, els, |e| {
        sets::side_files(e).map(|f| pattern::king_pos_mask(b, colour, sets::files_mask(f)))
    })))
}

/// `KingPos(colour, sides)`.
pub(crate) fn king_pos(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    king_pos_form(ctx, args, Form::And)
}

/// `orKingPos(colour, sides)`.
pub(crate) fn or_king_pos(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    king_pos_form(ctx, args, Form::Or)
}

/// `GetKingPos(colour, sides)`: the board sides the king(s) stand on.
pub(crate) fn get_king_pos(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, list] = args else {
        return Err(bad_args());
    };
    let mut buf = [0i32; 5];
    let mut n = 0;
    if sets::colours(colour).is_some() {
        let b = board(&*ctx.host);
        for (i, &files) in sets::SIDE_FILES.iter().enumerate() {
            if pattern::king_pos_mask(b, colour, sets::files_mask(files)) {
                buf[n] = lit::SIDE_BASE + i as i32;
                n += 1;
            }
        }
    }
    fill(ctx.memory, list, &buf[..n])
}

fn p_on_line_form(ctx: &mut Ctx<'_>, args: &[i32], form: Form) -> R {
    let &[colour, op, n, list] = args else {
        return Err(bad_args());
    };
    let els = elements(ctx.memory, list)?;
    if sets::colours(colour).is_none() || sets::compare(0, op, n).is_none() {
        return Ok(0);
    }
    let files = pattern::pawn_files(board(&*ctx.host), colour, op, n);
    Ok(i32::from(combine(form, els, |e| {
        sets::column_files(e).map(|f| files & f != 0)
    })))
}

/// `POnLine(colour, op, n, columns)`.
pub(crate) fn p_on_line(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    p_on_line_form(ctx, args, Form::And)
}

/// `orPOnLine(colour, op, n, columns)`.
pub(crate) fn or_p_on_line(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    p_on_line_form(ctx, args, Form::Or)
}

/// `GetPOnLine(colour, op, n, columns)`: the columns whose pawn count
/// compares.
pub(crate) fn get_p_on_line(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, op, n, list] = args else {
        return Err(bad_args());
    };
    let files = pattern::pawn_files(board(&*ctx.host), colour, op, n);
    let mut buf = [0i32; 8];
    let mut count = 0;
    for f in (0..8).filter(|f| files & (1 << f) != 0) {
        buf[count] = lit::COLUMN_BASE + f;
        count += 1;
    }
    fill(ctx.memory, list, &buf[..count])
}

/// `ListLen(list)`: elements before the first end marker.
pub(crate) fn list_len(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[list] = args else {
        return Err(bad_args());
    };
    Ok(elements(ctx.memory, list)?.len() as i32)
}

/// `NxtSqr(square)`.
pub(crate) fn nxt_sqr(_: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq] = args else { return Err(bad_args()) };
    Ok(lit::next_square(sq))
}

/// `PrvSqr(square)`.
pub(crate) fn prv_sqr(_: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq] = args else { return Err(bad_args()) };
    Ok(lit::prev_square(sq))
}

/// The squares from `sq` (included) stepping by `step` while `keep` holds
/// for the square reached; empty for a non-concrete square.
fn walk(memory: &mut Memory, sq: i32, list: i32, step: i32, keep: impl Fn(i32, i32) -> bool) -> R {
    let mut buf = [0i32; 8];
    let mut n = 0;
    if let Some(start) = sets::concrete_square(sq) {
        let start = start as i32;
        let mut s = start;
        while (0..64).contains(&s) && keep(start, s) && n < buf.len() {
            buf[n] = s;
            n += 1;
            s += step;
        }
    }
    fill(memory, list, &buf[..n])
}

/// `GetLSqrs(square, list)`: the square and those left of it on its rank.
pub(crate) fn get_l_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq, list] = args else {
        return Err(bad_args());
    };
    walk(ctx.memory, sq, list, -1, |a, s| a / 8 == s / 8)
}

/// `GetRSqrs(square, list)`: the square and those right of it on its rank.
pub(crate) fn get_r_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq, list] = args else {
        return Err(bad_args());
    };
    walk(ctx.memory, sq, list, 1, |a, s| a / 8 == s / 8)
}

/// `GetDwnSqrs(square, list)`: the square and those below it on its file.
pub(crate) fn get_dwn_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq, list] = args else {
        return Err(bad_args());
    };
    walk(ctx.memory, sq, list, -8, |_, _| true)
}

/// `GetUpSqrs(square, list)`: the square and those above it on its file.
pub(crate) fn get_up_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[sq, list] = args else {
        return Err(bad_args());
    };
    walk(ctx.memory, sq, list, 8, |_, _| true)
}

/// `SetMvs(colour, bonus, moves)`.
pub(crate) fn set_mvs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, bonus, list] = args else {
        return Err(bad_args());
    };
    let els = elements(ctx.memory, list)?;
    for &mv in els {
        advise::set_mvs(
            ctx.advice,
            &mut |t| ctx.output.write_text(t),
            colour,
            bonus,
            mv,
        );
    }
    Ok(0)
}

/// `SetPMvs(colour, bonus, squares)`.
pub(crate) fn set_p_mvs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, bonus, list] = args else {
        return Err(bad_args());
    };
    let els = elements(ctx.memory, list)?;
    let b = board(&*ctx.host);
    for &e in els {
        if let Some(targets) = sets::square_set(e) {
            advise::set_pmvs(
                b,
                ctx.advice,
                &mut |t| ctx.output.write_text(t),
                colour,
                bonus,
                targets,
            );
        }
    }
    Ok(0)
}

/// `SetSqrs(piece, bonus, squares)`.
pub(crate) fn set_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[piece, bonus, list] = args else {
        return Err(bad_args());
    };
    // Elements whose square sets do not overlap (concrete squares, the
    // common case) give every square one bonus per selected piece whatever
    // the order: one pass over their union. Overlapping ones (wildcards)
    // add theirs once per element, element by element.
    let elements = elements(ctx.memory, list)?;
    let mut union = 0u64;
    let mut disjoint = true;
    for &e in elements {
        if let Some(m) = sets::square_set(e) {
            disjoint &= union & m == 0;
            union |= m;
        }
    }
    if disjoint {
        advise::set_sqrs(ctx.advice, piece, bonus, union);
        return Ok(0);
    }
    for &e in elements {
        if let Some(m) = sets::square_set(e) {
            advise::set_sqrs(ctx.advice, piece, bonus, m);
        }
    }
    Ok(0)
}

/// `SetSqrs(piece, bonus, squares)` with the listed squares given as
/// their set (distinct concrete squares, whose order does not matter:
/// [`set_sqrs`]'s one pass over the union).
pub(crate) fn set_sqrs_of(ctx: &mut Ctx<'_>, args: &[i32], squares: u64) -> R {
    let &[piece, bonus, _] = args else {
        return Err(bad_args());
    };
    advise::set_sqrs(ctx.advice, piece, bonus, squares);
    Ok(0)
}

/// `KeepBs(colour, bonus, square colours)`.
pub(crate) fn keep_bs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, bonus, list] = args else {
        return Err(bad_args());
    };
    for &e in elements(ctx.memory, list)? {
        advise::keep_bs(ctx.advice, colour, bonus, e);
    }
    Ok(0)
}

/// `KeepPcs(bonus, pieces)` and `ChngPcsVal(bonus, pieces)`.
pub(crate) fn keep_pcs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[bonus, list] = args else {
        return Err(bad_args());
    };
    for &e in elements(ctx.memory, list)? {
        advise::keep_pcs(ctx.advice, bonus, e);
    }
    Ok(0)
}

/// `SetDiags(piece, bonus, moves)`.
pub(crate) fn set_diags(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[piece, bonus, list] = args else {
        return Err(bad_args());
    };
    for &e in elements(ctx.memory, list)? {
        advise::set_diags(ctx.advice, piece, bonus, e);
    }
    Ok(0)
}

/// `MinAttack(colour)`.
pub(crate) fn min_attack(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour] = args else {
        return Err(bad_args());
    };
    advise::min_attack(ctx.advice, colour);
    Ok(0)
}

/// `ForcePwns(colour, columns)`.
pub(crate) fn force_pwns(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, list] = args else {
        return Err(bad_args());
    };
    let files = advise::files_of_columns(elements(ctx.memory, list)?);
    advise::force_pwns(ctx.advice, colour, files);
    Ok(0)
}

/// `Attack(colour, sides)`.
pub(crate) fn attack(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[colour, list] = args else {
        return Err(bad_args());
    };
    let files = advise::files_of_sides(elements(ctx.memory, list)?);
    advise::attack(ctx.advice, colour, files);
    Ok(0)
}

/// `CtrlSqrs(piece, bonus, squares)`.
pub(crate) fn ctrl_sqrs(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[piece, bonus, list] = args else {
        return Err(bad_args());
    };
    for &e in elements(ctx.memory, list)? {
        if let Some(m) = sets::square_set(e) {
            advise::ctrl_sqrs(ctx.advice, piece, bonus, m);
        }
    }
    Ok(0)
}

/// `GetStyle(id)`: the host's setting (0 for an id that is not a style
/// parameter).
pub(crate) fn get_style(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[id] = args else { return Err(bad_args()) };
    Ok(match style::param(id) {
        Some(_) => ctx.host.style_default(id),
        None => 0,
    })
}

/// `SetStyle(id, value)`.
pub(crate) fn set_style(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[id, value] = args else {
        return Err(bad_args());
    };
    advise::set_style(ctx.advice, &mut |t| ctx.output.write_text(t), id, value)
        .map_err(|e| TrapKind::Intrinsic(e.0))?;
    Ok(0)
}

/// `GetScore(prev_moves)`.
pub(crate) fn get_score(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[prev] = args else {
        return Err(bad_args());
    };
    Ok(ctx.host.game_score(prev))
}

/// `SetVerbose(value)`.
pub(crate) fn set_verbose(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[value] = args else {
        return Err(bad_args());
    };
    advise::set_verbose(ctx.advice, value);
    Ok(0)
}

/// `HostCall(service, a, b, c)`: hands the call to the embedder
/// ([`crate::runtime::Host::extension`]). This is the table's plain
/// entry; the backends run `HostCall` through
/// [`crate::intrinsics::invoke`], which asks
/// [`crate::runtime::Host::extension_metered`] and charges the work the
/// service reports.
pub(crate) fn host_call(ctx: &mut Ctx<'_>, args: &[i32]) -> R {
    let &[service, a, b, c] = args else {
        return Err(bad_args());
    };
    ctx.host.extension(service, [a, b, c])
}
