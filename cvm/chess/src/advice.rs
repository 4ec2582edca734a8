//! The advice functions of Che++ (sections IV.5, IV.6.b and V.9.d) as
//! plain Rust functions writing an [`AdviceTable`].
//!
//! Each function handles one list element (a move value, a square mask, a
//! piece value ...), so the intrinsic table calls it once per element and
//! JIT code may call it directly with a pre-folded element. Arguments
//! arrive as raw CVM values: a colour, piece or element that is not a
//! literal of its kind makes the call (or that element) do nothing, the way
//! the original ignored moves with wildcards on both sides. The exact rules,
//! including the ones the document leaves open (which squares `ForcePwns`,
//! `Attack` and `MinAttack` reward), are in `docs/che-reference.md`,
//! "Advice functions".

use super::advice_table::AdviceTable;
use super::board::{kind, BoardView};
use super::lit;
use super::sets;
use super::style;

/// Where verbose mode reports what an advice function entered: one line
/// of text per call (the VM sends it to the program's output).
pub type Say<'a> = &'a mut dyn FnMut(&str);

/// Why `SetStyle` refused a setting (the VM reports it as the intrinsic's
/// runtime error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyleError(pub String);

impl std::fmt::Display for StyleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StyleError {}

/// `ForcePwns`: square bonus per rank a pawn has advanced beyond its
/// second rank (10 on the third rank, ..., 50 on the seventh).
pub const PAWN_STORM_STEP: i32 = 10;
/// `Attack`, `MinAttack`: square bonus for a rook on every square of an
/// attacked file.
pub const ATTACK_ROOK_BONUS: i32 = 20;
/// `Attack`: square bonus for a queen on every square of an attacked file.
pub const ATTACK_QUEEN_BONUS: i32 = 10;
/// `MinAttack`: the files whose pawns advance (a and b).
pub const MINORITY_PAWN_FILES: u8 = 0b0000_0011;
/// `MinAttack`: the files the rooks are sent to (b and c).
pub const MINORITY_ROOK_FILES: u8 = 0b0000_0110;

const COLOUR_NAMES: [char; 2] = ['w', 'b'];

/// The colours (0, 1) a colour value selects.
fn colour_list(colour: i32) -> impl Iterator<Item = usize> {
    let cs = sets::colours(colour).unwrap_or(0);
    (0..2).filter(move |c| cs & (1 << c) != 0)
}

/// The (colour, kind) pairs a piece value selects (none for a value that
/// is no piece), colours first: the rows of the advice table a piece's
/// square bonuses go to.
pub fn piece_list(piece: i32) -> impl Iterator<Item = (usize, usize)> {
    let (cs, ks) = sets::piece(piece).unwrap_or((0, 0));
    (0..2)
        .filter(move |c| cs & (1 << c) != 0)
        .flat_map(move |c| {
            (0..6)
                .filter(move |k| ks & (1 << k) != 0)
                .map(move |k| (c, k))
        })
}

fn square_name(sq: i32) -> String {
    lit::square_name(sq).unwrap_or_default()
}

/// `SetMvs` for one move value: the side (both for `?`) gets `bonus` for
/// every move the value stands for. A wildcard on one side expands to
/// every square of its set except the other side's square; wildcards on
/// both sides, and values that are not moves, are ignored. In verbose mode
/// each entered element is reported as `move w e2e4 +20` (the element as
/// written, wildcards included).
pub fn set_mvs(table: &mut AdviceTable, say: Say<'_>, colour: i32, bonus: i32, mv: i32) {
    let Some((from, to)) = sets::move_squares(mv) else {
        return;
    };
    let (fc, tc) = (sets::concrete_square(from), sets::concrete_square(to));
    let (froms, tos) = match (fc, tc) {
        (None, None) => return,
        _ => (lit::square_mask(from), lit::square_mask(to)),
    };
    for c in colour_list(colour) {
        for f in sets::squares(froms) {
            for t in sets::squares(tos & !(1 << f)) {
                table.add_move(c, f, t, bonus);
            }
        }
        if table.verbose != 0 {
            say(&format!(
                "move {} {}{} {:+}",
                COLOUR_NAMES[c],
                square_name(from),
                square_name(to),
                bonus
            ));
        }
    }
}

/// The from-square of the non-capturing pawn move of `colour` (0 or 1) to
/// `to` in this position: one step back if an own pawn stands there,
/// otherwise two steps back for a target on the side's fourth rank when an
/// own pawn stands there. Only the pawn is checked, not whether the path is
/// free (the move is advice for the whole search, not a legal root move).
pub fn pawn_move_from(board: &BoardView, colour: usize, to: usize) -> Option<usize> {
    let c = colour & 1;
    let pawns = board.pieces[c][kind::PAWN];
    let to = to as i32;
    let (step, fourth_rank) = if c == 0 { (-8, 3) } else { (8, 4) };
    let one = to + step;
    let two = to + 2 * step;
    let has = |sq: i32| (0..64).contains(&sq) && pawns & (1u64 << sq) != 0;
    if has(one) {
        Some(one as usize)
    } else if to / 8 == fourth_rank && has(two) {
        Some(two as usize)
    } else {
        None
    }
}

/// `SetPMvs` for one element given as its square mask: for every target
/// square and each selected colour, the pawn move found by
/// [`pawn_move_from`] gets `bonus`. Verbose mode reports each entered move
/// as `move w e2e4 +20`.
pub fn set_pmvs(
    board: &BoardView,
    table: &mut AdviceTable,
    say: Say<'_>,
    colour: i32,
    bonus: i32,
    targets: u64,
) {
    for c in colour_list(colour) {
        for to in sets::squares(targets) {
            if let Some(from) = pawn_move_from(board, c, to) {
                table.add_move(c, from, to, bonus);
                if table.verbose != 0 {
                    say(&format!(
                        "move {} {}{} {:+}",
                        COLOUR_NAMES[c],
                        square_name(from as i32),
                        square_name(to as i32),
                        bonus
                    ));
                }
            }
        }
    }
}

/// `SetSqrs` for one element given as its square mask: every selected
/// piece gets `bonus` on every square of the mask.
pub fn set_sqrs(table: &mut AdviceTable, piece: i32, bonus: i32, squares: u64) {
    for (c, k) in piece_list(piece) {
        for sq in sets::squares(squares) {
            table.add_square(c, k, sq, bonus);
        }
    }
}

/// `KeepBs` for one square-colour value: the side's bishops get `bonus` on
/// every square of that colour (the same entries as `SetSqrs(wB, ...)`).
pub fn keep_bs(table: &mut AdviceTable, colour: i32, bonus: i32, square_colour: i32) {
    let Some(squares) = sets::square_colour_set(square_colour) else {
        return;
    };
    for c in colour_list(colour) {
        for sq in sets::squares(squares) {
            table.add_square(c, kind::BISHOP, sq, bonus);
        }
    }
}

/// `KeepPcs` / `ChngPcsVal` for one piece value: the value of every
/// selected piece changes by `bonus`.
pub fn keep_pcs(table: &mut AdviceTable, bonus: i32, piece: i32) {
    for (c, k) in piece_list(piece) {
        table.add_piece_value(c, k, bonus);
    }
}

/// `SetDiags` for one move value: when from- and to-square are concrete and
/// on one rook or bishop line, every square of the segment (both ends
/// included) gets `bonus` for the selected pieces; other moves are ignored.
pub fn set_diags(table: &mut AdviceTable, piece: i32, bonus: i32, mv: i32) {
    if let Some(segment) = sets::move_squares(mv).and_then(|(f, t)| sets::line_segment(f, t)) {
        set_sqrs(table, piece, bonus, segment);
    }
}

/// `CtrlSqrs` for one element given as its square mask: every selected
/// piece kind gets a control bonus on every square of the mask, a queen
/// counting as rook plus bishop (each kind gets the bonus once even when
/// the piece names both, as `?O` does).
pub fn ctrl_sqrs(table: &mut AdviceTable, piece: i32, bonus: i32, squares: u64) {
    let Some((cs, mut ks)) = sets::piece(piece) else {
        return;
    };
    if ks & (1 << kind::QUEEN) != 0 {
        ks = (ks & !(1 << kind::QUEEN)) | (1 << kind::ROOK) | (1 << kind::BISHOP);
    }
    for c in (0..2).filter(|c| cs & (1 << c) != 0) {
        for k in (0..6).filter(|k| ks & (1 << k) != 0) {
            for sq in sets::squares(squares) {
                table.add_control(c, k, sq, bonus);
            }
        }
    }
}

/// The rank of `sq` counted from `colour`'s side (0 = own first rank).
fn relative_rank(colour: usize, sq: usize) -> usize {
    if colour == 0 {
        sq / 8
    } else {
        7 - sq / 8
    }
}

/// `ForcePwns` for a set of files (bit `f` = file `f`): on those files the
/// side's pawns get [`PAWN_STORM_STEP`] per rank beyond their second rank
/// (third rank 10, fourth 20, ..., seventh 50).
pub fn force_pwns(table: &mut AdviceTable, colour: i32, files: u8) {
    for c in colour_list(colour) {
        for sq in sets::squares(sets::files_mask(files)) {
            let r = relative_rank(c, sq);
            if (2..=6).contains(&r) {
                table.add_square(c, kind::PAWN, sq, PAWN_STORM_STEP * (r as i32 - 1));
            }
        }
    }
}

fn rook_and_queen_files(table: &mut AdviceTable, c: usize, files: u8, rook: i32, queen: i32) {
    for sq in sets::squares(sets::files_mask(files)) {
        table.add_square(c, kind::ROOK, sq, rook);
        table.add_square(c, kind::QUEEN, sq, queen);
    }
}

/// `Attack` for a set of files: [`force_pwns`] on them, and the side's rooks
/// get [`ATTACK_ROOK_BONUS`] and its queens [`ATTACK_QUEEN_BONUS`] on every
/// square of them.
pub fn attack(table: &mut AdviceTable, colour: i32, files: u8) {
    force_pwns(table, colour, files);
    for c in colour_list(colour) {
        rook_and_queen_files(table, c, files, ATTACK_ROOK_BONUS, ATTACK_QUEEN_BONUS);
    }
}

/// `MinAttack`: the queen-side minority attack: [`force_pwns`] on the a- and
/// b-files, and the side's rooks get [`ATTACK_ROOK_BONUS`] on every square
/// of the b- and c-files.
pub fn min_attack(table: &mut AdviceTable, colour: i32) {
    force_pwns(table, colour, MINORITY_PAWN_FILES);
    for c in colour_list(colour) {
        rook_and_queen_files(table, c, MINORITY_ROOK_FILES, ATTACK_ROOK_BONUS, 0);
    }
}

/// The files (bit `f` = file `f`) of the board-side values in `sides`;
/// other values are skipped.
pub fn files_of_sides(sides: &[i32]) -> u8 {
    sides
        .iter()
        .filter_map(|&s| sets::side_files(s))
        .fold(0, |acc, f| acc | f)
}

/// `SetStyle`: overrides style parameter `id` for this position. Flags are
/// stored as 0 or 1. `ST_DEFAULTVALUES` sets the table's `style_defaults`
/// and drops the overrides made so far. Refused with an error: an unknown
/// id, `ST_LEARNFLG`, and an `ST_OPPONENT` value that is not an `OPP_*`
/// value. Verbose mode reports `style ST_NAME VALUE` (or `style
/// ST_DEFAULTVALUES`).
pub fn set_style(
    table: &mut AdviceTable,
    say: Say<'_>,
    id: i32,
    value: i32,
) -> Result<(), StyleError> {
    if id == style::ST_DEFAULTVALUES {
        table.style_defaults = 1;
        table.style_set = 0;
        table.style = [0; style::STYLE_COUNT];
        if table.verbose != 0 {
            say("style ST_DEFAULTVALUES");
        }
        return Ok(());
    }
    let Some(param) = style::param(id) else {
        return Err(StyleError(format!("SetStyle: {id} is not a style id")));
    };
    if id == style::ST_LEARNFLG {
        return Err(StyleError(
            "SetStyle: ST_LEARNFLG cannot be changed by a program".into(),
        ));
    }
    if id == style::ST_OPPONENT && !(style::OPP_FRITZ..=style::OPP_OTHER).contains(&value) {
        return Err(StyleError(format!(
            "SetStyle: {value} is not an OPP_* value"
        )));
    }
    let value = if param.flag {
        i32::from(value != 0)
    } else {
        value
    };
    table.style[id as usize] = value;
    table.style_set |= 1 << id;
    if table.verbose != 0 {
        say(&format!("style {} {}", param.name, value));
    }
    Ok(())
}

/// `SetVerbose`: verbose mode on for a non-zero value, off for 0.
pub fn set_verbose(table: &mut AdviceTable, value: i32) {
    table.verbose = i32::from(value != 0);
}

/// The files (bit `f` = file `f`) of the column values in `columns`
/// (`.line` is every file); other values are skipped.
pub fn files_of_columns(columns: &[i32]) -> u8 {
    columns
        .iter()
        .filter_map(|&c| sets::column_files(c))
        .fold(0, |acc, f| acc | f)
}
