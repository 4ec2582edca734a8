//! The position: piece placement as bitboards plus the state FEN records.
//!
//! Twelve piece sets are stored as two colour sets and six kind sets (eight words instead of twelve),
//! so `pieces(colour, kind)` is one AND and the whole position is small enough (88 bytes) that
//! copying it is cheaper than undoing a move: moves are played by copy-make (see [`crate::make`],
//! measured against make/unmake in `docs/chess-core.md`). The Zobrist hash is kept up to date by
//! every move. The accessors match the CVM board view field for field: piece bitboards by colour and
//! kind, side to move, castling bits, en-passant square, half-move clock and full-move number.
//!
//! Legality of moves lives in [`crate::movegen`]; this module answers questions about one position:
//! what stands where, what attacks a square, and whether the game is over by rule.

use crate::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::bitboard::Bitboard;
use crate::castling::CastlingRights;
use crate::colour::Colour;
use crate::piece::{Piece, PieceKind};
use crate::square::Square;
use crate::zobrist;

/// A chess position: placement, side to move, castling rights, en-passant square, clocks and hash.
///
/// Build one with [`Position::startpos`] or [`Position::from_fen`]; advance it with
/// [`Position::play`] (which returns nothing and changes `self`) after checking legality, or copy it
/// first to keep the parent.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) colours: [Bitboard; 2],
    pub(crate) kinds: [Bitboard; 6],
    pub(crate) hash: u64,
    pub(crate) halfmove_clock: u32,
    pub(crate) fullmove_number: u32,
    pub(crate) side: Colour,
    pub(crate) castling: CastlingRights,
    pub(crate) en_passant: Option<Square>,
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        let mut pos = Position::empty();
        let back = [
            PieceKind::Rook,
            PieceKind::Knight,
            PieceKind::Bishop,
            PieceKind::Queen,
            PieceKind::King,
            PieceKind::Bishop,
            PieceKind::Knight,
            PieceKind::Rook,
        ];
        for (file, &kind) in back.iter().enumerate() {
            let f = file as u8;
            pos.put(
                Piece::new(Colour::White, kind),
                Square::from_index_masked(f),
            );
            pos.put(
                Piece::new(Colour::White, PieceKind::Pawn),
                Square::from_index_masked(8 + f),
            );
            pos.put(
                Piece::new(Colour::Black, PieceKind::Pawn),
                Square::from_index_masked(48 + f),
            );
            pos.put(
                Piece::new(Colour::Black, kind),
                Square::from_index_masked(56 + f),
            );
        }
        pos.castling = CastlingRights::ALL;
        pos.hash = pos.compute_hash();
        pos
    }

    /// An empty board, White to move, no rights, clocks 0 and 1. Only for building positions.
    pub(crate) fn empty() -> Position {
        Position {
            colours: [Bitboard::EMPTY; 2],
            kinds: [Bitboard::EMPTY; 6],
            hash: 0,
            halfmove_clock: 0,
            fullmove_number: 1,
            side: Colour::White,
            castling: CastlingRights::NONE,
            en_passant: None,
        }
    }

    /// Places a piece on an empty square (does not update the hash).
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.colours[piece.colour.index()] |= bb;
        self.kinds[piece.kind.index()] |= bb;
    }

    /// The hash computed from scratch; equals [`Position::hash`] in every position.
    pub fn compute_hash(&self) -> u64 {
        let mut hash = 0;
        for colour in Colour::ALL {
            for kind in PieceKind::ALL {
                for sq in self.pieces(colour, kind) {
                    hash ^= zobrist::piece(colour, kind, sq);
                }
            }
        }
        hash ^= zobrist::castling(self.castling);
        if let Some(sq) = self.en_passant {
            hash ^= zobrist::en_passant(sq);
        }
        if self.side == Colour::Black {
            hash ^= zobrist::black_to_move();
        }
        hash
    }

    // ----- O(1) accessors (the CVM board view reads exactly these) -----

    /// The pieces of `colour` and `kind`.
    #[inline(always)]
    pub fn pieces(&self, colour: Colour, kind: PieceKind) -> Bitboard {
        self.colours[colour.index()] & self.kinds[kind.index()]
    }

    /// All pieces of `colour`.
    #[inline(always)]
    pub fn by_colour(&self, colour: Colour) -> Bitboard {
        self.colours[colour.index()]
    }

    /// All pieces of `kind`, both colours.
    #[inline(always)]
    pub fn by_kind(&self, kind: PieceKind) -> Bitboard {
        self.kinds[kind.index()]
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colours[0] | self.colours[1]
    }

    /// Whose move it is.
    #[inline(always)]
    pub fn side_to_move(&self) -> Colour {
        self.side
    }

    /// The castling rights (bits 1 = White O-O, 2 = White O-O-O, 4 = Black O-O, 8 = Black O-O-O).
    #[inline(always)]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The square a pawn may capture en passant on, if any. Recorded only when a pawn of the side
    /// to move stands beside the pawn that just advanced two squares (so that positions that differ
    /// only by an unusable en-passant square compare and hash equal).
    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// Half-moves since the last capture or pawn move (for the fifty-move rule).
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The number of the current full move, starting at 1 and incremented after Black moves.
    #[inline(always)]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// The Zobrist hash of the position (placement, side, castling rights, en-passant file).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    // ----- derived queries -----

    /// The kind of the piece on `sq`, if any. Branch-free: the kind sets are disjoint, so at most
    /// one term of the sum is non-zero.
    #[inline(always)]
    pub fn kind_on(&self, sq: Square) -> Option<PieceKind> {
        let s = sq.index();
        if (self.occupied().0 >> s) & 1 == 0 {
            return None;
        }
        let bit = |k: usize| (self.kinds[k].0 >> s) & 1;
        let k = bit(1) | (bit(2) * 2) | (bit(3) * 3) | (bit(4) * 4) | (bit(5) * 5);
        PieceKind::from_index(k as u8)
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let kind = self.kind_on(sq)?;
        let colour = if self.colours[0].contains(sq) {
            Colour::White
        } else {
            Colour::Black
        };
        Some(Piece::new(colour, kind))
    }

    /// The square of `colour`'s king. Every position built by this crate has exactly one king per
    /// side; on a board without one the answer is a1.
    #[inline(always)]
    pub fn king_square(&self, colour: Colour) -> Square {
        let kings = self.pieces(colour, PieceKind::King);
        Square::from_index_masked(kings.0.trailing_zeros() as u8)
    }

    /// Pieces of either colour attacking `sq`, as if the board held exactly `occupied`.
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let rooks = self.kinds[PieceKind::Rook.index()] | self.kinds[PieceKind::Queen.index()];
        let bishops = self.kinds[PieceKind::Bishop.index()] | self.kinds[PieceKind::Queen.index()];
        let pawns = self.kinds[PieceKind::Pawn.index()];
        (knight_attacks(sq) & self.kinds[PieceKind::Knight.index()])
            | (king_attacks(sq) & self.kinds[PieceKind::King.index()])
            | (pawn_attacks(Colour::White, sq) & pawns & self.colours[1])
            | (pawn_attacks(Colour::Black, sq) & pawns & self.colours[0])
            | (rook_attacks(sq, occupied) & rooks)
            | (bishop_attacks(sq, occupied) & bishops)
    }

    /// True if any piece of `by` attacks `sq`, with the board holding exactly `occupied`.
    #[inline]
    pub fn is_attacked_by(&self, sq: Square, by: Colour, occupied: Bitboard) -> bool {
        let theirs = self.colours[by.index()];
        let queens = self.kinds[PieceKind::Queen.index()];
        ((knight_attacks(sq) & self.kinds[PieceKind::Knight.index()])
            | (king_attacks(sq) & self.kinds[PieceKind::King.index()])
            | (pawn_attacks(!by, sq) & self.kinds[PieceKind::Pawn.index()])
            | (rook_attacks(sq, occupied) & (self.kinds[PieceKind::Rook.index()] | queens))
            | (bishop_attacks(sq, occupied) & (self.kinds[PieceKind::Bishop.index()] | queens)))
            & theirs
            != Bitboard::EMPTY
    }

    /// Enemy pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        let king = self.king_square(self.side);
        self.attackers_to(king, self.occupied()) & self.colours[(!self.side).index()]
    }

    /// True if the side to move is in check.
    pub fn is_check(&self) -> bool {
        let king = self.king_square(self.side);
        self.is_attacked_by(king, !self.side, self.occupied())
    }

    /// True if the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    /// True if the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// True if the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        crate::movegen::count_legal_moves(self) > 0
    }

    /// True if the fifty-move rule lets either player claim a draw (100 half-moves without a capture
    /// or pawn move). A checkmate delivered on the hundredth half-move still wins; callers that need
    /// the result of the game should use [`crate::Game::outcome`], which applies that order.
    pub fn is_fifty_move_draw(&self) -> bool {
        self.halfmove_clock >= 100
    }

    /// True if `colour` cannot possibly checkmate, judged from material alone (the rule python-chess
    /// uses): a lone king; or a king and one knight against an opponent with nothing but a king and
    /// queens (anything else could block its own king in a help-mate); or kings and bishops all on
    /// squares of one colour, when no side has pawns or knights and no opposite-coloured bishop
    /// exists anywhere.
    pub fn has_insufficient_material(&self, colour: Colour) -> bool {
        let ours = self.by_colour(colour);
        let theirs = self.by_colour(!colour);
        let heavy = self.by_kind(PieceKind::Pawn)
            | self.by_kind(PieceKind::Rook)
            | self.by_kind(PieceKind::Queen);
        if (ours & heavy).any() {
            return false;
        }
        let knights = self.by_kind(PieceKind::Knight);
        if (ours & knights).any() {
            let helpers = theirs & !self.by_kind(PieceKind::King) & !self.by_kind(PieceKind::Queen);
            return ours.count() <= 2 && helpers.is_empty();
        }
        let bishops = self.by_kind(PieceKind::Bishop);
        if (ours & bishops).any() {
            const DARK: u64 = 0xAA55_AA55_AA55_AA55;
            let one_colour = bishops.0 & DARK == 0 || bishops.0 & !DARK == 0;
            let pawns = self.by_kind(PieceKind::Pawn);
            return one_colour && pawns.is_empty() && knights.is_empty();
        }
        true
    }

    /// True if neither side can checkmate by any sequence of legal moves, judged from material.
    pub fn is_insufficient_material(&self) -> bool {
        self.has_insufficient_material(Colour::White)
            && self.has_insufficient_material(Colour::Black)
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_accessors() {
        let pos = Position::startpos();
        assert_eq!(pos.pieces(Colour::White, PieceKind::Pawn).0, 0xFF00);
        assert_eq!(
            pos.pieces(Colour::Black, PieceKind::King),
            Bitboard::from_square(Square::E8)
        );
        assert_eq!(pos.occupied().count(), 32);
        assert_eq!(pos.castling_rights().bits(), 15);
        assert_eq!(pos.en_passant(), None);
        assert_eq!(pos.side_to_move(), Colour::White);
        assert_eq!(pos.fullmove_number(), 1);
        assert_eq!(pos.hash(), pos.compute_hash());
        assert_eq!(
            pos.piece_on(Square::D8),
            Some(Piece::new(Colour::Black, PieceKind::Queen))
        );
        assert_eq!(pos.piece_on(Square::E4), None);
        assert!(!pos.is_check());
        assert!(!pos.is_checkmate() && !pos.is_stalemate());
    }
}
