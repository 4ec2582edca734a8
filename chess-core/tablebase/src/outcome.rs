//! The game-theoretic value of a position and its one-byte encoding in the tables.
//!
//! The metric is distance to mate (DTM) in plies with perfect play: the winner mates as fast as
//! possible, the loser delays mate as long as possible. A position where the side to move is
//! checkmated is a loss in 0 plies; mate in one move is a win in 1 ply; a position where every move
//! allows mate in one is a loss in 2 plies. So wins have odd and losses even ply counts.
//!
//! Published figures count *moves of the winning side*: [`Outcome::moves`] converts (a win in `p`
//! plies is mate on the winner's `(p + 1) / 2`-th move; a loss in `p` plies means the opponent
//! mates on its `p / 2`-th move).

/// The value of a position from the point of view of the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// The side to move mates in `plies` half-moves (odd) against any defence.
    Win {
        /// Distance to mate in plies, counting the mating move.
        plies: u8,
    },
    /// Neither side can force mate (stalemate, a capture to insufficient material, or simply no
    /// forced win).
    Draw,
    /// The side to move is mated in `plies` half-moves (even) against its best defence; 0 means it
    /// is checkmated now.
    Loss {
        /// Distance to mate in plies; 0 when already checkmated.
        plies: u8,
    },
}

impl Outcome {
    /// Distance to mate in moves of the winning side, as published tables count it; `None` for a
    /// draw. A checkmated side to move gives `Some(0)`.
    pub const fn moves(self) -> Option<u32> {
        match self {
            Outcome::Win { plies } => Some((plies as u32).div_ceil(2)),
            Outcome::Loss { plies } => Some(plies as u32 / 2),
            Outcome::Draw => None,
        }
    }

    /// The value of the position before a move that led to a position worth `self` to the
    /// opponent: a loss in `p` becomes a win in `p + 1`, a win in `p` a loss in `p + 1`.
    pub const fn parent(self) -> Outcome {
        match self {
            Outcome::Win { plies } => Outcome::Loss { plies: plies + 1 },
            Outcome::Loss { plies } => Outcome::Win { plies: plies + 1 },
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// A total order for choosing moves: any win beats any draw beats any loss; quicker wins and
    /// slower losses rank higher.
    pub const fn preference(self) -> i32 {
        match self {
            Outcome::Win { plies } => 1000 - plies as i32,
            Outcome::Draw => 0,
            Outcome::Loss { plies } => -1000 + plies as i32,
        }
    }
}

/// Encoding in a table byte: 0 = draw (or not yet decided during generation), `p + 1` = mate in
/// `p` plies (parity tells win from loss), [`INVALID`] = no legal position has this index.
pub(crate) const DRAW: u8 = 0;

/// The byte of an index that names no legal, canonical position.
pub(crate) const INVALID: u8 = 255;

/// The longest distance the encoding holds, in plies.
pub(crate) const MAX_PLIES: u8 = 253;

/// The byte for a mate distance of `plies`.
pub(crate) const fn encode_plies(plies: u8) -> u8 {
    plies + 1
}

/// The outcome a table byte stands for, or `None` for [`INVALID`].
pub(crate) const fn decode(byte: u8) -> Option<Outcome> {
    match byte {
        INVALID => None,
        DRAW => Some(Outcome::Draw),
        b => {
            let plies = b - 1;
            if plies % 2 == 1 {
                Some(Outcome::Win { plies })
            } else {
                Some(Outcome::Loss { plies })
            }
        }
    }
}

/// True if `byte` is a win for the side to move (an odd distance).
pub(crate) const fn is_win(byte: u8) -> bool {
    byte != INVALID && byte != DRAW && (byte - 1) % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        assert_eq!(decode(DRAW), Some(Outcome::Draw));
        assert_eq!(decode(INVALID), None);
        assert_eq!(decode(encode_plies(0)), Some(Outcome::Loss { plies: 0 }));
        assert_eq!(decode(encode_plies(19)), Some(Outcome::Win { plies: 19 }));
        assert!(is_win(encode_plies(65)));
        assert!(!is_win(encode_plies(66)));
        assert!(!is_win(DRAW));
        assert!(!is_win(INVALID));
    }

    #[test]
    fn moves_count_the_winners_moves() {
        assert_eq!(Outcome::Win { plies: 1 }.moves(), Some(1));
        assert_eq!(Outcome::Win { plies: 19 }.moves(), Some(10));
        assert_eq!(Outcome::Loss { plies: 0 }.moves(), Some(0));
        assert_eq!(Outcome::Loss { plies: 32 }.moves(), Some(16));
        assert_eq!(Outcome::Draw.moves(), None);
    }

    #[test]
    fn preference_orders_wins_draws_losses() {
        let order = [
            Outcome::Loss { plies: 0 },
            Outcome::Loss { plies: 10 },
            Outcome::Draw,
            Outcome::Win { plies: 31 },
            Outcome::Win { plies: 1 },
        ];
        for pair in order.windows(2) {
            assert!(pair[0].preference() < pair[1].preference(), "{pair:?}");
        }
        assert_eq!(
            Outcome::Loss { plies: 4 }.parent(),
            Outcome::Win { plies: 5 }
        );
    }
}
