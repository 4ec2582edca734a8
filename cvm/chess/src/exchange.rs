//! Static exchange evaluation, for `ExchngCtrl`.
//!
//! The document defines exchange control as: the side can go to the square
//! and the opponent cannot take the piece there with material gain; if the
//! side already has a piece there, the opponent cannot take it with gain; if
//! an opponent's piece stands there, the side can take it without losing
//! material. It is decided statically (no search, no pins, material values
//! only), so a bishop-for-knight trade counts as a loss.
//!
//! Here that is made exact with the usual swap algorithm: captures on the
//! square alternate, each side always recapturing with its least valuable
//! attacker, sliders behind a piece that has captured join in (x-rays),
//! and after the first capture either side may stop when continuing would
//! lose. Pawns reaching the last rank are not promoted; en passant is not
//! considered; "going to" an empty square means moving the least valuable
//! piece that controls it (see [`crate::pattern::control`]) there,
//! so a pawn reaches an empty square only by a capture move.

use super::attacks;
use super::board::{BoardView, BLACK, WHITE};

/// Material values of the kinds P N B R Q K for the exchange evaluation.
/// The king's value is large enough that losing it outweighs any capture.
pub const EXCHANGE_VALUES: [i32; 6] = [100, 300, 325, 500, 900, 20_000];

/// The least valuable piece among `candidates` (squares), with its value.
fn least_valuable(board: &BoardView, candidates: u64) -> Option<(usize, i32)> {
    (0..6).find_map(|k| {
        let s = candidates & (board.pieces[WHITE][k] | board.pieces[BLACK][k]);
        (s != 0).then(|| (s.trailing_zeros() as usize, EXCHANGE_VALUES[k]))
    })
}

/// The material `side` nets when it captures first on `sq`, where a piece
/// worth `victim` stands, and both sides then go on recapturing while it
/// pays; `None` when `side` has no piece attacking `sq`. Only pieces inside
/// `occupied` take part. The first capture is made whatever it costs.
pub fn swap(board: &BoardView, sq: usize, side: usize, victim: i32, occupied: u64) -> Option<i32> {
    let sq = sq & 63;
    let mut occ = occupied;
    let mut stm = side & 1;
    let colours = [board.colour_set(WHITE), board.colour_set(BLACK)];
    let (mut from, mut value) =
        least_valuable(board, attacks::attackers_to(board, sq, occ) & colours[stm])?;
    // gains[d]: what the side making capture d has netted, if the other side stops afterwards.
    let mut gains = [0i32; 34];
    gains[0] = victim;
    let mut d = 0;
    loop {
        occ &= !(1u64 << from);
        stm ^= 1;
        let Some((next_from, next_value)) =
            least_valuable(board, attacks::attackers_to(board, sq, occ) & colours[stm])
        else {
            break;
        };
        d += 1;
        gains[d] = value - gains[d - 1];
        from = next_from;
        value = next_value;
        if d + 1 == gains.len() {
            break;
        }
    }
    while d > 0 {
        gains[d - 1] = gains[d - 1].min(-gains[d]);
        d -= 1;
    }
    Some(gains[0])
}

/// Whether `colour` (0 or 1) has exchange control over `sq` (0..63):
///
/// * own piece on `sq`: the opponent has no capture there that nets
///   material (its [`swap`] is absent or at most 0);
/// * opponent's piece on `sq`: the side can capture it and net at least 0;
/// * empty `sq`: the side controls it, and after its least valuable
///   controlling piece moves there the opponent cannot take it with gain.
pub fn has_control(board: &BoardView, colour: usize, sq: usize) -> bool {
    let (c, sq) = (colour & 1, sq & 63);
    let bit = 1u64 << sq;
    let occupied = board.occupied();
    let value_on = |sq: u32| board.piece_on(sq).map_or(0, |(_, k)| EXCHANGE_VALUES[k]);
    if board.colour_set(c) & bit != 0 {
        swap(board, sq, c ^ 1, value_on(sq as u32), occupied).is_none_or(|g| g <= 0)
    } else if board.colour_set(c ^ 1) & bit != 0 {
        swap(board, sq, c, value_on(sq as u32), occupied).is_some_and(|g| g >= 0)
    } else {
        let own = attacks::attackers_to(board, sq, occupied) & board.colour_set(c);
        let Some((from, value)) = least_valuable(board, own) else {
            return false;
        };
        swap(board, sq, c ^ 1, value, occupied & !(1u64 << from)).is_none_or(|g| g <= 0)
    }
}

/// Every square over which `colour` (0 or 1) has exchange control.
pub fn control_set(board: &BoardView, colour: usize) -> u64 {
    control_set_within(board, colour, u64::MAX)
}

/// The squares of `within` over which `colour` (0 or 1) has exchange
/// control: [`control_set`] restricted to a mask, running the exchange
/// evaluation only where it can matter (a pattern call naming a few
/// squares need not evaluate all 64).
pub fn control_set_within(board: &BoardView, colour: usize, within: u64) -> u64 {
    let c = colour & 1;
    let occupied = board.occupied();
    let reach = |side: usize| {
        (0..6).fold(0, |acc, k| {
            acc | attacks::of_set(side, k, board.pieces[side][k], occupied)
        })
    };
    let (own_reach, enemy_reach) = (reach(c), reach(c ^ 1));
    let own = board.colour_set(c);
    // Squares decided without an exchange: own pieces nobody attacks hold;
    // squares the side cannot reach are lost.
    let mut set = own & !enemy_reach & within;
    let contested = ((own & enemy_reach) | (!own & own_reach)) & within;
    for sq in super::sets::squares(contested) {
        if has_control(board, c, sq) {
            set |= 1 << sq;
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::kind;

    fn sq(n: &str) -> usize {
        crate::lit::parse_square(n).unwrap() as usize
    }

    fn board(pieces: &[(usize, usize, &str)]) -> BoardView {
        let mut b = BoardView::EMPTY;
        for &(c, k, s) in pieces {
            b.pieces[c][k] |= 1 << sq(s);
        }
        b
    }

    #[test]
    fn swaps() {
        // Pawn takes a knight defended by a pawn: +300 -100.
        let b = board(&[
            (WHITE, kind::PAWN, "e4"),
            (BLACK, kind::KNIGHT, "d5"),
            (BLACK, kind::PAWN, "e6"),
        ]);
        assert_eq!(swap(&b, sq("d5"), WHITE, 300, b.occupied()), Some(200));
        // Queen takes a pawn defended by a pawn: the first capture is forced.
        let b = board(&[
            (WHITE, kind::QUEEN, "d1"),
            (BLACK, kind::PAWN, "d5"),
            (BLACK, kind::PAWN, "e6"),
        ]);
        assert_eq!(swap(&b, sq("d5"), WHITE, 100, b.occupied()), Some(-800));
        // Rook battery against a rook defence: R takes P, R takes R, R takes R.
        let b = board(&[
            (WHITE, kind::ROOK, "d1"),
            (WHITE, kind::ROOK, "d2"),
            (BLACK, kind::PAWN, "d5"),
            (BLACK, kind::ROOK, "d8"),
        ]);
        assert_eq!(swap(&b, sq("d5"), WHITE, 100, b.occupied()), Some(100));
        assert_eq!(swap(&b, sq("a5"), WHITE, 0, b.occupied()), None);
    }

    #[test]
    fn control_cases() {
        // White knight on d5 attacked by a black pawn and defended by a white pawn: Black
        // wins material (300 for 100), so White lacks control; Black has it.
        let b = board(&[
            (WHITE, kind::KNIGHT, "d5"),
            (WHITE, kind::PAWN, "e4"),
            (BLACK, kind::PAWN, "c6"),
        ]);
        assert!(!has_control(&b, WHITE, sq("d5")));
        assert!(has_control(&b, BLACK, sq("d5")));
        // An empty square only White reaches.
        assert!(has_control(&b, WHITE, sq("f5")));
        assert!(!has_control(&b, BLACK, sq("f5")));
        // An empty square only Black reaches.
        assert!(has_control(&b, BLACK, sq("b5")));
        assert!(!has_control(&b, WHITE, sq("b5")));
        assert_eq!(control_set(&b, WHITE) & 1 << sq("e4"), 1 << sq("e4"));
    }
}
