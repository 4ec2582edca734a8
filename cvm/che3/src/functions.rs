//! The predefined functions of Che: one table, [`FUNCTIONS`], with each
//! function's name, whether it is a pattern or an advice function, the
//! arguments it takes and one sentence of what it means.
//!
//! The parser reads the names from here, the checker the argument shapes,
//! the documentation test the sentences; what each function compiles to
//! (which Che++ intrinsics, with which bonus) is [`crate::lower`]'s single
//! job, shared by the code generator and the converter.

use cvm_chess::lit::LitKind;

/// Whether a function tests the position or gives advice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// True or false on the position; stands in patterns.
    Pattern,
    /// Writes the advice table; stands in advices.
    Advice,
}

/// The arguments a function takes. Arguments are separated by blanks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// No argument: `isendgame()`.
    Nothing,
    /// A list (0 or more) of literals of one kind: `wpwns(d4 e4)`.
    List(LitKind),
    /// A piece, then a list of literals of one kind: `goodsqrs(wN d4 e5)`.
    PieceList(LitKind),
    /// Exactly one board side: `wkingside(kside)`.
    Side,
}

/// Every Che function.
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Wpwns,
    Bpwns,
    Wpwncols,
    Bpwncols,
    Opencols,
    Orwpwns,
    Orbpwns,
    Pwnrams,
    Piecesqrs,
    Piececols,
    Piecerows,
    Piecesonbrd,
    Wkingside,
    Bkingside,
    Isendgame,
    Wpwnmvs,
    Bpwnmvs,
    Goodmvs,
    Strongmvs,
    Weakmvs,
    Badmvs,
    Mvtosqrs,
    Mvnotsqrs,
    Wctrlsqrs,
    Bctrlsqrs,
    Wminattack,
    Bminattack,
    Wqsattack,
    Bqsattack,
    Wkingattack,
    Bkingattack,
    WexchgBs,
    BexchgBs,
    WkeepBs,
    BkeepBs,
    Exchgpieces,
    Keeppieces,
    Goodsqrs,
    Badsqrs,
    Goodcols,
    Gooddiags,
    Goodrows,
}

/// One row of the table.
#[derive(Copy, Clone, Debug)]
pub struct FuncInfo {
    /// The function.
    pub func: Func,
    /// Its name in Che source.
    pub name: &'static str,
    /// Pattern or advice function.
    pub role: Role,
    /// Its arguments.
    pub shape: Shape,
    /// What it means, in one sentence.
    pub doc: &'static str,
}

use LitKind::{
    Column as COL, Move as MOVE, Piece as PIECE, Row as ROW, Square as SQR, SquareColour as SQCOL,
};
use Role::{Advice as A, Pattern as P};
use Shape::{List, Nothing, PieceList, Side};

const fn f(
    func: Func,
    name: &'static str,
    role: Role,
    shape: Shape,
    doc: &'static str,
) -> FuncInfo {
    FuncInfo {
        func,
        name,
        role,
        shape,
        doc,
    }
}

/// Every Che function, pattern functions first, in the order of the
/// Nimzo 3 documentation.
#[rustfmt::skip]
pub const FUNCTIONS: &[FuncInfo] = &[
    f(Func::Wpwns, "wpwns", P, List(SQR), "A white pawn stands on every listed square."),
    f(Func::Bpwns, "bpwns", P, List(SQR), "A black pawn stands on every listed square."),
    f(Func::Wpwncols, "wpwncols", P, List(COL), "Every listed column has at least one white pawn."),
    f(Func::Bpwncols, "bpwncols", P, List(COL), "Every listed column has at least one black pawn."),
    f(Func::Opencols, "opencols", P, List(COL), "No pawn of either colour stands on any listed column."),
    f(Func::Orwpwns, "orwpwns", P, List(SQR), "A white pawn stands on at least one listed square."),
    f(Func::Orbpwns, "orbpwns", P, List(SQR), "A black pawn stands on at least one listed square."),
    f(Func::Pwnrams, "pwnrams", P, List(SQR), "On every listed square a white pawn stands, blocked by a black pawn right in front of it."),
    f(Func::Piecesqrs, "piecesqrs", P, PieceList(SQR), "The piece stands on at least one listed square."),
    f(Func::Piececols, "piececols", P, PieceList(COL), "The piece stands on every listed column; a column listed n times needs n such pieces on it."),
    f(Func::Piecerows, "piecerows", P, PieceList(ROW), "The piece stands on every listed row; a row listed n times needs n such pieces on it."),
    f(Func::Piecesonbrd, "piecesonbrd", P, List(PIECE), "Every listed piece is on the board; a piece listed n times must be there n times."),
    f(Func::Wkingside, "wkingside", P, Side, "The white king stands on the board side (kside: files e-h, qside: a-d)."),
    f(Func::Bkingside, "bkingside", P, Side, "The black king stands on the board side."),
    f(Func::Isendgame, "isendgame", P, Nothing, "The pieces of both sides, pawns and kings not counted, are worth at most four rooks and two bishops."),
    f(Func::Wpwnmvs, "wpwnmvs", A, List(MOVE), "Good white pawn moves, each entered only when a white pawn stands on its from-square."),
    f(Func::Bpwnmvs, "bpwnmvs", A, List(MOVE), "Good black pawn moves, each entered only when a black pawn stands on its from-square."),
    f(Func::Goodmvs, "goodmvs", A, PieceList(MOVE), "Good moves for the piece's side."),
    f(Func::Strongmvs, "strongmvs", A, PieceList(MOVE), "Strong moves for the piece's side: twice the bonus of a good move."),
    f(Func::Weakmvs, "weakmvs", A, PieceList(MOVE), "Weak moves for the piece's side."),
    f(Func::Badmvs, "badmvs", A, PieceList(MOVE), "Bad moves for the piece's side: twice the malus of a weak move."),
    f(Func::Mvtosqrs, "mvtosqrs", A, PieceList(SQR), "Moves of the piece's side to the listed squares, from any square, are good."),
    f(Func::Mvnotsqrs, "mvnotsqrs", A, PieceList(SQR), "Moves of the piece's side to the listed squares, from any square, are weak."),
    f(Func::Wctrlsqrs, "wctrlsqrs", A, List(SQR), "White shall control the listed squares."),
    f(Func::Bctrlsqrs, "bctrlsqrs", A, List(SQR), "Black shall control the listed squares."),
    f(Func::Wminattack, "wminattack", A, Nothing, "White shall play the queen-side minority attack."),
    f(Func::Bminattack, "bminattack", A, Nothing, "Black shall play the queen-side minority attack."),
    f(Func::Wqsattack, "wqsattack", A, Nothing, "White shall attack on the queen side."),
    f(Func::Bqsattack, "bqsattack", A, Nothing, "Black shall attack on the queen side."),
    f(Func::Wkingattack, "wkingattack", A, Side, "White shall attack on the board side, if the black king stands there."),
    f(Func::Bkingattack, "bkingattack", A, Side, "Black shall attack on the board side, if the white king stands there."),
    f(Func::WexchgBs, "wexchgBs", A, List(SQCOL), "White shall trade its bishops of the listed square colours."),
    f(Func::BexchgBs, "bexchgBs", A, List(SQCOL), "Black shall trade its bishops of the listed square colours."),
    f(Func::WkeepBs, "wkeepBs", A, List(SQCOL), "White shall keep its bishops of the listed square colours."),
    f(Func::BkeepBs, "bkeepBs", A, List(SQCOL), "Black shall keep its bishops of the listed square colours."),
    f(Func::Exchgpieces, "exchgpieces", A, List(PIECE), "The listed pieces shall be traded."),
    f(Func::Keeppieces, "keeppieces", A, List(PIECE), "The listed pieces shall be kept."),
    f(Func::Goodsqrs, "goodsqrs", A, PieceList(SQR), "The listed squares are good for the piece."),
    f(Func::Badsqrs, "badsqrs", A, PieceList(SQR), "The listed squares are bad for the piece."),
    f(Func::Goodcols, "goodcols", A, PieceList(COL), "The listed columns are good for the piece."),
    f(Func::Gooddiags, "gooddiags", A, PieceList(MOVE), "The lines from the from-square to the to-square of each listed move are good for the piece."),
    f(Func::Goodrows, "goodrows", A, PieceList(ROW), "The listed rows are good for the piece."),
];

impl Func {
    /// The table row of this function.
    pub fn info(self) -> &'static FuncInfo {
        // Every variant has a row (a unit test checks it); the first row
        // stands in should a variant ever lack one.
        FUNCTIONS
            .iter()
            .find(|i| i.func == self)
            .unwrap_or(&FUNCTIONS[0])
    }

    /// The name in Che source.
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

/// Names the examples of the Nimzo 3 documentation use for functions it
/// lists under other names; the checker points from them to the real
/// names.
pub const OTHER_SPELLINGS: &[(&str, &str)] = &[
    ("wkattack", "wkingattack"),
    ("bkattack", "bkingattack"),
    ("piecerow", "piecerows"),
];

/// The function named `name`, if Che has one.
pub fn by_name(name: &str) -> Option<&'static FuncInfo> {
    FUNCTIONS.iter().find(|i| i.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_has_one_row() {
        let mut names = std::collections::HashSet::new();
        for (i, row) in FUNCTIONS.iter().enumerate() {
            assert!(names.insert(row.name), "{} twice", row.name);
            assert_eq!(row.func.info().name, row.name);
            assert_eq!(by_name(row.name).map(|r| r.func), Some(row.func));
            assert_eq!(FUNCTIONS.iter().position(|r| r.func == row.func), Some(i));
        }
        let patterns = FUNCTIONS.iter().filter(|r| r.role == Role::Pattern).count();
        assert_eq!((patterns, FUNCTIONS.len() - patterns), (15, 27));
    }
}
