//! Intrinsics: the built-in functions a CVM program calls with `intr N`.
//!
//! [`INTRINSICS`] is the one table of them. Each entry gives the Che++ name,
//! the parameters (with the kind of value the Che++ compiler accepts for
//! each, from which the CVM-level stack signature is derived: list kinds are
//! list references, everything else an int), whether a result is pushed, and
//! the Rust function that implements it. Both backends call the same Rust
//! functions, so an intrinsic behaves identically under the interpreter and
//! the JIT.

use crate::isa::Ty;
use crate::natives as calls;
use crate::runtime::{Host, Memory, TrapKind, LIST_END};
use cvm_chess::board::kind;
use cvm_chess::board::BoardView;
use cvm_chess::pattern::{self, Mode};
use cvm_chess::{lit, sets};
use ElemKind as E;
use ParamKind::{Colour as COLOUR, CompOp as COMPOP, Int as INT, Piece as PIECE, Square as SQUARE};

/// What the Che++ compiler accepts for an intrinsic parameter. At the CVM
/// level every kind is an int except the list kinds, which are list
/// references.
///
/// For the scalar chess kinds the compiler accepts a literal of that kind or
/// any integer expression (a variable holding a square, say), and rejects a
/// literal of another kind. A `CompOp` parameter takes one of the operator
/// tokens `= <> < <= > >=`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// Any integer expression.
    Int,
    /// A colour: `w`, `b` or `?`.
    Colour,
    /// A piece: `wP`, `?N`, `b?`, ...
    Piece,
    /// A compoperator.
    CompOp,
    /// A square, possibly with wildcards.
    Square,
    /// A list whose elements are of the given kind: a list variable, a list
    /// parameter, or (unless `out`) a space-separated sequence of literals
    /// that the compiler turns into a constant list. `out` lists are written
    /// by the intrinsic (the `Get` forms and the list functions) and must be
    /// list variables or list parameters.
    List {
        /// The element kind.
        elem: ElemKind,
        /// Whether the intrinsic writes the list.
        out: bool,
    },
}

impl ParamKind {
    /// The CVM stack type of an argument of this kind.
    pub fn ty(self) -> Ty {
        match self {
            ParamKind::List { .. } => Ty::List,
            _ => Ty::Int,
        }
    }
}

/// The kind of the elements of a list parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// Any values.
    Any,
    /// Squares (with wildcards).
    Square,
    /// Moves (with wildcards).
    Move,
    /// Pieces.
    Piece,
    /// Columns (`aline` .. `hline`, `.line`).
    Column,
    /// Board sides.
    BoardSide,
    /// Square colours.
    SquareColour,
}

pub use crate::runtime::Ctx;

/// The Rust implementation of an intrinsic: gets the arguments (list
/// arguments as list indices, valid by verification) and returns the result
/// (ignored when the intrinsic has none) or an error.
pub type IntrinsicFn = fn(&mut Ctx<'_>, &[i32]) -> Result<i32, TrapKind>;

/// One parameter of an intrinsic.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name used in documentation and diagnostics.
    pub name: &'static str,
    /// What it accepts.
    pub kind: ParamKind,
}

/// One intrinsic.
#[derive(Copy, Clone, Debug)]
pub struct IntrinsicInfo {
    /// The Che++ name.
    pub name: &'static str,
    /// The parameters, in order.
    pub params: &'static [Param],
    /// Whether the intrinsic pushes a result.
    pub returns: bool,
    /// The implementation.
    pub func: IntrinsicFn,
    /// One sentence saying what it does.
    pub doc: &'static str,
    /// For pattern intrinsics whose last parameter is a square list: how
    /// the call is evaluated when the optimizer has folded a constant list
    /// into one square mask (`pat.all` / `pat.any`).
    pub fold: Option<Fold>,
    /// For `Get` forms that fill their list with the squares of one
    /// square set: that set for the scalar argument (piece or colour),
    /// empty for an invalid one. The call writes these squares, ascending,
    /// exactly as [`IntrinsicInfo::func`] does.
    pub squares: Option<fn(&BoardView, i32) -> u64>,
    /// The fuel a call charges (see [`cost`]).
    pub cost: Cost,
    /// Where [`cost`] finds the arguments it reads.
    shape: Shape,
}

/// Where [`cost`] finds what it reads among a call's arguments, worked out
/// once from an intrinsic's parameters and cost terms.
#[derive(Copy, Clone, Debug)]
struct Shape {
    /// The list parameter (the last, should there be several).
    list: Option<u8>,
    /// The colour parameter (the last).
    colour: Option<u8>,
    /// The piece parameter (the last).
    piece: Option<u8>,
    /// The list's element kind ([`ElemKind::Any`] without a list).
    elem: ElemKind,
    /// Whether a term reads the list's contents, not only its size.
    contents: bool,
}

impl Shape {
    const fn of(params: &[Param], cost: &Cost) -> Shape {
        let mut shape = Shape {
            list: None,
            colour: None,
            piece: None,
            elem: ElemKind::Any,
            contents: false,
        };
        let mut i = 0;
        while i < params.len() {
            match params[i].kind {
                ParamKind::List { elem, .. } => {
                    shape.list = Some(i as u8);
                    shape.elem = elem;
                }
                ParamKind::Colour => shape.colour = Some(i as u8),
                ParamKind::Piece => shape.piece = Some(i as u8),
                _ => {}
            }
            i += 1;
        }
        let mut k = 0;
        while k < cost.terms.len() {
            if !matches!(
                cost.terms[k].work,
                Work::Call | Work::Out(_) | Work::Reported
            ) {
                shape.contents = true;
            }
            k += 1;
        }
        shape
    }

    /// The colour and piece selectors a call's cost reads (0 where the
    /// intrinsic has none) and its list argument, from the call's
    /// arguments; an argument missing from a short `args` reads as 0 (no
    /// list).
    #[inline(always)]
    fn selectors(&self, args: &[i32]) -> (i32, i32, Option<i32>) {
        let arg = |k: Option<u8>| k.and_then(|k| args.get(usize::from(k))).copied();
        (
            arg(self.colour).unwrap_or(0),
            arg(self.piece).unwrap_or(0),
            arg(self.list),
        )
    }
}

/// A pattern intrinsic's evaluation on a folded square mask.
#[derive(Copy, Clone, Debug)]
pub struct Fold {
    /// The pattern on the board for the scalar argument (piece or colour)
    /// and the mask, tested in the given mode; false for invalid arguments,
    /// exactly like the list form.
    pub func: fn(&BoardView, i32, u64, Mode) -> bool,
    /// Whether the intrinsic is an `or` form (any element suffices).
    pub or_form: bool,
}

impl IntrinsicInfo {
    const fn folds(mut self, func: fn(&BoardView, i32, u64, Mode) -> bool, or_form: bool) -> Self {
        self.fold = Some(Fold { func, or_form });
        self
    }

    const fn fills(mut self, squares: fn(&BoardView, i32) -> u64) -> Self {
        self.squares = Some(squares);
        self
    }
}

const fn p(name: &'static str, kind: ParamKind) -> Param {
    Param { name, kind }
}

const LIST_ANY: ParamKind = ParamKind::List {
    elem: ElemKind::Any,
    out: false,
};

/// The most parameters any intrinsic takes.
pub const MAX_PARAMS: usize = 8;

const fn list(elem: ElemKind) -> ParamKind {
    ParamKind::List { elem, out: false }
}

const fn out(elem: ElemKind) -> ParamKind {
    ParamKind::List { elem, out: true }
}

const fn intr(
    name: &'static str,
    params: &'static [Param],
    returns: bool,
    func: IntrinsicFn,
    cost: Cost,
    doc: &'static str,
) -> IntrinsicInfo {
    IntrinsicInfo {
        name,
        params,
        returns,
        func,
        doc,
        fold: None,
        squares: None,
        cost,
        shape: Shape::of(params, &cost),
    }
}

const COLOUR_SQUARES: &[Param] = &[p("colour", COLOUR), p("squares", list(E::Square))];
const COLOUR_SQUARES_OUT: &[Param] = &[p("colour", COLOUR), p("squares", out(E::Square))];
const PIECE_SQUARES: &[Param] = &[p("piece", PIECE), p("squares", list(E::Square))];
const PIECE_SQUARES_OUT: &[Param] = &[p("piece", PIECE), p("squares", out(E::Square))];
const COLOUR_SIDES: &[Param] = &[p("colour", COLOUR), p("sides", list(E::BoardSide))];
const COLOUR_SIDES_OUT: &[Param] = &[p("colour", COLOUR), p("sides", out(E::BoardSide))];
const PAWN_LINES: &[Param] = &[
    p("colour", COLOUR),
    p("op", COMPOP),
    p("number", INT),
    p("columns", list(E::Column)),
];
const PAWN_LINES_OUT: &[Param] = &[
    p("colour", COLOUR),
    p("op", COMPOP),
    p("number", INT),
    p("columns", out(E::Column)),
];
const SQUARE_OUT: &[Param] = &[p("square", SQUARE), p("squares", out(E::Square))];
const PIECE_BONUS_SQUARES: &[Param] = &[
    p("piece", PIECE),
    p("bonus", INT),
    p("squares", list(E::Square)),
];
const BONUS_PIECES: &[Param] = &[p("bonus", INT), p("pieces", list(E::Piece))];

/// Every intrinsic; the index in this table is the `intr` operand, so the
/// order is part of the `.cmp` format: new intrinsics are appended, never
/// inserted. The chess functions are documented in `docs/che-reference.md`
/// ("Chess functions"); their Rust implementations live in the private
/// module `natives`, over the board and advice types of [`cvm_chess`].
pub const INTRINSICS: &[IntrinsicInfo] = &[
    // IV.3.a
    intr("ListLen", &[p("list", LIST_ANY)], true, calls::list_len,
        fuel(1, &[t(Slots, One, 16, 1)]),
        "Number of elements before the first end marker (-1), bounded by the list's slots."),
    // IV.2.b
    intr("KingPos", COLOUR_SIDES, true, calls::king_pos,
        fuel(2, &[t(Slots, One, 8, 3)]),
        "True if the king of the colour (both kings for ?) stands on every listed board side."),
    intr("orKingPos", COLOUR_SIDES, true, calls::or_king_pos,
        fuel(2, &[t(Slots, One, 8, 3)]),
        "True if the king of the colour (both kings for ?) stands on one of the listed board sides."),
    intr("GetKingPos", COLOUR_SIDES_OUT, true, calls::get_king_pos,
        fuel(2, &[]),
        "Fills the list with the board sides the king of the colour stands on; returns their number."),
    // IV.2.c
    intr("PcOnSqrs", PIECE_SQUARES, true, calls::pc_on_sqrs,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if the piece stands on every listed square (on some square of each wildcard).").folds(pattern::pc_on_sqrs_mask, false),
    intr("orPcOnSqrs", PIECE_SQUARES, true, calls::or_pc_on_sqrs,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if the piece stands on one of the listed squares.").folds(pattern::pc_on_sqrs_mask, true),
    intr("GetPcOnSqrs", PIECE_SQUARES_OUT, true, calls::get_pc_on_sqrs,
        fuel(3, &[t(Out(65), One, 16, 1)]),
        "Fills the list with the squares the piece stands on; returns their number.").fills(calls::pc_on_sqrs_squares),
    intr("CmpNrPcs", &[p("piece", PIECE), p("op", COMPOP), p("number", INT), p("squares", list(E::Square))], true,
        calls::cmp_nr_pcs,
        fuel(2, &[t(Slots, One, 8, 3)]),
        "True if, for every listed square set, the number of the piece on it compares to the number."),
    // IV.2.d
    intr("DblPwns", COLOUR_SQUARES, true, calls::dbl_pwns,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if a doubled pawn of the colour stands on every listed square (or square set).").folds(pattern::dbl_pwns_mask, false),
    intr("orDblPwns", COLOUR_SQUARES, true, calls::or_dbl_pwns,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if a doubled pawn of the colour stands on one of the listed squares.").folds(pattern::dbl_pwns_mask, true),
    intr("GetDblPwns", COLOUR_SQUARES_OUT, true, calls::get_dbl_pwns,
        fuel(4, &[t(Out(65), One, 16, 1)]),
        "Fills the list with the squares of the colour's doubled pawns; returns their number.").fills(calls::dbl_pwns_squares),
    // IV.2.e
    intr("POnLine", PAWN_LINES, true, calls::p_on_line,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if on every listed column the number of pawns of the colour compares to the number."),
    intr("orPOnLine", PAWN_LINES, true, calls::or_p_on_line,
        fuel(2, &[t(Slots, One, 8, 2)]),
        "True if on one of the listed columns the number of pawns of the colour compares to the number."),
    intr("GetPOnLine", PAWN_LINES_OUT, true, calls::get_p_on_line,
        fuel(3, &[t(Out(9), One, 16, 1)]),
        "Fills the list with the columns whose pawn count compares to the number; returns their number."),
    // IV.2.f
    intr("Passed", COLOUR_SQUARES, true, calls::passed,
        fuel(2, &[t(Call, Colours, 1, PASSED), t(Slots, One, 8, 2)]),
        "True if a passed pawn of the colour stands on every listed square (or square set).").folds(pattern::passed_mask, false),
    intr("orPassed", COLOUR_SQUARES, true, calls::or_passed,
        fuel(2, &[t(Call, Colours, 1, PASSED), t(Slots, One, 8, 2)]),
        "True if a passed pawn of the colour stands on one of the listed squares.").folds(pattern::passed_mask, true),
    intr("GetPassed", COLOUR_SQUARES_OUT, true, calls::get_passed,
        fuel(2, &[t(Call, Colours, 1, PASSED), t(Out(65), One, 16, 1)]),
        "Fills the list with the squares of the colour's passed pawns; returns their number.").fills(calls::passed_squares),
    // IV.2.g
    intr("Control", PIECE_SQUARES, true, calls::control,
        fuel(3, &[t(Call, Movers, 1, ATTACKS), t(Slots, One, 8, 2)]),
        "True if the piece can capture on every listed square in one pseudo-legal move.").folds(pattern::control_mask, false),
    intr("orControl", PIECE_SQUARES, true, calls::or_control,
        fuel(3, &[t(Call, Movers, 1, ATTACKS), t(Slots, One, 8, 2)]),
        "True if the piece can capture on one of the listed squares in one pseudo-legal move.").folds(pattern::control_mask, true),
    intr("GetControl", PIECE_SQUARES_OUT, true, calls::get_control,
        fuel(3, &[t(Call, Movers, 1, ATTACKS), t(Out(65), One, 16, 1)]),
        "Fills the list with every square the piece controls; returns their number.").fills(calls::control_squares),
    // IV.2.h
    intr("ExchngCtrl", COLOUR_SQUARES, true, calls::exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH), t(Union, Colours, 1, EXCHANGE), t(Slots, One, 8, 2)]),
        "True if the colour (both colours for ?) has exchange control over every listed square.").folds(pattern::exchng_ctrl_mask, false),
    intr("orExchngCtrl", COLOUR_SQUARES, true, calls::or_exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH), t(Union, Colours, 1, EXCHANGE), t(Slots, One, 8, 2)]),
        "True if the colour (both colours for ?) has exchange control over one of the listed squares.").folds(pattern::exchng_ctrl_mask, true),
    intr("GetExchngCtrl", COLOUR_SQUARES_OUT, true, calls::get_exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH + 64 * EXCHANGE), t(Out(65), One, 16, 1)]),
        "Fills the list with the squares the colour has exchange control over; returns their number.").fills(calls::exchng_ctrl_squares),
    // IV.3.b
    intr("NxtSqr", &[p("square", SQUARE)], true, calls::nxt_sqr,
        fuel(1, &[]),
        "The next square (h1 -> a2, a. -> b., .7 -> .8), or CHE_INVSQR (-1) after the last and for .."),
    intr("PrvSqr", &[p("square", SQUARE)], true, calls::prv_sqr,
        fuel(1, &[]),
        "The previous square, or CHE_INVSQR (-1) before the first and for .."),
    intr("GetLSqrs", SQUARE_OUT, true, calls::get_l_sqrs,
        fuel(2, &[]),
        "Fills the list with the square and the squares left of it on its rank; empty for a wildcard."),
    intr("GetRSqrs", SQUARE_OUT, true, calls::get_r_sqrs,
        fuel(2, &[]),
        "Fills the list with the square and the squares right of it on its rank; empty for a wildcard."),
    intr("GetDwnSqrs", SQUARE_OUT, true, calls::get_dwn_sqrs,
        fuel(2, &[]),
        "Fills the list with the square and the squares below it on its file; empty for a wildcard."),
    intr("GetUpSqrs", SQUARE_OUT, true, calls::get_up_sqrs,
        fuel(2, &[]),
        "Fills the list with the square and the squares above it on its file; empty for a wildcard."),
    // IV.5
    intr("SetMvs", &[p("colour", COLOUR), p("bonus", INT), p("moves", list(E::Move))], false, calls::set_mvs,
        fuel(3, &[t(Slots, One, 8, 4), t(Moves, Colours, 4, 1), t(Elements, VerboseColours, 1, LINE)]),
        "Adds the bonus to the side's moves in the list (one wildcard side expands; two are ignored)."),
    intr("SetPMvs", &[p("colour", COLOUR), p("bonus", INT), p("squares", list(E::Square))], false,
        calls::set_p_mvs,
        fuel(3, &[t(Slots, One, 8, 2), t(Squares, Colours, 4, 1), t(Squares, VerboseColours, 1, LINE)]),
        "Adds the bonus to the side's non-capturing pawn moves to the squares, from where its pawns stand."),
    intr("SetSqrs", PIECE_BONUS_SQUARES, false, calls::set_sqrs,
        fuel(3, &[t(Slots, Pieces, 8, 1), t(Squares, Pieces, 8, 1)]),
        "Adds the bonus to the piece's square values on the listed squares."),
    intr("KeepBs", &[p("colour", COLOUR), p("bonus", INT), p("colours", list(E::SquareColour))], false,
        calls::keep_bs,
        fuel(2, &[t(Slots, One, 8, 1), t(ColourSquares, Colours, 8, 1)]),
        "Adds the bonus to the side's bishops on the squares of the listed square colours."),
    intr("KeepPcs", BONUS_PIECES, false, calls::keep_pcs,
        fuel(2, &[t(Slots, One, 8, 1), t(ListedPieces, One, 4, 1)]),
        "Changes the value of the listed pieces by the bonus."),
    intr("ChngPcsVal", BONUS_PIECES, false, calls::keep_pcs,
        fuel(2, &[t(Slots, One, 8, 1), t(ListedPieces, One, 4, 1)]),
        "Changes the value of the listed pieces by the bonus (the same as KeepPcs)."),
    intr("SetDiags", &[p("piece", PIECE), p("bonus", INT), p("moves", list(E::Move))], false, calls::set_diags,
        fuel(2, &[t(Slots, One, 8, 2), t(Segments, Pieces, 8, 1)]),
        "Adds the bonus to the piece's square values along each listed rook or bishop line."),
    intr("MinAttack", &[p("colour", COLOUR)], false, calls::min_attack,
        fuel(2, &[t(Call, Colours, 1, 3)]),
        "Advises a queen-side minority attack: a- and b-pawns forward, rooks to the b- and c-files."),
    intr("ForcePwns", &[p("colour", COLOUR), p("columns", list(E::Column))], false, calls::force_pwns,
        fuel(2, &[t(Slots, One, 8, 2), t(Files, Colours, 8, 1)]),
        "Rewards the side's pawns on the listed columns for every rank they advance."),
    intr("Attack", COLOUR_SIDES, false, calls::attack,
        fuel(2, &[t(Slots, One, 8, 2), t(Files, Colours, 8, 3)]),
        "Advises an attack on the listed sides: pawns forward, rooks and queens onto their files."),
    intr("CtrlSqrs", PIECE_BONUS_SQUARES, false, calls::ctrl_sqrs,
        fuel(3, &[t(Slots, ControlPieces, 8, 1), t(Squares, ControlPieces, 8, 1)]),
        "Adds the bonus to the piece's control of the listed squares (a queen as rook plus bishop)."),
    // IV.6, V.9.d
    intr("GetStyle", &[p("id", INT)], true, calls::get_style,
        fuel(1, &[]),
        "The engine's setting of the style parameter (not changed by SetStyle); 0 for an unknown id."),
    intr("SetStyle", &[p("id", INT), p("value", INT)], false, calls::set_style,
        fuel(2, &[t(Call, Verbose, 1, LINE)]),
        "Overrides a style parameter for this position; ST_LEARNFLG and unknown ids are refused."),
    intr("GetScore", &[p("prev_moves", INT)], true, calls::get_score,
        fuel(1, &[]),
        "The engine's score of its own move that many moves ago, from its side; 0 when unknown."),
    intr("SetVerbose", &[p("value", INT)], false, calls::set_verbose,
        fuel(1, &[]),
        "Turns verbose mode on (non-zero) or off: advised moves and style changes are printed."),
    // Not in the Che++ documents: the way a front end reaches its runtime in the host.
    intr("HostCall", &[p("service", INT), p("a", INT), p("b", INT), p("c", INT)], true, calls::host_call,
        fuel(1, &[t(Reported, One, 1, 1)]),
        "Asks the embedder for service number `service` with three words; its answer (0 without a host)."),
];

/// The number of `HostCall` in [`INTRINSICS`]: the intrinsic whose work
/// the host reports ([`crate::runtime::Host::extension_metered`]), charged
/// by [`invoke`] after the call.
pub const HOST_CALL: u32 = INTRINSICS.len() as u32 - 1;

/// Calls intrinsic `id` with `args` (one per parameter) with `fuel` units
/// left, charging its fuel: what both backends do at an `intr`, so that
/// they charge alike by construction. First the cost ([`cost`]) is
/// charged; when less is left the call fails with out-of-fuel and does
/// nothing. Then the intrinsic runs; `HostCall` asks its service through
/// [`Host::extension_metered`] with the fuel then left as its budget
/// ([`crate::fuel::host_budget`]) and charges what it reports
/// ([`crate::fuel::charge_host`]: more than the budget is out-of-fuel
/// after the call, spending the budget). Returns the result (0 when the
/// intrinsic has none) and the fuel left, or the error and the fuel left.
///
/// ```
/// use cvm::intrinsics::{invoke, Ctx, HOST_CALL};
/// use cvm::{AdviceTable, CollectOutput, Host, HostAnswer, Memory, Module, TrapKind};
///
/// /// Service 7 doubles its argument and reports one unit per 8 of it.
/// struct Doubler;
/// impl Host for Doubler {
///     fn extension_metered(&mut self, service: i32, [a, _, _]: [i32; 3], _budget: u64)
///         -> Result<HostAnswer, TrapKind> {
///         Ok(if service == 7 { HostAnswer::costing(2 * a, a as u64 / 8) } else { HostAnswer::free(0) })
///     }
/// }
/// let (mut memory, mut advice) = (Memory::new(&Module::default()), Box::new(AdviceTable::default()));
/// let (mut out, mut host) = (CollectOutput::default(), Doubler);
/// let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut advice };
/// // One unit for the call, 100 / 8 = 12 for the work.
/// assert_eq!(invoke(HOST_CALL, &mut ctx, &[7, 100, 0, 0], 20), Ok((200, 7)));
/// // Exactly enough.
/// assert_eq!(invoke(HOST_CALL, &mut ctx, &[7, 100, 0, 0], 13), Ok((200, 0)));
/// // One unit short: out of fuel after the call, the fuel left spent.
/// assert_eq!(invoke(HOST_CALL, &mut ctx, &[7, 100, 0, 0], 12), Err((TrapKind::OutOfFuel, 0)));
/// // Not even the call's own unit: nothing happens.
/// assert_eq!(invoke(HOST_CALL, &mut ctx, &[7, 100, 0, 0], 0), Err((TrapKind::OutOfFuel, 0)));
/// ```
#[inline]
pub fn invoke(
    id: u32,
    ctx: &mut Ctx<'_>,
    args: &[i32],
    fuel: u64,
) -> Result<(i32, u64), (TrapKind, u64)> {
    invoke_measured(id, ctx, args, fuel, &[])
}

/// [`invoke`] with the work of the lists in `measured` (by list number)
/// measured beforehand, which must hold for their contents
/// ([`cost_measured`]): the same charge and the same call.
#[inline]
pub fn invoke_measured(
    id: u32,
    ctx: &mut Ctx<'_>,
    args: &[i32],
    fuel: u64,
    measured: &[Option<ListWork>],
) -> Result<(i32, u64), (TrapKind, u64)> {
    let Some(info) = INTRINSICS.get(id as usize) else {
        return Err((TrapKind::BadCall(format!("no intrinsic {id}")), fuel));
    };
    let cost = cost_measured(id, ctx.memory, ctx.advice.verbose != 0, args, measured);
    if fuel < cost {
        return Err((TrapKind::OutOfFuel, fuel));
    }
    run_paid(id, info, ctx, args, fuel - cost)
}

/// [`invoke`] of a call whose cost ([`cost`]) has already been charged,
/// with `left` units left after it: what compiled code calls when the
/// cost was known when it was compiled ([`cost_known`]) and charged there.
/// The intrinsic runs as under [`invoke`] (`HostCall` still charges what
/// its service reports); returns the result and the fuel left (`left`, or
/// less after a host service), or the error and the fuel left.
///
/// ```
/// use cvm::intrinsics::{by_name, cost, invoke, invoke_paid, Ctx};
/// use cvm::{AdviceTable, CollectOutput, Memory, Module, NoHost};
///
/// let module = cvm::asm::assemble(".list l 4 = 3 7 9 -1\n.func main params 0 lists 0 locals 0 stack 1 proc\n ret\n.end").unwrap();
/// let (mut memory, mut advice) = (Memory::new(&module), Box::new(AdviceTable::default()));
/// let (mut out, mut host) = (CollectOutput::default(), NoHost);
/// let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut advice };
/// let (id, _) = by_name("ListLen").unwrap();
/// let charged = cost(id, ctx.memory, false, &[0]);
/// // The same result either way; the paid call takes no more fuel.
/// assert_eq!(invoke(id, &mut ctx, &[0], 100), Ok((3, 100 - charged)));
/// assert_eq!(invoke_paid(id, &mut ctx, &[0], 100 - charged), Ok((3, 100 - charged)));
/// ```
#[inline]
pub fn invoke_paid(
    id: u32,
    ctx: &mut Ctx<'_>,
    args: &[i32],
    left: u64,
) -> Result<(i32, u64), (TrapKind, u64)> {
    match INTRINSICS.get(id as usize) {
        Some(info) => run_paid(id, info, ctx, args, left),
        None => Err((TrapKind::BadCall(format!("no intrinsic {id}")), left)),
    }
}

/// The number of intrinsic `name` in [`INTRINSICS`] (evaluated at compile
/// time; a name that is not there does not compile).
const fn number_of(name: &str) -> u32 {
    let mut i = 0;
    while i < INTRINSICS.len() {
        let (a, b) = (INTRINSICS[i].name.as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i as u32;
            }
        }
        i += 1;
    }
    panic!("no such intrinsic")
}

/// The number of `SetSqrs`.
const SET_SQRS: u32 = number_of("SetSqrs");

/// Whether intrinsic `id` reads its list only as a set of squares: what it
/// does and what it charges for a list of distinct concrete squares depend
/// on which squares are listed and how many, not on their order
/// (`SetSqrs`). A backend that keeps such a list as a bitboard can call it
/// with the bitboard ([`invoke_on_squares`]).
pub fn reads_square_set(id: u32) -> bool {
    id == SET_SQRS
}

/// [`invoke_measured`] of intrinsic `id` when its list holds the squares
/// of `set` (in any order, each once) followed by the end marker, or
/// exactly the squares when they fill the list: the same charge, the same
/// effect and the same result, without reading the list.
/// `count` is the number of squares in `set` (the caller keeps it: a
/// population count costs a few dozen instructions on the baseline x86-64
/// target). `None` (nothing done) when `id` does not read its list as a
/// set ([`reads_square_set`]) or the squares would not fit in the list the
/// arguments name.
///
/// ```
/// use cvm::intrinsics::{by_name, invoke, invoke_on_squares, Ctx};
/// use cvm::{AdviceTable, CollectOutput, Memory, NoHost};
///
/// let module = cvm::asm::assemble(".list l 4 = 28 12 -1\n.func main params 0 lists 0 locals 0 stack 1 proc\n ret\n.end").unwrap();
/// let (mut memory, mut out, mut host) = (Memory::new(&module), CollectOutput::default(), NoHost);
/// let (id, _) = by_name("SetSqrs").unwrap();
/// let args = [cvm_chess::lit::parse_piece("?R").unwrap(), 5, 0];
/// let mut read = Box::new(AdviceTable::default());
/// let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut read };
/// let want = invoke(id, &mut ctx, &args, 100);
/// let mut given = Box::new(AdviceTable::default());
/// let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut given };
/// let got = invoke_on_squares(id, &mut ctx, &args, (1 << 12) | (1 << 28), 2, 100);
/// assert_eq!(got, Some(want));
/// assert_eq!(given, read);
/// ```
pub fn invoke_on_squares(
    id: u32,
    ctx: &mut Ctx<'_>,
    args: &[i32],
    set: u64,
    count: u32,
    fuel: u64,
) -> Option<Result<(i32, u64), (TrapKind, u64)>> {
    debug_assert_eq!(count, set.count_ones());
    if !reads_square_set(id) {
        return None;
    }
    let info = INTRINSICS.get(id as usize)?;
    let (colour, piece, list) = info.shape.selectors(args);
    let slots = list_slots(ctx.memory, list?).len() as u64;
    let n = u64::from(count);
    if n > slots {
        return None;
    }
    // The list's contents as the cost terms see them: `n` elements, each
    // one square, and the end marker after them unless they fill the list.
    let mut cost = u64::from(info.cost.base.max(1));
    if !info.cost.terms.is_empty() {
        let work = |w: Work| SquaresWork::of(w).map(|form| form.on(n, slots));
        if info.cost.terms.iter().any(|t| work(t.work).is_none()) {
            return None;
        }
        let verbose = ctx.advice.verbose != 0;
        cost = charge_terms(info, cost, colour, piece, verbose, |w| work(w).unwrap_or(0));
    }
    if fuel < cost {
        return Some(Err((TrapKind::OutOfFuel, fuel)));
    }
    let left = fuel - cost;
    Some(match calls::set_sqrs_of(ctx, args, set) {
        Ok(v) => Ok((v, left)),
        Err(kind) => Err((kind, left)),
    })
}

/// What a cost term's [`Work`] comes to on a list of distinct concrete
/// squares: a function of how many squares there are and how many slots the
/// list has, which [`invoke_on_squares`] evaluates and a compiler can
/// evaluate when it compiles (a known number of squares) or emit (a number
/// known at run time).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SquaresWork {
    /// A constant: 1 for the call itself.
    Fixed(u64),
    /// At most the given number of slots, and never more than the list has
    /// (a `Get` form's output).
    OutSlots(u32),
    /// The number of squares (the elements, their union, their squares).
    Count,
    /// The number of squares and the end marker after them, at most the
    /// list's slots (the slots a scan reads).
    CountAndEnd,
}

impl SquaresWork {
    /// The form `work` takes on a list of distinct concrete squares; `None`
    /// for work that depends on more than their number (moves, segments,
    /// square colours, pieces, files) or is reported after the call.
    pub fn of(work: Work) -> Option<SquaresWork> {
        match work {
            Work::Call => Some(SquaresWork::Fixed(1)),
            Work::Out(k) => Some(SquaresWork::OutSlots(k)),
            Work::Slots => Some(SquaresWork::CountAndEnd),
            Work::Elements | Work::Union | Work::Squares => Some(SquaresWork::Count),
            _ => None,
        }
    }

    /// The work on `n` squares in a list of `slots` slots.
    ///
    /// ```
    /// use cvm::intrinsics::{SquaresWork, Work};
    /// let scan = SquaresWork::of(Work::Slots).unwrap();
    /// assert_eq!(scan.on(3, 16), 4);
    /// assert_eq!(scan.on(16, 16), 16);
    /// assert_eq!(SquaresWork::of(Work::Out(65)).unwrap().on(3, 16), 16);
    /// assert_eq!(SquaresWork::of(Work::Moves), None);
    /// ```
    pub fn on(self, n: u64, slots: u64) -> u64 {
        match self {
            SquaresWork::Fixed(k) => k,
            SquaresWork::OutSlots(k) => slots.min(u64::from(k)),
            SquaresWork::Count => n,
            SquaresWork::CountAndEnd => n.saturating_add(1).min(slots),
        }
    }
}

/// The call of `info` (intrinsic `id`) once its cost is paid.
#[inline(always)]
fn run_paid(
    id: u32,
    info: &IntrinsicInfo,
    ctx: &mut Ctx<'_>,
    args: &[i32],
    left: u64,
) -> Result<(i32, u64), (TrapKind, u64)> {
    if id == HOST_CALL {
        return host_call(ctx.host, args, left);
    }
    match (info.func)(ctx, args) {
        Ok(v) => Ok((v, left)),
        Err(kind) => Err((kind, left)),
    }
}

/// `HostCall` with `left` units left after its own: asks the service and
/// charges what it reports.
fn host_call(host: &mut dyn Host, args: &[i32], left: u64) -> Result<(i32, u64), (TrapKind, u64)> {
    let &[service, a, b, c] = args else {
        return Err((
            TrapKind::BadCall("wrong number of intrinsic arguments".into()),
            left,
        ));
    };
    let budget = crate::fuel::host_budget(left);
    let answer = match host.extension_metered(service, [a, b, c], budget) {
        Ok(answer) => Some(answer),
        Err(TrapKind::OutOfFuel) => None,
        Err(kind) => return Err((kind, left)),
    };
    match crate::fuel::charge_host(left, answer.map(|a| a.fuel)) {
        Ok(rest) => Ok((answer.map_or(0, |a| a.value), rest)),
        Err(rest) => Err((TrapKind::OutOfFuel, rest)),
    }
}

/// Looks an intrinsic up by its Che++ name.
///
/// ```
/// let (number, info) = cvm::intrinsics::by_name("PcOnSqrs").unwrap();
/// assert_eq!(cvm::intrinsics::INTRINSICS[number as usize].name, "PcOnSqrs");
/// assert_eq!(info.params.len(), 2);
/// assert!(info.returns);
/// assert!(cvm::intrinsics::by_name("NoSuchFunction").is_none());
/// ```
pub fn by_name(name: &str) -> Option<(u32, &'static IntrinsicInfo)> {
    INTRINSICS
        .iter()
        .enumerate()
        .find(|(_, i)| i.name == name)
        .map(|(n, i)| (n as u32, i))
}

// ---------------------------------------------------------------------------
// Fuel.

/// A quantity of work an intrinsic call does, measured from its arguments
/// and its list before the call does anything (never from the board: the
/// weights cover the worst board there is). "The list" is the intrinsic's
/// list parameter; its elements are those before the end marker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// One: the call itself.
    Call,
    /// The list slots a scan reads: the elements and the end marker, at
    /// most the list's slots.
    Slots,
    /// The list's elements (before the end marker).
    Elements,
    /// The squares of the union of the square elements' sets: the squares
    /// an exchange pattern evaluates (at most 64).
    Union,
    /// The squares each square element stands for, summed (`e4` 1, `e.`
    /// and `.4` 8, `..` 64; 0 for a value that is not a square).
    Squares,
    /// The moves each move element enters, summed: from-squares times
    /// to-squares when at most one side is a wildcard (`..e4` 64, `e2e4`
    /// 1), 0 otherwise.
    Moves,
    /// The squares of each move element's rook or bishop line, summed (at
    /// most 8 each).
    Segments,
    /// The squares of each square-colour element, summed (32 or 64 each).
    ColourSquares,
    /// The pieces (colour and kind) each piece element stands for, summed
    /// (12 for `??`).
    ListedPieces,
    /// The squares of the files the column or board-side elements name
    /// together (8 per file, at most 64).
    Files,
    /// The slots a `Get` form may write: the output list's slots, at most
    /// the given number (every value it can produce and the end marker).
    Out(u32),
    /// The fuel the host reports for a service's work
    /// ([`crate::runtime::Host::extension_metered`]): known only after the
    /// call, so it is charged then (by [`invoke`]), counts 0 in [`cost`]
    /// and leaves [`cost_known`] and [`cost_bound`] without an answer.
    Reported,
}

/// What multiplies a [`Work`] term: how much the scalar argument selects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Per {
    /// Nothing: the work counts once.
    One,
    /// The colours of the colour argument (`w`, `b` 1, `?` 2, an invalid
    /// value 0).
    Colours,
    /// The pieces (colour and kind) of the piece argument (`??` 12, an
    /// invalid value 0).
    Pieces,
    /// The pieces of the piece argument that are not pawns (pawns attack
    /// as a set, the others one by one): `??` 10.
    Movers,
    /// The pieces of the piece argument with a queen counted as rook and
    /// bishop, each kind once (`CtrlSqrs`): `??` 10.
    ControlPieces,
    /// One in verbose mode, else 0: a line of text.
    Verbose,
    /// The colours of the colour argument in verbose mode, else 0: a line
    /// of text per colour.
    VerboseColours,
}

/// One term of a [`Cost`]: `units` of fuel for every whole `of` of
/// `work` times `per` (the rest, less than `of`, is paid by the base).
/// `of` is a power of two.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The work counted.
    pub work: Work,
    /// Its multiplier.
    pub per: Per,
    /// How much work one charge pays for.
    pub of: u32,
    /// The fuel one charge is.
    pub units: u32,
}

/// The fuel an intrinsic call charges: `base` plus every term (see
/// [`cost`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Units every call charges (at least 1): the call, and the work of
    /// every term's remainder.
    pub base: u32,
    /// The parts that grow with the arguments.
    pub terms: &'static [Term],
}

const fn fuel(base: u32, terms: &'static [Term]) -> Cost {
    Cost { base, terms }
}

const fn t(work: Work, per: Per, of: u32, units: u32) -> Term {
    Term {
        work,
        per,
        of,
        units,
    }
}

/// Fuel per colour for the passed pawns of a colour (one lookup per pawn,
/// up to 64 on a board with a full pawn bitboard).
pub const PASSED: u32 = 7;
/// Fuel per (colour, kind) of non-pawns whose attacks are generated
/// (one attack set per piece, up to 64 pieces of a kind).
pub const ATTACKS: u32 = 20;
/// Fuel per colour for an exchange pattern's reach: the attacks of every
/// piece of both sides.
pub const REACH: u32 = 250;
/// Fuel per square and colour for a static exchange evaluation (up to 34
/// captures).
pub const EXCHANGE: u32 = 27;
/// Fuel per line of text verbose mode writes.
pub const LINE: u32 = 25;

use Per::{Colours, ControlPieces, Movers, One, Pieces, Verbose, VerboseColours};
use Work::{
    Call, ColourSquares, Elements, Files, ListedPieces, Moves, Out, Reported, Segments, Slots,
    Squares, Union,
};

/// An argument of an intrinsic call as far as it is known before run
/// time (the JIT's compile-time costs and its counted loops' fuel
/// bounds).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// An int argument's value.
    Int(i32),
    /// An int argument of unknown value, or a list not known at all.
    Unknown,
    /// A list argument: all its slots, end marker and beyond included.
    List(&'a [i32]),
    /// A list argument of this many slots whose contents are not known.
    Slots(u32),
}

/// A call's list as the cost terms see it.
#[derive(Copy, Clone, Debug)]
enum ListView<'a> {
    /// Known contents: the elements (before the end marker), the slots a
    /// scan reads, all the slots.
    Known {
        elements: &'a [i32],
        scanned: u64,
        slots: u64,
    },
    /// Only the slot count is known.
    Slots(u64),
    /// Nothing is known (or the intrinsic has no list).
    Unknown,
}

impl<'a> ListView<'a> {
    fn of(slots: &'a [i32]) -> ListView<'a> {
        let (elements, scanned) = match slots.iter().position(|&v| v == LIST_END) {
            Some(n) => (&slots[..n], n as u64 + 1),
            None => (slots, slots.len() as u64),
        };
        ListView::Known {
            elements,
            scanned,
            slots: slots.len() as u64,
        }
    }
}

/// The selector arguments of a call, where known.
#[derive(Copy, Clone, Debug)]
struct Selectors {
    colour: Option<i32>,
    piece: Option<i32>,
    verbose: Option<bool>,
}

fn ones(m: u64) -> u64 {
    u64::from(m.count_ones())
}

fn sum(elements: &[i32], f: impl Fn(i32) -> u64) -> u64 {
    elements.iter().map(|&e| f(e)).sum()
}

impl Work {
    /// The work on a list's elements (`scanned` slots read of `slots`).
    fn measure(self, elements: &[i32], scanned: u64, slots: u64, elem: ElemKind) -> u64 {
        match self {
            Work::Call => 1,
            Work::Slots => scanned,
            Work::Elements => elements.len() as u64,
            Work::Union => ones(
                elements
                    .iter()
                    .filter_map(|&e| sets::square_set(e))
                    .fold(0, |acc, m| acc | m),
            ),
            Work::Squares => sum(elements, |e| sets::square_set(e).map_or(0, ones)),
            Work::Moves => sum(elements, |e| match sets::move_squares(e) {
                Some((from, to))
                    if sets::concrete_square(from).is_some()
                        || sets::concrete_square(to).is_some() =>
                {
                    ones(lit::square_mask(from)) * ones(lit::square_mask(to))
                }
                _ => 0,
            }),
            Work::Segments => sum(elements, |e| {
                sets::move_squares(e)
                    .and_then(|(f, t)| sets::line_segment(f, t))
                    .map_or(0, ones)
            }),
            Work::ColourSquares => sum(elements, |e| sets::square_colour_set(e).map_or(0, ones)),
            Work::ListedPieces => sum(elements, |e| {
                sets::piece(e).map_or(0, |(c, k)| u64::from(c.count_ones() * k.count_ones()))
            }),
            Work::Files => {
                let files = elements
                    .iter()
                    .filter_map(|&e| match elem {
                        ElemKind::BoardSide => sets::side_files(e),
                        _ => sets::column_files(e),
                    })
                    .fold(0u8, |acc, f| acc | f);
                8 * u64::from(files.count_ones())
            }
            Work::Out(n) => slots.min(u64::from(n)),
            // Charged after the call, by `invoke`.
            Work::Reported => 0,
        }
    }

    /// The most work a list of `slots` slots with any contents can make.
    fn bound(self, slots: u64) -> u64 {
        match self {
            Work::Call => 1,
            Work::Slots | Work::Elements => slots,
            Work::Union | Work::Files => 64,
            Work::Squares | Work::Moves | Work::ColourSquares => slots.saturating_mul(64),
            Work::Segments => slots.saturating_mul(8),
            Work::ListedPieces => slots.saturating_mul(12),
            Work::Out(n) => slots.min(u64::from(n)),
            Work::Reported => u64::MAX,
        }
    }

    /// The work, exactly when it is known; else `Err` with an upper bound
    /// (`None`: no bound, the list is unknown).
    fn of(self, list: ListView<'_>, elem: ElemKind) -> Result<u64, Option<u64>> {
        match (self, list) {
            (Work::Call, _) => Ok(1),
            (Work::Reported, _) => Err(None),
            (
                _,
                ListView::Known {
                    elements,
                    scanned,
                    slots,
                },
            ) => Ok(self.measure(elements, scanned, slots, elem)),
            // A `Get` form's output is measured by the slots alone.
            (Work::Out(max), ListView::Slots(n)) => Ok(n.min(u64::from(max))),
            (_, ListView::Slots(n)) => Err(Some(self.bound(n))),
            (_, ListView::Unknown) => Err(None),
        }
    }
}

/// The kinds `CtrlSqrs` gives a bonus to: a queen as rook and bishop.
fn control_kinds(ks: u8) -> u8 {
    if ks & (1 << kind::QUEEN) != 0 {
        (ks & !(1 << kind::QUEEN)) | (1 << kind::ROOK) | (1 << kind::BISHOP)
    } else {
        ks
    }
}

#[inline]
fn colour_count(v: i32) -> u64 {
    sets::colours(v).map_or(0, |cs| u64::from(cs.count_ones()))
}

#[inline]
fn piece_count(v: i32, kinds: impl Fn(u8) -> u8) -> u64 {
    sets::piece(v).map_or(0, |(cs, ks)| {
        u64::from(cs.count_ones() * kinds(ks).count_ones())
    })
}

impl Per {
    /// The multiplier at run time, every argument known (a selector the
    /// intrinsic does not have reads as 0; the table tests make sure each
    /// term's selector exists).
    #[inline]
    pub fn exact(self, colour: i32, piece: i32, verbose: bool) -> u64 {
        match self {
            Per::One => 1,
            Per::Colours => colour_count(colour),
            Per::Pieces => piece_count(piece, |ks| ks),
            Per::Movers => piece_count(piece, |ks| ks & !(1 << kind::PAWN)),
            Per::ControlPieces => piece_count(piece, control_kinds),
            Per::Verbose => u64::from(verbose),
            Per::VerboseColours if verbose => colour_count(colour),
            Per::VerboseColours => 0,
        }
    }

    /// The multiplier, exactly when its argument is known; else `Err`
    /// with its largest value.
    fn of(self, s: Selectors) -> Result<u64, u64> {
        let (value, max) = match self {
            Per::One => (Some(1), 1),
            Per::Colours => (s.colour.map(colour_count), 2),
            Per::Pieces => (s.piece.map(|v| piece_count(v, |ks| ks)), 12),
            Per::Movers => (
                s.piece
                    .map(|v| piece_count(v, |ks| ks & !(1 << kind::PAWN))),
                10,
            ),
            Per::ControlPieces => (s.piece.map(|v| piece_count(v, control_kinds)), 10),
            Per::Verbose => (s.verbose.map(u64::from), 1),
            Per::VerboseColours => (
                match s.verbose {
                    Some(false) => Some(0),
                    Some(true) => s.colour.map(colour_count),
                    None => None,
                },
                2,
            ),
        };
        value.ok_or(max)
    }
}

impl Term {
    /// The fuel for `work` times `per`. `of` is a power of two (a test
    /// checks the table), so the division is a shift: a 64-bit division
    /// costs more than the rest of a cost together.
    #[inline]
    pub fn charge(&self, work: u64, per: u64) -> u64 {
        (work.saturating_mul(per) >> self.of.trailing_zeros()).saturating_mul(u64::from(self.units))
    }
}

impl IntrinsicInfo {
    /// The index of the list parameter, if the intrinsic has one (no
    /// intrinsic has two).
    pub fn list_param(&self) -> Option<usize> {
        self.params
            .iter()
            .position(|p| matches!(p.kind, ParamKind::List { .. }))
    }

    /// The index of the first parameter of `kind`.
    fn param_of(&self, kind: ParamKind) -> Option<usize> {
        self.params.iter().position(|p| p.kind == kind)
    }

    /// The element kind of the list parameter.
    fn elem(&self) -> ElemKind {
        match self.list_param().map(|k| self.params[k].kind) {
            Some(ParamKind::List { elem, .. }) => elem,
            _ => ElemKind::Any,
        }
    }

    /// The cost of a call: `Ok` exactly, or `Err` with an upper bound over
    /// everything not known (`None`: no bound).
    fn total(&self, list: ListView<'_>, s: Selectors) -> Result<u64, Option<u64>> {
        let elem = self.elem();
        let mut total = u64::from(self.cost.base.max(1));
        let mut exact = true;
        for term in self.cost.terms {
            let work = term.work.of(list, elem);
            let per = term.per.of(s);
            exact &= work.is_ok() && per.is_ok();
            let w = match work {
                Ok(w) | Err(Some(w)) => w,
                Err(None) => return Err(None),
            };
            let p = per.unwrap_or_else(|max| max);
            total = total.saturating_add(term.charge(w, p));
        }
        if exact {
            Ok(total)
        } else {
            Err(Some(total))
        }
    }

    /// [`IntrinsicInfo::total`] for arguments known before run time.
    fn total_known(&self, args: &[Arg<'_>]) -> Result<u64, Option<u64>> {
        let int = |k: Option<usize>| match k.and_then(|k| args.get(k)) {
            Some(Arg::Int(v)) => Some(*v),
            _ => None,
        };
        let list = match self.list_param().and_then(|k| args.get(k)) {
            Some(Arg::List(slots)) => ListView::of(slots),
            Some(Arg::Slots(n)) => ListView::Slots(u64::from(*n)),
            _ => ListView::Unknown,
        };
        self.total(
            list,
            Selectors {
                colour: int(self.param_of(COLOUR)),
                piece: int(self.param_of(PIECE)),
                verbose: None,
            },
        )
    }
}

/// The fuel a call of intrinsic `id` charges, at run time: `args` are
/// its arguments (list arguments as list numbers), `memory` holds the
/// lists, `verbose` is the advice table's verbose flag. Both backends
/// charge it before the call, which fails with out-of-fuel, doing
/// nothing, when less fuel is left. At least 1; see the intrinsic table's
/// [`IntrinsicInfo::cost`] column and `docs/cvm.md` ("Fuel").
///
/// ```
/// use cvm::intrinsics::{by_name, cost, EXCHANGE, REACH};
/// let module = cvm::asm::assemble(".list l 4 = 80 80\n.func main params 0 lists 0 locals 0 stack 1 proc\n ret\n.end").unwrap();
/// let memory = cvm::runtime::Memory::new(&module);
/// let (id, info) = by_name("ExchngCtrl").unwrap();
/// // `?` over `..` `..`: both colours' reach and 64 exchanges each.
/// let base = u64::from(info.cost.base);
/// assert_eq!(cost(id, &memory, false, &[2, 0]), base + 2 * u64::from(REACH + 64 * EXCHANGE));
/// ```
// Kept out of line: the interpreter's dispatch loop calls it through
// `invoke`, and its code should not grow the loop.
#[inline(never)]
pub fn cost(id: u32, memory: &Memory, verbose: bool, args: &[i32]) -> u64 {
    cost_measured(id, memory, verbose, args, &[])
}

/// [`cost`] with the work of some lists measured beforehand: `measured`
/// by list number, `Some` for a list whose contents are the ones measured
/// ([`ListWork::of`]) and stay so. A call on such a list charges without
/// reading it, whatever its length; the charge is [`cost`]'s.
///
/// ```
/// use cvm::intrinsics::{by_name, cost, cost_measured, ListWork};
/// let module = cvm::asm::assemble(".list l 6 = 20 21 22 23 -1\n.func main params 0 lists 0 locals 0 stack 1 proc\n ret\n.end").unwrap();
/// let memory = cvm::runtime::Memory::new(&module);
/// let (id, _) = by_name("SetSqrs").unwrap();
/// let measured = [Some(ListWork::of(memory.list(0)))];
/// let args = [cvm_chess::lit::parse_piece("wN").unwrap(), 5, 0];
/// assert_eq!(cost_measured(id, &memory, false, &args, &measured), cost(id, &memory, false, &args));
/// ```
#[inline(never)]
pub fn cost_measured(
    id: u32,
    memory: &Memory,
    verbose: bool,
    args: &[i32],
    measured: &[Option<ListWork>],
) -> u64 {
    match COST_FNS.get(id as usize) {
        Some(f) => f(memory, verbose, args, measured),
        None => 1,
    }
}

/// The work every cost term can ask of one list's contents, measured once
/// ([`ListWork::of`]) for a list whose contents do not change, so that a
/// call on it is charged without reading it ([`cost_measured`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListWork {
    /// The list's slots.
    slots: u64,
    /// [`Work::Slots`], [`Work::Elements`], [`Work::Union`],
    /// [`Work::Squares`], [`Work::Moves`], [`Work::Segments`],
    /// [`Work::ColourSquares`], [`Work::ListedPieces`] in this order, then
    /// [`Work::Files`] of board-side elements and of column elements.
    measures: [u64; 10],
}

/// The content-reading kinds of work a [`ListWork`] keeps, in its order
/// (`Files` twice, once per element kind it reads).
const MEASURED: [(Work, ElemKind); 10] = [
    (Work::Slots, ElemKind::Any),
    (Work::Elements, ElemKind::Any),
    (Work::Union, ElemKind::Any),
    (Work::Squares, ElemKind::Any),
    (Work::Moves, ElemKind::Any),
    (Work::Segments, ElemKind::Any),
    (Work::ColourSquares, ElemKind::Any),
    (Work::ListedPieces, ElemKind::Any),
    (Work::Files, ElemKind::BoardSide),
    (Work::Files, ElemKind::Column),
];

impl ListWork {
    /// Measures a list with these slots (all of them, end marker and
    /// beyond included): what every kind of work would find in it.
    pub fn of(slots: &[i32]) -> ListWork {
        let (elements, scanned) = match slots.iter().position(|&v| v == LIST_END) {
            Some(n) => (&slots[..n], n as u64 + 1),
            None => (slots, slots.len() as u64),
        };
        let n = slots.len() as u64;
        ListWork {
            slots: n,
            measures: MEASURED.map(|(w, elem)| w.measure(elements, scanned, n, elem)),
        }
    }

    /// The work `w` on this list for an intrinsic whose list holds
    /// `elem`s: what [`Work::measure`] gives for the contents measured.
    #[inline(always)]
    fn get(&self, w: Work, elem: ElemKind) -> u64 {
        let k = match w {
            Work::Call => return 1,
            Work::Out(n) => return self.slots.min(u64::from(n)),
            Work::Reported => return 0,
            Work::Slots => 0,
            Work::Elements => 1,
            Work::Union => 2,
            Work::Squares => 3,
            Work::Moves => 4,
            Work::Segments => 5,
            Work::ColourSquares => 6,
            Work::ListedPieces => 7,
            Work::Files if elem == ElemKind::BoardSide => 8,
            Work::Files => 9,
        };
        self.measures[k]
    }
}

/// [`cost_measured`] of one intrinsic.
type CostFn = fn(&Memory, bool, &[i32], &[Option<ListWork>]) -> u64;

/// [`cost`] of intrinsic number `ID`, made for it by the compiler: its
/// cost terms and argument shape are constants there, so the term loop
/// reduces to that intrinsic's own arithmetic (1 for a number that is no
/// intrinsic).
fn cost_of<const ID: usize>(
    memory: &Memory,
    verbose: bool,
    args: &[i32],
    measured: &[Option<ListWork>],
) -> u64 {
    let info = const {
        if ID < INTRINSICS.len() {
            Some(&INTRINSICS[ID])
        } else {
            None
        }
    };
    match info {
        Some(info) => cost_with(info, memory, verbose, args, measured),
        None => 1,
    }
}

macro_rules! cost_table {
    ($($id:literal)*) => {
        [$(cost_of::<$id> as CostFn),*]
    };
}

/// [`cost_of`] by intrinsic number.
const COST_FNS: [CostFn; 64] = cost_table!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);
const _: () = assert!(
    INTRINSICS.len() <= COST_FNS.len(),
    "COST_FNS needs an entry for every intrinsic"
);

/// The body of [`cost`] for `info`.
#[inline(always)]
fn cost_with(
    info: &IntrinsicInfo,
    memory: &Memory,
    verbose: bool,
    args: &[i32],
    measured: &[Option<ListWork>],
) -> u64 {
    let base = u64::from(info.cost.base.max(1));
    if info.cost.terms.is_empty() {
        return base;
    }
    let shape = info.shape;
    let (colour, piece, list) = shape.selectors(args);
    let known = list
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| measured.get(v))
        .and_then(Option::as_ref);
    if let Some(work) = known {
        return charge_terms(info, base, colour, piece, verbose, |w| {
            work.get(w, shape.elem)
        });
    }
    let slots = list.map_or(&[][..], |v| list_slots(memory, v));
    // Only terms that read the list's contents need its end marker found
    // (an output list's old contents do not count).
    let (elements, scanned) = if shape.contents {
        match slots.iter().position(|&v| v == LIST_END) {
            Some(n) => (&slots[..n], n as u64 + 1),
            None => (slots, slots.len() as u64),
        }
    } else {
        (&[][..], 0)
    };
    charge_terms(info, base, colour, piece, verbose, |w| match w {
        // The two kinds of work most calls have, without the call.
        Work::Call => 1,
        Work::Out(n) => (slots.len() as u64).min(u64::from(n)),
        w => w.measure(elements, scanned, slots.len() as u64, shape.elem),
    })
}

/// `base` and the charge of each of `info`'s cost terms for the work
/// `measure` finds and the selectors given.
#[inline(always)]
fn charge_terms(
    info: &IntrinsicInfo,
    base: u64,
    colour: i32,
    piece: i32,
    verbose: bool,
    measure: impl Fn(Work) -> u64,
) -> u64 {
    let mut total = base;
    for term in info.cost.terms {
        let work = measure(term.work);
        let per = match term.per {
            Per::One => 1,
            p => p.exact(colour, piece, verbose),
        };
        total = total.saturating_add(term.charge(work, per));
    }
    total
}

/// The slots of list `id` (none for a number that is not a list).
fn list_slots(memory: &Memory, id: i32) -> &[i32] {
    usize::try_from(id)
        .ok()
        .and_then(|i| memory.lists.get(i))
        .and_then(|s| {
            let base = s.base as usize;
            memory.heap.get(base..base + s.slots as usize)
        })
        .unwrap_or(&[])
}

/// The cost of a call known before run time: `Some` when every argument
/// the cost depends on is known (a list by its contents, which must not
/// change before the call) and it does not depend on verbose mode.
pub fn cost_known(id: u32, args: &[Arg<'_>]) -> Option<u64> {
    INTRINSICS.get(id as usize)?.total_known(args).ok()
}

/// The most a call can charge given what is known of its arguments (an
/// unknown int or contents: the worst value; verbose mode on); `None`
/// when a list argument is not known at least by its size.
pub fn cost_bound(id: u32, args: &[Arg<'_>]) -> Option<u64> {
    match INTRINSICS.get(id as usize)?.total_known(args) {
        Ok(c) | Err(Some(c)) => Some(c),
        Err(None) => None,
    }
}

/// The fuel a folded pattern (`pat.all` / `pat.any` of intrinsic `id`
/// over `mask`, scalar argument `arg`) charges: the list form's cost
/// without its scan of the list, which the optimizer only folds when
/// that scan is free ([`fold_surcharge`] 0), so that both forms charge
/// the same.
pub fn cost_folded(id: u32, arg: i32, mask: u64) -> u64 {
    folded(id, Some(arg), mask)
}

/// The most a folded pattern can charge whatever its scalar argument.
pub fn cost_folded_bound(id: u32, mask: u64) -> u64 {
    folded(id, None, mask)
}

fn folded(id: u32, arg: Option<i32>, mask: u64) -> u64 {
    let Some(info) = INTRINSICS.get(id as usize) else {
        return 1;
    };
    let mut total = u64::from(info.cost.base.max(1));
    for term in info.cost.terms {
        // A folded pattern scans nothing; its list's squares are the mask.
        let work = match term.work {
            Work::Call => 1,
            Work::Union => ones(mask),
            _ => continue,
        };
        let per = match arg {
            Some(v) => term.per.exact(v, v, false),
            None => term
                .per
                .of(Selectors {
                    colour: None,
                    piece: None,
                    verbose: Some(false),
                })
                .unwrap_or_else(|max| max),
        };
        total = total.saturating_add(term.charge(work, per));
    }
    total
}

/// The one square mask, and how it is tested, that a list with these
/// slots folds into for pattern intrinsic `id` (one with a folded form,
/// [`IntrinsicInfo::fold`]) when the folded form means and charges what the
/// list form does: for an or form the union of the squares; for an and
/// form either only concrete squares (every one must hold) or a single
/// wildcard element (some square of it must hold); and the list's scan
/// must cost nothing ([`fold_surcharge`]). `None` otherwise. The
/// optimizer's `pat.all`/`pat.any` and the interpreter's folded pattern
/// calls are made from it.
pub fn fold_mask(id: u32, slots: &[i32]) -> Option<(u64, Mode)> {
    let fold = INTRINSICS.get(id as usize)?.fold?;
    if fold_surcharge(id, slots) != 0 {
        return None;
    }
    let end = slots
        .iter()
        .position(|&v| v == crate::runtime::LIST_END)
        .unwrap_or(slots.len());
    let lf = cvm_chess::pattern::ListFold::squares(&slots[..end])?;
    if fold.or_form {
        Some((lf.union, Mode::Any))
    } else if lf.any.is_empty() {
        Some((lf.all, Mode::All))
    } else if lf.all == 0 && lf.any.len() == 1 {
        Some((lf.any[0], Mode::Any))
    } else {
        None
    }
}

/// What the list form of pattern intrinsic `id` on a list with these
/// slots charges beyond its folded form: the scan of the list (the same
/// for every scalar argument). The optimizer folds a constant list only
/// when this is 0.
pub fn fold_surcharge(id: u32, slots: &[i32]) -> u64 {
    let Some(info) = INTRINSICS.get(id as usize) else {
        return 0;
    };
    let ListView::Known {
        elements,
        scanned,
        slots,
    } = ListView::of(slots)
    else {
        return 0;
    };
    info.cost
        .terms
        .iter()
        .filter(|t| !matches!(t.work, Work::Call | Work::Union))
        .map(|t| t.charge(t.work.measure(elements, scanned, slots, info.elem()), 1))
        .sum()
}

impl Work {
    /// How `docs/cvm.md` names the work.
    fn name(self) -> String {
        match self {
            Work::Call => "1".into(),
            Work::Slots => "slots".into(),
            Work::Elements => "elements".into(),
            Work::Union => "union".into(),
            Work::Squares => "squares".into(),
            Work::Moves => "moves".into(),
            Work::Segments => "segments".into(),
            Work::ColourSquares => "colour-squares".into(),
            Work::ListedPieces => "listed-pieces".into(),
            Work::Files => "file-squares".into(),
            Work::Out(n) => format!("min(slots, {n})"),
            Work::Reported => "reported".into(),
        }
    }
}

impl Per {
    /// How `docs/cvm.md` names the multiplier.
    fn name(self) -> &'static str {
        match self {
            Per::One => "",
            Per::Colours => "colours",
            Per::Pieces => "pieces",
            Per::Movers => "movers",
            Per::ControlPieces => "control-pieces",
            Per::Verbose => "verbose",
            Per::VerboseColours => "verbose-colours",
        }
    }
}

impl std::fmt::Display for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut product = Vec::new();
        if self.work != Work::Call || self.per == Per::One {
            product.push(self.work.name());
        }
        if self.per != Per::One {
            product.push(self.per.name().to_string());
        }
        let product = product.join(" × ");
        let units = if self.units == 1 {
            String::new()
        } else {
            format!("{} × ", self.units)
        };
        if self.of == 1 {
            write!(f, "{units}{product}")
        } else {
            write!(f, "{units}⌊{product} / {}⌋", self.of)
        }
    }
}

/// The cost column of the intrinsic table as the Markdown table in
/// `docs/cvm.md` ("Fuel"); a test keeps the document current.
pub fn cost_markdown() -> String {
    let mut s = String::from("| intrinsic | fuel |\n|---|---|\n");
    for info in INTRINSICS {
        let mut parts = vec![info.cost.base.to_string()];
        parts.extend(info.cost.terms.iter().map(|t| t.to_string()));
        s.push_str(&format!("| `{}` | {} |\n", info.name, parts.join(" + ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{ListDef, Module};

    /// A memory with one list of `slots` slots holding `values` first.
    fn memory(values: &[i32], capacity: u32) -> Memory {
        let mut module = Module::default();
        module.lists.push(ListDef {
            name: "l".into(),
            capacity,
            init: values.to_vec(),
        });
        Memory::new(&module)
    }

    fn id(name: &str) -> u32 {
        by_name(name).expect("intrinsic").0
    }

    fn sq(s: &str) -> i32 {
        lit::parse_square(s).expect("square")
    }

    #[test]
    fn the_table_is_well_formed() {
        for info in INTRINSICS {
            let c = info.cost;
            assert!(c.base >= 1, "{}: a call costs at least 1", info.name);
            let list = info.list_param().map(|k| info.params[k].kind);
            for t in c.terms {
                assert!(t.of.is_power_of_two(), "{}: {t}", info.name);
                assert!(t.units >= 1, "{}: {t}", info.name);
                match t.work {
                    Work::Call | Work::Reported => {}
                    Work::Out(_) => assert!(
                        matches!(list, Some(ParamKind::List { out: true, .. })),
                        "{}: {t} needs an output list",
                        info.name
                    ),
                    _ => assert!(
                        matches!(list, Some(ParamKind::List { out: false, .. })),
                        "{}: {t} needs a list it reads",
                        info.name
                    ),
                }
                let needs = match t.per {
                    Per::Colours | Per::VerboseColours => Some(COLOUR),
                    Per::Pieces | Per::Movers | Per::ControlPieces => Some(PIECE),
                    Per::One | Per::Verbose => None,
                };
                if let Some(kind) = needs {
                    assert!(info.param_of(kind).is_some(), "{}: {t}", info.name);
                }
            }
            // A folded form charges the list form's cost less the scan,
            // which must not depend on the scalar argument.
            if info.fold.is_some() {
                for t in c.terms {
                    assert!(
                        matches!(t.work, Work::Call | Work::Union)
                            || (t.work == Work::Slots && t.per == Per::One),
                        "{}: {t} cannot be folded",
                        info.name
                    );
                }
            }
        }
    }

    #[test]
    fn hand_computed_costs() {
        let all = sq("..");
        let m = memory(&[all, all], 4);
        // `?` over `..` `..`: both colours' reach and 64 exchanges each.
        let exchange = id("ExchngCtrl");
        let base = u64::from(INTRINSICS[exchange as usize].cost.base);
        assert_eq!(
            cost(exchange, &m, false, &[lit::ANY_COLOUR, 0]),
            base + 2 * u64::from(REACH) + 2 * 64 * u64::from(EXCHANGE)
        );
        // One colour; an invalid colour evaluates nothing.
        assert_eq!(
            cost(exchange, &m, false, &[lit::WHITE, 0]),
            base + u64::from(REACH) + 64 * u64::from(EXCHANGE)
        );
        assert_eq!(cost(exchange, &m, false, &[7, 0]), base);
        // A square, a file: the union has 8 squares.
        let m = memory(&[sq("e4"), sq("e.")], 2);
        assert_eq!(
            cost(exchange, &m, false, &[lit::WHITE, 0]),
            base + u64::from(REACH) + 8 * u64::from(EXCHANGE)
        );
        // SetSqrs with `??` (12 pieces) on `..` (64 squares) and e4: the
        // three slots and the 65 squares, each per eight and per piece.
        let m = memory(&[all, sq("e4")], 2);
        let set = id("SetSqrs");
        let base = u64::from(INTRINSICS[set as usize].cost.base);
        let any = lit::parse_piece("??").unwrap();
        assert_eq!(
            cost(set, &m, false, &[any, 5, 0]),
            base + 3 * 12 / 8 + 65 * 12 / 8
        );
        // A Get form: the slots it may write, at most 65.
        let get = id("GetPcOnSqrs");
        let base = u64::from(INTRINSICS[get as usize].cost.base);
        assert_eq!(
            cost(get, &memory(&[], 100), false, &[any, 0]),
            base + 65 / 16
        );
        assert_eq!(cost(get, &memory(&[], 3), false, &[any, 0]), base);
        // Verbose mode pays for the lines: one per move and colour.
        let moves = id("SetMvs");
        let m = memory(&[lit::parse_move("e2e4").unwrap()], 1);
        let quiet = cost(moves, &m, false, &[lit::ANY_COLOUR, 10, 0]);
        let verbose = cost(moves, &m, true, &[lit::ANY_COLOUR, 10, 0]);
        assert_eq!(verbose - quiet, 2 * u64::from(LINE));
        // No terms: the base.
        assert_eq!(cost(id("NxtSqr"), &m, true, &[sq("e4")]), 1);
    }

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed | 1;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// A value a list element or argument may be: chess values of every
    /// kind, end markers and junk.
    fn value(r: u64) -> i32 {
        match r % 10 {
            0 => -1,
            1 => (r >> 8) as i32,
            2 => lit::MOVE_BASE + ((r >> 8) % (81 * 128)) as i32,
            3 => lit::PIECE_BASE + ((r >> 8) % 24) as i32,
            4 => lit::COLUMN_BASE + ((r >> 8) % 9) as i32,
            5 => lit::SIDE_BASE + ((r >> 8) % 6) as i32,
            6 => lit::SQCOLOR_BASE + ((r >> 8) % 4) as i32,
            7 => ((r >> 8) % 3) as i32,
            _ => ((r >> 8) % 82) as i32,
        }
    }

    /// A random call: an intrinsic, its list (list 0 of `memory`, of
    /// `capacity` elements, filled with values of every kind), its other
    /// arguments and verbose mode.
    struct RandomCall {
        id: u32,
        capacity: u32,
        memory: Memory,
        args: Vec<i32>,
        verbose: bool,
    }

    fn random_call(next: &mut impl FnMut() -> u64) -> RandomCall {
        let id = (next() % INTRINSICS.len() as u64) as u32;
        let info = &INTRINSICS[id as usize];
        let capacity = (next() % 12) as u32;
        let values: Vec<i32> = (0..next() % 14).map(|_| value(next())).collect();
        let values = &values[..values.len().min(capacity as usize)];
        let list = info.list_param();
        let args: Vec<i32> = (0..info.params.len())
            .map(|k| if Some(k) == list { 0 } else { value(next()) })
            .collect();
        RandomCall {
            id,
            capacity,
            memory: memory(values, capacity),
            args,
            verbose: next() % 2 == 0,
        }
    }

    /// The run-time cost, the cost known before run time and the bound
    /// agree: equal when everything is known, the bound never below.
    #[test]
    fn exact_known_and_bounded_costs_agree() {
        let mut next = xorshift(0xF0E1);
        for _ in 0..20_000 {
            let RandomCall {
                id,
                capacity,
                memory: m,
                args,
                verbose,
            } = random_call(&mut next);
            let info = &INTRINSICS[id as usize];
            let list = info.list_param();
            let exact = cost(id, &m, verbose, &args);
            assert!(exact >= 1);
            let known: Vec<Arg<'_>> = (0..args.len())
                .map(|k| {
                    if Some(k) == list {
                        Arg::List(m.list(0))
                    } else {
                        Arg::Int(args[k])
                    }
                })
                .collect();
            if info.cost.terms.iter().any(|t| t.work == Work::Reported) {
                // Known only after the call: no cost before it, no bound.
                assert_eq!(cost_known(id, &known), None, "{}", info.name);
                assert_eq!(cost_bound(id, &known), None, "{}", info.name);
                continue;
            }
            let uses_verbose = info
                .cost
                .terms
                .iter()
                .any(|t| matches!(t.per, Per::Verbose | Per::VerboseColours));
            if !uses_verbose {
                assert_eq!(cost_known(id, &known), Some(exact), "{}", info.name);
            }
            let bound = cost_bound(id, &known).expect("a bound");
            assert!(bound >= exact, "{}: {bound} < {exact}", info.name);
            // Knowing only the slot count, or nothing of an int.
            let vague: Vec<Arg<'_>> = (0..args.len())
                .map(|k| {
                    if Some(k) == list {
                        Arg::Slots(capacity + 1)
                    } else if next() % 2 == 0 {
                        Arg::Unknown
                    } else {
                        Arg::Int(args[k])
                    }
                })
                .collect();
            let bound = cost_bound(id, &vague).expect("a bound");
            assert!(
                bound >= exact,
                "{}: {bound} < {exact} ({vague:?})",
                info.name
            );
            if let Some(k) = list {
                let mut unknown = vague.clone();
                unknown[k] = Arg::Unknown;
                let reads = info.cost.terms.iter().any(|t| t.work != Work::Call);
                assert_eq!(cost_bound(id, &unknown).is_none(), reads, "{}", info.name);
            }
        }
    }

    /// A call charged from its list's work measured beforehand charges
    /// what the call that reads the list charges, whatever the contents,
    /// arguments and verbose mode; a list not measured is read.
    #[test]
    fn measured_lists_charge_what_read_lists_charge() {
        let mut next = xorshift(0x3EA5);
        for _ in 0..20_000 {
            let RandomCall {
                id,
                memory: m,
                args,
                verbose,
                ..
            } = random_call(&mut next);
            let info = &INTRINSICS[id as usize];
            let read = cost(id, &m, verbose, &args);
            let measured = [Some(ListWork::of(m.list(0)))];
            assert_eq!(
                cost_measured(id, &m, verbose, &args, &measured),
                read,
                "{} on {:?}",
                info.name,
                m.list(0)
            );
            assert_eq!(cost_measured(id, &m, verbose, &args, &[None]), read);
        }
    }

    /// An intrinsic that reads its list as a set of squares, called with
    /// the set, does what the call on a list of those squares does (the
    /// result or the error, the fuel left, the advice table, the output),
    /// whatever the squares' order in the list, the selectors, verbose
    /// mode and the fuel; every other call is declined.
    #[test]
    fn square_set_calls_do_what_list_calls_do() {
        use crate::runtime::{CollectOutput, NoHost};
        use cvm_chess::AdviceTable;
        let mut next = xorshift(0x5E75);
        let mut compared = 0;
        for _ in 0..20_000 {
            let id = if next() % 2 == 0 {
                SET_SQRS
            } else {
                (next() % INTRINSICS.len() as u64) as u32
            };
            let info = &INTRINSICS[id as usize];
            let capacity = (next() % 12) as u32;
            let n = (next() % 12) as usize;
            let (mut squares, mut set) = (Vec::new(), 0u64);
            while squares.len() < n {
                let s = next() % 64;
                if set & (1 << s) == 0 {
                    set |= 1 << s;
                    squares.push(s as i32);
                }
            }
            // Now and then a list the squares fill, end-marker slot and
            // all.
            let capacity = if n > 0 && next() % 4 == 0 {
                n as u32 - 1
            } else {
                capacity
            };
            let mut m = memory(&[], capacity);
            let slots = capacity as usize + 1;
            let fits = n <= slots;
            if n < slots {
                m.fill_list(0, &squares).expect("fits");
            } else if n == slots {
                m.heap[..n].copy_from_slice(&squares);
            }
            let list = info.list_param();
            let args: Vec<i32> = (0..info.params.len())
                .map(|k| if Some(k) == list { 0 } else { value(next()) })
                .collect();
            let fuel = next() % 200;
            let verbose = i32::from(next() % 2 == 0);
            let mut tables = [Box::<AdviceTable>::default(), Box::<AdviceTable>::default()];
            let mut outs = [CollectOutput::default(), CollectOutput::default()];
            let [read, given] = &mut tables;
            let [out_read, out_given] = &mut outs;
            read.verbose = verbose;
            given.verbose = verbose;
            let got = invoke_on_squares(
                id,
                &mut Ctx {
                    memory: &mut m,
                    output: out_given,
                    host: &mut NoHost,
                    advice: given,
                },
                &args,
                set,
                set.count_ones(),
                fuel,
            );
            if !reads_square_set(id) || !fits || list.is_none() {
                assert_eq!(got, None, "{} on {squares:?}", info.name);
                continue;
            }
            let want = invoke(
                id,
                &mut Ctx {
                    memory: &mut m,
                    output: out_read,
                    host: &mut NoHost,
                    advice: read,
                },
                &args,
                fuel,
            );
            assert_eq!(got, Some(want), "{} {args:?} on {squares:?}", info.name);
            assert_eq!(
                tables[0], tables[1],
                "{} {args:?} on {squares:?}",
                info.name
            );
            assert_eq!(outs[0].lines, outs[1].lines);
            compared += 1;
        }
        assert!(compared > 5_000, "only {compared} calls compared");
    }

    /// A pattern folded into a mask charges what the list form charges
    /// when the list's scan is free (the optimizer's condition), and its
    /// bound covers every argument.
    #[test]
    fn folded_forms_charge_the_list_forms_cost() {
        let mut next = xorshift(0xF01D);
        for info_id in 0..INTRINSICS.len() as u32 {
            let info = &INTRINSICS[info_id as usize];
            if info.fold.is_none() {
                continue;
            }
            for _ in 0..2_000 {
                let n = next() % 10;
                let els: Vec<i32> = (0..n).map(|_| (next() % 81) as i32).collect();
                let capacity = n as u32 + (next() % 3) as u32;
                let m = memory(&els, capacity);
                let mask = els.iter().fold(0, |acc, &e| acc | lit::square_mask(e));
                let arg = value(next());
                let list_form = cost(info_id, &m, false, &[arg, 0]);
                let folded = cost_folded(info_id, arg, mask);
                assert_eq!(
                    list_form,
                    folded + fold_surcharge(info_id, m.list(0)),
                    "{} {els:?}",
                    info.name
                );
                assert!(cost_folded_bound(info_id, mask) >= folded);
            }
        }
    }
}
