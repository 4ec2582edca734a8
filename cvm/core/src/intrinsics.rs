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
use crate::runtime::{Host, Memory, Output, TrapKind};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use cvm_chess::pattern::{self, Mode};
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

/// The state an intrinsic may read and change.
pub struct Ctx<'a> {
    /// Globals and lists of the running instance.
    pub memory: &'a mut Memory,
    /// Where output goes.
    pub output: &'a mut dyn Output,
    /// The embedder.
    pub host: &'a mut dyn Host,
    /// The advice table the advice functions write.
    pub advice: &'a mut AdviceTable,
}

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
    doc: &'static str,
) -> IntrinsicInfo {
    IntrinsicInfo {
        name,
        params,
        returns,
        func,
        doc,
        fold: None,
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
/// ("Chess functions"); their Rust implementations live in
/// [`crate::chess`].
pub const INTRINSICS: &[IntrinsicInfo] = &[
    // IV.3.a
    intr("ListLen", &[p("list", LIST_ANY)], true, calls::list_len,
        "Number of elements before the first end marker (-1), bounded by the list's slots."),
    // IV.2.b
    intr("KingPos", COLOUR_SIDES, true, calls::king_pos,
        "True if the king of the colour (both kings for ?) stands on every listed board side."),
    intr("orKingPos", COLOUR_SIDES, true, calls::or_king_pos,
        "True if the king of the colour (both kings for ?) stands on one of the listed board sides."),
    intr("GetKingPos", COLOUR_SIDES_OUT, true, calls::get_king_pos,
        "Fills the list with the board sides the king of the colour stands on; returns their number."),
    // IV.2.c
    intr("PcOnSqrs", PIECE_SQUARES, true, calls::pc_on_sqrs,
        "True if the piece stands on every listed square (on some square of each wildcard).").folds(pattern::pc_on_sqrs_mask, false),
    intr("orPcOnSqrs", PIECE_SQUARES, true, calls::or_pc_on_sqrs,
        "True if the piece stands on one of the listed squares.").folds(pattern::pc_on_sqrs_mask, true),
    intr("GetPcOnSqrs", PIECE_SQUARES_OUT, true, calls::get_pc_on_sqrs,
        "Fills the list with the squares the piece stands on; returns their number."),
    intr("CmpNrPcs", &[p("piece", PIECE), p("op", COMPOP), p("number", INT), p("squares", list(E::Square))], true,
        calls::cmp_nr_pcs,
        "True if, for every listed square set, the number of the piece on it compares to the number."),
    // IV.2.d
    intr("DblPwns", COLOUR_SQUARES, true, calls::dbl_pwns,
        "True if a doubled pawn of the colour stands on every listed square (or square set).").folds(pattern::dbl_pwns_mask, false),
    intr("orDblPwns", COLOUR_SQUARES, true, calls::or_dbl_pwns,
        "True if a doubled pawn of the colour stands on one of the listed squares.").folds(pattern::dbl_pwns_mask, true),
    intr("GetDblPwns", COLOUR_SQUARES_OUT, true, calls::get_dbl_pwns,
        "Fills the list with the squares of the colour's doubled pawns; returns their number."),
    // IV.2.e
    intr("POnLine", PAWN_LINES, true, calls::p_on_line,
        "True if on every listed column the number of pawns of the colour compares to the number."),
    intr("orPOnLine", PAWN_LINES, true, calls::or_p_on_line,
        "True if on one of the listed columns the number of pawns of the colour compares to the number."),
    intr("GetPOnLine", PAWN_LINES_OUT, true, calls::get_p_on_line,
        "Fills the list with the columns whose pawn count compares to the number; returns their number."),
    // IV.2.f
    intr("Passed", COLOUR_SQUARES, true, calls::passed,
        "True if a passed pawn of the colour stands on every listed square (or square set).").folds(pattern::passed_mask, false),
    intr("orPassed", COLOUR_SQUARES, true, calls::or_passed,
        "True if a passed pawn of the colour stands on one of the listed squares.").folds(pattern::passed_mask, true),
    intr("GetPassed", COLOUR_SQUARES_OUT, true, calls::get_passed,
        "Fills the list with the squares of the colour's passed pawns; returns their number."),
    // IV.2.g
    intr("Control", PIECE_SQUARES, true, calls::control,
        "True if the piece can capture on every listed square in one pseudo-legal move.").folds(pattern::control_mask, false),
    intr("orControl", PIECE_SQUARES, true, calls::or_control,
        "True if the piece can capture on one of the listed squares in one pseudo-legal move.").folds(pattern::control_mask, true),
    intr("GetControl", PIECE_SQUARES_OUT, true, calls::get_control,
        "Fills the list with every square the piece controls; returns their number."),
    // IV.2.h
    intr("ExchngCtrl", COLOUR_SQUARES, true, calls::exchng_ctrl,
        "True if the colour (both colours for ?) has exchange control over every listed square.").folds(pattern::exchng_ctrl_mask, false),
    intr("orExchngCtrl", COLOUR_SQUARES, true, calls::or_exchng_ctrl,
        "True if the colour (both colours for ?) has exchange control over one of the listed squares.").folds(pattern::exchng_ctrl_mask, true),
    intr("GetExchngCtrl", COLOUR_SQUARES_OUT, true, calls::get_exchng_ctrl,
        "Fills the list with the squares the colour has exchange control over; returns their number."),
    // IV.3.b
    intr("NxtSqr", &[p("square", SQUARE)], true, calls::nxt_sqr,
        "The next square (h1 -> a2, a. -> b., .7 -> .8), or CHE_INVSQR (-1) after the last and for .."),
    intr("PrvSqr", &[p("square", SQUARE)], true, calls::prv_sqr,
        "The previous square, or CHE_INVSQR (-1) before the first and for .."),
    intr("GetLSqrs", SQUARE_OUT, true, calls::get_l_sqrs,
        "Fills the list with the square and the squares left of it on its rank; empty for a wildcard."),
    intr("GetRSqrs", SQUARE_OUT, true, calls::get_r_sqrs,
        "Fills the list with the square and the squares right of it on its rank; empty for a wildcard."),
    intr("GetDwnSqrs", SQUARE_OUT, true, calls::get_dwn_sqrs,
        "Fills the list with the square and the squares below it on its file; empty for a wildcard."),
    intr("GetUpSqrs", SQUARE_OUT, true, calls::get_up_sqrs,
        "Fills the list with the square and the squares above it on its file; empty for a wildcard."),
    // IV.5
    intr("SetMvs", &[p("colour", COLOUR), p("bonus", INT), p("moves", list(E::Move))], false, calls::set_mvs,
        "Adds the bonus to the side's moves in the list (one wildcard side expands; two are ignored)."),
    intr("SetPMvs", &[p("colour", COLOUR), p("bonus", INT), p("squares", list(E::Square))], false,
        calls::set_p_mvs,
        "Adds the bonus to the side's non-capturing pawn moves to the squares, from where its pawns stand."),
    intr("SetSqrs", PIECE_BONUS_SQUARES, false, calls::set_sqrs,
        "Adds the bonus to the piece's square values on the listed squares."),
    intr("KeepBs", &[p("colour", COLOUR), p("bonus", INT), p("colours", list(E::SquareColour))], false,
        calls::keep_bs,
        "Adds the bonus to the side's bishops on the squares of the listed square colours."),
    intr("KeepPcs", BONUS_PIECES, false, calls::keep_pcs,
        "Changes the value of the listed pieces by the bonus."),
    intr("ChngPcsVal", BONUS_PIECES, false, calls::keep_pcs,
        "Changes the value of the listed pieces by the bonus (the same as KeepPcs)."),
    intr("SetDiags", &[p("piece", PIECE), p("bonus", INT), p("moves", list(E::Move))], false, calls::set_diags,
        "Adds the bonus to the piece's square values along each listed rook or bishop line."),
    intr("MinAttack", &[p("colour", COLOUR)], false, calls::min_attack,
        "Advises a queen-side minority attack: a- and b-pawns forward, rooks to the b- and c-files."),
    intr("ForcePwns", &[p("colour", COLOUR), p("columns", list(E::Column))], false, calls::force_pwns,
        "Rewards the side's pawns on the listed columns for every rank they advance."),
    intr("Attack", COLOUR_SIDES, false, calls::attack,
        "Advises an attack on the listed sides: pawns forward, rooks and queens onto their files."),
    intr("CtrlSqrs", PIECE_BONUS_SQUARES, false, calls::ctrl_sqrs,
        "Adds the bonus to the piece's control of the listed squares (a queen as rook plus bishop)."),
    // IV.6, V.9.d
    intr("GetStyle", &[p("id", INT)], true, calls::get_style,
        "The engine's setting of the style parameter (not changed by SetStyle); 0 for an unknown id."),
    intr("SetStyle", &[p("id", INT), p("value", INT)], false, calls::set_style,
        "Overrides a style parameter for this position; ST_LEARNFLG and unknown ids are refused."),
    intr("GetScore", &[p("prev_moves", INT)], true, calls::get_score,
        "The engine's score of its own move that many moves ago, from its side; 0 when unknown."),
    intr("SetVerbose", &[p("value", INT)], false, calls::set_verbose,
        "Turns verbose mode on (non-zero) or off: advised moves and style changes are printed."),
    // Not in the Che++ documents: the way a front end reaches its runtime in the host.
    intr("HostCall", &[p("service", INT), p("a", INT), p("b", INT), p("c", INT)], true, calls::host_call,
        "Asks the embedder for service number `service` with three words; its answer (0 without a host)."),
];

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
