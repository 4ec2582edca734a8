//! Perft: counting the leaf nodes of the legal move tree to a fixed depth.
//!
//! Published perft counts are the standard test of a move generator (every rule shows up somewhere
//! in the tree) and perft speed is the standard benchmark of generator plus move making. The last ply
//! is counted in bulk: at depth 1 the legal moves are counted by population counts of their target
//! sets without being listed or played.

use crate::chess_move::Move;
use crate::movegen::{count_legal_moves, legal_moves_into};
use crate::movelist::MoveList;
use crate::position::Position;

/// The number of leaf nodes of the legal move tree of `pos` to `depth` plies (1 at depth 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal_moves(pos),
        _ => {
            let mut moves = MoveList::new();
            legal_moves_into(pos, &mut moves);
            let mut nodes = 0;
            for &mv in moves.iter() {
                let mut child = *pos;
                child.play(mv);
                nodes += perft(&child, depth - 1);
            }
            nodes
        }
    }
}

/// Perft split by first move: each legal move with the leaf count below it (depth - 1 plies), in
/// generation order. The counts add up to `perft(pos, depth)`; at depth 0 the list is empty.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| (mv, perft(&pos.after(mv), depth - 1)))
        .collect()
}
