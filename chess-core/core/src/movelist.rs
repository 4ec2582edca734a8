//! A fixed-capacity list of moves that lives on the stack.
//!
//! Move generation runs at every node of a search or perft, so it must not allocate. No legal chess
//! position has more than 218 moves, and the FEN parser only accepts material that promotions can
//! explain, so 256 slots always suffice; the length is a `u8`, which also lets the compiler see every
//! index is in range.

use crate::chess_move::Move;
use std::ops::Deref;

/// Capacity of a [`MoveList`].
pub const MAX_MOVES: usize = 256;

/// Up to 256 moves, stored inline.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: u8,
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::normal(crate::Square::A1, crate::Square::A1); MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move. Positions reachable from a valid FEN never fill the list; should one ever
    /// do, each further move overwrites the last slot rather than panicking.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len as usize] = mv;
        self.len = self.len.saturating_add(1);
    }

    /// Number of moves held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True if the list holds no move.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    #[inline(always)]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
