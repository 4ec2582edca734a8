//! The board view: the position as the chess intrinsics see it.
//!
//! The embedder (chess-core's host) fills a [`BoardView`] from its own
//! position type and hands it to the VM through [`crate::Host::board`]. It
//! holds only what the intrinsics read (twelve piece bitboards and the
//! position's state fields), never move lists, so filling it is a copy of
//! fifteen words. The layout is `#[repr(C)]` so that JIT code can read it
//! through a pointer.
//!
//! A run without a board (a [`crate::NoHost`] embedder, a benchmark) sees
//! [`BoardView::EMPTY`]: no pieces at all, White to move. Pattern functions
//! then answer as they would on an empty board (`PcOnSqrs(wP,e4)` is false,
//! `POnLine(?,=,0,.line)` is true) and the board-dependent advice
//! functions (`SetPMvs`) enter nothing.
//!
//! Nothing in the intrinsics assumes the view is a legal position: two kings
//! of one colour, overlapping bitboards or pawns on the first rank give
//! well-defined (if meaningless) answers, never a panic.

/// White's index in [`BoardView::pieces`] (and the colour literal `w`).
pub const WHITE: usize = 0;
/// Black's index in [`BoardView::pieces`] (and the colour literal `b`).
pub const BLACK: usize = 1;

/// Piece kind indices in [`BoardView::pieces`]; they equal the kind numbers
/// of piece literals (see [`crate::chess::lit`]).
pub mod kind {
    /// Pawn.
    pub const PAWN: usize = 0;
    /// Knight.
    pub const KNIGHT: usize = 1;
    /// Bishop.
    pub const BISHOP: usize = 2;
    /// Rook.
    pub const ROOK: usize = 3;
    /// Queen.
    pub const QUEEN: usize = 4;
    /// King.
    pub const KING: usize = 5;
}

/// Castling right bits of [`BoardView::castling`].
pub mod castling {
    /// White may castle king-side.
    pub const WHITE_KING_SIDE: u32 = 1;
    /// White may castle queen-side.
    pub const WHITE_QUEEN_SIDE: u32 = 2;
    /// Black may castle king-side.
    pub const BLACK_KING_SIDE: u32 = 4;
    /// Black may castle queen-side.
    pub const BLACK_QUEEN_SIDE: u32 = 8;
}

/// A chess position as bitboards: what the chess intrinsics read.
///
/// Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63;
/// bit `n` of a bitboard is square `n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct BoardView {
    /// Piece sets, `[colour][kind]`: colour White = 0, Black = 1; kind
    /// Pawn = 0, Knight = 1, Bishop = 2, Rook = 3, Queen = 4, King = 5.
    pub pieces: [[u64; 6]; 2],
    /// The side to move: 0 White, 1 Black.
    pub side_to_move: u32,
    /// Castling rights as bits (see [`castling`]).
    pub castling: u32,
    /// The en-passant target square (0..63), or -1 when there is none.
    pub en_passant: i32,
    /// Half-moves since the last capture or pawn move.
    pub halfmove_clock: u32,
    /// The full-move number, starting at 1.
    pub fullmove_number: u32,
}

impl BoardView {
    /// The empty board with White to move: what intrinsics see when the
    /// embedder has no position.
    pub const EMPTY: BoardView = BoardView {
        pieces: [[0; 6]; 2],
        side_to_move: 0,
        castling: 0,
        en_passant: -1,
        halfmove_clock: 0,
        fullmove_number: 1,
    };

    /// All squares holding a piece of `colour` (0 or 1; any other value
    /// gives the empty set).
    #[inline]
    pub fn colour_set(&self, colour: usize) -> u64 {
        match self.pieces.get(colour) {
            Some(sets) => sets.iter().fold(0, |acc, &b| acc | b),
            None => 0,
        }
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.colour_set(WHITE) | self.colour_set(BLACK)
    }

    /// The colour and kind of the piece on `square`, if any (the first match
    /// in colour-then-kind order when bitboards overlap).
    pub fn piece_on(&self, square: u32) -> Option<(usize, usize)> {
        let bit = 1u64.checked_shl(square)?;
        (0..2)
            .flat_map(|c| (0..6).map(move |k| (c, k)))
            .find(|&(c, k)| self.pieces[c][k] & bit != 0)
    }
}

impl Default for BoardView {
    fn default() -> Self {
        BoardView::EMPTY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_lookup() {
        let mut b = BoardView::EMPTY;
        b.pieces[WHITE][kind::KING] = 1 << 4;
        b.pieces[BLACK][kind::PAWN] = 1 << 52;
        assert_eq!(b.occupied(), (1 << 4) | (1 << 52));
        assert_eq!(b.colour_set(2), 0);
        assert_eq!(b.piece_on(4), Some((WHITE, kind::KING)));
        assert_eq!(b.piece_on(52), Some((BLACK, kind::PAWN)));
        assert_eq!(b.piece_on(5), None);
        assert_eq!(b.piece_on(64), None);
    }
}
