//! FEN: reading and writing positions as Forsyth-Edwards Notation.
//!
//! FEN is the interchange format for positions everywhere in the project (command lines, tests, the
//! UCI `position fen` command), so parsing is strict where a mistake would change the game and
//! every rejection names the field at fault and says what was expected. Two things are
//! normalised rather than rejected, because published test suites rely on them (python-chess does
//! the same): castling rights whose king or rook is not on its home square are dropped, and a
//! full-move number of 0 is read as 1. An en-passant square is checked for a pawn that could have
//! just advanced two squares, and is then kept only if a pawn of the side to move can capture there
//! (see [`Position::en_passant`]).

use crate::attacks::pawn_attacks;
use crate::bitboard::Bitboard;
use crate::castling::{CastlingPath, CastlingRights, CastlingSide};
use crate::colour::Colour;
use crate::piece::{Piece, PieceKind};
use crate::position::Position;
use crate::square::{File, Rank, Square};
use std::error::Error;
use std::fmt;
use std::str::FromStr;

/// The FEN of the standard starting position.
pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The six fields of a FEN record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FenField {
    /// Field 1: the board, rank 8 first.
    Placement,
    /// Field 2: `w` or `b`.
    SideToMove,
    /// Field 3: castling availability.
    Castling,
    /// Field 4: en-passant target square.
    EnPassant,
    /// Field 5: half-move clock.
    HalfmoveClock,
    /// Field 6: full-move number.
    FullmoveNumber,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Placement => "piece placement",
            FenField::SideToMove => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::HalfmoveClock => "half-move clock",
            FenField::FullmoveNumber => "full-move number",
        })
    }
}

/// What is wrong with a FEN field.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenProblem {
    /// The placement does not have eight ranks.
    RankCount(usize),
    /// A rank does not describe exactly eight squares.
    RankLength {
        /// The rank (1-8) at fault.
        rank: u8,
        /// How many squares it described (counting up to the first excess).
        squares: u32,
    },
    /// A character that is neither a piece letter nor a digit 1-8.
    BadPlacementChar(char),
    /// A side without exactly one king.
    KingCount {
        /// The side at fault.
        colour: Colour,
        /// Its number of kings.
        count: u32,
    },
    /// A pawn on rank 1 or 8.
    PawnOnBackRank(Square),
    /// More than sixteen pieces, more than eight pawns, or more promoted pieces than missing pawns.
    TooMuchMaterial(Colour),
    /// The side to move is neither `w` nor `b`.
    NotAColour,
    /// The side that just moved is in check, so the position cannot arise.
    OpponentInCheck(Colour),
    /// A castling character outside `KQkq`.
    BadCastlingChar(char),
    /// A castling character given twice.
    RepeatedCastlingChar(char),
    /// Neither `-` nor a square.
    NotASquare,
    /// An en-passant square on a rank a pawn cannot have just passed.
    WrongEnPassantRank {
        /// The side to move.
        side: Colour,
        /// The rank (3 or 6) required.
        rank: u8,
    },
    /// No pawn stands where a pawn that just passed the en-passant square would be.
    NoDoublePushedPawn(Colour),
    /// A clock field that is not a non-negative integer.
    NotANumber,
}

impl fmt::Display for FenProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenProblem::RankCount(count) => {
                write!(f, "found {count} ranks separated by `/`; expected 8")
            }
            FenProblem::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares; expected 8")
            }
            FenProblem::BadPlacementChar(c) => write!(
                f,
                "`{c}` is not a piece letter (PNBRQK or pnbrqk) or an empty-square count 1-8"
            ),
            FenProblem::KingCount { colour, count } => {
                write!(f, "{colour} has {count} kings; expected exactly one")
            }
            FenProblem::PawnOnBackRank(square) => {
                write!(f, "a pawn stands on {square}, on the first or last rank")
            }
            FenProblem::TooMuchMaterial(colour) => write!(
                f,
                "{colour} has more material than 16 pieces with at most 8 promoted pawns allow"
            ),
            FenProblem::NotAColour => f.write_str("expected `w` or `b`"),
            FenProblem::OpponentInCheck(colour) => {
                write!(f, "the side not to move ({colour}) is in check")
            }
            FenProblem::BadCastlingChar(c) => {
                write!(f, "`{c}` is not one of K, Q, k, q (or a lone -)")
            }
            FenProblem::RepeatedCastlingChar(c) => write!(f, "`{c}` appears twice"),
            FenProblem::NotASquare => f.write_str("expected `-` or a square such as e3"),
            FenProblem::WrongEnPassantRank { side, rank } => write!(
                f,
                "with {side} to move the en-passant square must be on rank {rank}"
            ),
            FenProblem::NoDoublePushedPawn(colour) => write!(
                f,
                "no {colour} pawn stands in front of it as if it had just advanced two squares"
            ),
            FenProblem::NotANumber => f.write_str("expected a non-negative integer"),
        }
    }
}

impl Error for FenProblem {}

/// Why a FEN string was rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenError {
    /// Too few or too many space-separated fields.
    FieldCount {
        /// The number of fields found.
        found: usize,
    },
    /// One field is malformed or contradicts the others.
    Field {
        /// The field at fault.
        field: FenField,
        /// Its text.
        value: String,
        /// What is wrong with it.
        problem: FenProblem,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount { found } => write!(
                f,
                "FEN has {found} fields; expected 6 (placement, side to move, castling, en passant, half-move clock, full-move number) or the first 4 or 5"
            ),
            FenError::Field {
                field,
                value,
                problem,
            } => write!(f, "invalid {field} field `{value}` in FEN: {problem}"),
        }
    }
}

impl Error for FenError {}

impl FenError {
    /// The field at fault, if the error concerns one field.
    pub fn field(&self) -> Option<FenField> {
        match self {
            FenError::Field { field, .. } => Some(*field),
            FenError::FieldCount { .. } => None,
        }
    }
}

fn field_error(field: FenField, value: &str, problem: FenProblem) -> FenError {
    FenError::Field {
        field,
        value: value.to_owned(),
        problem,
    }
}

fn parse_placement(pos: &mut Position, text: &str) -> Result<(), FenError> {
    let err = |problem| field_error(FenField::Placement, text, problem);
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(err(FenProblem::RankCount(ranks.len())));
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u32;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d;
            } else if let Some(piece) = Piece::from_char(c) {
                if file < 8 {
                    pos.put(piece, Square::from_index_masked(rank * 8 + file as u8));
                }
                file += 1;
            } else {
                return Err(err(FenProblem::BadPlacementChar(c)));
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(err(FenProblem::RankLength {
                rank: rank + 1,
                squares: file,
            }));
        }
    }
    for colour in Colour::ALL {
        let count = pos.pieces(colour, PieceKind::King).count();
        if count != 1 {
            return Err(err(FenProblem::KingCount { colour, count }));
        }
    }
    let back_ranks = Bitboard::rank(Rank::R1) | Bitboard::rank(Rank::R8);
    if let Some(sq) = (pos.by_kind(PieceKind::Pawn) & back_ranks).first() {
        return Err(err(FenProblem::PawnOnBackRank(sq)));
    }
    for colour in Colour::ALL {
        let n = |kind| pos.pieces(colour, kind).count();
        let pawns = n(PieceKind::Pawn);
        let promoted = n(PieceKind::Queen).saturating_sub(1)
            + n(PieceKind::Rook).saturating_sub(2)
            + n(PieceKind::Bishop).saturating_sub(2)
            + n(PieceKind::Knight).saturating_sub(2);
        if pos.by_colour(colour).count() > 16 || pawns + promoted > 8 {
            return Err(err(FenProblem::TooMuchMaterial(colour)));
        }
    }
    Ok(())
}

fn parse_castling(text: &str) -> Result<CastlingRights, FenError> {
    let err = |problem| field_error(FenField::Castling, text, problem);
    if text == "-" {
        return Ok(CastlingRights::NONE);
    }
    let mut rights = CastlingRights::NONE;
    for c in text.chars() {
        let (colour, side) = match c {
            'K' => (Colour::White, CastlingSide::KingSide),
            'Q' => (Colour::White, CastlingSide::QueenSide),
            'k' => (Colour::Black, CastlingSide::KingSide),
            'q' => (Colour::Black, CastlingSide::QueenSide),
            _ => return Err(err(FenProblem::BadCastlingChar(c))),
        };
        if rights.has(colour, side) {
            return Err(err(FenProblem::RepeatedCastlingChar(c)));
        }
        rights = rights.with(colour, side);
    }
    Ok(rights)
}

/// Drops rights whose king or rook is not on its home square.
fn consistent_rights(pos: &Position, rights: CastlingRights) -> CastlingRights {
    let mut kept = rights;
    for colour in Colour::ALL {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let path = CastlingPath::of(colour, side);
            let king_home = pos.pieces(colour, PieceKind::King).contains(path.king_from);
            let rook_home = pos.pieces(colour, PieceKind::Rook).contains(path.rook_from);
            if !(king_home && rook_home) {
                kept = kept.without(colour, side);
            }
        }
    }
    kept
}

fn parse_en_passant(pos: &Position, text: &str) -> Result<Option<Square>, FenError> {
    let err = |problem| field_error(FenField::EnPassant, text, problem);
    if text == "-" {
        return Ok(None);
    }
    let sq = Square::from_str(text).map_err(|_| err(FenProblem::NotASquare))?;
    let us = pos.side_to_move();
    let them = !us;
    let (rank, pawn_sq, origin) = match us {
        Colour::White => (Rank::R6, sq.offset(0, -1), sq.offset(0, 1)),
        Colour::Black => (Rank::R3, sq.offset(0, 1), sq.offset(0, -1)),
    };
    if sq.rank() != rank {
        return Err(err(FenProblem::WrongEnPassantRank {
            side: us,
            rank: rank.index() as u8 + 1,
        }));
    }
    let occupied = pos.occupied();
    let plausible = match (pawn_sq, origin) {
        (Some(pawn_sq), Some(origin)) => {
            pos.pieces(them, PieceKind::Pawn).contains(pawn_sq)
                && !occupied.contains(sq)
                && !occupied.contains(origin)
        }
        _ => false,
    };
    if !plausible {
        return Err(err(FenProblem::NoDoublePushedPawn(them)));
    }
    let capturable = (pawn_attacks(them, sq) & pos.pieces(us, PieceKind::Pawn)).any();
    Ok(capturable.then_some(sq))
}

fn parse_number(field: FenField, text: &str) -> Result<u32, FenError> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(field_error(field, text, FenProblem::NotANumber));
    }
    text.parse::<u32>()
        .map_err(|_| field_error(field, text, FenProblem::NotANumber))
}

impl Position {
    /// Parses a FEN record: six space-separated fields, or the first four (clocks default to 0
    /// and 1) or five.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount {
                found: fields.len(),
            });
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;
        pos.side = match fields[1] {
            "w" => Colour::White,
            "b" => Colour::Black,
            other => {
                return Err(field_error(
                    FenField::SideToMove,
                    other,
                    FenProblem::NotAColour,
                ))
            }
        };
        let rights = parse_castling(fields[2])?;
        pos.castling = consistent_rights(&pos, rights);
        pos.en_passant = parse_en_passant(&pos, fields[3])?;
        if let Some(text) = fields.get(4) {
            pos.halfmove_clock = parse_number(FenField::HalfmoveClock, text)?;
        }
        if let Some(text) = fields.get(5) {
            pos.fullmove_number = parse_number(FenField::FullmoveNumber, text)?.max(1);
        }
        let waiting = !pos.side;
        if pos.is_attacked_by(pos.king_square(waiting), pos.side, pos.occupied()) {
            return Err(field_error(
                FenField::SideToMove,
                fields[1],
                FenProblem::OpponentInCheck(waiting),
            ));
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The board field of FEN (rank 8 first, digits for runs of empty squares).
    pub fn placement_fen(&self) -> String {
        let mut out = String::with_capacity(72);
        for rank in Rank::ALL.iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                match self.piece_on(Square::new(file, *rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(piece.to_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if *rank != Rank::R1 {
                out.push('/');
            }
        }
        out
    }

    /// The first four FEN fields (placement, side, castling, en passant), as EPD uses them.
    pub fn epd_fields(&self) -> String {
        let ep = match self.en_passant {
            Some(sq) => sq.to_string(),
            None => "-".to_owned(),
        };
        format!(
            "{} {} {} {}",
            self.placement_fen(),
            self.side.to_char(),
            self.castling,
            ep
        )
    }

    /// The full six-field FEN of the position.
    pub fn to_fen(&self) -> String {
        format!(
            "{} {} {}",
            self.epd_fields(),
            self.halfmove_clock,
            self.fullmove_number
        )
    }
}

impl FromStr for Position {
    type Err = FenError;

    /// Parses FEN, as [`Position::from_fen`].
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

/// Prints the position as FEN.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_round_trip() {
        let pos = Position::from_fen(STARTPOS_FEN).expect("valid");
        assert_eq!(pos, Position::startpos());
        assert_eq!(pos.to_fen(), STARTPOS_FEN);
    }

    #[test]
    fn inconsistent_castling_rights_are_dropped() {
        let pos = Position::from_fen("r2r3k/p7/3p4/8/8/P6P/8/R3K2R b KQq - 0 1").expect("valid");
        assert_eq!(pos.castling_rights().bits(), 3);
    }

    #[test]
    fn unusable_en_passant_square_is_not_kept() {
        let pos = Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2")
            .expect("valid");
        assert_eq!(pos.en_passant(), None);
        let pos =
            Position::from_fen("rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3")
                .expect("valid");
        assert_eq!(pos.en_passant(), Some(Square::E6));
    }
}
