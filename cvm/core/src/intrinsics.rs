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
use crate::runtime::{Host, Memory, Output, TrapKind, LIST_END};
use cvm_chess::advice_table::AdviceTable;
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
    /// The fuel a call charges (see [`cost`]).
    pub cost: Cost,
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
        cost,
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
        fuel(1, &[t(Slots, One, 32, 1)]),
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
        fuel(2, &[t(Out(65), One, 16, 1)]),
        "Fills the list with the squares the piece stands on; returns their number."),
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
        fuel(2, &[t(Out(65), One, 16, 1)]),
        "Fills the list with the squares of the colour's doubled pawns; returns their number."),
    // IV.2.e
    intr("POnLine", PAWN_LINES, true, calls::p_on_line,
        fuel(2, &[t(Slots, One, 8, 1)]),
        "True if on every listed column the number of pawns of the colour compares to the number."),
    intr("orPOnLine", PAWN_LINES, true, calls::or_p_on_line,
        fuel(2, &[t(Slots, One, 8, 1)]),
        "True if on one of the listed columns the number of pawns of the colour compares to the number."),
    intr("GetPOnLine", PAWN_LINES_OUT, true, calls::get_p_on_line,
        fuel(2, &[t(Out(9), One, 16, 1)]),
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
        "Fills the list with the squares of the colour's passed pawns; returns their number."),
    // IV.2.g
    intr("Control", PIECE_SQUARES, true, calls::control,
        fuel(2, &[t(Call, Movers, 1, ATTACKS), t(Slots, One, 8, 2)]),
        "True if the piece can capture on every listed square in one pseudo-legal move.").folds(pattern::control_mask, false),
    intr("orControl", PIECE_SQUARES, true, calls::or_control,
        fuel(2, &[t(Call, Movers, 1, ATTACKS), t(Slots, One, 8, 2)]),
        "True if the piece can capture on one of the listed squares in one pseudo-legal move.").folds(pattern::control_mask, true),
    intr("GetControl", PIECE_SQUARES_OUT, true, calls::get_control,
        fuel(2, &[t(Call, Movers, 1, ATTACKS), t(Out(65), One, 16, 1)]),
        "Fills the list with every square the piece controls; returns their number."),
    // IV.2.h
    intr("ExchngCtrl", COLOUR_SQUARES, true, calls::exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH), t(Union, Colours, 1, EXCHANGE), t(Slots, One, 8, 2)]),
        "True if the colour (both colours for ?) has exchange control over every listed square.").folds(pattern::exchng_ctrl_mask, false),
    intr("orExchngCtrl", COLOUR_SQUARES, true, calls::or_exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH), t(Union, Colours, 1, EXCHANGE), t(Slots, One, 8, 2)]),
        "True if the colour (both colours for ?) has exchange control over one of the listed squares.").folds(pattern::exchng_ctrl_mask, true),
    intr("GetExchngCtrl", COLOUR_SQUARES_OUT, true, calls::get_exchng_ctrl,
        fuel(2, &[t(Call, Colours, 1, REACH + 64 * EXCHANGE), t(Out(65), One, 16, 1)]),
        "Fills the list with the squares the colour has exchange control over; returns their number."),
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
        fuel(2, &[t(Slots, One, 8, 2), t(Moves, Colours, 8, 1), t(Slots, VerboseColours, 1, LINE)]),
        "Adds the bonus to the side's moves in the list (one wildcard side expands; two are ignored)."),
    intr("SetPMvs", &[p("colour", COLOUR), p("bonus", INT), p("squares", list(E::Square))], false,
        calls::set_p_mvs,
        fuel(2, &[t(Slots, One, 8, 2), t(Squares, Colours, 8, 1), t(Squares, VerboseColours, 1, LINE)]),
        "Adds the bonus to the side's non-capturing pawn moves to the squares, from where its pawns stand."),
    intr("SetSqrs", PIECE_BONUS_SQUARES, false, calls::set_sqrs,
        fuel(2, &[t(Slots, Pieces, 8, 1), t(Squares, Pieces, 8, 1)]),
        "Adds the bonus to the piece's square values on the listed squares."),
    intr("KeepBs", &[p("colour", COLOUR), p("bonus", INT), p("colours", list(E::SquareColour))], false,
        calls::keep_bs,
        fuel(2, &[t(Slots, One, 8, 1), t(ColourSquares, Colours, 8, 1)]),
        "Adds the bonus to the side's bishops on the squares of the listed square colours."),
    intr("KeepPcs", BONUS_PIECES, false, calls::keep_pcs,
        fuel(2, &[t(Slots, One, 8, 1), t(ListedPieces, One, 8, 1)]),
        "Changes the value of the listed pieces by the bonus."),
    intr("ChngPcsVal", BONUS_PIECES, false, calls::keep_pcs,
        fuel(2, &[t(Slots, One, 8, 1), t(ListedPieces, One, 8, 1)]),
        "Changes the value of the listed pieces by the bonus (the same as KeepPcs)."),
    intr("SetDiags", &[p("piece", PIECE), p("bonus", INT), p("moves", list(E::Move))], false, calls::set_diags,
        fuel(2, &[t(Slots, One, 8, 2), t(Segments, Pieces, 8, 1)]),
        "Adds the bonus to the piece's square values along each listed rook or bishop line."),
    intr("MinAttack", &[p("colour", COLOUR)], false, calls::min_attack,
        fuel(2, &[t(Call, Colours, 1, 2)]),
        "Advises a queen-side minority attack: a- and b-pawns forward, rooks to the b- and c-files."),
    intr("ForcePwns", &[p("colour", COLOUR), p("columns", list(E::Column))], false, calls::force_pwns,
        fuel(2, &[t(Slots, One, 8, 1), t(Files, Colours, 8, 1)]),
        "Rewards the side's pawns on the listed columns for every rank they advance."),
    intr("Attack", COLOUR_SIDES, false, calls::attack,
        fuel(2, &[t(Slots, One, 8, 1), t(Files, Colours, 8, 3)]),
        "Advises an attack on the listed sides: pawns forward, rooks and queens onto their files."),
    intr("CtrlSqrs", PIECE_BONUS_SQUARES, false, calls::ctrl_sqrs,
        fuel(2, &[t(Slots, ControlPieces, 8, 1), t(Squares, ControlPieces, 8, 1)]),
        "Adds the bonus to the piece's control of the listed squares (a queen as rook plus bishop)."),
    // IV.6, V.9.d
    intr("GetStyle", &[p("id", INT)], true, calls::get_style,
        fuel(1, &[]),
        "The engine's setting of the style parameter (not changed by SetStyle); 0 for an unknown id."),
    intr("SetStyle", &[p("id", INT), p("value", INT)], false, calls::set_style,
        fuel(1, &[t(Call, Verbose, 1, LINE)]),
        "Overrides a style parameter for this position; ST_LEARNFLG and unknown ids are refused."),
    intr("GetScore", &[p("prev_moves", INT)], true, calls::get_score,
        fuel(1, &[]),
        "The engine's score of its own move that many moves ago, from its side; 0 when unknown."),
    intr("SetVerbose", &[p("value", INT)], false, calls::set_verbose,
        fuel(1, &[]),
        "Turns verbose mode on (non-zero) or off: advised moves and style changes are printed."),
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
pub const PASSED: u32 = 5;
/// Fuel per (colour, kind) of non-pawns whose attacks are generated
/// (one attack set per piece, up to 64 pieces of a kind).
pub const ATTACKS: u32 = 16;
/// Fuel per colour for an exchange pattern's reach: the attacks of every
/// piece of both sides.
pub const REACH: u32 = 175;
/// Fuel per square and colour for a static exchange evaluation (up to 34
/// captures).
pub const EXCHANGE: u32 = 27;
/// Fuel per line of text verbose mode writes.
pub const LINE: u32 = 20;

use Per::{Colours, ControlPieces, Movers, One, Pieces, Verbose, VerboseColours};
use Work::{Call, ColourSquares, Files, ListedPieces, Moves, Out, Segments, Slots, Squares, Union};

/// An argument of an intrinsic call as far as it is known: at run time
/// every argument is; before (the JIT's compile-time costs and its
/// counted loops' fuel bounds) some are not.
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
    /// The square list of a folded pattern (`pat.all`, `pat.any`): only
    /// its mask is left ([`Work::Union`] is its squares; nothing is
    /// scanned).
    Mask(u64),
}

/// The list and the selector arguments of a call, as the terms read them.
struct Inputs<'a> {
    list: Arg<'a>,
    elem: ElemKind,
    colour: Option<i32>,
    piece: Option<i32>,
    verbose: Option<bool>,
}

/// The elements of a list (before the end marker) and the slots a scan
/// reads.
fn scan(slots: &[i32]) -> (&[i32], u64) {
    match slots.iter().position(|&v| v == LIST_END) {
        Some(n) => (&slots[..n], n as u64 + 1),
        None => (slots, slots.len() as u64),
    }
}

fn ones(m: u64) -> u64 {
    u64::from(m.count_ones())
}

impl Work {
    /// The work on a list's elements (`scanned` slots read), exactly.
    fn measure(self, elements: &[i32], scanned: u64, slots: u64, elem: ElemKind) -> u64 {
        let sum = |f: &dyn Fn(i32) -> u64| elements.iter().map(|&e| f(e)).sum::<u64>();
        match self {
            Work::Call => 1,
            Work::Slots => scanned,
            Work::Union => ones(
                elements
                    .iter()
                    .filter_map(|&e| sets::square_set(e))
                    .fold(0, |acc, m| acc | m),
            ),
            Work::Squares => sum(&|e| sets::square_set(e).map_or(0, ones)),
            Work::Moves => sum(&|e| match sets::move_squares(e) {
                Some((from, to))
                    if sets::concrete_square(from).is_some()
                        || sets::concrete_square(to).is_some() =>
                {
                    ones(lit::square_mask(from)) * ones(lit::square_mask(to))
                }
                _ => 0,
            }),
            Work::Segments => sum(&|e| {
                sets::move_squares(e)
                    .and_then(|(f, t)| sets::line_segment(f, t))
                    .map_or(0, ones)
            }),
            Work::ColourSquares => sum(&|e| sets::square_colour_set(e).map_or(0, ones)),
            Work::ListedPieces => sum(&|e| {
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
        }
    }

    /// The most work a list of `slots` slots with any contents can make.
    fn bound(self, slots: u64) -> u64 {
        match self {
            Work::Call => 1,
            Work::Slots => slots,
            Work::Union | Work::Files => 64,
            Work::Squares | Work::Moves | Work::ColourSquares => 64 * slots,
            Work::Segments => 8 * slots,
            Work::ListedPieces => 12 * slots,
            Work::Out(n) => slots.min(u64::from(n)),
        }
    }

    /// The work, exactly when it is known; else `Err` with an upper bound
    /// (`None`: no bound, the list is unknown).
    fn of(self, inputs: &Inputs<'_>) -> Result<u64, Option<u64>> {
        match (self, inputs.list) {
            (Work::Call, _) => Ok(1),
            (_, Arg::List(slots)) => {
                let (elements, scanned) = scan(slots);
                Ok(self.measure(elements, scanned, slots.len() as u64, inputs.elem))
            }
            (_, Arg::Slots(n)) => Err(Some(self.bound(u64::from(n)))),
            (Work::Union, Arg::Mask(m)) => Ok(ones(m)),
            // A folded pattern scans nothing; no other work applies to one.
            (_, Arg::Mask(_)) => Ok(0),
            (_, Arg::Unknown | Arg::Int(_)) => Err(None),
        }
    }
}

impl Per {
    /// The multiplier, exactly when its argument is known; else `Err`
    /// with its largest value.
    fn of(self, inputs: &Inputs<'_>) -> Result<u64, u64> {
        let colours =
            |v: Option<i32>| v.map(|c| sets::colours(c).map_or(0, |cs| u64::from(cs.count_ones())));
        let pieces = |mask: fn(u8) -> u8| {
            inputs.piece.map(|v| {
                sets::piece(v).map_or(0, |(cs, ks)| {
                    u64::from(cs.count_ones() * mask(ks).count_ones())
                })
            })
        };
        let (value, max) = match self {
            Per::One => (Some(1), 1),
            Per::Colours => (colours(inputs.colour), 2),
            Per::Pieces => (pieces(|ks| ks), 12),
            Per::Movers => (pieces(|ks| ks & !(1 << kind::PAWN)), 10),
            Per::ControlPieces => (
                pieces(|ks| {
                    if ks & (1 << kind::QUEEN) != 0 {
                        (ks & !(1 << kind::QUEEN)) | (1 << kind::ROOK) | (1 << kind::BISHOP)
                    } else {
                        ks
                    }
                }),
                10,
            ),
            Per::Verbose => (inputs.verbose.map(u64::from), 1),
            Per::VerboseColours => (
                match inputs.verbose {
                    Some(false) => Some(0),
                    Some(true) => colours(inputs.colour),
                    None => None,
                },
                2,
            ),
        };
        value.ok_or(max)
    }
}

impl Term {
    fn charge(&self, work: u64, per: u64) -> u64 {
        (work.saturating_mul(per) / u64::from(self.of.max(1))).saturating_mul(u64::from(self.units))
    }
}

impl IntrinsicInfo {
    /// The index of the list parameter, if the intrinsic has one.
    pub fn list_param(&self) -> Option<usize> {
        self.params
            .iter()
            .position(|p| matches!(p.kind, ParamKind::List { .. }))
    }

    fn param_of(&self, kind: ParamKind) -> Option<usize> {
        self.params.iter().position(|p| p.kind == kind)
    }

    /// The cost of a call with these arguments (one per parameter) and
    /// verbose mode: `Ok` exactly, or `Err` with an upper bound over
    /// everything not known (`None`: no bound).
    fn evaluate(&self, args: &[Arg<'_>], verbose: Option<bool>) -> Result<u64, Option<u64>> {
        let int = |k: Option<usize>| match k.and_then(|k| args.get(k)) {
            Some(Arg::Int(v)) => Some(*v),
            _ => None,
        };
        let (list, elem) = match self.list_param() {
            Some(k) => (
                args.get(k).copied().unwrap_or(Arg::Unknown),
                match self.params[k].kind {
                    ParamKind::List { elem, .. } => elem,
                    _ => ElemKind::Any,
                },
            ),
            None => (Arg::Unknown, ElemKind::Any),
        };
        let inputs = Inputs {
            list,
            elem,
            colour: int(self.param_of(COLOUR)),
            piece: int(self.param_of(PIECE)),
            verbose,
        };
        let mut total = u64::from(self.cost.base.max(1));
        let mut exact = true;
        for term in self.cost.terms {
            let work = term.work.of(&inputs);
            let per = term.per.of(&inputs);
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
}

/// The fuel a call of intrinsic `id` charges, at run time: `args` are
/// its arguments (list arguments as list numbers), `memory` holds the
/// lists, `verbose` is the advice table's verbose flag. Both backends
/// charge it before the call, which fails with out-of-fuel, doing
/// nothing, when less fuel is left. At least 1; see the intrinsic table's
/// [`IntrinsicInfo::cost`] column and `docs/cvm.md` ("Fuel").
///
/// ```
/// use cvm::intrinsics::{by_name, cost};
/// let module = cvm::asm::assemble(".list l 4 = 80 80\n.func main params 0 lists 0 locals 0 stack 1 proc\n ret\n.end").unwrap();
/// let memory = cvm::runtime::Memory::new(&module);
/// let (id, _) = by_name("ExchngCtrl").unwrap();
/// // `?` over `..`: both colours' reach and 64 exchanges each.
/// assert_eq!(cost(id, &memory, false, &[2, 0]), 2 + 2 * 175 + 2 * 64 * 27);
/// ```
pub fn cost(id: u32, memory: &Memory, verbose: bool, args: &[i32]) -> u64 {
    let Some(info) = INTRINSICS.get(id as usize) else {
        return 1;
    };
    if info.cost.terms.is_empty() {
        return u64::from(info.cost.base.max(1));
    }
    let list = info.list_param();
    let mut known = [Arg::Unknown; MAX_PARAMS];
    for (k, (slot, &v)) in known.iter_mut().zip(args).enumerate() {
        *slot = if Some(k) == list {
            Arg::List(list_slots(memory, v))
        } else {
            Arg::Int(v)
        };
    }
    match info.evaluate(&known[..args.len().min(MAX_PARAMS)], Some(verbose)) {
        Ok(c) | Err(Some(c)) => c,
        Err(None) => u64::from(info.cost.base.max(1)),
    }
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
    INTRINSICS.get(id as usize)?.evaluate(args, None).ok()
}

/// The most a call can charge given what is known of its arguments (an
/// unknown int or contents: the worst value; verbose mode on); `None`
/// when a list argument is not known at least by its size.
pub fn cost_bound(id: u32, args: &[Arg<'_>]) -> Option<u64> {
    match INTRINSICS.get(id as usize)?.evaluate(args, None) {
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
    folded(id, Arg::Int(arg), mask).unwrap_or(1)
}

/// The most a folded pattern can charge whatever its scalar argument.
pub fn cost_folded_bound(id: u32, mask: u64) -> u64 {
    folded(id, Arg::Unknown, mask).unwrap_or(1)
}

fn folded(id: u32, arg: Arg<'_>, mask: u64) -> Option<u64> {
    let info = INTRINSICS.get(id as usize)?;
    let list = info.list_param()?;
    let mut args = [Arg::Unknown; MAX_PARAMS];
    args[list] = Arg::Mask(mask);
    if let Some(k) = (0..info.params.len()).find(|&k| k != list) {
        args[k] = arg;
    }
    match info.evaluate(&args[..info.params.len()], Some(false)) {
        Ok(c) | Err(Some(c)) => Some(c),
        Err(None) => None,
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
    let (elements, scanned) = scan(slots);
    info.cost
        .terms
        .iter()
        .filter(|t| !matches!(t.work, Work::Call | Work::Union))
        .map(|t| {
            let w = t
                .work
                .measure(elements, scanned, slots.len() as u64, ElemKind::Square);
            t.charge(w, 1)
        })
        .sum()
}
