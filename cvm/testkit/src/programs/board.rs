//! Positions for generated programs to look at.
//!
//! Pattern and advice intrinsics only do real work on a board with pieces,
//! so differential tests run generated programs on a position: one of a
//! few real games' positions, or a random set of bitboards. Random boards
//! need not be legal (pieces may overlap, pawns stand on the first rank, a
//! side may have no king or three); the intrinsics must answer on any view
//! without panicking, and both backends must answer alike.

use cvm_chess::BoardView;

/// Real positions (FEN): the start, two openings, pawn endings, a rook
/// ending with Black to move, and a position with an en-passant square.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2NP1N2/PPP2PPP/R1BQKB1R w KQkq - 2 4",
    "rnbqkb1r/ppp2ppp/4pn2/3p4/3P4/2P1PN2/PP1N1PPP/R1BQKB1R b KQkq - 0 4",
    "8/5pk1/6p1/3P4/1P6/6P1/5K2/8 w - - 0 40",
    "8/8/4k3/3pP3/2pP4/2P5/5K2/8 w - - 0 50",
    "6k1/1R3pp1/7p/8/2Pr4/6P1/5PKP/8 b - - 3 35",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
];

/// A board from two numbers: a `selector` below `POSITIONS.len()` picks that
/// position, the next value the empty board, anything else a random board
/// made from `seed`.
pub fn board(selector: u8, seed: u64) -> BoardView {
    let n = POSITIONS.len();
    match usize::from(selector) {
        i if i < n => BoardView::from_fen(POSITIONS[i]).unwrap_or(BoardView::EMPTY),
        i if i == n => BoardView::EMPTY,
        _ => random(seed),
    }
}

fn random(seed: u64) -> BoardView {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut b = BoardView::EMPTY;
    for colour in 0..2 {
        for kind in 0..6 {
            // Sparse sets, sometimes empty, sometimes crowded.
            let r = next();
            b.pieces[colour][kind] = match r % 5 {
                0 => 0,
                1 => next() & next() & next(),
                2 | 3 => 1 << (next() % 64),
                _ => next() & next(),
            };
        }
    }
    let r = next();
    b.side_to_move = (r & 1) as u32;
    b.castling = ((r >> 1) & 15) as u32;
    b.en_passant = if r & 0x100 != 0 {
        ((r >> 9) % 64) as i32
    } else {
        -1
    };
    b.halfmove_clock = ((r >> 16) % 100) as u32;
    b.fullmove_number = 1 + ((r >> 24) % 200) as u32;
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_and_count_their_pieces() {
        for fen in POSITIONS {
            assert!(BoardView::from_fen(fen).is_ok(), "{fen}");
        }
        let start = board(0, 0);
        assert_eq!(start.occupied().count_ones(), 32);
        assert_eq!(start.pieces[0][0], 0xFF00);
        assert_eq!(start.pieces[1][5], 1 << 60);
        assert_eq!(start.castling, 15);
        let ep = board(6, 0);
        assert_eq!(ep.en_passant, 45); // f6
        assert_eq!(board(POSITIONS.len() as u8, 0), BoardView::EMPTY);
        assert_ne!(board(255, 1), board(255, 2));
    }
}
