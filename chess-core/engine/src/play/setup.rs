//! Setting up a position piece by piece, as Tiny Chess 86 and Chennai allowed.
//!
//! The editor holds a plain board (any arrangement, even one without kings) plus the side to move,
//! castling rights and en-passant square; `done` turns it into a FEN and reads that back through
//! the FEN parser, so a position set up by hand passes exactly the checks a FEN does and a mistake
//! is reported with the same messages (`not exactly one king per side`, ...).

use chess_core::colour::Colour;
use chess_core::fen::FenError;
use chess_core::piece::{Piece, PieceKind};
use chess_core::position::Position;
use chess_core::square::Square;

/// A board being set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    board: [Option<Piece>; 64],
    /// Who moves first.
    pub side: Colour,
    /// Castling rights in FEN form (`KQkq`, `-`); rights whose pieces are not at home are
    /// dropped when the position is built.
    pub castling: String,
    /// The en-passant square, if any.
    pub en_passant: Option<Square>,
}

impl Setup {
    /// An empty board, White to move.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 64],
            side: Colour::White,
            castling: "-".into(),
            en_passant: None,
        }
    }

    /// The board of `pos`, ready for changes.
    pub fn from_position(pos: &Position) -> Setup {
        let mut board = [None; 64];
        for (i, slot) in board.iter_mut().enumerate() {
            *slot = pos.piece_on(Square::from_index_masked(i as u8));
        }
        let fen = pos.to_fen();
        let castling = fen.split_whitespace().nth(2).unwrap_or("-").to_string();
        Setup {
            board,
            side: pos.side_to_move(),
            castling,
            en_passant: pos.en_passant(),
        }
    }

    /// What stands on `sq`.
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Puts `piece` on `sq` (replacing what stood there).
    pub fn put(&mut self, piece: Piece, sq: Square) {
        self.board[sq.index()] = Some(piece);
    }

    /// Empties `sq`; returns what stood there.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        self.board[sq.index()].take()
    }

    /// Empties the whole board.
    pub fn clear(&mut self) {
        self.board = [None; 64];
        self.castling = "-".into();
        self.en_passant = None;
    }

    /// The setup as FEN (clocks 0 and 1).
    pub fn to_fen(&self) -> String {
        let mut placement = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.board[rank * 8 + file] {
                    Some(p) => {
                        if empty > 0 {
                            placement.push_str(&empty.to_string());
                            empty = 0;
                        }
                        placement.push(p.to_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                placement.push_str(&empty.to_string());
            }
            if rank > 0 {
                placement.push('/');
            }
        }
        let ep = self.en_passant.map_or("-".to_string(), |s| s.to_string());
        let castling = if self.castling.is_empty() {
            "-"
        } else {
            &self.castling
        };
        format!("{placement} {} {castling} {ep} 0 1", self.side.to_char())
    }

    /// The position, if the setup is one (checked as a FEN would be).
    pub fn finish(&self) -> Result<Position, FenError> {
        Position::from_fen(&self.to_fen())
    }
}

/// Reads a piece written as a FEN letter (`K` White king, `k` Black king) or as colour and
/// letter (`wK`, `bq`).
pub fn parse_piece(text: &str) -> Option<Piece> {
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        [c] => Piece::from_char(*c),
        [c, k] => {
            let colour = match c.to_ascii_lowercase() {
                'w' => Colour::White,
                'b' => Colour::Black,
                _ => return None,
            };
            PieceKind::from_char(*k).map(|kind| Piece::new(colour, kind))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_a_position_piece_by_piece() {
        let mut s = Setup::empty();
        assert!(s.finish().is_err());
        s.put(parse_piece("K").unwrap(), Square::E1);
        s.put(parse_piece("bK").unwrap(), Square::E8);
        s.put(parse_piece("wq").unwrap(), Square::D1);
        assert_eq!(s.to_fen(), "4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert!(s.finish().is_ok());
        s.side = Colour::Black;
        s.put(parse_piece("r").unwrap(), Square::D8);
        assert_eq!(
            s.remove(Square::D8),
            Some(Piece::new(Colour::Black, PieceKind::Rook))
        );
        assert_eq!(parse_piece("x"), None);
        assert_eq!(parse_piece("wX"), None);
        assert_eq!(parse_piece("Kx"), None);
        let round = Setup::from_position(&Position::startpos());
        assert_eq!(round.to_fen(), chess_core::STARTPOS_FEN);
    }
}
