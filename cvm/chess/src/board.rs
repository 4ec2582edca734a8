//! The board view: the position as the chess intrinsics see it.
//!
//! The embedder (chess-core's host) fills a [`BoardView`] from its own
//! position type and hands it to the VM through the VM's host interface. It
//! holds only what the intrinsics read (twelve piece bitboards and the
//! position's state fields), never move lists, so filling it is a copy of
//! fifteen words. The layout is `#[repr(C)]` so that JIT code can read it
//! through a pointer.
//!
//! A run without a board (an embedder without a position, a benchmark) sees
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
/// of piece literals (see [`crate::lit`]).
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

/// Why a FEN string is not a board view ([`BoardView::from_fen`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError(pub String);

impl std::fmt::Display for FenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad FEN: {}", self.0)
    }
}

impl std::error::Error for FenError {}

impl BoardView {
    /// The board view of a FEN string: the placement, then optionally the
    /// side to move (`w`), castling rights (`-`), en-passant square (`-`),
    /// half-move clock (0) and full-move number (1); a missing field takes
    /// the value in brackets. Only the syntax is checked, not whether the
    /// position could arise in a game (the intrinsics answer on any view);
    /// the engine's position type checks the rules.
    ///
    /// ```
    /// use cvm_chess::BoardView;
    /// let start = BoardView::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
    /// assert_eq!(start.occupied().count_ones(), 32);
    /// assert!(BoardView::from_fen("8/8/8 w").is_err());
    /// ```
    pub fn from_fen(fen: &str) -> Result<BoardView, FenError> {
        let bad = |what: &str| FenError(what.to_string());
        let mut b = BoardView::EMPTY;
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or_else(|| bad("empty"))?;
        let rows: Vec<&str> = placement.split('/').collect();
        if rows.len() != 8 {
            return Err(bad("the placement needs eight ranks"));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = 7 - i;
            let mut file = 0usize;
            for ch in row.chars() {
                if let Some(n) = ch.to_digit(10) {
                    file += n as usize;
                    continue;
                }
                let colour = usize::from(ch.is_ascii_lowercase());
                let kind = "pnbrqk"
                    .find(ch.to_ascii_lowercase())
                    .ok_or_else(|| bad(&format!("`{ch}` is not a piece letter")))?;
                if file >= 8 {
                    return Err(bad(&format!("rank {} has more than eight files", rank + 1)));
                }
                b.pieces[colour][kind] |= 1u64 << (rank * 8 + file);
                file += 1;
            }
            if file != 8 {
                return Err(bad(&format!("rank {} does not have eight files", rank + 1)));
            }
        }
        b.side_to_move = match fields.next().unwrap_or("w") {
            "w" => 0,
            "b" => 1,
            other => return Err(bad(&format!("`{other}` is not a side to move"))),
        };
        for c in fields.next().unwrap_or("-").chars() {
            b.castling |= match c {
                'K' => castling::WHITE_KING_SIDE,
                'Q' => castling::WHITE_QUEEN_SIDE,
                'k' => castling::BLACK_KING_SIDE,
                'q' => castling::BLACK_QUEEN_SIDE,
                '-' => 0,
                _ => return Err(bad(&format!("`{c}` is not a castling right"))),
            };
        }
        b.en_passant = match fields.next().unwrap_or("-") {
            "-" => -1,
            sq => crate::lit::parse_square(sq)
                .filter(|&v| v < 64)
                .ok_or_else(|| bad(&format!("`{sq}` is not an en-passant square")))?,
        };
        let number = |s: Option<&str>, default: u32| match s {
            None => Ok(default),
            Some(t) => t
                .parse()
                .map_err(|_| bad(&format!("`{t}` is not a move count"))),
        };
        b.halfmove_clock = number(fields.next(), 0)?;
        b.fullmove_number = number(fields.next(), 1)?;
        Ok(b)
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

    #[test]
    fn fen_fields_and_their_defaults() {
        let b =
            BoardView::from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
                .unwrap();
        assert_eq!(b.en_passant, 45);
        assert_eq!(b.castling, 15);
        assert_eq!(b.fullmove_number, 3);
        assert_eq!(b.pieces[WHITE][kind::PAWN].count_ones(), 8);
        let placement_only = BoardView::from_fen("4k3/8/8/8/8/8/8/4K3").unwrap();
        assert_eq!(placement_only.side_to_move, 0);
        assert_eq!(placement_only.en_passant, -1);
        assert_eq!(placement_only.fullmove_number, 1);
        assert_eq!(
            BoardView::from_fen("4k3/8/8/8/8/8/8/4K3 b")
                .unwrap()
                .side_to_move,
            1
        );
        for bad in [
            "",
            "8/8/8 w - - 0 1",
            "9/8/8/8/8/8/8/8 w - - 0 1",
            "8/8/8/8/8/8/8/7 w",
            "8/8/8/8/8/8/8/8 x",
            "8/8/8/8/8/8/8/8 w KX",
            "8/8/8/8/8/8/8/8 w - e9",
            "8/8/8/8/8/8/8/8 w - - x",
            "8/8/8/8/8/8/8/PPPPPPPPP w",
            "8/8/8/8/8/8/8/7z w",
        ] {
            assert!(BoardView::from_fen(bad).is_err(), "{bad}");
        }
    }
}
