//! Choosing a book move: at random, each move with probability proportional to its weight.
//!
//! The generator is a seeded xorshift64* (no dependencies), so a given seed always picks the same
//! move: the engine seeds it from `RandomSeed`, the search count and the position, which varies
//! the choice from game to game and keeps a run reproducible.

use chess_core::chess_move::Move;

// One step of the engine's xorshift64* generator (the search's random
// move choice uses the same one).
use crate::search::searcher::next_random as next;

/// Picks one of `moves` with probability `weight / total weight`, using `seed`; `None` when the
/// list is empty or every weight is 0.
pub fn weighted_choice(moves: &[(Move, u16)], seed: u64) -> Option<Move> {
    let total: u64 = moves.iter().map(|&(_, w)| u64::from(w)).sum();
    if total == 0 {
        return None;
    }
    let mut state = seed;
    // Two steps mix nearby seeds apart.
    next(&mut state);
    let mut pick = next(&mut state) % total;
    for &(mv, w) in moves {
        let w = u64::from(w);
        if pick < w {
            return Some(mv);
        }
        pick -= w;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_core::position::Position;

    #[test]
    fn frequencies_follow_the_weights() {
        let pos = Position::startpos();
        let mv = |t: &str| pos.parse_uci(t).expect("legal");
        let moves = [
            (mv("e2e4"), 6),
            (mv("d2d4"), 3),
            (mv("c2c4"), 1),
            (mv("a2a3"), 0),
        ];
        let n = 20_000u64;
        let mut counts = [0u64; 4];
        for seed in 0..n {
            let chosen = weighted_choice(&moves, seed).expect("a move");
            let i = moves
                .iter()
                .position(|&(m, _)| m == chosen)
                .expect("listed");
            counts[i] += 1;
        }
        // Expected 12000, 6000, 2000, 0; the bounds are about five standard deviations.
        assert!((11_650..=12_350).contains(&counts[0]), "{counts:?}");
        assert!((5_680..=6_320).contains(&counts[1]), "{counts:?}");
        assert!((1_790..=2_210).contains(&counts[2]), "{counts:?}");
        assert_eq!(counts[3], 0, "{counts:?}");
        assert_eq!(weighted_choice(&[], 1), None);
        assert_eq!(weighted_choice(&[(mv("e2e4"), 0)], 1), None);
    }
}
