//! Positions for generated programs to look at.
//!
//! Pattern and advice intrinsics only do real work on a board with pieces,
//! so differential tests run generated programs on a position: one of a
//! few real games' positions, or a random set of bitboards. Random boards
//! need not be legal (pieces may overlap, pawns stand on the first rank, a
//! side may have no king or three); the intrinsics must answer on any view
//! without panicking, and both backends must answer alike.

use crate::chess::board::BoardView;

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
        i if i < n => board_from_fen(POSITIONS[i]).unwrap_or(BoardView::EMPTY),
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

/// The board view of a FEN string, or `None` if it is malformed.
pub fn board_from_fen(fen: &str) -> Option<BoardView> {
    let mut b = BoardView::EMPTY;
    let mut fields = fen.split_whitespace();
    let placement = fields.next()?;
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != 8 {
        return None;
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
            let kind = "pnbrqk".find(ch.to_ascii_lowercase())?;
            if file >= 8 {
                return None;
            }
            b.pieces[colour][kind] |= 1u64 << (rank * 8 + file);
            file += 1;
        }
        if file != 8 {
            return None;
        }
    }
    b.side_to_move = match fields.next().unwrap_or("w") {
        "w" => 0,
        "b" => 1,
        _ => return None,
    };
    for c in fields.next().unwrap_or("-").chars() {
        b.castling |= match c {
            'K' => 1,
            'Q' => 2,
            'k' => 4,
            'q' => 8,
            '-' => 0,
            _ => return None,
        };
    }
    b.en_passant = match fields.next().unwrap_or("-") {
        "-" => -1,
        sq => crate::chess::lit::parse_square(sq).filter(|&v| v < 64)?,
    };
    b.halfmove_clock = fields.next().unwrap_or("0").parse().ok()?;
    b.fullmove_number = fields.next().unwrap_or("1").parse().ok()?;
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_and_count_their_pieces() {
        for fen in POSITIONS {
            assert!(board_from_fen(fen).is_some(), "{fen}");
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
        assert_eq!(board_from_fen("8/8/8 w - - 0 1"), None);
        assert_eq!(board_from_fen("9/8/8/8/8/8/8/8 w - - 0 1"), None);
    }
}
