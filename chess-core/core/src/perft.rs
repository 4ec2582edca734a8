//! Perft: counting the leaf nodes of the legal move tree to a fixed depth.
//!
//! Published perft counts are the standard test of a move generator (every rule shows up somewhere
//! in the tree) and perft speed is the standard benchmark of generator plus move making. The last ply
//! is counted in bulk: at depth 1 the legal moves are counted by population counts of their target
//! sets without being listed or played.
//!
//! The count recurses once per ply, so the depth is bounded by [`MAX_PERFT_DEPTH`] (64 plies, far
//! beyond any count that could finish: the start position alone has about 10^45 paths of 40 plies).
//! [`perft_until`] counts the same tree but can be interrupted, reporting what it has counted, and
//! refuses a depth beyond the maximum with a [`DepthError`] instead of running.

use crate::chess_move::Move;
use crate::movegen::{count_legal_moves, legal_moves_into};
use crate::movelist::MoveList;
use crate::position::Position;

/// The deepest perft counted (each ply takes one recursion level of a few hundred bytes of stack).
pub const MAX_PERFT_DEPTH: u32 = 64;

/// A perft depth beyond [`MAX_PERFT_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthError {
    /// The depth asked for.
    pub depth: u32,
}

impl std::fmt::Display for DepthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "perft depth {} is beyond the supported maximum {MAX_PERFT_DEPTH}",
            self.depth
        )
    }
}

impl std::error::Error for DepthError {}

/// Checks a perft depth against [`MAX_PERFT_DEPTH`].
pub fn check_depth(depth: u32) -> Result<u32, DepthError> {
    if depth > MAX_PERFT_DEPTH {
        Err(DepthError { depth })
    } else {
        Ok(depth)
    }
}

/// The number of leaf nodes of the legal move tree of `pos` to `depth` plies (1 at depth 0).
///
/// # Panics
///
/// When `depth` is beyond [`MAX_PERFT_DEPTH`] (with the message of [`DepthError`]); check it
/// first with [`check_depth`], or count with [`perft_until`], which returns the error.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if let Err(e) = check_depth(depth) {
        panic!("{e}");
    }
    count(pos, depth)
}

fn count(pos: &Position, depth: u32) -> u64 {
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
                nodes += count(&child, depth - 1);
            }
            nodes
        }
    }
}

/// Perft split by first move: each legal move with the leaf count below it (depth - 1 plies), in
/// generation order. The counts add up to `perft(pos, depth)`; at depth 0 the list is empty.
///
/// # Panics
///
/// When `depth` is beyond [`MAX_PERFT_DEPTH`], as [`perft`] does.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if let Err(e) = check_depth(depth) {
        panic!("{e}");
    }
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| (mv, count(&pos.after(mv), depth - 1)))
        .collect()
}

/// What [`perft_until`] counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftCount {
    /// Leaf nodes counted: the whole tree when `complete`, otherwise the part counted before the
    /// stop (the root moves reported in full plus part of the next one).
    pub nodes: u64,
    /// Whether the whole tree was counted.
    pub complete: bool,
}

/// Counts the leaf nodes of the legal move tree of `pos` to `depth` plies like [`divide`] and
/// [`perft`] together, so that a long count can be watched and interrupted: each root move's count
/// goes to `on_move` as soon as it is known (in generation order; not at depth 0), and `stop` is
/// asked before every node more than two plies above the leaves (the subtrees below are counted
/// as [`perft`] counts them, a few thousand leaves at most in real positions); once it answers
/// true the count ends early with what it has. A depth beyond [`MAX_PERFT_DEPTH`] is refused.
pub fn perft_until(
    pos: &Position,
    depth: u32,
    stop: &dyn Fn() -> bool,
    on_move: &mut dyn FnMut(Move, u64),
) -> Result<PerftCount, DepthError> {
    check_depth(depth)?;
    if depth == 0 {
        return Ok(PerftCount {
            nodes: 1,
            complete: true,
        });
    }
    let mut nodes = 0;
    for &mv in pos.legal_moves().iter() {
        let before = nodes;
        if !count_until(&pos.after(mv), depth - 1, stop, &mut nodes) {
            return Ok(PerftCount {
                nodes,
                complete: false,
            });
        }
        on_move(mv, nodes - before);
    }
    Ok(PerftCount {
        nodes,
        complete: true,
    })
}

/// Adds the leaf count of `pos` to `depth` plies to `nodes`; false when `stop` ended it early.
fn count_until(pos: &Position, depth: u32, stop: &dyn Fn() -> bool, nodes: &mut u64) -> bool {
    if depth <= 2 {
        *nodes += count(pos, depth);
        return true;
    }
    if stop() {
        return false;
    }
    let mut moves = MoveList::new();
    legal_moves_into(pos, &mut moves);
    for &mv in moves.iter() {
        let mut child = *pos;
        child.play(mv);
        if !count_until(&child, depth - 1, stop, nodes) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn depths_beyond_the_maximum_are_refused() {
        let pos = Position::startpos();
        let never = || false;
        let e = perft_until(&pos, 99_999, &never, &mut |_, _| {}).unwrap_err();
        assert_eq!(e, DepthError { depth: 99_999 });
        assert_eq!(
            e.to_string(),
            "perft depth 99999 is beyond the supported maximum 64"
        );
        assert_eq!(check_depth(MAX_PERFT_DEPTH), Ok(MAX_PERFT_DEPTH));
        assert!(check_depth(MAX_PERFT_DEPTH + 1).is_err());
        assert!(std::panic::catch_unwind(|| perft(&pos, u32::MAX)).is_err());
    }

    #[test]
    fn interruptible_count_matches_the_published_numbers() {
        let pos = Position::startpos();
        let never = || false;
        let mut split = Vec::new();
        let c = perft_until(&pos, 4, &never, &mut |mv, n| split.push((mv, n))).unwrap();
        assert_eq!(
            c,
            PerftCount {
                nodes: 197_281,
                complete: true
            }
        );
        assert_eq!(split, divide(&pos, 4));
        let c = perft_until(&pos, 0, &never, &mut |_, _| panic!("no moves at depth 0")).unwrap();
        assert_eq!(c.nodes, 1);
        let c = perft_until(&pos, 1, &never, &mut |_, _| {}).unwrap();
        assert_eq!(c.nodes, 20);
    }

    #[test]
    fn a_stop_ends_the_count_with_what_it_has() {
        let pos = Position::startpos();
        // Stop at once: nothing below the root was counted.
        let c = perft_until(&pos, 5, &|| true, &mut |_, _| panic!("no move finished")).unwrap();
        assert_eq!(
            c,
            PerftCount {
                nodes: 0,
                complete: false
            }
        );
        // Stop after the first root move (moves are generated piece by piece, knights first):
        // its full count (b1a3 at depth 5: 198,572 in the published divide of the start
        // position) and not all of the rest.
        let finished = Cell::new(0);
        let mut first = None;
        let c = perft_until(&pos, 5, &|| finished.get() > 0, &mut |mv, n| {
            first.get_or_insert((mv.to_string(), n));
            finished.set(finished.get() + 1);
        })
        .unwrap();
        assert!(!c.complete);
        assert_eq!(first, Some(("b1a3".to_string(), 198_572)));
        assert_eq!(finished.get(), 1);
        assert!(c.nodes >= 198_572 && c.nodes < 4_865_609, "{c:?}");
    }
}
