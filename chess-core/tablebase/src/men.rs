//! The generator's own small position: two kings, up to two men, and who is to move.
//!
//! The strong side is always White here. A real board whose strong side is Black is read with its
//! ranks flipped (a vertical mirror plus a colour swap is a symmetry of chess), so one table serves
//! both colours. Squares are plain indices a1 = 0 ... h8 = 63, as in `chess-core`.

use crate::material::Material;
use chess_core::{Colour, PieceKind, Position};

/// The most men (besides the kings) an ending here has.
pub(crate) const MAX_MEN: usize = 2;

/// Two kings, the strong side's men and the side to move; the strong side is White.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Men {
    /// The strong (White) king's square.
    pub(crate) strong_king: u8,
    /// The lone (Black) king's square.
    pub(crate) weak_king: u8,
    /// The strong side's men in [`Material::men`] order; unused slots are 0 and never read.
    pub(crate) men: [u8; MAX_MEN],
    /// True when the strong side is to move.
    pub(crate) strong_to_move: bool,
}

impl Men {
    /// Reads `pos`, whose strong side is `strong`, flipping ranks when that side is Black.
    /// `None` if a man of the ending is missing from the board.
    pub(crate) fn from_position(material: Material, pos: &Position, strong: Colour) -> Option<Men> {
        let orient = |sq: chess_core::Square| {
            let i = sq.index() as u8;
            if strong == Colour::White {
                i
            } else {
                i ^ 56
            }
        };
        let mut men = [0u8; MAX_MEN];
        for (slot, &kind) in men.iter_mut().zip(material.men()) {
            *slot = orient(pos.pieces(strong, kind).first()?);
        }
        Some(Men {
            strong_king: orient(pos.king_square(strong)),
            weak_king: orient(pos.king_square(!strong)),
            men,
            strong_to_move: pos.side_to_move() == strong,
        })
    }

    /// The same men with every square mapped through `f`.
    pub(crate) fn map(&self, material: Material, f: impl Fn(u8) -> u8) -> Men {
        let mut men = [0u8; MAX_MEN];
        for (slot, &sq) in men.iter_mut().zip(&self.men[..material.men().len()]) {
            *slot = f(sq);
        }
        Men {
            strong_king: f(self.strong_king),
            weak_king: f(self.weak_king),
            men,
            strong_to_move: self.strong_to_move,
        }
    }

    /// The squares of the strong side's men of `material`.
    pub(crate) fn men_of(&self, material: Material) -> &[u8] {
        &self.men[..material.men().len()]
    }

    /// A FEN record of these men with the strong side playing `strong` (ranks flipped for Black).
    pub(crate) fn fen(&self, material: Material, strong: Colour) -> String {
        let mut board = [None::<(Colour, PieceKind)>; 64];
        let place = |sq: u8| {
            if strong == Colour::White {
                sq as usize
            } else {
                (sq ^ 56) as usize
            }
        };
        board[place(self.strong_king)] = Some((strong, PieceKind::King));
        board[place(self.weak_king)] = Some((!strong, PieceKind::King));
        for (&sq, &kind) in self.men_of(material).iter().zip(material.men()) {
            board[place(sq)] = Some((strong, kind));
        }
        let mut fen = String::with_capacity(80);
        for rank in (0..8).rev() {
            let mut empty = 0u8;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    Some((colour, kind)) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let c = kind.to_lower_char();
                        fen.push(if colour == Colour::White {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        });
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let to_move = if self.strong_to_move { strong } else { !strong };
        fen.push(' ');
        fen.push(to_move.to_char());
        fen.push_str(" - - 0 1");
        fen
    }

    /// The board these men describe, with the strong side playing `strong`; `None` if the men do
    /// not form a legal position (the FEN reader rejects it).
    pub(crate) fn to_position(self, material: Material, strong: Colour) -> Option<Position> {
        Position::from_fen(&self.fen(material, strong)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_round_trips_through_position_for_both_colours() {
        let men = Men {
            strong_king: 4, // e1
            weak_king: 60,  // e8
            men: [11, 22],  // d2, g3
            strong_to_move: false,
        };
        let white = men.fen(Material::Kbnk, Colour::White);
        assert_eq!(white, "4k3/8/8/8/8/6N1/3B4/4K3 b - - 0 1");
        let black = men.fen(Material::Kbnk, Colour::Black);
        assert_eq!(black, "4k3/3b4/6n1/8/8/8/8/4K3 w - - 0 1");
        for strong in [Colour::White, Colour::Black] {
            let pos = men.to_position(Material::Kbnk, strong).expect("legal");
            assert_eq!(Men::from_position(Material::Kbnk, &pos, strong), Some(men));
        }
    }
}
